"""Writing a report: every table and statistic of each metric, as Markdown, CSV and LaTeX.

Every file is written whole (:func:`ordauc.report.files.write_texts`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ordauc.metrics import METRICS
from ordauc.report import compare_render, stats, stats_render
from ordauc.report.files import write_texts
from ordauc.report.load import has_values, task_groups
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


class Report(list):
    """The files :func:`write_report` wrote (a list of paths) and its terminal ``summary``."""

    def __init__(self, paths: Iterable[Path], summary: str) -> None:
        super().__init__(paths)
        self.summary = summary


def _failures_line(arranged: Arranged) -> str:
    rows = arranged.rows
    failed = rows[rows["status"] != OK]
    if failed.empty:
        return f"All {len(rows)} runs finished."
    return (f"{len(rows) - len(failed)} of {len(rows)} runs finished; "
            f"{failure_counts(failed['status'])} (see the tables' notes).")


def write_report(results: pd.DataFrame, out_dir: Path,
                 metrics: Iterable[str] = ("mze", "mae"), alpha: float = 0.05) -> Report:
    """Write the NPSVOR paper's tables and statistics for each metric into ``out_dir``.

    Per metric ``table_<m>`` (Tables II/III), ``wdl_<m>`` (Table IV: Wilcoxon wins/draws/losses,
    with every test in ``wdl_<m>_tests.csv``) and ``friedman_<m>`` (Friedman test, average
    ranks, Nemenyi critical difference and Wilcoxon-Holm post-hoc), each as ``.md``, ``.csv``
    and ``.tex``; where a paper's published table shares datasets and solvers with the results,
    ``published_<table>[_<variant>]`` sets ours beside it (:mod:`ordauc.report.compare`); then
    ``summary.md``. Metrics without any value are skipped and said so. A study that mixes
    binary and ordinal datasets gets each set of files per task (``table_<m>_<task>``, ...):
    solvers of one task do not apply to the other's datasets, so they are not runs of it.
    Returns the paths written, with ``.summary`` the Markdown summary for the terminal.
    """
    from ordauc.report.compare import compare_published

    names = list(metrics)
    for name in names:
        metric_of(name)
    arranged = arrange(results)
    texts: dict[str, str] = {}
    summary = [f"# Report over {len(arranged.datasets)} datasets and "
               f"{len(arranged.methods)} methods", "", _failures_line(arranged)]
    groups = task_groups(results)
    for name in names:
        for task, rows in groups:
            part = arranged if task is None else arrange(rows)
            texts, summary = _metric_section(part, name, task, alpha, texts, summary)
    if "cv_time_s" not in names and has_values(results, "cv_time_s"):
        for task, rows in groups:
            part = arranged if task is None else arrange(rows)
            texts, summary = _cv_time_section(part, task, texts, summary)
    for comparison in compare_published(results):
        texts |= compare_render.files(comparison)
        summary += ["", f"## {comparison.heading}", "",
                    compare_render.to_markdown(comparison, heading=False).rstrip()]
    text = "\n".join(summary).rstrip() + "\n"
    texts["summary.md"] = text
    return Report(write_texts(Path(out_dir), texts), text)


def _cv_time_section(arranged: Arranged, task: str | None, texts: dict[str, str],
                     summary: list[str]) -> tuple[dict[str, str], list[str]]:
    """The NPSVOR paper's Table V: the time of each problem's cross-validation, mean ± std
    over the repetitions (one search serves every selection metric of a row)."""
    if not has_values(arranged.rows, "cv_time_s"):
        return texts, summary
    stem = "table_cv_time_s" if task is None else f"table_cv_time_s_{task}"
    table = metric_table(arranged, "cv_time_s")
    texts = texts | table_texts(table, stem)
    fastest = ", ".join(table.best_average) or "none (no dataset where every run finished)"
    heading = "## CV time (s)" if task is None else f"## CV time (s), {task} datasets"
    return texts, [*summary, "", heading, "",
                   f"- Time of the inner cross-validation of each problem ({stem}); fastest "
                   f"by average rank: {fastest}."]


def _metric_section(arranged: Arranged, name: str, task: str | None, alpha: float,
                    texts: dict[str, str], summary: list[str]
                    ) -> tuple[dict[str, str], list[str]]:
    """The files and summary lines of one metric (over one task's datasets when ``task``)."""
    display = METRICS[name].display
    heading = f"## {display}" if task is None else f"## {display}, {task} datasets"
    if not has_values(arranged.rows, name):
        return texts, [*summary, "", heading, "", f"No finished run has {display}; skipped."]
    stem = name if task is None else f"{name}_{task}"
    table = metric_table(arranged, name)
    wdl = stats.win_draw_loss(table, alpha)
    fried = stats.friedman(table, alpha)
    texts = texts | table_texts(table, f"table_{stem}") | {
        f"wdl_{stem}.md": stats_render.wdl_markdown(wdl),
        f"wdl_{stem}.csv": stats_render.wdl_csv(wdl),
        f"wdl_{stem}.tex": stats_render.wdl_latex(wdl),
        f"wdl_{stem}_tests.csv": frame_csv(wdl.tests),
        f"friedman_{stem}.md": stats_render.friedman_markdown(fried),
        f"friedman_{stem}.csv": stats_render.friedman_csv(fried),
        f"friedman_{stem}.tex": stats_render.friedman_latex(fried)}
    return texts, [*summary, "", heading, "",
                   stats_render.summary_markdown(table, wdl, fried)]
