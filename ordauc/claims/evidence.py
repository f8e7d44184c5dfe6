"""The conventions every claim check shares (docs/claims.md, "Conventions"): which rows count,
how two solvers are paired, what "better", "similar" and "highest" mean, the comparison size of
the QSG accuracy claims, scaling slopes and memory failures.

All functions read a results table as :func:`ordauc.results.frame.load_results` returns it (every
status kept) and select columns by name. A solver is named by its config label (the
``solver`` column), so a study's variants (``qs3orao_gamma1``) are solvers of their own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc import stats
from ordauc.claims import algebra
from ordauc.results import schema
from ordauc.results.frame import by_selection
from ordauc.results.schema import OK

ALPHA = 0.05
SIMILAR_CAP = 0.02  # C4: a mean gap of 2 points is never "similar"
PAIRED_SHARE = 0.8  # C2: a comparison needs 80 % of the planned repetitions paired
LOWER_IS_BETTER = {"auc": False, "c_index": False, "mze": True, "mae": True,
                   "fit_time_s": True, "cv_time_s": True, "predict_time_s": True}
# C7: an error reads as memory exhaustion when its message names it (Python's MemoryError,
# numpy's "Unable to allocate", "out of memory" of a library, the kernel, CUDA or Slurm's
# OUT_OF_MEMORY, an oom-kill) or the way the kernel's OOM killer ends a process, SIGKILL, as it
# is reported: "killed by SIGKILL" (a cell's process), "(signal 9)" (a worker), "Killed" (a
# shell; capitalised, as a shell prints it: "killed by SIGTERM" is someone stopping the run),
# and an exit status of 137 = 128 + 9 (shells, containers, batch systems) or -9 (Python's
# return code for a signal). A number counts only as such an exit status, after "exit" or
# "return" and "code" or "status": "1370 rows" or "seed 137" is no kill.
_EXIT_KILLED = (r"(?:\b(?:exit|exited|return|returned)\b[^\d\n]{0,20}?\b(?:code|status)"
                r"|\b(?:exit|return)_?code)[\s:=]{0,3}(?:137|-9)(?!\d)|\bEXIT\(137\)")
MEMORY_ERROR = re.compile(r"MemoryError|Unable to allocate|\bout[ _]of[ _]memory\b"
                          r"|\boom[-_ ]?kill|(?-i:\bKilled\b)|\bSIGKILL\b|\bsignal 9\b|"
                          + _EXIT_KILLED, re.I)


def lower_is_better(metric: str) -> bool:
    """Whether a smaller value of ``metric`` is better (AUC: no; MZE, MAE, times: yes)."""
    if metric in LOWER_IS_BETTER:
        return LOWER_IS_BETTER[metric]
    from ordauc.metrics import METRICS

    return METRICS[metric].lower_is_better


def rows_of(results: pd.DataFrame, metric: str | None = None, **where: object) -> pd.DataFrame:
    """The rows matching ``where`` (column=value; a list or tuple value matches any of its
    items), every status kept; with ``metric``, each solver's rows selected by that metric
    where a study tunes by several (:func:`ordauc.results.frame.by_selection`)."""
    rows = results if metric is None else by_selection(results, metric)
    for column, value in where.items():
        if value is None:
            continue
        if isinstance(value, list | tuple | set):
            rows = rows[rows[column].isin(list(value))]
        else:
            rows = rows[rows[column] == value]
    return rows


def ok(rows: pd.DataFrame) -> pd.DataFrame:
    """The finished repetitions (C1: only ``status == ok`` enters a statistic)."""
    return rows[rows["status"] == OK]


def repetition_column(rows: pd.DataFrame) -> str:
    """The column numbering the repetitions (:func:`ordauc.results.schema.repetition_column`;
    ``seed`` where a table has neither, as tables written before repetitions were named)."""
    return schema.repetition_column(rows.columns) or schema.LEGACY_REPETITION


def planned(results: pd.DataFrame, dataset: str, **where: object) -> int:
    """The repetitions planned for ``dataset`` (at the sizes in ``where``): the distinct
    repetitions any solver has a row for, whatever its status."""
    rows = rows_of(results, dataset=dataset, **where)
    return int(rows[repetition_column(rows)].nunique()) if len(rows) else 0


@dataclass(frozen=True)
class Paired:
    """Two solvers' values of one metric on the repetitions where both are ok (C2).

    ``d = a - b``, unoriented; ``planned`` is what C2 compares ``n`` with.
    """

    a: np.ndarray
    b: np.ndarray
    planned: int
    metric: str

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def d(self) -> np.ndarray:
        return self.a - self.b

    @property
    def enough(self) -> bool:
        """At least 80 % of the planned repetitions are paired (C2)."""
        return self.n > 0 and self.n >= math.ceil(PAIRED_SHARE * self.planned - 1e-9)

    @property
    def mean(self) -> float:
        return float(self.d.mean()) if self.n else math.nan

    @property
    def sd(self) -> float:
        return float(self.d.std(ddof=1)) if self.n > 1 else math.nan

    def p(self, alternative: str = "two-sided") -> float:
        """Wilcoxon signed-rank p of ``a - b`` (C3): ``greater`` tests a > b."""
        return wilcoxon_p(self.d, alternative)

    def p_better(self) -> float:
        """One-sided p that ``a`` is better than ``b`` in the metric's direction."""
        return self.p("less" if lower_is_better(self.metric) else "greater")

    def better(self) -> bool:
        """C4: the mean difference favours ``a`` and the one-sided p is below 0.05."""
        good = self.mean < 0 if lower_is_better(self.metric) else self.mean > 0
        return bool(self.n and good and self.p_better() < ALPHA)

    def worse(self) -> bool:
        """``b`` better than ``a`` (C4 with the roles swapped)."""
        return Paired(self.b, self.a, self.planned, self.metric).better()

    def similar(self) -> bool:
        """C4 [interpretation]: abs(mean d) < 0.02 and (abs(mean d) <= sd of d, or two-sided
        p > 0.05)."""
        if not self.n:
            return False
        gap = abs(self.mean)
        noisy = (self.n > 1 and gap <= self.sd) or self.p() > ALPHA
        return bool(gap < SIMILAR_CAP and noisy)

    def similar_or_better(self) -> bool:
        return self.similar() or self.better()

    def compare(self, paper_repetitions: int | None = None, one_sided: bool = True
                ) -> algebra.Compared:
        """This comparison under the verdict algebra (:func:`ordauc.claims.algebra.compare`):
        better, worse, tie, no difference, or undecided with the guard that stopped it."""
        return algebra.compare(self.d, self.planned, lower_is_better=lower_is_better(self.metric),
                               metric=self.metric, paper_repetitions=paper_repetitions,
                               one_sided=one_sided)

    def text(self) -> str:
        """``d=+0.012 (sd 0.004, n=10, p=0.002)``, p one-sided in the metric's direction."""
        if not self.n:
            return "no paired runs"
        return (f"d={self.mean:+.4f} (sd {self.sd:.4f}, n={self.n}/{self.planned}, "
                f"p={self.p_better():.3g})")


