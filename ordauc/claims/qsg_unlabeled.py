"""Did the unlabeled rows help? The QSG papers' semi-supervised value, checked against
supervised references trained on the same labeled rows (checks U-ORD and U-BIN), and the
comparison-size helpers the QSG accuracy and protocol checks share.

Neither paper settles the question. QSG-S2AUC (Shi et al., IJCAI 2019) compares only
semi-supervised methods; QS3ORAO (Shi et al., AAAI 2020, "Results and Discussion") concludes
that "incorporating unlabeled instances can improve the performance" from a comparison with
SVOREX, which differs in loss, model and tuning as well as in reading no unlabeled rows. The
studies therefore run, on the same splits and CV folds, the same engine with every gamma fixed
to 1 (the unlabeled rows unused: it isolates their contribution) and tuned supervised kernel
machines (so that the reference is not a weak straw man).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
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

PAPER_DATASETS = 8  # both papers' Table 2
HELPED, NO_EFFECT, HURT = "helped", "no effect", "hurt"


# --- helpers shared by the QSG accuracy and protocol checks ------------------------------------

def dataset_labels(results: pd.DataFrame) -> list[str]:
    """The datasets of a results table, in the order they first appear."""
    return [str(d) for d in pd.unique(results["dataset"])] if len(results) else []


def by_dataset(results: pd.DataFrame, metric: str = "auc") -> dict[str, pd.DataFrame]:
    """Each dataset's rows, selected by ``metric`` once where a study tunes by several
    (``by_selection``): a check then compares solvers on a small table, not the whole study."""
    if not len(results):
        return {}
    rows = ev.rows_of(results, metric)
    return {label: rows[rows["dataset"] == label] for label in dataset_labels(rows)}


def absent(results: pd.DataFrame, solvers: Iterable[str]) -> list[str]:
    """The solvers without a single row in ``results``."""
    present = set(results["solver"]) if len(results) else set()
    return [s for s in solvers if s not in present]


def labeled_size(results: pd.DataFrame, dataset: str, paper: int) -> int | None:
    """The labeled-set size a dataset's comparison uses: the paper's where the study ran it,
    else the only (or the largest) one it ran."""
    sizes = pd.to_numeric(ev.rows_of(results, dataset=dataset)["n_labeled"], errors="coerce")
    sizes = sorted({int(s) for s in sizes.dropna()})
    if not sizes:
        return None
    return paper if paper in sizes else sizes[-1]


def comparison_size(results: pd.DataFrame, dataset: str, solvers: Iterable[str],
                    paper_labeled: int) -> tuple[int | None, int | None]:
    """(n_labeled, n_u*): the matched-data comparison size of convention C10, the largest
    unlabeled size at which every solver has ok runs on 80 % of the planned repetitions."""
    n_l = labeled_size(results, dataset, paper_labeled)
    if n_l is None:
        return None, None
    return n_l, ev.n_u_star(results, dataset, list(solvers), "auc", n_l)


def settle(rule: Callable[[Counter[str]], str], states: list[str], total: int, best: str,
           worst: str) -> str:
    """The verdict of a monotone per-dataset ``rule`` when ``total - len(states)`` datasets
    are undecided: the same verdict whether each of them turns out ``best`` or ``worst``,
    else UNDECIDABLE."""
    missing = max(total - len(states), 0)
    known = Counter(states)
    high = rule(known + Counter({best: missing}))
    low = rule(known + Counter({worst: missing}))
    return high if high == low else UNDECIDABLE


def still_needed(total: int, decided: int, config: str) -> str:
    """The reason a count rule is not settled yet."""
    return (f"undecided until {total - decided} more of the paper's {total} datasets are "
            f"decided: run {config} (or more repetitions where too few are paired)")


def gamma_one_counts(rows: pd.DataFrame) -> tuple[int, int]:
    """(runs whose CV chose gamma = 1, ok runs with a chosen gamma): gamma = 1 (every
    gamma^j = 1 where ``p_gamma`` holds a list) reads the unlabeled rows with weight 0."""
    if "p_gamma" not in rows.columns:
        return 0, 0
    values = [v for v in ev.ok(rows)["p_gamma"] if not _missing(v)]
    ones = sum(all(abs(g - 1.0) < 1e-9 for g in _floats(v)) for v in values)
    return ones, len(values)


def gamma_one_share(rows: pd.DataFrame) -> str:
    """:func:`gamma_one_counts` as text: ``3/10 (30%)``, or ``n/a``."""
    ones, of = gamma_one_counts(rows)
    return f"{ones}/{of} ({100.0 * ones / of:.0f}%)" if of else "n/a"


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value == ""


def _floats(value: object) -> list[float]:
    if isinstance(value, str):
        parts = value.strip("[]() ").replace(",", " ").split()
        return [float(p) for p in parts] or [float("nan")]
    if isinstance(value, list | tuple | np.ndarray):
        return [float(v) for v in value]
    return [float(value)]  # type: ignore[arg-type]


# --- the unlabeled-value check -------------------------------------------------------------

@dataclass(frozen=True)
class Arms:
    """The arms of a check of the unlabeled rows' value: the semi-supervised solver, the
    supervised references S1 (those that ran are all used), the same engine with gamma = 1
    (S2, required), other semi-supervised solvers (reported), and the paper's labeled size."""

    ssl: str
    supervised: tuple[str, ...]
    engine: str
    others: tuple[str, ...]
    paper_labeled: int
    config: str


