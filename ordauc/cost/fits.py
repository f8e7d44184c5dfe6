"""What the estimate prices, as the runner states it: the fits a cell's search will make, and
the few things of the runner a dry run measures.

The cost package knows nothing of the runner's modules (a test parses its imports): the tuners
state their own fits (``planned_fits``, :class:`PlannedFit` records computed from their
settings and the cell's :class:`CellShape`, without fitting), and the runner hands the
estimate a :class:`Runtime` that asks them. So a change to a tuner's search changes the
estimate with it, instead of a second model of the search drifting apart from the first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["CellShape", "PlannedFit", "Runtime"]


class PlannedFit(NamedTuple):
    """``repeats`` fits of ``models`` models each on ``n_train`` training rows.

    A lone fit has ``models`` 1; a shared grid pass fits its points (``models`` of them) in
    one go; ``repeats`` is how often the fit is made (the inner folds, the grid points fitted
    one by one). Under successive halving by iterations ``models`` is fractional: each model
    weighted by the share of ``n_iter`` it runs. A tuple, so that ``(n, count, models)``
    unpacks it.
    """

    n_train: int
    repeats: int
    models: float


@dataclass(frozen=True)
class CellShape:
    """The sizes a search's fits follow from: the labeled and unlabeled training rows, the
    classes, and whether the cell is fitted on its labeled rows alone.

    Parameters
    ----------
    n_labeled : int
        Labeled training rows of the split.
    n_unlabeled : int
        Unlabeled training rows of the split.
    n_classes : int
        Classes of the task (2 for a binary one).
    labeled_only : bool, default=False
        The cell is fitted on its labeled rows alone (a supervised solver, or one configured
        to read no unlabeled row).
    """

    n_labeled: int
    n_unlabeled: int
    n_classes: int = 2
    labeled_only: bool = False

    @property
    def unlabeled_fitted(self) -> int:
        """The unlabeled rows a fit reads (on the fitting side of every inner fold)."""
        return 0 if self.labeled_only else self.n_unlabeled

    @property
    def n_train(self) -> int:
        """The rows of the final fit: every training row the cell is fitted on."""
        return self.n_labeled + self.unlabeled_fitted

    def fold_labeled(self, folds: int) -> int:
        """The labeled rows an inner fold fits on (k - 1 of k folds), as the estimate counts
        them: exact where the folds divide the labeled rows evenly."""
        return int(self.n_labeled * (folds - 1) / folds)

    def fold_rows(self, folds: int) -> int:
        """The rows an inner fold fits on: its labeled rows and every unlabeled row read."""
        return self.fold_labeled(folds) + self.unlabeled_fitted


@dataclass(frozen=True)
class Runtime:
    """What the estimate needs of the runner, handed in by it.

    Parameters
    ----------
    planned_fits : callable
        ``planned_fits(cell, estimator, shape)``: the :class:`PlannedFit` records of the
        cell's search (its tuner's own statement) and final fit.
    shared_task : callable
        ``shared_task(cell, curves)``: the key of the task a cell shares with other specs of
        one sweep (one fit serves them all), else None.
    evaluate : callable
        ``evaluate(model, X, y, task, n_classes)``: a cell's scoring of a fitted model (every
        metric), timed by the calibration.
    minmax_scaler : callable
        ``minmax_scaler(X)``: the map ``preprocess: minmax`` applies, fitted on X.
    isolate : callable
        ``isolate(fn, timeout)``: runs ``fn`` in a forked process as a cell's fit runs.
    empty_cell : callable
        ``empty_cell(cell, sizes, config, data_dir, model)``: the rows of running ``cell``
        untuned with ``model``, as the runner runs a cell.
    """

    planned_fits: Callable[[Any, Any, CellShape], list[PlannedFit]]
    shared_task: Callable[[Any, bool], str | None]
    evaluate: Callable[..., Any]
    minmax_scaler: Callable[[Any], Callable[[Any], Any]]
    isolate: Callable[[Callable[[], Any], float | None], Any]
    empty_cell: Callable[[Any, Any, Any, str | None, Any], list[dict[str, Any]]]
