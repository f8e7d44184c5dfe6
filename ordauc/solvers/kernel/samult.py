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
runner skips a cell that cannot fit before it starts. The linear algebra (the kernel, the direct
solve, the grid path of one training set or of a cross-validation fold taken from the whole
data's) is in :mod:`ordauc.solvers.kernel.kernel_path`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import _fit_context, clone

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
from ordauc.solvers.kernel.kernel_path import (
    CHUNK_ROWS,
    FoldPath,
    KernelPath,
    cell_structure,
    cell_sums,
    fold_rows,
    gaussian_kernel,
    solve_exact,
)
from ordauc.solvers.kernel.multi import OneModelPerSubproblem
from ordauc.solvers.objective import gamma_vector, labeled_pairs_only, objective
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

# the linear algebra moved to kernel_path; these names stay importable from here
__all__ = ["MSAMULT", "SAMULT", "FoldPath", "KernelPath", "cell_structure", "cell_sums",
           "gaussian_kernel", "solve_exact"]

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
    ``iter_fit_grid_folds`` shares that decomposition across the folds of a cross-validation
    whose unlabeled rows are the same in every fold (:class:`FoldPath`), and leaves each
    model's scores on the fold's validation rows as ``tracked_decision_``.
    """

    grid_shared = frozenset({"lam", "gamma"})
    grid_fold_whole = True

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

    def cv_shared_cost(self, n_samples: int, n_features: int, n_unlabeled: int, n_folds: int
                       ) -> tuple[float, float]:
        """(once, per fold) shared work of a cross-validation whose folds share the grid path
        (:class:`FoldPath`: every fold keeps the unlabeled rows), for the dry run's estimate:
        the whole training rows' kernel, the eigendecomposition of K_UU and M = K_LU Q once for
        all the folds; per fold, its rows of M and the kernel of its validation rows."""
        n_u = float(min(n_unlabeled, n_samples))
        n_l_fold = float(n_samples) - n_u
        n_l = n_l_fold * n_folds / max(n_folds - 1, 1)  # every labeled row, across the folds
        n = n_l + n_u
        once = n * n * n_features + 4 * n_u ** 3 + n_l * n_u * n_u
        return once, n_l_fold * n_u + (n_l - n_l_fold) * n * n_features

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
        sigma = float(models[0].sigma)
        key = ("samult", sigma)
        if key not in cache:
            path = self._fold_path(data, sigma, build=len(models) > 1)
            if path is None and len(models) == 1:  # one solve is cheaper than a decomposition
                return [fit_alone(models[0], data)]
            cache.clear()  # one sigma at a time: the memory _grid_pass_bytes states
            cache[key] = path or KernelPath(data.X, data.labels, sigma)
            if isinstance(path, FoldPath) and isinstance(data.track, np.ndarray):
                cache[("samult-track", sigma)] = self._track_kernel(data.track, data.X, sigma)
        path, tracked = cache[key], cache.get(("samult-track", sigma))
        out: list[Any] = []
        for est in models:
            try:
                gamma = gamma_vector(est.gamma, data.labels.n_classes)
                est.dual_coef_ = path.solve(data.labels, gamma, float(est.lam))
                est.X_fit_ = data.X
                copy_input_attributes(data.validated, est)
                out.append(est._finish(data.labels, gamma, path.kernel_dot(est.dual_coef_)))
                if tracked is not None:
                    est.tracked_decision_ = tracked @ est.dual_coef_
            except Exception as exc:  # e.g. a gamma list of the wrong length
                out.append(exc)
        return out

    @staticmethod
    def _fold_path(data: GridData, sigma: float, build: bool) -> FoldPath | None:
        """The fold's path from the whole data's (``data.whole.shared``, one per sigma: built
        when ``build`` and not there yet), or None when the fold cannot share it."""
        rows = fold_rows(data)
        if rows is None:
            return None
        assert data.whole is not None
        shared, key = data.whole.shared, ("samult-whole", sigma)
        if key not in shared:
            if not build:
                return None
            shared.clear()  # one sigma at a time
            w_labels = data.whole.data.labels
            at = np.full(data.whole.data.X.shape[0], -1)
            at[w_labels.labeled] = np.arange(w_labels.labeled.size)
            shared[key] = (KernelPath(data.whole.data.X, w_labels, sigma), at)
        whole, at = shared[key]
        return FoldPath(whole, rows, data.labels, at)

    @staticmethod
    def _track_kernel(T: np.ndarray, X: np.ndarray, sigma: float) -> np.ndarray:
        """k(t, x) of the tracked rows against the fold's, a slab at a time as in
        :meth:`decision_function`: each model's tracked scores are then one product."""
        T = np.asarray(T, dtype=np.float64)
        slabs = [gaussian_kernel(T[r0:r0 + CHUNK_ROWS], X, sigma)
                 for r0 in range(0, T.shape[0], CHUNK_ROWS)]
        return np.vstack(slabs) if slabs else np.zeros((0, X.shape[0]))

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        """K, the eigendecomposition of K_UU (its input copy and Q) and M = K_LU Q are shared;
        each point needs a few vectors of n and its n_l x n_l system, and keeps beta."""
        n, n_u = n_samples, min(n_unlabeled, n_samples)
        fixed = 8 * (n * n + 2 * n_u * n_u + (n - n_u) * n_u + 32 * n)
        per = 8 * (12 * n + 2 * (n - n_u) ** 2)
        return PassBytes(fixed, per, 8 * n)

    def _grid_data_pass_bytes(self, data: GridData, models: list[Any]) -> PassBytes:
        """A fold that shares the whole data's path holds the whole's blocks (the fixed part
        at the whole's size), its own rows of them (K_LL, M, W) and the kernel of the tracked
        rows."""
        fixed, per, kept = super()._grid_data_pass_bytes(data, models)
        if data.whole is None:
            return PassBytes(fixed, per, kept)
        (n_w, d), n = data.whole.data.X.shape, data.X.shape[0]
        n_u = int(data.whole.data.labels.unlabeled.size)
        n_l, k = n - n_u, data.labels.n_classes
        whole = self._grid_pass_bytes(n_w, d, n_u, models).fixed
        n_track = 0 if data.track is None else int(np.shape(data.track)[0])
        own = 8 * (n_l * n_l + n_l * n_u + 2 * (k + 1) * n_w + n_track * n)
        return PassBytes(max(fixed, whole + own), per, kept)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """f(x) = sum_i beta_i k(x_i, x), shape (n,)."""
        X = predict_input(self, X, np.float64)
        out = np.empty(X.shape[0])
        for r0 in range(0, X.shape[0], CHUNK_ROWS):  # bounded memory: one kernel slab at a time
            out[r0:r0 + CHUNK_ROWS] = (gaussian_kernel(X[r0:r0 + CHUNK_ROWS], self.X_fit_,
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
