"""One cell, start to end: dataset -> split -> tune -> fit -> score -> one results row.

:func:`run_cell` is what an execution backend calls. It never raises for a cell's own failure: a
raising solver gives status ``error`` (with the full traceback kept for ``OUT/logs``),
:class:`~ordauc.errors.ResourceLimitError` gives ``skipped``, and a cell past its timeout is
killed and gives ``timeout``. The estimator arrives already built by the parent and the dataset
as a handle, so workers never consult the solver registry or the config. :func:`measure` is the
cell's work itself, which ``ordauc run --debug`` calls in-process to let exceptions through.
"""

from __future__ import annotations

import time
import traceback
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ordauc.errors import ResourceLimitError
from ordauc.experiment.evaluate import CurveRecorder, evaluate
from ordauc.experiment.isolate import CellTimeout, ChildDied, run_isolated
from ordauc.experiment.plan import Cell
from ordauc.experiment.preflight import SplitSizes
from ordauc.experiment.tuning import OWN, InnerCV, TestSelection, fit_timed
from ordauc.splits import Split, cv_folds, eval_arrays, make_split, train_arrays

_MESSAGE_CHARS = 500


@dataclass(frozen=True)
class DatasetRef:
    """How a cell gets its dataset: a name, parameters and the data folder (a path handle).

    A backend that ships datasets to its workers another way (a scattered object) replaces
    this by any object with the same ``load``."""

    name: str
    params: dict[str, Any]
    data_dir: str | None

    def load(self, **extra: Any) -> Any:
        from ordauc import data

        return data.load(self.name, self.data_dir, **self.params, **extra)


@dataclass(frozen=True)
class Settings:
    """The parts of the config every cell needs."""

    resampling: str
    folds: int
    test_size: float
    sampling: str
    evaluate: str
    preprocess: str
    timeout: float | None
    curves_every: int | None
    memory_budget: int | None = None  # bytes one cell may use: shared grid passes split to it
    curves_until: int | None = None  # no checkpoint recorded after this iteration


@dataclass(frozen=True)
class CellTask:
    """Everything a worker needs to run one cell (picklable)."""

    cell: Cell
    estimator: Any  # unfitted, with the config's fixed params
    iterative: bool  # the estimator accepts fit(..., checkpoint=)
    data: Any  # a DatasetRef, or any object with .load(**params)
    sizes: SplitSizes
    settings: Settings
    provenance: dict[str, str]
    guard: Any = None  # the backend's orphan guard (see isolate.run_isolated), or None


def run_cell(task: CellTask) -> dict[str, Any]:
    """The results row of one cell, whatever happens to it, with two private entries the
    runner takes out: ``_curves`` (curve rows) and ``_traceback`` (of a failure).

    BLAS gets one thread here rather than in the pool, so that ``--n-jobs 1`` (in-process) and
    ``--n-jobs N`` compute the same numbers and do not oversubscribe the cores.
    """
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    start = time.perf_counter()
    measured: dict[str, Any] = {}
    with threadpool_limits(limits=1):
        try:
            status, message, measured = run_isolated(partial(_guarded, task),
                                                      task.settings.timeout, task.guard)
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
            "solver_name": cell.solver.name, "task": cell.task,
            "resampling": task.settings.resampling, "repetition": cell.repetition,
            "n_labeled": task.sizes.n_labeled, "n_unlabeled": task.sizes.n_unlabeled,
            "n_test": task.sizes.n_test, "eval_set": task.settings.evaluate,
            "tuning": cell.tuning.kind if cell.tuned else "none",
            "cv_metric": cell.tuning.metric if cell.tuned else "",
            "split_seed": cell.seeds.inner, "solver_seed": cell.solver_seed,
            "config_hash": cell.config_hash, **task.provenance}


def _guarded(task: CellTask) -> tuple[str, str, dict[str, Any]]:
    """(status, message, measured columns); runs in the forked child."""
    try:
        return "ok", "", measure(task)
    except ResourceLimitError as exc:
        return "skipped", one_line(str(exc)), {}
    except Exception as exc:
        return "error", describe(exc), {"_traceback": traceback.format_exc()}


