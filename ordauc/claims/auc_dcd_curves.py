"""The AUC-DCD paper's convergence claims (Jiang, Tao, Gao & Chu, Journal of Software 25(10),
2014, section 3.2, Figure 2), and the final-accuracy claim stated beside them.

Figure 2 is drawn on sonar, svmguide4 and vowel only, so its conclusions are decided on those
three datasets (other datasets with curves are shown as extra evidence, never deciding). The
numbers come from :mod:`ordauc.claims.auc_dcd_figure`: the four methods' curves at ONE lambda
per dataset, P* common to the four methods of a run, per-run areas A under the curves up to
5,000 pair updates. "Faster" is a paired margin: the per-run areas paired over the runs, a
one-sided exact signed-rank test (p < 0.05, at least 16 of the paper's 20 runs) and a ratio of
the mean areas outside 5 % of 1; within 5 % the two are tied.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    FIG2,
    FIGURE2,
    METHODS,
    MSGD,
    OAM,
    PAPER,
    PERM,
    SDCD,
    SHORT,
    judgment_lines,
    mean_guard,
    no_paper_runs,
    paper_protocol,
)
from ordauc.claims.auc_dcd_figure import (
    AREA_MARGIN,
    CONFIG_NEEDS,
    FASTER,
    QUANTITY,
    RELATIVE_OBJECTIVE,
    Figure,
    area_compare,
    compare_text,
    figure,
    ratio,
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
THREE = (SDCD, PERM, MSGD)
CELLS = len(FIGURE2) * len(THREE) * len(QUANTITY)  # 18
FAST_RULE = ("A(s, m) = the area under run r's curve of m in {1 - AUC (test), relative "
             "objective r_t = (P - P*)/P*}: its mean over the checkpoints up to 5,000 pair "
             "updates, all four methods at one lambda per dataset (SDCDperm's paper lambda "
             "where the curves hold the four at it) and P* the smallest P(w) of the four "
             "methods over the run's checkpoints. s is faster than t if, paired over the runs "
             "(>= 16 of the paper's 20), the one-sided exact signed-rank p < 0.05 and "
             "A(s)/A(t) (mean areas) < 0.95; a ratio within 5 % of 1 is a tie")


def _undecided_figure(fig: Figure | str, datasets: tuple[str, ...]) -> str | None:
    """Why the figure cannot decide on ``datasets`` (None when one of them has a panel)."""
    if isinstance(fig, str):
        return fig
    if any(d in fig.panels for d in datasets):
        return None
    why = "; ".join(f"{d}: {w}" for d, w in fig.why.items() if d in datasets)
    return (f"no curves of all four methods at one lambda on {', '.join(datasets)}"
            + (f" ({why})" if why else "") + f"; {CONFIG_NEEDS}")


def _judge(fig: Figure, dataset: str, a: str, b: str, quantity: str, named: bool
           ) -> algebra.Judgment:
    panel = fig.panels.get(dataset)
    if panel is None:
        return algebra.judge(f"{dataset} {SHORT[a]} {QUANTITY[quantity]}", None,
                             guards=(algebra.MISSING,), named=named,
                             text=fig.why.get(dataset, "no curves"))
    comp = area_compare(panel, a, b, quantity)
    r = ratio(panel, a, b, quantity)
    state = comp.state if comp.state is not None else None if not np.isfinite(r) else (
        FASTER if r < 1 - AREA_MARGIN else algebra.WORSE if r > 1 + AREA_MARGIN else algebra.TIE)
    return algebra.judge(f"{dataset} {QUANTITY[quantity]}", state, guards=(comp.guard,),
                         named=named, text=compare_text(comp, r, a, b))


def _datasets(fig: Figure | str) -> list[str]:
    """Figure 2's three, then every other dataset with curves (extra evidence)."""
    others = [] if isinstance(fig, str) else [d for d in fig.panels if d not in FIGURE2]
    return [*FIGURE2, *others]


