"""Tuners: how a solver's grid is searched, and how a fitted model is scored.

Two tuners, chosen per study or per solver in the config (``tuning.kind``):

- :class:`InnerCV` (``cv``): every grid point is fitted on k - 1 folds of the labeled training
  rows (unlabeled rows always on the fitting side) and scored on the held-out fold; the best
  mean wins and is refitted on all the training rows. The honest protocol.
- :class:`TestSelection` (``test``): every grid point is fitted on the training rows and scored
  on the evaluation rows; the best is kept as it is. What the AUC-DCD paper reports ("the best
  parameter"), optimistic by construction; its rows say so in the ``tuning`` column.

A solver with shared grid fits (``iter_fit_grid``: one pass fits every point that shares its
work, e.g. the QSG engine's (lam, gamma) points of one sigma, SAMULT's lambda path) is asked
for a fold's whole grid at once, and, when it has ``iter_fit_grid_folds``, for every fold's
grid in one call (so that the folds may share work too: SAMULT's unlabeled rows, the same in
every fold, are decomposed once per sigma); others are fitted one point at a time. A model a
pass leaves with ``tracked_decision_`` (its ``decision_function`` on the fold's validation
rows, computed in the pass) is scored from it. The chosen point and the scores are the same
either way (to the float32 rounding the solver documents); ``shared`` False forces one fit per
point. A candidate that raises scores NaN and is counted
(``cv_failed``, with the first message); it never takes the other points down. A point's score
is the mean over the folds that could be scored; NaN ranks last, ties go to the first point in
grid order. Metrics come from the registry (:data:`ordauc.metrics.METRICS`): its direction
decides "best". The criterion ``own``
is the solver's own model-selection score, scikit-learn's ``score(X, y)`` (higher is better),
given validation rows that include unlabeled ones (e.g. PNU-AUC's zero-one PNU-AUC risk).

A tuner takes a list of selection metrics and runs its search once: every fitted candidate is
scored by each metric, and each metric chooses its own point (a :class:`Tuned` per metric), so
a study that reports MZE of MZE-tuned models beside MAE of MAE-tuned models pays for one
search.

These are the ``paper`` profile's searches. The ``quick`` profile searches the same folds by
successive halving (:class:`~ordauc.experiment.halving.HalvingCV`), with the same scoring,
failure counting and choice rules (:func:`ranked`); ``tuning: test`` is the same in both.
:func:`~ordauc.experiment.tuners.make_tuner` builds the tuner of a cell.

Each tuner states the fits it will make, from its settings and the cell's shape and without
fitting (``planned_fits``: :class:`~ordauc.cost.fits.PlannedFit` records): what the dry run's
estimate prices (:mod:`ordauc.cost.estimate`), so that the estimate follows the search as it
is. The records count what the search fits, and the caller's refit of the chosen point.
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
from ordauc.cost.fits import CellShape, PlannedFit


@dataclass(frozen=True)
class Tuned:
    """The chosen point and what choosing it cost.

    ``model`` is the chosen point's fitted model when the tuner already fitted it on all the
    training rows (``TestSelection``), else None (the caller refits).
    """

    params: dict[str, Any]
    score: float  # NaN when there was nothing to choose
    time_s: float
    failed: int = 0
    first_failure: str = ""
    model: Any = None
    fit_time_s: float = math.nan
    points: tuple[tuple[dict[str, Any], float], ...] = ()  # every grid point and its score
    fits: int = 0  # candidate fits the search started (a point on a fold, in every round)
    work: float = 0.0  # those fits in full fits: each counts the share of the resource it used


class CandidatesFailed(RuntimeError):
    """Every grid point failed; the message is the first failure's."""


OWN = "own"  # the solver's own selection criterion: its score(X, y), higher is better


def score_one(model: Any, X: Any, y: np.ndarray, metric: str, task: str, n_classes: int
              ) -> float:
    """One registry metric (or the model's own ``score``) of a fitted model on (X, y)."""
    return score_many(model, X, y, [metric], task, n_classes)[metric]


