"""The same config gives the same results table whatever the number of workers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

# Columns that legitimately differ between two runs: clocks, memory (a cell forked from the
# main process counts its pages, one forked from a worker the worker's), the environment.
VARYING = ("fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb", "started_at",
           "ordauc_version", "git_sha", "python", "numpy", "platform")


def test_one_worker_and_two_workers_give_the_same_table(test_solvers, write_config, cli,
                                                        tmp_path: Path) -> None:
    config = write_config({
        "datasets": ["breast_cancer", {"name": "synthetic_ordinal", "n": 300, "d": 4}],
        "resampling": {"repeats": 2, "n_labeled": [30], "n_unlabeled": [20, None]},
        "tuning": {"folds": 3},
        "solvers": {"mean_ranker": {"grid": {"sigma": [0.5, 2, 8], "lam": [1, 2]}},
                    "failing_ranker": None}})
    tables = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        code, _, stderr = cli("run", config, "--out", out, "--n-jobs", jobs)
        assert code == 1 and "16 cells: 8 ok, 8 error (16 run now)" in stderr
        table = pd.read_csv(out / "results.csv").set_index("key").sort_index()
        tables.append(table.drop(columns=list(VARYING)))
    single, double = tables
    assert len(single) == 16 and list(single.columns) == list(double.columns)
    pd.testing.assert_frame_equal(single, double, check_exact=True)
    # The seeds and the tuning really vary across cells, so equality means something. The
    # split seed is one per dataset and repetition: unlabeled budgets nest over one labeled set
    # and one test set, so this supervised ranker scores the same for u20 and uall.
    ok = single[single["status"] == "ok"]
    per_split = ok.groupby(["dataset", "repetition"])
    assert ok["split_seed"].nunique() == 4 and (per_split["split_seed"].nunique() == 1).all()
    assert ok["auc"].nunique() == 4 and (per_split["auc"].nunique() == 1).all()
