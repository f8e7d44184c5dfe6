"""Figures of a results folder: AUC boxplots per dataset and training time against n_unlabeled.

They follow the papers' figures: QSG-S2AUC Fig. 1 / QS3ORAO Fig. 2 (AUC over trials, one panel
per dataset) and QSG-S2AUC Fig. 2 / QS3ORAO Fig. 1 (training time as the unlabeled set grows,
lines stopping where a method ran out of memory or time). matplotlib is imported inside the
functions so the command line starts fast; figures are drawn and written by
:mod:`ordauc.report.files`. Every solver of the results is drawn, whether the registry knows
it or not (one it cannot describe is drawn under its label, in a colour of its own).

:func:`plot_results` draws every registered figure family
(:mod:`ordauc.report.figure_families`): the boxplots and time curves registered here, the
other families of the four papers in their own modules, and any a paper's folder registers.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.metrics import METRICS
from ordauc.report import (  # noqa: F401  (each module registers its figure families on import)
    cd,
    convergence,
    cv_time,
    regions,
    size_boxes,
    sweeps,
    tuning_curves,
)
from ordauc.report.figdata import AucPanel, TimeCurves, auc_panel, datasets, time_curves
from ordauc.report.figure_families import PlotStudy, families, figure_family
from ordauc.report.files import new_figure, prepare_folder, save_figure, staged
from ordauc.report.load import (
    display_name,
    has_values,
    infer_task,
    study_metrics,
    tuned_metrics,
)
from ordauc.report.palette import Palette, study_palette
from ordauc.report.size_boxes import wanted as size_boxes_wanted
from ordauc.report.sweeps import study_sweeps
from ordauc.report.tables import metric_of
from ordauc.results.frame import load_results

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FIGURES_DIR = "figures"

_RC = {
    "font.size": 10, "axes.titlesize": 10.5, "axes.labelsize": 10, "xtick.labelsize": 9,
    "ytick.labelsize": 9, "legend.fontsize": 8.5, "axes.grid": True, "grid.alpha": 0.35,
    "grid.linestyle": ":", "axes.spines.top": False, "axes.spines.right": False,
    "pdf.fonttype": 42,
}


def _size(n: int) -> str:
    """Compact sample size for axis ticks: 500, 2k, 1.5k, 100k."""
    if n < 1000:
        return str(n)
    return f"{n / 1000:g}k"


def _on(eval_set: str | None) -> str:
    return f" on {eval_set} data" if eval_set else ""


def draw_auc_panel(ax: Axes, panel: AucPanel, palette: Palette, title: str) -> None:
    """Boxplot of AUC (or the panel's metric) over seeds per solver, seeds as dots in the
    solver's marker; an empty slot says why (failures, or a solver that predicts labels only)."""
    from matplotlib.colors import to_rgba
    from matplotlib.transforms import blended_transform_factory

    positions = np.arange(1, len(panel.solvers) + 1)
    filled = [(p, s) for p, s in zip(positions, panel.solvers, strict=True) if panel.values[s].size]
    if filled:
        parts = ax.boxplot([panel.values[s] for _, s in filled], positions=[p for p, _ in filled],
                           widths=0.55, patch_artist=True, showfliers=False,
                           medianprops={"color": "black", "linewidth": 1.6})
        for i, (_, solver) in enumerate(filled):
            style = palette.style(solver)
            parts["boxes"][i].set(facecolor=to_rgba(style.colour, 0.35), edgecolor=style.colour,
                                  linewidth=1.3, hatch=style.hatch, linestyle=style.dash)
            for line in parts["whiskers"][2 * i:2 * i + 2] + parts["caps"][2 * i:2 * i + 2]:
                line.set(color=style.colour, linewidth=1.3)
    for position, solver in zip(positions, panel.solvers, strict=True):
        v = panel.values[solver]
        style = palette.style(solver)
        if v.size:
            jitter = np.linspace(-0.13, 0.13, v.size) if v.size > 1 else np.zeros(1)
            ax.scatter(position + jitter, v, s=12, color=style.colour, marker=style.marker,
                       alpha=0.8, linewidths=0, zorder=3)
        else:
            axes_y = blended_transform_factory(ax.transData, ax.transAxes)
            ax.text(position, 0.5, panel.empty_note(solver), transform=axes_y, rotation=90,
                    ha="center", va="center", color="0.45", fontsize=8)
    labels = [display_name(s, panel.names) + (f"\n({panel.notes[s]})" if s in panel.notes else "")
              for s in panel.solvers]
    ax.set_xticks(positions, labels, rotation=30 if len(positions) > 3 else 0,
                  ha="right" if len(positions) > 3 else "center")
    ax.set_xlim(0.4, len(positions) + 0.6)
    ax.grid(False, axis="x")
    ax.set_ylabel(panel.metric_label)
    ax.set_title(title)


def draw_time_curves(ax: Axes, curves: TimeCurves, palette: Palette) -> None:
    """Mean training time (or the curves' value) with a min-max band against the size the
    study varies; an x where a solver's line stops."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator
    from matplotlib.transforms import blended_transform_factory

    table = curves.table
    handles: list[Line2D] = []
    for solver in curves.solvers:
        mine = table[table["solver"] == solver].sort_values(curves.axis)
        if mine.empty:
            continue
        style, drawn = palette.style(solver), mine["drawn"].to_numpy(dtype=bool)
        x = mine[curves.axis].to_numpy(dtype=np.float64)
        (line,) = ax.plot(x, np.where(drawn, mine["mean"], np.nan), markersize=4,
                          linewidth=1.8, label=display_name(solver, curves.names), **style.line())
        ax.fill_between(x, np.where(drawn, mine["min"], np.nan),
                        np.where(drawn, mine["max"], np.nan), color=style.colour, alpha=0.18,
                        linewidth=0)
        handles.append(line)
    # Sizes that did not finish are marked in a strip ABOVE the axes, outside the time scale,
    # so a skipped or timed-out point can never be read as a measured time.
    top = blended_transform_factory(ax.transData, ax.transAxes)
    stacked: dict[int, int] = {}
    for mark in curves.marks:
        level = stacked[mark.size] = stacked.get(mark.size, -1) + 1
        ax.plot([mark.size], [1.05 + 0.06 * level], transform=top, marker="x",
                markersize=8, markeredgewidth=2.2, linestyle="none",
                color=palette.colour(mark.solver), clip_on=False)
    if stacked:
        ax.text(0.0, 1.05, "not finished ", transform=ax.transAxes, ha="right", va="center",
                fontsize=8, color="0.35", clip_on=False)
    for mark in curves.first_failures().values():
        handles.append(Line2D([], [], marker="x", markersize=7, markeredgewidth=2,
                              linestyle="none", color=palette.colour(mark.solver),
                              label=mark.note()))

    sizes = np.sort(table[curves.axis].unique()) if len(table) else np.array([])
    if sizes.size and sizes[0] > 0 and sizes[-1] / sizes[0] >= 10:
        ax.set_xscale("log")
    if sizes.size and sizes.size <= 8:
        ax.set_xticks(sizes, [_size(int(n)) for n in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
    times = table.loc[table["drawn"].astype(bool), ["min", "mean"]].to_numpy(dtype=np.float64)
    timed = curves.value == "fit_time_s"
    if timed and (times > 0).any():
        ax.set_yscale("log")
    elif not np.isfinite(times).any():
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no finished run", transform=ax.transAxes, ha="center", color="0.45")
    what = "training time" if timed else METRICS[curves.value].display
    ax.set_xlabel("number of unlabeled samples" if curves.axis == "n_unlabeled"
                  else "number of training samples")
    ax.set_ylabel("training time (s)" if timed else what)
    title = f"{curves.dataset}: {what}" + (f" (n_labeled = {curves.n_labeled})"
                                           if curves.n_labeled is not None else "")
    ax.set_title(title, pad=8 + 14 * (max(stacked.values()) + 1) if stacked else 6)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def _metric_curves(curves: list[TimeCurves], palette: Palette) -> Figure:
    """One panel per metric against the training-set size, side by side."""
    fig = new_figure(5.4 * len(curves) + 2.2, 4.0)
    axes = fig.subplots(1, len(curves), squeeze=False).ravel()
    for i, (ax, curve) in enumerate(zip(axes, curves, strict=True)):
        draw_time_curves(ax, curve, palette)
        if i < len(curves) - 1:
            ax.get_legend().remove()
    return fig


def _own_metric(results: pd.DataFrame, dataset: str, metric: str, tuned: tuple[str, ...]
                ) -> bool:
    """Whether ``dataset`` gets a boxplot of ``metric``: some run has it, and the study
    selects by it, or it is the study's default ordinal metric on an ordinal dataset (MZE and
    MAE of an untuned binary study are only its error rate twice)."""
    rows = results[results["dataset"] == dataset]
    return has_values(rows, metric) and (metric in tuned or infer_task(rows) == "ordinal")


def varies(curves: TimeCurves) -> bool:
    """Whether the curves' size takes more than one value: a study run at one size (a
    supervised study: n_unlabeled = 0 throughout) has no curve against it."""
    return len(curves.table) > 0 and curves.table[curves.axis].nunique() > 1


def _auc_title(panel: AucPanel, *, with_dataset: bool = True) -> str:
    head = f"{panel.dataset}: " if with_dataset else ""
    return (f"{head}{panel.metric_label}{_on(panel.eval_set)}\n"
            f"n_labeled = {panel.n_labeled}, n_unlabeled = {panel.n_unlabeled}")


def _auc_all(panels: list[AucPanel], palette: Palette) -> Figure:
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    widest = max(len(p.solvers) for p in panels)
    fig = new_figure(max(3.0, 0.75 * widest + 1.2) * ncols, 3.7 * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, panel in zip(axes[:len(panels)], panels, strict=True):
        draw_auc_panel(ax, panel, palette,
                       f"{panel.dataset}\nn_l = {panel.n_labeled}, n_u = {panel.n_unlabeled}")
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    eval_sets = {p.eval_set for p in panels}
    if len(eval_sets) == 1:
        fig.suptitle(f"AUC{_on(eval_sets.pop())} over seeds")
    return fig


def _stems(names: list[str]) -> dict[str, str]:
    """File-name-safe stem per dataset, unique and never ``all`` (the combined figure)."""
    used, stems = {"all"}, {}
    for name in names:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "dataset"
        stem, i = base, 1
        while stem in used:
            i += 1
            stem = f"{base}-{i}"
        used.add(stem)
        stems[name] = stem
    return stems


def _noted(fig: Figure, quick: bool) -> Figure:
    """The figure with a footnote saying it comes from the quick profile's rows."""
    if quick:
        fig.text(0.995, 0.005, "(quick profile)", ha="right", va="bottom", fontsize=8,
                 color="#555555")
    return fig


