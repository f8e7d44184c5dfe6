"""AUC dual coordinate descent: AUC-SDCD, AUC-SDCDperm and AUC-MSGD.

Jiang, Tao, Gao and Chu, "Dual coordinate descent method for solving AUC optimization problem",
Journal of Software (Ruan Jian Xue Bao) 25(10):2282-2292, 2014 (in Chinese; docs/algorithms.md,
section 6 gives it in English, with the reasons behind each choice). All three minimise
Eq. (2)/(3),

    P(w) = lam/2 ||w||^2 + 1/k sum_{i in P, j in N} max(0, 1 - w^T (x_i - x_j)),  k = n+ n-,

through its dual (4), alpha_ij in [0, 1], w = 1/(lam k) sum alpha_ij (x_i - x_j).

Choices the paper leaves open, common to the three:

- no bias: the paper appends a constant feature to absorb b, but it cancels in x_i - x_j, so
  it changes neither the pairs nor the ranking;
- alpha^0 = 0 and w^0 = 0 (the paper: "generally initialised to the zero vector");
- a pair with x_i = x_j cannot move w; its dual variable takes its optimum, the bound 1;
- the model is the last iterate w^T (Table 2), not the average of Lemmas 1-2's analysis;
- an iteration (the unit of ``checkpoint.every``) is one pair update, as in Figure 2;
- the paper tunes lambda per data set over 10^-9 .. 10^1 and gives no default: 1e-2 here;
- the paper implements them in LIBLINEAR's C; these are compiled with numba, and each has a
  plain reference (:mod:`ordauc.solvers.pairwise.reference`) that the tests hold it to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from ordauc.solvers._base import Checkpoint, SolverMeta, StrOptions
from ordauc.solvers.pairwise._dcd_loops import (
    msgd,
    msgd_given,
    sdcd,
    sdcd_given,
    sdcdperm,
)
from ordauc.solvers.pairwise._estimator import (
    PairData,
    PairIterate,
    PairwiseEstimator,
    data_bytes,
    max_pairs,
    run_checkpointed,
)
from ordauc.solvers.pairwise.crand import (
    EPOCH_ORDERS,
    PAIR_DRAWS,
    CrandPairs,
    crand_shuffle,
    crand_state,
)
from ordauc.solvers.pairwise.order import PAIRS, PERMUTATIONS, key_of, perm_table_size

# SDCDperm computes its pairs this many at a time (a few kB of indices, in L1).
_CHUNK = 256


def _work_bytes(n_samples: int, n_features: int) -> int:
    # w and a copy for a checkpoint's objective; scores and their sorted copy; CSR row norms.
    return 8 * (4 * int(n_features) + 3 * int(n_samples)) + (1 << 20)


class _OrderedPairs(PairwiseEstimator):
    """The three methods' constructor: the paper's lambda and T, and ``pair_order``, the order
    in which the updates visit the pairs (each method declares the values it takes)."""

    def __init__(self, lam: float = 1e-2, n_iter: int | None = None,
                 random_state: int | None = None, pair_order: str = "uniform") -> None:
        super().__init__(lam=lam, n_iter=n_iter, random_state=random_state)
        self.pair_order = pair_order


def _constraints(pair_orders: Iterable[str]) -> dict:
    return {**PairwiseEstimator._parameter_constraints,
            "pair_order": [StrOptions(set(pair_orders))]}


class _DrawnPairs(_OrderedPairs):
    """AUC-SDCD and AUC-MSGD: a pair drawn per update, with replacement."""

    _parameter_constraints = _constraints(PAIR_DRAWS)

    def _pairs(self, data: PairData, key: np.uint64) -> CrandPairs:
        return CrandPairs(crand_state(key), PAIR_DRAWS[self.pair_order], data.n_pos, data.n_neg)


class AUCSDCD(_DrawnPairs):
    """AUC-SDCD: stochastic dual coordinate descent for AUC (Jiang et al. 2014, Algorithm 1).

    Update t draws a pair (i, j) uniformly from all k = n+ n- pairs, with replacement, and
    solves the one-variable dual subproblem (6) in closed form:
    alpha_ij <- clip(alpha_ij + lam k (1 - z^T w) / z^T z, 0, 1), w += (change) z / (lam k),
    z = x_i - x_j.

    Parameters
    ----------
    lam : float, default=1e-2
        The paper's lambda (> 0); the paper tunes it over 10^-9 .. 10^1 and gives no default.
    n_iter : int or None, default=None
        The paper's T, the number of pair updates; None is T = n+ n- (Table 2).
    random_state : int or None, default=None
        Seed of the pair stream (:mod:`ordauc.solvers.pairwise.order`); the same seed gives
        :class:`AUCMSGD` the same pairs. None draws a fresh seed.
    pair_order : {"uniform", "crand_index", "crand_pair"}, default="uniform"
        How the pair of each update is drawn. "uniform" is Algorithm 1 as written (every pair
        equally likely); the other two emulate a C build whose ``rand()`` has 15 bits, one of
        the hypotheses for the paper's Table 2 values (:mod:`ordauc.solvers.pairwise.crand`):
        "crand_index" draws ``rand() % k`` (only the first 32,768 pairs reachable),
        "crand_pair" draws i and j separately. Not the paper's algorithm: options for the
        comparison, never a default.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Pair updates done.
    n_updates_ : int
        Pair updates done (the same as ``n_iter_`` here).

    Notes
    -----
    Memory: the dual variables are n+ n- float64, 8 n+ n- bytes (40 MB for pendigits' class 1
    against the rest; quadratic in n, the real limit of this method), stated by
    ``fit_memory_bytes``. Choices the paper leaves open: see the module docstring. Checkpoint
    iterates also give ``dual_objective()`` (Eq. 4) and ``dual_coef()``.
    """

    meta = SolverMeta(display="AUC-SDCD", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=True)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Data copies, the 8 n+ n- bytes of dual variables (balanced classes at worst), work."""
        return (data_bytes(n_samples, n_features) + 8 * max_pairs(n_samples)
                + _work_bytes(n_samples, n_features))

    def _solve(self, data: PairData, key: np.uint64, checkpoint: Checkpoint | None
               ) -> tuple[np.ndarray, int, int]:
        lam, k = float(self.lam), data.n_pairs
        total = k if self.n_iter is None else int(self.n_iter)
        w = np.zeros(data.n_features)
        alpha = np.zeros(k)
        pairs, lk = key_of(key, PAIRS), lam * k
        drawn = None if self.pair_order == "uniform" else self._pairs(data, key)
        t = 0

        def step(budget: int) -> int:
            nonlocal t
            stop = min(total, t + budget)
            if drawn is None:
                sdcd(data.pos, data.neg, w, alpha, lk, pairs, t, stop)
            else:
                for pi, pj in drawn.blocks(stop - t):
                    sdcd_given(data.pos, data.neg, w, alpha, lk, pi, pj)
            got, t = stop - t, stop
            return got

        done = run_checkpointed(step, checkpoint, lambda: PairIterate(w, lam, data, alpha))
        return w, done, done


