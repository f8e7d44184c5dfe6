"""Renderers of a :class:`~ordauc.report.compare.Comparison`: the published table's layout
(datasets x the paper's solvers) with three rows per dataset, ours, the paper's, and the
difference in units of the paper's standard deviation (beyond one std in bold), as Markdown,
LaTeX and a long CSV."""

from __future__ import annotations

import math

import pandas as pd

from ordauc.metrics import METRICS
from ordauc.report.compare import Comparison
from ordauc.report.document import Item, Part, Renderer
from ordauc.report.load import display_name
from ordauc.report.sections import ReportStudy, report_section
from ordauc.report.table_render import frame_csv, md_escape, tex_escape

DECIMALS = 4  # as the AUC-DCD paper prints its AUCs
OURS, PAPER, DIFF = "ours", "paper", "Δ / paper std"


def _number(x: float, decimals: int = DECIMALS) -> str:
    return f"{x:.{decimals}f}" if math.isfinite(x) else "–"


def _ours(row: pd.Series) -> tuple[str, str]:
    """(mean ± std, note) of our cell."""
    if not row["label"] or row["n_runs"] == 0:
        return "not run", ""
    if row["n_ok"] == 0:
        return "–", f"0/{row['n_runs']} ok"
    text = (_number(row["mean"]) if not math.isfinite(row["std"])
            else f"{_number(row['mean'])} ± {_number(row['std'])}")
    note = f"{row['n_ok']}/{row['n_runs']} ok" if row["n_ok"] < row["n_runs"] else ""
    return text, note


def _paper(row: pd.Series) -> str:
    if not math.isfinite(row["paper_mean"]):
        return "not in the paper"
    return f"{_number(row['paper_mean'])} ± {_number(row['paper_std'])}"


def _diff(row: pd.Series) -> tuple[str, str, bool]:
    """(signed difference in paper stds, no note, beyond one std)."""
    if not math.isfinite(row["diff_sd"]):
        return "–", "", False
    return f"{row['diff_sd']:+.2f}", "", not row["within_sd"]


def _runs_text(comparison: Comparison) -> str:
    counts = sorted({int(n) for n in comparison.frame["n_runs"] if n > 0})
    if not counts:
        return "no runs"
    ours = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"ours over {ours} runs per cell, the paper's over {comparison.published.n_runs}"


def caption(comparison: Comparison) -> str:
    """One paragraph: what the table shows and how many cells are within the paper's std."""
    within, compared = comparison.counts()
    metric = METRICS[comparison.published.metric].display
    return (f"{metric}, mean ± std ({_runs_text(comparison)}); "
            f"Δ = (ours - paper) / paper's std, beyond one std in bold; {within} of {compared} "
            f"cells within the paper's std.")


def _footnotes(comparison: Comparison) -> list[str]:
    lines = [f"Spread: {comparison.published.std_note}."]
    notes = comparison.frame[comparison.frame["paper_note"] != ""]
    for _, row in notes.iterrows():
        lines.append(f"{row['dataset']}, {display_name(row['solver'])}: "
                     f"{row['paper_note']}.")
    if comparison.not_run:
        lines.append("In the paper, not run here: " + ", ".join(comparison.not_run) + ".")
    return lines


def _rows(comparison: Comparison) -> list[tuple[str, str, list[tuple[str, str, bool]]]]:
    """(dataset, row name, cells of (text, note, bold)) in table order."""
    out = []
    for dataset, group in comparison.frame.groupby("dataset", sort=False):
        cells = [r for _, r in group.iterrows()]
        out.append((str(dataset), OURS, [(*_ours(r), False) for r in cells]))
        out.append(("", PAPER, [(_paper(r), "", False) for r in cells]))
        out.append(("", DIFF, [_diff(r) for r in cells]))
    return out


def to_markdown(comparison: Comparison, heading: bool = True) -> str:
    """The comparison as a Markdown table, with its heading (in bold, unless ``heading`` is
    False), caption and footnotes."""
    solvers = comparison.published.solvers
    lines = [*([f"**{md_escape(comparison.heading)}**", ""] if heading else []),
             md_escape(caption(comparison)), "",
             "| Dataset | | " + " | ".join(md_escape(display_name(s))
                                           for s in solvers) + " |",
             "| --- | --- |" + " ---: |" * len(solvers)]
    for dataset, name, cells in _rows(comparison):
        texts = []
        for text, note, bold in cells:
            text = f"**{text}**" if bold else text
            texts.append(f"{text} ({md_escape(note)})" if note else text)
        lines.append(f"| {md_escape(dataset)} | {name} | " + " | ".join(texts) + " |")
    return "\n".join(lines + [""] + _footnotes(comparison)) + "\n"


def to_latex(comparison: Comparison) -> str:
    """The comparison as a LaTeX ``tabular`` (no package needed)."""
    solvers = comparison.published.solvers
    k = len(solvers)
    lines = [f"% {tex_escape(comparison.heading)}: {tex_escape(caption(comparison))}",
             f"\\begin{{tabular}}{{ll{'c' * k}}}",
             r"\hline",
             " & ".join(["Dataset", "", *(tex_escape(display_name(s))
                                          for s in solvers)]) + r" \\", r"\hline"]
    for dataset, name, cells in _rows(comparison):
        texts = []
        for text, note, bold in cells:
            text = tex_escape(text)
            text = f"\\textbf{{{text}}}" if bold else text
            texts.append(f"{text} {{\\scriptsize ({tex_escape(note)})}}" if note else text)
        if dataset and lines[-1] != r"\hline":
            lines.append(r"\hline")
        lines.append(" & ".join([tex_escape(dataset), tex_escape(name), *texts]) + r" \\")
    lines.append(r"\hline")
    for note in _footnotes(comparison):
        lines.append(f"\\multicolumn{{{k + 2}}}{{l}}{{\\footnotesize {tex_escape(note)}}} \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"


def to_frame(comparison: Comparison) -> pd.DataFrame:
    """One row per (dataset, solver): the table, variant and tuning, then the compared values."""
    head = {"paper": comparison.published.paper, "table": comparison.published.key,
            "metric": comparison.published.metric, "variant": comparison.variant,
            "tuning": comparison.tuning}
    return pd.concat([pd.DataFrame([head] * len(comparison.frame)),
                      comparison.frame.reset_index(drop=True)], axis=1)


def to_csv(comparison: Comparison) -> str:
    """The comparison as a long CSV (see :func:`to_frame`)."""
    return frame_csv(to_frame(comparison))


def files(comparison: Comparison) -> dict[str, str]:
    """``{file name: text}`` of the comparison: ``<key>.md``, ``.csv`` and ``.tex``."""
    return {f"{comparison.key}.md": to_markdown(comparison),
            f"{comparison.key}.csv": to_csv(comparison),
            f"{comparison.key}.tex": to_latex(comparison)}


# The published values beside ours: a section of every report whose results share datasets
# and solvers with a paper's published table.
PUBLISHED = Renderer(files=lambda comparison, _stem: files(comparison), markdown=to_markdown)


@report_section("published", order=30)
def _published_data(study: ReportStudy) -> list[Comparison]:
    from ordauc.report.compare import compare_published

    return compare_published(study.results)


@_published_data.renderer
def _published_render(comparisons: list[Comparison], study: ReportStudy) -> Part:
    summary: list[str] = []
    for comparison in comparisons:
        summary += ["", f"## {comparison.heading}", "",
                    to_markdown(comparison, heading=False).rstrip()]
    return Part(tuple(Item(c.key, "published", c, PUBLISHED) for c in comparisons),
                tuple(summary))
