"""What the checks of the NPSVOR paper (Wang, Shi, Niu & Tian, IEEE Trans. Cybernetics 2017)
share: the ten methods of its comparison, the per-dataset matrix of means and its ranks, bounds
on average ranks over the paper's 23 datasets when some are missing, the Bonferroni-Dunn
critical difference with NPSVOR as control, and the rows of a swept parameter.

Average ranks over missing datasets. The paper averages ranks over 23 datasets (Section V-C,
Tables II-III, Fig. 5). Where fewer are ranked, a check bounds what the missing ones could do:
on one dataset the mean rank of a group of ``a`` methods minus that of a disjoint group of ``b``
methods lies in ``[(a + b) / 2 - k, k - (a + b) / 2]`` among ``k`` methods (for two single
methods, +-(k - 1)). A claim whose verdict is the same at both ends of every bound is decided;
otherwise it is UNDECIDABLE, naming the datasets it lacks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as ss

from ordauc.claims import evidence as ev
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE
from ordauc.report.tables import rank_rows

PROPOSED = "npsvor"
BASELINES = ("svc1v1", "svc1va", "svr", "cssvc", "svmop", "svorex", "svorim", "redsvm", "opbe")
METHODS = (PROPOSED, *BASELINES)
PAPER_DATASETS = 23  # 17 survey sets + 6 of Chu's regression sets (Section V-C)
TOL = 1e-9  # average ranks are rationals: a gap this small is a tie


def bonferroni_dunn_cd(k: int, n: int, alpha: float = ev.ALPHA) -> float:
    """Bonferroni-Dunn critical difference of average ranks against one control method
    (Demšar, JMLR 7, 2006, Sec. 3.2.2): q = z_{1 - alpha / (2 (k - 1))}, CD = q sqrt(k (k + 1)
    / (6 N)); 2.476 for k = 10 methods and N = 23 datasets."""
    if k < 2 or n < 1:
        return math.nan
    q = float(ss.norm.ppf(1.0 - alpha / (2.0 * (k - 1))))
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


def cell_matrix(results: pd.DataFrame, metric: str, solvers: Sequence[str],
                stat: str = "mean", by: str = "dataset", **where: object
                ) -> tuple[pd.DataFrame, dict[object, str]]:
    """Per value of ``by`` (dataset, or a size column) and solver, the ``stat`` (mean or
    median) of ``metric`` over the ok repetitions (C1); NaN where a solver has ok values on
    fewer than 80 % of the planned repetitions (C2). Also, per row with a NaN, which solvers
    fell short (``"opbe 3/5 ok"``)."""
    rows = ev.rows_of(results, metric, solver=list(solvers), **where)
    keys = list(pd.unique(rows[by]))
    out = pd.DataFrame(np.nan, index=keys, columns=list(solvers), dtype=float)
    if metric not in rows.columns or not keys:
        return out, {}
    rep = ev.repetition_column(rows)
    planned = rows.groupby(by, sort=False)[rep].nunique()
    done = ev.ok(rows)
    done = done.assign(_v=pd.to_numeric(done[metric], errors="coerce"))
    per_rep = (done[np.isfinite(done["_v"])].groupby([by, "solver", rep], sort=False)["_v"]
               .mean().groupby(level=[0, 1], sort=False))
    count = per_rep.count().unstack().reindex(index=keys, columns=list(solvers)).fillna(0)
    value = (per_rep.median() if stat == "median" else per_rep.mean()).unstack().reindex(
        index=keys, columns=list(solvers))
    need = np.maximum(np.ceil(ev.PAIRED_SHARE * planned.reindex(keys) - 1e-9), 1)
    enough = count.ge(need, axis=0)
    out = value.where(enough).astype(float)
    short = {}
    for key in keys:
        lacking = [f"{s} {int(count.loc[key, s])}/{int(planned[key])} ok" for s in solvers
                   if not enough.loc[key, s]]
        if lacking:
            short[key] = ", ".join(lacking)
    return out, short


@dataclass(frozen=True)
class Ranking:
    """The methods' ranks (1 = best, ties averaged) on every dataset where all of them have a
    value, and bounds on average ranks over ``total`` datasets.

    ``values`` and ``ranks`` hold the ranked datasets; ``unranked`` names the datasets of the
    results that could not be ranked and why.
    """

    metric: str
    methods: tuple[str, ...]
    values: pd.DataFrame
    ranks: pd.DataFrame
    unranked: dict[object, str]
    total: int

    @property
    def n(self) -> int:
        return len(self.ranks)

    @property
    def missing(self) -> int:
        return max(self.total - self.n, 0)

    def average(self) -> pd.Series:
        """Average ranks over the ranked datasets (NaN without any)."""
        return self.ranks.mean(axis=0) if self.n else pd.Series(np.nan, index=self.methods)

    def gap(self, a: Sequence[str], b: Sequence[str]) -> tuple[float, float]:
        """Bounds on (mean rank of ``a`` - mean rank of ``b``) averaged over ``total``
        datasets: exact when none is missing; negative means ``a`` ranks better."""
        if self.n:
            observed = float((self.ranks[list(a)].mean(axis=1)
                              - self.ranks[list(b)].mean(axis=1)).sum())
        else:
            observed = 0.0
        spread = (len(self.methods) - (len(a) + len(b)) / 2.0) * self.missing
        return (observed - spread) / self.total, (observed + spread) / self.total

    def ahead_of(self, solver: str) -> tuple[int, int]:
        """How many other methods surely / possibly have a strictly lower average rank."""
        sure = possible = 0
        for other in self.methods:
            if other == solver:
                continue
            lo, hi = self.gap([solver], [other])
            sure += lo > TOL
            possible += hi > TOL
        return sure, possible

    def position(self, solver: str) -> str:
        """``2.61 (2nd of 10) on 21/23 datasets``: the observed average rank and place."""
        if not self.n:
            return f"no dataset ranked (0/{self.total})"
        average = self.average()
        place = 1 + int((average.drop(solver) < average[solver] - TOL).sum())
        tied = int((abs(average.drop(solver) - average[solver]) <= TOL).sum())
        return (f"{average[solver]:.2f} ({ordinal(place)}{' tied' if tied else ''} of "
                f"{len(self.methods)}) on {self.n}/{self.total} datasets")

    def lacking(self) -> str:
        """What the missing datasets are, for an UNDECIDABLE outcome."""
        parts = [f"{d}: {why}" for d, why in list(self.unranked.items())[:3]]
        more = len(self.unranked) - 3
        text = (f"{self.missing} of the paper's {self.total} datasets not ranked (all methods "
                f"need ok runs on >= 80 % of a dataset's splits)")
        if parts:
            text += "; " + "; ".join(parts) + (f"; {more} more" if more > 0 else "")
        return text


def ranking(results: pd.DataFrame, metric: str, methods: Sequence[str] = METHODS,
            stat: str = "mean", total: int = PAPER_DATASETS) -> Ranking:
    """Rank ``methods`` by ``metric`` (rows selected by it) on each dataset of the results."""
    values, short = cell_matrix(results, metric, methods, stat=stat)
    absent = [m for m in methods if m not in set(results["solver"])]
    if absent:
        short = {d: f"no runs of {', '.join(absent)}" for d in values.index}
    full = values.dropna(axis=0, how="any")
    lower = ev.lower_is_better(metric)
    ranks = rank_rows(full, lower) if len(full) else full.copy()
    return Ranking(metric, tuple(methods), full, ranks, short,
                   max(total, len(values.index)))


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tri_below(lo: float, hi: float, threshold: float) -> bool | None:
    """Whether a bounded quantity is below ``threshold``: True, False, or None (the bounds
    straddle it)."""
    if hi < threshold - TOL:
        return True
    if lo >= threshold - TOL:
        return False
    return None


def tri_count(hits: int, decidable: int, total: int, confirm_at: int) -> bool | None:
    """A count rule as True / False / None (undecided while the missing cases could change
    it)."""
    verdict = ev.count_rule(hits, decidable, total, confirm_at)
    return {CONFIRMED: True, NOT_CONFIRMED: False}.get(verdict)


def two_parts(first: bool | None, second: bool | None) -> str:
    """CONFIRMED if both parts hold, PARTIAL if exactly one holds and the other fails, NOT
    CONFIRMED if both fail; UNDECIDABLE while a part is undecided and could change that."""
    if first is None or second is None:
        return NOT_CONFIRMED if first is False and second is False else UNDECIDABLE
    if first and second:
        return CONFIRMED
    return PARTIAL if first or second else NOT_CONFIRMED


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho; NaN with fewer than 3 points or a constant input (no warning)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(ss.spearmanr(x, y).statistic)


def yes_no(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "undecided"}[value]


def size_matrix(results: pd.DataFrame, metric: str, solvers: Sequence[str] = METHODS,
                stat: str = "mean") -> tuple[pd.DataFrame, dict[object, str]]:
    """``cell_matrix`` by training-set size (``n_labeled``), sizes ascending."""
    values, short = cell_matrix(results, metric, solvers, stat=stat, by="n_labeled")
    return values.sort_index(), short


def swept_rows(study: object, entry: str, params: Sequence[str]) -> pd.DataFrame:
    """The rows of the labels a config entry's ``sweep`` made (``npsvor.eps=0.2``), with
    the swept values as numbers in ``p_<param>`` columns.

    The labels come from the study's config copy (:attr:`SolverSpec.sweep_of`), else from
    their spelling ``<entry>.<param>=<value>``; values from the ``p_<param>`` columns, else
    from the labels.
    """
    results = study.results
    config = getattr(study, "config", None)
    labels: list[str] = []
    if config is not None:
        labels = [s.label for s in config.solvers
                  if s.sweep_of == entry and all(p in s.swept for p in params)]
    if not labels:
        labels = [s for s in pd.unique(results["solver"].astype(str))
                  if s.startswith(f"{entry}.") and all(f".{p}=" in s for p in params)]
    rows = results[results["solver"].isin(labels)].copy()
    for param in params:
        column = f"p_{param}"
        from_label = rows["solver"].str.extract(
            rf"\.{re.escape(param)}=(-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)", expand=False)
        values = (pd.to_numeric(rows[column], errors="coerce") if column in rows.columns
                  else pd.Series(np.nan, index=rows.index))
        rows[column] = values.fillna(pd.to_numeric(from_label, errors="coerce"))
    return rows
