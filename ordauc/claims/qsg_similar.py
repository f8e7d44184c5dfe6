"""The QSG papers' "similar generalization performance" claims (QS3-4, QSG-5): the paired test
AUC of the quadratic-SG solver against each exact semi-supervised baseline, per dataset at n_u*
(C10), judged *similar-or-better* (C4) under the verdict algebra.

A comparison is decided only on at least 8 of the papers' 10 repetitions: with fewer, a gap
that the signed-rank test cannot reject is not "similar", it is undecided. Only the papers' 8
datasets decide (QSG-S2AUC's boxplot draws 7 of them, without Unclonable: that reading is
reported beside); any other dataset is extra evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.algebra import Judgment, PaperData, Settled
from ordauc.claims.qsg_accuracy_common import (
    NO,
    QS3_CONFIG,
    QS3_DATA,
    QSG_CONFIG,
    QSG_DATA,
    YES,
    absent,
    by_dataset,
    cell,
    comparison_size,
    decide_text,
    labeled_size,
    outcome,
    short,
    similar,
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

QS3_SIMILAR = ("qs3orao", "m_samult", "m_pnu_auc")
QSG_SIMILAR = ("qsg_s2auc", "samult", "pnu_auc")
QSG_7_DATA = PaperData(tuple(d for d in QSG_DATA.datasets or () if d != "unclonable"),
                       QSG_DATA.repetitions)


def per_baseline(rows, dataset: str, solvers: tuple[str, ...], paper_labeled: int,
                 data: PaperData) -> tuple[dict[str, Judgment], str]:
    """Each baseline's similar-or-better :class:`Judgment` of ``solvers[0]`` on ``dataset``
    at n_u* of all of ``solvers``, and the text of the dataset's line."""
    ours, baselines = solvers[0], solvers[1:]
    at = cell(rows, dataset, solvers, paper_labeled, data)
    if at.n_unlabeled is None:
        return ({b: algebra.judge(dataset, None, guards=[at.guard], named=at.named)
                 for b in baselines}, "no size where every solver has 80% ok")
    found, texts = {}, []
    for b in baselines:
        pair = ev.paired(rows, dataset, ours, b, "auc", **at.where)
        compared = pair.compare(paper_repetitions=data.reps(dataset), one_sided=True)
        state, lean = similar(pair, compared)
        guard = compared.guard if state is None else ""
        found[b] = (algebra.judge(dataset, state, guards=[guard], named=at.named)
                    if state is not None else
                    algebra.Judgment(dataset, None, guard or algebra.MISSING, "", at.named, lean))
        texts.append(f"vs {b} {short(compared)} sd={ev.fmt(pair.sd, 2)}"
                     + (f" ({state})" if state else ""))
    return found, f"at n_u={at.n_unlabeled}: " + ", ".join(texts)


def combine(dataset: str, parts: dict[str, Judgment], text: str) -> Judgment:
    """Similar-or-better than every baseline: yes if yes against each, no if no against one
    (decided even if another is undecided), else undecided with the first guard."""
    first = next(iter(parts.values()))
    states = [j.state for j in parts.values()]
    leans = [j.lean for j in parts.values()]
    state = NO if NO in states else YES if all(s == YES for s in states) else None
    lean = None if None in leans else NO if NO in leans else YES
    if state is None:
        guard = next((j.guard for j in parts.values() if j.state is None), algebra.MISSING)
        return algebra.Judgment(dataset, None, guard, text, first.named, lean)
    return algebra.judge(dataset, state, text=text, named=first.named)


def count_rule(confirm_at: int, partial_at: int | None) -> Callable[[Counter[str]], str]:
    """CONFIRMED on ``confirm_at`` similar-or-better datasets, PARTIAL on ``partial_at``."""
    def rule(counts: Counter[str]) -> str:
        if counts[YES] >= confirm_at:
            return CONFIRMED
        if partial_at is not None and counts[YES] >= partial_at:
            return PARTIAL
        return NOT_CONFIRMED
    return rule


def _lean(settled: Settled) -> str | None:
    return settled.verdict if settled.verdict != UNDECIDABLE else settled.provisional


