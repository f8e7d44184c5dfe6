"""NPSVOR: the ADMM reaches the optimum of the paper's dual, its KKT conditions hold, the bias is
always finite, any rho gives the same model, and prediction is argmin_k |f_k(x)|."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import ordauc.solvers.ordinal.npsvor as npsvor_module
from ordauc.solvers.ordinal.npsvor import NPSVOR, RankProblems, intercepts

TIGHT = dict(tol_abs=1e-10, tol_rel=1e-10, max_iter=100_000)
# (n, p, d, seed, C, kappa, eps): small problems for the QP oracle.
CASES = [(30, 3, 2, 0, 1.0, 0.5, 0.1), (40, 4, 3, 1, 5.0, 0.3, 0.2),
         (25, 3, 2, 2, 10.0, 1.0, 0.2)]


def _ordinal_data(n: int, p: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A noisy linear latent score cut at its quantiles into ranks 1..p (every rank present)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    latent = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n)
    cuts = np.quantile(latent, np.linspace(0, 1, p + 1)[1:-1])
    return X, np.searchsorted(cuts, latent) + 1


def _kernel(A: np.ndarray, B: np.ndarray, kappa: float) -> np.ndarray:
    return np.exp(-kappa * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))


def _full_dual(model: NPSVOR, n: int) -> np.ndarray:
    """The (n, p) dual solution over all training rows (zeros off the support)."""
    beta = np.zeros((n, model.dual_coef_.shape[1]))
    beta[model.support_] = model.dual_coef_
    return beta


def _dual_qp(K: np.ndarray, y: np.ndarray, k: int, C: float, eps: float
             ) -> tuple[np.ndarray, float]:
    """The dual (7) of rank k solved by cvxopt; returns beta of (8) and the optimal value.

    Variables x = (alpha+ on I_k, alpha- on I_k, gamma off I_k), all in [0, C];
    beta = M x with beta_i = -(alpha+_i - alpha-_i) on I_k and yhat_i gamma_i elsewhere;
    min 1/2 x'M'KMx + eps sum(alpha+ + alpha-) - sum(gamma) s.t. e'Mx = 0.
    """
    cvxopt = pytest.importorskip("cvxopt")
    band = np.flatnonzero(y == k)
    other = np.flatnonzero(y != k)
    yhat = np.where(y[other] < k, -1.0, 1.0)
    nb, m = band.size, 2 * band.size + other.size
    M = np.zeros((y.size, m))
    M[band, np.arange(nb)] = -1.0
    M[band, nb + np.arange(nb)] = 1.0
    M[other, 2 * nb + np.arange(other.size)] = yhat
    P = M.T @ K @ M
    q = np.concatenate([np.full(2 * nb, eps), -np.ones(other.size)])
    G = np.vstack([np.eye(m), -np.eye(m)])
    h = np.concatenate([np.full(m, C), np.zeros(m)])
    options = dict(show_progress=False, abstol=1e-11, reltol=1e-11, feastol=1e-11)
    sol = cvxopt.solvers.qp(cvxopt.matrix(P), cvxopt.matrix(q), cvxopt.matrix(G),
                            cvxopt.matrix(h), cvxopt.matrix(M.sum(axis=0)[None, :]),
                            cvxopt.matrix(0.0), options=options)
    assert sol["status"] == "optimal"
    return M @ np.array(sol["x"]).ravel(), float(sol["primal objective"])


def _dual_objective(K: np.ndarray, y: np.ndarray, k: int, beta: np.ndarray, eps: float) -> float:
    band = y == k
    yhat = np.where(y < k, -1.0, 1.0)
    return float(0.5 * beta @ K @ beta + eps * np.abs(beta[band]).sum()
                 - (yhat[~band] * beta[~band]).sum())


def _assert_kkt(K: np.ndarray, y: np.ndarray, beta: np.ndarray, b: np.ndarray, C: float,
                eps: float, tol: float) -> None:
    """Box and equality constraints of (8), and complementary slackness of (4) with f = K beta + b:
    |f| <= eps at beta = 0, f = eps on (-C, 0), f >= eps at -C, f = -eps on (0, C), f <= -eps at
    C (rank k's own points); yhat f >= 1 at 0, = 1 inside, <= 1 at the bound C (the others)."""
    f = K @ beta + b
    for k in range(1, beta.shape[1] + 1):
        bk, fk = beta[:, k - 1], f[:, k - 1]
        band = y == k
        yhat = np.where(y < k, -1.0, 1.0)
        assert np.all(np.abs(bk[band]) <= C)
        assert np.all((yhat[~band] * bk[~band] >= 0) & (yhat[~band] * bk[~band] <= C))
        assert abs(bk.sum()) <= tol
        fb, vb = fk[band], bk[band]
        assert np.all(np.abs(fb[vb == 0]) <= eps + tol)
        assert np.all(np.abs(fb[(vb > -C) & (vb < 0)] - eps) <= tol)
        assert np.all(np.abs(fb[(vb > 0) & (vb < C)] + eps) <= tol)
        assert np.all(fb[vb == -C] >= eps - tol)
        assert np.all(fb[vb == C] <= -eps + tol)
        mo, vo = (yhat * fk)[~band], (yhat * bk)[~band]
        assert np.all(mo[vo == 0] >= 1 - tol)
        assert np.all(np.abs(mo[(vo > 0) & (vo < C)] - 1) <= tol)
        assert np.all(mo[vo == C] <= 1 + tol)


@pytest.mark.parametrize("case", CASES)
def test_admm_reaches_the_dual_qp_optimum_and_the_kkt_conditions_hold(case) -> None:
    # Measured at tol 1e-10: max |beta_ADMM - beta_QP| <= 6.2e-8, dual objective within 1.7e-10
    # of cvxopt's, |e'beta| and every KKT condition within 1e-9. (At the default tolerances
    # 1e-2, beta is off by up to 1.9 with C = 5 and the KKT conditions by up to 0.34.)
    n, p, d, seed, C, kappa, eps = case
    X, y = _ordinal_data(n, p, d, seed)
    model = NPSVOR(C=C, kappa=kappa, eps=eps, **TIGHT).fit(X, y)
    assert model.converged_
    K = _kernel(X, X, kappa)
    beta = _full_dual(model, n)
    for k in range(1, p + 1):
        beta_qp, value_qp = _dual_qp(K, y, k, C, eps)
        np.testing.assert_allclose(beta[:, k - 1], beta_qp, rtol=0, atol=1e-6 * C)
        assert _dual_objective(K, y, k, beta[:, k - 1], eps) == pytest.approx(value_qp, abs=1e-8)
    _assert_kkt(K, y, beta, model.intercept_, C, eps, tol=1e-7)


def test_without_free_support_vectors_the_bias_is_the_kkt_midpoint() -> None:
    # Three ranks of 10 points and a small C: the middle rank's solution has every coefficient
    # at a bound (its own points at 0, rank 1's at -C, rank 3's at +C), so no point pins b_2
    # down; the end ranks have free support vectors.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(m, 1.0, (10, 2)) for m in (-2.0, 0.0, 2.0)])
    y = np.repeat([1, 2, 3], 10)
    C, kappa, eps = 1e-3, 0.5, 0.2
    model = NPSVOR(C=C, kappa=kappa, eps=eps, **TIGHT).fit(X, y)
    assert model.converged_
    beta = _full_dual(model, X.shape[0])
    middle = beta[:, 1]
    assert np.all(middle[y == 1] == -C) and np.all(middle[y == 2] == 0)
    assert np.all(middle[y == 3] == C), "the middle rank must have no free SV"
    assert np.all(np.isfinite(model.intercept_))
    K = _kernel(X, X, kappa)
    g = K @ middle
    # |f| <= eps on rank 2 (beta = 0), f >= -1 on rank 1 (beta = -C), f <= 1 on rank 3 (+C).
    lower = max(np.max(-eps - g[y == 2]), np.max(-1 - g[y == 1]))
    upper = min(np.min(eps - g[y == 2]), np.min(1 - g[y == 3]))
    assert model.intercept_[1] == pytest.approx(0.5 * (lower + upper), abs=1e-12)
    _assert_kkt(K, y, beta, model.intercept_, C, eps, tol=1e-7)


def test_bias_is_finite_even_when_the_kkt_interval_has_one_end() -> None:
    # Away from a solution (here e'z != 0) every bound may point the same way: then b is that
    # bound, never NaN or infinite. Rank 1 of labels (1, 2, 2): its point at -C (f >= eps), the
    # others at 0 (f >= 1).
    y = np.array([1, 2, 2])
    problems = RankProblems.build(y, 2, C=1.0, eps=0.1)
    z = np.array([[-1.0, 0.0], [0.0, 0.5], [0.0, -0.5]])
    Kz = np.array([[0.3, 0.0], [0.2, 0.1], [-0.4, -0.1]])
    b = intercepts(Kz, z, problems)
    assert b[0] == pytest.approx(max(0.1 - 0.3, 1 - 0.2, 1 + 0.4))
    # rank 2 has free support vectors (rows 1, 2 inside (-C, C) on its own band): their mean.
    assert b[1] == pytest.approx(np.mean([-0.1 - 0.1, 0.1 + 0.1]))


def test_any_rho_reaches_the_same_model() -> None:
    # The beta-update solves the KKT system (14) exactly for every rho; dropping the factor rho
    # of rho (z - u) (correct for rho = 1 only) breaks e'beta = 0 and moves the solution.
    # Measured: the three duals within 2.5e-9, the biases within 1.6e-11.
    X, y = _ordinal_data(40, 4, 3, 1)
    models = {rho: NPSVOR(C=5.0, kappa=0.3, eps=0.2, rho=rho, **TIGHT).fit(X, y)
              for rho in (0.5, 1.0, 2.0)}
    K = _kernel(X, X, 0.3)
    ref = _full_dual(models[1.0], 40)
    for rho, model in models.items():
        assert model.converged_, rho
        beta = _full_dual(model, 40)
        np.testing.assert_allclose(beta, ref, rtol=0, atol=1e-7)
        np.testing.assert_allclose(model.intercept_, models[1.0].intercept_, rtol=0, atol=1e-8)
        _assert_kkt(K, y, beta, model.intercept_, 5.0, 0.2, tol=1e-7)
        np.testing.assert_array_equal(model.predict(X), models[1.0].predict(X))


def test_prediction_is_the_nearest_hyperplane(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(npsvor_module, "_CHUNK_ROWS", 7)  # several kernel blocks
    X, y = _ordinal_data(60, 4, 3, 4)
    y = y + 4  # labels 5..8: classes_ maps ranks back
    model = NPSVOR(C=2.0, kappa=0.4, eps=0.2).fit(X, y)
    X_new = np.random.default_rng(5).normal(size=(53, 3))
    f = np.array([[sum(model.dual_coef_[i, k] * np.exp(-0.4 * np.sum((x - sv) ** 2))
                       for i, sv in enumerate(model.support_vectors_)) + model.intercept_[k]
                   for k in range(4)] for x in X_new])
    np.testing.assert_allclose(model.rank_functions(X_new), f, rtol=0, atol=1e-12)
    expected = np.array([5, 6, 7, 8])[np.argmin(np.abs(f), axis=1)]
    np.testing.assert_array_equal(model.predict(X_new), expected)
    assert len(set(expected.tolist())) > 1
    assert not hasattr(model, "decision_function")


def test_unlabeled_rows_are_ignored() -> None:
    X, y = _ordinal_data(50, 3, 2, 6)
    X_u = np.random.default_rng(7).normal(size=(20, 2))
    a = NPSVOR(C=1.0, kappa=0.5).fit(X, y)
    b = NPSVOR(C=1.0, kappa=0.5).fit(np.vstack([X_u[:10], X, X_u[10:]]),
                                     np.concatenate([np.full(10, -1), y, np.full(10, -1)]))
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.predict(X_u), b.predict(X_u))


def test_kernel_is_factored_once_for_all_ranks_and_iterations(monkeypatch) -> None:
    calls = []
    real = npsvor_module.scipy.linalg.cho_factor
    monkeypatch.setattr(npsvor_module.scipy.linalg, "cho_factor",
                        lambda *a, **kw: calls.append(1) or real(*a, **kw))
    X, y = _ordinal_data(40, 4, 2, 8)
    model = NPSVOR(**TIGHT).fit(X, y)
    assert model.n_iter_ > 10 and calls == [1]


def test_max_iter_before_the_stopping_rule_warns() -> None:
    X, y = _ordinal_data(40, 3, 2, 9)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = NPSVOR(max_iter=2).fit(X, y)
    assert model.n_iter_ == 2 and not model.converged_
    assert np.all(np.isfinite(model.intercept_))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = NPSVOR().fit(X, y)
    assert model.converged_ and model.n_iter_ < 1000


def test_fit_memory_grows_with_the_kernel() -> None:
    small, large = (NPSVOR().fit_memory_bytes(n, 10) for n in (1000, 4000))
    assert small >= 8 * 1000 ** 2 and large >= 8 * 4000 ** 2 and large > 10 * small


@pytest.mark.parametrize("params", [dict(C=0.0), dict(kappa=-1.0), dict(rho=0), dict(eps=-0.1),
                                    dict(max_iter=0), dict(tol_abs=float("nan"))])
def test_bad_parameters_are_refused(params) -> None:
    X, y = _ordinal_data(20, 3, 2, 0)
    with pytest.raises(ValueError):
        NPSVOR(**params).fit(X, y)


def test_every_parameter_is_constrained_and_none_is_a_seed() -> None:
    # The fit draws nothing at random: a random_state would be a results column meaning nothing.
    params = NPSVOR().get_params()
    assert set(params) == set(NPSVOR._parameter_constraints)
    assert "random_state" not in params


def _pyrimidines(partition: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from fixtures_data.helpers import shared_or_skip

    folder = shared_or_skip("chuwei-ordinal-bb515-probit", "probit", "data", "pyrimidines",
                            "quantile")
    train = np.loadtxt(folder / f"pyrim_train_5.{partition}")
    test = np.loadtxt(folder / f"pyrim_test_5.{partition}")
    X, y, X_test, y_test = train[:, :-1], train[:, -1], test[:, :-1], test[:, -1]
    mean, std = X.mean(axis=0), X.std(axis=0)
    std[std == 0] = 1.0  # a constant training column becomes 0
    return (X - mean) / std, y.astype(int), (X_test - mean) / std, y_test.astype(int)


def test_pyrimidines_beats_the_majority_predictor() -> None:
    # Chu's pyrimidines, 5 equal-frequency bins, 50 train / 24 test points per partition, z-scored
    # with the training part. C = 10, kappa = 0.1, eps = 0.2, default tolerances 1e-2. Measured
    # test MAE: 0.875 on partition 1 (the hardest), 0.580 averaged over the 20 partitions; the
    # majority rank (2) scores 0.958 on every partition.
    maes, baselines = [], []
    for partition in range(1, 21):
        X, y, X_test, y_test = _pyrimidines(partition)
        model = NPSVOR(C=10.0, kappa=0.1, eps=0.2).fit(X, y)
        assert model.converged_
        maes.append(np.mean(np.abs(model.predict(X_test) - y_test)))
        values, counts = np.unique(y, return_counts=True)
        baselines.append(np.mean(np.abs(values[np.argmax(counts)] - y_test)))
    assert maes[0] < baselines[0]
    assert np.mean(maes) < 0.7 < 0.9 < np.mean(baselines)
    assert np.mean(np.array(maes) < np.array(baselines)) >= 0.95


# scikit-learn's estimator checks: tests/solvers/test_estimator_checks.py (every registered solver).


def test_the_admm_residuals_are_logged_and_curves_read_them():
    """NPSVOR logs ||r_t|| and ||s_t|| per iteration (its ``traces_``), the runner writes them
    as curve rows where a study records curves, and with zero tolerances the primal residual
    falls at a linear rate (Theorem 1) on a small problem."""
    from ordauc.experiment.cell import trace_rows
    from ordauc.solvers.ordinal.npsvor import NPSVOR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=90), [-0.5, 0.5]) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = NPSVOR(C=1.0, kappa=0.5, tol_abs=0.0, tol_rel=0.0, max_iter=300).fit(X, y)
    primal = model.traces_["primal_residual"]
    assert primal.size == model.traces_["dual_residual"].size == model.n_iter_ == 300
    tail = np.log10(primal[150:])
    slope = np.polyfit(np.arange(150, 300), tail, 1)[0]
    assert slope < 0 and tail[-1] < tail[0] - 1  # at least a decade over the last half
    rows = trace_rows(model, 100)
    assert [(r["iteration"], r["metric"]) for r in rows] == [
        (100, "primal_residual"), (200, "primal_residual"), (300, "primal_residual"),
        (100, "dual_residual"), (200, "dual_residual"), (300, "dual_residual")]
    assert rows[0]["value"] == primal[99]
    assert trace_rows(model, None) == [] and trace_rows(object(), 10) == []


