"""The constants of the cost estimate, measured on this machine in core-seconds.

A solver declares how its work grows (``fit_cost(n, d)`` for a fit, optionally
``pass_cost(n, d, n_unlabeled)`` for the shared and per-model parts of a grid pass,
``score_cost(n_train, n_eval, d)`` for scoring its model); :func:`calibrate` times fits at two
or more sizes and two feature counts, shared passes of two model counts at two sizes, and the
scoring, and fits the law of :mod:`ordauc.cost.costlaw` to them.

Every time is CPU time (``time.process_time``: the process's threads, so a fit's BLAS threads
count), not wall time: a core-hour is what the study's cells will burn, and a calibration
timed while other work loads the machine must not read several times higher than one timed on
a quiet machine (wall timings of one config's dry runs under load spread from 0.7x to 43x).

Where the study's dataset is fetched, the fits are timed on rows of that dataset
(:class:`Sampler`: the same features, labels and preprocessing), because an iterative solver's
time depends on its data as much as on its size: the same SVR fit on 1,600 rows takes 0.06 s on
one dataset and 1.4 s on noisy synthetic rows. Datasets not fetched yet are stood in for by
synthetic rows shaped like them (:func:`synthetic`). What a fit group pays outside its fits (its
forked process and loading the dataset) is measured too (:mod:`ordauc.cost.overhead`,
:attr:`Sampler.load_seconds`).

Calibrations are kept per machine in ``$ORDAUC_CACHE`` (default ``~/.cache/ordauc``), keyed by
the unit (:data:`UNIT`), so entries timed in wall seconds by an older version are timed again;
one timed while other work loaded the machine (:func:`busy`) is used once and not kept.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.cost.costlaw import Calibration, fit_law, fit_pass
from ordauc.cost.overhead import (
    cpu_seconds,
    empty_cell_seconds,
    fork_seconds,
    metrics_seconds,
)

__all__ = ["Calibration", "Sampler", "cached_calibration", "calibrate", "calibration_sizes",
           "cpu_seconds", "empty_cell_seconds", "fit_units", "fork_seconds", "metrics_seconds",
           "pass_units", "score_units", "synthetic"]

SIZES = (250, 500, 1000, 2000)  # calibration sizes, stopped once a fit takes FIT_BUDGET
FIT_BUDGET = 1.0  # core-seconds
FEWEST_ROWS = 20  # below this a fit says little about a solver's cost
GRID_POINTS = 12  # grid points timed to see how a fit's time varies across the grid
PASS_MODELS = 4  # the most models of a shared pass timed (and a pass of 2)
UNIT = "core-seconds v2"  # what a cached calibration measures: older (wall) entries differ

Rows = Callable[[int, int], tuple[Any, np.ndarray]]  # (n rows, labeled among them) -> X, y


def fit_units(estimator: Any, n_samples: int, n_features: int) -> float:
    """The solver's declared cost of one fit; n^2 d for a solver that declares none."""
    cost = getattr(estimator, "fit_cost", None)
    if cost is None:
        return float(n_samples) ** 2 * n_features
    return float(cost(int(n_samples), int(n_features)))


def pass_units(estimator: Any, n_samples: int, n_features: int, n_unlabeled: int
               ) -> tuple[float, float]:
    """(shared, per-model) units of a shared grid pass: the solver's ``pass_cost(n_samples,
    n_features, n_unlabeled)`` where it declares one (a shared part that grows otherwise than
    its models: SAMULT's eigendecomposition against each model's solve), else the fit's
    units for both (their constants, timed, tell the parts apart)."""
    cost = getattr(estimator, "pass_cost", None)
    if cost is None:
        units = fit_units(estimator, n_samples, n_features)
        return units, units
    shared, model = cost(int(n_samples), int(n_features), int(n_unlabeled))
    return float(shared), float(model)


