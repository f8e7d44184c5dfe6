"""Commands `solvers` and `run`."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ordauc.cli import app

if TYPE_CHECKING:
    from ordauc.config import Config
    from ordauc.experiment import DryRun, RunOptions


@app.command("solvers")
def solvers_cmd() -> None:
    """List every registered solver with its tasks, parameters and defaults."""
    from ordauc import solvers

    for name in solvers.names():
        info = solvers.info(name)
        meta = info.meta
        kind = "semi-supervised" if meta.uses_unlabeled else "supervised"
        wraps = f", k-1 {meta.wrapper_of} models" if meta.wrapper_of else ""
        typer.echo(f"{name} ({meta.display}, {kind}{wraps})  "
                   f"[{', '.join(info.tasks)}]  {info.summary}")
        params = ", ".join(f"{k}={v!r}" for k, v in info.defaults.items())
        typer.echo(f"    {params}")


RUN_HELP = (
    "Run the experiment described by CONFIG; re-running completes only the missing cells.\n\n"
    "Each finished cell is appended to OUT/results.csv at once; OUT/results.parquet is written "
    "at the end, iterative solvers' checkpoints go to OUT/curves.csv and a failed cell's full "
    "traceback to OUT/logs/. Exits with code 1 when any cell failed (error or timeout)."
)


@app.command("run", help=RUN_HELP)
def run_cmd(
    config: Annotated[Path, typer.Argument(
        help="YAML file describing the study (datasets, solvers, budgets, seeds, cv).",
        metavar="CONFIG", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Output folder (default: results/STEM, STEM being the config's file "
        "name without .yaml; results/offline/STEM for a config in a folder named offline). "
        "A folder serves one study: another config into it is refused.",
        show_default=False)] = None,
    n_jobs: Annotated[int, typer.Option(
        "--n-jobs", "-j", help="Cells run at once; -1 = one per core. With --backend "
        "slurm or pbs: the workers kept (-1: adapt to the work); not used with dask, whose "
        "workers' threads decide.")] = 1,
    backend: Annotated[str, typer.Option(
        "--backend", help="Where cells run: loky (local processes), dask (a "
        "dask.distributed scheduler, with --scheduler), slurm or pbs (dask workers as batch "
        "jobs, set in ~/.config/dask/jobqueue.yaml).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Address of a dask scheduler (with --backend dask only).",
        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="List done, missing, failed, stale and not applicable cells, "
        "datasets not fetched yet included; write nothing.")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Run every cell again, even those already done.")] = False,
    rerun_older: Annotated[bool, typer.Option(
        "--rerun-older", help="Run again the done cells whose rows another version or commit "
        "of ordauc made (the dry run lists them as 'done (older code)'); without it they are "
        "kept.")] = False,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Data cache (default: $ORDAUC_DATA, else ./datasets).",
        show_default=False)] = None,
    missing_data: Annotated[str, typer.Option(
        "--missing-data", help="refuse: a dataset not fetched yet stops the run before it "
        "starts. skip: its cells are recorded as skipped, saying which `ordauc fetch` gets it, "
        "and the other datasets run; the next run fills those cells once it is fetched.",
        metavar="refuse|skip")] = "refuse",
    memory_limit: Annotated[str | None, typer.Option(
        "--memory-limit", help="Memory the run may use, shared by the cells running at once "
        "(e.g. 12GB); a cell whose solver needs more is recorded as skipped without starting. "
        "Default: the config's memory_limit, else 80% of this machine's memory.",
        show_default=False)] = None,
    estimate: Annotated[bool, typer.Option(
        "--estimate/--no-estimate", envvar="ORDAUC_ESTIMATE",
        help="With --dry-run: end with the estimated core-hours and wall time per solver, "
        "calibrated by timing each solver's fits on small synthetic data in this process "
        "(kept per machine in $ORDAUC_CACHE, else ~/.cache/ordauc) or scaled by the folder's "
        "finished rows.")] = True,
    debug: Annotated[bool, typer.Option(
        "--debug", help="Run the first cell that is not done in this process, without fork or "
        "timeout, and show its full traceback if it fails; write nothing.")] = False,
    profile: Annotated[str, typer.Option(
        "--profile", help="paper: every repetition, every grid point fitted on every inner "
        "fold (the papers' protocol). quick: the first 3 repetitions, each grid searched by "
        "successive halving (factor 3; inside the pass for QSG), into its own folder "
        "(default results/STEM-quick); its rows say profile quick.",
        metavar="paper|quick")] = "paper",
) -> None:
    """`ordauc run`: see RUN_HELP."""
    from ordauc.config import load_config
    from ordauc.config_values import memory_bytes
    from ordauc.errors import UserError
    from ordauc.experiment import RunOptions
    from ordauc.experiment.backends import make_backend
    from ordauc.experiment.halving import PROFILES
    from ordauc.experiment.runner import MISSING_DATA
    from ordauc.experiment.study import default_out
    from ordauc.results import StudyRecord

    if profile not in PROFILES:
        raise UserError(f"--profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    if missing_data not in MISSING_DATA:
        raise UserError(f"--missing-data must be one of {', '.join(MISSING_DATA)}, got "
                        f"{missing_data!r}")
    make_backend(backend, n_jobs, scheduler)  # a bad option fails before the config is read
    settings = load_config(config)
    text = config.read_text(encoding="utf-8")
    study = StudyRecord.of(config, text, profile)
    options = RunOptions(out=out if out is not None else default_out(study),
                         n_jobs=n_jobs, backend=backend, scheduler=scheduler, force=force,
                         rerun_older=rerun_older, config_text=text, study=study,
                         profile=profile, missing_data=missing_data,
                         data_dir=None if data_dir is None else str(data_dir),
                         memory_limit=memory_bytes(memory_limit, "--memory-limit"))
    if dry_run:
        typer.echo(f"{'profile':8} {PROFILE_NOTES[profile]}")
        _print_dry_run(settings, options, estimate)
        return
    if missing_data == "skip":
        from ordauc.experiment.runner import unfetched

        if missing := unfetched(settings, options.data_dir):
            print(f"ordauc: dataset(s) {', '.join(missing)} not fetched: their cells are "
                  f"recorded as skipped (`ordauc fetch {' '.join(missing)}`, then the same run "
                  "again, fills them)", file=sys.stderr)
    if debug:
        from ordauc.experiment import debug_cell

        cell = debug_cell(settings, options)
        print(f"ordauc: cell {cell.key} ran without error (nothing written)", file=sys.stderr)
        return
    from ordauc.experiment import run

    try:
        with _sigterm_interrupts():
            summary = run(settings, options)
    except KeyboardInterrupt as stop:
        print(f"ordauc: interrupted; finished cells are kept in {options.out}, run the same "
              "command again to complete the others", file=sys.stderr)
        # the shell's convention, 128 + the signal: 143 for SIGTERM, 130 for Ctrl-C (SIGINT)
        raise typer.Exit(143 if isinstance(stop, Terminated) else 130) from None
    print(summary.line(), file=sys.stderr)
    if summary.failed:
        raise typer.Exit(1)


PROFILE_NOTES = {
    "paper": "paper (every repetition, the full grid search on every inner fold)",
    "quick": "quick (the first 3 repetitions of each dataset, grids searched by successive "
             "halving)",
}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would raise KeyboardInterrupt, so both stop a run alike."""


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (a scheduler or `kill`) stops the run as Ctrl-C does: what is finished is kept,
    and the user is told so."""
    def interrupt(signum: int, frame: object) -> None:
        raise Terminated

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


SHOWN = {"older": "done (older code)"}  # dry-run words for a cell state


def _print_dry_run(config: Config, options: RunOptions, estimate: bool = True) -> None:
    from ordauc.experiment import dry_run
    from ordauc.results.schema import (
        DONE,
        FAILED,
        MISSING,
        OLDER,
        SKIPPED,
        STALE,
        budget_text,
        parse_key,
    )

    report = dry_run(config, options)
    plan, states = report.plan, report.states
    for state in states:
        detail = f"  ({state.detail})" if state.detail else ""
        typer.echo(f"{SHOWN.get(state.state, state.state):8} {state.cell.key}{detail}")
    dropped: dict[str, list[str]] = {}
    for key in report.dropped:
        parts = parse_key(key)
        unlabeled = budget_text(parts.n_unlabeled)
        if unlabeled not in dropped.setdefault(parts.dataset, []):
            dropped[parts.dataset].append(unlabeled)
    for dataset, sizes in dropped.items():
        typer.echo(f"{'dropped':8} {dataset} n_unlabeled {', '.join(sizes)}  "
                   "(beyond the rows it has; resampling beyond_data: drop)")
    for dataset, solver, task, tasks in plan.not_applicable:
        typer.echo(f"{'n/a':8} {dataset} x {solver}  ({dataset} is {task}; {solver} solves "
                   f"{', '.join(tasks)})")
    counts = Counter(s.state for s in states)
    parts = ", ".join(f"{counts[s]} {SHOWN.get(s, s)}" for s in (
        DONE, OLDER, MISSING, FAILED, STALE, SKIPPED) if counts[s])
    typer.echo(f"{len(states)} cells: {parts}; {len(plan.not_applicable)} dataset-solver "
               f"pair(s) not applicable; nothing written to {options.out}")
    if report.unfetched:
        names = report.unfetched
        typer.echo(f"not fetched yet: {', '.join(names)}; `ordauc fetch {' '.join(names)}` "
                   "gets them, and `ordauc run` refuses to start until then")
    if estimate:
        _print_estimate(report, options, config)


def _print_estimate(report: DryRun, options: RunOptions, config: Config) -> None:
    """The cost of the cells still to run, per solver and in total, on this machine."""
    import os

    from ordauc.cost.calibration import busy
    from ordauc.cost.estimate import core_hours, human, wall_seconds
    from ordauc.experiment.backends import make_backend
    from ordauc.experiment.costing import dry_run_costs
    from ordauc.experiment.preflight import default_memory_limit

    todo = report.to_run()
    if not todo:
        return
    cores = os.cpu_count() or 1
    jobs = cores if options.n_jobs == -1 else max(1, options.n_jobs)
    limit = options.memory_limit or config.memory_limit or default_memory_limit()
    # the memory guard's share, as the run will apply it (loky: the cells at once; a dask
    # worker: the limit is its own)
    share = make_backend(options.backend, options.n_jobs, options.scheduler).memory_share()
    costs = dry_run_costs(report, config, options.data_dir, memory_share=limit // max(1, share))
    typer.echo(f"\nestimated cost of the {len(todo)} cells to run (this machine, "
               f"{cores} cores, --n-jobs {jobs}):")
    width = max(len(label) for label in costs)
    for label, cost in costs.items():
        skipped = f"; {cost.skipped} over the memory limit" if cost.skipped else ""
        typer.echo(f"  {label:{width}}  {cost.cells:6} cells {cost.fits:8} fits  "
                   f"{cost.seconds / 3600:10.3g} core-h  ({human(cost.seconds)}; "
                   f"{cost.source}{skipped})")
    typer.echo(f"  {'total':{width}}  {core_hours(costs):.3g} core-hours; about "
               f"{human(wall_seconds(costs, jobs))} of wall time at --n-jobs {jobs}")
    if busy():
        typer.echo(f"  (other work loads this machine, load average {os.getloadavg()[0]:.1f} "
                   f"on {cores} cores: timings taken now read high)")
