"""SAMULT (Xie & Li 2018) and its multi-class wrapper M-SAMULT (AAAI 2020 baselines).

SAMULT minimises the same objective as QSG-S2AUC exactly in the RKHS (docs/algorithms.md,
section 3):
L(f) = lam/2 ||f||_H^2 + R_PNU(f), with f = sum_i beta_i k(x_i, .) over all n = |L| + |U|
training points and k(x, x') = exp(-sigma ||x - x'||^2). Every risk is a mean over a complete
bipartite pair set A x B, whose squared loss is a quadratic form in f = K beta:
sum_{a,b} w/(|A||B|) (1 - f_a + f_b)^2 = f^T Lap f - 2 v^T f + w, with Lap_AA += w/|A| I,
Lap_BB += w/|B| I, Lap_AB = Lap_BA^T -= w/(|A||B|) 1 1^T, v_A += w/|A|, v_B -= w/|B|.
Setting the gradient to zero gives one n x n solve, (Lap K + lam/2 I) beta = v: O(n^3) time and
O(n^2) memory, the cost the QSG papers set out to avoid.

Given ordinal labels 1..k, ``SAMULT`` solves the QS3ORAO objective (AAAI 2020 Eq. 9: one ranking
function, all k-1 subproblems) exactly; ``MSAMULT`` is the papers' M-SAMULT: k-1 independent
binary SAMULT models, model j on subproblem j ({y > j} against {y <= j}, U shared).
Choices left open: the weights are those of the QSG objective (gamma on R_PN, 1-gamma on
R_PU + R_NU - 1/2), so that QSG-S2AUC is the scalable SAMULT; thresholds for ``predict`` come from
the same all-threshold fit as QS3ORAO. ``fit_memory_bytes`` states the O(n^2) memory, so the
runner skips a cell that cannot fit before it starts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
from sklearn.base import _fit_context, clone
from sklearn.metrics.pairwise import euclidean_distances

from ordauc.solvers._base import (
    GammaWeights,
    OrdaucEstimator,
    SolverMeta,
    positive,
    spec_values,
)
from ordauc.solvers._labels import LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.gridfit import (
    GridData,
    GridFit,
    PassBytes,
    copy_input_attributes,
    fit_alone,
)
from ordauc.solvers.kernel.multi import OneModelPerSubproblem
from ordauc.solvers.objective import gamma_vector, labeled_pairs_only, objective
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

_CHUNK_ROWS = 2048


def gaussian_kernel(A: np.ndarray, B: np.ndarray, sigma: float) -> np.ndarray:
    """exp(-sigma ||a - b||^2), float64."""
    D = euclidean_distances(np.asarray(A, np.float64), np.asarray(B, np.float64), squared=True)
    np.multiply(D, -sigma, out=D)
    return np.exp(D, out=D)


def _pair_sets(k: int, gamma: np.ndarray, has_u: bool
               ) -> list[tuple[list[int], list[int], float]]:
    """(A cells, B cells, w) for every pair set of 1/(k-1) sum_j R_PNU^j.

    A cell is a class c in 1..k of the labeled points, or 0 for the unlabeled points."""
    sets = []
    for j in range(1, k):
        P, N = list(range(j + 1, k + 1)), list(range(1, j + 1))
        sets.append((P, N, gamma[j - 1] / (k - 1)))
        if has_u and gamma[j - 1] < 1.0:
            w = (1.0 - gamma[j - 1]) / (k - 1)
            sets += [(P, [0], w), ([0], N, w)]
    return sets


def cell_structure(labels: LabeledSplit, gamma: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(cell, diag, v, C): Lap = diag(diag[cell]) - E C E^T and v = v[cell], with E the n x (k+1)
    indicator of the cells (cell 0 the unlabeled rows, c the labeled class c).

    Every pair set A x B of weight w adds w/|A| to diag and v on A, w/|B| to diag and -w/|B| to
    v on B, and w/(|A||B|) to C between A and B (both orders)."""
    n, k = labels.labeled.size + labels.unlabeled.size, labels.n_classes
    cell = np.zeros(n, dtype=np.int64)  # 0 = unlabeled, c = labeled class c
    cell[labels.labeled] = labels.z
    size = np.bincount(cell, minlength=k + 1).astype(np.float64)
    diag = np.zeros(k + 1)
    v = np.zeros(k + 1)
    C = np.zeros((k + 1, k + 1))
    for A, B, w in _pair_sets(k, gamma, labels.unlabeled.size > 0):
        nA, nB = size[A].sum(), size[B].sum()
        if w == 0.0 or nA == 0 or nB == 0:
            continue
        diag[A] += w / nA
        diag[B] += w / nB
        v[A] += w / nA
        v[B] -= w / nB
        C[np.ix_(A, B)] += w / (nA * nB)
        C[np.ix_(B, A)] += w / (nA * nB)
    return cell, diag, v, C


