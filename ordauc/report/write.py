"""Writing a report: every table and statistic of each metric, as Markdown, CSV and LaTeX.

Every file is written under a temporary name and then renamed, so a file on disk is complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ordauc.errors import UserError
from ordauc.metrics import METRICS
from ordauc.report.table_render import frame_csv, to_csv, to_latex, to_markdown
from ordauc.report.tables import (
    DECIMALS,
    OK,
    Arranged,
    MetricTable,
    _failure_text,
    arrange,
    has_values,
    metric_of,
    metric_table,
)

# ---------------------------------------------------------------------------------------------
# Files


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file renamed into place."""
    from ordauc.experiment.results import write_atomically

    write_atomically(Path(path), text.encode("utf-8"))
    return Path(path)


def prepare_folder(out_dir: Path, what: str = "tables", hint: str = "a writable folder"
                   ) -> bool:
    """Create the output folder for ``what`` (tables, figures); True when it did not exist
    before. A :class:`UserError` names the folder when it is a file or cannot be created."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"output {str(out_dir)!r} is a file; pass a folder for the {what}")
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the {what} folder {str(out_dir)!r} "
                        f"({exc.strerror or exc}); pass {hint}") from None
    return created


def write_texts(out_dir: Path, texts: dict[str, str]) -> list[Path]:
    """Write each ``{file name: text}`` atomically into ``out_dir``; the written paths."""
    out_dir = Path(out_dir)
    prepare_folder(out_dir)
    try:
        return [write_atomic(out_dir / name, text) for name, text in texts.items()]
    except OSError as exc:
        raise UserError(f"cannot write tables to {str(out_dir)!r} ({exc.strerror or exc}); "
                        "pass a writable folder") from None


def write_table(table: MetricTable, out_dir: Path, stem: str | None = None,
                decimals: int = DECIMALS) -> list[Path]:
    """Write ``<stem>.md``, ``.csv`` and ``.tex`` (stem ``table_<metric>``); the paths."""
    stem = stem or f"table_{table.metric.name}"
    return write_texts(out_dir, {f"{stem}.md": to_markdown(table, decimals),
                                 f"{stem}.csv": to_csv(table),
                                 f"{stem}.tex": to_latex(table, decimals)})


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
            f"{_failure_text(failed['status'])} (see the tables' notes).")


def write_report(results: pd.DataFrame, out_dir: Path,
                 metrics: Iterable[str] = ("mze", "mae"), alpha: float = 0.05) -> Report:
    """Write the NPSVOR paper's tables and statistics for each metric into ``out_dir``.

    Per metric ``table_<m>`` (Tables II/III), ``wdl_<m>`` (Table IV: Wilcoxon wins/draws/losses,
    with every test in ``wdl_<m>_tests.csv``) and ``friedman_<m>`` (Friedman test, average
    ranks, Nemenyi critical difference and Wilcoxon-Holm post-hoc), each as ``.md``, ``.csv``
    and ``.tex``; where a paper's published table shares datasets and solvers with the results,
    ``published_<table>[_<variant>]`` sets ours beside it (:mod:`ordauc.report.compare`); then
    ``summary.md``. Metrics without any value are skipped and said so.
    Returns the paths written, with ``.summary`` the Markdown summary for the terminal.
    """
    from ordauc.report import compare_render, stats, stats_render
    from ordauc.report.compare import compare_published

    names = list(metrics)
    for name in names:
        metric_of(name)
    arranged = arrange(results)
    texts: dict[str, str] = {}
    summary = [f"# Report over {len(arranged.problems)} datasets and "
               f"{len(arranged.methods)} methods", "", _failures_line(arranged)]
    for name in names:
        display = METRICS[name].display
        if not has_values(arranged.rows, name):
            summary += ["", f"## {display}", "", f"No finished run has {display}; skipped."]
            continue
        table = metric_table(arranged, name)
        wdl = stats.win_draw_loss(table, alpha)
        fried = stats.friedman(table, alpha)
        texts |= {f"table_{name}.md": to_markdown(table), f"table_{name}.csv": to_csv(table),
                  f"table_{name}.tex": to_latex(table),
                  f"wdl_{name}.md": stats_render.wdl_markdown(wdl),
                  f"wdl_{name}.csv": stats_render.wdl_csv(wdl),
                  f"wdl_{name}.tex": stats_render.wdl_latex(wdl),
                  f"wdl_{name}_tests.csv": frame_csv(wdl.tests),
                  f"friedman_{name}.md": stats_render.friedman_markdown(fried),
                  f"friedman_{name}.csv": stats_render.friedman_csv(fried),
                  f"friedman_{name}.tex": stats_render.friedman_latex(fried)}
        summary += ["", f"## {display}", "", stats_render.summary_markdown(table, wdl, fried)]
    for comparison in compare_published(results):
        texts |= compare_render.files(comparison)
        summary += ["", f"## {comparison.heading}", "",
                    compare_render.to_markdown(comparison, heading=False).rstrip()]
    text = "\n".join(summary).rstrip() + "\n"
    texts["summary.md"] = text
    return Report(write_texts(Path(out_dir), texts), text)