def plot_results(directory: str | Path, out: str | Path | None = None,
                 n_labeled: int | None = None, n_unlabeled: int | None = None,
                 complete: bool = False, metrics: tuple[str, ...] | None = None) -> list[Path]:
    """Draw every figure of a results folder; return the written files.

    Every registered figure family (:mod:`ordauc.report.figure_families`) that applies to the
    study draws its figures, in the families' order. The four papers' families: per dataset
    ``auc_<dataset>`` (boxplot at ``n_labeled``/``n_unlabeled``, by default the most common
    n_labeled and the largest n_unlabeled, see :func:`auc_panel` for ``complete``; where some
    solver has an AUC), ``<metric>_<dataset>`` for the study's own other metrics
    (:func:`_own_metric`) and ``time_<dataset>`` (only where the study varies a size,
    :func:`varies`); ``auc_all`` puts the AUC boxplots side by side; critical-difference
    diagrams of ``metrics`` (default: the study's own, :func:`study_metrics`;
    :mod:`ordauc.report.cd`); per swept config entry ``sweep_<entry>_<dataset>``
    (:mod:`ordauc.report.sweeps`, the NPSVOR paper's Figs. 3-4), whose labels are left out of
    the other figures; per two-feature dataset ``regions_<dataset>``, each solver's decision
    regions refitted for the first repetition (:mod:`ordauc.report.regions`, the NPSVOR
    paper's Fig. 2); for a study of training-set size with repeated draws,
    ``boxes_<metric>_<dataset>`` (:mod:`ordauc.report.size_boxes`, Fig. 8); with curves.csv,
    ``convergence_<dataset>`` (:mod:`ordauc.report.convergence`); with tuning_scores.csv,
    ``tuning_<dataset>``, the score against a one-parameter grid
    (:mod:`ordauc.report.tuning_curves`, the AUC-DCD paper's Figure 1); the cross-validation
    time bars (:mod:`ordauc.report.cv_time`). Every figure draws a solver label in its style
    of the study's palette (:mod:`ordauc.report.palette`). Every family's data is computed
    (and checked) before the output folder is touched, and the figures are moved into it only
    once all of them are written (:func:`ordauc.report.files.staged`): a failure leaves the
    folder's previous figures, never part of a new set beside them.
    """
    import matplotlib

    study = plot_study(Path(directory), n_labeled, n_unlabeled, complete, metrics)
    drawn = [(family, family.data(study)) for family in families() if family.applies_to(study)]
    out_dir = Path(out) if out is not None else Path(directory) / FIGURES_DIR
    created = prepare_folder(out_dir, "figures", "a writable --out folder")
    written: list[Path] = []
    try:
        # all figures or none: a failure midway (a full disk) leaves the folder as it was
        with staged(out_dir, "figures") as stage, matplotlib.rc_context(_RC):
            for family, data in drawn:
                assert family.draw is not None  # families() checked it
                written += family.draw(data, study, stage)
    except OSError as exc:
        raise UserError(f"cannot write figures to {str(out_dir)!r} ({exc.strerror or exc}); "
                        "pass a writable --out folder") from None
    finally:
        if created and not any(out_dir.iterdir()):
            out_dir.rmdir()
    return [out_dir / path.name for path in written]


