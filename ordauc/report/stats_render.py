"""Renderers of the statistics of :mod:`ordauc.report.stats`: the win/draw/loss table (the
NPSVOR paper's Table IV) and the Friedman test with its post-hoc tests, as Markdown, CSV and
LaTeX, and the terminal summary of one metric."""

from __future__ import annotations

import itertools
import math

import pandas as pd

from ordauc.report.stats import FriedmanResult, PostHoc, WinDrawLoss
from ordauc.report.table_render import frame_csv, md_escape, tex_escape
from ordauc.report.tables import MetricTable

# ---------------------------------------------------------------------------------------------
# Rendering


def _rank(r: float) -> str:
    return f"{r:.3f}" if math.isfinite(r) else "–"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "–"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


def _wdl_head(wdl: WinDrawLoss) -> str:
    head = ("exact Wilcoxon signed-rank test per dataset over the repetitions "
            f"(two-sided p < {wdl.alpha:g}), {len(wdl.problems)} datasets, "
            f"{len(wdl.methods)} methods; each cell is wins/draws/losses of the row method "
            "against the column method; ordered by wins minus losses")
    if wdl.undecidable.to_numpy().any():
        head += ("; *Undecidable draws* are draws between 5 or fewer paired repetitions, "
                 "which can never reach p < 0.05: no evidence of a tie")
    return head


def _wdl_rows(wdl: WinDrawLoss) -> tuple[list[str], list[list[str]]]:
    totals = wdl.totals
    order = list(totals.index)
    extra = bool(totals["not_compared"].any())
    weak = bool(totals["undecidable"].any())
    head = ["Method", *order, "Wins", "Draws", "Losses", *(["Not compared"] if extra else []),
            *(["Undecidable draws"] if weak else []), "Wins − losses"]
    body = []
    for a in order:
        row = [a, *("–" if a == b else wdl.cell(a, b) for b in order)]
        t = totals.loc[a]
        row += [str(t["wins"]), str(t["draws"]), str(t["losses"])]
        row += [str(t["not_compared"])] if extra else []
        row += [str(t["undecidable"])] if weak else []
        row.append(str(t["wins_minus_losses"]))
        body.append(row)
    return head, body


def wdl_markdown(wdl: WinDrawLoss) -> str:
    """The win/draw/loss table (the paper's Table IV) in Markdown."""
    head, body = _wdl_rows(wdl)
    lines = [f"**{md_escape(wdl.metric.display)}**: {_wdl_head(wdl)}.",
             "", "| " + " | ".join(md_escape(h) for h in head) + " |",
             "| --- |" + " :---: |" * (len(head) - 1)]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def wdl_csv(wdl: WinDrawLoss) -> str:
    """One row per (method, opponent) with wins, draws, losses, not_compared and undecidable
    (draws that could not have been anything else), then one row per method against ``all``
    (the totals)."""
    records = [{"method": a, "opponent": b, "wins": int(wdl.wins.loc[a, b]),
                "draws": int(wdl.draws.loc[a, b]), "losses": int(wdl.losses.loc[a, b]),
                "not_compared": int(wdl.not_compared.loc[a, b]),
                "undecidable": int(wdl.undecidable.loc[a, b])}
               for a in wdl.methods for b in wdl.methods if a != b]
    totals = wdl.totals
    records += [{"method": a, "opponent": "all", **{c: int(totals.loc[a, c]) for c in
                 ("wins", "draws", "losses", "not_compared", "undecidable")}}
                for a in totals.index]
    return frame_csv(pd.DataFrame.from_records(
        records, columns=["method", "opponent", "wins", "draws", "losses", "not_compared",
                          "undecidable"]))


def wdl_latex(wdl: WinDrawLoss) -> str:
    """The win/draw/loss table as a LaTeX ``tabular``."""
    head, body = _wdl_rows(wdl)
    lines = [f"% {tex_escape(wdl.metric.display)}: {tex_escape(_wdl_head(wdl))}",
             f"\\begin{{tabular}}{{l{'c' * (len(head) - 1)}}}",
             r"\hline", " & ".join(tex_escape(h) for h in head) + r" \\", r"\hline"]
    lines += [" & ".join(tex_escape(c) for c in row) + r" \\" for row in body]
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _groups_text(post: PostHoc) -> str:
    if not post.groups:
        return "every pair differs significantly"
    return "; ".join("{" + ", ".join(g) + "}" for g in post.groups)


def _friedman_lines(result: FriedmanResult) -> list[str]:
    display = result.metric.display
    lines = []
    if math.isfinite(result.statistic):
        verdict = ("the methods differ" if result.rejected
                   else "no difference between the methods is found")
        lines.append(f"Friedman test of {display} over N = {result.n} datasets and k = "
                     f"{result.k} methods: χ²_F = {result.statistic:.3f}, p = "
                     f"{_p(result.p_value)}: {verdict} at α = {result.alpha:g}.")
    else:
        lines.append(f"Friedman test of {display}: not computed ({result.note}).")
    if result.left_out:
        lines.append(f"Left out (not every run finished): {', '.join(result.left_out)}.")
    if result.nemenyi is not None:
        nem = result.nemenyi
        lines.append(f"Nemenyi: q_{result.alpha:g} = {nem.q_alpha:.3f} (studentised range "
                     f"quantile / √2, Demšar 2006 Table 5a), CD = q √(k(k+1)/(6N)) = "
                     f"{nem.cd:.3f}; not significantly different: {_groups_text(nem)}.")
    if result.wilcoxon_holm is not None:
        lines.append("Wilcoxon-Holm (pairwise Wilcoxon signed-rank over the datasets' means, "
                     "Holm-adjusted p): not significantly different: "
                     f"{_groups_text(result.wilcoxon_holm)}.")
    if math.isfinite(result.statistic) and not result.rejected:
        lines.append("The Friedman test does not reject equivalence, so the post-hoc groups "
                     "are for information only.")
    return lines


