"""Experiments: plan cells from a config, check them, run them, record one row per cell.

``config -> plan (cells, hashed seeds) -> preflight (every split, memory guard) -> runner (a
backend's workers, one forked child per cell, hard timeout) -> results table (append-only CSV,
then parquet) and curves``. The folder's files are read and written through
:mod:`ordauc.results`, which owns them.
"""

from __future__ import annotations

from ordauc.experiment.plan import Cell, Plan, make_plan, solver_seed, split_seeds
from ordauc.experiment.runner import (
    CellState,
    DryRun,
    RunOptions,
    Summary,
    debug_cell,
    dry_run,
    run,
)

__all__ = ["Cell", "CellState", "DryRun", "Plan", "RunOptions", "Summary", "debug_cell",
           "dry_run", "make_plan", "run", "solver_seed", "split_seeds"]
