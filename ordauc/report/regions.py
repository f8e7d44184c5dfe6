"""Decision regions of every solver on a two-feature dataset (the NPSVOR paper's Fig. 2: NPSVOR's
nonparallel proximal lines against the parallel boundaries of SVR and SVORIM on three Gaussian
ranks).

The results table keeps no models, so the figure refits each solver once, exactly as its cell
did for the study's first repetition (:func:`ordauc.experiment.refit.refit_cell`): the same
split (from the folder's copy of the config), the same training rows and preprocessing, the
hyper-parameters the row chose (``p_*``) and the cell's seed. Each panel shows the predicted
rank over a grid of the plane, with the training rows on top, and the row's test MZE and MAE in
its title.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ordauc.report.figure_families import PlotStudy, figure_family
from ordauc.report.files import new_figure, save_figure
from ordauc.report.load import display_name
from ordauc.results.frame import solver_names, study_config
from ordauc.results.schema import OK

GRID_POINTS = 200  # per axis of the plane


@dataclass(frozen=True)
class Regions:
    """One dataset's decision regions: per solver label, the predicted class on the grid
    ``xx`` x ``yy``; the training rows, the row of the results each refit reproduces, and the
    refit's own MZE on that row's evaluation rows (equal to the row's: the check that the
    drawn model is the one the row scored)."""

    dataset: str
    xx: np.ndarray
    yy: np.ndarray
    predicted: dict[str, np.ndarray]
    X_train: np.ndarray
    y_train: np.ndarray
    rows: dict[str, pd.Series]
    names: dict[str, str]
    refit_mze: dict[str, float]


def _chosen(row: pd.Series, defaults: dict[str, Any]) -> dict[str, Any]:
    """The constructor parameters a row chose (its ``p_*`` values, typed as the defaults)."""
    params = {}
    for name, default in defaults.items():
        value = row.get(f"p_{name}")
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        if isinstance(default, bool):
            value = str(value).lower() in ("true", "1")
        elif isinstance(default, int) and not isinstance(default, bool):
            value = int(float(value))
        elif isinstance(default, float):
            value = float(value)
        params[name] = value
    return params


def regions_data(directory: Path, results: pd.DataFrame) -> list[Regions]:
    """The decision regions of every two-feature dataset of the study ([] where the folder
    keeps no config, or no dataset has two features)."""
    from ordauc import data, metrics, solvers
    from ordauc.errors import UserError
    from ordauc.experiment import make_plan
    from ordauc.experiment.refit import refit_cell

    config = study_config(Path(directory))
    if config is None:
        return []
    try:
        plan = make_plan(config)
    except UserError:
        return []
    out = []
    for spec in config.datasets:
        try:
            ds = data.load(spec.name, **spec.params)
        except UserError:  # not in this data folder: no figure
            continue
        if ds.X.shape[1] != 2:
            continue
        cells = [c for c in plan.cells if c.dataset.label == spec.label]
        first = min(c.repetition for c in cells)
        predicted, rows, refit = {}, {}, {}
        X_fit = y_fit = None
        for cell in cells:
            if cell.repetition != first or cell.solver.label in predicted:
                continue
            row = results[(results["key"] == cell.key) & (results["status"] == OK)]
            if row.empty:
                continue
            params = _chosen(row.iloc[0], solvers.info(cell.solver.name).defaults)
            params.pop("random_state", None)  # the refit seeds the solver as the cell did
            fitted = refit_cell(cell, ds, config, params)
            labeled = fitted.split.labeled
            X_plot = np.asarray(ds.X[labeled], dtype=np.float64)
            lo, hi = X_plot.min(axis=0), X_plot.max(axis=0)
            pad = 0.08 * (hi - lo)
            xx, yy = np.meshgrid(np.linspace(lo[0] - pad[0], hi[0] + pad[0], GRID_POINTS),
                                 np.linspace(lo[1] - pad[1], hi[1] + pad[1], GRID_POINTS))
            plane = np.column_stack([xx.ravel(), yy.ravel()]).astype(ds.X.dtype)
            predicted[cell.solver.label] = np.asarray(
                fitted.model.predict(fitted.features(plane))).reshape(xx.shape)
            X_eval, y_eval = fitted.evaluation
            rows[cell.solver.label] = row.iloc[0]
            refit[cell.solver.label] = metrics.mze(y_eval, fitted.model.predict(X_eval))
            X_fit, y_fit = X_plot, np.asarray(ds.y)[labeled]
        if predicted:
            out.append(Regions(spec.label, xx, yy, predicted, X_fit, y_fit, rows,
                               solver_names(results), refit))
    return out


def regions_figure(regions: Regions) -> Any:
    """A panel per solver: predicted ranks over the plane, training rows on top."""
    from matplotlib.colors import ListedColormap

    labels = list(regions.predicted)
    classes = np.unique(regions.y_train)
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3"]
    cmap = ListedColormap(colours[: len(classes)])
    fig = new_figure(4.2 * len(labels), 4.2)
    axes = fig.subplots(1, len(labels), squeeze=False).ravel()
    markers = ("o", "^", "s", "D", "v", "P", "X")
    for ax, label in zip(axes, labels, strict=True):
        index = np.searchsorted(classes, regions.predicted[label])
        ax.contourf(regions.xx, regions.yy, index, levels=np.arange(len(classes) + 1) - 0.5,
                    cmap=cmap, alpha=0.25)
        ax.contour(regions.xx, regions.yy, index, levels=np.arange(len(classes)) + 0.5,
                   colors="k", linewidths=0.8)
        for i, c in enumerate(classes):
            at = regions.y_train == c
            ax.scatter(regions.X_train[at, 0], regions.X_train[at, 1], s=14,
                       marker=markers[i % len(markers)], color=colours[i % len(colours)],
                       edgecolors="k", linewidths=0.3, label=f"rank {c}")
        row = regions.rows[label]
        ax.set_title(f"{display_name(label, regions.names)}\n"
                     f"test MZE {float(row['mze']):.3f}, MAE {float(row['mae']):.3f}",
                     fontsize=9.5)
        ax.grid(False)
    axes[0].legend(loc="upper left", fontsize=8, frameon=True)
    fig.suptitle(f"{regions.dataset}: decision regions (first repetition, the chosen "
                 "parameters refitted)")
    return fig


def write_regions(all_regions: list[Regions], out_dir: Path, stems: dict[str, str]
                  ) -> list[Path]:
    """Draw and save ``regions_<stem>`` per two-feature dataset; the paths written."""
    written: list[Path] = []
    for regions in all_regions:
        written += save_figure(regions_figure(regions), out_dir,
                               f"regions_{stems.get(regions.dataset, regions.dataset)}")
    return written


@figure_family("regions", order=70)
def _regions_data(study: PlotStudy) -> list[Regions]:
    return regions_data(study.directory, study.results)


@_regions_data.drawer
def _draw_regions(regions: list[Regions], study: PlotStudy, out: Path) -> list[Path]:
    return write_regions(regions, out, study.stems)