def _order(result: FriedmanResult) -> list[str]:
    return list(result.average_ranks.sort_values(kind="stable").index)


def friedman_markdown(result: FriedmanResult) -> str:
    """Friedman test, average ranks, Nemenyi CD and the Holm-adjusted p-values in Markdown."""
    lines = [f"**{md_escape(result.metric.display)}**: Friedman test and post-hoc tests", ""]
    lines += _friedman_lines(result)
    order = _order(result)
    lines += ["", "| Method | Average rank |", "| --- | ---: |"]
    lines += [f"| {md_escape(m)} | {_rank(result.average_ranks[m])} |" for m in order]
    for post in (result.nemenyi, result.wilcoxon_holm):
        if post is None:
            continue
        lines += ["", f"{post.name} p-values (significant, p < {post.alpha:g}, in bold):", "",
                  "| | " + " | ".join(md_escape(m) for m in order) + " |",
                  "| --- |" + " ---: |" * len(order)]
        for a in order:
            cells = ["–" if a == b else (f"**{_p(post.pvalues.loc[a, b])}**"
                                         if post.significant.loc[a, b]
                                         else _p(post.pvalues.loc[a, b])) for b in order]
            lines.append(f"| {md_escape(a)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def friedman_frame(result: FriedmanResult) -> pd.DataFrame:
    """All numbers of :func:`friedman` in long form: ``test``, ``quantity``, ``method``,
    ``other``, ``value``, ``p_value``, ``significant``."""
    rows = [{"test": "friedman", "quantity": "chi2", "value": result.statistic,
             "p_value": result.p_value,
             "significant": result.rejected if math.isfinite(result.p_value) else None},
            {"test": "friedman", "quantity": "n_datasets", "value": result.n},
            {"test": "friedman", "quantity": "k_methods", "value": result.k}]
    rows += [{"test": "friedman", "quantity": "average_rank", "method": m,
              "value": result.average_ranks[m]} for m in _order(result)]
    for post, key in ((result.nemenyi, "nemenyi"), (result.wilcoxon_holm, "wilcoxon_holm")):
        if post is None:
            continue
        if post.cd is not None:
            rows += [{"test": key, "quantity": "q_alpha", "value": post.q_alpha},
                     {"test": key, "quantity": "critical_difference", "value": post.cd}]
        for a, b in itertools.combinations(result.methods, 2):
            diff = abs(result.average_ranks[a] - result.average_ranks[b])
            rows.append({"test": key, "quantity": "pair", "method": a, "other": b,
                         "value": diff, "p_value": post.pvalues.loc[a, b],
                         "significant": bool(post.significant.loc[a, b])})
    return pd.DataFrame.from_records(rows, columns=["test", "quantity", "method", "other",
                                                    "value", "p_value", "significant"])


def friedman_csv(result: FriedmanResult) -> str:
    """:func:`friedman_frame` as CSV (a pair's ``value`` is its average-rank difference)."""
    return frame_csv(friedman_frame(result))


def friedman_latex(result: FriedmanResult) -> str:
    """Average ranks and the post-hoc p-values as a LaTeX ``tabular``."""
    order = _order(result)
    posts = [p for p in (result.nemenyi, result.wilcoxon_holm) if p is not None]
    lines = [f"% {tex_escape(line)}" for line in _friedman_lines(result)]
    columns = ["Method", "Average rank", *((tex_escape(m) for m in order) if posts else ())]
    lines += [f"\\begin{{tabular}}{{l{'c' * (len(columns) - 1)}}}", r"\hline",
              " & ".join(columns) + r" \\", r"\hline"]
    for post in posts:
        lines.append(f"\\multicolumn{{{len(order) + 2}}}{{l}}{{{tex_escape(post.name)} "
                     f"p-values (bold: p $<$ {post.alpha:g})}} \\\\")
        for a in order:
            cells = [tex_escape(a), tex_escape(_rank(result.average_ranks[a]))]
            for b in order:
                text = "--" if a == b else _p(post.pvalues.loc[a, b])
                cells.append(f"\\textbf{{{text}}}" if a != b and post.significant.loc[a, b]
                             else text)
            lines.append(" & ".join(cells) + r" \\")
        lines.append(r"\hline")
    if not posts:
        lines += [f"{tex_escape(a)} & {tex_escape(_rank(result.average_ranks[a]))} \\\\"
                  for a in order]
        lines.append(r"\hline")
    lines.append(r"\end{tabular}")
    return "\n".join(lines) + "\n"


def summary_markdown(table: MetricTable, wdl: WinDrawLoss, result: FriedmanResult) -> str:
    """A few lines for the terminal: average ranks, Friedman, post-hoc groups, wins/losses."""
    ranks = ", ".join(f"{m} {result.average_ranks[m]:.2f}" for m in _order(result)
                      if math.isfinite(result.average_ranks[m]))
    lines = [f"Average ranks over {result.n} of {len(table.datasets)} datasets "
             f"(1 = best): {ranks or 'none (no dataset where every run finished)'}."]
    lines += _friedman_lines(result)
    totals = wdl.totals
    lines.append("Wilcoxon per dataset, wins/draws/losses against all others: "
                 + ", ".join(f"{m} {t['wins']}/{t['draws']}/{t['losses']}"
                             for m, t in totals.iterrows()) + ".")
    incomplete = int((~table.complete).to_numpy().sum())
    if incomplete:
        lines.append(f"{incomplete} table cell(s) have runs that did not finish (see the notes).")
    return "\n".join(f"- {line}" for line in lines)
