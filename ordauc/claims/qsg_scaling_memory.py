"""The memory and feasibility claims of the two QSG papers: the exact baselines' lines stop for
lack of memory, the QSG methods train on the full data sets.

- QS3ORAO (Shi et al., AAAI 2020), "Results and Discussion" and Figure 1's caption: "The two
  lines of M-SAMULT and M-PNU-AUC are incomplete. This is because these two methods need to save
  the whole kernel matrix, and as unlabeled data continues to increase, they are all out of
  memory" (QS3-5); "This low memory requirement allows it to do an efficient training for large
  scale datasets" (QS3-6).
- QSG-S2AUC (Shi et al., IJCAI 2019), section 6.3 and Figure 2's caption: "the low memory
  requirement of QSG-S2AUC allows it to do an efficient training for large scale datasets while
  PNU-AUC and SAMULT are out of memory" (QSG-4).

Both papers ran on 80 GB of memory. A memory failure (C7) is observed (an error reading as
memory exhaustion) or predicted (the runner's memory guard skipped the cell, saying what it
needs). A predicted failure whose stated need is at most 80 GB would not have happened on the
papers' machine: the cell is *not observed*, neither support nor failure, and keeps its dataset
undecided (:func:`ordauc.claims.qsg_scaling_common.failure_kind`). A config's ``memory_limit``
is never read here: only what the runs recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.algebra import Judgment
from ordauc.claims.qsg_scaling_common import (
    _NEEDS,
    MEMORY,
    OTHER,
    QS3,
    QS3_BASES,
    QS3_STUDIES,
    QSG,
    QSG_BASES,
    QSG_STUDIES,
    SMALL_LIMIT,
    TOTAL,
    dataset_rows,
    datasets,
    each_baseline,
    failed,
    failure_kind,
    lean_of_parts,
    lines,
    medians,
    paper_of,
    part_text,
    repetition_guard,
    settle,
    settle_kinds,
    sizes,
    still_needed,
)
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
    undecidable,
)

if TYPE_CHECKING:
    from ordauc.claims.study import Study

COMPLETE = "complete"
FULL_OK, FULL_FAILED = "ok at full size", "failed at full size"


def stop(rows: pd.DataFrame, base: str, ours: str) -> tuple[str | None, str, str]:
    """(kind, guard, detail) of ``base``'s line on one dataset: ``complete`` (ok to the
    largest size), ``memory`` (every failure above its last ok size is a memory failure the
    papers' machine would have had, and ``ours`` is ok there), ``other`` (a timeout or another
    error above it, or ``ours`` failing too); the guard ``memory below the paper's machine``
    where a failure above it is a memory-guard skip at <= 80 GB (the kind is then the lean), or
    ``runs not done``."""
    if rows[rows["solver"] == base].empty:
        return None, "runs not done", f"no run of {base}"
    grid = sizes(rows)
    done = medians(rows, base)
    n_max = max(done) if done else None
    if n_max == grid[-1]:
        return COMPLETE, "", f"complete to {n_max}"
    above = [s for s in grid if n_max is None or s > n_max]
    kinds: list[str] = []
    needs: list[str] = []
    for size in above:
        fails = failed(rows, base, size)
        if fails.empty:
            return None, "runs not done", f"ok to {n_max}, no finished or failed run at {size}"
        messages = fails["message"].fillna("").astype(str)
        kinds += [failure_kind(s, m) for s, m in zip(fails["status"], messages, strict=True)]
        needs += [m.group(1) for m in map(_NEEDS.search, messages) if m]
    counts = Counter(kinds)
    detail = (f"ok to {n_max or 'no size'}; above: "
              + ", ".join(f"{n} {k}" for k, n in counts.items())
              + (f" (needs up to {max(map(float, needs)):g} GB)" if needs else ""))
    if set(counts) - {MEMORY, SMALL_LIMIT}:
        return OTHER, "", detail  # a stop not for memory, whatever the unobserved cells do
    ours_done = medians(rows, ours)
    if not all(s in ours_done for s in above):
        return OTHER, "", f"{detail}; {ours} fails there too"
    return MEMORY, (algebra.MEMORY if SMALL_LIMIT in counts else ""), detail


def memory_rule(counts: Counter[str]) -> str:
    """CONFIRMED if the line stops short on some dataset and every stop is for memory;
    PARTIAL if it stops short otherwise; NOT CONFIRMED if it is complete everywhere."""
    if not counts[MEMORY] + counts[OTHER]:
        return NOT_CONFIRMED
    return CONFIRMED if not counts[OTHER] else PARTIAL


def feasibility(study: Study, ours: str, bases: tuple[str, ...]
                ) -> tuple[dict[str, algebra.Settled], dict[str, list[Judgment]]]:
    """Per baseline, :func:`memory_rule` settled over the paper's 8 datasets (any mix of
    complete, memory and other stops for the undecided ones), and its judgments."""
    data = paper_of(ours)
    tables = {d: dataset_rows(study.results, d) for d in datasets(study.results)}
    parts, judged = {}, {}
    for base in bases:
        judgments = []
        for dataset, rows in tables.items():
            kind, guard, detail = stop(rows, base, ours)
            judgments.append(algebra.judge(dataset, kind, text=detail,
                                           named=data.named(dataset),
                                           guards=[guard, repetition_guard(rows, data,
                                                                           dataset)]))
        parts[base] = settle_kinds(memory_rule, judgments, TOTAL, (COMPLETE, MEMORY, OTHER))
        judged[base] = judgments
    return parts, judged


def full_size(study: Study, solver: str) -> tuple[list[Judgment], str | None]:
    """Per dataset, whether every planned run of ``solver`` is ok at the largest size (undecided
    on too few repetitions, runs not done, or a memory-guard skip below 80 GB); the reason when
    the study's grid does not reach the full set."""
    resampling = getattr(study.config, "resampling", None)
    if resampling is not None and None not in resampling.n_unlabeled:
        return [], (f"the unlabeled grid of configs/{study.name}.yaml stops at "
                    f"{max(resampling.n_unlabeled)}: add `all` to resampling.n_unlabeled")
    data = paper_of(QS3 if solver == QS3 else QSG)
    judgments = []
    for dataset in datasets(study.results):
        rows = dataset_rows(study.results, dataset)
        largest = sizes(rows)[-1]
        at_size = rows[rows["n_unlabeled"] == largest]
        planned = at_size[ev.repetition_column(at_size)].nunique()
        mine = at_size[at_size["solver"] == solver]
        n_ok = int((mine["status"] == ev.OK).sum())
        kinds = {failure_kind(s, m) for s, m in zip(
            mine.loc[mine["status"] != ev.OK, "status"],
            mine.loc[mine["status"] != ev.OK, "message"].fillna("").astype(str), strict=True)}
        rss = ev.ok(mine).get("peak_rss_mb")
        rss = pd.to_numeric(rss, errors="coerce") if rss is not None else pd.Series(dtype=float)
        text = f"{n_ok}/{planned} ok at n_u={largest}" + (
            f", peak {rss.median():.0f} MB" if rss.notna().any() else "")
        guards = [repetition_guard(rows, data, dataset)]
        if kinds - {SMALL_LIMIT}:
            state = FULL_FAILED
        elif kinds:
            state, guards = None, [*guards, algebra.MEMORY]
        elif len(mine) >= planned and planned:
            state = FULL_OK
        else:
            state, guards = None, [*guards, "runs not done"]
        judgments.append(algebra.judge(dataset, state, guards=guards, text=text,
                                       named=data.named(dataset)))
    return judgments, None


