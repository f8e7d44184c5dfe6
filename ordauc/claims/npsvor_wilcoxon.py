"""The NPSVOR paper's per-dataset Wilcoxon machinery (Wang et al., IEEE Trans. Cybernetics
2017, Section V-C): "A p-value threshold of 0.05 in Wilcoxon signed sum test is used to decide
the ranking of the ten methods on each dataset" (Tables II-III) and "each pair of methods is
compared for each dataset and the total number of statistically significant wins, draws or
losses are reported in Table IV".

Every comparison is :meth:`ordauc.claims.evidence.Paired.compare` (the exact signed-rank test
of :mod:`ordauc.stats`, two-sided at 0.05, on the splits where both methods are ok), so a
comparison is *better*, *worse*, *tie* (mean gap within the metric's practical margin, 1e-3),
*no difference*, or *undecided*: fewer than 80 % of the planned splits paired, fewer than 80 %
of the paper's splits (24 of 30, 4 of 5), or too few pairs for the test ever to reach p < 0.05
(five splits: smallest two-sided p 0.0625). "Signed sum" is read as signed-rank.

**The paper's ranking of one dataset** (our exact reading of "decide the ranking"): order the
ten methods by mean; the best remaining method and every remaining method whose comparison with
it is a tie or no difference form a group sharing the average of the places they span; repeat
on the rest. A dataset with an undecided comparison among those the grouping needs is *not
ranked* (it is missing, and the average ranks are bounded over it, never filled with
manufactured ties); its ranks with undecided comparisons read as shared (the paper's literal
procedure at five splits) enter only the lean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc import stats
from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import (
    EXTRA,
    METHODS,
    PAPER,
    PAPER_DATASETS,
    Ranking,
    short_of,
)

SHARED = (algebra.TIE, algebra.NO_DIFFERENCE)

Split = tuple[int, dict[str, np.ndarray]]


def by_dataset(results: pd.DataFrame, metric: str) -> dict[str, Split]:
    """Per dataset: its planned repetitions and each solver's values aligned by repetition
    (NaN where not ok), from which every pair is read without another pass over the table."""
    rows = ev.rows_of(results, metric)
    rep = ev.repetition_column(rows)
    done = ev.ok(rows)
    done = done.assign(_v=pd.to_numeric(done[metric], errors="coerce"))
    wide = done[np.isfinite(done["_v"])].pivot_table(index=["dataset", rep], columns="solver",
                                                       values="_v", aggfunc="mean")
    parts = {}
    for dataset, mine in rows.groupby("dataset", sort=False):
        table = (wide.xs(dataset, level="dataset") if dataset in wide.index.get_level_values(0)
                 else pd.DataFrame())
        reps = pd.unique(mine[rep])
        table = table.reindex(reps)
        parts[str(dataset)] = (int(len(reps)),
                               {str(c): table[c].to_numpy(float) for c in table.columns})
    return parts


def compared(split: Split, a: str, b: str, metric: str, dataset: str) -> algebra.Compared:
    """``a`` against ``b`` on one dataset, two-sided, under the paper's planned splits."""
    planned, values = split
    if a not in values or b not in values:
        return algebra.Compared(None, algebra.MISSING, 0, planned, np.nan, np.nan)
    x, y = values[a], values[b]
    both = np.isfinite(x) & np.isfinite(y)
    pair = ev.Paired(x[both], y[both], planned, metric)
    return pair.compare(paper_repetitions=PAPER.reps(dataset), one_sided=False)


@dataclass(frozen=True)
class Grouped:
    """One dataset's Wilcoxon-grouped ranks: ``ranks`` (None where an undecided comparison
    keeps it unranked, with ``guard``) and ``lean`` (undecided comparisons read as shared)."""

    ranks: dict[str, float] | None
    lean: dict[str, float] | None
    guard: str


