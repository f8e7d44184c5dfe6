"""The NPSVOR paper's ranking claims (Wang et al., IEEE Trans. Cybernetics 2017, Section V-C,
Tables II-III and Fig. 5): NPSVOR's average rank among the ten methods on MZE and on MAE, the
Friedman test with critical differences, the overall claim of the abstract, and the cited
claim that threshold models beat ordinal binary decompositions.

Ranks are those of the per-dataset means (1 = best, ties averaged), over the paper's 23
datasets; where some cannot be ranked the verdict is taken only if the missing ones cannot
change it (:mod:`ordauc.claims.npsvor_common`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as ss

from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import (
    BASELINES,
    METHODS,
    PROPOSED,
    TOL,
    Ranking,
    bonferroni_dunn_cd,
    ranking,
    tri_below,
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
from ordauc.report.stats import nemenyi_cd

STUDY = ("npsvor",)
CD_BD = bonferroni_dunn_cd(len(METHODS), 23)
THRESHOLD_MODELS = ("svorex", "svorim", "redsvm")
DECOMPOSITIONS = ("svmop", "opbe")


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


@claim("NPSVOR", "NP-5", studies=STUDY,
       text="On MZE, NPSVOR is the second best of the ten compared methods by average rank",
       rule="Per dataset, the mean test MZE over the splits (models selected by MZE); rank the "
            "10 methods (1 = best, ties averaged) and average over the paper's 23 datasets. "
            "CONFIRMED if NPSVOR's average rank is 2nd (a tie for 2nd counts) or 1st (exceeds "
            "the claim); NOT CONFIRMED if 3rd or worse. Datasets where a method has ok runs on "
            "< 80 % of the splits are not ranked; with some missing, UNDECIDABLE unless no "
            "outcome of the missing ones could change the place.")
def np_5(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "when the MZE is considered, NPSVOR is the
    second best among the compared methods" (Table II, last row; Fig. 5(a))."""
    r = ranking(study.results, "mze")
    verdict = {True: CONFIRMED, False: NOT_CONFIRMED, None: UNDECIDABLE}[second_or_better(r)]
    outcome = _rank_outcome(r, verdict, "strict")
    if verdict == CONFIRMED and r.ahead_of(PROPOSED)[1] == 0:
        outcome = Outcome(verdict, outcome.statistic + " (exceeds the claim)", outcome.evidence,
                          outcome.reading)
    return outcome


@claim("NPSVOR", "NP-6", studies=STUDY,
       text="On MAE, NPSVOR outperforms all nine baselines by average rank",
       rule="As NP-5 on MAE (models selected by MAE). CONFIRMED if NPSVOR's average rank is "
            "strictly the lowest of the 10; PARTIAL if tied for 1st; otherwise NOT CONFIRMED; "
            "UNDECIDABLE while unranked datasets could change that.")
