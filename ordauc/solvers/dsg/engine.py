"""The iterations of one QSG model (AAAI 2020 Algorithm 1), and what they share with a grid.

:func:`run_one` is the training loop behind ``fit`` of :class:`~ordauc.solvers.dsg.qsg.QSGS2AUC`
and :class:`~ordauc.solvers.dsg.qsg.QS3ORAO`; the many-model loop of a grid fit
(:mod:`ordauc.solvers.dsg.grid`) draws the same samples and blocks and computes the same
iterates. Iteration t needs f at the sampled points with blocks 1..t-1. f on the labeled rows is
kept current incrementally (one new block per iteration). For the sampled unlabeled batch there
are two ways, with the same iterates up to float32 rounding:

- evaluate the batch against all t-1 blocks: b (t-1) block-rows at iteration t, b T(T-1)/2 in
  all, O(T^2);
- keep f current on the whole unlabeled pool, one new block per iteration: n_u block-rows per
  iteration, n_u T in all, and the sampled values are looked up.

The pool is kept from the iteration :func:`pool_start` names. Switching at iteration s needs f
on the pool with blocks 1..s-1 first (a catch-up of n_u (s-1) block-rows), which is exactly what
the batch phase saved over keeping the pool from the start; so the cheapest switch is at t = 1
(when n_u T <= b T(T-1)/2, i.e. 2 n_u <= b (T-1)) or never. For 20,000 unlabeled points, batches
of 64 and 2,000 iterations that is 2.56e9 block-rows instead of 8.19e9 (3.2x less); a switch at
t = n_u/b would cost 2.76e9. Once the pool is kept, f on every unlabeled row at the end comes
for free: it is the fitted ``unlabeled_scores_`` (the transductive scores QS3ORAO's protocol
evaluates), None when the pool was never kept.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ordauc.errors import DivergenceError
from ordauc.solvers._base import Checkpoint
from ordauc.solvers._labels import LabeledSplit, draw_batches
from ordauc.solvers.dsg.random_features import FeatureBlocks, PackedCoef, with_ones
from ordauc.solvers.objective import gamma_vector

STEP_RULES = ("inverse", "dsg")
_MAX_FIRST_STEP = 0.25  # 2 / (curvature bound 8 of the squared pairwise risks)
# Fold the global scale into the coefficients when it gets this small: coef/scale must stay
# far inside the float32 range of the packed copy (a fold costs one pass over the coefficients,
# and with eta_t ~ 1/t the scale only decays polynomially, so folds are rare).
FOLD_BELOW = 1e-20
DIVERGED = 1e4  # times sqrt(3/lam), the bound on |f*| (qsg module docstring)


def resolve_steps(step: str, lam: float, theta: float | None, t0: float | None,
                  theta_decay: float) -> tuple[float, float]:
    """(theta, t0) of the schedule; ``eta_t = theta/(t + t0)`` or ``theta/(1 + decay*t)``."""
    if step not in STEP_RULES:
        raise ValueError(f"step must be one of {STEP_RULES}, got {step!r}")
    if step == "dsg":
        return (1.0 if theta is None else float(theta)), 0.0
    th = 1.5 / lam if theta is None else float(theta)
    off = max(0.0, math.ceil(th / _MAX_FIRST_STEP) - 1.0) if t0 is None else float(t0)
    return th, off


def step_size(t: int, step: str, theta: float, t0: float, theta_decay: float) -> float:
    """eta_t for iteration t = 1, 2, ..."""
    if step == "dsg":
        return theta / (1.0 + theta_decay * t)
    return theta / (t + t0)


def pool_start(n_unlabeled: int, batch_size: int, n_iter: int, rule: str | int = "auto") -> int:
    """The iteration from which f is kept current on the whole unlabeled pool; ``n_iter + 1``
    when never. ``rule``: ``"auto"`` (the cheaper of t = 1 and never, module docstring),
    ``"off"`` (always evaluate the batch), or an iteration number (a switch there, with its
    catch-up evaluation)."""
    never = n_iter + 1
    if n_unlabeled == 0 or rule == "off":
        return never
    if rule == "auto":
        return 1 if 2 * n_unlabeled <= batch_size * (n_iter - 1) else never
    return min(max(1, int(rule)), never)


class UnlabeledPool:
    """f on every unlabeled row, kept current one block at a time (float64, row order of
    ``rows``); the rows are stored once with their column of ones."""

    def __init__(self, X: np.ndarray, rows: np.ndarray) -> None:
        self.rows = rows
        self.Xa = with_ones(X[rows])
        self.f = np.zeros(rows.size, dtype=np.float64)

    def positions(self, sampled: np.ndarray) -> np.ndarray:
        """Positions in the pool of sampled row indices (``rows`` is increasing)."""
        return np.searchsorted(self.rows, sampled)


def run_one(est: Any, X: np.ndarray, labels: LabeledSplit, checkpoint: Checkpoint | None,
            pool_rule: str | int = "auto", fast: bool = True) -> None:
    """Algorithm 1 for the fitted-to-be estimator ``est`` (its ``blocks_``, ``seed_``,
    ``theta_``, ``t0_`` set); sets ``coef_``, ``scale_``, ``n_iter_``, ``unlabeled_scores_``
    and, when tracked, ``kernel_coef_``. ``fast``: the compiled cosine of :mod:`.trig` for f
    at the unlabeled points (numpy's otherwise)."""
    k, b, T = labels.n_classes, int(est.batch_size), int(est.n_iter)
    blocks: FeatureBlocks = est.blocks_
    gammas = gamma_vector(est.gamma, k)
    w_pn, w_u = gammas / (k - 1), (1.0 - gammas) / (k - 1)
    # With gamma_j = 1 for all j (or no unlabeled rows) U plays no part: draw no U batch.
    supervised = bool(np.all(w_u == 0.0)) or labels.unlabeled.size == 0
    n_l = labels.labeled.size
    # Rows that meet the new block each iteration: the labeled set, then the U batch.
    X_new = np.empty((n_l + (0 if supervised else b), X.shape[1]), dtype=np.float32)
    X_new[:n_l] = X[labels.labeled]
    X_u = X_new[n_l:]
    pools = labels.batch_pools(with_unlabeled=not supervised)
    rng = np.random.default_rng([est.seed_, 0])
    coef = np.zeros((T, blocks.width), dtype=np.float64)
    packed = PackedCoef(T, blocks.m, blocks.phase)  # float32 copy that evaluate reads
    f_l = np.zeros(n_l, dtype=np.float64)
    f_u = np.empty(X_u.shape[0], dtype=np.float64)
    F32 = np.empty((X_new.shape[0], blocks.width), dtype=np.float32)
    F = np.empty((X_new.shape[0], blocks.width), dtype=np.float64)
    c = np.empty(X_new.shape[0], dtype=np.float64)
    scale = 1.0
    beta = np.zeros(X.shape[0], dtype=np.float64) if est.track_kernel else None
    bound = DIVERGED * math.sqrt(3.0 / est.lam)
    every = 0 if checkpoint is None else max(1, int(checkpoint.every))
    keep_from = T + 1 if supervised else pool_start(labels.unlabeled.size, b, T, pool_rule)
    pool: UnlabeledPool | None = None
    for t in range(1, T + 1):
        draws, u_rows = draw_batches(rng, pools, b)
        if t == keep_from:
            pool = UnlabeledPool(X, labels.unlabeled)
            # The catch-up: f on the pool with blocks 1..t-1 (nothing when t = 1).
            blocks.evaluate(pool.Xa, packed, scale, n_blocks=t - 1, out=pool.f, augmented=True,
                            fast=fast)
        if u_rows is not None:
            np.take(X, u_rows, axis=0, out=X_u)
            if pool is not None:
                np.take(pool.f, pool.positions(u_rows), out=f_u)
            else:
                blocks.evaluate(X_u, packed, scale, n_blocks=t - 1, out=f_u, fast=fast)
        pair_coefficients(f_l, f_u, draws, w_pn, w_u, out=c)
        np.copyto(F, blocks.features(X_new, t - 1, out=F32))
        eta = step_size(t, est.step, est.theta_, est.t0_, est.theta_decay)
        alpha = (-eta * blocks.norm) * (c @ F)
        rho = 1.0 - eta * est.lam
        if t > 1:
            scale *= rho
            if abs(scale) < FOLD_BELOW:  # includes rho == 0: old terms vanish exactly
                coef[: t - 1] *= scale
                packed.load(coef[: t - 1])
                if beta is not None:
                    beta *= scale
                scale = 1.0
        coef[t - 1] = alpha / scale
        packed.load(coef[t - 1: t], start=t - 1)
        f_l *= rho
        f_l += blocks.norm * (F[:n_l] @ alpha)
        if not np.all(np.abs(f_l) <= bound):  # NaN fails the comparison too
            raise DivergenceError(est._diverged(t, f_l, bound))
        if pool is not None:  # the new block on every unlabeled row, one cosine per frequency
            pool.f *= rho
            blocks.evaluate(pool.Xa, packed, scale, n_blocks=t, out=pool.f, start=t - 1,
                            add=True, augmented=True, fast=fast)
        if beta is not None:
            beta[labels.labeled] -= eta * c[:n_l] / scale
            if u_rows is not None:
                np.add.at(beta, u_rows, -eta * c[n_l:] / scale)
        if every and t % every == 0:
            checkpoint(t, Iterate(blocks, packed, scale, t))
    est.coef_ = coef
    est.scale_ = scale
    est.n_iter_ = T
    est.unlabeled_scores_ = None if pool is None else pool.f
    if beta is not None:
        est.kernel_coef_ = beta * scale


class Iterate:
    """What a checkpoint receives: f_t from the first t blocks, at the current scale."""

    def __init__(self, blocks: FeatureBlocks, packed: PackedCoef, scale: float, t: int) -> None:
        self.blocks, self.packed, self.scale, self.t = blocks, packed, scale, t

    def decision_function(self, X: Any) -> np.ndarray:
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float32)
        return self.blocks.evaluate(X, self.packed, self.scale, n_blocks=self.t)


