"""All-threshold fit of b_1 < ... < b_{k-1} on a fixed ranking function (AAAI 2020, "Calculate
the thresholds"; Fathony et al. 2017).

The formula in the paper's text has lost its hinge: read literally, every squared distance to
every threshold counts, and its term with b_k = infinity is infinite. The all-threshold loss the
paper cites penalises only the wrong side of each threshold, and that is the loss used here
(docs/algorithms.md, section 2):

    L_AT(b) = sum_i [ sum_{j < y_i} max(0, b_j - f_i)^2
                      + sum_{y_i <= j <= k-1} max(0, f_i - b_j)^2 ]

It separates into k-1 one-dimensional convex piecewise-quadratic problems
g_j(b) = sum_{y_i > j} (b - f_i)_+^2 + sum_{y_i <= j} (f_i - b)_+^2, each solved exactly here by
sorting: g_j' is continuous, non-decreasing and linear between consecutive values of f, so the
root is found on the right segment in closed form.

Lemma 1 says the minimiser is unique and increasing. Uniqueness needs the scores of P_j and N_j
to overlap: when max f(N_j) <= min f(P_j) the loss is zero on that whole interval and the paper
is silent, so the midpoint of the interval is taken (the max-margin choice). With every class
present the thresholds are then strictly increasing, unless scores tie exactly at a threshold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def fit_thresholds(f: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """Thresholds (k-1,) minimising L_AT for scores ``f`` and labels ``y`` in 1..k."""
    f = np.asarray(f, dtype=np.float64).ravel()
    y = np.asarray(y).ravel()
    missing = sorted(set(range(1, n_classes + 1)) - set(np.unique(y).tolist()))
    if missing:
        raise ValueError(f"every class 1..{n_classes} needs a labeled point to fit the "
                         f"thresholds; missing: {missing}")
    return np.array([_solve(f[y > j], f[y <= j]) for j in range(1, n_classes)])


def _solve(pos: np.ndarray, neg: np.ndarray) -> float:
    """argmin_b sum (b - pos)_+^2 + sum (neg - b)_+^2 for non-empty pos and neg."""
    pos = np.sort(pos)
    neg = np.sort(neg)
    if neg[-1] <= pos[0]:  # separable: zero loss on [max neg, min pos]
        return float(0.5 * (neg[-1] + pos[0]))
    cpos = np.concatenate([[0.0], np.cumsum(pos)])
    cneg = np.concatenate([[0.0], np.cumsum(neg)])

    def slope_terms(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # g'(b)/2 = A b - B with A = #pos below b + #neg above b, B = their sums.
        p = np.searchsorted(pos, b, side="left")  # pos strictly below b
        q = np.searchsorted(neg, b, side="right")  # neg at or below b
        A = p + (neg.size - q)
        B = cpos[p] + (cneg[-1] - cneg[q])
        return A.astype(np.float64), B

    knots = np.unique(np.concatenate([pos, neg]))
    A, B = slope_terms(knots)
    grad = A * knots - B
    # g' is non-decreasing; the root lies where it changes sign.
    idx = int(np.searchsorted(grad, 0.0, side="left"))
    if idx < knots.size and grad[idx] == 0.0:
        return float(knots[idx])
    # Root inside the open segment (knots[idx-1], knots[idx]) or beyond an end: the active set
    # is constant there, so solve A b = B with the set just right of the left knot.
    if idx == 0:
        probe = knots[0] - 1.0
    elif idx == knots.size:
        probe = knots[-1] + 1.0
    else:
        probe = 0.5 * (knots[idx - 1] + knots[idx])
    a, b = slope_terms(np.array([probe]))
    return float(b[0] / a[0])


def assign_labels(f: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """h(x) of AAAI 2020: label 1 + the number of thresholds that f(x) exceeds."""
    return (np.searchsorted(thresholds, np.asarray(f, dtype=np.float64), side="left") + 1
            ).astype(np.int64)


class ThresholdLabels:
    """``predict`` of a fitted ranking model with ``thresholds_`` and ``classes_``.

    ``predict_from_scores`` turns scores already computed by ``decision_function`` into labels,
    so a caller that needs both (the experiment runner) scores its data once.

    Attributes
    ----------
    thresholds_ : ndarray of shape (n_classes - 1,)
        The increasing thresholds b_1 < ... < b_{k-1}, set by the model's fit
        (:func:`fit_thresholds`).
    classes_ : ndarray of shape (n_classes,)
        The caller's labels of classes 1..k, increasing.
    """

    thresholds_: np.ndarray
    classes_: np.ndarray
    decision_function: Callable[[np.ndarray], np.ndarray]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Labels as in ``classes_``: the class of as many thresholds as the score exceeds."""
        return self.predict_from_scores(self.decision_function(X))

    def predict_from_scores(self, scores: np.ndarray) -> np.ndarray:
        """``predict`` from the output of ``decision_function``."""
        return self.classes_[assign_labels(scores, self.thresholds_) - 1]
