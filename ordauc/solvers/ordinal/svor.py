"""SVOREX, SVORIM (Chu & Keerthi 2007) and REDSVM (Lin & Li 2012): threshold SVMs, as ORCA ran
them in the NPSVOR paper's comparison, through skordinal's bindings of the same C code.

- SVOREX / SVORIM: skordinal's :class:`~skordinal.classifiers.SVOR` wraps Chu's SMO code, the
  code ORCA calls (``svorex`` / ``svorim`` mex files). ``constraints="explicit"`` is SVOREX,
  ``"implicit"`` SVORIM. Chu's Gaussian kernel is exp(-kappa ||x - x'||^2) (its ``-K`` option,
  with ARD off) and 0.001 is added to K(x_i, x_i) during training.
- REDSVM: skordinal's :class:`~skordinal.classifiers.REDSVM` wraps libsvm-rank 2.81 with the
  reduction ``-s 5``, the library ORCA's REDSVM calls with ``-s 5 -t 2 -c C -g k``.

All three learn one latent function f and k-1 ordered thresholds, so ``decision_function``
returns f (the backend's ``predict_projection``) and ``predict`` the backend's own labels.
Backend tolerances are the packages' defaults (1e-3), as in the NPSVOR paper ("the default
stopping criteria in the corresponding packages are used"). Both SMO codes are deterministic,
so none of the three has a ``random_state``. Their objectives, and what C and kappa mean:
docs/algorithms.md, section 4.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context
from skordinal.classifiers import REDSVM as _SkREDSVM
from skordinal.classifiers import SVOR as _SkSVOR

from ordauc.solvers._base import SolverMeta
from ordauc.solvers.ordinal._baseline import (
    ASSUMED_MAX_CLASSES,
    REDSVM_CACHE_MB,
    CKappaBaseline,
    input_copies_bytes,
    libsvm_fit_bytes,
    python_rows_bytes,
)


def chu_svor_fit_bytes(n_samples: int, n_features: int) -> int:
    """One fit of Chu's SMO through skordinal: X and y as Python lists, the C copy of the rows,
    the full lower triangle of the kernel (n (n+1) / 2 float64, cached at start), the
    multipliers (k-1 per row for SVORIM), and the fitted model, which keeps every training row
    as a Python dict of a float list."""
    n, d = n_samples, n_features
    kernel = 4 * n * (n + 1)
    rows_c = 8 * n * d + 300 * n + 12 * ASSUMED_MAX_CLASSES * n
    model = python_rows_bytes(n, d) + 400 * n
    return int(kernel + rows_c + python_rows_bytes(n, d) + model)


class _ThresholdSVM(CKappaBaseline):
    """A skordinal threshold SVM fitted on the labeled rows; f and labels from the backend."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> _ThresholdSVM:
        """Fit the backend on the labeled rows (``y == -1`` rows are ignored)."""
        super().fit(X, y)  # validates nothing twice: the outer context skips nested checks
        self.thresholds_ = np.asarray(self.model_.thresholds_, dtype=np.float64)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The latent function f(x), shape (n,), on the scale of ``thresholds_``."""
        X = self._input(X)
        return np.asarray(self.model_.predict_projection(X), dtype=np.float64)


class _ChuSVOR(_ThresholdSVM):
    """Chu & Keerthi's SVOR through skordinal's ``SVOR``; ``_constraints`` picks the variant."""

    _constraints: ClassVar[str]

    def _backend(self) -> _SkSVOR:
        return _SkSVOR(C=self.C, kernel="rbf", gamma=self.kappa, constraints=self._constraints)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X, and one fit of Chu's SMO (dominated by its cached kernel
        triangle, 4 n^2 bytes)."""
        return int(input_copies_bytes(n_samples, n_features)
                   + chu_svor_fit_bytes(n_samples, n_features))


