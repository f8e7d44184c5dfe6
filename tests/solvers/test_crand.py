"""The 15-bit C ``rand()`` pair draws of AUC-SDCD, AUC-MSGD and AUC-SDCDperm (the options behind
the AUC-DCD gap hypotheses): each compiled option against the plain reference run on pairs that
this file draws with its own plain ``rand()``, the generator against Microsoft's published
sequence, and the restriction the hypothesis rests on."""

from __future__ import annotations

import numpy as np
import pytest

from ordauc.solvers.pairwise import AUCMSGD, AUCSDCD, AUCSDCDPerm, reference
from ordauc.solvers.pairwise._estimator import fit_seed, split_classes
from ordauc.solvers.pairwise.crand import crand, crand_state, reachable_positives


class PlainRand:
    """Microsoft's C runtime rand(), written from its definition: state = state * 214013 +
    2531011 mod 2^32, the value is bits 16..30."""

    def __init__(self, seed: int) -> None:
        self.state = seed % 2**32

    def __call__(self) -> int:
        self.state = (self.state * 214013 + 2531011) % 2**32
        return (self.state // 65536) % 32768


def _problem(n_pos: int, n_neg: int, d: int = 4, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, dtype=int), np.zeros(n_neg, dtype=int)]
    rng.shuffle(y)
    X = rng.standard_normal((y.size, d)) + 0.7 * y[:, None]
    return X, y


def _plain_pairs(est: object, n_pos: int, n_neg: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rand = PlainRand(int(fit_seed(est.random_state)))
    pi, pj = np.empty(m, dtype=int), np.empty(m, dtype=int)
    for t in range(m):
        if est.pair_order == "crand_index":
            pi[t], pj[t] = divmod(rand() % (n_pos * n_neg), n_neg)
        else:
            pi[t] = rand() % n_pos
            pj[t] = rand() % n_neg
    return pi, pj


def _plain_shuffle(rand: PlainRand, k: int) -> np.ndarray:
    index = list(range(k))
    for s in range(k):
        o = s + rand() % (k - s)
        index[s], index[o] = index[o], index[s]
    return np.array(index)


class Every:
    def __init__(self, every: int) -> None:
        self.every = every
        self.duals: list[np.ndarray] = []

    def __call__(self, t: int, iterate: object) -> None:
        if getattr(iterate, "has_dual", False):
            self.duals.append(iterate.dual_coef())


def test_the_generator_is_microsofts_rand() -> None:
    # srand(1) (the state a C program starts from) gives 41, 18467, 6334, 26500, 19169, ...
    state = crand_state(np.uint64(1))
    assert [crand(state) for _ in range(5)] == [41, 18467, 6334, 26500, 19169]
    plain, state = PlainRand(2**40 + 12345), crand_state(np.uint64(2**40 + 12345))
    assert [crand(state) for _ in range(1000)] == [plain() for _ in range(1000)]


# k = 90 * 400 = 36,000 > 32,768: crand_index cannot reach the last positives' pairs.
@pytest.mark.parametrize("pair_order", ["crand_index", "crand_pair"])
@pytest.mark.parametrize("cls", [AUCSDCD, AUCMSGD])
def test_crand_draws_equal_the_plain_reference_on_the_plain_pairs(cls, pair_order) -> None:
    X, y = _problem(90, 400)
    est = cls(lam=0.02, n_iter=3000, random_state=11, pair_order=pair_order)
    est.fit(X, y, checkpoint=Every(7))  # checkpoints cut the stream at odd places
    data, _ = split_classes(X, y)
    pi, pj = _plain_pairs(est, data.n_pos, data.n_neg, 3000)
    run = reference.sdcd if cls is AUCSDCD else reference.msgd
    w_ref = run(data.X_pos, data.X_neg, 0.02, pi, pj)
    w_ref = w_ref[0] if isinstance(w_ref, tuple) else w_ref
    assert np.linalg.norm(w_ref) > 0.1
    assert np.linalg.norm(est.coef_ - w_ref) <= 1e-10 * np.linalg.norm(w_ref)


def test_crand_index_never_reaches_the_pairs_past_32768() -> None:
    X, y = _problem(90, 400)
    seen = Every(10_000)
    AUCSDCD(lam=1e-3, n_iter=30_000, random_state=2, pair_order="crand_index").fit(X, y, seen)
    alpha = seen.duals[-1]
    reach = reachable_positives(90, 400)
    assert reach == 82  # ceil(32768 / 400)
    assert np.count_nonzero(alpha[reach:]) == 0
    assert np.count_nonzero(alpha[:reach].any(axis=1)) > reach // 2
    # the control: the same budget with i and j drawn apart reaches every positive
    seen = Every(10_000)
    AUCSDCD(lam=1e-3, n_iter=30_000, random_state=2, pair_order="crand_pair").fit(X, y, seen)
    assert np.count_nonzero(seen.duals[-1][reach:].any(axis=1)) == 90 - reach


def test_crand_shuffle_equals_the_plain_reference_and_visits_every_pair_once() -> None:
    X, y = _problem(9, 40)
    est = AUCSDCDPerm(lam=0.05, n_iter=2, random_state=4, pair_order="crand_shuffle")
    est.fit(X, y, checkpoint=Every(7))
    data, _ = split_classes(X, y)
    k = data.n_pairs
    rand = PlainRand(int(fit_seed(4)))
    epochs = [_plain_shuffle(rand, k) for _ in range(2)]
    assert all(sorted(e) == list(range(k)) for e in epochs)
    p = np.concatenate(epochs)
    w_ref, _ = reference.sdcd(data.X_pos, data.X_neg, 0.05, p // data.n_neg, p % data.n_neg)
    assert np.linalg.norm(w_ref) > 0.1
    assert np.linalg.norm(est.coef_ - w_ref) <= 1e-10 * np.linalg.norm(w_ref)


def test_the_default_draws_are_untouched_by_the_options() -> None:
    X, y = _problem(30, 60)
    for cls, other_order in ((AUCSDCD, "crand_index"), (AUCMSGD, "crand_index"),
                             (AUCSDCDPerm, "crand_shuffle")):
        default = cls(lam=0.05, random_state=3).fit(X, y)
        assert default.pair_order == "uniform"
        other = cls(lam=0.05, random_state=3, pair_order=other_order)
        assert not np.array_equal(default.coef_, other.fit(X, y).coef_)


@pytest.mark.parametrize("cls,wrong", [(AUCSDCD, "crand_shuffle"), (AUCSDCDPerm, "crand_index"),
                                       (AUCMSGD, "rand")])
def test_an_order_the_method_does_not_take_is_refused(cls, wrong) -> None:
    X, y = _problem(5, 8)
    with pytest.raises(ValueError, match="pair_order"):
        cls(pair_order=wrong).fit(X, y)
