"""The protocol statements of the two QSG papers that the results table alone decides: the
number of trials, the CV grids, the loss and kernel of each method and the machine's memory
(QS3ORAO, Shi et al., AAAI 2020, "Experimental Setup"; QSG-S2AUC, Shi et al., IJCAI 2019,
Section 6.1). The statements about the data are in :mod:`ordauc.claims.qsg_protocol`.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.qsg_protocol import findings, verdict_of
from ordauc.claims.qsg_unlabeled import absent, by_dataset, comparison_size
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

TRIALS = 10  # "all the results are the average of 10 trials" (both papers)
GIB = 1 << 30


# --- ten trials ------------------------------------------------------------------------------

def trials_protocol(study: Study, solvers: tuple[str, ...], paper_labeled: int,
                    config: str) -> Outcome:
    """Every solver has exactly 10 ok repetitions at each dataset's n_u*."""
    results = study.results
    if missing := absent(results, solvers):
        return undecidable(f"no runs of {', '.join(missing)}: {config} runs them")
    ok, bad, unknown = [], [], []
    for dataset, table in by_dataset(results).items():
        n_l, n_u = comparison_size(table, dataset, solvers, paper_labeled)
        if n_u is None:
            planned = ev.planned(table, dataset)
            (bad if planned != TRIALS else unknown).append(
                f"{dataset}: {planned} repetitions planned, no size where all have 80% ok")
            continue
        rows = ev.ok(ev.rows_of(table, n_labeled=n_l, n_unlabeled=n_u))
        counts = {s: int(rows.loc[rows["solver"] == s, ev.repetition_column(rows)].nunique())
                  for s in solvers}
        line = f"{dataset}@{n_u}: " + ", ".join(f"{s} {c}" for s, c in counts.items())
        (ok if set(counts.values()) == {TRIALS} else bad).append(line)
    return Outcome(verdict_of(bad, unknown), f"{len(ok)} of {len(ok) + len(bad)} decided "
                   f"datasets have {TRIALS} ok trials per solver at n_u*",
                   findings(ok, bad, unknown), "strict")


_TRIALS_RULE = ("at each dataset's n_u* (the largest unlabeled size where {solvers} all have "
                "80% of the repetitions ok), every one of them has exactly 10 ok repetitions; "
                "CONFIRMED if so on every dataset, NOT CONFIRMED if any has another count, "
                "else UNDECIDABLE")


@claim("QS3ORAO", "QS3-P3", studies=("qs3orao",),
       text="All the results are the average of 10 trials",
       rule=_TRIALS_RULE.format(solvers="qs3orao, svorex, m_pnu_auc, m_samult"))
