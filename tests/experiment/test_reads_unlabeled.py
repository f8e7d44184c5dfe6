"""A semi-supervised solver configured not to read the unlabeled rows is run as a supervised one.

QSG-S2AUC and QS3ORAO with gamma = 1 (and SAMULT, M-SAMULT) weigh the unlabeled terms of their
objective by 1 - gamma = 0: the solver class says so from the config's solver spec
(``reads_unlabeled(params, grid)``), and the planner then hands it the labeled rows alone and
fits it once per labeled set, as a supervised solver. Its model is the one it had with the
unlabeled rows (QSG: the same batches and random features, so the same bits), its settings hash
is unchanged, so rows made when it was fitted per unlabeled size stay done.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from runner_solvers import read_fit_log

from ordauc import solvers
from ordauc.config import load_config
from ordauc.cost import estimate as est
from ordauc.experiment.costing import runtime
from ordauc.experiment.plan import make_plan
from ordauc.solvers._base import reads_unlabeled
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC, _QSGBase
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT

QSG = {"n_iter": 60, "batch_size": 16, "block_size": 16}


def _reads(name: str, params: dict, grid: dict | None = None) -> bool:
    return reads_unlabeled(solvers.info(name).cls, params, grid or {})


@pytest.mark.parametrize("name", ["qsg_s2auc", "qs3orao", "samult", "m_samult"])
def test_a_spec_reads_unlabeled_rows_unless_every_gamma_it_takes_is_one(name: str) -> None:
    assert not _reads(name, {"gamma": 1.0})
    assert not _reads(name, {"gamma": 1})
    assert not _reads(name, {"gamma": [1.0, 1.0, 1.0, 1.0]})  # one gamma_j per subproblem
    assert not _reads(name, {"gamma": 0.5}, {"gamma": [1.0]})  # the grid's value wins
    assert not _reads(name, {"lam": 2.0}, {"gamma": [1.0, [1.0, 1.0]], "sigma": [0.5, 2.0]})
    assert _reads(name, {})  # the default gamma, 0.5
    assert _reads(name, {"lam": 1.0}, {"sigma": [0.5, 2.0]})
    assert _reads(name, {"gamma": 0.999})
    assert _reads(name, {"gamma": [1.0, 0.5, 1.0, 1.0]})  # one subproblem reads U
    assert _reads(name, {"gamma": 1.0}, {"gamma": [0.0, 1.0]})


def test_solvers_without_the_narrowing_keep_their_declaration() -> None:
    for name in ("pnu_auc", "m_pnu_auc"):  # centres drawn from every training row
        assert _reads(name, {"eta": 0.0})
    for name in ("svc_rbf", "m_svc_rbf", "svorex"):
        assert not _reads(name, {})


def _data(task: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training rows with the unlabeled ones interleaved among the labeled, and test rows."""
    rng = np.random.default_rng(seed)
    X = rng.random((360, 5)).astype(np.float32)
    score = X @ rng.standard_normal(5) + 0.2 * rng.standard_normal(360)
    cuts = [np.median(score)] if task == "binary" else np.quantile(score, [0.25, 0.5, 0.75])
    y = np.searchsorted(cuts, score) + (0 if task == "binary" else 1)
    unlabeled = rng.random(360) < 0.6
    y_semi = np.where(unlabeled, -1, y)
    return X[:300], y_semi[:300], X[300:], unlabeled[:300]


@pytest.mark.parametrize(("cls", "task", "gamma"), [
    (QSGS2AUC, "binary", 1.0), (QS3ORAO, "ordinal", 1.0), (QS3ORAO, "ordinal", [1, 1, 1])])
