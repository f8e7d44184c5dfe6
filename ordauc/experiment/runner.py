"""Run a study: plan, check, then run the missing cells on a backend and record each one.

The parent process owns the results table: cells run on the backend's workers (each cell in its
own forked child, see :mod:`ordauc.experiment.isolate`) and come back as rows in completion
order; the parent appends each row as it arrives, after its curve rows, and writes a failed
cell's full traceback to ``OUT/logs/``. A cell is done when its row has status ``ok`` or
``skipped`` and was made with the same settings (``config_hash``); everything else in the plan
is run (again), and its old row and curves are dropped first, so no key is ever listed twice and
no curve outlives its cell. Cells the memory guard skips are recorded without being started,
and run once a later run's limit lets them start.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ordauc.config import Config
from ordauc.errors import UserError
from ordauc.experiment.backends import make_backend
from ordauc.experiment.cell import CellTask, DatasetRef, Settings, identity, measure, run_cell
from ordauc.experiment.plan import Cell, Plan, make_plan
from ordauc.experiment.preflight import Preflight, preflight
from ordauc.experiment.progress import progress_bar
from ordauc.experiment.results import (
    CURVE_COLUMNS,
    CURVES_NAME,
    DONE_STATUSES,
    ResultsTable,
    columns,
    provenance,
)

STATUS_ORDER = ("ok", "skipped", "error", "timeout")
LOGS_DIR = "logs"


@dataclass(frozen=True)
class RunOptions:
    out: Path
    n_jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    force: bool = False
    data_dir: str | None = None
    progress: bool = True
    memory_limit: int | None = None  # bytes; overrides the config's


@dataclass(frozen=True)
class CellState:
    """Where a planned cell stands: done, missing, failed (run again), stale (settings changed
    since its row was written, run again) or skipped (the memory guard will not start it)."""

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


def survey(plan: Plan, rows: list[dict[str, str]], force: bool = False,
           skips: Collection[str] = ()) -> list[CellState]:
    """The state of every planned cell given the rows already in the table.

    A row the memory guard wrote (skipped, never started) is run again once the guard no
    longer skips its cell (``skips``: the keys it skips now), as its message advises.
    """
    latest = {row.get("key", ""): row for row in rows}
    states = []
    for cell in plan.cells:
        row = latest.get(cell.key)
        if row is None:
            states.append(CellState(cell, "missing"))
        elif row.get("status") not in DONE_STATUSES:
            states.append(CellState(cell, "failed", f"{row.get('status')}: {row.get('message')}"))
        elif (row.get("status") == "skipped" and not row.get("started_at")
              and cell.key not in skips):
            states.append(CellState(cell, "stale", "the memory limit now allows it"))
        elif row.get("config_hash") != cell.config_hash:
            states.append(CellState(cell, "stale", "settings changed since this row"))
        elif force:
            states.append(CellState(cell, "stale", "--force"))
        else:
            states.append(CellState(cell, "done", str(row.get("status"))))
    return states


def unfetched(config: Config, data_dir: str | None) -> list[str]:
    from ordauc import data

    return sorted({spec.name for spec in config.datasets
                   if not data.is_prepared(spec.name, data_dir)})


@dataclass(frozen=True)
class Prepared:
    """A checked study: the plan, every split's sizes and skips, and the backend to run on."""

    plan: Plan
    checked: Preflight
    backend: Any


def prepare(config: Config, options: RunOptions, skip: list[str] | None = None) -> Prepared:
    """The plan, every split's sizes and the memory guard's skips; every user error surfaces
    here. Unfetched datasets are refused, all of them named, unless listed in ``skip``."""
    backend = make_backend(options.backend, options.n_jobs, options.scheduler)
    backend.check()
    missing = unfetched(config, options.data_dir)
    if skip is None and missing:
        raise UserError(f"dataset(s) {', '.join(missing)} are not fetched yet; run "
                        f"`ordauc fetch {' '.join(missing)}` first")
    plan = make_plan(config, options.data_dir)
    checked = preflight(plan, config, options.data_dir, skip=skip or (),
                        memory_limit=options.memory_limit,
                        n_jobs=backend.parallel_cells() if backend.name == "loky" else 1)
    if checked.dropped:  # resampling beyond_data: drop, budgets a dataset cannot fill
        plan = replace(plan, cells=tuple(c for c in plan.cells if c.key not in checked.dropped))
    return Prepared(plan, checked, backend)


@dataclass(frozen=True)
class DryRun:
    """What ``run`` would do: the plan, every cell's state, and the datasets not fetched yet."""

    plan: Plan
    states: list[CellState]
    unfetched: list[str]
    dropped: dict[str, str] = field(default_factory=dict)  # beyond_data: drop; key -> why


def dry_run(config: Config, options: RunOptions) -> DryRun:
    """What ``run`` would do; reads the table if there is one and writes nothing.

    Datasets not fetched yet are planned all the same (their splits are checked once they are
    there); their missing cells say which ``ordauc fetch`` they wait for.
    """
    missing = unfetched(config, options.data_dir)
    ready = prepare(config, options, skip=missing)
    plan, checked = ready.plan, ready.checked
    states = []
    for s in survey(plan, _existing_rows(options.out), options.force, checked.skips):
        if s.state != "done" and s.cell.key in checked.skips:
            s = CellState(s.cell, "skipped", checked.skips[s.cell.key])
        elif s.state == "missing" and s.cell.dataset.name in missing:
            s = CellState(s.cell, s.state, f"needs `ordauc fetch {s.cell.dataset.name}`")
        states.append(s)
    return DryRun(plan, states, missing, checked.dropped)


