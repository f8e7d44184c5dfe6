"""The dask backend on a `distributed.LocalCluster`: the quickstart's table is the loky one, the
datasets are scattered once from the client (the workers never load one), a worker killed
mid-run loses no cell and repeats none, and a scheduler without workers is one sentence.

The quickstart runs with one repetition (28 cells), so that each run takes seconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO

pytest.importorskip("distributed", reason="the dask backend needs dask.distributed "
                    "(pip install 'ordauc[cluster]')")

from ordauc.errors import UserError  # noqa: E402
from ordauc.experiment import dispatch as dispatch_module  # noqa: E402
from ordauc.experiment.backends import make_backend  # noqa: E402
from ordauc.experiment.cell import DatasetRef  # noqa: E402
from ordauc.experiment.dispatch import Scattered  # noqa: E402
from ordauc.experiment.watch import seconds_from_env  # noqa: E402

QUICKSTART = REPO / "configs" / "quickstart.yaml"
TIMING = {"fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb",
          "started_at"}


def quickstart_config(folder: Path) -> Path:
    """configs/quickstart.yaml with one repetition: every dataset and solver, 28 cells."""
    config = yaml.safe_load(QUICKSTART.read_text(encoding="utf-8"))
    config["resampling"]["repeats"] = 1
    path = folder / "quickstart.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


def run_in_process(*args: object) -> int:
    from ordauc.cli import main

    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def table(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv")


def assert_same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Every key exactly once, and every column but the timings equal to the float."""
    assert got["key"].is_unique, got["key"][got["key"].duplicated()].tolist()
    got, want = got.set_index("key").sort_index(), want.set_index("key").sort_index()
    assert list(got.index) == list(want.index)
    assert (got["status"] == "ok").all(), got.loc[got["status"] != "ok", "message"]
    columns = [c for c in want.columns if c not in TIMING]
    pd.testing.assert_frame_equal(got[columns], want[columns], check_exact=True)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    """The shortened quickstart config and its table as loky makes it."""
    folder = tmp_path_factory.mktemp("quickstart")
    config = quickstart_config(folder)
    assert run_in_process("run", config, "--out", folder / "loky", "-j", "2") == 0
    return config, table(folder / "loky")


@contextlib.contextmanager
def local_cluster(n_workers: int) -> Iterator[object]:
    from distributed import LocalCluster

    with LocalCluster(host="127.0.0.1", n_workers=n_workers, threads_per_worker=1,
                      processes=True, dashboard_address=None) as cluster:
        yield cluster


def _refuse_to_load(self: DatasetRef, **extra: object) -> None:
    raise AssertionError(f"a worker loaded {self.name}: datasets must come scattered")


def _forbid_loading() -> None:
    """In a worker: loading a dataset by its ref fails from now on."""
    DatasetRef.load = _refuse_to_load  # type: ignore[method-assign]