def solve_exact(K: np.ndarray, labels: LabeledSplit, gamma: np.ndarray, lam: float
                ) -> np.ndarray:
    """beta solving (Lap K + lam/2 I) beta = v. K is overwritten (no second n x n array).

    Lap is diagonal plus a part that is constant within each cell (:func:`cell_structure`), so
    Lap K is built in row chunks from the per-cell column sums of K, in O(n^2) time and O(n)
    extra memory per row.
    """
    n, k = K.shape[0], labels.n_classes
    cell, diag, v, C = cell_structure(labels, gamma)
    low = C @ cell_sums(K, cell, k)  # (k+1, n): the row subtracted from Lap K, per cell
    for r0 in range(0, n, _CHUNK_ROWS):
        rows = slice(r0, r0 + _CHUNK_ROWS)
        K[rows] *= diag[cell[rows]][:, None]
        K[rows] -= low[cell[rows]]
    K[np.diag_indices(n)] += lam / 2.0
    return scipy.linalg.solve(K, v[cell], overwrite_a=True, check_finite=False)


def cell_sums(K: np.ndarray, cell: np.ndarray, k: int) -> np.ndarray:
    """(k+1, n): the sum of the rows of K in each cell."""
    onehot = np.zeros((k + 1, K.shape[0]))
    onehot[cell, np.arange(K.shape[0])] = 1.0
    return onehot @ K


class KernelPath:
    """One kernel matrix and one eigendecomposition serving every (gamma, lam) of a grid.

    The system (Lap K + c I) beta = v, c = lam/2, with Lap = D - E C E^T
    (:func:`cell_structure`), is split as B - E C W with B = D K + c I and W = E^T K, the
    per-cell column sums (rank k+1). D is constant on the unlabeled cell, D_U = delta I, so the
    unlabeled block of B is delta K_UU + c I = Q (delta Lambda + c I) Q^T with K_UU = Q Lambda
    Q^T computed once per sigma, whatever gamma (delta) and lam (c). Then:

    - B^{-1} on the columns [v, E] by block elimination of the unlabeled block: an n_l x n_l
      system D_L (K_LL - delta M S M^T) + c I with M = K_LU Q (once per sigma) and S =
      (delta Lambda + c I)^{-1} diagonal, O(n_l^2 n_u) per point;
    - the rank-(k+1) part by the bordered system z = W beta: (I - W B^{-1} E C) z = W B^{-1} v,
      beta = B^{-1} (v + E C z).

    Why not a symmetric similar form of Lap K (Lap^1/2 K Lap^1/2 needs Lap invertible, K^1/2 Lap
    K^1/2 needs K^-1/2 of a numerically singular Gaussian kernel) nor a Hessenberg form of
    Lap K (one per gamma, 10/3 n^3 each, as dear as five solves, for 7 lam values): K_UU does
    not depend on gamma or lam, so one symmetric eigendecomposition per sigma serves the whole
    grid (and, in M-SAMULT, every subproblem: the unlabeled rows are the same). Every step is
    backward stable (eigh, an LU of a well-conditioned n_l x n_l system since c >= lam/2 > 0);
    the result matches the direct solve to about eps * cond(Lap K + c I).
    """

    def __init__(self, X: np.ndarray, labels: LabeledSplit, sigma: float) -> None:
        L, U = labels.labeled, labels.unlabeled
        self.K = gaussian_kernel(X, X, sigma)
        self.K_LL = self.K[np.ix_(L, L)]
        if U.size:
            self.lam_u, self.Q = scipy.linalg.eigh(self.K[np.ix_(U, U)], overwrite_a=True,
                                                   check_finite=False, driver="evr")
        else:
            self.lam_u, self.Q = np.zeros(0), np.zeros((0, 0))
        self.M = self.K[np.ix_(L, U)] @ self.Q
        self.q_one = self.Q.sum(axis=0)  # Q^T 1_U

    def solve(self, labels: LabeledSplit, gamma: np.ndarray, lam: float) -> np.ndarray:
        """beta of (Lap K + lam/2 I) beta = v for the gamma_j ``gamma`` (same as
        :func:`solve_exact` up to rounding)."""
        L, U, k = labels.labeled, labels.unlabeled, labels.n_classes
        cell, diag, v, C = cell_structure(labels, gamma)
        c, delta = lam / 2.0, diag[0]
        d_l = diag[cell[L]]
        s = 1.0 / (delta * self.lam_u + c)
        Ms = self.M * s
        A_l = self.K_LL - delta * (Ms @ self.M.T)
        A_l *= d_l[:, None]
        A_l[np.diag_indices(L.size)] += c
        # right-hand sides [v, E]: labeled rows, and Q^T of the unlabeled rows
        R_l = np.zeros((L.size, k + 2))
        R_l[:, 0] = v[cell[L]]
        R_l[np.arange(L.size), 1 + cell[L]] = 1.0
        QR_u = np.zeros((U.size, k + 2))
        QR_u[:, 0] = v[0] * self.q_one
        QR_u[:, 1] = self.q_one
        R_l -= d_l[:, None] * (Ms @ QR_u)
        Y = np.empty((cell.size, k + 2))
        Y[L] = scipy.linalg.solve(A_l, R_l, check_finite=False)
        Y[U] = self.Q @ (s[:, None] * (QR_u - delta * (self.M.T @ Y[L])))
        WY = cell_sums(self.K, cell, k) @ Y  # (k+1, k+2)
        z = scipy.linalg.solve(np.eye(k + 1) - WY[:, 1:] @ C, WY[:, 0], check_finite=False)
        return Y[:, 0] + Y[:, 1:] @ (C @ z)


