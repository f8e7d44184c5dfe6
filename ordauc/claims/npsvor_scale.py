"""The NPSVOR paper's claims over training-set sizes (Wang et al., IEEE Trans. Cybernetics 2017):
scalability on California housing (Section V-D, Fig. 7: MZE, MAE and CPU time at 19 sizes from
100 to 10,000, C = 100 and kappa = 1 for all methods) and collaborative filtering on MovieLens
(Section V-E, Fig. 8: MAE at 100, 150, ..., 400 training movies, 20 draws each).

Named data: these claims are about ``california`` and ``movielens`` at the paper's sizes; other
datasets (the twins' ``synthetic_ordinal`` stand-ins) and other sizes are shown as extra evidence
and never decide. A size is judged where every method has ok runs on >= 80 % of its planned
repetitions (C2) and, on MovieLens, >= 16 of the paper's 20 draws. Mean gaps within 1e-3 and
time ratios within 5 % of 1 are ties, never wins or refutations. Counts over the paper's sizes
are settled against what missing sizes could still do (:func:`ordauc.claims.algebra.settle`).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import (
    BASELINES,
    METHODS,
    PROPOSED,
    rank_matrix,
    size_matrix,
    spearman,
    yes_no,
)
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
)
from ordauc.claims.study import Study

# Fig. 7: "nineteen training datasets with different sizes ranging from 100 to 10 000" (our
# reading of the 19: 100, 200, ..., 1,000, 2,000, ..., 10,000), one random selection each
CALIFORNIA = algebra.PaperData(("california",), 1)
PAPER_SIZES = (*range(100, 1001, 100), *range(2000, 10001, 1000))
# Fig. 8: {100, 150, ..., 400} movies, 20 random selections each
MOVIELENS = algebra.PaperData(("movielens",), 20)
ML_SIZES = tuple(range(100, 401, 50))
ABOVE = 250  # "When the number of training data is larger than 250"
BEST, TIE, BELOW = "best", algebra.TIE, "below"
HOLDS, FAILS = "holds", "fails"


def _state(row: pd.Series | None, metric: str) -> str | None:
    """NPSVOR's place at one size: best / tie (within the margin) / below; None if a method
    lacks a value."""
    if row is None or row.isna().any():
        return None
    return algebra.best_state(row.to_dict(), PROPOSED, True, metric)


def _guard(guarded: pd.DataFrame, raw: pd.DataFrame, short: dict[object, str],
           size: int) -> str:
    if size in guarded.index and size in short and "paper's" in short[size]:
        return algebra.REPETITIONS
    if size not in guarded.index and size in raw.index:
        return algebra.SUBSTITUTE
    return algebra.MISSING


def size_judgments(results: pd.DataFrame, metric: str, paper: algebra.PaperData,
                   sizes: tuple[int, ...], state=_state,  # type: ignore[no-untyped-def]
                   stat: str = "mean") -> tuple[list[algebra.Judgment], pd.DataFrame,
                                                pd.DataFrame]:
    """One judgment per size: the paper's sizes on its dataset decide; other sizes, and the
    paper's sizes on other datasets, lean only. Also the guarded and the raw matrices."""
    guarded, short = size_matrix(results, metric, stat=stat, paper=paper)
    raw, _ = size_matrix(results, metric, stat=stat)
    out = []
    for size in sorted(set(raw.index) | set(sizes)):
        lean = state(raw.loc[size] if size in raw.index else None, metric)
        if size not in sizes:
            out.append(algebra.judge(str(int(size)), lean, named=False))
            continue
        mine = state(guarded.loc[size] if size in guarded.index else None, metric)
        guard = "" if mine is not None else _guard(guarded, raw, short, size)
        out.append(algebra.Judgment(str(int(size)), mine, guard, "", True, lean))
    return out, guarded, raw


def _lean_only(settled: algebra.Settled) -> str | None:
    return settled.provisional if settled.verdict == UNDECIDABLE else None


def _absent(results: pd.DataFrame) -> list[str]:
    return [m for m in METHODS if m not in set(results["solver"])]


def _mae_count(counts: Counter[str]) -> str:
    return (CONFIRMED if counts[BEST] >= 16 else PARTIAL if counts[BEST] + counts[TIE] >= 10
            else NOT_CONFIRMED)


