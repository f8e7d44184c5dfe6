"""Our numbers beside a paper's published table: mean ± std per dataset and solver, the paper's
mean ± std, and the difference in units of the paper's standard deviation.

A published table (:mod:`ordauc.published_tables`) applies to a results table when some row ran
one of its solvers (the ``solver_name`` column, the registry name) on one of its datasets (the
``dataset`` column as the paper names it: a dataset run with parameters, e.g. another positive
class, is a different problem and is not matched). The results' solver labels are grouped into
variants, one per tuning protocol: the ``tuning`` column (``test``: the best grid point on the
evaluation rows, the papers' protocol; ``cv``: inner cross-validation) and what the label adds
to the registry name (``auc_sdcd_paper`` and ``oam_inf_paper`` are the variant ``_paper``). Each
variant gets its own comparison, so a study that runs both protocols shows both.

Renderers are in :mod:`ordauc.report.compare_render`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc.published_tables import TABLES, PublishedTable
from ordauc.results.frame import label_variants, registry_names
from ordauc.results.schema import OK

TUNING_TEXT = {"test": "tuned on the evaluation folds as the paper did",
               "cv": "tuned by inner cross-validation on the training folds",
               "none": "not tuned"}
FRAME_COLUMNS = ("dataset", "solver", "label", "n_runs", "n_ok", "mean", "std", "paper_mean",
                 "paper_std", "diff", "diff_sd", "within_sd", "paper_note")


@dataclass(frozen=True)
class Comparison:
    """One variant of a study beside one published table.

    ``frame`` has a row per (dataset, published solver) of the datasets the results hold, in the
    paper's order: our ``n_runs``, ``n_ok``, ``mean`` and ``std`` (NaN where the variant did not
    run that solver or no run finished), the paper's ``paper_mean`` and ``paper_std``, ``diff``
    = ours - paper and ``diff_sd`` = diff / paper's std, ``within_sd`` = |diff_sd| <= 1.
    """

    published: PublishedTable
    variant: str  # what the labels add to the registry names, e.g. "_paper" ("" for none)
    tuning: str  # the variant's tuning kind (the results' ``tuning`` column), "" if unknown
    labels: dict[str, str]  # registry name -> results label
    frame: pd.DataFrame
    not_run: list[str]  # published datasets the results do not hold

    @property
    def key(self) -> str:
        """File stem: ``published_<table>`` plus the variant."""
        suffix = self.variant.strip("_-.")
        return f"published_{self.published.key}" + (f"_{suffix}" if suffix else "")

    @property
    def heading(self) -> str:
        how = TUNING_TEXT.get(self.tuning, f"tuning {self.tuning}" if self.tuning else "")
        labels = f"labels *{self.variant}" if self.variant else "labels as registered"
        return f"{self.published.title} beside ours, {how} ({labels})"

    def counts(self) -> tuple[int, int]:
        """(cells within the paper's std, cells compared)."""
        compared = self.frame["diff_sd"].notna()
        return int(self.frame.loc[compared, "within_sd"].sum()), int(compared.sum())


def _cell(rows: pd.DataFrame, metric: str) -> dict[str, float]:
    ok = rows[rows["status"] == OK]
    values = (pd.to_numeric(ok[metric], errors="coerce") if metric in ok.columns
              else pd.Series(dtype=float))
    values = values[np.isfinite(values)]
    return {"n_runs": len(rows), "n_ok": len(values),
            "mean": float(values.mean()) if len(values) else np.nan,
            "std": float(values.std(ddof=1)) if len(values) > 1 else np.nan}


def _frame(published: PublishedTable, rows: pd.DataFrame, labels: dict[str, str],
           datasets: list[str]) -> pd.DataFrame:
    records = []
    for dataset in datasets:
        for solver in published.solvers:
            paper = published.value(dataset, solver)
            label = labels.get(solver, "")
            mine = rows[(rows["dataset"] == dataset) & (rows["solver"] == label)]
            ours = _cell(mine, published.metric)
            paper_mean = np.nan if paper is None else float(paper["mean"])
            paper_std = np.nan if paper is None else float(paper["std"])
            diff = ours["mean"] - paper_mean
            diff_sd = diff / paper_std if paper_std > 0 else np.nan
            records.append({"dataset": dataset, "solver": solver, "label": label, **ours,
                            "paper_mean": paper_mean, "paper_std": paper_std, "diff": diff,
                            "diff_sd": diff_sd,
                            "within_sd": bool(np.isfinite(diff_sd) and abs(diff_sd) <= 1),
                            "paper_note": "" if paper is None else str(paper["note"])})
    return pd.DataFrame.from_records(records, columns=list(FRAME_COLUMNS))


def compare_published(results: pd.DataFrame,
                      tables: dict[str, PublishedTable] | None = None) -> list[Comparison]:
    """Every (published table, variant) comparison that ``results`` (as
    :func:`ordauc.results.frame.load_results` returns it) allows; [] when no published table
    shares a (dataset, solver) with the results."""
    if results.empty or not {"dataset", "solver", "status"} <= set(results.columns):
        return []
    rows = results.assign(registry=registry_names(results))
    comparisons = []
    for published in (TABLES if tables is None else tables).values():
        mine = rows[rows["registry"].isin(published.solvers)
                    & rows["dataset"].isin(published.datasets)]
        if mine.empty:
            continue
        held = set(mine["dataset"])
        datasets = [d for d in published.datasets if d in held]
        not_run = [d for d in published.datasets if d not in held]
        for (variant, tuning), labels in label_variants(mine).items():
            comparisons.append(Comparison(published=published, variant=variant, tuning=tuning,
                                          labels=labels,
                                          frame=_frame(published, mine, labels, datasets),
                                          not_run=not_run))
    return comparisons
