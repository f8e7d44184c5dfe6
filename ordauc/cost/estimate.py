"""What a run will cost before it starts: core-hours and wall time per solver and in total.

Every figure is core-seconds, CPU time (:mod:`ordauc.cost.calibration` times in CPU
time, so the estimate holds while other work loads the machine). Every solver declares a cost
model: ``fit_cost(n_samples, n_features)``, the relative work of one fit (e.g. n^3 for
SAMULT's dense solve, n_iter (c + n) for the QSG engine, whose every iteration touches the
batch and the unlabeled rows), optionally ``pass_cost`` (the shared and per-model work of a
grid pass) and ``cv_shared_cost`` (work its cross-validation shares across folds:
:func:`fit_seconds`), and ``score_cost(n_train, n_eval, n_features)``, the work of scoring its
model. Their constants are measured on this machine, on rows of the study's own datasets
where they are fetched. Where the results folder already holds finished rows of a solver,
their measured times rescale its estimate instead (:func:`scale_by_rows`).

A cell costs its fits, as its tuner states them (:class:`~ordauc.cost.fits.PlannedFit`
records, asked through the :class:`~ordauc.cost.fits.Runtime` the runner hands in): with inner
k-fold CV over p grid points, p k fits on the fitting part of the folds (or, for a solver with
shared grid passes, one pass per group of points and fold) and one refit on every training
row; with test selection, p fits; untuned, one fit; under successive halving, its rounds. The
estimate prices those records and never models a search itself. Cells that share a fit (a
supervised solver at every unlabeled size, also a semi-supervised one whose configuration
reads no unlabeled row, which the plan records as ``cell.labeled_only``; one search for
several selection metrics) are counted once, on the rows it is fitted on (the labeled rows
alone for a labeled-only cell); a fit group adds what its process pays once (the fork and
loading the dataset, both measured), and each cell the scoring of its evaluation rows: the
pre-flight's sizes, or for a dataset not fetched the catalogue's
(:func:`~ordauc.cost.sizes.catalogue_sizes`: its test file, its held-out rows, or the
unlabeled rows under ``evaluate: unlabeled``). The wall time
at ``n_jobs`` parallel cells is the core time divided by ``n_jobs``, and never below the
longest single fit group.

Calibrating is bounded: past :data:`CALIBRATION_BUDGET` CPU seconds of timing in one dry run,
a solver's further datasets reuse its calibration on the dataset with the nearest feature
count, and its further labels (a sweep's) the calibration of another label of the solver.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from sklearn.model_selection import ParameterGrid

from ordauc.cost.calibration import (
    GRID_POINTS,
    Calibration,
    Sampler,
    cached_calibration,
    calibrate,
    calibration_sizes,
    fit_units,
    fork_seconds,
    metrics_seconds,
    pass_units,
    score_units,
    synthetic,
)
from ordauc.cost.fits import CellShape, PlannedFit, Runtime
from ordauc.cost.overhead import empty_cell_seconds
from ordauc.cost.points import grid_spread, pass_points
from ordauc.cost.sizes import cell_sizes, positive_share

CALIBRATION_BUDGET = 120.0  # CPU seconds of timing a dry run spends before reusing calibrations

__all__ = ["GRID_POINTS", "Calibration", "PlannedFit", "Runtime", "Sampler", "SolverCost",
           "core_hours", "dry_run_costs", "estimate_cells", "fit_seconds", "fit_units",
           "human", "pass_units", "samplers_for", "scale_by_rows", "wall_seconds"]


def fit_seconds(calib: Calibration, estimator: Any, n: int, d: int, n_unlabeled: int,
                count: float, models: float, folds: int = 0) -> float:
    """Core-seconds of ``count`` fits of ``models`` models each on ``n`` rows (a lone fit, or
    a shared pass: :class:`~ordauc.cost.costlaw.Calibration`).

    ``count`` fits that are the ``folds`` of one cross-validation (``count == folds``) may
    share work across the folds: a solver that says so declares
    ``cv_shared_cost(n_samples, n_features, n_unlabeled, n_folds) -> (once, per_fold)``, the
    shared units its search pays once for all the folds and again per fold (in the units of
    its ``pass_cost``; None when it shares nothing), used instead of a pass's shared part per
    fold (e.g. SAMULT's eigendecomposition of the unlabeled rows' kernel, the same in every
    fold)."""
    units = fit_units(estimator, n, d)
    shared, model = pass_units(estimator, n, d, n_unlabeled)
    across = getattr(estimator, "cv_shared_cost", None)
    shares = (across(int(n), int(d), int(n_unlabeled), int(folds))
              if models > 1 and calib.passes and across is not None and folds
              and count == folds else None)  # None: the solver shares nothing across folds
    if shares is not None:
        once, per_fold = shares
        return (calib.shared_seconds(once) + count * (
            calib.shared_seconds(per_fold) + models * calib.model_seconds(model)))
    return count * calib.seconds(units, models, shared, model)


@dataclass
class SolverCost:
    """The estimate of one solver's cells still to run."""

    cells: int = 0
    fits: int = 0
    seconds: float = 0.0
    longest: float = 0.0  # the longest fit group, the floor of the wall time
    source: str = "calibrated"  # or "from N finished rows"
    skipped: int = 0  # cells the memory guard will skip


