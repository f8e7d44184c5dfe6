"""The AUC-DCD paper's convergence claims (Jiang, Tao, Gao & Chu, Journal of Software 25(10),
2014, section 3.2, Figure 2), and the final-accuracy claim stated beside them.

Figure 2 plots, on sonar, svmguide4 and vowel, the mean over the 20 runs of 1 - AUC (test)
and of the relative objective (P(w_t) - P*) / P* against the pair updates, a checkpoint every
100 up to 5,000. The numbers come from :func:`ordauc.report.curvedata.convergence` (which
takes P* as the smallest P(w) recorded on the same training fold with the same lambda, over the
four methods). A(s, m) is the mean over the checkpoints up to 5,000 of the mean curve of method
s for quantity m: the area under the curve, smaller = faster convergence.

The runner records checkpoints only for final fits, so under ``tuning: test`` (the paper's
variant, whose kept model is a grid candidate) there are none; the curves are then those of
the inner-CV variant, each run at its own chosen lambda. The paper used one lambda per dataset
for all four methods; the evidence says in how many runs the four lambdas agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    FIGURE2,
    METHODS,
    MSGD,
    OAM,
    PERM,
    SDCD,
    SHORT,
    UNTIL,
    Variant,
    cached,
    cv_variant,
    no_paper_runs,
    paper_protocol,
    paper_variant,
    variants,
)
from ordauc.claims.registry import Outcome, claim, undecidable
from ordauc.claims.study import Study
from ordauc.errors import UserError
from ordauc.report.curvedata import ONE_MINUS_AUC, RELATIVE_OBJECTIVE, convergence

STUDIES = ("auc_dcd",)
QUANTITY = {ONE_MINUS_AUC: "1-AUC", RELATIVE_OBJECTIVE: "r_t"}
FASTER = (SDCD, PERM, MSGD)


@dataclass
class Figure:
    """Figure 2's numbers from one variant's curves: ``area[dataset][(method, quantity)]`` =
    A(s, m) (absent where the method has too few runs, C2), ``lam`` the per-dataset text on
    lambda sharing, ``auc_at`` a results-like table of each run's test AUC at the last
    checkpoint <= 5,000 (``checkpoint``)."""

    variant: Variant
    datasets: list[str]
    area: dict[str, dict[tuple[str, str], float]] = field(default_factory=dict)
    lam: dict[str, str] = field(default_factory=dict)
    auc_at: pd.DataFrame | None = None
    checkpoint: int = 0

    def chosen(self) -> tuple[list[str], bool]:
        """The datasets a claim reads: Figure 2's three when all have curves (True), else
        every dataset with curves (False)."""
        if all(d in self.area for d in FIGURE2):
            return list(FIGURE2), True
        return list(self.area), False

    def note(self) -> str:
        lam = "; ".join(f"{d} {t}" for d, t in self.lam.items() if d in self.chosen()[0])
        return f"curves of {self.variant.name} (lambda shared by the 4 methods: {lam})"


def _curves_of(study: Study, variant: Variant) -> pd.DataFrame | None:
    curves = study.curves
    if curves is None or curves.empty or not {"solver", "metric", "value"} <= set(curves):
        return None
    mine = curves[curves["solver"].isin(list(variant.labels.values()))]
    if set(mine["solver"]) != set(variant.labels[m] for m in METHODS):
        return None
    results = study.results
    if "key" in mine.columns and "key" in results.columns:  # only runs that finished
        mine = mine[mine["key"].isin(set(ev.ok(results)["key"]))]
    if "key" not in mine.columns:  # curvedata groups a run's points by its key
        mine = mine.assign(key=mine["dataset"].astype(str) + "/" + mine["solver"].astype(str)
                           + "/r" + mine["repetition"].astype(str))
    return mine


def _lambda_text(study: Study, variant: Variant, dataset: str) -> str:
    rows = ev.ok(ev.rows_of(study.results, dataset=dataset,
                            solver=[variant.labels[m] for m in METHODS]))
    if "p_lam" not in rows.columns or rows.empty:
        return "n/a"
    rep = ev.repetition_column(rows)
    lam = pd.to_numeric(rows["p_lam"], errors="coerce")
    per_run = lam.groupby(rows[rep]).nunique()
    return f"{int((per_run == 1).sum())}/{per_run.size}"


def figure(study: Study) -> Figure | str:
    """Figure 2's numbers, or why they cannot be had."""
    return cached("figure", study, _figure)


