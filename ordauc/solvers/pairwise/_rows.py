"""Compiled arithmetic on one pair z = x_i - x_j, for dense rows and for CSR rows.

Shared by every compiled loop of the package, so the six solvers differ only in which pairs
they visit and how they weigh the step. A CSR matrix is passed as the tuple
``(data float64, indices int64, indptr int64, squared row norms float64)`` with each row's
indices unique and sorted (canonical CSR), one type for every input so that numba compiles each
loop once.

numba's on-disk cache keys a compiled loop on its own module's source only: after editing this
module or ``order.py``, delete ``__pycache__/*.nbi`` here, or the loops keep the old code.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

# Reassociation lets LLVM vectorise the dot products and fuse multiply-adds; "no NaN" lets it
# clip with min/max instructions rather than a branch that mispredicts (inputs are validated
# finite). Infinities keep their meaning.
FASTMATH = {"reassoc", "contract", "nsz", "arcp", "nnan"}
# Options of every compiled loop: the numpy error model drops numba's check for a zero divisor
# at every float division (each division here has a divisor > 0 by construction).
LOOP_OPTIONS = {"cache": True, "nogil": True, "fastmath": FASTMATH, "error_model": "numpy"}


@njit(cache=True, nogil=True, inline="always")
def dcd_step(a_old: float, zw: float, zz: float, lk: float) -> float:
    """The dual coordinate step of Algorithm 1, step 2 (and of subproblems (7) and (8)):
    clip(a_old + lk (1 - z^T w) / z^T z, 0, 1). A pair with z = 0 cannot change w; its dual
    optimum is the upper bound (the dual objective is linear in it), taken here."""
    if zz > 0.0:
        return min(max(a_old + lk * (1.0 - zw) / zz, 0.0), 1.0)
    return 1.0


# -- one name for both layouts: a loop written once compiles to a dense and a CSR version ------
# numba picks the implementation from the argument's type (a 2-d array, or a CSR tuple
# (data, indices, indptr)) and inlines it into the loop: a call per update would cost more
# than the update. The typing functions carry no annotations, as numba compares their
# signature with the implementations'.

def pair_stats(P: Any, i: Any, N: Any, j: Any, w: Any) -> Any:
    """(z^T w, z^T z) for z = P[i] - N[j]; compiled code only.

    CSR rows come with their squared norms, z^T z = ||x_i||^2 + ||x_j||^2 - 2 x_i.x_j; when
    rounding makes that <= 0 (x_i = x_j up to rounding) the step takes the bound, as for z = 0."""
    raise NotImplementedError


def pair_axpy(c: Any, P: Any, i: Any, N: Any, j: Any, w: Any) -> Any:
    """w += c (P[i] - N[j]); compiled code only."""
    raise NotImplementedError


def n_rows(M: Any) -> Any:
    """Number of rows of a dense matrix or a CSR tuple; compiled code only."""
    raise NotImplementedError


@overload(pair_stats, inline="always")
def _pair_stats(P, i, N, j, w):
    if isinstance(P, types.Array):
        def dense(P, i, N, j, w):
            zw = 0.0
            zz = 0.0
            for f in range(w.size):
                z = P[i, f] - N[j, f]
                zw += z * w[f]
                zz += z * z
            return zw, zz
        return dense

    def csr(P, i, N, j, w):
        pd, pix, pp, psq = P
        nd, nix, npt, nsq = N
        u, u_end = pp[i], pp[i + 1]
        v, v_end = npt[j], npt[j + 1]
        zw = 0.0
        for q in range(u, u_end):
            zw += pd[q] * w[pix[q]]
        for q in range(v, v_end):
            zw -= nd[q] * w[nix[q]]
        # x_i . x_j by merging the sorted column lists, without branches (which list moves
        # next is a coin flip): no d-sized scratch, whose cache misses on sector's 55,197
        # columns would cost more than the merge.
        dot = 0.0
        while u < u_end and v < v_end:
            cu, cv = pix[u], nix[v]
            dot += pd[u] * nd[v] * (cu == cv)
            u += cu <= cv
            v += cv <= cu
        return zw, psq[i] + nsq[j] - 2.0 * dot
    return csr


@overload(pair_axpy, inline="always")
def _pair_axpy(c, P, i, N, j, w):
    if isinstance(P, types.Array):
        def dense(c, P, i, N, j, w):
            for f in range(w.size):
                w[f] += c * (P[i, f] - N[j, f])
        return dense

    def csr(c, P, i, N, j, w):
        pd, pix, pp, _ = P
        nd, nix, npt, _ = N
        for u in range(pp[i], pp[i + 1]):
            w[pix[u]] += c * pd[u]
        for u in range(npt[j], npt[j + 1]):
            w[nix[u]] -= c * nd[u]
    return csr


@overload(n_rows, inline="always")
def _n_rows(M):
    if isinstance(M, types.Array):
        return lambda M: M.shape[0]
    return lambda M: M[2].size - 1


def _prefetch(builder: Any, ptr: Any) -> None:
    """llvm.prefetch(ptr, read, keep in all cache levels, data cache)."""
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
    builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])


@intrinsic
def prefetch_elem(typingctx, M, i, f):
    """Ask the cache for element M[i, f] of a 2-d array (LLVM's prefetch, for reading, kept in
    all cache levels); no effect on results, and no fault for any address."""
    if not (isinstance(M, types.Array) and M.ndim == 2 and isinstance(i, types.Integer)
            and isinstance(f, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        mty, ity, fty = signature.args
        ary = context.make_array(mty)(context, builder, args[0])
        row = context.cast(builder, args[1], ity, types.intp)
        col = context.cast(builder, args[2], fty, types.intp)
        _prefetch(builder, cgutils.get_item_pointer(context, builder, mty, ary, [row, col]))
        return context.get_dummy_value()

    return types.none(M, i, f), codegen


@intrinsic
def prefetch_at(typingctx, A, i):
    """Ask the cache for element A[i] of a 1-d array; no effect on results."""
    if not (isinstance(A, types.Array) and A.ndim == 1 and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        aty, ity = signature.args
        ary = context.make_array(aty)(context, builder, args[0])
        idx = context.cast(builder, args[1], ity, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, [idx])
        _prefetch(builder, ptr)
        return context.get_dummy_value()

    return types.none(A, i), codegen


def prefetch_pair(P: Any, i: Any, N: Any, j: Any) -> Any:
    """Prefetch rows P[i] and N[j] (dense rows, or the start of CSR rows); compiled only."""
    raise NotImplementedError


@overload(prefetch_pair, inline="always")
def _prefetch_pair(P, i, N, j):
    if isinstance(P, types.Array):
        def dense(P, i, N, j):
            # One request per 64-byte line (8 float64), and the last element for a row that
            # does not start on a line.
            d = P.shape[1]
            for f in range(0, d, 8):
                prefetch_elem(P, i, f)
                prefetch_elem(N, j, f)
            prefetch_elem(P, i, d - 1)
            prefetch_elem(N, j, d - 1)
        return dense

    def csr(P, i, N, j):
        prefetch_at(P[0], P[2][i])
        prefetch_at(P[1], P[2][i])
        prefetch_at(N[0], N[2][j])
        prefetch_at(N[1], N[2][j])
    return csr