class SAMULT(GridFit, ThresholdLabels, OrdaucEstimator):
    """SAMULT: exact kernel semi-supervised AUC optimisation (Xie & Li 2018), one ranking f.

    The solve is deterministic: no seed.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight lambda of L(f).
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - x'||^2).
    gamma : float or list of float, default=0.5
        Weight of R_PN against R_PU + R_NU - 1/2 (a list: one gamma_j per subproblem).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,)
        beta, f = sum_i beta_i k(x_i, .).
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training rows.
    thresholds_ : ndarray of shape (n_classes - 1,)
        All-threshold fit on the labeled scores.
    objective_ : float
        L(f) at the solution.
    classes_ : ndarray of shape (n_classes,)
        The labels of the classes, increasing.
    n_classes_ : int
        Number of classes k.

    Notes
    -----
    ``fit_grid(X, y, points)`` fits every (lam, gamma) point of a sigma from one kernel matrix
    and one eigendecomposition (:class:`KernelPath`), equal to lone fits to ~1e-13 relative.
    """

    grid_shared = frozenset({"lam", "gamma"})

    meta = SolverMeta(display="SAMULT", tasks=("binary", "ordinal"),
                      uses_unlabeled=True)
    _parameter_constraints: dict = {
        "lam": [positive()], "sigma": [positive()], "gamma": [GammaWeights()],
    }

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float | list[float] = 0.5
                 ) -> None:
        self.lam = lam
        self.sigma = sigma
        self.gamma = gamma

    @classmethod
    def reads_unlabeled(cls, params: dict[str, Any], grid: dict[str, list[Any]]) -> bool:
        """False when every gamma the spec can take is 1 for every subproblem (the default is
        0.5): no pair set then holds an unlabeled row, the rows of the unlabeled points in
        (Lap K + lam/2 I) beta = v reduce to lam/2 beta_u = 0, and f is the minimiser on the
        labeled rows alone (the same function, computed by a smaller solve: equal up to
        rounding). Such a spec is run as a supervised one."""
        return not labeled_pairs_only(spec_values(cls, "gamma", params, grid))

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Distances, kernel and the in-place solve peak at about two n x n float64 arrays,
        beside the float64 copy of X."""
        return int(2 * 8 * n_samples ** 2 + 8 * n_samples * n_features)

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """The n x n kernel (n^2 d) and its dense solve (n^3 / 3)."""
        n = float(n_samples)
        return n ** 2 * n_features + n ** 3 / 3

    def pass_cost(self, n_samples: int, n_features: int, n_unlabeled: int
                  ) -> tuple[float, float]:
        """(shared, per-model) work of a grid pass (:class:`KernelPath`), for the dry run's
        estimate: the kernel (n^2 d), the eigendecomposition of K_UU (about 4 n_u^3) and
        M = K_LU Q (n_l n_u^2) once; per model, the n_l x n_l system (n_l^2 n_u to form,
        n_l^3 / 3 to solve) and the products with K and Q (a few n^2). With few labeled rows
        the models cost n^2 each while the shared part grows as n_u^3."""
        n, n_u = float(n_samples), float(min(n_unlabeled, n_samples))
        n_l = n - n_u
        return (n * n * n_features + 4 * n_u ** 3 + n_l * n_u * n_u,
                n_l * n_l * n_u + n_l ** 3 / 3 + 4 * n * n)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: np.ndarray, y: np.ndarray) -> SAMULT:
        """Solve (Lap K + lam/2 I) beta = v; ``y == -1`` marks unlabeled rows."""
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y)
        gamma = gamma_vector(self.gamma, labels.n_classes)
        K = gaussian_kernel(X, X, self.sigma)
        self.dual_coef_ = solve_exact(K, labels, gamma, self.lam)
        self.X_fit_ = X
        return self._finish(labels, gamma, self.decision_function(X))

    def _finish(self, labels: LabeledSplit, gamma: np.ndarray, f: np.ndarray) -> SAMULT:
        """Thresholds and objective from f on the training rows."""
        self.n_classes_ = labels.n_classes
        self.classes_ = labels.classes
        self.thresholds_ = fit_thresholds(f[labels.labeled], labels.z, labels.n_classes)
        self.objective_ = objective(f[labels.labeled], labels.z, f[labels.unlabeled],
                                    float(self.dual_coef_ @ f), self.lam, gamma,
                                    labels.n_classes)
        return self

    # -- many grid points at once (ordauc.solvers.gridfit) -----------------------------------
    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, np.float64)
        return GridData(X, y, split_labels(y), validated)

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict) -> list[Any]:
        key = ("samult", float(models[0].sigma))
        if len(models) == 1 and key not in cache:  # one solve is cheaper than a decomposition
            return [fit_alone(models[0], data)]
        if key not in cache:
            cache.clear()  # one sigma at a time: the memory _grid_pass_bytes states
            cache[key] = KernelPath(data.X, data.labels, float(models[0].sigma))
        path = cache[key]
        out: list[Any] = []
        for est in models:
            try:
                gamma = gamma_vector(est.gamma, data.labels.n_classes)
                est.dual_coef_ = path.solve(data.labels, gamma, float(est.lam))
                est.X_fit_ = data.X
                copy_input_attributes(data.validated, est)
                out.append(est._finish(data.labels, gamma, path.K @ est.dual_coef_))
            except Exception as exc:  # e.g. a gamma list of the wrong length
                out.append(exc)
        return out

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        """K, the eigendecomposition of K_UU (its input copy and Q) and M = K_LU Q are shared;
        each point needs a few vectors of n and its n_l x n_l system, and keeps beta."""
        n, n_u = n_samples, min(n_unlabeled, n_samples)
        fixed = 8 * (n * n + 2 * n_u * n_u + (n - n_u) * n_u + 32 * n)
        per = 8 * (12 * n + 2 * (n - n_u) ** 2)
        return PassBytes(fixed, per, 8 * n)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """f(x) = sum_i beta_i k(x_i, x), shape (n,)."""
        X = predict_input(self, X, np.float64)
        out = np.empty(X.shape[0])
        for r0 in range(0, X.shape[0], _CHUNK_ROWS):  # bounded memory: one kernel slab at a time
            out[r0:r0 + _CHUNK_ROWS] = (gaussian_kernel(X[r0:r0 + _CHUNK_ROWS], self.X_fit_,
                                                        self.sigma) @ self.dual_coef_)
        return out


class MSAMULT(OneModelPerSubproblem):
    """M-SAMULT: k-1 binary SAMULT models, one per ordinal subproblem (AAAI 2020 baseline).

    Model j is SAMULT on {labeled y > j} against {labeled y <= j}, the unlabeled rows shared,
    with gamma_j (``gamma`` may be a list of k-1 values). The constructor and parameters are
    :class:`SAMULT`'s.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight lambda of every model.
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - x'||^2).
    gamma : float or list of float, default=0.5
        Weight of R_PN against R_PU + R_NU - 1/2; a list gives model j its gamma_j.
    """

    base = SAMULT
    meta = SolverMeta(display="M-SAMULT", tasks=("ordinal",),
                      uses_unlabeled=True, wrapper_of="samult")
