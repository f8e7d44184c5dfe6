"""Reports from a results folder: figures (``plots``) built from checked tables (``load``).

``figdata`` turns the results table into the numbers each figure draws, so they can be tested
without looking at pixels. matplotlib is only imported when a figure is drawn.
"""

from __future__ import annotations

from ordauc.report.figdata import AucPanel, FailureMark, TimeCurves, auc_panel, time_curves
from ordauc.report.load import display_name
from ordauc.report.plots import plot_results
from ordauc.results.frame import load_results

__all__ = [
    "AucPanel",
    "FailureMark",
    "TimeCurves",
    "auc_panel",
    "display_name",
    "load_results",
    "plot_results",
    "time_curves",
]
