"""OPBE: ordinal projection-based ensemble (Pérez-Ortiz, Gutiérrez & Hervás-Martínez, "Projection-
based ensemble learning for ordinal regression", IEEE Trans. Cybernetics 44(5):681-694, 2014), in
the configuration of the NPSVOR paper's comparison: SVORIM as base model, logit link, equal
distribution of probability inside merged groups, product combiner (ORCA's ``OPBE``, which
describes it as the best configuration the paper found). The formulas are written out below.

Method
------
Classes 1..Q. Subproblem q (q = 1..Q) relabels the training rows by an order hypothesis about
class q: L_q = {y < q}, {y = q} and R_q = {y > q}, keeping their order, so it is a three-class
ordinal problem (two-class for q = 1 and q = Q, where L_q or R_q is empty). Each is fitted by an
SVORIM model: a projection f_q(x) and ordered thresholds b_1 <= b_2 (one b for two groups).

Probabilities from a projection (cumulative logit link): with the groups of subproblem q
numbered 1..G in order, P_q(group <= g | x) = 1 / (1 + exp(f_q(x) - b_g)) for g < G and 1 for
g = G; the group probabilities are the successive differences, so they are non-negative and sum
to 1 for every x.

Class probabilities of subproblem q (equal distribution): P_q(c | x) = P_q({q} | x) for c = q,
P_q(L_q | x) / |L_q| for c < q and P_q(R_q | x) / |R_q| for c > q (|L_q| = q - 1 classes,
|R_q| = Q - q classes).

Product combiner: s_c(x) = prod_q P_q(c | x) / W_c, where W_c = sum_q w_qc is the total share
class c received (w_qc = 1 for q = c, 1/|L_q| or 1/|R_q| when c sits in a merged group). The
prediction is argmax_c s_c(x); ``predict_proba`` returns s normalised to sum to 1 per row (the
argmax is unchanged).

Choices the paper leaves open, taken from ORCA's OPBE (written by Pérez-Ortiz, who also
provided the OPBE code the NPSVOR paper ran)
-------------------------------------------------------------------------------------------
- The division by W_c: ORCA divides the product by the sum of the shares, the normaliser of a
  weighted-average combiner. It changes the argmax because W_c differs between classes (the
  classes in the middle sit in merged groups of different sizes); with it, ORCA's reference
  accuracy on its toy data (0.92 at C = 10, k = 10) is reproduced, without it not (0.9067).
- Threshold spread of the three-group subproblems: when b_2 - b_1 < 4, f_q and b are multiplied
  by 4 / (b_2 - b_1) before the logit. The middle group's probability is at most
  2 / (1 + exp(-(b_2 - b_1) / 2)) - 1, below 1/2 for thresholds less than 2.2 apart; the
  stretch lifts that ceiling to 0.76. Thresholds that coincide are left as they are (the middle
  group then has probability 0).
- SVORIM through skordinal's ``SVOR(constraints="implicit")`` with the same C and kappa in every
  subproblem (ORCA's ``param`` is passed unchanged). ORCA also sorts the rows by class before
  each fit; the SMO's optimum does not depend on row order (to its tolerance), so the rows are
  passed as given.
- Chu's SMO is deterministic, so OPBE has no ``random_state``.

The NPSVOR paper's reading of all nine baselines: docs/algorithms.md, section 4.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from scipy.special import expit
from sklearn.base import _fit_context
from skordinal.classifiers import SVOR

from ordauc.solvers._base import SolverMeta
from ordauc.solvers.ordinal._baseline import (
    ASSUMED_MAX_CLASSES,
    PROBA_CHECK_FAILURES,
    CKappaBaseline,
    input_copies_bytes,
    python_rows_bytes,
)
from ordauc.solvers.ordinal.svor import chu_svor_fit_bytes

# Smallest distance between the two thresholds of a three-group subproblem, on the logit's
# scale (ORCA's value).
MIN_THRESHOLD_SPREAD = 4.0


def group_probabilities(f: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """P(group g | x) of a cumulative logit model, shape (n, len(thresholds) + 1).

    ``thresholds`` are ordered; with two of them closer than :data:`MIN_THRESHOLD_SPREAD`,
    projection and thresholds are first stretched so that they are that far apart."""
    f = np.asarray(f, dtype=np.float64)
    b = np.asarray(thresholds, dtype=np.float64)
    if b.size == 2:
        spread = abs(b[1] - b[0])
        if 0.0 < spread < MIN_THRESHOLD_SPREAD:
            scale = MIN_THRESHOLD_SPREAD / spread
            f, b = f * scale, b * scale
    # P(group <= g) = 1 / (1 + exp(f - b_g)) = expit(b_g - f), without overflow for large |f|.
    cumulative = np.column_stack([expit(b[None, :] - f[:, None]), np.ones(f.size)])
    return np.diff(cumulative, axis=1, prepend=0.0)


def class_shares(q: int, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """For subproblem q (1-based): the group (0-based column of :func:`group_probabilities`)
    each class 1..Q falls in, and the share of that group's probability it gets."""
    classes = np.arange(1, n_classes + 1)
    has_lower = q > 1
    group = np.where(classes < q, 0, np.where(classes == q, int(has_lower), int(has_lower) + 1))
    share = np.where(classes < q, 1.0 / max(q - 1, 1),
                     np.where(classes > q, 1.0 / max(n_classes - q, 1), 1.0))
    return group, share


