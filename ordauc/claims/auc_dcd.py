"""The AUC-DCD paper's accuracy claims (Jiang, Tao, Gao & Chu, Journal of Software 25(10),
2014, section 3.2, Table 2): SDCDperm against OAMinf, SDCD and MSGD on the test AUC of 5 folds x
4 fold assignments. The convergence claims (Figure 2) are in
:mod:`ordauc.claims.auc_dcd_curves`, the protocol statements in
:mod:`ordauc.claims.auc_dcd_protocol`, the numbers against Table 2 and the cited OAM claim in
:mod:`ordauc.claims.auc_dcd_table`; importing this module registers them all.

Every check reads the paper's variant (:func:`ordauc.claims.auc_dcd_common.paper_protocol`):
lambda chosen per (dataset, method) by the best mean test AUC, as the paper did; the honest
variant (lambda by inner CV) is reported beside it where it is cheap.
"""

from __future__ import annotations

from ordauc.claims import auc_dcd_curves, auc_dcd_protocol, auc_dcd_table  # noqa: F401
from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    MSGD,
    N_DATASETS,
    OAM,
    PERM,
    SDCD,
    SHORT,
    Protocol,
    against_each,
    cv_protocol,
    datasets_text,
    no_paper_runs,
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
_HOLDS = {CONFIRMED: True, NOT_CONFIRMED: False}


def _paired(proto: Protocol, dataset: str, a: str, b: str) -> ev.Paired:
    return ev.paired(proto.table, dataset, a, b, "auc")


def perm_over_oam(proto: Protocol) -> tuple[bool | None, str]:
    """DCD-1's accuracy part: (holds, or None while undecidable; the statistic)."""
    above, worse, decided = 0, [], []
    for dataset in proto.datasets():
        pair = _paired(proto, dataset, PERM, OAM)
        if not pair.enough:
            continue
        decided.append(dataset)
        above += pair.mean > 0
        if pair.worse():
            worse.append(dataset)
    verdict = ev.count_rule(above, len(decided), N_DATASETS, CONFIRM_AT)
    holds = False if worse else _HOLDS.get(verdict)
    text = (f"SDCDperm above OAMinf on {above}/{len(decided)}, significantly below on "
            f"{len(worse)}" + (f" ({', '.join(worse)})" if worse else ""))
    return holds, text


@claim("AUC-DCD", "DCD-1", studies=STUDIES,
       text="AUC-DCD is better than OAM in both AUC and convergence rate",
       rule="AUC part (our reading: SDCDperm, the variant the paper recommends, stands for "
            "AUC-DCD): mean paired test AUC of SDCDperm above OAMinf's on >= 6 of the 10 "
            "datasets and significantly below (one-sided paired Wilcoxon, p < 0.05) on none. "
            "Convergence part: claim DCD-5 CONFIRMED. CONFIRMED if both parts hold, PARTIAL "
            "if one does, NOT CONFIRMED if neither")
def dcd_1(study: Study) -> Outcome:
    """Jiang et al. 2014, abstract and conclusion: "AUC-DCD is better than OAM on the AUC
    performance as well as the convergence rate" (Table 2, Figure 2).

    Interpretations: SDCDperm represents AUC-DCD (section 3.2 recommends it); "better" on AUC
    = a higher mean on most datasets and significantly lower on none; the convergence part is
    the verdict of DCD-5 (all three AUC-DCD methods faster than OAMinf).
    """
    why = no_paper_runs(study, (OAM, PERM))
    if why:
        return undecidable(why)
    auc_holds, auc_text = perm_over_oam(paper_protocol(study))
    conv = auc_dcd_curves.dcd_5(study)
    conv_holds = _HOLDS.get(conv.verdict, False if conv.verdict == PARTIAL else None)
    parts = [auc_holds, conv_holds]
    if None in parts:
        verdict = UNDECIDABLE
    else:
        verdict = {2: CONFIRMED, 1: PARTIAL, 0: NOT_CONFIRMED}[sum(parts)]
    statistic = f"AUC part {_word(auc_holds)}, convergence part {_word(conv_holds)}"
    evidence = f"AUC: {auc_text}. Convergence (DCD-5): {conv.verdict}, {conv.statistic}"
    if verdict == UNDECIDABLE and conv.verdict == UNDECIDABLE:
        evidence += f"; {conv.evidence}"
    return Outcome(verdict, statistic, evidence)


