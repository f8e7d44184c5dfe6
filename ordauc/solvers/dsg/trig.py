"""float32 cosine and sine of the random-feature arguments, compiled, for the training loops.

Evaluating f on the whole unlabeled pool (:mod:`.engine`) and on every model of a grid pass
(:mod:`.grid`) is cos / sin of W x and little else. numpy's float32 cos and sin cost about 2 ns a
value each here; these loops, which share one argument reduction between cos and sin and let
LLVM vectorise the polynomials, cost about 0.5 ns (cos) and 0.7 ns (cos and sin).

Method (Cephes' sinf / cosf): k = round(x 2/pi), r = x - k pi/2 in three float32 parts (Cody and
Waite), minimax polynomials of degree 7 (sin) and 8 (cos) on |r| <= pi/4, and the quadrant k mod
4 picking and signing them. Measured against float64 cos / sin of the same float32 arguments,
|x| up to 4e5: at most 9.2e-8 absolute error (numpy's float32 cos: 6.8e-8), i.e. float32
rounding, far below the rounding of the float32 argument W x itself (ulp(x) ~ 6e-8 |x|).
Arguments beyond ``LIMIT`` (never met with features scaled to [0, 1]) go to numpy, so the
reduction never relies on a fused multiply-add being available.

The scoring path (``decision_function``, :meth:`FeatureBlocks.evaluate` by default) keeps
numpy's cosine: a fitted model scores as before.

numba's on-disk cache keys a compiled loop on this module's source only.
"""

from __future__ import annotations

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


def cos(z: np.ndarray, out: np.ndarray) -> np.ndarray:
    """cos of the contiguous float32 array ``z`` into ``out``, of the same shape and not
    overlapping it (the loop vectorises only when they are apart). Beyond LIMIT the whole
    array is computed again by numpy."""
    if z.size and not _cos_flat(z.reshape(-1), out.reshape(-1)):
        np.cos(z, out=out)
    return out


def sincos_blocks(z: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Features of blocks laid out as the coefficients: ``z`` (blocks, m, rows) float32
    contiguous, ``out`` (blocks, 2m, rows) gets cos(z) in [:, :m] and sin(z) in [:, m:]."""
    m = z.shape[1]
    if z.size and not _sincos_blocks(z, out):
        np.cos(z, out=out[:, :m])
        np.sin(z, out=out[:, m:])
    return out
