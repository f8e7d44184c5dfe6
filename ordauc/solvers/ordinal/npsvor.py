"""NPSVOR: nonparallel support vector ordinal regression (Wang, Shi, Niu, Tian, IEEE Trans.
Cybernetics 2017), trained by the paper's ADMM (Algorithm 2) with all ranks solved together.
The same account, with the reasons behind each choice: docs/algorithms.md, section 5.

Model (paper Section III)
-------------------------
For every rank k in 1..p, with I_k = {i : y_i = k}, L_k = {y_i < k}, R_k = {y_i > k}, the primal
(4) finds a proximal hyperplane f_k(x) = w_k' phi(x) + b_k:

    min  1/2 ||w_k||^2 + C1 sum_{I_k} (xi+_i + xi-_i) + C2 sum_{i not in I_k} eta_i       (4a)
    s.t. -eps - xi-_i <= f_k(x_i) <= eps + xi+_i,   i in I_k                             (4b)
         f_k(x_i) <= -1 + eta_i,  i in L_k;   f_k(x_i) >= 1 - eta_i,  i in R_k           (4c, 4d)
         xi+, xi-, eta >= 0                                                              (4e, 4f)

With yhat_i = -1 on L_k and +1 on R_k, and beta_i = -(alpha+_i - alpha-_i) on I_k,
beta_i = yhat_i gamma_i elsewhere (the multipliers of (4b)-(4d)), w_k = sum_i beta_i phi(x_i)
(6), and the dual (7) becomes (8), one QP per rank:

    min_beta  1/2 beta' K beta + eps sum_{I_k} |beta_i| - sum_{i not in I_k} yhat_i beta_i   (8)
    s.t.      e' beta = 0,   |beta_i| <= C1 on I_k,   0 <= yhat_i beta_i <= C2 elsewhere.

The rank function is f_k(x) = sum_i beta_i K(x, x_i) + b_k (9) and the prediction
argmin_k |f_k(x)| (5), (10).

ADMM (paper Section IV, Eqs. 11-20)
-----------------------------------
(8) is split as f(beta) + g(z) with beta = z (11), f(beta) = 1/2 beta' K beta on {e' beta = 0}
and g the rest, with the scaled augmented Lagrangian (12). One iteration (13a-c):

- beta-update (14)-(15): nu = rho e'A(z - u) / e'Ae and beta = A(rho (z - u) - nu e), with
  A = (K + rho I)^-1, so that e' beta = 0 for every rho. The published reference code omits the
  factor rho in the first term (beta = A(z - u) - nu Ae), which satisfies e' beta = 0 only when
  rho = 1; here the KKT system (14) is solved as written, so any rho > 0 gives the same optimum.
- z-update (16)-(18), elementwise: z_i = mid(-C1, S_{eps/rho}(beta_i + u_i), C1) on I_k (18),
  S the soft-threshold, and z_i = mid(0, beta_i + u_i + yhat_i / rho, yhat_i C2) elsewhere (17).
- u-update (13c): u = u + beta - z.
- stop (19)-(20): ||beta - z|| <= sqrt(n) tol_abs + tol_rel max(||beta||, ||z||) and
  ||rho (z - z_old)|| <= sqrt(n) tol_abs + tol_rel ||rho u|| (Boyd et al.'s rule, the dual
  variable being rho u), Euclidean norms over one rank's n variables.

K + rho I is the same matrix for every rank and every iteration: it is Cholesky-factored once
(in place, over the kernel) and every iteration is one pair of triangular solves with an n x p
right-hand side, whose columns are the p ranks (the ranks are independent, so they run side by
side). Iterations continue until every rank meets (19)-(20), or ``max_iter``; a rank that has
converged keeps iterating with the others, which only refines it. Reaching ``max_iter`` first
emits a :class:`~sklearn.exceptions.ConvergenceWarning` and sets ``converged_ = False``.

Bias (after Eq. 9)
------------------
From complementary slackness, every free support vector of rank k gives b_k: f_k(x_i) = eps for
-C1 < beta_i < 0 on I_k, f_k(x_i) = -eps for 0 < beta_i < C1 on I_k, and yhat_i f_k(x_i) = 1 for
0 < yhat_i beta_i < C2 elsewhere; b_k is the mean of these values over all free support vectors
of the rank (as the reference code does). With no free support vector (the reference then returns
NaN), b_k is the midpoint of the interval the KKT conditions leave for it: each point at a bound
or at zero gives one or two inequalities on b_k (|f| <= eps for beta_i = 0 on I_k, f >= eps at
beta_i = -C1, f <= -eps at beta_i = C1; yhat f >= 1 at beta_i = 0 and yhat f <= 1 at
yhat_i beta_i = C2 elsewhere), and b_k = (max lower + min upper) / 2. At a feasible point of (8)
both ends exist; should only one exist (an iterate far from convergence), b_k is that end. So
b_k is always finite. (Any b_k in that interval is optimal for (4). ADMM iterates often leave the
coefficient of the point that fixes one end of the interval a hair inside its bound; it then
counts as free, and the mean gives that end, which is also optimal.)

Choices the paper leaves open
-----------------------------
- C1 = C2 = ``C`` (as in the paper's comparison); kernel exp(-kappa ||x - x'||^2) (the paper's
  RBF, ORCA's k); eps defaults to 0.1 (the paper fixes 0.2 in its comparison) and may be 0 (the
  paper's Fig. 3 grid starts there); rho = 1 and tolerances 1e-2 by default, as the paper
  suggests (Section V-B); tolerances of 0 run ``max_iter`` iterations.
- Objective with 1/2 beta' K beta, as in f(beta) of (11) (the extracted (4a) and (8) lost it).
- Start z = u = 0 (feasible for the box; the paper only says "initialize").
- The returned coefficients are z, not beta: z lies in the box exactly and has exact zeros, so the
  support vectors and the free/bounded split of the bias are well defined; e'z = 0 holds to
  within the primal residual. Only rows with a nonzero coefficient in some rank are kept.
- The stopping rule is applied per rank with Euclidean norms (the reference code applies it once
  to the n x p matrices with the spectral norm); ``max_iter`` defaults to 1000 (the reference
  stops after 50 iterations without a warning).
- Ties in argmin_k |f_k(x)| go to the lowest rank.
- Rows with y == -1 are unlabeled and ignored (a supervised method); labels are consecutive
  integers, ``classes_`` the caller's labels of ranks 1..p.
- The fit is deterministic (no random start, no sampling), so there is no ``random_state``.

NPSVOR has no single ranking function, so it has no ``decision_function``: ``predict`` gives
labels and :meth:`NPSVOR.rank_functions` the (n, p) values f_k(x).

Grid fits (:mod:`ordauc.solvers.gridfit`)
-----------------------------------------
The factor of K + rho I depends on the training rows, kappa and rho only. ``fit_grid`` therefore
fits the grid points that share (kappa, rho), whatever their C, eps, tolerances and ``max_iter``,
from one factorisation: the kernel is built and factored once, then each point runs its own ADMM
on that factor. This is exact, not an approximation: the ADMM reads the factor only through
triangular solves (and K z through :func:`kernel_times`), and the factor is the same array,
computed by the same calls on the same rows, whether a lone fit or a pass made it; so each
point's iterates, stopping iteration, coefficients, biases and logged residuals are bitwise those
of its lone ``fit``.

The tolerances and ``max_iter`` are not read by the iteration (13a-c) at all, only by the stopping
rule (19)-(20). The points of a pass that share (C, eps) and differ only in (tol_abs, tol_rel,
max_iter) therefore follow one trajectory, run once (:func:`admm_path`): it goes on until the
last of them stops, and each point takes the iterate, the iteration count and the residual log
of its own first stop, again bitwise its lone fit (its stopping rule is evaluated with the same
operations as in :func:`admm`). The NPSVOR paper's Fig. 4 sweep of 11 x 11 tolerances costs one
run of the longest point instead of 121. A pass hands its models back one at a time, each
finished (biases, warning of a run cut by ``max_iter``) when asked for, so that a caller reading
warnings model by model sees each point's own; every model reports ``fit_seconds_``, the time
its own fit takes, measured inside the pass (the shared factor's time, its iterations up to its
stop, its finishing). Points that stop at the same iterate (in Fig. 4, every point whose
tolerances the run never meets stops at ``max_iter``) are one function: their biases are
computed once, and so are their rank functions on given rows (a memo of the last few row sets
scored, keyed by their bytes).

Every function of a pass (every distinct stop of its trajectories) has the same training rows
and kappa, so its kernel against new rows is the same matrix, only the coefficients differ.
When a model of a pass is first asked for its rank functions on some rows, they are computed
for every function of the pass known by then (all the stops of the trajectories already run)
together: per chunk of 2,048 rows, one kernel against all the training rows, and for each
function the product of its support's columns of it with its coefficients (a product of the
lone model's shape: no stacked product, whose blocking would round differently); the chunk is
dropped, each function's values go to its memo, and each model is handed its own. Scoring the
121 models of Fig. 4 on the test rows costs one kernel instead of one per distinct stop. The
values equal the lone model's to within the house's 1e-12 relative for float64 kernel solvers,
and bitwise in practice: the one operation that may differ is the kernel's cross product of
the rows, computed by BLAS over all training rows rather than over the model's support; BLAS
computes each entry the same way in either call except for some shapes (observed with OpenBLAS:
a support of one row, or very few rows per call, or several threads on some sizes), where the
last bit may differ. The memos hold per-function values (functions x rows x ranks floats, the
last few row sets), never the kernel.
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dtrmm
from sklearn.base import _fit_context, clone
from sklearn.exceptions import ConvergenceWarning

from ordauc.solvers._base import OrdaucEstimator, SolverMeta, count, nonnegative, positive
from ordauc.solvers._labels import LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.gridfit import (
    GridData,
    GridFit,
    PassBytes,
    copy_input_attributes,
    fit_alone,
)
from ordauc.solvers.kernel.samult import gaussian_kernel

__all__ = ["NPSVOR", "ADMMResult", "RankProblems", "admm", "admm_path", "intercepts",
           "kernel_factor", "kernel_times"]

_CHUNK_ROWS = 2048
_RANKS_BUDGET = 32  # ranks assumed by fit_memory_bytes (the data's p is unknown there)
_DROPPED = np.empty((0, 0))  # the beta of a result kept only to finish a model
_TWIN_MEMO = 4  # row sets whose rank functions twin models remember (one per scored cell)


@dataclass(frozen=True)
class RankProblems:
    """The p duals (8) side by side, one column per rank, for labels z in 1..p.

    ``in_band`` marks I_k; ``yhat`` is -1 on L_k, +1 on R_k and 0 on I_k; ``lower``/``upper``
    are the box of (8): [-C1, C1] on I_k, [0, C2] on R_k and [-C2, 0] on L_k.
    """

    in_band: np.ndarray
    yhat: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    eps: float

    @classmethod
    def build(cls, z: np.ndarray, n_ranks: int, C: float, eps: float) -> RankProblems:
        ranks = np.arange(1, n_ranks + 1)
        zc = np.asarray(z)[:, None]
        in_band = zc == ranks
        yhat = np.where(zc < ranks, -1.0, np.where(zc > ranks, 1.0, 0.0))
        lower = np.where(in_band, -C, np.minimum(0.0, yhat * C))
        upper = np.where(in_band, C, np.maximum(0.0, yhat * C))
        return cls(in_band, yhat, lower, upper, float(eps))


@dataclass(frozen=True)
class ADMMResult:
    """What :func:`admm` returns: the coefficients, the last beta, how the run ended, and the
    residuals of every iteration (over all ranks: the norm of the stacked per-rank vectors)."""

    z: np.ndarray  # (n, p) coefficients, in the box of (8)
    beta: np.ndarray  # (n, p) last beta, e' beta = 0
    n_iter: int
    converged: bool
    primal: np.ndarray  # ||beta_t - z_t|| per iteration (the primal residual r_t of (19))
    dual: np.ndarray  # ||rho (z_t - z_{t-1})|| per iteration (the dual residual s_t of (20))
    seconds: float = 0.0  # wall time of the iterations that led to this result


class _Iterations:
    """The iterate of Algorithm 2 on every rank and its step (13a-c): what a lone run
    (:func:`admm`) and a run shared by several stopping rules (:func:`admm_path`) both do, so
    that their iterates are the same floating-point operations on the same arrays."""

    def __init__(self, factor: tuple[np.ndarray, bool], problems: RankProblems, rho: float
                 ) -> None:
        n, p = problems.yhat.shape
        self.factor, self.problems, self.rho = factor, problems, rho
        self.Ae = scipy.linalg.cho_solve(factor, np.ones(n), check_finite=False)
        self.eAe = float(self.Ae.sum())
        self.shift = problems.yhat / rho  # the linear term of (16b); 0 on I_k
        self.thresh = np.where(problems.in_band, problems.eps / rho, 0.0)  # (18)'s threshold
        self.z = np.zeros((n, p))
        self.u = np.zeros((n, p))
        self.beta = self.z
        self.root_n = math.sqrt(n)
        self.n_iter = 0
        self.r_norm = self.s_norm = np.zeros(p)
        self.primal: list[float] = []  # Theorem 1's linear rate is read from these (NP-17)
        self.dual: list[float] = []

    def step(self) -> None:
        """One iteration; leaves the per-rank residual norms in ``r_norm`` and ``s_norm``.
        Each step makes new ``z`` and ``beta`` arrays (``u`` is updated in place), so a result
        taken at one iteration is never changed by the next."""
        rho, problems = self.rho, self.problems
        self.n_iter += 1
        # (15): beta = A(rho (z - u) - nu e), nu = rho e'A(z - u) / e'Ae, so e' beta = 0.
        w = scipy.linalg.cho_solve(self.factor, self.z - self.u, check_finite=False)
        beta = w - np.outer(self.Ae, w.sum(axis=0) / self.eAe)
        beta *= rho
        # (17), (18): a shifted soft-threshold (the threshold is 0 off I_k), then the box.
        a = beta + self.u
        a += self.shift
        z_old = self.z
        z = np.sign(a) * np.maximum(np.abs(a) - self.thresh, 0.0)
        np.clip(z, problems.lower, problems.upper, out=z)
        r = beta - z
        self.u += r  # (13c)
        self.beta, self.z = beta, z
        # (19), (20), per rank.
        self.r_norm = np.linalg.norm(r, axis=0)
        self.s_norm = rho * np.linalg.norm(z - z_old, axis=0)
        self.primal.append(float(np.sqrt(np.dot(self.r_norm, self.r_norm))))
        self.dual.append(float(np.sqrt(np.dot(self.s_norm, self.s_norm))))

    def result(self, converged: bool, seconds: float) -> ADMMResult:
        """The run as it stands: the current iterate and the residuals logged so far."""
        return ADMMResult(z=self.z, beta=self.beta, n_iter=self.n_iter, converged=converged,
                          primal=np.asarray(self.primal), dual=np.asarray(self.dual),
                          seconds=seconds)


def admm(factor: tuple[np.ndarray, bool], problems: RankProblems, rho: float, tol_abs: float,
         tol_rel: float, max_iter: int) -> ADMMResult:
    """Algorithm 2 on every rank at once; ``factor`` is ``cho_factor(K + rho I)``."""
    start = time.perf_counter()
    run = _Iterations(factor, problems, rho)
    converged = False
    while run.n_iter < max_iter:
        run.step()
        eps_pri = run.root_n * tol_abs + tol_rel * np.maximum(np.linalg.norm(run.beta, axis=0),
                                                              np.linalg.norm(run.z, axis=0))
        eps_dual = run.root_n * tol_abs + tol_rel * rho * np.linalg.norm(run.u, axis=0)
        if np.all(run.r_norm <= eps_pri) and np.all(run.s_norm <= eps_dual):
            converged = True
            break
    return run.result(converged, time.perf_counter() - start)


def admm_path(factor: tuple[np.ndarray, bool], problems: RankProblems, rho: float,
              rules: Sequence[tuple[float, float, int]]) -> Iterator[tuple[int, ADMMResult]]:
    """One run of Algorithm 2 for several stopping rules ``(tol_abs, tol_rel, max_iter)``:
    ``(index of the rule, result)`` as each rule stops, each result what :func:`admm` returns
    with that rule, bit for bit.

    The iterates (13a-c) do not read the tolerances or the cap: those only decide when (19)-(20)
    stop the run. So one trajectory serves every rule; it runs until the last of them stops,
    and each rule takes the iterate, iteration count and residual log of its own first stop.
    The rules' thresholds are evaluated with the same operations, in the same order, as in
    :func:`admm`. A result's ``seconds`` is the time of the iterations up to its stop (the
    caller's time between two results is not counted).
    """
    start = time.perf_counter()
    busy = 0.0
    run = _Iterations(factor, problems, rho)
    tol_abs = np.array([float(r[0]) for r in rules])
    tol_rel = np.array([float(r[1]) for r in rules])
    caps = np.array([int(r[2]) for r in rules])
    base = run.root_n * tol_abs  # each rule's sqrt(n) tol_abs, as admm computes it
    rel_dual = tol_rel * rho  # tol_rel rho, multiplied first as in admm
    active = np.arange(len(rules))
    while active.size:
        run.step()
        largest = np.maximum(np.linalg.norm(run.beta, axis=0), np.linalg.norm(run.z, axis=0))
        u_norm = np.linalg.norm(run.u, axis=0)
        eps_pri = base[active, None] + tol_rel[active, None] * largest
        eps_dual = base[active, None] + rel_dual[active, None] * u_norm
        met = (np.all(run.r_norm <= eps_pri, axis=1)
               & np.all(run.s_norm <= eps_dual, axis=1))
        stop = met | (caps[active] <= run.n_iter)
        if stop.any():
            busy += time.perf_counter() - start
            for i, ok in zip(active[stop], met[stop], strict=True):
                yield int(i), run.result(bool(ok), busy)
            start = time.perf_counter()
            active = active[~stop]


class _Twins:
    """What the models that stopped at one iterate of one shared trajectory have in common:
    they are one function (only their tolerances, cap and ``converged_`` differ), so their
    biases and support are computed once, and so are their rank functions on given rows: a
    memo of the last :data:`_TWIN_MEMO` row sets scored, keyed by the rows' shape and bytes
    (never by the array's identity, so rows changed in place are scored anew). ``scoring``:
    the pass's shared scoring (:class:`_PassScores`), which fills the memo of every function
    of the pass at once."""

    def __init__(self, scoring: _PassScores | None = None) -> None:
        self.finished: tuple[np.ndarray, np.ndarray, float] | None = None  # b, support, secs
        self.coef: np.ndarray | None = None  # z on the support, as the models keep it
        self.scores: dict[tuple, np.ndarray] = {}
        self.scoring = scoring

    def prepare(self, factor: tuple[np.ndarray, bool], rho: float, problems: RankProblems,
                result: ADMMResult) -> None:
        """The function's biases, support and coefficients from its stop (what ``_finish``
        computes for a lone fit, by the same calls), and its place in the pass's scoring."""
        start = time.perf_counter()
        b = intercepts(kernel_times(factor, rho, result.z), result.z, problems)
        support = np.flatnonzero(np.any(result.z != 0.0, axis=1))
        self.finished = (b, support, time.perf_counter() - start)
        self.coef = np.ascontiguousarray(result.z[support])
        if self.scoring is not None and support.size:  # no support: the lone path's error
            self.scoring.functions.append(self)

    @staticmethod
    def key(X: np.ndarray) -> tuple:
        data = np.ascontiguousarray(X)
        return (data.shape, data.dtype.str, hashlib.blake2b(data.tobytes()).digest())

    def remember(self, key: tuple, scores: np.ndarray) -> None:
        if len(self.scores) >= _TWIN_MEMO:
            self.scores.pop(next(iter(self.scores)))  # the oldest
        self.scores[key] = scores


