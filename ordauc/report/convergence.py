"""The convergence figure of iterative solvers (AUC-DCD Figure 2), from curves.csv.

Per dataset one figure: 1 - AUC on the evaluation rows against the iterations (left) and, where
the solvers record their objective, the relative objective (P(w) - P*) / P* (right, log scale),
one line per solver, the mean over the runs; how P* was taken is written under the panel. The
numbers come from :mod:`ordauc.report.curvedata`. Each solver is drawn in its style of the
study's palette (:mod:`ordauc.report.palette`): the colour of its base solver, and a marker and
line style of its own, so that a solver and its slower configuration (``qs3orao_slow``) are two
lines of one colour family.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.report.curvedata import (
    LOG_SCALE,
    QUANTITIES,
    RATE,
    RELATIVE_OBJECTIVE,
    Convergence,
    convergence,
    curve_datasets,
    read_curves,
)
from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, save_figure
from ordauc.report.load import display_name
from ordauc.report.palette import Palette, solver_palette

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_MARKS_PER_LINE = 10


def convergence_data(directory: str | Path, results: pd.DataFrame) -> list[Convergence]:
    """The convergence curves of every dataset with curves in ``directory`` ([] without)."""
    curves = read_curves(directory)
    if curves is None:
        return []
    return [convergence(curves, results, d) for d in curve_datasets(curves, results)]


def line_styles(conv: Convergence, palette: Palette | None = None
                ) -> dict[str, dict[str, str]]:
    """Colour, marker and line style per solver of ``conv``: the study's ``palette`` (by
    default the palette of the curves' own solvers)."""
    palette = palette if palette is not None else solver_palette(conv.solvers, conv.names)
    return {s: palette.style(s).line() for s in conv.solvers}


def draw_quantity(ax: Axes, conv: Convergence, quantity: str,
                  styles: dict[str, dict[str, str]]) -> None:
    """One panel: the mean of ``quantity`` against the iterations, a line per solver."""
    relative = quantity == RELATIVE_OBJECTIVE
    logged = quantity in LOG_SCALE
    drawn = []
    for solver in conv.solvers:
        line = conv.curve(solver, quantity)
        if line.empty:
            continue
        y = line["mean"].to_numpy(dtype=np.float64)
        if logged:  # a log axis cannot show the point that is P* itself (or a zero residual)
            y = np.where(y > 0, y, np.nan)
        ax.plot(line["iteration"].to_numpy(dtype=np.float64), y, linewidth=1.6,
                markersize=4, markevery=max(1, len(line) // _MARKS_PER_LINE),
                label=display_name(solver, conv.names), **styles[solver])
        drawn.append(y)
    if logged and any(np.isfinite(y).any() for y in drawn):
        ax.set_yscale("log")
    if quantity == RATE and drawn:  # a rate reads as a slope on log-log axes
        ax.set_xscale("log")
        _one_over_t(ax, conv, quantity)
    ax.set_xlabel("iterations" + ("" if quantity in LOG_SCALE[1:] else " (pair updates)"))
    ax.set_ylabel(QUANTITIES[quantity])
    ax.set_title(f"{conv.dataset}: {QUANTITIES[quantity]}")
    if relative:
        ax.text(0.0, -0.22, conv.reference, transform=ax.transAxes, fontsize=7.5,
                color="0.3", va="top", wrap=True)


def _one_over_t(ax: Axes, conv: Convergence, quantity: str) -> None:
    """A grey C/t guide through the first solver's value at the middle of its curve: the rate
    the QSG papers' Theorem 1 states, against which the curves' slopes are read."""
    line = conv.curve(conv.solvers[0], quantity)
    line = line[line["mean"] > 0]
    if len(line) < 2:
        return
    t = line["iteration"].to_numpy(dtype=np.float64)
    mid = len(t) // 2
    c = float(line["mean"].iloc[mid]) * t[mid]
    ax.plot(t, c / t, color="0.55", linewidth=1.0, linestyle=":", label="C/t (Theorem 1)")


def convergence_figure(conv: Convergence, palette: Palette | None = None) -> Figure:
    """The figure of one dataset: a panel per quantity, the legend beside the last."""
    fig = new_figure(4.6 * len(conv.quantities) + 1.6, 4.0)
    axes = fig.subplots(1, len(conv.quantities), squeeze=False).ravel()
    styles = line_styles(conv, palette)
    for ax, quantity in zip(axes, conv.quantities, strict=True):
        draw_quantity(ax, conv, quantity, styles)
    axes[-1].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle(f"Convergence on {conv.dataset}: mean over {conv.n_runs} runs, "
                 f"iterations 1..{conv.last}")
    return fig


def write_convergence(convs: list[Convergence], out_dir: Path, stems: dict[str, str],
                      palette: Palette | None = None) -> list[Path]:
    """Draw and save ``convergence_<stem>`` per dataset into ``out_dir``, ``stems`` giving each
    dataset's file-name stem; the paths written."""
    written: list[Path] = []
    for conv in convs:
        if not conv.quantities:  # nothing drawable was recorded for this dataset
            continue
        written += save_figure(convergence_figure(conv, palette), out_dir,
                               f"convergence_{stems[conv.dataset]}")
    return written


@figure_family("convergence", order=90)
def _convergence_data(study: PlotStudy) -> list[Convergence]:
    return convergence_data(study.directory, study.results)


@_convergence_data.drawer
def _draw_convergence(convs: list[Convergence], study: PlotStudy, out: Path) -> list[Path]:
    return write_convergence(convs, out, study.stems, study.palette)
