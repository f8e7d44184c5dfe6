"""AUC-DCD (AUC-SDCD, AUC-SDCDperm, AUC-MSGD) and OAM (OAMinf, OAMseq, OAMgra): the compiled
loops against the plain reference on the same pairs, the pair orders, the pair-mean objective,
convergence, checkpoints, real data, and scikit-learn's estimator checks."""

from __future__ import annotations

import tracemalloc
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from fixtures_data.helpers import shared_or_skip
from sklearn.datasets import load_svmlight_file
from sklearn.metrics import roc_auc_score

from ordauc.solvers.pairwise import (
    AUCMSGD,
    AUCSDCD,
    AUCSDCDPerm,
    OAMGra,
    OAMInf,
    OAMSeq,
    order,
    pairwise_hinge_mean,
    reference,
)
from ordauc.solvers.pairwise._estimator import PairIterate, fit_seed, split_classes
from ordauc.solvers.pairwise.objective import primal_objective

SOLVERS = [AUCSDCD, AUCSDCDPerm, AUCMSGD, OAMInf, OAMSeq, OAMGra]


@dataclass
class Recorder:
    """A checkpoint that keeps what it is shown."""

    every: int
    iterations: list[int] = field(default_factory=list)
    scores: list[np.ndarray] = field(default_factory=list)
    objectives: list[float] = field(default_factory=list)
    duals: list[float] = field(default_factory=list)
    dual_ranges: list[tuple[float, float]] = field(default_factory=list)
    X: np.ndarray | None = None

    def __call__(self, iteration: int, iterate: PairIterate) -> None:
        self.iterations.append(iteration)
        if self.X is not None:
            self.scores.append(iterate.decision_function(self.X))
        self.objectives.append(iterate.objective())
        if iterate.has_dual:
            self.duals.append(iterate.dual_objective())
            a = iterate.dual_coef()
            self.dual_ranges.append((float(a.min()), float(a.max())))


def _dense_problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    y = np.array([0, 1] * 15)
    X = rng.standard_normal((30, 5)) + 0.5 * y[:, None]
    return X, y


