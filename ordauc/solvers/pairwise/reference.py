"""The six pairwise solvers written plainly from the papers, as the test oracle.

Dense float64 numpy, one pair at a time, every formula as printed: AUC-SDCD, AUC-SDCDperm and
AUC-MSGD from Jiang et al. 2014 (Algorithms 1-3), OAMinf from the same paper's Eq. (8), OAMseq
and OAMgra from Zhao et al. 2011. Each takes the pair sequence (or the arrival stream) it runs
on, as produced by :mod:`ordauc.solvers.pairwise.order`, so that it and the compiled loops run
on the very same pairs; none of it shares code with the compiled loops.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def _clip01(a: float) -> float:
    return min(max(a, 0.0), 1.0)


def sdcd(X_pos: np.ndarray, X_neg: np.ndarray, lam: float, pairs_i: np.ndarray,
         pairs_j: np.ndarray, alpha: np.ndarray | None = None, w: np.ndarray | None = None
         ) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 (and, given a permutation's pairs, Algorithm 2) from ``alpha`` (default 0)
    and the matching ``w``; returns (w, alpha), alpha of shape (n+, n-)."""
    n_pos, n_neg = X_pos.shape[0], X_neg.shape[0]
    k = n_pos * n_neg
    alpha = np.zeros((n_pos, n_neg)) if alpha is None else alpha.copy()
    w = np.zeros(X_pos.shape[1]) if w is None else w.copy()
    for i, j in zip(pairs_i, pairs_j, strict=True):
        z = X_pos[i] - X_neg[j]
        zz = z @ z
        old = alpha[i, j]
        # Step 2; a pair with z = 0 leaves w alone, its dual optimum is the bound 1.
        new = _clip01(old + lam * k * (1.0 - z @ w) / zz) if zz > 0 else 1.0
        alpha[i, j] = new
        w = w + (new - old) * z / (lam * k)  # step 3
    return w, alpha


def msgd(X_pos: np.ndarray, X_neg: np.ndarray, lam: float, pairs_i: np.ndarray,
         pairs_j: np.ndarray) -> np.ndarray:
    """Algorithm 3 from w^0 = 0; the t-th pair given is the paper's iteration t."""
    w = np.zeros(X_pos.shape[1])
    for t, (i, j) in enumerate(zip(pairs_i, pairs_j, strict=True), start=1):
        z = X_pos[i] - X_neg[j]
        zz = z @ z
        a = _clip01(lam * t * (1.0 - z @ w) / zz) if zz > 0 else 1.0
        w = (1.0 - 1.0 / t) * w + a * z / (lam * t)
    return w


def _arrivals(order: np.ndarray, slots: np.ndarray, n_pos: int
              ) -> Iterator[tuple[bool, int, list[int], int]]:
    """OAM's stream: yields (is_positive, row, the other class's buffer, the count received of
    the other class) after storing each arrival (UpdateBuffer)."""
    buffers: dict[bool, list[int]] = {True: [], False: []}
    seen = {True: 0, False: 0}
    for v, slot in zip(order, slots, strict=True):
        positive = bool(v < n_pos)
        row = int(v) if positive else int(v - n_pos)
        seen[positive] += 1
        if slot >= 0:
            if slot == len(buffers[positive]):
                buffers[positive].append(row)
            else:
                buffers[positive][slot] = row
        yield positive, row, list(buffers[not positive]), seen[not positive]


def oam_inf(X_pos: np.ndarray, X_neg: np.ndarray, lam: float, order: np.ndarray,
            slots: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """OAMinf as AUC-DCD writes it (Eq. 8 and Appendix 2): on arrival, for every stored example
    of the other class in turn, w = w' + a z / (lam k), a = clip(lam k (1 - z^T w')/z^T z, 0, 1)."""
    lk = lam * X_pos.shape[0] * X_neg.shape[0]
    w = np.zeros(X_pos.shape[1]) if w is None else w.copy()
    for positive, row, others, _ in _arrivals(order, slots, X_pos.shape[0]):
        for other in others:
            z = X_pos[row] - X_neg[other] if positive else X_pos[other] - X_neg[row]
            zz = z @ z
            a = _clip01(lk * (1.0 - z @ w) / zz) if zz > 0 else 1.0
            w = w + a * z / lk
    return w


def oam_seq(X_pos: np.ndarray, X_neg: np.ndarray, C: float, cap: int, order: np.ndarray,
            slots: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """OAMseq (Zhao et al. 2011): C_t = C max(1, N_t / N) with N_t the count of received
    examples of the other class and N its buffer size; for each x in that buffer in turn,
    w += min(C_t/2, l(w, z)/||z||^2) z with l the hinge loss of z = y_t (x_t - x)."""
    w = np.zeros(X_pos.shape[1]) if w is None else w.copy()
    for positive, row, others, seen_other in _arrivals(order, slots, X_pos.shape[0]):
        c_t = C * max(1.0, seen_other / cap)
        for other in others:
            z = X_pos[row] - X_neg[other] if positive else X_pos[other] - X_neg[row]
            loss = max(0.0, 1.0 - z @ w)
            zz = z @ z
            if loss > 0 and zz > 0:
                w = w + min(c_t / 2.0, loss / zz) * z
    return w


def oam_gra(X_pos: np.ndarray, X_neg: np.ndarray, C: float, cap: int, order: np.ndarray,
            slots: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """OAMgra (Zhao et al. 2011): w += C_t/2 sum of z over the buffered partners with
    y_t w^T (x_t - x) <= 1, every condition at the w before the step."""
    w = np.zeros(X_pos.shape[1]) if w is None else w.copy()
    for positive, row, others, seen_other in _arrivals(order, slots, X_pos.shape[0]):
        c_t = C * max(1.0, seen_other / cap)
        w_old = w.copy()
        for other in others:
            z = X_pos[row] - X_neg[other] if positive else X_pos[other] - X_neg[row]
            if z @ w_old <= 1.0:
                w = w + c_t / 2.0 * z
    return w
