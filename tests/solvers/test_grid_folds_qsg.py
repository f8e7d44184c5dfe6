"""The QSG folds of a cross-validation run in lockstep (``ordauc.solvers.dsg.folds``): the pool's
features against each block are computed once for every fold, and every fold's model is bitwise
the one its per-fold pass gives (the same features, the same products in the same chunks).

- QSG-S2AUC and QS3ORAO, both feature maps, with a diverging point, a refused point and a gamma
  list of the wrong length failing alone, two sigma groups: every array of every fold's model
  equal to the per-fold path's, and the pool's features computed n_iter times per group, not
  folds x n_iter;
- folds whose unlabeled rows differ (split unlabeled folds) do not share, and still equal;
- a budget that splits the group into several lockstep passes gives the same models;
- the tuner through the fold protocol chooses the point and the scores of one fit per point.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ordauc.data import load
from ordauc.experiment.tuning import InnerCV
from ordauc.solvers.dsg import unlabeled
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.splits import cv_folds

SMALL = dict(n_iter=60, batch_size=16, block_size=8, random_state=5)
POINTS = [dict(lam=lam, gamma=g, sigma=s) for s in (0.5, 2.0) for lam in (0.25, 4.0)
          for g in (0.0, 0.6, 1.0)]
POINTS += [dict(lam=0.01, gamma=0.3, sigma=0.5, step="dsg", theta=500.0, theta_decay=0.0),
           dict(lam=-1.0, sigma=0.5)]  # diverges; refused by validation


@pytest.fixture(autouse=True)
def _one_thread():
    with threadpool_limits(1):
        yield


def _semi(name: str, n: int, n_labeled: int, seed: int = 3):
    ds = load(name, n=n, d=5, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _folds(y: np.ndarray, split_unlabeled: bool = False):
    n_labeled = int(np.count_nonzero(y != -1))
    return cv_folds(y[:n_labeled], y.size - n_labeled, 4, 7, split_unlabeled=split_unlabeled)


def _counted(monkeypatch) -> tuple[list[int], list[int]]:
    """Blocks whose pool features a share computed; single blocks added by accumulate."""
    shared, alone = [], []
    compute, accumulate = unlabeled.PoolShare._compute, unlabeled.accumulate

    def counted_compute(self, blocks, b, fast):
        shared.append(b)
        return compute(self, blocks, b, fast)

    def counted_accumulate(blocks, Xa, coef32, start, stop, out, fast=True):
        if stop - start == 1 and Xa.shape[0] > 64:  # a pool's new block, not a U batch
            alone.append(start)
        return accumulate(blocks, Xa, coef32, start, stop, out, fast)

    monkeypatch.setattr(unlabeled.PoolShare, "_compute", counted_compute)
    monkeypatch.setattr(unlabeled, "accumulate", counted_accumulate)
    return shared, alone


def _lockstep(est, X, y, folds, points, **kwargs) -> list[list]:
    out = [[None] * len(points) for _ in folds]
    for f, i, model in est.iter_fit_grid_folds(X, y, folds, points, track=True, **kwargs):
        assert out[f][i] is None
        out[f][i] = model
    return out


def _per_fold(est, X, y, folds, points) -> list[list]:
    """The path the lockstep replaces: one fold's passes after the other."""
    out = []
    for fit, val in folds:
        models = [None] * len(points)
        for i, model in est.iter_fit_grid(X[fit], y[fit], points, track=X[val]):
            models[i] = model
        out.append(models)
    return out


def _same(a, b) -> None:
    if isinstance(a, Exception):
        assert type(a) is type(b) and str(a) == str(b)
        return
    assert a.get_params() == b.get_params()
    for attr in ("coef_", "thresholds_", "tracked_decision_", "unlabeled_scores_"):
        x, z = getattr(a, attr, None), getattr(b, attr, None)
        assert (x is None) == (z is None), attr
        if x is not None:
            assert np.array_equal(x, z), attr
    assert a.scale_ == b.scale_


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize(("cls", "name", "gamma_list"), [
    (QSGS2AUC, "synthetic_binary", None), (QS3ORAO, "synthetic_ordinal", [0.2, 0.5, 0.9, 0.4])])
def test_lockstep_folds_are_bitwise_the_per_fold_passes(cls, name, gamma_list, feature_map,
                                                         monkeypatch):
    X, y = _semi(name, 400, 100)
    folds = _folds(y)
    est = cls(feature_map=feature_map, **SMALL)
    points = list(POINTS)
    if gamma_list is not None:  # a list per subproblem, and one of the wrong length
        points += [dict(lam=1.0, gamma=gamma_list, sigma=2.0), dict(lam=1.0, gamma=[0.1, 0.2],
                                                                   sigma=2.0)]
    alone = _per_fold(est, X, y, folds, points)
    shared, per_fold = _counted(monkeypatch)
    lockstep = _lockstep(est, X, y, folds, points)
    # the pool is kept (2 n_u <= batch (n_iter - 1)): its features once per block and sigma
    assert sorted(shared) == sorted(2 * list(range(SMALL["n_iter"])))
    assert per_fold == []
    failures = 0
    for f in range(len(folds)):
        for a, b in zip(alone[f], lockstep[f], strict=True):
            _same(a, b)
            failures += isinstance(a, Exception)
    assert failures == len(folds) * (2 + (gamma_list is not None))
    # the folds' models differ: a fold handed another fold's pass would show
    assert not np.array_equal(lockstep[0][0].coef_, lockstep[1][0].coef_)