def _sparse_problem() -> tuple[sp.csr_matrix, np.ndarray]:
    rng = np.random.default_rng(8)
    X = sp.random(40, 50, density=0.15, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    y = np.array([0, 0, 1, 0] * 10)
    return X.tocsr(), y


def _dense(M: np.ndarray | sp.csr_matrix) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


# Parameters of the oracle runs: repeated pairs (SDCD, MSGD), several epochs or passes, small
# buffers that fill and replace (OAMseq, OAMgra), steps of every kind (clipped and interior).
ORACLE_PARAMS = {
    AUCSDCD: dict(lam=0.05, n_iter=700),
    AUCSDCDPerm: dict(lam=0.05, n_iter=3),
    AUCMSGD: dict(lam=0.05, n_iter=700),
    OAMInf: dict(lam=0.05, n_iter=2),
    OAMSeq: dict(C=0.2, buffer_size=4, n_iter=2),
    OAMGra: dict(C=0.05, buffer_size=4, n_iter=2),
}


def _reference_w(est: object, X: np.ndarray | sp.csr_matrix, y: np.ndarray) -> np.ndarray:
    """The plain reference run on the pairs (or arrivals) the fitted ``est`` drew."""
    data, _ = split_classes(X, y)
    P, N = _dense(data.X_pos), _dense(data.X_neg)
    n_pos, n_neg = P.shape[0], N.shape[0]
    root = fit_seed(est.random_state)
    params = est.get_params()
    if isinstance(est, AUCSDCDPerm):
        pi, pj = order.permuted_pairs(order.key_of(root, order.PERMUTATIONS), 0,
                                      params["n_iter"] * n_pos * n_neg, n_pos, n_neg)
        return reference.sdcd(P, N, params["lam"], pi, pj)[0]
    if isinstance(est, AUCSDCD | AUCMSGD):
        pi, pj = order.random_pairs(order.key_of(root, order.PAIRS), 0, params["n_iter"],
                                    n_pos, n_neg)
        if isinstance(est, AUCSDCD):
            return reference.sdcd(P, N, params["lam"], pi, pj)[0]
        return reference.msgd(P, N, params["lam"], pi, pj)
    w = np.zeros(P.shape[1])
    caps = (n_pos, n_neg) if isinstance(est, OAMInf) else (params["buffer_size"],) * 2
    for p in range(params["n_iter"]):
        arrivals, slots = order.arrival_schedule(root, n_pos, n_neg, *caps, p)
        if isinstance(est, OAMInf):
            w = reference.oam_inf(P, N, params["lam"], arrivals, slots, w)
        elif isinstance(est, OAMSeq):
            w = reference.oam_seq(P, N, params["C"], caps[0], arrivals, slots, w)
        else:
            w = reference.oam_gra(P, N, params["C"], caps[0], arrivals, slots, w)
    return w


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("cls", SOLVERS)
def test_compiled_loop_equals_the_plain_reference_on_the_same_pairs(cls, layout) -> None:
    X, y = _dense_problem() if layout == "dense" else _sparse_problem()
    est = cls(random_state=3, **ORACLE_PARAMS[cls])
    # Checkpoints every 7 updates cut the compiled run at odd places (inside a chunk, an
    # arrival, an epoch); the reference runs in one go.
    est.fit(X, y, checkpoint=Recorder(every=7))
    w_ref = _reference_w(est, X, y)
    assert np.linalg.norm(w_ref) > 0.1
    assert np.linalg.norm(est.coef_ - w_ref) <= 1e-10 * np.linalg.norm(w_ref)


def test_dense_and_csr_inputs_give_the_same_model() -> None:
    X, y = _sparse_problem()
    for cls in SOLVERS:
        a = cls(random_state=1, **ORACLE_PARAMS[cls]).fit(X, y)
        b = cls(random_state=1, **ORACLE_PARAMS[cls]).fit(X.toarray(), y)
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)


# -- pair orders --------------------------------------------------------------------------------

def test_the_stream_is_splitmix64() -> None:
    # The first output of splitmix64 seeded with 0 (Vigna's reference implementation).
    assert order.draw(np.uint64(0), 0) == 0xE220A8397B1DCDAF


def test_sdcdperm_visits_every_pair_exactly_once_per_epoch() -> None:
    n_pos, n_neg, epochs = 5, 7, 3
    k = n_pos * n_neg
    key = order.key_of(order.root_key(11), order.PERMUTATIONS)
    pi, pj = order.permuted_pairs(key, 0, epochs * k, n_pos, n_neg)
    assert pi.min() >= 0 and pi.max() < n_pos and pj.min() >= 0 and pj.max() < n_neg
    flat = (pi * n_neg + pj).reshape(epochs, k)
    for e in range(epochs):
        np.testing.assert_array_equal(np.sort(flat[e]), np.arange(k))
    assert len({tuple(row) for row in flat}) == epochs  # a fresh order every epoch
    # Any cut of the sequence continues it (checkpoints resume mid-epoch).
    a, b = order.permuted_pairs(key, 17, 80, n_pos, n_neg)
    np.testing.assert_array_equal(a * n_neg + b, flat.ravel()[17:80])


def test_sdcdperm_orders_differ_between_seeds_and_are_not_sequential() -> None:
    n_pos, n_neg = 6, 9
    k = n_pos * n_neg
    orders = [order.permuted_pairs(order.key_of(order.root_key(s), order.PERMUTATIONS), 0, k,
                                   n_pos, n_neg) for s in (0, 1)]
    flat = [pi * n_neg + pj for pi, pj in orders]
    assert not np.array_equal(flat[0], flat[1])
    assert not np.array_equal(flat[0], np.arange(k))


