"""Renderers of a :class:`~ordauc.report.tables.MetricTable`: Markdown (best in ``**bold**``),
LaTeX (``\\textbf``) and CSV (long form, one row per cell, then the average ranks)."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pandas as pd

from ordauc.report.tables import DECIMALS, RANK_LABEL, MetricTable


def _number(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}" if x is not None and math.isfinite(x) else "–"


def cell_text(table: MetricTable, problem: str, method: str, decimals: int = DECIMALS,
              pm: str = "±") -> str:
    """``mean ± std`` of one cell (the mean alone for a single value, ``–`` for none)."""
    mean = float(table.mean.loc[problem, method])
    std = float(table.std.loc[problem, method])
    if not math.isfinite(mean):
        return "–"
    if not math.isfinite(std):
        return _number(mean, decimals)
    return f"{_number(mean, decimals)} {pm} {_number(std, decimals)}"


def _footnotes(table: MetricTable) -> list[str]:
    lines = []
    ranked, total = len(table.ranked_problems), len(table.datasets)
    if table.unranked_problems:
        lines.append(f"Average ranks over the {ranked} of {total} datasets where every run "
                     f"finished; left out: {', '.join(table.unranked_problems)}.")
    if len(table.problems) > total:
        lines.append("A dataset run at several sizes is ranked at its largest size where every "
                     "run finished.")
    if table.dropped:
        lines.append("Not in the table: " + "; ".join(table.dropped) + ".")
    return lines


def _caption(table: MetricTable) -> str:
    return (f"{table.metric.display} ({table.direction()}): mean ± std over repetitions, "
            f"best per dataset in bold, average ranks (1 = best, ties averaged) in the last row")


def md_escape(text: str) -> str:
    """Text safe in a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def to_markdown(table: MetricTable, decimals: int = DECIMALS) -> str:
    """The table in Markdown, the best cell of each row and the best average rank in bold."""
    head = ["Dataset", *table.methods]
    lines = [f"**{md_escape(table.metric.display)}** ({table.direction()}): mean ± std over "
             "repetitions; best per dataset in **bold**; notes say which runs did not finish.",
             "",
             "| " + " | ".join(md_escape(h) for h in head) + " |",
             "| --- |" + " ---: |" * len(table.methods)]
    for problem in table.problems:
        cells = [md_escape(problem)]
        for method in table.methods:
            text = cell_text(table, problem, method, decimals)
            if table.best.loc[problem, method]:
                text = f"**{text}**"
            note = table.notes.loc[problem, method]
            cells.append(f"{text} ({md_escape(note)})" if note else text)
        lines.append("| " + " | ".join(cells) + " |")
    best = set(table.best_average)
    ranks = [f"**{_number(r, 2)}**" if m in best else _number(r, 2)
             for m, r in table.average_ranks.items()]
    lines.append(f"| {RANK_LABEL} | " + " | ".join(ranks) + " |")
    notes = _footnotes(table)
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


CSV_COLUMNS = ("dataset", "method", "mean", "std", "n_runs", "n_ok", "n_values", "best", "rank",
               "note")


def to_frame(table: MetricTable) -> pd.DataFrame:
    """One row per (dataset, method) with the numbers of the table, then one ``Average rank``
    row per method (``rank`` holds the average rank)."""
    records = []
    for problem in table.problems:
        for method in table.methods:
            rank = (table.ranks.loc[problem, method] if problem in table.ranks.index
                    else np.nan)
            records.append({
                "dataset": problem, "method": method,
                "mean": table.mean.loc[problem, method], "std": table.std.loc[problem, method],
                "n_runs": int(table.n_runs.loc[problem, method]),
                "n_ok": int(table.n_ok.loc[problem, method]),
                "n_values": int(table.n_values.loc[problem, method]),
                "best": bool(table.best.loc[problem, method]), "rank": rank,
                "note": table.notes.loc[problem, method]})
    best = set(table.best_average)
    for method, rank in table.average_ranks.items():
        records.append({"dataset": RANK_LABEL, "method": method, "mean": np.nan, "std": np.nan,
                        "n_runs": int(table.n_runs[method].sum()),
                        "n_ok": int(table.n_ok[method].sum()),
                        "n_values": int(table.n_values[method].sum()), "best": method in best,
                        "rank": rank, "note": f"over {len(table.ranked_problems)} datasets"})
    return pd.DataFrame.from_records(records, columns=list(CSV_COLUMNS))


def frame_csv(frame: pd.DataFrame) -> str:
    """A data frame as CSV text (no index, full float precision)."""
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    return buffer.getvalue()


def to_csv(table: MetricTable) -> str:
    """The table as a long CSV (see :func:`to_frame`)."""
    return frame_csv(to_frame(table))


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}", "±": r"$\pm$", "–": "--", "²": r"$^2$",
                "χ": r"$\chi$", "√": r"$\surd$", "α": r"$\alpha$", "−": "$-$"}


def tex_escape(text: str) -> str:
    """Text safe in a LaTeX document."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in str(text))


def to_latex(table: MetricTable, decimals: int = DECIMALS) -> str:
    """The table as a LaTeX ``tabular`` (no package needed), best cells in ``\\textbf``."""
    k = len(table.methods)
    lines = [f"% {tex_escape(_caption(table))}",
             f"\\begin{{tabular}}{{l{'c' * k}}}", r"\hline",
             " & ".join(["Dataset", *(tex_escape(m) for m in table.methods)]) + r" \\",
             r"\hline"]
    for problem in table.problems:
        cells = [tex_escape(problem)]
        for method in table.methods:
            text = tex_escape(cell_text(table, problem, method, decimals))
            if table.best.loc[problem, method]:
                text = f"\\textbf{{{text}}}"
            note = table.notes.loc[problem, method]
            cells.append(f"{text} {{\\scriptsize ({tex_escape(note)})}}" if note else text)
        lines.append(" & ".join(cells) + r" \\")
    best = set(table.best_average)
    ranks = [f"\\textbf{{{_number(r, 2)}}}" if m in best else _number(r, 2)
             for m, r in table.average_ranks.items()]
    lines += [r"\hline", " & ".join([RANK_LABEL, *ranks]) + r" \\", r"\hline"]
    for note in _footnotes(table):
        lines.append(f"\\multicolumn{{{k + 1}}}{{l}}{{\\footnotesize {tex_escape(note)}}} \\\\")
    lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"
