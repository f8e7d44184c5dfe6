"""The constants of the cost estimate, measured on this machine.

A solver declares how its work grows (``fit_cost(n, d)`` for a fit, ``score_cost(n_train,
n_eval, d)`` for scoring its model); :func:`calibrate` times a few fits and their scoring at
small sizes and fits ``fit seconds = a + b * fit_cost`` by non-negative least squares, weighted
so that every size counts alike (the small sizes, where the intercept shows, as much as the
large ones), and ``score seconds = s * score_cost``.

Where the study's dataset is fetched, the fits are timed on rows of that dataset
(:class:`Sampler`: the same features, labels and preprocessing), because an iterative solver's
time depends on its data as much as on its size: the same SVR fit on 1,600 rows takes 0.06 s on
one dataset and 1.4 s on noisy synthetic rows. Datasets not fetched yet are stood in for by
synthetic rows shaped like them (:func:`synthetic`). What a fit group pays outside its fits (its
forked process and loading the dataset) is measured too (:func:`fork_seconds`,
:attr:`Sampler.load_seconds`).

Calibrations are kept per machine in ``$ORDAUC_CACHE`` (default ``~/.cache/ordauc``), so a
second dry run does not time the solvers again; one timed while other work loaded the machine
(:func:`busy`) is used once and not kept, and the dry run says the estimate may read high.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import nnls

SIZES = (250, 500, 1000, 2000)  # calibration sizes, stopped once a fit takes FIT_BUDGET
FIT_BUDGET = 1.0  # seconds
FEWEST_ROWS = 20  # below this a fit says little about a solver's cost
GRID_POINTS = 12  # grid points timed to see how a fit's time varies across the grid

Rows = Callable[[int, int], tuple[Any, np.ndarray]]  # (n rows, labeled among them) -> X, y


@dataclass(frozen=True)
class Calibration:
    """``fit seconds = a + b * fit_cost(n, d)`` and ``score seconds = score * score_cost`` for
    one solver on this machine."""

    a: float
    b: float
    points: int  # fits timed
    share: float = 1.0  # a shared grid pass of m models costs (1 + (m - 1) share) fits
    score: float = 0.0  # seconds per unit of the solver's score_cost
    grid: float = 1.0  # a fit at the grid's average point against one at its first point

    def seconds(self, units: float, models: float = 1) -> float:
        return (self.a + self.b * units) * self.grid * (1 + (models - 1) * self.share)


def fit_units(estimator: Any, n_samples: int, n_features: int) -> float:
    """The solver's declared cost of one fit; n^2 d for a solver that declares none."""
    cost = getattr(estimator, "fit_cost", None)
    if cost is None:
        return float(n_samples) ** 2 * n_features
    return float(cost(int(n_samples), int(n_features)))


def score_units(estimator: Any, n_train: int, n_eval: int, n_features: int) -> float:
    """The solver's declared cost of scoring ``n_eval`` rows with a model fitted on
    ``n_train``; a kernel expansion (n_train n_eval d) for a solver that declares none."""
    cost = getattr(estimator, "score_cost", None)
    if cost is None:
        return float(n_train) * n_eval * n_features
    return float(cost(int(n_train), int(n_eval), int(n_features)))


