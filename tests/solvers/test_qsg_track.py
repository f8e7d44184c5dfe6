"""A QSG grid pass tracks the validation rows: every model's decision values on them, and its
thresholds, come out of the pass that fitted it (``GridData.track``, ``tracked_decision_``).

Tolerance: the pass keeps f on the tracked rows current as it keeps f on the labeled rows,
float64 sums of each block's float32 cos/sin features; ``decision_function`` evaluates in
amplitude-phase form, float32 sums over chunks of up to 128 blocks. Measured on these problems:
at most 6.2e-7 of max |f| (median 3.4e-7), the thresholds within 6e-8; the tolerance is the
engine's for its other running scores (``unlabeled_scores_``, tests/solvers/test_qsg.py), 2e-6 of
max |f|. Another model of the same pass is off by 1e-2 to 1 of max |f|. The gap grows with the size
of the arguments W x, whose float32 rounding both evaluations share (benchmarks/bench_qsg_cv.py,
the paper's shapes: 3.8e-7 at d = 18, 2.4e-6 at d = 128, up to 7.4e-6 at d = 1,000); against f
computed in float64 throughout, the tracked values are as close as decision_function's
(measured here: 1e-8 to 1.5e-7 against 1.5e-7 to 4e-7; at d = 1,000 both 5e-6 to 8e-6).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.base import clone

from ordauc.data import load
from ordauc.errors import DivergenceError
from ordauc.solvers._labels import split_labels
from ordauc.solvers.dsg.engine import EngineOptions
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.dsg.reference import decision_float64
from ordauc.solvers.dsg.steps import QSGSteps
from ordauc.solvers.thresholds import fit_thresholds

TOL = 2e-6
SMALL = dict(sigma=1.0, n_iter=150, batch_size=16, block_size=8, random_state=4)
# gamma = 1 first: those models sample no U and sit after the others inside the pass, so a
# tracked column handed to the wrong model shows; two schedules, one that folds the scale.
POINTS = [dict(lam=2.0, gamma=1.0), dict(lam=0.125, gamma=0.0), dict(lam=1.0, gamma=0.5),
          dict(lam=8.0, gamma=0.3), dict(lam=0.3, gamma=0.7, step="dsg", theta=0.5),
          dict(lam=0.5, gamma=1.0, step="dsg", theta=1.9, theta_decay=0.0)]


def _fold(name: str, n: int, n_labeled: int, n_val: int = 40, d: int = 4):
    """Training rows (the first n_val labeled rows held out) and the validation rows."""
    ds = load(name, n=n, d=d, seed=3)
    y = ds.y.copy()
    y[n_labeled:] = -1
    val = np.arange(n) < n_val
    return ds.X[~val], y[~val], ds.X[val]


def _pass(base, X, y, track, points=POINTS):
    """One pass of ``points``, as fit_grid makes it, with the rows ``track`` tracked."""
    data = dataclasses.replace(base._grid_data(X, y), track=track)
    return base._grid_pass(data, [clone(base).set_params(**p) for p in points], {})


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


def _check_tracked(models, track) -> None:
    values = [m.decision_function(track) for m in models]
    for model, f in zip(models, values, strict=True):
        assert model.tracked_decision_.shape == (track.shape[0],)
        assert model.tracked_decision_.dtype == np.float64
        assert np.abs(f).max() > 0.01  # the model moved
        assert _gap(model.tracked_decision_, f) <= TOL, _gap(model.tracked_decision_, f)
    # the models differ far beyond the tolerance: a column handed to another model shows
    for i in range(len(values)):
        for j in range(i):
            assert _gap(values[i], values[j]) > 100 * TOL


def _check_thresholds(models, X, y, task) -> None:
    labels = split_labels(y, task)
    for model in models:
        f_l = model.decision_function(X[labels.labeled])
        own = fit_thresholds(f_l, labels.z, labels.n_classes)  # the per-model computation
        np.testing.assert_allclose(model.thresholds_, own, rtol=0,
                                   atol=TOL * np.abs(f_l).max())


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
@pytest.mark.parametrize(("cls", "name"), [(QSGS2AUC, "synthetic_binary"),
                                           (QS3ORAO, "synthetic_ordinal")])
@pytest.mark.parametrize("n_unlabeled", [300, 3000])  # U batch against old blocks / the pool
def test_tracked_decision_is_decision_function_on_the_tracked_rows(cls, name, feature_map,
                                                                   n_unlabeled):
    X, y, track = _fold(name, 240 + n_unlabeled, 240)
    base = cls(feature_map=feature_map, **SMALL)
    models = _pass(base, X, y, track)
    assert all(not isinstance(m, Exception) for m in models), models
    _check_tracked(models, track)
    _check_thresholds(models, X, y, base._task)
    # tracking only observes: the same iterates, bit for bit, as a pass without it
    untracked = _pass(base, X, y, None)
    for a, b in zip(models, untracked, strict=True):
        assert np.array_equal(a.coef_, b.coef_) and a.scale_ == b.scale_
        assert not hasattr(b, "tracked_decision_")
        np.testing.assert_array_equal(a.thresholds_, b.thresholds_)


def test_grid_models_with_pass_thresholds_equal_lone_fits():
    # The thresholds of a pass of several come from the pass's f on the labeled rows; they
    # still equal the lone fit's (computed from decision_function) to the grid tolerance, and
    # place the rows alike (tests/solvers/test_grid_qsg.py: 5e-6 of max |f|).
    X, y, track = _fold("synthetic_ordinal", 600, 160)
    base = QS3ORAO(**SMALL)
    for point, model in zip(POINTS, _pass(base, X, y, track), strict=True):
        lone = clone(base).set_params(**point).fit(X, y)
        f = lone.decision_function(X)
        np.testing.assert_allclose(model.thresholds_, lone.thresholds_, rtol=0,
                                   atol=5e-6 * np.abs(f).max())
        assert np.array_equal(model.predict(X), lone.predict(X)), point
        assert _gap(model.tracked_decision_, lone.decision_function(track)) <= 5e-6


def test_a_pass_of_one_keeps_the_lone_fit_thresholds_and_tracks():
    X, y, track = _fold("synthetic_ordinal", 600, 160)
    base = QS3ORAO(**SMALL)
    for point in POINTS[:3]:
        [alone] = _pass(base, X, y, track, [point])
        lone = clone(base).set_params(**point).fit(X, y)
        assert np.array_equal(alone.thresholds_, lone.thresholds_)  # bit for bit: evaluated
        assert np.array_equal(alone.coef_, lone.coef_)
        assert _gap(alone.tracked_decision_, lone.decision_function(track)) <= TOL


class _Batch(QS3ORAO):
    engine_options = EngineOptions(pool="off", fast_trig=False)


def test_tracking_whatever_the_engine_options_and_the_cache():
    X, y, track = _fold("synthetic_ordinal", 2000, 160)
    for base in (_Batch(**SMALL), QS3ORAO(cache_mb=0, **SMALL)):
        models = _pass(base, X, y, track)
        _check_tracked(models, track)
        _check_thresholds(models, X, y, base._task)


def test_a_diverging_model_fails_alone_and_the_others_are_tracked():
    X, y, track = _fold("synthetic_binary", 400, 100)
    base = QSGS2AUC(**SMALL)
    points = [dict(lam=1.0), dict(lam=1.0, theta=50.0, t0=0), dict(lam=0.25, gamma=1.0)]
    models = _pass(base, X, y, track, points)
    assert isinstance(models[1], DivergenceError)
    _check_tracked([models[0], models[2]], track)


def test_tracked_rows_are_validated_as_decision_function_validates_them():
    X, y, track = _fold("synthetic_binary", 400, 100)
    base = QSGS2AUC(**SMALL)
    with pytest.raises(ValueError, match="features"):
        _pass(base, X, y, track[:, :3])
    models = _pass(base, X, y, track.astype(np.float64).tolist())  # any array-like
    _check_tracked(models, track)
    [empty] = _pass(base, X, y, track[:0], POINTS[:1])
    assert empty.tracked_decision_.shape == (0,)


def test_a_refit_drops_the_tracked_values_of_an_earlier_pass():
    X, y, track = _fold("synthetic_binary", 400, 100)
    [model] = _pass(QSGS2AUC(**SMALL), X, y, track, POINTS[:1])
    assert hasattr(model, "tracked_decision_")
    model.fit(X, y)
    assert not hasattr(model, "tracked_decision_")


def test_a_pass_in_steps_tracks_at_every_step():
    # successive halving inside the pass: the models handed to the judge at iteration t carry
    # their decision values at t, and so do the kept models at the end
    X, y, track = _fold("synthetic_ordinal", 700, 160)
    base = QS3ORAO(**SMALL)
    data = dataclasses.replace(base._grid_data(X, y), track=track)
    models = [clone(base).set_params(**p) for p in POINTS]
    run = base._grid_pass_steps(data, models)
    assert isinstance(run, QSGSteps)
    at = run.advance(40)
    assert sorted(at) == list(range(len(POINTS)))
    assert all(m.n_iter_ == 40 for m in at.values())
    _check_tracked(list(at.values()), track)
    _check_thresholds(list(at.values()), X, y, base._task)
    run.keep([0, 2, 4])
    at = run.advance(90)
    assert sorted(at) == [0, 2, 4]
    _check_tracked(list(at.values()), track)
    end = run.finish()
    kept = [end[i] for i in (0, 2, 4)]
    assert all(m.n_iter_ == 150 for m in kept) and end[1] is None
    _check_tracked(kept, track)
    _check_thresholds(kept, X, y, base._task)


@pytest.mark.parametrize("d", [4, 64])
def test_tracked_values_are_as_close_to_float64_as_decision_function(d):
    # Wider rows mean larger arguments W x, whose float32 rounding both evaluations share:
    # the gap between them grows with d, and neither is the coarser one.
    X, y, track = _fold("synthetic_ordinal", 700, 160, d=d)
    base = QS3ORAO(**{**SMALL, "sigma": 4.0 / d})
    for model in _pass(base, X, y, track, POINTS[:4]):
        exact = decision_float64(model, track)
        top = np.abs(exact).max()
        tracked = np.abs(model.tracked_decision_ - exact).max() / top
        scored = np.abs(model.decision_function(track) - exact).max() / top
        assert tracked <= max(2 * scored, 1e-7), (tracked, scored)
