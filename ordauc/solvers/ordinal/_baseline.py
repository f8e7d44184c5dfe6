"""What the NPSVOR paper's nine baselines share: ordauc's labels around a library backend.

Every baseline is a supervised ordinal classifier: the rows with ``y == -1`` (unlabeled, see
:mod:`ordauc.solvers._labels`) are dropped, the labeled classes must be consecutive integers,
and the backend is fitted on the labeled rows with labels 1..k. ``classes_`` maps them back to
the caller's labels. :class:`CKappaBaseline` holds the constructor and the parameter
constraints the baselines share (ORCA's C and kappa, docs/algorithms.md, section 4); a
baseline only states its backend, or what it adds.

The memory helpers count what one fit of a backend holds at its peak; the estimators add their
own copies of X (the validated float64 array, and the labeled rows when some are unlabeled).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context

from ordauc.solvers._base import OrdaucEstimator, SolverMeta, positive
from ordauc.solvers._labels import split_labels
from ordauc.solvers._validation import fit_input, predict_input

# The NPSVOR paper's datasets have at most 9 classes. fit_memory_bytes is not told k, so the
# terms that grow with the number of classes (one-vs-rest models kept, OPBE's subproblems,
# REDSVM's n (k-1) dual variables) are counted for this many.
ASSUMED_MAX_CLASSES = 10

# scikit-learn's sparse-input checks read the classifier tags of any estimator with
# predict_proba; ordauc's estimators are not scikit-learn classifiers (-1 marks an unlabeled
# row), so the baselines with probability outputs fail those two checks. Their sparse input is
# tested against the dense model in tests/solvers/test_ordinal_baselines.py instead.
PROBA_CHECK_FAILURES = dict.fromkeys(
    ("check_estimator_sparse_array", "check_estimator_sparse_matrix"),
    "predict_proba without scikit-learn classifier tags (-1 marks unlabeled rows)")

_MIB = 1 << 20
# scikit-learn's SVC/SVR default kernel cache, and skordinal's REDSVM default (libsvm-rank).
SKLEARN_CACHE_MB = 200
REDSVM_CACHE_MB = 100


def input_copies_bytes(n_samples: int, n_features: int) -> int:
    """The validated float64 copy of X and the copy of its labeled rows."""
    return 2 * 8 * n_samples * n_features


def libsvm_fit_bytes(n_samples: int, n_features: int, cache_mb: float = SKLEARN_CACHE_MB,
                     n_variables: int | None = None) -> int:
    """One libsvm solve: the kernel cache (float32 rows of length n, filled on demand up to
    ``cache_mb``), about ten float64 vectors per dual variable (gradients, alphas, diagonal,
    index and sign arrays), and the support vectors the model keeps (at most every row).
    scikit-learn passes dense X to libsvm without copying it."""
    n_var = n_samples if n_variables is None else n_variables
    cache = min(cache_mb * _MIB, 4 * n_samples * n_samples)
    return int(cache + 80 * n_var + 8 * n_samples * n_features)


def python_rows_bytes(n_samples: int, n_features: int) -> int:
    """X as a list of Python float lists (``X.tolist()``, how skordinal hands data to its C
    extensions): a 24-byte float object and an 8-byte pointer per value, a list per row."""
    return int(32 * n_samples * n_features + 64 * n_samples)


class OrdinalBaseline(OrdaucEstimator):
    """A supervised ordinal classifier around a backend: labels, input checks, tags.

    ``fit`` validates the parameters, drops the rows with ``y == -1``, maps the labels to
    1..k and fits ``_backend()`` on the rest as ``model_``; ``predict`` returns that model's
    labels as the caller's. A baseline that combines several backends overrides both.
    """

    meta: ClassVar[SolverMeta]

    def _backend(self) -> Any:
        """The unfitted backend estimator, built from this estimator's parameters."""
        raise NotImplementedError

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> OrdinalBaseline:
        """Fit the backend on the labeled rows of X (rows with ``y == -1`` are ignored).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows; a sparse matrix is densified once.
        y : array-like of shape (n_samples,)
            Consecutive integer labels, -1 for an unlabeled row.

        Returns
        -------
        self : OrdinalBaseline
            The fitted estimator.
        """
        X, z = self._labeled(X, y)
        self.model_ = self._backend().fit(X, z)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The backend's labels of X, as the caller's classes."""
        X = self._input(X)
        return self._caller_labels(self.model_.predict(X))

    def _labeled(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """Dense float64 X of the labeled rows and their labels 1..k.

        Sets ``classes_`` (the caller's label of class 1..k), ``n_classes_`` and
        ``n_features_in_``."""
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y, "ordinal")
        self.classes_ = labels.classes
        self.n_classes_ = labels.n_classes
        if labels.labeled.size < X.shape[0]:
            X = X[labels.labeled]
        return X, labels.z.astype(np.int64)

    def _input(self, X: Any) -> np.ndarray:
        """Dense float64 X with the features seen in fit; raises before fit."""
        return predict_input(self, X, np.float64)

    def _caller_labels(self, z: Any) -> np.ndarray:
        """The caller's labels of internal classes 1..k."""
        return self.classes_[np.asarray(z, dtype=np.intp) - 1]


class CKappaBaseline(OrdinalBaseline):
    """A baseline with ORCA's two parameters: the SVM cost C and the RBF width kappa.

    The constructor and the constraints of every NPSVOR-paper baseline; the ones with a further
    parameter (SVR's ``eps``, SVMOP's ``weighted`` and seed) extend both. ``kappa`` is the k of
    ORCA's kernel exp(-k ||x - x'||^2), the ``gamma`` of libsvm and skordinal.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost (ORCA's ``C``).
    kappa : float, default=1.0
        The kernel width in exp(-kappa ||x - x'||^2) (ORCA's ``k``).
    """

    _parameter_constraints: ClassVar[dict] = {"C": [positive()], "kappa": [positive()]}

    def __init__(self, C: float = 1.0, kappa: float = 1.0) -> None:
        self.C = C
        self.kappa = kappa