# -- fit_grid: one factorisation per (kappa, rho), every point bitwise its lone fit ------------

GRID = [dict(C=C, eps=eps, kappa=kappa) for C in (0.5, 5.0) for kappa in (0.3, 2.0)
        for eps in (0.0, 0.2)]
# the tolerances and max_iter are shared too (max_iter=3 stops early and warns)
GRID += [dict(C=1.0, kappa=0.3, eps=0.1, tol_abs=1e-4, tol_rel=1e-4),
         dict(C=1.0, kappa=2.0, eps=0.1, max_iter=3)]
FITTED = ("classes_", "n_classes_", "n_features_in_", "support_", "support_vectors_",
          "dual_coef_", "intercept_", "n_iter_", "converged_")


def _grid_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """50 labeled rows in 4 ranks, 10 unlabeled rows among them, and new rows to predict."""
    X, y = _ordinal_data(60, 4, 3, 11)
    y = y.copy()
    y[::6] = -1
    return X, y, np.random.default_rng(12).normal(size=(40, 3))


def _bitwise(a, b, name: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert (a.dtype, a.shape) == (b.dtype, b.shape), name
    assert a.tobytes() == b.tobytes(), name


def _assert_is_lone_fit(model, lone, X_new: np.ndarray) -> None:
    assert isinstance(model, NPSVOR) and model.get_params() == lone.get_params()
    for name in FITTED:
        _bitwise(getattr(model, name), getattr(lone, name), name)
    assert model.traces_.keys() == lone.traces_.keys()
    for name in lone.traces_:
        _bitwise(model.traces_[name], lone.traces_[name], name)
    _bitwise(model.rank_functions(X_new), lone.rank_functions(X_new), "rank_functions")
    _bitwise(model.predict(X_new), lone.predict(X_new), "predict")


def test_grid_fit_factors_once_per_kappa_and_equals_lone_fits_bitwise(monkeypatch) -> None:
    X, y, X_new = _grid_data()
    calls = []
    real = npsvor_module.scipy.linalg.cho_factor
    monkeypatch.setattr(npsvor_module.scipy.linalg, "cho_factor",
                        lambda *a, **kw: calls.append(a[0].shape) or real(*a, **kw))
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        results = NPSVOR().fit_grid(X, y, GRID)
    assert calls == [(50, 50)] * 2  # one factor per kappa for the ten points
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lones = [NPSVOR().set_params(**point).fit(X, y) for point in GRID]
    for model, lone in zip(results, lones, strict=True):
        _assert_is_lone_fit(model, lone, X_new)
    # a caller's cache, kept across the groups and calls (as the M-* wrappers keep theirs)
    cache: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for points in (GRID, GRID[::-1]):
            for i, model in NPSVOR().iter_fit_grid(X, y, points, cache=cache):
                _assert_is_lone_fit(model, lones[GRID.index(points[i])], X_new)
    assert not results[-1].converged_ and results[-1].n_iter_ == 3
    assert len({m.dual_coef_.tobytes() for m in results}) == len(GRID)  # all distinct models


def test_grid_fit_an_invalid_point_fails_alone(monkeypatch) -> None:
    X, y, X_new = _grid_data()
    real = npsvor_module.admm

    def admm(factor, problems, *args):  # a failure inside the pass, for C = 7 only
        if problems.upper.max() == 7.0:
            raise FloatingPointError("C = 7")
        return real(factor, problems, *args)

    monkeypatch.setattr(npsvor_module, "admm", admm)
    points = [dict(C=1.0), dict(C=-1.0), dict(C=7.0), dict(eps=-0.1), dict(C=10.0, eps=0.3)]
    results = NPSVOR(kappa=0.5).fit_grid(X, y, points)
    assert isinstance(results[1], ValueError) and isinstance(results[3], ValueError)
    assert isinstance(results[2], FloatingPointError)
    with pytest.raises(FloatingPointError):  # as its lone fit
        NPSVOR(kappa=0.5, C=7.0).fit(X, y)
    for i in (0, 4):
        _assert_is_lone_fit(results[i], NPSVOR(kappa=0.5).set_params(**points[i]).fit(X, y),
                            X_new)


def test_grid_fit_memory_shares_the_factor() -> None:
    points = [dict(C=C, eps=e) for C in (0.1, 1.0, 10.0) for e in (0.0, 0.1, 0.2)]
    one, nine = (NPSVOR().grid_memory(2000, 8, points[:m]) for m in (1, 9))
    assert one.largest_pass >= 8 * 2000 ** 2  # the n x n factor
    # each more point adds what it keeps (its model), a small part of one n x n array
    assert nine.largest_pass - one.largest_pass == nine.kept - one.kept == 8 * one.kept
    assert one.kept < 8 * 2000 ** 2 / 20
    two_kappas = NPSVOR().grid_memory(2000, 8, points + [dict(kappa=2.0)])
    assert two_kappas.largest_pass == nine.largest_pass  # one (kappa, rho) at a time


def test_the_tuner_scores_the_same_with_and_without_shared_passes() -> None:
    from sklearn.model_selection import StratifiedKFold

    from ordauc.experiment.tuning import InnerCV

    X, y = _ordinal_data(80, 4, 3, 13)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    grid = {"C": [0.5, 5.0], "eps": [0.0, 0.2], "kappa": [0.3, 2.0]}
    chosen = {shared: InnerCV(folds, ["mze", "mae"], "ordinal", 4, shared=shared).tune(
        NPSVOR(), X, y, grid) for shared in (True, False)}
    for metric in ("mze", "mae"):
        a, b = chosen[True][metric], chosen[False][metric]
        assert a.params == b.params and a.score == b.score and a.points == b.points
        assert a.fits == b.fits == 8 * 3 and a.failed == b.failed == 0
