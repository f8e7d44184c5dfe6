"""What the time, memory and scaling claims of the two QSG papers share: a dataset's cells, their
median training times and paired time comparisons, memory failures, and the settling of a
verdict over the datasets a study lacks.

A *cell* is (dataset, solver, n_unlabeled) at the dataset's n_labeled (the papers fix 500 and
200 labeled rows); its time is the median ``fit_time_s`` over its ok runs (C6), kept where at
least 80 % of the planned repetitions are ok (C2). Rows are those a table of AUC reads where a
study tunes by several metrics.

The verdict algebra (:mod:`ordauc.claims.algebra`) applies as to every claim: both papers plot
their 8 datasets (Table 2) and average 10 trials, so a dataset is judged only on the paper's
datasets (others are extra evidence, never deciding) and on at least 8 of 10 repetitions; a
rule over datasets is decided only when the datasets still undecided could not change it
(:func:`settle_kinds`, :func:`median_bounds`); a cell the memory guard skipped below the papers'
80 GB machine is *not observed* (:func:`failure_kind`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.algebra import Judgment, PaperData, Settled
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

TOTAL = 8  # both papers report 8 datasets
PAPER_REPETITIONS = 10  # "All the results are the average of 10 trials" (both papers)
QS3, QS3_BASES = "qs3orao", ("m_samult", "m_pnu_auc")
QSG, QSG_BASES = "qsg_s2auc", ("samult", "pnu_auc")
QS3_STUDIES = ("qs3orao_time", "qs3orao")
QSG_STUDIES = ("qsg_s2auc_time", "qsg_s2auc")
QS3_DATA = PaperData(("road3d", "sgemm", "year", "yolanda", "baby", "beauty", "clothes", "pet"),
                     PAPER_REPETITIONS)
QSG_DATA = PaperData(("codrna", "ijcnn1", "susy", "covtype", "higgs", "skin", "dota2",
                      "unclonable"), PAPER_REPETITIONS)
TIME = "fit_time_s"
RANK = {NOT_CONFIRMED: 0, PARTIAL: 1, CONFIRMED: 2}
PAPER_GB = 80.0  # both papers' machine: 80 GB of memory
_NEEDS = re.compile(r"needs ([\d.]+) GB")
# C7 failure kinds: a memory failure the papers' machine would have had too, a memory-guard
# skip below that machine (not observed), a timeout, anything else
MEMORY, SMALL_LIMIT, TIMEOUT, OTHER = "memory", "memory<80GB", "timeout", "other"
FASTER, NOT_FASTER = "faster", "not faster"  # a cell's paired time comparison


def paper_of(ours: str) -> PaperData:
    """The datasets and repetitions of the paper that proposes ``ours``."""
    return QS3_DATA if ours == QS3 else QSG_DATA


def config_of(ours: str) -> str:
    """The time study whose runs decide the paper's time and memory claims."""
    return f"configs/{QS3_STUDIES[0] if ours == QS3 else QSG_STUDIES[0]}.yaml"


def failure_kind(status: str, message: str) -> str:
    """C7 with the papers' machine: ``memory`` (observed, or predicted by the memory guard with
    a stated need above 80 GB), ``memory<80GB`` (a guard skip with a need of at most 80 GB, or
    none stated: the papers' machine would have run it, so not observed), ``timeout`` or
    ``other``."""
    kind = ev.memory_failure(status, message)
    if kind == "predicted":
        need = _NEEDS.search(message or "")
        return MEMORY if need is not None and float(need.group(1)) > PAPER_GB else SMALL_LIMIT
    if kind == "observed":
        return MEMORY
    return TIMEOUT if status == "timeout" else OTHER


def not_observed(rows: pd.DataFrame, solvers: Iterable[str], above: int = -1) -> list[int]:
    """The sizes above ``above`` where one of ``solvers`` was skipped by the memory guard below
    the papers' machine (:func:`failure_kind` ``memory<80GB``)."""
    wanted = rows[rows["solver"].isin(list(solvers)) & (rows["n_unlabeled"] > above)
                  & (rows["status"] != ev.OK)]
    kinds = [failure_kind(s, m) for s, m in zip(wanted["status"],
                                                wanted["message"].fillna("").astype(str),
                                                strict=True)]
    return sorted({int(s) for s, k in zip(wanted["n_unlabeled"], kinds, strict=True)
                   if k == SMALL_LIMIT})


def repetition_guard(rows: pd.DataFrame, data: PaperData, dataset: str) -> str:
    """``repetitions`` where the study planned fewer than 80 % of the paper's repetitions on
    ``dataset`` (rule 2 of the algebra), else empty."""
    paper = data.reps(dataset) or PAPER_REPETITIONS
    planned = rows[ev.repetition_column(rows)].nunique() if len(rows) else 0
    return algebra.REPETITIONS if planned < algebra.needed(paper) else ""


def datasets(results: pd.DataFrame) -> list[str]:
    """The datasets of a results table, in order of appearance."""
    return [str(d) for d in pd.unique(results["dataset"])] if len(results) else []