def qs3_p3(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup": "all the results are the average of 10
    trials"."""
    return trials_protocol(study, ("qs3orao", "svorex", "m_pnu_auc", "m_samult"), 500,
                           "configs/qs3orao.yaml")


@claim("QSG-S2AUC", "QSG-P3", studies=("qsg_s2auc",),
       text="All the results are the average of 10 trials",
       rule=_TRIALS_RULE.format(solvers="qsg_s2auc, samult, pnu_auc"))
def qsg_p3(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.1: "All the results are the average of 10 trials"."""
    return trials_protocol(study, ("qsg_s2auc", "samult", "pnu_auc"), 200,
                           "configs/qsg_s2auc.yaml")


# --- the CV grids ---------------------------------------------------------------------------

POWERS = tuple(2.0 ** k for k in range(-3, 4))
GAMMAS = tuple(round(0.1 * i, 1) for i in range(11))
ETAS = tuple(round(-1.0 + 0.1 * i, 1) for i in range(21))
QS3_GRIDS = {"qs3orao": {"lam": POWERS, "sigma": POWERS, "gamma": GAMMAS},
             "m_samult": {"lam": POWERS, "sigma": POWERS, "gamma": GAMMAS},
             "m_pnu_auc": {"lam": POWERS, "sigma": POWERS, "eta": ETAS}}
QSG_GRIDS = {"qsg_s2auc": QS3_GRIDS["qs3orao"], "samult": QS3_GRIDS["m_samult"],
             "pnu_auc": QS3_GRIDS["m_pnu_auc"]}


def _on(values: Any, grid: tuple[float, ...]) -> bool:
    return all(any(abs(float(v) - g) <= 1e-9 * max(1.0, abs(g)) for g in grid) for v in values)


def grid_protocol(study: Study, grids: dict[str, dict[str, tuple[float, ...]]],
                  config: str) -> Outcome:
    """Every chosen value on the paper's grid, the searched grid the paper's (from the
    study's config copy), 5-fold CV; the share of choices on a grid edge is reported."""
    results = study.results
    if missing := absent(results, grids):
        return undecidable(f"no runs of {', '.join(missing)}: {config} runs them")
    specs = {s.label: s for s in getattr(study.config, "solvers", ()) or ()}
    ok, bad, unknown, edges = [], [], [], []
    for solver, wanted in grids.items():
        rows = ev.ok(ev.rows_of(results, solver=solver))
        if "tuning" in rows.columns and set(rows["tuning"].astype(str)) - {"cv"}:
            bad.append(f"{solver} not tuned by CV")
        spec = specs.get(solver)
        tuning = (spec.tuning if spec and spec.tuning else getattr(study.config, "tuning",
                                                                    None))
        if tuning is None:
            unknown.append(f"{solver} searched grid and folds (no config copy)")
        elif tuning.folds != 5 or any(not _on(spec.grid.get(p, ()), g) or
                                      len(set(spec.grid.get(p, ()))) != len(g)
                                      for p, g in wanted.items()):
            bad.append(f"{solver} searched {tuning.folds}-fold over " + ", ".join(
                f"{len(spec.grid.get(p, ()))} {p}" for p in wanted) + " (paper: 5-fold, "
                + ", ".join(f"{len(g)} {p}" for p, g in wanted.items()) + ")")
        for param, grid in wanted.items():
            column = f"p_{param}"
            chosen = pd.to_numeric(rows.get(column, pd.Series(dtype=float)), errors="coerce")
            if chosen.dropna().empty:
                unknown.append(f"{solver} no {column}")
                continue
            (ok if _on(chosen.dropna(), grid) else bad).append(
                f"{solver} {param} {'on' if _on(chosen.dropna(), grid) else 'off'} the grid")
            edge = chosen.dropna().isin([min(grid), max(grid)]).mean()
            edges.append(f"{solver}.{param} {100 * edge:.0f}%")
    return Outcome(verdict_of(bad, unknown), "choices on a grid edge: " + ", ".join(edges),
                   findings(ok, bad, unknown), "interpretation")


_GRID_RULE = ("every chosen {params} of {solvers} lies on the paper's grid (lambda, sigma in "
              "2^-3, ..., 2^3 (our reading: integer powers), gamma in 0, 0.1, ..., 1{eta}), "
              "the study searched exactly that grid with 5-fold CV (read from the config copy); "
              "CONFIRMED if all hold, NOT CONFIRMED if any fails, else UNDECIDABLE; the share "
              "of choices on a grid edge is reported (a high share means the grid is too narrow)")


@claim("QS3ORAO", "QS3-P4", studies=("qs3orao",),
       text="5-fold CV over lambda, sigma in [2^-3, 2^3] and gamma^j from 0 to 1 in steps of 0.1",
       rule=_GRID_RULE.format(params="lambda, sigma, gamma (eta for m_pnu_auc)",
                              solvers="qs3orao, m_samult, m_pnu_auc",
                              eta="; m_pnu_auc's eta in -1, ..., 1 as in the IJCAI paper"))
def qs3_p4(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup". The text writes the region as "(lambda,
    gamma)" where (lambda, sigma) is meant; the paper gives no grid for M-PNU-AUC's eta, so
    the IJCAI paper's is used."""
    return grid_protocol(study, QS3_GRIDS, "configs/qs3orao.yaml")


@claim("QSG-S2AUC", "QSG-P4", studies=("qsg_s2auc",),
       text="5-fold CV; lambda, sigma in [2^-3, 2^3]; gamma in {0, 0.1, ..., 1}; PNU-AUC's "
            "trade-off in {-1, -0.9, ..., 1}",
       rule=_GRID_RULE.format(params="lambda, sigma, gamma (eta for pnu_auc)",
                              solvers="qsg_s2auc, samult, pnu_auc",
                              eta="; pnu_auc's eta in -1, -0.9, ..., 1"))
def qsg_p4(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.1: the CV grids of the three methods."""
    return grid_protocol(study, QSG_GRIDS, "configs/qsg_s2auc.yaml")


# --- loss, kernel and the machine -------------------------------------------------------------

SQUARED = "squared pairwise loss (1 - u + v)^2"
KERNELS = {  # solver -> (loss, kernel parameter column): exp(-p ||x - x'||^2) for both names
    "qs3orao": (SQUARED, "p_sigma"), "m_samult": (SQUARED, "p_sigma"),
    "m_pnu_auc": (SQUARED, "p_sigma"), "svorex": ("hinge loss (Chu & Keerthi)", "p_kappa"),
    "qsg_s2auc": (SQUARED, "p_sigma"), "samult": (SQUARED, "p_sigma"),
    "pnu_auc": (SQUARED, "p_sigma")}
PNU_NOTE = ("PNU-AUC's reference writes exp(-||x - c||^2 / (2 s^2)): its runs use s = "
            "1 / sqrt(2 sigma)")


def kernel_findings(study: Study, solvers: tuple[str, ...]) -> tuple[list[str], list[str],
                                                                      list[str]]:
    """(as the paper, deviations, open points) about each solver's loss and Gaussian kernel:
    every ok run records the kernel's coefficient (sigma, or kappa for the ordinal SVMs)."""
    results = study.results
    ok, bad, unknown = [], [], [f"no runs of {s}" for s in absent(results, solvers)]
    for solver in solvers:
        rows = ev.ok(ev.rows_of(results, solver=solver))
        if not len(rows):
            unknown += [] if solver in absent(results, [solver]) else [f"no ok run of {solver}"]
            continue
        loss, column = KERNELS[solver]
        values = pd.to_numeric(rows.get(column, pd.Series(dtype=float)), errors="coerce")
        if values.notna().all() and len(values):
            (ok if loss == SQUARED else bad).append(
                f"{solver}: {loss}, exp(-{column[2:]} ||x - x'||^2)")
        else:
            bad.append(f"{solver}: no {column} in {int(values.isna().sum())} ok runs")
    if any(s in solvers for s in ("pnu_auc", "m_pnu_auc")):
        ok.append(PNU_NOTE)
    return ok, bad, unknown


@claim("QS3ORAO", "QS3-P5", studies=("qs3orao",),
       text="For all algorithms, the squared pairwise loss and the Gaussian kernel "
            "exp(-sigma ||x - x'||^2)",
       rule="every ok run of qs3orao, m_samult and m_pnu_auc (k - 1 binary models averaged by "
            "Eq. (2)) records the kernel coefficient sigma of exp(-sigma ||x - x'||^2) and uses "
            "the squared pairwise loss; svorex uses the same kernel form (coefficient kappa) "
            "but the hinge loss, so the statement cannot hold for it literally; CONFIRMED if "
            "every method conforms, PARTIAL if only svorex differs (by its loss), NOT "
            "CONFIRMED if an AUC method lacks the kernel, UNDECIDABLE if a method did not run")
def qs3_p5(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup": "For all algorithms, we use the squared
    pairwise loss ... and Gaussian kernel", which SVOREX (Chu & Keerthi 2007), a hinge-loss
    threshold SVM, cannot satisfy; the kernel convention of each solver is recorded."""
    ok, bad, unknown = kernel_findings(study, ("qs3orao", "m_samult", "m_pnu_auc", "svorex"))
    hinge = [b for b in bad if "hinge" in b]
    verdict = (UNDECIDABLE if unknown else NOT_CONFIRMED if len(bad) > len(hinge) else
               PARTIAL if hinge else CONFIRMED)
    stated = sum(line.startswith(("qs3orao:", "m_samult:", "m_pnu_auc:")) for line in ok)
    return Outcome(verdict, f"{stated} of 3 AUC methods as stated; svorex: hinge loss",
                   findings(ok, bad, unknown), "strict")


def memory_limit(study: Study) -> tuple[int | None, str]:
    """The run's memory limit in bytes and where it was read: the memory guard's messages
    (``limit 9.42 GB (18.8 GB shared by 2 parallel cells)``), else the config copy."""
    found = []
    skipped = ev.rows_of(study.results, status="skipped") if len(study.results) else []
    for message in (skipped["message"].astype(str) if len(skipped) else []):
        match = re.search(r"limit ([\d.]+) GB(?: \(([\d.]+) GB shared)?", message)
        if match:
            found.append(float(match.group(2) or match.group(1)) * GIB)
    if found:
        return int(max(found)), "the memory guard's messages"
    limit = getattr(study.config, "memory_limit", None)
    return (int(limit), "the config") if limit else (None, "")


def machine_findings(study: Study, config: str) -> tuple[list[str], list[str], list[str]]:
    """(as the paper, deviations, open points) about the memory limit: 80 GB (79e9 bytes to
    81 GiB, either unit), as the papers' machine had."""
    limit, source = memory_limit(study)
    if limit is None:
        return [], [], [f"memory limit not recorded (no cell skipped by the memory guard, none "
                         f"in the config): set memory_limit: 80GB in {config}"]
    line = f"memory limit {limit / GIB:.3g} GiB (from {source})"
    return ([line], [], []) if 79e9 <= limit <= 81 * GIB else ([], [line + ", not 80 GB"], [])


_MACHINE = ("the run's memory limit is 80 GB (the papers' 56-core, 80 GB machine; read from "
            "the memory guard's skip messages, else the config's memory_limit)")


@claim("QS3ORAO", "QS3-P6", studies=("qs3orao_time", "qs3orao"),
       text="The experiments ran on a PC with 56 2.2 GHz cores and 80 GB RAM, in MATLAB",
       rule=f"{_MACHINE}; CONFIRMED if so, NOT CONFIRMED if another limit is recorded, "
            "UNDECIDABLE if none is; cores, clock and language cannot be mirrored, so no check "
            "compares absolute times")
def qs3_p6(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup": the machine bounds what "out of memory" means
    in the Figure 1 claims, so the time study should run under the same 80 GB."""
    ok, bad, unknown = machine_findings(study, "configs/qs3orao_time.yaml")
    return Outcome(verdict_of(bad, unknown), (ok + bad + ["memory limit not recorded"])[0],
                   findings(ok, bad, unknown), "strict")


@claim("QSG-S2AUC", "QSG-P6", studies=("qsg_s2auc_time", "qsg_s2auc"),
       text="Squared pairwise loss and Gaussian kernel exp(-sigma ||x - x'||^2) for all "
            "algorithms, on a PC with 56 cores and 80 GB RAM",
       rule="every ok run of qsg_s2auc, samult and pnu_auc records the kernel coefficient sigma "
            f"(squared pairwise loss for all three; PNU-AUC's width converted), and {_MACHINE}; "
            "CONFIRMED if both hold, NOT CONFIRMED if either fails, else UNDECIDABLE")
def qsg_p6(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.1: one loss and kernel for all algorithms, MATLAB, 56
    cores and 80 GB RAM (the bound of its "out of memory" claims)."""
    ok, bad, unknown = kernel_findings(study, ("qsg_s2auc", "samult", "pnu_auc"))
    machine = machine_findings(study, "configs/qsg_s2auc_time.yaml")
    ok, bad, unknown = ok + machine[0], bad + machine[1], unknown + machine[2]
    return Outcome(verdict_of(bad, unknown), f"{len(bad)} deviations, {len(unknown)} open "
                   "points (kernels and memory limit)", findings(ok, bad, unknown), "strict")
