"""The numbers each figure draws, as plain data, so that they can be checked without pixels.

:func:`auc_panel` gives the AUC boxplot of one dataset at one (n_labeled, n_unlabeled) size;
:func:`time_curves` gives the training time against n_unlabeled, with the sizes where a solver's
runs did not finish (``skipped``, ``timeout``, ``error``) kept as failure marks, never dropped.
Both take a results table as :func:`ordauc.results.frame.load_results` returns it; every solver
of a dataset gets its place, whether the registry knows it or not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.metrics import METRICS
from ordauc.report.load import display_name, infer_task, one_budget, solver_order
from ordauc.results.frame import by_selection, failure_counts, solver_names
from ordauc.results.schema import NO_STATUS, OK


@dataclass(frozen=True)
class AucPanel:
    """AUC over seeds per solver for one dataset and one sample size (one boxplot panel)."""

    dataset: str
    task: str
    n_labeled: int
    n_unlabeled: int
    eval_set: str | None
    solvers: list[str]
    values: dict[str, np.ndarray]
    notes: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # solver label -> registry name
    metric: str = "auc"
    labels_only: frozenset[str] = frozenset()  # solvers that predict labels, no scores

    @property
    def metric_label(self) -> str:
        """Y-axis label: ``ordinal AUC`` for ordinal tasks, else ``AUC``; another metric's
        display name."""
        if self.metric != "auc":
            return METRICS[self.metric].display
        return "ordinal AUC" if self.task == "ordinal" else "AUC"

    def empty_note(self, solver: str) -> str:
        """What an empty slot says: a solver that only predicts labels has no ranking metric
        (it finished: its runs are not failures), any other has no finished run."""
        return "labels only, no AUC" if solver in self.labels_only else "no finished run"

    def summary(self) -> pd.DataFrame:
        """One row per solver: number of finished seeds, quartiles, mean, and the failure note."""
        rows = []
        for solver in self.solvers:
            v = self.values[solver]
            q1, med, q3 = np.quantile(v, [0.25, 0.5, 0.75]) if v.size else (np.nan,) * 3
            rows.append({"solver": solver, "n_ok": int(v.size), "q1": q1, "median": med,
                         "q3": q3, "mean": float(v.mean()) if v.size else np.nan,
                         "note": self.notes.get(solver, "")})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class FailureMark:
    """The size at which a solver's curve breaks because some of its runs did not finish
    (``size`` on the curve's axis, :attr:`TimeCurves.axis`)."""

    solver: str
    size: int
    last_ok: int | None
    status: str
    reason: str
    n_failed: int
    n_runs: int
    display: str = ""  # the solver's display name (defaults to the label)

    def note(self) -> str:
        """Short legend text, e.g. ``SAMULT: skipped beyond 5000 (memory)``."""
        where = f"beyond {self.last_ok}" if self.last_ok is not None else f"from {self.size}"
        details = [self.reason] if self.reason else []
        if self.n_failed < self.n_runs:
            details.append(f"{self.n_failed}/{self.n_runs} runs")
        more = f" ({'; '.join(details)})" if details else ""
        return f"{self.display or self.solver}: {self.status} {where}{more}"


@dataclass(frozen=True)
class TimeCurves:
    """Training time (or another ``value`` column) per solver against the size a study varies,
    with failure marks.

    ``axis`` is that size: ``n_unlabeled`` at a fixed ``n_labeled`` (the QSG papers' time
    figures), or ``n_labeled`` when the study varies the training rows alone (the NPSVOR
    paper's Fig. 7; ``n_labeled`` is then None). ``table`` has one row per (solver, size), the
    size in a column named ``axis``: ``n_runs``, ``n_ok``, ``n_failed``, ``status`` (``ok`` or
    the most frequent failing status), ``mean``, ``std``, ``min``, ``max`` of ``value`` over the
    finished seeds, and ``drawn`` (every run finished, so the point belongs to the line).
    """

    dataset: str
    n_labeled: int | None
    solvers: list[str]
    table: pd.DataFrame
    marks: list[FailureMark]
    names: dict[str, str] = field(default_factory=dict)  # solver label -> registry name
    axis: str = "n_unlabeled"
    value: str = "fit_time_s"

    def first_failures(self) -> dict[str, FailureMark]:
        """The first failure mark of each solver that has one."""
        first: dict[str, FailureMark] = {}
        for mark in self.marks:
            first.setdefault(mark.solver, mark)
        return first


def datasets(results: pd.DataFrame) -> list[str]:
    """Dataset names in the order they first appear in the results (the config's order)."""
    return [str(d) for d in pd.unique(results["dataset"])]


def common_n_labeled(rows: pd.DataFrame) -> int:
    """The n_labeled with the most finished rows (ties: the larger), all rows if none finished."""
    ok = rows[rows["status"] == OK]
    counts = (ok if len(ok) else rows)["n_labeled"].value_counts()
    best = counts.max()
    return int(max(n for n, c in counts.items() if c == best))


def _rows_of(results: pd.DataFrame, dataset: str, metric: str = "auc") -> pd.DataFrame:
    """The dataset's rows (of one selection metric, :func:`by_selection`: ``metric``'s where a
    study selected by it); at one budget (:func:`one_budget`, e.g. k-fold folds of unequal
    size) every row takes the most common size, so the figures keep every repetition."""
    rows = by_selection(results[results["dataset"] == dataset], metric)
    if rows.empty:
        raise UserError(f"dataset {dataset!r} is not in the results; "
                        f"it holds {', '.join(datasets(results))}")
    if one_budget(rows):
        sizes = rows[["n_labeled", "n_unlabeled"]].value_counts().index[0]
        rows = rows.assign(n_labeled=sizes[0], n_unlabeled=sizes[1])
    return rows


def _all_finished(at_l: pd.DataFrame) -> set[int]:
    """The n_unlabeled sizes where every solver has runs and all of them finished."""
    solvers = set(at_l["solver"])
    sizes = set()
    for n_u, group in at_l.groupby("n_unlabeled"):
        if set(group["solver"]) == solvers and (group["status"] == OK).all():
            sizes.add(int(n_u))
    return sizes


def _pick_size(rows: pd.DataFrame, dataset: str, n_labeled: int | None,
               n_unlabeled: int | None, complete: bool = False) -> tuple[int, int]:
    if n_labeled is None:
        n_labeled = common_n_labeled(rows)
    elif n_labeled not in set(rows["n_labeled"]):
        sizes = ", ".join(str(n) for n in sorted(set(rows["n_labeled"])))
        raise UserError(f"dataset {dataset!r} has no run with n_labeled={n_labeled}; "
                        f"its sizes are {sizes}")
    at_l = rows[rows["n_labeled"] == n_labeled]
    if n_unlabeled is None:
        finished = _all_finished(at_l) if complete else set()
        ok = at_l[at_l["status"] == OK]
        n_unlabeled = max(finished) if finished else int(
            (ok if len(ok) else at_l)["n_unlabeled"].max())
    elif n_unlabeled not in set(at_l["n_unlabeled"]):
        sizes = ", ".join(str(n) for n in sorted(set(at_l["n_unlabeled"])))
        raise UserError(f"dataset {dataset!r} has no run with n_unlabeled={n_unlabeled} at "
                        f"n_labeled={n_labeled}; its sizes are {sizes}")
    return int(n_labeled), int(n_unlabeled)


def labels_only(solver: str, names: dict[str, str], rows: pd.DataFrame) -> bool:
    """Whether ``solver`` predicts labels only (no ranking scores, so no AUC although its runs
    finished): the registry's class has no ``decision_function``; for a solver the registry
    cannot load, its finished rows of ``rows`` have a label metric (MZE) and no AUC."""
    from ordauc import solvers
    from ordauc.errors import UserError

    name = names.get(solver, solver)
    try:
        return not hasattr(solvers.info(name).cls, "decision_function")
    except (UserError, KeyError, ImportError):
        ok = rows[(rows["solver"] == solver) & (rows["status"] == OK)]
        has = [c for c in ("auc", "mze") if c in ok.columns]
        return (len(has) == 2 and ok["auc"].isna().all()
                and bool(pd.to_numeric(ok["mze"], errors="coerce").notna().any()))


def auc_panel(results: pd.DataFrame, dataset: str, n_labeled: int | None = None,
              n_unlabeled: int | None = None, complete: bool = False,
              metric: str = "auc") -> AucPanel:
    """The AUC (or ``metric``) boxplot data of ``dataset``.

    By default at the most common n_labeled and the largest n_unlabeled with a finished run;
    with ``complete``, at the largest n_unlabeled where every solver finished all its runs
    (if there is one), the setting of the papers' boxplots.
    Every solver of the dataset gets a slot; one without finished runs at that size keeps an
    empty slot and a note (``3 skipped``, ``not run``), as does one whose runs partly failed;
    a solver that predicts labels only (:func:`labels_only`) has no AUC and no note, and its
    empty slot says so (:meth:`AucPanel.empty_note`).
    """
    rows = _rows_of(results, dataset, metric)
    n_l, n_u = _pick_size(rows, dataset, n_labeled, n_unlabeled, complete)
    cell = rows[(rows["n_labeled"] == n_l) & (rows["n_unlabeled"] == n_u)]
    names = solver_names(rows)
    solvers = solver_order(rows["solver"], names)
    values: dict[str, np.ndarray] = {}
    notes: dict[str, str] = {}
    needs_scores = metric not in METRICS or METRICS[metric].needs == "scores"
    scoreless = frozenset(s for s in solvers if needs_scores and labels_only(s, names, rows))
    shown = "AUC" if metric == "auc" else METRICS[metric].display
    for solver in solvers:
        mine = cell[cell["solver"] == solver]
        ok = mine[mine["status"] == OK]
        values[solver] = np.sort(pd.to_numeric(ok[metric], errors="coerce").dropna()
                                 .to_numpy(dtype=np.float64))
        failed = mine[mine["status"] != OK]
        if mine.empty:
            notes[solver] = "not run"
        elif len(failed):
            notes[solver] = failure_counts(failed["status"])
        elif values[solver].size < len(ok) and solver not in scoreless:
            notes[solver] = f"{len(ok) - values[solver].size} without {shown}"
    eval_sets = cell["eval_set"].dropna().astype(str).unique() if "eval_set" in cell else []
    return AucPanel(dataset=dataset, task=infer_task(rows), n_labeled=n_l, n_unlabeled=n_u,
                    eval_set=", ".join(sorted(eval_sets)) or None, solvers=solvers,
                    values=values, notes=notes, names=names, metric=metric,
                    labels_only=scoreless)


def _size_row(group: pd.DataFrame, value: str) -> dict[str, object]:
    ok = group[group["status"] == OK]
    failed = group[group["status"] != OK]
    times = pd.to_numeric(ok[value], errors="coerce").dropna().to_numpy(dtype=np.float64)
    status = OK if failed.empty else str(failed["status"].replace("", NO_STATUS).mode()[0])
    return {"n_runs": len(group), "n_ok": len(ok), "n_failed": len(failed), "status": status,
            "mean": times.mean() if times.size else np.nan,
            "std": times.std(ddof=1) if times.size > 1 else (0.0 if times.size else np.nan),
            "min": times.min() if times.size else np.nan,
            "max": times.max() if times.size else np.nan,
            "drawn": bool(failed.empty and times.size)}


def _reason(failed: pd.DataFrame) -> str:
    return "memory" if failed["message"].str.contains("memory", case=False).any() else ""


def size_axis(rows: pd.DataFrame) -> str:
    """The size a dataset's rows vary: ``n_labeled`` when its labeled sizes are several and
    its unlabeled size is one, or is every row left (``n_unlabeled: all``, the total constant:
    a study of training-set size tested on the remaining rows), else ``n_unlabeled``."""
    if rows["n_labeled"].nunique() > 1 and (
            rows["n_unlabeled"].nunique() == 1
            or (rows["n_labeled"] + rows["n_unlabeled"]).nunique() == 1):
        return "n_labeled"
    return "n_unlabeled"


def time_curves(results: pd.DataFrame, dataset: str, n_labeled: int | None = None,
                value: str = "fit_time_s") -> TimeCurves:
    """Training time (``value``: another numeric column, e.g. a metric) of every solver of
    ``dataset`` against the size the study varies (:func:`size_axis`): n_unlabeled at one
    n_labeled, or n_labeled.

    A size where any run of a solver did not finish is left out of its line; the first size of
    each stretch of such sizes gets a :class:`FailureMark`, so the line visibly stops there.
    """
    rows = _rows_of(results, dataset, value if value in METRICS else "auc")
    axis = size_axis(rows)
    if axis == "n_unlabeled":
        n_l, _ = _pick_size(rows, dataset, n_labeled, None)
        rows = rows[rows["n_labeled"] == n_l]
    else:
        n_l = None
    names = solver_names(rows)
    solvers = solver_order(rows["solver"], names)
    records, marks = [], []
    for solver in solvers:
        mine = rows[rows["solver"] == solver]
        last_ok: int | None = None
        previous_failed = False
        for size, group in sorted(mine.groupby(axis), key=lambda item: item[0]):
            record = {"solver": solver, axis: int(size), **_size_row(group, value)}
            records.append(record)
            if record["n_failed"] and not previous_failed:
                failed = group[group["status"] != OK]
                marks.append(FailureMark(solver=solver, size=int(size), last_ok=last_ok,
                                         status=str(record["status"]), reason=_reason(failed),
                                         n_failed=len(failed), n_runs=len(group),
                                         display=display_name(solver, names)))
            previous_failed = bool(record["n_failed"])
            if record["drawn"]:
                last_ok = int(size)
    columns = ["solver", axis, "n_runs", "n_ok", "n_failed", "status", "mean", "std",
               "min", "max", "drawn"]
    return TimeCurves(dataset=dataset, n_labeled=n_l, solvers=solvers,
                      table=pd.DataFrame.from_records(records, columns=columns), marks=marks,
                      names=names, axis=axis, value=value)