@pytest.mark.slow
def test_the_quickstart_on_dask_is_the_loky_table(quickstart, tmp_path: Path, capsys,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import Client

    config, loky = quickstart
    scattered: list[str] = []
    scatter = Client.scatter

    def counted(self, data, *args, **kwargs):
        scattered.append(type(data).__name__)
        return scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(Client, "scatter", counted)
    with local_cluster(2) as cluster, Client(cluster) as client:
        client.run(_forbid_loading)  # the cells must get their data scattered
        capsys.readouterr()
        code = run_in_process("run", config, "--out", tmp_path / "dask", "--backend", "dask",
                              "--scheduler", cluster.scheduler_address)
        stderr = capsys.readouterr().err
    assert code == 0, stderr
    assert_same_table(table(tmp_path / "dask"), loky)
    # each of the four datasets left the client once, whatever the number of cells
    assert scattered == ["Dataset"] * 4
    assert "2 worker(s)" in stderr  # the progress bar shows the workers


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_cell(quickstart, tmp_path: Path) -> None:
    from distributed import Client

    config, loky = quickstart
    out = tmp_path / "dask"
    with local_cluster(2) as cluster, Client(cluster) as client:
        log = (tmp_path / "stderr.txt").open("w")
        run = subprocess.Popen([sys.executable, "-m", "ordauc", "run", str(config), "--out",
                                str(out), "--backend", "dask", "--scheduler",
                                cluster.scheduler_address], stdout=log, stderr=log,
                               cwd=tmp_path)
        try:
            deadline = time.monotonic() + 60
            while _rows(out) < 1 and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            busy = [w for w, keys in client.processing().items() if keys]
            assert busy and _rows(out) < len(loky), "the kill must land while cells run"
            os.kill(client.run(os.getpid)[busy[0]], signal.SIGKILL)
            assert run.wait(90) == 0, (tmp_path / "stderr.txt").read_text()
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
            log.close()
    assert_same_table(table(out), loky)


def _rows(out: Path) -> int:
    try:
        return max(0, len((out / "results.csv").read_text().splitlines()) - 1)
    except FileNotFoundError:
        return 0


def test_a_scheduler_without_workers_is_one_sentence(write_config, cli, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDAUC_WORKER_WAIT", "0.5")
    monkeypatch.setenv("ORDAUC_WORKER_LOST_WAIT", "1")  # were check() to let it through
    config = write_config({"datasets": ["breast_cancer"],
                           "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
                           "solvers": {"samult": None}})
    with local_cluster(0) as cluster:
        address = cluster.scheduler_address
        code, _, stderr = cli("run", config, "--out", tmp_path / "out", "--backend", "dask",
                              "--scheduler", address)
    assert code == 2, stderr
    assert stderr == (f"ordauc: error: the dask scheduler at {address} has no workers (none "
                      f"joined within 0.5 s); start some with `dask worker {address} "
                      "--nthreads 1`, or set ORDAUC_WORKER_WAIT to wait longer\n")
    assert not (tmp_path / "out").exists()


def test_a_scattered_dataset_loads_as_its_ref(tmp_path: Path) -> None:
    ref = DatasetRef("breast_cancer", {}, None)
    whole = ref.load()
    handle = Scattered(ref, {}, whole)
    assert handle.load() is whole  # no reading: the object the client scattered
    assert Scattered(ref, {"partition": 3}, whole).load(partition=3) is whole
    other = Scattered(ref, {"partition": 3}, whole).load()  # another call: through the ref
    assert other is not whole and (other.X == whole.X).all()


def test_each_task_scatters_the_partition_it_loads(write_config, tmp_path: Path) -> None:
    from ordauc.config import load_config
    from ordauc.experiment.runner import RunOptions, build_tasks, prepare

    path = write_config({"datasets": ["breast_cancer", {"name": "synthetic_binary", "n": 300}],
                         "resampling": {"repeats": 2, "n_labeled": [30], "n_unlabeled": [20]},
                         "solvers": {"samult": None}})
    config = load_config(path)
    options = RunOptions(out=tmp_path / "out")
    tasks = build_tasks(prepare(config, options), config, options)
    sources = [dispatch_module._source(t) for t in tasks]
    assert all(s is not None and s.extra == {} for s in sources)
    assert len({s.key for s in sources}) == 2  # one per dataset, whatever the repetitions
    # a partitioned resampling loads its repetition's partition: that is what is scattered
    task = tasks[-1]
    cell = replace(task.cell, resampling=replace(task.cell.resampling, kind="partitions"))
    source = dispatch_module._source(replace(task, cells=(cell,)))
    assert source.extra == {"partition": task.cell.repetition} and source.key not in {
        s.key for s in sources}
    # a handle that is not a DatasetRef is shipped as it is
    assert dispatch_module._source(replace(task, data=Scattered(task.data, {}, None))) is None


def test_bad_cluster_options_are_one_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match=r"^--backend dask needs --scheduler ADDRESS"):
        make_backend("dask", 2, None)
    with pytest.raises(UserError, match=r"^--backend must be one of loky, dask, slurm, pbs, "
                                        r"got 'ray'$"):
        make_backend("ray", 2, None)
    monkeypatch.setenv("ORDAUC_WORKER_LOST_WAIT", "soon")
    with pytest.raises(UserError, match=r"^ORDAUC_WORKER_LOST_WAIT must be a number of "
                                        r"seconds \(0 or more\), got 'soon'$"):
        seconds_from_env("ORDAUC_WORKER_LOST_WAIT", 300)
    monkeypatch.setenv("ORDAUC_WORKER_LOST_WAIT", " 42 ")
    assert seconds_from_env("ORDAUC_WORKER_LOST_WAIT", 300) == 42
    monkeypatch.delenv("ORDAUC_WORKER_LOST_WAIT")
    assert seconds_from_env("ORDAUC_WORKER_LOST_WAIT", 300) == 300


def test_the_bar_shows_a_backend_note_and_lines_above_it(capsys) -> None:
    from ordauc.experiment import progress

    with progress.progress_bar(2, enabled=True) as advance:
        advance({"status": "ok"})
        progress.note("2 worker(s), 1 cell(s) on them")
        progress.say("ordauc: a line above the bar")
        advance({"status": "ok"})
    err = capsys.readouterr().err
    assert "ordauc: a line above the bar\n" in err
    assert "cells (2 ok) · 2 worker(s), 1 cell(s) on them" in err
    with progress.progress_bar(2, enabled=True) as advance:  # no note: the loky display
        advance({"status": "ok"})
        advance({"status": "error"})
    err = capsys.readouterr().err
    assert "cells (1 error, 1 ok) " in err and "·" not in err
    progress.say("ordauc: no bar")  # then plainly on stderr
    progress.note("ignored")
    assert capsys.readouterr().err == "ordauc: no bar\n"