def np_6(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "When the MAE is considered, NPSVOR outperforms
    all the baselines" (Table III, last row; Fig. 5(b))."""
    r = ranking(study.results, "mae")
    return _rank_outcome(r, strictly_first(r), "strict")


def _rank_outcome(r: Ranking, verdict: str, reading: str) -> Outcome:
    statistic = f"NPSVOR average {r.metric.upper()} rank {r.position(PROPOSED)}"
    average = r.average().sort_values()
    means = r.values.mean(axis=0) if r.n else average * np.nan
    detail = ", ".join(f"{m} {average[m]:.2f}" for m in average.index)
    evidence = (f"average ranks: {detail}; mean {r.metric.upper()} over ranked datasets: "
                f"NPSVOR {ev.fmt(means.get(PROPOSED, math.nan))}, best baseline "
                f"{ev.fmt(means.drop(PROPOSED).min() if r.n else math.nan)}")
    if verdict == UNDECIDABLE:
        evidence = f"{r.lacking()}; {evidence}"
    return Outcome(verdict, statistic, evidence, reading)


@claim("NPSVOR", "NP-1", studies=STUDY,
       text="NPSVOR yields a large and significant improvement in generalization and training "
            "speed over the nine baselines",
       rule="(our reading) Generalization part: NPSVOR has the best average MAE rank (ties "
            "count) and beats >= 5 of the 9 baselines by more than the Bonferroni-Dunn "
            "critical difference with NPSVOR as control (CD = 2.476 for 10 methods and 23 "
            "datasets, z quantile as Demšar 2006). Speed part: the same on per-dataset median "
            "cv_time_s (CV time, the paper's Table V). CONFIRMED if both parts hold; PARTIAL "
            "if only the generalization part holds; otherwise NOT CONFIRMED; UNDECIDABLE "
            "while unranked datasets could change a part that matters.")
def np_1(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, abstract ("a large and statistically significant
    improvement in terms of generalization performance and training speed against nine
    baselines") and Sec. VI. The body concedes slower CV than binary decompositions on small
    problems and slower training than SVC1V1 (Secs. V-C and V-D), so the speed part is expected
    to fail. Interpretation: "significant" is read through the paper's own post-hoc test."""
    parts, texts, lacking = {}, [], ""
    for name, metric, stat in (("generalization", "mae", "mean"),
                               ("speed", "cv_time_s", "median")):
        r = ranking(study.results, metric, stat=stat)
        sure_ahead, possible_ahead = r.ahead_of(PROPOSED)
        best = True if possible_ahead == 0 else False if sure_ahead else None
        sure_sig, possible_sig = significantly_ahead(r, CD_BD)
        sig = _settle(sure_sig, possible_sig, need=5)
        parts[name] = (False if best is False or sig is False else
                       None if best is None or sig is None else True)
        texts.append(f"{name} ({metric}): NPSVOR {r.position(PROPOSED)}; best {yes_no(best)}; "
                     f"ahead by > CD {CD_BD:.3f} of {sure_sig} (up to {possible_sig}) of 9")
        lacking = lacking or (r.lacking() if r.missing else "")
    gen, speed = parts["generalization"], parts["speed"]
    if gen is False:
        verdict = NOT_CONFIRMED
    elif gen is None or speed is None:
        verdict = UNDECIDABLE
    else:
        verdict = CONFIRMED if speed else PARTIAL
    statistic = f"generalization part {yes_no(gen)}, speed part {yes_no(speed)}"
    if verdict == UNDECIDABLE and lacking:
        texts.insert(0, lacking)
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation")


def friedman_text(r: Ranking) -> tuple[float, str]:
    """Friedman p on the ranked datasets, and its text with the Iman-Davenport F."""
    n, k = r.n, len(r.methods)
    if n < 2:
        return math.nan, f"Friedman needs >= 2 ranked datasets, {n}"
    # the ranks, not the means: ties are those of rank_rows (equal to 12 decimals)
    with np.errstate(all="ignore"):
        chi2, p = ss.friedmanchisquare(*r.ranks.to_numpy(float).T)
    if not np.isfinite(chi2):
        return 1.0, "Friedman: every dataset ties all methods"
    spare = n * (k - 1) - chi2  # zero when every dataset ranks the methods alike
    f = (n - 1) * chi2 / spare if spare > 0 else math.inf
    p_f = float(ss.f.sf(f, k - 1, (k - 1) * (n - 1))) if spare > 0 else 0.0
    return float(p), f"chi2={chi2:.2f} p={p:.3g}, Iman-Davenport F={f:.3g} p={p_f:.3g}"


def beyond(r: Ranking, cd: float) -> tuple[list[str], list[str]]:
    """The baselines NPSVOR's average rank beats, and those beating it, by more than ``cd``."""
    if not r.n:
        return [], []
    gap = r.average()[list(BASELINES)] - r.average()[PROPOSED]
    return list(gap[gap > cd].index), list(gap[gap < -cd].index)


@claim("NPSVOR", "NP-9", studies=STUDY,
       text="The Friedman test over the 23 datasets, with NPSVOR as control in the CD diagram, "
            "separates the methods on MZE and on MAE",
       rule="scipy.stats.friedmanchisquare on the 23 x 10 matrix of per-dataset means, for MZE "
            "and for MAE (each with models selected by it), plus the Iman-Davenport F. "
            "CONFIRMED if the Friedman p < 0.05 for both metrics and NPSVOR's places match "
            "NP-5 and NP-6 (1st or 2nd on MZE, strictly 1st on MAE); otherwise NOT CONFIRMED. "
            "Needs all 23 datasets ranked (UNDECIDABLE otherwise, unless the places already "
            "fail). The baselines beyond the Bonferroni-Dunn CD (NPSVOR as control) and the "
            "Nemenyi CD are listed.")
def np_9(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C and Fig. 5: the Friedman test, then a
    critical-difference diagram with NPSVOR as the control algorithm at alpha = 0.05. The
    paper's list of significantly different pairs is not in the text we have."""
    mze, mae = ranking(study.results, "mze"), ranking(study.results, "mae")
    places = {"mze": second_or_better(mze),
              "mae": {CONFIRMED: True, NOT_CONFIRMED: False, PARTIAL: False}.get(
                  strictly_first(mae))}
    texts, rejected = [], []
    for r in (mze, mae):
        p, text = friedman_text(r)
        rejected.append(p < ev.ALPHA if np.isfinite(p) else None)
        cd_bd, cd_nem = bonferroni_dunn_cd(10, max(r.n, 1)), nemenyi_cd(10, max(r.n, 1))
        ahead, behind = beyond(r, cd_bd)
        ahead_nem, behind_nem = beyond(r, cd_nem)
        texts.append(f"{r.metric.upper()} on {r.n} datasets: {text}; NPSVOR "
                     f"{r.position(PROPOSED).split(' on ')[0]}; beyond BD CD {cd_bd:.2f}: ahead "
                     f"of {', '.join(ahead) or 'none'}, behind {', '.join(behind) or 'none'}; "
                     f"Nemenyi CD {cd_nem:.2f}: {len(ahead_nem)} ahead, {len(behind_nem)} "
                     f"behind")
    if False in places.values():
        verdict = NOT_CONFIRMED
    elif mze.missing or mae.missing or None in places.values():
        verdict = UNDECIDABLE
        texts.insert(0, (mze if mze.missing else mae).lacking())
    else:
        verdict = CONFIRMED if all(rejected) else NOT_CONFIRMED
    statistic = (f"Friedman rejects: MZE {yes_no(rejected[0])}, MAE {yes_no(rejected[1])}; "
                 f"places match: MZE {yes_no(places['mze'])}, MAE {yes_no(places['mae'])}")
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation")


@claim("NPSVOR", "NP-16", studies=STUDY,
       text="Ordinal binary decomposition methods are inferior to threshold methods",
       rule="(our reading) The mean of the average ranks of the threshold models {SVOREX, "
            "SVORIM, REDSVM} against that of the ordinal decompositions {SVMOP, OPBE}, over "
            "the 23 datasets, on MAE and on MZE (ranks among the ten methods). CONFIRMED if "
            "the threshold models rank better on both metrics; otherwise NOT CONFIRMED; "
            "UNDECIDABLE while unranked datasets could change either.")
def np_16(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. I, citing the survey of Gutiérrez et al. and Chu &
    Keerthi: "the performance of the ordinal binary decomposition methods is still inferior to
    the threshold methods". Checked on this comparison's ranks."""
    found, texts = [], []
    for metric in ("mae", "mze"):
        r = ranking(study.results, metric)
        lo, hi = r.gap(THRESHOLD_MODELS, DECOMPOSITIONS)
        found.append(tri_below(lo, hi, 0.0))
        average = r.average()
        texts.append(f"{metric.upper()}: threshold {average[list(THRESHOLD_MODELS)].mean():.2f}"
                     f" vs decomposition {average[list(DECOMPOSITIONS)].mean():.2f} on "
                     f"{r.n}/{r.total} datasets"
                     + (f" (gap over 23 in [{lo:+.2f}, {hi:+.2f}])" if r.missing else ""))
    if False in found:
        verdict = NOT_CONFIRMED
    elif None in found:
        verdict = UNDECIDABLE
        texts.append("the unranked datasets could reverse the order; every method needs ok "
                     "runs on >= 80 % of each dataset's repetitions")
    else:
        verdict = CONFIRMED
    statistic = f"threshold models rank better: MAE {yes_no(found[0])}, MZE {yes_no(found[1])}"
    return Outcome(verdict, statistic, "; ".join(texts), "interpretation")
