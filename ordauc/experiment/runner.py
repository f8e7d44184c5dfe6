"""Run a study: plan, check, then run the missing cells in parallel and record each one.

The parent process owns the results table: cells run in joblib workers (each cell in its own
forked child, see :mod:`ordauc.experiment.isolate`) and come back as rows in completion order;
the parent appends each row as it arrives. A cell is done when its row has status ``ok`` or
``skipped`` and was made with the same settings (``config_hash``); everything else in the plan
is run (again), and its old row is dropped first, so no key is ever listed twice.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ordauc.config import Config
from ordauc.errors import UserError
from ordauc.experiment.cell import CellTask, Settings, run_cell
from ordauc.experiment.plan import Cell, Plan, make_plan
from ordauc.experiment.preflight import SplitSizes, preflight
from ordauc.experiment.results import DONE_STATUSES, ResultsTable, columns, provenance

STATUS_ORDER = ("ok", "skipped", "error", "timeout")


@dataclass(frozen=True)
class RunOptions:
    out: Path
    n_jobs: int = 1
    backend: str = "loky"
    force: bool = False
    data_dir: str | None = None
    progress: bool = True


@dataclass(frozen=True)
class CellState:
    """Where a planned cell stands: done, missing, failed (run again) or stale (settings
    changed since its row was written, run again)."""

    cell: Cell
    state: str
    detail: str = ""


@dataclass
class Summary:
    out: Path
    statuses: Counter[str] = field(default_factory=Counter)
    ran: int = 0
    not_applicable: int = 0

    @property
    def failed(self) -> int:
        return self.statuses["error"] + self.statuses["timeout"]

    def line(self) -> str:
        """E.g. ``12 cells: 10 ok, 1 error, 1 timeout (3 run now); results in results/x``."""
        order = [s for s in STATUS_ORDER if self.statuses[s]]
        order += sorted(s for s in self.statuses if s not in STATUS_ORDER and self.statuses[s])
        parts = ", ".join(f"{self.statuses[s]} {s}" for s in order)
        text = f"{sum(self.statuses.values())} cells: {parts} ({self.ran} run now)"
        if self.not_applicable:
            text += f"; {self.not_applicable} dataset-solver pair(s) not applicable"
        return f"{text}; results in {self.out}"


def survey(plan: Plan, rows: list[dict[str, str]], force: bool = False) -> list[CellState]:
    """The state of every planned cell given the rows already in the table."""
    latest = {row.get("key", ""): row for row in rows}
    states = []
    for cell in plan.cells:
        row = latest.get(cell.key)
        if row is None:
            states.append(CellState(cell, "missing"))
        elif row.get("status") not in DONE_STATUSES:
            states.append(CellState(cell, "failed", f"{row.get('status')}: {row.get('message')}"))
        elif row.get("config_hash") != cell.config_hash:
            states.append(CellState(cell, "stale", "settings changed since this row"))
        elif force:
            states.append(CellState(cell, "stale", "--force"))
        else:
            states.append(CellState(cell, "done", str(row.get("status"))))
    return states


def prepare(config: Config, data_dir: str | None) -> tuple[Plan, dict[Any, SplitSizes]]:
    """The plan and the size of every split; every user error surfaces here."""
    plan = make_plan(config)
    return plan, preflight(plan, config, data_dir)


@dataclass(frozen=True)
class DryRun:
    """What ``run`` would do: the plan, every cell's state, and the datasets not fetched yet."""

    plan: Plan
    states: list[CellState]
    unfetched: list[str]


def dry_run(config: Config, options: RunOptions) -> DryRun:
    """What ``run`` would do; reads the table if there is one and writes nothing.

    Datasets not fetched yet are planned all the same (their splits are checked once they are
    there); their missing cells say which ``ordauc fetch`` they wait for.
    """
    from ordauc import data

    unfetched = sorted({spec.name for spec in config.datasets
                        if not data.is_prepared(spec.name, options.data_dir)})
    plan = make_plan(config)
    preflight(plan, config, options.data_dir, skip=unfetched)
    states = survey(plan, _existing_rows(options.out), options.force)
    states = [CellState(s.cell, s.state, f"needs `ordauc fetch {s.cell.dataset.name}`")
              if s.state == "missing" and s.cell.dataset.name in unfetched else s
              for s in states]
    return DryRun(plan, states, unfetched)


