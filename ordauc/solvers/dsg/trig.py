"""float32 cosine and sine of the random-feature arguments, compiled, for the training loops.

Evaluating f at the unlabeled points (:mod:`ordauc.solvers.dsg.unlabeled`: for one model, for
every model of a grid pass at once, and on the whole pool when the pass keeps it) is cos / sin
of W x and little else. numpy's float32 cos and sin cost about 2 ns a value each here; these
loops, which share one argument reduction between cos and sin and let LLVM vectorise the
polynomials, cost about 0.5 ns (cos) and 0.7 ns (cos and sin).

Method (Cephes' sinf / cosf): k = round(x 2/pi), r = x - k pi/2 in three float32 parts (Cody and
Waite), minimax polynomials of degree 7 (sin) and 8 (cos) on |r| <= pi/4, and the quadrant k mod
4 picking and signing them. Measured against float64 cos / sin of the same float32 arguments,
|x| up to 4e5: at most 9.2e-8 absolute error (numpy's float32 cos: 6.8e-8), i.e. float32
rounding, far below the rounding of the float32 argument W x itself (ulp(x) ~ 6e-8 |x|).
Arguments beyond ``LIMIT`` (never met with features scaled to [0, 1]) go to numpy, so the
reduction never relies on a fused multiply-add being available.

The scoring path (``decision_function``,
:meth:`~ordauc.solvers.dsg.random_features.FeatureBlocks.evaluate` by default) keeps numpy's
cosine: a fitted model scores as before.

Which is faster depends on the machine (numpy may call a vectorised libm, the compiled loop needs
LLVM to vectorise it), so each process times both once, at the engine's shapes, before its first
call (:func:`compiled_wins`: CPU time of the calling thread, the variants alternated) and uses the
faster; numpy's is taken only when it is clearly faster, so that a noisy timing does not flip a
machine's choice from run to run. ``ORDAUC_COSINE=compiled`` or ``numpy`` fixes the choice. Either
gives the same iterates up to float32 rounding.

numba's on-disk cache keys a compiled loop on this module's source only.
"""

from __future__ import annotations

import os
import time

import numpy as np
from numba import njit

# No reassociation: it would fold the three-part reduction back into one product. "No NaN" and
# "no signed zeros" let the loops vectorise (the arguments are finite).
_OPTIONS = {"cache": True, "nogil": True, "fastmath": {"contract", "nnan", "nsz"},
            "error_model": "numpy"}
LIMIT = 8192.0  # |x| up to here: k * PIO2_1 and k * PIO2_2 are exact in float32 (13 + 11 bits)
_LIMIT32 = np.float32(LIMIT)

_TWO_OVER_PI = np.float32(2.0 / np.pi)
_PIO2_1 = np.float32(1.5703125)  # pi/2 in three float32 parts, the first with 8 bits
_PIO2_2 = np.float32(4.837512969970703125e-4)
_PIO2_3 = np.float32(7.549789948768648e-8)
_S1, _S2, _S3 = np.float32(-1.6666654611e-1), np.float32(8.3321608736e-3), \
    np.float32(-1.9515295891e-4)
_C1, _C2, _C3 = np.float32(4.166664568298827e-2), np.float32(-1.388731625493765e-3), \
    np.float32(2.443315711809948e-5)
_HALF, _ONE = np.float32(0.5), np.float32(1.0)


@njit(inline="always", cache=True)
def _kernels(x: float) -> tuple[float, float, int]:
    """sin(r), cos(r) with r = x - k pi/2, and k mod 4."""
    k = np.floor(x * _TWO_OVER_PI + _HALF)
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_3
    r2 = r * r
    sin_r = r + r * r2 * (_S1 + r2 * (_S2 + r2 * _S3))
    cos_r = _ONE - _HALF * r2 + r2 * r2 * (_C1 + r2 * (_C2 + r2 * _C3))
    return sin_r, cos_r, np.int32(k) & 3


@njit(**_OPTIONS)
def _cos_flat(z: np.ndarray, out: np.ndarray) -> bool:
    """cos into ``out``; False when an argument is beyond LIMIT (``out`` is then garbage).

    The range guard is an OR of comparisons fused into the loop: a separate max |z| pass is a
    scalar reduction LLVM does not vectorise, and cost as much as the cosines."""
    bad = False
    for i in range(z.size):
        x = z[i]
        bad |= abs(x) > _LIMIT32
        sin_r, cos_r, q = _kernels(x)
        c = cos_r if (q & 1) == 0 else sin_r  # cos(r + q pi/2)
        out[i] = -c if (q == 1 or q == 2) else c
    return not bad


