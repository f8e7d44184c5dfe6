"""Ranking and ordinal metrics, and the registry the runner, tuners and reports read.

AUC counts ties as 1/2 (the Mann-Whitney statistic), as scikit-learn's ``roc_auc_score`` does;
it is computed from ranks in O(n log n), so it scales to millions of scored points.

:data:`METRICS` declares each metric once: whether it needs ranking scores
(``decision_function``) or predicted labels (``predict``), and whether lower is better. A cell
computes every metric its model's outputs allow (a label-only baseline gets MZE and MAE, a
ranking-only one AUC); the results columns, the CV metrics and the report's numeric columns all
derive from it. The survey's label metrics (Gutiérrez et al., IEEE TKDE 2016: AMAE, MMAE, GM, MS,
Spearman's rho, Kendall's tau, weighted kappa) come from skordinal.metrics, not written again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata


def auc(y_true: np.ndarray, scores: np.ndarray) -> float:
    """Binary AUC: P(score of a positive > score of a negative), ties 1/2. Positives are y > 0."""
    pos = np.asarray(y_true).ravel() > 0
    s = np.asarray(scores, dtype=np.float64).ravel()
    if pos.shape != s.shape:
        raise ValueError(f"{pos.size} labels but {s.size} scores")
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(s)  # average ranks: ties count 1/2
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def subproblem_aucs(y_true: np.ndarray, scores: np.ndarray, n_classes: int | None = None
                    ) -> np.ndarray:
    """AUC of subproblem j = 1..k-1 ({y > j} positive, {y <= j} negative), AAAI 2020 Eq. (2).

    ``scores`` is one ranking function (n,) shared by all subproblems, or (n, k-1) with column
    j-1 scoring subproblem j (the multi-class wrappers M-*). Labels are 1..k.
    """
    y = np.asarray(y_true).ravel()
    s = np.asarray(scores, dtype=np.float64)
    k = int(n_classes) if n_classes is not None else int(y.max())
    if s.ndim == 2 and s.shape[1] != k - 1:
        raise ValueError(f"scores have {s.shape[1]} columns, expected k-1 = {k - 1}")
    return np.array([auc(y > j, s[:, j - 1] if s.ndim == 2 else s) for j in range(1, k)])


def ordinal_auc(y_true: np.ndarray, scores: np.ndarray, n_classes: int | None = None) -> float:
    """Mean of the k-1 subproblem AUCs (AAAI 2020 Eq. 2); subproblems lacking a side are skipped."""
    aucs = subproblem_aucs(y_true, scores, n_classes)
    aucs = aucs[np.isfinite(aucs)]
    return float(aucs.mean()) if aucs.size else float("nan")


def c_index(y_true: np.ndarray, scores: np.ndarray) -> float:
    """Concordance over all pairs with different labels: P(s_i < s_j | y_i < y_j), ties 1/2.

    Equals the pair-count-weighted mean of the AUCs of every class pair (a, b), a < b.
    """
    y = np.asarray(y_true).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    classes, counts = np.unique(y, return_counts=True)
    total = weight = 0.0
    for ia, a in enumerate(classes):
        for ib in range(ia + 1, classes.size):
            b = classes[ib]
            mask = (y == a) | (y == b)
            pairs = float(counts[ia]) * float(counts[ib])
            total += auc(y[mask] == b, s[mask]) * pairs
            weight += pairs
    return total / weight if weight else float("nan")


def mze(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean zero-one error."""
    return float(np.mean(np.asarray(y_true).ravel() != np.asarray(y_pred).ravel()))


def mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Mean absolute error between ordinal labels."""
    diff = np.asarray(y_true, dtype=np.float64).ravel() - np.asarray(y_pred).ravel()
    return float(np.mean(np.abs(diff)))


def ranking_score(task: str, y_true: np.ndarray, scores: np.ndarray, n_classes: int) -> float:
    """The papers' AUC: binary AUC, or ordinal AUC for ordinal tasks."""
    if task == "binary":
        s = np.asarray(scores)
        return auc(y_true, s[:, 0] if s.ndim == 2 else s)
    return ordinal_auc(y_true, scores, n_classes)


@dataclass(frozen=True)
class Metric:
    """One metric: what it needs and which way is better.

    ``compute(y_true, values, task, n_classes)`` gets ranking scores (``needs == "scores"``,
    shape (n,) or (n, k-1)) or predicted labels (``needs == "labels"``).
    """

    name: str
    display: str
    needs: str  # "scores" or "labels"
    lower_is_better: bool
    compute: Callable[[np.ndarray, np.ndarray, str, int], float]
    ordinal_only: bool = False

    def applies_to(self, task: str) -> bool:
        return task == "ordinal" or not self.ordinal_only


def _ranking(y: np.ndarray, s: np.ndarray, task: str, k: int) -> float:
    return ranking_score(task, y, s, k)


def _c_index(y: np.ndarray, s: np.ndarray, task: str, k: int) -> float:
    s = np.asarray(s, dtype=np.float64)
    if task == "binary":
        return ranking_score(task, y, s, k)
    # One score column per subproblem (M-*): rank by their sum, the expected number of
    # thresholds passed.
    return c_index(y, s if s.ndim == 1 else s.sum(axis=1))


def _survey(name: str) -> Callable[[np.ndarray, np.ndarray, str, int], float]:
    def compute(y: np.ndarray, p: np.ndarray, task: str, k: int) -> float:
        import warnings

        from skordinal import metrics as sk

        with warnings.catch_warnings():  # constant predictions: correlations are undefined
            warnings.simplefilter("ignore", RuntimeWarning)
            value = getattr(sk, name)(np.asarray(y).ravel(), np.asarray(p).ravel())
        return float(value)

    return compute


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("auc", "AUC", "scores", False, _ranking),
    Metric("c_index", "C-index", "scores", False, _c_index),
    Metric("mze", "MZE", "labels", True, lambda y, p, t, k: mze(y, p)),
    Metric("mae", "MAE", "labels", True, lambda y, p, t, k: mae(y, p)),
    Metric("amae", "AMAE", "labels", True, _survey("average_mean_absolute_error"), True),
    Metric("mmae", "MMAE", "labels", True, _survey("maximum_mean_absolute_error"), True),
    Metric("gm", "GM", "labels", False, _survey("geometric_mean")),
    Metric("ms", "MS", "labels", False, _survey("minimum_sensitivity")),
    Metric("spearman", "Spearman's rho", "labels", False, _survey("spearmans_rho"), True),
    Metric("tau", "Kendall's tau", "labels", False, _survey("kendalls_tau"), True),
    Metric("wkappa", "weighted kappa", "labels", False, _survey("weighted_kappa"), True),
)}


def metric(name: str) -> Metric:
    """The registered metric ``name`` (KeyError for an unknown one)."""
    return METRICS[name]


def evaluate_outputs(y: np.ndarray, scores: np.ndarray | None, labels: np.ndarray | None,
                     task: str, n_classes: int) -> dict[str, float | None]:
    """Every registered metric; None where the model's outputs do not allow it."""
    out: dict[str, float | None] = {}
    for m in METRICS.values():
        values = scores if m.needs == "scores" else labels
        out[m.name] = (m.compute(y, values, task, n_classes)
                       if values is not None and m.applies_to(task) else None)
    return out
