"""fit_grid of the exact kernel solvers: every point equals its lone fit to 1e-8 relative.

Measured gaps: 1e-15 to 2e-13 (SAMULT through one eigendecomposition of K_UU per sigma, PNU-AUC
through one of each (eta, prior) system): the tests ask for 1e-8.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from ordauc.data import load
from ordauc.solvers._labels import split_labels
from ordauc.solvers.kernel import samult as samult_module
from ordauc.solvers.kernel.linalg import lam_path
from ordauc.solvers.kernel.pnu_auc import MPNUAUC, PNUAUC
from ordauc.solvers.kernel.samult import (
    MSAMULT,
    SAMULT,
    KernelPath,
    gaussian_kernel,
    solve_exact,
)
from ordauc.solvers.objective import gamma_vector

RTOL = 1e-8


def _semi(name: str, n: int, n_labeled: int, d: int = 4, seed: int = 3):
    ds = load(name, n=n, d=d, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _close(a: np.ndarray, b: np.ndarray) -> None:
    assert np.abs(a - b).max() <= RTOL * np.abs(a).max()


def _check(base, X, y, points, results, coef: str) -> None:
    assert len(results) == len(points)
    for point, model in zip(points, results, strict=True):
        lone = clone(base).set_params(**point).fit(X, y)
        assert not isinstance(model, Exception), (point, model)
        assert model.get_params() == lone.get_params()
        _close(lone.decision_function(X), model.decision_function(X))
        if coef == "models_":  # an M-* wrapper: one model per subproblem
            for a, b in zip(lone.models_, model.models_, strict=True):
                _close(a.thresholds_, b.thresholds_)
        else:
            _close(getattr(lone, coef), getattr(model, coef))
            _close(lone.thresholds_, model.thresholds_)
            assert model.objective_ == pytest.approx(lone.objective_, rel=RTOL)
        assert np.array_equal(lone.predict(X), model.predict(X))


SAMULT_POINTS = [dict(lam=lam, gamma=g) for lam in (0.125, 1.0, 8.0) for g in (0.0, 0.4, 1.0)]
SAMULT_POINTS += [dict(lam=0.5, gamma=0.3, sigma=2.0), dict(lam=2.0, gamma=0.7, sigma=2.0)]


def test_samult_grid_equals_lone_fits_binary():
    X, y = _semi("synthetic_binary", 300, 60)
    base = SAMULT(sigma=0.7)
    _check(base, X, y, SAMULT_POINTS, base.fit_grid(X, y, SAMULT_POINTS), "dual_coef_")


def test_samult_grid_equals_lone_fits_ordinal_with_gamma_lists():
    X, y = _semi("synthetic_ordinal", 300, 100)
    base = SAMULT(sigma=0.7)
    points = [dict(lam=0.5, gamma=[0.1, 0.2, 0.9, 1.0]), dict(lam=2.0, gamma=0.3),
              dict(lam=0.05, gamma=[0.0, 1.0, 0.0, 1.0]), dict(lam=1.0, gamma=[0.5, 0.5])]
    results = base.fit_grid(X, y, points)
    _check(base, X, y, points[:3], results[:3], "dual_coef_")
    assert isinstance(results[3], ValueError)  # a gamma list of the wrong length, as fit


def test_kernel_path_solves_the_exact_system_for_small_lam_and_no_unlabeled_rows():
    for n_labeled in (120, 300):  # 300: every row labeled (no unlabeled block)
        X, y = _semi("synthetic_ordinal", 300, n_labeled)
        labels = split_labels(y)
        path = KernelPath(X.astype(np.float64), labels, 1.3)
        for lam in (1e-3, 0.3):
            gamma = gamma_vector(0.2, labels.n_classes)
            K = gaussian_kernel(X, X, 1.3)
            _close(solve_exact(K, labels, gamma, lam), path.solve(labels, gamma, lam))


def test_m_samult_grid_equals_lone_fits_and_builds_one_path_per_sigma(monkeypatch):
    X, y = _semi("synthetic_ordinal", 300, 100)
    built = []

    class Counting(KernelPath):
        def __init__(self, *args, **kwargs):
            built.append(args[2])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(samult_module, "KernelPath", Counting)
    base = MSAMULT(sigma=0.7)
    points = [dict(lam=0.5, gamma=[0.1, 0.2, 0.9, 1.0]), dict(lam=2.0, gamma=0.3),
              dict(lam=1.0, sigma=2.0), dict(lam=0.3, sigma=2.0)]
    results = base.fit_grid(X, y, points)
    assert sorted(built) == [0.7, 2.0]  # one per sigma, for all four subproblems
    _check(base, X, y, points, results, "models_")


def test_samult_split_under_a_small_budget_gives_the_same_models():
    X, y = _semi("synthetic_binary", 300, 60)
    base = SAMULT(sigma=0.7)
    points = SAMULT_POINTS[:9]
    whole = base.fit_grid(X, y, points)
    one, two = (base.grid_memory(300, 4, points[:n], n_unlabeled=240).largest_pass
                for n in (1, 2))
    for budget in (two, 1):  # passes of two; then one point at a time (lone fits)
        split = base.fit_grid(X, y, points, max_bytes=budget)
        for a, b in zip(whole, split, strict=True):
            _close(a.dual_coef_, b.dual_coef_)
    assert base.fit_grid_memory_bytes(300, 4, points, max_bytes=1) < \
        base.fit_grid_memory_bytes(300, 4, points)


PNU_POINTS = [dict(lam=lam, eta=eta, prior=prior) for lam in (0.01, 0.1, 1.0)
              for eta in (-0.5, 0.0, 0.7) for prior in ("labeled", 0.3)]
PNU_POINTS += [dict(lam=0.1, eta=0.4, sigma=2.0)]


def test_pnu_auc_grid_equals_lone_fits():
    X, y = _semi("synthetic_binary", 300, 60)
    base = PNUAUC(sigma=0.7, n_basis=50, random_state=0)
    _check(base, X, y, PNU_POINTS, base.fit_grid(X, y, PNU_POINTS), "coef_")
    energy = [dict(lam=0.01, prior="energy", eta=0.5), dict(lam=1.0, prior="energy", eta=0.5)]
    _check(base, X, y, energy, base.fit_grid(X, y, energy), "coef_")


def test_m_pnu_auc_grid_equals_lone_fits():
    X, y = _semi("synthetic_ordinal", 300, 100)
    base = MPNUAUC(sigma=0.7, n_basis=40, random_state=1)
    points = [dict(lam=lam, eta=eta) for lam in (0.01, 1.0) for eta in (-0.3, 0.6)]
    _check(base, X, y, points, base.fit_grid(X, y, points), "models_")


def test_lam_path_is_the_solve_and_the_minimum_norm_solution_when_singular():
    rng = np.random.default_rng(0)
    B = rng.normal(size=(6, 6))
    A = 0.5 * (B + B.T)  # indefinite
    h = rng.normal(size=6)
    for lam, (theta, J) in zip((0.5, 3.0), lam_path(A, h, [0.5, 3.0]), strict=True):
        _close(np.linalg.solve(A + lam * np.eye(6), h), theta)
        assert abs(J - (1.0 - theta @ h)) < 1e-12
    a = np.linalg.eigvalsh(A)
    lam = -a[2]  # A + lam I singular: the minimum-norm least-squares solution
    theta = lam_path(A, h, [lam])[0][0]
    expected = np.linalg.lstsq(A + lam * np.eye(6), h, rcond=1e-12)[0]
    np.testing.assert_allclose(theta, expected, atol=1e-10 * np.abs(expected).max())


def test_m_star_grid_memory_needs_the_number_of_classes():
    cases = [(MSAMULT(sigma=0.7), SAMULT(sigma=0.7),
              [dict(lam=0.5, gamma=[0.1, 0.2, 0.9, 1.0]), dict(lam=2.0, gamma=0.3)],
              [dict(lam=0.5, gamma=0.1), dict(lam=2.0, gamma=0.3)]),
             (MPNUAUC(n_basis=40), PNUAUC(n_basis=40),
              [dict(lam=0.5, eta=0.3), dict(lam=2.0, eta=-0.3)],
              [dict(lam=0.5, eta=0.3), dict(lam=2.0, eta=-0.3)])]
    for wrapper, base, points, binary_points in cases:
        with pytest.raises(ValueError, match="n_classes"):
            wrapper.fit_grid_memory_bytes(300, 4, points)
        five = wrapper.grid_memory(300, 4, points, n_classes=5)
        binary = base.grid_memory(300, 4, binary_points)
        assert five.kept == 4 * binary.kept  # k-1 binary models kept per point
        assert five.largest_pass == binary.largest_pass
        assert wrapper.grid_memory(300, 4, points, n_classes=3).kept < five.kept
        assert wrapper.fit_grid_memory_bytes(300, 4, points, n_classes=5) == sum(five)
