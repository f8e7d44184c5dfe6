"""f at the sampled unlabeled points, for the models of a pass that sample U.

Iteration t needs f at the U batch with blocks 1..t-1. Two ways, with the same iterates up to
float32 rounding:

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
for free: the transductive scores ``unlabeled_scores_``.

And two forms of the evaluation:

- :class:`PhaseForm`, for one model: a cos z + b sin z = r cos(z + psi), one float32 cosine per
  frequency (:class:`~ordauc.solvers.dsg.random_features.PackedCoef`). The phases depend on the
  coefficients, so this form cannot be shared between models;
- :class:`SharedProduct`, for several: cos and sin of the points against the blocks are computed
  once, and every model's values are one float32 product with the stacked coefficients.

Both keep what they evaluate with in the coefficients' own scale (f = norm * scale * sum_i
F_i . coef_i, the global shrink factor ``scale`` apart) and are told of every change of it.
"""

from __future__ import annotations

import numpy as np

from ordauc.solvers.dsg import trig
from ordauc.solvers.dsg.random_features import FeatureBlocks, PackedCoef, with_ones

__all__ = ["PhaseForm", "PoolShare", "SharedProduct", "accumulate", "evaluator", "pool_start"]

_CHUNK_BYTES = 2 << 20  # float32 arguments of one chunk, as in random_features


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


class PhaseForm:
    """f of one model at the unlabeled points, in amplitude-phase form (module docstring)."""

    def __init__(self, blocks: FeatureBlocks, X: np.ndarray, unlabeled: np.ndarray,
                 n_iter: int, keep_from: int, fast: bool) -> None:
        self.blocks, self.X, self.unlabeled = blocks, X, unlabeled
        self.keep_from, self.fast = keep_from, fast
        self.packed = PackedCoef(n_iter, blocks.m, blocks.phase)  # the float32 copy read
        self.pool_X: np.ndarray | None = None
        self.pool_f: np.ndarray | None = None  # f itself (scaled), float64
        self.stopped = False

    def at(self, t: int, u_rows: np.ndarray, X_u: np.ndarray, scale: np.ndarray,
           out: np.ndarray) -> None:
        """f at the U batch with blocks 1..t-1 into ``out`` (batch, 1)."""
        if self.stopped:
            out[:] = 0.0
            return
        if t == self.keep_from:
            self.pool_X = with_ones(self.X[self.unlabeled])
            self.pool_f = np.zeros(self.unlabeled.size)
            # The catch-up: f on the pool with blocks 1..t-1 (nothing when t = 1).
            self.blocks.evaluate(self.pool_X, self.packed, scale[0], n_blocks=t - 1,
                                 out=self.pool_f, augmented=True, fast=self.fast)
        if self.pool_f is not None:
            np.take(self.pool_f, np.searchsorted(self.unlabeled, u_rows), out=out[:, 0])
        else:
            self.blocks.evaluate(X_u, self.packed, scale[0], n_blocks=t - 1, out=out[:, 0],
                                 fast=self.fast)

    def add_block(self, t: int, new: np.ndarray, rho: np.ndarray, scale: np.ndarray) -> None:
        """Block t's coefficients ``new`` (width, 1), after the shrink ``rho`` and at ``scale``."""
        self.packed.load(new.T, start=t - 1)
        if self.pool_f is not None and not self.stopped:
            self.pool_f *= rho[0]  # the new block on every unlabeled row, one cosine a frequency
            self.blocks.evaluate(self.pool_X, self.packed, scale[0], n_blocks=t,
                                 out=self.pool_f, start=t - 1, add=True, augmented=True,
                                 fast=self.fast)

    def fold(self, i: int, coef: np.ndarray, factor: float) -> None:
        """The model's scale was folded into its coefficients ``coef`` (blocks so far); f, and
        so the pool, is unchanged."""
        self.packed.load(coef)

    def stop(self, i: int) -> None:
        self.stopped = True
        self.pool_f = None

    def scores(self, i: int, scale: float) -> np.ndarray | None:
        return self.pool_f

    def keep(self, rows: list[int]) -> PhaseForm:
        """The evaluation of the models ``rows`` alone (the one model: itself)."""
        return self