def plot_study(directory: Path, n_labeled: int | None = None, n_unlabeled: int | None = None,
               complete: bool = False, metrics: tuple[str, ...] | None = None) -> PlotStudy:
    """What the figure families read of the results folder ``directory`` (its table checked,
    the metrics asked for known)."""
    results = load_results(directory)
    metrics = metrics or study_metrics(directory, results)
    for name in metrics:
        metric_of(name)
    swept = study_sweeps(directory)
    plain = results[~results["solver"].isin([s for _, labels in swept.values() for s in labels])]
    return PlotStudy(
        directory=directory, results=results, plain=plain,
        shown=datasets(plain) if len(plain) else [], metrics=metrics,
        tuned=tuned_metrics(directory), stems=_stems(datasets(results)),
        palette=study_palette(results),  # every label of the study, sweeps included
        quick="profile" in results and bool((results["profile"] == "quick").any()),
        n_labeled=n_labeled, n_unlabeled=n_unlabeled, complete=complete, swept=swept)


# ---------------------------------------------------------------------------------------------
# The families drawn here: boxplots per dataset and of all datasets, time against a size


@figure_family("auc", order=10)
def _auc_data(study: PlotStudy) -> list[AucPanel]:
    return study.auc_panels


@figure_family("metric_boxes", order=20)
def _boxes_data(study: PlotStudy) -> list[AucPanel]:
    """Boxplots of the study's other metrics (a study of training-set size draws them by
    size instead: :mod:`ordauc.report.size_boxes`)."""
    plain = study.plain
    return [auc_panel(plain, d, study.n_labeled, study.n_unlabeled, study.complete, metric=m)
            for m in study.metrics if m != "auc" and m in METRICS for d in study.shown
            if _own_metric(plain, d, m, study.tuned) and not size_boxes_wanted(plain, d)]


