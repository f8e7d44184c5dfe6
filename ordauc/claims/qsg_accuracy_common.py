"""What the QSG accuracy claims and the checks of the unlabeled rows' value share: the papers'
datasets and repetitions, the comparison size of convention C10, and per-dataset judgments under
the verdict algebra (:mod:`ordauc.claims.algebra`).

Both papers run 8 datasets (their Table 2) and average 10 trials ("All the results are the
average of 10 trials", IJCAI 2019 Section 6.1; "all the results are the average of 10 trials",
AAAI 2020 "Experiments"). A claim about "the datasets" is therefore judged on those 8, by our
catalogue's names, each on at least 8 of the 10 repetitions (``algebra.needed``); any other
dataset a study runs (scikit-learn's breast_cancer and diabetes, the seeded ``synthetic_*``
sets, a user's real data) is shown as extra evidence, marked, and never decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.algebra import Compared, Judgment, PaperData, Settled
from ordauc.claims.registry import UNDECIDABLE, Outcome

PAPER_REPETITIONS = 10  # both papers: "the average of 10 trials"
QS3_DATA = PaperData(("road3d", "sgemm", "year", "yolanda", "baby", "beauty", "clothes", "pet"),
                     PAPER_REPETITIONS)
QSG_DATA = PaperData(("codrna", "ijcnn1", "susy", "covtype", "higgs", "skin", "dota2",
                      "unclonable"), PAPER_REPETITIONS)
QS3_CONFIG, QSG_CONFIG = "configs/qs3orao.yaml", "configs/qsg_s2auc.yaml"
PAPER_GB = 80.0  # both papers' machine: 80 GB of memory
_NEEDS = re.compile(r"needs ([\d.]+(?:e[+-]?\d+)?) GB")
# similar-or-better (C4) per baseline
YES, NO = "similar-or-better", "not similar"


# --- the rows of a comparison --------------------------------------------------------------

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


def skipped_below_machine(rows: pd.DataFrame, solvers: Iterable[str]) -> bool:
    """Whether a run of ``solvers`` was skipped by the memory guard with a stated need within
    the papers' 80 GB (C7): the papers' machine would have run it, so it is not observed."""
    mine = rows[rows["solver"].isin(list(solvers))]
    for status, message in zip(mine["status"], mine["message"].fillna(""), strict=True):
        if ev.memory_failure(str(status), str(message)) == "predicted":
            need = _NEEDS.search(str(message))
            if need is not None and float(need.group(1)) <= PAPER_GB:
                return True
    return False


@dataclass(frozen=True)
class Cell:
    """One dataset's comparison size (C10) for a set of solvers: ``n_unlabeled`` None where
    there is none; ``guard`` the algebra's guard keeping it undecided ('' if none: ``missing``
    without a common size, ``memory ...`` where a skip under 80 GB caused that, ``repetitions``
    where a solver has fewer than 80 % of the paper's repetitions ok there); ``n_ok`` the
    fewest ok repetitions of a compared solver at the size."""

    dataset: str
    n_labeled: int | None
    n_unlabeled: int | None
    guard: str
    named: bool
    n_ok: int

    @property
    def where(self) -> dict[str, int | None]:
        return {"n_labeled": self.n_labeled, "n_unlabeled": self.n_unlabeled}

    @property
    def label(self) -> str:
        return self.dataset if self.n_unlabeled is None else f"{self.dataset}@{self.n_unlabeled}"


def cell(rows: pd.DataFrame, dataset: str, solvers: Iterable[str], paper_labeled: int,
         data: PaperData) -> Cell:
    """The :class:`Cell` of ``solvers`` on ``dataset`` (``rows``: at least its rows)."""
    solvers = list(solvers)
    named = data.named(dataset)
    n_l, n_u = comparison_size(rows, dataset, solvers, paper_labeled)
    if n_u is None:
        mine = ev.rows_of(rows, dataset=dataset)
        guard = algebra.MEMORY if skipped_below_machine(mine, solvers) else algebra.MISSING
        return Cell(dataset, n_l, None, guard, named, 0)
    at = ev.ok(ev.rows_of(rows, dataset=dataset, n_labeled=n_l, n_unlabeled=n_u))
    counts = at.groupby("solver")[ev.repetition_column(at)].nunique()
    n_ok = min(int(counts.get(s, 0)) for s in solvers)
    reps = data.reps(dataset)
    guard = algebra.REPETITIONS if reps and n_ok < algebra.needed(reps) else ""
    return Cell(dataset, n_l, n_u, guard, named, n_ok)


# --- one comparison ------------------------------------------------------------------------

def direction(compared: Compared) -> str | None:
    """A comparison's state (AUC: higher is better), or, where a guard left it undecided, the
    side its mean difference is on beyond the practical margin (``better``, ``worse``, ``tie``):
    what the runs lean to, never a verdict. None without pairs."""
    if compared.state is not None:
        return compared.state
    if not compared.n or not np.isfinite(compared.mean):
        return None
    if abs(compared.mean) <= algebra.margin_of("auc"):
        return algebra.TIE
    return algebra.BETTER if compared.mean > 0 else algebra.WORSE


def short(compared: Compared) -> str:
    """``d=+0.0120 n=10/10 p=0.002 better``, or without p and state where undecided (the
    judgment's line names the guard once)."""
    if not compared.n:
        return "no paired runs"
    head = f"d={compared.mean:+.4f} n={compared.n}/{compared.planned}"
    return head if compared.state is None else f"{head} p={compared.p:.3g} {compared.state}"


def similar(pair: ev.Paired, compared: Compared) -> tuple[str | None, str | None]:
    """(state, lean) of *similar-or-better* (C4) for ``pair.a`` against ``pair.b``: better
    (one-sided p < 0.05), a practical tie, or no difference with |d-bar| < 0.02 and (|d-bar| <=
    sd(d) or two-sided p > 0.05). The state is None where the comparison is undecided (too few
    repetitions or pairs: never "similar"); the lean then reads the means alone."""
    if compared.state in (algebra.BETTER, algebra.TIE):
        return YES, YES
    if compared.state == algebra.WORSE:
        return NO, NO
    gap = abs(pair.mean)
    if compared.state == algebra.NO_DIFFERENCE:
        noisy = (pair.n > 1 and gap <= pair.sd) or pair.p() > algebra.ALPHA
        state = YES if gap < ev.SIMILAR_CAP and noisy else NO
        return state, state
    if not pair.n:
        return None, None
    lean = YES if pair.mean > algebra.margin_of("auc") or gap < ev.SIMILAR_CAP else NO
    return None, lean


# --- the outcome ---------------------------------------------------------------------------

def not_run(judgments: Iterable[Judgment], data: PaperData) -> list[str]:
    """The paper's datasets without a judgment: the study did not run them."""
    seen = {data.canonical(j.unit) for j in judgments}
    return [d for d in data.datasets or () if d not in seen]


def outcome(settled: Settled, statistic: str, judgments: list[Judgment], data: PaperData,
            decide: str, *, values: Mapping[str, object], notes: Iterable[str] = (),
            reading: str = "interpretation") -> Outcome:
    """The :class:`Outcome` of a settled count rule over per-dataset ``judgments``: each
    dataset's line (extra ones marked), the paper's datasets not run, ``notes``, and where the
    rule is UNDECIDABLE what would decide it (``decide``: the config, the repetitions)."""
    parts = [j.line() for j in judgments]
    missing = not_run(judgments, data)
    if missing:
        parts.append(f"not run: {', '.join(missing)}")
    parts += [n for n in notes if n]
    if settled.verdict == UNDECIDABLE:
        parts.append(f"{settled.still_needed()}: {decide}")
    named = [j for j in judgments if j.named]
    found = {
        **values, "decided": settled.decided, "total": settled.total,
        "undecided": {j.unit: j.guard for j in named if j.state is None},
        "not_run": missing, "extra": {j.unit: j.lean for j in judgments if not j.named},
        "provisional": settled.provisional,
    }
    return Outcome(settled.verdict, statistic + algebra.lean_text(settled.provisional),
                   "; ".join(parts), reading, values=found, judgments=tuple(judgments),
                   provisional=settled.provisional)


def decide_text(config: str, data: PaperData, arms: Iterable[str]) -> str:
    """What would decide a claim: ``run configs/x.yaml: every arm on the paper's datasets
    a, b, ..., 10 repetitions each (at least 8 ok and paired)``."""
    reps = data.repetitions if isinstance(data.repetitions, int) else PAPER_REPETITIONS
    return (f"run {config}: {', '.join(arms)} on the paper's datasets "
            f"{', '.join(data.datasets or ())}, {reps} repetitions each (at least "
            f"{algebra.needed(reps)} ok and paired)")
