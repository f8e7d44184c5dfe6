"""Statistical comparison of the methods of a metric table, as the NPSVOR paper reports it.

Every p-value comes from the statistics kernel :mod:`ordauc.stats`, which the claims use too.

* Per dataset, the exact Wilcoxon signed-rank test (two-sided, zero differences discarded,
  exact also with ties: :func:`ordauc.stats.signed_rank`) over the repetitions, paired on
  ``repetition``, for every pair of methods at p < 0.05: the wins / draws / losses of Table IV.
  The direction of a significant difference is the side the signed ranks favour (the smaller of
  the two one-sided p-values), so it is defined even when the median difference is zero; a pair
  whose differences are all zero is a draw (p = 1). A draw between fewer than 6 pairs could not
  have been anything else (the smallest two-sided p of 5 pairs is 0.0625): such draws are
  counted apart as *undecidable*.
* Over the datasets, the Friedman test (``scipy.stats.friedmanchisquare``) on the dataset x
  method matrix of mean values, with the average ranks, followed by two post-hoc procedures:
  Nemenyi (``scikit_posthocs.posthoc_nemenyi_friedman``) with its critical difference
  CD = q_alpha sqrt(k (k + 1) / (6 N)), and the pairwise exact signed-rank test over the
  datasets with Holm's correction (:func:`ordauc.stats.wilcoxon_holm`), the alternative
  Benavoli et al. (JMLR 17, 2016) recommend over mean-rank tests.

q_alpha is Demšar's (JMLR 7, 2006, Sec. 3.2.2 and Table 5a) critical value of the two-tailed
Nemenyi test: the 1 - alpha quantile of the studentised range of k means with infinite degrees of
freedom divided by sqrt(2), here ``scipy.stats.studentized_range.ppf(1 - alpha, k, inf) /
sqrt(2)`` (3.164 for k = 10 at alpha = 0.05).

N counts the datasets where every method's runs all finished (:class:`MetricTable` ranks them);
the others are named as left out. Every result is a plain dataclass or data frame.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc import stats as kernel
from ordauc.metrics import Metric
from ordauc.report.tables import (
    MetricTable,
    rank_rows,
)

ALPHA = 0.05
WIN, DRAW, LOSS, NOT_COMPARED = kernel.WIN, kernel.DRAW, kernel.LOSS, kernel.NOT_COMPARED
UNDECIDABLE = "undecidable"
_FLIP = {WIN: LOSS, LOSS: WIN, DRAW: DRAW, NOT_COMPARED: NOT_COMPARED}


# ---------------------------------------------------------------------------------------------
# Wilcoxon per dataset: wins, draws, losses (Table IV)


PairTest = kernel.PairOutcome  # one per-dataset comparison (the kernel's)


def wilcoxon_pair(a: np.ndarray, b: np.ndarray, lower_is_better: bool,
                  alpha: float = ALPHA) -> PairTest:
    """Exact Wilcoxon signed-rank test of paired values ``a`` and ``b`` (NaN pairs dropped)."""
    return kernel.pair_outcome(a, b, lower_is_better, alpha)


@dataclass(frozen=True)
class WinDrawLoss:
    """Wilcoxon wins / draws / losses of every method against every other over the datasets.

    ``wins.loc[a, b]`` counts the datasets where ``a`` is significantly better than ``b``
    (so ``wins.loc[a, b] == losses.loc[b, a]``), ``draws`` those without a significant
    difference, ``not_compared`` those where the two share no finished repetition. ``tests``
    has one row per dataset and pair (``method`` before ``opponent`` in table order) with the
    outcome for ``method``. ``totals`` sums over the opponents, ordered like the paper's Table
    IV by wins minus losses. ``undecidable`` counts the draws between too few pairs for the
    test ever to reject (:func:`ordauc.stats.can_reject`), which are no evidence of a tie.
    """

    metric: Metric
    methods: list[str]
    problems: list[str]
    alpha: float
    tests: pd.DataFrame
    wins: pd.DataFrame
    draws: pd.DataFrame
    losses: pd.DataFrame
    not_compared: pd.DataFrame
    undecidable: pd.DataFrame

    @property
    def totals(self) -> pd.DataFrame:
        frame = pd.DataFrame({"wins": self.wins.sum(axis=1), "draws": self.draws.sum(axis=1),
                              "losses": self.losses.sum(axis=1),
                              "not_compared": self.not_compared.sum(axis=1),
                              "undecidable": self.undecidable.sum(axis=1)})
        frame["wins_minus_losses"] = frame["wins"] - frame["losses"]
        frame["order"] = range(len(frame))
        frame = frame.sort_values(["wins_minus_losses", "wins", "order"],
                                  ascending=[False, False, True])
        return frame.drop(columns="order").astype(int)

    def cell(self, a: str, b: str) -> str:
        """``wins/draws/losses`` of ``a`` against ``b``."""
        return f"{self.wins.loc[a, b]}/{self.draws.loc[a, b]}/{self.losses.loc[a, b]}"


def win_draw_loss(table: MetricTable, alpha: float = ALPHA) -> WinDrawLoss:
    """Wilcoxon signed-rank tests per dataset over repetitions for every pair of methods."""
    methods = table.methods
    zeros = np.zeros((len(methods), len(methods)), dtype=np.int64)
    counts = {kind: pd.DataFrame(zeros.copy(), index=methods, columns=methods)
              for kind in (WIN, DRAW, LOSS, NOT_COMPARED, UNDECIDABLE)}
    wide = {problem: group.pivot(index="repetition", columns="method", values="value")
            for problem, group in table.values.groupby("problem", sort=False)}
    records = []
    for problem in table.problems:
        values = wide.get(problem, pd.DataFrame()).reindex(columns=methods)
        for a, b in itertools.combinations(methods, 2):
            test = wilcoxon_pair(values[a].to_numpy(), values[b].to_numpy(),
                                 table.metric.lower_is_better, alpha)
            counts[test.outcome].loc[a, b] += 1
            counts[_FLIP[test.outcome]].loc[b, a] += 1
            if test.outcome == DRAW and not test.decidable:
                counts[UNDECIDABLE].loc[a, b] += 1
                counts[UNDECIDABLE].loc[b, a] += 1
            records.append({"dataset": problem, "method": a, "opponent": b,
                            "n_pairs": test.n_pairs, "statistic": test.statistic,
                            "p_value": test.p_value, "outcome": test.outcome,
                            "median_difference": test.median_difference,
                            "decidable": test.decidable})
    columns = ["dataset", "method", "opponent", "n_pairs", "statistic", "p_value", "outcome",
               "median_difference", "decidable"]
    return WinDrawLoss(metric=table.metric, methods=list(methods), problems=list(table.problems),
                       alpha=alpha, tests=pd.DataFrame.from_records(records, columns=columns),
                       wins=counts[WIN], draws=counts[DRAW], losses=counts[LOSS],
                       not_compared=counts[NOT_COMPARED], undecidable=counts[UNDECIDABLE])


# ---------------------------------------------------------------------------------------------
# Friedman over datasets, Nemenyi and Wilcoxon-Holm post-hoc


nemenyi_q = kernel.nemenyi_q
nemenyi_cd = kernel.nemenyi_cd


def cliques(pvalues: pd.DataFrame, ranks: pd.Series, alpha: float = ALPHA) -> list[list[str]]:
    """Maximal groups (two or more) of methods no pair of which differs significantly.

    A pair differs when its p-value is below ``alpha`` (as ``scikit_posthocs`` draws its
    critical difference diagrams). Members are listed by average rank, groups by their best rank.
    """
    names = [str(m) for m in ranks.index]
    close = {a: {b for b in names if b != a and not pvalues.loc[a, b] < alpha} for a in names}
    found: list[set[str]] = []

    def expand(current: set[str], candidates: set[str], excluded: set[str]) -> None:
        if not candidates and not excluded:
            found.append(current)
            return
        for name in [n for n in names if n in candidates]:
            expand(current | {name}, candidates & close[name], excluded & close[name])
            candidates = candidates - {name}
            excluded = excluded | {name}

    expand(set(), set(names), set())
    groups = [sorted(g, key=lambda m: (ranks[m], names.index(m))) for g in found if len(g) > 1]
    return sorted(groups, key=lambda g: (ranks[g[0]], ranks[g[-1]]))


@dataclass(frozen=True)
class PostHoc:
    """A post-hoc procedure's pairwise p-values and the groups it cannot tell apart."""

    name: str
    pvalues: pd.DataFrame
    alpha: float
    groups: list[list[str]]
    cd: float | None = None
    q_alpha: float | None = None

    @property
    def significant(self) -> pd.DataFrame:
        """True where the pair differs significantly (p < alpha); the diagonal is False."""
        sig = self.pvalues < self.alpha
        for m in sig.index:
            sig.loc[m, m] = False
        return sig


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test of one metric over the datasets, average ranks and post-hoc tests.

    ``means`` is the N x k matrix the tests read (datasets where every run finished), ``ranks``
    its per-dataset ranks (1 = best, ties averaged). ``statistic`` and ``p_value`` are NaN and
    ``note`` says why when the test needs more (k >= 3 methods, N >= 2 datasets).
    """

    metric: Metric
    alpha: float
    methods: list[str]
    problems: list[str]
    left_out: list[str]
    means: pd.DataFrame
    ranks: pd.DataFrame
    average_ranks: pd.Series
    statistic: float
    p_value: float
    nemenyi: PostHoc | None
    wilcoxon_holm: PostHoc | None
    note: str = ""

    @property
    def n(self) -> int:
        return len(self.problems)

    @property
    def k(self) -> int:
        return len(self.methods)

    @property
    def rejected(self) -> bool:
        """The Friedman test rejects "all methods are equivalent" at ``alpha``."""
        return bool(self.p_value < self.alpha)


def _oriented(means: pd.DataFrame, metric: Metric) -> np.ndarray:
    """Mean values with lower = better, so that rank 1 is the best method."""
    values = means.to_numpy(dtype=np.float64).round(12)
    return values if metric.lower_is_better else -values


def friedman(table: MetricTable, alpha: float = ALPHA) -> FriedmanResult:
    """Friedman test on the dataset x method matrix of means, with Nemenyi and Wilcoxon-Holm."""
    import scikit_posthocs as sp

    methods, problems = list(table.methods), table.ranked_problems
    means = table.mean.loc[problems, methods]
    ranks = rank_rows(means, table.metric.lower_is_better)
    average = (ranks.mean(axis=0) if len(ranks) else pd.Series(np.nan, index=methods)).astype(
        float)
    n, k = len(problems), len(methods)
    statistic = p_value = math.nan
    notes = []
    oriented = _oriented(means, table.metric)
    if k < 3:
        notes.append(f"the Friedman test needs at least 3 methods, there are {k}")
    elif n < 2:
        notes.append(f"the Friedman test needs at least 2 datasets where every run finished, "
                     f"there are {n}")
    else:
        test = kernel.friedman_test(oriented)
        statistic, p_value = test.statistic, test.p_value
        if not math.isfinite(statistic):  # every dataset ties all methods: nothing differs
            notes.append("every dataset ranks all methods equal")
    nemenyi = holm = None
    finite = bool(np.isfinite(oriented).all())
    if not finite:  # ranked datasets have every mean; a NaN here would be a bug upstream
        notes.append("the post-hoc tests need a finite mean of every method on every dataset")
    if k >= 2 and n >= 1 and finite:
        # no warning to silence: on the finite matrix of ranks the test is defined, ties
        # (all methods equal: p = 1) included
        p_nem = sp.posthoc_nemenyi_friedman(oriented)
        p_nem = pd.DataFrame(p_nem.to_numpy(), index=methods, columns=methods)
        nemenyi = PostHoc("Nemenyi", p_nem, alpha, cliques(p_nem, average, alpha),
                          cd=nemenyi_cd(k, n, alpha), q_alpha=nemenyi_q(k, alpha))
    if k >= 2 and n >= 2:  # a signed-rank test over one dataset has nothing to rank
        p_holm = pd.DataFrame(kernel.wilcoxon_holm(oriented), index=methods, columns=methods)
        holm = PostHoc("Wilcoxon-Holm", p_holm, alpha, cliques(p_holm, average, alpha))
    return FriedmanResult(metric=table.metric, alpha=alpha, methods=methods, problems=problems,
                          left_out=table.unranked_problems, means=means, ranks=ranks,
                          average_ranks=average, statistic=statistic, p_value=p_value,
                          nemenyi=nemenyi, wilcoxon_holm=holm, note="; ".join(notes))
