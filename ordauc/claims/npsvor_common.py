"""What the checks of the NPSVOR paper (Wang, Shi, Niu & Tian, IEEE Trans. Cybernetics 2017)
share: the ten methods, the paper's 23 datasets (by our catalogue names, as
``configs/npsvor.yaml`` runs them) and its planned splits, the per-dataset matrix of means with
the verdict algebra's guards, average ranks and their bounds over missing datasets, and the
rows of a swept parameter.

Guards (docs/claims.md, "The verdict algebra"). A dataset that is not one of the paper's 23
(a twin's stand-in, a generated set) is shown as extra evidence and never ranked for a verdict;
a dataset run on fewer than 80 % of the paper's splits (24 of 30 for the survey's 17, 4 of 5 for
Chu's six) is not ranked either. The paper averages ranks over 23 datasets (Section V-C, Tables
II-III, Fig. 5); where fewer are ranked a check bounds what the missing ones could do: on one
dataset the mean rank of a group of ``a`` methods minus that of a disjoint group of ``b``
methods lies in ``[(a + b) / 2 - k, k - (a + b) / 2]`` among ``k`` methods (for two single
methods, +-(k - 1)). A verdict that is the same at both ends of every bound is decided;
otherwise it is UNDECIDABLE, with the lean of the runs at hand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as ss

from ordauc import stats
from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

PROPOSED = "npsvor"
BASELINES = ("svc1v1", "svc1va", "svr", "cssvc", "svmop", "svorex", "svorim", "redsvm", "opbe")
METHODS = (PROPOSED, *BASELINES)
# The paper's datasets as configs/npsvor.yaml names them (a test keeps the two equal): the 17
# real datasets of the survey [11] with 30 stratified 75/25 splits, and six of Chu's benchmark
# sets with 5 random partitions (Section V-C).
SURVEY_SETS = ("contact-lenses", "pasture", "squash-stored", "squash-unstored", "tae",
               "newthyroid", "balance-scale", "swd", "car", "bondrate", "toy", "eucalyptus",
               "lev", "automobile", "winequality-red", "esl", "era")
CHU_SETS = ("boston", "abalone", "bank", "computer", "california", "census")
PAPER_SETS = SURVEY_SETS + CHU_SETS
SURVEY_SPLITS, CHU_SPLITS = 30, 5
PAPER_DATASETS = len(PAPER_SETS)  # 23
PAPER = algebra.PaperData(PAPER_SETS, {**{d: SURVEY_SPLITS for d in SURVEY_SETS},
                                       **{d: CHU_SPLITS for d in CHU_SETS}})
TOL = 1e-9  # average ranks are rationals: a gap this small is a tie
EXTRA = "extra: not one of the paper's datasets"


def bonferroni_dunn_cd(k: int, n: int, alpha: float = algebra.ALPHA) -> float:
    """Bonferroni-Dunn critical difference against one control (:func:`ordauc.stats.
    bonferroni_dunn_cd`): 2.476 for k = 10 methods and N = 23 datasets."""
    return stats.bonferroni_dunn_cd(k, n, alpha)


def short_of(planned: int, paper_reps: int | None) -> bool:
    """Whether ``planned`` splits fall short of 80 % of the paper's ``paper_reps``."""
    return bool(paper_reps) and planned < algebra.needed(int(paper_reps))


def cell_matrix(results: pd.DataFrame, metric: str, solvers: Sequence[str],
                stat: str = "mean", by: str = "dataset",
                paper: algebra.PaperData | None = PAPER, **where: object
                ) -> tuple[pd.DataFrame, dict[object, str]]:
    """Per value of ``by`` (dataset, or a size column) and solver, the ``stat`` (mean or
    median) of ``metric`` over the ok repetitions (C1); NaN where a solver has ok values on
    fewer than 80 % of the planned repetitions (C2) or the planned ones fall short of 80 % of
    the paper's (``paper.reps``). Rows of datasets that are not ``paper``'s are left out. Also,
    per key with a NaN or left out, why (``"opbe 3/5 ok"``)."""
    rows = ev.rows_of(results, metric, solver=list(solvers), **where)
    short: dict[object, str] = {}
    if paper is not None and len(rows):
        named = rows["dataset"].astype(str).map(paper.named)
        if by == "dataset":
            for extra in pd.unique(rows.loc[~named, "dataset"]):
                short[extra] = EXTRA
        rows = rows[named]
    keys = list(pd.unique(rows[by])) if len(rows) else []
    out = pd.DataFrame(np.nan, index=keys, columns=list(solvers), dtype=float)
    if metric not in rows.columns or not keys:
        return out, short
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
    for key in keys:
        reps = _paper_reps(paper, rows, by, key)
        if short_of(int(planned[key]), reps):
            enough.loc[key, :] = False
            short[key] = f"{int(planned[key])} of the paper's {reps} splits planned"
            continue
        lacking = [f"{s} {int(count.loc[key, s])}/{int(planned[key])} ok" for s in solvers
                   if not enough.loc[key, s]]
        if lacking:
            short[key] = ", ".join(lacking)
    out = value.where(enough).astype(float)
    return out, short


