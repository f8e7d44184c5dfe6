"""Pair draws as a C program on a platform whose ``rand()`` has 15 bits would make them: the
hypotheses behind the AUC-DCD paper's SDCD and MSGD values (docs/algorithms.md, section 6).

Jiang et al. 2014 implement their solvers in LIBLINEAR's C and say "randomly choose i in [n+],
j in [n-]" (Algorithm 1, step 1) without saying how. LIBLINEAR draws its random integers as
``rand() % m``. Where the C library's ``RAND_MAX`` is 32,767 (Microsoft's C runtime; glibc's is
2^31 - 1), that expression has only 32,768 values:

- ``"crand_index"``: one index ``p = rand() % k`` over the k = n+ n- pairs, split row-major
  into ``i = p // n-`` and ``j = p % n-`` (Algorithm 2's numbering). When k > 32,768 only the
  pairs p < 32,768 are ever drawn: every negative, but only the first ``ceil(32768 / n-)``
  positives of the training rows.
- ``"crand_pair"``: i and j drawn separately, ``i = rand() % n+`` then ``j = rand() % n-``:
  every pair is reachable while both classes have fewer than 32,768 rows (the control: the
  15-bit range alone, without the single index, does not restrict the pairs).
- ``"crand_shuffle"`` (AUC-SDCDperm): LIBLINEAR's shuffle of the k pair indices, position s
  swapped with ``s + rand() % (k - s)``, so that with k > 32,768 a pair moves at most 32,767
  places: each pair still comes once per epoch, in a nearly row-major order.

``rand()`` is the Microsoft C runtime's linear congruential generator: ``state = state *
214013 + 2531011 (mod 2^32)``, returning bits 16..30 of the new state. ``srand(seed)`` sets the
state to the seed. LIBLINEAR's ``train`` never calls ``srand``, so every run of that program
starts from state 1; here the state starts from the fit's seed (its low 32 bits), so that the 20
runs of the protocol differ in their draws as well as in their folds. Which pairs are
reachable does not depend on the seed.

The draws carry their state from one call to the next (a linear congruential generator is not
counter-based like :mod:`ordauc.solvers.pairwise.order`), so a fit made with these options
resumes after a checkpoint by calling on with the same state array.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import njit

# Microsoft C runtime's rand(): the multiplier, the increment, and the 15 bits it returns.
_MUL, _INC, _MASK32 = 214013, 2531011, 0xFFFFFFFF
RAND_MAX = 32767

UNIFORM, CRAND_INDEX, CRAND_PAIR = 0, 1, 2
# The values of ``pair_order``: AUC-SDCD's and AUC-MSGD's draws, AUC-SDCDperm's epoch orders.
PAIR_DRAWS = {"uniform": UNIFORM, "crand_index": CRAND_INDEX, "crand_pair": CRAND_PAIR}
EPOCH_ORDERS = ("uniform", "crand_shuffle")


def crand_state(key: np.uint64) -> np.ndarray:
    """The generator's state, ``srand(low 32 bits of the fit's key)``, as a one-element array
    that the compiled draws update in place."""
    return np.array([int(key) & _MASK32], dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def crand(state: np.ndarray) -> int:
    """One ``rand()``: the next value in [0, 32767]; advances ``state[0]``."""
    s = (state[0] * _MUL + _INC) & _MASK32  # < 2^50 before the mask: no int64 overflow
    state[0] = s
    return (s >> 16) & RAND_MAX


@njit(cache=True, nogil=True)
def crand_pairs(state: np.ndarray, mode: int, n_pos: int, n_neg: int, pi: np.ndarray,
                pj: np.ndarray) -> None:
    """Fill ``pi``/``pj`` with the next ``pi.size`` pairs (positive, negative) of ``mode``."""
    k = n_pos * n_neg
    for b in range(pi.size):
        if mode == CRAND_INDEX:
            p = crand(state) % k
            pi[b] = p // n_neg
            pj[b] = p - pi[b] * n_neg
        else:
            pi[b] = crand(state) % n_pos
            pj[b] = crand(state) % n_neg


@njit(cache=True, nogil=True)
def crand_shuffle(state: np.ndarray, k: int) -> np.ndarray:
    """LIBLINEAR's shuffle of 0..k-1 with this ``rand()``: position s swapped with
    ``s + rand() % (k - s)``, s = 0..k-1."""
    index = np.arange(k)
    for s in range(k):
        o = s + crand(state) % (k - s)
        tmp = index[s]
        index[s] = index[o]
        index[o] = tmp
    return index


def reachable_positives(n_pos: int, n_neg: int) -> int:
    """How many positives ``"crand_index"`` ever draws: those with a pair index below 32,768."""
    return min(n_pos, -(-(RAND_MAX + 1) // n_neg))


class CrandPairs:
    """The pair stream of one fit under a ``pair_order`` option: ``blocks(m)`` yields the next
    m pairs as pairs of index arrays (views of a buffer reused from block to block)."""

    _BLOCK = 1 << 16  # pairs made per call of the compiled generator

    def __init__(self, state: np.ndarray, mode: int, n_pos: int, n_neg: int) -> None:
        if mode not in (CRAND_INDEX, CRAND_PAIR):
            raise ValueError(f"not a C rand() pair draw: {mode}")
        self._state, self._mode = state, mode
        self._n_pos, self._n_neg = n_pos, n_neg
        self._pi = np.empty(self._BLOCK, dtype=np.int64)
        self._pj = np.empty(self._BLOCK, dtype=np.int64)

    def blocks(self, m: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The next m pairs, in blocks of at most 65,536: yields (pi, pj)."""
        while m > 0:
            b = min(m, self._BLOCK)
            pi, pj = self._pi[:b], self._pj[:b]
            crand_pairs(self._state, self._mode, self._n_pos, self._n_neg, pi, pj)
            yield pi, pj
            m -= b
