"""The zero-one PNU-AUC risk that PNU-AUC's reference selects models by (``calc_loss`` with the
heuristic combination weight of ``calc_eta_heu_unb``, ``PNU_AUC_SL.m``; Sakai, Niu & Sugiyama
2018). See :mod:`ordauc.solvers.kernel.pnu_auc` for the reading of the reference."""

from __future__ import annotations

import math

import numpy as np


def heuristic_weight(n_pos: int, n_neg: int, prior: float, eta: float) -> float:
    """The reference's combination weight of the zero-one CV risk (``calc_eta_heu_unb``): only
    the sign of ``eta`` matters (module docstring)."""
    theta_p, theta_n = float(prior), 1.0 - float(prior)
    if eta >= 0:
        a, b = theta_n ** 2 * (n_pos - 1), theta_p ** 2 * n_neg
        return float(a / (a + b))
    a, b = theta_n ** 2 * n_pos, theta_p ** 2 * (n_neg - 1)
    return float(-b / (a + b))


def _zero_one_mean(hi: np.ndarray, lo: np.ndarray) -> float:
    """mean over (u, v) in hi x lo of l01(u - v): 1 when u < v, 1/2 when u = v, 0 otherwise."""
    lo = np.sort(lo)
    below_or_tied = np.searchsorted(lo, hi, side="left")  # v < u
    not_above = np.searchsorted(lo, hi, side="right")  # v <= u
    greater = lo.size - not_above
    ties = not_above - below_or_tied
    return float((greater.sum() + 0.5 * ties.sum()) / (hi.size * lo.size))


def _corrected_self_term(g: np.ndarray) -> float:
    """S / (n (n - 1)) - 1 / (2 (n - 1)) with S the l01 sum over all ordered pairs of g, the
    diagonal included: the mean over distinct pairs, 1/2 for every n >= 2 (taken as 1/2 when
    n = 1, where the reference divides by zero)."""
    n = g.size
    if n < 2:
        return 0.5
    total = _zero_one_mean(g, g) * n * n
    return total / (n * (n - 1)) - 1.0 / (2.0 * (n - 1))


def zero_one_pnu_risk(g_pos: np.ndarray, g_neg: np.ndarray, g_unl: np.ndarray, prior: float,
                      weight: float) -> float:
    """The reference's ``calc_loss``: (1 - |w|) L_PN + |w| L_XU with the zero-one loss, XU = PU
    when ``weight`` >= 0 and NU otherwise (module docstring). NaN when P or N is empty, or U is
    empty and the weight is not 0."""
    g_pos, g_neg, g_unl = (np.asarray(g, dtype=np.float64).ravel()
                           for g in (g_pos, g_neg, g_unl))
    if g_pos.size == 0 or g_neg.size == 0:
        return math.nan
    loss = _zero_one_mean(g_pos, g_neg)
    w = abs(float(weight))
    if w == 0.0:
        return loss
    if g_unl.size == 0:
        return math.nan
    theta_p, theta_n = float(prior), 1.0 - float(prior)
    if weight >= 0:
        loss_x = (_zero_one_mean(g_pos, g_unl) - theta_p * _corrected_self_term(g_pos)) / theta_n
    else:
        loss_x = (_zero_one_mean(g_unl, g_neg) - theta_n * _corrected_self_term(g_neg)) / theta_p
    return float((1.0 - w) * loss + w * loss_x)


def pnu_risk_01_from_scores(g_pos: np.ndarray, g_neg: np.ndarray, g_unl: np.ndarray,
                            prior: float, eta: float, n_pos: int, n_neg: int) -> float:
    """The zero-one PNU-AUC risk of model selection for validation scores of P, N and U: the
    weight is :func:`heuristic_weight` of the counts ``n_pos``, ``n_neg`` (the reference's: the
    whole data set that cross-validation splits), ``prior`` and the sign of ``eta``."""
    return zero_one_pnu_risk(g_pos, g_neg, g_unl, prior,
                             heuristic_weight(n_pos, n_neg, prior, eta))