def score_units(estimator: Any, n_train: int, n_eval: int, n_features: int) -> float:
    """The solver's declared cost of scoring ``n_eval`` rows with a model fitted on
    ``n_train``; a kernel expansion (n_train n_eval d) for a solver that declares none."""
    cost = getattr(estimator, "score_cost", None)
    if cost is None:
        return float(n_train) * n_eval * n_features
    return float(cost(int(n_train), int(n_eval), int(n_features)))


def synthetic(task: str, n_classes: int, n: int, labeled: int, d: int, seed: int = 0,
              positive_share: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows shaped like a study's: a noisy linear score cut into ``n_classes`` ordered classes
    (0/1 for a binary task: equal halves, or the top ``positive_share`` of the scores positive,
    at least two rows, as the dataset's own class ratio), the rows after ``labeled`` marked
    unlabeled (-1)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    score = X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n)
    k = 2 if task == "binary" else n_classes
    if task == "binary" and positive_share is not None:
        top = min(n - 2, max(2, round(positive_share * n)))
        y = np.zeros(n, dtype=np.int64)
        y[np.argsort(score)[n - top:]] = 1
    else:
        y = np.searchsorted(np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]), score)
    y = y if task == "binary" else y + 1
    y[labeled:] = -1
    return X, y


class Sampler:
    """Rows of a fetched dataset for timing fits: ``rows(n, labeled)`` draws ``n`` rows at
    random (seeded), marks the rows after the first ``labeled`` unlabeled (-1) and applies the
    study's preprocessing, as a cell would.

    Parameters
    ----------
    load : callable
        Returns the :class:`~ordauc.data.Dataset` (called once, timed: :attr:`load_seconds`).
    standardize : bool
        Whether the study z-scores its features (``preprocess: standardize``).
    minmax : bool
        Whether the study scales its features to [0, 1] by the dataset's ranges
        (``preprocess: minmax``).
    scaler : callable, default=None
        ``scaler(X)``: the runner's map of ``preprocess: minmax`` fitted on X (the whole
        dataset's rows), which ``minmax`` applies; required with ``minmax``.
    """

    def __init__(self, load: Callable[[], Any], standardize: bool = False,
                 minmax: bool = False,
                 scaler: Callable[[Any], Callable[[Any], Any]] | None = None) -> None:
        if minmax and scaler is None:
            raise ValueError("minmax rows need the runner's scaler")
        self._load = load
        self._dataset: Any = None
        self.standardize = standardize
        self.minmax = minmax
        self._scaler = scaler
        self.load_seconds = 0.0

    @property
    def dataset(self) -> Any:
        if self._dataset is None:
            start = cpu_seconds()
            self._dataset = self._load()
            self.load_seconds = cpu_seconds() - start
        return self._dataset

    @property
    def n_rows(self) -> int:
        return int(self.dataset.X.shape[0])

    def rows(self, n: int, labeled: int) -> tuple[Any, np.ndarray]:
        data = self.dataset
        pick = np.random.default_rng(0).permutation(self.n_rows)[:n]
        X, y = data.X[pick], np.asarray(data.y)[pick].copy()
        y[labeled:] = -1
        if self.standardize:
            from sklearn.preprocessing import StandardScaler

            X = StandardScaler(with_mean=not hasattr(X, "toarray")).fit_transform(X)
        elif self.minmax and self._scaler is not None:
            X = self._scaler(data.X)(X)
        return X, y