def score_many(model: Any, X: Any, y: np.ndarray, names: list[str], task: str, n_classes: int,
               scores: np.ndarray | None = None) -> dict[str, float]:
    """Several registry metrics (or the model's own ``score``) of a fitted model on (X, y),
    from one call of each output the metrics need; ``scores``, when given, is the model's
    ``decision_function(X)`` already computed."""
    out: dict[str, float] = {}
    outputs: dict[str, np.ndarray] = {} if scores is None else {"scores": scores}
    for name in names:
        if name == OWN:
            out[name] = float(model.score(X, y))
            continue
        m = metrics.METRICS[name]
        if m.needs not in outputs:
            outputs[m.needs] = (model.decision_function(X) if m.needs == "scores"
                                else model.predict(X))
        out[name] = m.compute(y, outputs[m.needs], task, n_classes)
    return out


def fit_timed(estimator: Any, X: Any, y: np.ndarray, **fit_params: Any) -> float:
    """Fit in place; the seconds it took."""
    start = time.perf_counter()
    estimator.fit(X, y, **fit_params)
    return time.perf_counter() - start


Scores = dict[str, float]  # metric -> score of one candidate on one fold


class _Search:
    """Shared bookkeeping: failures counted, the first message kept, the best point chosen
    for each selection metric."""

    def __init__(self, names: list[str], task: str, n_classes: int, describe: Any = None
                 ) -> None:
        self.names, self.task, self.n_classes = list(names), task, n_classes
        self.describe = describe or (lambda exc: f"{type(exc).__name__}: {exc}")
        self.failed = 0
        self.first_failure = ""
        # the exception behind each message kept as first_failure: the one raised when every
        # point failed is chained to it, so --debug shows the solver's own traceback
        self.errors: dict[str, BaseException] = {}
        # what a search costs, to compare searches (the profiles): fits started, and their
        # sum in full fits, each weighted by ``share``, the share of the rows it is given
        self.fits, self.work, self.share = 0, 0.0, 1.0

    def attempt(self, estimator: Any, params: dict[str, Any], X_fit: Any, y_fit: np.ndarray,
                X_val: Any, y_val: np.ndarray) -> tuple[Scores, Any, float]:
        """(scores, fitted model or None, fit seconds) of one candidate on one fold."""
        model = clone(estimator).set_params(**params)
        self.fits, self.work = self.fits + 1, self.work + self.share
        try:
            seconds = fit_timed(model, X_fit, y_fit)
        except Exception as exc:  # a failing candidate scores NaN; the others go on
            return self._failed(params, exc), None, math.nan
        return self.score(model, params, X_val, y_val), model, seconds

    def score(self, model: Any, params: dict[str, Any], X_val: Any, y_val: np.ndarray
              ) -> Scores:
        """A fitted candidate's scores, NaN (and counted) when scoring raises. A model its pass
        left with ``tracked_decision_`` of X_val's length is scored from it."""
        tracked = getattr(model, "tracked_decision_", None)
        if tracked is not None and np.shape(tracked)[0] != np.shape(y_val)[0]:
            tracked = None  # tracked on other rows: not these scores
        try:
            return score_many(model, X_val, y_val, self.names, self.task, self.n_classes,
                              tracked)
        except Exception as exc:
            return self._failed(params, exc)

    def _failed(self, params: dict[str, Any], exc: Exception) -> Scores:
        self.failed += 1
        if not self.first_failure:
            self.first_failure = f"{params}: {self.describe(exc)}"
            self.errors.setdefault(self.first_failure, exc)
        return dict.fromkeys(self.names, math.nan)

    def fold_scores(self, estimator: Any, candidates: list[dict[str, Any]], X_fit: Any,
                    y_fit: np.ndarray, X_val: Any, y_val: np.ndarray, shared: bool,
                    max_bytes: int | None) -> list[Scores]:
        """Every candidate's scores on one fold: the solver's shared passes where it has them
        (each model scored as its pass yields it, then dropped), else one fit per point."""
        if not (shared and hasattr(estimator, "iter_fit_grid")):
            return [self.attempt(estimator, p, X_fit, y_fit, X_val, y_val)[0]
                    for p in candidates]
        scores = [dict.fromkeys(self.names, math.nan) for _ in candidates]
        for i, model in estimator.iter_fit_grid(X_fit, y_fit, candidates, max_bytes):
            self.fits, self.work = self.fits + 1, self.work + self.share
            if isinstance(model, Exception):
                scores[i] = self._failed(candidates[i], model)
            else:
                scores[i] = self.score(model, candidates[i], X_val, y_val)
        return scores

    def folds_scores(self, estimator: Any, candidates: list[dict[str, Any]], X: Any,
                     y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]],
                     max_bytes: int | None) -> list[list[Scores]]:
        """Every candidate's scores on every fold from one ``iter_fit_grid_folds`` call (each
        model scored as it is yielded, then dropped): per fold, what :meth:`fold_scores` gives.

        The folds arrive interleaved (groups outer, folds inner), so the first failure kept
        is chosen as the fold-by-fold search would: the first of the lowest fold that has one.
        """
        vals = [(X[val], y[val]) for _, val in folds]
        scores = [[dict.fromkeys(self.names, math.nan) for _ in candidates] for _ in folds]
        prior, firsts = self.first_failure, [""] * len(folds)
        for f, i, model in estimator.iter_fit_grid_folds(X, y, folds, candidates, max_bytes,
                                                         track=True):
            self.fits, self.work = self.fits + 1, self.work + self.share
            self.first_failure = firsts[f]  # _failed keeps the first message of this fold
            if isinstance(model, Exception):
                scores[f][i] = self._failed(candidates[i], model)
            else:
                scores[f][i] = self.score(model, candidates[i], *vals[f])
            firsts[f] = self.first_failure
            del model  # scored: dropped before the next is fitted
        self.first_failure = prior or next((m for m in firsts if m), "")
        return scores

    def best(self, means: list[float], metric: str) -> int:
        """The index of the best mean for ``metric`` (NaN last, the first of equals)."""
        if not any(math.isfinite(v) for v in means):
            raise CandidatesFailed(f"every grid point failed; the first: {self.first_failure}"
                                   if self.first_failure else "no grid point could be scored"
                                   ) from self.errors.get(self.first_failure)
        return ranked(means, metric)[0]