class _PassScores:
    """The rank functions of every function of one pass (one training set, one kappa) on the
    same rows, computed together: each chunk of rows has ONE kernel against all the pass's
    training rows, and each function takes its support's columns of it and multiplies them by
    its own coefficients (one product per function, of the same shape as the lone model's,
    so that the rounding of that product is the lone model's). The kernel chunk is dropped
    after its products: the memos hold only each function's (rows, p) values."""

    def __init__(self, X: np.ndarray, kappa: float) -> None:
        self.X, self.kappa = X, float(kappa)
        self.functions: list[_Twins] = []

    def score(self, key: tuple, X: np.ndarray) -> None:
        """Fill the memo of every function of the pass that lacks the rows ``X`` (``key``)."""
        pending = [t for t in self.functions if key not in t.scores]
        outs = [np.empty((X.shape[0], t.coef.shape[1])) for t in pending]  # type: ignore
        for r0 in range(0, X.shape[0], _CHUNK_ROWS):  # bounded memory: one kernel slab
            rows = slice(r0, r0 + _CHUNK_ROWS)
            K = gaussian_kernel(X[rows], self.X, self.kappa)
            for twins, out in zip(pending, outs, strict=True):
                out[rows] = K[:, twins.finished[1]] @ twins.coef  # type: ignore[index]
        for twins, out in zip(pending, outs, strict=True):
            out += twins.finished[0]  # type: ignore[index]
            twins.remember(key, out)


