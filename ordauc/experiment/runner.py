"""Run a study: plan, check, then run the missing cells on a backend and record each one.

The parent process owns the results table: cells run on the backend's workers (each cell in its
own forked child, see :mod:`ordauc.experiment.isolate`) and come back as outcomes
(:class:`~ordauc.results.CellOutcome`) in completion order; the parent appends each row as it
arrives, after its curve rows, and writes a failed cell's full traceback to ``OUT/logs/``;
every grid point's tuning score goes to ``tuning_scores.csv`` (the writer:
:func:`ordauc.results.write.record`). The folder's rows are read once, before anything is
written (a damaged line stops the run there), and read again under the folder's lock only if
another run wrote them in between. A cell is done when its row has status ``ok`` or
``skipped`` and was made with the same settings (``config_hash``); everything else in the plan
is run (again), and its old row and curves are dropped first, so no key is ever listed twice and
no curve outlives its cell. Cells the memory guard skips are recorded without being started,
and run once a later run's limit lets them start.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ordauc.config import Config
from ordauc.errors import UserError
from ordauc.experiment import sweep
from ordauc.experiment.backends import make_backend
from ordauc.experiment.cell import CellTask, DatasetRef, identity, measure, run_cell
from ordauc.experiment.plan import Cell, Plan, is_tuned, make_plan
from ordauc.experiment.preflight import Preflight, preflight
from ordauc.experiment.progress import progress_bar
from ordauc.experiment.provenance import provenance
from ordauc.experiment.study import check_study
from ordauc.results import CellOutcome, StudyFolder, StudyRecord
from ordauc.results.schema import (
    DONE,
    DONE_STATUSES,
    ERROR,
    FAILED,
    KEPT_STATES,
    MISSING,
    OLDER,
    SKIPPED,
    STALE,
    STATUS_ORDER,
    TIMEOUT,
    columns,
)
from ordauc.results.write import Tables, record

MISSING_DATA = ("refuse", "skip")  # what a run does with datasets not fetched yet


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
    rerun_older: bool = False  # run again the done cells that other code made
    config_text: str | None = None  # the study's YAML as given: kept in the folder
    study: StudyRecord | None = None  # the config the folder serves (study.json)
    profile: str = "paper"  # or "quick" (ordauc.experiment.halving)
    missing_data: str = "refuse"  # or "skip": cells of datasets not fetched recorded skipped


@dataclass(frozen=True)
class CellState:
    """Where a planned cell stands: done, older (done by other code, kept unless
    ``--rerun-older``), missing, failed (run again), stale (settings changed since its row was
    written, run again) or skipped (the memory guard will not start it)."""

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
        return self.statuses[ERROR] + self.statuses[TIMEOUT]

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
           skips: Collection[str] = (), code: dict[str, str] | None = None,
           rerun_older: bool = False) -> list[CellState]:
    """The state of every planned cell given the rows already in the table.

    A row the memory guard wrote (skipped, never started) is run again once the guard no
    longer skips its cell (``skips``: the keys it skips now), as its message advises. A done
    row made by other code than ``code`` (its ``ordauc_version`` or ``git_sha`` differ) is
    ``older``: kept, and shown as such, unless ``rerun_older`` runs it again.
    """
    latest = {row.get("key", ""): row for row in rows}
    states = []
    for cell in plan.cells:
        row = latest.get(cell.key)
        if row is None:
            states.append(CellState(cell, MISSING))
        elif row.get("status") not in DONE_STATUSES:
            states.append(CellState(cell, FAILED, f"{row.get('status')}: {row.get('message')}"))
        elif (row.get("status") == SKIPPED and not row.get("started_at")
              and cell.key not in skips):
            states.append(CellState(cell, STALE, "the memory limit now allows it"))
        elif row.get("config_hash") != cell.config_hash:
            states.append(CellState(cell, STALE, "settings changed since this row"))
        elif force:
            states.append(CellState(cell, STALE, "--force"))
        elif code is not None and (older := made_by_other_code(row, code)):
            states.append(CellState(cell, STALE if rerun_older else OLDER,
                                    f"{older}; --rerun-older runs it again" if not rerun_older
                                    else f"{older}; --rerun-older"))
        else:
            states.append(CellState(cell, DONE, str(row.get("status"))))
    return states


def made_by_other_code(row: dict[str, str], code: dict[str, str]) -> str:
    """Why ``row`` was made by other code than ``code`` (ordauc version, commit), or ''.

    A commit is compared only where both are known (an installed copy has none)."""
    version, sha = row.get("ordauc_version", ""), row.get("git_sha", "")
    if version != code.get("ordauc_version", ""):
        return f"made by ordauc {version or 'of unknown version'}"
    if sha and code.get("git_sha") and sha != code["git_sha"]:
        return f"made at commit {sha}"
    return ""


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
    if skip is None and missing and options.missing_data == "skip":
        skip = missing
    elif skip is None and missing:
        raise UserError(f"dataset(s) {', '.join(missing)} are not fetched yet; run "
                        f"`ordauc fetch {' '.join(missing)}` first (or --missing-data skip)")
    plan = make_plan(config, options.data_dir, options.profile)
    checked = preflight(plan, config, options.data_dir, skip=skip or (),
                        memory_limit=options.memory_limit,
                        n_jobs=backend.memory_share())
    if missing and options.missing_data == "skip":
        checked = _skip_unfetched(plan, checked, missing, config.evaluate)
    if checked.dropped:  # resampling beyond_data: drop, budgets a dataset cannot fill
        plan = replace(plan, cells=tuple(c for c in plan.cells if c.key not in checked.dropped))
    return Prepared(plan, checked, backend)


def _skip_unfetched(plan: Plan, checked: Preflight, missing: list[str], evaluate: str
                    ) -> Preflight:
    """The cells of the datasets not fetched as skips (survey() runs them once fetched), their
    rows sized from the catalogue."""
    from ordauc.cost.sizes import catalogue_shape
    from ordauc.experiment.preflight import SplitSizes

    cells = [cell for cell in plan.cells if cell.dataset.name in missing]
    skips = {cell.key: f"dataset {cell.dataset.name} is not fetched: `ordauc fetch "
                       f"{cell.dataset.name}` gets it, and the next run fills this cell"
             for cell in cells}
    sizes = {cell.split_key: SplitSizes(*catalogue_shape(cell, evaluate)) for cell in cells}
    return replace(checked, skips={**checked.skips, **skips}, sizes={**checked.sizes, **sizes})


@dataclass(frozen=True)
class DryRun:
    """What ``run`` would do: the plan, every cell's state, and the datasets not fetched yet."""

    plan: Plan
    states: list[CellState]
    unfetched: list[str]
    dropped: dict[str, str] = field(default_factory=dict)  # beyond_data: drop; key -> why
    sizes: dict = field(default_factory=dict)  # split key -> SplitSizes (fetched datasets)
    rows: list = field(default_factory=list)  # the folder's results rows

    def to_run(self) -> list[Cell]:
        """The cells a run would fit: neither kept in the table nor skipped by the plan."""
        return [s.cell for s in self.states if s.state not in (*KEPT_STATES, SKIPPED)]

    def kept(self) -> list[Cell]:
        """The cells whose rows the table already keeps."""
        return [s.cell for s in self.states if s.state in KEPT_STATES]


