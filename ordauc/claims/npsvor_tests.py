"""The NPSVOR paper's per-dataset test claims (Wang et al., IEEE Trans. Cybernetics 2017,
Section V-C, Tables IV-V and Fig. 6): Wilcoxon wins, draws and losses against each baseline,
MAE against MZE, cross-validation time, and the tuning headroom the paper leaves untested.

Every per-dataset comparison is that of :mod:`ordauc.claims.npsvor_wilcoxon` (the exact
two-sided signed-rank test of :mod:`ordauc.stats` at 0.05, under the verdict algebra): a win, a
draw (no difference, or a mean gap within 1e-3), a loss, or *undecided* - not run, fewer than
80 % of the paper's splits, or too few pairs for the test ever to reject (the paper's five
random splits of its six larger datasets: the smallest two-sided p is 0.0625). An undecided
comparison is not a draw for the claim: it could be a win or a loss with more splits, and the
counts are settled against both (:func:`ordauc.claims.algebra.settle`).
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
    PAPER_DATASETS,
    PROPOSED,
    TOL,
    Ranking,
    cell_matrix,
    rank_matrix,
    spearman,
    two_parts,
    yes_no,
)
from ordauc.claims.npsvor_wilcoxon import DRAW, LOSS, WIN, tally, wilcoxon_ranking
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
    undecidable,
)
from ordauc.claims.study import Study

STUDY = ("npsvor",)
FEW = 5  # with this many pairs or fewer the exact two-sided signed-rank p is >= 0.0625
HOLDS, FAILS = "holds", "fails"


def _net_positive(counts: Counter[str]) -> str:
    return CONFIRMED if counts[WIN] - counts[LOSS] > 0 else NOT_CONFIRMED


def against(results: pd.DataFrame, metric: str, baseline: str) -> tuple[algebra.Judgment,
                                                                          algebra.Settled]:
    """Whether NPSVOR's wins exceed its losses against ``baseline`` over the paper's 23
    datasets, settled against what the undecided ones could still give: a judgment
    ``holds`` / ``fails``, or undecided leaning to the bare tests' net."""
    judgments = tally(results, metric, baseline)
    settled = algebra.settle(_net_positive, judgments, PAPER_DATASETS, best=WIN, worst=LOSS)
    state = {CONFIRMED: HOLDS, NOT_CONFIRMED: FAILS}.get(settled.verdict)
    lean = {CONFIRMED: HOLDS, NOT_CONFIRMED: FAILS}.get(settled.provisional or "")
    c = settled.counts
    text = (f"{c[WIN]}/{c[DRAW]}/{c[LOSS]} w/d/l, {PAPER_DATASETS - settled.decided} of "
            f"{PAPER_DATASETS} undecided")
    if state is None:
        return algebra.Judgment(baseline, None, "undecided comparisons", text, True,
                                lean), settled
    return algebra.Judgment(baseline, state, "", text, True, state), settled


def _count_rule(counts: Counter[str]) -> str:
    hits = counts[HOLDS]
    return CONFIRMED if hits >= 9 else PARTIAL if hits >= 6 else NOT_CONFIRMED


@claim("NPSVOR", "NP-8", studies=STUDY,
       text="In the per-dataset Wilcoxon tests (23 x 9 = 207 comparisons), NPSVOR has more "
            "significant wins than losses against every baseline on MAE",
       rule="Per dataset (the paper's 23 by name) and baseline, the exact two-sided signed-rank "
            "test (ordauc.stats) of NPSVOR's per-split MAE against the baseline's on the same "
            "splits at 0.05: a win or a loss by the side the ranks favour, a draw if not "
            "significant or the mean gap is within 1e-3; undecided (neither) with < 80 % of the "
            "splits paired, < 80 % of the paper's splits, or too few pairs for p < 0.05 to be "
            "reachable (the 5-split datasets). (our reading) Against one baseline the claim "
            "holds if #wins - #losses > 0 over the decided comparisons, whatever the undecided "
            "ones give (each could be a win or a loss); CONFIRMED if it holds against all 9, "
            "PARTIAL if against >= 6, otherwise NOT CONFIRMED; UNDECIDABLE while undecided "
            "comparisons could change that. MZE tallies are reported.")
