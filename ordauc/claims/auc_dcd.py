"""The AUC-DCD paper's accuracy claims (Jiang, Tao, Gao & Chu, Journal of Software 25(10),
2014, section 3.2, Table 2): SDCDperm against OAMinf, SDCD and MSGD on the test AUC of 5 folds x
4 fold assignments. The convergence claims (Figure 2) are in
:mod:`ordauc.claims.auc_dcd_curves`, the protocol statements in
:mod:`ordauc.claims.auc_dcd_protocol`, the numbers against Table 2 and the cited OAM claim in
:mod:`ordauc.claims.auc_dcd_table`; importing this module registers them all.

Every check reads the paper's variant (:func:`ordauc.claims.auc_dcd_common.paper_protocol`):
lambda chosen per (dataset, method) by the best mean test AUC, as the paper did; the honest
variant (lambda by inner CV) is reported beside it where it is cheap. Every count is over the
paper's ten datasets (:data:`ordauc.claims.auc_dcd_common.PAPER_SETS`) and needs 16 of the
paper's 20 runs per dataset; other datasets are shown as extra evidence and never decide.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from ordauc.claims import algebra, auc_dcd_curves, auc_dcd_protocol, auc_dcd_table  # noqa: F401
from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    MSGD,
    N_DATASETS,
    OAM,
    PAPER,
    PERM,
    SDCD,
    SHORT,
    Protocol,
    against_each,
    compared,
    cv_protocol,
    hypotheses_text,
    judgment_lines,
    lean,
    mean_guard,
    no_paper_runs,
    paper_datasets,
    paper_protocol,
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
from ordauc.claims.study import Study

STUDIES = ("auc_dcd",)
CONFIRM_AT = 6  # "most" of the paper's 10 datasets (C5)
FAMILY = (SDCD, PERM, MSGD)  # AUC-DCD: the paper's three methods
ABOVE, NOT_ABOVE, BELOW = "above", "not above", "significantly below"


def over_oam(proto: Protocol, method: str) -> tuple[algebra.Settled, list[algebra.Judgment]]:
    """DCD-1's AUC part for one AUC-DCD method: per dataset ``above`` (mean paired AUC above
    OAMinf's beyond the practical margin, not significantly below), ``significantly below``
    (one-sided paired signed-rank p < 0.05), or ``not above``; settled over the 10 datasets
    by "above on >= 6 and significantly below on none"."""
    judgments = []
    for dataset in paper_datasets(proto):
        pair, comp = compared(proto, dataset, method, OAM)
        if comp.state == algebra.WORSE:
            state = BELOW
        elif comp.state is not None:
            state = ABOVE if pair.mean > algebra.margin_of("auc") else NOT_ABOVE
        else:
            state = (BELOW if pair.n and pair.mean < 0 else
                     ABOVE if pair.n and pair.mean > algebra.margin_of("auc") else NOT_ABOVE)
        judgments.append(algebra.judge(dataset, state, guards=(comp.guard,), text=comp.text(),
                                       named=PAPER.named(dataset)))
    settled = algebra.settle(_holds_rule, judgments, N_DATASETS, ABOVE, BELOW)
    return settled, judgments


def _holds_rule(counts: Counter[str]) -> str:
    return CONFIRMED if counts[ABOVE] >= CONFIRM_AT and not counts[BELOW] else NOT_CONFIRMED


def _part(states: list[bool | None]) -> set[str]:
    """The states a part over several units can take: ``all``, ``some`` or ``none`` hold,
    over every completion of the undecided units (None)."""
    out = set()
    for fill in itertools.product((True, False), repeat=states.count(None)):
        it = iter(fill)
        full = [next(it) if s is None else s for s in states]
        out.add("all" if all(full) else "none" if not any(full) else "some")
    return out


def _combine(auc: str, conv: str) -> str:
    if auc == "all" and conv == "all":
        return CONFIRMED
    if auc == "none" and conv == "none":
        return NOT_CONFIRMED
    return PARTIAL


_CONV = {CONFIRMED: {"all"}, PARTIAL: {"some"}, NOT_CONFIRMED: {"none"},
         UNDECIDABLE: {"all", "some", "none"}}
_HOLDS = {CONFIRMED: True, NOT_CONFIRMED: False}


@claim("AUC-DCD", "DCD-1", studies=STUDIES,
       text="AUC-DCD is better than OAM in both AUC and convergence rate",
       rule="AUC part, per AUC-DCD method (SDCD, SDCDperm, MSGD; AUC-DCD is the family, not "
            "its best member): over the paper's 10 datasets (16 of the 20 runs paired each), "
            "the mean paired test AUC is above OAMinf's by more than 0.001 on >= 6 and "
            "significantly below it (one-sided exact signed-rank, p < 0.05) on none. The AUC "
            "part holds for the family if it holds for all three methods, for none if for "
            "none. Convergence part: DCD-5 (CONFIRMED = all, PARTIAL = some, NOT CONFIRMED = "
            "none). CONFIRMED if both parts hold for all, NOT CONFIRMED if both for none, "
            "otherwise PARTIAL; the methods for which the AUC part holds are named. "
            "UNDECIDABLE while an undecided dataset or DCD-5 could change the verdict")
def dcd_1(study: Study) -> Outcome:
    """Jiang et al. 2014, abstract and conclusion: "AUC-DCD is better than OAM on the AUC
    performance as well as the convergence rate" (Table 2, Figure 2).

    Interpretations: AUC-DCD names the three methods of the paper (SDCD, SDCDperm, MSGD), so
    the claim is read for each; "better" on AUC = a higher mean on most of the 10 datasets and
    significantly lower on none; the convergence part is the verdict of DCD-5 (all three
    AUC-DCD methods faster than OAMinf). The paper's own Table 2 has SDCD and MSGD below
    OAMinf on dna, pendigits, letter and sector (|t| > 5), so the family reading is stricter
    than the paper's SDCDperm-only reading.
    """
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    proto = paper_protocol(study)
    per: dict[str, algebra.Settled] = {}
    lines, judgments = [], []
    for method in FAMILY:
        settled, mine = over_oam(proto, method)
        per[method] = settled
        judgments += mine
        lines.append(f"{SHORT[method]} ({settled.verdict}; above on {settled.counts[ABOVE]}, "
                     f"significantly below on {settled.counts[BELOW]} of {settled.decided} "
                     f"decided): {judgment_lines(mine)}")
    conv = auc_dcd_curves.dcd_5(study)
    auc_states = _part([_HOLDS.get(per[m].verdict) for m in FAMILY])
    verdicts = {_combine(a, c) for a in auc_states for c in _CONV[conv.verdict]}
    verdict = verdicts.pop() if len(verdicts) == 1 else UNDECIDABLE
    lean_auc = [per[m].verdict if per[m].verdict != UNDECIDABLE else per[m].provisional
                for m in FAMILY]
    provisional = None
    if verdict == UNDECIDABLE and None not in lean_auc:
        conv_lean = conv.verdict if conv.verdict != UNDECIDABLE else conv.provisional
        if conv_lean in (CONFIRMED, PARTIAL, NOT_CONFIRMED):
            auc_lean = _part([v == CONFIRMED for v in lean_auc]).pop()
            provisional = _combine(auc_lean, next(iter(_CONV[conv_lean])))
    holds = [SHORT[m] for m in FAMILY if per[m].verdict == CONFIRMED]
    fails = [SHORT[m] for m in FAMILY if per[m].verdict == NOT_CONFIRMED]
    statistic = (f"AUC part holds for {'/'.join(holds) or 'none'}, fails for "
                 f"{'/'.join(fails) or 'none'} of SDCD/SDCDperm/MSGD; convergence (DCD-5) "
                 f"{conv.verdict}" + algebra.lean_text(provisional))
    evidence = f"AUC: {'. '.join(lines)}. Convergence (DCD-5): {conv.statistic}"
    if conv.verdict == UNDECIDABLE:
        evidence += f"; {conv.evidence}"
    values = {"auc_holds": holds, "auc_fails": fails,
              **{f"above_{m}": per[m].counts[ABOVE] for m in FAMILY},
              **{f"below_{m}": per[m].counts[BELOW] for m in FAMILY},
              **{f"auc_{m}": per[m].verdict for m in FAMILY},
              "convergence": conv.verdict}
    return Outcome(verdict, statistic, evidence, values=values, judgments=tuple(judgments),
                   provisional=provisional)


BEST, TIE, BELOW_MEAN = "best", algebra.TIE, "below"


def ranking(proto: Protocol) -> dict[str, object]:
    """DCD-2's judgments: per dataset whether SDCDperm has the highest mean (beyond the 0.001
    margin), and its paired comparison with each other method."""
    others = (OAM, SDCD, MSGD)
    top: list[algebra.Judgment] = []
    better: dict[str, list[algebra.Judgment]] = {o: [] for o in others}
    margin = algebra.margin_of("auc")
    for dataset in paper_datasets(proto):
        named = PAPER.named(dataset)
        comps = {o: compared(proto, dataset, PERM, o) for o in others}
        guard = next((mean_guard(p.n, p.planned) for p, _ in comps.values()
                      if mean_guard(p.n, p.planned)), "")
        values = ev.means(proto.table, dataset, (PERM, *others), "auc")
        state = algebra.best_state(values, PERM, False, "auc")
        best = ev.best_of(values, "auc")
        top.append(algebra.judge(dataset, state, guards=(guard,), named=named,
                                 text=f"top {SHORT.get(best, best)}"))
        for o, (_, comp) in comps.items():
            better[o].append(algebra.judge(dataset, lean(comp, margin=margin), guards=(comp.guard,),
                                           named=named, text=f"vs {SHORT[o]} {comp.text()}"))
    return {"top": top, "better": better}


def _at_least(state: str) -> object:
    def rule(counts: Counter[str]) -> str:
        return CONFIRMED if counts[state] >= CONFIRM_AT else NOT_CONFIRMED
    return rule


@claim("AUC-DCD", "DCD-2", studies=STUDIES,
       text="SDCDperm is clearly better than OAMinf, SDCD and MSGD on most datasets",
       rule="Per paper dataset (16 of the 20 runs paired) the mean of the paired test AUCs. "
            "CONFIRMED if SDCDperm has the highest mean by more than 0.001 on >= 6 of the 10 "
            "datasets and is significantly better (one-sided exact signed-rank, p < 0.05) than "
            "each of the other three on >= 6; PARTIAL if only the first part holds; otherwise "
            "NOT CONFIRMED (our reading of 'clearly': significantly). Other datasets are extra "
            "evidence")
def dcd_2(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Table 2: "SDCDperm is clearly better than OAMinf, SDCD
    and MSGD on most datasets".

    Interpretations: "most" = at least 6 of 10 (C5); "clearly better" = significantly better
    in the paired one-sided signed-rank test over the 20 runs. The 20 runs share data across
    folds, so the p-values are optimistic.
    """
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    outcome = _dcd_2_outcome(paper_protocol(study))
    evidence = outcome.evidence
    cv = cv_protocol(study)
    if cv is not None and not cv.variant.missing():
        other = ranking(cv)["top"]
        evidence += (f". {cv.variant.name}: highest on "
                     f"{sum(j.state == BEST and j.named for j in other)}")
    evidence += hypotheses_text(study, lambda p: _short(_dcd_2_outcome(p)))
    return replace(outcome, evidence=evidence)