def test_sdcdperm_order_interleaves_the_positives_like_a_uniform_permutation() -> None:
    # Under a uniform permutation two consecutive updates share their positive with probability
    # about 1/n+; an order that runs through one positive's pairs at a time shares it almost
    # always (and converges far worse in one epoch).
    n_pos, n_neg = 20, 30
    k = n_pos * n_neg
    pi, _ = order.permuted_pairs(order.key_of(order.root_key(5), order.PERMUTATIONS), 0, k,
                                 n_pos, n_neg)
    same = float(np.mean(pi[1:] == pi[:-1]))
    assert 0.3 / n_pos < same < 2.0 / n_pos


def test_uniform_pair_stream_is_deterministic_and_seeded() -> None:
    key = order.key_of(order.root_key(4), order.PAIRS)
    a = order.random_pairs(key, 0, 5000, 7, 11)
    b = order.random_pairs(key, 0, 5000, 7, 11)
    c = order.random_pairs(order.key_of(order.root_key(5), order.PAIRS), 0, 5000, 7, 11)
    np.testing.assert_array_equal(a[0] * 11 + a[1], b[0] * 11 + b[1])
    assert not np.array_equal(a[0] * 11 + a[1], c[0] * 11 + c[1])
    counts = np.bincount(a[0] * 11 + a[1], minlength=77)
    assert counts.min() > 30 and counts.max() < 105  # 5000/77 = 65 per pair on average


def test_reservoir_keeps_a_uniform_sample() -> None:
    # Algorithm R: the N-th arrival of a class enters a full buffer of size cap with
    # probability cap/N, into a uniform slot.
    cap, n = 10, 50
    arrivals = np.arange(n, dtype=np.int64)  # all positives
    stored_last = []
    slots_seen = []
    for s in range(3000):
        slots = order.reservoir_slots(order.key_of(order.root_key(s), order.RESERVOIR),
                                      arrivals, n, cap, cap)
        np.testing.assert_array_equal(slots[:cap], np.arange(cap))
        assert slots.min() >= -1 and slots.max() < cap
        stored_last.append(slots[-1] >= 0)
        slots_seen.extend(slots[cap:][slots[cap:] >= 0].tolist())
    assert abs(np.mean(stored_last) - cap / n) < 0.025
    counts = np.bincount(slots_seen, minlength=cap)
    assert counts.min() > 0.85 * counts.mean()


# -- objective ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("n_pos", "n_neg"), [(1, 1), (7, 3), (40, 65)])
def test_pairwise_hinge_mean_equals_enumeration(n_pos: int, n_neg: int) -> None:
    rng = np.random.default_rng(n_pos * 100 + n_neg)
    for scores in (rng.standard_normal(n_pos + n_neg),
                   rng.integers(-3, 4, n_pos + n_neg).astype(float)):  # ties, margins of 1
        p, n = scores[:n_pos], scores[n_pos:]
        brute = np.maximum(0.0, 1.0 - p[:, None] + n[None, :]).mean()
        assert pairwise_hinge_mean(p, n) == pytest.approx(brute, rel=1e-12, abs=1e-14)


def test_primal_objective_matches_the_pairs() -> None:
    X, y = _dense_problem()
    data, _ = split_classes(X, y)
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    Z = (data.X_pos[:, None, :] - data.X_neg[None, :, :]).reshape(-1, X.shape[1])
    brute = 0.5 * 0.3 * w @ w + np.maximum(0.0, 1.0 - Z @ w).mean()
    assert primal_objective(w, *data.scores(w), 0.3) == pytest.approx(brute, rel=1e-12)


# -- convergence --------------------------------------------------------------------------------

