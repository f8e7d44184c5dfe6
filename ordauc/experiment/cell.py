"""One fit, start to end: dataset -> split -> tune -> fit -> score -> the rows of its cells.

A task is one fit and the cells it serves: one cell for a semi-supervised solver, and for a
supervised one (or one configured to read no unlabeled row,
:func:`~ordauc.experiment.plan.labeled_only`) every ``n_unlabeled`` cell of its labeled set
(:attr:`Cell.fit_key`): the labeled rows are the same for every unlabeled budget, so the model
is tuned and fitted once and scored on each cell's evaluation set. :func:`run_cell` is what an
execution backend calls. It never raises for a failure of the fit: a raising solver gives
status ``error`` (with the full traceback kept for ``OUT/logs``),
:class:`~ordauc.errors.ResourceLimitError` gives ``skipped``, and a task past its timeout is
killed and gives ``timeout``, for every cell of the task. The estimator arrives already built
by the parent and the dataset as a handle, so workers never consult the solver registry.
:func:`measure` is the work itself, which ``ordauc run --debug`` calls in-process to let
exceptions through. Under the ``quick`` profile an inner-CV search is successive halving
(:class:`~ordauc.experiment.halving.HalvingCV`); every row names its profile. A sweep task
(``CellTask.sweep``) serves the specs of one config ``sweep`` on one split with one grid call
(:mod:`ordauc.experiment.sweep`); it starts as every task does (:func:`prepare`) and writes each
cell's row through the same :func:`measured_row`.
"""

from __future__ import annotations

import threading
import time
import traceback
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ordauc.config import Config
from ordauc.errors import ResourceLimitError
from ordauc.experiment.evaluate import CurveRecorder, evaluate
from ordauc.experiment.isolate import CellTimeout, ChildDied, run_isolated
from ordauc.experiment.plan import Cell, split_of
from ordauc.experiment.preflight import SplitSizes
from ordauc.experiment.tuners import make_tuner, tuner_spec
from ordauc.experiment.tuning import fit_timed
from ordauc.results import CellOutcome
from ordauc.results.schema import ERROR, OK, SKIPPED, TIMEOUT, identity_row, thresholds_text
from ordauc.splits import Split, eval_arrays, train_arrays

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
class CellTask:
    """Everything a worker needs to run one fit and score its cells (picklable).

    ``cells`` share their tuning and fits (the same :attr:`Cell.fit_key`); ``sizes`` are
    theirs, in order. ``shared_fit`` says whether one fit serves several unlabeled budgets of
    the plan (a supervised solver), even when fewer of them are run now; a row's
    ``shared_fit`` column is also true where selection metrics chose the same point. With
    ``sweep``, the cells are those of several specs of one config sweep (their swept parameters
    differ; ``estimator`` is the first spec's) and one grid call fits them all; ``shared_fit``
    is then each spec's own.
    """

    cells: tuple[Cell, ...]
    estimator: Any  # unfitted, with the config's fixed params
    iterative: bool  # the estimator accepts fit(..., checkpoint=)
    data: Any  # a DatasetRef, or any object with .load(**params)
    sizes: tuple[SplitSizes, ...]
    config: Config
    provenance: dict[str, str]
    memory_budget: int | None = None  # bytes one cell may use: shared grid passes split to it
    guard: Any = None  # the backend's orphan guard (see isolate.run_isolated), or None
    shared_fit: bool = False
    reference: Any = None  # unfitted ``curves.reference`` solver, or None
    sweep: bool = False  # the cells are the specs of one config sweep, fitted in one grid call

    @property
    def cell(self) -> Cell:
        """The first cell: the one whose split the fit trains on (all share it)."""
        return self.cells[0]