def _short(outcome: Outcome) -> tuple[str, str]:
    return outcome.verdict, outcome.statistic


def _dcd_2_outcome(proto: Protocol) -> Outcome:
    """DCD-2 decided on one protocol table (the paper's variant, or a hypothesis's)."""
    found = ranking(proto)
    first = algebra.settle(_at_least(BEST), found["top"], N_DATASETS, BEST, BELOW_MEAN)
    second = {o: algebra.settle(_at_least(algebra.BETTER), js, N_DATASETS, algebra.BETTER,
                                algebra.WORSE) for o, js in found["better"].items()}
    verdict = _dcd_2_verdict(first.verdict, [s.verdict for s in second.values()])
    provisional = None
    if verdict == UNDECIDABLE:
        leans = [s.verdict if s.verdict != UNDECIDABLE else s.provisional
                 for s in (first, *second.values())]
        if None not in leans:
            lean = _dcd_2_verdict(leans[0], leans[1:])
            provisional = lean if lean != UNDECIDABLE else None
    wins = ", ".join(f"{SHORT[o]} {s.counts[algebra.BETTER]}" for o, s in second.items())
    statistic = (f"highest on {first.counts[BEST]}/{first.decided} decided of the paper's "
                 f"{N_DATASETS}; significantly better than {wins}"
                 + algebra.lean_text(provisional))
    judgments = [*found["top"], *(j for js in found["better"].values() for j in js)]
    evidence = "highest: " + judgment_lines(found["top"]) + ". " + ". ".join(
        judgment_lines(js) for js in found["better"].values())
    values = {"highest": first.counts[BEST], "decided": first.decided,
              **{f"better_{o}": s.counts[algebra.BETTER] for o, s in second.items()}}
    return Outcome(verdict, statistic, evidence, values=values, judgments=tuple(judgments),
                   provisional=provisional)