ORDINAL = Arms("qs3orao", ("svorex", "svorim", "m_svc_rbf"), "qs3orao_gamma1",
               ("m_samult", "m_pnu_auc"), 500, "configs/qs3orao.yaml")
BINARY = Arms("qsg_s2auc", ("svc_rbf",), "qsg_s2auc_gamma1", ("samult", "pnu_auc"), 200,
              "configs/qsg_s2auc.yaml")


@dataclass(frozen=True)
class Effect:
    """One dataset's finding: ``state`` is helped, no effect, hurt, or '' (undecidable)."""

    state: str
    text: str


def effect(results: pd.DataFrame, dataset: str, ssl: str, arms: Arms) -> Effect:
    """Whether ``ssl`` beat every supervised arm (helped), lost to one (hurt) or neither, by
    paired one-sided Wilcoxon tests of the AUC at the arms' common size n_u* (C10)."""
    on = set(ev.rows_of(results, dataset=dataset)["solver"])
    refs = [s for s in arms.supervised if s in on]
    need = [s for s in (ssl, arms.engine) if s not in on] + ([] if refs else
                                                              ["/".join(arms.supervised)])
    if need:
        return Effect("", f"{dataset}: no runs of {', '.join(need)}")
    compared = [arms.engine, *refs]
    n_l, n_u = comparison_size(results, dataset, [ssl, *compared], arms.paper_labeled)
    if n_u is None:
        return Effect("", f"{dataset}: no size where {ssl}, {', '.join(compared)} all have "
                          "80% of the repetitions ok")
    pairs = {s: ev.paired(results, dataset, ssl, s, "auc", n_labeled=n_l, n_unlabeled=n_u)
             for s in compared}
    short = [f"{s} ({p.n}/{p.planned})" for s, p in pairs.items() if not p.enough]
    if short:
        return Effect("", f"{dataset}@{n_u}: too few paired repetitions vs {', '.join(short)}")
    state = (HURT if any(p.worse() for p in pairs.values()) else
             HELPED if all(p.better() for p in pairs.values()) else NO_EFFECT)
    detail = ", ".join(f"{s} {p.mean:+.4f} p={p.p_better():.2g}" for s, p in pairs.items())
    return Effect(state, f"{dataset}@{n_u}: {state} ({detail})")


def _rule(counts: Counter[str]) -> str:
    if counts[HURT]:
        return NOT_CONFIRMED
    return CONFIRMED if counts[HELPED] >= 5 else PARTIAL if counts[HELPED] >= 1 else NOT_CONFIRMED


def _trend(results: pd.DataFrame, dataset: str, arms: Arms) -> str:
    """d-bar against the gamma = 1 engine at every unlabeled size: does the benefit grow?"""
    n_l = labeled_size(results, dataset, arms.paper_labeled)
    rows = ev.rows_of(results, dataset=dataset, n_labeled=n_l)
    steps = []
    for size in sorted(pd.unique(rows["n_unlabeled"])):
        pair = ev.paired(results, dataset, arms.ssl, arms.engine, "auc", n_labeled=n_l,
                         n_unlabeled=size)
        if pair.n:
            steps.append(f"{int(size)}:{pair.mean:+.4f}")
    return f"{dataset} " + " ".join(steps) if steps else ""


def unlabeled_outcome(study: Study, arms: Arms) -> Outcome:
    """Per dataset helped / no effect / hurt; CONFIRMED if helped on >= 5 of the paper's 8
    and hurt on none, PARTIAL if helped on >= 1 and hurt on none, else NOT CONFIRMED."""
    results = study.results
    missing = absent(results, (arms.ssl, arms.engine))
    if missing or len(absent(results, arms.supervised)) == len(arms.supervised):
        gone = missing or [" or ".join(arms.supervised)]
        return undecidable(f"no runs of {', '.join(gone)}: {arms.config} runs every arm")
    slices = by_dataset(results)
    effects = [effect(rows, d, arms.ssl, arms) for d, rows in slices.items()]
    states = [e.state for e in effects if e.state]
    total = max(PAPER_DATASETS, len(effects))
    verdict = settle(_rule, states, total, HELPED, HURT)
    counts = Counter(states)
    ssl_rows = ev.rows_of(results, solver=arms.ssl)
    statistic = (f"helped on {counts[HELPED]}, hurt on {counts[HURT]}, no effect on "
                 f"{counts[NO_EFFECT]} of {len(states)} decided datasets; CV chose gamma = 1 in "
                 f"{gamma_one_share(ssl_rows)} of {arms.ssl}'s runs")
    parts = [e.text for e in effects]
    for other in arms.others:
        if other not in absent(results, [other]):
            mine = Counter(effect(rows, d, other, arms).state for d, rows in slices.items())
            parts.append(f"{other}: helped {mine[HELPED]}, hurt {mine[HURT]} of "
                         f"{len(slices) - mine['']}")
    trend = "; ".join(t for t in (_trend(rows, d, arms) for d, rows in slices.items()) if t)
    if trend:
        parts.append(f"d vs {arms.engine} by n_u: {trend}")
    times = ev.summary(ev.rows_of(results, solver=[arms.ssl, arms.engine, *arms.supervised]),
                       "fit_time_s", by=("solver",)) if "fit_time_s" in results else None
    if times is not None and len(times):
        parts.append("median fit s: " + ", ".join(f"{r.solver} {ev.fmt(r.median, 3)}"
                                                   for r in times.itertuples()))
    if verdict == UNDECIDABLE:
        parts.append(still_needed(total, len(states), arms.config))
    return Outcome(verdict, statistic, "; ".join(parts), "interpretation")


