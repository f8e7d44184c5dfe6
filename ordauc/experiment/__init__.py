"""Experiments: plan cells from a config, check them, run them, record one row per cell.

``config -> plan (cells, hashed seeds) -> preflight (every split) -> runner (joblib workers,
one forked child per cell, hard timeout) -> results table (append-only CSV, then parquet)``.
"""

from __future__ import annotations

from ordauc.experiment.plan import Cell, Plan, make_plan, solver_seed, split_seed
from ordauc.experiment.runner import CellState, DryRun, RunOptions, Summary, dry_run, run

__all__ = ["Cell", "CellState", "DryRun", "Plan", "RunOptions", "Summary", "dry_run",
           "make_plan", "run", "solver_seed", "split_seed"]
