"""Per-metric result tables: the NPSVOR paper's Tables II (MZE) and III (MAE).

One row per dataset, one column per solver, each cell the mean ± standard deviation of a metric
over the repetitions (seeds, published partitions or k-fold folds), the best cell of each row in
bold (lowest or highest, as the metric's direction says), and the solvers' average ranks over
the datasets in the last row, ties sharing the mean of the ranks they span (Demšar 2006, the
ranks the Friedman test uses).

Runs that did not finish are counted and shown, never dropped: a cell whose runs did not all
finish carries a note such as ``3/20 ok; 17 timeout``, a solver that never ran on a dataset reads
``not run``. Only cells whose runs all finished with a value compete for the bold best, and the
average ranks (like the Friedman test of :mod:`ordauc.report.stats`) are taken over the datasets
where every solver's cell is complete; the datasets left out are named under the table. A dataset
run at several sample sizes (budgets) gets one row per size; sizes that differ only between
repetitions (k-fold folds of unequal size) are one budget and one row.

The input is a results table as :func:`ordauc.results.frame.load_results` returns it (statuses
cleaned there). Renderers are in :mod:`ordauc.report.table_render`, files in
:mod:`ordauc.report.write`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from ordauc.errors import UserError
from ordauc.metrics import METRICS, Metric
from ordauc.report.load import display_name, one_budget
from ordauc.results.frame import by_selection, failure_counts, solver_names
from ordauc.results.schema import OK, repetition_column

DECIMALS = 3
RANK_LABEL = "Average rank"
REQUIRED_COLUMNS = ("dataset", "solver", "status")
# Means equal to this many decimals are ties (sums of equal numbers in another order can differ
# in the last bit).
_TIE_DECIMALS = 12


def _measured(*_: object) -> float:
    raise TypeError("a measured column is read from the results, never computed")


# Columns the runs measure, tabulated like a metric (mean ± std, best in bold, ranks): the
# NPSVOR paper's Table V is the time of each problem's cross-validation.
MEASURES = {"cv_time_s": Metric(name="cv_time_s", display="CV time (s)", needs="labels",
                                lower_is_better=True, compute=_measured),
            "fit_time_s": Metric(name="fit_time_s", display="training time (s)",
                                 needs="labels", lower_is_better=True, compute=_measured)}


def metric_of(name: str) -> Metric:
    """The registered metric (or measured column, :data:`MEASURES`) ``name``; a
    :class:`UserError` naming the known ones otherwise."""
    found = METRICS.get(name) or MEASURES.get(name)
    if found is None:
        raise UserError(f"unknown metric {name!r}; the metrics are "
                        f"{', '.join([*METRICS, *MEASURES])}")
    return found


# ---------------------------------------------------------------------------------------------
# Rows and columns of the tables


@dataclass(frozen=True)
class Arranged:
    """The results with a ``problem`` (table row) and a ``method`` (table column) per row.

    ``problems`` are the datasets in the order they first appear (one per sample size when a
    dataset ran at several, e.g. ``abalone [n_l=100, n_u=0]``, smallest size first);
    ``methods`` the solvers' display names in the order they first appear (the config's order,
    :func:`ordauc.results.frame.in_study_order`); ``dataset_of`` maps each problem to its dataset.
    """

    rows: pd.DataFrame
    problems: list[str]
    methods: list[str]
    dataset_of: dict[str, str] = field(default_factory=dict)

    @property
    def datasets(self) -> list[str]:
        """The distinct datasets, in the order of :attr:`problems`."""
        return list(dict.fromkeys(self.dataset_of.get(p, p) for p in self.problems))


def _repetition_column(results: pd.DataFrame) -> str:
    column = repetition_column(results.columns)
    if column is not None:
        return column
    raise UserError("the results table has no repetition column; statistics pair the runs of "
                    "two solvers on it (a seed, a partition or a fold)")


def _display_names(rows: pd.DataFrame) -> dict[str, str]:
    """Display name per solver label (:func:`ordauc.report.load.display_name`; labels whose
    display names would collide keep their labels)."""
    registry = solver_names(rows)
    return {label: display_name(label, registry) for label in registry}


def _size_text(value: object) -> str:
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    return str(int(number)) if np.isfinite(number) else "?"


def arrange(results: pd.DataFrame) -> Arranged:
    """Check the columns the tables need and name each row's table cell (``results`` as
    :func:`ordauc.results.frame.load_results` returns it)."""
    missing = [c for c in REQUIRED_COLUMNS if c not in results.columns]
    if missing:
        raise UserError(f"the results table lacks the column(s) {', '.join(missing)}; "
                        f"tables need {', '.join(REQUIRED_COLUMNS)}, a repetition and a metric")
    if results.empty:
        raise UserError("the results table has no rows; run `ordauc run` first")
    repetition = _repetition_column(results)
    rows = results.copy()
    rows["repetition"] = rows[repetition]
    size_columns = [c for c in ("n_labeled", "n_unlabeled") if c in rows.columns]
    problem = rows["dataset"].copy()
    problems: list[str] = []
    dataset_of: dict[str, str] = {}
    for dataset in pd.unique(rows["dataset"]):
        mine = rows["dataset"] == dataset
        if size_columns and not one_budget(rows.loc[mine], tuple(size_columns)):
            sizes = rows.loc[mine, size_columns].drop_duplicates()
            if len(sizes) > 1:
                sizes = sizes.sort_values(size_columns)
                for _, size in sizes.iterrows():
                    at = mine & (rows[size_columns] == size.to_numpy()).all(axis=1)
                    text = ", ".join(f"{'n_l' if c == 'n_labeled' else 'n_u'}={_size_text(size[c])}"
                                     for c in size_columns)
                    label = f"{dataset} [{text}]"
                    problem[at] = label
                    problems.append(label)
                    dataset_of[label] = str(dataset)
                continue
        problems.append(str(dataset))
        dataset_of[str(dataset)] = str(dataset)
    rows["problem"] = problem
    names = _display_names(rows)
    rows["method"] = rows["solver"].map(names)
    return Arranged(rows=rows, problems=problems, methods=list(dict.fromkeys(names.values())),
                    dataset_of=dataset_of)


def _metric_values(rows: pd.DataFrame, metric: Metric) -> pd.Series:
    if metric.name not in rows.columns:
        return pd.Series(np.nan, index=rows.index)
    return pd.to_numeric(rows[metric.name], errors="coerce")


def repetition_values(arranged: Arranged, metric: Metric) -> pd.DataFrame:
    """One value per (problem, method, repetition): the metric of the finished run there.

    Columns ``problem``, ``method``, ``repetition``, ``value``; only ``ok`` rows with a finite
    value count (a repetition recorded twice contributes the mean of its values).
    """
    rows = arranged.rows
    values = _metric_values(rows, metric)
    keep = (rows["status"] == OK) & np.isfinite(values)
    table = rows.loc[keep, ["problem", "method", "repetition"]].assign(value=values[keep])
    return (table.groupby(["problem", "method", "repetition"], sort=False)["value"].mean()
            .reset_index())


# ---------------------------------------------------------------------------------------------
# One metric's table


@dataclass(frozen=True)
class MetricTable:
    """A metric's table of mean ± std per problem (rows) and method (columns).

    ``n_runs`` counts the results rows of a cell, ``n_ok`` those with status ok, ``n_values`` the
    ok rows with a finite value; ``complete`` is True where every run finished with a value.
    ``best`` marks the best complete cell(s) of each row. ``ranks`` holds the ranks of one row
    per dataset (1 = best, ties averaged): the dataset's largest size where every cell is
    complete, as a dataset run at several sizes is one dataset of the Friedman test, at the
    papers' setting (all of its data); ``average_ranks`` are their means.
    ``values`` are the per-repetition values (:func:`repetition_values`) the statistics pair on.
    ``dropped`` says which methods or problems were left out because none of their finished
    runs gives this metric (e.g. MZE of a ranking-only model).
    """

    metric: Metric
    problems: list[str]
    methods: list[str]
    mean: pd.DataFrame
    std: pd.DataFrame
    n_runs: pd.DataFrame
    n_ok: pd.DataFrame
    n_values: pd.DataFrame
    notes: pd.DataFrame
    complete: pd.DataFrame
    best: pd.DataFrame
    ranks: pd.DataFrame
    average_ranks: pd.Series
    values: pd.DataFrame
    dropped: list[str]
    dataset_of: dict[str, str] = field(default_factory=dict)

    @property
    def datasets(self) -> list[str]:
        """The distinct datasets of the table's rows, in their order."""
        return list(dict.fromkeys(self.dataset_of.get(p, p) for p in self.problems))

    @property
    def ranked_problems(self) -> list[str]:
        """The problems the average ranks (and the Friedman test) are taken over."""
        return list(self.ranks.index)

    @property
    def unranked_problems(self) -> list[str]:
        """The datasets left out of the ranks because none of their sizes is complete."""
        ranked = {self.dataset_of.get(p, p) for p in self.ranks.index}
        return [d for d in self.datasets if d not in ranked]

    @property
    def best_average(self) -> list[str]:
        """The method(s) with the best (lowest) average rank."""
        ranks = self.average_ranks.dropna().round(_TIE_DECIMALS)
        return [m for m in ranks.index if ranks[m] == ranks.min()] if len(ranks) else []

    def direction(self) -> str:
        return "lower is better" if self.metric.lower_is_better else "higher is better"