def wilcoxon_p(d: np.ndarray, alternative: str = "two-sided") -> float:
    """Wilcoxon signed-rank p-value of differences ``d`` (C3): zeros dropped, exact also with
    ties (:func:`ordauc.stats.signed_rank`); 1 when every difference is zero, NaN without any."""
    return stats.signed_rank_p(d, alternative)


def paired(results: pd.DataFrame, dataset: str, a: str, b: str, metric: str,
           **where: object) -> Paired:
    """``a`` against ``b`` on ``dataset`` (at the sizes in ``where``), paired on repetition
    over the runs where both are ok."""
    rows = rows_of(results, metric, dataset=dataset, **where)
    rep = repetition_column(rows)
    values = {}
    for solver in (a, b):
        mine = ok(rows[rows["solver"] == solver])
        mine = mine[np.isfinite(pd.to_numeric(mine[metric], errors="coerce"))]
        values[solver] = mine.groupby(rep)[metric].mean()
    both = values[a].index.intersection(values[b].index)
    return Paired(values[a].loc[both].to_numpy(np.float64),
                  values[b].loc[both].to_numpy(np.float64), planned(results, dataset, **where),
                  metric)


def summary(results: pd.DataFrame, metric: str,
            by: tuple[str, ...] = ("dataset", "solver", "n_labeled", "n_unlabeled")
            ) -> pd.DataFrame:
    """C1: per cell, ``n_ok``, ``mean``, ``sd`` (ddof 1) and ``median`` of ``metric`` over
    the ok repetitions (rows selected by ``metric`` where a study tunes by several)."""
    rows = ok(by_selection(results, metric))
    values = pd.to_numeric(rows[metric], errors="coerce")
    grouped = values.groupby([rows[c] for c in by], sort=False)
    return pd.DataFrame({"n_ok": grouped.count(), "mean": grouped.mean(), "sd": grouped.std(ddof=1),
                         "median": grouped.median()}).reset_index()


