"""The fold protocol of grid fits (``iter_fit_grid_folds``) and the inner CV that uses it.

- the default (every GridFit estimator) gives each fold exactly, bitwise, what a per-fold
  ``iter_fit_grid(X[fit], y[fit], ...)`` gives;
- SAMULT and M-SAMULT share one eigendecomposition of K_UU per sigma across the folds (and the
  k-1 subproblems): each fold's model equals its per-fold grid model and its lone fit to
  1e-12 relative (measured: 6e-14 to 4e-13 of max |f|), and the decompositions drop from
  folds x sigmas to sigmas; folds that do not keep the same unlabeled rows fall back to the
  per-fold path;
- the tracked validation scores equal ``decision_function`` on the validation rows;
- InnerCV through the fold protocol chooses the points, with the scores, that one fit per
  point chooses, and counts fits and failures alike.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ordauc.data import load
from ordauc.experiment.tuning import InnerCV
from ordauc.solvers.gridfit import FoldOf
from ordauc.solvers.kernel.pnu_auc import PNUAUC
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT
from ordauc.solvers.ordinal.npsvor import NPSVOR
from ordauc.splits import cv_folds

RTOL = 1e-12


@pytest.fixture(autouse=True)
def _one_thread():
    """Small matrices: BLAS threads only contend (and the timings of a shared machine)."""
    with threadpool_limits(1):
        yield


def _semi(name: str, n: int, n_labeled: int, d: int = 4, seed: int = 3):
    ds = load(name, n=n, d=d, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _folds(y: np.ndarray, n_folds: int = 5, split_unlabeled: bool = False):
    n_labeled = int(np.count_nonzero(y != -1))
    return cv_folds(y[:n_labeled], y.size - n_labeled, n_folds, 7,
                    split_unlabeled=split_unlabeled)


def _by_fold(est, X, y, folds, points, **kwargs) -> list[list]:
    out = [[None] * len(points) for _ in folds]
    for f, i, model in est.iter_fit_grid_folds(X, y, folds, points, **kwargs):
        assert out[f][i] is None  # each (fold, point) exactly once
        out[f][i] = model
    return out


def _per_fold(est, X, y, folds, points, max_bytes=None) -> list[list]:
    """Today's path: one ``iter_fit_grid`` call per fold."""
    out = []
    for fit, _ in folds:
        models = [None] * len(points)
        for i, model in est.iter_fit_grid(X[fit], y[fit], points, max_bytes):
            models[i] = model
        out.append(models)
    return out


def _close(a: np.ndarray, b: np.ndarray, scale: float | None = None) -> None:
    """|a - b| <= RTOL * scale (default max |a|)."""
    scale = np.abs(a).max() if scale is None else scale
    assert np.abs(a - b).max() <= RTOL * scale, np.abs(a - b).max() / scale


# -- the default: bitwise the per-fold path ------------------------------------------------------
@pytest.mark.parametrize("kind", ["pnu_auc", "npsvor"])
def test_default_fold_protocol_is_bitwise_the_per_fold_grid_path(kind):
    if kind == "pnu_auc":
        X, y = _semi("synthetic_binary", 200, 60)
        est = PNUAUC(sigma=0.7, n_basis=40, random_state=0)
        points = [dict(lam=lam, eta=eta) for lam in (0.01, 1.0) for eta in (-0.5, 0.4)]
        points += [dict(lam=0.1, sigma=2.0), dict(lam=-1.0)]  # a second group; a refused point
        folds, attr, output = _folds(y), "coef_", "decision_function"
    else:
        ds = load("synthetic_ordinal", n=120, d=4, seed=2)
        X, y = ds.X, ds.y
        est = NPSVOR(kappa=0.5)
        points = [dict(C=C, eps=eps) for C in (0.5, 4.0) for eps in (0.1, 0.3)]
        points += [dict(C=1.0, kappa=2.0), dict(C=-1.0)]
        folds, attr, output = _folds(y, 4), "dual_coef_", "rank_functions"
    shared = _by_fold(est, X, y, folds, points, track=True)
    alone = _per_fold(est, X, y, folds, points)
    for f, (_, val) in enumerate(folds):
        for a, b in zip(alone[f], shared[f], strict=True):
            if isinstance(a, Exception):
                assert type(a) is type(b) and str(a) == str(b)
                continue
            assert a.get_params() == b.get_params()
            assert np.array_equal(getattr(a, attr), getattr(b, attr))
            assert np.array_equal(getattr(a, output)(X[val]), getattr(b, output)(X[val]))


# -- SAMULT and M-SAMULT: one decomposition per sigma for every fold ----------------------------
SIGMAS = (0.7, 2.0)
SAMULT_POINTS = [dict(lam=lam, gamma=g, sigma=s) for s in SIGMAS for lam in (0.125, 1.0, 8.0)
                 for g in (0.0, 0.4, 1.0)]


