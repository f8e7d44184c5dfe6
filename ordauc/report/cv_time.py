"""The time of cross-validation per dataset and method (the NPSVOR paper's Fig. 6(a), beside its
Table V, which ``ordauc report`` writes as ``table_cv_time_s``).

The paper draws the datasets with more than 500 training rows: one group of bars per dataset, a
bar per method, the mean ``cv_time_s`` over the repetitions on a log axis. A dataset run at
several sizes is drawn at its largest; a method whose runs of a dataset did not all finish has
no bar there, and the figure says so under the axes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, save_figure
from ordauc.report.load import display_name, solver_order
from ordauc.report.palette import Palette
from ordauc.results.frame import solver_names
from ordauc.results.schema import OK

LARGE = 500  # training rows above which the paper draws a dataset


def cv_time_bars(results: pd.DataFrame, larger_than: int = LARGE) -> pd.DataFrame:
    """Mean and std of ``cv_time_s`` per (dataset, solver) for the datasets whose largest
    training set has more than ``larger_than`` rows: columns ``dataset, solver, mean, std,
    complete`` (every run of the cell finished with a time). Empty without such datasets."""
    if "cv_time_s" not in results.columns:
        return pd.DataFrame(columns=["dataset", "solver", "mean", "std", "complete"])
    records = []
    for dataset, rows in results.groupby("dataset", sort=False):
        size = rows["n_labeled"].max()
        if size <= larger_than:
            continue
        rows = rows[rows["n_labeled"] == size]
        for solver, mine in rows.groupby("solver", sort=False):
            times = pd.to_numeric(mine.loc[mine["status"] == OK, "cv_time_s"], errors="coerce")
            # one search serves the rows of every selection metric: one time per repetition
            per_rep = times.groupby(mine.loc[times.index, "repetition"]).first().dropna()
            records.append({"dataset": str(dataset), "solver": str(solver),
                            "mean": per_rep.mean() if len(per_rep) else np.nan,
                            "std": per_rep.std(ddof=1) if len(per_rep) > 1 else 0.0,
                            "complete": bool(len(per_rep))
                            and len(per_rep) == mine["repetition"].nunique()
                            and (mine["status"] == OK).all()})
    return pd.DataFrame.from_records(
        records, columns=["dataset", "solver", "mean", "std", "complete"])


def write_cv_time(results: pd.DataFrame, out_dir: Path, palette: Palette) -> list[Path]:
    """``cv_time`` (Fig. 6(a)) into ``out_dir`` when a dataset qualifies, each solver in its
    colour (and a variant in its hatch) of the other figures; the paths written."""
    bars = cv_time_bars(results)
    timed = bars["complete"].astype(bool) & (bars["mean"] > 0)  # untuned runs spend no CV
    if not timed.any() or bars.loc[timed, "solver"].nunique() < 2:
        return []
    names = solver_names(results)
    solvers = solver_order(bars["solver"], names)
    data = list(pd.unique(bars["dataset"]))
    width = 0.8 / len(solvers)
    fig = new_figure(max(6.0, 0.25 * len(solvers) * len(data) + 3.0), 4.2)
    ax = fig.add_subplot()
    missing = []
    for j, solver in enumerate(solvers):
        mine = bars[bars["solver"] == solver].set_index("dataset").reindex(data)
        ran = mine["complete"].notna().to_numpy()  # a solver of another task has no row
        shown = mine["complete"].fillna(False).astype(bool).to_numpy()
        missing += [f"{display_name(solver, names)} on {d}"
                    for d, r, ok in zip(data, ran, shown, strict=True) if r and not ok]
        x = np.arange(len(data)) + (j - (len(solvers) - 1) / 2) * width
        style = palette.style(solver)
        ax.bar(x[shown], mine["mean"].to_numpy(dtype=float)[shown], width, color=style.colour,
               hatch=style.hatch, edgecolor="white" if style.hatch else None,
               label=display_name(solver, names))
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(data)), data, rotation=20, ha="right")
    ax.set_ylabel("cross-validation time (s)")
    ax.set_title(f"Time of cross-validation, datasets with more than {LARGE} training rows")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    if missing:
        ax.text(0.0, -0.3, "not finished: " + ", ".join(missing), transform=ax.transAxes,
                fontsize=7.5, color="0.35", va="top", wrap=True)
    return save_figure(fig, out_dir, "cv_time")


@figure_family("cv_time", order=110)
def _cv_time_data(study: PlotStudy) -> pd.DataFrame:
    return study.plain


@_cv_time_data.drawer
def _draw_cv_time(rows: pd.DataFrame, study: PlotStudy, out: Path) -> list[Path]:
    return write_cv_time(rows, out, study.palette)
