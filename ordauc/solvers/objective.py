"""The semi-supervised (ordinal) AUC objective shared by QSG-S2AUC, QS3ORAO and SAMULT.

With the squared pairwise loss l(u, v) = (1 - u + v)^2 and subproblem j of an ordinal task with
labels 1..k (P_j = labeled y > j, N_j = labeled y <= j, U = unlabeled):

    R_PNU^j = gamma_j R_PN^j + (1 - gamma_j) (R_PU^j + R_NU^j - 1/2)      (AAAI 2020 Eq. 7)
    L(f)    = lam/2 ||f||_H^2 + 1/(k-1) sum_j R_PNU^j                     (AAAI 2020 Eq. 9)

The binary objective of IJCAI 2019 (Eq. 8-9) is the case k = 2. Each risk is a mean over a
complete bipartite pair set, so it is computed exactly in O(n) from first and second moments:
mean (1 - a + b)^2 = (1 - E a + E b)^2 + Var a + Var b.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def gamma_vector(gamma: float | list[float] | np.ndarray, n_classes: int) -> np.ndarray:
    """gamma_j for j = 1..k-1: a scalar shared by all subproblems, or a list of k-1 values."""
    g = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    if g.size == 1:
        g = np.full(n_classes - 1, g[0])
    if g.size != n_classes - 1:
        raise ValueError(f"gamma needs 1 or k-1 = {n_classes - 1} values, got {g.size}")
    if np.any((g < 0) | (g > 1)):
        raise ValueError(f"gamma must lie in [0, 1], got {g.tolist()}")
    return g


def labeled_pairs_only(gammas: list[Any]) -> bool:
    """Whether every gamma of ``gammas`` (each a number, or a list of gamma_j) is 1 for every
    subproblem: the objective's unlabeled terms then weigh 1 - gamma_j = 0, so it reads the
    labeled rows alone."""
    for gamma in gammas:
        try:
            g = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
        except (TypeError, ValueError):  # not a gamma: config validation says so
            return False
        if g.size == 0 or not np.all(g == 1.0):
            return False
    return bool(gammas)


def pair_risk(a: np.ndarray, b: np.ndarray) -> float:
    """mean over all (u, v) in a x b of (1 - u + v)^2."""
    if a.size == 0 or b.size == 0:
        return 0.0
    return float((1.0 - a.mean() + b.mean()) ** 2 + a.var() + b.var())


def pnu_risk(f_labeled: np.ndarray, y_labeled: np.ndarray, f_unlabeled: np.ndarray,
             gamma: float | list[float] | np.ndarray, n_classes: int) -> float:
    """1/(k-1) sum_j R_PNU^j with labels 1..k (squared pairwise loss)."""
    f_l = np.asarray(f_labeled, dtype=np.float64)
    f_u = np.asarray(f_unlabeled, dtype=np.float64)
    g = gamma_vector(gamma, n_classes)
    total = 0.0
    for j in range(1, n_classes):
        p, n = f_l[y_labeled > j], f_l[y_labeled <= j]
        pu_nu = pair_risk(p, f_u) + pair_risk(f_u, n) - 0.5 if f_u.size else 0.0
        total += g[j - 1] * pair_risk(p, n) + (1.0 - g[j - 1]) * pu_nu
    return total / (n_classes - 1)


def objective(f_labeled: np.ndarray, y_labeled: np.ndarray, f_unlabeled: np.ndarray,
              norm_sq: float, lam: float, gamma: float | list[float] | np.ndarray,
              n_classes: int) -> float:
    """L(f) = lam/2 ||f||_H^2 + 1/(k-1) sum_j R_PNU^j (AAAI 2020 Eq. 9, IJCAI 2019 Eq. 9)."""
    return 0.5 * lam * norm_sq + pnu_risk(f_labeled, y_labeled, f_unlabeled, gamma, n_classes)
