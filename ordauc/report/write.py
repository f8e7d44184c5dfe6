"""Writing a report: every table and statistic of each metric, as Markdown, CSV and LaTeX.

The report is built as objects first (:func:`build_report`, a
:class:`~ordauc.report.document.ReportDocument` from the registered sections, the four papers'
registered here and in :mod:`ordauc.report.compare_render`), then rendered to files, every file
written whole (:func:`ordauc.report.files.write_texts`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ordauc.metrics import METRICS
from ordauc.report import compare_render, stats, stats_render  # noqa: F401 (registers a section)
from ordauc.report.document import Item, Part, Renderer, Report, ReportDocument
from ordauc.report.files import write_texts
from ordauc.report.load import has_values, task_groups
from ordauc.report.sections import ReportStudy, report_section, sections
from ordauc.report.table_render import frame_csv, to_csv, to_latex, to_markdown
from ordauc.report.tables import (
    DECIMALS,
    Arranged,
    MetricTable,
    arrange,
    metric_of,
    metric_table,
)
from ordauc.results.frame import failure_counts
from ordauc.results.schema import OK


def table_texts(table: MetricTable, stem: str, decimals: int = DECIMALS) -> dict[str, str]:
    """``<stem>.md``, ``.csv`` and ``.tex`` of a table: file name -> text."""
    return {f"{stem}.md": to_markdown(table, decimals), f"{stem}.csv": to_csv(table),
            f"{stem}.tex": to_latex(table, decimals)}


def write_table(table: MetricTable, out_dir: Path, stem: str | None = None,
                decimals: int = DECIMALS) -> list[Path]:
    """Write ``<stem>.md``, ``.csv`` and ``.tex`` (stem ``table_<metric>``); the paths."""
    return write_texts(out_dir, table_texts(table, stem or f"table_{table.metric.name}",
                                            decimals))


# ---------------------------------------------------------------------------------------------
# The whole report

TABLE = Renderer(files=lambda table, stem: table_texts(table, stem),
                 markdown=lambda table: to_markdown(table, DECIMALS))
WDL = Renderer(files=lambda wdl, stem: {
    f"{stem}.md": stats_render.wdl_markdown(wdl), f"{stem}.csv": stats_render.wdl_csv(wdl),
    f"{stem}.tex": stats_render.wdl_latex(wdl), f"{stem}_tests.csv": frame_csv(wdl.tests)},
    markdown=stats_render.wdl_markdown)
FRIEDMAN = Renderer(files=lambda fried, stem: {
    f"{stem}.md": stats_render.friedman_markdown(fried),
    f"{stem}.csv": stats_render.friedman_csv(fried),
    f"{stem}.tex": stats_render.friedman_latex(fried)}, markdown=stats_render.friedman_markdown)


def _failures_line(arranged: Arranged) -> str:
    rows = arranged.rows
    failed = rows[rows["status"] != OK]
    if failed.empty:
        return f"All {len(rows)} runs finished."
    return (f"{len(rows) - len(failed)} of {len(rows)} runs finished; "
            f"{failure_counts(failed['status'])} (see the tables' notes).")


def build_report(results: pd.DataFrame, metrics: Iterable[str] = ("mze", "mae"),
                 alpha: float = 0.05, directory: Path | None = None) -> ReportDocument:
    """The report of ``results`` as objects: every registered section
    (:mod:`ordauc.report.sections`) that applies to the study, in order, after a heading and
    a line on the runs that did not finish. ``directory`` is the results folder, for the
    sections that read more of it than the table."""
    names = tuple(metrics)
    for name in names:
        metric_of(name)
    arranged = arrange(results)
    study = ReportStudy(results, arranged, task_groups(results), names, alpha, directory)
    summary = [f"# Report over {len(arranged.datasets)} datasets and "
               f"{len(arranged.methods)} methods", "", _failures_line(arranged)]
    items: list[Item] = []
    for section in sections():
        if section.applies_to(study):
            assert section.render is not None  # sections() checked it
            part = section.render(section.data(study), study)
            items += part.items
            summary += part.summary
    return ReportDocument("\n".join(summary).rstrip() + "\n", items)


def write_report(results: pd.DataFrame, out_dir: Path,
                 metrics: Iterable[str] = ("mze", "mae"), alpha: float = 0.05,
                 directory: Path | None = None) -> Report:
    """Write the NPSVOR paper's tables and statistics for each metric into ``out_dir``.

    Per metric ``table_<m>`` (Tables II/III), ``wdl_<m>`` (Table IV: Wilcoxon wins/draws/losses,
    with every test in ``wdl_<m>_tests.csv``) and ``friedman_<m>`` (Friedman test, average
    ranks, Nemenyi critical difference and Wilcoxon-Holm post-hoc), each as ``.md``, ``.csv``
    and ``.tex``; where a paper's published table shares datasets and solvers with the results,
    ``published_<table>[_<variant>]`` sets ours beside it (:mod:`ordauc.report.compare`); then
    ``summary.md``. Metrics without any value are skipped and said so. A study that mixes
    binary and ordinal datasets gets each set of files per task (``table_<m>_<task>``, ...):
    solvers of one task do not apply to the other's datasets, so they are not runs of it.
    Any other registered section (:mod:`ordauc.report.sections`) adds its own files.
    Returns the paths written, with ``.summary`` the Markdown summary for the terminal and
    ``.document`` the report as objects (:func:`build_report`), which the page renders.
    """
    document = build_report(results, metrics, alpha, directory)
    return Report(write_texts(Path(out_dir), document.files()), document)


# ---------------------------------------------------------------------------------------------
# The sections of the four papers' reports


@report_section("metrics", order=10)
def _metrics_data(study: ReportStudy) -> list[tuple[str, str | None, Arranged]]:
    """Every metric asked for, over each task's datasets."""
    return [(name, task, part) for name in study.metrics for task, part in study.tasks()]


