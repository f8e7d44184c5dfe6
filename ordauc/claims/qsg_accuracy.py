"""The accuracy claims of the two QSG papers: QS3ORAO (Shi et al., AAAI 2020, Figure 2, ordinal
AUC on the unlabeled rows) and QSG-S2AUC (Shi et al., IJCAI 2019, the testing-AUC boxplot).

Every comparison is made at n_u* (convention C10), the largest unlabeled size at which every
compared solver has ok runs on 80 % of the planned repetitions, since neither paper says at
which size its boxplots were drawn. Importing this module also registers the checks of the
unlabeled rows' value (:mod:`ordauc.claims.qsg_unlabeled`) and the protocol statements
(:mod:`ordauc.claims.qsg_protocol`, :mod:`ordauc.claims.qsg_protocol_runs`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims import (  # noqa: F401  (each registers its claims on import)
    qsg_protocol,
    qsg_protocol_runs,
    qsg_unlabeled,
)
from ordauc.claims.qsg_unlabeled import (
    PAPER_DATASETS,
    absent,
    by_dataset,
    comparison_size,
    dataset_labels,
    labeled_size,
    settle,
    still_needed,
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

QS3 = ("qs3orao", "svorex", "m_pnu_auc", "m_samult")  # the paper's Figure 2
QSG = ("qsg_s2auc", "samult", "pnu_auc")  # the IJCAI paper's boxplot
QS3_CONFIG, QSG_CONFIG = "configs/qs3orao.yaml", "configs/qsg_s2auc.yaml"


def _no_runs(solvers: list[str], config: str) -> Outcome:
    return undecidable(f"no runs of {', '.join(solvers)}: {config} runs them")


def _finish(verdict: str, statistic: str, parts: list[str], total: int, decided: int,
            config: str, reading: str = "interpretation") -> Outcome:
    if verdict == UNDECIDABLE:
        parts = [*parts, still_needed(total, decided, config)]
    return Outcome(verdict, statistic, "; ".join(parts), reading)


@claim("QS3ORAO", "QS3-1", studies=("qs3orao",),
       text="In most cases QS3ORAO has the highest AUC on the unlabeled rows",
       rule="per dataset at n_u*, the mean ordinal AUC of qs3orao against svorex, m_pnu_auc "
            "and m_samult; CONFIRMED if qs3orao has the strictly highest mean on >= 5 of the "
            "paper's 8 datasets, PARTIAL if it is highest or not significantly below the "
            "best (two-sided paired Wilcoxon p > 0.05) on >= 5, else NOT CONFIRMED (our "
            "reading: 'most cases' = most datasets; n_u* is not stated in the paper)")
def qs3_1(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion" on Figure 2: "in most cases, our proposed
    QS3ORAO has the highest AUC results" (ordinal AUC of Eq. (2) on the unlabeled rows, SVOREX
    through its latent function)."""
    results = study.results
    if missing := absent(results, QS3):
        return _no_runs(missing, QS3_CONFIG)
    datasets = by_dataset(results)
    hits = tied = decided = 0
    parts = []
    for dataset, rows in datasets.items():
        n_l, n_u = comparison_size(rows, dataset, QS3, 500)
        if n_u is None:
            parts.append(f"{dataset}: no size where all 4 have 80% ok")
            continue
        decided += 1
        where = {"n_labeled": n_l, "n_unlabeled": n_u}
        values = ev.means(rows, dataset, QS3, "auc", **where)
        rival = ev.best_of({k: v for k, v in values.items() if k != "qs3orao"}, "auc")
        top = ev.highest(values, "qs3orao", "auc")
        tie = ev.highest_or_tied(rows, dataset, "qs3orao", QS3, "auc", **where)
        hits, tied = hits + top, tied + tie
        word = "highest" if top else "tied" if tie else "below"
        parts.append(f"{dataset}@{n_u}: {ev.fmt(values['qs3orao'])} vs {rival} "
                     f"{ev.fmt(values.get(rival, np.nan))} ({word})")
    total = max(PAPER_DATASETS, len(datasets))
    verdict = ev.count_rule(hits, decided, total, 5, partial_at=5, partial_hits=tied)
    return _finish(verdict, f"highest on {hits}, highest-or-tied on {tied} of {decided} "
                   f"decided datasets ({total} in the paper)", parts, total, decided, QS3_CONFIG)


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


