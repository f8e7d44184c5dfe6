"""The NPSVOR paper's libsvm-based baselines, as ORCA ran them: SVC1V1, SVC1VA, CSSVC, SVMOP, SVR.

ORCA calls libsvm (libsvm-weights 3.12, whose instance weights scale C per row, as
scikit-learn's ``sample_weight`` does) with ``-t 2 -c C -g k``: the kernel is
exp(-k ||x - x'||^2), so ordauc's ``kappa`` is scikit-learn's ``gamma`` for every class here.
scikit-learn's SVC and SVR are libsvm; tolerances and shrinking are libsvm's defaults, as in the
paper ("the default stopping criteria in the corresponding packages are used"). How each
method is read, and what C and kappa mean for it: docs/algorithms.md, section 4.

- SVC1V1: one libsvm C-SVC, one-vs-one with voting (libsvm's own multi-class scheme).
- SVC1VA: one binary C-SVC per class against the rest, the largest decision value wins. libsvm
  trains one-vs-one even when scikit-learn's SVC reports ``decision_function_shape="ovr"`` (that
  shape only aggregates the pairwise votes), so the k binary problems are scikit-learn's
  :class:`~sklearn.multiclass.OneVsRestClassifier` around SVC.
- CSSVC: skordinal's :class:`~skordinal.classifiers.CostSensitiveWrapper` around SVC: class p
  against the rest, a row of class y weighted (|p - y| + 1) n_neg / sum_neg(|p - y| + 1), rows of
  class p weighted 1 (ORCA's ``ordinalWeights``), the largest decision value wins.
- SVMOP: Frank & Hall's ordered partitions with probability outputs, in ORCA's configuration
  (Waegeman & Boullart's weights on). See :class:`SVMOP`.
- SVR: epsilon-SVR on the targets (y - 1) / (Q - 1); the nearest scaled label wins.

libsvm's SMO draws nothing at random, so only SVMOP (whose probability outputs come from an
internal cross-validation with random folds) has a ``random_state``.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC
from sklearn.svm import SVR as _SkSVR
from skordinal.classifiers import CostSensitiveWrapper
from skordinal.utils.extmath import cumproba_to_proba

from ordauc.solvers._base import SolverMeta, nonnegative, seed
from ordauc.solvers.ordinal._baseline import (
    ASSUMED_MAX_CLASSES,
    PROBA_CHECK_FAILURES,
    CKappaBaseline,
    input_copies_bytes,
    libsvm_fit_bytes,
)


def _svc(C: float, kappa: float, **kw: Any) -> SVC:
    return SVC(C=C, kernel="rbf", gamma=kappa, **kw)


def _one_binary_per_class_bytes(n_samples: int, n_features: int) -> int:
    """k binary libsvm fits one after the other: one solve's peak, and the k fitted models kept
    (each holds at most every row as a support vector; k = ``ASSUMED_MAX_CLASSES``)."""
    n, d = n_samples, n_features
    return int(input_copies_bytes(n, d) + libsvm_fit_bytes(n, d)
               + 8 * n * d * (ASSUMED_MAX_CLASSES - 1))


class SVC1V1(CKappaBaseline):
    """SVC1V1: libsvm's C-SVC, one-vs-one (Hsu & Lin 2002), as in ORCA.

    One C-SVC per pair of classes, the class with the most votes wins (libsvm's own multi-class
    scheme). Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost. Backend: ``sklearn.svm.SVC(C=C)`` (libsvm's ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVC(gamma=kappa)`` (libsvm's
        ``-g``; ORCA's ``k``).

    Attributes
    ----------
    model_ : sklearn.svm.SVC
        The fitted backend, on labels 1..k.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="SVC1V1", tasks=("ordinal",),
                      uses_unlabeled=False)

    def _backend(self) -> SVC:
        return _svc(self.C, self.kappa)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X and one libsvm solve: the k (k-1) / 2 pairwise problems run one
        after the other, each with its own cache, and share one set of support vectors."""
        return int(input_copies_bytes(n_samples, n_features)
                   + libsvm_fit_bytes(n_samples, n_features))


class SVC1VA(CKappaBaseline):
    """SVC1VA: one binary C-SVC per class against the rest (Hsu & Lin 2002), as in ORCA.

    The class whose binary SVC gives the largest decision value wins. Rows with ``y == -1`` are
    ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost of every binary SVC. Backend:
        ``OneVsRestClassifier(sklearn.svm.SVC(C=C))`` (libsvm's ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVC(gamma=kappa)`` (libsvm's
        ``-g``; ORCA's ``k``).

    Attributes
    ----------
    model_ : sklearn.multiclass.OneVsRestClassifier
        The fitted backend (k binary SVCs), on labels 1..k.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="SVC1VA", tasks=("ordinal",),
                      uses_unlabeled=False)

    def _backend(self) -> OneVsRestClassifier:
        return OneVsRestClassifier(_svc(self.C, self.kappa))

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X, one binary solve at a time, k binary models kept."""
        return _one_binary_per_class_bytes(n_samples, n_features)


class CSSVC(CKappaBaseline):
    """CSSVC: one-vs-rest C-SVC with costs growing with the ordinal distance, as in ORCA.

    Through skordinal's ``CostSensitiveWrapper`` (Gutiérrez et al., IEEE TKDE 28(1), 2016): the
    binary SVC of class p weights a row of class y by (|p - y| + 1), rescaled so the rest's
    weights sum to their count, and the rows of class p by 1; the largest decision value wins.
    Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost, scaled per row by the weights. Backend:
        ``CostSensitiveWrapper(sklearn.svm.SVC(C=C))`` (libsvm-weights' ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVC(gamma=kappa)`` (libsvm's
        ``-g``; ORCA's ``k``).

    Attributes
    ----------
    model_ : skordinal.classifiers.CostSensitiveWrapper
        The fitted backend (k weighted binary SVCs), on labels 1..k.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="CSSVC", tasks=("ordinal",),
                      uses_unlabeled=False)

    def _backend(self) -> CostSensitiveWrapper:
        return CostSensitiveWrapper(_svc(self.C, self.kappa))

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X, one binary solve at a time, k binary models kept."""
        return _one_binary_per_class_bytes(n_samples, n_features)


def ordered_partition_weights(z: np.ndarray, j: int) -> np.ndarray:
    """Waegeman & Boullart's row weights of subproblem j ({y > j} against {y <= j}).

    A row of class y <= j weighs (j + 1 - y), a row of class y > j weighs (y - j), each side
    rescaled so that its weights sum to its count: the farther a row is from the split, the
    more its error costs. These are the weights of ORCA's SVMOP (``computeWeights``)."""
    z = np.asarray(z)
    dist = np.where(z > j, z - j, j + 1 - z).astype(np.float64)
    w = np.empty_like(dist)
    for side in (z > j, z <= j):
        w[side] = dist[side] * side.sum() / dist[side].sum()
    return w