def run(config: Config, options: RunOptions) -> Summary:
    """Run every cell of ``config`` that is not done in ``options.out``.

    Rows of cells that are not in this config (an earlier config's) are kept as they are.
    """
    ready = prepare(config, options)
    plan, checked = ready.plan, ready.checked
    tasks = build_tasks(ready, config, options)  # every estimator, before writing
    _existing_rows(options.out)  # refuses a folder that holds something else, writing nothing
    _make_folder(options.out)
    summary = Summary(options.out, not_applicable=len(plan.not_applicable))
    table, curves = ResultsTable(options.out), ResultsTable(options.out, CURVES_NAME)
    with _exclusive(options.out):
        states = survey(plan, table.rows(), options.force, checked.skips)
        todo = {s.cell.key for s in states if s.state != "done"}
        table.open(columns(plan.param_names), drop_keys=todo)
        done_rows = {row["key"]: row for row in table.rows()}
        curves.open(CURVE_COLUMNS, keep_keys=set(done_rows), unique=False)
        for state in states:
            if state.state == "done":
                summary.statuses[done_rows[state.cell.key]["status"]] += 1
        runnable = [t for t in tasks if t.cell.key in todo and t.cell.key not in checked.skips]
        try:
            with progress_bar(len(todo), options.progress) as advance:
                for task in tasks:
                    if task.cell.key in todo and task.cell.key in checked.skips:
                        row = {**identity(task), "status": "skipped",
                               "message": checked.skips[task.cell.key]}
                        _record(row, table, curves, options.out, summary, advance)
                for row in ready.backend.map(run_cell, runnable):
                    _record(row, table, curves, options.out, summary, advance)
        finally:
            table.close()
            curves.close()
            table.write_parquet()
    return summary


def _record(row: dict[str, Any], table: ResultsTable, curves: ResultsTable, out: Path,
            summary: Summary, advance: Any) -> None:
    """Append a cell's curves, then its row (a crash between the two leaves orphan curves, which
    the next run drops); keep a failure's traceback in OUT/logs."""
    points = row.pop("_curves", None) or []
    trace = row.pop("_traceback", None)
    for point in points:
        curves.append({k: row[k] for k in CURVE_COLUMNS if k in row} | point)
    if trace:
        log = out / LOGS_DIR / f"{re.sub(r'[^A-Za-z0-9._=-]+', '_', row['key'])}.log"
        log.parent.mkdir(exist_ok=True)
        log.write_text(f"{row['key']}\n{row['message']}\n\n{trace}", encoding="utf-8")
    table.append(row)
    summary.statuses[row["status"]] += 1
    summary.ran += 1
    advance(row)


def debug_cell(config: Config, options: RunOptions) -> Cell:
    """Run the first cell that is not done in-process, without fork or timeout, letting its
    exception through with the full traceback; writes nothing. Returns the cell."""
    ready = prepare(config, options)
    plan, checked = ready.plan, ready.checked
    states = survey(plan, _existing_rows(options.out), options.force, checked.skips)
    pending = [s.cell.key for s in states if s.state != "done" and s.cell.key not in checked.skips]
    if not pending:
        raise UserError(f"every cell is done (or skipped) in {options.out}; add --force to debug "
                        "the first one anyway")
    task = next(t for t in build_tasks(ready, config, options)
                if t.cell.key == pending[0])
    measure(task)
    return task.cell


def build_tasks(ready: Prepared, config: Config, options: RunOptions) -> list[CellTask]:
    from ordauc import solvers

    plan, checked, backend = ready.plan, ready.checked, ready.backend
    r = config.resampling
    settings = Settings(resampling=r.kind, folds=r.folds, test_size=r.test_size,
                        sampling=r.sampling, evaluate=config.evaluate,
                        preprocess=config.preprocess, timeout=config.timeout,
                        curves_every=config.curves_every, curves_until=config.curves_until,
                        memory_budget=checked.cell_budget)
    estimators = {s.label: solvers.get(s.name, **s.params) for s in config.solvers}
    iterative = {s.label: solvers.info(s.name).meta.iterative for s in config.solvers}
    handles = {d.label: backend.data_handle(DatasetRef(d.name, d.params, options.data_dir))
               for d in config.datasets}
    shared, guard = provenance(), backend.guard()
    return [CellTask(cell, estimators[cell.solver.label], iterative[cell.solver.label],
                     handles[cell.dataset.label], checked.sizes[cell.split_key], settings,
                     shared, guard)
            for cell in plan.cells if cell.split_key in checked.sizes]


def _existing_rows(out: Path) -> list[dict[str, str]]:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder for the results")
    return ResultsTable(out).rows()


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{id(out)}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UserError(f"cannot write results to {str(out)!r} ({exc.strerror or exc}); give a "
                        "writable --out folder") from None


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
