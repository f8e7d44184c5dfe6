"""Commands `solvers` and `run`."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ordauc.cli import app
from ordauc.errors import UserError

if TYPE_CHECKING:
    from ordauc.config import Config
    from ordauc.experiment import RunOptions


@app.command("solvers")
def solvers_cmd() -> None:
    """List every registered solver with its tasks, parameters and defaults."""
    from ordauc import solvers

    for name in solvers.names():
        info = solvers.info(name)
        typer.echo(f"{name}  [{', '.join(info.tasks)}]  {info.summary}")
        params = ", ".join(f"{k}={v!r}" for k, v in info.defaults.items())
        typer.echo(f"    {params}")


RUN_HELP = (
    "Run the experiment described by CONFIG; re-running completes only the missing cells.\n\n"
    "Each finished cell is appended to OUT/results.csv at once; OUT/results.parquet is written "
    "at the end. Exits with code 1 when any cell failed (error or timeout)."
)


@app.command("run", help=RUN_HELP)
def run_cmd(
    config: Annotated[Path, typer.Argument(
        help="YAML file describing the study (datasets, solvers, budgets, seeds, cv).",
        metavar="CONFIG", show_default=False)],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Output folder (default: results/STEM, STEM being the config's file "
        "name without .yaml).",
        show_default=False)] = None,
    n_jobs: Annotated[int, typer.Option(
        "--n-jobs", "-j", help="Cells run at once; -1 = one per core.")] = 1,
    backend: Annotated[str, typer.Option(
        "--backend", help="Where cells run: loky (local processes).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="Address of a dask scheduler (with --backend dask).",
        show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="List done, missing, failed, stale and not applicable cells, "
        "datasets not fetched yet included; write nothing.")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Run every cell again, even those already done.")] = False,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Data cache (default: $ORDAUC_DATA, else ./datasets).",
        show_default=False)] = None,
) -> None:
    """`ordauc run`: see RUN_HELP."""
    from ordauc.config import load_config
    from ordauc.experiment import RunOptions

    _check_backend(backend, scheduler)
    if n_jobs == 0:
        raise UserError("--n-jobs must be a positive number of processes, or -1 for one per core")
    settings = load_config(config)
    options = RunOptions(out=out if out is not None else Path("results") / config.stem,
                         n_jobs=n_jobs, backend=backend, force=force,
                         data_dir=None if data_dir is None else str(data_dir))
    if dry_run:
        _print_dry_run(settings, options)
        return
    from ordauc.experiment import run

    try:
        summary = run(settings, options)
    except KeyboardInterrupt:
        print(f"ordauc: interrupted; finished cells are kept in {options.out}, run the same "
              "command again to complete the others", file=sys.stderr)
        raise typer.Exit(130) from None
    print(summary.line(), file=sys.stderr)
    if summary.failed:
        raise typer.Exit(1)


def _check_backend(backend: str, scheduler: str | None) -> None:
    if backend == "dask":
        raise UserError("--backend dask is not available yet; use --backend loky")
    if backend != "loky":
        raise UserError(f"--backend must be loky, got {backend!r}")
    if scheduler is not None:
        raise UserError("--scheduler needs --backend dask, which is not available yet")


def _print_dry_run(config: Config, options: RunOptions) -> None:
    from ordauc.experiment import dry_run

    report = dry_run(config, options)
    plan, states = report.plan, report.states
    for state in states:
        detail = f"  ({state.detail})" if state.detail else ""
        typer.echo(f"{state.state:8} {state.cell.key}{detail}")
    for dataset, solver, task, tasks in plan.not_applicable:
        typer.echo(f"{'n/a':8} {dataset} x {solver}  ({dataset} is {task}; {solver} solves "
                   f"{', '.join(tasks)})")
    counts = Counter(s.state for s in states)
    parts = ", ".join(f"{counts[s]} {s}" for s in ("done", "missing", "failed", "stale")
                      if counts[s])
    typer.echo(f"{len(states)} cells: {parts}; {len(plan.not_applicable)} dataset-solver "
               f"pair(s) not applicable; nothing written to {options.out}")
    if report.unfetched:
        names = report.unfetched
        typer.echo(f"not fetched yet: {', '.join(names)}; `ordauc fetch {' '.join(names)}` "
                   "gets them, and `ordauc run` refuses to start until then")
