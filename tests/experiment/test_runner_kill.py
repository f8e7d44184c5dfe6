"""Killing `ordauc run` with SIGKILL mid-run loses nothing: a re-run completes the rest."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest
from conftest import TESTS_DIR
from runner_solvers import FIT_LOG, read_fit_log

CELLS = 12


def complete_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    data = path.read_bytes()
    text = data[: data.rfind(b"\n") + 1].decode("utf-8")
    return list(csv.DictReader(text.splitlines()))


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
def test_sigkill_then_rerun_completes_only_the_missing_cells(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path) -> None:
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"repeats": 6, "n_labeled": [20], "n_unlabeled": [10, 20]},
        "solvers": {"slow_ranker": {"params": {"delay": 0.4}}}})
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR), FIT_LOG: str(fit_log)}
    runner = subprocess.Popen(
        [sys.executable, str(TESTS_DIR / "runner_solvers.py"), "run", str(config), "--out",
         str(out), "--n-jobs", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert wait_until(lambda: len(complete_rows(out / "results.csv")) >= 3, 60), \
            runner.stderr.read().decode() if runner.poll() is not None else "no rows"
        family = psutil.Process(runner.pid).children(recursive=True)  # workers, cells
        assert family
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
    finally:
        if runner.poll() is None:
            runner.kill()
        runner.stderr.close()
    before = {r["key"]: r for r in complete_rows(out / "results.csv")}
    assert 3 <= len(before) < CELLS, "kill came too late to test a resume"
    # the pool workers and the cells' processes die with the runner instead of running on
    pids = {p.pid for p in family} | {f["pid"] for f in read_fit_log(fit_log)}
    assert wait_until(lambda: not any(alive(p) for p in pids), 5)

    fits_before = len(read_fit_log(fit_log))
    code, _, stderr = cli("run", config, "--out", out, "--n-jobs", "2")
    assert code == 0, stderr
    assert f"{CELLS} cells: {CELLS} ok ({CELLS - len(before)} run now)" in stderr
    rows = complete_rows(out / "results.csv")
    keys = [r["key"] for r in rows]
    assert len(keys) == CELLS == len(set(keys))
    after = {r["key"]: r for r in rows}
    assert all(after[k] == row for k, row in before.items())  # no finished row lost or redone
    assert len(read_fit_log(fit_log)) - fits_before == CELLS - len(before)
    assert (out / "results.csv").read_bytes().endswith(b"\n")
    parquet = pd.read_parquet(out / "results.parquet")
    assert sorted(parquet["key"]) == sorted(keys)
