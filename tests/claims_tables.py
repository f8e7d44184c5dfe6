"""Hand-made results tables for the claim checks' tests: each test builds the rows whose verdict
it knows and checks that the claim's check finds it.

``runs("codrna", "qsg_s2auc", auc=[0.9, 0.91, ...])`` gives one row per repetition (the length of
the value lists); the other columns take their defaults or keyword values. ``study(...)`` glues
row lists into a :class:`ordauc.claims.Study`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordauc.claims.study import Study
from ordauc.config import Config

METRICS = ("auc", "mze", "mae", "fit_time_s", "cv_time_s", "predict_time_s", "peak_rss_mb")


def runs(dataset: str, solver: str, *, n_labeled: int = 200, n_unlabeled: int = 1000,
         status: str | list[str] = "ok", message: str = "", repetitions: list[int] | None = None,
         task: str = "binary", **values: object) -> list[dict[str, object]]:
    """One row per repetition of ``solver`` on ``dataset``; ``values`` are metric columns or
    ``p_<name>`` columns, each a list (one value per repetition) or a scalar (every row)."""
    lengths = {len(v) for v in values.values() if isinstance(v, list | tuple | np.ndarray)}
    if isinstance(status, list):
        lengths.add(len(status))
    if len(lengths) > 1:
        raise ValueError(f"value lists of different lengths: {lengths}")
    n = lengths.pop() if lengths else len(repetitions or [0])
    reps = repetitions if repetitions is not None else list(range(n))
    rows = []
    for i in range(n):
        row: dict[str, object] = {
            "dataset": dataset, "solver": solver, "solver_name": solver, "task": task,
            "repetition": reps[i], "n_labeled": n_labeled, "n_unlabeled": n_unlabeled,
            "status": status[i] if isinstance(status, list) else status, "message": message,
            "cv_metric": ""}
        for column, value in values.items():
            row[column] = value[i] if isinstance(value, list | tuple | np.ndarray) else value
        rows.append(row)
    return rows


def table(*groups: list[dict[str, object]]) -> pd.DataFrame:
    """The rows of every group as one results table, typed as ``load_results`` types them."""
    frame = pd.DataFrame([row for group in groups for row in group])
    for column in METRICS:
        if column in frame.columns:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame.loc[frame["status"] != "ok", [c for c in METRICS if c in frame.columns]] = np.nan
    return frame


def study(name: str, *groups: list[dict[str, object]], curves: pd.DataFrame | None = None,
          offline: bool = False, config: Config | None = None) -> Study:
    """A :class:`Study` named ``name`` (the config stem its claims expect) from row groups;
    ``config`` is the study's parsed config (None: unknown)."""
    return Study(name=name, results=table(*groups), curves=curves, offline=offline,
                 config=config)


def curve(dataset: str, solver: str, metric: str, iterations: list[int], values: list[float],
          *, repetition: int = 0, n_labeled: int = 200, n_unlabeled: int = 1000,
          times: list[float] | None = None) -> pd.DataFrame:
    """Checkpoint rows of ``curves.csv`` for one run of one solver."""
    return pd.DataFrame({
        "dataset": dataset, "solver": solver, "repetition": repetition, "n_labeled": n_labeled,
        "n_unlabeled": n_unlabeled, "iteration": iterations,
        "time_s": times if times is not None else [float(i) for i in iterations],
        "metric": metric, "value": values})
