"""SAMULT (Xie & Li 2018) and its multi-class wrapper M-SAMULT (AAAI 2020 baselines).

SAMULT minimises the same objective as QSG-S2AUC exactly in the RKHS (ALGORITHMS.md section 3):
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
the same all-threshold fit as QS3ORAO. Memory beyond ``max_memory_gb`` raises
:class:`~ordauc.errors.ResourceLimitError` instead of running.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import Tags

from ordauc.errors import ResourceLimitError
from ordauc.solvers._labels import LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.objective import gamma_vector, objective
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


def solve_exact(K: np.ndarray, labels: LabeledSplit, gamma: np.ndarray, lam: float
                ) -> np.ndarray:
    """beta solving (Lap K + lam/2 I) beta = v. K is overwritten (no second n x n array).

    Lap is diagonal plus a part that is constant within each cell, so Lap K is built in row
    chunks from the per-cell column sums of K, in O(n^2) time and O(n) extra memory per row.
    """
    n, k = K.shape[0], labels.n_classes
    cell = np.zeros(n, dtype=np.int64)  # 0 = unlabeled, c = labeled class c
    cell[labels.labeled] = labels.z
    size = np.bincount(cell, minlength=k + 1).astype(np.float64)
    onehot = np.zeros((k + 1, n))
    onehot[cell, np.arange(n)] = 1.0
    colsum = onehot @ K  # (k+1, n): sum of the rows of K in each cell
    diag = np.zeros(k + 1)  # per cell
    v = np.zeros(k + 1)
    low = np.zeros((k + 1, n))  # row vector subtracted from Lap K, per cell
    for A, B, w in _pair_sets(k, gamma, labels.unlabeled.size > 0):
        nA, nB = size[A].sum(), size[B].sum()
        if w == 0.0 or nA == 0 or nB == 0:
            continue
        diag[A] += w / nA
        diag[B] += w / nB
        v[A] += w / nA
        v[B] -= w / nB
        c = w / (nA * nB)
        low[A] += c * colsum[B].sum(axis=0)
        low[B] += c * colsum[A].sum(axis=0)
    for r0 in range(0, n, _CHUNK_ROWS):
        rows = slice(r0, r0 + _CHUNK_ROWS)
        K[rows] *= diag[cell[rows]][:, None]
        K[rows] -= low[cell[rows]]
    K[np.diag_indices(n)] += lam / 2.0
    return scipy.linalg.solve(K, v[cell], overwrite_a=True, check_finite=False)


class _ExactKernel(BaseEstimator):
    """Parameters shared by the exact kernel solvers."""

    list_params = ("gamma",)

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float | list[float] = 0.5,
                 max_memory_gb: float = 16.0, random_state: int | None = None) -> None:
        self.lam = lam
        self.sigma = sigma
        self.gamma = gamma
        self.max_memory_gb = max_memory_gb
        self.random_state = random_state  # deterministic; kept for a uniform interface

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class SAMULT(ThresholdLabels, _ExactKernel):
    """SAMULT: exact kernel semi-supervised AUC optimisation (Xie & Li 2018), one ranking f."""

    tasks = ("binary", "ordinal")

    def fit(self, X: np.ndarray, y: np.ndarray) -> SAMULT:
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y)
        n = X.shape[0]
        _check_memory(n, self.max_memory_gb, "SAMULT")
        if self.lam <= 0 or self.sigma <= 0:
            raise ValueError("lam and sigma must be positive")
        gamma = gamma_vector(self.gamma, labels.n_classes)
        K = gaussian_kernel(X, X, self.sigma)
        self.dual_coef_ = solve_exact(K, labels, gamma, self.lam)
        self.X_fit_ = X
        self.n_classes_ = labels.n_classes
        self.classes_ = labels.classes
        f = self.decision_function(X)
        self.thresholds_ = fit_thresholds(f[labels.labeled], labels.z, labels.n_classes)
        self.objective_ = objective(f[labels.labeled], labels.z, f[labels.unlabeled],
                                    float(self.dual_coef_ @ f), self.lam, gamma,
                                    labels.n_classes)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        X = predict_input(self, X, np.float64)
        out = np.empty(X.shape[0])
        for r0 in range(0, X.shape[0], _CHUNK_ROWS):  # bounded memory: one kernel slab at a time
            out[r0:r0 + _CHUNK_ROWS] = (gaussian_kernel(X[r0:r0 + _CHUNK_ROWS], self.X_fit_,
                                                        self.sigma) @ self.dual_coef_)
        return out



class MSAMULT(_ExactKernel):
    """M-SAMULT: k-1 binary SAMULT models, one per ordinal subproblem (AAAI 2020 baseline)."""

    tasks = ("ordinal",)

    def fit(self, X: np.ndarray, y: np.ndarray) -> MSAMULT:
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y, "ordinal")
        k = labels.n_classes
        gamma = gamma_vector(self.gamma, k)
        self.models_ = []
        for j in range(1, k):
            y_j = np.full(y.shape[0], -1, dtype=np.int64)
            y_j[labels.labeled] = labels.z > j  # subproblem j: above class j or not
            model = SAMULT(lam=self.lam, sigma=self.sigma, gamma=float(gamma[j - 1]),
                           max_memory_gb=self.max_memory_gb)
            self.models_.append(model.fit(X, y_j))
        self.n_classes_ = k
        self.classes_ = labels.classes
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Scores (n, k-1): column j-1 ranks subproblem j."""
        X = predict_input(self, X, np.float64)
        return np.column_stack([m.decision_function(X) for m in self.models_])

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class above as many classes as subproblems whose model says 'above'."""
        return self.predict_from_scores(self.decision_function(X))

    def predict_from_scores(self, scores: np.ndarray) -> np.ndarray:
        """``predict`` from the output of ``decision_function``."""
        above = np.column_stack([scores[:, j] > m.thresholds_[0]
                                 for j, m in enumerate(self.models_)])
        return self.classes_[above.sum(axis=1)]


def _check_memory(n: int, max_gb: float, name: str) -> None:
    # The kernel matrix is factorised in place; distances, kernel and solver workspace peak at
    # about two n x n float64 arrays.
    need = 2 * 8 * n * n / 2**30
    if need > max_gb:
        raise ResourceLimitError(f"{name} needs about {need:.1f} GB for n = {n} training points,"
                                 f" above max_memory_gb = {max_gb:g}")
