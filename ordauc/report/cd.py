"""Critical-difference diagrams (Demšar 2006, Fig. 1; the NPSVOR paper's Fig. 5).

The methods sit on an axis of average ranks (1 = best, on the left); groups of methods that a
post-hoc test cannot tell apart are joined by thick bars, and the Nemenyi critical difference is
drawn above the axis when given. The drawing is ``scikit_posthocs.critical_difference_diagram``
on an Axes of a figure of :mod:`ordauc.report.files`, which also writes the files.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ordauc.errors import UserError
from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, prepare_folder, save_figure

if TYPE_CHECKING:
    from ordauc.report.palette import Palette

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


def draw_cd(ranks: Mapping[str, float] | pd.Series,
            cliques_or_pvalues: pd.DataFrame | Iterable[Iterable[str]],
            path_stem: str | Path, *, cd: float | None = None, alpha: float = 0.05,
            title: str | None = None, colours: Mapping[str, str] | None = None) -> list[Path]:
    """Draw a critical-difference diagram to ``<path_stem>.png`` and ``.pdf``; the paths.

    ``ranks`` maps each method to its average rank; ``cliques_or_pvalues`` is the post-hoc
    p-value matrix (pairs with p < ``alpha`` differ) or the groups of methods that do not
    differ. ``cd`` adds the critical-difference bar (Nemenyi). ``colours`` maps each method to
    its colour (its solver's in the study's palette): names, elbows and rank markers are
    drawn in it, so a method keeps the colour it has in the other figures whatever its rank
    (methods without one are black).
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
    prepare_folder(stem.parent, "figures")
    with matplotlib.rc_context(_RC):
        fig = new_figure(7.0, 2.0, constrained=False)
        ax = fig.add_subplot()
        artists = sp.critical_difference_diagram(
            series, matrix, ax=ax, alpha=alpha,
            label_fmt_left="{label} ({rank:.2f})", label_fmt_right="({rank:.2f}) {label}",
            elbow_props={"linewidth": 1.2}, crossbar_props={"linewidth": 3},
            text_h_margin=0.03 * max(k - 1, 1),
            color_palette={m: (colours or {}).get(m, "black") for m in series.index})
        margin = 0.05 * max(k - 1, 1)
        ax.set_xlim(1 - margin, k + margin)
        ax.set_xticks(range(1, k + 1))
        low = ax.get_ylim()[0]
        high = 1.0
        if cd is not None and cd == cd:
            # The CD bar above the rank axis, clear of its tick labels, from rank 1 as in
            # Demšar's figures. A CD longer than the axis (few datasets) is cut at rank k
            # with an arrow and said in words: no two average ranks can be that far apart.
            end = min(1.0 + cd, float(k))
            ax.plot([1.0, end], [1.6, 1.6], color="k", linewidth=1.5, clip_on=False)
            ax.plot([1.0], [1.6], color="k", marker="|", markersize=8, clip_on=False)
            ax.plot([end], [1.6], color="k", markersize=8, clip_on=False,
                    marker="|" if end == 1.0 + cd else ">")
            text = f"CD = {cd:.2f}" + ("" if end == 1.0 + cd else
                                       f" > {k - 1}: no two methods can differ")
            ax.text((1.0 + end) / 2, 1.85, text, ha="center", va="bottom")
            high = 2.6
        ax.set_ylim(low, high)
        fig.set_size_inches(7.0, max(1.6, 0.24 * (high - low) + 0.6))
        if title:
            ax.set_title(title)
        if not artists["crossbars"]:
            ax.text(0.5, -0.02, "every pair differs significantly", transform=ax.transAxes,
                    ha="center", va="top", color="0.45", fontsize=8)
        try:
            return save_figure(fig, stem.parent, stem.name, tight=True)
        except OSError as exc:
            raise UserError(f"cannot write {str(stem)!r} ({exc.strerror or exc}); "
                            "pass a writable folder") from None


def draw_cd_diagrams(results: pd.DataFrame, out_dir: Path,
                     metrics: Iterable[str] = ("mze", "mae"), alpha: float = 0.05,
                     suffix: str | None = None, palette: Palette | None = None) -> list[Path]:
    """Per metric, ``cd_<metric>_nemenyi`` (with the CD bar) and ``cd_<metric>_wilcoxon_holm``
    in ``out_dir`` (``cd_<metric>_<suffix>_...`` with a suffix, e.g. a task); metrics without
    values or without a dataset where every run finished are skipped. Methods are coloured by
    ``palette`` (by default the palette of ``results``' own solvers). The paths written."""
    from ordauc.report import stats
    from ordauc.report.load import display_name, has_values
    from ordauc.report.palette import study_palette
    from ordauc.report.tables import arrange, metric_of, metric_table
    from ordauc.results.frame import solver_names

    asked = list(metrics)
    for name in asked:
        metric_of(name)
    names = [name for name in asked if has_values(results, name)]
    if not names:  # checked before arranging: a study without these metrics has no diagram
        return []
    arranged = arrange(results)
    palette = palette if palette is not None else study_palette(results)
    labels = solver_names(results)
    # the diagrams name methods as the tables do (display names): colour each by its label
    colours = {display_name(label, labels): palette.colour(label) for label in labels}
    written: list[Path] = []
    for name in names:
        stem = name if suffix is None else f"{name}_{suffix}"
        table = metric_table(arranged, name)
        result = stats.friedman(table, alpha)
        if result.n == 0:
            continue
        friedman = (f", Friedman p = {result.p_value:.3g}"
                    if result.p_value == result.p_value else "")
        what = "datasets" if suffix is None else f"{suffix} datasets"
        head = f"{table.metric.display}: N = {result.n} {what}{friedman}"
        if result.nemenyi is not None:
            written += draw_cd(result.average_ranks, result.nemenyi.pvalues,
                               Path(out_dir) / f"cd_{stem}_nemenyi", cd=result.nemenyi.cd,
                               alpha=alpha, colours=colours,
                               title=f"{head}; Nemenyi CD = {result.nemenyi.cd:.2f}")
        if result.wilcoxon_holm is not None:
            written += draw_cd(result.average_ranks, result.wilcoxon_holm.pvalues,
                               Path(out_dir) / f"cd_{stem}_wilcoxon_holm", alpha=alpha,
                               colours=colours, title=f"{head}; Wilcoxon-Holm")
    return written


@figure_family("cd", order=50, applies_to=lambda study: bool(study.shown))
def _cd_data(study: PlotStudy) -> list[tuple[str | None, pd.DataFrame]]:
    """Each task's rows where three or more solvers finished on two or more datasets: a
    comparison study, whose diagrams are the NPSVOR paper's statistics (the metrics no
    finished run has are skipped: labels are not predicted by every study)."""
    from ordauc.report.load import OK, task_groups

    kept = []
    for task, rows in task_groups(study.plain):
        ok = rows[rows["status"] == OK]
        if ok["dataset"].nunique() >= 2 and ok["solver"].nunique() >= 3:
            kept.append((task, rows))
    return kept


@_cd_data.drawer
def _draw_cd(groups: list[tuple[str | None, pd.DataFrame]], study: PlotStudy, out: Path
             ) -> list[Path]:
    """A study of binary and ordinal datasets gets each task's diagrams
    (``cd_<metric>_<task>_...``)."""
    written: list[Path] = []
    for task, rows in groups:
        written += draw_cd_diagrams(rows, out, study.metrics, suffix=task, palette=study.palette)
    return written
