"""A metric's boxplots grouped by training-set size (the NPSVOR paper's Fig. 8: MAE on MovieLens
for 100 to 400 training movies, 20 draws each).

For a study that varies ``n_labeled`` and repeats each size several times: per size a group of
boxes, one per method, of the metric over the repetitions (each method's own selection, where
a study selects by several metrics). A size where some of a method's runs did not finish keeps
an empty slot and is named under the axes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ordauc.metrics import METRICS
from ordauc.report.figdata import size_axis
from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, save_figure
from ordauc.report.load import display_name, has_values, solver_order
from ordauc.report.palette import Palette
from ordauc.results.frame import by_selection, solver_names
from ordauc.results.schema import OK

MIN_REPETITIONS = 3  # fewer values per box draw no box worth the name


def size_boxes(results: pd.DataFrame, dataset: str, metric: str) -> pd.DataFrame:
    """One row per (n_labeled, solver) of ``dataset``: ``values`` (the metric over the
    finished repetitions, sorted) and ``complete`` (every run finished with a value)."""
    rows = by_selection(results[results["dataset"] == dataset], metric)
    records = []
    for (size, solver), group in rows.groupby(["n_labeled", "solver"], sort=True):
        ok = group[group["status"] == OK]
        values = np.sort(pd.to_numeric(ok[metric], errors="coerce").dropna().to_numpy())
        records.append({"n_labeled": int(size), "solver": str(solver), "values": values,
                        "complete": len(ok) == len(group) and values.size == len(group)})
    return pd.DataFrame.from_records(records, columns=["n_labeled", "solver", "values",
                                                       "complete"])


def wanted(results: pd.DataFrame, dataset: str) -> bool:
    """Whether ``dataset``'s rows vary the training-set size (:func:`size_axis`) with repeated
    draws at each size."""
    rows = results[results["dataset"] == dataset]
    if "repetition" not in rows.columns:  # a table without repetitions has nothing to box
        return False
    repeats = rows.groupby(["n_labeled", "solver"])["repetition"].nunique()
    return (size_axis(rows) == "n_labeled" and len(repeats) > 0
            and int(repeats.min()) >= MIN_REPETITIONS)


def size_boxes_figure(results: pd.DataFrame, dataset: str, metric: str, palette: Palette
                      ) -> object:
    """The grouped boxplots of ``metric`` for ``dataset``, each solver in its palette style."""
    from matplotlib.patches import Patch

    boxes = size_boxes(results, dataset, metric)
    names = solver_names(results[results["dataset"] == dataset])
    solvers = solver_order(boxes["solver"], names)
    sizes = sorted(boxes["n_labeled"].unique())
    width = 0.8 / len(solvers)
    fig = new_figure(max(6.0, 0.16 * len(solvers) * len(sizes) + 3.0), 4.2)
    ax = fig.add_subplot()
    missing = []
    handles = []
    for j, solver in enumerate(solvers):
        mine = boxes[boxes["solver"] == solver].set_index("n_labeled")
        at = [i for i, s in enumerate(sizes) if s in mine.index and mine.loc[s, "complete"]]
        missing += [f"{display_name(solver, names)} at {s}" for s in sizes
                    if s in mine.index and not mine.loc[s, "complete"]]
        if not at:
            continue
        parts = ax.boxplot([mine.loc[sizes[i], "values"] for i in at],
                           positions=np.array(at) + (j - (len(solvers) - 1) / 2) * width,
                           widths=0.9 * width, patch_artist=True, manage_ticks=False,
                           medianprops={"color": "k", "linewidth": 1.0},
                           flierprops={"markersize": 2.5})
        style = palette.style(solver)
        for patch in parts["boxes"]:
            patch.set(facecolor=style.colour, edgecolor="k", alpha=0.75, hatch=style.hatch)
        handles.append(Patch(facecolor=style.colour, edgecolor="k", alpha=0.75,
                             hatch=style.hatch, label=display_name(solver, names)))
    ax.set_xticks(np.arange(len(sizes)), [str(s) for s in sizes])
    ax.set_xlabel("number of training samples")
    ax.set_ylabel(METRICS[metric].display)
    n = int(results[results["dataset"] == dataset]["repetition"].nunique())
    ax.set_title(f"{dataset}: {METRICS[metric].display} over {n} draws per size")
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              fontsize=8)
    if missing:
        ax.text(0.0, -0.16, "not finished: " + ", ".join(missing), transform=ax.transAxes,
                fontsize=7.5, color="0.35", va="top", wrap=True)
    return fig


def write_size_boxes(results: pd.DataFrame, datasets: list[str], metrics: tuple[str, ...],
                     out_dir: Path, stems: dict[str, str], palette: Palette
                     ) -> list[Path]:
    """``boxes_<metric>_<stem>`` per dataset that varies n_labeled with repeated draws."""
    written: list[Path] = []
    for dataset in datasets:
        if not wanted(results, dataset):
            continue
        rows = results[results["dataset"] == dataset]
        for metric in metrics:
            if metric in METRICS and has_values(rows, metric):
                written += save_figure(size_boxes_figure(results, dataset, metric, palette),
                                       out_dir, f"boxes_{metric}_{stems[dataset]}")
    return written


@figure_family("size_boxes", order=80)
def _size_boxes_data(study: PlotStudy) -> pd.DataFrame:
    return study.plain


@_size_boxes_data.drawer
def _draw_size_boxes(rows: pd.DataFrame, study: PlotStudy, out: Path) -> list[Path]:
    return write_size_boxes(rows, study.shown, study.metrics, out, study.stems, study.palette)
