"""Compiled loops of AUC-SDCD, AUC-SDCDperm and AUC-MSGD (Jiang et al. 2014, Algorithms 1-3).

Each loop runs the updates with global numbers ``start .. stop-1`` and returns, so a caller can
stop at a checkpoint and resume at the next update with the same pairs (the pair of update t is
a function of t alone, :mod:`ordauc.solvers.pairwise.order`). Positives are the rows of ``P``,
negatives those of ``N`` (dense matrices or CSR tuples, :mod:`ordauc.solvers.pairwise._rows`);
the dual variable of pair (i, j) is ``alpha[i * n- + j]``; ``lk`` is lambda * n+ * n-.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ordauc.solvers.pairwise._rows import (
    LOOP_OPTIONS,
    dcd_step,
    n_rows,
    pair_axpy,
    pair_stats,
    prefetch_at,
    prefetch_pair,
)
from ordauc.solvers.pairwise.order import load_perm_tables, permute_pair, random_pair


@njit(**LOOP_OPTIONS)
def sdcd(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray, alpha: np.ndarray,
         lk: float, key: np.uint64, start: int, stop: int) -> None:
    """Algorithm 1 (AUC-SDCD), updates start..stop-1, pairs drawn with replacement. Rows are a
    dense matrix or a CSR tuple (one compiled version each)."""
    n_neg = n_rows(N)
    k = n_rows(P) * n_neg
    inv_lk = 1.0 / lk
    for t in range(start, stop):
        i, j = random_pair(key, t, n_neg, k)
        zw, zz = pair_stats(P, i, N, j, w)
        p = i * n_neg + j
        a_old = alpha[p]
        a_new = dcd_step(a_old, zw, zz, lk)
        if a_new != a_old:  # a bound that stays a bound changes nothing
            alpha[p] = a_new
            pair_axpy((a_new - a_old) * inv_lk, P, i, N, j, w)


# Updates ahead at which SDCDperm asks the cache for a pair's rows: enough to cover a memory
# access (~100 ns) at ~30 ns per update.
_AHEAD = 16


@njit(**LOOP_OPTIONS)
def sdcdperm(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray, alpha: np.ndarray,
             lk: float, key: np.uint64, start: int, stop: int, shuffle: bool, tables: np.ndarray,
             loaded: np.ndarray, pairs: np.ndarray) -> None:
    """Algorithm 2 (AUC-SDCDperm), updates start..stop-1: epoch e visits the k pairs in the
    order of the keyed permutation of epoch e (:func:`ordauc.solvers.pairwise.order.
    permute_pair`; ``shuffle=False``: sequential order, the benchmark's floor).

    The updates run in chunks of ``pairs.shape[1]``: the chunk's pairs are computed first, in
    a loop of independent evaluations that the processor overlaps freely, then updated, with
    each pair's rows (and dual variable) requested from the cache a few updates ahead: in a
    random order they come from the last-level cache, a latency the update chain cannot hide.
    ``tables`` holds the round tables of epoch ``loaded[0]`` (-1: none yet), kept between
    calls. ``alpha`` may be empty when only the first epoch runs: every pair is then visited
    once, from alpha = 0, and nothing needs remembering."""
    n_pos = n_rows(P)
    n_neg = n_rows(N)
    k = n_pos * n_neg
    store = alpha.size > 0
    inv_lk = 1.0 / lk
    chunk = pairs.shape[1]
    t = start
    while t < stop:
        e = t // k
        s = t - e * k
        m = min(chunk, stop - t, k - s)  # a chunk stays within one epoch
        if shuffle and loaded[0] != e:
            load_perm_tables(key, e, n_pos, n_neg, tables)
            loaded[0] = e
        x = s // n_neg
        y = s - x * n_neg
        for b in range(m):
            if shuffle:
                pairs[0, b], pairs[1, b] = permute_pair(x, y, n_pos, n_neg, tables)
            else:
                pairs[0, b], pairs[1, b] = x, y
            y += 1
            if y == n_neg:
                x, y = x + 1, 0
        old_duals = store and e > 0  # epoch 0 starts from alpha = 0
        for b in range(min(_AHEAD, m)):
            prefetch_pair(P, pairs[0, b], N, pairs[1, b])
        for b in range(m):
            if b + _AHEAD < m:
                ia, ja = pairs[0, b + _AHEAD], pairs[1, b + _AHEAD]
                prefetch_pair(P, ia, N, ja)
                if old_duals:
                    prefetch_at(alpha, ia * n_neg + ja)
            i, j = pairs[0, b], pairs[1, b]
            zw, zz = pair_stats(P, i, N, j, w)
            a_old = alpha[i * n_neg + j] if old_duals else 0.0
            a_new = dcd_step(a_old, zw, zz, lk)
            if a_new != a_old:
                if store:
                    alpha[i * n_neg + j] = a_new
                pair_axpy((a_new - a_old) * inv_lk, P, i, N, j, w)
        t += m


@njit(**LOOP_OPTIONS)
def msgd(P: np.ndarray | tuple, N: np.ndarray | tuple, v: np.ndarray, lam: float,
         key: np.uint64, start: int, stop: int) -> None:
    """Algorithm 3 (AUC-MSGD), updates start..stop-1 (the paper's t = 1 + update number), on
    the pairs of :func:`sdcd` (the same stream: at equal seeds both visit the same pairs).

    w^t = (1 - 1/t) w^{t-1} + a z / (lam t) is w^t = v_t / t with v_t = v_{t-1} + a z / lam
    (by induction from w^0 = 0), so the loop keeps v and never rescales a d-vector; the caller
    divides by the number of updates done."""
    n_neg = n_rows(N)
    k = n_rows(P) * n_neg
    for t in range(start, stop):
        i, j = random_pair(key, t, n_neg, k)
        zv, zz = pair_stats(P, i, N, j, v)
        zw = zv / t if t > 0 else 0.0  # z^T w^{t-1}, w^{t-1} = v / (t-1) in the paper's t
        a = dcd_step(0.0, zw, zz, lam * (t + 1))
        if a > 0.0:
            pair_axpy(a / lam, P, i, N, j, v)


@njit(**LOOP_OPTIONS)
def sdcd_given(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray, alpha: np.ndarray,
               lk: float, pi: np.ndarray, pj: np.ndarray) -> None:
    """Algorithm 1's steps 2-3 on the pairs given (``pi[b]``, ``pj[b]``), in order: the loop of
    the pair orders that are not counter-based (:mod:`ordauc.solvers.pairwise.crand`)."""
    n_neg = n_rows(N)
    inv_lk = 1.0 / lk
    for b in range(pi.size):
        i, j = pi[b], pj[b]
        zw, zz = pair_stats(P, i, N, j, w)
        p = i * n_neg + j
        a_old = alpha[p]
        a_new = dcd_step(a_old, zw, zz, lk)
        if a_new != a_old:
            alpha[p] = a_new
            pair_axpy((a_new - a_old) * inv_lk, P, i, N, j, w)


@njit(**LOOP_OPTIONS)
def msgd_given(P: np.ndarray | tuple, N: np.ndarray | tuple, v: np.ndarray, lam: float,
               start: int, pi: np.ndarray, pj: np.ndarray) -> None:
    """Algorithm 3 on the pairs given, as updates start, start + 1, ... (:func:`msgd`'s
    arithmetic: w^t = v_t / t)."""
    for b in range(pi.size):
        t = start + b
        zv, zz = pair_stats(P, pi[b], N, pj[b], v)
        zw = zv / t if t > 0 else 0.0
        a = dcd_step(0.0, zw, zz, lam * (t + 1))
        if a > 0.0:
            pair_axpy(a / lam, P, pi[b], N, pj[b], v)
