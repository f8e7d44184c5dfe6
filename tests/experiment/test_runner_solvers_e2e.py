"""End to end with the real solvers on a tiny study: `ordauc run`, then `ordauc run -j 2`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ordauc.results.frame import load_results

VARYING = ("fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb",
           "started_at")

STUDY = {
    "datasets": ["breast_cancer", "diabetes"],
    "resampling": {"repeats": 2, "n_labeled": [40], "n_unlabeled": [30],
                   "sampling": "stratified"},
    "tuning": {"folds": 2}, "timeout": 120,
    "solvers": {"samult": {"grid": {"lam": [0.5, 1], "sigma": [1, 4], "gamma": [0, 0.5]}},
                "m_samult": {"params": {"sigma": 2}},
                "qsg_s2auc": {"params": {"n_iter": 60, "batch_size": 16}},
                "qs3orao": {"params": {"n_iter": 60, "batch_size": 16}}}}


@pytest.mark.slow  # end to end with the real solvers: `make test-all` and CI run it
def test_real_solvers_fill_the_table_the_same_way_with_one_or_two_workers(
        write_config, cli, tmp_path: Path) -> None:
    config = write_config(STUDY, name="tiny.yaml")
    tables = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        code, _, stderr = cli("run", config, "--out", out, "--n-jobs", jobs)
        assert code == 0, stderr
        assert "10 cells: 10 ok (10 run now); 3 dataset-solver pair(s) not applicable" in stderr
        tables.append(pd.read_csv(out / "results.csv").set_index("key").sort_index())
    single, double = tables
    pd.testing.assert_frame_equal(single.drop(columns=list(VARYING)),
                                  double.drop(columns=list(VARYING)), check_exact=True)
    assert set(single["solver"]) == {"samult", "m_samult", "qsg_s2auc", "qs3orao"}
    assert (single["auc"] > 0.6).all() and single["auc"].le(1).all()
    tuned = single[single["solver"] == "samult"]
    assert tuned["cv_score"].notna().all() and tuned["p_lam"].isin([0.5, 1]).all()
    ordinal = single[single["task"] == "ordinal"]
    assert ordinal["mae"].notna().all() and (ordinal["auc"] != ordinal["c_index"]).all()
    assert set(load_results(tmp_path / "jobs2")["solver"]) == set(single["solver"])
