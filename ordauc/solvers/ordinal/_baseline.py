"""What the NPSVOR paper's nine baselines share: ordauc's labels around a library backend.

Every baseline is a supervised ordinal classifier: the rows with ``y == -1`` (unlabeled, see
:mod:`ordauc.solvers._labels`) are dropped, the labeled classes must be consecutive integers,
and the backend is fitted on the labeled rows with labels 1..k. ``classes_`` maps them back to
the caller's labels.

The memory helpers count what one fit of a backend holds at its peak; the estimators add their
own copies of X (the validated float64 array, and the labeled rows when some are unlabeled).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ordauc.solvers._base import OrdaucEstimator, SolverMeta
from ordauc.solvers._labels import split_labels
from ordauc.solvers._validation import fit_input, predict_input

# The NPSVOR paper's datasets have at most 9 classes. fit_memory_bytes is not told k, so the
# terms that grow with the number of classes (one-vs-rest models kept, OPBE's subproblems,
# REDSVM's n (k-1) dual variables) are counted for this many.
ASSUMED_MAX_CLASSES = 10

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
    """A supervised ordinal classifier around a backend: labels, input checks, tags."""

    meta: ClassVar[SolverMeta]


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