class OPBE(CKappaBaseline):
    """OPBE: ordinal projection-based ensemble of Q SVORIM models (IEEE T-Cyb 44(5), 2014).

    One three-group SVORIM model per class q (below q, q, above q), projections turned into
    probabilities by a cumulative logit, merged groups shared equally among their classes, the
    Q subproblems combined by the product rule (see the module docstring for the formulas and
    every choice). Rows with ``y == -1`` are ignored.

    Parameters
    ----------
    C : float, default=1.0
        The SVM cost of every SVORIM subproblem. Backend: ``skordinal SVOR(C=C,
        constraints="implicit")`` (Chu's ``-C``; ORCA's ``C``).
    kappa : float, default=1.0
        Kernel width in exp(-kappa ||x - x'||^2) of every subproblem. Backend:
        ``SVOR(gamma=kappa)`` (Chu's ``-K``; ORCA's ``k``).

    Attributes
    ----------
    estimators_ : list of skordinal.classifiers.SVOR
        The Q fitted SVORIM subproblems, ``estimators_[q - 1]`` for class q.
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..Q, increasing.
    n_classes_ : int
        The number of classes Q among the labeled rows.
    n_features_in_ : int
        The number of features seen in fit.
    """

    _known_check_failures: ClassVar[dict[str, str]] = PROBA_CHECK_FAILURES
    meta = SolverMeta(display="OPBE", tasks=("ordinal",),
                      uses_unlabeled=False)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> OPBE:
        """Fit the Q SVORIM subproblems on the labeled rows."""
        X, z = self._labeled(X, y)
        self.estimators_ = []
        for q in range(1, self.n_classes_ + 1):
            # groups 1 (below q, if any), then q, then above q (if any): consecutive labels
            groups = 1 + (z >= q).astype(np.int64) + (z > q).astype(np.int64) - int(q == 1)
            model = SVOR(C=self.C, kernel="rbf", gamma=self.kappa, constraints="implicit")
            self.estimators_.append(model.fit(X, groups))
        return self

    def subproblem_proba(self, X: Any) -> list[np.ndarray]:
        """P_q(group | x) for q = 1..Q: arrays (n, 2) for q = 1 and Q, (n, 3) otherwise, the
        groups in order (below q, q, above q); every row sums to 1."""
        X = self._input(X)
        return [group_probabilities(m.predict_projection(X), m.thresholds_)
                for m in self.estimators_]

    def combined_scores(self, X: Any) -> np.ndarray:
        """s_c(x) = prod_q P_q(c | x) / W_c of the product combiner, shape (n, Q)."""
        subproblems = self.subproblem_proba(X)  # checks X and that the model is fitted
        k = self.n_classes_
        scores = np.ones((subproblems[0].shape[0], k))
        total_share = np.zeros(k)
        for q, probs in enumerate(subproblems, start=1):
            group, share = class_shares(q, k)
            scores *= probs[:, group] * share
            total_share += share
        return scores / total_share

    def predict_proba(self, X: Any) -> np.ndarray:
        """The combined scores normalised per row, shape (n, Q), columns in ``classes_``
        order. A row whose scores all underflow to 0 gets equal probabilities."""
        s = self.combined_scores(X)
        total = s.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, s / total, 1.0 / s.shape[1])

    def predict(self, X: Any) -> np.ndarray:
        """argmax_c s_c(x) (ties: the lower class), as the caller's label."""
        return self._caller_labels(self.combined_scores(X).argmax(axis=1) + 1)

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Our two copies of X, one SVORIM fit at a time, and the Q fitted models kept (each
        keeps every training row as Python lists; Q = ``ASSUMED_MAX_CLASSES``)."""
        n, d = n_samples, n_features
        kept = (ASSUMED_MAX_CLASSES - 1) * (python_rows_bytes(n, d) + 400 * n)
        return int(input_copies_bytes(n, d) + chu_svor_fit_bytes(n, d) + kept)