def _trajectory(labels: LabeledSplit, factor: tuple[np.ndarray, bool], models: list[Any],
                positions: list[int]) -> dict[int, Any]:
    """The stops of ``models`` (one (kappa, rho, C, eps), any tolerances and caps) on one
    shared ADMM trajectory: position -> (problems, result), or the exception that ended the
    run for the models that had not stopped yet (their lone fits would raise it too; those
    that stopped before it keep their results, as their lone fits would)."""
    out: dict[int, Any] = {}
    first = models[0]
    try:
        problems = RankProblems.build(labels.z, labels.n_classes, float(first.C),
                                      float(first.eps))
        rules = [(float(m.tol_abs), float(m.tol_rel), int(m.max_iter)) for m in models]
        for i, result in admm_path(factor, problems, float(first.rho), rules):
            # finishing a model reads z, not the last beta: a waiting model holds no more
            # than it will keep (_grid_pass_bytes)
            out[positions[i]] = (problems, replace(result, beta=_DROPPED))
    except Exception as exc:  # noqa: BLE001 - handed to each model still running
        for pos in positions:
            out.setdefault(pos, exc)
    return out


def kernel_factor(X: np.ndarray, kappa: float, rho: float) -> tuple[np.ndarray, bool]:
    """``cho_factor(K + rho I)`` (upper) of the kernel of the rows X, built in row blocks and
    factored in place: one n x n array."""
    n = X.shape[0]
    K = np.empty((n, n))
    for r0 in range(0, n, _CHUNK_ROWS):
        K[r0:r0 + _CHUNK_ROWS] = gaussian_kernel(X[r0:r0 + _CHUNK_ROWS], X, kappa)
    K[np.diag_indices(n)] += rho
    # K is symmetric, so K.T is the same matrix in Fortran order: LAPACK factors it in place.
    return scipy.linalg.cho_factor(K.T, lower=False, overwrite_a=True, check_finite=False)