def _figure(study: Study) -> Figure | str:
    found = [v for v in (paper_variant(study.results), cv_variant(study.results),
                         *variants(study.results)) if v is not None and not v.missing()]
    for variant in found:
        curves = _curves_of(study, variant)
        if curves is not None:
            break
    else:
        return ("no curves (curves.csv) of all four methods OAMinf, SDCD, SDCDperm, MSGD under "
                "one protocol; configs/auc_dcd.yaml records them (`curves: {every: 100, "
                "until: 5000}`)")
    out = Figure(variant, [str(d) for d in pd.unique(curves["dataset"])])
    for dataset in out.datasets:
        try:
            conv = convergence(curves, study.results, dataset)
        except UserError:
            continue
        need = math.ceil(ev.PAIRED_SHARE * ev.planned(study.results, dataset) - 1e-9)
        area = {}
        for method in METHODS:
            for quantity in conv.quantities:
                line = conv.curve(variant.labels[method], quantity)
                line = line[line["iteration"] <= UNTIL]
                if len(line) and line["n_runs"].min() >= need:
                    area[(method, quantity)] = float(line["mean"].mean())
        if area:
            out.area[dataset] = area
            out.lam[dataset] = _lambda_text(study, variant, dataset)
    auc = curves[(curves["metric"] == "auc") & (curves["iteration"] <= UNTIL)]
    if len(auc):
        out.checkpoint = int(auc["iteration"].max())
        last = auc[auc["iteration"] == out.checkpoint]
        names = {label: m for m, label in variant.labels.items()}
        out.auc_at = pd.DataFrame({"dataset": last["dataset"],
                                   "solver": last["solver"].map(names),
                                   "repetition": last["repetition"], "status": ev.OK,
                                   "auc": last["value"]})
    return out


def _cells(fig: Figure, datasets: list[str], methods: tuple[str, ...]
           ) -> tuple[int, int, list[str]]:
    """(cells where A(s, m) < A(OAMinf, m), decidable cells, per-dataset text of the ratios
    A(s, m) / A(OAMinf, m), methods in the order given)."""
    hits, decided, lines = 0, 0, []
    for dataset in datasets:
        area = fig.area.get(dataset, {})
        parts = []
        for quantity, short in QUANTITY.items():
            base, ratios = area.get((OAM, quantity)), []
            for method in methods:
                mine = area.get((method, quantity))
                if base is None or mine is None:
                    ratios.append("-")
                    continue
                decided += 1
                hits += mine < base
                ratios.append(f"{mine / base:.2f}" if base > 0 else "n/a")
            parts.append(f"{short} {'/'.join(ratios)}")
        lines.append(f"{dataset} {', '.join(parts)}")
    return hits, decided, lines


@claim("AUC-DCD", "DCD-5", studies=STUDIES,
       text="MSGD, SDCD and SDCDperm converge clearly faster than OAMinf, in AUC and in "
            "objective value",
       rule="A(s, m) = mean over the checkpoints up to 5,000 pair updates of the mean curve "
            "of m in {1 - AUC (test), relative objective (P - P*)/P*}. A cell (dataset, s, m) "
            "holds if A(s, m) < A(OAMinf, m). Datasets: Figure 2's sonar, svmguide4 and vowel "
            "(18 cells), else every dataset with curves (our reading: the statement is "
            "general; at least 3 datasets). CONFIRMED if every cell holds, PARTIAL if >= 2/3 "
            "of them (12/18), otherwise NOT CONFIRMED")