def run_cell(task: CellTask) -> list[CellOutcome]:
    """The outcomes of the task's cells, whatever happens to the fit: each one's results row,
    curve rows, every grid point's tuning score and a failure's traceback
    (:class:`~ordauc.results.CellOutcome`).

    BLAS gets one thread here rather than in the pool, so that ``--n-jobs 1`` (in-process) and
    ``--n-jobs N`` compute the same numbers and do not oversubscribe the cores.
    """
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    start = time.perf_counter()
    measured = [CellOutcome({}) for _ in task.cells]
    with threadpool_limits(limits=1):
        warm_up(task.estimator)
        try:
            status, message, measured = run_isolated(partial(_guarded, task),
                                                      task.config.timeout, task.guard)
        except CellTimeout as exc:
            status, message = TIMEOUT, str(exc)
        except ChildDied as exc:
            status, message = ERROR, str(exc)
    wall = time.perf_counter() - start
    # a part may carry its own status and message: a sweep task's point that failed alone
    return [part.under({**identity(task, i), "status": status, "message": message},
                       {"wall_time_s": wall, "started_at": started})
            for i, part in enumerate(measured)]


def lost_outcomes(task: CellTask, message: str) -> list[CellOutcome]:
    """The outcomes of a task that never reported back (its worker process died): status
    ``error`` with ``message`` for every cell, the same columns as a failed :func:`run_cell`
    row, and no time or start, which only the lost process knew.

    Parameters
    ----------
    task : CellTask
        The task the dead worker was running.
    message : str
        Why it was lost, one line.

    Returns
    -------
    list of CellOutcome
        One per cell of ``task``, in order.
    """
    return [CellOutcome({**identity(task, i), "status": ERROR, "message": one_line(message),
                         "wall_time_s": None, "started_at": None})
            for i in range(len(task.cells))]


_WARM: set[type] = set()  # the solver classes this process has warmed up
_WARMING = threading.Lock()  # a worker's threads (dask) warm a class up once, one at a time


def warm_up(estimator: Any) -> None:
    """Once per solver class and process, what every process pays once for it (compiled
    loops), here in the worker: the cells it forks inherit it instead of each paying it again.
    A warm-up that fails is left to the cell's own fit to report."""
    kind = type(estimator)
    if kind in _WARM or not hasattr(estimator, "warm_up"):
        return
    with _WARMING:
        if kind in _WARM:  # another thread finished it while this one waited
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                estimator.warm_up()
        except Exception:  # noqa: BLE001, S110 - the cell's fit reports what is wrong
            pass
        finally:  # warm only once done: a thread that skips it finds the loops loaded
            _WARM.add(kind)


def identity(task: CellTask, i: int = 0) -> dict[str, Any]:
    """The columns every row of cell ``task.cells[i]`` has, failed or not: the schema's
    identity and cell facts (:func:`ordauc.results.schema.identity_row`), then provenance."""
    cell, sizes = task.cells[i], task.sizes[i]
    return {**identity_row({
        "key": cell.key, "dataset": cell.dataset.label, "solver": cell.solver.label,
        "solver_name": cell.solver.name, "task": cell.task,
        "resampling": cell.resampling.kind, "repetition": cell.repetition,
        "n_labeled": sizes.n_labeled, "n_unlabeled": sizes.n_unlabeled,
        "n_test": sizes.n_test, "eval_set": task.config.evaluate,
        "fit_key": cell.fit_key, "shared_fit": task.shared_fit,
        "tuning": cell.tuning.kind if cell.tuned else "none",
        "cv_metric": cell.cv_metric, "profile": cell.profile,
        "split_seed": cell.seeds.inner, "solver_seed": cell.solver_seed,
        "config_hash": cell.config_hash}), **task.provenance}


def _guarded(task: CellTask) -> tuple[str, str, list[CellOutcome]]:
    """(status, message, measured outcome per cell); runs in the forked child, whose peak
    resident memory is the ``peak_rss_mb`` of every row, failed or not."""
    try:
        status, message, measured = OK, "", measure(task)
    except ResourceLimitError as exc:
        status, message = SKIPPED, one_line(str(exc))
        measured = [CellOutcome({}) for _ in task.cells]
    except Exception as exc:
        trace = traceback.format_exc()
        status, message = ERROR, describe(exc)
        measured = [CellOutcome({}, traceback=trace) for _ in task.cells]
    peak = peak_rss_mb()
    return status, message, [part.under({}, {"peak_rss_mb": peak}) for part in measured]


def peak_rss_mb() -> float | None:
    """Peak resident memory (MB, 2**20 bytes) of this process and of the children it waited
    for, or None where the platform does not say. In the cell's forked child this counts the
    pages it shares with the worker it was forked from, as the operating system does."""
    try:
        import resource
    except ImportError:  # not a POSIX platform
        return None
    kb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
             resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return kb / 1024.0  # Linux reports kilobytes


