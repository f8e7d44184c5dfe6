"""All-threshold fit: exact minimiser, unique and increasing (AAAI 2020 Lemma 1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from ordauc.solvers.thresholds import assign_labels, fit_thresholds


def _loss_j(b: float, f: np.ndarray, y: np.ndarray, j: int) -> float:
    pos, neg = f[y > j], f[y <= j]
    return float(np.sum(np.maximum(0.0, b - pos) ** 2) + np.sum(np.maximum(0.0, neg - b) ** 2))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 7), n=st.integers(0, 60),
       spread=st.floats(0.01, 10.0))
def test_thresholds_are_the_unique_increasing_minimiser(seed, k, n, spread):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(1, k + 1), rng.integers(1, k + 1, n)])
    f = rng.normal(size=y.size) * spread + 0.3 * y  # ranking that is better than random
    b = fit_thresholds(f, y, k)
    assert b.shape == (k - 1,)
    assert np.all(np.diff(b) > 0)  # Lemma 1
    for j in range(1, k):
        best = minimize_scalar(_loss_j, args=(f, y, j), bracket=(f.min(), f.max()),
                               options={"xtol": 1e-12})
        assert _loss_j(b[j - 1], f, y, j) <= best.fun + 1e-9 * (1 + best.fun)
        pos, neg = f[y > j], f[y <= j]
        if neg.max() <= pos.min():  # separable: zero loss on an interval, its midpoint
            assert b[j - 1] == pytest.approx(0.5 * (neg.max() + pos.min()))
        else:  # unique: moving away in either direction increases the loss
            assert _loss_j(b[j - 1] + 1e-3, f, y, j) > _loss_j(b[j - 1], f, y, j)
            assert _loss_j(b[j - 1] - 1e-3, f, y, j) > _loss_j(b[j - 1], f, y, j)


def test_separable_scores_put_thresholds_between_the_classes():
    f = np.array([0.0, 0.1, 1.0, 1.1, 2.0, 2.1])
    y = np.array([1, 1, 2, 2, 3, 3])
    b = fit_thresholds(f, y, 3)
    assert 0.1 <= b[0] <= 1.0 and 1.1 <= b[1] <= 2.0
    assert np.array_equal(assign_labels(f, b), y)


def test_a_missing_class_is_refused():
    with pytest.raises(ValueError, match="missing"):
        fit_thresholds(np.arange(4.0), np.array([1, 1, 3, 3]), 3)
