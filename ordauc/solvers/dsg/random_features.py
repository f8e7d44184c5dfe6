"""Seeded random Fourier feature blocks for k(x, x') = exp(-sigma ||x - x'||^2).

Block i holds ``block_size`` frequencies omega ~ N(0, 2 sigma I) (and, for the phase variant,
phases b ~ U[0, 2 pi]) drawn from a counter-based Philox generator keyed by (seed, i): a pure
function of (seed, i), so a block can be cached or drawn again and the model is the same
(Dai et al. 2014; AAAI 2020 Algorithm 2, "sample omega_i with seed i"). Two feature maps, both
unbiased for k:

- ``cos_sin`` (the papers): phi(x) = sqrt(1/m) [cos(W x), sin(W x)], 2m features per block;
- ``cos_phase`` (Rahimi & Recht 2008): phi(x) = sqrt(2/m) cos(W x + b), m features per block.

A model is f(x) = scale * sum_i phi_i(x) . coef_i. Evaluation is the hot path of training and
scoring, so it is computed without waste:

- one cosine per frequency, not a cosine and a sine: a cos(z) + b sin(z) = r cos(z + psi) with
  r = hypot(a, b), psi = -atan2(b, a) (:class:`PackedCoef`); the phase enters through the
  matrix product, as an extra column of W against a column of ones in X;
- float32 arguments and cosines (float32 cos is ~20x faster than float64 here), each chunk of
  blocks reduced by a float32 matrix-vector product and the chunks summed in float64;
- chunks of bounded memory; blocks cached up to ``cache_bytes`` and drawn again beyond it.
"""

from __future__ import annotations

import threading

import numpy as np

from ordauc.solvers.dsg import trig

FEATURE_MAPS = ("cos_sin", "cos_phase")
_CHUNK_BYTES = 2 << 20  # one float32 chunk of arguments W x: stays in the last-level cache