class AUCSDCDPerm(_OrderedPairs):
    """AUC-SDCDperm: dual coordinate descent, each pair once per epoch (Jiang et al., Alg. 2).

    Jiang et al. 2014, Algorithm 2: every epoch visits all pairs in a fresh random order.

    The update is AUC-SDCD's (Algorithm 1, steps 2-3). Algorithm 2, step 1 asks for a random
    permutation of the k = n+ n- pairs each epoch; k indices (40 MB on pendigits) are never
    written out here. Epoch e instead runs through the pair grid in row-major order and maps
    each position through a keyed bijection of the n+ x n- grid
    (:func:`ordauc.solvers.pairwise.order.permute_pair`): a three-round Feistel network with
    modular addition, whose round functions are tables of independent uniform draws made
    afresh each epoch (n+ + 2 n- numbers). Why it is uniform enough: it is a bijection, so
    every pair comes exactly once per epoch (what the paper's analysis uses, Lemma 1); three
    Feistel rounds of random functions are Luby and Rackoff's pseudo-random permutation, so
    consecutive updates land on unrelated pairs and no trace of the row-major numbering is
    left; and measured, one epoch on heart_scale reaches the same objective as numpy's
    uniform permutation of the pairs (within a standard error over 40 seeds). An order that
    runs through one positive's pairs at a time instead (a shuffled positive order crossed with
    shuffled negatives) is cheaper but measurably worse after one epoch (mean objective 0.50
    against 0.22 over 4 seeds at lam = 1e-4 there), so it was not taken.

    Parameters
    ----------
    lam : float, default=1e-2
        The paper's lambda (> 0); the paper tunes it over 10^-9 .. 10^1 and gives no default.
    n_iter : int or None, default=None
        The paper's T, the number of epochs (outer loop); None is one epoch (Table 2).
    random_state : int or None, default=None
        Seed of the per-epoch permutations; None draws a fresh seed.
    pair_order : {"uniform", "crand_shuffle"}, default="uniform"
        How each epoch's random order of the pairs is made. "uniform" is Algorithm 2's random
        permutation (the Feistel order below); "crand_shuffle" is LIBLINEAR's shuffle with a
        15-bit C ``rand()`` (:mod:`ordauc.solvers.pairwise.crand`), where a pair moves at most
        32,767 places from its row-major position: the check that the hypothesis which lowers
        AUC-SDCD and AUC-MSGD would leave this method's values as published. It writes the k
        pair indices out (8 k bytes, and 8 k more for the duals). Not a default.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Epochs done.
    n_updates_ : int
        Pair updates done (``n_iter_`` n+ n-).

    Notes
    -----
    Memory: in the first epoch every dual variable is read at its initial 0, so one epoch
    stores none; more epochs keep all n+ n- (8 n+ n- bytes). Checkpoint iterates give
    ``dual_objective()`` only then. Iteration = one pair update.
    """

    meta = SolverMeta(display="AUC-SDCDperm", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=True)

    _parameter_constraints = _constraints(EPOCH_ORDERS)

    def _epochs(self) -> int:
        return 1 if self.n_iter is None else int(self.n_iter)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Data copies, the round tables, work, and 8 n+ n- bytes of duals beyond one epoch."""
        duals = 8 * max_pairs(n_samples) if self._epochs() > 1 else 0
        return (data_bytes(n_samples, n_features) + duals + 16 * int(n_samples)
                + _work_bytes(n_samples, n_features))

    def _solve(self, data: PairData, key: np.uint64, checkpoint: Checkpoint | None
               ) -> tuple[np.ndarray, int, int]:
        lam, k = float(self.lam), data.n_pairs
        total = self._epochs() * k
        w = np.zeros(data.n_features)
        if self.pair_order == "uniform":
            alpha = np.zeros(k if self._epochs() > 1 else 0)
            run = sdcdperm_loop(data, w, alpha, lam * k, key_of(key, PERMUTATIONS))
        else:
            alpha = np.zeros(k)
            run = crand_shuffle_loop(data, w, alpha, lam * k, crand_state(key))
        t = 0

        def step(budget: int) -> int:
            nonlocal t
            stop = min(total, t + budget)
            run(t, stop)
            got, t = stop - t, stop
            return got

        done = run_checkpointed(step, checkpoint, lambda: PairIterate(w, lam, data, alpha))
        return w, done, done // k


def sdcdperm_loop(data: PairData, w: np.ndarray, alpha: np.ndarray, lk: float,
                  key: np.uint64, shuffle: bool = True) -> Callable[[int, int], None]:
    """``run(start, stop)``: the compiled SDCDperm updates start..stop-1 on ``data``.
    ``shuffle=False`` visits the pairs in sequential order with the same loop (the
    benchmark's floor)."""
    tables = np.empty(perm_table_size(data.n_pos, data.n_neg), dtype=np.int64)
    loaded = np.full(1, -1, dtype=np.int64)
    pairs = np.empty((2, _CHUNK), dtype=np.int64)

    def run(start: int, stop: int) -> None:
        sdcdperm(data.pos, data.neg, w, alpha, lk, key, start, stop, shuffle, tables, loaded,
                 pairs)
    return run


class AUCMSGD(_DrawnPairs):
    """AUC-MSGD: modified SGD on the AUC dual, no dual storage (Jiang et al. 2014, Algorithm 3).

    After Shalev-Shwartz and Zhang's Modified-SGD (the paper's reference [15]).

    Iteration t = 1..T draws a pair uniformly with replacement and solves subproblem (7):
    a = clip(lam t (1 - z^T w^{t-1}) / z^T z, 0, 1), w^t = (1 - 1/t) w^{t-1} + a z / (lam t).

    Parameters
    ----------
    lam : float, default=1e-2
        The paper's lambda (> 0); the paper tunes it over 10^-9 .. 10^1 and gives no default.
    n_iter : int or None, default=None
        The paper's T, the number of pair updates; None is T = n+ n- (Table 2).
    random_state : int or None, default=None
        Seed of the pair stream, the one :class:`AUCSDCD` reads; None draws a fresh seed.
    pair_order : {"uniform", "crand_index", "crand_pair"}, default="uniform"
        How the pair of each update is drawn, as for :class:`AUCSDCD`: "uniform" is
        Algorithm 3 as written; "crand_index" and "crand_pair" are the 15-bit C ``rand()``
        draws of the Table 2 hypothesis, never a default.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w^T, the last iterate; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Pair updates done.
    n_updates_ : int
        Pair updates done (the same as ``n_iter_`` here).

    Notes
    -----
    t counts every update of the fit (it is not restarted), as in Algorithm 3. w^t is kept as
    v_t / t with v_t = v_{t-1} + a z / lam (the same iterates, without rescaling w at every
    step). Memory is O(n d): no dual variables. Iteration = one pair update.
    """

    meta = SolverMeta(display="AUC-MSGD", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=True)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Data copies and work; no dual variables."""
        return data_bytes(n_samples, n_features) + _work_bytes(n_samples, n_features)

    def _solve(self, data: PairData, key: np.uint64, checkpoint: Checkpoint | None
               ) -> tuple[np.ndarray, int, int]:
        lam = float(self.lam)
        total = data.n_pairs if self.n_iter is None else int(self.n_iter)
        v = np.zeros(data.n_features)
        pairs = key_of(key, PAIRS)
        drawn = None if self.pair_order == "uniform" else self._pairs(data, key)
        t = 0

        def step(budget: int) -> int:
            nonlocal t
            stop = min(total, t + budget)
            if drawn is None:
                msgd(data.pos, data.neg, v, lam, pairs, t, stop)
            else:
                at = t
                for pi, pj in drawn.blocks(stop - t):
                    msgd_given(data.pos, data.neg, v, lam, at, pi, pj)
                    at += pi.size
            got, t = stop - t, stop
            return got

        done = run_checkpointed(step, checkpoint,
                                lambda: PairIterate(v, lam, data, scale=1.0 / max(t, 1)))
        return v * (1.0 / max(done, 1)), done, done  # the iterate's w exactly


def crand_shuffle_loop(data: PairData, w: np.ndarray, alpha: np.ndarray, lk: float,
                       state: np.ndarray) -> Callable[[int, int], None]:
    """``run(start, stop)``: SDCDperm's updates start..stop-1 in the orders of LIBLINEAR's
    shuffle with a 15-bit ``rand()`` (a fresh shuffle each epoch, the generator running on)."""
    k, n_neg = data.n_pairs, data.n_neg
    epoch, index = -1, np.empty(0, dtype=np.int64)

    def run(start: int, stop: int) -> None:
        nonlocal epoch, index
        t = start
        while t < stop:
            e, s = divmod(t, k)
            if epoch != e:
                epoch, index = e, crand_shuffle(state, k)
            m = min(stop - t, k - s)
            p = index[s:s + m]
            sdcd_given(data.pos, data.neg, w, alpha, lk, p // n_neg, p % n_neg)
            t += m
    return run

