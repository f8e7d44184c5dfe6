"""The regularised symmetric systems (A + lam I) theta = h of the exact kernel baselines: one
solve, and a whole lam path from one eigendecomposition (docs/algorithms.md, section 3).

PNU-AUC's closed form is such a system (A the symmetrised moment matrix, h the mean difference);
a grid of lam values shares A, so its path costs one eigendecomposition and O(b^2) per lam.
A can be indefinite (PNU-AUC's PU and NU moments): a singular system is solved in the
least-squares sense, the minimum-norm solution, and both routes agree on it.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["lam_path", "solve_regularised"]


def solve_regularised(A: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, float]:
    """theta of A theta = h (A symmetric, lam already on its diagonal) and J = 1 - theta^T h;
    the minimum-norm least-squares solution when A is singular."""
    try:
        theta = scipy.linalg.solve(A, h, assume_a="sym", check_finite=False)
    except np.linalg.LinAlgError:
        theta = scipy.linalg.lstsq(A, h, check_finite=False)[0]
    return theta, float(1.0 - theta @ h)


def lam_path(A: np.ndarray, h: np.ndarray, lams: list[float]
             ) -> list[tuple[np.ndarray, float]]:
    """(theta, J) of (A + lam I) theta = h for every lam from one eigendecomposition A = V diag(a)
    V^T: theta = V ((V^T h) / (a + lam)), O(b^2) per lam. A term whose a + lam vanishes (to
    rounding: |a + lam| <= b eps max|a + lam|) is dropped, the minimum-norm solution, as
    :func:`solve_regularised`'s least-squares fallback for a singular system."""
    a, V = scipy.linalg.eigh(A, check_finite=False)
    Vh = V.T @ h
    out = []
    for lam in lams:
        d = a + lam
        tiny = A.shape[0] * np.finfo(float).eps * np.abs(d).max()
        inv = np.divide(1.0, d, out=np.zeros_like(d), where=np.abs(d) > tiny)
        theta = V @ (Vh * inv)
        out.append((theta, float(1.0 - theta @ h)))
    return out