def dcd_5(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "MSGD, SDCD and SDCDperm converge clearly
    faster than OAMinf both in AUC and in objective value" (and section 2.2: SDCD faster than
    OAMinf).

    Interpretations: the area under the mean curve up to 5,000 updates measures speed;
    "clearly" is not decided (the ratios are reported); P* as in the module docstring.
    """
    fig = figure(study)
    if isinstance(fig, str):
        return undecidable(fig)
    datasets, strict = fig.chosen()
    hits, decided, lines = _cells(fig, datasets, FASTER)
    if not decided:
        return undecidable(f"no curve of {fig.variant.name} with enough runs (C2) on "
                           f"{', '.join(datasets) or 'any dataset'}")
    total = 6 * max(len(FIGURE2), len(datasets))
    verdict = ev.count_rule(hits, decided, total, total, partial_at=math.ceil(2 * total / 3))
    where = "Figure 2's datasets" if strict else f"{len(datasets)} datasets with curves"
    statistic = f"faster than OAMinf in {hits}/{decided} cells ({where}; {total} needed)"
    evidence = f"A(s)/A(OAMinf), s = SDCD/SDCDperm/MSGD: {'; '.join(lines)}. {fig.note()}"
    return Outcome(verdict, statistic, evidence)


@claim("AUC-DCD", "DCD-6", studies=STUDIES,
       text="On sonar, MSGD converges faster than the other three methods",
       rule="On sonar, A(MSGD, m) (as in DCD-5) is the lowest of the four methods for m = 1 - "
            "AUC and for m = relative objective. CONFIRMED if it holds for both, PARTIAL if "
            "for one, otherwise NOT CONFIRMED")
def dcd_6(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "in particular, on sonar MSGD converges
    faster than the other three algorithms". Decided on sonar only (the paper's words)."""
    fig = figure(study)
    if isinstance(fig, str):
        return undecidable(fig)
    area = fig.area.get("sonar")
    if not area:
        return undecidable("no curves on sonar with enough runs; configs/auc_dcd.yaml runs it")
    hits, decided, parts = 0, 0, []
    for quantity, short in QUANTITY.items():
        values = {m: area.get((m, quantity)) for m in METHODS}
        if any(v is None for v in values.values()):
            continue
        decided += 1
        lowest = min(values, key=values.__getitem__)
        hits += lowest == MSGD and sorted(values.values())[1] > values[MSGD]
        parts.append(f"{short}: lowest {SHORT[lowest]} (" + ", ".join(
            f"{SHORT[m]} {v:.4g}" for m, v in values.items()) + ")")
    verdict = ev.count_rule(hits, decided, 2, 2, partial_at=1)
    return Outcome(verdict, f"MSGD lowest in {hits} of {decided} quantities on sonar",
                   f"{'; '.join(parts) or 'no quantity'}. {fig.note()}")


@claim("AUC-DCD", "DCD-7", studies=STUDIES,
       text="SDCD's objective decreases slightly faster than SDCDperm's",
       rule="A(SDCD, r) < A(SDCDperm, r) for the relative objective r (as in DCD-5) on >= 2 "
            "of Figure 2's 3 datasets (else >= 2/3 of the datasets with curves, at least 3): "
            "CONFIRMED, otherwise NOT CONFIRMED. 'Slightly' is not decided; the ratio "
            "A(SDCD)/A(SDCDperm) is reported")