def core_hours(costs: dict[str, SolverCost]) -> float:
    return sum(c.seconds for c in costs.values()) / 3600


def wall_seconds(costs: dict[str, SolverCost], n_jobs: int) -> float:
    total = sum(c.seconds for c in costs.values())
    longest = max((c.longest for c in costs.values()), default=0.0)
    return max(total / max(n_jobs, 1), longest)


def human(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.4 h``, ``2.1 days``."""
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def samplers_for(cells: list[Any], data_dir: str | None, standardize: bool,
                 minmax: bool = False, scaler: Any = None) -> dict[str, Sampler]:
    """A :class:`Sampler` per dataset label of ``cells`` that is fetched (loaded lazily, only
    when a calibration needs its rows); ``scaler`` the runner's ``preprocess: minmax`` map
    (:attr:`Runtime.minmax_scaler`)."""
    from ordauc import data

    out: dict[str, Sampler] = {}
    for cell in cells:
        spec = cell.dataset
        if spec.label in out or not data.is_prepared(spec.name, data_dir):
            continue
        extra = {"partition": 0} if cell.resampling.kind == "partitions" else {}
        out[spec.label] = Sampler(
            lambda s=spec, e=extra: data.load(s.name, data_dir, **s.params, **e), standardize,
            minmax, scaler)
    return out


def estimate_cells(cells: list[Any], sizes: dict, calibrate_with: Any = None,
                   memory_share: int | None = None, samplers: dict[str, Sampler] | None = None,
                   fixed: float | None = None, empty: dict[str, float] | None = None,
                   evaluate: str = "test", curves: bool = False, *, runtime: Runtime
                   ) -> tuple[dict[str, SolverCost], dict[str, float]]:
    """Per solver label, the cost of ``cells`` (those to run), in core-seconds; and each fit
    group's estimated core-seconds by fit key (to compare with finished rows).

    ``runtime`` (:class:`~ordauc.cost.fits.Runtime`, the runner's) states each group's fits
    (its tuner's ``planned_fits``), which cells of a sweep share one task, and runs what the
    estimate measures of the runner.

    ``samplers`` (dataset label -> :class:`Sampler`) give the rows calibrations are timed on;
    datasets without one are stood in for by synthetic rows. ``empty`` (dataset label ->
    seconds, :func:`~ordauc.cost.overhead.empty_cell_seconds`) is what one of its
    cells costs besides the solver; where it is not known, a fit group costs ``fixed`` (its
    process, measured when None), its dataset's loading and each cell's metrics. A group whose
    fit needs more than ``memory_share`` bytes is counted as skipped, as the memory guard will
    skip it (the guard itself only sizes fetched datasets). ``evaluate`` is the study's
    (``test`` or ``unlabeled``): which rows an unfetched dataset's cells are scored on;
    ``curves`` whether it records curves (an iterative solver's sweep then keeps a task per
    spec: ``runtime.shared_task``).
    """
    from ordauc import solvers

    samplers = samplers or {}
    groups: dict[str, list[Any]] = {}
    for cell in cells:
        groups.setdefault(cell.fit_key, []).append(cell)
    tops: dict[tuple[str, str], int] = {}  # the largest training set per solver and dataset
    for cell in cells:
        n_l, n_u, _, _, _ = cell_sizes(cell, sizes, evaluate)
        pair = (cell.solver.label, cell.dataset.label)
        tops[pair] = max(tops.get(pair, 0), n_l + (0 if cell.labeled_only else n_u))
    process = fork_seconds(runtime.isolate) if fixed is None and groups else (fixed or 0.0)
    # (calib, d, solver name, positive share) by (label, dataset) or (label, d, share)
    calibrations: dict[tuple, tuple[Calibration, int, str, float | None]] = {}
    spent = 0.0
    scoring: dict[tuple[str, int, int], float] = {}  # metrics' seconds per task and size
    costs: dict[str, SolverCost] = {}
    by_key: dict[str, float] = {}
    paid: set[str] = set()  # the sweep tasks whose shared fit is already counted
    for key, group in groups.items():
        cell = group[0]
        n_l, n_u, _, d, k = cell_sizes(cell, sizes, evaluate)
        point = next(iter(ParameterGrid(cell.solver.grid)))
        estimator = solvers.get(cell.solver.name, **cell.solver.params).set_params(**point)
        label = cell.solver.label
        cost = costs.setdefault(label, SolverCost())
        n_train = n_l + (0 if cell.labeled_only else n_u)
        if memory_share is not None and max(
                estimator.set_params(**p).fit_memory_bytes(n_train, d)
                for p in ParameterGrid(cell.solver.grid)) > memory_share:
            cost.skipped += len(group)
            continue
        estimator.set_params(**point)
        sampler = samplers.get(cell.dataset.label)
        d_cal = max(2, min(d, 100))  # synthetic stand-ins: the cost's term in d scales
        # synthetic stand-ins: one calibration per feature count and class ratio
        share = positive_share(cell)
        ckey = (label, cell.dataset.label) if sampler else (label, d_cal, share)
        if ckey not in calibrations:
            # the label's own calibrations, else those of its solver under other labels (a
            # sweep's: their parameters enter the declared units, the constants are shared)
            # (of the same class ratio only: a pairwise solver's work is its n+ n- pairs)
            mine = ([v for key, v in calibrations.items() if key[0] == label and v[3] == share]
                    or [v for v in calibrations.values()
                        if v[2] == cell.solver.name and v[3] == share])
            if mine and spent > CALIBRATION_BUDGET:  # nearest feature count already timed
                calibrations[ckey] = min(mine, key=lambda v: abs(math.log(v[1] / d)))
            else:
                started = time.process_time()  # CPU: a loaded machine spends no more
                calibrations[ckey] = (_calibration(estimator, cell, k, d_cal, sampler,
                                                   tops[label, cell.dataset.label],
                                                   calibrate_with, share, runtime),
                                      d, cell.solver.name, share)
                spent += time.process_time() - started
        calib = calibrations[ckey][0]
        fits = runtime.planned_fits(cell, estimator, CellShape(n_l, n_u, k, cell.labeled_only))
        n_u_fit = 0 if cell.labeled_only else n_u
        folds = cell.tuning.folds if cell.tuned and cell.tuning.kind == "cv" else 0
        together = runtime.shared_task(cell, curves)
        if together is not None and together in paid:
            fits = []  # a sweep's specs of one split share one task and one trajectory: paid
        elif together is not None:
            paid.add(together)
        seconds = sum(fit_seconds(calib, estimator, n, d, n_u_fit, count, m, folds)
                      for n, count, m in fits)
        known = (empty or {}).get(cell.dataset.label)
        if not fits and together is not None:
            pass  # the sweep task's process and data are its first spec's
        elif known is not None:  # the measured empty cell: process, data, split, metrics
            seconds += known
        else:
            seconds += process + (sampler.load_seconds if sampler else 0.0)
        for at, c in enumerate(group):  # each cell scores its rows and computes every metric
            n_eval = cell_sizes(c, sizes, evaluate)[2]
            seconds += calib.score * score_units(estimator, n_train, n_eval, d)
            if known is not None and at == 0:
                continue  # the empty cell computed the first cell's metrics
            bucket = (c.task, k, 1 << max(n_eval, 1).bit_length())
            if bucket not in scoring:
                scoring[bucket] = metrics_seconds(c.task, k, bucket[2])
            seconds += scoring[bucket]
        by_key[key] = seconds
        cost.cells += len(group)
        cost.fits += round(sum(count * m for _, count, m in fits))
        cost.seconds += seconds
        cost.longest = max(cost.longest, seconds)
    return costs, by_key


def _calibration(estimator: Any, cell: Any, k: int, d_cal: int, sampler: Sampler | None,
                 top: int, calibrate_with: Any, share: float | None, runtime: Runtime
                 ) -> Calibration:
    """The solver's calibration on the cell's dataset (or synthetic rows, ``share`` of them
    positive: :func:`~ordauc.cost.sizes.positive_share`), from the cache of this machine when
    it was timed before."""
    from ordauc import solvers

    # the rows a fit of the cell meets: the labeled ones alone for a cell fitted on them
    # (a supervised solver, or one whose configuration reads no unlabeled row)
    declared = solvers.info(cell.solver.name).meta.uses_unlabeled
    uses = declared and not cell.labeled_only
    shared = [p for p in pass_points(estimator, cell) if cell.tuned]
    spread = grid_spread(estimator, cell)
    if sampler is not None:
        spec = cell.dataset
        top = min(top, sampler.n_rows)
        rows: Any = sampler.rows
        scaling = "minmax" if sampler.minmax else sampler.standardize
        where = f"{spec.name}|{sorted(spec.params.items())!r}|{scaling}|{top}"
    else:
        top = calibration_sizes(10 ** 9)[-1]
        rows = partial(synthetic, cell.task, k, d=d_cal, positive_share=share)
        where = f"synthetic|{d_cal}" + ("" if share is None else f"|positive {share:.4g}")
    make = calibrate_with or (lambda: calibrate(estimator, rows, calibration_sizes(top), uses,
                                                shared, cell.task, k, spread,
                                                evaluate=runtime.evaluate))
    name = (f"{cell.solver.name}|{sorted(estimator.get_params().items())!r}|{cell.task}|{k}"
            f"|{where}|{len(shared)}|{spread!r}")
    if declared and not uses:  # timed on labeled rows alone: not the semi-supervised timing
        name += "|labeled rows"
    return cached_calibration(name, make)


def scale_by_rows(costs: dict[str, SolverCost], done_cells: list[Any], sizes: dict,
                  rows: list[dict[str, str]], calibrate_with: Any = None,
                  samplers: dict[str, Sampler] | None = None, fixed: float | None = None,
                  empty: dict[str, float] | None = None, evaluate: str = "test", *,
                  runtime: Runtime) -> None:
    """Rescale each solver's estimate by its finished rows in the folder: the ratio of their
    measured time (per fit group) to what the model estimates for them. The rows record wall
    time, which equals a cell's core-seconds on a machine it had to itself (a cell runs on
    one core, one BLAS thread)."""
    if not done_cells:
        return
    _, estimated = estimate_cells(done_cells, sizes, calibrate_with, samplers=samplers,
                                  fixed=fixed, empty=empty, evaluate=evaluate,
                                  runtime=runtime)
    measured: dict[str, float] = {}
    for row in rows:
        try:
            wall = float(row.get("wall_time_s") or "nan")
        except ValueError:
            continue
        if math.isfinite(wall) and row.get("status") == "ok":
            key = row.get("fit_key") or row.get("key", "")
            measured[key] = max(measured.get(key, 0.0), wall)
    by_solver: dict[str, tuple[float, float, int]] = {}
    for cell in done_cells:
        key = cell.fit_key
        if key in measured and key in estimated:
            m, e, n = by_solver.get(cell.solver.label, (0.0, 0.0, 0))
            by_solver[cell.solver.label] = (m + measured.pop(key), e + estimated[key], n + 1)
    for label, (m, e, n) in by_solver.items():
        if label in costs and e > 0:
            ratio = m / e
            costs[label].seconds *= ratio
            costs[label].longest *= ratio
            costs[label].source = f"scaled by {n} finished fit(s) of this folder ({ratio:.2g}x)"


def dry_run_costs(todo: list[Any], done: list[Any], sizes: dict, rows: list[dict[str, str]],
                  config: Any, data_dir: str | None, runtime: Runtime,
                  memory_share: int | None = None) -> dict[str, SolverCost]:
    """The estimate a dry run prints: the cost of the cells still to run (``todo``),
    calibrated on the study's fetched datasets and rescaled by the folder's finished cells
    (``done``, whose results ``rows`` the folder holds); ``sizes`` the pre-flight's, by split
    key."""
    samplers = samplers_for(todo + done, data_dir, config.preprocess == "standardize",
                            config.preprocess == "minmax", runtime.minmax_scaler)
    fixed = fork_seconds(runtime.isolate)
    empty: dict[str, float] = {}
    for cell in todo + done:  # one empty cell per fetched dataset
        label = cell.dataset.label
        if label not in empty and label in samplers and cell.split_key in sizes:
            empty[label] = empty_cell_seconds(cell, sizes[cell.split_key], config, data_dir,
                                              runtime.empty_cell)
    costs, _ = estimate_cells(todo, sizes, memory_share=memory_share, samplers=samplers,
                              fixed=fixed, empty=empty, evaluate=config.evaluate,
                              curves=bool(config.curves_every), runtime=runtime)
    scale_by_rows(costs, done, sizes, rows, samplers=samplers, fixed=fixed, empty=empty,
                  evaluate=config.evaluate, runtime=runtime)
    return costs
