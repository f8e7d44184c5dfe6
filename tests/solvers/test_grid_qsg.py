"""QSG fit_grid: one pass per (sigma, seed) gives each point's lone fit, to float32 rounding.

Tolerance: the pass evaluates f at the sampled unlabeled points as a float32 cos/sin product
shared by all models, the lone fit in amplitude-phase form (one float32 cosine per frequency), so
the iterates differ by float32 rounding, which the iterations carry along. Measured on these
problems: median 1e-7 of max |f|, at most 3e-7, except 1.0e-6 for the schedule with eta lam =
0.95 (each step nearly replaces f, and the scale is folded twice); the tolerance is 5e-6. A wrong
model (a shared U value, a shared step or shrink factor, the wrong samples) is off by 1e-3 to 1
of max |f|.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from sklearn.base import clone

from ordauc.data import load
from ordauc.errors import DivergenceError
from ordauc.solvers.dsg.engine import EngineOptions
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.dsg.unlabeled import pool_start
from ordauc.solvers.gridfit import split_sizes

TOL = 5e-6
SMALL = dict(sigma=1.0, n_iter=120, batch_size=16, block_size=8, random_state=4)


def _semi(name: str, n: int, n_labeled: int, d: int = 4, seed: int = 3):
    ds = load(name, n=n, d=d, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(a).max())


def _check_against_lone(base, X, y, points, results, tol=TOL):
    assert len(results) == len(points)
    for point, model in zip(points, results, strict=True):
        lone = clone(base).set_params(**point).fit(X, y)
        assert not isinstance(model, Exception), (point, model)
        assert model.get_params() == lone.get_params()
        f_lone, f_grid = lone.decision_function(X), model.decision_function(X)
        assert np.abs(f_lone).max() > 0.01  # the model moved (lam = 8 keeps f small)
        assert _gap(f_lone, f_grid) <= tol, (point, _gap(f_lone, f_grid))
        np.testing.assert_allclose(model.thresholds_, lone.thresholds_,
                                   atol=tol * np.abs(f_lone).max())
        assert np.array_equal(model.predict(X), lone.predict(X)), point
        if lone.unlabeled_scores_ is None:
            assert model.unlabeled_scores_ is None
        else:
            assert _gap(lone.unlabeled_scores_, model.unlabeled_scores_) <= tol


# Three lam values (steps theta = 1.5/lam and offsets t0 differ), gamma 0 / 0.4 / 1 (gamma = 1
# samples no U batch: the second generator), and a sigma of its own (a group of its own).
BINARY_POINTS = [dict(lam=lam, gamma=g) for lam in (0.125, 1.0, 8.0) for g in (0.0, 0.4, 1.0)]
BINARY_POINTS += [dict(lam=0.5, gamma=0.3, sigma=2.0), dict(lam=0.5, gamma=0.6, sigma=2.0)]


@pytest.mark.parametrize("n_unlabeled", [300, 2000])  # batch evaluation / pool from t = 1
def test_binary_grid_equals_lone_fits(n_unlabeled):
    X, y = _semi("synthetic_binary", 80 + n_unlabeled, 80)
    base = QSGS2AUC(**SMALL)
    results = base.fit_grid(X, y, BINARY_POINTS)
    _check_against_lone(base, X, y, BINARY_POINTS, results)
    pooled = pool_start(n_unlabeled, 16, 120) == 1
    assert (results[0].unlabeled_scores_ is not None) == pooled


ORDINAL_POINTS = [dict(lam=0.5, gamma=[0.2, 0.4, 1.0, 0.0]), dict(lam=2.0, gamma=1.0),
                  dict(lam=0.3, gamma=0.7, step="dsg", theta=0.5),
                  dict(lam=4.0, gamma=[0.0, 0.0, 0.5, 0.5]),
                  dict(lam=0.5, step="dsg", theta=1.9, theta_decay=0.0)]  # folds the scale


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize("cache_mb", [256, 0])
def test_ordinal_grid_with_gamma_lists_and_schedules_equals_lone_fits(feature_map, cache_mb):
    X, y = _semi("synthetic_ordinal", 600, 120)
    base = QS3ORAO(feature_map=feature_map, cache_mb=cache_mb, **SMALL)
    _check_against_lone(base, X, y, ORDINAL_POINTS, base.fit_grid(X, y, ORDINAL_POINTS))


def test_a_lone_fit_is_a_pass_of_one_model():
    # fit and fit_grid run the same engine: a grid of one point is the lone fit, bit for bit
    X, y = _semi("synthetic_ordinal", 600, 120)
    base = QS3ORAO(track_kernel=True, **SMALL)
    for point in ORDINAL_POINTS:
        lone = clone(base).set_params(**point).fit(X, y)
        [alone] = base.fit_grid(X, y, [point])
        assert np.array_equal(lone.coef_, alone.coef_) and lone.scale_ == alone.scale_, point
        assert np.array_equal(lone.kernel_coef_, alone.kernel_coef_)
        assert np.array_equal(lone.thresholds_, alone.thresholds_)
        assert (lone.theta_, lone.t0_, lone.seed_) == (alone.theta_, alone.t0_, alone.seed_)
        assert (lone.unlabeled_scores_ is None) == (alone.unlabeled_scores_ is None)
        if lone.unlabeled_scores_ is not None:
            assert np.array_equal(lone.unlabeled_scores_, alone.unlabeled_scores_)
        assert not alone.blocks_.shared  # nothing else reads its blocks


class _SwitchAt40(QS3ORAO):
    # batch evaluation until t = 39, then the pool with its catch-up
    engine_options = EngineOptions(pool=40)


def test_grid_switching_to_the_pool_midway_equals_lone_fits():
    X, y = _semi("synthetic_ordinal", 600, 120)
    base = _SwitchAt40(**SMALL)
    results = base.fit_grid(X, y, ORDINAL_POINTS)
    _check_against_lone(base, X, y, ORDINAL_POINTS, results)
    assert results[0].unlabeled_scores_ is not None


def test_tracked_kernel_coefficients_equal_lone_fits():
    X, y = _semi("synthetic_binary", 300, 60)
    base = QSGS2AUC(track_kernel=True, **SMALL)
    points = [dict(lam=1.0), dict(lam=0.3, gamma=1.0), dict(lam=0.2, gamma=0.0)]
    for point, model in zip(points, base.fit_grid(X, y, points), strict=True):
        lone = clone(base).set_params(**point).fit(X, y)
        assert _gap(lone.kernel_coef_, model.kernel_coef_) <= TOL


def _pass_sizes(models) -> list[int]:
    """How many models each pass fitted: the models of one pass share its blocks."""
    passes: dict[int, int] = {}
    for model in models:
        passes[id(model.blocks_)] = passes.get(id(model.blocks_), 0) + 1
    return list(passes.values())


def test_splitting_under_a_memory_budget_gives_the_same_models():
    X, y = _semi("synthetic_binary", 1080, 80)
    base = QSGS2AUC(**SMALL)
    points = BINARY_POINTS[:9]
    whole = base.fit_grid(X, y, points)
    assert _pass_sizes(whole) == [9]  # one group of 9 (gamma = 1 points share the blocks too)
    one, two = (base.grid_memory(*X.shape, points[:n], n_unlabeled=1000).largest_pass
                for n in (1, 2))
    budget = one + 2 * (two - one)  # fixed + 3 per model: passes of at most three models
    split = base.fit_grid(X, y, points, max_bytes=budget)
    assert _pass_sizes(split) == [3, 3, 3]
    for a, b in zip(whole, split, strict=True):
        assert _gap(a.decision_function(X), b.decision_function(X)) <= TOL
    assert base.fit_grid_memory_bytes(1080, 4, points, max_bytes=budget) < \
        base.fit_grid_memory_bytes(1080, 4, points)


def test_split_sizes_are_balanced_and_never_refuse():
    assert split_sizes(9, 100, 10, None) == [9]
    assert split_sizes(9, 100, 10, 130) == [3, 3, 3]
    assert split_sizes(10, 100, 10, 130) == [3, 3, 2, 2]
    assert split_sizes(4, 100, 10, 50) == [1, 1, 1, 1]  # even one model is over: one at a time


def test_a_diverging_point_fails_alone():
    X, y = _semi("synthetic_binary", 300, 60)
    base = QSGS2AUC(**SMALL)
    points = [dict(lam=1.0, theta=50.0, t0=0), dict(lam=1.0), dict(lam=-1.0), dict(lam=2.0)]
    results = base.fit_grid(X, y, points)
    with pytest.raises(DivergenceError) as lone:
        clone(base).set_params(**points[0]).fit(X, y)
    assert isinstance(results[0], DivergenceError) and str(results[0]) == str(lone.value)
    assert isinstance(results[2], ValueError)  # refused by validation, as fit would
    _check_against_lone(base, X, y, [points[1], points[3]], [results[1], results[3]])
    with pytest.raises(ValueError, match="no_such"):
        base.fit_grid(X, y, [dict(no_such=1)])


def test_models_of_one_pass_can_be_scored_at_once_from_threads():
    # The pass's models share one block cache; scoring must never write a model's phases into
    # it (two threads would mix them).
    X, y = _semi("synthetic_binary", 400, 80)
    a, b = QSGS2AUC(**SMALL).fit_grid(X, y, [dict(lam=0.5), dict(lam=4.0, gamma=0.0)])
    assert a.blocks_ is b.blocks_ and a.blocks_.shared
    n_cached = a.blocks_.n_cached
    cache = a.blocks_.stacked(0, n_cached)[0].copy()  # a view of the cache itself
    expected = [a.decision_function(X), b.decision_function(X)]
    assert np.array_equal(a.blocks_.stacked(0, n_cached)[0], cache)
    got: dict[int, list[np.ndarray]] = {0: [], 1: []}

    def score(i, model):
        for _ in range(20):
            got[i].append(model.decision_function(X))

    threads = [threading.Thread(target=score, args=(i, m)) for i, m in enumerate((a, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in (0, 1):
        assert all(np.array_equal(f, expected[i]) for f in got[i])


def test_memory_statement_counts_models_and_the_pool():
    base = QSGS2AUC(n_iter=2000, batch_size=64, block_size=64)
    points = [dict(lam=lam, gamma=g) for lam in (0.5, 1.0) for g in (0.0, 0.5)]
    one = base.fit_grid_memory_bytes(20_200, 20, points[:1])
    four = base.fit_grid_memory_bytes(20_200, 20, points)
    coef = 8 * 2000 * 128
    assert four - one >= 3 * coef  # every returned model keeps its coefficients
    # the pool (kept here: 2 * 20,200 <= 64 * 1999) adds its rows and f per model
    assert four - one >= 3 * (coef + 8 * 20_200)
    assert base.fit_grid_memory_bytes(20_200, 20, points, n_unlabeled=0) < four


def test_compiled_cos_and_sin_are_float32_accurate(monkeypatch):
    # Measured: at most 9.2e-8 from float64 cos / sin of the same float32 arguments (numpy's
    # float32 cos: 6.8e-8); arguments beyond trig.LIMIT go to numpy.
    from ordauc.solvers.dsg import trig

    monkeypatch.setattr(trig, "_CHOSEN", {"cos": True, "sincos": True})  # the loops, not numpy

    rng = np.random.default_rng(0)
    for scale in (1.0, 30.0, 2000.0):
        z = (rng.standard_normal((3, 16, 500)) * scale).astype(np.float32)
        z[0, 0, :4] = [0.0, np.pi / 4, -np.pi / 2, 3 * np.pi / 4]
        if scale > 1000:
            z[1, 2, 3] = 3e9  # beyond the limit (the reduction would fail): numpy for all
        feats = np.empty((3, 32, 500), np.float32)
        trig.sincos_blocks(z, feats)
        c = trig.cos(z, np.empty_like(z))
        exact = z.astype(np.float64)
        assert np.abs(feats[:, :16] - np.cos(exact)).max() < 1.2e-7
        assert np.abs(feats[:, 16:] - np.sin(exact)).max() < 1.2e-7
        assert np.abs(c - np.cos(exact)).max() < 1.2e-7