@njit(**_OPTIONS)
def _sincos_blocks(z: np.ndarray, out: np.ndarray) -> bool:
    nb, m, r = z.shape
    bad = False
    for j in range(nb):
        for f in range(m):
            for i in range(r):
                x = z[j, f, i]
                bad |= abs(x) > _LIMIT32
                sin_r, cos_r, q = _kernels(x)
                c = cos_r if (q & 1) == 0 else sin_r
                s = sin_r if (q & 1) == 0 else cos_r
                out[j, f, i] = -c if (q == 1 or q == 2) else c
                out[j, m + f, i] = -s if q >= 2 else s
    return not bad


def _numpy_cos(z: np.ndarray, out: np.ndarray) -> None:
    np.cos(z, out=out)


def _numpy_sincos(z: np.ndarray, out: np.ndarray) -> None:
    m = z.shape[1]
    np.cos(z, out=out[:, :m])
    np.sin(z, out=out[:, m:])


ENVIRONMENT = "ORDAUC_COSINE"  # "compiled" or "numpy" fixes the choice; unset or "auto" times it
MARGIN = 0.8  # numpy's is chosen only below this fraction of the compiled loop's time
_ROUNDS = 7
_CHOSEN: dict[str, bool] = {}


def _cpu_seconds(fn: object, z: np.ndarray, out: np.ndarray) -> float:
    start = time.thread_time()
    fn(z, out)  # type: ignore[operator]
    return time.thread_time() - start


def _median_ratio(compiled: object, plain: object, z: np.ndarray, out: np.ndarray) -> float:
    """Median over alternated rounds of (numpy's time) / (compiled time), CPU time."""
    compiled(z, out)  # type: ignore[operator]  # loads the compiled loop: not timed
    ratios = []
    for _ in range(_ROUNDS):
        t_compiled = _cpu_seconds(compiled, z, out)
        t_plain = _cpu_seconds(plain, z, out)
        ratios.append(t_plain / max(t_compiled, 1e-9))
    return float(np.median(ratios))


def timed_ratios(rows: int = 2048, m: int = 64, blocks: int = 4, seed: int = 0
                 ) -> dict[str, float]:
    """numpy's time over the compiled loop's for ``cos`` and ``sincos_blocks`` on arguments of
    the engine's shapes (``blocks`` blocks of ``m`` frequencies against ``rows`` rows, values
    as W x of features in [0, 1]), medians of alternated rounds in CPU time; above 1 the
    compiled loop is faster."""
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=3.0, size=(blocks, m, rows)).astype(np.float32)
    flat_out = np.empty_like(z)
    block_out = np.empty((blocks, 2 * m, rows), np.float32)

    def flat(a: np.ndarray, o: np.ndarray) -> None:
        _cos_flat(a.reshape(-1), o.reshape(-1))

    return {"cos": _median_ratio(flat, _numpy_cos, z, flat_out),
            "sincos": _median_ratio(_sincos_blocks, _numpy_sincos, z, block_out)}


def compiled_wins(which: str) -> bool:
    """Whether the compiled loop ``which`` ("cos" or "sincos") is used in this process: fixed
    by ``ORDAUC_COSINE``, else timed once (:func:`timed_ratios`) and kept unless numpy's is
    faster by more than the margin."""
    if which not in _CHOSEN:
        fixed = os.environ.get(ENVIRONMENT, "auto").strip().lower()
        if fixed in ("compiled", "numpy"):
            _CHOSEN.update(cos=fixed == "compiled", sincos=fixed == "compiled")
        else:
            ratios = timed_ratios()
            _CHOSEN.update({k: r >= MARGIN for k, r in ratios.items()})
    return _CHOSEN[which]


def cos(z: np.ndarray, out: np.ndarray) -> np.ndarray:
    """cos of the contiguous float32 array ``z`` into ``out``, of the same shape and not
    overlapping it (the loop vectorises only when they are apart), by the faster of the
    compiled loop and numpy here (:func:`compiled_wins`). Beyond LIMIT the whole array is
    computed again by numpy."""
    if not z.size:
        return out
    if not compiled_wins("cos") or not _cos_flat(z.reshape(-1), out.reshape(-1)):
        np.cos(z, out=out)
    return out


def sincos_blocks(z: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Features of blocks laid out as the coefficients: ``z`` (blocks, m, rows) float32
    contiguous, ``out`` (blocks, 2m, rows) gets cos(z) in [:, :m] and sin(z) in [:, m:]
    (the faster of the compiled loop and numpy here)."""
    if not z.size:
        return out
    if not compiled_wins("sincos") or not _sincos_blocks(z, out):
        _numpy_sincos(z, out)
    return out
