"""Tuners: failing grid points, selection on the evaluation rows, per-solver overrides, and a
grid search that must pick the best point (never the worst)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from runner_solvers import MeanRanker, read_fit_log

from ordauc import data, metrics
from ordauc.config import parse_config
from ordauc.errors import UserError
from ordauc.experiment.plan import make_plan
from ordauc.splits import eval_arrays, make_split, train_arrays

RESAMPLING = {"n_labeled": [30], "n_unlabeled": [20]}
STUDY = {"datasets": ["breast_cancer"], "resampling": RESAMPLING, "tuning": {"folds": 3}}


def run_table(cli, write_config, tmp_path: Path, study: dict, code: int = 0) -> pd.DataFrame:
    out = tmp_path / "out"
    got, _, stderr = cli("run", write_config(study), "--out", out)
    assert got == code, stderr
    return pd.read_csv(out / "results.csv", keep_default_na=False).set_index("key")


def test_a_failing_grid_point_is_counted_and_the_others_are_chosen_from(
        test_solvers, write_config, cli, tmp_path: Path) -> None:
    table = run_table(cli, write_config, tmp_path, {**STUDY, "solvers": {
        "picky": {"solver": "picky_ranker", "grid": {"lam": [1, 3, 2]}},
        "picky_test": {"solver": "picky_ranker", "grid": {"lam": [1, 3, 2]},
                       "tuning": {"kind": "test"}}}})
    cv = table.loc["breast_cancer/picky/r0/l30/u20"]
    assert cv["status"] == "ok" and cv["p_lam"] in (1.0, 2.0) and 0.5 < cv["auc"] <= 1
    assert cv["cv_failed"] == 3  # one point x 3 folds
    assert cv["cv_message"].startswith("{'lam': 3}: ValueError (at runner_solvers.py:")
    assert cv["cv_message"].endswith("deliberate failure for lam = 3")
    chosen = table.loc["breast_cancer/picky_test/r0/l30/u20"]
    assert chosen["status"] == "ok" and chosen["p_lam"] in (1.0, 2.0)
    assert chosen["cv_failed"] == 1 and chosen["tuning"] == "test"
    assert "deliberate failure for lam = 3" in chosen["cv_message"]


def test_a_grid_where_every_point_fails_is_an_error_cell(test_solvers, write_config, cli,
                                                         tmp_path: Path) -> None:
    table = run_table(cli, write_config, tmp_path, {**STUDY, "solvers": {
        "picky": {"solver": "picky_ranker", "grid": {"lam": [3, 4]}},
        "mean_ranker": None}}, code=1)
    row = table.loc["breast_cancer/picky/r0/l30/u20"]
    assert row["status"] == "error" and row["auc"] == ""
    assert "every grid point failed; the first: {'lam': 3}: ValueError" in row["message"]
    assert table.loc["breast_cancer/mean_ranker/r0/l30/u20", "status"] == "ok"


def refit_every_point(key_row: pd.Series, cell, sigmas: list[float]) -> list[float]:
    """The AUC on the evaluation rows of MeanRanker at each sigma, fitted on the cell's split."""
    dataset = data.load(cell.dataset.name)
    split = make_split(dataset.y, n_labeled=cell.n_labeled, n_unlabeled=cell.n_unlabeled,
                       seeds=cell.seeds)
    X, y = train_arrays(dataset.X, dataset.y, split)
    X_eval, y_eval = eval_arrays(dataset, split)
    assert int(key_row["solver_seed"]) == cell.solver_seed
    scores = []
    for sigma in sigmas:
        model = MeanRanker(sigma=sigma, random_state=cell.solver_seed).fit(X, y)
        scores.append(metrics.auc(y_eval, model.decision_function(X_eval)))
    return scores


