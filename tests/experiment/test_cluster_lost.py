"""Workers lost under a dask run: every worker gone is said at once and, past the wait, stops
the run with its finished rows kept (the same command completes it); workers that come back
within the wait let it go on; a cell that kills every worker it runs on ends as an ``error``
row naming them, once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from conftest import TESTS_DIR

pytest.importorskip("distributed", reason="the dask backend needs dask.distributed "
                    "(pip install 'ordauc[cluster]')")

from runner_solvers import MeanRanker  # noqa: E402

from ordauc.claims.evidence import MEMORY_ERROR  # noqa: E402

SLOW = {"datasets": ["breast_cancer"],
        "resampling": {"repeats": 8, "n_labeled": [30], "n_unlabeled": [20]},
        "solvers": {"slow_ranker": {"params": {"delay": 1.0}}}}


class WorkerKiller(MeanRanker):
    """Kills the dask worker that runs its cell (the parent of the cell's forked process)."""

    def fit(self, X, y):  # noqa: ANN001, ANN201
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)  # the worker's death takes this process with it
        return self


@contextlib.contextmanager
def local_cluster(n_workers: int) -> Iterator[object]:
    from distributed import LocalCluster

    with LocalCluster(host="127.0.0.1", n_workers=n_workers, threads_per_worker=1,
                      processes=True, dashboard_address=None) as cluster:
        yield cluster


@contextlib.contextmanager
def run_with_test_solvers(config: Path, out: Path, address: str, log: Path,
                          wait: float) -> Iterator[subprocess.Popen]:
    """`ordauc run` (with the test solvers) on the dask scheduler at ``address``, in the
    background, its stderr in ``log``; killed if still running at the end."""
    env = {**os.environ, "ORDAUC_WORKER_LOST_WAIT": str(wait)}
    with log.open("w") as stream:
        run = subprocess.Popen([sys.executable, str(TESTS_DIR / "runner_solvers.py"), "run",
                                str(config), "--out", str(out), "--backend", "dask",
                                "--scheduler", address], stdout=stream, stderr=stream,
                               cwd=out.parent, env=env)
        try:
            yield run
        finally:
            if run.poll() is None:
                run.kill()
            run.wait()


def wait_for(condition, what: str, seconds: float = 60) -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def rows(out: Path) -> pd.DataFrame:
    path = out / "results.csv"
    return pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["key", "status"])


@pytest.mark.slow
def test_every_worker_lost_stops_the_run_and_the_same_command_resumes(
        write_config, tmp_path: Path) -> None:
    config, out, log = write_config(SLOW), tmp_path / "out", tmp_path / "stderr.txt"
    with local_cluster(1) as cluster:
        with run_with_test_solvers(config, out, cluster.scheduler_address, log, 3) as run:
            wait_for(lambda: len(rows(out)) >= 1, "a first row")
            cluster.scale(0)
            code = run.wait(60)
        stderr = log.read_text()
        kept = rows(out)
        assert code == 3, stderr
        assert 1 <= len(kept) < 8 and kept["key"].is_unique and (kept["status"] == "ok").all()
        waiting = 8 - len(kept)
        assert (f"ordauc: every dask worker is gone and {waiting} cell(s) are still to run; "
                f"start workers (`dask worker {cluster.scheduler_address} --nthreads 1`) within "
                "3 s (ORDAUC_WORKER_LOST_WAIT), or the run stops with the finished rows kept"
                in stderr)
        assert stderr.endswith(
            f"ordauc: error: no dask worker came back within 3 s and {waiting} cell(s) are still "
            f"to run; the finished rows are kept, so start workers (`dask worker "
            f"{cluster.scheduler_address} --nthreads 1`) and run the same command again\n")
        cluster.scale(1)
        with run_with_test_solvers(config, out, cluster.scheduler_address, log, 30) as run:
            assert run.wait(60) == 0, log.read_text()
    done = rows(out)
    assert len(done) == 8 and done["key"].is_unique and (done["status"] == "ok").all()
    assert set(kept["key"]) < set(done["key"])


@pytest.mark.slow
def test_workers_back_within_the_wait_let_the_run_go_on(write_config, tmp_path: Path) -> None:
    config, out, log = write_config(SLOW), tmp_path / "out", tmp_path / "stderr.txt"
    with local_cluster(1) as cluster, run_with_test_solvers(
            config, out, cluster.scheduler_address, log, 60) as run:
        wait_for(lambda: len(rows(out)) >= 1, "a first row")
        cluster.scale(0)  # the scattered dataset goes with the worker: scattered again
        wait_for(lambda: "every dask worker is gone" in log.read_text(), "the message", 20)
        assert run.poll() is None  # waiting, not stopped
        cluster.scale(1)
        assert run.wait(60) == 0, log.read_text()
    assert "dask worker(s) here again; the run goes on" in log.read_text()
    done = rows(out)
    assert len(done) == 8 and done["key"].is_unique and (done["status"] == "ok").all()


