"""A config ``sweep`` fitted as one task per split: one ``fit_grid`` call serves every swept spec.

A solver entry's ``sweep`` makes one spec per combination of values (``npsvor.tol_abs=1e-06.
tol_rel=0.01``, ...), each an untuned run of the solver (:func:`ordauc.config._solver`). When
the swept parameters are all among the solver's ``grid_shared`` (:mod:`ordauc.solvers.gridfit`),
the estimator can fit those points together in shared passes: NPSVOR fits the 121 tolerance
points of the NPSVOR paper's Fig. 4 from one kernel factor and one ADMM trajectory, whose
iterates do not read the tolerances. The runner then makes one task of the specs' cells that
share a split (and a fit key: one per ``n_unlabeled`` unless the solver's fit serves them all),
instead of one task per spec (:func:`shares_pass`, :func:`pass_key`).

The decision reads the spec (``sweep_of``, ``swept``, its grid), the estimator class
(:class:`~ordauc.solvers.gridfit.GridFit` and its ``grid_shared``) and whether the study records
checkpoints of an iterative solver (a grid call has no checkpoint); never a solver's name. A
swept spec that is tuned (a ``grid`` of several points) keeps a task per spec, as before.

Each row is the row the spec's own task writes: the same key, fit key, hashes, chosen
parameters, metrics, curve rows (the model's logged traces), ``n_iter`` and ``warnings`` (those
caught while its model was produced and scored), since ``fit_grid`` returns each point's lone
fit (bitwise for NPSVOR; within the rounding a solver documents otherwise). What differs is the
clock: the points are fitted together, so ``fit_time_s`` cannot be each one's own fit timed
from outside, and the ``fit_time_basis`` column says what it is:

- ``in_pass``: the model reports its own fit's seconds, measured inside the pass
  (``fit_seconds_``; NPSVOR: building and factoring the kernel, its ADMM up to its own stop on
  the shared trajectory, its biases), i.e. what its lone fit would take. These overlap: their
  sum over the points exceeds the task's time.
- ``pass_share``: the model does not report it; the grid call's time divided equally among
  the points it fitted (their sum is the call's time).

``wall_time_s`` and ``peak_rss_mb`` are the whole task's, on every row of it (as for the cells
of any task that serves several); the timeout applies to the whole task. ``predict_time_s`` is
the scoring of the row's model as the task did it: a solver whose models of one pass share work
(NPSVOR's models stopped at one iterate share their rank functions) shows less for a model
whose twin scored the rows first.
"""

from __future__ import annotations

import time
import traceback
import warnings
from typing import Any

from ordauc.config import SolverSpec
from ordauc.experiment.cell import CellTask, describe, measured_row, prepare, trace_rows
from ordauc.experiment.evaluate import evaluate
from ordauc.experiment.plan import Cell
from ordauc.results import CellOutcome
from ordauc.results.schema import ERROR, fit_key
from ordauc.solvers.gridfit import GridFit

IN_PASS = "in_pass"  # fit_time_basis: the model's own seconds, measured inside the pass
PASS_SHARE = "pass_share"  # fit_time_basis: the grid call's seconds over its points


def shares_pass(solver: SolverSpec, cls: type, tuned: bool, checkpoints: bool) -> bool:
    """Whether the specs of ``solver``'s sweep entry are fitted in one task per split: made by
    a ``sweep`` whose parameters are all in the estimator class's ``grid_shared``, a
    :class:`GridFit`, untuned (``tuned`` false), and not recording an iterative solver's
    checkpoints (``checkpoints`` false)."""
    return (solver.sweep_of is not None and bool(solver.swept) and not tuned
            and not checkpoints and isinstance(cls, type) and issubclass(cls, GridFit)
            and set(solver.swept) <= set(cls.grid_shared))


def pass_key(cell: Cell) -> str:
    """The task of a swept cell whose entry :func:`shares_pass`: its fit key with the sweep
    entry's label in place of the spec's (every spec of the entry, one split), marked so that
    no spec's own fit key can equal it."""
    return "sweep:" + fit_key(cell.dataset.label, str(cell.solver.sweep_of), cell.repetition,
                              cell.n_labeled, cell.n_unlabeled, cell.shares_fit)