def test_qsg_with_gamma_one_fits_the_same_model_without_the_unlabeled_rows(cls, task,
                                                                           gamma) -> None:
    X, y, X_test, unlabeled = _data(task)
    params = {**QSG, "gamma": gamma, "random_state": 7}
    assert not cls.reads_unlabeled(params, {})
    with_u = cls(**params).fit(X, y)
    alone = cls(**params).fit(X[~unlabeled], y[~unlabeled])  # the labeled rows, same order
    # Exact: with gamma = 1 the engine draws no U batch (its batches come from the generator
    # of the models without U either way), the blocks depend on the seed alone, and f is
    # kept on the labeled rows only, so every float is computed from the same numbers.
    np.testing.assert_array_equal(with_u.decision_function(X_test),
                                  alone.decision_function(X_test))
    np.testing.assert_array_equal(with_u.predict(X_test), alone.predict(X_test))
    assert np.abs(alone.decision_function(X_test)).max() > 0.01  # the model moved
    # the shared passes of the inner CV too
    points = [{"lam": 0.5}, {"lam": 2.0}]
    for a, b in zip(cls(**params).fit_grid(X, y, points),
                    cls(**params).fit_grid(X[~unlabeled], y[~unlabeled], points), strict=True):
        np.testing.assert_array_equal(a.decision_function(X_test), b.decision_function(X_test))
    # while with gamma < 1 the unlabeled rows change the model
    semi = cls(**{**params, "gamma": 0.5}).fit(X, y).decision_function(X_test)
    assert not np.allclose(semi, alone.decision_function(X_test))


@pytest.mark.parametrize(("cls", "task"), [(SAMULT, "binary"), (SAMULT, "ordinal"),
                                           (MSAMULT, "ordinal")])
def test_samult_with_gamma_one_is_the_minimiser_on_the_labeled_rows(cls, task) -> None:
    X, y, X_test, unlabeled = _data(task, seed=1)
    with_u = cls(gamma=1.0).fit(X, y).decision_function(X_test)
    alone = cls(gamma=1.0).fit(X[~unlabeled], y[~unlabeled]).decision_function(X_test)
    # The same function (the unlabeled rows' coefficients solve lam/2 beta_u = 0), from an
    # n x n solve against an n_l x n_l one: equal up to rounding (measured ~1e-15 relative;
    # the tolerance leaves room for a worse-conditioned kernel).
    np.testing.assert_allclose(with_u, alone, rtol=0, atol=1e-9 * np.abs(alone).max())


def _config(write_config, solvers_: dict, **extra: object):
    return load_config(write_config({
        "datasets": ["breast_cancer"], "tuning": {"folds": 3},
        "resampling": {"n_labeled": [40], "n_unlabeled": [50, 150], "repeats": 2},
        "solvers": solvers_, **extra}))


def test_the_planner_runs_a_gamma_one_spec_as_a_supervised_one(write_config, monkeypatch
                                                                ) -> None:
    grid = {"lam": [0.5, 2.0]}
    config = _config(write_config, {
        "gamma1": {"solver": "qsg_s2auc", "params": {**QSG, "gamma": 1.0}, "grid": grid},
        "gamma_grid": {"solver": "qsg_s2auc", "params": QSG,
                       "grid": {**grid, "gamma": [0.0, 1.0]}},
        "default": {"solver": "qsg_s2auc", "params": QSG, "grid": grid},
        "samult1": {"solver": "samult", "params": {"gamma": 1.0}},
        "svc_rbf": {"grid": {"C": [1.0, 10.0]}}})
    plan = make_plan(config)
    by = {label: [c for c in plan.cells if c.solver.label == label]
          for label in ("gamma1", "gamma_grid", "default", "samult1", "svc_rbf")}
    for label in ("gamma1", "samult1", "svc_rbf"):
        cells = by[label]
        assert all(c.labeled_only and c.shares_fit for c in cells), label
        assert len({c.fit_key for c in cells}) == 2  # one fit per repetition
        assert len({c.key for c in cells}) == 4  # a row per repetition and unlabeled size
    for label in ("gamma_grid", "default"):
        cells = by[label]
        assert not any(c.labeled_only or c.shares_fit for c in cells), label
        assert len({c.fit_key for c in cells}) == 4
    fits = plan.fits()
    assert sum(1 for group in fits if group[0].solver.label == "gamma1") == 2

    # The settings hash and the row keys are those of the plan that fitted it per size:
    # rows made then stay done.
    monkeypatch.setattr(_QSGBase, "reads_unlabeled", classmethod(lambda cls, p, g: True))
    before = [c for c in make_plan(config).cells if c.solver.label == "gamma1"]
    assert not any(c.labeled_only for c in before)
    assert [(c.key, c.config_hash) for c in before] == [(c.key, c.config_hash)
                                                        for c in by["gamma1"]]