def _significance(values: pd.DataFrame, total: int) -> dict[str, algebra.Compared]:
    full = values.dropna()
    return {b: ev.Paired(full[PROPOSED].to_numpy(float), full[b].to_numpy(float), total,
                         "mae").compare(one_sided=True) for b in BASELINES}


def _with_tests(count: str, tests: dict[str, algebra.Compared]) -> str:
    if count != CONFIRMED:
        return count
    states = [c.state for c in tests.values()]
    if all(s == algebra.BETTER for s in states):
        return CONFIRMED
    return UNDECIDABLE if None in states else PARTIAL


@claim("NPSVOR", "NP-11", studies=("npsvor_scale",),
       text="NPSVOR scales well with the training-set size and, on MAE, is significantly "
            "better than the baselines",
       rule="(our reading) On california only (others shown, never deciding), test MAE at the "
            "paper's 19 sizes (100, 200, ..., 1,000, 2,000, ..., 10,000; other sizes shown); "
            "per size NPSVOR is best, tied (within 1e-3 of the best baseline) or below; for "
            "each baseline a one-sided exact signed-rank test over the sizes, paired by size "
            "(>= 16 of 19). CONFIRMED if NPSVOR is best at >= 16 of the 19 sizes and "
            "significantly better (p < 0.05, gap > 1e-3) than every baseline; PARTIAL if best "
            "or tied at >= 10 sizes; otherwise NOT CONFIRMED; UNDECIDABLE while missing sizes "
            "or tests could change that.")
def np_11(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-D and Fig. 7(b): "NPSVOR has good scaling with the
    size of training datasets. Especially, considering the MAE, NPSVOR is significantly better
    than the baselines"."""
    judgments, guarded, raw = size_judgments(study.results, "mae", CALIFORNIA, PAPER_SIZES)
    settled = algebra.settle(_mae_count, judgments, len(PAPER_SIZES), best=BEST, worst=BELOW)
    at_paper = guarded[guarded.index.isin(PAPER_SIZES)]
    tests = _significance(at_paper, len(PAPER_SIZES))
    verdict = _with_tests(settled.verdict, tests)
    lean = None
    if verdict == UNDECIDABLE:
        lean = _with_tests(settled.provisional or settled.verdict,
                           _significance(raw, max(len(raw), 1)))
        lean = None if lean == UNDECIDABLE else lean
    significant = [b for b, c in tests.items() if c.state == algebra.BETTER]
    statistic = (f"lowest MAE at {settled.counts[BEST]} of {len(PAPER_SIZES)} sizes (tied at "
                 f"{settled.counts[TIE]}, {settled.decided} decided); significantly better "
                 f"than {len(significant)} of 9" + algebra.lean_text(lean))
    evidence = ("one-sided tests over sizes: " + ", ".join(f"{b} {c.text()}"
                                                         for b, c in tests.items()))
    if verdict == UNDECIDABLE:
        evidence = (f"{settled.still_needed('sizes on california')} (run "
                    f"configs/npsvor_scale.yaml{_names(_absent(study.results))}); " + evidence)
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"best": settled.counts[BEST], "tie": settled.counts[TIE],
                           "decided": settled.decided, "significant": len(significant)},
                   judgments=tuple(judgments), provisional=lean)


def _names(absent: list[str]) -> str:
    return f"; no runs of {', '.join(absent)}" if absent else ""


ABOVE_1000 = tuple(s for s in PAPER_SIZES if s > 1000)


def _mze_count(counts: Counter[str]) -> str:
    total = len(ABOVE_1000)
    return (CONFIRMED if counts[BEST] >= total else
            PARTIAL if counts[BEST] + counts[TIE] >= math.ceil(0.75 * total) else NOT_CONFIRMED)


@claim("NPSVOR", "NP-12", studies=("npsvor_scale",),
       text="On MZE, NPSVOR is not the best on small training sets, improves quickly with size, "
            "and beats all baselines beyond 1,000 training rows",
       rule="On california only (others shown, never deciding), mean test MZE at the paper's "
            "sizes. CONFIRMED if NPSVOR has the lowest MZE (by more than 1e-3) at every size > "
            "1,000 (the paper's 9: 2,000 ... 10,000); PARTIAL if lowest or tied (within 1e-3) "
            "at >= 75 % of them (7 of 9); otherwise NOT CONFIRMED; UNDECIDABLE while missing "
            "sizes could change that. The Spearman rho between size and NPSVOR's rank among "
            "the 10 is reported ('improves quickly' predicts rho < 0).")