def sweep_task(cell: Cell, curves: bool) -> str | None:
    """The task key of a cell whose sweep the runner fits as one task per split
    (:func:`shares_pass`; ``curves``: whether the study records curves), else None. Such a
    task fits every spec of the sweep in one shared call (NPSVOR's tolerances: one ADMM
    trajectory), so the dry run costs it as one fit, by its first spec's calibration (the
    labels after it carry their scoring only)."""
    from ordauc import solvers

    info = solvers.info(cell.solver.name)
    checkpoints = bool(info.meta.iterative) and curves
    if not shares_pass(cell.solver, info.cls, cell.tuned, checkpoints):
        return None
    return pass_key(cell)


def failed_row(exc: BaseException) -> CellOutcome:
    """The measured outcome of a cell whose point's fit raised ``exc``: what ``run_cell``
    records for a task whose fit raised (status, message, traceback)."""
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return CellOutcome({"status": ERROR, "message": describe(exc)}, traceback=trace)


def swept_point(cell: Cell) -> dict[str, Any]:
    """The swept parameters' values of the cell's spec: its grid point in the shared call."""
    return {k: cell.solver.params[k] for k in cell.solver.swept}


def measure_sweep(task: CellTask) -> list[CellOutcome]:
    """The measured outcome of each cell of a sweep task (module docstring): one grid call
    fits the swept point of every spec among the cells, then each cell is scored as its own
    task would score it. The cells of a point whose fit raised are rows of status ``error``
    with its message and traceback, as their own task would give; the others are unaffected.
    """
    cell, config = task.cell, task.config
    ready = prepare(task)
    X, y, targets = ready.X, ready.y, ready.targets
    n_classes = ready.dataset.n_classes
    name = ready.names[0]  # untuned: one selection, the trivial one
    labels = list(dict.fromkeys(c.solver.label for c in task.cells))
    users = {label: [i for i, c in enumerate(task.cells) if c.solver.label == label]
             for label in labels}
    points = [swept_point(task.cells[users[label][0]]) for label in labels]
    rows = [CellOutcome({}) for _ in task.cells]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        choice = ready.tuner.tune(ready.estimator, X, y, cell.solver.grid)[name]
        base = ready.estimator.set_params(**choice.params)
        run = base.iter_fit_grid(X, y, points, task.memory_budget)
        fitting, scoring = time.perf_counter(), 0.0
        shares: list[int] = []  # rows whose fit_time_s is the call's time over its points
        while True:  # each model is scored as it comes, then dropped
            mark = len(caught)
            try:
                index, model = next(run)
            except StopIteration:
                break
            scored_at = time.perf_counter()
            label = labels[index]
            if isinstance(model, Exception):  # its own task would fail: its cells fail
                for i in users[label]:
                    rows[i] = failed_row(model)
                continue
            seconds = getattr(model, "fit_seconds_", None)
            basis = IN_PASS if isinstance(seconds, float) else PASS_SHARE
            traces = trace_rows(model, config.curves_every, config.curves_until)
            scored = {i: evaluate(model, *targets[i], cell.task, n_classes)
                      for i in users[label]}
            # the spec's own task catches the warnings of its fit and of scoring all its
            # cells: here those caught while its model was produced, then scored
            mine = caught[mark:]
            for i in users[label]:
                rows[i] = measured_row(
                    task, scored[i], traces, model, choice, name,
                    shared=task.shared_fit or len(users[label]) > 1,
                    seconds=seconds if basis == IN_PASS else None, basis=basis, caught=mine)
                if basis == PASS_SHARE:
                    shares.append(i)
            scoring += time.perf_counter() - scored_at
        share = (time.perf_counter() - fitting - scoring) / max(1, len(points))
        for i in shares:
            rows[i].row["fit_time_s"] = share
    return rows
