"""The NPSVOR paper's ranking claims (Wang et al., IEEE Trans. Cybernetics 2017, Section V-C,
Tables II-III and Fig. 5): NPSVOR's average rank among the ten methods on MZE and on MAE, the
Friedman test with critical differences, the overall claim of the abstract, and the cited
claim that threshold models beat ordinal binary decompositions.

Two rankings, both over the paper's 23 datasets only (extra datasets shown, never ranked for a
verdict; a dataset on < 80 % of the paper's splits unranked):

* the paper's (NP-5, NP-6): per dataset, methods whose exact signed-rank comparison with the
  best remaining one is not significant at 0.05 share ranks
  (:mod:`ordauc.claims.npsvor_wilcoxon`; a dataset with a comparison undecided by power is
  unranked, not tied);
* the Friedman test's (NP-1, NP-9, NP-16): ranks of the per-dataset means, ties averaged
  (:func:`ordauc.stats.friedman_test`), reported beside the paper's in NP-5 and NP-6.

Where some of the 23 are unranked, a verdict is taken only if the missing ones cannot change it
(:class:`ordauc.claims.npsvor_common.Ranking`); otherwise UNDECIDABLE with the lean of the runs
at hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ordauc import stats
from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import (
    BASELINES,
    METHODS,
    PAPER_DATASETS,
    PROPOSED,
    TOL,
    Ranking,
    ranking,
    tri_below,
    tri_verdict,
    yes_no,
)
from ordauc.claims.npsvor_wilcoxon import wilcoxon_ranking
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
)
from ordauc.claims.study import Study

STUDY = ("npsvor",)
CD_BD = stats.bonferroni_dunn_cd(len(METHODS), PAPER_DATASETS)
THRESHOLD_MODELS = ("svorex", "svorim", "redsvm")
DECOMPOSITIONS = ("svmop", "opbe")


def with_lean(r: Ranking, rule: Callable[[Ranking], str]) -> tuple[str, str | None]:
    """``rule``'s verdict on ``r`` and, where UNDECIDABLE, its verdict on the provisional
    ranking (every dataset of the runs as if complete)."""
    verdict = rule(r)
    if verdict != UNDECIDABLE:
        return verdict, None
    lean = r.provisional()
    provisional = rule(lean) if lean is not None else None
    return verdict, None if provisional == UNDECIDABLE else provisional


def with_lean_of_two(a: Ranking, b: Ranking, rule: Callable[[Ranking, Ranking], tuple]
                     ) -> tuple[tuple, str | None]:
    """``rule``'s result on two rankings (its verdict first) and, where that verdict is
    UNDECIDABLE, the verdict on both provisional rankings (as :func:`with_lean`)."""
    result = rule(a, b)
    if result[0] != UNDECIDABLE:  # decided: the provisional rankings are not built
        return result, None
    pa, pb = a.provisional(), b.provisional()
    if pa is None or pb is None:
        return result, None
    lean = rule(pa, pb)[0]
    return result, None if lean == UNDECIDABLE else lean


def second_or_better(r: Ranking) -> bool | None:
    """NPSVOR's average rank is 1st or 2nd (at most one method strictly ahead)."""
    sure, possible = r.ahead_of(PROPOSED)
    return True if possible <= 1 else False if sure >= 2 else None


def strictly_first(r: Ranking) -> str:
    """CONFIRMED (strictly lowest average rank), PARTIAL (tied for 1st), NOT CONFIRMED, or
    UNDECIDABLE while missing datasets could change it."""
    gaps = [r.gap([PROPOSED], [b]) for b in BASELINES]
    if all(hi < -TOL for _, hi in gaps):
        return CONFIRMED
    if any(lo > TOL for lo, _ in gaps):
        return NOT_CONFIRMED
    if r.missing:
        return UNDECIDABLE
    return PARTIAL  # no method ahead, some tied


def significantly_ahead(r: Ranking, cd: float) -> tuple[int, int]:
    """How many baselines NPSVOR surely / possibly beats by more than ``cd`` in average rank."""
    sure = possible = 0
    for b in BASELINES:
        lo, hi = r.gap([PROPOSED], [b])
        sure += hi < -cd
        possible += lo < -cd
    return sure, possible


def _settle(sure: int, possible: int, need: int) -> bool | None:
    return True if sure >= need else False if possible < need else None


PAPER_RANKING = (
    "Per dataset (the paper's 23 by name, each run on >= 80 % of its planned splits: 24 of 30, "
    "4 of 5), the paper's ranking: order the ten methods by mean test {M} over the splits "
    "(models selected by {M}); the best remaining method and every remaining method whose "
    "exact two-sided signed-rank comparison with it (paired splits) is not significant at "
    "0.05, or whose mean is within 1e-3 of it, share the average of the places they span; "
    "repeat on the rest. A dataset where a needed comparison cannot reach p < 0.05 (5 splits) "
    "is unranked, not tied. Average over the 23; with unranked datasets, UNDECIDABLE unless no "
    "ranks of theirs could change the place (the lean reads their undecided comparisons as "
    "shared ranks, the paper's literal procedure). The ranking of raw means is reported "
    "beside it.")