def dry_run(config: Config, options: RunOptions) -> DryRun:
    """What ``run`` would do; reads the table if there is one and writes nothing.

    Datasets not fetched yet are planned all the same (their splits are checked once they are
    there); their missing cells say which ``ordauc fetch`` they wait for.
    """
    missing = unfetched(config, options.data_dir)
    ready = prepare(config, options, skip=missing)
    plan, checked = ready.plan, ready.checked
    if options.study is not None:
        check_study(options.out, options.study)
    states = []
    rows = _existing_tables(options.out).existing()
    for s in survey(plan, rows, options.force, checked.skips,
                    provenance(), options.rerun_older):
        if s.state not in KEPT_STATES and s.cell.key in checked.skips:
            s = CellState(s.cell, SKIPPED, checked.skips[s.cell.key])
        elif s.state == MISSING and s.cell.dataset.name in missing:
            s = CellState(s.cell, s.state, f"needs `ordauc fetch {s.cell.dataset.name}`")
        states.append(s)
    return DryRun(plan, states, missing, checked.dropped, checked.sizes, rows)


def run(config: Config, options: RunOptions) -> Summary:
    """Run every cell of ``config`` that is not done in ``options.out``.

    Rows of cells that are not in this config (an earlier config's) are kept as they are.
    """
    ready = prepare(config, options)
    plan, checked = ready.plan, ready.checked
    tasks = build_tasks(ready, config, options)  # every estimator, before writing
    tables = _existing_tables(options.out)
    rows = tables.existing()  # refuses a folder that holds something else, writing nothing
    if options.study is not None:  # another study's folder: refused, unwritten
        check_study(options.out, options.study, rows)
    _make_folder(options.out)
    folder = StudyFolder(options.out)
    summary = Summary(options.out, not_applicable=len(plan.not_applicable))
    with folder.exclusive():  # before any write: a concurrent run is refused first
        rows = tables.current()  # read again only if another run wrote it meanwhile
        if options.study is not None:
            check_study(options.out, options.study, rows)  # again: another run may have written
            folder.write_record(options.study)
        if options.config_text is not None:  # the folder keeps the study it serves
            folder.write_config(options.config_text)
        table = tables.results
        states = survey(plan, rows, options.force, checked.skips, provenance(),
                        options.rerun_older)
        todo = {s.cell.key for s in states if s.state not in KEPT_STATES}
        done_rows = tables.open(columns(plan.param_names), todo, plan.param_names)
        for state in states:
            if state.state in KEPT_STATES:
                summary.statuses[done_rows[state.cell.key]["status"]] += 1
        runnable = pending(tasks, {k for k in todo if k not in checked.skips})
        try:
            with progress_bar(len(todo), options.progress) as advance:
                for task in pending(tasks, {k for k in todo if k in checked.skips}):
                    for i, cell in enumerate(task.cells):
                        skipped = CellOutcome({**identity(task, i), "status": SKIPPED,
                                               "message": checked.skips[cell.key]})
                        _record(skipped, tables, options.out, summary, advance)
                for outcomes in ready.backend.map(run_cell, runnable):
                    for outcome in outcomes:
                        _record(outcome, tables, options.out, summary, advance)
        finally:
            tables.close()
            table.write_parquet()
    return summary


