"""Score against the tuned parameter (the AUC-DCD paper's Figure 1: test AUC against lambda),
from ``tuning_scores.csv``.

Every tuned row of a run records the score of each grid point behind its choice: the mean over
the inner folds (``tuning: cv``) or the score on the evaluation rows (``tuning: test``, the
AUC-DCD paper's protocol, where that score is the test AUC). A solver whose grid varies one
parameter gets a line per dataset: the mean score over the repetitions at each value of that
parameter, with a band of one standard deviation. Rows of the two protocols are drawn in
separate panels, as they score different rows. Solvers whose grid varies several parameters
(the QSG papers' lam x sigma x gamma) have no such line and are left out.
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
from ordauc.report.load import Names, display_name
from ordauc.report.palette import Palette
from ordauc.results.frame import solver_names
from ordauc.results.read import read_table
from ordauc.results.schema import TUNING_CSV

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PANELS = {"test": "on the test rows (tuning: test)", "cv": "mean over the inner folds (cv)"}


@dataclass(frozen=True)
class TuningCurves:
    """One dataset's score against ``param``: ``lines`` has a row per (tuning, solver, value)
    with the ``mean``, ``std`` and number ``n`` of the repetitions' scores."""

    dataset: str
    param: str
    metric: str
    lines: pd.DataFrame
    names: Names

    @property
    def tunings(self) -> list[str]:
        return list(pd.unique(self.lines["tuning"]))


def read_scores(directory: str | Path) -> pd.DataFrame | None:
    """``tuning_scores.csv`` of a results folder as a frame, or None where there is none."""
    path = Path(directory) / TUNING_CSV
    if not path.is_file():
        return None
    header, rows = read_table(path)
    if not header or not rows:
        return None
    scores = pd.DataFrame.from_records(rows, columns=header).replace("", np.nan)
    scores["score"] = pd.to_numeric(scores["score"], errors="coerce")
    return scores


def _varying(rows: pd.DataFrame) -> list[str]:
    """The parameters whose value changes between the grid points of a solver's rows."""
    params = [c for c in rows.columns if c.startswith("p_") and rows[c].notna().any()]
    return [c for c in params if rows[c].nunique(dropna=False) > 1]


def tuning_curves(scores: pd.DataFrame, results: pd.DataFrame) -> list[TuningCurves]:
    """Per dataset (and tuned parameter), the lines of the solvers whose grid varies one
    parameter; datasets without any such solver are left out."""
    names = solver_names(results)
    out = []
    for dataset, rows in scores.groupby("dataset", sort=False):
        lines: dict[str, list[pd.DataFrame]] = {}
        for (solver, tuning), mine in rows.groupby(["solver", "tuning"], sort=False):
            varying = _varying(mine)
            if len(varying) != 1:
                continue
            param = varying[0]
            value = pd.to_numeric(mine[param], errors="coerce")
            if value.isna().any():
                continue
            per_rep = (mine.assign(value=value)
                       .groupby(["repetition", "value"])["score"].mean().reset_index())
            stats = per_rep.groupby("value")["score"].agg(["mean", "std", "count"])
            lines.setdefault(param, []).append(
                stats.reset_index().rename(columns={"count": "n"})
                .assign(solver=solver, tuning=tuning))
        metric = str(rows["metric"].mode().iloc[0])
        for param, parts in lines.items():
            out.append(TuningCurves(str(dataset), param[2:], metric,
                                    pd.concat(parts, ignore_index=True), names))
    return out


def _panel(ax: Axes, curves: TuningCurves, tuning: str, palette: Palette) -> None:
    lines = curves.lines[curves.lines["tuning"] == tuning]
    for solver, line in lines.groupby("solver", sort=False):
        line = line.sort_values("value")
        x = line["value"].to_numpy(dtype=np.float64)
        mean = line["mean"].to_numpy(dtype=np.float64)
        std = np.nan_to_num(line["std"].to_numpy(dtype=np.float64))
        style = palette.style(str(solver))
        ax.plot(x, mean, markersize=4, linewidth=1.5,
                label=display_name(str(solver), curves.names), **style.line())
        ax.fill_between(x, mean - std, mean + std, alpha=0.1, color=style.colour, linewidth=0)
    values = lines["value"].to_numpy(dtype=np.float64)
    if values.size and (values > 0).all() and values.max() >= 100 * values.min():
        ax.set_xscale("log")
    shown = METRICS[curves.metric].display if curves.metric in METRICS else curves.metric
    ax.set_xlabel(curves.param)
    ax.set_ylabel(f"{shown} {PANELS.get(tuning, tuning)}")
    ax.legend(frameon=False, fontsize=8)


def tuning_figure(curves: TuningCurves, palette: Palette) -> Figure:
    """One panel per tuning protocol, a line per solver in its palette style: mean score ± one
    std."""
    tunings = curves.tunings
    fig = new_figure(5.0 * len(tunings) + 0.6, 4.0)
    axes = fig.subplots(1, len(tunings), squeeze=False).ravel()
    for ax, tuning in zip(axes, tunings, strict=True):
        _panel(ax, curves, tuning, palette)
    n = int(curves.lines["n"].max())
    fig.suptitle(f"{curves.dataset}: score against {curves.param} (mean ± std over {n} runs)")
    return fig


def write_tuning_curves(all_curves: list[TuningCurves], out_dir: Path, stems: dict[str, str],
                        palette: Palette) -> list[Path]:
    """Draw and save ``tuning_<stem>`` (``tuning_<stem>_<param>`` when a dataset has several
    tuned parameters) into ``out_dir``; the paths written."""
    written: list[Path] = []
    per_dataset = pd.Series([c.dataset for c in all_curves]).value_counts()
    for curves in all_curves:
        stem = f"tuning_{stems.get(curves.dataset, curves.dataset)}"
        if per_dataset[curves.dataset] > 1:
            stem += f"_{curves.param}"
        written += save_figure(tuning_figure(curves, palette), out_dir, stem)
    return written


@figure_family("tuning", order=100)
def _tuning_data(study: PlotStudy) -> list[TuningCurves]:
    scores = read_scores(study.directory)
    return tuning_curves(scores, study.results) if scores is not None else []


@_tuning_data.drawer
def _draw_tuning(curves: list[TuningCurves], study: PlotStudy, out: Path) -> list[Path]:
    return write_tuning_curves(curves, out, study.stems, study.palette)
