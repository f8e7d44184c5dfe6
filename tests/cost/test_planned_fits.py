"""Each tuner's ``planned_fits`` states the fits it makes: every tuner the factory builds is run
for real on a small problem, its fits are counted as the estimator makes them (lone fits, the
shared passes of every fold, the paused passes of successive halving with the iterations each
model ran), and the count equals what the tuner planned without fitting. Also: the cost package
imports nothing of the runner."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

import ordauc.cost
from ordauc.config import DatasetSpec, SolverSpec, TuningSpec
from ordauc.cost.fits import CellShape, PlannedFit
from ordauc.experiment import tuning
from ordauc.experiment.halving import QUICK, HalvingCV
from ordauc.experiment.plan import Cell, SplitSeeds
from ordauc.experiment.tuners import (
    NoTuning,
    TunerSpec,
    make_tuner,
    planned_fits,
    spec_fits,
    tuner_spec,
)
from ordauc.solvers.dsg.qsg import QSGS2AUC

# 90 labeled rows (45 per class) and 30 unlabeled: 3 stratified folds fit on 60 labeled rows
# (30 per class) and every unlabeled row, as the planned fold size counts them
N_L, N_U, FOLDS = 90, 30, 3
FITS: list[tuple[int, float]] = []  # (training rows, models) of every fit a test sees


def problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = np.r_[np.tile([0, 1], N_L // 2), np.full(N_U, -1)]
    X = rng.standard_normal((y.size, 5)) + np.where(y == 1, 0.4, 0.0)[:, None]
    return X, y


class Counted(BaseEstimator):
    """A linear score fitted in closed form; every fit logs its training rows."""

    def __init__(self, lam: float = 1.0) -> None:
        self.lam = lam

    def fit(self, X: np.ndarray, y: np.ndarray) -> Counted:
        FITS.append((X.shape[0], 1))
        labeled = y != -1
        sign = np.where(y[labeled] == 1, 1.0, -1.0)
        self.coef_ = X[labeled].T @ sign / (self.lam + labeled.sum())
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return X @ self.coef_

    def predict(self, X: np.ndarray) -> np.ndarray:
        return (self.decision_function(X) > 0).astype(int)


def count_passes(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    """Log every fold's shared pass (its rows, its models), and each model of a paused pass
    (successive halving) weighted by the share of ``n_iter`` it ran; log a lone fit too."""
    folds_pass, halving_pass, fit = cls._grid_pass_folds, cls._halving_pass, cls.fit

    def passes(self, datas, models):
        FITS.extend((data.X.shape[0], len(fold)) for data, fold in zip(datas, models,
                                                                          strict=True))
        return folds_pass(self, datas, models)

    def paused(self, datas, models, index, rungs, judge):
        n_iter = int(models[0].get_params(deep=False)[self.grid_resource])
        last = [0]

        def judging(t, running):  # the models judged at t ran from the last rung to t
            FITS.extend((data.X.shape[0], len(running) * (t - last[0]) / n_iter)
                        for data in datas)
            last[0] = t
            return judge(t, running)

        finals = list(halving_pass(self, datas, models, index, rungs, judging))
        FITS.extend((data.X.shape[0], len(finals) * (n_iter - last[0]) / n_iter)
                    for data in datas)
        yield from finals

    def lone(self, X, y, **kwargs):
        FITS.append((X.shape[0], 1))
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(cls, "_grid_pass_folds", passes)
    monkeypatch.setattr(cls, "_halving_pass", paused)
    monkeypatch.setattr(cls, "fit", lone)


def made(spec: TunerSpec, estimator: object, grid: dict) -> dict[int, float]:
    """Run the tuner of ``spec`` and the refit a cell makes after it (when the tuner keeps no
    model); the models fitted per training size."""
    X, y = problem()
    FITS.clear()
    tuner = make_tuner(spec, ["auc"], "binary", 2, y=y, n_labeled=N_L,
                       evaluation=(X[:40], y[:40]))
    [choice] = tuner.tune(estimator, X, y, grid).values()
    if choice.model is None:  # the refit of the cell (cell._fit)
        clone(estimator).set_params(**choice.params).fit(X, y)
    return totals(FITS)


def totals(fits: list[tuple[int, float]]) -> dict[int, float]:
    out: dict[int, float] = defaultdict(float)
    for n, models in fits:
        out[n] += models
    return dict(out)


def planned(spec: TunerSpec, estimator: object, grid: dict) -> dict[int, float]:
    fits = spec_fits(spec, estimator, grid, CellShape(N_L, N_U, 2))
    assert all(isinstance(f, PlannedFit) for f in fits)
    return totals([(f.n_train, f.repeats * f.models) for f in fits])


LAMS = {"lam": [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]}  # six points: halving keeps two of them


@pytest.mark.parametrize("spec", [
    TunerSpec("none"),
    TunerSpec("test"),
    TunerSpec("cv", folds=FOLDS, seed=3),
    TunerSpec("cv", folds=FOLDS, seed=3, halving=QUICK),
], ids=["untuned", "test", "cv", "halving-by-samples"])
def test_lone_fits_are_what_the_tuner_planned(spec: TunerSpec) -> None:
    grid = {"lam": [1.0]} if spec.kind == "none" else LAMS
    found = made(spec, Counted(), grid)
    assert found == pytest.approx(planned(spec, Counted(), grid), rel=1e-12)
    if spec.kind == "cv":  # a fold fits 60 labeled rows and every unlabeled one
        assert set(found) == {60 + N_U, N_L + N_U} | ({30} if spec.halving else set())


QSG = {"lam": [0.5, 1.0, 2.0], "sigma": [0.5, 1.0]}  # two shared passes of three models


@pytest.mark.parametrize("halving", [None, QUICK], ids=["cv-shared", "halving-by-iterations"])
def test_shared_passes_are_what_the_tuner_planned(monkeypatch, halving) -> None:
    count_passes(monkeypatch, QSGS2AUC)
    estimator = QSGS2AUC(n_iter=27, batch_size=16, block_size=16, random_state=1)
    spec = TunerSpec("cv", folds=FOLDS, seed=3, halving=halving)
    found = made(spec, estimator, QSG)
    assert found == pytest.approx(planned(spec, estimator, QSG), rel=1e-12)
    # a full search fits 2 passes x 3 models per fold; halving stops some models early
    fold_models = found[60 + N_U]
    assert fold_models == (18 if halving is None else pytest.approx(3 * 2 * (3 * 9 + 1 * 18)
                                                                     / 27))


@pytest.mark.parametrize(("grid", "kind", "profile", "cls"), [
    ({"lam": [1.0]}, "cv", "quick", NoTuning),
    ({"lam": [1.0]}, "test", "paper", NoTuning),
    (LAMS, "test", "quick", tuning.TestSelection),
    (LAMS, "cv", "paper", tuning.InnerCV),
    (LAMS, "cv", "quick", HalvingCV),
])
def test_a_cell_gets_its_tuner_and_its_plan_from_one_choice(grid, kind, profile, cls) -> None:
    cell = Cell(dataset=DatasetSpec(name="diabetes"),
                solver=SolverSpec(label="c", name="svc_rbf", grid=grid),
                tuning=TuningSpec(kind=kind, folds=FOLDS), task="binary", repetition=0,
                n_labeled=N_L, n_unlabeled=N_U, seeds=SplitSeeds(1, 3), solver_seed=4,
                config_hash="h", profile=profile)
    X, y = problem()
    spec = tuner_spec(cell)
    tuner = make_tuner(spec, ["auc"], "binary", 2, y=y, n_labeled=N_L,
                       evaluation=(X[:40], y[:40]))
    assert type(tuner) is cls
    shape = CellShape(N_L, N_U, 2)
    assert planned_fits(cell, Counted(), shape) == spec_fits(spec, Counted(), grid, shape)
    assert made(spec, Counted(), grid) == pytest.approx(totals(
        [(f.n_train, f.repeats * f.models) for f in planned_fits(cell, Counted(), shape)]),
        rel=1e-12)


def test_the_cost_package_imports_nothing_of_the_runner() -> None:
    root = Path(ordauc.cost.__file__).parent
    found = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = "." * node.level + (node.module or "")
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [(path.name, n) for n in names
                      if n.startswith(("ordauc.experiment", "ordauc.cli")) or n.startswith(".")]
    assert found == []
    assert len(list(root.glob("*.py"))) >= 7  # the package's modules were read