def calibration_sizes(top: int) -> list[int]:
    """The sizes to time: those of :data:`SIZES` below ``top`` and ``top`` itself, so the
    largest fit timed is the study's own size where that is small; at least two sizes."""
    top = max(FEWEST_ROWS, min(int(top), SIZES[-1]))
    sizes = [s for s in SIZES if s < top] + [top]
    return sizes if len(sizes) > 1 else [max(FEWEST_ROWS // 2, top // 2), top]


def calibrate(estimator: Any, rows: Rows, sizes: list[int], uses_unlabeled: bool,
              pass_points: list[dict[str, Any]] | None = None, task: str = "binary",
              n_classes: int = 2, grid_points: list[dict[str, Any]] | None = None, *,
              evaluate: Callable[..., Any]) -> Calibration:
    """Time fits, shared passes and scoring in core-seconds and fit the law
    (:mod:`ordauc.cost.costlaw`).

    One fit at each of ``sizes`` (the best of two for a fast fit; past :data:`FIT_BUDGET` the
    larger sizes are left out, but never the second), then at the two largest timed sizes with
    half the features: two sizes and two feature counts, from which the exponent is fitted.
    An untimed fit first pays for what a process pays once (imports, compiled loops, thread
    pools), which a run's cells do not pay per fit. ``pass_points`` (a shared pass's points,
    two or more) are fitted in passes of 2 and of up to :data:`PASS_MODELS` models at the two
    largest sizes: the shared and per-model parts of a pass. ``grid_points`` (the search's
    points, one per shared pass, the estimator's own first) are timed once each: an SVM's time
    grows with its C, a pairwise solver's as its lambda shrinks, so the average point, not the
    first, sets what a fit costs (:attr:`Calibration.grid`).

    Every time is process CPU time (:func:`cpu_seconds`): other work on the machine delays a
    fit but does not add to its core-seconds. ``evaluate(model, X, y, task, n_classes)`` is
    the runner's scoring of a cell's model (every metric), whose time is the scoring's."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as a cell runs: one BLAS thread
        return _calibrate(estimator, rows, sizes, uses_unlabeled, pass_points or [], task,
                          n_classes, grid_points or [], evaluate)


def _calibrate(estimator: Any, rows: Rows, sizes: list[int], uses_unlabeled: bool,
               pass_points: list[dict[str, Any]], task: str, n_classes: int,
               grid_points: list[dict[str, Any]], evaluate: Callable[..., Any]
               ) -> Calibration:
    from sklearn.base import clone

    def draw(n: int, d: int | None = None) -> tuple[Any, np.ndarray, int]:
        labeled = max(min(50, n), int(0.3 * n)) if uses_unlabeled else n
        X, y = rows(n, labeled)
        X = X if d is None else X[:, :d]
        return X, y, (n - labeled if uses_unlabeled else 0)

    def timed(n: int, points: list[dict[str, Any]] | None = None,
              point: dict[str, Any] | None = None, d: int | None = None
              ) -> tuple[float, Any, Any]:
        X, y, _ = draw(n, d)
        model = clone(estimator).set_params(**(point or {}))
        start = time.process_time()
        if points:
            model.fit_grid(X, y, points)
        else:
            model.fit(X, y)
        return time.process_time() - start, model, X

    def best(n: int, **kw: Any) -> tuple[float, Any, Any]:
        took, model, X = timed(n, **kw)
        if took < FIT_BUDGET / 4:  # a fast fit: the best of two, as noise only adds
            took = min(took, timed(n, **kw)[0])
        return took, model, X

    timed(min(sizes[0], 100))
    d = 0
    done: list[int] = []
    units, seconds, scored = [], [], []
    for n in sizes:
        took, model, X = best(n)
        seconds.append(took)
        done.append(n)
        d = int(X.shape[1])
        units.append(fit_units(estimator, n, d))
        scored.append(_score_seconds(evaluate, model, X, task, n_classes)
                      / max(score_units(estimator, n, X.shape[0], d), 1.0))
        if took > FIT_BUDGET and len(done) >= 2:
            break
    fewer = max(1, d // 2)
    largest = done[-2:]
    if fewer < d:  # a second feature count, at the two largest sizes
        try:
            halved = [(best(n, d=fewer)[0], fit_units(estimator, n, fewer)) for n in largest]
        except Exception:  # noqa: BLE001 - a solver that needs all its features: sizes alone
            halved = []
        seconds += [t for t, _ in halved]
        units += [u for _, u in halved]
    a, b, exponent, law = fit_law(units, seconds)
    passed = _passes(estimator, pass_points, largest, d, exponent, draw, best, seconds,
                     done)
    grid = 1.0
    if len(grid_points) > 1:
        # the smallest size whose fit is long enough to time (the points are many)
        at = next((i for i, t in enumerate(seconds[:len(done)]) if t >= 0.05), len(done) - 1)
        n, spent, times = done[at], 0.0, [seconds[at]]
        for point in grid_points[1:GRID_POINTS]:
            times.append(timed(n, point=point)[0])
            spent += times[-1]
            if spent > 2 * FIT_BUDGET:  # enough to see the spread; the rest would cost more
                break
        grid = float(np.mean(times) / max(seconds[at], 1e-9))
    return Calibration(a, b, len(seconds), exponent, max(units), law, *passed,
                       score=float(scored[-1]), grid=grid)  # scoring: the largest size's


def _score_seconds(evaluate: Any, model: Any, X: Any, task: str, n_classes: int) -> float:
    """Core-seconds of scoring ``X`` with ``model`` and computing its outputs' metrics."""
    # a small draw of an ordinal set may miss a rare top class: score with the model's own
    k = int(getattr(model, "n_classes_", 0) or n_classes) if task != "binary" else 2
    y_eval = np.ones(X.shape[0], dtype=int) if task == "binary" else np.full(X.shape[0], 1)
    y_eval[: X.shape[0] // 2] = 0 if task == "binary" else k
    start = time.process_time()
    evaluate(model, X, y_eval, task, k)
    return time.process_time() - start


def _passes(estimator: Any, points: list[dict[str, Any]], sizes: list[int], d: int,
            exponent: float, draw: Any, best: Any, lone: list[float], done: list[int]
            ) -> tuple[float, float, float, float, float, float, int]:
    """(shared_a, shared_b, model_a, model_b, top_shared, top_model, passes timed): passes of
    2 and of up to :data:`PASS_MODELS` models at each of ``sizes``; with only two points to
    share, a lone fit stands for a pass of one."""
    if len(points) < 2 or len(sizes) < 2:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0
    counts = sorted({2, min(len(points), PASS_MODELS)})
    rows_s, rows_m, models, seconds = [], [], [], []
    for n in sizes:
        n_u = draw(n)[2]
        shared, model = pass_units(estimator, n, d, n_u)
        if len(counts) == 1:  # the lone fit at this size, already timed
            rows_s.append(shared)
            rows_m.append(model)
            models.append(1)
            seconds.append(lone[done.index(n)])
        for m in counts:
            rows_s.append(shared)
            rows_m.append(model)
            models.append(m)
            seconds.append(best(n, points=points[:m])[0])
    sa, sb, ma, mb = fit_pass(rows_s, rows_m, models, seconds, exponent)
    return sa, sb, ma, mb, max(rows_s), max(rows_m), len(seconds)


def _cache_file() -> Path:
    root = os.environ.get("ORDAUC_CACHE") or Path.home() / ".cache" / "ordauc"
    return Path(root) / "calibration.json"


def cached_calibration(key: str, make: Callable[[], Calibration]) -> Calibration:
    """The calibration stored under ``key`` for this machine, else ``make()`` stored."""
    import ordauc

    path = _cache_file()
    # the unit is part of the key: a calibration timed in wall seconds is never read as one
    # timed in core-seconds
    machine = f"{platform.node()}|{os.cpu_count()}|{ordauc.__version__}|{UNIT}"
    try:
        store = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        store = {}
    found = store.get(machine, {}).get(key)
    if found:
        try:
            return Calibration(**found)
        except TypeError:  # stored by a version with other fields: time it again
            pass
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


def busy() -> bool:
    """Whether other work loads the machine (1-minute load average above 3/4 of its cores),
    which slows the calibration's fits and so raises the estimate."""
    try:
        return os.getloadavg()[0] > 0.75 * (os.cpu_count() or 1)
    except OSError:
        return False
