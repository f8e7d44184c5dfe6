"""PNU-AUC: the closed form minimises the squared PNU-AUC objective, the energy prior, the
zero-one model-selection risk, M-PNU-AUC as k-1 binary models, and scikit-learn's checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import check_grad, minimize
from sklearn.metrics import roc_auc_score

from ordauc.data import load
from ordauc.solvers.kernel.pnu_auc import MPNUAUC, PNUAUC, reference_width
from ordauc.solvers.kernel.pnu_risk import pnu_risk_01_from_scores
from ordauc.solvers.kernel.prior import energy_prior

# ---------------------------------------------------------------- 1. closed form = minimum


def _tiny_problem():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0.6, 1.0, (6, 2)), rng.normal(-0.6, 1.0, (6, 2)),
                   rng.normal(0.0, 1.2, (10, 2))])
    y = np.array([1] * 6 + [0] * 6 + [-1] * 10)
    return X, y


def _plain_objective(Phi, y, eta, prior, lam):
    """J(theta) and its gradient, written from the definitions: means over all pairs of the
    squared loss l(m) = (1 - m)^2 of the margin m = g(first) - g(second)."""
    tp, tn = prior, 1.0 - prior
    P, N, U = Phi[y == 1], Phi[y == 0], Phi[y == -1]

    def pairs(A, B, theta):
        # mean over (a, b) of (1 - g(a) + g(b))^2 and its gradient in theta
        loss, grad = 0.0, np.zeros_like(theta)
        for a, b in itertools.product(A, B):
            r = 1.0 - a @ theta + b @ theta
            loss += r * r
            grad += -2.0 * r * (a - b)
        return loss / (len(A) * len(B)), grad / (len(A) * len(B))

    def J(theta):
        pn, g_pn = pairs(P, N, theta)
        if eta >= 0:
            xu, g_xu = pairs(P, U, theta)
            self_, g_self = pairs(P, P, theta)  # every ordered pair, the diagonal included
            rx, g_rx = (xu - tp * self_) / tn, (g_xu - tp * g_self) / tn
        else:
            xu, g_xu = pairs(U, N, theta)
            self_, g_self = pairs(N, N, theta)
            rx, g_rx = (xu - tn * self_) / tp, (g_xu - tn * g_self) / tp
        w = abs(eta)
        value = (1 - w) * pn + w * rx + lam * theta @ theta
        grad = (1 - w) * g_pn + w * g_rx + 2 * lam * theta
        return value, grad

    return J


@pytest.mark.parametrize("eta", [0.6, -0.6, 0.3, -0.9])
def test_closed_form_is_the_minimum_of_the_plain_objective(eta):
    X, y = _tiny_problem()
    sigma, lam, prior = 0.7, 0.05, 0.4
    model = PNUAUC(lam=lam, sigma=sigma, eta=eta, prior=prior, n_basis=50,
                   random_state=0).fit(X, y)
    C = model.centers_
    np.testing.assert_array_equal(C, X)  # b = n: every training point, in row order
    Phi = np.exp(-sigma * ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2))
    J = _plain_objective(Phi, y, eta, prior, lam)
    theta0 = np.random.default_rng(0).normal(size=C.shape[0])
    assert check_grad(lambda t: J(t)[0], lambda t: J(t)[1], theta0) < 1e-5
    # the closed form is a stationary point of the plain objective, to rounding (~1e-15) ...
    assert np.linalg.norm(J(model.coef_)[1]) < 1e-12
    assert model.objective_ == pytest.approx(J(model.coef_)[0], rel=1e-12)
    # ... and the minimum a generic minimiser finds (BFGS stops at |grad| ~ 1e-8, where its
    # line search loses precision: theta agrees to ~1e-7)
    res = minimize(J, np.zeros(C.shape[0]), jac=True, method="BFGS",
                   options={"gtol": 1e-12, "maxiter": 10_000})
    assert np.linalg.norm(J(res.x)[1]) < 1e-7
    np.testing.assert_allclose(model.coef_, res.x, rtol=0, atol=1e-6)
    assert model.objective_ <= res.fun + 1e-13
    np.testing.assert_allclose(model.decision_function(X), Phi @ res.x, rtol=0, atol=1e-6)


def test_without_unlabeled_rows_it_is_pn_auc():
    X, y = _tiny_problem()
    labeled = y != -1
    a = PNUAUC(lam=0.1, eta=0.7, n_basis=12).fit(X[labeled], y[labeled])
    b = PNUAUC(lam=0.1, eta=0.0, n_basis=12).fit(X[labeled], y[labeled])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=0)


# ---------------------------------------------------------------- 2. energy prior


@pytest.mark.parametrize("theta_p", [0.3, 0.7])
def test_energy_prior_recovers_a_known_prior(theta_p):
    rng = np.random.default_rng(int(theta_p * 10))

    def draw(n_pos, n_neg):
        return (rng.normal(2.0, 1.0, (n_pos, 3)), rng.normal(-2.0, 1.0, (n_neg, 3)))

    X_pos, X_neg = draw(100, 100)
    n_u = 1000
    U_pos, U_neg = draw(int(theta_p * n_u), n_u - int(theta_p * n_u))
    estimate = energy_prior(X_pos, X_neg, np.vstack([U_pos, U_neg]))
    assert abs(estimate - theta_p) < 0.05, estimate
    # through the solver: prior_ is the same estimate (clipped to [0.01, 0.99])
    X = np.vstack([X_pos, X_neg, U_pos, U_neg])
    y = np.r_[np.ones(100, int), np.zeros(100, int), -np.ones(n_u, int)]
    model = PNUAUC(prior="energy", n_basis=20, random_state=0).fit(X, y)
    assert model.prior_ == pytest.approx(estimate)
    assert PNUAUC(n_basis=20).fit(X, y).prior_ == 0.5  # "labeled": 100 / 200


def test_energy_prior_of_indistinguishable_classes_is_the_labeled_proportion():
    X = np.ones((5, 2))
    assert energy_prior(X[:2], X[2:], X) == pytest.approx(0.4)


# ---------------------------------------------------------------- 3. zero-one risk


def _l01(m):
    return 0.5 if m == 0 else (0.0 if m > 0 else 1.0)


def _brute_risk01(gp, gn, gu, prior, eta, n_p, n_n):
    """calc_eta_heu_unb and calc_loss of the reference, written out pair by pair."""
    tp, tn = prior, 1 - prior
    if eta >= 0:
        a, b = tn ** 2 * (n_p - 1), tp ** 2 * n_n
        w = a / (a + b)
    else:
        a, b = tn ** 2 * n_p, tp ** 2 * (n_n - 1)
        w = -b / (a + b)

    def mean(A, B):
        return np.mean([_l01(u - v) for u, v in itertools.product(A, B)])

    def self_sum(A):  # every ordered pair, the diagonal included
        return sum(_l01(u - v) for u, v in itertools.product(A, A))

    l_pn = mean(gp, gn)
    if w >= 0:
        k = len(gp)
        l_x = (mean(gp, gu) - tp * self_sum(gp) / (k * (k - 1)) + tp / (2 * (k - 1))) / tn
    else:
        k = len(gn)
        l_x = (mean(gu, gn) - tn * self_sum(gn) / (k * (k - 1)) + tn / (2 * (k - 1))) / tp
    return (1 - abs(w)) * l_pn + abs(w) * l_x


@pytest.mark.parametrize("eta", [0.4, -0.4])
def test_pnu_risk_01_is_the_brute_force_risk(eta):
    ds = load("synthetic_binary", n=120, d=3, seed=4)
    y = ds.y.copy()
    y[40:] = -1
    model = PNUAUC(lam=0.1, sigma=1.0, eta=eta, n_basis=30, random_state=1).fit(ds.X[:90],
                                                                                 y[:90])
    X_val, y_val = ds.X[90:].copy(), y[90:].copy()
    y_val[:6] = ds.y[90:96]  # a few labeled validation rows
    X_val[20] = X_val[0]  # ties: an unlabeled copy of a labeled row, and two equal labeled rows
    X_val[1] = X_val[0]
    y_val[1] = y_val[0]
    g = model.decision_function(X_val)
    gp, gn, gu = g[y_val == 1], g[y_val == 0], g[y_val == -1]
    assert min(gp.size, gn.size) >= 2
    expected = _brute_risk01(gp, gn, gu, model.prior_, eta, model.n_pos_ + gp.size,
                             model.n_neg_ + gn.size)
    assert model.pnu_risk_01(X_val, y_val) == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # the validation set alone lacks U: the risk cannot be computed
    assert np.isnan(model.pnu_risk_01(X_val[:6], y_val[:6]))


@pytest.mark.parametrize(("eta", "prior"), [(0.0, 0.3), (0.8, 0.6), (-0.2, 0.3), (-1.0, 0.7)])
def test_risk_from_scores_with_many_ties(eta, prior):
    rng = np.random.default_rng(7)
    gp, gn, gu = (rng.integers(0, 4, size).astype(float) for size in (7, 5, 9))
    got = pnu_risk_01_from_scores(gp, gn, gu, prior, eta, 20, 11)
    assert got == pytest.approx(_brute_risk01(gp, gn, gu, prior, eta, 20, 11), rel=1e-12)


# ---------------------------------------------------------------- 4. M-PNU-AUC


def test_m_pnu_auc_is_one_pnu_auc_per_subproblem():
    ds = load("synthetic_ordinal", n=150, d=3, seed=2)
    y = ds.y.copy()
    y[60:] = -1
    params = dict(lam=0.2, sigma=1.5, eta=-0.3, n_basis=40, random_state=5)  # b < n
    m = MPNUAUC(**params).fit(ds.X, y)
    scores = m.decision_function(ds.X)
    assert scores.shape == (150, ds.n_classes - 1)
    risks = []
    for j in range(1, ds.n_classes):
        yj = np.where(y == -1, -1, (y > j).astype(int))
        single = PNUAUC(**params).fit(ds.X, yj)
        np.testing.assert_array_equal(scores[:, j - 1], single.decision_function(ds.X))
        labeled = y != -1
        assert single.prior_ == pytest.approx(np.mean(y[labeled] > j))
        y_val = np.where(np.arange(150) < 100, yj, -1)  # evaluate on the training rows
        risks.append(single.pnu_risk_01(ds.X, y_val))
    y_val = np.where(np.arange(150) < 100, y, -1)
    assert m.pnu_risk_01(ds.X, y_val) == pytest.approx(np.mean(risks))


# ---------------------------------------------------------------- 5. it learns; sigma


@pytest.mark.parametrize("eta", [0.5, -0.5])
def test_better_than_chance_on_nonlinear_data(eta):
    ds = load("synthetic_binary", n=600, d=5)
    y = ds.y.copy()
    y[100:] = -1
    model = PNUAUC(lam=0.01, sigma=1.0, eta=eta, random_state=0).fit(ds.X, y)
    assert model.centers_.shape == (200, 5)
    auc = roc_auc_score(ds.y[100:], model.decision_function(ds.X[100:]))
    assert auc > 0.75, auc
    labels = model.predict(ds.X[100:])
    assert set(np.unique(labels)) <= {0, 1}
    assert np.mean(labels == ds.y[100:]) > 0.6


def test_sigma_is_ordauc_sigma_and_the_reference_width_converts_it():
    rng = np.random.default_rng(0)
    X, y = rng.random((30, 4)), np.r_[[0, 1] * 5, [-1] * 20]
    sigma = 3.0
    model = PNUAUC(sigma=sigma, n_basis=7, random_state=2).fit(X, y)
    Z = rng.random((5, 4))
    d2 = np.array([[np.sum((z - c) ** 2) for c in model.centers_] for z in Z])
    np.testing.assert_allclose(model.basis(Z), np.exp(-sigma * d2), rtol=1e-12)
    s = reference_width(sigma)
    np.testing.assert_allclose(model.basis(Z), np.exp(-d2 / (2 * s ** 2)), rtol=1e-12)
    np.testing.assert_allclose(model.decision_function(Z), np.exp(-sigma * d2) @ model.coef_,
                               rtol=1e-12)
    # the centres are training rows, drawn by the seed
    assert all(any(np.array_equal(c, x) for x in X) for c in model.centers_)
    other = PNUAUC(sigma=sigma, n_basis=7, random_state=3).fit(X, y)
    assert not np.array_equal(model.centers_, other.centers_)


# ---------------------------------------------------------------- parameters, memory


@pytest.mark.parametrize("bad", [dict(eta=1.5), dict(eta=True), dict(prior="true"),
                                 dict(prior=0.0), dict(prior=1.0), dict(n_basis=0),
                                 dict(lam=0.0), dict(sigma=-1.0), dict(random_state=-1)])
def test_invalid_parameters_are_refused(bad):
    X, y = _tiny_problem()
    with pytest.raises(ValueError):
        PNUAUC(**bad).fit(X, y)


def test_memory_estimate_counts_the_basis_matrix():
    small = PNUAUC().fit_memory_bytes(1000, 10)
    assert small >= 8 * (1000 * 200 + 1000 * 10)
    assert PNUAUC(n_basis=50).fit_memory_bytes(1000, 10) < small
    assert MPNUAUC().fit_memory_bytes(1000, 10) > small


# ---------------------------------------------------------------- 6. scikit-learn


# scikit-learn's estimator checks: tests/solvers/test_estimator_checks.py (every registered solver).


def test_score_is_minus_the_selection_risk_and_tunes_in_the_runner(write_config, cli, tmp_path):
    # `tuning: {metric: own}` selects PNU-AUC by its zero-one PNU-AUC risk, on validation folds
    # that hold unlabeled rows too (the reference splits P, N and U into folds).
    ds = load("synthetic_binary", n=300, d=4, seed=1)
    y = ds.y.copy()
    y[80:] = -1
    model = PNUAUC(lam=0.1, sigma=1.0, random_state=0).fit(ds.X[:200], y[:200])
    y_val = np.where(np.arange(100) < 40, ds.y[200:], -1)  # 40 labeled, 60 unlabeled rows
    risk = model.pnu_risk_01(ds.X[200:], y_val)
    assert 0.0 <= risk < 0.5 and model.score(ds.X[200:], y_val) == -risk
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"kind": "budget", "n_labeled": [40], "n_unlabeled": [60]},
        "tuning": {"kind": "cv", "folds": 3, "metric": "own"},
        "solvers": {"pnu_auc": {"grid": {"lam": [0.1, 1.0], "eta": [-0.5, 0.5]}},
                    "samult": {"grid": {"lam": [0.5, 1.0]}}}})
    code, _, stderr = cli("run", config, "--out", tmp_path / "out")
    assert code == 2 and "samult" in stderr and "own" in stderr  # SAMULT has no own score
    config = write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"kind": "budget", "n_labeled": [40], "n_unlabeled": [60]},
        "tuning": {"kind": "cv", "folds": 3, "metric": "own"},
        "solvers": {"pnu_auc": {"grid": {"lam": [0.1, 1.0], "eta": [-0.5, 0.5]}}}})
    code, _, stderr = cli("run", config, "--out", tmp_path / "out")
    assert code == 0, stderr
    import pandas as pd

    row = pd.read_csv(tmp_path / "out" / "results.csv").iloc[0]
    assert row["status"] == "ok" and row["cv_metric"] == "own"
    # The PU/NU-corrected risk estimate is unbiased, not bounded below by 0: only finiteness.
    assert np.isfinite(row["cv_score"]) and row["cv_failed"] == 0
