"""Critical-difference diagrams (Demšar 2006, Fig. 1; the NPSVOR paper's Fig. 5).

The methods sit on an axis of average ranks (1 = best, on the left); groups of methods that a
post-hoc test cannot tell apart are joined by thick bars, and the Nemenyi critical difference is
drawn above the axis when given. The drawing is ``scikit_posthocs.critical_difference_diagram``
on an Axes of an Agg-canvas Figure (no pyplot figure state); each file is written under a
temporary name and then renamed, so a figure on disk is always complete.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ordauc.errors import UserError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "pdf")
DPI = 150
_RC = {"font.size": 10, "axes.titlesize": 10.5, "figure.titlesize": 10.5, "pdf.fonttype": 42,
       "axes.grid": False}


def significance_input(ranks: pd.Series,
                       cliques_or_pvalues: pd.DataFrame | Iterable[Iterable[str]]
                       ) -> pd.DataFrame:
    """The square p-value matrix over the ranked methods that the diagram reads.

    Given a p-value matrix (e.g. :attr:`ordauc.report.stats.PostHoc.pvalues`), its rows and
    columns for the ranked methods; given groups of methods that do not differ, a matrix with
    p = 1 inside a group and p = 0 (a significant difference) elsewhere.
    """
    names = [str(m) for m in ranks.index]
    if isinstance(cliques_or_pvalues, pd.DataFrame):
        missing = [m for m in names if m not in cliques_or_pvalues.index
                   or m not in cliques_or_pvalues.columns]
        if missing:
            raise UserError(f"the p-value matrix has no row or column for {', '.join(missing)}")
        return cliques_or_pvalues.loc[names, names].astype(float)
    matrix = pd.DataFrame(0.0, index=names, columns=names)
    for group in cliques_or_pvalues:
        members = [str(m) for m in group]
        unknown = [m for m in members if m not in matrix.index]
        if unknown:
            raise UserError(f"group member(s) {', '.join(unknown)} have no average rank")
        for a, b in itertools.combinations(members, 2):
            matrix.loc[a, b] = matrix.loc[b, a] = 1.0
    for m in names:
        matrix.loc[m, m] = 1.0
    return matrix


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, stem: Path) -> list[Path]:
    paths = []
    for ext in FORMATS:
        final = stem.with_name(f"{stem.name}.{ext}")
        part = stem.with_name(f".{stem.name}.{ext}.part")
        try:
            fig.savefig(part, format=ext, dpi=DPI, bbox_inches="tight", pad_inches=0.1)
            os.replace(part, final)
        finally:
            part.unlink(missing_ok=True)
        paths.append(final)
    return paths


def draw_cd(ranks: Mapping[str, float] | pd.Series,
            cliques_or_pvalues: pd.DataFrame | Iterable[Iterable[str]],
            path_stem: str | Path, *, cd: float | None = None, alpha: float = 0.05,
            title: str | None = None) -> list[Path]:
    """Draw a critical-difference diagram to ``<path_stem>.png`` and ``.pdf``; the paths.

    ``ranks`` maps each method to its average rank; ``cliques_or_pvalues`` is the post-hoc
    p-value matrix (pairs with p < ``alpha`` differ) or the groups of methods that do not
    differ. ``cd`` adds the critical-difference bar (Nemenyi).
    """
    import matplotlib
    import scikit_posthocs as sp

    series = pd.Series(dict(ranks) if not isinstance(ranks, pd.Series) else ranks, dtype=float)
    series.index = [str(m) for m in series.index]
    if series.empty or not series.notna().all():
        raise UserError("a critical-difference diagram needs a finite average rank per method")
    matrix = significance_input(series, cliques_or_pvalues)
    stem = Path(path_stem)
    k = len(series)
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the folder {str(stem.parent)!r} "
                        f"({exc.strerror or exc}); pass a writable folder") from None
    with matplotlib.rc_context(_RC):
        fig = _figure(7.0, 2.0)
        ax = fig.add_subplot()
        artists = sp.critical_difference_diagram(
            series, matrix, ax=ax, alpha=alpha,
            label_fmt_left="{label} ({rank:.2f})", label_fmt_right="({rank:.2f}) {label}",
            elbow_props={"linewidth": 1.2}, crossbar_props={"linewidth": 3},
            text_h_margin=0.03 * max(k - 1, 1))
        ax.set_xlim(1 - 0.05 * max(k - 1, 1), k + 0.05 * max(k - 1, 1))
        ax.set_xticks(range(1, k + 1))
        low = ax.get_ylim()[0]
        high = 1.0
        if cd is not None and cd == cd:
            # The CD bar above the rank axis, clear of its tick labels, from the best rank.
            start = float(series.min())
            ax.plot([start, start + cd], [1.6, 1.6], color="k", linewidth=1.5,
                    marker="|", markersize=8, clip_on=False)
            ax.text(start + cd / 2, 1.85, f"CD = {cd:.2f}", ha="center", va="bottom")
            high = 2.6
        ax.set_ylim(low, high)
        fig.set_size_inches(7.0, max(1.6, 0.24 * (high - low) + 0.6))
        if title:
            ax.set_title(title)
        if not artists["crossbars"]:
            ax.text(0.5, -0.02, "every pair differs significantly", transform=ax.transAxes,
                    ha="center", va="top", color="0.45", fontsize=8)
        try:
            return _save(fig, stem)
        except OSError as exc:
            raise UserError(f"cannot write {str(stem)!r} ({exc.strerror or exc}); "
                            "pass a writable folder") from None


def draw_cd_diagrams(results: pd.DataFrame, out_dir: Path,
                     metrics: Iterable[str] = ("mze", "mae"), alpha: float = 0.05) -> list[Path]:
    """Per metric, ``cd_<metric>_nemenyi`` (with the CD bar) and ``cd_<metric>_wilcoxon_holm``
    in ``out_dir``; metrics without values or without a dataset where every run finished are
    skipped. The paths written."""
    from ordauc.report import stats
    from ordauc.report.tables import arrange, has_values, metric_of, metric_table

    names = list(metrics)
    for name in names:
        metric_of(name)
    arranged = arrange(results)
    written: list[Path] = []
    for name in names:
        if not has_values(arranged.rows, name):
            continue
        table = metric_table(arranged, name)
        result = stats.friedman(table, alpha)
        if result.n == 0:
            continue
        friedman = (f", Friedman p = {result.p_value:.3g}"
                    if result.p_value == result.p_value else "")
        head = f"{table.metric.display}: N = {result.n} datasets{friedman}"
        if result.nemenyi is not None:
            written += draw_cd(result.average_ranks, result.nemenyi.pvalues,
                               Path(out_dir) / f"cd_{name}_nemenyi", cd=result.nemenyi.cd,
                               alpha=alpha,
                               title=f"{head}; Nemenyi CD = {result.nemenyi.cd:.2f}")
        if result.wilcoxon_holm is not None:
            written += draw_cd(result.average_ranks, result.wilcoxon_holm.pvalues,
                               Path(out_dir) / f"cd_{name}_wilcoxon_holm", alpha=alpha,
                               title=f"{head}; Wilcoxon-Holm")
    return written