def run(config: Config, options: RunOptions) -> Summary:
    """Run every cell of ``config`` that is not done in ``options.out``.

    Rows of cells that are not in this config (an earlier config's) are kept as they are.
    """
    plan, sizes = prepare(config, options.data_dir)
    tasks = _tasks(plan, sizes, config, options)  # builds every estimator before writing
    _existing_rows(options.out)  # refuses a folder that holds something else, writing nothing
    options.out.mkdir(parents=True, exist_ok=True)
    summary = Summary(options.out, not_applicable=len(plan.not_applicable))
    table = ResultsTable(options.out)
    with _exclusive(options.out):
        states = survey(plan, table.rows(), options.force)
        todo = {s.cell.key for s in states if s.state != "done"}
        table.open(columns(plan.param_names), drop_keys=todo)
        done_rows = {row["key"]: row for row in table.rows()}
        for state in states:
            if state.state == "done":
                summary.statuses[done_rows[state.cell.key]["status"]] += 1
        try:
            with _progress(len(todo), options.progress) as advance:
                for row in _results([t for t in tasks if t.cell.key in todo], options):
                    table.append(row)
                    summary.statuses[row["status"]] += 1
                    summary.ran += 1
                    advance(row)
        finally:
            table.close()
            table.write_parquet()
    return summary


def _existing_rows(out: Path) -> list[dict[str, str]]:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder for the results")
    return ResultsTable(out).rows()


def _tasks(plan: Plan, sizes: dict[Any, SplitSizes], config: Config, options: RunOptions
           ) -> list[CellTask]:
    from ordauc import solvers

    settings = Settings(cv_folds=config.cv.folds, cv_metric=config.cv.metric,
                        test_size=config.test_size, sampling=config.labeled_sampling,
                        evaluate=config.evaluate, timeout=config.timeout,
                        data_dir=None if options.data_dir is None else str(options.data_dir))
    estimators = {s.label: solvers.get(s.name, **s.params) for s in config.solvers}
    shared = provenance()
    return [CellTask(cell, estimators[cell.solver.label], sizes[cell.split_key], settings,
                     shared, os.getpid()) for cell in plan.cells]


def _results(tasks: list[CellTask], options: RunOptions) -> Iterator[dict[str, Any]]:
    """Rows in completion order. ``inner_max_num_threads`` caps BLAS in loky workers from the
    start; :func:`run_cell` caps it again per cell, which also covers ``n_jobs=1``."""
    if not tasks:
        return
    from joblib import Parallel, delayed, parallel_config

    with parallel_config(backend=options.backend, inner_max_num_threads=1):
        yield from Parallel(n_jobs=options.n_jobs, return_as="generator_unordered")(
            delayed(run_cell)(task) for task in tasks)


@contextlib.contextmanager
def _exclusive(out: Path) -> Iterator[None]:
    """Refuse a second concurrent run on the same folder (the lock dies with its process)."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: trust the user
        yield
        return
    with open(out / ".lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(f"another `ordauc run` is writing to {out}; wait for it to finish "
                            "or choose another --out") from None
        yield


@contextlib.contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Any]:
    """A progress bar on stderr, redrawn by the main thread only when a cell finishes."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=Console(stderr=True), auto_refresh=False,
                   disable=not enabled or total == 0)
    counts: Counter[str] = Counter()
    with bar:
        task = bar.add_task("cells", total=total)
        bar.refresh()

        def advance(row: dict[str, Any]) -> None:
            counts[row["status"]] += 1
            label = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
            bar.update(task, advance=1, description=f"cells ({label})")
            bar.refresh()

        yield advance
