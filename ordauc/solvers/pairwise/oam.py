"""Online AUC maximisation: OAMinf, OAMseq and OAMgra (Zhao, Hoi, Jin and Yang, "Online AUC
maximization", ICML 2011), the baselines of the AUC-DCD paper (Jiang et al. 2014, section 2.2
and Table 2). No implementation by the OAM authors was found; this follows the OAM paper's
Algorithm 1 (its UpdateBuffer and the two UpdateClassifier rules), and the AUC-DCD paper's
Eq. (8) for OAMinf, as docs/algorithms.md, section 6 explains.

Choices the papers leave open, common to the three:

- the stream: each pass receives the labeled rows in a uniformly random order (the data's
  own order can be sorted by class, which no online setting assumes);
- more than one pass (``n_iter`` > 1, beyond the papers' single pass) restarts the stream,
  empty buffers and zero counts, from the current w;
- no projection onto a ball and no averaging of iterates (added by third-party code, not in
  the paper); the model is the last w;
- pairs are z = x_pos - x_neg, OAM's y_t (x_t - x) for either class of the arrival x_t; a pair
  with z = 0 takes no step;
- ``objective()`` at a checkpoint is AUC-DCD's P(w) (Eq. 3) with OAMinf's lambda, or for a
  C-parametrised rule with lam = 2 / (C n+ n-), the lambda at which OAMinf's step bound
  1/(lam n+ n-) equals OAM's C/2.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ordauc.solvers._base import Checkpoint, SolverMeta, count, positive
from ordauc.solvers.pairwise._estimator import (
    RUN_CONSTRAINTS,
    PairData,
    PairIterate,
    PairwiseEstimator,
    data_bytes,
    run_checkpointed,
)
from ordauc.solvers.pairwise._oam_loops import oam_gradient, oam_sequential
from ordauc.solvers.pairwise.order import arrival_schedule


def _work_bytes(n_samples: int, n_features: int) -> int:
    # w and a copy for a checkpoint's objective, arrival order, slots, buffers, scores, norms.
    return 8 * (3 * int(n_features) + 8 * int(n_samples)) + (1 << 20)


def run_passes(data: PairData, key: np.uint64, passes: int, caps: tuple[int, int],
               kernel: Callable[..., int], rate: float, w: np.ndarray) -> Callable[[int], int]:
    """``step(budget)`` for :func:`run_checkpointed`: the compiled OAM loop over ``passes``
    passes, each with its own arrival order and reservoir draws, ending short when all are
    done. ``rate`` is the loop's step parameter (lk_base or C/2)."""
    cap_pos, cap_neg = caps
    buf_pos = np.zeros(cap_pos, dtype=np.int64)
    buf_neg = np.zeros(cap_neg, dtype=np.int64)
    state = np.zeros(6, dtype=np.int64)
    pass_index = 0
    schedule: tuple[np.ndarray, np.ndarray] | None = None

    def step(budget: int) -> int:
        nonlocal pass_index, schedule
        done = 0
        while done < budget and pass_index < passes:
            if schedule is None:
                schedule = arrival_schedule(key, data.n_pos, data.n_neg, cap_pos, cap_neg,
                                            pass_index)
                state[:] = (0, -1, 0, 0, 0, 0)
            order, slots = schedule
            done += kernel(data.pos, data.neg, w, order, slots, buf_pos, buf_neg, state, rate,
                           cap_pos, cap_neg, budget - done)
            if state[0] >= order.size:
                pass_index += 1
                schedule = None
        return done

    return step


