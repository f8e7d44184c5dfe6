"""PNU-AUC's closed form (Sakai, Niu & Sugiyama 2018; the reference's ``solve_gauss``): the
moments of the design matrices and the system (A + lam I) theta = h.

With K_A the |A| x b design matrix of the rows in A, H_A = K_A^T K_A / |A| and m_A its mean row,
every squared-loss risk of :mod:`ordauc.solvers.kernel.pnu_auc` (its module docstring gives the
formulas and the choices the reference leaves open) equals 1 - 2 theta^T h + theta^T H theta, so
J = (1 - |eta|) R_PN + |eta| R_XU + lam ||theta||^2 is minimised (or made stationary, H being
possibly indefinite) by theta = (H + lam I)^{-1} h; docs/algorithms.md, section 3.
"""

from __future__ import annotations

import numpy as np

from ordauc.solvers.kernel.linalg import solve_regularised

__all__ = ["class_moments", "moments", "pnu_auc_coef", "pnu_system"]


def moments(K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """H = K^T K / |A| and the mean row m of a design matrix K (|A| x b)."""
    return K.T @ K / K.shape[0], K.mean(axis=0)


def _pair_moment(H_a: np.ndarray, m_a: np.ndarray, H_b: np.ndarray, m_b: np.ndarray
                 ) -> np.ndarray:
    """mean over A x B of (k_a - k_b)(k_a - k_b)^T."""
    return H_a - np.outer(m_a, m_b) - np.outer(m_b, m_a) + H_b


def pnu_auc_coef(K_pos: np.ndarray, K_neg: np.ndarray, K_unl: np.ndarray, prior: float,
                 eta: float, lam: float) -> tuple[np.ndarray, float]:
    """theta minimising J (the pnu_auc module docstring) and J at theta, from the design
    matrices of P, N and U (b columns each). ``eta``'s sign selects PU (>= 0) or NU (< 0);
    with an empty U the unlabeled term is dropped."""
    A, h = pnu_system(class_moments(K_pos, K_neg, K_unl), prior, eta)
    A[np.diag_indices(A.shape[0])] += lam
    return solve_regularised(A, h)


def class_moments(K_pos: np.ndarray, K_neg: np.ndarray, K_unl: np.ndarray
                  ) -> dict[str, np.ndarray | None]:
    """H and m of P, N and U (U's None when there is no unlabeled row)."""
    H_p, m_p = moments(K_pos)
    H_n, m_n = moments(K_neg)
    H_u, m_u = moments(K_unl) if K_unl.shape[0] else (None, None)
    return {"H_p": H_p, "m_p": m_p, "H_n": H_n, "m_n": m_n, "H_u": H_u, "m_u": m_u}


def pnu_system(mom: dict[str, np.ndarray | None], prior: float, eta: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """(A, h) with theta = (A + lam I)^{-1} h: the symmetrised (1 - |eta|) H_PN + |eta| H_XU and
    (1 - |eta|) h_PN + |eta| h_XU (the pnu_auc module docstring), a new array A."""
    H_p, m_p, H_n, m_n = mom["H_p"], mom["m_p"], mom["H_n"], mom["m_n"]
    H = _pair_moment(H_p, m_p, H_n, m_n)
    h = m_p - m_n
    w = abs(float(eta)) if mom["H_u"] is not None else 0.0
    if w > 0.0:
        H_u, m_u = mom["H_u"], mom["m_u"]
        theta_p, theta_n = float(prior), 1.0 - float(prior)
        if eta >= 0:
            H_x = (_pair_moment(H_p, m_p, H_u, m_u)
                   - theta_p * (2.0 * H_p - 2.0 * np.outer(m_p, m_p))) / theta_n
            h_x = (m_p - m_u) / theta_n
        else:
            H_x = (_pair_moment(H_n, m_n, H_u, m_u)
                   - theta_n * (2.0 * H_n - 2.0 * np.outer(m_n, m_n))) / theta_p
            h_x = (m_u - m_n) / theta_p
        H = (1.0 - w) * H + w * H_x
        h = (1.0 - w) * h + w * h_x
    return 0.5 * (H + H.T), h