def dcd_7(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "the objective value of SDCD decreases
    slightly faster than that of SDCDperm"."""
    fig = figure(study)
    if isinstance(fig, str):
        return undecidable(fig)
    datasets, _ = fig.chosen()
    hits, decided, parts = 0, 0, []
    for dataset in datasets:
        area = fig.area.get(dataset, {})
        mine, theirs = area.get((SDCD, RELATIVE_OBJECTIVE)), area.get((PERM, RELATIVE_OBJECTIVE))
        if mine is None or theirs is None:
            continue
        decided += 1
        hits += mine < theirs
        parts.append(f"{dataset} {mine / theirs:.2f}" if theirs > 0 else f"{dataset} n/a")
    if not decided:
        return undecidable("no relative-objective curves of SDCD and SDCDperm with enough runs "
                           f"({fig.variant.name}); the solvers record P(w) at each checkpoint")
    total = max(len(FIGURE2), len(datasets))
    verdict = ev.count_rule(hits, decided, total, math.ceil(2 * total / 3))
    return Outcome(verdict, f"SDCD below SDCDperm on {hits}/{decided} datasets",
                   f"A(SDCD)/A(SDCDperm) for r_t: {', '.join(parts) or 'none'}. {fig.note()}")


def _top(table: pd.DataFrame, dataset: str) -> tuple[bool, bool, str]:
    """(SDCDperm strictly highest, highest-or-tied, the best method) on ``dataset``."""
    values = ev.means(table, dataset, METHODS, "auc")
    best = ev.best_of(values, "auc")
    return (ev.highest(values, PERM, "auc"),
            ev.highest_or_tied(table, dataset, PERM, METHODS, "auc"), SHORT.get(best, "n/a"))


@claim("AUC-DCD", "DCD-8", studies=STUDIES,
       text="With enough iterations, SDCDperm always gives the best AUC",
       rule="Mean test AUC at the end of training (T = n+ n- pair updates, the paper's "
            "variant as in Table 2) on Figure 2's sonar, svmguide4 and vowel (else every "
            "dataset run, at least 3). Tolerant reading (decides): SDCDperm highest or not "
            "significantly below the highest (two-sided paired Wilcoxon p > 0.05) on every "
            "dataset: CONFIRMED, otherwise NOT CONFIRMED; a dataset where SDCDperm is not "
            "highest and the runs are too few for the test ever to reject (n <= 5) is "
            "undecidable. Reported: the strict reading "
            "(strictly highest), the same at checkpoint 5,000 of the curves, and over all "
            "datasets")
def dcd_8(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2 on Figure 2: "when the number of iterations is large
    enough, the AUC of SDCDperm is always the best".

    Interpretation: "enough iterations" = the full training run (one epoch; at 5,000 updates
    Figure 2's datasets have not finished it: sonar's training folds hold about 6,900 pairs,
    vowel's about 14,700), read on the paper's variant; "always" = every dataset.
    """
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    proto = paper_protocol(study)
    run = proto.datasets()
    datasets = list(FIGURE2) if all(d in run for d in FIGURE2) else run
    hits, strict, decided, parts = 0, 0, 0, []
    for dataset in datasets:
        pair = ev.paired(proto.table, dataset, PERM, OAM, "auc")
        if not pair.enough:
            continue
        first, tied, best = _top(proto.table, dataset)
        if not first and 2.0 ** (1 - pair.n) >= ev.ALPHA:
            # below the best on too few runs for the tie test ever to reject (C3: n = 5 gives
            # p >= 0.0625), so "tied" would be granted by the sample size alone
            parts.append(f"{dataset} best {best}, {pair.n} runs: undecidable")
            continue
        decided += 1
        hits += tied
        strict += first
        parts.append(f"{dataset} best {best}{'' if tied else ' (SDCDperm below)'}")
    total = max(len(FIGURE2), len(datasets))
    verdict = ev.count_rule(hits, decided, total, total)
    statistic = (f"SDCDperm highest-or-tied on {hits}/{decided}, strictly highest on "
                 f"{strict}/{decided} (of {total})")
    extra = [f"all datasets: tied-or-highest on "
             f"{sum(_top(proto.table, d)[1] for d in run)}/{len(run)}"]
    fig = figure(study)
    if not isinstance(fig, str) and fig.auc_at is not None:
        at = [d for d in datasets if d in set(fig.auc_at["dataset"])]
        extra.append(f"at checkpoint {fig.checkpoint} ({fig.variant.name}): "
                     f"{sum(_top(fig.auc_at, d)[1] for d in at)}/{len(at)}")
    return Outcome(verdict, statistic, f"{'; '.join(parts)}. {'; '.join(extra)}")

