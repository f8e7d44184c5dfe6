"""The runner's side of the dry run's estimate: what :mod:`ordauc.cost` needs of it.

The cost package imports nothing of the runner; this module hands it a
:class:`~ordauc.cost.fits.Runtime` (the tuners' planned fits, the sweep tasks, the scoring,
the preprocessing, the forked process and a cell run with a given model) and the dry run's
cells, split into those to run and those done.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ordauc.cost.estimate import SolverCost
from ordauc.cost.estimate import dry_run_costs as _dry_run_costs
from ordauc.cost.fits import Runtime

if TYPE_CHECKING:
    from ordauc.experiment.runner import DryRun

__all__ = ["dry_run_costs", "empty_cell", "runtime"]


def empty_cell(cell: Any, sizes: Any, config: Any, data_dir: str | None, model: Any
               ) -> list[dict[str, Any]]:
    """The rows of running ``cell`` untuned with ``model`` (no curves), as a run runs it: its
    forked process, dataset, split, preprocessing and metrics."""
    from ordauc.experiment.cell import CellTask, DatasetRef, run_cell

    empty = replace(cell, solver=replace(cell.solver, grid={}), cv_metric="", by_metric=False)
    task = CellTask((empty,), model, False,
                    DatasetRef(cell.dataset.name, cell.dataset.params, data_dir), (sizes,),
                    replace(config, curves_every=None), {})
    return [outcome.row for outcome in run_cell(task)]


def runtime() -> Runtime:
    """The runner's :class:`~ordauc.cost.fits.Runtime`."""
    from ordauc.experiment.cell import minmax_scaler
    from ordauc.experiment.evaluate import evaluate
    from ordauc.experiment.isolate import run_isolated
    from ordauc.experiment.sweep import sweep_task
    from ordauc.experiment.tuners import planned_fits

    return Runtime(planned_fits=planned_fits, shared_task=sweep_task, evaluate=evaluate,
                   minmax_scaler=minmax_scaler, isolate=run_isolated, empty_cell=empty_cell)


def dry_run_costs(report: DryRun, config: Any, data_dir: str | None,
                  memory_share: int | None = None) -> dict[str, SolverCost]:
    """The estimate a dry run prints (:func:`ordauc.cost.estimate.dry_run_costs`) of a
    :class:`~ordauc.experiment.runner.DryRun` ``report``: its cells still to run, rescaled by
    its finished ones."""
    return _dry_run_costs(report.to_run(), report.kept(), report.sizes, report.rows, config,
                          data_dir, runtime(), memory_share)