def np_8(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C and Table IV ("each pair of methods is
    compared for each dataset and the total number of statistically significant wins, draws or
    losses are reported", ordered by wins minus losses). The published counts are not in the
    text we have, so only the implied ordering is checked: NPSVOR, first on MAE (NP-6), is read
    as having a positive net against every baseline."""
    results = study.results
    per = {b: against(results, "mae", b) for b in BASELINES}
    mze = {b: against(results, "mze", b)[1] for b in BASELINES}
    settled = algebra.settle(_count_rule, [j for j, _ in per.values()], len(BASELINES),
                             best=HOLDS, worst=FAILS)
    hits = settled.counts[HOLDS]
    statistic = (f"MAE wins > losses against {hits} of 9 baselines ({settled.decided} decided)"
                 + algebra.lean_text(settled.provisional))
    few = sum(1 for j in tally(results, "mae", BASELINES[0])
              if j.named and j.guard == algebra.POWER)
    evidence = ("MAE by baseline: " + "; ".join(f"{b} {j.text} ({j.lean or 'no lean'})"
                                                 for b, (j, _) in per.items())
                + "; MZE w/d/l: " + ", ".join(
                    f"{b} {s.counts[WIN]}/{s.counts[DRAW]}/{s.counts[LOSS]}"
                    for b, s in mze.items())
                + f"; {few} of the paper's datasets undecided by power (too few splits for "
                  f"p < 0.05)")
    if settled.verdict == UNDECIDABLE:
        evidence = ("undecided comparisons could still change the count: the paper's 23 "
                    "datasets with >= 6 splits each (run configs/npsvor.yaml); " + evidence)
    values = {"holds": hits, "decided": settled.decided,
              "mae": {b: dict(s.counts) | {"undecided": PAPER_DATASETS - s.decided}
                      for b, (_, s) in per.items()},
              "mze": {b: dict(s.counts) | {"undecided": PAPER_DATASETS - s.decided}
                      for b, s in mze.items()},
              "undecided_by_power": few}
    return Outcome(settled.verdict, statistic, evidence, "interpretation", values=values,
                   judgments=tuple(j for j, _ in per.values()),
                   provisional=settled.provisional)


def _nets(results: pd.DataFrame, metric: str) -> tuple[tuple[int, int], int]:
    """Bounds on the sum over baselines of (#wins - #losses) over the paper's 23 datasets,
    and the same on the bare tests (the lean)."""
    net = undecided = lean = 0
    for b in BASELINES:
        judgments = tally(results, metric, b)
        counts = Counter(j.state for j in judgments if j.named and j.state)
        net += counts[WIN] - counts[LOSS]
        undecided += PAPER_DATASETS - sum(counts.values())
        leans = Counter(j.lean for j in judgments if j.lean)
        lean += leans[WIN] - leans[LOSS]
    return (net - undecided, net + undecided), lean


def _margin(r: Ranking) -> tuple[float, float]:
    """Bounds on (best baseline's average rank) - (NPSVOR's)."""
    gaps = [r.gap([PROPOSED], [b]) for b in BASELINES]
    return -max(hi for _, hi in gaps), -max(lo for lo, _ in gaps)


def _larger(mae: tuple[float, float], mze: tuple[float, float]) -> bool | None:
    if mze[1] < mae[0] - TOL:
        return True
    if mae[1] <= mze[0] + TOL:
        return False
    return None


@claim("NPSVOR", "NP-7", studies=STUDY,
       text="NPSVOR's advantage is more obvious on MAE than on MZE",
       rule="margin_M = (best baseline's average rank) - (NPSVOR's average rank), ranks as NP-5 "
            "and NP-6 (the paper's Wilcoxon ranking over its 23 datasets), and net_M = sum over "
            "the 9 baselines of (#wins - #losses) from NP-8, for M in {MZE, MAE}. CONFIRMED if "
            "margin_MAE > margin_MZE and net_MAE > net_MZE; PARTIAL if only one of the two "
            "holds; otherwise NOT CONFIRMED; UNDECIDABLE while unranked datasets or undecided "
            "comparisons (each a possible win or loss) could change either.")
def np_7(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "the advantage of our model is more obvious on
    MAE than MZE" (Tables II-IV)."""
    results = study.results
    ranks = {m: wilcoxon_ranking(results, m) for m in ("mze", "mae")}
    margins = {m: _margin(r) for m, r in ranks.items()}
    nets, leans = {}, {}
    for m in ("mze", "mae"):
        nets[m], leans[m] = _nets(results, m)
    margin_ok, net_ok = _larger(margins["mae"], margins["mze"]), _larger(nets["mae"], nets["mze"])
    verdict = two_parts(margin_ok, net_ok)
    lean = None
    if verdict == UNDECIDABLE:
        prov = {m: r.provisional() for m, r in ranks.items()}
        lean_margin = (_larger(_margin(prov["mae"]), _margin(prov["mze"]))
                       if all(prov.values()) else None)
        lean_net = leans["mae"] > leans["mze"]
        lean = two_parts(lean_margin, lean_net)
        lean = None if lean == UNDECIDABLE else lean

    def span(pair: tuple[float, float], digits: int) -> str:
        lo, hi = pair
        return (f"{lo:+.{digits}f}" if math.isclose(lo, hi) else
                f"[{lo:+.{digits}f}, {hi:+.{digits}f}]")

    statistic = (f"margin MAE {span(margins['mae'], 2)} vs MZE {span(margins['mze'], 2)}; "
                 f"net MAE {span(nets['mae'], 0)} vs MZE {span(nets['mze'], 0)}"
                 + algebra.lean_text(lean))
    evidence = (f"margin larger on MAE: {yes_no(margin_ok)}; net wins larger on MAE: "
                f"{yes_no(net_ok)}; intervals bound what unranked datasets and undecided "
                f"comparisons could add; bare-test nets (lean) MAE {leans['mae']}, MZE "
                f"{leans['mze']}")
    values = {"margin_mae": margins["mae"], "margin_mze": margins["mze"],
              "net_mae": nets["mae"], "net_mze": nets["mze"], "margin_larger": margin_ok,
              "net_larger": net_ok}
    return Outcome(verdict, statistic, evidence, "interpretation", values=values,
                   provisional=lean)


BINARY_DECOMPOSITIONS = ("svc1v1", "svc1va", "cssvc", "svmop")
SMALL = 500  # Fig. 6 shows the datasets with more than 500 training rows
SLOWER = 1.0 + algebra.TIME_MARGIN  # a ratio within 5 % of 1 is a tie, not "slower"


def _cv_time_parts(times: pd.DataFrame, sizes: pd.Series
                   ) -> tuple[bool | None, bool | None, bool | None, dict[str, object]]:
    """(a), (b), (c) of NP-10 on a matrix of median CV times (one row per dataset)."""
    needed = [PROPOSED, *BINARY_DECOMPOSITIONS]
    timed = times.dropna(subset=needed)
    small = timed[sizes.reindex(timed.index) <= SMALL]
    ratios = {m: float((small[PROPOSED] / small[m]).median()) if len(small) else math.nan
              for m in BINARY_DECOMPOSITIONS}
    slower = sum(v > SLOWER for v in ratios.values())
    a = slower >= 3 if len(small) else None
    large = times[sizes.reindex(times.index) > SMALL]
    b_rank = math.nan
    b: bool | None = None
    if len(large) and large.notna().all(axis=None):
        b_rank = float(rank_matrix(large, True)[PROPOSED].mean())
        b = b_rank <= 3
    trend = np.log(timed[PROPOSED] / timed[list(BINARY_DECOMPOSITIONS)].median(axis=1))
    rho = spearman(sizes.reindex(timed.index).to_numpy(float), trend.to_numpy(float))
    c = bool(rho < 0) if np.isfinite(rho) else None
    return a, b, c, {"ratios_small": ratios, "slower_than": slower, "rank_large": b_rank,
                     "rho": rho, "small": len(small), "large": len(large)}


def _cv_time_verdict(a: bool | None, b: bool | None, c: bool | None) -> str:
    if a is False or c is False:
        return NOT_CONFIRMED
    if a is None or c is None or b is None:
        return UNDECIDABLE
    return CONFIRMED if b else PARTIAL


def _sizes(results: pd.DataFrame, index: pd.Index) -> pd.Series:
    rows = ev.rows_of(results, None, solver=PROPOSED)
    return rows.groupby("dataset")["n_labeled"].median().reindex(index)


@claim("NPSVOR", "NP-10", studies=STUDY,
       text="NPSVOR's cross-validation is slower than binary decomposition methods on small "
            "problems but quite efficient on larger ones",
       rule="(our reading) Per dataset (the paper's 23 by name, each on >= 80 % of its splits) "
            "the median cv_time_s; binary decompositions BD = {SVC1V1, SVC1VA, CSSVC, SVMOP}; "
            "small = <= 500 training rows, large = > 500. (a) On small datasets the median over "
            "datasets of cv_time(NPSVOR)/cv_time(m) > 1.05 (ratios within 5 % of 1 are ties) "
            "for >= 3 of the 4 BD methods; (b) on large datasets NPSVOR's average cv_time rank "
            "(ordauc.stats ranks) among the 10 methods <= 3; (c) Spearman rho between n_train "
            "and log(cv_time(NPSVOR) / median cv_time(BD)) over the 23 datasets < 0. CONFIRMED "
            "if (a), (b), (c); PARTIAL if (a) and (c); otherwise NOT CONFIRMED. Medians over "
            "datasets need all 23 timed (UNDECIDABLE otherwise, with the lean).")
def np_10(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C, Table V and Fig. 6: "although NPSVOR is slower
    than binary decomposition methods on small problems, it is quite efficient on larger
    problems". Times are this machine's, compared only as ratios and ranks."""
    results = study.results
    methods = (PROPOSED, *BASELINES)
    times, short = cell_matrix(results, "cv_time_s", methods, stat="median")
    times = times.where(times > 0)
    timed = times.dropna(subset=[PROPOSED, *BINARY_DECOMPOSITIONS])
    missing = PAPER_DATASETS - len(timed)
    raw, _ = cell_matrix(results, "cv_time_s", methods, stat="median", paper=None)
    raw = raw.where(raw > 0)
    if missing:
        a, b, c, found = _cv_time_parts(raw, _sizes(results, raw.index))
        lean = _cv_time_verdict(a, b, c)
        lean = None if lean == UNDECIDABLE else lean
        lacking = "; ".join(f"{d}: {why}" for d, why in list(short.items())[:4])
        return Outcome(UNDECIDABLE, f"{len(timed)} of the paper's {PAPER_DATASETS} datasets "
                       f"timed" + algebra.lean_text(lean),
                       f"{missing} of the paper's {PAPER_DATASETS} datasets lack a CV time of "
                       f"NPSVOR and the four binary decompositions"
                       + (f" ({lacking})" if lacking else "")
                       + "; every dataset needs tuned runs (cv_time_s > 0): run "
                         "configs/npsvor.yaml", "interpretation",
                       values={"timed": len(timed), **found}, provisional=lean)
    a, b, c, found = _cv_time_parts(times, _sizes(results, times.index))
    verdict = _cv_time_verdict(a, b, c)
    ratios = found["ratios_small"]
    statistic = (f"(a) slower than {found['slower_than']}/4 BD on small; (b) rank on large "
                 f"{ev.fmt(found['rank_large'], 3)}; (c) rho {ev.fmt(found['rho'], 3)}")
    evidence = (f"{found['small']} small, {found['large']} large datasets; median time ratio "
                f"NPSVOR/m on small: "
                + ", ".join(f"{m} {ev.fmt(v, 3)}" for m, v in ratios.items())
                + f"; (a) {yes_no(a)}, (b) {yes_no(b)}, (c) {yes_no(c)}")
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"timed": len(timed), "a": a, "b": b, "c": c, **found})


def tuned_variant(results: pd.DataFrame) -> str | None:
    """A second NPSVOR entry of the study (a label other than ``npsvor`` running the npsvor
    solver, e.g. ``npsvor_tuned``), the run that would tune eps; None without one."""
    names = results.get("solver_name", results["solver"]).astype(str)
    labels = pd.unique(results.loc[names == PROPOSED, "solver"].astype(str))
    others = [label for label in labels if label != PROPOSED]
    return others[0] if others else None


def _headroom(states: dict[str, str | None]) -> str:
    """CONFIRMED if better on one metric and not worse on the other; UNDECIDABLE while an
    undecided comparison could change that."""
    if algebra.WORSE in states.values():
        return NOT_CONFIRMED
    if None in states.values():
        return UNDECIDABLE
    return CONFIRMED if algebra.BETTER in states.values() else NOT_CONFIRMED


@claim("NPSVOR", "NP-15", studies=STUDY,
       text="Tuning eps on an interval and allowing C1 != C2 could further improve NPSVOR",
       rule="Needs an extra run no shipped config makes: a second NPSVOR entry (e.g. "
            "npsvor_tuned, solver npsvor) with eps tuned over {0.1, 0.15, ..., 0.3}, against "
            "npsvor (eps = 0.2, C1 = C2). Per dataset (the paper's 23 by name, each on >= 80 % "
            "of its splits) the mean MAE and MZE; a one-sided exact signed-rank test over the "
            "paired datasets (>= 80 % of the 23), each direction at 0.05, mean gaps within 1e-3 "
            "ties. CONFIRMED if the tuned variant is better on at least one metric and not "
            "worse on the other; otherwise NOT CONFIRMED; UNDECIDABLE without the variant's "
            "runs or while an undecided comparison could change that.")
def np_15(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "if more computational efforts can be paid for
    the selection of parameters C1, C2, and eps, such as tuning eps on a certain interval or
    allowing C1 != C2, [the] generalization performance could be further improved". The paper
    runs no such experiment; ordauc's npsvor takes one C (C1 = C2 = C), so only the eps half
    can be run."""
    results = study.results
    variant = tuned_variant(results)
    if variant is None:
        return undecidable(
            "no tuned-eps NPSVOR variant in the runs, and no shipped config runs one: add to "
            "configs/npsvor.yaml a second entry running the npsvor solver (e.g. "
            "`npsvor_tuned: {solver: npsvor, grid: {C: ..., kappa: ..., eps: [0.1, 0.15, 0.2, "
            "0.25, 0.3]}}`) and run it; allowing C1 != C2 also needs separate C1, C2 "
            "parameters, which ordauc's npsvor does not have (one C)", "no variant")
    states: dict[str, str | None] = {}
    leans: dict[str, str | None] = {}
    texts = []
    for metric in ("mae", "mze"):
        for guarded in (True, False):
            kwargs = {} if guarded else {"paper": None}
            values, _ = cell_matrix(results, metric, (variant, PROPOSED), **kwargs)
            both = values.dropna()
            pair = ev.Paired(both[variant].to_numpy(float), both[PROPOSED].to_numpy(float),
                             PAPER_DATASETS if guarded else max(len(values), 1), metric)
            c = pair.compare(one_sided=True)
            if guarded:
                states[metric] = c.state
                texts.append(f"{metric.upper()} {variant} - npsvor over the paper's datasets: "
                             f"{c.text()}")
            else:
                leans[metric] = c.state
    verdict = _headroom(states)
    lean = _headroom(leans) if verdict == UNDECIDABLE else None
    lean = None if lean == UNDECIDABLE else lean
    statistic = (f"{variant} against npsvor: MAE {states['mae'] or 'undecided'}, MZE "
                 f"{states['mze'] or 'undecided'}" + algebra.lean_text(lean))
    evidence = "; ".join(texts) + "; C1 = C2 in both (one C)"
    if verdict == UNDECIDABLE:
        evidence = (f"needs {variant} and npsvor on >= {algebra.needed(PAPER_DATASETS)} of the "
                    f"paper's {PAPER_DATASETS} datasets; " + evidence)
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"variant": variant, "mae": states["mae"], "mze": states["mze"]},
                   provisional=lean)