class SharedProduct:
    """f of several models at the unlabeled points, by shared cos/sin products (module
    docstring): the unscaled sums G = sum_i F_i(x) . coef_i of every model at once."""

    def __init__(self, blocks: FeatureBlocks, X: np.ndarray, unlabeled: np.ndarray,
                 n_models: int, n_iter: int, keep_from: int, fast: bool,
                 share: PoolShare | None = None) -> None:
        self.blocks, self.X, self.unlabeled = blocks, X, unlabeled
        self.keep_from, self.fast = keep_from, fast
        self.share = share  # the pool's features shared with other passes, once joined
        # float32 coefficients the batch product reads, until the pool takes over
        self.n_store = min(n_iter, keep_from - 1)
        self.store = np.zeros((n_models, self.n_store * blocks.width), np.float32)
        self.pool_X: np.ndarray | None = None
        self.G: np.ndarray | None = None  # (models, n_u) on the pool

    def at(self, t: int, u_rows: np.ndarray, X_u: np.ndarray, scale: np.ndarray,
           out: np.ndarray) -> None:
        """f at the U batch with blocks 1..t-1 into ``out`` (batch, models)."""
        blocks = self.blocks
        if t == self.keep_from:
            self.pool_X = with_ones(self.X[self.unlabeled])
            joined = None if self.share is None else self.share.join(blocks, self.pool_X)
            if joined is None:
                self.share = None  # another pool or other blocks: this pass works alone
            else:
                self.pool_X = joined
            self.G = np.zeros((self.store.shape[0], self.unlabeled.size))
            # the catch-up: blocks 1..t-1 on the pool (nothing when t = 1)
            accumulate(blocks, self.pool_X, self.store, 0, t - 1, self.G, self.fast)
        if self.G is not None:
            g_u = self.G[:, np.searchsorted(self.unlabeled, u_rows)]
        else:
            g_u = np.zeros((self.store.shape[0], u_rows.size))
            accumulate(blocks, with_ones(X_u), self.store, 0, t - 1, g_u, self.fast)
        np.multiply(g_u.T, blocks.norm * scale, out=out)

    def add_block(self, t: int, new: np.ndarray, rho: np.ndarray, scale: np.ndarray) -> None:
        """Block t's coefficients ``new`` (width, models); G is unscaled, so ``rho`` and
        ``scale`` do not enter."""
        w = self.blocks.width
        if t <= self.n_store:
            self.store[:, (t - 1) * w:t * w] = new.T
        if self.G is not None and self.share is not None:  # features computed once
            self.share.add(self.blocks, t - 1, new.T.astype(np.float32), self.G, self.fast)
        elif self.G is not None:  # the new block on every unlabeled row, all models at once
            accumulate(self.blocks, self.pool_X, new.T.astype(np.float32), t - 1, t, self.G,
                       self.fast)

    def fold(self, i: int, coef: np.ndarray, factor: float) -> None:
        """Model i's coefficients ``coef`` (blocks so far) were multiplied by ``factor``."""
        n = min(coef.shape[0], self.n_store)
        self.store[i, : n * self.blocks.width] = coef[:n].reshape(-1)
        if self.G is not None:
            self.G[i] *= factor

    def stop(self, i: int) -> None:
        self.store[i] = 0.0
        if self.G is not None:
            self.G[i] = 0.0

    def scores(self, i: int, scale: float) -> np.ndarray | None:
        return None if self.G is None else self.G[i] * (self.blocks.norm * scale)

    def keep(self, rows: list[int]) -> SharedProduct:
        """The evaluation of the models ``rows`` alone, in that order (a pass that drops
        models goes on with the shared form, one model included: the same values up to float32
        rounding as the amplitude-phase form)."""
        self.store = np.ascontiguousarray(self.store[rows])
        if self.G is not None:
            self.G = np.ascontiguousarray(self.G[rows])
        return self


