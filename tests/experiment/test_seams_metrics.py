"""The metric registry in the table, effective parameters, and what a fit reports about itself
(``warnings``, ``n_iter``)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ordauc.metrics import METRICS

RANKING = [m.name for m in METRICS.values() if m.needs == "scores"]
LABELS = [m.name for m in METRICS.values() if m.needs == "labels"]
ORDINAL_ONLY = [m.name for m in METRICS.values() if m.ordinal_only]


def run_table(cli, write_config, tmp_path: Path, study: dict) -> pd.DataFrame:
    out = tmp_path / "out"
    code, _, stderr = cli("run", write_config(study), "--out", out)
    assert code == 0, stderr
    return pd.read_csv(out / "results.csv").set_index("key")


def test_each_model_gets_the_metrics_its_outputs_allow(test_solvers, write_config, cli,
                                                       tmp_path: Path) -> None:
    assert RANKING == ["auc", "c_index"] and {"mze", "mae", "amae", "wkappa"} <= set(LABELS)
    table = run_table(cli, write_config, tmp_path, {
        "datasets": ["breast_cancer", "diabetes"],
        "resampling": {"n_labeled": [60], "n_unlabeled": [20], "sampling": "stratified"},
        "solvers": {"label_only": None, "rank_only": None, "mean_ranker": None}})
    assert (table["status"] == "ok").all() and table["message"].isna().all()
    for dataset in ("breast_cancer", "diabetes"):
        ordinal = dataset == "diabetes"
        labels = table.loc[f"{dataset}/label_only/r0/l60/u20"]
        ranks = table.loc[f"{dataset}/rank_only/r0/l60/u20"]
        both = table.loc[f"{dataset}/mean_ranker/r0/l60/u20"]
        for name in RANKING:  # a label-only model has no ranking to score
            assert math.isnan(labels[name]) and 0.5 < ranks[name] <= 1 and both[name] > 0.5
        for name in LABELS:
            assert math.isnan(ranks[name]), name  # a ranking-only model predicts no label
            if ordinal or name not in ORDINAL_ONLY:
                assert math.isfinite(labels[name]) and math.isfinite(both[name]), name
            else:  # amae, spearman, ... describe ordinal labels only
                assert math.isnan(labels[name]) and math.isnan(both[name]), name
        assert 0 <= labels["mze"] <= 1 and labels["mae"] >= labels["mze"]


def test_parameter_columns_hold_what_the_fitted_model_used(write_config, cli,
                                                          tmp_path: Path) -> None:
    table = run_table(cli, write_config, tmp_path, {
        "datasets": ["breast_cancer"], "resampling": {"n_labeled": [40], "n_unlabeled": [40]},
        "solvers": {
            "default_steps": {"solver": "qsg_s2auc", "params": {"n_iter": 20, "lam": 0.5}},
            "own_theta": {"solver": "qsg_s2auc", "params": {"n_iter": 20, "theta": 2}},
            "literal": {"solver": "qsg_s2auc",
                        "params": {"n_iter": 20, "t0": 0, "lam": 1, "theta": 0.5}}}})
    assert (table["status"] == "ok").all()
    default = table.loc["breast_cancer/default_steps/r0/l40/u40"]
    # theta unset: 1.5 / lam; t0 unset: the offset that keeps the first step <= 1/4
    assert default["p_theta"] == 1.5 / 0.5 and default["p_t0"] == math.ceil(3.0 / 0.25) - 1
    own = table.loc["breast_cancer/own_theta/r0/l40/u40"]
    assert own["p_theta"] == 2 and own["p_t0"] == math.ceil(2 / 0.25) - 1 and own["p_lam"] == 1
    literal = table.loc["breast_cancer/literal/r0/l40/u40"]
    assert (literal["p_theta"], literal["p_t0"]) == (0.5, 0)
    for row in (default, own, literal):  # every parameter, set or not, has its value
        assert row["p_n_iter"] == 20 == row["n_iter"] and row["p_step"] == "inverse"
        assert row["p_batch_size"] == 64 and row["p_feature_map"] == "cos_sin"
        assert row["p_random_state"] == row["solver_seed"]


def test_warnings_and_iterations_of_the_fit_are_recorded(test_solvers, write_config, cli,
                                                         tmp_path: Path) -> None:
    table = run_table(cli, write_config, tmp_path, {
        "datasets": ["breast_cancer"], "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
        "tuning": {"folds": 2},
        "solvers": {"warning_ranker": {"grid": {"sigma": [1, 2]}}, "mean_ranker": None}})
    warned = table.loc["breast_cancer/warning_ranker/r0/l30/u20"]
    assert warned["status"] == "ok"
    # once, though the four fits of the grid search and the refit each warned
    assert warned["warnings"] == ("ConvergenceWarning: stopped after 7 iterations without "
                                  "converging")
    assert warned["n_iter"] == 7  # the largest of the per-subproblem counts
    quiet = table.loc["breast_cancer/mean_ranker/r0/l30/u20"]
    assert pd.isna(quiet["warnings"]) and pd.isna(quiet["n_iter"])