def _counting_eigh(monkeypatch) -> list[int]:
    calls: list[int] = []
    eigh = scipy.linalg.eigh

    def counted(a, *args, **kwargs):
        calls.append(np.shape(a)[0])
        return eigh(a, *args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", counted)
    return calls


def _check_samult(est, X, y, folds, points, shared, coef: str) -> None:
    """Every fold's shared model against the per-fold grid model and the lone fit."""
    alone = _per_fold(est, X, y, folds, points)
    for f, (fit, val) in enumerate(folds):
        for p, point in enumerate(points):
            model, grid = shared[f][p], alone[f][p]
            if isinstance(grid, Exception):
                assert type(model) is type(grid)
                continue
            lone = clone(est).set_params(**point).fit(X[fit], y[fit])
            for ref in (grid, lone):
                assert model.get_params() == ref.get_params()
                _close(ref.decision_function(X[val]), model.decision_function(X[val]))
                f_fit = ref.decision_function(X[fit])
                _close(f_fit, model.decision_function(X[fit]))
                # thresholds live on the scale of f (one may sit near 0)
                if coef == "models_":
                    for j, (a, b) in enumerate(zip(ref.models_, model.models_, strict=True)):
                        _close(a.dual_coef_, b.dual_coef_)
                        _close(a.thresholds_, b.thresholds_, np.abs(f_fit[:, j]).max())
                else:
                    _close(ref.dual_coef_, model.dual_coef_)
                    _close(ref.thresholds_, model.thresholds_, np.abs(f_fit).max())
                    assert model.objective_ == pytest.approx(ref.objective_, rel=RTOL)
                assert np.array_equal(ref.predict(X[val]), model.predict(X[val]))
            tracked = model.tracked_decision_  # the scores the tuner reads instead
            _close(model.decision_function(X[val]), tracked)


def test_samult_binary_folds_share_one_decomposition_per_sigma(monkeypatch):
    X, y = _semi("synthetic_binary", 260, 80)
    folds = _folds(y)
    calls = _counting_eigh(monkeypatch)
    shared = _by_fold(SAMULT(), X, y, folds, SAMULT_POINTS, track=True)
    assert calls == [180] * len(SIGMAS)  # one K_UU (180 unlabeled rows) per sigma
    calls.clear()
    _per_fold(SAMULT(), X, y, folds, SAMULT_POINTS)
    assert len(calls) == len(folds) * len(SIGMAS)  # today: one per fold and sigma
    _check_samult(SAMULT(), X, y, folds, SAMULT_POINTS, shared, "dual_coef_")


def test_samult_ordinal_folds_with_gamma_lists_equal_per_fold_fits(monkeypatch):
    X, y = _semi("synthetic_ordinal", 240, 100)
    folds = _folds(y)
    points = [dict(lam=0.5, gamma=[0.1, 0.2, 0.9, 1.0]), dict(lam=2.0, gamma=0.3),
              dict(lam=0.05, gamma=[0.0, 1.0, 0.0, 1.0]), dict(lam=1.0, gamma=[0.5, 0.5]),
              dict(lam=1.0, gamma=0.6, sigma=2.0), dict(lam=0.2, gamma=0.0, sigma=2.0)]
    calls = _counting_eigh(monkeypatch)
    shared = _by_fold(SAMULT(sigma=0.7), X, y, folds, points, track=True)
    assert len(calls) == 2
    assert all(isinstance(shared[f][3], ValueError) for f in range(len(folds)))  # wrong length
    _check_samult(SAMULT(sigma=0.7), X, y, folds, points, shared, "dual_coef_")


def test_m_samult_shares_the_decomposition_across_folds_and_subproblems(monkeypatch):
    X, y = _semi("synthetic_ordinal", 240, 100)
    folds = _folds(y)
    points = [dict(lam=0.5, gamma=[0.1, 0.2, 0.9, 1.0]), dict(lam=2.0, gamma=0.3),
              dict(lam=1.0, gamma=0.6, sigma=2.0), dict(lam=0.3, gamma=0.0, sigma=2.0)]
    calls = _counting_eigh(monkeypatch)
    shared = _by_fold(MSAMULT(sigma=0.7), X, y, folds, points, track=True)
    assert len(calls) == 2  # not folds x subproblems x sigmas, nor folds x sigmas
    _check_samult(MSAMULT(sigma=0.7), X, y, folds, points, shared, "models_")


def test_samult_folds_with_their_own_unlabeled_rows_fall_back_to_the_per_fold_path(monkeypatch):
    X, y = _semi("synthetic_binary", 200, 60)
    folds = _folds(y, 4, split_unlabeled=True)  # each fold validates on a part of U
    points = [dict(lam=lam, gamma=0.5) for lam in (0.25, 2.0)]
    calls = _counting_eigh(monkeypatch)
    shared = _by_fold(SAMULT(sigma=0.7), X, y, folds, points, track=True)
    assert len(calls) == len(folds)
    alone = _per_fold(SAMULT(sigma=0.7), X, y, folds, points)
    for f in range(len(folds)):
        for a, b in zip(alone[f], shared[f], strict=True):
            assert np.array_equal(a.dual_coef_, b.dual_coef_)  # the same path: bitwise
            assert not hasattr(b, "tracked_decision_")


def test_samult_folds_in_passes_under_a_small_budget_give_the_same_models():
    X, y = _semi("synthetic_binary", 200, 60)
    folds = _folds(y, 3)
    points = [dict(lam=lam, gamma=g) for lam in (0.25, 2.0) for g in (0.0, 0.5)]
    base = SAMULT(sigma=0.7)
    whole = _by_fold(base, X, y, folds, points)
    for budget in (1, None):  # one point a pass (lone fits), then one pass
        split = _by_fold(base, X, y, folds, points, max_bytes=budget)
        for f in range(len(folds)):
            for a, b in zip(whole[f], split[f], strict=True):
                _close(a.dual_coef_, b.dual_coef_)


# -- the tuner ---------------------------------------------------------------------------------
class PerFoldOnly:
    """An estimator with ``iter_fit_grid`` but not the fold protocol: today's tuner path."""

    def __init__(self, est):
        self.est = est

    def iter_fit_grid(self, *args, **kwargs):
        return self.est.iter_fit_grid(*args, **kwargs)


@pytest.mark.parametrize("name", ["samult", "m_samult"])
def test_inner_cv_over_the_folds_chooses_as_one_fit_per_point(name, monkeypatch):
    if name == "samult":
        X, y = _semi("synthetic_binary", 220, 80)
        est, task, k, metric_names = SAMULT(), "binary", 2, ["auc", "mze"]
        grid = {"lam": [0.125, 1.0, 8.0], "sigma": [0.5, 2.0], "gamma": [0.0, 0.5, 1.0]}
    else:
        X, y = _semi("synthetic_ordinal", 220, 100)
        est, task, k, metric_names = MSAMULT(), "ordinal", 5, ["auc", "mae"]
        grid = {"lam": [0.25, 4.0], "sigma": [0.5, 2.0], "gamma": [0.0, 0.7, [0.5, 0.5]]}
    folds = _folds(y)
    scored: list[int] = []
    decision = type(est).decision_function

    def counted(self, X_):
        scored.append(len(X_))
        return decision(self, X_)

    monkeypatch.setattr(type(est), "decision_function", counted)
    runs = {}
    for mode, shared, wrap in (("folds", True, False), ("per-fold", True, True),
                               ("alone", False, False)):
        scored.clear()
        tuner = InnerCV(folds, metric_names, task, k, shared=shared)
        runs[mode] = (tuner.tune(PerFoldOnly(est) if wrap else est, X, y, grid), len(scored))
    # predict (mze, mae) calls decision_function once per scored model; auc, alone, once more
    n_scored = (3 * 2 * 3 if name == "samult" else 2 * 2 * 2) * len(folds)
    assert runs["folds"][1] == n_scored  # the auc scores came from the passes
    assert runs["per-fold"][1] == 2 * n_scored
    for mode in ("per-fold", "alone"):
        for m in metric_names:
            a, b = runs["folds"][0][m], runs[mode][0][m]
            assert a.params == b.params
            assert a.fits == b.fits and a.work == b.work and a.failed == b.failed
            assert a.first_failure == b.first_failure
            for (pa, sa), (pb, sb) in zip(a.points, b.points, strict=True):
                assert pa == pb
                assert (math.isnan(sa) and math.isnan(sb)) or abs(sa - sb) <= 1e-12
    if name == "m_samult":  # the gamma list of the wrong length fails on every fold
        assert runs["folds"][0]["auc"].failed == 2 * 2 * len(folds)


def test_samult_states_the_whole_data_blocks_in_a_fold_pass():
    """A fold sharing the whole data's path holds the whole's K and decomposition (larger than
    its own) and the kernel of its tracked rows: the budget splits by that."""
    X, y = _semi("synthetic_binary", 200, 60)
    fit, val = _folds(y)[0]
    est = SAMULT(sigma=0.7)
    models = [clone(est).set_params(lam=lam) for lam in (0.5, 2.0)]
    data = est._grid_data(X[fit], y[fit])
    alone = est._grid_data_pass_bytes(data, models)
    shared = est._grid_data_pass_bytes(
        replace(data, whole=FoldOf(est._grid_data(X, y), fit, {}), track=X[val]), models)
    whole = est._grid_pass_bytes(200, X.shape[1], 140, models)
    assert alone == est._grid_pass_bytes(len(fit), X.shape[1], 140, models)
    assert shared.fixed >= whole.fixed + 8 * len(val) * len(fit) > alone.fixed
    assert shared.per_model == alone.per_model