def ranked(means: list[float], metric: str) -> list[int]:
    """Indices of ``means`` from best to worst for ``metric``: NaN last, equals in their order
    (the one ranking of every choice: the best point, and the survivors of a halving round)."""
    lower = metric != OWN and metrics.METRICS[metric].lower_is_better

    def rank(i: int) -> tuple[bool, float]:
        value = means[i]
        if not math.isfinite(value):
            return (True, 0.0)
        return (False, value if lower else -value)

    return sorted(range(len(means)), key=rank)  # a stable sort keeps the first of equal ranks


def shared_passes(estimator: Any, grid: dict[str, list[Any]], shared: bool) -> list[int]:
    """The models of each fit an inner-CV search makes per fold: one per grid point, or with
    ``shared`` passes one per pass (the points with one ``grid_key``) for a solver with
    shared grid fits (a pass split to fit the memory budget counts as one)."""
    points = list(ParameterGrid(grid))
    if not (shared and hasattr(estimator, "grid_key")):
        return [1] * len(points)
    params = estimator.get_params()
    groups: dict[tuple, int] = {}
    for point in points:
        key = estimator.grid_key({**params, **point})
        groups[key] = groups.get(key, 0) + 1
    return list(groups.values())


def _single(grid: dict[str, list[Any]], names: list[str]
            ) -> tuple[list[dict[str, Any]], dict[str, Tuned] | None]:
    """The grid's points, and the answer at once when there is nothing to choose."""
    candidates = list(ParameterGrid(grid))
    if len(candidates) > 1:
        return candidates, None
    point = candidates[0] if candidates else {}
    return candidates, {name: Tuned(point, math.nan, 0.0) for name in names}