def _dual_optimum(P: np.ndarray, N: np.ndarray, lam: float) -> tuple[float, np.ndarray]:
    """max D(alpha) over [0, 1]^k (Eq. 4) by L-BFGS-B on the smooth box-constrained dual."""
    Z = (P[:, None, :] - N[None, :, :]).reshape(-1, P.shape[1])
    k = Z.shape[0]

    def neg_dual(a: np.ndarray) -> tuple[float, np.ndarray]:
        v = Z.T @ a / (lam * k)  # w(alpha)
        return 0.5 * lam * v @ v - a.sum() / k, Z @ v / k - 1.0 / k

    res = scipy.optimize.minimize(neg_dual, np.full(k, 0.5), jac=True, method="L-BFGS-B",
                                  bounds=[(0.0, 1.0)] * k,
                                  options={"ftol": 1e-15, "gtol": 1e-13, "maxiter": 10000})
    return -res.fun, Z.T @ res.x / (lam * k)


@pytest.mark.parametrize(("cls", "n_iter"), [(AUCSDCD, 400 * 64), (AUCSDCDPerm, 400)])
def test_dcd_keeps_the_dual_feasible_and_reaches_the_optimum(cls, n_iter: int) -> None:
    rng = np.random.default_rng(2)
    y = np.array([0, 1] * 8)
    X = rng.standard_normal((16, 3)) + 0.7 * y[:, None]
    lam = 0.1
    data, _ = split_classes(X, y)
    d_star, w_star = _dual_optimum(data.X_pos, data.X_neg, lam)
    p_star = primal_objective(w_star, *data.scores(w_star), lam)
    assert p_star == pytest.approx(d_star, rel=1e-7)  # strong duality: both solved
    rec = Recorder(every=64)  # k = 8 x 8 = 64 pairs: one checkpoint per k updates
    model = cls(lam=lam, n_iter=n_iter, random_state=0).fit(X, y, checkpoint=rec)
    assert len(rec.duals) == 400
    lows, highs = zip(*rec.dual_ranges, strict=True)
    assert min(lows) >= 0.0 and max(highs) <= 1.0
    assert np.all(np.diff(rec.duals) >= -1e-12)  # exact coordinate ascent on D
    assert np.all(np.asarray(rec.objectives) >= d_star - 1e-12)  # weak duality
    gaps = np.asarray(rec.objectives) - p_star
    assert gaps[-1] <= 1e-6 * p_star < gaps[0]
    assert np.linalg.norm(model.coef_ - w_star) <= 1e-3 * np.linalg.norm(w_star)


# -- real data ----------------------------------------------------------------------------------

# Measured training AUCs on heart_scale, seed 0 (minimum over seeds 0-9): SDCD 0.929 (0.926),
# SDCDperm 0.929 (0.927), MSGD 0.929 (0.926), OAMinf 0.916 (0.885), OAMseq 0.914 (0.877),
# OAMgra 0.918 (0.849); OAMseq and OAMgra at C = 2^-6, a point of the OAM paper's grid
# 2^-10..2^10, the rest at their defaults. Chance is 0.5; the test runs seed 0 against 0.85.
HEART_PARAMS = {OAMSeq: dict(C=2.0 ** -6), OAMGra: dict(C=2.0 ** -6)}


@pytest.mark.parametrize("cls", SOLVERS)
def test_heart_scale_training_auc_is_far_above_chance(cls) -> None:
    X, y = load_svmlight_file(str(shared_or_skip("libsvm-heart_scale", "heart_scale")))
    y = (y > 0).astype(int)  # +1/-1 -> 1/0
    model = cls(random_state=0, **HEART_PARAMS.get(cls, {})).fit(X, y)
    assert roc_auc_score(y, model.decision_function(X)) > 0.85


# -- checkpoints --------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", SOLVERS)
def test_checkpoints_come_at_every_multiple_and_the_last_is_the_model(cls) -> None:
    X, y = _dense_problem()
    params = dict(random_state=2, **ORACLE_PARAMS[cls])
    total = cls(**params).fit(X, y).n_updates_
    rec = Recorder(every=7, X=X)
    model = cls(**params).fit(X, y, checkpoint=rec)
    assert rec.iterations == list(range(7, total + 1, 7))
    last = Recorder(every=total, X=X)  # one call, after the last update
    model = cls(**params).fit(X, y, checkpoint=last)
    assert last.iterations == [total]
    np.testing.assert_array_equal(last.scores[0], model.decision_function(X))
    data, _ = split_classes(X, y)
    lam = model.lam if hasattr(model, "lam") else 2.0 / (model.C * data.n_pairs)
    assert last.objectives[0] == pytest.approx(
        primal_objective(model.coef_, *data.scores(model.coef_), lam), rel=1e-12)