def synthetic(task: str, n_classes: int, n: int, labeled: int, d: int, seed: int = 0
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
    """

    def __init__(self, load: Callable[[], Any], standardize: bool = False,
                 minmax: bool = False) -> None:
        self._load = load
        self._dataset: Any = None
        self.standardize = standardize
        self.minmax = minmax
        self.load_seconds = 0.0

    @property
    def dataset(self) -> Any:
        if self._dataset is None:
            start = time.perf_counter()
            self._dataset = self._load()
            self.load_seconds = time.perf_counter() - start
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
        elif self.minmax:
            from ordauc.experiment.cell import minmax_scaler

            X = minmax_scaler(data.X)(X)
        return X, y


def calibration_sizes(top: int) -> list[int]:
    """The sizes to time: those of :data:`SIZES` below ``top`` and ``top`` itself, so the
    largest fit timed is the study's own size where that is small; at least two sizes."""
    top = max(FEWEST_ROWS, min(int(top), SIZES[-1]))
    sizes = [s for s in SIZES if s < top] + [top]
    return sizes if len(sizes) > 1 else [max(FEWEST_ROWS // 2, top // 2), top]


def calibrate(estimator: Any, rows: Rows, sizes: list[int], uses_unlabeled: bool,
              pass_points: list[dict[str, Any]] | None = None, task: str = "binary",
              n_classes: int = 2, grid_points: list[dict[str, Any]] | None = None
              ) -> Calibration:
    """Time one fit and its scoring at each of ``sizes`` (the best of two for a fast fit,
    stopping once one takes :data:`FIT_BUDGET`) and fit the constants. An untimed fit first
    pays for what a process pays once (imports, compiled loops, thread pools), which a run's
    cells do not pay per fit.

    ``grid_points`` (the search's points, one per shared pass, the estimator's own first) are
    timed once each at the largest size: an SVM's time grows with its C, a pairwise solver's
    as its lambda shrinks, so the average point, not the first, sets what a fit costs
    (:attr:`Calibration.grid`)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):  # as a cell runs: one BLAS thread
        return _calibrate(estimator, rows, sizes, uses_unlabeled, pass_points or [], task,
                          n_classes, grid_points or [])


def _calibrate(estimator: Any, rows: Rows, sizes: list[int], uses_unlabeled: bool,
               pass_points: list[dict[str, Any]], task: str, n_classes: int,
               grid_points: list[dict[str, Any]]) -> Calibration:
    from sklearn.base import clone

    from ordauc.experiment.evaluate import evaluate

    def timed(n: int, points: list[dict[str, Any]] | None = None,
              point: dict[str, Any] | None = None) -> tuple[float, Any, Any]:
        labeled = max(min(50, n), int(0.3 * n)) if uses_unlabeled else n
        X, y = rows(n, labeled)
        model = clone(estimator).set_params(**(point or {}))
        start = time.perf_counter()
        if points:
            model.fit_grid(X, y, points)
        else:
            model.fit(X, y)
        return time.perf_counter() - start, model, X

    timed(min(sizes[0], 100))
    d = 0
    units, seconds, scored = [], [], []
    for n in sizes:
        first, model, X = timed(n)
        if first < FIT_BUDGET / 4:
            first = min(first, timed(n)[0])
        seconds.append(first)
        d = int(X.shape[1])
        units.append(fit_units(estimator, n, d))
        # a small draw of an ordinal set may miss a rare top class: score with the model's own
        k = int(getattr(model, "n_classes_", 0) or n_classes) if task != "binary" else 2
        y_eval = np.ones(X.shape[0], dtype=int) if task == "binary" else np.full(X.shape[0], 1)
        y_eval[: X.shape[0] // 2] = 0 if task == "binary" else k
        took = evaluate(model, X, y_eval, task, k)["predict_time_s"]
        scored.append(took / max(score_units(estimator, n, X.shape[0], d), 1.0))
        if first > FIT_BUDGET:
            break
    share = 1.0
    if len(pass_points) > 1:  # what one more model adds to a shared pass
        m = len(pass_points)
        together = timed(sizes[len(seconds) - 1], pass_points)[0]
        share = min(1.0, max(0.02, (together / seconds[-1] - 1) / (m - 1)))
    grid = 1.0
    if len(grid_points) > 1:
        # the smallest size whose fit is long enough to time (the points are many)
        at = next((i for i, t in enumerate(seconds) if t >= 0.05), len(seconds) - 1)
        n, spent, times = sizes[at], 0.0, [seconds[at]]
        for point in grid_points[1:GRID_POINTS]:
            times.append(timed(n, point=point)[0])
            spent += times[-1]
            if spent > 2 * FIT_BUDGET:  # enough to see the spread; the rest would cost more
                break
        grid = float(np.mean(times) / seconds[at])
    score = float(scored[-1])  # the largest size: the least noisy
    if len(set(units)) < 2:  # a cost that does not grow with n: a constant per fit
        return Calibration(float(np.mean(seconds)), 0.0, len(seconds), share, score, grid)
    # Relative least squares (each row divided by its time): a size's error counts as a share
    # of its time, so the smallest sizes fix the intercept instead of being drowned out.
    t = np.asarray(seconds)
    u = np.asarray(units) / max(units)
    design = np.column_stack([np.ones(len(u)), u]) / t[:, None]
    (a, b), _ = nnls(design, np.ones(len(t)))
    return Calibration(float(a), float(b) / max(units), len(seconds), share, score, grid)


def fork_seconds() -> float:
    """What a cell's forked process costs (fork, pipe, exit), the best of three."""
    from ordauc.experiment.isolate import run_isolated

    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run_isolated(lambda: None, None)
        best = min(best, time.perf_counter() - start)
    return best


def metrics_seconds(task: str, n_classes: int, n_eval: int) -> float:
    """What computing every metric of the registry on ``n_eval`` rows costs (a cell scores
    each of its evaluation sets with all of them): the best of two, on random outputs."""
    from ordauc import metrics

    rng = np.random.default_rng(0)
    n = max(int(n_eval), 2 * n_classes)
    low = 0 if task == "binary" else 1
    high = low + (2 if task == "binary" else n_classes)
    y = rng.integers(low, high, n)
    y[:high - low] = np.arange(low, high)  # every class present, as in a real evaluation set
    labels, scores = rng.integers(low, high, n), rng.standard_normal(n)
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        metrics.evaluate_outputs(y, scores, labels, task, n_classes)
        best = min(best, time.perf_counter() - start)
    return best


def _cache_file() -> Path:
    root = os.environ.get("ORDAUC_CACHE") or Path.home() / ".cache" / "ordauc"
    return Path(root) / "calibration.json"


def cached_calibration(key: str, make: Callable[[], Calibration]) -> Calibration:
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


class _Constant:
    """The cheapest model a cell can fit: scores every row 0, predicts the first class. What
    a cell costs with it is what a cell costs besides its solver."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {}

    def set_params(self, **params: Any) -> _Constant:
        return self

    def fit(self, X: Any, y: np.ndarray) -> _Constant:
        labels = np.asarray(y)[np.asarray(y) != -1]
        self.label_ = labels.min() if labels.size else 0
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        return np.zeros(X.shape[0])

    def predict(self, X: Any) -> np.ndarray:
        return np.full(X.shape[0], self.label_)


def empty_cell_seconds(cell: Any, sizes: Any, config: Any, data_dir: str | None) -> float:
    """What running ``cell`` costs besides its solver's fits and scoring: its forked process,
    loading the dataset, the split, the preprocessing, the metrics and the row's way back,
    measured by running the cell (untuned) with a constant model, the best of two."""
    from dataclasses import replace

    from ordauc.experiment.cell import CellTask, DatasetRef, run_cell

    empty = replace(cell, solver=replace(cell.solver, grid={}), cv_metric="", by_metric=False)
    task = CellTask((empty,), _Constant(), False,
                    DatasetRef(cell.dataset.name, cell.dataset.params, data_dir), (sizes,),
                    replace(config, curves_every=None), {})
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        rows = run_cell(task)
        best = min(best, time.perf_counter() - start)
    if rows[0]["status"] != "ok":  # a cell this study cannot run: its fixed cost is unknown
        return 0.0
    return best
