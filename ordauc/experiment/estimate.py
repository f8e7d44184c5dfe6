"""What a run will cost before it starts: core-hours and wall time per solver and in total.

Every solver declares a cost model, ``fit_cost(n_samples, n_features)``: the relative work of
one fit (e.g. n^3 for SAMULT's dense solve, n_iter (c + n) for the QSG engine, whose every
iteration touches the batch and the unlabeled rows). A model's constants are calibrated on this
machine: one fit is timed at a few small sizes of synthetic data shaped like the study's (task,
classes, features, share of unlabeled rows), and ``time = a + b * fit_cost`` is fitted by
non-negative least squares (:func:`calibrate`). Where the results folder already holds finished
rows of a solver, their measured times rescale its estimate instead (:func:`scale_by_rows`).

A cell costs its fits: with inner k-fold CV over p grid points, p k fits on the fitting part of
the folds and one refit on every training row; with test selection, p fits; untuned, one fit.
Cells that share a fit (a supervised solver at every unlabeled size, one search for several
selection metrics) are counted once, and each cell adds :data:`CELL_OVERHEAD` seconds (its
process, data and scoring). The wall time at ``n_jobs`` parallel cells is the core time divided
by ``n_jobs``, and never below the longest single fit group.

Calibrations are kept per machine in ``$ORDAUC_CACHE`` (default ``~/.cache/ordauc``), so a
second dry run does not time the solvers again; one timed while other work loaded the machine
(:func:`busy`) is used once and not kept, and the dry run says the estimate may read high.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import nnls
from sklearn.model_selection import ParameterGrid

CELL_OVERHEAD = 0.1  # seconds a cell spends outside its fits (process, split, scoring)
SIZES = (250, 500, 1000, 2000)  # calibration sizes, stopped once a fit takes FIT_BUDGET
FIT_BUDGET = 1.0  # seconds


@dataclass(frozen=True)
class Calibration:
    """``seconds = a + b * fit_cost(n, d)`` for one solver (label) on this machine."""

    a: float
    b: float
    points: int  # fits timed
    share: float = 1.0  # a shared grid pass of m models costs (1 + (m - 1) share) fits

    def seconds(self, units: float, models: float = 1) -> float:
        return (self.a + self.b * units) * (1 + (models - 1) * self.share)


def fit_units(estimator: Any, n_samples: int, n_features: int) -> float:
    """The solver's declared cost of one fit; n^2 d for a solver that declares none."""
    cost = getattr(estimator, "fit_cost", None)
    if cost is None:
        return float(n_samples) ** 2 * n_features
    return float(cost(int(n_samples), int(n_features)))


def synthetic(task: str, n_classes: int, n: int, d: int, labeled: int, seed: int = 0
              ) -> tuple[np.ndarray, np.ndarray]:
    """Rows shaped like a study's: a noisy linear score cut into ``n_classes`` ordered classes
    (0/1 for a binary task), the rows after ``labeled`` marked unlabeled (-1)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    score = X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n)
    k = 2 if task == "binary" else n_classes
    y = np.searchsorted(np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]), score)
    y = y if task == "binary" else y + 1
    y[labeled:] = -1
    return X, y


def calibrate(estimator: Any, task: str, n_classes: int, d: int, uses_unlabeled: bool,
              pass_points: list[dict[str, Any]] | None = None) -> Calibration:
    """Time one fit at the sizes of :data:`SIZES` (the best of two, stopping once one takes
    :data:`FIT_BUDGET`) and fit ``a`` and ``b``. An untimed fit first pays for what a process
    pays once (imports, compiled loops, thread pools), which a run's cells do not pay per fit."""
    from sklearn.base import clone
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as a cell runs: one BLAS thread
        return _calibrate(estimator, task, n_classes, d, uses_unlabeled, pass_points, clone)


def _calibrate(estimator: Any, task: str, n_classes: int, d: int, uses_unlabeled: bool,
               pass_points: list[dict[str, Any]] | None, clone: Any) -> Calibration:
    def timed(n: int, points: list[dict[str, Any]] | None = None) -> float:
        labeled = max(50, int(0.3 * n)) if uses_unlabeled else n
        X, y = synthetic(task, n_classes, n, d, labeled)
        model = clone(estimator)
        start = time.perf_counter()
        if points:
            model.fit_grid(X, y, points)
        else:
            model.fit(X, y)
        return time.perf_counter() - start

    timed(100)
    units, seconds = [], []
    for n in SIZES:
        first = timed(n)
        seconds.append(first if first > FIT_BUDGET else min(first, timed(n)))
        units.append(fit_units(estimator, n, d))
        if seconds[-1] > FIT_BUDGET:
            break
    share = 1.0
    if pass_points and len(pass_points) > 1:  # what one more model adds to a shared pass
        n = SIZES[len(seconds) - 1]
        m = len(pass_points)
        share = min(1.0, max(0.02, (timed(n, pass_points) / seconds[-1] - 1) / (m - 1)))
    if len(set(units)) < 2:  # a cost that does not grow with n: a constant per fit
        return Calibration(float(np.mean(seconds)), 0.0, len(seconds), share)
    design = np.column_stack([np.ones(len(units)), np.asarray(units) / max(units)])
    (a, b), _ = nnls(design, np.asarray(seconds))
    return Calibration(float(a), float(b) / max(units), len(seconds), share)


