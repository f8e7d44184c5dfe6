"""The weights of the sampled points in the stochastic functional gradient (AAAI 2020 Eq. 10),
for every model of a pass at once.

Per-model quantities carry a trailing model axis, or none: one model's are plain vectors and
numbers, the same formulas, at the cost of numpy scalars instead of arrays of one column (the
engine runs these once per iteration, where that call cost is what a lone fit pays).

For batches A, B the mean over all pairs of the derivatives of l(u, v) = (1 - u + v)^2 splits
into per-point terms, d/df_a = -2 (1 - f_a + mean f_B) / |A| and d/df_b = 2 (1 - mean f_A + f_b)
/ |B|, so the pair average costs O(|A| + |B|). Subproblem j weighs its PN pairs by
``w_pn[j] = gamma_j/(k-1)`` and its PU and UN pairs by ``w_u[j] = (1-gamma_j)/(k-1)``. With the
weights c_x of the sampled points, the gradient step of iteration t is
alpha_t = -eta_t sqrt(c/m) sum_x c_x F_t(x) (F_t the raw features of the new block).

l5 (UN pairs, derivative in u) goes with phi(x_u) and l6 (UN, derivative in v) with phi(x_n),
as in the gradient, Eq. 10; the paper's Eq. 13 and Algorithm 1 line 11 swap them, a typo.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SampleWeights", "pair_weights"]

Draws = list[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SampleWeights:
    """c_x of the sampled points, one column per model.

    Parameters
    ----------
    labeled : list of (rows, weights)
        For each drawn batch (P_1, N_1, ..., P_{k-1}, N_{k-1}), its positions among the labeled
        rows and their weights, (batch, models) or (batch,); a point drawn twice counts twice
        (draws with replacement).
    unlabeled : ndarray of shape (batch, models) or (batch,), or None
        The weights of the U batch; None when the models sample no U.
    """

    labeled: list[tuple[np.ndarray, np.ndarray]]
    unlabeled: np.ndarray | None

    def per_row(self, n_labeled: int, out: np.ndarray) -> np.ndarray:
        """The weights summed per row into ``out`` (n_labeled [+ batch] [, models]): the
        labeled rows, then the U batch's."""
        out[:] = 0.0
        c_l = out[:n_labeled]
        for rows, w in self.labeled:
            np.add.at(c_l, rows, w)
        if self.unlabeled is not None:
            out[n_labeled:] = self.unlabeled
        return out

    def gradient(self, F: np.ndarray, n_labeled: int, out: np.ndarray) -> np.ndarray:
        """sum_x c_x F(x) of every model into ``out`` (width[, models]); ``F`` holds the new
        block's features of the labeled rows, then of the U batch.

        One model: the weights are summed per row first and meet F in one vector product; many:
        one product per batch, as the scatter of many columns costs more than the products."""
        if out.ndim == 1:
            n = n_labeled if self.unlabeled is None else F.shape[0]
            np.matmul(self.per_row(n_labeled, np.empty(n)), F[:n], out=out)
            return out
        out[:] = 0.0
        for rows, w in self.labeled:
            out += F[rows].T @ w
        if self.unlabeled is not None:
            out += F[n_labeled:].T @ self.unlabeled
        return out


def pair_weights(f_l: np.ndarray, f_u: np.ndarray | None, draws: Draws, w_pn: np.ndarray,
                 w_u: np.ndarray) -> SampleWeights:
    """The weights c of Eq. 10 for the models whose columns are ``f_l`` (f on the labeled rows,
    (n_l[, models])) and ``f_u`` (f at the U batch, (batch[, models]), None when they sample no
    U), with ``w_pn``, ``w_u`` (k-1[, models]) and the (P_j, N_j) batches ``draws``. Written with
    as few array operations as the formula allows: at these sizes their call cost is its cost."""
    has_u = f_u is not None
    mu = _mean(f_u) if has_u else 0.0
    u_mean_sum = 0.0  # sum_j h_j (mean f_P_j + mean f_N_j), for U's weights
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for (p, n), g, h in zip(draws, w_pn, w_u if has_u else np.zeros_like(w_u), strict=True):
        fp, fn = f_l.take(p, axis=0), f_l.take(n, axis=0)
        mp, mn = _mean(fp), _mean(fn)
        gh, h_mu = g + h, h * mu
        s_p, s_n = 2.0 / p.size, 2.0 / n.size
        # On phi(x_p): l1 (PN pairs) -2g/|P| (1 - f_p + mean f_N), l3 (PU pairs)
        # -2h/|P| (1 - f_p + mean f_U); on phi(x_n): l2 (PN) 2g/|N| (1 - mean f_P + f_n),
        # l6 (UN) 2h/|N| (1 - mean f_U + f_n); both affine in f, summed here.
        wp = fp * (gh * s_p)
        wp -= (gh + g * mn + h_mu) * s_p
        wn = fn * (gh * s_n)
        wn += (gh - g * mp - h_mu) * s_n
        parts += [(p, wp), (n, wn)]
        if has_u:
            u_mean_sum = u_mean_sum + h * (mp + mn)
    w_unl = None
    if has_u:
        # On phi(x_u): l4 (PU) 2h/|U| (1 - mean f_P + f_u) and l5 (UN) -2h/|U| (1 - f_u +
        # mean f_N), which sum to 2h/|U| (2 f_u - mean f_P - mean f_N).
        s_u = 2.0 / f_u.shape[0]
        w_unl = f_u * (np.add.reduce(w_u, axis=0) * (2.0 * s_u))
        w_unl -= u_mean_sum * s_u
    return SampleWeights(parts, w_unl)


def _mean(a: np.ndarray) -> np.ndarray:
    """Column means; ndarray.mean's dispatch costs more than the sum at these sizes."""
    return np.add.reduce(a, axis=0) / a.shape[0]