def evaluator(blocks: FeatureBlocks, X: np.ndarray, unlabeled: np.ndarray, n_models: int,
              n_iter: int, keep_from: int, fast: bool, share: PoolShare | None = None
              ) -> PhaseForm | SharedProduct:
    """The evaluation of ``n_models`` (>= 1) models: amplitude-phase for one, shared products
    for several (which may take the pool's features from ``share``: :class:`PoolShare`)."""
    if n_models == 1:
        return PhaseForm(blocks, X, unlabeled, n_iter, keep_from, fast)
    return SharedProduct(blocks, X, unlabeled, n_models, n_iter, keep_from, fast, share)


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
    n, width = Xa.shape[0], blocks.width
    if stop <= start or n == 0 or out.shape[0] == 0:
        return
    nb, rows = _chunk_sizes(blocks, n, stop - start)
    z_buf = np.empty(nb * blocks.m * rows, dtype=np.float32)
    f_buf = np.empty(nb * width * rows, dtype=np.float32)
    a_buf = np.empty(out.shape[0] * rows, dtype=np.float32)
    for b0 in range(start, stop, nb):
        b1 = min(stop, b0 + nb)
        Wa = _frequencies(blocks, b0, b1)
        lo, hi = (b0 - start) * width, (b1 - start) * width
        for r0 in range(0, n, rows):
            r = min(n, r0 + rows) - r0
            feats = _features(blocks, Wa, Xa[r0:r0 + r], z_buf, f_buf, fast)
            acc = a_buf[: out.shape[0] * r].reshape(out.shape[0], r)
            np.matmul(coef32[:, lo:hi], feats.reshape(-1, r), out=acc)
            out[:, r0:r0 + r] += acc