@_auc_data.drawer
@_boxes_data.drawer
def _draw_panels(panels: list[AucPanel], study: PlotStudy, out: Path) -> list[Path]:
    written: list[Path] = []
    for panel in panels:
        fig = new_figure(max(4.2, 0.9 * len(panel.solvers) + 1.6), 3.9)
        draw_auc_panel(fig.add_subplot(), panel, study.palette, _auc_title(panel))
        written += save_figure(_noted(fig, study.quick), out,
                               f"{panel.metric}_{study.stems[panel.dataset]}")
    return written


@figure_family("time", order=30)
def _time_data(study: PlotStudy) -> list[tuple[TimeCurves, list[TimeCurves]]]:
    """Time against a size only where the study varies it; a study of training-set size
    (NPSVOR Fig. 7) also gets its metrics against that size."""
    plain = study.plain
    curves = [c for c in (time_curves(plain, d, study.n_labeled) for d in study.shown)
              if varies(c)]
    return [(c, [time_curves(plain, c.dataset, study.n_labeled, m) for m in study.metrics
                 if has_values(plain[plain["dataset"] == c.dataset], m)]
             if c.axis == "n_labeled" else []) for c in curves]


@_time_data.drawer
def _draw_time(curves: list[tuple[TimeCurves, list[TimeCurves]]], study: PlotStudy, out: Path
               ) -> list[Path]:
    written: list[Path] = []
    for curve, by_size in curves:
        fig = new_figure(7.6, 4.0)
        draw_time_curves(fig.add_subplot(), curve, study.palette)
        written += save_figure(_noted(fig, study.quick), out, f"time_{study.stems[curve.dataset]}")
        if by_size:
            written += save_figure(_noted(_metric_curves(by_size, study.palette), study.quick),
                                   out, f"metrics_{study.stems[curve.dataset]}")
    return written


@figure_family("auc_all", order=40, applies_to=lambda study: bool(study.auc_panels))
def _auc_all_data(study: PlotStudy) -> list[AucPanel]:
    return study.auc_panels


@_auc_all_data.drawer
def _draw_auc_all(panels: list[AucPanel], study: PlotStudy, out: Path) -> list[Path]:
    return save_figure(_noted(_auc_all(panels, study.palette), study.quick), out, "auc_all")
