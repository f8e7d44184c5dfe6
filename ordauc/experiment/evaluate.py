"""Scoring a fitted model, and recording an iterative solver's progress with the clock paused.

:func:`evaluate` computes every metric of the registry that the model's outputs allow: ranking
metrics from ``decision_function``, label metrics from ``predict`` (or ``predict_from_scores``,
so the evaluation set, every unlabeled row in the QSG protocol, is scored once).

:class:`CurveRecorder` is the checkpoint the cell hands an iterative solver: at each call it
scores the evaluation rows with the current iterate (and reads the iterate's objective where the
solver has one) and keeps the time spent doing so out of the fit's clock.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ordauc import metrics


def model_outputs(model: Any, X: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(ranking scores or None, predicted labels or None) of a fitted model on X."""
    raw = model.decision_function(X) if hasattr(model, "decision_function") else None
    if raw is not None and hasattr(model, "predict_from_scores"):
        labels = model.predict_from_scores(raw)
    else:
        labels = model.predict(X) if hasattr(model, "predict") else None
    scores = None if raw is None else np.asarray(raw, dtype=np.float64)
    return scores, labels


def evaluate(model: Any, X: Any, y: np.ndarray, task: str, n_classes: int) -> dict[str, Any]:
    """Every registry metric the model's outputs allow (None for the others), and
    ``predict_time_s``, the time to compute those outputs."""
    start = time.perf_counter()
    scores, labels = model_outputs(model, X)
    elapsed = time.perf_counter() - start
    values = metrics.evaluate_outputs(np.asarray(y), scores, labels, task, n_classes)
    return {**values, "predict_time_s": elapsed}


PER_DECADE = 20  # checkpoints per decade of iterations with ``spacing="log"``


def on_log_grid(iteration: int, every: int) -> bool:
    """Whether checkpoint ``iteration`` (a multiple of ``every``) is the first to enter a new
    1/20 of a decade of iterations: about 20 recorded per decade, evenly on a log axis, which
    a log-log slope needs and which costs a fraction of recording every checkpoint."""
    if iteration <= every:
        return True
    bins = np.floor(PER_DECADE * np.log10(np.array([iteration - every, iteration]) / every)
                    + 1e-9)  # the 1e-9 keeps an exact power of ten in its own bin
    return bool(bins[1] > bins[0])


class CurveRecorder:
    """A :class:`~ordauc.solvers._base.Checkpoint` that records the ranking metric of each
    evaluation set (and the iterate's objective, where it has one) every ``every`` iterations.

    ``targets`` are (X, y) pairs: one per cell the fit serves (a supervised solver's fit serves
    every unlabeled budget of its labeled set, each scored on its own evaluation rows);
    ``rows[i]`` are the curve rows of target i. The clock starts when the recorder is made,
    just before the fit; ``paused_s`` is the time spent inside calls, which the cell subtracts
    from the fit time. Each row's ``time_s`` is fit time so far, curve time excluded. Only the
    final fit of a cell is recorded: under ``tuning: test`` the kept model is a grid candidate,
    fitted without a recorder. With ``until``, calls after that iteration record nothing, and
    ``until`` tells a solver that reads it that it may stop calling (a figure of the first
    iterations needs no more). With ``spacing="log"`` only the checkpoints of
    :func:`on_log_grid` are recorded. ``references`` (one score vector per target) are an
    exact solution's scores on the targets' rows: each checkpoint then also records
    ``reference_error``, the mean of (f_t(x) - f_ref(x))^2 over the rows, the pointwise error
    the QSG papers' Theorem 1 bounds by O(1/t).
    """

    def __init__(self, every: int, targets: list[tuple[Any, np.ndarray]], task: str,
                 n_classes: int, until: int | None = None, spacing: str = "linear",
                 references: list[np.ndarray] | None = None) -> None:
        self.every = int(every)
        self.until = None if until is None else int(until)
        self.targets = [(X, np.asarray(y)) for X, y in targets]
        self.task, self.n_classes = task, n_classes
        self.spacing = spacing
        if references is not None and len(references) != len(self.targets):
            raise ValueError("one reference score vector per target")
        self.references = references
        self.rows: list[list[dict[str, Any]]] = [[] for _ in self.targets]
        self.paused_s = 0.0
        self._start = time.perf_counter()

    def __call__(self, iteration: int, iterate: Any) -> None:
        if self.until is not None and iteration > self.until:
            return
        if self.spacing == "log" and not on_log_grid(iteration, self.every):
            return
        entered = time.perf_counter()
        fit_so_far = entered - self._start - self.paused_s
        objective = float(iterate.objective()) if hasattr(iterate, "objective") else None
        for i, ((X, y), rows) in enumerate(zip(self.targets, self.rows, strict=True)):
            scores = np.asarray(iterate.decision_function(X), dtype=np.float64)
            values = {"auc": metrics.ranking_score(self.task, y, scores, self.n_classes)}
            if objective is not None:
                values["objective"] = objective
            if self.references is not None:
                values["reference_error"] = float(np.mean((scores - self.references[i]) ** 2))
            for name, value in values.items():
                rows.append({"iteration": int(iteration), "time_s": fit_so_far,
                             "metric": name, "value": value})
        self.paused_s += time.perf_counter() - entered
