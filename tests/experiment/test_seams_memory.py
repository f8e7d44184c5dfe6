"""The memory guard: a cell whose solver needs more than its share of the limit is recorded as
skipped, with the reason, and never started."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from runner_solvers import read_fit_log

STUDY = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [30], "n_unlabeled": [20]}}
SKIP = re.compile(r"needs [0-9.e+]+ GB for ([0-9,]+) training rows x ([0-9,]+) features, limit "
                  r"[0-9.e+-]+ GB( \([0-9.e+-]+ GB shared by (\d+) parallel cells\))?; raise "
                  r"--memory-limit to run it")
# SAMULT on 300 training rows: two 300 x 300 float64 arrays and X, about 1.5 MB.
SAMULT_300 = {"datasets": ["breast_cancer"],
              "resampling": {"n_labeled": [100], "n_unlabeled": [200]},
              "solvers": {"samult": None, "mean_ranker": None}}
# 1,500 training rows: SAMULT needs 36 MB, QSG (50 iterations) about 16 MB.
LARGER = {"datasets": [{"name": "synthetic_binary", "n": 2000, "d": 5}],
          "resampling": {"n_labeled": [100]},
          "solvers": {"samult": None, "qsg_s2auc": {"params": {"n_iter": 50}}}}


def rows(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv").set_index("solver")


def test_a_solver_too_big_for_any_machine_is_skipped_unstarted(test_solvers, write_config, cli,
                                                              tmp_path: Path) -> None:
    config = write_config({**STUDY, "solvers": {"huge_ranker": None, "mean_ranker": None}})
    out = tmp_path / "out"
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0 and not out.exists()
    line = next(s for s in stdout.splitlines() if "huge_ranker" in s)
    assert line.startswith("skipped  breast_cancer/huge_ranker/r0/l30/u20  (needs 1.02e+03 GB")
    assert SKIP.search(line) and "1 missing, 1 skipped" in stdout
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0 and "2 cells: 1 ok, 1 skipped (2 run now)" in stderr
    table = rows(out)
    huge = table.loc["huge_ranker"]  # its fit raises: had it started, the cell would be error
    assert huge["status"] == "skipped" and SKIP.fullmatch(huge["message"])
    assert SKIP.fullmatch(huge["message"]).group(1, 2) == ("50", "30")
    assert pd.isna(huge["wall_time_s"]) and pd.isna(huge["started_at"])  # never started
    assert (huge["n_labeled"], huge["n_unlabeled"], huge["n_test"]) == (30, 20, 142)
    assert table.loc["mean_ranker", "status"] == "ok"
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert "2 cells: 2 done;" in stdout  # a recorded skip stays recorded


def test_a_memory_limit_skips_the_cells_above_it_and_never_fits_them(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path) -> None:
    config = write_config({**STUDY, "solvers": {"mean_ranker": None}})
    out = tmp_path / "out"
    # mean_ranker states 8 bytes per training value: 50 x 30 x 8 = 12,000 bytes > 10 KB
    code, _, stderr = cli("run", config, "--out", out, "--memory-limit", "10KB")
    assert code == 0 and "1 cells: 1 skipped (1 run now)" in stderr
    assert rows(out).loc["mean_ranker", "status"] == "skipped"
    assert read_fit_log(fit_log) == []  # no fit was started
    # the message's advice works: with a higher limit the skipped cell runs
    code, _, stderr = cli("run", config, "--out", out, "--memory-limit", "12KB")
    assert code == 0 and "1 cells: 1 ok (1 run now)" in stderr, stderr
    assert rows(out).loc["mean_ranker", "status"] == "ok" and len(read_fit_log(fit_log)) == 1
    code, _, stderr = cli("run", config, "--out", out, "--memory-limit", "10KB")
    assert code == 0 and "1 cells: 1 ok (0 run now)" in stderr  # a finished cell is kept


def test_one_megabyte_skips_samult_on_300_rows(write_config, cli, tmp_path: Path,
                                              test_solvers) -> None:
    out = tmp_path / "out"
    code, _, stderr = cli("run", write_config(SAMULT_300), "--out", out, "--memory-limit",
                          "1MB")
    assert code == 0, stderr
    table = rows(out)
    samult = table.loc["samult"]
    assert samult["status"] == "skipped"
    assert samult["message"].startswith("needs 0.00141 GB for 300 training rows x 30 features, "
                                        "limit 0.000977 GB;")
    assert table.loc["mean_ranker", "status"] == "ok"


def test_qsg_runs_where_samult_is_skipped(write_config, cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, stderr = cli("run", write_config(LARGER), "--out", out, "--memory-limit", "24MB")
    assert code == 0, stderr
    table = rows(out)
    assert table.loc["samult", "status"] == "skipped"
    assert "for 1,500 training rows x 5 features" in table.loc["samult", "message"]
    assert table.loc["qsg_s2auc", "status"] == "ok" and table.loc["qsg_s2auc", "auc"] > 0.5


def test_parallel_cells_share_the_limit(write_config, cli, tmp_path: Path) -> None:
    config = write_config(LARGER)

    def states(jobs: str) -> dict[str, str]:
        code, stdout, _ = cli("run", config, "--out", tmp_path / "out", "--dry-run",
                              "--memory-limit", "40MB", "--n-jobs", jobs)
        assert code == 0
        return {line.split()[1].split("/")[1]: line for line in stdout.splitlines()
                if "/r0/" in line}

    one = states("1")
    assert one["samult"].startswith("missing ") and one["qsg_s2auc"].startswith("missing ")
    two = states("2")  # 20 MB each: SAMULT's 36 MB no longer fits, QSG's 16 MB does
    assert two["samult"].startswith("skipped ") and two["qsg_s2auc"].startswith("missing ")
    match = SKIP.search(two["samult"])
    assert match and match.group(4) == "2" and "limit 0.0195 GB (0.0391 GB shared by 2" in \
        two["samult"]