def load_repetition(task: CellTask) -> Any:
    """The dataset as the cell's repetition sees it (a published partition, or the whole)."""
    if task.cell.resampling.kind == "partitions":
        return task.data.load(partition=task.cell.repetition)
    return task.data.load()


def training_arrays(cell: Cell, dataset: Any, split: Split) -> tuple[Any, np.ndarray]:
    """What the solver is fitted on: the labeled rows then the unlabeled ones (y = -1), or the
    labeled rows alone for a cell planned so (a supervised solver, or one configured to read
    no unlabeled row), which the runner, not the solver, restricts."""
    if cell.labeled_only:
        return dataset.X[split.labeled], np.asarray(dataset.y)[split.labeled]
    return train_arrays(dataset.X, dataset.y, split)


@dataclass
class Prepared:
    """What every fit of a task starts from: the split's training rows (preprocessed), each
    cell's evaluation rows, the estimator with its seed, the selection metrics and the tuner."""

    dataset: Any
    X: Any
    y: np.ndarray
    targets: list[tuple[Any, np.ndarray]]
    estimator: Any
    names: list[str]
    tuner: Any


def prepare(task: CellTask) -> Prepared:
    """The task's data and tuner (:class:`Prepared`), as :func:`measure` and a sweep task's
    measure (:mod:`ordauc.experiment.sweep`) both start."""
    cell, config = task.cell, task.config
    dataset = load_repetition(task)
    splits = [split_of(c, dataset, config) for c in task.cells]
    X, y = training_arrays(cell, dataset, splits[0])
    targets = [eval_arrays(dataset, split) for split in splits]
    if config.preprocess == "standardize":
        X, targets = standardized(X, targets)
    elif config.preprocess == "minmax":
        scale = minmax_scaler(dataset.X)
        X, targets = scale(X), [(scale(Xe), ye) for Xe, ye in targets]
    estimator = clone(task.estimator)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=cell.solver_seed)
    names = list(dict.fromkeys(c.cv_metric or cell.tuning.metrics[0] for c in task.cells))
    # tuning on the evaluation rows (``tuning: test``): the cells share the first's
    tuner = make_tuner(tuner_spec(cell), names, cell.task, dataset.n_classes, y=y,
                       n_labeled=int(splits[0].labeled.size), evaluation=targets[0],
                       describe=describe, max_bytes=task.memory_budget)
    return Prepared(dataset, X, y, targets, estimator, names, tuner)


def measure(task: CellTask) -> list[CellOutcome]:
    """Tune, fit and score the task; the measured outcome of each of its cells (its columns,
    curves and tuning scores). Raises on the fit's failures.

    The tuner runs once for every selection metric of the task's cells; each distinct chosen
    point is fitted once and serves the cells that chose it. A sweep task (``task.sweep``) is
    measured by :func:`ordauc.experiment.sweep.measure_sweep`.
    """
    if task.sweep:
        from ordauc.experiment.sweep import measure_sweep

        return measure_sweep(task)
    cell = task.cell
    ready = prepare(task)
    X, y, targets, names = ready.X, ready.y, ready.targets, ready.names
    n_classes = ready.dataset.n_classes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned = ready.tuner.tune(ready.estimator, X, y, cell.solver.grid)
        fits: dict[str, _Fit] = {}
        for name in names:
            point = _point_key(tuned[name].params)
            if point not in fits:
                users = [i for i, c in enumerate(task.cells)
                         if _point_key(tuned[c.cv_metric or names[0]].params) == point]
                fits[point] = _fit(task, ready.estimator, tuned[name], X, y,
                                   [targets[i] for i in users], n_classes)
                fits[point].users = users
        scored: list[tuple[dict[str, Any], list[dict[str, Any]], _Fit] | None] = [
            None for _ in task.cells]  # per cell: its scores, its curves, the fit it used
        for fit in fits.values():
            for at, i in enumerate(fit.users):
                X_eval, y_eval = targets[i]
                scored[i] = (evaluate(fit.model, X_eval, y_eval, cell.task, n_classes),
                             fit.curves[at], fit)
    out = []
    for c, mine in zip(task.cells, scored, strict=True):
        assert mine is not None, "every cell is served by the fit of its chosen point"
        scores, curves, fit = mine
        name = c.cv_metric or names[0]
        out.append(measured_row(task, scores, curves, fit.model, tuned[name], name,
                                shared=task.shared_fit or len(fit.users) > 1,
                                seconds=fit.seconds, basis=OWN_FIT, caught=caught))
    return out