_MEMORY_RULE = ("per dataset of the paper's 8 (others shown, never deciding), a baseline's largest "
                "size with >= 80 % of its runs ok (n_max); it stops for memory if every run "
                "above n_max fails for memory (C7: observed, or predicted by the memory guard "
                "with a need above the papers' 80 GB) while {ours} is ok there, and for another "
                "reason if a timeout or another error (or {ours} failing too) is among them; a "
                "memory-guard skip with a need <= 80 GB is not observed (the papers' machine "
                "would have run it): that dataset stays undecided, as one on fewer than 8 of the "
                "paper's 10 repetitions or with runs not done. Per baseline: CONFIRMED if it "
                "stops short on >= 1 dataset and every stop is for memory; PARTIAL if it stops "
                "short but some stop is not for memory; NOT CONFIRMED if it completes the grid "
                "on all 8 datasets; UNDECIDABLE while any mix of stops on the undecided datasets "
                "could change that")


def _feasibility_outcome(study: Study, ours: str, bases: tuple[str, ...],
                         full: tuple[algebra.Settled, list[Judgment]] | None = None,
                         full_reason: str | None = None) -> Outcome:
    """Per baseline the settled :func:`memory_rule`; with ``full`` (QSG-4) the full-size part
    caps a baseline's CONFIRMED at PARTIAL unless it holds."""
    parts, judged = feasibility(study, ours, bases)
    verdicts = {b: parts[b].verdict for b in bases}
    leans = [(parts[b].verdict, parts[b].provisional) for b in bases]
    notes = [f"{b}: {lines(judged[b]) or 'no dataset'}" for b in bases]
    values: dict[str, object] = {b: {"verdict": parts[b].verdict, "counts": dict(parts[b].counts),
                                     "decided": parts[b].decided,
                                     "provisional": parts[b].provisional} for b in bases}
    everyone = [Judgment(f"{b} {j.unit}", j.state, j.guard, j.text, j.named, j.provisional)
                for b in bases for j in judged[b]]
    statistic = part_text(verdicts)
    if full is None:
        verdict = settle(each_baseline, list(verdicts.values()))
        lean = lean_of_parts(each_baseline, leans)
    else:
        settled, judgments = full
        verdict = settle(_qsg4_rule, [*verdicts.values(), settled.verdict])
        lean = lean_of_parts(_qsg4_rule, [*leans, (settled.verdict, settled.provisional)])
        statistic += (f"; {ours} every run ok at full size on {settled.counts[FULL_OK]} of "
                      f"{settled.decided} decided of the paper's 8" if not full_reason
                      else f"; {ours} full size not in the grid")
        notes.append(full_reason or f"{ours} at full size: {lines(judgments)}")
        values["full_size"] = {"verdict": settled.verdict, "ok": settled.counts[FULL_OK],
                               "decided": settled.decided}
        everyone += [Judgment(f"{ours} {j.unit}", j.state, j.guard, j.text, j.named,
                              j.provisional) for j in judgments]
    lean = lean if verdict == UNDECIDABLE else None
    if verdict == UNDECIDABLE:
        undecided = [parts[b] for b in bases if parts[b].verdict == UNDECIDABLE]
        if undecided:
            notes.append(still_needed(undecided[0], ours))
    return Outcome(verdict, statistic + algebra.lean_text(lean), " | ".join(notes),
                   "interpretation", values={**values, "parts": verdicts},
                   judgments=tuple(everyone), provisional=lean)


