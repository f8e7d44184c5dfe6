"""The supervised reference the QSG papers never ran: an RBF SVC on the labeled rows alone.

Both QSG papers compare semi-supervised methods only with each other, so they cannot say
whether the unlabeled rows helped at all. The natural supervised reference is a kernel SVM
with the same kernel, trained on the same labeled rows and tuned on the same folds and metric:

- SVC-RBF (binary): scikit-learn's :class:`~sklearn.svm.SVC` (libsvm's C-SVC) with kernel
  exp(-sigma ||x - x'||^2), ``sigma`` on the papers' grid, ranked by its decision function
  (the signed distance to the separating surface, whose AUC is what the QSG papers report).
- M-SVC-RBF (ordinal): one SVC-RBF per subproblem {y > j} against {y <= j}, j = 1..k-1, the
  M-* construction of the QS3ORAO paper's other baselines (:mod:`.multi`), scored column by
  column by the ordinal AUC.

Choices no paper makes for this reference: libsvm's default stopping rule and 200 MB kernel
cache, no class weights (the papers' AUC losses weigh pairs, not rows; a row weighting would be
another method), and labels from the sign of the decision value, as libsvm predicts. It reads
no unlabeled row (``uses_unlabeled=False``): the runner hands it the labeled rows alone and
fits it once per labeled set.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context
from sklearn.svm import SVC

from ordauc.solvers._base import OrdaucEstimator, SolverMeta, positive
from ordauc.solvers._labels import split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.kernel.multi import OneModelPerSubproblem
from ordauc.solvers.ordinal._baseline import input_copies_bytes, libsvm_fit_bytes

__all__ = ["MSVCRBF", "SVCRBF"]


class SVCRBF(OrdaucEstimator):
    """SVC-RBF: libsvm's C-SVC with an RBF kernel on the labeled rows, ranked by its decision
    function (the QSG papers' supervised reference; see the module docstring).

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost (``SVC(C=C)``, libsvm's ``-c``).
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - x'||^2), the QSG papers' sigma (``SVC(gamma=sigma)``).

    Attributes
    ----------
    model_ : sklearn.svm.SVC
        The fitted backend, on labels 0 (the first class) and 1 (the second).
    classes_ : ndarray of shape (2,)
        The caller's labels of the two classes, increasing; the second is the positive one.
    n_features_in_ : int
        The number of features seen in fit.
    """

    _binary_only: ClassVar[bool] = True
    meta = SolverMeta(display="SVC-RBF", tasks=("binary",), uses_unlabeled=False)
    _parameter_constraints: ClassVar[dict] = {"C": [positive()], "sigma": [positive()]}

    def __init__(self, C: float = 1.0, sigma: float = 1.0) -> None:
        self.C = C
        self.sigma = sigma

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our copies of X, one libsvm solve (kernel cache, dual vectors, support vectors)."""
        return input_copies_bytes(n_samples, n_features) + libsvm_fit_bytes(n_samples,
                                                                             n_features)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> SVCRBF:
        """Fit the SVC on the labeled rows of X (rows with ``y == -1`` are ignored).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows; a sparse matrix is densified once.
        y : array-like of shape (n_samples,)
            Two classes, -1 for an unlabeled row.

        Returns
        -------
        self : SVCRBF
            The fitted estimator.
        """
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y, "binary")
        self.classes_ = labels.classes
        self.model_ = SVC(C=self.C, kernel="rbf", gamma=self.sigma).fit(
            X[labels.labeled], (labels.z == 2).astype(np.int64))
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed distances to the separating surface, shape (n,); larger is more positive."""
        X = predict_input(self, X, np.float64)  # raises before fit
        return self.model_.decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """The class on the side of the surface where x lies, as the caller's label."""
        return self.predict_from_scores(self.decision_function(X))

    def predict_from_scores(self, scores: np.ndarray) -> np.ndarray:
        """``predict`` from the output of ``decision_function``: positive above 0."""
        return self.classes_[(np.asarray(scores) > 0).astype(np.intp)]


class MSVCRBF(OneModelPerSubproblem):
    """M-SVC-RBF: k-1 SVC-RBF models, model j on {labeled y > j} against {labeled y <= j}
    (the supervised reference of the QS3ORAO study; see the module docstring).

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost of every subproblem's SVC.
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - x'||^2) of every subproblem's SVC.
    """

    base = SVCRBF
    per_subproblem: ClassVar[tuple[str, ...]] = ()
    meta = SolverMeta(display="M-SVC-RBF", tasks=("ordinal",), uses_unlabeled=False,
                      wrapper_of="svc_rbf")