@_metrics_data.renderer
def _metrics_render(parts: list[tuple[str, str | None, Arranged]], study: ReportStudy) -> Part:
    items: list[Item] = []
    summary: list[str] = []
    for name, task, arranged in parts:
        found, lines = _metric_section(arranged, name, task, study.alpha)
        items += found
        summary += lines
    return Part(tuple(items), tuple(summary))


@report_section("cv_time", order=20, applies_to=lambda study: "cv_time_s" not in study.metrics
                and has_values(study.results, "cv_time_s"))
def _cv_time_data(study: ReportStudy) -> list[tuple[str | None, Arranged]]:
    return study.tasks()


@_cv_time_data.renderer
def _cv_time_render(parts: list[tuple[str | None, Arranged]], study: ReportStudy) -> Part:
    """The NPSVOR paper's Table V: the time of each problem's cross-validation, mean ± std
    over the repetitions (one search serves every selection metric of a row)."""
    items: list[Item] = []
    summary: list[str] = []
    for task, arranged in parts:
        if not has_values(arranged.rows, "cv_time_s"):
            continue
        stem = "table_cv_time_s" if task is None else f"table_cv_time_s_{task}"
        table = metric_table(arranged, "cv_time_s")
        items.append(Item(stem, "table", table, TABLE))
        fastest = ", ".join(table.best_average) or "none (no dataset where every run finished)"
        heading = "## CV time (s)" if task is None else f"## CV time (s), {task} datasets"
        summary += ["", heading, "",
                    f"- Time of the inner cross-validation of each problem ({stem}); fastest "
                    f"by average rank: {fastest}."]
    return Part(tuple(items), tuple(summary))


def _metric_section(arranged: Arranged, name: str, task: str | None, alpha: float
                    ) -> tuple[list[Item], list[str]]:
    """The items and summary lines of one metric (over one task's datasets when ``task``)."""
    display = METRICS[name].display
    heading = f"## {display}" if task is None else f"## {display}, {task} datasets"
    if not has_values(arranged.rows, name):
        return [], ["", heading, "", f"No finished run has {display}; skipped."]
    stem = name if task is None else f"{name}_{task}"
    table = metric_table(arranged, name)
    wdl = stats.win_draw_loss(table, alpha)
    fried = stats.friedman(table, alpha)
    items = [Item(f"table_{stem}", "table", table, TABLE), Item(f"wdl_{stem}", "wdl", wdl, WDL),
             Item(f"friedman_{stem}", "friedman", fried, FRIEDMAN)]
    return items, ["", heading, "", stats_render.summary_markdown(table, wdl, fried)]