def _note(n_runs: int, n_ok: int, n_values: int, failed: pd.Series, display: str) -> str:
    if n_runs == 0:
        return "not run"
    parts = []
    if n_ok < n_runs:
        parts.append(f"{n_ok}/{n_runs} ok; {failure_counts(failed)}")
    if n_ok and n_values == 0:
        parts.append(f"no {display}")
    elif n_values < n_ok:
        parts.append(f"{n_values}/{n_ok} with {display}")
    return "; ".join(parts)


def _best_mask(mean: pd.DataFrame, complete: pd.DataFrame, lower_is_better: bool) -> pd.DataFrame:
    rounded = mean.astype(float).round(_TIE_DECIMALS).where(complete)
    target = rounded.min(axis=1) if lower_is_better else rounded.max(axis=1)
    return rounded.eq(target, axis=0) & complete


def rank_rows(values: pd.DataFrame, lower_is_better: bool) -> pd.DataFrame:
    """Rank each row's values, 1 = best; equal values share the mean of the ranks they span."""
    if values.empty:
        return values.astype(float)
    rounded = values.to_numpy(dtype=np.float64).round(_TIE_DECIMALS)
    oriented = rounded if lower_is_better else -rounded
    ranks = rankdata(oriented, method="average", axis=1)
    return pd.DataFrame(ranks, index=values.index, columns=values.columns)


