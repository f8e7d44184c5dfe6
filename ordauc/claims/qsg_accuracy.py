"""The accuracy claims of the two QSG papers: QS3ORAO (Shi et al., AAAI 2020, Figure 2, ordinal
AUC on the unlabeled rows) and QSG-S2AUC (Shi et al., IJCAI 2019, the testing-AUC boxplot).

Every comparison is made at n_u* (convention C10), the largest unlabeled size at which every
compared solver has ok runs on 80 % of the planned repetitions, since neither paper says at
which size its boxplots were drawn. Each is judged under the verdict algebra: only on the
papers' 8 datasets (others are extra evidence), on at least 8 of the papers' 10 repetitions
(means included), with practical ties, and a count over datasets settled against what the
datasets not run could still do (:mod:`ordauc.claims.qsg_accuracy_common`).

Importing this module also registers the similarity claims
(:mod:`ordauc.claims.qsg_similar`), the checks of the unlabeled rows' value
(:mod:`ordauc.claims.qsg_unlabeled`) and the protocol statements
(:mod:`ordauc.claims.qsg_protocol`, :mod:`ordauc.claims.qsg_protocol_runs`).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from ordauc.claims import (  # noqa: F401  (each registers its claims on import)
    algebra,
    qsg_protocol,
    qsg_protocol_runs,
    qsg_similar,
    qsg_unlabeled,
)
from ordauc.claims import evidence as ev
from ordauc.claims.algebra import Compared, Judgment, PaperData
from ordauc.claims.qsg_accuracy_common import (
    QS3_CONFIG,
    QS3_DATA,
    QSG_CONFIG,
    QSG_DATA,
    absent,
    by_dataset,
    cell,
    comparison_size,
    decide_text,
    direction,
    outcome,
    short,
)
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    Outcome,
    claim,
    undecidable,
)
from ordauc.claims.study import Study

QS3 = ("qs3orao", "svorex", "m_pnu_auc", "m_samult")  # the paper's Figure 2
QSG = ("qsg_s2auc", "samult", "pnu_auc")  # the IJCAI paper's boxplot
HIGHEST, TIED, BELOW, NOT_HIGHEST = "highest", "tied", "below", "not highest"
SIG, POS, TIE, NEG = "significantly higher", "higher", "tie", "not higher"
QSG_6_DATA = PaperData(("covtype", "ijcnn1"), QSG_DATA.repetitions)


def no_runs(solvers: list[str], config: str) -> Outcome:
    """UNDECIDABLE: a solver the claim compares never ran."""
    return undecidable(f"no runs of {', '.join(solvers)}: {config} runs them")


def placed(rows: pd.DataFrame, dataset: str, ours: str, solvers: tuple[str, ...],
           paper_labeled: int, data: PaperData) -> Judgment:
    """Where ``ours`` stands among ``solvers`` on ``dataset`` at n_u* (C4): ``highest`` (the
    strictly largest mean, beyond the practical margin), ``tied`` (within the margin of the
    best, or below it but not significantly: the two-sided paired comparison with the best
    rival is decided and finds no difference), ``below`` (significantly below); undecided where
    the cell has fewer than 8 of the paper's 10 repetitions (means included) or the comparison
    cannot reach p < 0.05."""
    at = cell(rows, dataset, solvers, paper_labeled, data)
    if at.n_unlabeled is None:
        return algebra.judge(dataset, None, guards=[at.guard], named=at.named,
                             text=f"no size where all {len(solvers)} have 80% ok")
    values = ev.means(rows, dataset, solvers, "auc", **at.where)
    rival = ev.best_of({k: v for k, v in values.items() if k != ours}, "auc")
    place = algebra.best_state(values, ours, False, "auc")
    if place is None or rival is None:
        return algebra.judge(dataset, None, guards=[algebra.MISSING], named=at.named,
                             text=f"at n_u={at.n_unlabeled}: no finite AUC mean")
    guard, p = "", np.nan
    if place == "best":
        state = HIGHEST
    elif place == algebra.TIE:
        state = TIED
    else:  # below the best rival's mean: tied only if a decided test finds no difference
        pair = ev.paired(rows, dataset, ours, rival, "auc", **at.where)
        compared = pair.compare(paper_repetitions=data.reps(dataset), one_sided=False)
        guard, p = compared.guard, compared.p
        # an undecided comparison leans to the means' side: below
        state = BELOW if compared.state in (None, algebra.WORSE) else TIED
    text = (f"at n_u={at.n_unlabeled}: {ev.fmt(values[ours])} vs {rival} "
            f"{ev.fmt(values.get(rival, np.nan))} (n_ok {at.n_ok}"
            + (f", two-sided p {ev.fmt(p, 2)}" if np.isfinite(p) else "") + ")")
    return algebra.judge(dataset, state, guards=[at.guard, guard], named=at.named, text=text)


def _qs3_1_rule(counts: Counter[str]) -> str:
    if counts[HIGHEST] >= 5:
        return CONFIRMED
    return PARTIAL if counts[HIGHEST] + counts[TIED] >= 5 else NOT_CONFIRMED


@claim("QS3ORAO", "QS3-1", studies=("qs3orao",),
       text="In most cases QS3ORAO has the highest AUC on the unlabeled rows",
       rule="per paper dataset at n_u* (C10), the mean ordinal AUC of qs3orao against svorex, "
            "m_pnu_auc and m_samult on >= 8 of the paper's 10 repetitions: 'highest' = the "
            "strictly largest mean by more than the practical margin (0.001), 'tied' = within "
            "the margin, or below but not significantly (two-sided paired Wilcoxon against the "
            "best rival, decided: p > 0.05), 'below' = significantly below; CONFIRMED if "
            "highest on >= 5 of the paper's 8 datasets (road3d, sgemm, year, yolanda, baby, "
            "beauty, clothes, pet), PARTIAL if highest-or-tied on >= 5, else NOT CONFIRMED; "
            "UNDECIDABLE while the datasets not decided (not run, too few repetitions, a "
            "comparison that cannot reach p < 0.05) could change it; other datasets are extra "
            "evidence, never deciding (our reading: 'most cases' = most datasets; n_u* is not "
            "stated in the paper)")
def qs3_1(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion" on Figure 2: "in most cases, our proposed
    QS3ORAO has the highest AUC results" (ordinal AUC of Eq. (2) on the unlabeled rows, SVOREX
    through its latent function)."""
    results = study.results
    if missing := absent(results, QS3):
        return no_runs(missing, QS3_CONFIG)
    judgments = [placed(rows, d, QS3[0], QS3, 500, QS3_DATA)
                 for d, rows in by_dataset(results).items()]
    settled = algebra.settle(_qs3_1_rule, judgments, QS3_DATA.total, HIGHEST, BELOW)
    counts = settled.counts
    statistic = (f"highest on {counts[HIGHEST]}, highest-or-tied on "
                 f"{counts[HIGHEST] + counts[TIED]} of {settled.decided} decided of the paper's "
                 f"{settled.total} datasets")
    values = {"highest": counts[HIGHEST], "tied": counts[TIED], "below": counts[BELOW]}
    return outcome(settled, statistic, judgments, QS3_DATA, decide_text(QS3_CONFIG, QS3_DATA, QS3),
                   values=values)