def _word(holds: bool | None) -> str:
    return {True: "holds", False: "fails", None: "undecidable"}[holds]


def ranking(proto: Protocol) -> dict[str, object]:
    """DCD-2's counts: datasets where SDCDperm is highest, and significantly better than each
    other method, over the decidable datasets."""
    others = (OAM, SDCD, MSGD)
    top, better, decided, lines = 0, dict.fromkeys(others, 0), [], []
    for dataset in proto.datasets():
        pairs = {o: _paired(proto, dataset, PERM, o) for o in others}
        if not all(p.enough for p in pairs.values()):
            continue
        decided.append(dataset)
        values = ev.means(proto.table, dataset, (PERM, *others), "auc")
        first = ev.highest(values, PERM, "auc")
        top += first
        wins = [o for o in others if pairs[o].better()]
        for o in wins:
            better[o] += 1
        best = ev.best_of(values, "auc")
        lines.append(f"{dataset}: top {SHORT.get(best, best)}, SDCDperm sig. > "
                     f"{'/'.join(SHORT[o] for o in wins) or 'none'}")
    return {"top": top, "better": better, "decided": decided, "lines": lines}


@claim("AUC-DCD", "DCD-2", studies=STUDIES,
       text="SDCDperm is clearly better than OAMinf, SDCD and MSGD on most datasets",
       rule="Per dataset the mean of the 20 paired test AUCs. CONFIRMED if SDCDperm has the "
            "strictly highest mean on >= 6 of the 10 datasets and is significantly better "
            "(one-sided paired Wilcoxon, p < 0.05) than each of the other three on >= 6; "
            "PARTIAL if only the first part holds; otherwise NOT CONFIRMED (our reading of "
            "'clearly': significantly)")
