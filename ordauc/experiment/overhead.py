"""What a cell costs besides its solver's fits and scoring, in core-seconds: its forked
process, the metrics, the whole pipeline run with a constant model.

Every figure is CPU time (:func:`cpu_seconds`: this process's threads and the children it
waited for), so that other work loading the machine delays these measurements without
raising them: a core-hour is a core's hour of work, whatever else ran beside it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def cpu_seconds() -> float:
    """CPU time of this process (every thread: a fit's BLAS threads count) and of the
    children it has waited for (a cell's forked process): the clock of core-seconds."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def fork_seconds() -> float:
    """What a cell's forked process costs in core-seconds (fork, pipe, exit; the parent's
    CPU and the child's), the best of three."""
    from ordauc.experiment.isolate import run_isolated

    best = float("inf")
    for _ in range(3):
        start = cpu_seconds()
        run_isolated(lambda: None, None)
        best = min(best, cpu_seconds() - start)
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
        start = time.process_time()
        metrics.evaluate_outputs(y, scores, labels, task, n_classes)
        best = min(best, time.process_time() - start)
    return best


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
    from ordauc.results.schema import OK

    empty = replace(cell, solver=replace(cell.solver, grid={}), cv_metric="", by_metric=False)
    task = CellTask((empty,), _Constant(), False,
                    DatasetRef(cell.dataset.name, cell.dataset.params, data_dir), (sizes,),
                    replace(config, curves_every=None), {})
    best = float("inf")
    for _ in range(2):
        start = cpu_seconds()
        outcomes = run_cell(task)
        best = min(best, cpu_seconds() - start)
    if outcomes[0].status != OK:  # a cell this study cannot run: its fixed cost is unknown
        return 0.0
    return best