def _writable(estimator: Any) -> Any:
    """``estimator``, or a shallow copy of it whose read-only arrays are copied.

    scikit-learn's ``SVC.predict_proba`` hands its fitted arrays to a libsvm binding that
    declares them writable, so a model loaded with joblib's ``mmap_mode="r"`` could not give
    probabilities; the stored model is left as it is."""
    frozen = {key: value for key, value in vars(estimator).items()
              if isinstance(value, np.ndarray) and not value.flags.writeable}
    if not frozen:
        return estimator
    estimator = copy.copy(estimator)
    for key, value in frozen.items():
        setattr(estimator, key, value.copy())
    return estimator


class SVMOP(CKappaBaseline):
    """SVMOP: k-1 ordered partitions {y > j} with probability outputs, Frank & Hall's rule.

    Frank & Hall (ECML 2001) with Waegeman & Boullart's weighted SVMs (2009), in ORCA's
    configuration: binary SVC j (j = 1..k-1) learns {y > j} against {y <= j} with libsvm's
    probability outputs (``-b 1``: Platt's sigmoid fitted on a 5-fold internal cross-validation)
    and row weights :func:`ordered_partition_weights`; with q_j = P(y > j | x),
    P(y = 1) = 1 - q_1, P(y = i) = q_{i-1} - q_i, P(y = k) = q_{k-1}, and the most probable class
    wins. The combination is skordinal's Frank & Hall (``cumproba_to_proba``, the decision of
    its ``OrdinalDecomposition``), which first makes the q_j non-increasing by isotonic
    regression where the k-1 independent models disagree; ORCA takes the raw differences. The
    argmax is the same whenever the q_j are already ordered. Rows with ``y == -1`` are ignored.

    With ``weighted=False`` the model is exactly skordinal's
    ``OrdinalDecomposition(SVC(probability=True), "ordered_partitions", "frank_hall")``.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost of every binary SVC (scaled per row by the weights). Backend:
        ``sklearn.svm.SVC(C=C)`` (libsvm-weights' ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVC(gamma=kappa)`` (libsvm's
        ``-g``; ORCA's ``k``).
    weighted : bool, default=True
        Waegeman & Boullart's row weights (ORCA's SVMOP default, ``weights = true``).
    random_state : int or None, default=None
        Seed of libsvm's internal cross-validation for the probability outputs
        (``SVC(random_state=random_state)``, the same for every subproblem); None draws
        fresh folds.

    Attributes
    ----------
    estimators_ : list of sklearn.svm.SVC
        The k-1 fitted binary SVCs, ``estimators_[j - 1]`` for {y > j} against {y <= j}.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    n_classes_ : int
        The number of classes k among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    _known_check_failures: ClassVar[dict[str, str]] = PROBA_CHECK_FAILURES
    meta = SolverMeta(display="SVMOP", tasks=("ordinal",),
                      uses_unlabeled=False)
    _parameter_constraints: ClassVar[dict] = {**CKappaBaseline._parameter_constraints,
                                              "weighted": ["boolean"],
                                              "random_state": [seed(), None]}

    def __init__(self, C: float = 1.0, kappa: float = 1.0, weighted: bool = True,
                 random_state: int | None = None) -> None:
        super().__init__(C=C, kappa=kappa)
        self.weighted = weighted
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> SVMOP:
        """Fit the k-1 binary SVCs with probability outputs on the labeled rows."""
        X, z = self._labeled(X, y)
        self.estimators_ = []
        for j in range(1, self.n_classes_):
            weights = ordered_partition_weights(z, j) if self.weighted else None
            svc = _svc(self.C, self.kappa, probability=True, random_state=self.random_state)
            with warnings.catch_warnings():
                # scikit-learn 1.9 deprecates SVC(probability=True) for CalibratedClassifierCV,
                # whose folds and sigmoid fit are not libsvm's; ORCA ran libsvm's own (-b 1).
                warnings.filterwarnings("ignore", message=".*probability.*",
                                        category=FutureWarning)
                self.estimators_.append(svc.fit(X, (z > j).astype(np.int64),
                                                sample_weight=weights))
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Frank & Hall's class probabilities, shape (n, k), columns in ``classes_`` order."""
        X = self._input(X)
        above = np.column_stack([_writable(m).predict_proba(X)[:, 1]
                                 for m in self.estimators_])
        return cumproba_to_proba(1.0 - above, repair=True)

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class, as the caller's label."""
        return self._caller_labels(self.predict_proba(X).argmax(axis=1) + 1)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X, one libsvm solve at a time (the 5 cross-validation fits of
        the probability outputs point into the same rows), k-1 binary models kept."""
        return _one_binary_per_class_bytes(n_samples, n_features)


class SVR(CKappaBaseline):
    """SVR: epsilon-support vector regression on the scaled labels, as in ORCA.

    Labels 1..Q become targets (y - 1) / (Q - 1) in [0, 1]; libsvm's epsilon-SVR (``-s 3``)
    fits them, and a prediction is the label whose scaled value is nearest, ties to the lower
    label: the regression output rounded to the label grid and clipped to 1..Q. Rows with
    ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVR cost. Backend: ``sklearn.svm.SVR(C=C)`` (libsvm's ``-c``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2). Backend: ``SVR(gamma=kappa)`` (libsvm's
        ``-g``; ORCA's ``k``).
    eps : float, default=0.1
        Half-width of the insensitive tube on the [0, 1] target scale (one label step is
        1 / (Q - 1)). Backend: ``SVR(epsilon=eps)`` (libsvm's ``-p``; ORCA's ``e``). The
        NPSVOR paper fixes 0.1.

    Attributes
    ----------
    model_ : sklearn.svm.SVR
        The fitted backend, on the targets (y - 1) / (Q - 1).
    levels_ : ndarray of shape (n_classes,)
        The scaled value (c - 1) / (Q - 1) of each class c = 1..Q.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..Q, increasing.
    n_classes_ : int
        The number of classes Q among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    meta = SolverMeta(display="SVR", tasks=("ordinal",),
                      uses_unlabeled=False)
    _parameter_constraints: ClassVar[dict] = {**CKappaBaseline._parameter_constraints,
                                              "eps": [nonnegative()]}

    def __init__(self, C: float = 1.0, kappa: float = 1.0, eps: float = 0.1) -> None:
        super().__init__(C=C, kappa=kappa)
        self.eps = eps

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> SVR:
        """Fit epsilon-SVR to (y - 1) / (Q - 1) on the labeled rows."""
        X, z = self._labeled(X, y)
        self.levels_ = np.arange(self.n_classes_, dtype=np.float64) / (self.n_classes_ - 1)
        self.model_ = _SkSVR(C=self.C, kernel="rbf", gamma=self.kappa,
                             epsilon=self.eps).fit(X, self.levels_[z - 1])
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The regression output, shape (n,), on the [0, 1] target scale."""
        X = self._input(X)
        return np.asarray(self.model_.predict(X), dtype=np.float64)

    def predict(self, X: Any) -> np.ndarray:
        """The label whose scaled value is nearest to the regression output (ties: lower)."""
        return self.predict_from_scores(self.decision_function(X))

    def predict_from_scores(self, scores: np.ndarray) -> np.ndarray:
        """``predict`` from the output of ``decision_function``."""
        f = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
        # argmin takes the first of equal distances: a tie goes to the lower label, as ORCA's
        # min over the label set does. Outside [0, 1] the nearest level is an end: clipping.
        return self._caller_labels(np.abs(f - self.levels_).argmin(axis=1) + 1)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X and one libsvm solve over 2n dual variables (the tube's two
        sides) with the kernel cache over the n rows."""
        n, d = n_samples, n_features
        return int(input_copies_bytes(n, d) + libsvm_fit_bytes(n, d, n_variables=2 * n))
