"""Builders that tests in several folders share: a small study config for the runner, a
folder snapshot, and a results table of hand-made runs for the published-table comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

STUDY = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
         "tuning": {"folds": 3}}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def published_results(cells: dict[tuple[str, str, str], list],
                      tuning: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per run of each (dataset, label, registry name) cell; a string is the status of
    a run that did not finish."""
    rows = []
    for (dataset, label, name), values in cells.items():
        for rep, value in enumerate(values):
            failed = isinstance(value, str)
            rows.append({"key": f"{dataset}/{label}/r{rep}", "dataset": dataset,
                         "solver": label, "solver_name": name, "repetition": rep,
                         "n_labeled": 100, "n_unlabeled": 0,
                         "tuning": (tuning or {}).get(label, "test"),
                         "status": value if failed else "ok",
                         "auc": np.nan if failed else float(value)})
    return pd.DataFrame(rows)