def _lean(settled: algebra.Settled) -> str | None:
    return settled.provisional if settled.verdict == UNDECIDABLE else None


@claim("AUC-DCD", "DCD-5", studies=STUDIES,
       text="MSGD, SDCD and SDCDperm converge clearly faster than OAMinf, in AUC and in "
            "objective value",
       rule=f"{FAST_RULE}. A cell (dataset, s, m) holds if s is faster than OAMinf. Decided on "
            "Figure 2's sonar, svmguide4 and vowel only (18 cells; other datasets are extra "
            "evidence). CONFIRMED if all 18 hold, PARTIAL if >= 12, otherwise NOT CONFIRMED; "
            "UNDECIDABLE while undecided cells could change that")
def dcd_5(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "MSGD, SDCD and SDCDperm converge clearly
    faster than OAMinf both in AUC and in objective value" (and section 2.2: SDCD faster than
    OAMinf).

    Interpretations: the area under the mean curve up to 5,000 updates measures speed;
    "clearly" = significantly and by more than 5 % of the area.
    """
    fig = figure(study)
    why = _undecided_figure(fig, FIGURE2)
    if why:
        return undecidable(why)
    judgments = [_judge(fig, d, s, OAM, q, FIG2.named(d))
                 for d in _datasets(fig) for s in THREE for q in QUANTITY]

    def rule(counts: Counter[str]) -> str:
        hits = counts[FASTER]
        return CONFIRMED if hits >= CELLS else PARTIAL if hits >= 12 else NOT_CONFIRMED

    settled = algebra.settle(rule, judgments, CELLS, FASTER, algebra.WORSE)
    lean = _lean(settled)
    statistic = (f"faster than OAMinf in {settled.counts[FASTER]}/{settled.decided} decided of "
                 f"Figure 2's {CELLS} cells (ties {settled.counts[algebra.TIE]})"
                 + algebra.lean_text(lean))
    return Outcome(settled.verdict, statistic,
                   f"{judgment_lines(judgments)}. {fig.note(_datasets(fig))}",
                   values={"faster": settled.counts[FASTER], "decided": settled.decided,
                           "ties": settled.counts[algebra.TIE], "cells": CELLS},
                   judgments=tuple(judgments), provisional=lean)


HOLDS, FAILS = "holds", "fails"


@claim("AUC-DCD", "DCD-6", studies=STUDIES,
       text="On sonar, MSGD converges faster than the other three methods",
       rule=f"{FAST_RULE}. On sonar, per m in {{1 - AUC, r_t}}: holds if MSGD is faster than "
            "each of OAMinf, SDCD and SDCDperm, fails if any comparison is decided otherwise "
            "(a tie, no difference, slower). CONFIRMED if it holds for both, PARTIAL if for "
            "one, NOT CONFIRMED if for neither; UNDECIDABLE while an undecided comparison "
            "could change that")
def dcd_6(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "in particular, on sonar MSGD converges
    faster than the other three algorithms". Decided on sonar only (the paper's words)."""
    fig = figure(study)
    why = _undecided_figure(fig, ("sonar",))
    if why:
        return undecidable(why)
    panel = fig.panels["sonar"]
    judgments, parts = [], []
    for quantity, short in QUANTITY.items():
        comps = {o: area_compare(panel, MSGD, o, quantity) for o in (OAM, SDCD, PERM)}
        texts = [compare_text(c, ratio(panel, MSGD, o, quantity), MSGD, o)
                 for o, c in comps.items()]
        failed = any(c.state is not None and c.state != FASTER for c in comps.values())
        guard = "" if failed else next((c.guard for c in comps.values() if c.state is None), "")
        if failed:
            state = FAILS
        elif guard:  # what the undecided comparisons lean to: MSGD's mean area the lowest
            state = HOLDS if all(c.n and c.mean < 0 for c in comps.values()) else FAILS
        else:
            state = HOLDS
        j = algebra.judge(f"sonar {short}", state, guards=(guard,), text="; ".join(texts))
        judgments.append(j)
        parts.append(j.line())

    def rule(counts: Counter[str]) -> str:
        return {2: CONFIRMED, 1: PARTIAL}.get(counts[HOLDS], NOT_CONFIRMED)

    settled = algebra.settle(rule, judgments, 2, HOLDS, FAILS)
    lean = _lean(settled)
    return Outcome(settled.verdict,
                   f"MSGD faster than the other three in {settled.counts[HOLDS]} of "
                   f"{settled.decided} decided quantities on sonar" + algebra.lean_text(lean),
                   f"{'; '.join(parts)}. {fig.note(('sonar',))}",
                   values={"holds": settled.counts[HOLDS], "decided": settled.decided},
                   judgments=tuple(judgments), provisional=lean)


