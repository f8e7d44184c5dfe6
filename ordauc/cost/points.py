"""Which grid points a calibration times: those of one shared pass (what sharing saves) and a
spread over the grid (how the grid varies a fit's time).

How many fits a search makes is not modelled here: each tuner states its own
(``planned_fits``, :mod:`ordauc.cost.fits`).
"""

from __future__ import annotations

from typing import Any

from sklearn.model_selection import ParameterGrid

from ordauc.cost.calibration import GRID_POINTS, PASS_MODELS

__all__ = ["grid_spread", "pass_points"]


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