def one_or_both(both: Settled, each: dict[str, Settled]) -> tuple[str, str | None]:
    """QSG-5's rule over settled counts: CONFIRMED if against both baselines, PARTIAL if
    against one only, NOT CONFIRMED if against neither; UNDECIDABLE while a settled part is
    open. Returns (verdict, lean)."""
    def joint(b: str | None, ones: list[str | None]) -> str | None:
        if b == CONFIRMED:
            return CONFIRMED
        if b is None or b == UNDECIDABLE:
            return None
        if CONFIRMED in ones:
            return PARTIAL
        return NOT_CONFIRMED if all(o == NOT_CONFIRMED for o in ones) else None
    verdict = joint(both.verdict, [s.verdict for s in each.values()]) or UNDECIDABLE
    lean = None
    if verdict == UNDECIDABLE:
        lean = joint(_lean(both), [_lean(s) for s in each.values()])
    return verdict, lean


def _judge_all(study: Study, solvers: tuple[str, ...], paper_labeled: int, data: PaperData
               ) -> tuple[list[Judgment], dict[str, list[Judgment]]]:
    both, each = [], {b: [] for b in solvers[1:]}
    for dataset, rows in by_dataset(study.results).items():
        parts, text = per_baseline(rows, dataset, solvers, paper_labeled, data)
        both.append(combine(dataset, parts, text))
        for b, j in parts.items():
            each[b].append(j)
    return both, each


@claim("QS3ORAO", "QS3-4", studies=("qs3orao",),
       text="QS3ORAO retains similar generalization performance to M-SAMULT and M-PNU-AUC",
       rule="per paper dataset at n_u* of the three, paired AUC differences against m_samult "
            "and m_pnu_auc on >= 8 of the paper's 10 repetitions; qs3orao is similar-or-better "
            "than B if better (one-sided Wilcoxon p < 0.05), a practical tie (|d-bar| <= "
            "0.001), or no difference with |d-bar| < 0.02 and (|d-bar| <= sd(d) or two-sided "
            "p > 0.05); a comparison on fewer repetitions is undecided, never similar; "
            "CONFIRMED if similar-or-better than both on >= 7 of the paper's 8 datasets (an "
            "unqualified claim: all but one), PARTIAL if on >= 5, else NOT CONFIRMED; "
            "UNDECIDABLE while the datasets not decided could change it; other datasets are "
            "extra evidence (our reading of 'similar')")
def qs3_4(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), abstract, introduction and "Results and Discussion": "while
    retaining similar generalization performance" (Figure 2)."""
    if missing := absent(study.results, QS3_SIMILAR):
        return undecidable(f"no runs of {', '.join(missing)}: {QS3_CONFIG} runs them")
    both, each = _judge_all(study, QS3_SIMILAR, 500, QS3_DATA)
    settled = algebra.settle(count_rule(7, 5), both, QS3_DATA.total, YES, NO)
    alone = {b: algebra.settle(count_rule(7, 5), js, QS3_DATA.total, YES, NO).counts[YES]
             for b, js in each.items()}
    statistic = (f"similar-or-better than both on {settled.counts[YES]} of {settled.decided} "
                 f"decided of the paper's {settled.total} datasets; "
                 + ", ".join(f"vs {b} alone {n}" for b, n in alone.items()))
    return outcome(settled, statistic, both, QS3_DATA,
                   decide_text(QS3_CONFIG, QS3_DATA, QS3_SIMILAR),
                   values={"both": settled.counts[YES], "alone": alone})


def _qsg_5_reading(both: list[Judgment], each: dict[str, list[Judgment]], data: PaperData,
                   confirm_at: int) -> tuple[str, str | None, Settled, dict[str, Settled]]:
    keep = set(data.datasets or ())
    mine = [j for j in both if not j.named or data.canonical(j.unit) in keep]
    rule = count_rule(confirm_at, None)
    settled = algebra.settle(rule, mine, data.total, YES, NO)
    per = {b: algebra.settle(rule, [j for j in js if not j.named
                                    or data.canonical(j.unit) in keep], data.total, YES, NO)
           for b, js in each.items()}
    verdict, lean = one_or_both(settled, per)
    return verdict, lean, settled, per