def metric_table(results: pd.DataFrame | Arranged, metric: str) -> MetricTable:
    """The table of ``metric`` (a name of :data:`ordauc.metrics.METRICS`) over ``results``."""
    spec = metric_of(metric)
    arranged = results if isinstance(results, Arranged) else arrange(results)
    arranged = replace(arranged, rows=by_selection(arranged.rows, metric))
    rows = arranged.rows
    values = _metric_values(rows, spec)
    problems, methods = arranged.problems, arranged.methods
    shape = (len(problems), len(methods))
    n_runs, n_ok, n_values = (np.zeros(shape, dtype=np.int64) for _ in range(3))
    notes = np.full(shape, _note(0, 0, 0, pd.Series(dtype=object), spec.display), dtype=object)
    pi = {p: i for i, p in enumerate(problems)}
    mi = {m: j for j, m in enumerate(methods)}
    finite = np.isfinite(values)
    for (problem, method), group in rows.groupby(["problem", "method"], sort=False):
        i, j = pi[problem], mi[method]
        ok = group["status"] == OK
        n_runs[i, j], n_ok[i, j] = len(group), int(ok.sum())
        n_values[i, j] = int((ok & finite[group.index]).sum())
        notes[i, j] = _note(len(group), int(ok.sum()), int(n_values[i, j]),
                            group.loc[~ok, "status"], spec.display)

    # A cell whose finished runs all lack the metric does not apply (the model's outputs do not
    # give it); methods and problems without any applicable cell are left out, and said so.
    applicable = (n_values > 0) | ((n_runs > 0) & (n_ok == 0))
    keep_m = applicable.any(axis=0)
    keep_p = applicable[:, keep_m].any(axis=1) if keep_m.any() else np.zeros(len(problems), bool)
    if not keep_p.any():
        raise UserError(f"no finished run of the results has a value of {spec.display}; "
                        "pick a metric the solvers' outputs give")
    dropped = [f"{m}: no {spec.display} (its outputs do not give it)"
               for m, keep in zip(methods, keep_m, strict=True) if not keep]
    dropped += [f"{p}: no {spec.display} from any method"
                for p, keep in zip(problems, keep_p, strict=True) if not keep]
    problems = [p for p, keep in zip(problems, keep_p, strict=True) if keep]
    methods = [m for m, keep in zip(methods, keep_m, strict=True) if keep]

    def frame(data: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(data[np.ix_(keep_p, keep_m)], index=problems, columns=methods)

    per_rep = repetition_values(arranged, spec)
    per_rep = per_rep[per_rep["problem"].isin(problems) & per_rep["method"].isin(methods)]
    grouped = per_rep.groupby(["problem", "method"], sort=False)["value"]
    mean = grouped.mean().unstack().reindex(index=problems, columns=methods).astype(float)
    std = grouped.std(ddof=1).unstack().reindex(index=problems, columns=methods).astype(float)
    n_runs_f, n_ok_f, n_values_f = frame(n_runs), frame(n_ok), frame(n_values)
    complete = (n_runs_f > 0) & (n_ok_f == n_runs_f) & (n_values_f == n_ok_f) & mean.notna()
    full_rows = complete.all(axis=1)
    dataset_of = {p: arranged.dataset_of.get(p, p) for p in problems}
    largest = {dataset_of[p]: p for p in problems if full_rows[p]}  # sizes ascend per dataset
    ranked = [p for p in problems if largest.get(dataset_of[p]) == p]
    ranks = rank_rows(mean.loc[ranked], spec.lower_is_better)
    average = ranks.mean(axis=0) if len(ranks) else pd.Series(np.nan, index=methods)
    return MetricTable(
        metric=spec, problems=problems, methods=methods, mean=mean, std=std,
        n_runs=n_runs_f, n_ok=n_ok_f, n_values=n_values_f, notes=frame(notes),
        complete=complete, best=_best_mask(mean, complete, spec.lower_is_better), ranks=ranks,
        average_ranks=average.reindex(methods).astype(float),
        values=per_rep.reset_index(drop=True), dropped=dropped, dataset_of=dataset_of)


# ---------------------------------------------------------------------------------------------
# Rendering