def group_ranks(split: Split, methods: Sequence[str], metric: str, dataset: str) -> Grouped:
    """The paper's ranking of one dataset (see the module docstring)."""
    planned, values = split
    means = {m: float(np.nanmean(values[m])) if m in values and np.isfinite(values[m]).any()
             else np.nan for m in methods}
    if not all(np.isfinite(v) for v in means.values()):
        return Grouped(None, None, algebra.MISSING)
    sign = 1.0 if ev.lower_is_better(metric) else -1.0
    remaining = sorted(methods, key=lambda m: sign * means[m])
    ranks: dict[str, float] = {}
    guard, place = "", 1
    while remaining:
        top, group = remaining[0], [remaining[0]]
        for m in remaining[1:]:
            c = compared(split, m, top, metric, dataset)
            if c.state is None:
                guard = guard or c.guard
                group.append(m)  # the lean reads it as shared; the verdict does not
            elif c.state in SHARED:
                group.append(m)
        for m in group:
            ranks[m] = place + (len(group) - 1) / 2.0
        place += len(group)
        remaining = [m for m in remaining if m not in group]
    return Grouped(None if guard else ranks, ranks, guard)


_CACHE: list[tuple[pd.DataFrame, str, object]] = []


def _cached(results: pd.DataFrame, key: str, make):  # type: ignore[no-untyped-def]
    for frame, name, found in _CACHE:
        if frame is results and name == key:
            return found
    found = make()
    _CACHE.append((results, key, found))
    del _CACHE[:-8]
    return found


def splits_of(results: pd.DataFrame, metric: str) -> dict[str, Split]:
    return _cached(results, f"split:{metric}", lambda: by_dataset(results, metric))


def wilcoxon_ranking(results: pd.DataFrame, metric: str,
                     methods: Sequence[str] = METHODS) -> Ranking:
    """The paper's Wilcoxon-grouped ranks of ``methods`` on each of its datasets in the
    results (extra, short and undecided datasets unranked, bounded over)."""
    def make() -> Ranking:
        parts = splits_of(results, metric)
        ranked, lean, unranked, means = {}, {}, {}, {}
        for dataset, split in parts.items():
            grouped = group_ranks(split, methods, metric, dataset)
            if grouped.lean is not None:
                lean[dataset] = grouped.lean
            if not PAPER.named(dataset):
                unranked[dataset] = EXTRA
            elif short_of(split[0], PAPER.reps(dataset)):
                unranked[dataset] = (f"{split[0]} of the paper's {PAPER.reps(dataset)} splits "
                                     f"planned")
            elif grouped.ranks is None:
                unranked[dataset] = ("a comparison undecided: "
                                     + algebra.GUARD_TEXT.get(grouped.guard, grouped.guard))
            else:
                ranked[dataset] = grouped.ranks
                means[dataset] = {m: float(np.nanmean(split[1][m])) for m in methods}
        frame = pd.DataFrame.from_dict(ranked, orient="index", columns=list(methods))
        return Ranking(metric, tuple(methods),
                       pd.DataFrame.from_dict(means, orient="index", columns=list(methods)),
                       frame.astype(float), unranked, PAPER_DATASETS,
                       pd.DataFrame.from_dict(lean, orient="index", columns=list(methods)),
                       "wilcoxon")
    return _cached(results, f"wrank:{metric}:{','.join(methods)}", make)


WIN, DRAW, LOSS = stats.WIN, stats.DRAW, stats.LOSS
OUTCOME = {algebra.BETTER: WIN, algebra.WORSE: LOSS, algebra.TIE: DRAW,
           algebra.NO_DIFFERENCE: DRAW}


def tally(results: pd.DataFrame, metric: str, baseline: str,
          proposed: str = "npsvor") -> list[algebra.Judgment]:
    """NPSVOR's win / draw / loss against ``baseline`` on each dataset of the results (Table
    IV), each a :class:`ordauc.claims.algebra.Judgment`: undecided where a guard applies
    (leaning to what the bare two-sided test gives, :func:`ordauc.stats.pair_outcome`: a draw
    at five splits), marked extra where the dataset is not the paper's."""
    def make() -> list[algebra.Judgment]:
        out = []
        for dataset, split in splits_of(results, metric).items():
            c = compared(split, proposed, baseline, metric, dataset)
            out.append(algebra.judge(dataset, OUTCOME.get(c.state or "") if c.state
                                     else None, guards=(c.guard,), text=c.text(),
                                     named=PAPER.named(dataset)))
            if c.state is None and c.n:  # the lean: the bare test, no guard (Table IV's way)
                planned, values = split
                lean = stats.pair_outcome(values[proposed], values[baseline],
                                          ev.lower_is_better(metric)).outcome
                out[-1] = algebra.Judgment(dataset, None, c.guard, c.text(),
                                           PAPER.named(dataset), lean)
        return out
    return _cached(results, f"tally:{metric}:{baseline}", make)
