"""The iterations of AAAI 2020 Algorithm 1 (IJCAI 2019 Algorithm 1 is k = 2) for the models of
one pass: one QSG fit is a pass of one model, a grid fit a pass per group of points.

The samples of iteration t (the P_j, N_j and U batches) are drawn from a generator seeded by the
run seed alone, and block t's frequencies from (seed, t) alone (:mod:`.schedule`,
:mod:`.random_features`): neither depends on lam, gamma or the step schedule. So models with the
same sigma, seed, iterations, batch and block size sample the same points and draw the same
blocks, and one pass fits them all:

- the features of the labeled rows and of the U batch against the new block are computed once;
- f at the sampled unlabeled points is evaluated for every model at once (:mod:`.unlabeled`:
  amplitude-phase form for one model, shared cos/sin products for several, the whole pool kept
  when that costs less);
- each model keeps its own step sizes (eta_t depends on lam through theta = 1.5/lam and t0),
  global scale factor, coefficients and f on the labeled rows; the weights of the sampled
  points (Eq. 10, :mod:`.weights`) are computed for all models at once;
- f on rows the caller asks to track (a fold's validation rows) is kept current like f on the
  labeled rows: the rows' features against the new block once, every model's coefficients
  in one product. The pass's f on the labeled and tracked rows comes with each result, so a
  grid search needs no evaluation of its candidates after the pass.

Per model, the iterates are Algorithm 1's, computed without waste: f on the (small) labeled set
is kept current incrementally, one new block per iteration; the shrink of step 4
(alpha_m <- (1 - eta_t lam) alpha_m for m < t) is one global scale factor, folded into the
coefficients when it gets small; features are float32 and sums float64.

Models whose gamma is 1 for every subproblem (or data without unlabeled rows) sample no U batch,
as Algorithm 1 without U: their samples come from a second generator with the same seed, so they
share the blocks and the labeled rows' features, not the draws. A model whose scores on the
labeled rows leave every range a minimiser can lie in is stopped and a :class:`Divergence`
returned in its place; the others go on.

A pass can also be run in steps (:mod:`.steps`), for successive halving inside the pass
(:mod:`ordauc.solvers.gridfit`): models dropped between steps leave every array of the pass,
and the kept ones go on as they would have, since a model's iterates depend on its own state
and on draws made whatever the models are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordauc.errors import DivergenceError
from ordauc.solvers._base import Checkpoint
from ordauc.solvers._labels import LabeledSplit, draw_batches
from ordauc.solvers.dsg.random_features import (
    FeatureBlocks,
    PackedCoef,
    block_bytes,
    feature_width,
)
from ordauc.solvers.dsg.schedule import Schedule, batch_generator, step_table
from ordauc.solvers.dsg.unlabeled import PoolShare, evaluator, pool_start
from ordauc.solvers.dsg.weights import SampleWeights, pair_weights
from ordauc.solvers.objective import gamma_vector

__all__ = ["Divergence", "EngineOptions", "Iterate", "ModelSpec", "Pass", "PassSettings",
           "QSGResult", "pass_bytes", "run_pass"]

# Fold the global scale into the coefficients when it gets this small: coef/scale must stay
# far inside the float32 range of the evaluation's copies (a fold costs one pass over the
# coefficients, and with eta_t ~ 1/t the scale only decays polynomially, so folds are rare).
FOLD_BELOW = 1e-20
DIVERGED = 1e4  # times sqrt(3/lam), the bound on |f*| (qsg module docstring)
_SCRATCH = 16 << 20  # evaluation chunks, per-iteration features
_CHUNK_BYTES = 2 << 20


@dataclass(frozen=True)
class EngineOptions:
    """How the iterates are computed; every choice gives the same iterates up to float32
    rounding.

    Parameters
    ----------
    pool : {"auto", "off"} or int, default="auto"
        When f is kept on the whole unlabeled pool (:func:`.unlabeled.pool_start`): ``"auto"``
        the cheaper of iteration 1 and never, ``"off"`` never (the U batch evaluated against
        every old block at every iteration), a number: from that iteration on, after a
        catch-up evaluation.
    fast_trig : bool, default=True
        The compiled float32 cosine and sine of :mod:`.trig` for f at the unlabeled points
        (numpy's when False).
    """

    pool: str | int = "auto"
    fast_trig: bool = True


@dataclass(frozen=True)
class PassSettings:
    """What the models of one pass share: the estimators' parameters of those names."""

    n_iter: int
    batch_size: int
    block_size: int
    sigma: float
    feature_map: str
    cache_mb: float
    track_kernel: bool


@dataclass(frozen=True)
class ModelSpec:
    """What may differ between the models of a pass: lam, gamma (one value or k-1) and the
    step-size schedule."""

    lam: float
    gamma: float | Sequence[float]
    schedule: Schedule


@dataclass(frozen=True)
class QSGResult:
    """One fitted model: f(x) = norm * scale * sum_i F_i(x) . coef[i] with the blocks.

    Attributes
    ----------
    blocks : FeatureBlocks
        The random-feature blocks (shared by the models of a pass).
    coef : ndarray of shape (n_iter, width)
        The block coefficients.
    scale : float
        The global shrink factor.
    schedule : Schedule
        The step sizes used.
    unlabeled_scores : ndarray of shape (n_unlabeled,) or None
        f on the unlabeled rows, when the pass kept the pool for this model.
    kernel_coef : ndarray of shape (n_samples,) or None
        The exact-kernel coefficients of the iterate, when tracked.
    labeled_scores, tracked_scores : ndarray or None
        f on the labeled rows (``labels.labeled``) and on the tracked rows (None if none) as
        the pass kept them current: float64 sums of each block's float32 features.
    """

    blocks: FeatureBlocks
    coef: np.ndarray
    scale: float
    schedule: Schedule
    unlabeled_scores: np.ndarray | None
    kernel_coef: np.ndarray | None
    labeled_scores: np.ndarray | None = None
    tracked_scores: np.ndarray | None = None


@dataclass(frozen=True)
class Divergence:
    """A model stopped at ``iteration``: its scores on the labeled rows (``size``: the largest
    |f| or NaN) passed ``bound`` = 1e4 sqrt(3/lam)."""

    iteration: int
    size: str
    bound: float
    schedule: Schedule

    def error(self, name: str) -> DivergenceError:
        """The error a fit of estimator ``name`` raises."""
        return DivergenceError(
            f"{name} diverged at iteration {self.iteration} ({self.size} on the labeled rows, "
            f"beyond 1e4 sqrt(3/lam) = {self.bound:.3g}): the step size "
            f"{self.schedule.describe()} is too large for the squared pairwise loss; leave t0 "
            "unset (the stable offset) or lower theta")


class Iterate:
    """What a checkpoint receives: f_t from the first t blocks, at the current scale."""

    def __init__(self, blocks: FeatureBlocks, coef: np.ndarray, scale: float) -> None:
        self.blocks, self.scale = blocks, scale
        self.packed = PackedCoef.of(coef, blocks)

    def decision_function(self, X: Any) -> np.ndarray:
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float32)
        return self.blocks.evaluate(X, self.packed, self.scale)