def means(results: pd.DataFrame, dataset: str, solvers: list[str] | tuple[str, ...],
          metric: str, **where: object) -> dict[str, float]:
    """Each solver's mean ``metric`` on ``dataset`` over its ok runs (NaN without any)."""
    rows = ok(rows_of(results, metric, dataset=dataset, **where))
    out = {}
    for solver in solvers:
        values = pd.to_numeric(rows.loc[rows["solver"] == solver, metric], errors="coerce")
        out[solver] = float(values.mean()) if values.notna().any() else math.nan
    return out


def best_of(values: dict[str, float], metric: str) -> str | None:
    """The solver with the best finite mean (None without any)."""
    finite = {k: v for k, v in values.items() if np.isfinite(v)}
    if not finite:
        return None
    pick = min if lower_is_better(metric) else max
    return pick(finite, key=finite.__getitem__)


def highest(values: dict[str, float], solver: str, metric: str) -> bool:
    """C4 *highest*: ``solver`` has the strictly best mean of ``values``."""
    mine = values.get(solver, math.nan)
    others = [v for k, v in values.items() if k != solver and np.isfinite(v)]
    if not np.isfinite(mine) or not others:
        return False
    return mine < min(others) if lower_is_better(metric) else mine > max(others)


def highest_or_tied(results: pd.DataFrame, dataset: str, solver: str,
                    solvers: list[str] | tuple[str, ...], metric: str, **where: object) -> bool:
    """C4 *highest-or-tied*: ``solver`` is best, or not significantly below the best (two-sided
    paired Wilcoxon p > 0.05)."""
    values = means(results, dataset, [solver, *[s for s in solvers if s != solver]], metric,
                   **where)
    top = best_of(values, metric)
    if top is None or not np.isfinite(values[solver]):
        return False
    if top == solver or values[top] == values[solver]:
        return True
    pair = paired(results, dataset, solver, top, metric, **where)
    return bool(pair.n and pair.p() > ALPHA)


def n_u_star(results: pd.DataFrame, dataset: str, solvers: list[str] | tuple[str, ...],
             metric: str = "auc", n_labeled: int | None = None) -> int | None:
    """C10: the largest ``n_unlabeled`` at which every solver of ``solvers`` has ok runs on
    at least 80 % of the planned repetitions (None where there is no such size)."""
    rows = rows_of(results, metric, dataset=dataset, n_labeled=n_labeled)
    for size in sorted(pd.unique(rows["n_unlabeled"]), reverse=True):
        need = math.ceil(PAIRED_SHARE * planned(results, dataset, n_labeled=n_labeled,
                                                n_unlabeled=size) - 1e-9)
        at = ok(rows[rows["n_unlabeled"] == size])
        counts = at.groupby("solver")[repetition_column(at)].nunique()
        if need and all(counts.get(s, 0) >= need for s in solvers):
            return int(size)
    return None


def loglog_slope(x: np.ndarray | list[float], y: np.ndarray | list[float]) -> float:
    """C8: OLS slope of log10(y) on log10(x) over the positive pairs; NaN with fewer than 3."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if np.unique(x[keep]).size < 3:
        return math.nan
    return float(np.polyfit(np.log10(x[keep]), np.log10(y[keep]), 1)[0])


def memory_failure(status: str, message: str) -> str | None:
    """C7: ``predicted`` (skipped by the memory guard), ``observed`` (an error that reads as
    memory exhaustion) or None (not a memory failure; a timeout never is)."""
    message = message or ""
    if status == schema.SKIPPED and "memory" in message.lower():
        return "predicted"
    if status == schema.ERROR and MEMORY_ERROR.search(message):
        return "observed"
    return None


def count_rule(hits: int, decidable: int, total: int, confirm_at: int,
               partial_at: int | None = None, partial_hits: int | None = None) -> str:
    """The verdict of a count rule over ``total`` datasets (or cells) of which ``decidable``
    could be checked: CONFIRMED if ``hits`` >= ``confirm_at``; else PARTIAL if
    ``partial_hits`` (default ``hits``) >= ``partial_at``; else NOT CONFIRMED.

    UNDECIDABLE while the ``total - decidable`` unchecked ones could still change the verdict:
    a hit on each of them would confirm, or make a PARTIAL of a NOT CONFIRMED.
    """
    from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

    missing = max(total - decidable, 0)
    partial_hits = hits if partial_hits is None else partial_hits
    if hits >= confirm_at:
        return CONFIRMED
    if hits + missing >= confirm_at:
        return UNDECIDABLE
    if partial_at is not None and partial_hits >= partial_at:
        return PARTIAL
    if partial_at is not None and partial_hits + missing >= partial_at:
        return UNDECIDABLE
    return NOT_CONFIRMED


def fmt(value: float, digits: int = 4) -> str:
    """A number for evidence text: NaN as ``n/a``."""
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.{digits}g}"
