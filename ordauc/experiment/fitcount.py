"""How many fits a cell's search makes, and of how many models: what the estimate costs
(:mod:`ordauc.experiment.estimate`), and which grid points a calibration times.

A search fits every grid point on every inner fold and refits the chosen one; a solver with
shared grid passes (``grid_key``) fits the points of one group in one pass per fold. Under the
quick profile, successive halving cuts the work: by iterations inside a pass that can be
paused, else by samples (:mod:`ordauc.experiment.halving`).
"""

from __future__ import annotations

from typing import Any

from sklearn.model_selection import ParameterGrid

from ordauc.experiment.calibration import GRID_POINTS, PASS_MODELS

__all__ = ["fits_of", "grid_spread", "pass_points", "passes", "quick_fits"]


def passes(estimator: Any, cell: Any) -> list[int]:
    """The number of models of each fit the search makes per fold: one per grid point, or per
    shared pass (the points with one ``grid_key``) for a solver with shared grid fits."""
    points = list(ParameterGrid(cell.solver.grid))
    if not (cell.tuning.shared and cell.tuning.kind == "cv" and hasattr(estimator, "grid_key")):
        return [1] * len(points)
    params = estimator.get_params()
    groups: dict[tuple, int] = {}
    for point in points:
        key = estimator.grid_key({**params, **point})
        groups[key] = groups.get(key, 0) + 1
    return list(groups.values())


def pass_points(estimator: Any, cell: Any, most: int = PASS_MODELS) -> list[dict[str, Any]]:
    """Up to ``most`` grid points of the first shared pass (to time what sharing saves)."""
    if not hasattr(estimator, "grid_key"):
        return []
    params = estimator.get_params()
    points = list(ParameterGrid(cell.solver.grid))
    first = estimator.grid_key({**params, **points[0]})
    return [p for p in points if estimator.grid_key({**params, **p}) == first][:most]


def grid_spread(estimator: Any, cell: Any, most: int = GRID_POINTS) -> list[dict[str, Any]]:
    """Up to ``most`` points spread evenly over the cell's grid, the first point first, one
    per shared pass where the solver shares passes (what a pass adds is timed apart): the
    points a calibration times to see how the grid varies a fit's time."""
    if not cell.tuned:
        return []
    points = list(ParameterGrid(cell.solver.grid))
    if hasattr(estimator, "grid_key") and cell.tuning.shared:
        params = estimator.get_params()
        firsts: dict[Any, dict[str, Any]] = {}
        for point in points:
            firsts.setdefault(estimator.grid_key({**params, **point}), point)
        points = list(firsts.values())
    if len(points) <= most:
        return points
    return [points[round(i * (len(points) - 1) / (most - 1))] for i in range(most)]


def fits_of(cell: Any, n_labeled: int, n_unlabeled: int, models: list[int] | None = None
            ) -> list[tuple[int, int, int]]:
    """(training rows, number of fits, models per fit) of one fit group, whose first cell is
    ``cell``; ``models`` the sizes of the search's shared passes (:func:`passes`)."""
    n_train = n_labeled + (0 if cell.labeled_only else n_unlabeled)
    if not cell.tuned:
        return [(n_train, 1, 1)]
    models = models or [1] * len(ParameterGrid(cell.solver.grid))
    if cell.tuning.kind != "cv":
        return [(n_train, len(models), 1)]
    folds = cell.tuning.folds
    n_fold = int(n_labeled * (folds - 1) / folds) + (0 if cell.labeled_only else n_unlabeled)
    return [*((n_fold, folds, m) for m in models), (n_train, 1, 1)]


def quick_fits(cell: Any, estimator: Any, n_labeled: int, n_unlabeled: int, n_classes: int
               ) -> list[tuple[int, int, float]]:
    """:func:`fits_of` under the quick profile's successive halving: by iterations inside a
    shared pass that can be paused (each pass's models weighted by the share of ``n_iter``
    they run), else by samples (each round's candidates on its share of the rows)."""
    from ordauc.experiment.halving import QUICK

    models = passes(estimator, cell)
    if not (cell.tuned and cell.tuning.kind == "cv"):
        return fits_of(cell, n_labeled, n_unlabeled, models)
    folds = cell.tuning.folds
    n_fold = int(n_labeled * (folds - 1) / folds) + (0 if cell.labeled_only else n_unlabeled)
    refit = (n_labeled + (0 if cell.labeled_only else n_unlabeled), 1, 1.0)
    resource = getattr(estimator, "grid_resource", None)
    if resource is not None and len(models) < sum(models):
        top = int(estimator.get_params()[resource])
        out = []
        for m in models:
            done, work = 0, 0.0
            for resources, alive in QUICK.rounds(m, top, 1):
                work, done = work + alive * (resources - done) / top, resources
            out.append((n_fold, folds, work))
        return [*out, refit]
    n_fit_labeled = int(n_labeled * (folds - 1) / folds)
    out = []
    for resources, alive in QUICK.rounds(sum(models), n_fit_labeled, 2 * folds * n_classes):
        share = min(1.0, resources / max(n_fit_labeled, 1))
        per_pass = alive / len(models)
        out += [(max(1, int(share * n_fold)), folds, per_pass)] * len(models)
    return [*out, refit]