def _by_size(results: pd.DataFrame, dataset: str, pair_of: tuple[str, str],
             n_labeled: int | None) -> str:
    """d-bar of the pair at every unlabeled size both ran: ``1000:+0.012 5000:+0.020``."""
    steps = []
    for size in sorted(pd.unique(ev.rows_of(results, dataset=dataset,
                                            n_labeled=n_labeled)["n_unlabeled"])):
        pair = ev.paired(results, dataset, *pair_of, "auc", n_labeled=n_labeled,
                         n_unlabeled=size)
        if pair.n:
            steps.append(f"{int(size)}:{pair.mean:+.3f}")
    return " ".join(steps)


def _higher(compared: Compared) -> str | None:
    """QS3-2's state of one dataset: significantly higher (one-sided p < 0.05), higher (d-bar
    beyond the practical margin, not significant), a tie within the margin, or not higher; an
    undecided comparison (too few repetitions) leans to the side of its mean."""
    if compared.state == algebra.BETTER:
        return SIG
    side = direction(compared)
    if side is None:
        return None
    if side == algebra.TIE:
        return TIE
    return POS if compared.mean > 0 and side != algebra.WORSE else NEG


def _qs3_2_rule(counts: Counter[str]) -> str:
    higher = counts[SIG] + counts[POS]
    if higher >= QS3_DATA.total and counts[SIG] >= 5:
        return CONFIRMED
    return PARTIAL if higher >= 5 else NOT_CONFIRMED