def place_rule(r: Ranking) -> str:
    """NP-5: CONFIRMED if at most one method can be strictly ahead of NPSVOR."""
    return tri_verdict(second_or_better(r))


@claim("NPSVOR", "NP-5", studies=STUDY,
       text="On MZE, NPSVOR is the second best of the ten compared methods by average rank",
       rule=PAPER_RANKING.format(M="MZE") + " CONFIRMED if NPSVOR's average rank is 2nd (a tie "
            "for 2nd counts) or 1st (exceeds the claim); NOT CONFIRMED if 3rd or worse.")
def np_5(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "when the MZE is considered, NPSVOR is the
    second best among the compared methods" (Table II, last row; Fig. 5(a)); the ranks are
    decided per dataset by "a p-value threshold of 0.05 in Wilcoxon signed sum test"."""
    r = wilcoxon_ranking(study.results, "mze")
    verdict, lean = with_lean(r, place_rule)
    outcome = _rank_outcome(study, r, verdict, lean)
    if verdict == CONFIRMED and r.ahead_of(PROPOSED)[1] == 0:
        outcome = Outcome(verdict, outcome.statistic + " (exceeds the claim)", outcome.evidence,
                          outcome.reading, outcome.values)
    return outcome


@claim("NPSVOR", "NP-6", studies=STUDY,
       text="On MAE, NPSVOR outperforms all nine baselines by average rank",
       rule=PAPER_RANKING.format(M="MAE") + " CONFIRMED if NPSVOR's average rank is strictly "
            "the lowest of the 10; PARTIAL if tied for 1st; otherwise NOT CONFIRMED.")
def np_6(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "When the MAE is considered, NPSVOR outperforms
    all the baselines" (Table III, last row; Fig. 5(b)), ranks decided per dataset by the
    Wilcoxon test at 0.05."""
    r = wilcoxon_ranking(study.results, "mae")
    verdict, lean = with_lean(r, strictly_first)
    return _rank_outcome(study, r, verdict, lean)


def _rank_outcome(study: Study, r: Ranking, verdict: str, lean: str | None) -> Outcome:
    raw = ranking(study.results, r.metric)
    statistic = (f"NPSVOR average {r.metric.upper()} rank (the paper's Wilcoxon ranking) "
                 f"{r.position(PROPOSED)}; by raw means {raw.position(PROPOSED)}"
                 + algebra.lean_text(lean))
    average = r.average().sort_values()
    means = r.values.mean(axis=0) if r.n else average * np.nan
    detail = ", ".join(f"{m} {average[m]:.2f}" for m in average.index) if r.n else "none"
    raw_detail = (", ".join(f"{m} {v:.2f}" for m, v in raw.average().sort_values().items())
                  if raw.n else "none")
    evidence = (f"Wilcoxon-grouped average ranks: {detail}; raw-mean average ranks: "
                f"{raw_detail}; mean {r.metric.upper()} over ranked datasets: NPSVOR "
                f"{ev.fmt(means.get(PROPOSED, math.nan))}, best baseline "
                f"{ev.fmt(means.drop(PROPOSED).min() if r.n else math.nan)}")
    if r.unranked or r.missing:
        evidence = f"{r.lacking()}; {evidence}"
    values = {"average_rank": float(r.average()[PROPOSED]) if r.n else math.nan,
              "place": r.place(PROPOSED), "ranked": r.n, "total": r.total,
              "mean_rank_average": float(raw.average()[PROPOSED]) if raw.n else math.nan,
              "mean_rank_place": raw.place(PROPOSED), "mean_ranked": raw.n}
    return Outcome(verdict, statistic, evidence, "strict", values=values, provisional=lean)


def _generalization_speed(mae: Ranking, time: Ranking) -> tuple[str, dict[str, bool | None]]:
    parts: dict[str, bool | None] = {}
    for name, r in (("generalization", mae), ("speed", time)):
        sure_ahead, possible_ahead = r.ahead_of(PROPOSED)
        best = True if possible_ahead == 0 else False if sure_ahead else None
        sig = _settle(*significantly_ahead(r, CD_BD), need=5)
        parts[name] = (False if best is False or sig is False else
                       None if best is None or sig is None else True)
    gen, speed = parts["generalization"], parts["speed"]
    if gen is False:
        verdict = NOT_CONFIRMED
    elif gen is None or speed is None:
        verdict = UNDECIDABLE
    else:
        verdict = CONFIRMED if speed else PARTIAL
    return verdict, parts


@claim("NPSVOR", "NP-1", studies=STUDY,
       text="NPSVOR yields a large and significant improvement in generalization and training "
            "speed over the nine baselines",
       rule="(our reading) Over the paper's 23 datasets by name (each on >= 80 % of its splits), "
            "ranks of the per-dataset means (the Friedman test's ranks). Generalization part: "
            "NPSVOR has the best average MAE rank (ties count) and beats >= 5 of the 9 "
            "baselines by more than the Bonferroni-Dunn critical difference with NPSVOR as "
            "control (CD = 2.476 for 10 methods and 23 datasets, ordauc.stats). Speed part: the "
            "same on per-dataset median cv_time_s (CV time, the paper's Table V). CONFIRMED if "
            "both parts hold; PARTIAL if only the generalization part holds; otherwise NOT "
            "CONFIRMED; UNDECIDABLE while unranked datasets could change a part that matters.")
def np_1(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, abstract ("a large and statistically significant
    improvement in terms of generalization performance and training speed against nine
    baselines") and Sec. VI. The body concedes slower CV than binary decompositions on small
    problems and slower training than SVC1V1 (Secs. V-C and V-D), so the speed part is expected
    to fail. Interpretation: "significant" is read through the paper's own post-hoc test."""
    mae = ranking(study.results, "mae")
    time = ranking(study.results, "cv_time_s", stat="median")
    (verdict, parts), lean = with_lean_of_two(mae, time, _generalization_speed)
    texts = []
    for name, r in (("generalization (mae)", mae), ("speed (cv_time_s)", time)):
        sure, possible = significantly_ahead(r, CD_BD)
        texts.append(f"{name}: NPSVOR {r.position(PROPOSED)}; ahead by > CD {CD_BD:.3f} of "
                     f"{sure} (up to {possible}) of 9")
    if verdict == UNDECIDABLE:
        texts.insert(0, (mae if mae.missing else time).lacking())
    statistic = (f"generalization part {yes_no(parts['generalization'])}, speed part "
                 f"{yes_no(parts['speed'])}" + algebra.lean_text(lean))
    values = {"generalization": parts["generalization"], "speed": parts["speed"],
              "ranked_mae": mae.n, "ranked_time": time.n, "cd": CD_BD}
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation", values=values,
                   provisional=lean)


def friedman_text(r: Ranking) -> tuple[float, str]:
    """Friedman p (:func:`ordauc.stats.friedman_test`) on the ranked datasets' means, and its
    text with the Iman-Davenport F."""
    if r.n < 2:
        return math.nan, f"Friedman needs >= 2 ranked datasets, {r.n}"
    matrix = r.values[list(r.methods)].to_numpy(float)
    test = stats.friedman_test(matrix if ev.lower_is_better(r.metric) else -matrix)
    if not np.isfinite(test.p_value):
        return 1.0, "Friedman: every dataset ties all methods"
    return test.p_value, (f"chi2={test.statistic:.2f} p={test.p_value:.3g}, Iman-Davenport "
                          f"F={test.f_statistic:.3g} p={test.f_p_value:.3g}")


def beyond(r: Ranking, cd: float) -> tuple[list[str], list[str]]:
    """The baselines NPSVOR's average rank beats, and those beating it, by more than ``cd``."""
    if not r.n:
        return [], []
    gap = r.average()[list(BASELINES)] - r.average()[PROPOSED]
    return list(gap[gap > cd].index), list(gap[gap < -cd].index)


def _friedman_verdict(mze: Ranking, mae: Ranking) -> tuple[str, dict[str, bool | None],
                                                            list[bool | None]]:
    places = {"mze": second_or_better(mze),
              "mae": {CONFIRMED: True, NOT_CONFIRMED: False, PARTIAL: False}.get(
                  strictly_first(mae))}
    rejected = []
    for r in (mze, mae):
        p, _ = friedman_text(r)
        rejected.append(p < algebra.ALPHA if np.isfinite(p) else None)
    if False in places.values():
        verdict = NOT_CONFIRMED
    elif mze.missing or mae.missing or None in places.values() or None in rejected:
        verdict = UNDECIDABLE
    else:
        verdict = CONFIRMED if all(rejected) else NOT_CONFIRMED
    return verdict, places, rejected


@claim("NPSVOR", "NP-9", studies=STUDY,
       text="The Friedman test over the 23 datasets, with NPSVOR as control in the CD diagram, "
            "separates the methods on MZE and on MAE",
       rule="The Friedman test (ordauc.stats.friedman_test, with the Iman-Davenport F) on the "
            "23 x 10 matrix of per-dataset means over the paper's 23 datasets by name (each on "
            ">= 80 % of its splits), for MZE and for MAE (each with models selected by it). "
            "CONFIRMED if the Friedman p < 0.05 for both metrics and NPSVOR's places by these "
            "ranks are NP-5's and NP-6's (1st or 2nd on MZE, strictly 1st on MAE); otherwise "
            "NOT CONFIRMED. Needs all 23 datasets ranked (UNDECIDABLE otherwise, unless the "
            "places already fail). The baselines beyond the Bonferroni-Dunn CD (NPSVOR as "
            "control) and the Nemenyi CD (ordauc.stats) are listed.")
def np_9(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C and Fig. 5: the Friedman test, then a
    critical-difference diagram with NPSVOR as the control algorithm at alpha = 0.05. The
    paper's list of significantly different pairs is not in the text we have."""
    mze, mae = ranking(study.results, "mze"), ranking(study.results, "mae")
    (verdict, places, rejected), lean = with_lean_of_two(mze, mae, _friedman_verdict)
    texts = []
    for r in (mze, mae):
        _, text = friedman_text(r)
        n = max(r.n, 1)
        cd_bd, cd_nem = stats.bonferroni_dunn_cd(10, n), stats.nemenyi_cd(10, n)
        ahead, behind = beyond(r, cd_bd)
        ahead_nem, behind_nem = beyond(r, cd_nem)
        texts.append(f"{r.metric.upper()} on {r.n} datasets: {text}; NPSVOR "
                     f"{r.position(PROPOSED).split(' on ')[0]}; beyond BD CD {cd_bd:.2f}: ahead "
                     f"of {', '.join(ahead) or 'none'}, behind {', '.join(behind) or 'none'}; "
                     f"Nemenyi CD {cd_nem:.2f}: {len(ahead_nem)} ahead, {len(behind_nem)} "
                     f"behind")
    if verdict == UNDECIDABLE:
        texts.insert(0, (mze if mze.missing else mae).lacking())
    statistic = (f"Friedman rejects: MZE {yes_no(rejected[0])}, MAE {yes_no(rejected[1])}; "
                 f"places match: MZE {yes_no(places['mze'])}, MAE {yes_no(places['mae'])}"
                 + algebra.lean_text(lean))
    values = {"friedman_p_mze": friedman_text(mze)[0], "friedman_p_mae": friedman_text(mae)[0],
              "ranked_mze": mze.n, "ranked_mae": mae.n, "place_mze": places["mze"],
              "place_mae": places["mae"]}
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation", values=values,
                   provisional=lean)


def _threshold_first(mae: Ranking, mze: Ranking) -> tuple[str, list[bool | None]]:
    found = [tri_below(*r.gap(THRESHOLD_MODELS, DECOMPOSITIONS), 0.0) for r in (mae, mze)]
    verdict = (NOT_CONFIRMED if False in found else UNDECIDABLE if None in found
               else CONFIRMED)
    return verdict, found


@claim("NPSVOR", "NP-16", studies=STUDY,
       text="Ordinal binary decomposition methods are inferior to threshold methods",
       rule="(our reading) The mean of the average ranks of the threshold models {SVOREX, "
            "SVORIM, REDSVM} against that of the ordinal decompositions {SVMOP, OPBE}, over "
            "the paper's 23 datasets by name (ranks of the per-dataset means among the ten "
            "methods, each dataset on >= 80 % of its splits), on MAE and on MZE. CONFIRMED if "
            "the threshold models rank better on both metrics; otherwise NOT CONFIRMED; "
            "UNDECIDABLE while unranked datasets could change either.")
def np_16(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. I, citing the survey of Gutiérrez et al. and Chu &
    Keerthi: "the performance of the ordinal binary decomposition methods is still inferior to
    the threshold methods". Checked on this comparison's ranks."""
    mae, mze = ranking(study.results, "mae"), ranking(study.results, "mze")
    (verdict, found), lean = with_lean_of_two(mae, mze, _threshold_first)
    texts, gaps = [], {}
    for r in (mae, mze):
        lo, hi = r.gap(THRESHOLD_MODELS, DECOMPOSITIONS)
        gaps[r.metric] = (lo, hi)
        average = r.average()
        texts.append(f"{r.metric.upper()}: threshold {average[list(THRESHOLD_MODELS)].mean():.2f}"
                     f" vs decomposition {average[list(DECOMPOSITIONS)].mean():.2f} on "
                     f"{r.n}/{r.total} datasets"
                     + (f" (gap over 23 in [{lo:+.2f}, {hi:+.2f}])" if r.missing else ""))
    if verdict == UNDECIDABLE:
        texts.insert(0, mae.lacking() if mae.missing else mze.lacking())
    statistic = (f"threshold models rank better: MAE {yes_no(found[0])}, MZE "
                 f"{yes_no(found[1])}" + algebra.lean_text(lean))
    values = {"gap_mae": gaps["mae"], "gap_mze": gaps["mze"], "ranked": min(mae.n, mze.n)}
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation", values=values,
                   provisional=lean)