@claim("AUC-DCD", "DCD-7", studies=STUDIES,
       text="SDCD's objective decreases slightly faster than SDCDperm's",
       rule=f"{FAST_RULE}. Per Figure 2 dataset (sonar, svmguide4, vowel; others are extra "
            "evidence): SDCD faster than SDCDperm in r_t. CONFIRMED if on >= 2 of the 3, "
            "otherwise NOT CONFIRMED; UNDECIDABLE while undecided datasets could change that. "
            "An advantage within 5 % of the area is a tie, so a 'slight' one below 5 % is not "
            "confirmed; the ratio A(SDCD)/A(SDCDperm) is reported")
def dcd_7(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "the objective value of SDCD decreases
    slightly faster than that of SDCDperm"."""
    fig = figure(study)
    why = _undecided_figure(fig, FIGURE2)
    if why:
        return undecidable(why)
    judgments = [_judge(fig, d, SDCD, PERM, RELATIVE_OBJECTIVE, FIG2.named(d))
                 for d in _datasets(fig)]

    def rule(counts: Counter[str]) -> str:
        return CONFIRMED if counts[FASTER] >= 2 else NOT_CONFIRMED

    settled = algebra.settle(rule, judgments, len(FIGURE2), FASTER, algebra.WORSE)
    lean = _lean(settled)
    ratios = {d: ratio(fig.panels[d], SDCD, PERM, RELATIVE_OBJECTIVE) for d in fig.panels}
    return Outcome(settled.verdict,
                   f"SDCD faster than SDCDperm in r_t on {settled.counts[FASTER]}/"
                   f"{settled.decided} decided of Figure 2's 3 datasets (ties "
                   f"{settled.counts[algebra.TIE]})" + algebra.lean_text(lean),
                   f"{judgment_lines(judgments)}. {fig.note(_datasets(fig))}",
                   values={"faster": settled.counts[FASTER], "decided": settled.decided,
                           "ties": settled.counts[algebra.TIE], "ratios": ratios},
                   judgments=tuple(judgments), provisional=lean)


TOP, TIED, BELOW = "highest", "highest-or-tied", "below"


def top_state(table: pd.DataFrame, dataset: str, named: bool) -> algebra.Judgment:
    """DCD-8 on one dataset of a results-like table: ``highest`` (SDCDperm's mean above every
    other by more than 0.001), ``highest-or-tied`` (within 0.001 of the best, or not
    significantly below it: two-sided exact signed-rank p >= 0.05 with power to reject), or
    ``below``; undecided under the repetition and power guards."""
    values = ev.means(table, dataset, METHODS, "auc")
    best = ev.best_of(values, "auc")
    pairs = [ev.paired(table, dataset, PERM, o, "auc") for o in METHODS if o != PERM]
    guard = next((mean_guard(p.n, p.planned) for p in pairs if mean_guard(p.n, p.planned)), "")
    state = algebra.best_state(values, PERM, False, "auc")
    text = f"top {SHORT.get(best, 'n/a')}"
    if state == "best":
        return algebra.judge(dataset, TOP, guards=(guard,), named=named, text=text)
    if state == algebra.TIE:
        return algebra.judge(dataset, TIED, guards=(guard,), named=named, text=text)
    if state is None:
        return algebra.judge(dataset, None, guards=(guard or algebra.MISSING,), named=named,
                             text=text)
    pair = ev.paired(table, dataset, PERM, best, "auc")
    comp = pair.compare(paper_repetitions=FIG2.repetitions, one_sided=False)
    got = BELOW if comp.state == algebra.WORSE else TIED
    return algebra.judge(dataset, got, guards=(guard, comp.guard), named=named,
                         text=f"{text}, SDCDperm {comp.text()}")


@claim("AUC-DCD", "DCD-8", studies=STUDIES,
       text="With enough iterations, SDCDperm always gives the best AUC",
       rule="Mean test AUC at the end of training (T = n+ n- pair updates, the paper's "
            "variant as in Table 2) on Figure 2's sonar, svmguide4 and vowel (16 of the 20 "
            "runs each; other datasets are extra evidence). Tolerant reading (decides): "
            "SDCDperm highest, within 0.001 of the highest, or not significantly below it "
            "(two-sided exact paired signed-rank p >= 0.05, undecided where the runs cannot "
            "reach p < 0.05) on every dataset: CONFIRMED, otherwise NOT CONFIRMED. Reported: "
            "the strict reading (highest by more than 0.001), the same at the last common "
            "checkpoint <= 5,000 of the curves at one lambda, and over the paper's 10 datasets")
def dcd_8(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "when the number of iterations is large
    enough, the AUC of SDCDperm is always the best".

    Interpretation: "enough iterations" = the full training run (one epoch; at 5,000 updates
    Figure 2's datasets have not finished it: sonar's training folds hold about 6,900 pairs,
    vowel's about 14,700), read on the paper's variant; "always" = every Figure 2 dataset.
    """
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    proto = paper_protocol(study)
    run = proto.datasets()
    listed = [*FIGURE2, *(d for d in run if d not in FIGURE2)]
    judgments = [top_state(proto.table, d, FIG2.named(d)) for d in listed]

    def rule(counts: Counter[str]) -> str:
        return CONFIRMED if counts[TOP] + counts[TIED] >= len(FIGURE2) else NOT_CONFIRMED

    settled = algebra.settle(rule, judgments, len(FIGURE2), TOP, BELOW)
    lean = _lean(settled)
    good = settled.counts[TOP] + settled.counts[TIED]
    ten = [j for j in judgments if j.unit in run and PAPER.named(j.unit)]
    all_ten = sum(j.lean in (TOP, TIED) for j in ten)
    extra = [f"over the paper's datasets run: highest-or-tied on {all_ten}/{len(ten)} "
             "(undecided ones by their lean)"]
    fig = figure(study)
    at_5000 = None
    if not isinstance(fig, str):
        held = [d for d in FIGURE2 if d in fig.panels and fig.panels[d].auc_at is not None]
        if held:
            at = [top_state(fig.panels[d].auc_at, d, True) for d in held]
            at_5000 = sum(j.lean in (TOP, TIED) for j in at)
            extra.append(f"at the last common checkpoint <= 5,000 (one lambda): "
                         f"highest-or-tied on {at_5000}/{len(held)} ({judgment_lines(at)})")
    statistic = (f"SDCDperm highest-or-tied on {good}/{settled.decided} decided of Figure 2's "
                 f"3, strictly highest on {settled.counts[TOP]}" + algebra.lean_text(lean))
    return Outcome(settled.verdict, statistic,
                   f"{judgment_lines(judgments)}. {'; '.join(extra)}",
                   values={"tied_or_highest": good, "highest": settled.counts[TOP],
                           "decided": settled.decided, "at_5000": at_5000},
                   judgments=tuple(judgments), provisional=lean)