@pytest.mark.slow
def test_a_cell_that_kills_its_workers_is_one_error_row_naming_them(
        test_solvers, write_config, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dask

    from ordauc import solvers

    monkeypatch.setitem(solvers._REGISTRY, "worker_killer", "test_cluster_lost:WorkerKiller")
    config = write_config({"datasets": ["breast_cancer"],
                           "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
                           "solvers": {"worker_killer": None}})
    # one death allowed: the second worker the cell kills ends it (here its dataset, only on
    # the worker it kills, goes each time with it, and it is submitted again; with a copy on
    # another worker, dask runs it again itself: test_killed_worker_rows_...)
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            local_cluster(1) as cluster:
        code, _, stderr = cli("run", config, "--out", tmp_path / "out", "--backend", "dask",
                              "--scheduler", cluster.scheduler_address)
    assert code == 1, stderr
    table = rows(tmp_path / "out").set_index("key")
    assert table.index.is_unique and len(table) == 1
    row = table.loc["breast_cancer/worker_killer/r0/l30/u20"]
    assert row["status"] == "error"
    message = row["message"]
    assert message.startswith("lost with the dask workers that died while running it (tcp://")
    named = message.split("(", 1)[1].split(")", 1)[0].split(", ")
    assert len(set(named)) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in named)
    assert "more than distributed.scheduler.allowed-failures = 1 times" in message
    assert "\n" not in message


class _Future:
    """What Dispatch reads of a finished dask future."""

    def __init__(self, key: str, status: str, exception: BaseException | None = None) -> None:
        self.key, self.status, self._exception = key, status, exception

    def exception(self) -> BaseException | None:
        return self._exception


class _Client:
    def __init__(self, events: list | None) -> None:
        self.events = events

    def get_events(self, topic: str) -> list:
        assert topic == "all"
        if self.events is None:
            raise OSError("the scheduler is gone")
        return self.events


def test_killed_worker_rows_name_every_worker_the_task_was_on(write_config,
                                                              tmp_path: Path) -> None:
    from types import SimpleNamespace

    from distributed import KilledWorker

    from ordauc.config import load_config
    from ordauc.experiment.cell import lost_outcomes, run_cell
    from ordauc.experiment.dispatch import Dispatch
    from ordauc.experiment.runner import RunOptions, build_tasks, prepare

    config = load_config(write_config({"datasets": ["breast_cancer"],
                                       "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
                                       "solvers": {"samult": None}}))
    options = RunOptions(out=tmp_path / "out")
    task = build_tasks(prepare(config, options), config, options)[0]
    events = [(0.0, {"action": "remove-worker", "worker": "tcp://a:1",
                     "processing-tasks": {"k-0"}}),
              (1.0, {"action": "add-worker", "worker": "tcp://c:3"}),
              (2.0, {"action": "remove-worker", "worker": "tcp://z:9",
                     "processing-tasks": {"another"}}),
              (3.0, {"action": "remove-worker", "worker": "tcp://b:2",
                     "processing-tasks": {"k-1", "another"}})]
    died = KilledWorker("k-1", SimpleNamespace(address="tcp://b:2"), 3)
    for known, named in ((events, "tcp://a:1, tcp://b:2"), (None, "tcp://b:2")):
        dispatch = Dispatch(_Client(known), run_cell, lost_outcomes, watch=None)
        dispatch.tasks, dispatch.keys, dispatch.limit = [task], {0: ["k-0", "k-1"]}, 3
        rows = [o.row for o in dispatch._outcome(_Future("k-1", "error", died), 0)]
        assert [r["key"] for r in rows] == [c.key for c in task.cells]
        assert {r["status"] for r in rows} == {"error"}
        assert rows[0]["message"] == (
            f"lost with the dask workers that died while running it ({named}), more than "
            "distributed.scheduler.allowed-failures = 3 times; why they died (memory, a kill, "
            "a crash) is in the workers' logs")
        # a guess is no evidence: the claims count no memory failure from it
        assert not MEMORY_ERROR.search(rows[0]["message"])
        assert dispatch.retry == []  # ended, never submitted again