def run_pass(X: np.ndarray, labels: LabeledSplit, settings: PassSettings,
             models: Sequence[ModelSpec], seed: int, options: EngineOptions = EngineOptions(),
             checkpoint: Checkpoint | None = None, track: np.ndarray | None = None
             ) -> list[QSGResult | Divergence]:
    """Fit ``models`` on float32 ``X`` with the run seed ``seed``: one result per model, in
    their order. ``checkpoint`` (a pass of one model only) is called every
    ``checkpoint.every`` iterations with the current :class:`Iterate`; ``track``: rows whose f
    the results carry (:class:`Pass`). A gamma list of the wrong length raises ValueError."""
    if checkpoint is not None and len(models) != 1:
        raise ValueError("a checkpoint follows one model: a pass of one")
    run = Pass(X, labels, settings, models, seed, options, track)
    run.advance(int(settings.n_iter), checkpoint)
    return run.results()


class Pass:
    """The state of one pass, run to the end by :func:`run_pass`, or to any iteration by
    ``advance(t)`` (:class:`.steps.SteppedPass` adds what a pass run in steps needs); one
    result per model by ``results()``. Columns ordered with the models that sample U first.

    ``track`` (float32 rows or None): f on them is kept current as on the labeled rows (module
    docstring), n_track block-rows per iteration for all models instead of n_track T per model
    after the pass; their features are computed apart, so the iterates are bitwise the same.
    ``share``: the pool's features shared with passes run in lockstep with this one
    (:class:`.unlabeled.PoolShare`, :mod:`.folds`)."""

    def __init__(self, X: np.ndarray, labels: LabeledSplit, settings: PassSettings,
                 models: Sequence[ModelSpec], seed: int, options: EngineOptions,
                 track: np.ndarray | None = None, share: PoolShare | None = None) -> None:
        self.X, self.labels, self.settings, self.seed = X, labels, settings, seed
        self.track = None if track is None else np.ascontiguousarray(track, dtype=np.float32)
        if self.track is not None and self.track.shape[1:] != X.shape[1:]:
            raise ValueError(f"tracked rows of shape {self.track.shape}: {X.shape[1]} features "
                             "expected")
        k, T = labels.n_classes, int(settings.n_iter)
        self.blocks = (FeatureBlocks if share is None else share.feature_blocks)(
            seed, X.shape[1], settings.block_size, settings.sigma, settings.feature_map,
            int(settings.cache_mb * (1 << 20)))
        g = np.stack([gamma_vector(m.gamma, k) for m in models], axis=1)  # (k-1, M)
        # With gamma_j = 1 for all j (or no unlabeled rows) U plays no part: draw no U batch.
        semi = ~np.all(g == 1.0, axis=0) & (labels.unlabeled.size > 0)
        self.order = np.concatenate([np.flatnonzero(semi), np.flatnonzero(~semi)])
        self.models = [models[i] for i in self.order]
        self.n_models, self.M, self.MA = len(models), len(models), int(semi.sum())
        g = g[:, self.order]
        self.w_pn, self.w_u = g / (k - 1), (1.0 - g) / (k - 1)
        lam = np.array([float(m.lam) for m in self.models])
        # eta_t, the shrink 1 - eta_t lam and the gradient's factor -eta_t sqrt(c/m) of every
        # model at every iteration; a stopped model's rows are set to 0, 1 and 0 from then on
        self.eta = step_table([m.schedule for m in self.models], T)
        self.rho = 1.0 - self.eta * lam
        self.step = -self.eta * self.blocks.norm
        self.bound = DIVERGED * np.sqrt(3.0 / lam)
        keep_from = (pool_start(labels.unlabeled.size, settings.batch_size, T, options.pool)
                     if self.MA else T + 1)
        self.unl = (evaluator(self.blocks, X, labels.unlabeled, self.MA, T, keep_from,
                              options.fast_trig, share) if self.MA else None)
        # one array per model: a model kept by the caller does not keep the others alive
        self.coef = [np.zeros((T, self.blocks.width)) for _ in range(self.M)]
        self.scale = np.ones(self.M)
        self.alive = np.ones(self.M, dtype=bool)
        self.f_l = np.zeros((labels.labeled.size, self.M))
        self.f_v = None if self.track is None else np.zeros((self.track.shape[0], self.M))
        self.beta = np.zeros((X.shape[0], self.M)) if settings.track_kernel else None
        self.errors: dict[int, Divergence] = {}  # by the model's index in ``models``
        self.t, self.over = 0, False  # iterations run; every model stopped
        self.rng_a = batch_generator(seed)  # the draws of the models that sample U
        self.rng_b = batch_generator(seed)  # ... and of those that do not
        self._buffers()

    def _buffers(self) -> None:
        """Scratch of the iterations, sized for the models of the pass."""
        X, labels, b = self.X, self.labels, int(self.settings.batch_size)
        n_l = labels.labeled.size
        # Rows that meet the new block each iteration: the labeled set, then the U batch.
        self.X_new = np.empty((n_l + (b if self.MA else 0), X.shape[1]), dtype=np.float32)
        self.X_new[:n_l] = X[labels.labeled]
        self.F32 = np.empty((self.X_new.shape[0], self.blocks.width), dtype=np.float32)
        self.F = np.empty((self.X_new.shape[0], self.blocks.width), dtype=np.float64)
        self.f_u = np.empty((self.X_new.shape[0] - n_l, self.MA))
        # The tracked rows' features, apart: the fitting rows' products are then the same with
        # or without tracking, and so are the iterates, bit for bit.
        n_v = 0 if self.track is None else self.track.shape[0]
        self.F32_v = np.empty((n_v, self.blocks.width), dtype=np.float32)
        self.F_v = np.empty((n_v, self.blocks.width), dtype=np.float64)
        self.grad = np.empty((self.blocks.width, self.M))
        # The columns of the models that sample U and of the others: a lone model's column as
        # an index, so that the weights of Eq. 10 are computed on vectors, not on matrices.
        self.semi, self.rest = _columns(0, self.MA), _columns(self.MA, self.M)

    def advance(self, stop: int, checkpoint: Checkpoint | None = None) -> None:
        """Run iterations up to ``stop`` (none once every model has stopped)."""
        X, labels, blocks = self.X, self.labels, self.blocks
        b, M, MA = int(self.settings.batch_size), self.M, self.MA
        n_l = labels.labeled.size
        X_new, F32, F, f_u, grad = self.X_new, self.F32, self.F, self.f_u, self.grad
        X_u = X_new[n_l:]
        F_v = None if self.f_v is None else self.F_v
        semi, rest = self.semi, self.rest
        pools_a, pools_b = labels.batch_pools(True), labels.batch_pools(False)
        every = 0 if checkpoint is None else max(1, int(checkpoint.every))
        u_rows = None
        weights: list[tuple[int | slice, SampleWeights]] = []
        for t in range(self.t + 1, int(stop) + 1):
            if self.over:
                break
            weights.clear()
            if MA:
                draws, u_rows = draw_batches(self.rng_a, pools_a, b)
                np.take(X, u_rows, axis=0, out=X_u)
                self.unl.at(t, u_rows, X_u, self.scale[:MA], out=f_u)
                weights.append((semi, pair_weights(self.f_l[:, semi], f_u[:, semi], draws,
                                                   self.w_pn[:, semi], self.w_u[:, semi])))
            if M > MA:
                draws, _ = draw_batches(self.rng_b, pools_b, b)
                weights.append((rest, pair_weights(self.f_l[:, rest], None, draws,
                                                   self.w_pn[:, rest], self.w_u[:, rest])))
            block = blocks.block(t - 1)
            np.copyto(F, blocks.features(X_new, t - 1, out=F32, block=block))
            if F_v is not None and F_v.shape[0]:
                np.copyto(F_v, blocks.features(self.track, t - 1, out=self.F32_v, block=block))
            for cols, w in weights:
                w.gradient(F, n_l, grad[:, cols])
            self._step(t, grad * self.step[t - 1], self.rho[t - 1], F[:n_l], F_v)
            if self.beta is not None:
                self._track(weights, u_rows, self.eta[t - 1] / self.scale, n_l)
            self.t = t
            if not self.alive.any():  # every model stopped: nothing left to compute
                self.over = True
                break
            if every and t % every == 0:
                checkpoint(t, Iterate(blocks, self.coef[0][:t], float(self.scale[0])))

    def _step(self, t: int, alpha: np.ndarray, rho: np.ndarray, F_l: np.ndarray,
              F_v: np.ndarray | None = None) -> None:
        """Block t's coefficients alpha_t (width, M), the shrink rho of the older blocks, f on
        the labeled rows and the tracked rows (features ``F_v``); stops a model that diverged."""
        # (each check tests all models at once first: folds and stops are rare)
        if t > 1:
            self.scale *= rho
            if not (np.abs(self.scale) >= FOLD_BELOW).all():
                for i in np.flatnonzero(np.abs(self.scale) < FOLD_BELOW):
                    self._fold(i, t)  # includes rho == 0: the old terms vanish exactly
        new = alpha / self.scale
        for i, coef in enumerate(self.coef):
            coef[t - 1] = new[:, i]
        self.f_l *= rho
        self.f_l += self.blocks.norm * (F_l @ alpha)
        if F_v is not None:  # the same update, on the tracked rows
            self.f_v *= rho
            self.f_v += self.blocks.norm * (F_v @ alpha)
        if not (np.abs(self.f_l) <= self.bound).all():  # NaN fails the comparison too
            within = np.all(np.abs(self.f_l) <= self.bound, axis=0)
            for i in np.flatnonzero(~within & self.alive):
                self._stop(i, t)
                new[:, i] = 0.0  # nor does its last step reach the unlabeled evaluation
        if self.unl is not None:
            self.unl.add_block(t, new[:, :self.MA], rho[:self.MA], self.scale[:self.MA])

    def _fold(self, i: int, t: int) -> None:
        """Fold model i's global scale into its coefficients."""
        s = self.scale[i]
        self.coef[i][: t - 1] *= s
        if self.unl is not None and i < self.MA:
            self.unl.fold(i, self.coef[i][: t - 1], s)
        if self.beta is not None:
            self.beta[:, i] *= s
        self.scale[i] = 1.0

    def _stop(self, i: int, t: int) -> None:
        """Model i diverged at iteration t: record it, zero the model."""
        f = self.f_l[:, i]
        top = float(np.nanmax(np.abs(f))) if np.isfinite(f).any() else math.nan
        size = "NaN" if not np.isfinite(f).all() else f"|f| = {top:.3g}"
        self.errors[int(self.order[i])] = Divergence(t, size, float(self.bound[i]),
                                                     self.models[i].schedule)
        self.alive[i] = False
        self.eta[t:, i], self.rho[t:, i], self.step[t:, i] = 0.0, 1.0, 0.0  # alpha = 0, rho = 1
        self.f_l[:, i] = 0.0
        if self.f_v is not None:
            self.f_v[:, i] = 0.0
        self.coef[i][:] = 0.0
        self.scale[i] = 1.0
        if self.unl is not None and i < self.MA:
            self.unl.stop(i)

    def _track(self, weights: list[tuple[int | slice, SampleWeights]],
               u_rows: np.ndarray | None, step: np.ndarray, n_l: int) -> None:
        """kernel_coef_: beta_x -= eta_t c_x / scale for every sampled point x."""
        labeled = self.labels.labeled
        for cols, w in weights:
            has_u = w.unlabeled is not None
            c = w.per_row(n_l, np.empty((n_l + (u_rows.size if has_u else 0),
                                         *np.shape(step[cols]))))
            self.beta[labeled, cols] -= c[:n_l] * step[cols]
            if has_u:
                np.add.at(self.beta[:, cols], u_rows, -c[n_l:] * step[cols])

    def results(self) -> list[QSGResult | Divergence | None]:
        """One result per model of ``models``, in their order; None for a dropped one."""
        out: list[Any] = [None] * self.n_models
        for i, spec in enumerate(self.models):
            if int(self.order[i]) in self.errors:
                out[self.order[i]] = self.errors[int(self.order[i])]
                continue
            scale = float(self.scale[i])
            scores = self.unl.scores(i, scale) if self.unl is not None and i < self.MA else None
            kernel = None if self.beta is None else self.beta[:, i] * scale
            out[self.order[i]] = QSGResult(self.blocks, self.coef[i], scale, spec.schedule,
                                           scores, kernel, *self.running(i))
        # every model of the pass (and of the passes sharing the blocks) reads this cache
        self.blocks.shared = self.blocks.shared or self.M > 1
        return out


    def running(self, i: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Column i's f on the labeled rows and on the tracked rows (None when none are),
        as kept current by the iterations: copies, the pass may go on."""
        return self.f_l[:, i].copy(), None if self.f_v is None else self.f_v[:, i].copy()


def _columns(start: int, stop: int) -> int | slice:
    """The models start..stop-1 as columns: an index for one model, a slice for several."""
    return start if stop - start == 1 else slice(start, stop)


def pass_bytes(settings: PassSettings, n_samples: int, n_features: int, n_unlabeled: int,
               supervised: bool = False, pool: str | int = "auto") -> tuple[int, int, int]:
    """(fixed, per model, kept per returned model) bytes of one pass, a bound from above.

    Fixed: the block cache (at most ``cache_mb``), scratch buffers, and the unlabeled pool's
    rows when the pool is kept. Per model: what it keeps (its float64 coefficients, f on the
    pool when kept, the exact-kernel coefficients when tracked), the float32 copy of its
    coefficients the unlabeled evaluation reads (:mod:`.unlabeled`), f on the labeled rows and
    a row of every chunk's product. A lone fit is a pass of one model.
    """
    T, m, d = int(settings.n_iter), int(settings.block_size), int(n_features)
    width = feature_width(m, settings.feature_map)
    n_u = 0 if supervised else int(n_unlabeled)
    pooled = pool_start(n_u, int(settings.batch_size), T, pool) <= T
    cache = min(float(settings.cache_mb) * (1 << 20),
                T * block_bytes(d, m, settings.feature_map))
    fixed = cache + _SCRATCH + (4 * n_u * (d + 1) if pooled else 0)
    kept = 8 * T * width + (8 * n_u if pooled else 0)
    kept += 8 * n_samples if settings.track_kernel else 0
    per = kept + (4 * T * width if n_u else 0) + 8 * n_samples + 4 * (_CHUNK_BYTES // (4 * m))
    return int(fixed), int(per), int(kept)