def kernel_times(factor: tuple[np.ndarray, bool], rho: float, B: np.ndarray) -> np.ndarray:
    """K B = U'(U B) - rho B from the upper Cholesky factor U of K + rho I (the kernel itself was
    overwritten by the factor); only U's triangle is read."""
    c, lower = factor
    if lower:
        raise ValueError("kernel_times expects the upper factor, cho_factor(..., lower=False)")
    B = np.asfortranarray(B, dtype=np.float64)
    return dtrmm(1.0, c, dtrmm(1.0, c, B, lower=0, trans_a=0), lower=0, trans_a=1) - rho * B


def intercepts(Kz: np.ndarray, z: np.ndarray, problems: RankProblems) -> np.ndarray:
    """b_k per rank: the mean over the free support vectors, or the KKT interval's midpoint.

    ``Kz`` is K z, so f_k(x_i) = Kz[i, k] + b_k on the training rows.
    """
    in_band, yhat, lo_box, hi_box = (problems.in_band, problems.yhat, problems.lower,
                                     problems.upper)
    eps = problems.eps
    at_lo = z <= lo_box
    at_hi = z >= hi_box
    zero = z == 0.0
    free = ~(at_lo | at_hi | zero)
    # The value f_k(x_i) takes at a free support vector: eps where beta < 0 on I_k (the upper
    # side of the band), -eps where beta > 0, yhat_i elsewhere.
    target = np.where(in_band, np.where(z < 0.0, eps, -eps), yhat)
    # Bounds on f_k(x_i) at the other points.
    f_lo = np.full(z.shape, -np.inf)
    f_hi = np.full(z.shape, np.inf)
    band_zero = in_band & zero
    f_lo[band_zero], f_hi[band_zero] = -eps, eps
    f_lo[in_band & at_lo] = eps  # beta = -C1
    f_hi[in_band & at_hi] = -eps  # beta = C1
    right = yhat > 0  # R_k: box [0, C2]
    left = yhat < 0  # L_k: box [-C2, 0]
    f_lo[right & zero] = 1.0
    f_hi[right & at_hi & ~zero] = 1.0
    f_hi[left & zero] = -1.0
    f_lo[left & at_lo & ~zero] = -1.0
    b = np.empty(z.shape[1])
    for k in range(z.shape[1]):
        fr = free[:, k]
        if fr.any():
            b[k] = float(np.mean(target[fr, k] - Kz[fr, k]))
            continue
        lo = float(np.max(f_lo[:, k] - Kz[:, k]))
        hi = float(np.min(f_hi[:, k] - Kz[:, k]))
        if math.isfinite(lo) and math.isfinite(hi):
            b[k] = 0.5 * (lo + hi)
        else:  # one end only (possible away from a solution): that end
            b[k] = lo if math.isfinite(lo) else hi
    return b


