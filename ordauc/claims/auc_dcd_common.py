"""What the AUC-DCD claims share: the four methods of the paper's Table 2 found in a study's
results through their registry names, the AUC values of the paper's protocol, and the numbers
of its Figure 2 (convergence) read from the curves.

Jiang, Tao, Gao & Chu, "AUC-DCD", Journal of Software 25(10), 2014. A study runs each method
under one or more labels (``auc_sdcd_paper``, ``auc_sdcd_cv``, ...): a *variant* is the set of
labels sharing what the label adds to the registry name, with its tuning protocol. The paper's
variant is the one whose labels end in ``_paper``, else the one tuned on the test folds
(``tuning == test``); the honest variant ends in ``_cv``, else is tuned by inner CV.

The paper chose one lambda per (dataset, method), "the best parameter in the experiment"
(section 3.2): our reading is the lambda with the best mean test AUC over the 20 runs. The
runner's ``tuning: test`` keeps the best lambda of each run instead (more optimistic); where
the study's tuning scores hold every lambda's test AUC on every run, :func:`protocol_table`
rebuilds the paper's choice from them, else it keeps the runner's per-run choice and says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.study import Study
from ordauc.results.frame import label_variants, registry_names

OAM, SDCD, PERM, MSGD = "oam_inf", "auc_sdcd", "auc_sdcdperm", "auc_msgd"
METHODS = (OAM, SDCD, PERM, MSGD)  # the paper's Table 2 column order
OAM_BUFFERED = ("oam_seq", "oam_gra")
KNOWN = (*METHODS, *OAM_BUFFERED)
SHORT = {OAM: "OAMinf", SDCD: "SDCD", PERM: "SDCDperm", MSGD: "MSGD", "oam_seq": "OAMseq",
         "oam_gra": "OAMgra"}
PAPER_SETS = ("sonar", "fourclass", "german", "svmguide3", "dna", "svmguide4", "pendigits",
              "vowel", "letter", "sector")  # the paper's Tables 1-2, by our catalogue's names
N_DATASETS = len(PAPER_SETS)  # 10
FIGURE2 = ("sonar", "svmguide4", "vowel")  # the datasets of the paper's Figure 2
PAPER_REPS = 20  # 5 folds x 4 fold assignments (section 3.2)
PAPER = algebra.PaperData(datasets=PAPER_SETS, repetitions=PAPER_REPS)
FIG2 = algebra.PaperData(datasets=FIGURE2, repetitions=PAPER_REPS)
UNTIL = 5000  # Figure 2 draws the first 5,000 pair updates
T = TypeVar("T")


@dataclass(frozen=True)
class Variant:
    """The labels of one protocol: ``suffix`` (what labels add to the registry name, e.g.
    ``_paper``), ``tuning`` (the rows' tuning kind) and ``labels`` (registry name -> label)."""

    suffix: str
    tuning: str
    labels: dict[str, str] = field(default_factory=dict)
    title: str = ""

    @property
    def name(self) -> str:
        """How evidence names the variant: ``*_paper``, or its title."""
        return self.title or (f"*{self.suffix}" if self.suffix else "labels as registered")

    def missing(self, methods: tuple[str, ...] = METHODS) -> list[str]:
        return [SHORT[m] for m in methods if m not in self.labels]


def variants(results: pd.DataFrame) -> list[Variant]:
    """Every variant of the known methods in ``results``, in the order labels first appear."""
    if results.empty or "solver" not in results.columns:
        return []
    rows = results.assign(registry=registry_names(results))
    found = label_variants(rows[rows["registry"].isin(KNOWN)])
    return [Variant(s, t, labels) for (s, t), labels in found.items()]


def _pick(results: pd.DataFrame, suffix: str, tuning: str) -> Variant | None:
    """The variant whose labels end in ``suffix``; else the labels tuned ``tuning``, merged
    (labels that do not start with their registry name form a variant each)."""
    found = variants(results)
    exact = [v for v in found if v.suffix == suffix]
    if exact:
        return exact[0]
    same = [v for v in found if v.tuning == tuning]
    if len(same) == 1:
        return same[0]
    labels: dict[str, str] = {}
    for variant in same:
        for name, label in variant.labels.items():
            labels.setdefault(name, label)
    return Variant("", tuning, labels, f"labels tuned '{tuning}'") if labels else None


def paper_variant(results: pd.DataFrame) -> Variant | None:
    """The paper's protocol: labels ``*_paper``, else those tuned on the test folds."""
    return _pick(results, "_paper", "test")


def cv_variant(results: pd.DataFrame) -> Variant | None:
    """The honest protocol: labels ``*_cv``, else those tuned by inner CV."""
    return _pick(results, "_cv", "cv")


@dataclass(frozen=True)
class Protocol:
    """One variant's AUC values as a results-like table whose ``solver`` column holds the
    registry names (``table``), how lambda was chosen (``how``) and, where rebuilt from the
    tuning scores, the chosen grid point per (dataset, method) (``chosen``: text, with
    ``edge`` listing the choices on a grid edge)."""

    variant: Variant
    table: pd.DataFrame
    how: str
    chosen: dict[tuple[str, str], str] = field(default_factory=dict)
    edge: list[str] = field(default_factory=list)
    lam: dict[tuple[str, str], float] = field(default_factory=dict)

    def datasets(self) -> list[str]:
        return [str(d) for d in pd.unique(self.table["dataset"])]


def _best_points(scores: pd.DataFrame) -> tuple[int, float, pd.Series]:
    """(best grid point, its mean score, the score per repetition at it) of one (dataset,
    label): the best mean over the runs, ties to the first point in grid order."""
    wide = scores.pivot_table(index="repetition", columns="point", values="score",
                              aggfunc="mean")
    wide = wide.reindex(sorted(wide.columns), axis=1)
    mean = wide.mean(axis=0, skipna=True)
    if not np.isfinite(mean).any():
        return -1, math.nan, pd.Series(dtype=float)
    best = int(mean.index[int(np.nanargmax(mean.to_numpy()))])
    return best, float(mean[best]), wide[best]


def _point_text(scores: pd.DataFrame, point: int) -> str:
    at = scores[scores["point"] == point]
    params = [c for c in at.columns if c.startswith("p_") and at[c].notna().any()
              and (at[c].astype(str) != "").any()]
    return ",".join(f"{c[2:]}={at[c].iloc[0]}" for c in params) or f"point {point}"


def protocol_table(study: Study, variant: Variant, rebuild: bool = True) -> Protocol:
    """The AUC of every run of ``variant``'s labels, ``solver`` renamed to the registry name.

    With ``rebuild`` and a variant tuned on the test folds whose tuning scores are in the
    study, each (dataset, method) gets the one grid point with the best mean test AUC over its
    runs, and each run its test AUC at that point (the paper's protocol); otherwise the rows'
    own AUC.
    """
    rows = ev.rows_of(study.results, "auc", solver=list(variant.labels.values()))
    by_label = {label: name for name, label in variant.labels.items()}
    table = rows.assign(solver=rows["solver"].map(by_label), solver_name=rows["solver"])
    keep = ["dataset", "solver", "solver_name", "repetition", "n_labeled", "n_unlabeled",
            "n_test", "status", "auc"]
    table = table[[c for c in keep if c in table.columns]].copy()
    how = ("lambda chosen by inner CV" if variant.tuning == "cv"
           else "lambda as each row chose it")
    scores = study.tuning
    usable = (rebuild and variant.tuning == "test" and scores is not None
              and {"point", "score", "metric", "tuning"} <= set(scores.columns))
    if not usable:
        if variant.tuning == "test":
            how = "lambda chosen per run on its test fold (no tuning scores to choose one per " \
                  "dataset; optimistic)"
        return Protocol(variant, table, how)
    scores = scores[(scores["tuning"].astype(str) == "test") & (scores["metric"] == "auc")]
    scores = scores.assign(point=pd.to_numeric(scores["point"], errors="coerce"))
    chosen: dict[tuple[str, str], str] = {}
    lams: dict[tuple[str, str], float] = {}
    edge: list[str] = []
    rebuilt = 0
    for (dataset, label), mine in scores.groupby(["dataset", "solver"], sort=False):
        name = by_label.get(str(label))
        if name is None:
            continue
        best, _, per_run = _best_points(mine)
        if best < 0:
            continue
        where = (table["dataset"] == dataset) & (table["solver"] == name)
        table.loc[where, "auc"] = table.loc[where, "repetition"].map(per_run).to_numpy()
        table.loc[where & (table["status"] != ev.OK), "auc"] = np.nan
        text = _point_text(mine, best)
        chosen[(str(dataset), name)] = text
        if "p_lam" in mine.columns:
            at = pd.to_numeric(mine.loc[mine["point"] == best, "p_lam"], errors="coerce")
            if at.notna().any():
                lams[(str(dataset), name)] = float(at.dropna().iloc[0])
        points = mine["point"].dropna()
        if points.nunique() > 1 and best in (points.min(), points.max()):
            edge.append(f"{dataset}/{SHORT[name]} {text}")
        rebuilt += 1
    if rebuilt:
        how = "one lambda per (dataset, method): the best mean test AUC over the runs"
    return Protocol(variant, table, how, chosen, edge, lams)


_CACHE: dict[str, tuple[tuple[object, ...], object]] = {}


def cached(kind: str, study: Study, make: Callable[[Study], T]) -> T:
    """``make(study)``, kept while the same study object with the same tables is checked
    again (several claims read the same protocol table and curves). The cache holds the objects
    themselves, not their ids, so a new study can never be taken for an old one."""
    tables = (study, study.results, study.curves, study.tuning)
    hit = _CACHE.get(kind)
    if hit is None or len(hit[0]) != len(tables) or any(
            a is not b for a, b in zip(hit[0], tables, strict=True)):
        hit = _CACHE[kind] = (tables, make(study))
    return hit[1]  # type: ignore[return-value]


def paper_protocol(study: Study) -> Protocol | None:
    """:func:`protocol_table` of the paper's variant (None when the study has none)."""
    def make(s: Study) -> Protocol | None:
        variant = paper_variant(s.results)
        return None if variant is None else protocol_table(s, variant)
    return cached("paper", study, make)


def cv_protocol(study: Study) -> Protocol | None:
    """:func:`protocol_table` of the inner-CV variant (None when the study has none)."""
    def make(s: Study) -> Protocol | None:
        variant = cv_variant(s.results)
        return None if variant is None else protocol_table(s, variant)
    return cached("cv", study, make)


# Where SDCD and MSGD lose 0.03 AUC in the paper's Table 2 and ours do not: the ways of drawing
# a pair that could explain it, run as labels with these suffixes (configs/auc_dcd.yaml;
# :mod:`ordauc.solvers.pairwise.crand`). The claims that rest on the gap say, in their
# evidence, what their verdict would be with these rows in place of the paper's algorithm.
HYPOTHESES = {
    "_crand_index": "pairs drawn as one index rand() % k of a 15-bit C rand()",
    "_crand_pair": "i and j drawn apart by a 15-bit C rand()",
}


def hypothesis_protocol(study: Study, suffix: str) -> Protocol | None:
    """The paper's variant with its SDCD and MSGD rows replaced by those of the hypothesis
    ``suffix`` (None when the study has not run it for both)."""
    def make(s: Study) -> Protocol | None:
        paper = paper_variant(s.results)
        found = [v for v in variants(s.results) if v.suffix == suffix and v.tuning == "test"]
        if paper is None or not found or found[0].missing((SDCD, MSGD)):
            return None
        labels = {**paper.labels, SDCD: found[0].labels[SDCD], MSGD: found[0].labels[MSGD]}
        return protocol_table(s, Variant(suffix, "test", labels, f"*{suffix}"))
    return cached(f"hypothesis{suffix}", study, make)


def hypotheses_text(study: Study, outcome: Callable[[Protocol], tuple[str, str]]) -> str:
    """The evidence's closing sentence: per hypothesis the study ran, the verdict and statistic
    ``outcome`` gives with its SDCD and MSGD rows in place of the paper's algorithm."""
    parts = []
    for suffix, what in HYPOTHESES.items():
        proto = hypothesis_protocol(study, suffix)
        if proto is not None:
            verdict, statistic = outcome(proto)
            parts.append(f"with SDCD and MSGD as {what} (*{suffix}): {verdict}, {statistic}")
    return (". The verdict above is the paper's algorithm as written; " + "; ".join(parts)
            ) if parts else ""


def no_paper_runs(study: Study, methods: tuple[str, ...] = METHODS) -> str | None:
    """Why the paper's variant cannot decide (None when it has every method of ``methods``)."""
    variant = paper_variant(study.results)
    if variant is None:
        return ("no runs of OAMinf/SDCD/SDCDperm/MSGD (registry names oam_inf, auc_sdcd, "
                "auc_sdcdperm, auc_msgd) tuned on the test folds; configs/auc_dcd.yaml runs "
                "them as *_paper")
    missing = variant.missing(methods)
    if missing:
        return f"the {variant.name} runs lack {', '.join(missing)}; configs/auc_dcd.yaml has them"
    return None


def datasets_text(decided: list[str], total: int = N_DATASETS) -> str:
    return f"{len(decided)} of the paper's {total} datasets decidable"


def against_each(verdicts: list[str]) -> str:
    """A claim against several methods, from one count verdict per method: CONFIRMED if it
    holds against all, PARTIAL if against some and fails against the others, NOT CONFIRMED if
    against none, UNDECIDABLE while an undecided count could change that."""
    from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

    if all(v == CONFIRMED for v in verdicts):
        return CONFIRMED
    if all(v == NOT_CONFIRMED for v in verdicts):
        return NOT_CONFIRMED
    if all(v in (CONFIRMED, NOT_CONFIRMED) for v in verdicts):
        return PARTIAL
    return UNDECIDABLE


def mean_guard(n: int, planned: int, paper: int = PAPER_REPS) -> str:
    """The guard that keeps a mean-based judgment on ``n`` ok (or paired) runs undecided:
    ``missing`` below 80 % of the planned runs, ``repetitions`` below 80 % of the paper's 20
    (16), else '' (rule 2 of the verdict algebra also covers "highest mean")."""
    if n <= 0 or n < algebra.needed(max(planned, 1)):
        return algebra.MISSING
    if n < algebra.needed(paper):
        return algebra.REPETITIONS
    return ""


def compared(proto: Protocol, dataset: str, a: str, b: str, one_sided: bool = True
             ) -> tuple[ev.Paired, algebra.Compared]:
    """``a`` against ``b`` on the paired test AUCs of ``dataset`` under the verdict algebra
    (the paper's 20 runs; one-sided tests each direction)."""
    pair = ev.paired(proto.table, dataset, a, b, "auc")
    return pair, pair.compare(paper_repetitions=PAPER_REPS, one_sided=one_sided)


def paper_datasets(proto: Protocol) -> list[str]:
    """The datasets a count over "the 10 datasets" reads: the paper's ten in Table 2's order
    where run, then every other dataset run (extra evidence)."""
    run = proto.datasets()
    named = [d for name in PAPER_SETS for d in run if PAPER.canonical(d) == name]
    return named + [d for d in run if d not in named]


def judgment_lines(judgments: list[algebra.Judgment] | tuple[algebra.Judgment, ...]) -> str:
    """The evidence text of per-unit judgments, the extra (non-paper) units marked."""
    return "; ".join(j.line() for j in judgments) or "no dataset run"


def lean(comp: algebra.Compared, lower_is_better: bool = False, margin: float = 0.0) -> str | None:
    """``comp``'s state, or for an undecided comparison the state its mean difference leans to
    (better / worse beyond ``margin``, else tie): shown as the lean, never a verdict."""
    if comp.state is not None:
        return comp.state
    if not comp.n or not np.isfinite(comp.mean):
        return None
    good = -comp.mean if lower_is_better else comp.mean
    return algebra.BETTER if good > margin else algebra.WORSE if good < -margin else algebra.TIE