_U_RULE = ("per dataset at n_u* (the largest unlabeled size where every arm has 80% of its "
           "repetitions ok), paired AUC differences d = AUC({ssl}) - AUC(S) over the "
           "repetitions, for S = {engine} (the same engine with gamma = 1: the unlabeled rows "
           "unused) and each supervised reference that ran ({refs}), same splits and folds; "
           "'helped' if d-bar > 0 with one-sided Wilcoxon p < 0.05 against every S, 'hurt' if "
           "d-bar < 0 with p < 0.05 against any; CONFIRMED if helped on >= 5 of the paper's 8 "
           "datasets and hurt on none, PARTIAL if helped on >= 1 and hurt on none, else NOT "
           "CONFIRMED (our reading: the paper gives no matched supervised comparison)")


@claim("QS3ORAO", "U-ORD", studies=("qs3orao",),
       text="The unlabeled rows improve QS3ORAO's ordinal AUC over supervised learners "
            "trained on the same 500 labeled rows",
       rule=_U_RULE.format(ssl="qs3orao", engine="qs3orao_gamma1",
                           refs="svorex, svorim, m_svc_rbf"))
def u_ord(study: Study) -> Outcome:
    """The matched supervised comparison QS3ORAO (AAAI 2020) lacks: its "Results and
    Discussion" compares with SVOREX only, whose loss, model and tuning also differ. The ordinal
    AUC is that of the paper's Eq. (2) on the unlabeled rows (its Figure 2); M-SAMULT and
    M-PNU-AUC are reported against the same references."""
    return unlabeled_outcome(study, ORDINAL)


@claim("QS3ORAO", "QS3-3", studies=("qs3orao",),
       text="Incorporating unlabeled instances can improve the performance",
       rule="decided by the check U-ORD on the same runs: "
            + _U_RULE.format(ssl="qs3orao", engine="qs3orao_gamma1",
                             refs="svorex, svorim, m_svc_rbf")
            + "; where CV chose gamma = 1 in >= 50% of the runs the unlabeled rows were "
              "effectively unused")
def qs3_3(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Results and Discussion": beating SVOREX (Figure 2) "demonstrate[s]
    that incorporating unlabeled instances can improve the performance". That comparison
    cannot isolate the unlabeled rows (claim QS3-2 keeps it), so this claim takes the verdict
    of the matched comparison U-ORD, and says where CV mostly switched the unlabeled rows off."""
    outcome = unlabeled_outcome(study, ORDINAL)
    ones, of = gamma_one_counts(ev.rows_of(study.results, solver=ORDINAL.ssl))
    if of and ones >= 0.5 * of:
        return Outcome(outcome.verdict, outcome.statistic, outcome.evidence + "; CV chose "
                       "gamma = 1 in most runs: the unlabeled rows were effectively unused",
                       outcome.reading)
    return outcome


@claim("QSG-S2AUC", "U-BIN", studies=("qsg_s2auc",),
       text="The unlabeled rows improve QSG-S2AUC's test AUC over supervised learners trained "
            "on the same 200 labeled rows",
       rule=_U_RULE.format(ssl="qsg_s2auc", engine="qsg_s2auc_gamma1", refs="svc_rbf"))
def u_bin(study: Study) -> Outcome:
    """The comparison QSG-S2AUC (IJCAI 2019) never makes: its Section 6 compares only
    semi-supervised methods (PNU-AUC, SAMULT), and gamma = 1, in its CV grid, is the purely
    supervised model. SAMULT and PNU-AUC are reported against the same references."""
    return unlabeled_outcome(study, BINARY)


@claim("QSG-S2AUC", "QSG-9", studies=("qsg_s2auc",),
       text="Semi-supervised learning with the unlabeled rows achieves a better "
            "generalization performance than learning from the labeled rows alone",
       rule="decided by the check U-BIN on the same runs: "
            + _U_RULE.format(ssl="qsg_s2auc", engine="qsg_s2auc_gamma1", refs="svc_rbf"))
def qsg_9(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 1: semi-supervised learning "can achieve a better
    generalization performance", the paper's motivation, never tested there (no supervised
    baseline). Decided by the matched comparison U-BIN."""
    return unlabeled_outcome(study, BINARY)
