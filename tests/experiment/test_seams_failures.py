"""Failures one can debug: a diverging fit is an error naming its schedule, a failed cell's
traceback is kept in OUT/logs, ``--debug`` shows it in the terminal, SIGTERM stops a run as
Ctrl-C does."""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
from conftest import TESTS_DIR

STUDY = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [40], "n_unlabeled": [40]},
         "tuning": {"folds": 2}}


def results(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv").set_index("solver")


def test_a_diverging_fit_is_an_error_naming_its_schedule(write_config, cli,
                                                        tmp_path: Path) -> None:
    literal = {"n_iter": 30, "t0": 0, "lam": 1}
    out = tmp_path / "out"
    code, _, stderr = cli("run", write_config({**STUDY, "solvers": {
        "diverges": {"solver": "qsg_s2auc", "params": {**literal, "theta": 50}},
        "one_point_diverges": {"solver": "qsg_s2auc", "params": literal,
                               "grid": {"theta": [50, 1.5]}},
        "stable": {"solver": "qsg_s2auc", "params": {"n_iter": 30, "theta": 50}}}}),
        "--out", out)
    assert code == 1 and "3 cells: 2 ok, 1 error" in stderr
    table = results(out)
    diverged = table.loc["diverges"]
    assert diverged["status"] == "error" and pd.isna(diverged["auc"])
    assert diverged["message"].startswith("DivergenceError (at ")
    assert "eta_t = theta/(t + t0) with theta = 50, t0 = 0 is too large" in diverged["message"]
    assert "leave t0 unset" in diverged["message"]
    tuned = table.loc["one_point_diverges"]  # the diverging point scores NaN, the other wins
    assert tuned["status"] == "ok" and tuned["p_theta"] == 1.5 and tuned["cv_failed"] == 2
    assert tuned["cv_message"].startswith("{'theta': 50}: DivergenceError")
    assert "t0 = 0" in tuned["cv_message"]
    stable = table.loc["stable"]  # the same theta with the default offset t0 converges
    assert stable["status"] == "ok" and stable["p_t0"] == math.ceil(50 / 0.25) - 1
    ok = table[table["status"] == "ok"]
    assert ok["auc"].notna().all() and ok["auc"].between(0.5, 1).all()  # no NaN AUC in an ok row


def test_a_failed_cell_keeps_its_traceback_in_the_logs(test_solvers, write_config, cli,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = write_config({**STUDY, "solvers": {"failing_ranker": None, "mean_ranker": None}})
    assert cli("run", config, "--out", out)[0] == 1
    logs = sorted((out / "logs").iterdir())
    assert [p.name for p in logs] == ["breast_cancer_failing_ranker_r0_l40_u40.log"]
    text = logs[0].read_text(encoding="utf-8")
    row = results(out).loc["failing_ranker"]
    key, message = text.splitlines()[:2]
    assert key == "breast_cancer/failing_ranker/r0/l40/u40" and message == row["message"]
    assert "Traceback (most recent call last):" in text
    assert 'raise ValueError("deliberate failure in fit")' in text  # the failing line itself
    assert "in measure" in text and "runner_solvers.py" in text  # every frame, not only the last
    assert text.rstrip().endswith("ValueError: deliberate failure in fit")


def ordauc(*args: object, **popen: object) -> subprocess.Popen:
    """``ordauc`` with the test solvers registered, in a new process."""
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR)}
    return subprocess.Popen([sys.executable, str(TESTS_DIR / "runner_solvers.py"),
                             *map(str, args)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def test_debug_shows_the_full_traceback_and_writes_nothing(write_config, tmp_path: Path) -> None:
    out = tmp_path / "out"
    both = write_config({**STUDY, "solvers": {"mean_ranker": None, "failing_ranker": None}})
    only_failing = write_config({**STUDY, "solvers": {"failing_ranker": None}}, name="f.yaml")
    before = sorted(tmp_path.rglob("*"))
    # the first pending cell is mean_ranker's, which runs without error
    done = ordauc("run", both, "--out", out, "--debug")
    stdout, stderr = done.communicate(timeout=120)
    assert done.returncode == 0 and stderr.strip() == (
        "ordauc: cell breast_cancer/mean_ranker/r0/l40/u40 ran without error (nothing written)")
    done = ordauc("run", only_failing, "--out", out, "--debug")
    stdout, stderr = done.communicate(timeout=120)
    assert done.returncode not in (0, 2), stderr  # not a user error: a crash, shown as such
    assert stderr.startswith("Traceback (most recent call last):")
    assert stderr.count("\n") > 5 and "ordauc: error:" not in stderr
    assert 'raise ValueError("deliberate failure in fit")' in stderr
    assert stderr.rstrip().endswith("ValueError: deliberate failure in fit")
    assert not out.exists() and sorted(tmp_path.rglob("*")) == before


def test_debug_shows_the_solver_traceback_when_every_grid_point_fails(write_config,
                                                                     tmp_path: Path) -> None:
    """The tuner's 'every grid point failed' is chained to the first point's own exception, so
    the terminal shows the line in the solver that raised."""
    config = write_config({**STUDY, "solvers": {"failing_ranker": {"grid": {"lam": [1, 2]}}}})
    done = ordauc("run", config, "--out", tmp_path / "out", "--debug")
    _, stderr = done.communicate(timeout=120)
    assert done.returncode not in (0, 2), stderr
    assert 'raise ValueError("deliberate failure in fit")' in stderr
    assert "The above exception was the direct cause of the following exception" in stderr
    assert stderr.rstrip().endswith(
        "CandidatesFailed: every grid point failed; the first: {'lam': 1}: ValueError (at "
        "runner_solvers.py:150): deliberate failure in fit")


def complete_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    data = path.read_bytes()
    return list(csv.DictReader(data[: data.rfind(b"\n") + 1].decode("utf-8").splitlines()))


def test_sigterm_stops_the_run_like_ctrl_c(write_config, cli, test_solvers,
                                           tmp_path: Path) -> None:
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"repeats": 6, "n_labeled": [20], "n_unlabeled": [10, 20]},
        "solvers": {"slow_ranker": {"params": {"delay": 0.4}}}})
    out = tmp_path / "out"
    runner = ordauc("run", config, "--out", out, "--n-jobs", "2")
    try:
        deadline = time.monotonic() + 60
        while len(complete_rows(out / "results.csv")) < 3 and time.monotonic() < deadline:
            assert runner.poll() is None, runner.stderr.read()
            time.sleep(0.05)
        family = psutil.Process(runner.pid).children(recursive=True)
        runner.send_signal(signal.SIGTERM)
        _, stderr = runner.communicate(timeout=30)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 143, stderr  # 128 + SIGTERM, as a shell reports it
    assert stderr.strip().splitlines()[-1] == (
        f"ordauc: interrupted; finished cells are kept in {out}, run the same command again to "
        "complete the others")
    assert "Traceback" not in stderr
    kept = {r["key"]: r for r in complete_rows(out / "results.csv")}
    assert 3 <= len(kept) < 12 and (out / "results.csv").read_bytes().endswith(b"\n")
    assert all(r["status"] == "ok" for r in kept.values())
    assert psutil.wait_procs(family, timeout=10)[1] == []  # no worker or cell left running
    code, _, stderr = cli("run", config, "--out", out, "--n-jobs", "2")
    assert code == 0 and f"12 cells: 12 ok ({12 - len(kept)} run now)" in stderr
    after = {r["key"]: r for r in complete_rows(out / "results.csv")}
    assert len(after) == 12 and all(after[k] == row for k, row in kept.items())
