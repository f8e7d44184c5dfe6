"""Class-prior estimation for PNU-AUC: the energy-distance estimate of Kawakubo et al. (2016).

Kawakubo, du Plessis & Sugiyama, "Computationally efficient class-prior estimation under class
balance change using energy distance", IEICE Trans. Inf. & Syst. E99-D(1):176-186, 2016; the
reference implementation is ``EneCPE.m`` beside ``PNU_AUC_SL.m`` (t-sakai-kure/PNU, MIT).

The unlabeled marginal p_U is modelled as the mixture theta_N p_N + theta_P p_P and theta_N is
chosen to minimise the energy distance between p_U and the mixture,

    D(x) = 2 E|U - M_x| - E|M_x - M_x'| - E|U - U'|,   M_x ~ x p_N + (1 - x) p_P,

a quadratic in x = theta_N whose coefficient of x^2 is the energy distance between N and P
(>= 0). In the reference's notation, with class 1 = N (label -1 sorts first) and class 2 = P,
A_ij = -mean ||X_i - X_j|| and b_i = 2 mean ||X_i - X_U||:

    x = clip(-(2 A_12 - 2 A_22 + b_1 - b_2) / (2 (A_11 - 2 A_12 + A_22)), 0, 1),
    theta_P = 1 - x.

Every mean is over all pairs of the two samples (for A_ii the zero diagonal included), as in the
reference (alpha = 1: plain Euclidean distances). Choice left open by the reference: when N and
P are indistinguishable (A_11 - 2 A_12 + A_22 <= 0: the distance does not depend on the prior),
the labeled class proportion n_P / (n_P + n_N) is returned instead of dividing by zero.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances

__all__ = ["energy_prior", "mean_distance"]

_CHUNK_ROWS = 2048


def mean_distance(A: np.ndarray, B: np.ndarray) -> float:
    """mean over all (a, b) in A x B of ||a - b||, in row chunks (O(chunk * |B|) memory)."""
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.shape[0] == 0 or B.shape[0] == 0:
        raise ValueError("mean_distance needs two non-empty samples")
    total = 0.0
    for r0 in range(0, A.shape[0], _CHUNK_ROWS):
        total += float(euclidean_distances(A[r0:r0 + _CHUNK_ROWS], B).sum())
    return total / (A.shape[0] * B.shape[0])


def energy_prior(X_pos: np.ndarray, X_neg: np.ndarray, X_unlabeled: np.ndarray) -> float:
    """theta_P = p(y = +1) of the unlabeled sample, by energy-distance minimisation.

    ``X_pos`` and ``X_neg`` are the labeled positives and negatives, ``X_unlabeled`` the
    unlabeled points (all non-empty, same number of columns). The result lies in [0, 1], clipped
    as in the reference (see the module docstring for the formula and the degenerate case).
    """
    X_pos, X_neg, X_unl = (np.asarray(a, dtype=np.float64) for a in (X_pos, X_neg, X_unlabeled))
    if min(X_pos.shape[0], X_neg.shape[0], X_unl.shape[0]) == 0:
        raise ValueError("energy_prior needs positives, negatives and unlabeled points; "
                         f"got {X_pos.shape[0]}, {X_neg.shape[0]} and {X_unl.shape[0]}")
    a_nn = -mean_distance(X_neg, X_neg)
    a_np = -mean_distance(X_neg, X_pos)
    a_pp = -mean_distance(X_pos, X_pos)
    b_n = 2.0 * mean_distance(X_neg, X_unl)
    b_p = 2.0 * mean_distance(X_pos, X_unl)
    curvature = a_nn - 2.0 * a_np + a_pp  # the energy distance between N and P
    if not curvature > 0.0:
        return float(X_pos.shape[0] / (X_pos.shape[0] + X_neg.shape[0]))
    theta_n = -(2.0 * a_np - 2.0 * a_pp + b_n - b_p) / (2.0 * curvature)
    return float(1.0 - min(max(theta_n, 0.0), 1.0))
