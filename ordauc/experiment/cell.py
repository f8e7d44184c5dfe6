"""One cell, start to end: dataset -> split -> tune -> fit -> score -> one results row.

:func:`run_cell` is what the worker pool calls. It never raises for a cell's own failure: a
raising solver gives status ``error``, :class:`~ordauc.errors.ResourceLimitError` gives
``skipped``, and a cell past its timeout is killed and gives ``timeout``. The estimator arrives
already built by the parent, so workers never consult the solver registry.
"""

from __future__ import annotations

import os
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from threadpoolctl import threadpool_limits

from ordauc.errors import ResourceLimitError
from ordauc.experiment.isolate import CellTimeout, ChildDied, run_isolated
from ordauc.experiment.plan import Cell
from ordauc.experiment.preflight import SplitSizes
from ordauc.experiment.tuning import evaluate, fit_timed, tune
from ordauc.splits import cv_folds, eval_arrays, make_split, train_arrays

_MESSAGE_CHARS = 500


@dataclass(frozen=True)
class Settings:
    """The parts of the config every cell needs."""

    cv_folds: int
    cv_metric: str
    test_size: float
    sampling: str
    evaluate: str
    timeout: float | None
    data_dir: str | None


@dataclass(frozen=True)
class CellTask:
    """Everything a worker needs to run one cell (picklable)."""

    cell: Cell
    estimator: Any  # unfitted, with the config's fixed params
    sizes: SplitSizes
    settings: Settings
    provenance: dict[str, str]
    main_pid: int  # the runner; pool workers are its children and stop when it is gone


def run_cell(task: CellTask) -> dict[str, Any]:
    """The results row of one cell, whatever happens to it.

    BLAS gets one thread here rather than in the pool, so that ``--n-jobs 1`` (in-process) and
    ``--n-jobs N`` compute the same numbers and do not oversubscribe the cores.
    """
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    start = time.perf_counter()
    measured: dict[str, Any] = {}
    with threadpool_limits(limits=1):
        try:
            status, message, measured = run_isolated(
                partial(_guarded, task), task.settings.timeout,
                runner=None if os.getpid() == task.main_pid else task.main_pid)
        except CellTimeout as exc:
            status, message = "timeout", str(exc)
        except ChildDied as exc:
            status, message = "error", str(exc)
    return {**identity(task), **measured, "status": status, "message": message,
            "wall_time_s": time.perf_counter() - start, "started_at": started}


def identity(task: CellTask) -> dict[str, Any]:
    """The columns every row has, failed or not."""
    cell = task.cell
    return {"key": cell.key, "dataset": cell.dataset.label, "solver": cell.solver.label,
            "task": cell.task, "seed": cell.seed, "n_labeled": cell.n_labeled,
            "n_unlabeled": task.sizes.n_unlabeled, "n_test": task.sizes.n_test,
            "eval_set": task.settings.evaluate, "cv_metric": task.settings.cv_metric,
            "split_seed": cell.split_seed, "solver_seed": cell.solver_seed,
            "config_hash": cell.config_hash, **task.provenance}


def _guarded(task: CellTask) -> tuple[str, str, dict[str, Any]]:
    """(status, message, measured columns); runs in the forked child."""
    try:
        return "ok", "", _measure(task)
    except ResourceLimitError as exc:
        return "skipped", _one_line(str(exc)), {}
    except Exception as exc:
        return "error", _describe(exc), {}


def _measure(task: CellTask) -> dict[str, Any]:
    from ordauc import data

    cell, settings = task.cell, task.settings
    dataset = data.load(cell.dataset.name, settings.data_dir, **cell.dataset.params)
    split = make_split(dataset.y, n_labeled=cell.n_labeled, n_unlabeled=cell.n_unlabeled,
                       seed=cell.split_seed, has_official_test=dataset.y_test is not None,
                       test_size=settings.test_size, sampling=settings.sampling,
                       evaluate=settings.evaluate)
    X, y = train_arrays(dataset.X, dataset.y, split)
    estimator = clone(task.estimator)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=cell.solver_seed)
    grid = cell.solver.grid
    folds = (cv_folds(y[: cell.n_labeled], split.unlabeled.size, settings.cv_folds,
                      cell.split_seed) if len(ParameterGrid(grid)) > 1 else [])
    tuned = tune(estimator, X, y, folds, grid, settings.cv_metric, cell.task, dataset.n_classes)
    final = clone(estimator).set_params(**tuned.params)
    fit_time = fit_timed(final, X, y)
    X_eval, y_eval = eval_arrays(dataset, split)
    scores = evaluate(final, X_eval, y_eval, cell.task, dataset.n_classes)
    chosen = {**cell.solver.params, **tuned.params}
    return {**scores, "fit_time_s": fit_time, "cv_time_s": tuned.cv_time_s,
            "cv_score": tuned.cv_score, **{f"p_{k}": v for k, v in chosen.items()}}


def _describe(exc: BaseException) -> str:
    """``Type (at file:line): message`` with the innermost frame, on one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return _one_line(f"{type(exc).__name__}{where}: {exc}")


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 3] + "..."