def dataset_rows(results: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """The rows of ``dataset`` (every status) at its most common ``n_labeled``."""
    rows = ev.rows_of(results, "auc", dataset=dataset)
    if rows.empty:
        return rows
    return rows[rows["n_labeled"] == rows["n_labeled"].mode().iloc[0]]


def sizes(rows: pd.DataFrame) -> list[int]:
    """The unlabeled sizes with a row of any solver, ascending."""
    return sorted(int(s) for s in pd.unique(rows["n_unlabeled"]))


def medians(rows: pd.DataFrame, solver: str, column: str = TIME,
            n_iter: object = None) -> dict[int, float]:
    """Per unlabeled size, the median of ``column`` over ``solver``'s ok runs, where enough of
    them are ok (C2); with ``n_iter``, only its runs at that ``p_n_iter``."""
    if column not in rows.columns or rows.empty:
        return {}
    mine = rows[(rows["solver"] == solver) & (rows["status"] == ev.OK)]
    if n_iter is not None and "p_n_iter" in mine.columns:
        mine = mine[mine["p_n_iter"] == n_iter]
    values = pd.to_numeric(mine[column], errors="coerce")
    found = values.groupby(mine["n_unlabeled"]).agg(["count", "median"])
    planned = rows.groupby("n_unlabeled")[ev.repetition_column(rows)].nunique()
    out = {int(size): float(median) for size, (count, median) in found.iterrows()
           if count and count >= math.ceil(ev.PAIRED_SHARE * planned[size] - 1e-9)}
    return dict(sorted(out.items()))


def failed(rows: pd.DataFrame, solver: str, size: int) -> pd.DataFrame:
    """``solver``'s runs at ``size`` that did not finish (timeout, error, skipped)."""
    at = rows[(rows["solver"] == solver) & (rows["n_unlabeled"] == size)]
    return at[at["status"] != ev.OK]


def infeasible(rows: pd.DataFrame, ours: str, base: str) -> list[int]:
    """The sizes where ``ours`` is ok and ``base`` failed (C6: "B infeasible")."""
    mine, theirs = medians(rows, ours), medians(rows, base)
    return [s for s in mine if s not in theirs and len(failed(rows, base, s))]


def pending(rows: pd.DataFrame, solver: str) -> list[int]:
    """The sizes where ``solver`` has neither enough ok runs nor a failure: runs not done."""
    done = medians(rows, solver)
    mine = rows[(rows["solver"] == solver) & (rows["status"] != ev.OK)]
    failing = {int(s) for s in pd.unique(mine["n_unlabeled"])}
    return [s for s in sizes(rows) if s not in done and s not in failing]


def settle(rule: Callable[[tuple[str, ...]], str], verdicts: Sequence[str]) -> str:
    """``rule`` over parts' verdicts, each UNDECIDABLE part tried as every decided verdict:
    the common result where they agree, else UNDECIDABLE."""
    options = [(v,) if v != UNDECIDABLE else tuple(RANK) for v in verdicts]
    found = {rule(combo) for combo in itertools.product(*options)}
    return found.pop() if len(found) == 1 else UNDECIDABLE


def each_baseline(verdicts: tuple[str, ...]) -> str:
    """A claim about every baseline: CONFIRMED if it holds for all, NOT CONFIRMED if for none,
    PARTIAL if for some (or only partly)."""
    if all(v == CONFIRMED for v in verdicts):
        return CONFIRMED
    return NOT_CONFIRMED if all(v == NOT_CONFIRMED for v in verdicts) else PARTIAL


def per_baseline(verdicts: dict[str, str]) -> str:
    """:func:`each_baseline` over the baselines' verdicts, settled over the undecided ones."""
    return settle(each_baseline, list(verdicts.values()))


def part_text(parts: dict[str, str]) -> str:
    """``samult PARTIAL, pnu_auc NOT CONFIRMED``."""
    return ", ".join(f"{name} {verdict}" for name, verdict in parts.items())


def ratio_text(ratios: dict[int, float]) -> str:
    """``0.12 @20000 .. 0.03 @44800``: the first and last ratios of a dataset."""
    if not ratios:
        return "no comparable size"
    (s0, r0), (s1, r1) = next(iter(ratios.items())), list(ratios.items())[-1]
    return f"{r0:.3g} @{s0}" if s0 == s1 else f"{r0:.3g} @{s0} .. {r1:.3g} @{s1}"


def crossover(ratios: dict[int, float]) -> int | None:
    """The smallest size from which ``ours / base < 1`` at every larger comparable size
    (None where ours is not faster at the largest)."""
    found = None
    for size in sorted(ratios, reverse=True):
        if ratios[size] >= 1:
            break
        found = size
    return found


# --- paired time comparisons (C6 with the algebra's practical margin) -----------------------

def time_cell(rows: pd.DataFrame, ours: str, base: str, size: int, data: PaperData,
              dataset: str) -> tuple[str | None, str, float, str]:
    """(state, guard, ratio, text) of ``ours`` against ``base`` at one size: the ratio of
    their median fit times, and the per-repetition paired comparison of ``fit_time_s``
    (one-sided, :meth:`ordauc.claims.evidence.Paired.compare`) on the paper's repetitions.

    ``faster`` needs both: the ratio below 1 beyond :data:`algebra.TIME_MARGIN` (5 %) and the
    paired test better; a ratio within the margin is a tie (``not faster``). State None with the
    guard that keeps the cell undecided (too few repetitions, too few pairs); the ratio is the
    lean.
    """
    at = ev.ok(rows[rows["n_unlabeled"] == size])
    rep = ev.repetition_column(at)
    times = {s: pd.to_numeric(at.loc[at["solver"] == s, TIME], errors="coerce")
             .groupby(at.loc[at["solver"] == s, rep]).mean().dropna() for s in (ours, base)}
    both = times[ours].index.intersection(times[base].index)
    planned = int(rows.loc[rows["n_unlabeled"] == size, rep].nunique())
    pair = ev.Paired(times[ours].loc[both].to_numpy(np.float64),
                     times[base].loc[both].to_numpy(np.float64), planned, TIME)
    mine, theirs = times[ours].median(), times[base].median()
    ratio = float(mine / theirs) if theirs and theirs > 0 else math.nan
    compared = pair.compare(paper_repetitions=data.reps(dataset) or PAPER_REPETITIONS)
    text = f"r {ev.fmt(ratio, 3)} @{size} ({compared.text()})"
    if not compared.decided:
        return None, compared.guard, ratio, text
    if abs(ratio - 1.0) <= algebra.TIME_MARGIN:
        return NOT_FASTER, "", ratio, text + " tie within 5 %"
    good = compared.state == algebra.BETTER and ratio < 1.0
    return (FASTER if good else NOT_FASTER), "", ratio, text


def lean_of(ratio: float) -> str:
    """A cell's lean from its ratio alone: faster below 1 beyond the 5 % margin."""
    return FASTER if np.isfinite(ratio) and ratio < 1.0 - algebra.TIME_MARGIN else NOT_FASTER


# --- settling rules over the paper's datasets ----------------------------------------------

def settle_kinds(rule: Callable[[Counter[str]], str], judgments: Iterable[Judgment],
                 total: int, kinds: Sequence[str]) -> Settled:
    """:func:`ordauc.claims.algebra.settle` for a rule that is not monotone in one order of
    the states (e.g. a line complete, stopped for memory, stopped otherwise): the verdict holds
    only if every mix of ``kinds`` the undecided or missing paper datasets could take leaves it
    unchanged; the provisional verdict is the rule over every unit's lean."""
    judgments = list(judgments)
    named = [j for j in judgments if j.named]
    known = Counter(j.state for j in named if j.state is not None)
    decided = sum(known.values())
    missing = max(total - decided, 0)
    found = {rule(known + Counter(extra))
             for extra in itertools.combinations_with_replacement(kinds, missing)}
    verdict = found.pop() if len(found) == 1 else UNDECIDABLE
    leans = [j.lean for j in judgments if j.lean is not None]
    provisional = rule(Counter(leans)) if leans else None
    if verdict != UNDECIDABLE or provisional == UNDECIDABLE:
        provisional = None
    return Settled(verdict, provisional, decided, total, known)


def median_bounds(known: Sequence[float], unknown: int) -> tuple[float, float]:
    """The lowest and highest median of the known values plus ``unknown`` values anywhere (or
    absent): the median with every unknown at -inf and at +inf (NaN without any value)."""
    if not known:
        return (math.nan, math.nan)
    if not unknown:
        value = float(np.median(known))
        return value, value
    low = float(np.median([*known, *([-np.inf] * unknown)]))
    high = float(np.median([*known, *([np.inf] * unknown)]))
    return low, high


def lines(judgments: Iterable[Judgment]) -> str:
    """Each judgment's line (extra datasets marked), ``; `` separated."""
    return "; ".join(j.line() for j in judgments)


def still_needed(settled: Settled, ours: str) -> str:
    """Why a settled rule is UNDECIDABLE, and the config that would decide it."""
    return (f"{settled.still_needed()}: run {config_of(ours)} (10 repetitions, the paper's 8 "
            "datasets, under a memory limit of 80 GB)")


def lean_of_parts(rule: Callable[[tuple[str, ...]], str],
                  parts: Sequence[tuple[str, str | None]]) -> str | None:
    """What a rule over parts leans to: each part's verdict, or its own lean where it is
    UNDECIDABLE (None if a part has neither, or the rule cannot say)."""
    leans = [verdict if verdict != UNDECIDABLE else lean for verdict, lean in parts]
    if any(lean is None for lean in leans):
        return None
    found = rule(tuple(leans))  # type: ignore[arg-type]
    return None if found == UNDECIDABLE else found