def np_12(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-D and Fig. 7(a): "although our method is not the
    best for small datasets, the performance of NPSVOR is improved quickly with the increasing
    of dataset size. For the cases whose the number of training data is larger than 1000,
    NPSVOR outperforms all the baselines"."""
    judgments, guarded, _ = size_judgments(study.results, "mze", CALIFORNIA, ABOVE_1000)
    judgments = [j for j in judgments if int(j.unit) > 1000]
    settled = algebra.settle(_mze_count, judgments, len(ABOVE_1000), best=BEST, worst=BELOW)
    lean = _lean_only(settled)
    ranked = guarded[guarded.index.isin(PAPER_SIZES)].dropna()
    rho = math.nan
    if len(ranked) > 2:
        rho = spearman(ranked.index.to_numpy(float),
                       rank_matrix(ranked, True)[PROPOSED].to_numpy(float))
    statistic = (f"lowest MZE at {settled.counts[BEST]} of {len(ABOVE_1000)} sizes > 1,000 "
                 f"(tied at {settled.counts[TIE]}, {settled.decided} decided); rho(size, rank) "
                 f"{ev.fmt(rho, 3)}" + algebra.lean_text(lean))
    evidence = "; ".join(j.line() for j in judgments)
    if settled.verdict == UNDECIDABLE:
        evidence = (f"{settled.still_needed('sizes above 1,000 on california')} (run "
                    f"configs/npsvor_scale.yaml{_names(_absent(study.results))}); " + evidence)
    return Outcome(settled.verdict, statistic, evidence, "interpretation",
                   values={"best": settled.counts[BEST], "tie": settled.counts[TIE],
                           "decided": settled.decided, "rho": rho},
                   judgments=tuple(judgments), provisional=lean)


FROM_1000 = tuple(s for s in PAPER_SIZES if s >= 1000)
FAST = 1.0 - algebra.TIME_MARGIN  # a ratio within 5 % of 1 is a tie


def _order_state(row: pd.Series | None, metric: str = "fit_time_s") -> str | None:
    """At one size: ``holds`` (NPSVOR faster than every baseline but SVC1V1 and SVC1V1 faster
    than NPSVOR, each by more than 5 %), ``fails`` (a baseline but SVC1V1 faster, or SVC1V1
    slower, by more than 5 %), else ``tie``; None without a time of NPSVOR or SVC1V1. A baseline
    that ran and did not finish (inf) is slower."""
    if row is None or not np.isfinite(row.get(PROPOSED, np.nan)) or \
            not np.isfinite(row.get("svc1v1", np.nan)) or row.isna().any():
        return None
    mine = row[PROPOSED]
    others = [row[b] for b in BASELINES if b != "svc1v1"]
    if any(t < mine * FAST for t in others) or row["svc1v1"] * FAST > mine:
        return FAILS
    if all(mine < t * FAST for t in others) and row["svc1v1"] < mine * FAST:
        return HOLDS
    return TIE


def _times(results: pd.DataFrame, paper: algebra.PaperData | None) -> pd.DataFrame:
    """Median fit time by size; inf for a method that ran at a size and never finished."""
    times, _ = size_matrix(results, "fit_time_s", stat="median", paper=paper)
    rows = ev.rows_of(results, None, solver=list(METHODS))
    if paper is not None:
        rows = rows[rows["dataset"].astype(str).map(paper.named).astype(bool)]
    ran = rows.groupby("n_labeled")["solver"].agg(set)
    for size in times.index:
        for m in METHODS:
            if np.isnan(times.loc[size, m]) and m in ran.get(size, set()):
                times.loc[size, m] = np.inf
    return times


def _order_rule(counts: Counter[str]) -> str:
    need = math.ceil(0.8 * len(FROM_1000))
    if counts[HOLDS] >= need:
        return CONFIRMED
    return NOT_CONFIRMED if counts[HOLDS] + counts[TIE] < need else PARTIAL


def _scaling(times: pd.DataFrame) -> tuple[bool | None, dict[str, float]]:
    window = times[(times.index >= 1000) & (times.index <= 10000)].replace(np.inf, np.nan)
    slopes = {m: ev.loglog_slope(window.index.to_numpy(float), window[m].to_numpy(float))
              for m in METHODS}
    base = [v for m, v in slopes.items() if m != PROPOSED and np.isfinite(v)]
    ok = (bool(slopes[PROPOSED] <= float(np.median(base)))
          if np.isfinite(slopes[PROPOSED]) and base else None)
    return ok, slopes


def _time_verdict(order: str, scaling: bool | None) -> str:
    if order == UNDECIDABLE or scaling is None:
        return UNDECIDABLE
    if order == CONFIRMED and scaling:
        return CONFIRMED
    return NOT_CONFIRMED if order == NOT_CONFIRMED and not scaling else PARTIAL


@claim("NPSVOR", "NP-13", studies=("npsvor_scale",),
       text="NPSVOR scales well in training time and is faster than every baseline except "
            "SVC1V1",
       rule="On california only (others shown, never deciding), median fit_time_s per size. "
            "Ordering at each of the paper's 10 sizes >= 1,000: holds if NPSVOR is faster than "
            "every baseline except SVC1V1 (a baseline that ran and did not finish is slower) "
            "and SVC1V1 faster than NPSVOR, each by a ratio beyond 5 %; fails if one of those "
            "is reversed beyond 5 %; a tie otherwise (one run per size: no paired test is "
            "possible). It holds overall at >= 8 of the 10 sizes, fails if fewer than 8 hold "
            "or tie, else is a tie. (our reading) 'Well scaling': the log-log slope of "
            "NPSVOR's time over the paper's sizes 1,000-10,000 (all 10 needed) <= the median "
            "slope of the 9 baselines. CONFIRMED if both hold; NOT CONFIRMED if both fail; "
            "PARTIAL otherwise; UNDECIDABLE while missing sizes could change that.")
def np_13(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-D and Fig. 7(c): "NPSVOR is a well scaling method
    and is faster than all the baselines except SVC1V1". The paper plots CPU time of MATLAB
    NPSVOR against libsvm C code; here wall-clock fit times on this machine, compared as
    orderings and slopes only."""
    guarded, raw = _times(study.results, CALIFORNIA), _times(study.results, None)
    judgments = []
    for size in sorted(set(raw.index) | set(FROM_1000)):
        lean = _order_state(raw.loc[size] if size in raw.index else None)
        if size not in FROM_1000:
            if size >= 1000:
                judgments.append(algebra.judge(str(int(size)), lean, named=False))
            continue
        mine = _order_state(guarded.loc[size] if size in guarded.index else None)
        guard = "" if mine is not None else (algebra.SUBSTITUTE if size in raw.index
                                             and size not in guarded.index else algebra.MISSING)
        judgments.append(algebra.Judgment(str(int(size)), mine, guard, "", True, lean))
    order = algebra.settle(_order_rule, judgments, len(FROM_1000), best=HOLDS, worst=FAILS)
    complete = guarded[guarded.index.isin(FROM_1000)]
    scaling, slopes = _scaling(complete) if len(complete) == len(FROM_1000) else (None, {})
    verdict = _time_verdict(order.verdict, scaling)
    lean = None
    if verdict == UNDECIDABLE:
        lean_scaling, slopes_raw = _scaling(raw)
        lean = _time_verdict(order.provisional or order.verdict, lean_scaling)
        lean = None if lean == UNDECIDABLE else lean
        slopes = slopes or slopes_raw
    statistic = (f"ordering holds at {order.counts[HOLDS]} of {len(FROM_1000)} sizes >= 1,000 "
                 f"(tied at {order.counts[TIE]}, {order.decided} decided); scaling "
                 f"{yes_no(scaling)}" + algebra.lean_text(lean))
    evidence = ("slopes: " + ", ".join(f"{m} {ev.fmt(v, 3)}" for m, v in slopes.items())
                + "; " + "; ".join(j.line() for j in judgments))
    if verdict == UNDECIDABLE:
        evidence = (f"needs fit times of the ten methods on california at the paper's "
                    f"{len(FROM_1000)} sizes >= 1,000 (run configs/npsvor_scale.yaml"
                    f"{_names(_absent(study.results))}); " + evidence)
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"holds": order.counts[HOLDS], "tie": order.counts[TIE],
                           "decided": order.decided, "scaling": scaling,
                           "slope": slopes.get(PROPOSED, math.nan)},
                   judgments=tuple(judgments), provisional=lean)
