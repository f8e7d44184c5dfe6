"""The AUC-DCD objective (Jiang et al. 2014, Eq. 2-5) computed without enumerating pairs.

Primal (Eq. 3): P(w) = lam/2 ||w||^2 + 1/k sum_ij max(0, 1 - w^T (x_i - x_j)), k = n+ n-.
Dual (Eq. 4):   D(alpha) = 1/k sum_ij alpha_ij - lam/2 ||w(alpha)||^2, alpha_ij in [0, 1],
                with w(alpha) = 1/(lam k) sum_ij alpha_ij (x_i - x_j).

The pair mean of the hinge loss depends on the scores only: with the negatives' scores sorted,
the pairs of positive i that have a loss are the negatives scoring above s_i - 1, a suffix of
the sorted scores found by binary search, and their losses sum to
count * (1 - s_i) + (sum of that suffix). That is O((n+ + n-) log n-) for all n+ n- pairs.
"""

from __future__ import annotations

import numpy as np


def pairwise_hinge_mean(scores_pos: np.ndarray, scores_neg: np.ndarray) -> float:
    """mean over all (i, j) of max(0, 1 - scores_pos[i] + scores_neg[j]), by sorting.

    Parameters
    ----------
    scores_pos, scores_neg : array-like of shape (n+,) and (n-,), both non-empty.

    Returns
    -------
    float
        The mean hinge loss of the n+ n- pairs, computed in O((n+ + n-) log n-).
    """
    pos = np.asarray(scores_pos, dtype=np.float64).ravel()
    neg = np.sort(np.asarray(scores_neg, dtype=np.float64).ravel())
    if pos.size == 0 or neg.size == 0:
        raise ValueError("the pair mean needs at least one positive and one negative score")
    # suffix[m] = sum of neg[m:], so a loss-bearing suffix starting at m sums to suffix[m].
    suffix = np.zeros(neg.size + 1)
    np.cumsum(neg[::-1], out=suffix[-2::-1])
    # A pair has a loss when 1 - s_i + s_j > 0, i.e. s_j > s_i - 1: negatives after index m.
    start = np.searchsorted(neg, pos - 1.0, side="right")
    count = neg.size - start
    total = float(np.dot(count, 1.0 - pos) + suffix[start].sum())
    return max(total, 0.0) / (pos.size * neg.size)


def primal_objective(w: np.ndarray, scores_pos: np.ndarray, scores_neg: np.ndarray,
                     lam: float) -> float:
    """P(w) of Eq. (3), given the scores X_pos w and X_neg w of the training rows."""
    return 0.5 * lam * float(np.dot(w, w)) + pairwise_hinge_mean(scores_pos, scores_neg)


def dual_objective(w: np.ndarray, alpha: np.ndarray, lam: float) -> float:
    """D(alpha) of Eq. (4), given w = w(alpha) (the solvers keep that identity up to rounding)."""
    return float(np.sum(alpha)) / alpha.size - 0.5 * lam * float(np.dot(w, w))