class NPSVOR(GridFit, OrdaucEstimator):
    """NPSVOR (Wang et al. 2017): one proximal hyperplane per rank, label argmin_k |f_k(x)|.

    For each rank k the dual (8) is solved by the ADMM of Eqs. (11)-(18) with the stopping rule
    (19)-(20); the p ranks run side by side on one Cholesky factor of K + rho I. Prediction is
    Eq. (10). The module docstring states the primal, the dual, the iteration, the bias and
    every choice the paper leaves open. Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        C1 = C2 = C, the weights of the slacks in (4a) (the paper's comparison ties them).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2) (the paper's RBF parameter, ORCA's ``k``).
    eps : float, default=0.1
        Half-width of the insensitive band of (4b); the paper fixes 0.2 in its comparison.
    rho : float, default=1.0
        ADMM penalty of (12); any rho > 0 reaches the same optimum.
    tol_abs : float, default=1e-2
        Absolute tolerance of the stopping rule (19)-(20) (0: run ``max_iter`` iterations).
    tol_rel : float, default=1e-2
        Relative tolerance of the stopping rule (19)-(20).
    max_iter : int, default=1000
        Iteration cap of the ADMM; reaching it first emits a ConvergenceWarning.

    Attributes
    ----------
    classes_ : ndarray of shape (n_ranks,)
        The caller's labels of ranks 1..p, increasing.
    n_classes_ : int
        The number of ranks p among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    support_ : ndarray of shape (n_SV,)
        Positions, among the labeled training rows, of the rows with a nonzero coefficient in
        some rank.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Those rows.
    dual_coef_ : ndarray of shape (n_SV, n_ranks)
        The dual solution of (8) on the support vectors, one column per rank.
    intercept_ : ndarray of shape (n_ranks,)
        The biases b_k.
    n_iter_ : int
        ADMM iterations run.
    converged_ : bool
        Whether every rank met the stopping rule (19)-(20) before ``max_iter``.
    traces_ : dict of ndarray
        ``primal_residual`` and ``dual_residual``: the residuals of (19)-(20) per iteration.
    fit_seconds_ : float
        Wall seconds of this model's own fit: building and factoring the kernel, its ADMM
        iterations up to its stop, its biases; measured inside the pass when a grid pass shared
        the factor or the trajectory with other points (so the times of one pass overlap).

    Notes
    -----
    ``fit_grid(X, y, points)`` fits every (C, eps, tol_abs, tol_rel, max_iter) point of a
    (kappa, rho) from one Cholesky factorisation of K + rho I: grid points sharing kappa (and
    rho) share it, and those also sharing (C, eps) share one ADMM trajectory, whatever their
    tolerances and ``max_iter``. Each point's model is bitwise its lone fit, since the ADMM
    iterates depend on the factor only, not on how it was obtained, and not on the stopping
    rule (module docstring).
    """

    grid_shared = frozenset({"C", "eps", "tol_abs", "tol_rel", "max_iter"})

    meta = SolverMeta(display="NPSVOR", tasks=("ordinal",),
                      uses_unlabeled=False, proposed=True)
    _parameter_constraints: dict = {
        "C": [positive()], "kappa": [positive()], "eps": [nonnegative()], "rho": [positive()],
        "tol_abs": [nonnegative()], "tol_rel": [nonnegative()], "max_iter": [count()],
    }

    def __init__(self, C: float = 1.0, kappa: float = 1.0, eps: float = 0.1, rho: float = 1.0,
                 tol_abs: float = 1e-2, tol_rel: float = 1e-2, max_iter: int = 1000) -> None:
        self.C = C
        self.kappa = kappa
        self.eps = eps
        self.rho = rho
        self.tol_abs = tol_abs
        self.tol_rel = tol_rel
        self.max_iter = max_iter

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """The kernel (n^2 d), its Cholesky factor (n^3 / 3) and the ADMM iterations' solves
        (n^2 per iteration and rank, counted as 100 of them)."""
        n = float(n_samples)
        return n ** 2 * n_features + n ** 3 / 3 + 100 * n ** 2

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """One n x n float64 kernel, factored in place (the Cholesky factor overwrites it), the
        kernel's row blocks while it is built (two blocks of at most 2048 x n), about ten n x p
        float64 ADMM arrays (z, u, beta, the solve's output and temporaries, the problems'
        masks and boxes; p budgeted at 32 ranks) and two float64 copies of X."""
        n = int(n_samples)
        block = min(n, _CHUNK_ROWS)
        return int(8 * (n * n + 2 * block * n + 10 * n * _RANKS_BUDGET
                        + 2 * n * int(n_features)))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: np.ndarray, y: np.ndarray) -> NPSVOR:
        """Solve the p duals (8) on the labeled rows of X and set the biases.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows; a sparse matrix is densified once.
        y : array-like of shape (n_samples,)
            Consecutive integer ranks, -1 for an unlabeled row (ignored).

        Returns
        -------
        self : NPSVOR
            The fitted estimator.
        """
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y)
        start = time.perf_counter()
        X = X[labels.labeled]
        factor = kernel_factor(X, self.kappa, float(self.rho))
        return self._fit_from_factor(X, labels, factor, time.perf_counter() - start)

    def _fit_from_factor(self, X: np.ndarray, labels: LabeledSplit,
                         factor: tuple[np.ndarray, bool], factor_seconds: float = 0.0
                         ) -> NPSVOR:
        """The ADMM and the biases on the labeled rows ``X``, given ``factor`` =
        :func:`kernel_factor` of X with this model's kappa and rho (read, never written): what
        ``fit`` and a grid pass share. ``factor_seconds``: what building the factor took."""
        problems = RankProblems.build(labels.z, labels.n_classes, float(self.C),
                                      float(self.eps))
        result = admm(factor, problems, float(self.rho), float(self.tol_abs),
                      float(self.tol_rel), int(self.max_iter))
        return self._finish(X, labels, factor, problems, result, factor_seconds)

    def _finish(self, X: np.ndarray, labels: LabeledSplit, factor: tuple[np.ndarray, bool],
                problems: RankProblems, result: ADMMResult, factor_seconds: float,
                twins: _Twins | None = None) -> NPSVOR:
        """The fitted attributes from the ADMM's ``result``: the biases, the support vectors,
        the residual log, and the ConvergenceWarning of a run cut by ``max_iter``. ``twins``:
        what the models stopped at the same iterate share (the biases and support computed by
        the first of them; each model keeps its own copies)."""
        start = time.perf_counter()
        if twins is not None:
            if twins.finished is None:
                twins.prepare(factor, float(self.rho), problems, result)
            b, support, finishing = twins.finished  # type: ignore[misc]
            b, support = b.copy(), support.copy()
        else:
            b = intercepts(kernel_times(factor, float(self.rho), result.z), result.z, problems)
            support = np.flatnonzero(np.any(result.z != 0.0, axis=1))
            finishing = time.perf_counter() - start
        self.classes_ = labels.classes
        self.n_classes_ = labels.n_classes
        self.support_ = support
        self.support_vectors_ = X[support]
        self.dual_coef_ = np.ascontiguousarray(result.z[support])
        self.intercept_ = b
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        # per iteration, for a run that records curves (Theorem 1: at least linear with zero
        # tolerances)
        self.traces_ = {"primal_residual": result.primal, "dual_residual": result.dual}
        self._twins = twins
        # its lone fit's time: the biases count whether this model or a twin computed them
        self.fit_seconds_ = factor_seconds + result.seconds + finishing
        if not result.converged:
            warnings.warn(f"NPSVOR's ADMM stopped at max_iter={self.max_iter} before every rank "
                          "met the stopping rule (19)-(20); raise max_iter or the tolerances",
                          ConvergenceWarning, stacklevel=4)
        return self

    # -- many grid points at once (ordauc.solvers.gridfit) -----------------------------------
    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, np.float64)
        return GridData(X, y, split_labels(y), validated)

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict) -> Any:
        """The models of one (kappa, rho) on one shared factor, in order (an iterator: each
        is finished when it is asked for, see :meth:`_pass_models`)."""
        key = ("npsvor", float(models[0].kappa), float(models[0].rho))
        if len(models) == 1 and key not in cache:  # nothing to share: the lone fit
            return [fit_alone(models[0], data)]
        if key not in cache:
            cache.clear()  # one (kappa, rho) at a time: the memory _grid_pass_bytes states
            start = time.perf_counter()
            X = data.X[data.labels.labeled]
            try:
                factor: Any = kernel_factor(X, models[0].kappa, float(models[0].rho))
            except Exception as exc:  # every lone fit of the pass would raise it too
                factor = exc
            cache[key] = (X, factor, time.perf_counter() - start)
        X, factor, seconds = cache[key]
        if isinstance(factor, Exception):
            return [factor] * len(models)
        return self._pass_models(data, models, X, factor, seconds)

    def _pass_models(self, data: GridData, models: list[Any], X: np.ndarray,
                     factor: tuple[np.ndarray, bool], factor_seconds: float
                     ) -> Iterator[Any]:
        """Each model of the pass (or its exception), in order. The models that differ only
        in (tol_abs, tol_rel, max_iter) share one ADMM trajectory (:func:`admm_path`), run
        when the first of them is asked for; a model alone with its (C, eps) runs its own.
        Finishing each model when it is asked for lets a caller see the warnings of each
        (a run cut by ``max_iter``) as it would see them from the lone fit."""
        groups: dict[tuple[float, float], list[int]] = {}
        for pos, est in enumerate(models):
            groups.setdefault((float(est.C), float(est.eps)), []).append(pos)
        stops: dict[int, Any] = {}  # position -> (problems, its stop on a shared trajectory)
        twins: dict[tuple[float, float, int], _Twins] = {}  # per stopping iterate
        scoring = _PassScores(X, float(models[0].kappa))  # the pass's rows and kernel
        for pos, est in enumerate(models):
            members = groups[(float(est.C), float(est.eps))]
            try:
                if len(members) == 1:
                    est._fit_from_factor(X, data.labels, factor, factor_seconds)
                else:
                    if pos not in stops:
                        run = _trajectory(data.labels, factor, [models[i] for i in members],
                                          members)
                        stops.update(run)
                        # every stop's function now, so that the first model scored scores
                        # them all (_PassScores); a failure is left to the model's own finish
                        for i, stop in run.items():
                            if isinstance(stop, Exception):
                                continue
                            same = twins.setdefault(
                                (float(models[i].C), float(models[i].eps), stop[1].n_iter),
                                _Twins(scoring))
                            if same.finished is None:
                                try:
                                    same.prepare(factor, float(models[i].rho), *stop)
                                except Exception:  # noqa: BLE001, S112 - raised again there
                                    same.finished = same.coef = None
                    stop = stops.pop(pos)
                    if isinstance(stop, Exception):
                        yield stop
                        continue
                    same = twins.setdefault((float(est.C), float(est.eps), stop[1].n_iter),
                                            _Twins(scoring))
                    est._finish(X, data.labels, factor, *stop, factor_seconds, same)
            except Exception as exc:  # this point's own failure; the others go on
                yield exc
                continue
            copy_input_attributes(data.validated, est)
            yield est

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        """Shared: the n x n factor (the kernel, factored in place), the kernel's row blocks
        while it is built, the copy of the labeled rows, and the workspace of the one ADMM
        running (about ten n x p float64 arrays, p budgeted at 32 ranks, and its two residual
        lists of Python floats). Each model keeps its support vectors (at most n x d), its
        coefficients (at most n x p), its biases and its two residual traces (``max_iter``
        float64 each); a model that waits on a shared trajectory to be finished holds its
        stopping iterate z (n x p) and its traces, no more than it keeps. n counts every row:
        the unlabeled rows are dropped before the kernel is built, but the bound does not rely
        on knowing how many there are."""
        n, d, p = int(n_samples), int(n_features), _RANKS_BUDGET
        block = min(n, _CHUNK_ROWS)
        iters = max(int(m.max_iter) for m in models)
        fixed = 8 * (n * n + 2 * block * n + n * d + 10 * n * p + n) + 2 * 32 * iters
        kept = 8 * (n * d + n * p + p + 2 * iters)
        return PassBytes(fixed, kept, kept)

    def _grid_data_bytes(self, n_samples: int, n_features: int) -> int:
        """The validated float64 copy of X (the labeled rows' copy is a pass's)."""
        return 8 * int(n_samples) * int(n_features)

    def rank_functions(self, X: np.ndarray) -> np.ndarray:
        """(n, p): f_k(x) = sum_i beta_ik K(x, x_i) + b_k (Eq. 9) for every rank k."""
        X = predict_input(self, X, np.float64)
        twins = getattr(self, "_twins", None)  # a model stopped where others of its pass did
        if twins is not None:
            key = twins.key(X)
            if key in twins.scores:  # a twin scored these rows: the same function, same values
                return twins.scores[key].copy()
            if twins.scoring is not None and twins in twins.scoring.functions:
                twins.scoring.score(key, X)  # every function of the pass, one kernel per chunk
                return twins.scores[key].copy()
        out = np.empty((X.shape[0], self.dual_coef_.shape[1]))
        for r0 in range(0, X.shape[0], _CHUNK_ROWS):  # bounded memory: one kernel slab at a time
            rows = slice(r0, r0 + _CHUNK_ROWS)
            out[rows] = (gaussian_kernel(X[rows], self.support_vectors_, self.kappa)
                         @ self.dual_coef_)
        out += self.intercept_
        if twins is not None:
            twins.remember(key, out.copy())
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Labels as in ``classes_``: the rank of the nearest hyperplane, argmin_k |f_k(x)| (10)."""
        f = self.rank_functions(X)
        return self.classes_[np.argmin(np.abs(f), axis=1)]