def _cache_file() -> Path:
    root = os.environ.get("ORDAUC_CACHE") or Path.home() / ".cache" / "ordauc"
    return Path(root) / "calibration.json"


def cached_calibration(key: str, make: Any) -> Calibration:
    """The calibration stored under ``key`` for this machine, else ``make()`` stored."""
    import ordauc

    path = _cache_file()
    machine = f"{platform.node()}|{os.cpu_count()}|{ordauc.__version__}"
    try:
        store = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        store = {}
    found = store.get(machine, {}).get(key)
    if found:
        return Calibration(**found)
    made = make()
    if busy():  # timed while other work ran: used once, timed again next time
        return made
    store.setdefault(machine, {})[key] = made.__dict__
    try:  # a cache that cannot be written only costs the next dry run a calibration
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(store, indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass
    return made


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


def pass_points(estimator: Any, cell: Any, most: int = 4) -> list[dict[str, Any]]:
    """Up to ``most`` grid points of the first shared pass (to time what sharing saves)."""
    if not hasattr(estimator, "grid_key"):
        return []
    params = estimator.get_params()
    points = list(ParameterGrid(cell.solver.grid))
    first = estimator.grid_key({**params, **points[0]})
    return [p for p in points if estimator.grid_key({**params, **p}) == first][:most]


def busy() -> bool:
    """Whether other work loads the machine (1-minute load average above 3/4 of its cores),
    which slows the calibration's fits and so raises the estimate."""
    try:
        return os.getloadavg()[0] > 0.75 * (os.cpu_count() or 1)
    except OSError:
        return False


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


def _sizes(cell: Any, sizes: dict) -> tuple[int, int, int, int]:
    """(n_labeled, n_unlabeled, n_features, n_classes) of a cell's split: measured by the
    pre-flight, or read off the catalogue for a dataset not fetched yet."""
    from ordauc.data.catalog import CATALOG

    entry = CATALOG.get(cell.dataset.name)
    k = int(getattr(entry, "n_classes", 0) or (2 if cell.task == "binary" else 5))
    found = sizes.get(cell.split_key)
    if found is not None:
        return found.n_labeled, found.n_unlabeled, found.n_features, k
    n = int(getattr(entry, "n", 0) or 1000)
    n_l = cell.n_labeled if cell.n_labeled is not None else int(0.8 * n)
    n_u = cell.n_unlabeled if cell.n_unlabeled is not None else max(int(0.8 * n) - n_l, 0)
    return n_l, n_u, int(getattr(entry, "d", 0) or 10), k


def estimate_cells(cells: list[Any], sizes: dict, calibrate_with: Any = None,
                   memory_share: int | None = None
                   ) -> tuple[dict[str, SolverCost], dict[str, float]]:
    """Per solver label, the cost of ``cells`` (those to run); and each fit group's estimated
    seconds by fit key (to compare with finished rows). A group whose fit needs more than
    ``memory_share`` bytes is counted as skipped, as the memory guard will skip it (the guard
    itself only sizes fetched datasets)."""
    from ordauc import solvers

    groups: dict[str, list[Any]] = {}
    for cell in cells:
        groups.setdefault(cell.fit_key, []).append(cell)
    calibrations: dict[tuple[str, int], Calibration] = {}  # per solver and feature count
    costs: dict[str, SolverCost] = {}
    by_key: dict[str, float] = {}
    for key, group in groups.items():
        cell = group[0]
        n_l, n_u, d, k = _sizes(cell, sizes)
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
        d_cal = max(2, min(d, 100))  # wider data: the cost model's linear term in d scales
        if (label, d_cal) not in calibrations:
            uses = solvers.info(cell.solver.name).meta.uses_unlabeled
            shared = [p for p in pass_points(estimator, cell) if cell.tuned]
            make = calibrate_with or (lambda e=estimator, c=cell, dd=d_cal, kk=k, u=uses,
                                      pp=shared: calibrate(e, c.task, kk, dd, u, pp))
            name = (f"{cell.solver.name}|{sorted(estimator.get_params().items())!r}|{cell.task}"
                    f"|{k}|{d_cal}|{len(shared)}")
            calibrations[label, d_cal] = cached_calibration(name, make)
        calib = calibrations[label, d_cal]
        fits = (quick_fits(cell, estimator, n_l, n_u, k)
                if getattr(cell, "profile", "paper") == "quick"
                else fits_of(cell, n_l, n_u, passes(estimator, cell)))
        seconds = sum(count * calib.seconds(fit_units(estimator, n, d), m)
                      for n, count, m in fits)
        seconds += CELL_OVERHEAD * len(group)
        by_key[key] = seconds
        cost.cells += len(group)
        cost.fits += round(sum(count * m for _, count, m in fits))
        cost.seconds += seconds
        cost.longest = max(cost.longest, seconds)
    return costs, by_key


def scale_by_rows(costs: dict[str, SolverCost], done_cells: list[Any], sizes: dict,
                  rows: list[dict[str, str]], calibrate_with: Any = None) -> None:
    """Rescale each solver's estimate by its finished rows in the folder: the ratio of their
    measured wall time (per fit group) to what the model estimates for them."""
    if not done_cells:
        return
    _, estimated = estimate_cells(done_cells, sizes, calibrate_with)
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