def _chunk_sizes(blocks: FeatureBlocks, n: int, n_blocks: int) -> tuple[int, int]:
    """(blocks, rows) of one chunk of :func:`accumulate`: about 2 MB of float32 arguments."""
    m = blocks.m
    nb = max(1, min(n_blocks, _CHUNK_BYTES // (4 * m * min(n, 64))))
    return nb, max(1, min(n, _CHUNK_BYTES // (4 * m * nb)))


def _frequencies(blocks: FeatureBlocks, b0: int, b1: int) -> np.ndarray:
    """Blocks b0..b1-1 stacked, the phases in the column the ones of ``Xa`` meet."""
    Wa, ph = blocks.stacked(b0, b1)
    Wa[:, blocks.d] = ph if blocks.phase else 0.0
    return Wa


def _features(blocks: FeatureBlocks, Wa: np.ndarray, Xa: np.ndarray, z_buf: np.ndarray,
              f_buf: np.ndarray, fast: bool) -> np.ndarray:
    """The features (blocks, width, rows) of the rows ``Xa`` against the stacked blocks
    ``Wa``, in the scratch ``f_buf`` (views of exactly the chunk's size: contiguous, so BLAS
    writes them in place)."""
    m, r = blocks.m, Xa.shape[0]
    nb = Wa.shape[0] // m
    z = z_buf[: nb * m * r].reshape(nb, m, r)
    np.matmul(Wa, Xa.T, out=z.reshape(-1, r))
    feats = f_buf[: nb * blocks.width * r].reshape(nb, blocks.width, r)
    if blocks.phase and fast:
        trig.cos(z, feats)
    elif blocks.phase:
        np.cos(z, out=feats)
    elif fast:
        trig.sincos_blocks(z, feats)
    else:
        np.cos(z, out=feats[:, :m])
        np.sin(z, out=feats[:, m:])
    return feats


class PoolShare:
    """The random-feature blocks, and the unlabeled pool's features against the newest block,
    made once for every pass that keeps f on the same pool with the same blocks.

    The folds of a cross-validation keep every unlabeled row on their fitting side and share
    the run seed, so their passes draw the same blocks and keep f on the same pool; run in
    lockstep (:func:`~ordauc.solvers.dsg.folds.run_together`), the first pass to add block t
    computes the pool's features against it, and the others reuse them. Each pass still
    applies its own models' coefficients, chunk by chunk as :func:`accumulate` does, so its f
    is bitwise what it would be alone. A pass whose pool or blocks differ from the first one's
    is refused (:meth:`join` returns None) and works alone. One block's features are kept:
    n_u x width float32 (:meth:`bytes`). The passes also read one :class:`FeatureBlocks`
    (:meth:`feature_blocks`): each block drawn once, not once per pass.
    """

    def __init__(self) -> None:
        self.blocks: FeatureBlocks | None = None
        self.pool_X: np.ndarray | None = None
        self.block = -1
        self.chunks: list[tuple[int, np.ndarray]] = []  # (first row, features) per chunk

    def feature_blocks(self, seed: int, n_features: int, block_size: int, sigma: float,
                       feature_map: str, cache_bytes: int) -> FeatureBlocks:
        """The blocks of a pass: the first pass's object when they are the same blocks (then
        marked ``shared``: models of several passes read its cache), a new one otherwise."""
        args = (int(seed), int(n_features), int(block_size), float(sigma), feature_map,
                int(cache_bytes))
        if self.blocks is None:
            self.blocks, self._args = FeatureBlocks(*args), args
            return self.blocks
        if args != self._args:
            return FeatureBlocks(*args)
        self.blocks.shared = True
        return self.blocks

    @staticmethod
    def bytes(n_unlabeled: int, width: int) -> int:
        """What the kept features hold."""
        return 4 * int(n_unlabeled) * int(width)

    def join(self, blocks: FeatureBlocks, pool_X: np.ndarray) -> np.ndarray | None:
        """The shared pool rows for a pass keeping f on ``pool_X`` (ones column included) with
        ``blocks``; None when they are not the first pass's, or the blocks not the share's
        (:meth:`feature_blocks` gave that pass its own)."""
        if blocks is not self.blocks:
            return None
        if self.pool_X is None:
            self.pool_X = pool_X
            return pool_X
        return self.pool_X if np.array_equal(pool_X, self.pool_X) else None

    def add(self, blocks: FeatureBlocks, b: int, coef32: np.ndarray, out: np.ndarray,
            fast: bool) -> None:
        """out (M, n_u) += F_b(x) . coef32 (M, width) on the pool, as :func:`accumulate`
        (``start = b``, ``stop = b + 1``) computes it."""
        if b != self.block:
            self._compute(blocks, b, fast)
        rows = self.chunks[0][1].shape[-1]  # the first chunk is the largest (a pool has rows)
        a_buf = np.empty(out.shape[0] * rows, dtype=np.float32)
        for r0, feats in self.chunks:
            r = feats.shape[-1]
            acc = a_buf[: out.shape[0] * r].reshape(out.shape[0], r)
            np.matmul(coef32, feats.reshape(-1, r), out=acc)
            out[:, r0:r0 + r] += acc

    def _compute(self, blocks: FeatureBlocks, b: int, fast: bool) -> None:
        Xa = self.pool_X
        n = Xa.shape[0]
        _, rows = _chunk_sizes(blocks, n, 1)
        Wa = _frequencies(blocks, b, b + 1)
        z_buf = np.empty(blocks.m * rows, dtype=np.float32)
        f_buf = np.empty(blocks.width * rows, dtype=np.float32)
        self.chunks = [(r0, _features(blocks, Wa, Xa[r0:r0 + rows], z_buf, f_buf, fast).copy())
                       for r0 in range(0, n, rows)]
        self.block = b