OWN_FIT = "fit"  # fit_time_s is the clock of the model's own fit (fit_time_basis)


def measured_row(task: CellTask, scored: dict[str, Any], curves: list[dict[str, Any]],
                 model: Any, choice: Any, metric: str, shared: bool, seconds: float | None,
                 basis: str, caught: list[warnings.WarningMessage]) -> CellOutcome:
    """A cell's measured outcome from its scores (``scored``: :func:`evaluate`'s columns), its
    curve rows, its fitted model, the tuner's choice by ``metric`` (its grid points' scores go
    beside the row), and the warnings ``caught`` while its model was made and scored;
    ``seconds`` is its ``fit_time_s``, ``basis`` says what that time is."""
    row = {**scored, "shared_fit": shared,
           "fit_time_s": seconds, "fit_time_basis": basis, "cv_time_s": choice.time_s,
           "cv_score": choice.score, "cv_failed": choice.failed,
           "cv_message": one_line(choice.first_failure),
           "n_iter": _n_iter(model), "warnings": _warnings(caught),
           "thresholds": _thresholds(model),
           **{f"p_{k}": v for k, v in effective_params(model).items()}}
    return CellOutcome(row, curves=list(curves), tuning=_points(choice, metric))


@dataclass
class _Fit:
    """One fitted model of a task, the seconds it took and its curve rows per served cell."""

    model: Any
    seconds: float
    curves: list[list[dict[str, Any]]]
    users: list[int] = field(default_factory=list)


def _points(choice: Any, metric: str) -> list[dict[str, Any]]:
    """The score of every grid point behind a row's choice (the rows of
    ``tuning_scores.csv``): mean over the inner folds, or on the evaluation rows."""
    return [{"point": i, "metric": metric, "score": score,
             **{f"p_{k}": v for k, v in params.items()}}
            for i, (params, score) in enumerate(choice.points)]


def _point_key(params: dict[str, Any]) -> str:
    return repr(sorted(params.items()))


def _fit(task: CellTask, estimator: Any, choice: Any, X: Any, y: np.ndarray,
         targets: list[tuple[Any, np.ndarray]], n_classes: int) -> _Fit:
    """The chosen point's model: the tuner's own (``tuning: test``), else fitted on the
    training rows, with curves on ``targets`` for an iterative solver when the study asks."""
    if choice.model is not None:
        return _Fit(choice.model, choice.fit_time_s, [[] for _ in targets])
    config = task.config
    model = clone(estimator).set_params(**choice.params)
    recorder = None
    if task.iterative and config.curves_every:
        scored = [sampled(Xe, ye, config.curves_sample, task.cell.seeds.inner)
                  for Xe, ye in targets]
        references = None
        if task.reference is not None:  # fitted before the clock of the recorded fit starts
            exact = reference_fit(task.reference, model, X, y)
            references = [np.asarray(exact.decision_function(Xe), np.float64)
                          for Xe, _ in scored]
        recorder = CurveRecorder(config.curves_every, scored, task.cell.task, n_classes,
                                 until=config.curves_until, spacing=config.curves_spacing,
                                 references=references)
    seconds = fit_timed(model, X, y, **({"checkpoint": recorder} if recorder else {}))
    traces = trace_rows(model, config.curves_every, config.curves_until)
    if recorder is None:
        return _Fit(model, seconds, [list(traces) for _ in targets])
    return _Fit(model, seconds - recorder.paused_s, [rows + traces for rows in recorder.rows])


def reference_fit(reference: Any, model: Any, X: Any, y: np.ndarray) -> Any:
    """A copy of the unfitted solver ``reference`` fitted on the rows ``model`` is fitted on,
    with every hyper-parameter of ``model`` that it also has (e.g. SAMULT, the exact minimiser
    of the objective QSG-S2AUC and QS3ORAO approach, with their lam, sigma and gamma)."""
    own = reference.get_params(deep=False)
    shared = {k: v for k, v in model.get_params(deep=False).items() if k in own}
    return clone(reference).set_params(**shared).fit(X, y)