class InnerCV:
    """Grid search by k-fold CV on the labeled training rows, then a refit (by the caller).

    One search serves every selection metric in ``names``: each fold's fits are scored by all
    of them, and each picks its own point."""

    kind = "cv"

    def __init__(self, folds: list[tuple[np.ndarray, np.ndarray]], names: list[str],
                 task: str, n_classes: int, describe: Any = None, shared: bool = True,
                 max_bytes: int | None = None) -> None:
        self.folds = folds
        self.shared, self.max_bytes = shared, max_bytes
        self.search = _Search(names, task, n_classes, describe)

    @staticmethod
    def planned_fits(estimator: Any, grid: dict[str, list[Any]], shape: CellShape,
                     folds: int, shared: bool = True) -> list[PlannedFit]:
        """The fits of a search over ``grid`` by ``folds``-fold CV and the refit: each shared
        pass (or grid point) once per fold on a fold's fitting rows, then the chosen point on
        every training row. ``estimator`` carries the parameters the grid overrides."""
        n_fold = shape.fold_rows(folds)
        return [*(PlannedFit(n_fold, folds, m) for m in shared_passes(estimator, grid, shared)),
                PlannedFit(shape.n_train, 1, 1)]

    def tune(self, estimator: Any, X: Any, y: np.ndarray, grid: dict[str, list[Any]]
             ) -> dict[str, Tuned]:
        """The chosen point of each selection metric."""
        candidates, trivial = _single(grid, self.search.names)
        if trivial is not None:
            return trivial
        start = time.perf_counter()
        if self.shared and hasattr(estimator, "iter_fit_grid_folds"):
            per_fold = self.search.folds_scores(estimator, candidates, X, y, self.folds,
                                                self.max_bytes)
        else:
            per_fold = [self.search.fold_scores(estimator, candidates, X[fit], y[fit], X[val],
                                                y[val], self.shared, self.max_bytes)
                        for fit, val in self.folds]
        elapsed = time.perf_counter() - start
        out = {}
        for name in self.search.names:
            means = []
            for i in range(len(candidates)):
                finite = [s[i][name] for s in per_fold if math.isfinite(s[i][name])]
                means.append(float(np.mean(finite)) if finite else math.nan)
            best = self.search.best(means, name)
            out[name] = Tuned(candidates[best], means[best], elapsed, self.search.failed,
                              self.search.first_failure,
                              points=tuple(zip(candidates, means, strict=True)),
                              fits=self.search.fits, work=self.search.work)
        return out


class TestSelection:
    """Every grid point fitted on the training rows and scored on the evaluation rows; each
    selection metric keeps its best model (no refit). Its ``time_s`` excludes the kept model's
    own fit."""

    kind = "test"

    def __init__(self, X_eval: Any, y_eval: np.ndarray, names: list[str], task: str,
                 n_classes: int, describe: Any = None) -> None:
        self.X_eval, self.y_eval = X_eval, y_eval
        self.search = _Search(names, task, n_classes, describe)

    @staticmethod
    def planned_fits(estimator: Any, grid: dict[str, list[Any]], shape: CellShape
                     ) -> list[PlannedFit]:
        """Every grid point fitted once on every training row (the kept model is one of
        them: no refit)."""
        return [PlannedFit(shape.n_train, len(ParameterGrid(grid)), 1)]

    def tune(self, estimator: Any, X: Any, y: np.ndarray, grid: dict[str, list[Any]]
             ) -> dict[str, Tuned]:
        """The chosen point (and its fitted model) of each selection metric."""
        candidates, trivial = _single(grid, self.search.names)
        if trivial is not None:
            return trivial
        start = time.perf_counter()
        outcomes = [self.search.attempt(estimator, p, X, y, self.X_eval, self.y_eval)
                    for p in candidates]
        elapsed = time.perf_counter() - start
        out = {}
        for name in self.search.names:
            values = [scores[name] for scores, _, _ in outcomes]
            best = self.search.best(values, name)
            _, model, seconds = outcomes[best]
            out[name] = Tuned(candidates[best], values[best], elapsed - seconds,
                              self.search.failed, self.search.first_failure, model, seconds,
                              tuple(zip(candidates, values, strict=True)), self.search.fits,
                              self.search.work)
        return out
