"""Many QSG models in one pass: the (lam, gamma, step schedule) points of a grid for one sigma.

The samples of iteration t (the P_j, N_j and U batches) are drawn from a generator seeded by the
run seed alone, and block t's frequencies from (seed, t) alone (:mod:`.engine`,
:mod:`.random_features`): neither depends on lam, gamma or the step schedule. So the models of a
grid with the same sigma, seed, iterations, batch and block size sample the same points and draw
the same blocks, and one pass fits them all:

- the features of the labeled rows and of the U batch against the new block are computed once;
- f at the sampled unlabeled points, which differs per model, is a matrix product: cos and sin
  of the points against the blocks are computed once, and every model's values are one float32
  product with the stacked coefficients (the single-model engine instead evaluates one model in
  amplitude-phase form, one cosine per frequency, which cannot be shared: the phases depend on
  the coefficients). The pool rule is the single-model engine's (:func:`.engine.pool_start`):
  with the pool kept, the shared cos/sin are those of the new block on every unlabeled row and
  each model's update is one product;
- each model keeps its own step sizes (eta_t depends on lam through theta = 1.5/lam and t0),
  global scale factor, coefficients, f on the labeled rows and f on the pool; the gradient
  weights of all models are computed at once, vectorised over the models.

Models whose gamma is 1 for every subproblem draw no U batch (as a lone fit does), so their
samples come from a second generator with the same seed: they share the blocks and the labeled
rows' features, not the draws. Each model's iterates are those of its lone fit up to float32
rounding (the cos/sin product against the amplitude-phase evaluation); the thresholds and
``unlabeled_scores_`` are computed as the lone fit computes them. A model that diverges is
stopped and its :class:`~ordauc.errors.DivergenceError` returned in its place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ordauc.errors import DivergenceError
from ordauc.solvers._labels import draw_batches
from ordauc.solvers.dsg import trig
from ordauc.solvers.dsg.engine import DIVERGED, FOLD_BELOW, pool_start, resolve_steps
from ordauc.solvers.dsg.gridpoints import GridData, copy_input_attributes
from ordauc.solvers.dsg.random_features import FeatureBlocks, with_ones
from ordauc.solvers.objective import gamma_vector
from ordauc.solvers.thresholds import fit_thresholds

SHARED = frozenset({"lam", "gamma", "step", "theta", "t0", "theta_decay"})
_CHUNK_BYTES = 2 << 20  # float32 arguments of one chunk, as in random_features
_SCRATCH = 16 << 20


def pass_bytes(proto: Any, n_samples: int, n_features: int, n_unlabeled: int, n_models: int,
               supervised: bool = False) -> tuple[int, int, int]:
    """(fixed, per model, kept per returned model) bytes of one pass (see ``fit_grid``)."""
    T, m, d, b = int(proto.n_iter), int(proto.block_size), int(n_features), int(proto.batch_size)
    width = m if proto.feature_map == "cos_phase" else 2 * m
    n_u = 0 if supervised else int(n_unlabeled)
    start = pool_start(n_u, b, T, proto._pool_rule)
    fixed = min(float(proto.cache_mb) * (1 << 20), 4.0 * T * m * (d + 1)) + _SCRATCH
    fixed += 4 * n_u * (d + 1) if start <= T else 0
    kept = 8 * T * width + (8 * n_u if start <= T else 0)
    kept += 8 * n_samples if proto.track_kernel else 0
    # coefficients (kept), the float32 copy the batch product reads until the pool takes
    # over, f on the labeled rows, a float32 row of every chunk's product
    per = kept + (4 * min(T, start - 1) * width if n_u else 0)
    per += 8 * n_samples + 4 * (_CHUNK_BYTES // (4 * m))
    return int(fixed), int(per), int(kept)


def fit_pass(ests: list[Any], data: GridData, seed: int) -> list[Any]:
    """Fit the unfitted estimators ``ests`` (one group: same sigma, seed, ...) in one pass."""
    run = _Pass(ests, data, seed)
    run.iterate()
    return run.results()


class _Pass:
    """The state of one pass; models ordered with those that sample U first."""

    def __init__(self, ests: list[Any], data: GridData, seed: int) -> None:
        proto = ests[0]
        X, labels = data.X, data.labels
        self.data, self.seed = data, seed
        self.k = labels.n_classes
        self.T, self.b = int(proto.n_iter), int(proto.batch_size)
        self.blocks = FeatureBlocks(seed, X.shape[1], proto.block_size, proto.sigma,
                                    proto.feature_map, int(proto.cache_mb * (1 << 20)))
        g = np.stack([gamma_vector(e.gamma, self.k) for e in ests], axis=1)  # (k-1, M)
        semi = ~np.all(g == 1.0, axis=0) & (labels.unlabeled.size > 0)
        self.order = np.concatenate([np.flatnonzero(semi), np.flatnonzero(~semi)])
        self.ests = [ests[i] for i in self.order]
        self.M, self.MA = len(ests), int(semi.sum())
        g = g[:, self.order]
        self.w_pn, self.w_u = g / (self.k - 1), (1.0 - g) / (self.k - 1)
        steps = [resolve_steps(e.step, e.lam, e.theta, e.t0, e.theta_decay) for e in self.ests]
        self.steps = steps
        self.theta = np.array([s[0] for s in steps])
        self.t0 = np.array([s[1] for s in steps])
        self.decay = np.array([float(e.theta_decay) for e in self.ests])
        self.dsg = np.array([e.step == "dsg" for e in self.ests])
        self.lam = np.array([float(e.lam) for e in self.ests])
        self.bound = DIVERGED * np.sqrt(3.0 / self.lam)
        self.errors: dict[int, Exception] = {}
        self.track = bool(proto.track_kernel)
        self.fast = bool(proto._fast_trig)
        self.keep_from = (pool_start(labels.unlabeled.size, self.b, self.T, proto._pool_rule)
                          if self.MA else self.T + 1)

    # -- the iterations -----------------------------------------------------------------------
    def iterate(self) -> None:
        X, labels, blocks = self.data.X, self.data.labels, self.blocks
        T, b, M, MA = self.T, self.b, self.M, self.MA
        n_l = labels.labeled.size
        X_new = np.empty((n_l + (b if MA else 0), X.shape[1]), dtype=np.float32)
        X_new[:n_l] = X[labels.labeled]
        X_u = X_new[n_l:]
        rng_a = np.random.default_rng([self.seed, 0])  # the draws of a lone fit that samples U
        rng_b = np.random.default_rng([self.seed, 0])  # ... and of one that does not
        pools_a, pools_b = labels.batch_pools(True), labels.batch_pools(False)
        # one array per model: a model kept by the caller does not keep the others alive
        self.coef = coef = [np.zeros((T, blocks.width)) for _ in range(M)]
        self.scale = scale = np.ones(M)
        self.alive = alive = np.ones(M, dtype=bool)
        self.f_l = f_l = np.zeros((n_l, M))
        # float32 coefficients the batch product reads, (MA, blocks * width), until the pool
        n_store = min(T, self.keep_from - 1) if MA else 0
        self.store = np.zeros((MA, n_store * blocks.width), np.float32)
        self.pool_X: np.ndarray | None = None
        self.G: np.ndarray | None = None  # sum_i F_i(x) . coef_i on the pool, (MA, n_u)
        self.beta = np.zeros((X.shape[0], M)) if self.track else None
        F32 = np.empty((X_new.shape[0], blocks.width), dtype=np.float32)
        F = np.empty((X_new.shape[0], blocks.width), dtype=np.float64)
        f_u = np.empty((X_u.shape[0], MA))
        draws_a = draws_b = u_rows = None
        for t in range(1, T + 1):
            if MA:
                draws_a, u_rows = draw_batches(rng_a, pools_a, b)
            if M > MA:
                draws_b, _ = draw_batches(rng_b, pools_b, b)
            if MA:
                if t == self.keep_from:
                    self.pool_X = with_ones(X[labels.unlabeled])
                    self.G = np.zeros((MA, labels.unlabeled.size))
                    # the catch-up: blocks 1..t-1 on the pool (nothing when t = 1)
                    accumulate(blocks, self.pool_X, self.store, 0, t - 1, self.G, self.fast)
                np.take(X, u_rows, axis=0, out=X_u)
                if self.G is not None:
                    g_u = self.G[:, np.searchsorted(labels.unlabeled, u_rows)]
                else:
                    g_u = np.zeros((MA, b))
                    accumulate(blocks, with_ones(X_u), self.store, 0, t - 1, g_u, self.fast)
                np.multiply(g_u.T, blocks.norm * scale[:MA], out=f_u)
            np.copyto(F, blocks.features(X_new, t - 1, out=F32))
            eta = np.where(self.dsg, self.theta / (1.0 + self.decay * t),
                           self.theta / (t + self.t0))
            eta *= alive  # a stopped model keeps alpha = 0 and rho = 1
            grad = np.empty((blocks.width, M))
            parts_a = gradient(F, n_l, f_l[:, :MA], f_u if MA else None, draws_a,
                               self.w_pn[:, :MA], self.w_u[:, :MA], out=grad[:, :MA])
            parts_b = gradient(F, n_l, f_l[:, MA:], None, draws_b, self.w_pn[:, MA:],
                               self.w_u[:, MA:], out=grad[:, MA:])
            alpha = grad * (-eta * blocks.norm)
            rho = 1.0 - eta * self.lam
            if t > 1:
                scale *= rho
                for i in np.flatnonzero(np.abs(scale) < FOLD_BELOW):
                    self._fold(i, t)
            new = alpha / scale
            for i in range(M):
                coef[i][t - 1] = new[:, i]
            if t <= n_store:
                self._store(new, t - 1)
            f_l *= rho
            f_l += blocks.norm * (F[:n_l] @ alpha)
            bad = ~np.all(np.abs(f_l) <= self.bound, axis=0) & alive  # NaN fails it too
            for i in np.flatnonzero(bad):
                self._stop(i, t)
                new[:, i] = 0.0  # nor does its last step reach the pool
            if self.G is not None:  # the new block on every unlabeled row, all models at once
                accumulate(blocks, self.pool_X, new[:, :MA].T.astype(np.float32), t - 1, t,
                           self.G, self.fast)
            if self.beta is not None:
                self._track(parts_a, parts_b, u_rows, eta / scale, n_l, MA)

    def _store(self, new: np.ndarray, i: int) -> None:
        w = self.blocks.width
        self.store[:, i * w:(i + 1) * w] = new[:, :self.MA].T

    def _fold(self, i: int, t: int) -> None:
        """Fold model i's global scale into its coefficients (as the lone engine does)."""
        s = self.scale[i]
        self.coef[i][: t - 1] *= s
        if i < self.MA:
            self._restore(i, t - 1)
            if self.G is not None:
                self.G[i] *= s
        if self.beta is not None:
            self.beta[:, i] *= s
        self.scale[i] = 1.0

    def _restore(self, i: int, n_blocks: int) -> None:
        """Model i's float32 copy, from its coefficients (after a fold)."""
        n = min(n_blocks, self.store.shape[1] // self.blocks.width)
        self.store[i, : n * self.blocks.width] = self.coef[i][:n].reshape(-1)

    def _stop(self, i: int, t: int) -> None:
        """Model i diverged at iteration t: record the lone fit's error, zero the model."""
        est = self.ests[i]
        est.theta_, est.t0_ = self.steps[i]
        self.errors[i] = DivergenceError(est._diverged(t, self.f_l[:, i], self.bound[i]))
        self.alive[i] = False
        self.f_l[:, i] = 0.0
        self.coef[i][:] = 0.0
        self.scale[i] = 1.0
        if i < self.MA:
            self.store[i] = 0.0
            if self.G is not None:
                self.G[i] = 0.0

    def _track(self, parts_a: list, parts_b: list, u_rows: np.ndarray | None,
               step: np.ndarray, n_l: int, MA: int) -> None:
        """kernel_coef_: beta_x -= eta_t c_x / scale for every sampled point x."""
        labeled = self.data.labels.labeled
        c_l = np.zeros((n_l, self.M))
        for cols, parts in ((slice(0, MA), parts_a), (slice(MA, self.M), parts_b)):
            for rows, w in parts[:-1]:
                np.add.at(c_l[:, cols], rows, w)
        self.beta[labeled] -= c_l * step
        if u_rows is not None and parts_a[-1] is not None:
            np.add.at(self.beta[:, :MA], u_rows, -parts_a[-1] * step[:MA])

    # -- the fitted models --------------------------------------------------------------------
    def results(self) -> list[Any]:
        data, blocks = self.data, self.blocks
        labels = data.labels
        X_l = data.X[labels.labeled]
        out: list[Any] = [None] * self.M
        for i, est in enumerate(self.ests):
            if i in self.errors:
                out[self.order[i]] = self.errors[i]
                continue
            est.n_classes_, est.seed_, est.blocks_ = self.k, self.seed, blocks
            est.theta_, est.t0_ = self.steps[i]
            est.coef_, est.scale_, est.n_iter_ = self.coef[i], float(self.scale[i]), self.T
            est.unlabeled_scores_ = (None if self.G is None or i >= self.MA
                                     else self.G[i] * (blocks.norm * self.scale[i]))
            if self.beta is not None:
                est.kernel_coef_ = self.beta[:, i] * self.scale[i]
            # as in fit: thresholds on the scores predict computes
            f = blocks.evaluate(X_l, est.coef_, est.scale_)
            est.thresholds_ = fit_thresholds(f, labels.z, labels.n_classes)
            est.classes_ = labels.classes
            copy_input_attributes(data.validated, est)
            out[self.order[i]] = est
        blocks.shared = True  # every model of the pass reads this cache
        return out


def gradient(F: np.ndarray, n_l: int, f_l: np.ndarray, f_u: np.ndarray | None,
             draws: list[tuple[np.ndarray, np.ndarray]] | None, w_pn: np.ndarray,
             w_u: np.ndarray, out: np.ndarray) -> list:
    """sum_x c_x F_x of every model (width, M) into ``out``: the weights c of
    :func:`.engine.pair_coefficients`, vectorised over the models' columns of ``f_l`` (n_l, M),
    ``f_u`` (|U batch|, M), ``w_pn`` and ``w_u`` (k-1, M). Returns the weights per sampled row
    set, ``[(rows, weights), ..., u weights or None]`` (for ``kernel_coef_``)."""
    out[:] = 0.0
    if f_l.shape[1] == 0:
        return [None]
    parts: list = []
    mu = f_u.mean(axis=0) if f_u is not None else 0.0
    u_mean_sum = np.zeros(f_l.shape[1])
    for (p, n), g, h in zip(draws, w_pn, w_u, strict=True):
        h = h if f_u is not None else np.zeros_like(h)
        fp, fn = f_l[p], f_l[n]
        mp, mn = fp.mean(axis=0), fn.mean(axis=0)
        gh = g + h
        wp = fp * (2.0 * gh / p.size)
        wp -= 2.0 * (gh + g * mn + h * mu) / p.size
        wn = fn * (2.0 * gh / n.size)
        wn += 2.0 * (gh - g * mp - h * mu) / n.size
        out += F[p].T @ wp  # a point drawn twice counts twice (draws with replacement)
        out += F[n].T @ wn
        u_mean_sum += h * (mp + mn)
        parts += [(p, wp), (n, wn)]
    w_unl = None
    if f_u is not None:
        w_unl = f_u * (4.0 * w_u.sum(axis=0) / f_u.shape[0])
        w_unl -= 2.0 * u_mean_sum / f_u.shape[0]
        out += F[n_l:].T @ w_unl
    return [*parts, w_unl]


def accumulate(blocks: FeatureBlocks, Xa: np.ndarray, coef32: np.ndarray, start: int,
               stop: int, out: np.ndarray, fast: bool = True) -> None:
    """out (M, n) += sum_{start <= i < stop} F_i(x) . coef_i for the rows x of ``Xa`` (n, d + 1,
    last column ones): the unscaled sums of every model at once.

    ``coef32`` (M, >= (stop - start) width) holds float32 coefficients block by block, block
    ``start`` in its first ``width`` columns, each block's cos part then sin part as in
    ``coef_``. Chunks of rows and blocks as in :meth:`FeatureBlocks.evaluate`; the features of a
    chunk are computed once, laid out as the coefficients, and reduced by one float32 product
    for all models; the chunks are summed in float64. ``fast``: cos and sin from the compiled
    loops of :mod:`.trig` (numpy's otherwise).
    """
    n, m, d, width = Xa.shape[0], blocks.m, blocks.d, blocks.width
    if stop <= start or n == 0 or out.shape[0] == 0:
        return
    nb = max(1, min(stop - start, _CHUNK_BYTES // (4 * m * min(n, 64))))
    rows = max(1, min(n, _CHUNK_BYTES // (4 * m * nb)))
    z_buf = np.empty(nb * m * rows, dtype=np.float32)
    f_buf = np.empty(nb * width * rows, dtype=np.float32)
    a_buf = np.empty(out.shape[0] * rows, dtype=np.float32)
    for b0 in range(start, stop, nb):
        b1 = min(stop, b0 + nb)
        Wa, ph = blocks.stacked(b0, b1)
        Wa[:, d] = ph if blocks.phase else 0.0
        lo, hi = (b0 - start) * width, (b1 - start) * width
        for r0 in range(0, n, rows):
            r = min(n, r0 + rows) - r0
            # views of exactly this chunk's size: contiguous, so BLAS writes them in place
            z = z_buf[: (b1 - b0) * m * r].reshape(b1 - b0, m, r)
            np.matmul(Wa, Xa[r0:r0 + r].T, out=z.reshape(-1, r))
            feats = f_buf[: (hi - lo) * r].reshape(b1 - b0, width, r)
            if blocks.phase and fast:
                trig.cos(z, feats)
            elif blocks.phase:
                np.cos(z, out=feats)
            elif fast:
                trig.sincos_blocks(z, feats)
            else:
                np.cos(z, out=feats[:, :m])
                np.sin(z, out=feats[:, m:])
            acc = a_buf[: out.shape[0] * r].reshape(out.shape[0], r)
            np.matmul(coef32[:, lo:hi], feats.reshape(-1, r), out=acc)
            out[:, r0:r0 + r] += acc


def group_seed(random_state: int | None) -> int:
    """The seed of a pass: random_state, or one fresh draw for the whole group."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    return int(random_state)


__all__ = ["SHARED", "accumulate", "fit_pass", "gradient", "group_seed", "pass_bytes"]
