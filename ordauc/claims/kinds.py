"""Which of the papers' studies a results folder is, read from what it ran, not from the name
of its config: a researcher's own config with the same runs gets the same claims and
verdicts as the shipped one.

A claim names the studies whose runs decide it by the shipped configs' stems (``qsg_s2auc``,
``npsvor_eps``, ...). Each stem here has a *signature*: the solvers (by config label, the names
the checks read) and the protocol shape that make a folder that study. A folder is every study
whose signature it meets, plus the study its record names when that is a known stem. Checks
stay safe on any folder: one that lacks the runs a claim reads says so (UNDECIDABLE).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

NINE = frozenset({"svc1v1", "svc1va", "svr", "cssvc", "svmop", "svorex", "svorim", "redsvm",
                  "opbe"})  # the NPSVOR paper's baselines
PAIRWISE = frozenset({"auc_sdcd", "auc_sdcdperm", "auc_msgd"})


@dataclass(frozen=True)
class Facts:
    """What a results table ran: config labels, registry solver names, dataset names (without
    their parameters), whether anything was tuned, and how many labeled and unlabeled sizes."""

    labels: frozenset[str]
    solvers: frozenset[str]
    datasets: frozenset[str]
    tuned: bool
    labeled_sizes: int
    unlabeled_sizes: int

    @classmethod
    def of(cls, results: pd.DataFrame) -> Facts:
        if not len(results):
            return cls(frozenset(), frozenset(), frozenset(), False, 0, 0)
        column = "solver_name" if "solver_name" in results.columns else "solver"
        tuning = (set(results["tuning"].dropna().astype(str)) if "tuning" in results.columns
                  else {"cv"})
        return cls(frozenset(results["solver"].astype(str)),
                   frozenset(results[column].astype(str)),
                   frozenset(str(d).split("[")[0] for d in results["dataset"]),
                   bool(tuning - {"none", ""}),
                   int(results["n_labeled"].nunique()), int(results["n_unlabeled"].nunique()))


def _qsg(ssl: str, baselines: set[str]) -> Callable[[Facts], bool]:
    return lambda f: ssl in f.labels and bool(f.labels & baselines)


def _time(ssl: str, baselines: set[str]) -> Callable[[Facts], bool]:
    # the papers' time figures: untuned fits over a grid of unlabeled sizes
    return lambda f: _qsg(ssl, baselines)(f) and not f.tuned and f.unlabeled_sizes >= 3


def _accuracy(ssl: str, baselines: set[str]) -> Callable[[Facts], bool]:
    return lambda f: _qsg(ssl, baselines)(f) and f.tuned


def _convergence(ssl: str, baselines: set[str]) -> Callable[[Facts], bool]:
    # Theorem 1's measurement: the solver alone, untuned (its exact reference is fitted inside
    # each run, not as a solver of its own)
    return lambda f: ssl in f.labels and not f.tuned and not f.labels & baselines


def _unlabeled(ssl: str, references: set[str]) -> Callable[[Facts], bool]:
    # the matched supervised comparison: the gamma = 1 engine and a supervised reference
    return lambda f: {ssl, f"{ssl}_gamma1"} <= f.labels and bool(f.labels & references)


SIGNATURES: dict[str, Callable[[Facts], bool]] = {
    "auc_dcd": lambda f: "oam_inf" in f.solvers and bool(f.solvers & PAIRWISE),
    "npsvor_eps": lambda f: sum(label.startswith("npsvor.eps=") for label in f.labels) >= 3,
    "npsvor_tolerance": lambda f: sum("tol_abs=" in label and "tol_rel=" in label
                                      for label in f.labels) >= 3,
    "npsvor_toy": lambda f: "npsvor_toy" in f.datasets and "npsvor" in f.labels,
    "npsvor_movielens": lambda f: "movielens" in f.datasets and "npsvor" in f.labels,
    "npsvor_scale": lambda f: ("npsvor" in f.labels and not f.tuned and f.labeled_sizes >= 3
                               and len(f.labels & NINE) >= 3),
    "npsvor": lambda f: "npsvor" in f.labels and f.tuned and len(f.labels & NINE) >= 3,
    "qsg_s2auc_time": _time("qsg_s2auc", {"samult", "pnu_auc"}),
    "qsg_s2auc": _accuracy("qsg_s2auc", {"samult", "pnu_auc"}),
    "qsg_s2auc_convergence": _convergence("qsg_s2auc", {"samult", "pnu_auc"}),
    "unlabeled_binary": _unlabeled("qsg_s2auc", {"svc_rbf"}),
    "qs3orao_time": _time("qs3orao", {"m_samult", "m_pnu_auc"}),
    "qs3orao": _accuracy("qs3orao", {"m_samult", "m_pnu_auc", "svorex"}),
    "qs3orao_convergence": _convergence("qs3orao", {"m_samult", "m_pnu_auc", "svorex"}),
    "unlabeled_ordinal": _unlabeled("qs3orao", {"svorex", "svorim", "m_svc_rbf"}),
}


# A folder is at most one study of each family (the first signature it meets, the most
# specific first: a sweep of eps is no comparison of ten methods); the matched supervised
# comparisons are studies of their own beside any of them.
FAMILIES = (("npsvor_eps", "npsvor_tolerance", "npsvor_toy", "npsvor_movielens",
             "npsvor_scale", "npsvor"), ("qsg_s2auc_time", "qsg_s2auc"),
            ("qs3orao_time", "qs3orao"), ("auc_dcd",), ("unlabeled_binary",),
            ("unlabeled_ordinal",), ("qsg_s2auc_convergence",), ("qs3orao_convergence",))


def kinds_of(results: pd.DataFrame, stem: str | None = None) -> tuple[str, ...]:
    """The studies a folder is: its record's ``stem`` where that is a known study (one with a
    signature, or one a registered claim names, e.g. a plugin's), then per other family the
    first study whose signature its runs meet."""
    from ordauc.claims.registry import CLAIMS

    facts = Facts.of(results)
    named = {s for c in CLAIMS.values() for s in c.studies}  # a plugin's claims name theirs
    found = [stem] if stem in SIGNATURES or stem in named else []
    for family in FAMILIES:
        if any(name in found for name in family):
            continue
        found += [name for name in family if SIGNATURES[name](facts)][:1]
    return tuple(found)