@claim("QS3ORAO", "QS3-5", studies=QS3_STUDIES,
       text="M-SAMULT and M-PNU-AUC run out of memory as the unlabeled data grow, so their "
       "training-time lines are incomplete",
       rule=_MEMORY_RULE.format(ours=QS3) + ". Overall: CONFIRMED if both baselines are, NOT "
       "CONFIRMED if neither stops short, PARTIAL otherwise")
def qs3_5(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion" on Figure 1: "The two lines of M-SAMULT
    and M-PNU-AUC are incomplete. This is because these two methods need to save the whole
    kernel matrix, and as unlabeled data continues to increase, they are all out of memory".

    Read per baseline (M-PNU-AUC's reference code keeps 200 centres, O(n b) memory, and may
    never run out); a dataset whose runs are not done counts as undecided.
    """
    if QS3 not in set(study.results.get("solver", [])):
        return undecidable(f"no run of {QS3} in configs/{study.name}.yaml's results")
    return _feasibility_outcome(study, QS3, QS3_BASES)


def _full_rule(at_least: int) -> Callable[[Counter[str]], str]:
    def rule(counts: Counter[str]) -> str:
        if counts[FULL_OK] >= TOTAL:
            return CONFIRMED
        return PARTIAL if counts[FULL_OK] >= at_least else NOT_CONFIRMED
    return rule


@claim("QS3ORAO", "QS3-6", studies=QS3_STUDIES,
       text="QS3ORAO's low memory requirement lets it train on the full large data sets",
       rule="per dataset of the paper's 8 (others shown, never deciding), every planned run of "
       "qs3orao ok at the full unlabeled size (the grid's `all`); a failure there decides "
       "against it, except a memory-guard skip with a need <= the papers' 80 GB (not "
       "observed: undecided), and a dataset on fewer than 8 of the paper's 10 repetitions is "
       "undecided: CONFIRMED on all 8 datasets, PARTIAL on >= 6, NOT CONFIRMED otherwise; "
       "UNDECIDABLE while the undecided datasets could change that")
def qs3_6(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion": "QS3ORAO only need to keep m random
    features in each iteration. This low memory requirement allows it to do an efficient
    training for large scale datasets". The memory itself is shown (peak RSS) where recorded;
    the verdict rests on the runs finishing."""
    judgments, reason = full_size(study, QS3)
    if reason:
        return undecidable(reason)
    settled = algebra.settle(_full_rule(6), judgments, TOTAL,
                             FULL_OK, FULL_FAILED)
    evidence = lines(judgments) or f"no run of {QS3}"
    if settled.verdict == UNDECIDABLE:
        evidence += f" | {still_needed(settled, QS3)}"
    return Outcome(settled.verdict, f"every run ok at full size on {settled.counts[FULL_OK]} of "
                   f"{settled.decided} decided of the paper's 8"
                   + algebra.lean_text(settled.provisional), evidence, "strict",
                   values={"ok": settled.counts[FULL_OK], "decided": settled.decided},
                   judgments=tuple(judgments), provisional=settled.provisional)


def _qsg4_rule(verdicts: tuple[str, ...]) -> str:
    """Each baseline's memory verdict, capped at PARTIAL unless QSG-S2AUC reaches full size
    everywhere, then combined over the baselines."""
    *bases, full = verdicts
    return each_baseline(tuple(PARTIAL if b == CONFIRMED and full != CONFIRMED else b
                               for b in bases))


@claim("QSG-S2AUC", "QSG-4", studies=QSG_STUDIES,
       text="SAMULT and PNU-AUC run out of memory on the large sets, while QSG-S2AUC's low "
       "memory requirement lets it train on them",
       rule=_MEMORY_RULE.format(ours=QSG) + "; in addition qsg_s2auc must have every planned "
       "run ok at the full size on all 8 datasets (decided as QS3-6), else a baseline's "
       "CONFIRMED becomes PARTIAL. Overall: CONFIRMED if both baselines are, NOT CONFIRMED if "
       "neither stops short, PARTIAL otherwise; UNDECIDABLE while an undecided part could "
       "change that")
def qsg_4(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), section 6.3 and Figure 2's caption: the SAMULT and PNU-AUC lines
    stop "because their implementations crash on larger training sets", out of memory, while
    "the low memory requirement of QSG-S2AUC allows it to do an efficient training for large
    scale datasets" (Susy 5,000,000 and Unclonable 6,000,000 rows included).

    One n x n float64 matrix takes 80 GB at n = 100,000, so SAMULT may complete the smaller
    sets; PNU-AUC's reference code (O(n b) memory) may complete them all.
    """
    if QSG not in set(study.results.get("solver", [])):
        return undecidable(f"no run of {QSG} in configs/{study.name}.yaml's results")
    judgments, reason = full_size(study, QSG)
    if reason:
        settled = algebra.Settled(UNDECIDABLE, None, 0, TOTAL, Counter())
    else:
        settled = algebra.settle(_full_rule(TOTAL), judgments, TOTAL,
                                 FULL_OK, FULL_FAILED)
    return _feasibility_outcome(study, QSG, QSG_BASES, (settled, judgments), reason)