def test_test_selection_keeps_the_point_best_on_the_evaluation_rows(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    sigmas = [4.0, 0.5, 16.0, 1.5, 8.0]
    study = {**STUDY, "resampling": {**RESAMPLING, "repeats": 3}, "tuning": {"kind": "test"},
             "solvers": {"mean_ranker": {"grid": {"sigma": sigmas}}}}
    table = run_table(cli, write_config, tmp_path, study)
    assert len(read_fit_log(fit_log)) == 3 * len(sigmas)  # every point once, no refit
    monkeypatch.delenv("ORDAUC_TEST_FIT_LOG")
    chosen = set()
    for cell in make_plan(parse_config(study)).cells:
        row = table.loc[cell.key]
        scores = refit_every_point(row, cell, sigmas)
        best = int(np.argmax(scores))  # the first of equal scores
        assert row["tuning"] == "test" and row["cv_metric"] == "auc"
        assert row["p_sigma"] == sigmas[best]
        assert row["cv_score"] == scores[best] == row["auc"]  # kept as fitted, not refitted
        assert row["cv_failed"] == 0 and row["cv_message"] == ""
        assert len(set(scores)) > 1  # the choice mattered
        chosen.add(best)
    assert chosen != {0}  # not merely the first point


def test_a_solver_can_override_the_study_tuning(test_solvers, write_config, cli, fit_log: Path,
                                               tmp_path: Path) -> None:
    grid = {"sigma": [0.5, 2]}
    table = run_table(cli, write_config, tmp_path, {**STUDY, "solvers": {
        "study": {"solver": "mean_ranker", "grid": grid},
        "on_test": {"solver": "mean_ranker", "grid": grid, "tuning": {"kind": "test"}},
        "on_mae": {"solver": "mean_ranker", "grid": grid,
                   "tuning": {"kind": "cv", "folds": 2, "metric": "mae"}}}})
    rows = {label: table.loc[f"breast_cancer/{label}/r0/l30/u20"]
            for label in ("study", "on_test", "on_mae")}
    assert [(r["tuning"], r["cv_metric"]) for r in rows.values()] == [
        ("cv", "auc"), ("test", "auc"), ("cv", "mae")]
    fits = read_fit_log(fit_log)
    seeds = {label: row["solver_seed"] for label, row in rows.items()}
    assert len({*seeds.values()}) == 1  # same registry name and split: same solver seed
    # 2 points x 3 folds + refit, 2 points on the evaluation rows, 2 points x 2 folds + refit
    assert len(fits) == (2 * 3 + 1) + 2 + (2 * 2 + 1)
    assert 0 <= rows["on_mae"]["cv_score"] <= 1 and rows["study"]["cv_score"] > 0.5


@pytest.mark.parametrize("tuning", [
    {"kind": "cv", "folds": 3, "metric": "auc"},
    {"kind": "cv", "folds": 3, "metric": "mae"},
    {"kind": "test", "metric": "auc"},
    {"kind": "test", "metric": "mze"},
])
def test_grid_search_picks_the_known_best_point(tuning: dict, test_solvers, write_config, cli,
                                               tmp_path: Path) -> None:
    # MeanRanker's sigma scales the noise added to its weights: sigma 0.01 is near the clean
    # ranker, sigma 100 is noise. Whichever way the metric points, the search must keep 0.01.
    study = {"datasets": ["breast_cancer", "diabetes"], "tuning": tuning,
             "resampling": {"repeats": 2, "n_labeled": [60], "n_unlabeled": [20],
                            "sampling": "stratified"},
             "solvers": {"mean_ranker": {"grid": {"sigma": [100, 0.01]}}}}
    table = run_table(cli, write_config, tmp_path, study)
    assert len(table) == 4 and (table["status"] == "ok").all()
    assert (table["p_sigma"] == 0.01).all(), table[["p_sigma", "cv_score"]]
    assert all(math.isfinite(v) for v in table["cv_score"])
    if tuning["metric"] == "auc":
        assert (table["cv_score"] > 0.6).all()


def test_tuning_on_a_label_metric_needs_predict(test_solvers) -> None:
    study = {"datasets": ["diabetes"], "resampling": RESAMPLING,
             "tuning": {"folds": 2, "metric": "mae"}}
    plan = make_plan(parse_config({**study, "solvers": {"mean_ranker": {"grid": {
        "sigma": [1, 2]}}}}))
    assert {c.tuning.metrics for c in plan.cells} == {("mae",)}
    with pytest.raises(UserError, match="tuning metric mae needs labels .predict., and solver "
                                        "'rank_only' has no predict; tune it on auc"):
        make_plan(parse_config({**study, "solvers": {"rank_only": {"grid": {"lam": [1, 2]}}}}))
    with pytest.raises(UserError, match="tuning metric auc needs scores .decision_function., "
                                        "and solver 'label_only' has no decision_function"):
        make_plan(parse_config({**study, "tuning": {"folds": 2},
                                "solvers": {"label_only": {"grid": {"lam": [1, 2]}}}}))
    # an untuned solver is never refused: there is nothing to search
    make_plan(parse_config({**study, "solvers": {"rank_only": None}}))