def _paper_reps(paper: algebra.PaperData | None, rows: pd.DataFrame, by: str,
                key: object) -> int | None:
    if paper is None:
        return None
    if by == "dataset":
        return paper.reps(str(key))
    datasets = pd.unique(rows.loc[rows[by] == key, "dataset"].astype(str))
    found = [paper.reps(d) for d in datasets]
    return max((r for r in found if r), default=None)


@dataclass(frozen=True)
class Ranking:
    """The methods' ranks (1 = best) on every paper dataset that could be ranked, and bounds on
    average ranks over the paper's ``total`` datasets.

    ``values`` and ``ranks`` hold the ranked datasets; ``unranked`` names the datasets of the
    results that could not be ranked and why (extra datasets included); ``lean`` holds the
    ranks of every dataset of the results as if no guard applied (what the runs lean to, never
    a verdict); ``kind`` says how a dataset's ranks were made.
    """

    metric: str
    methods: tuple[str, ...]
    values: pd.DataFrame
    ranks: pd.DataFrame
    unranked: dict[object, str]
    total: int
    lean: pd.DataFrame = field(default_factory=pd.DataFrame)
    kind: str = "means"

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
        total = max(self.total, 1)
        return (observed - spread) / total, (observed + spread) / total

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

    def provisional(self) -> Ranking | None:
        """The ranking of every dataset the runs have (extra and guarded ones included), as
        if complete: the lean of an UNDECIDABLE verdict (None without any dataset)."""
        if self.lean.empty:
            return None
        return Ranking(self.metric, self.methods, self.lean, self.lean, {}, len(self.lean),
                       self.lean, self.kind)

    def place(self, solver: str) -> float:
        """1 + the number of methods with a strictly lower average rank (NaN without any)."""
        if not self.n:
            return math.nan
        average = self.average()
        return float(1 + int((average.drop(solver) < average[solver] - TOL).sum()))

    def position(self, solver: str) -> str:
        """``2.61 (2nd of 10) on 21/23 datasets``: the observed average rank and place."""
        if not self.n:
            return f"no dataset ranked (0/{self.total})"
        average = self.average()
        tied = int((abs(average.drop(solver) - average[solver]) <= TOL).sum())
        return (f"{average[solver]:.2f} ({ordinal(int(self.place(solver)))}"
                f"{' tied' if tied else ''} of {len(self.methods)}) on {self.n}/{self.total} "
                f"datasets")

    def lacking(self) -> str:
        """What the missing datasets are, for an UNDECIDABLE outcome."""
        parts = [f"{d}: {why}" for d, why in list(self.unranked.items())[:4]]
        more = len(self.unranked) - 4
        text = (f"{self.missing} of the paper's {self.total} datasets not ranked (each needs "
                f"runs of all ten methods on >= 80 % of the paper's splits"
                + (", and every signed-rank comparison able to reach p < 0.05"
                   if self.kind == "wilcoxon" else "") + "; run configs/npsvor.yaml)")
        if parts:
            text += "; " + "; ".join(parts) + (f"; {more} more" if more > 0 else "")
        return text


def rank_matrix(values: pd.DataFrame, lower_is_better: bool) -> pd.DataFrame:
    """Per-row ranks of ``values`` (1 = best, ties averaged; :func:`ordauc.stats.ranks_of`)."""
    if values.empty:
        return values.astype(float)
    oriented = values.to_numpy(float) if lower_is_better else -values.to_numpy(float)
    return pd.DataFrame(stats.ranks_of(oriented), index=values.index, columns=values.columns)


def ranking(results: pd.DataFrame, metric: str, methods: Sequence[str] = METHODS,
            stat: str = "mean") -> Ranking:
    """Rank ``methods`` by the per-dataset ``stat`` of ``metric`` (rows selected by it) on each
    of the paper's datasets in the results (ties averaged); extra and short datasets are
    unranked and enter only the lean."""
    values, short = cell_matrix(results, metric, methods, stat=stat)
    absent = [m for m in methods if m not in set(results["solver"])]
    if absent:
        short.update({d: f"no runs of {', '.join(absent)}" for d in values.index})
    full = values.dropna(axis=0, how="any")
    lower = ev.lower_is_better(metric)
    raw, _ = cell_matrix(results, metric, methods, stat=stat, paper=None)
    lean = rank_matrix(raw.dropna(axis=0, how="any"), lower)
    return Ranking(metric, tuple(methods), full, rank_matrix(full, lower), short,
                   PAPER_DATASETS, lean, "means")


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


def tri_verdict(value: bool | None) -> str:
    return {True: CONFIRMED, False: NOT_CONFIRMED, None: UNDECIDABLE}[value]


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
                stat: str = "mean", paper: algebra.PaperData | None = None
                ) -> tuple[pd.DataFrame, dict[object, str]]:
    """``cell_matrix`` by training-set size (``n_labeled``), sizes ascending, over ``paper``'s
    datasets only (every dataset with None)."""
    values, short = cell_matrix(results, metric, solvers, stat=stat, by="n_labeled",
                                paper=paper)
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