def _record(outcome: CellOutcome, tables: Tables, out: Path, summary: Summary, advance: Any
            ) -> None:
    record(outcome, tables, out)
    summary.statuses[outcome.row["status"]] += 1
    summary.ran += 1
    advance(outcome.row)


def debug_cell(config: Config, options: RunOptions) -> Cell:
    """Run the first cell that is not done in-process, without fork or timeout, letting its
    exception through with the full traceback; writes nothing. Returns the cell."""
    ready = prepare(config, options)
    plan, checked = ready.plan, ready.checked
    states = survey(plan, _existing_tables(options.out).existing(), options.force, checked.skips,
                    provenance(), options.rerun_older)
    waiting = [s.cell.key for s in states
               if s.state not in KEPT_STATES and s.cell.key not in checked.skips]
    if not waiting:
        raise UserError(f"every cell is done (or skipped) in {options.out}; add --force to debug "
                        "the first one anyway")
    task = next(t for t in build_tasks(ready, config, options)
                if any(c.key == waiting[0] for c in t.cells))
    measure(task)
    return task.cell


def build_tasks(ready: Prepared, config: Config, options: RunOptions) -> list[CellTask]:
    """One task per fit of the plan (:meth:`Plan.fits`), with every cell it serves; the specs
    of a sweep whose points the solver fits in shared passes (:func:`sweep.shares_pass`) make
    one task per split instead (:func:`sweep.pass_key`), in the place of their first fit."""
    from ordauc import solvers

    plan, checked, backend = ready.plan, ready.checked, ready.backend
    estimators = {s.label: solvers.get(s.name, **s.params) for s in config.solvers}
    iterative = {s.label: solvers.info(s.name).meta.iterative for s in config.solvers}
    passes = {s.label: sweep.shares_pass(s, solvers.info(s.name).cls, is_tuned(s),
                                         iterative[s.label] and bool(config.curves_every))
              for s in config.solvers}
    reference = solvers.get(config.curves_reference) if config.curves_reference else None
    handles = {d.label: backend.data_handle(DatasetRef(d.name, d.params, options.data_dir))
               for d in config.datasets}
    shared, guard = provenance(), backend.guard()
    groups: dict[str, tuple[list[Cell], bool]] = {}  # task key -> its cells, shared_fit
    for group in plan.fits():
        cells = [c for c in group if c.split_key in checked.sizes]
        if not cells:
            continue
        # a fit serves several unlabeled budgets: so do a sweep's, spec by spec
        budgets = {c.n_unlabeled for c in cells}
        label = cells[0].solver.label
        key = sweep.pass_key(cells[0]) if passes[label] else cells[0].fit_key
        groups.setdefault(key, ([], len(budgets) > 1))[0].extend(cells)
    tasks = []
    for cells, shared_fit in groups.values():
        label = cells[0].solver.label
        tasks.append(CellTask(tuple(cells), estimators[label], iterative[label],
                              handles[cells[0].dataset.label],
                              tuple(checked.sizes[c.split_key] for c in cells), config,
                              shared, checked.cell_budget, guard, shared_fit=shared_fit,
                              reference=reference, sweep=passes[label]))
    return tasks


def pending(tasks: list[CellTask], todo: Collection[str]) -> list[CellTask]:
    """The tasks restricted to their cells in ``todo`` (a fit is made again when any cell it
    serves is to run; the rows of its done cells are kept, not written twice)."""
    out = []
    for task in tasks:
        keep = [i for i, cell in enumerate(task.cells) if cell.key in todo]
        if keep:
            out.append(replace(task, cells=tuple(task.cells[i] for i in keep),
                               sizes=tuple(task.sizes[i] for i in keep)))
    return out


def _existing_tables(out: Path) -> Tables:
    """The tables of ``out``, refused if ``out`` is a file; their :meth:`Tables.existing`
    reads every one of them first: a damaged line stops there, before anything is run or
    written."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder for the results")
    return StudyFolder(out).tables()


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{id(out)}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UserError(f"cannot write results to {str(out)!r} ({exc.strerror or exc}); give a "
                        "writable --out folder") from None
