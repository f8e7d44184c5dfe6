"""Commands `plot` and `report`.

Both load the paper folders named in ``ORDAUC_PAPERS`` first
(:func:`ordauc.publish.papers.load_papers`). Both are quiet by default: one line says where the
figures or the page are; ``-v`` prints every file written (``plot``), or the summary and every
file written (``report``). A warning a
library raises while they run is not let through as a traceback-like note: it is counted on one
line, and shown whole with ``-v``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from ordauc.cli import app

# The folder the commands read: a results folder of `ordauc run`; report also takes a folder of
# them (results/). Each command's -v says what that command prints: plot has no summary.
ResultsDir = Annotated[Path, typer.Argument(
    help="Results folder written by `ordauc run` (holds results.csv).", metavar="DIR",
    show_default=False)]
StudiesDir = Annotated[Path, typer.Argument(
    help="Results folder written by `ordauc run` (holds results.csv), or a folder of them.",
    metavar="DIR", show_default=False)]
PlotVerbose = Annotated[bool, typer.Option(
    "--verbose", "-v", help="List every figure file written, not just the folder they are "
    "in.")]
ReportVerbose = Annotated[bool, typer.Option(
    "--verbose", "-v", help="Print the report's summary and every file written, not just "
    "where the page is.")]

T = TypeVar("T")


@contextmanager
def _caught(verbose: bool) -> Iterator[None]:
    """Collect the warnings raised inside; on the way out one line counts them (each shown
    with ``--verbose``). The report's own code handles the cases it knows (ties, constant
    data: said in the tables); this keeps any other library note from cluttering the output
    while still saying it happened."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not caught:
        return
    seen = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    typer.echo(f"note: {len(caught)} warning(s) from libraries"
               + ("" if verbose else " (see them with -v)"), err=True)
    if verbose:
        for text in seen:
            typer.echo(f"  {text}", err=True)


def _run(work: Callable[[], T], verbose: bool) -> T:
    with _caught(verbose):
        return work()


@app.command()
def plot(
    directory: ResultsDir,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the figures (default: DIR/figures).", show_default=False)] = None,
    n_labeled: Annotated[int | None, typer.Option(
        "--n-labeled", help="Labeled size to plot (default: the most common one per dataset).",
        show_default=False, min=0)] = None,
    n_unlabeled: Annotated[int | None, typer.Option(
        "--n-unlabeled", help="Unlabeled size of the AUC boxplots (default: the largest one "
        "with a finished run per dataset).", show_default=False, min=0)] = None,
    complete: Annotated[bool, typer.Option(
        "--complete", help="Draw each AUC boxplot at the largest unlabeled size where every "
        "solver finished all its runs, as in the papers.")] = False,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", help="Metric of the critical-difference diagrams, repeatable (default: "
        "the study's own, as for `ordauc report`).", show_default=False)] = None,
    verbose: PlotVerbose = False,
) -> None:
    """Figures from a results folder: AUC boxplots and training-time curves, PNG and PDF.

    One AUC boxplot per dataset and one of all datasets (where the solvers give scores), a
    boxplot per dataset of each of the study's other metrics, and per dataset the training
    time against the size the study varies (none for a study run at one size), into
    DIR/figures (or --out); with curves.csv, per dataset the convergence of 1 - AUC and
    of the relative objective. Each solver has one colour, marker and line style in every
    figure (a variant of a solver: its colour, its own marker and dash). One line says where
    the figures are; -v lists them.
    """
    from ordauc.publish.papers import load_papers
    from ordauc.report.plots import plot_results
    from ordauc.results.frame import check_study_configs

    load_papers()  # a paper folder's figure families draw too
    check_study_configs(directory)  # before any figure is written
    written = _run(lambda: plot_results(
        directory, out=out, n_labeled=n_labeled, n_unlabeled=n_unlabeled, complete=complete,
        metrics=tuple(metric) if metric else None), verbose)
    where = out if out is not None else directory / "figures"
    typer.echo(f"{len(written)} figure files in {where}"
               + ("" if verbose else " (list them with -v)"))
    if verbose:
        for path in written:
            typer.echo(str(path))


@app.command()
def report(
    directory: StudiesDir,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the tables (default: DIR/report).", show_default=False)] = None,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", help="Metric of the tables, repeatable (default: the study's own, those "
        "its config tunes by; any of the metric registry: auc, c_index, mze, mae, amae, mmae, "
        "gm, ms, spearman, tau, wkappa).", show_default=False)] = None,
    alpha: Annotated[float, typer.Option(
        "--alpha", help="Significance level of the Wilcoxon and Friedman tests.",
        min=0.0, max=1.0)] = 0.05,
    verbose: ReportVerbose = False,
) -> None:
    """A study's page and tables, or the index over a folder of studies.

    For a results folder: DIR/report/index.html, one self-contained page (claims with their
    verdicts, tables, figures, protocol, provenance), and the tables: mean +- std per dataset
    and solver with the best in bold and
    average ranks (the NPSVOR paper's Tables II-III), Wilcoxon win/draw/loss counts (Table IV)
    and the Friedman test with Nemenyi and Wilcoxon-Holm post-hoc tests, as Markdown, CSV and
    LaTeX into DIR/report (or --out); where the results ran a paper's published table's solvers
    on its datasets (AUC-DCD Table 2), that table beside ours; the verdict on each claim of the
    study's paper in claims.csv. One line says where the page is; with -v the summary and
    every file written are printed.

    For a folder of results folders (results/): each study's report, then DIR/index.html over
    them with every claim decided by the study that can decide it (DIR/claims.csv).
    """
    from ordauc.publish.papers import load_papers
    from ordauc.publish.study import report_folder, report_study
    from ordauc.results import StudyFolder
    from ordauc.results.frame import check_study_configs

    load_papers()  # a paper folder's claims and report sections are published too
    check_study_configs(directory)  # before any page or table is written
    if directory.is_dir() and not StudyFolder(directory).is_study():
        if out is not None or metric:
            from ordauc.errors import UserError

            raise UserError("--out and --metric apply to one study's folder, not to a folder "
                            "of studies")
        summary, paths, headline = _run(lambda: report_folder(directory, alpha), verbose)
    else:
        summary, paths, _, headline = _run(lambda: report_study(
            directory, out, tuple(metric) if metric else None, alpha), verbose)
    if not verbose:
        typer.echo(headline)
        return
    typer.echo(summary)
    for path in paths:
        typer.echo(str(path), err=True)