def split_of(task: CellTask, dataset: Any) -> Split:
    """The cell's split of ``dataset`` (the repetition's training source)."""
    cell, s = task.cell, task.settings
    return make_split(dataset.y, kind=s.resampling, repetition=cell.repetition,
                      n_labeled=cell.n_labeled, n_unlabeled=cell.n_unlabeled, seeds=cell.seeds,
                      has_official_test=dataset.y_test is not None, test_size=s.test_size,
                      sampling=s.sampling, evaluate=s.evaluate, folds=s.folds)


def load_repetition(task: CellTask) -> Any:
    """The dataset as the cell's repetition sees it (a published partition, or the whole)."""
    if task.settings.resampling == "partitions":
        return task.data.load(partition=task.cell.repetition)
    return task.data.load()


def measure(task: CellTask) -> dict[str, Any]:
    """Tune, fit and score the cell; the measured columns. Raises on the cell's failures."""
    cell, settings = task.cell, task.settings
    dataset = load_repetition(task)
    split = split_of(task, dataset)
    X, y = train_arrays(dataset.X, dataset.y, split)
    X_eval, y_eval = eval_arrays(dataset, split)
    if settings.preprocess == "standardize":
        X, X_eval = _standardize(X, X_eval)
    estimator = clone(task.estimator)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=cell.solver_seed)
    n_labeled = int(split.labeled.size)
    if cell.tuning.kind == "test":
        tuner: Any = TestSelection(X_eval, y_eval, cell.tuning.metric, cell.task,
                                   dataset.n_classes, describe)
    else:
        folds = (cv_folds(y[:n_labeled], split.unlabeled.size, cell.tuning.folds,
                          cell.seeds.inner, split_unlabeled=cell.tuning.metric == OWN)
                 if cell.tuned else [])
        tuner = InnerCV(folds, cell.tuning.metric, cell.task, dataset.n_classes, describe,
                        shared=cell.tuning.shared, max_bytes=settings.memory_budget)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned = tuner.tune(estimator, X, y, cell.solver.grid)
        final, fit_time, curves = tuned.model, tuned.fit_time_s, []
        if final is None:
            final = clone(estimator).set_params(**tuned.params)
            recorder = None
            if task.iterative and settings.curves_every:
                recorder = CurveRecorder(settings.curves_every, X_eval, y_eval, cell.task,
                                         dataset.n_classes, until=settings.curves_until)
            fit_time = fit_timed(final, X, y, **({"checkpoint": recorder} if recorder else {}))
            if recorder is not None:
                fit_time -= recorder.paused_s
                curves = recorder.rows
        scores = evaluate(final, X_eval, y_eval, cell.task, dataset.n_classes)
    return {**scores, "fit_time_s": fit_time, "cv_time_s": tuned.time_s,
            "cv_score": tuned.score, "cv_failed": tuned.failed,
            "cv_message": one_line(tuned.first_failure),
            "n_iter": _n_iter(final), "warnings": _warnings(caught),
            **{f"p_{k}": v for k, v in effective_params(final).items()},
            "_curves": curves}


def effective_params(model: Any) -> dict[str, Any]:
    """Every parameter of a fitted model, as the fit resolved it: a fitted ``<name>_``
    attribute (e.g. a step size or prior chosen from the data) wins over the parameter."""
    params = model.get_params(deep=False)
    out = {}
    for name, value in params.items():
        resolved = getattr(model, f"{name}_", value)
        out[name] = resolved if np.isscalar(resolved) or resolved is None else value
    return out


def _n_iter(model: Any) -> Any:
    n = getattr(model, "n_iter_", None)
    return None if n is None else int(np.max(n))


def _warnings(caught: list[warnings.WarningMessage]) -> str:
    seen: list[str] = []
    for w in caught:
        text = one_line(f"{w.category.__name__}: {w.message}")
        if text not in seen:
            seen.append(text)
    return one_line(" | ".join(seen))


def _standardize(X: Any, X_eval: Any) -> tuple[Any, Any]:
    """z-score every feature with the training rows' mean and std (constant features are only
    centred), as ORCA and the NPSVOR paper do."""
    from sklearn.preprocessing import StandardScaler

    sparse = hasattr(X, "toarray")
    scaler = StandardScaler(with_mean=not sparse).fit(X)
    return scaler.transform(X), scaler.transform(X_eval)


def describe(exc: BaseException) -> str:
    """``Type (at file:line): message`` with the innermost frame, on one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return one_line(f"{type(exc).__name__}{where}: {exc}")


def one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 3] + "..."