@claim("QSG-S2AUC", "QSG-5", studies=("qsg_s2auc",),
       text="QSG-S2AUC has AUC similar to PNU-AUC and SAMULT on most datasets",
       rule="per paper dataset at n_u* of the three (n_labeled = 200), paired test-AUC "
            "differences against samult and pnu_auc on >= 8 of the paper's 10 repetitions; "
            "similar-or-better as in QS3-4 (undecided, never similar, on fewer repetitions); "
            "CONFIRMED if similar-or-better than both on >= 5 of the paper's 8 datasets, "
            "PARTIAL if on >= 5 against one baseline only, NOT CONFIRMED if against neither; "
            "UNDECIDABLE while the datasets not decided could change it; other datasets are "
            "extra evidence; reported beside: the same rule on the boxplot's 7 datasets "
            "(without unclonable; 'most' = >= 4 of 7, a strict majority) and the deployment "
            "reading (each solver at its own largest feasible size) (our reading of "
            "'similar', 'most')")
def qsg_5(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.3 on its testing-AUC boxplot (Figure 1 of the
    proceedings PDF, Figure 2 of the HTML version): "QSG-S2AUC has the similar AUC results with
    other methods on the most datasets". The boxplot's axis lists 7 datasets (no Unclonable)
    while the text says eight: the 7-dataset verdict is reported beside the main one."""
    if missing := absent(study.results, QSG_SIMILAR):
        return undecidable(f"no runs of {', '.join(missing)}: {QSG_CONFIG} runs them")
    both, each = _judge_all(study, QSG_SIMILAR, 200, QSG_DATA)
    verdict, lean, settled, per = _qsg_5_reading(both, each, QSG_DATA, 5)
    seven, seven_lean, settled_7, _ = _qsg_5_reading(both, each, QSG_7_DATA, 4)
    alone = {b: s.counts[YES] for b, s in per.items()}
    statistic = (f"similar-or-better than both on {settled.counts[YES]} of {settled.decided} "
                 f"decided of the paper's {settled.total} datasets; "
                 + ", ".join(f"vs {b} alone {n}" for b, n in alone.items()))
    deployed, of = _deployment(study)
    notes = [f"on the boxplot's 7 datasets: {seven}{algebra.lean_text(seven_lean)} "
             f"(both on {settled_7.counts[YES]} of {settled_7.decided} decided)",
             f"deployment reading (each at its own largest feasible size): similar-or-better "
             f"than both on {deployed} of {of} decided paper datasets"]
    composed = Settled(verdict, lean if verdict == UNDECIDABLE else None, settled.decided,
                       settled.total, settled.counts)
    return outcome(composed, statistic, both, QSG_DATA,
                   decide_text(QSG_CONFIG, QSG_DATA, QSG_SIMILAR),
                   values={"both": settled.counts[YES], "alone": alone, "verdict_7": seven,
                           "both_7": settled_7.counts[YES], "deployment": deployed,
                           "deployment_decided": of},
                   notes=notes)


def _deployment(study: Study) -> tuple[int, int]:
    """C10's secondary reading: each solver at its own largest size with 80 % ok runs, paired
    on repetition (the labeled and test rows of a repetition are the same at every size);
    (similar-or-better than both, decided) over the paper's datasets."""
    hits = decided = 0
    for dataset, table in by_dataset(study.results).items():
        if not QSG_DATA.named(dataset):
            continue
        n_l = labeled_size(table, dataset, 200)
        sizes = {s: comparison_size(table, dataset, (s,), 200)[1] for s in QSG_SIMILAR}
        if any(v is None for v in sizes.values()):
            continue
        values = {}
        for solver, size in sizes.items():
            rows = ev.ok(ev.rows_of(table, solver=solver, n_labeled=n_l, n_unlabeled=size))
            values[solver] = rows.groupby(ev.repetition_column(rows))["auc"].mean()
        states = []
        for b in QSG_SIMILAR[1:]:
            common = values[QSG_SIMILAR[0]].index.intersection(values[b].index)
            pair = ev.Paired(values[QSG_SIMILAR[0]].loc[common].to_numpy(float),
                             values[b].loc[common].to_numpy(float), len(common), "auc")
            states.append(similar(pair, pair.compare(QSG_DATA.reps(dataset)))[0])
        if NO in states:
            decided += 1
        elif all(s == YES for s in states):
            decided, hits = decided + 1, hits + 1
    return hits, decided
