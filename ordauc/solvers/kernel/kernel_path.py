"""The exact linear algebra of SAMULT (docs/algorithms.md, section 3): the Gaussian kernel, the
structure of the pair-set Laplacian, the direct solve of one point and the path that serves a
whole (lam, gamma) grid of one sigma from one eigendecomposition, for one training set
(:class:`KernelPath`) or for a cross-validation fold from the whole training data's
(:class:`FoldPath`). The estimators are in :mod:`ordauc.solvers.kernel.samult`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from sklearn.metrics.pairwise import euclidean_distances

from ordauc.solvers._labels import LabeledSplit
from ordauc.solvers.gridfit import GridData

__all__ = ["CHUNK_ROWS", "FoldPath", "KernelPath", "cell_structure", "cell_sums", "fold_rows",
           "gaussian_kernel", "solve_exact"]

CHUNK_ROWS = 2048


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
    for r0 in range(0, n, CHUNK_ROWS):
        rows = slice(r0, r0 + CHUNK_ROWS)
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
        self._sums: tuple[np.ndarray, np.ndarray] | None = None

    def cell_sums(self, cell: np.ndarray, k: int) -> np.ndarray:
        """W = E^T K, (k+1, n), kept for the last cells asked (every point of a pass has the
        same cells: their labels)."""
        if self._sums is None or not np.array_equal(self._sums[0], cell) \
                or self._sums[1].shape[0] != k + 1:
            self._sums = (cell.copy(), self._cell_sums(cell, k))
        return self._sums[1]

    def _cell_sums(self, cell: np.ndarray, k: int) -> np.ndarray:
        return cell_sums(self.K, cell, k)

    def kernel_dot(self, beta: np.ndarray) -> np.ndarray:
        """K beta: f on the training rows."""
        return self.K @ beta

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
        WY = self.cell_sums(cell, k) @ Y  # (k+1, k+2)
        z = scipy.linalg.solve(np.eye(k + 1) - WY[:, 1:] @ C, WY[:, 0], check_finite=False)
        return Y[:, 0] + Y[:, 1:] @ (C @ z)


class FoldPath(KernelPath):
    """The :class:`KernelPath` of a cross-validation fold, from the blocks of the whole data's.

    The folds of the inner CV keep every unlabeled row on the fitting side, so a fold's K_UU,
    and with it the eigendecomposition Q Lambda Q^T, is the whole data's; the fold's other
    blocks are rows of the whole's: K_LL[f, f] and M[f] = K_{fU} Q for its labeled rows f. The
    solve needs the fold's K only through W = E^T K and f = K beta, taken from the whole K with
    the rows outside the fold weighted zero. One decomposition per sigma thus serves every fold
    (and every subproblem of M-SAMULT); a fold's solution equals its own path's to rounding.

    Parameters
    ----------
    whole : KernelPath
        The path of the whole training data.
    rows : ndarray of shape (n_fit,)
        The fold's rows in the whole data; its unlabeled rows must be the whole's, in order.
    labels : LabeledSplit
        The fold's labels.
    at : ndarray of shape (n_whole,)
        The position of each whole row among the whole's labeled rows (-1: unlabeled).
    """

    def __init__(self, whole: KernelPath, rows: np.ndarray, labels: LabeledSplit,
                 at: np.ndarray) -> None:
        self.whole, self.rows = whole, rows
        fl = at[rows[labels.labeled]]  # the fold's labeled rows among the whole's
        self.K_LL = whole.K_LL[np.ix_(fl, fl)]
        self.M = whole.M[fl]
        self.lam_u, self.Q, self.q_one = whole.lam_u, whole.Q, whole.q_one
        self._sums = None

    def _cell_sums(self, cell: np.ndarray, k: int) -> np.ndarray:
        onehot = np.zeros((k + 1, self.whole.K.shape[0]))
        onehot[cell, self.rows] = 1.0
        return (onehot @ self.whole.K)[:, self.rows]

    def kernel_dot(self, beta: np.ndarray) -> np.ndarray:
        spread = np.zeros(self.whole.K.shape[0])
        spread[self.rows] = beta
        return (self.whole.K @ spread)[self.rows]


def fold_rows(data: GridData) -> np.ndarray | None:
    """The fold's rows in ``data.whole`` when its path can be taken from the whole's (the same
    unlabeled rows in the same order, distinct labeled rows, the same features), else None."""
    whole = data.whole
    if whole is None or whole.data.X.dtype != np.float64:
        return None
    rows, w_labels = np.asarray(whole.rows), whole.data.labels
    if rows.ndim != 1 or rows.size != data.X.shape[0] or np.unique(rows).size != rows.size:
        return None
    if rows.size and (rows.min() < 0 or rows.max() >= whole.data.X.shape[0]):
        return None
    labels = data.labels
    if not (np.array_equal(rows[labels.unlabeled], w_labels.unlabeled)
            and np.isin(rows[labels.labeled], w_labels.labeled).all()
            and np.array_equal(whole.data.X[rows], data.X)):
        return None
    return rows