def test_folds_with_their_own_unlabeled_rows_work_alone_and_equal(monkeypatch):
    X, y = _semi("synthetic_binary", 400, 100)
    folds = _folds(y, split_unlabeled=True)
    est = QSGS2AUC(**SMALL)
    points = POINTS[:6]
    alone = _per_fold(est, X, y, folds, points)
    shared, per_fold = _counted(monkeypatch)
    lockstep = _lockstep(est, X, y, folds, points)
    # the first fold's pass computes its own pool's features, the others add theirs alone
    assert len(shared) == SMALL["n_iter"]
    assert len(per_fold) == (len(folds) - 1) * SMALL["n_iter"]
    for f in range(len(folds)):
        for a, b in zip(alone[f], lockstep[f], strict=True):
            _same(a, b)


def test_a_small_budget_splits_the_lockstep_into_passes_with_the_same_models(monkeypatch):
    """Passes of other sizes: the same models up to the engine's float32 rounding (2e-6 of
    max |f|, tests/solvers/test_qsg_track.py), as for any split of a group."""
    X, y = _semi("synthetic_ordinal", 400, 100)
    folds = _folds(y)
    est = QS3ORAO(**SMALL)
    points = POINTS[:6]
    data = est._grid_data(X[folds[0][0]], y[folds[0][0]])
    models = [clone(est).set_params(**p) for p in points[:3]]
    fixed, per_model, _ = est._grid_folds_pass_bytes(data, models, len(folds))
    budget = len(folds) * (fixed + 2 * per_model)  # two points per lockstep pass
    whole = _lockstep(est, X, y, folds, points)
    sizes: list[int] = []
    lockstep = QS3ORAO._grid_pass_folds

    def counted(self, datas, fold_models):
        sizes.append(len(fold_models[0]))
        return lockstep(self, datas, fold_models)

    monkeypatch.setattr(QS3ORAO, "_grid_pass_folds", counted)
    split = _lockstep(est, X, y, folds, points, max_bytes=budget)
    assert sizes == [2, 2, 2]  # the six points of one sigma, two at a time
    for f, (_, val) in enumerate(folds):
        for a, b in zip(whole[f], split[f], strict=True):
            fa, fb = a.decision_function(X[val]), b.decision_function(X[val])
            assert np.abs(fa - fb).max() <= 2e-6 * np.abs(fa).max()
            assert np.abs(a.tracked_decision_ - b.tracked_decision_).max() <= 2e-6 * np.abs(
                fa).max()


def test_the_pool_share_is_counted_in_the_lockstep_budget():
    X, y = _semi("synthetic_binary", 400, 100)
    fit = _folds(y)[0][0]
    est = QSGS2AUC(**SMALL)
    data = est._grid_data(X[fit], y[fit])
    models = [clone(est).set_params(**p) for p in POINTS[:3]]
    own = est._grid_data_pass_bytes(data, models)
    together = est._grid_folds_pass_bytes(data, models, 4)
    n_u = int(data.labels.unlabeled.size)
    assert together.fixed - own.fixed == -(-unlabeled.PoolShare.bytes(n_u, 16) // 4)
    assert together.per_model == own.per_model


def test_the_tuner_chooses_through_the_lockstep_as_one_fit_per_point():
    X, y = _semi("synthetic_binary", 300, 90)
    folds = _folds(y)
    grid = {"lam": [0.25, 4.0], "sigma": [0.5, 2.0], "gamma": [0.0, 0.6, 1.0]}
    runs = {shared: InnerCV(folds, ["auc"], "binary", 2, shared=shared).tune(
        QSGS2AUC(**SMALL), X, y, grid)["auc"] for shared in (True, False)}
    a, b = runs[True], runs[False]
    assert a.params == b.params
    assert a.fits == b.fits and a.failed == b.failed
    for (pa, sa), (pb, sb) in zip(a.points, b.points, strict=True):
        assert pa == pb
        assert abs(sa - sb) <= 1e-12  # AUC of f equal to the engine's float32 tolerance


def test_halving_runs_the_training_sets_in_lockstep_with_the_same_models(monkeypatch):
    """Successive halving inside the pass (the quick profile): the sets' paused passes share
    the pool's features and keep the models and survivors of passes run alone."""
    X, y = _semi("synthetic_binary", 400, 100)
    fits = [(X[fit], y[fit]) for fit, _ in _folds(y)]
    est = QSGS2AUC(**SMALL)
    points = POINTS[:6]

    def judge(t, models):  # keep the better half by the first set's |f| on a few rows
        top = sorted(models, key=lambda i: -abs(float(models[i][0].decision_function(
            X[:5]).sum())))
        return top[: max(1, len(top) // 2)]

    def run():
        return dict(est.iter_fit_grid_halving(fits, points, lambda n, T: [15, 40], judge))

    shared, alone = _counted(monkeypatch)
    together = run()
    assert len(shared) == SMALL["n_iter"] and alone == []
    monkeypatch.setattr(QSGS2AUC, "_grid_steps_together",
                        lambda self, datas, models: [self._grid_pass_steps(
                            d, [clone(m) for m in models]) for d in datas])
    monkeypatch.setattr(QSGS2AUC, "_grid_steps_run_to", lambda self, runs, t: None)
    apart = run()
    assert len(shared) == SMALL["n_iter"]  # no share: nothing more computed through one
    assert len(alone) == len(fits) * SMALL["n_iter"]
    assert sorted(together) == sorted(apart) and len(together) == 1
    for i in together:
        for a, b in zip(apart[i], together[i], strict=True):
            _same(a, b)