def pair_coefficients(f_l: np.ndarray, f_u: np.ndarray,
                      draws: list[tuple[np.ndarray, np.ndarray]], w_pn: np.ndarray,
                      w_u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Weights of the sampled points in the stochastic functional gradient (AAAI Eq. 10).

    For batches A, B the mean over all pairs of the derivatives of (1 - f_a + f_b)^2 splits into
    per-point terms, d/df_a = -2 (1 - f_a + mean f_B) / |A| and d/df_b = 2 (1 - mean f_A + f_b)
    / |B|, so the pair average costs O(|A| + |B|). Subproblem j weighs its PN pairs by
    ``w_pn[j] = gamma_j/(k-1)`` and its PU and UN pairs by ``w_u[j] = (1-gamma_j)/(k-1)``.
    Returns the weights of every labeled point then of each point of the unlabeled batch,
    (n_l + |U batch|,), written into ``out`` when given.
    """
    n_l = f_l.size
    c = np.zeros(n_l + f_u.size, dtype=np.float64) if out is None else out
    c[:] = 0.0
    c_l = c[:n_l]
    has_u = f_u.size > 0
    mu = _mean(f_u) if has_u else 0.0
    u_mean_sum = 0.0  # sum_j h_j (mean f_P_j + mean f_N_j), for the weights of U
    for (p, n), g, h in zip(draws, w_pn, w_u, strict=True):
        h = h if has_u else 0.0
        fp, fn = f_l[p], f_l[n]
        mp, mn = _mean(fp), _mean(fn)
        # On phi(x_p): l1 (PN pairs) -2g/|P| (1 - f_p + mean f_N), l3 (PU pairs)
        # -2h/|P| (1 - f_p + mean f_U); on phi(x_n): l2 (PN) 2g/|N| (1 - mean f_P + f_n),
        # l6 (UN) 2h/|N| (1 - mean f_U + f_n); both affine in f, summed here.
        wp = fp * (2.0 * (g + h) / p.size)
        wp -= 2.0 * ((g + h) + g * mn + h * mu) / p.size
        wn = fn * (2.0 * (g + h) / n.size)
        wn += 2.0 * ((g + h) - g * mp - h * mu) / n.size
        np.add.at(c_l, p, wp)  # a point drawn twice counts twice (draws with replacement)
        np.add.at(c_l, n, wn)
        u_mean_sum += h * (mp + mn)
    if has_u:
        # On phi(x_u): l4 (PU) 2h/|U| (1 - mean f_P + f_u) and l5 (UN) -2h/|U| (1 - f_u +
        # mean f_N), which sum to 2h/|U| (2 f_u - mean f_P - mean f_N).
        np.multiply(f_u, 4.0 * float(np.add.reduce(w_u)) / f_u.size, out=c[n_l:])
        c[n_l:] -= 2.0 * u_mean_sum / f_u.size
    return c


def _mean(a: np.ndarray) -> float:
    return float(np.add.reduce(a)) / a.size  # ndarray.mean's dispatch costs more than the sum