def _dcd_2_verdict(first: str, second: list[str]) -> str:
    if first == NOT_CONFIRMED:
        return NOT_CONFIRMED
    if first == CONFIRMED and all(v == CONFIRMED for v in second):
        return CONFIRMED
    if first == CONFIRMED and NOT_CONFIRMED in second:
        return PARTIAL
    return UNDECIDABLE


LOWER, SPREAD_TIE, HIGHER = "lower", "tie", "higher"


def stability(proto: Protocol) -> dict[str, list[algebra.Judgment]]:
    """DCD-3: per dataset and rival (SDCD, MSGD), sd(SDCDperm) ``lower`` / ``tie`` (within
    0.001) / ``higher`` than the rival's, over the same (paired) runs."""
    out: dict[str, list[algebra.Judgment]] = {SDCD: [], MSGD: []}
    margin = algebra.margin_of("auc")
    for dataset in paper_datasets(proto):
        for o in out:
            pair = ev.paired(proto.table, dataset, PERM, o, "auc")
            guard = mean_guard(pair.n, pair.planned) or ("" if pair.n > 1 else algebra.MISSING)
            state, text = None, "no paired runs"
            if pair.n > 1:
                mine, theirs = float(pair.a.std(ddof=1)), float(pair.b.std(ddof=1))
                gap = mine - theirs
                state = SPREAD_TIE if abs(gap) <= margin else LOWER if gap < 0 else HIGHER
                text = f"sd {mine:.4f} vs {SHORT[o]} {theirs:.4f}"
            out[o].append(algebra.judge(dataset, state, guards=(guard,), text=text,
                                        named=PAPER.named(dataset)))
    return out