def _qs3_2_rule(counts: dict[str, int]) -> str:
    positive = counts.get("sig", 0) + counts.get("pos", 0)
    if counts.get("neg", 0) == 0 and counts.get("sig", 0) >= 5:
        return CONFIRMED
    return PARTIAL if positive >= 5 else NOT_CONFIRMED


@claim("QS3ORAO", "QS3-2", studies=("qs3orao",),
       text="QS3ORAO has higher AUC than SVOREX trained on the 500 labeled rows",
       rule="paired d = AUC(qs3orao) - AUC(svorex) per repetition at n_u* of the two "
            "(d-bar at every unlabeled size reported), one-sided Wilcoxon; CONFIRMED if "
            "d-bar > 0 on all of the paper's 8 datasets and significant (p < 0.05) on >= 5, "
            "PARTIAL if d-bar > 0 on >= 5, else NOT CONFIRMED (our reading: 'obviously' = on "
            "every dataset)")
def qs3_2(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion": "Obviously, our semi-supervised learning
    method has higher AUC than SVOREX", which "uses 500 labeled instances to train a model"
    (Figure 2). The same splits give both solvers the same labeled rows."""
    results = study.results
    pair_of = ("qs3orao", "svorex")
    if missing := absent(results, pair_of):
        return _no_runs(missing, QS3_CONFIG)
    datasets = by_dataset(results)
    states, parts = [], []
    for dataset, rows in datasets.items():
        n_l, n_u = comparison_size(rows, dataset, pair_of, 500)
        pair = (ev.paired(rows, dataset, *pair_of, "auc", n_labeled=n_l, n_unlabeled=n_u)
                if n_u is not None else None)
        if pair is None or not pair.enough:
            parts.append(f"{dataset}: too few paired repetitions "
                         f"({pair.n if pair else 0}/{pair.planned if pair else '?'})")
            continue
        states.append("sig" if pair.better() else "pos" if pair.mean > 0 else "neg")
        parts.append(f"{dataset}@{n_u}: {pair.text()} [by n_u "
                     f"{_by_size(rows, dataset, pair_of, n_l)}]")
    total = max(PAPER_DATASETS, len(datasets))
    verdict = settle(_qs3_2_rule, states, total, "sig", "neg")
    positive = states.count("sig") + states.count("pos")
    return _finish(verdict, f"d-bar > 0 on {positive} (significant on {states.count('sig')}) "
                   f"of {len(states)} decided datasets ({total} in the paper)", parts, total,
                   len(states), QS3_CONFIG)


@claim("QS3ORAO", "QS3-4", studies=("qs3orao",),
       text="QS3ORAO retains similar generalization performance to M-SAMULT and M-PNU-AUC",
       rule="per dataset at n_u* of the three, paired AUC differences against m_samult and "
            "m_pnu_auc; qs3orao is similar-or-better than B if better (d-bar > 0, one-sided "
            "Wilcoxon p < 0.05) or similar (|d-bar| < 0.02 and (|d-bar| <= sd(d) or two-sided "
            "p > 0.05)); CONFIRMED if similar-or-better than both on >= 7 of the paper's 8 "
            "datasets (an unqualified claim: all but one), PARTIAL if on >= 5, else NOT "
            "CONFIRMED (our reading of 'similar')")
def qs3_4(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), abstract, introduction and "Results and Discussion": "while
    retaining similar generalization performance" (Figure 2)."""
    return _similar(study, ("qs3orao", "m_samult", "m_pnu_auc"), 500, 7, QS3_CONFIG,
                    partial_alone=False)


def _similar(study: Study, solvers: tuple[str, ...], paper_labeled: int, confirm_at: int,
             config: str, partial_alone: bool, skip: str | None = None) -> Outcome:
    """Similar-or-better than every baseline per dataset (QS3-4, QSG-5): CONFIRMED on
    ``confirm_at`` datasets, PARTIAL on 5 against both baselines, or with ``partial_alone``
    (QSG-5's rule) on 5 against one of them; ``skip`` leaves a dataset out."""
    results = study.results
    if missing := absent(results, solvers):
        return _no_runs(missing, config)
    ours, baselines = solvers[0], solvers[1:]
    datasets = {d: r for d, r in by_dataset(results).items() if d.split("[")[0] != skip}
    both, each, parts = 0, dict.fromkeys(baselines, 0), []
    decided = 0
    for dataset, rows in datasets.items():
        n_l, n_u = comparison_size(rows, dataset, solvers, paper_labeled)
        pairs = {b: ev.paired(rows, dataset, ours, b, "auc", n_labeled=n_l, n_unlabeled=n_u)
                 for b in baselines} if n_u is not None else {}
        if not pairs or not all(p.enough for p in pairs.values()):
            parts.append(f"{dataset}: too few paired repetitions at a common size")
            continue
        decided += 1
        good = {b: p.similar_or_better() for b, p in pairs.items()}
        both += all(good.values())
        for b in baselines:
            each[b] += good[b]
        marks = {b: "ok" if good[b] else "no" for b in baselines}
        parts.append(f"{dataset}@{n_u}: " + ", ".join(
            f"vs {b} d={p.mean:+.4f} sd={ev.fmt(p.sd, 2)} {marks[b]}" for b, p in pairs.items()))
    total = max(PAPER_DATASETS - (skip is not None), len(datasets))
    one = max(each.values())
    verdict = ev.count_rule(both, decided, total, confirm_at, partial_at=5,
                            partial_hits=one if partial_alone else both)
    statistic = (f"similar-or-better than both on {both} of {decided} decided datasets "
                 f"({total} in the paper); " + ", ".join(f"vs {b} alone {n}"
                                                          for b, n in each.items()))
    return _finish(verdict, statistic, parts, total, decided, config)


def _deployment(study: Study) -> str:
    """C10's secondary reading: each solver at its own largest size with 80 % ok runs, paired
    on repetition (the labeled and test rows of a repetition are the same at every size)."""
    found = []
    for dataset, table in by_dataset(study.results).items():
        n_l = labeled_size(table, dataset, 200)
        sizes = {s: comparison_size(table, dataset, (s,), 200)[1] for s in QSG}
        if any(v is None for v in sizes.values()):
            continue
        values = {}
        for solver, size in sizes.items():
            rows = ev.ok(ev.rows_of(table, solver=solver, n_labeled=n_l, n_unlabeled=size))
            values[solver] = rows.groupby(ev.repetition_column(rows))["auc"].mean()
        good = []
        for b in QSG[1:]:
            common = values[QSG[0]].index.intersection(values[b].index)
            pair = ev.Paired(values[QSG[0]].loc[common].to_numpy(float),
                             values[b].loc[common].to_numpy(float), len(common), "auc")
            good.append(pair.similar_or_better())
        found.append(all(good))
    return (f"deployment reading (each at its own largest feasible size): similar-or-better "
            f"than both on {sum(found)} of {len(found)}")


@claim("QSG-S2AUC", "QSG-5", studies=("qsg_s2auc",),
       text="QSG-S2AUC has AUC similar to PNU-AUC and SAMULT on most datasets",
       rule="per dataset at n_u* of the three (n_labeled = 200), paired test-AUC differences "
            "against samult and pnu_auc; similar-or-better as in QS3-4; CONFIRMED if "
            "similar-or-better than both on >= 5 of the paper's 8 datasets, PARTIAL if on >= "
            "5 against one baseline only, else NOT CONFIRMED; the same rule on the 7 datasets "
            "of the boxplot (without unclonable) and the deployment reading (each solver at "
            "its own largest feasible size) are reported (our reading of 'similar', 'most')")
def qsg_5(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.3 on its testing-AUC boxplot (Figure 1 of the
    proceedings PDF, Figure 2 of the HTML version): "QSG-S2AUC has the similar AUC results with
    other methods on the most datasets". The boxplot's axis lists 7 datasets (no Unclonable)
    while the text says eight: the 7-dataset verdict is reported beside the main one."""
    if missing := absent(study.results, QSG):
        return _no_runs(missing, QSG_CONFIG)
    outcome = _similar(study, QSG, 200, 5, QSG_CONFIG, partial_alone=True)
    notes = [_deployment(study)]
    if "unclonable" in {d.split("[")[0] for d in dataset_labels(study.results)}:
        seven = _similar(study, QSG, 200, 5, QSG_CONFIG, partial_alone=True,
                         skip="unclonable")
        notes.append(f"on the boxplot's 7 datasets: {seven.verdict} ({seven.statistic})")
    return Outcome(outcome.verdict, outcome.statistic,
                   f"{outcome.evidence}; {'; '.join(notes)}", outcome.reading)


@claim("QSG-S2AUC", "QSG-6", studies=("qsg_s2auc",),
       text="QSG-S2AUC has the highest AUC on Covtype and Ijcnn1",
       rule="on covtype and ijcnn1 at n_u* of the three, the mean test AUC of qsg_s2auc "
            "against samult and pnu_auc; CONFIRMED if strictly highest on both datasets, "
            "PARTIAL if on one, NOT CONFIRMED if on neither; the one-sided paired Wilcoxon p "
            "against the better baseline is reported, not required (the paper claims no "
            "significance)")
def qsg_6(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.3: QSG-S2AUC "has the highest AUC on the datasets of
    Covtype and Ijcnn1" (its testing-AUC boxplot)."""
    results = study.results
    if missing := absent(results, QSG):
        return _no_runs(missing, QSG_CONFIG)
    named = {d: r for d, r in by_dataset(results).items()
             if d.split("[")[0] in ("covtype", "ijcnn1")}
    if not named:
        return undecidable("no runs on covtype or ijcnn1: configs/qsg_s2auc.yaml runs them")
    hits = decided = 0
    parts = []
    for dataset, rows in named.items():
        n_l, n_u = comparison_size(rows, dataset, QSG, 200)
        if n_u is None:
            parts.append(f"{dataset}: no size where all 3 have 80% ok")
            continue
        decided += 1
        values = ev.means(rows, dataset, QSG, "auc", n_labeled=n_l, n_unlabeled=n_u)
        top = ev.highest(values, QSG[0], "auc")
        hits += top
        rival = ev.best_of({k: v for k, v in values.items() if k != QSG[0]}, "auc")
        pair = ev.paired(rows, dataset, QSG[0], rival, "auc", n_labeled=n_l,
                         n_unlabeled=n_u)
        parts.append(f"{dataset}@{n_u}: {ev.fmt(values[QSG[0]])} vs {rival} "
                     f"{ev.fmt(values[rival])} ({'highest' if top else 'not highest'}, "
                     f"p={ev.fmt(pair.p_better(), 2)})")
    total = max(2, len(named))
    verdict = ev.count_rule(hits, decided, total, total, partial_at=1)
    return _finish(verdict, f"highest on {hits} of {decided} decided (covtype, ijcnn1)", parts,
                   total, decided, QSG_CONFIG, reading="strict")


@claim("QS3ORAO", "QS3-12", studies=("qs3orao", "qs3orao_time"),
       text="The threshold solution is unique and b_1 < ... < b_(k-1) (Lemma 1)",
       rule="the thresholds are not in the results table: their strict order is checked on "
            "fitted models by the solver's unit tests (tests/test_thresholds.py, "
            "tests/test_qsg.py); the table's signal is that mze and mae are finite in every ok "
            "run of a qs3orao solver (labels need the thresholds); CONFIRMED if so, NOT "
            "CONFIRMED if any such run lacks them")
def qs3_12(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), Lemma 1 ("Calculate the thresholds"): the solution of the threshold
    problem is unique and strictly increasing. A run whose thresholds could not be fitted has
    no predicted labels, hence no MZE or MAE."""
    results = study.results
    column = "solver_name" if "solver_name" in results.columns else "solver"
    rows = ev.ok(results[results[column] == "qs3orao"]) if len(results) else results
    if not len(rows):
        return undecidable(f"no ok run of qs3orao: {QS3_CONFIG} runs it")
    if not {"mze", "mae"} <= set(rows.columns):
        return undecidable("no mze or mae column: the runs predicted no labels")
    values = rows[["mze", "mae"]].apply(pd.to_numeric, errors="coerce")
    bad = int((~np.isfinite(values.to_numpy(np.float64))).any(axis=1).sum())
    verdict = NOT_CONFIRMED if bad else CONFIRMED
    lacking = sorted({str(d) for d in rows.loc[
        ~np.isfinite(values.to_numpy(np.float64)).all(axis=1), "dataset"]})
    evidence = f"{len(rows)} ok runs of qs3orao"
    if bad:
        evidence += f"; no mze or mae on {', '.join(lacking)}"
    return Outcome(verdict, f"mze and mae finite in {len(rows) - bad} of {len(rows)} ok runs",
                   evidence, "interpretation")