def test_standardized_features_keep_the_unlabeled_rows_in_the_statistics(write_config
                                                                          ) -> None:
    config = _config(write_config, {
        "gamma1": {"solver": "qsg_s2auc", "params": {**QSG, "gamma": 1.0}},
        "svc_rbf": None}, preprocess="standardize")
    cells = make_plan(config).cells
    assert not any(c.labeled_only for c in cells if c.solver.label == "gamma1")
    assert all(c.labeled_only for c in cells if c.solver.label == "svc_rbf")


def _fits(log: Path) -> list[dict]:
    """The fits of the log but the worker's warm-up (24 rows, seed 0, dense and sparse)."""
    return [f for f in read_fit_log(log) if (f["n_rows"], f["random_state"]) != (24, "0")]


def _run(cli, config: Path, out: Path) -> pd.DataFrame:
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0, stderr
    return pd.read_csv(out / "results.csv").set_index("key").sort_index()


def test_one_fit_serves_both_unlabeled_sizes_with_the_rows_of_a_fit_per_size(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path, monkeypatch) -> None:
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"n_labeled": [40], "n_unlabeled": [50, 150], "repeats": 2},
        "solvers": {"gamma1": {"solver": "logged_qsg", "params": {**QSG, "gamma": 1.0}}}})
    # as before the solver said it reads no unlabeled row: a fit per unlabeled size
    with monkeypatch.context() as patch:
        patch.setattr(_QSGBase, "reads_unlabeled", classmethod(lambda cls, p, g: True))
        old = _run(cli, config, tmp_path / "per-size")
    per_size = _fits(fit_log)
    assert len(per_size) == 4 and sorted({f["n_rows"] for f in per_size}) == [90, 190]
    assert not old["shared_fit"].any()

    fit_log.write_text("")
    new = _run(cli, config, tmp_path / "shared")
    shared = _fits(fit_log)
    assert len(shared) == 2 and {f["n_rows"] for f in shared} == {40}  # the labeled rows
    assert sorted(new["n_unlabeled"]) == [50, 50, 150, 150] and (new["status"] == "ok").all()
    assert new["shared_fit"].all()
    per_rep = new.groupby("repetition")
    assert (per_rep["fit_key"].nunique() == 1).all()
    assert (per_rep["fit_time_s"].nunique() == 1).all()
    # the same models: every row's metrics equal the row of its own fit, to the last bit
    assert list(new.index) == list(old.index)
    assert (new["config_hash"] == old["config_hash"]).all()
    for column in ("auc", "mze", "mae", "n_test", "thresholds"):
        assert new[column].equals(old[column]), column

    # the folder written a fit per size is done for the new plan: nothing to run again
    code, stdout, _ = cli("run", config, "--out", tmp_path / "per-size", "--dry-run")
    assert code == 0 and "4 cells: 4 done" in stdout


def test_the_estimate_counts_one_labeled_fit_per_labeled_set(write_config, monkeypatch
                                                              ) -> None:
    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.0)
    seen: list[bool] = []

    def calibrate(estimator, rows, sizes, uses_unlabeled, *args, **kwargs):
        seen.append(uses_unlabeled)
        return est.Calibration(a=1.0, b=0.0, points=2)  # every fit 1 s

    monkeypatch.setattr(est, "calibrate", calibrate)
    grid = {"lam": [0.5, 2.0]}
    config = _config(write_config, {
        "gamma1": {"solver": "qsg_s2auc", "params": {**QSG, "gamma": 1.0}, "grid": grid},
        "semi": {"solver": "qsg_s2auc", "params": {**QSG, "gamma": 0.5}, "grid": grid}})
    cells = list(make_plan(config).cells)
    costs, _ = est.estimate_cells(cells, {}, fixed=0.0, runtime=runtime())
    # inner 3-fold CV over 2 points and a refit: 7 fits per fit group, one group per
    # repetition for gamma = 1, one per repetition and unlabeled size for gamma = 0.5
    assert costs["gamma1"].cells == costs["semi"].cells == 4
    assert costs["gamma1"].fits == 2 * 7 and costs["semi"].fits == 4 * 7
    assert costs["gamma1"].seconds == pytest.approx(costs["semi"].seconds / 2)
    assert seen == [False, True]  # timed on labeled rows, as its cells are fitted