class SVOREX(_ChuSVOR):
    """SVOREX: support vector ordinal regression with explicit threshold constraints.

    Chu & Keerthi, "Support vector ordinal regression", Neural Computation 19(3), 2007 (the
    formulation with explicit constraints on the thresholds), through skordinal's
    ``SVOR(constraints="explicit")``: Chu's SMO code, as in ORCA. One latent
    f(x) = sum_i c_i K(x_i, x) and thresholds constrained to b_1 <= ... <= b_{k-1}; a row of
    class j contributes the hinge of f(x) <= b_j - 1 and of f(x) >= b_{j-1} + 1 (its two
    adjacent thresholds only), each weighted by C. Chu's code adds 0.001 to K(x_i, x_i) while
    training, takes each threshold as the midpoint of its KKT bracket and predicts the first
    class whose threshold f does not exceed. Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost. Backend: ``SVOR(C=C)`` (Chu's ``-C``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVOR(gamma=kappa)`` (Chu's
        ``-K``; ORCA's ``k``).

    Attributes
    ----------
    model_ : skordinal.classifiers.SVOR
        The fitted backend, on labels 1..k.
    thresholds_ : ndarray of shape (n_classes - 1,)
        The backend's ordered thresholds b_1 <= ... <= b_{k-1} on the scale of
        ``decision_function``.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="SVOREX", tasks=("ordinal",),
                      uses_unlabeled=False)
    _constraints = "explicit"


class SVORIM(_ChuSVOR):
    """SVORIM: support vector ordinal regression with implicit threshold constraints.

    Chu & Keerthi, Neural Computation 19(3), 2007 (the formulation with implicit constraints on
    the thresholds), through skordinal's ``SVOR(constraints="implicit")``: Chu's SMO code, as in
    ORCA. As SVOREX, but a row of class j contributes a hinge for every threshold
    (f(x) <= b_i - 1 for i >= j, f(x) >= b_i + 1 for i < j), so the thresholds come out ordered
    without an explicit constraint. Kernel jitter, thresholds and labels as in
    :class:`SVOREX`. Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost. Backend: ``SVOR(C=C)`` (Chu's ``-C``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVOR(gamma=kappa)`` (Chu's
        ``-K``; ORCA's ``k``).

    Attributes
    ----------
    model_ : skordinal.classifiers.SVOR
        The fitted backend, on labels 1..k.
    thresholds_ : ndarray of shape (n_classes - 1,)
        The backend's ordered thresholds b_1 <= ... <= b_{k-1} on the scale of
        ``decision_function``.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="SVORIM", tasks=("ordinal",),
                      uses_unlabeled=False)
    _constraints = "implicit"


class REDSVM(_ThresholdSVM):
    """REDSVM: reduction of ordinal regression to one weighted binary SVM.

    Lin & Li, "Reduction from cost-sensitive ordinal ranking to weighted binary
    classification", Neural Computation 24(5), 2012, through skordinal's ``REDSVM`` (libsvm-rank
    2.81, ``-s 5``: identity coding, absolute cost), as in ORCA. Every row is copied once per
    threshold j, labelled by whether its class is above j, and one binary SVM with a shared
    latent f and k-1 biases is trained on the copies; the label of x is 1 + the number of
    thresholds f(x) exceeds. Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost. Backend: ``REDSVM(C=C)`` (libsvm's ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``REDSVM(kernel="rbf",
        gamma=kappa)`` (libsvm's ``-t 2 -g``; ORCA's ``k``).

    Attributes
    ----------
    model_ : skordinal.classifiers.REDSVM
        The fitted backend, on labels 1..k.
    thresholds_ : ndarray of shape (n_classes - 1,)
        The backend's ordered thresholds b_1 <= ... <= b_{k-1} on the scale of
        ``decision_function``.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="REDSVM", tasks=("ordinal",),
                      uses_unlabeled=False)

    def _backend(self) -> _SkREDSVM:
        return _SkREDSVM(C=self.C, kernel="rbf", gamma=self.kappa)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X; X as Python lists and as libsvm's nodes (16 bytes a value);
        libsvm-rank's solve over n (k-1) dual variables with its 100 MB kernel cache (counted
        for k = ``ASSUMED_MAX_CLASSES``); the model's support vectors as Python lists."""
        n, d = n_samples, n_features
        solve = libsvm_fit_bytes(n, d, REDSVM_CACHE_MB, n_variables=n * ASSUMED_MAX_CLASSES)
        nodes = 16 * n * (d + 1)
        return int(input_copies_bytes(n, d) + 2 * python_rows_bytes(n, d) + nodes + solve)