@claim("QS3ORAO", "QS3-2", studies=("qs3orao",),
       text="QS3ORAO has higher AUC than SVOREX trained on the 500 labeled rows",
       rule="per paper dataset, paired d = AUC(qs3orao) - AUC(svorex) per repetition at n_u* "
            "of the two (d-bar at every unlabeled size reported), on >= 8 of the paper's 10 "
            "repetitions: 'significantly higher' = one-sided Wilcoxon p < 0.05, 'higher' = "
            "d-bar > 0.001 (the practical margin) without significance, a tie within the "
            "margin, else 'not higher'; CONFIRMED if higher on all of the paper's 8 datasets "
            "and significantly on >= 5, PARTIAL if higher on >= 5, else NOT CONFIRMED; "
            "UNDECIDABLE while the datasets not decided could change it; other datasets are "
            "extra evidence, never deciding (our reading: 'obviously' = on every dataset)")
def qs3_2(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion": "Obviously, our semi-supervised learning
    method has higher AUC than SVOREX", which "uses 500 labeled instances to train a model"
    (Figure 2). The same splits give both solvers the same labeled rows."""
    results = study.results
    pair_of = ("qs3orao", "svorex")
    if missing := absent(results, pair_of):
        return no_runs(missing, QS3_CONFIG)
    judgments = []
    for dataset, rows in by_dataset(results).items():
        named = QS3_DATA.named(dataset)
        n_l, n_u = comparison_size(rows, dataset, pair_of, 500)
        if n_u is None:
            judgments.append(algebra.judge(dataset, None, guards=[algebra.MISSING], named=named,
                                           text="no size where both have 80% ok"))
            continue
        pair = ev.paired(rows, dataset, *pair_of, "auc", n_labeled=n_l, n_unlabeled=n_u)
        compared = pair.compare(paper_repetitions=QS3_DATA.reps(dataset), one_sided=True)
        judgments.append(algebra.judge(
            dataset, _higher(compared), guards=[compared.guard], named=named,
            text=f"at n_u={n_u}: {short(compared)} [d-bar by n_u "
                 f"{_by_size(rows, dataset, pair_of, n_l)}]"))
    settled = algebra.settle(_qs3_2_rule, judgments, QS3_DATA.total, SIG, NEG)
    counts = settled.counts
    statistic = (f"higher on {counts[SIG] + counts[POS]} (significantly on {counts[SIG]}) of "
                 f"{settled.decided} decided of the paper's {settled.total} datasets")
    values = {"significant": counts[SIG], "higher": counts[SIG] + counts[POS],
              "ties": counts[TIE], "not_higher": counts[NEG]}
    return outcome(settled, statistic, judgments, QS3_DATA,
                   decide_text(QS3_CONFIG, QS3_DATA, pair_of), values=values)


def _qsg_6_rule(counts: Counter[str]) -> str:
    if counts[HIGHEST] >= 2:
        return CONFIRMED
    return PARTIAL if counts[HIGHEST] >= 1 else NOT_CONFIRMED


@claim("QSG-S2AUC", "QSG-6", studies=("qsg_s2auc",),
       text="QSG-S2AUC has the highest AUC on Covtype and Ijcnn1",
       rule="on covtype and ijcnn1 only (the datasets the sentence names) at n_u* of the "
            "three, the mean test AUC of qsg_s2auc against samult and pnu_auc on >= 8 of the "
            "paper's 10 repetitions; 'highest' = the strictly largest mean by more than the "
            "practical margin (0.001); CONFIRMED if highest on both datasets, PARTIAL if on "
            "one, NOT CONFIRMED if on neither; UNDECIDABLE while one of them is not decided; "
            "the paired Wilcoxon p against the better baseline is reported, not required "
            "(the paper claims no significance)")
def qsg_6(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.3: QSG-S2AUC "has the highest AUC on the datasets of
    Covtype and Ijcnn1" (its testing-AUC boxplot)."""
    results = study.results
    if missing := absent(results, QSG):
        return no_runs(missing, QSG_CONFIG)
    judgments = []
    for dataset, rows in by_dataset(results).items():
        if not QSG_6_DATA.named(dataset):
            continue  # not the datasets the sentence names: no evidence either way
        found = placed(rows, dataset, QSG[0], QSG, 200, QSG_6_DATA)
        state = None if found.lean is None else HIGHEST if found.lean == HIGHEST else NOT_HIGHEST
        judgments.append(algebra.judge(dataset, state, guards=[found.guard], text=found.text))
    settled = algebra.settle(_qsg_6_rule, judgments, QSG_6_DATA.total, HIGHEST, NOT_HIGHEST)
    statistic = (f"highest on {settled.counts[HIGHEST]} of {settled.decided} decided "
                 f"(covtype, ijcnn1)")
    return outcome(settled, statistic, judgments, QSG_6_DATA,
                   decide_text(QSG_CONFIG, QSG_6_DATA, QSG),
                   values={"highest": settled.counts[HIGHEST]}, reading="strict")
