"""Metrics against a swept parameter (the NPSVOR paper's Fig. 3: MZE and MAE against eps; Fig. 4:
against the ADMM tolerances eps_abs x eps_rel).

A config's ``sweep:`` runs one solver entry once per value (or combination of values) of
parameters that are not tuned, as labels ``<label>.<param>=<value>`` (:mod:`ordauc.config`); the
results folder's copy of the config says which labels came from which entry. Per dataset and
swept entry, the mean and standard deviation over the repetitions of each metric at each value:
a line per metric against one swept parameter, a heat map per metric over two.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.metrics import METRICS
from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, save_figure
from ordauc.report.palette import Palette
from ordauc.results.frame import by_selection, study_config
from ordauc.results.schema import OK

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Sweep:
    """One dataset's metrics over one swept solver entry: ``table`` has a row per (metric,
    value of each swept parameter) with ``mean``, ``std`` and ``n`` over the repetitions."""

    dataset: str
    entry: str
    params: tuple[str, ...]
    table: pd.DataFrame
    labels: tuple[str, ...] = ()  # the solver labels run for the entry


def study_sweeps(directory: Path) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    """The swept entries of the study a results folder serves: entry label -> (swept
    parameters, the labels run for it); empty without a readable config copy."""
    config = study_config(Path(directory))
    if config is None:
        return {}
    out: dict[str, tuple[tuple[str, ...], list[str]]] = {}
    for spec in config.solvers:
        if spec.sweep_of is not None:
            out.setdefault(spec.sweep_of, (spec.swept, []))[1].append(spec.label)
    return out


def sweep_data(results: pd.DataFrame, directory: Path, metrics: tuple[str, ...]
               ) -> list[Sweep]:
    """Per dataset and swept entry, the metrics' mean and std at each swept value."""
    out = []
    for entry, (params, labels) in study_sweeps(directory).items():
        columns = [f"p_{p}" for p in params]
        if not all(c in results.columns for c in columns):
            continue
        mine = results[results["solver"].isin(labels) & (results["status"] == OK)]
        for dataset, rows in mine.groupby("dataset", sort=False):
            parts = []
            for metric in metrics:
                if metric not in rows.columns:
                    continue
                chosen = by_selection(rows, metric)
                values = pd.to_numeric(chosen[metric], errors="coerce")
                keys = chosen[columns].apply(pd.to_numeric, errors="coerce")
                frame = keys.assign(value=values).dropna()
                if frame.empty:
                    continue
                stats = frame.groupby(columns)["value"].agg(["mean", "std", "count"])
                parts.append(stats.reset_index().rename(columns={"count": "n"})
                             .assign(metric=metric))
            if parts:
                out.append(Sweep(str(dataset), entry, params,
                                 pd.concat(parts, ignore_index=True), tuple(labels)))
    return out


def _line(ax: Axes, sweep: Sweep, metric: str, colour: str) -> None:
    column = f"p_{sweep.params[0]}"
    rows = sweep.table[sweep.table["metric"] == metric].sort_values(column)
    x = rows[column].to_numpy(dtype=np.float64)
    mean = rows["mean"].to_numpy(dtype=np.float64)
    std = np.nan_to_num(rows["std"].to_numpy(dtype=np.float64))
    ax.plot(x, mean, marker="o", markersize=4, linewidth=1.6, color=colour)
    ax.fill_between(x, mean - std, mean + std, color=colour, alpha=0.12, linewidth=0)
    if (x > 0).all() and x.max() >= 100 * x.min():
        ax.set_xscale("log")
    ax.set_xlabel(sweep.params[0])
    ax.set_ylabel(METRICS[metric].display)


def _heat(fig: Figure, ax: Axes, sweep: Sweep, metric: str) -> None:
    rows_p, cols_p = (f"p_{p}" for p in sweep.params)
    grid = (sweep.table[sweep.table["metric"] == metric]
            .pivot_table(index=rows_p, columns=cols_p, values="mean"))
    image = ax.imshow(grid.to_numpy(dtype=np.float64), origin="lower", aspect="auto",
                      cmap="viridis_r" if METRICS[metric].lower_is_better else "viridis")
    ax.set_xticks(range(grid.shape[1]), [f"{v:g}" for v in grid.columns], rotation=45,
                  fontsize=7)
    ax.set_yticks(range(grid.shape[0]), [f"{v:g}" for v in grid.index], fontsize=7)
    ax.set_xlabel(sweep.params[1])
    ax.set_ylabel(sweep.params[0])
    ax.grid(False)
    fig.colorbar(image, ax=ax, label=METRICS[metric].display)


def sweep_figure(sweep: Sweep, colour: str = "#d62728") -> Figure:
    """A panel per metric: a line in ``colour`` (one swept parameter) or a heat map (two)."""
    metrics = list(pd.unique(sweep.table["metric"]))
    fig = new_figure(4.6 * len(metrics) + 0.4, 3.9)
    axes = fig.subplots(1, len(metrics), squeeze=False).ravel()
    for ax, metric in zip(axes, metrics, strict=True):
        if len(sweep.params) == 1:
            _line(ax, sweep, metric, colour)
        else:
            _heat(fig, ax, sweep, metric)
        ax.set_title(METRICS[metric].display)
    n = int(sweep.table["n"].max())
    fig.suptitle(f"{sweep.dataset}: {sweep.entry} against {' x '.join(sweep.params)} "
                 f"(mean over {n} runs)")
    return fig


def write_sweeps(sweeps: list[Sweep], out_dir: Path, stems: dict[str, str],
                 palette: Palette | None = None) -> list[Path]:
    """Draw and save ``sweep_<entry>_<dataset stem>`` per sweep, a line in the colour of the
    entry's solver (every label of a sweep has its base solver's colour); the paths written."""
    written: list[Path] = []
    for sweep in sweeps:
        if len(sweep.params) > 2:  # no figure in more than two dimensions
            continue
        stem = f"sweep_{sweep.entry}_{stems.get(sweep.dataset, sweep.dataset)}"
        # the base solver's colour (a large sweep's later labels are lighter shades of it)
        style = palette.style(sweep.labels[0]) if palette and sweep.labels else None
        colour = (style.family or style.colour) if style is not None else "#d62728"
        written += save_figure(sweep_figure(sweep, colour), out_dir, stem)
    return written


@figure_family("sweeps", order=60)
def _sweeps_data(study: PlotStudy) -> list[Sweep]:
    return sweep_data(study.results, study.directory, study.metrics)


@_sweeps_data.drawer
def _draw_sweeps(sweeps: list[Sweep], study: PlotStudy, out: Path) -> list[Path]:
    return write_sweeps(sweeps, out, study.stems, study.palette)