def draw_block(seed: int, i: int, m: int, d: int, sigma: float, phase: bool = False
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """Frequencies (m, d) float32 ~ N(0, 2 sigma I) and phases (m,) or None of block ``i``.

    Philox keyed by (seed, i) directly: no seed hashing per block, streams that never overlap.
    """
    rng = np.random.Generator(np.random.Philox(key=[int(seed), int(i)]))
    W = rng.standard_normal((m, d), dtype=np.float32)
    W *= np.float32(np.sqrt(2.0 * sigma))
    b = rng.uniform(0.0, 2.0 * np.pi, m).astype(np.float32) if phase else None
    return W, b


def feature_width(block_size: int, feature_map: str = "cos_sin") -> int:
    """Features per block: cos and sin of each frequency (``cos_sin``), or one cosine
    (``cos_phase``)."""
    return int(block_size) * (1 if feature_map == "cos_phase" else 2)


def block_bytes(n_features: int, block_size: int, feature_map: str = "cos_sin") -> int:
    """Bytes of one cached block: float32 frequencies with one more column, the phase slot that
    :meth:`FeatureBlocks.evaluate` fills, and the phases of ``cos_phase``."""
    return 4 * block_size * (n_features + 1 + (1 if feature_map == "cos_phase" else 0))


class FeatureBlocks:
    """Random Fourier feature blocks drawn on demand from (seed, block index).

    Parameters
    ----------
    seed : run seed; block i is :func:`draw_block` (seed, i).
    n_features_in : input dimension d.
    block_size : frequencies per block (m).
    sigma : kernel width in exp(-sigma ||x - x'||^2).
    feature_map : ``cos_sin`` or ``cos_phase``.
    cache_bytes : memory budget for cached frequencies; blocks beyond it are drawn again.
    """

    def __init__(self, seed: int, n_features_in: int, block_size: int, sigma: float,
                 feature_map: str = "cos_sin", cache_bytes: int = 256 << 20) -> None:
        if feature_map not in FEATURE_MAPS:
            raise ValueError(f"feature_map must be one of {FEATURE_MAPS}, got {feature_map!r}")
        if sigma <= 0:
            raise ValueError(f"sigma must be positive, got {sigma}")
        self.seed = int(seed)
        self.d = int(n_features_in)
        self.m = int(block_size)
        self.sigma = float(sigma)
        self.feature_map = feature_map
        self.phase = feature_map == "cos_phase"
        # Features per block, and the constant in front of them.
        self.width = feature_width(self.m, feature_map)
        self.norm = np.sqrt((2.0 if self.phase else 1.0) / self.m)
        self.max_cached = max(0, int(cache_bytes) // block_bytes(self.d, self.m, feature_map))
        self._Wa = np.empty((0, self.d + 1), dtype=np.float32)  # cached blocks, stacked
        self._b = np.empty(0, dtype=np.float32)
        self.n_cached = 0
        # Set when several models read this cache (a grid fit's models): evaluate then writes
        # each model's phases into a private copy of the frequencies, never into the cache, so
        # threads scoring different models at once cannot mix their phases.
        self.shared = False
        # Scratch buffers reused across evaluations, one set per thread: threads may score
        # with the same model at once.
        self._local = threading.local()

    def __getstate__(self) -> dict:
        # Scratch buffers are not part of the model: a pickle carries the cache, not them.
        return {k: v for k, v in self.__dict__.items() if k != "_local"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    # -- drawing -------------------------------------------------------------------------------
    def draw(self, i: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Frequencies (m, d) float32 and phases (m,) or None of block ``i``: no cache involved."""
        return draw_block(self.seed, i, self.m, self.d, self.sigma, self.phase)

    def block(self, i: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Block ``i`` from the cache, else drawn (and cached while the budget lasts)."""
        if i < self.n_cached:
            rows = slice(i * self.m, (i + 1) * self.m)
            return self._Wa[rows, : self.d], (self._b[rows] if self.phase else None)
        W, b = self.draw(i)
        if i == self.n_cached and i < self.max_cached:
            self._append(W, b)
        return W, b

    def _append(self, W: np.ndarray, b: np.ndarray | None) -> None:
        rows = self.n_cached * self.m
        if rows + self.m > self._Wa.shape[0]:  # grow geometrically, never past the budget
            cap = min(max(2 * self._Wa.shape[0], 16 * self.m), self.max_cached * self.m)
            self._Wa = _grow(self._Wa, cap)
            if self.phase:
                self._b = _grow(self._b, cap)
        self._Wa[rows:rows + self.m, : self.d] = W
        if self.phase:
            self._b[rows:rows + self.m] = b
        self.n_cached += 1

    def stacked(self, start: int, stop: int, own: bool = False
                ) -> tuple[np.ndarray, np.ndarray | None]:
        """Blocks start..stop-1 as ((stop-start)*m, d+1) frequencies plus a phase slot, and their
        phases or None: a view of the cache when all are cached (unless ``own``), else a scratch
        buffer of this thread, so cached and drawn blocks give the same numbers. The caller owns
        the slot (last column); ``own`` gives a private copy, for caches that several models
        read (see ``shared``)."""
        n = (stop - start) * self.m
        if stop <= self.n_cached:
            rows = slice(start * self.m, stop * self.m)
            if not own:
                return self._Wa[rows], (self._b[rows] if self.phase else None)
            Wa = self._scratch("W", n * (self.d + 1)).reshape(n, self.d + 1)
            np.copyto(Wa, self._Wa[rows])
            return Wa, (self._b[rows] if self.phase else None)
        Wa = self._scratch("W", n * (self.d + 1)).reshape(n, self.d + 1)
        ph = self._scratch("b", n) if self.phase else None
        for i in range(start, stop):
            W, b = self.block(i)
            r = (i - start) * self.m
            Wa[r:r + self.m, : self.d] = W
            if self.phase:
                ph[r:r + self.m] = b
        return Wa, ph

    # -- features ------------------------------------------------------------------------------
    def features(self, X: np.ndarray, i: int, out: np.ndarray | None = None,
                 block: tuple[np.ndarray, np.ndarray | None] | None = None) -> np.ndarray:
        """Raw features of block ``i`` at X, float32 (n, width), without the sqrt(c/m) factor;
        written into ``out`` when given. ``block``: block i as :meth:`block` gave it, so that
        several sets of rows meet a block that is not cached without drawing it again."""
        W, b = self.block(i) if block is None else block
        X = np.asarray(X, dtype=np.float32)
        F = np.empty((X.shape[0], self.width), dtype=np.float32) if out is None else out
        Z = self._scratch("Zf", X.shape[0] * self.m).reshape(X.shape[0], self.m)
        np.matmul(X, W.T, out=Z)
        if self.phase:
            Z += b
            return np.cos(Z, out=F)
        np.cos(Z, out=F[:, : self.m])
        np.sin(Z, out=F[:, self.m:])
        return F

    def evaluate(self, X: np.ndarray, coef: np.ndarray | PackedCoef, scale: float = 1.0,
                 n_blocks: int | None = None, out: np.ndarray | None = None, *, start: int = 0,
                 add: bool = False, augmented: bool = False, fast: bool = False) -> np.ndarray:
        """f(X) = norm * scale * sum_{start <= i < n_blocks} F_i(X) . coef[i], float64 (n,).

        ``coef`` is (n_blocks, width) float64 (cos part then sin part for ``cos_sin``), or its
        :class:`PackedCoef` form, which a training loop keeps current so that no call converts
        it again. Runs in chunks of rows and blocks whose float32 arguments take about
        ``_CHUNK_BYTES``, blocks outermost, so a block that must be drawn again is drawn once
        per call. ``add`` adds into ``out`` instead of overwriting it; ``augmented`` says that X
        already carries a last column of ones (n, d + 1), which spares a copy of every chunk of
        rows when the same rows are evaluated again and again (a training pool). ``fast`` takes
        the compiled cosine of :mod:`ordauc.solvers.dsg.trig` (float32 rounding of its own, about
        3x faster) instead of numpy's: the training loops use it, scoring does not.
        """
        X = np.asarray(X, dtype=np.float32)
        n, d = X.shape[0], self.d
        packed = coef if isinstance(coef, PackedCoef) else PackedCoef.of(coef, self)
        T = packed.amp.shape[0] if n_blocks is None else int(n_blocks)
        f = np.zeros(n, dtype=np.float64) if out is None else out
        if not add:
            f[:] = 0.0
        if start >= T or n == 0:
            return f
        if not self._Wa.flags.writeable:  # e.g. a model loaded with joblib's mmap_mode="r"
            self._Wa = self._Wa.copy()  # evaluate writes the phase slot
        rows, blocks = self._chunking(n, T - start)
        zbuf = self._scratch("Z", min(rows, n) * blocks * self.m)
        cbuf = self._scratch("C", zbuf.size) if fast else None
        gbuf = self._scratch("g", min(rows, n))
        if not augmented:
            # Rows of X with a column of ones against the phase slot: W x + psi in one product.
            Xa = self._scratch("X", min(rows, n) * (d + 1)).reshape(-1, d + 1)
            Xa[:, d] = 1.0
        factor = np.float64(self.norm * scale)
        for b0 in range(start, T, blocks):
            b1 = min(T, b0 + blocks)
            Wa, ph = self.stacked(b0, b1, own=self.shared)
            Wa[:, d] = ph if self.phase else packed.psi[b0:b1].reshape(-1)
            amp = packed.amp[b0:b1].reshape(-1)
            for r0 in range(0, n, rows):
                r = min(n, r0 + rows) - r0
                if augmented:
                    xa = X[r0:r0 + r]
                else:
                    Xa[:r, :d] = X[r0:r0 + r]
                    xa = Xa[:r]
                # (W x)^T: OpenBLAS runs (width x d)(d x rows) ~30% faster than the transpose
                # for d ~ 20. Views of exactly this chunk's size: contiguous, no spare pages.
                z = zbuf[: Wa.shape[0] * r].reshape(Wa.shape[0], r)
                np.matmul(Wa, xa.T, out=z)
                if fast:  # into another buffer: in place, the compiled loop cannot vectorise
                    z = trig.cos(z, cbuf[: z.size].reshape(z.shape))
                else:
                    np.cos(z, out=z)
                g = gbuf[:r]
                np.matmul(amp, z, out=g)
                f[r0:r0 + r] += g * factor  # float32 sums of a chunk, accumulated in float64
        return f

    def _scratch(self, name: str, size: int) -> np.ndarray:
        """A float32 buffer of at least ``size`` elements, kept for the next call."""
        work = self._local.__dict__
        buf = work.get(name)
        if buf is None or buf.size < size:
            buf = np.empty(max(size, 2 * (0 if buf is None else buf.size)), dtype=np.float32)
            work[name] = buf
        return buf[:size]

    def _chunking(self, n: int, T: int) -> tuple[int, int]:
        """Rows and blocks per chunk so that one float32 chunk of W x is about _CHUNK_BYTES."""
        per_block = 4 * self.m
        blocks = max(1, min(T, _CHUNK_BYTES // (per_block * min(n, 64))))
        rows = max(1, min(n, _CHUNK_BYTES // (per_block * blocks)))
        return rows, blocks


def _grow(a: np.ndarray, rows: int) -> np.ndarray:
    out = np.empty((rows, *a.shape[1:]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


class PackedCoef:
    """Block coefficients in amplitude-phase form, float32, block-major like the rows of W x.

    A block's term is sum_j amp_j cos(omega_j . x + psi_j): for ``cos_sin``, coefficients
    (a_j, b_j) on (cos, sin) give amp_j = hypot(a_j, b_j) and psi_j = -atan2(b_j, a_j); for
    ``cos_phase``, amp_j is the coefficient and the phase is the block's own (``psi`` None).
    The identity is exact; the float32 rounding is that of the cos/sin form.
    """

    def __init__(self, n_blocks: int, m: int, phase: bool) -> None:
        self.m = m
        self.phase = phase
        self.amp = np.zeros((n_blocks, m), dtype=np.float32)
        self.psi = None if phase else np.zeros((n_blocks, m), dtype=np.float32)

    @classmethod
    def of(cls, coef: np.ndarray, blocks: FeatureBlocks) -> PackedCoef:
        """The packed form of float64 coefficients (n_blocks, width)."""
        packed = cls(coef.shape[0], blocks.m, blocks.phase)
        packed.load(coef)
        return packed

    def load(self, coef: np.ndarray, start: int = 0) -> None:
        """Set blocks start, start+1, ... from float64 coefficient rows ``coef``."""
        stop = start + coef.shape[0]
        if self.phase:
            self.amp[start:stop] = coef
            return
        a, b = coef[:, : self.m], coef[:, self.m:]
        self.amp[start:stop] = np.hypot(a, b)
        self.psi[start:stop] = -np.arctan2(b, a)


def with_ones(X: np.ndarray) -> np.ndarray:
    """X (n, d) as float32 (n, d + 1) with a last column of ones: the ``augmented`` rows of
    :meth:`FeatureBlocks.evaluate`, against the phase slot of the frequencies."""
    Xa = np.empty((X.shape[0], X.shape[1] + 1), dtype=np.float32)
    Xa[:, :-1] = X
    Xa[:, -1] = 1.0
    return Xa