def sampled(X: Any, y: np.ndarray, size: int | None, seed: int
            ) -> tuple[Any, np.ndarray]:
    """At most ``size`` rows of an evaluation set, a fixed seeded draw (all of them without
    ``size``): a time study's checkpoints then cost the same at every training size."""
    if size is None or len(y) <= size:
        return X, y
    keep = np.sort(np.random.default_rng(seed).choice(len(y), size, replace=False))
    return X[keep], np.asarray(y)[keep]


def trace_rows(model: Any, every: int | None, until: int | None = None
               ) -> list[dict[str, Any]]:
    """Curve rows of what a fitted model logged per iteration (``traces_``: metric name ->
    one value per iteration, e.g. an ADMM's residuals), every ``every`` iterations and at the
    last, when the study records curves; ``time_s`` is not known for them (empty)."""
    traces = getattr(model, "traces_", None)
    if not every or not isinstance(traces, dict):
        return []
    rows = []
    for metric, values in traces.items():
        values = np.asarray(values, dtype=np.float64).ravel()
        last = values.size if until is None else min(values.size, int(until))
        steps = sorted({*range(every, last + 1, every), last} - {0})
        rows += [{"iteration": t, "time_s": None, "metric": metric, "value": float(values[t - 1])}
                 for t in steps]
    return rows


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


def _thresholds(model: Any) -> str:
    """A fitted model's thresholds b_1;...;b_(k-1) (``thresholds_``), '' where it has none: the
    evidence for the QS3ORAO paper's Lemma 1 (they are unique and increasing)."""
    b = getattr(model, "thresholds_", None)
    if b is None:
        return ""
    return thresholds_text(np.ravel(b))


def _warnings(caught: list[warnings.WarningMessage]) -> str:
    seen: list[str] = []
    for w in caught:
        text = one_line(f"{w.category.__name__}: {w.message}")
        if text not in seen:
            seen.append(text)
    return one_line(" | ".join(seen))


def standardized(X: Any, targets: list[tuple[Any, np.ndarray]]
                 ) -> tuple[Any, list[tuple[Any, np.ndarray]]]:
    """z-score every feature with the mean and std of the rows the solver trains on (constant
    features are only centred), as ORCA and the NPSVOR paper do; the evaluation rows with the
    same statistics."""
    from sklearn.preprocessing import StandardScaler

    sparse = hasattr(X, "toarray")
    scaler = StandardScaler(with_mean=not sparse).fit(X)
    return scaler.transform(X), [(scaler.transform(Xe), ye) for Xe, ye in targets]


def minmax_scaler(reference: Any, block: int = 1_000_000) -> Any:
    """The map of ``preprocess: minmax``: every feature to [0, 1] by its minimum and maximum
    over ``reference``, the dataset's training rows before any split (labels unread), so that
    every solver, repetition and budget sees the same features, as the catalogue scales the QSG
    papers' sets; a constant feature becomes 0. Sparse data is divided by each column's largest
    absolute value instead (it stays sparse; [0, 1] for non-negative data). Read in blocks of
    rows (a memory-mapped set is never copied whole)."""
    if hasattr(reference, "toarray"):
        from sklearn.preprocessing import MaxAbsScaler

        return MaxAbsScaler().fit(reference).transform
    n = reference.shape[0]
    parts = [np.asarray(reference[i:i + block]) for i in range(0, n, block)]
    lo = np.min([p.min(axis=0) for p in parts], axis=0).astype(np.float64)
    hi = np.max([p.max(axis=0) for p in parts], axis=0).astype(np.float64)
    span = np.where(hi > lo, hi - lo, 1.0)

    def scale(X: Any) -> np.ndarray:
        X = np.asarray(X)
        dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.float64
        return ((X - lo) / span).astype(dtype, copy=False)

    return scale


def describe(exc: BaseException) -> str:
    """``Type (at file:line): message`` with the innermost frame, on one line."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return one_line(f"{type(exc).__name__}{where}: {exc}")


def one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 3] + "..."
