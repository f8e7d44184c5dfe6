"""Inner-CV grid search on the labeled rows, the refit, and the scores of a fitted model.

Scores: ``auc`` is :func:`ordauc.metrics.ranking_score` (binary AUC, or ordinal AUC) of
``decision_function``; ``mze``/``mae`` come from ``predict``. A grid point's CV score is the
mean over the folds that could be scored (a validation fold may lack a class); NaN ranks last,
and ties go to the first point in grid order.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from ordauc import metrics

LOWER_IS_BETTER = {"auc": False, "mze": True, "mae": True}


@dataclass(frozen=True)
class Tuned:
    params: dict[str, Any]
    cv_score: float  # NaN when there was nothing to choose
    cv_time_s: float


def tune(estimator: Any, X: Any, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]],
         grid: dict[str, list[Any]], metric: str, task: str, n_classes: int) -> Tuned:
    """The grid point with the best mean CV score; a grid of one point is not cross-validated."""
    candidates = list(ParameterGrid(grid))
    if len(candidates) <= 1:
        return Tuned(candidates[0] if candidates else {}, math.nan, 0.0)
    start = time.perf_counter()
    means = []
    for params in candidates:
        scores = []
        for fit_rows, val_rows in folds:
            model = clone(estimator).set_params(**params).fit(X[fit_rows], y[fit_rows])
            scores.append(score_one(model, X[val_rows], y[val_rows], metric, task, n_classes))
        finite = [s for s in scores if math.isfinite(s)]
        means.append(float(np.mean(finite)) if finite else math.nan)
    best = _best(means, LOWER_IS_BETTER[metric])
    return Tuned(candidates[best], means[best], time.perf_counter() - start)


def _best(means: list[float], lower_is_better: bool) -> int:
    def rank(i: int) -> tuple[bool, float]:
        value = means[i]
        if not math.isfinite(value):
            return (True, 0.0)
        return (False, value if lower_is_better else -value)

    return min(range(len(means)), key=rank)  # min() keeps the first of equal ranks


def score_one(model: Any, X: Any, y: np.ndarray, metric: str, task: str, n_classes: int
              ) -> float:
    """One CV metric of a fitted model on (X, y)."""
    if metric == "auc":
        return metrics.ranking_score(task, y, model.decision_function(X), n_classes)
    predicted = model.predict(X)
    return metrics.mze(y, predicted) if metric == "mze" else metrics.mae(y, predicted)


def fit_timed(estimator: Any, X: Any, y: np.ndarray) -> float:
    """Fit in place; the seconds it took."""
    start = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - start


def evaluate(model: Any, X: Any, y: np.ndarray, task: str, n_classes: int) -> dict[str, Any]:
    """auc, c_index, mze, mae (mze/mae None without ``predict``) and predict_time_s.

    A model with ``predict_from_scores`` gets its labels from the scores already computed, so
    the evaluation set (every unlabeled point, in the QSG papers) is scored once. For an ordinal
    model with one score column per subproblem, the C-index ranks by the sum of the columns (the
    expected number of thresholds passed).
    """
    start = time.perf_counter()
    raw = model.decision_function(X)
    scores = np.asarray(raw, dtype=np.float64)
    if hasattr(model, "predict_from_scores"):
        predicted = model.predict_from_scores(raw)
    else:
        predicted = model.predict(X) if hasattr(model, "predict") else None
    elapsed = time.perf_counter() - start
    auc = metrics.ranking_score(task, y, scores, n_classes)
    if task == "binary":
        c_index = auc
    else:
        c_index = metrics.c_index(y, scores if scores.ndim == 1 else scores.sum(axis=1))
    return {"auc": auc, "c_index": c_index,
            "mze": None if predicted is None else metrics.mze(y, predicted),
            "mae": None if predicted is None else metrics.mae(y, predicted),
            "predict_time_s": elapsed}