def test_without_checkpoint_the_model_is_the_same() -> None:
    X, y = _sparse_problem()
    for cls in SOLVERS:
        a = cls(random_state=4, **ORACLE_PARAMS[cls]).fit(X, y)
        b = cls(random_state=4, **ORACLE_PARAMS[cls]).fit(X, y, checkpoint=Recorder(every=5))
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)


# -- the estimator ------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", SOLVERS)
def test_unlabeled_rows_are_ignored_and_any_two_labels_work(cls) -> None:
    X, y = _dense_problem()
    extra = np.random.default_rng(1).standard_normal((9, X.shape[1]))
    a = cls(random_state=0).fit(X, y)
    b = cls(random_state=0).fit(np.vstack([X, extra]), np.r_[y, np.full(9, -1)])
    c = cls(random_state=0).fit(X, np.where(y == 1, 7, 3))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.coef_, c.coef_)
    assert c.classes_.tolist() == [3, 7]
    assert a.decision_function(X).shape == (X.shape[0],)


@pytest.mark.parametrize("cls", SOLVERS)
def test_csr_input_is_never_densified(cls) -> None:
    # 5,000,000 columns: a dense copy of the 40 training rows would take 1.6 GB, the solver's
    # own d-vectors (w, a scratch vector, a checkpoint's copy) 40 MB each.
    rng = np.random.default_rng(0)
    n, d = 40, 5_000_000
    X = sp.csr_matrix((rng.standard_normal(n * 4), rng.integers(0, d, n * 4),
                       np.arange(0, n * 4 + 1, 4)), shape=(n, d))
    y = np.array([0, 1] * (n // 2))
    tracemalloc.start()
    try:
        model = cls(random_state=0, n_iter=1).fit(X, y, checkpoint=Recorder(every=50, X=X))
        scores = model.decision_function(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert scores.shape == (n,)
    assert peak < 8 * 8 * d


def test_memory_estimates_count_the_dual_variables() -> None:
    small, big = 1_000, 10_000
    sdcd = AUCSDCD()
    # n+ n- float64 duals, at most (n/2)^2 of them: quadratic in n.
    assert sdcd.fit_memory_bytes(big, 10) >= 8 * (big // 2) ** 2
    assert sdcd.fit_memory_bytes(big, 10) > 50 * sdcd.fit_memory_bytes(small, 10)
    one_epoch, epochs = AUCSDCDPerm(), AUCSDCDPerm(n_iter=3)
    assert one_epoch.fit_memory_bytes(big, 10) < 1e7 < epochs.fit_memory_bytes(big, 10)
    for cls in (AUCMSGD, OAMInf, OAMSeq, OAMGra):
        assert cls().fit_memory_bytes(big, 10) < 1e7


@pytest.mark.parametrize("cls", SOLVERS)
def test_metadata_and_every_parameter_is_constrained(cls) -> None:
    assert cls.meta.tasks == ("binary",)
    assert cls.meta.iterative and not cls.meta.uses_unlabeled
    assert cls.meta.proposed == (cls in (AUCSDCD, AUCSDCDPerm, AUCMSGD))
    assert set(cls().get_params()) == set(cls._parameter_constraints)
    with pytest.raises(ValueError):
        cls(n_iter=0).fit(*_dense_problem())
    with pytest.raises(ValueError):
        cls(random_state=True).fit(*_dense_problem())


# scikit-learn's estimator checks: tests/solvers/test_estimator_checks.py (every registered solver).