@claim("AUC-DCD", "DCD-3", studies=STUDIES,
       text="The standard deviations show that SDCDperm is more stable",
       rule="sd (ddof 1) of each method's test AUCs per paper dataset, over the runs paired "
            "with SDCDperm's (16 of the 20 needed). sd gaps within 0.001 are ties (neither "
            "more nor less stable). CONFIRMED if sd(SDCDperm) is lower than sd(SDCD) by more "
            "than 0.001 on >= 6 of the 10 datasets and lower than sd(MSGD) on >= 6; PARTIAL if "
            "against one of them; otherwise NOT CONFIRMED (our reading: 'more stable' = a "
            "smaller spread than the other AUC-DCD methods on most datasets; no test of the "
            "spreads is made)")
def dcd_3(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: "the comparison of the standard deviations also shows
    that SDCDperm is more stable" (Table 2; its "mean square error" is the sample sd).

    Interpretation: against SDCD and MSGD (the paper's point: sampling pairs without
    replacement steadies the result), on most (>= 6 of 10) datasets. The paper's own Table 2
    gives lower by more than 0.001 on 6/10 against SDCD (3 ties) and 7/10 against MSGD.
    """
    why = no_paper_runs(study, (SDCD, PERM, MSGD))
    if why:
        return undecidable(why)
    found = stability(paper_protocol(study))
    settled = {o: algebra.settle(_at_least(LOWER), js, N_DATASETS, LOWER, HIGHER)
               for o, js in found.items()}
    verdicts = [s.verdict for s in settled.values()]
    verdict = against_each(verdicts)
    provisional = None
    if verdict == UNDECIDABLE:
        leans = [s.verdict if s.verdict != UNDECIDABLE else s.provisional
                 for s in settled.values()]
        if None not in leans:
            provisional = against_each(leans)
    statistic = (f"sd(SDCDperm) lower than sd(SDCD) on {settled[SDCD].counts[LOWER]}, than "
                 f"sd(MSGD) on {settled[MSGD].counts[LOWER]} (ties "
                 f"{settled[SDCD].counts[SPREAD_TIE]}/{settled[MSGD].counts[SPREAD_TIE]}; "
                 f"{settled[SDCD].decided} of the paper's {N_DATASETS} datasets decided)"
                 + algebra.lean_text(provisional))
    judgments = [j for js in found.values() for j in js]
    values = {**{f"lower_{o}": s.counts[LOWER] for o, s in settled.items()},
              **{f"tie_{o}": s.counts[SPREAD_TIE] for o, s in settled.items()},
              "decided": settled[SDCD].decided}
    return Outcome(verdict, statistic, judgment_lines(judgments), values=values,
                   judgments=tuple(judgments), provisional=provisional)


def above_oam(proto: Protocol, method: str) -> list[algebra.Judgment]:
    """DCD-4: per dataset whether ``method``'s mean paired AUC is ``above`` OAMinf's by more
    than the 0.001 margin (``not above`` otherwise: a tie does not beat)."""
    out = []
    for dataset in paper_datasets(proto):
        pair = ev.paired(proto.table, dataset, method, OAM, "auc")
        state = (ABOVE if pair.mean > algebra.margin_of("auc") else NOT_ABOVE) if pair.n else None
        out.append(algebra.judge(dataset, state, guards=(mean_guard(pair.n, pair.planned),),
                                 text=f"d={pair.mean:+.4f}" if pair.n else "no paired runs",
                                 named=PAPER.named(dataset)))
    return out


def _some(hits: int, open_: int) -> bool | None:
    """Whether a count lies in [1, 8] whatever the ``open_`` undecided datasets give."""
    low, high = hits, hits + open_
    if low >= 1 and high <= 8:
        return True
    if high < 1 or low > 8:
        return False
    return None


@claim("AUC-DCD", "DCD-4", studies=STUDIES,
       text="SDCD and MSGD beat OAMinf only on some datasets",
       rule="Count the paper's datasets (16 of the 20 runs paired) where the mean paired test "
            "AUC of SDCD is above OAMinf's by more than 0.001, and the same for MSGD. "
            "CONFIRMED if each count lies in [1, 8] of the 10 datasets (our reading of 'only "
            "some': neither none nor nearly all), NOT CONFIRMED if one lies outside whatever "
            "the undecided datasets give, else UNDECIDABLE; the paper's own Table 2 gives 5/10 "
            "each. The paper's explanation (the order of the randomly drawn pairs) is not "
            "decided here")
def dcd_4(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: "SDCD and MSGD beat OAMinf only on some datasets; this
    relates to the order of the randomly drawn pairs".

    Only the first half is checked. The rule is not monotone (an interval), so a count is
    settled when every completion of the undecided datasets keeps it inside, or outside,
    [1, 8].
    """
    why = no_paper_runs(study, (OAM, SDCD, MSGD))
    if why:
        return undecidable(why)
    outcome = _dcd_4_outcome(paper_protocol(study))
    evidence = outcome.evidence
    cv = cv_protocol(study)
    if cv is not None and not cv.variant.missing((OAM, SDCD, MSGD)):
        evidence += f". {cv.variant.name}: " + ", ".join(
            f"{SHORT[m]} {sum(j.state == ABOVE for j in above_oam(cv, m))}" for m in (SDCD, MSGD))
    evidence += hypotheses_text(study, lambda p: _short(_dcd_4_outcome(p)))
    return replace(outcome, evidence=evidence)


def _dcd_4_outcome(proto: Protocol) -> Outcome:
    """DCD-4 decided on one protocol table (the paper's variant, or a hypothesis's)."""
    parts, counts, leans, judgments, states = [], {}, [], [], []
    for method in (SDCD, MSGD):
        mine = above_oam(proto, method)
        judgments += mine
        named = [j for j in mine if j.named]
        hits = sum(j.state == ABOVE for j in named)
        decided = sum(j.state is not None for j in named)
        open_ = N_DATASETS - decided
        parts.append(_some(hits, open_))
        leans.append(1 <= sum(j.lean == ABOVE for j in mine) <= 8)
        counts[method] = (hits, decided)
        states.append(f"{SHORT[method]} " + {
            True: "in [1, 8] whatever the undecided datasets give", False: "outside [1, 8]",
            None: f"open ({open_} datasets undecided)"}[parts[-1]])
    verdict = CONFIRMED if all(parts) else NOT_CONFIRMED if False in parts else UNDECIDABLE
    provisional = None
    if verdict == UNDECIDABLE:
        provisional = CONFIRMED if all(leans) else NOT_CONFIRMED
    statistic = ", ".join(f"{SHORT[m]} above OAMinf on {h}/{n}" for m, (h, n) in counts.items()
                          ) + f" decided of the paper's {N_DATASETS}" + \
        algebra.lean_text(provisional)
    evidence = f"{'; '.join(states)} (the paper's Table 2: 5/10 each). {judgment_lines(judgments)}"
    values = {f"above_{m}": h for m, (h, _) in counts.items()}
    values.update({f"decided_{m}": n for m, (_, n) in counts.items()})
    return Outcome(verdict, statistic, evidence, values=values, judgments=tuple(judgments),
                   provisional=provisional)
