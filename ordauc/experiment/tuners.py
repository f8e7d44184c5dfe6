"""The tuner of a cell, built in one place, and the fits it states.

A cell's search is one of four tuners, chosen by :func:`tuner_spec` from the cell (its
tuning, its profile) and nothing else:

- untuned (one grid point): :class:`NoTuning`, the point as it is;
- ``tuning: test``: :class:`~ordauc.experiment.tuning.TestSelection`;
- ``tuning: cv`` under the ``paper`` profile: :class:`~ordauc.experiment.tuning.InnerCV`;
- ``tuning: cv`` under the ``quick`` profile: :class:`~ordauc.experiment.halving.HalvingCV`.

:func:`make_tuner` builds it for a task's data; :func:`planned_fits` asks the same class for
the fits it will make (without data, from the cell's shape), which is what the dry run's
estimate prices (:mod:`ordauc.cost.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ordauc.cost.fits import CellShape, PlannedFit
from ordauc.experiment.halving import QUICK, Halving, HalvingCV
from ordauc.experiment.tuning import OWN, InnerCV, TestSelection, Tuned, _single
from ordauc.splits import cv_folds

__all__ = ["NoTuning", "TunerSpec", "make_tuner", "planned_fits", "spec_fits", "tuner_class",
           "tuner_spec"]


@dataclass(frozen=True)
class TunerSpec:
    """How a cell's grid is searched.

    Parameters
    ----------
    kind : {"none", "cv", "test"}
        ``none`` for an untuned cell (nothing to choose), else the study's ``tuning.kind``.
    folds : int, default=5
        Inner folds of a ``cv`` search.
    shared : bool, default=True
        Fit the grid in the solver's shared passes where it has them.
    halving : Halving or None, default=None
        Search the ``cv`` folds by successive halving with these parameters (the ``quick``
        profile); None: every point on every fold.
    seed : int, default=0
        The cell's inner seed: its folds and the halving rounds' subsamples.
    """

    kind: str = "none"
    folds: int = 5
    shared: bool = True
    halving: Halving | None = None
    seed: int = 0


def tuner_spec(cell: Any) -> TunerSpec:
    """The search of a planned cell: its tuning, under its profile."""
    kind = cell.tuning.kind if cell.tuned else "none"
    halving = QUICK if kind == "cv" and getattr(cell, "profile", "paper") == "quick" else None
    return TunerSpec(kind, cell.tuning.folds, cell.tuning.shared, halving,
                     int(cell.seeds.inner))


class NoTuning:
    """The tuner of an untuned cell: its one point, chosen without a fit (the caller fits
    it once)."""

    kind = "none"

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)

    def tune(self, estimator: Any, X: Any, y: np.ndarray, grid: dict[str, list[Any]]
             ) -> dict[str, Tuned]:
        """The grid's only point (or no parameter at all) for each selection metric."""
        _, trivial = _single(grid, self.names)
        if trivial is None:  # untuned means one point at most (plan.is_tuned)
            raise ValueError("an untuned cell's grid has one point at most")
        return trivial

    @staticmethod
    def planned_fits(estimator: Any, grid: dict[str, list[Any]], shape: CellShape
                     ) -> list[PlannedFit]:
        """One fit, on every training row."""
        return [PlannedFit(shape.n_train, 1, 1)]


def tuner_class(spec: TunerSpec) -> type:
    """The class of the tuner ``spec`` asks for (the one place that chooses)."""
    if spec.kind == "none":
        return NoTuning
    if spec.kind == "test":
        return TestSelection
    return InnerCV if spec.halving is None else HalvingCV


def make_tuner(spec: TunerSpec, names: list[str], task: str, n_classes: int, *,
               y: np.ndarray | None = None, n_labeled: int = 0,
               evaluation: tuple[Any, np.ndarray] | None = None, describe: Any = None,
               max_bytes: int | None = None) -> Any:
    """The tuner of ``spec`` for a task's data.

    Parameters
    ----------
    spec : TunerSpec
        The search (:func:`tuner_spec` of the cell).
    names : list of str
        The selection metrics; the search runs once for all of them.
    task : str
        ``binary`` or ``ordinal``.
    n_classes : int
        Classes of the dataset.
    y : ndarray, default=None
        Training labels, the labeled rows first then the unlabeled ones (-1): the inner
        folds of a ``cv`` search are drawn from them.
    n_labeled : int, default=0
        The labeled rows at the head of ``y``.
    evaluation : (X, y), default=None
        The evaluation rows a ``test`` search scores on.
    describe : callable, default=None
        Turns a candidate's exception into its one-line message.
    max_bytes : int, default=None
        Memory budget of a shared grid pass.
    """
    cls = tuner_class(spec)
    if cls is NoTuning:
        return NoTuning(names)
    if cls is TestSelection:
        X_eval, y_eval = evaluation
        return TestSelection(X_eval, y_eval, names, task, n_classes, describe)
    folds = cv_folds(y[:n_labeled], y.size - n_labeled, spec.folds, spec.seed,
                     split_unlabeled=OWN in names)
    if cls is HalvingCV:
        return HalvingCV(folds, names, task, n_classes, describe, shared=spec.shared,
                         max_bytes=max_bytes, seed=spec.seed, halving=spec.halving)
    return InnerCV(folds, names, task, n_classes, describe, shared=spec.shared,
                   max_bytes=max_bytes)


def planned_fits(cell: Any, estimator: Any, shape: CellShape) -> list[PlannedFit]:
    """The fits a cell's search and final fit will make (its tuner's own statement, without
    fitting); ``estimator`` carries the solver's fixed parameters."""
    return spec_fits(tuner_spec(cell), estimator, cell.solver.grid, shape)


def spec_fits(spec: TunerSpec, estimator: Any, grid: dict[str, list[Any]], shape: CellShape
              ) -> list[PlannedFit]:
    """The fits the tuner of ``spec`` (the class :func:`make_tuner` builds) states for
    ``grid`` on a cell of ``shape``, and the caller's refit where it makes one."""
    cls = tuner_class(spec)
    if cls is HalvingCV:
        return HalvingCV.planned_fits(estimator, grid, shape, spec.folds, spec.shared,
                                      spec.halving)
    if cls is InnerCV:
        return InnerCV.planned_fits(estimator, grid, shape, spec.folds, spec.shared)
    return cls.planned_fits(estimator, grid, shape)