class _OAMBase(PairwiseEstimator):
    """The pass loop shared by the three rules."""

    _gradient = False

    def _passes(self) -> int:
        return 1 if self.n_iter is None else int(self.n_iter)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Data copies and work; O(n d), no dual variables."""
        return data_bytes(n_samples, n_features) + _work_bytes(n_samples, n_features)

    def _rule(self, data: PairData) -> tuple[float, tuple[int, int], float]:
        """(lambda of ``objective()``, buffer capacities, the loop's step parameter)."""
        raise NotImplementedError

    def _solve(self, data: PairData, key: np.uint64, checkpoint: Checkpoint | None
               ) -> tuple[np.ndarray, int, int]:
        lam, caps, rate = self._rule(data)
        w = np.zeros(data.n_features)
        if self._gradient:
            active = np.zeros(max(caps), dtype=np.bool_)

            def kernel(*args: object) -> int:
                return oam_gradient(*args, active)
        else:
            kernel = oam_sequential
        steps = run_passes(data, key, self._passes(), caps, kernel, rate, w)
        done = run_checkpointed(steps, checkpoint, lambda: PairIterate(w, lam, data))
        return w, done, self._passes()


class OAMInf(_OAMBase):
    """OAMinf: online AUC maximisation, unbounded buffers (Zhao et al. 2011; AUC-DCD Eq. 8).

    The AUC-DCD paper's form of it: Jiang et al. 2014, Eq. (8) and Appendix 2.

    Every received example is stored; on receiving x_t, w takes one passive-aggressive step per
    stored example of the other class, in arrival order: a = clip(lam k (1 - z^T w)/z^T z,
    0, 1), w += a z / (lam k), k = n+ n-. One pass makes every pair's step once, from a dual
    variable at 0: AUC-SDCD visiting the pairs once in arrival order (AUC-DCD section 2.2).

    Parameters
    ----------
    lam : float, default=1e-2
        Lambda of Eq. (8) (> 0). The AUC-DCD paper writes OAMinf with lambda and tunes all
        four of its methods over the same range 10^-9 .. 10^1 (section 3.2, Figure 1), so this
        is its parameter; OAM's C is 2 / (lam n+ n-) (C_t/2 = 1/(lam k), C_t = C unbounded).
    n_iter : int or None, default=None
        Passes over the data; None is one pass (the papers').
    random_state : int or None, default=None
        Seed of the arrival order; None draws a fresh seed.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w, the last iterate; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Passes done.
    n_updates_ : int
        Pair updates done (n+ n- per pass).

    Notes
    -----
    Iteration = one pair update. Choices left open: see the module docstring.
    """

    meta = SolverMeta(display="OAMinf", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=False)

    def _rule(self, data: PairData) -> tuple[float, tuple[int, int], float]:
        lam = float(self.lam)
        # Buffers as large as the classes never fill, so C_t = C throughout.
        return lam, (data.n_pos, data.n_neg), lam * data.n_pairs


class _BufferedOAM(_OAMBase):
    """OAM's own parametrisation (C and the buffer size) in place of AUC-DCD's lambda."""

    _parameter_constraints = {"C": [positive()], "buffer_size": [count()], **RUN_CONSTRAINTS}

    def __init__(self, C: float = 1.0, buffer_size: int = 100, n_iter: int | None = None,
                 random_state: int | None = None) -> None:
        self.C = C
        self.buffer_size = buffer_size
        self.n_iter = n_iter
        self.random_state = random_state

    def _rule(self, data: PairData) -> tuple[float, tuple[int, int], float]:
        C, cap = float(self.C), int(self.buffer_size)
        rate = C / 2.0 if self._gradient else 2.0 / C
        return 2.0 / (C * data.n_pairs), (cap, cap), rate


class OAMSeq(_BufferedOAM):
    """OAMseq: online AUC maximisation, reservoir buffers, sequential updates (Zhao et al. 2011).

    OAM's Algorithm 1 with the sequential UpdateClassifier.

    Receiving x_t of one class: N_t += 1 for its class; it enters its class's buffer by
    reservoir sampling (appended while the buffer has room, then replacing a uniform slot with
    probability N/N_t); then for each x in the other class's buffer in turn,
    w += min(C_t/2, max(0, 1 - z^T w)/||z||^2) z (PA-I), with C_t = C max(1, N'_t / N), N'_t
    the count received of the other class and N its buffer size.

    Parameters
    ----------
    C : float, default=1.0
        OAM's C (> 0); the OAM paper tunes it over 2^-10 .. 2^10 (the default is its centre).
    buffer_size : int, default=100
        N+ = N-, the capacity of each class's buffer (100 in the OAM paper).
    n_iter : int or None, default=None
        Passes over the data; None is one pass (the paper's).
    random_state : int or None, default=None
        Seed of the arrival order and the reservoir draws; None draws a fresh seed.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w, the last iterate; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Passes done.
    n_updates_ : int
        Pair updates done.

    Notes
    -----
    Iteration = one pair update. ``objective()`` uses lam = 2 / (C n+ n-) (module docstring).
    """

    meta = SolverMeta(display="OAMseq", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=False)


class OAMGra(_BufferedOAM):
    """OAMgra: online AUC maximisation, reservoir buffers, gradient updates (Zhao et al. 2011).

    OAM's Algorithm 1 with the gradient UpdateClassifier.

    Buffers and C_t as in :class:`OAMSeq`; receiving x_t makes one step,
    w += C_t/2 sum z over the buffered partners with z^T w <= 1, all evaluated at the w before
    the step (the subgradient of the buffered hinge losses; the sum is not averaged).

    Parameters
    ----------
    C : float, default=1.0
        OAM's C (> 0); the OAM paper tunes it over 2^-10 .. 2^10 (the default is its centre).
    buffer_size : int, default=100
        N+ = N-, the capacity of each class's buffer (100 in the OAM paper).
    n_iter : int or None, default=None
        Passes over the data; None is one pass (the paper's).
    random_state : int or None, default=None
        Seed of the arrival order and the reservoir draws; None draws a fresh seed.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        w, the last iterate; ``decision_function(X) = X @ coef_``.
    classes_ : ndarray of shape (2,)
        The two labels, the larger one positive.
    n_features_in_ : int
        The number of features seen in fit.
    n_iter_ : int
        Passes done.
    n_updates_ : int
        Received examples (steps of w).

    Notes
    -----
    Iteration = one received example (one step of w, over all its buffered pairs), the unit in
    which this rule updates. ``objective()`` uses lam = 2 / (C n+ n-) (module docstring).
    """

    meta = SolverMeta(display="OAMgra", tasks=("binary",),
                      uses_unlabeled=False, iterative=True, proposed=False)
    _gradient = True