def dcd_2(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Table 2: "SDCDperm is clearly better than OAMinf, SDCD
    and MSGD on most datasets".

    Interpretations: "most" = at least 6 of 10 (C5); "clearly better" = significantly better
    in the paired one-sided Wilcoxon test over the 20 runs. The 20 runs share data across
    folds, so the p-values are optimistic.
    """
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    found = ranking(paper_protocol(study))
    decided = len(found["decided"])
    first = ev.count_rule(found["top"], decided, N_DATASETS, CONFIRM_AT)
    second = [ev.count_rule(n, decided, N_DATASETS, CONFIRM_AT) for n in found["better"].values()]
    if first == NOT_CONFIRMED:
        verdict = NOT_CONFIRMED
    elif first == CONFIRMED and all(v == CONFIRMED for v in second):
        verdict = CONFIRMED
    elif first == CONFIRMED and NOT_CONFIRMED in second:
        verdict = PARTIAL
    else:
        verdict = UNDECIDABLE
    wins = ", ".join(f"{SHORT[o]} {n}" for o, n in found["better"].items())
    statistic = (f"highest on {found['top']}/{decided}; significantly better than {wins} "
                 f"({datasets_text(found['decided'])})")
    evidence = "; ".join(found["lines"]) or "no dataset with enough paired runs (C2)"
    cv = cv_protocol(study)
    if cv is not None and not cv.variant.missing():
        evidence += f". {cv.variant.name}: highest on {ranking(cv)['top']}"
    return Outcome(verdict, statistic, evidence)


def stability(proto: Protocol) -> tuple[dict[str, int], list[str], list[str]]:
    """DCD-3: datasets where sd(SDCDperm) <= sd(SDCD), and <= sd(MSGD), over the same runs."""
    hits, decided, lines = {SDCD: 0, MSGD: 0}, [], []
    for dataset in proto.datasets():
        pairs = {o: _paired(proto, dataset, PERM, o) for o in hits}
        if not all(p.enough and p.n > 1 for p in pairs.values()):
            continue
        decided.append(dataset)
        sds = {o: (float(p.a.std(ddof=1)), float(p.b.std(ddof=1))) for o, p in pairs.items()}
        for o, (mine, theirs) in sds.items():
            hits[o] += mine <= theirs
        lines.append(f"{dataset} {sds[SDCD][0]:.4f} vs {sds[SDCD][1]:.4f}/{sds[MSGD][1]:.4f}")
    return hits, decided, lines


@claim("AUC-DCD", "DCD-3", studies=STUDIES,
       text="The standard deviations show that SDCDperm is more stable",
       rule="sd (ddof 1) of each method's 20 test AUCs per dataset, over the runs paired with "
            "SDCDperm's. CONFIRMED if sd(SDCDperm) <= sd(SDCD) on >= 6 of the 10 datasets and "
            "sd(SDCDperm) <= sd(MSGD) on >= 6; PARTIAL if against one of them; otherwise NOT "
            "CONFIRMED (our reading: 'more stable' = a smaller spread than the other AUC-DCD "
            "methods on most datasets)")
def dcd_3(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: "the comparison of the standard deviations also shows
    that SDCDperm is more stable" (Table 2; its "mean square error" is the sample sd).

    Interpretation: against SDCD and MSGD (the paper's point: sampling pairs without
    replacement steadies the result), on most (>= 6 of 10) datasets.
    """
    why = no_paper_runs(study, (SDCD, PERM, MSGD))
    if why:
        return undecidable(why)
    hits, decided, lines = stability(paper_protocol(study))
    verdicts = [ev.count_rule(n, len(decided), N_DATASETS, CONFIRM_AT) for n in hits.values()]
    verdict = against_each(verdicts)
    statistic = (f"sd(SDCDperm) <= sd(SDCD) on {hits[SDCD]}/{len(decided)}, <= sd(MSGD) on "
                 f"{hits[MSGD]}/{len(decided)} ({datasets_text(decided)})")
    evidence = ("sd SDCDperm vs SDCD/MSGD: " + "; ".join(lines)) if lines else \
        "no dataset with enough paired runs (C2)"
    return Outcome(verdict, statistic, evidence)


def above_oam(proto: Protocol, method: str) -> tuple[int, list[str]]:
    """DCD-4: datasets where ``method``'s mean paired AUC is above OAMinf's."""
    hits, decided = 0, []
    for dataset in proto.datasets():
        pair = _paired(proto, dataset, method, OAM)
        if pair.enough:
            decided.append(dataset)
            hits += pair.mean > 0
    return hits, decided


@claim("AUC-DCD", "DCD-4", studies=STUDIES,
       text="SDCD and MSGD beat OAMinf only on some datasets",
       rule="Count the datasets where the mean paired test AUC of SDCD is above OAMinf's, and "
            "the same for MSGD. CONFIRMED if each count lies in [1, 8] of the 10 datasets "
            "(our reading of 'only some': neither none nor nearly all), NOT CONFIRMED "
            "otherwise; the paper's own Table 2 gives 5/10 each. The paper's explanation (the "
            "order of the randomly drawn pairs) is not decided here")
def dcd_4(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: "SDCD and MSGD beat OAMinf only on some datasets; this
    relates to the order of the randomly drawn pairs".

    Only the first half is checked. With fewer than 10 datasets decided, a count is settled
    when every completion of the missing datasets keeps it inside, or outside, [1, 8].
    """
    why = no_paper_runs(study, (OAM, SDCD, MSGD))
    if why:
        return undecidable(why)
    proto = paper_protocol(study)
    counts, parts, states = {}, [], []
    for method in (SDCD, MSGD):
        hits, decided = above_oam(proto, method)
        missing = N_DATASETS - len(decided)
        counts[method] = (hits, len(decided))
        if hits >= 1 and hits + missing <= 8:
            parts.append(True)
        elif hits > 8 or hits + missing < 1:
            parts.append(False)
        else:
            parts.append(None)
        states.append(f"{SHORT[method]} " + {
            True: "in [1, 8] whatever the missing datasets give", False: "outside [1, 8]",
            None: f"open ({missing} datasets missing)"}[parts[-1]])
    verdict = (CONFIRMED if all(parts) else NOT_CONFIRMED if False in parts else UNDECIDABLE)
    statistic = ", ".join(f"{SHORT[m]} above OAMinf on {h}/{n}" for m, (h, n) in counts.items())
    evidence = f"{'; '.join(states)} (the paper's Table 2: 5/10 each)"
    cv = cv_protocol(study)
    if cv is not None and not cv.variant.missing((OAM, SDCD, MSGD)):
        found = {m: above_oam(cv, m) for m in (SDCD, MSGD)}
        evidence += f". {cv.variant.name}: " + ", ".join(
            f"{SHORT[m]} {h}/{len(d)}" for m, (h, d) in found.items())
    return Outcome(verdict, statistic, evidence)
