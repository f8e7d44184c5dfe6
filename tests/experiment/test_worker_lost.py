"""Killing one loky worker mid-run loses only the cell it was running: that cell is recorded
as an error, every other cell runs to the end, and a rerun completes the lost one."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from conftest import TESTS_DIR
from runner_solvers import FIT_LOG, read_fit_log

from ordauc.experiment.backends import LocalBackend, lost_worker_message

CELLS = 10
MESSAGE = "its worker process was killed by SIGKILL (signal 9)"


def complete_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    data = path.read_bytes()
    return list(csv.DictReader(data[: data.rfind(b"\n") + 1].decode("utf-8").splitlines()))


def loky_workers(runner: psutil.Process) -> list[psutil.Process]:
    """The runner's loky worker processes: its own children running loky, not loky's
    resource tracker (the cells' processes are the workers' children)."""
    workers = []
    for child in runner.children():
        try:
            line = " ".join(child.cmdline())
        except psutil.NoSuchProcess:
            continue
        if "loky" in line and "resource_tracker" not in line:
            workers.append(child)
    return workers


def freeze_a_running_cell(runner: psutil.Process, fit_log: Path
                          ) -> tuple[psutil.Process, psutil.Process, dict[str, Any]] | None:
    """(worker, its cell's process, the cell's fit-log line) with that cell stopped (SIGSTOP)
    mid-fit, once both workers run a cell; None if not yet. A stopped cell cannot finish, so
    the worker is known to be running exactly this cell when it is killed."""
    logged = {line["pid"]: line for line in read_fit_log(fit_log)}
    busy = []
    try:
        for worker in loky_workers(runner):
            cells = [c for c in worker.children() if c.pid in logged]
            if cells:
                busy.append((worker, cells[0]))
        if len(busy) < 2:
            return None
        worker, cell = busy[0]
        cell.suspend()
        if cell.status() == psutil.STATUS_ZOMBIE:  # it finished just before: try another
            return None
    except psutil.NoSuchProcess:
        return None
    return worker, cell, logged[cell.pid]


@pytest.mark.slow
def test_a_killed_worker_loses_only_its_cell_and_a_rerun_completes_it(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path) -> None:
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"repeats": CELLS, "n_labeled": [20], "n_unlabeled": [10]},
        "solvers": {"slow_ranker": {"params": {"delay": 0.6}}}})
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR), FIT_LOG: str(fit_log)}
    runner = subprocess.Popen(
        [sys.executable, str(TESTS_DIR / "runner_solvers.py"), "run", str(config), "--out",
         str(out), "--n-jobs", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    try:
        parent = psutil.Process(runner.pid)
        deadline = time.monotonic() + 120
        while (frozen := freeze_a_running_cell(parent, fit_log)) is None:
            assert runner.poll() is None, runner.stderr.read()
            assert time.monotonic() < deadline, "no two cells ever ran at once"
            time.sleep(0.02)
        worker, cell, fit = frozen
        assert worker.ppid() == runner.pid  # the orphan guard's premise: the runner's child
        worker.kill()
        _, stderr = runner.communicate(timeout=120)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 1, stderr
    assert f"{CELLS} cells: {CELLS - 1} ok, 1 error ({CELLS} run now)" in stderr, stderr
    assert "Traceback" not in stderr
    assert psutil.wait_procs([cell], timeout=10)[1] == []  # the cell died with its worker

    rows = complete_rows(out / "results.csv")
    keys = [r["key"] for r in rows]
    assert len(keys) == CELLS == len(set(keys))
    assert len({r["solver_seed"] for r in rows}) == CELLS  # the seed names the cell
    failed = [r for r in rows if r["status"] != "ok"]
    assert [(r["solver_seed"], r["status"], r["message"]) for r in failed] == [
        (fit["random_state"], "error", MESSAGE)]
    assert failed[0]["dataset"] == "breast_cancer" and failed[0]["config_hash"]

    code, _, stderr = cli("run", config, "--out", out, "--n-jobs", "2")
    assert code == 0, stderr
    assert f"{CELLS} cells: {CELLS} ok (1 run now)" in stderr
    after = complete_rows(out / "results.csv")
    assert sorted(r["key"] for r in after) == sorted(keys)
    assert all(r["status"] == "ok" for r in after)
    kept = {r["key"]: r for r in rows if r["status"] == "ok"}
    assert all(kept[r["key"]] == r for r in after if r["key"] in kept)  # nothing else redone


def nap(seconds: float) -> tuple[int, set[int]]:
    """A worker's task: sleep, then say which process slept and its BLAS thread counts; a
    negative time raises."""
    from threadpoolctl import threadpool_info

    if seconds < 0:
        raise ValueError("deliberate failure of a task")
    time.sleep(seconds)
    return os.getpid(), {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


@pytest.mark.slow
def test_another_failure_propagates_and_kills_the_busy_workers() -> None:
    here = psutil.Process()
    before = set(loky_workers(here))
    results = LocalBackend(2).map(nap, [0, 60, -1])
    pid, blas_threads = next(results)  # the first slot's next task fails, the other naps
    assert blas_threads == {1}
    workers = [w for w in loky_workers(here) if w not in before]
    assert pid in {w.pid for w in workers} and len(workers) == 2
    start = time.monotonic()
    with pytest.raises(ValueError, match="deliberate failure"):
        next(results)
    assert time.monotonic() - start < 30  # not waiting for the nap to end
    assert psutil.wait_procs(workers, timeout=10)[1] == []


ORPHANS = f"""
import sys, time
sys.path[:0] = [{str(TESTS_DIR / "experiment")!r}, {str(TESTS_DIR)!r}]
from ordauc.experiment.backends import LocalBackend
from test_worker_lost import nap
results = LocalBackend(2).map(nap, [0, 0, 60])
print(next(results)[0], next(results)[0], flush=True)  # one worker naps, one waits
time.sleep(120)
"""


@pytest.mark.slow
def test_workers_busy_or_idle_stop_when_the_runner_is_killed() -> None:
    runner = subprocess.Popen([sys.executable, "-c", ORPHANS], stdout=subprocess.PIPE,
                              text=True)
    try:
        workers = [psutil.Process(int(pid)) for pid in runner.stdout.readline().split()]
        assert len(workers) == 2 and all(w.ppid() == runner.pid for w in workers)
        runner.kill()
        runner.wait(10)
    finally:
        if runner.poll() is None:
            runner.kill()
        runner.stdout.close()
    assert psutil.wait_procs(workers, timeout=10)[1] == []


def test_the_message_names_how_the_worker_ended() -> None:
    def loky_error(codes: str) -> Exception:
        return Exception("A worker process managed by the executor was unexpectedly "
                         f"terminated.\nThe exit codes of the workers are {codes}\n")

    assert lost_worker_message(loky_error("{SIGKILL(-9)}")) == MESSAGE
    assert lost_worker_message(loky_error("{EXIT(3)}")) == (
        "its worker process exited with code 3")
    assert lost_worker_message(Exception("no codes")) == "its worker process ended unexpectedly"


def test_one_job_runs_in_this_process() -> None:
    assert list(LocalBackend(1).map(lambda n: (n, os.getpid()), [1, 2])) == [
        (1, os.getpid()), (2, os.getpid())]
