"""The protocol statements of the two QSG papers that the results table alone decides: the
number of trials, the CV grids, the loss and kernel of each method and the machine's memory
(QS3ORAO, Shi et al., AAAI 2020, "Experimental Setup"; QSG-S2AUC, Shi et al., IJCAI 2019,
Section 6.1). The statements about the data are in :mod:`ordauc.claims.qsg_protocol`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.qsg_accuracy_common import absent, by_dataset, comparison_size
from ordauc.claims.qsg_protocol import findings, verdict_of
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    UNDECIDABLE,
    Outcome,
    claim,
    undecidable,
)
from ordauc.claims.study import Study

TRIALS = 10  # "all the results are the average of 10 trials" (both papers)
GIB = 1 << 30


def why_reduced(study: Study) -> str:
    """Why a run may deviate by design: an offline twin (reduced data) or a reduced profile,
    as the study and its rows record them (empty if neither)."""
    reasons = []
    if study.offline:
        reasons.append(f"offline twin configs/offline/{study.name}.yaml (reduced by design)")
    if "profile" in study.results.columns:
        profiles = sorted({str(p) for p in study.results["profile"].dropna()} - {"", "paper"})
        reasons += [f"profile {p}" for p in profiles]
    return ", ".join(reasons)


# --- ten trials ------------------------------------------------------------------------------

def trials_protocol(study: Study, solvers: tuple[str, ...], paper_labeled: int,
                    config: str) -> Outcome:
    """Every solver has exactly 10 ok repetitions at each dataset's n_u*; a run planning
    fewer deviates, with the reason where the study records one (an offline twin, a profile)."""
    results = study.results
    if missing := absent(results, solvers):
        return undecidable(f"no runs of {', '.join(missing)}: {config} runs them")
    ok, bad, unknown, counts_of = [], [], [], {}
    for dataset, table in by_dataset(results).items():
        planned = ev.planned(table, dataset)
        n_l, n_u = comparison_size(table, dataset, solvers, paper_labeled)
        if n_u is None:
            (bad if planned != TRIALS else unknown).append(
                f"{dataset}: {planned} repetitions planned, no size where all have 80% ok")
            counts_of[dataset] = {"planned": planned}
            continue
        rows = ev.ok(ev.rows_of(table, n_labeled=n_l, n_unlabeled=n_u))
        counts = {s: int(rows.loc[rows["solver"] == s, ev.repetition_column(rows)].nunique())
                  for s in solvers}
        counts_of[dataset] = {"planned": planned, **counts}
        line = f"{dataset}@{n_u}: " + ", ".join(f"{s} {c}" for s, c in counts.items())
        (ok if set(counts.values()) == {TRIALS} else bad).append(
            line + ("" if set(counts.values()) == {TRIALS} else
                    f" of {planned} planned (paper: {TRIALS})"))
    why = why_reduced(study)
    if bad and why:
        bad.append(f"why: {why}")
    return Outcome(verdict_of(bad, unknown), f"{len(ok)} of {len(counts_of)} datasets have "
                   f"{TRIALS} ok trials per solver at n_u*",
                   findings(ok, bad, unknown), "strict",
                   values={"datasets": counts_of, "reason": why})


_TRIALS_RULE = ("at each dataset's n_u* (the largest unlabeled size where {solvers} all have "
                "80% of the repetitions ok), every one of them has exactly 10 ok repetitions; "
                "FOLLOWED if so on every dataset; DEVIATED if a dataset has another count (our "
                "run deviates, not the paper: the reason, an offline twin or a reduced profile, "
                "is given where the study records it); NOT RECORDED otherwise")


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
HINGE = "hinge loss (Chu & Keerthi)"
GAUSSIAN_MAPS = {"cos_sin", "cos_phase"}  # both random Fourier maps of the Gaussian kernel
# What each class the solver registry resolves a name to uses (read from its docstrings and
# code): loss, the Gaussian width parameter of exp(-p ||x - x'||^2), how the kernel is built.
CONVENTIONS = {
    "ordauc.solvers.dsg.qsg:QS3ORAO": (SQUARED, "sigma", "random Fourier features"),
    "ordauc.solvers.dsg.qsg:QSGS2AUC": (SQUARED, "sigma", "random Fourier features"),
    "ordauc.solvers.kernel.samult:SAMULT": (SQUARED, "sigma", "exact kernel matrix"),
    "ordauc.solvers.kernel.samult:MSAMULT": (SQUARED, "sigma", "exact kernel matrix"),
    "ordauc.solvers.kernel.pnu_auc:PNUAUC": (SQUARED, "sigma", "kernel on min(n_basis, n) "
                                             "centres"),
    "ordauc.solvers.kernel.pnu_auc:MPNUAUC": (SQUARED, "sigma", "kernel on min(n_basis, n) "
                                              "centres"),
    "ordauc.solvers.ordinal.svor:SVOREX": (HINGE, "kappa", "exact kernel (Chu's SMO)")}
PAPER_SOLVERS = {"qs3orao": "QS3ORAO", "m_samult": "MSAMULT", "m_pnu_auc": "MPNUAUC",
                 "svorex": "SVOREX", "qsg_s2auc": "QSGS2AUC", "samult": "SAMULT",
                 "pnu_auc": "PNUAUC"}  # the paper's method label -> the class it must run
PNU_NOTE = ("PNU-AUC's reference writes exp(-||x - c||^2 / (2 s^2)): its runs use s = "
            "1 / sqrt(2 sigma)")


def class_of(name: str) -> tuple[str, Any]:
    """(``module:Class``, metadata) of the class the solver registry resolves ``name`` to;
    ('', None) where it does not resolve."""
    from ordauc import solvers
    from ordauc.errors import UserError

    try:
        found = solvers.info(name)
    except (UserError, ValueError, ImportError):
        return "", None
    return f"{found.cls.__module__}:{found.cls.__qualname__}", found.meta


def kernel_findings(study: Study, solvers: tuple[str, ...]) -> tuple[list[str], list[str],
                                                                      list[str]]:
    """(as the paper, deviations, open points) about the loss and the Gaussian kernel each
    model used: the class the registry ran for the label (``solver_name``), its convention,
    and each ok run's recorded width (``p_sigma`` / ``p_kappa``: finite and positive) and, for
    the random-feature solvers, a Gaussian feature map (``p_feature_map``)."""
    results = study.results
    ok, bad, unknown = [], [], [f"no runs of {s}" for s in absent(results, solvers)]
    for solver in solvers:
        rows = ev.ok(ev.rows_of(results, solver=solver))
        if not len(rows):
            unknown += [] if solver in absent(results, [solver]) else [f"no ok run of {solver}"]
            continue
        names = sorted({str(n) for n in rows.get("solver_name", rows["solver"])})
        path, meta = class_of(names[0]) if len(names) == 1 else ("", None)
        if path not in CONVENTIONS:
            why = (f"several solvers {names}" if len(names) > 1 else
                   f"{names[0]} resolves to {path or 'no registered class'}")
            (bad if path and not path.endswith(":" + PAPER_SOLVERS[solver]) else
             unknown).append(f"{solver}: {why}, whose loss and kernel are not known here")
            continue
        loss, width, how = CONVENTIONS[path]
        if not path.endswith(":" + PAPER_SOLVERS[solver]):
            bad.append(f"{solver} runs {path}, not the paper's method")
            continue
        values = pd.to_numeric(rows.get(f"p_{width}", pd.Series(np.nan, rows.index)),
                               errors="coerce")
        maps = {str(m) for m in rows.get("p_feature_map", pd.Series(dtype=object)).dropna()}
        line = f"{solver} ({path}): {loss}, exp(-{width} ||x - x'||^2) by {how}"
        if meta is not None and meta.wrapper_of:
            line += f", k - 1 models of {meta.wrapper_of}"
        if not (values.notna().all() and (values > 0).all()):
            bad.append(f"{solver}: no positive p_{width} in {int((~(values > 0)).sum())} of "
                       f"{len(values)} ok runs")
        elif maps - GAUSSIAN_MAPS:
            bad.append(f"{solver}: feature map {sorted(maps - GAUSSIAN_MAPS)}, not a Gaussian "
                       "kernel's")
        else:
            (ok if loss == SQUARED else bad).append(line)
    if any(s in solvers for s in ("pnu_auc", "m_pnu_auc")):
        ok.append(PNU_NOTE)
    return ok, bad, unknown


@claim("QS3ORAO", "QS3-P5", studies=("qs3orao",),
       text="For all algorithms, the squared pairwise loss and the Gaussian kernel "
            "exp(-sigma ||x - x'||^2)",
       rule="what each model used: the class the solver registry ran for qs3orao, m_samult, "
            "m_pnu_auc (k - 1 binary models averaged by Eq. (2)) and svorex, its loss and "
            "kernel convention, and each ok run's recorded Gaussian width (p_sigma; p_kappa for "
            "svorex, the same kernel form) and feature map; svorex's hinge loss cannot follow "
            "the statement literally. FOLLOWED if every method conforms; DEVIATED if any does "
            "not (svorex's loss, a missing width, another class or feature map); NOT RECORDED "
            "if a method did not run or its class's convention is not known")
def qs3_p5(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup": "For all algorithms, we use the squared
    pairwise loss ... and Gaussian kernel", which SVOREX (Chu & Keerthi 2007), a hinge-loss
    threshold SVM, cannot satisfy; the kernel convention of each solver is recorded."""
    ok, bad, unknown = kernel_findings(study, ("qs3orao", "m_samult", "m_pnu_auc", "svorex"))
    stated = sum(line.startswith(("qs3orao ", "m_samult ", "m_pnu_auc ")) for line in ok)
    verdict = NOT_CONFIRMED if bad else UNDECIDABLE if unknown else CONFIRMED
    return Outcome(verdict, f"{stated} of 3 AUC methods as stated; svorex: "
                   + ("hinge loss" if any(HINGE in b for b in bad) else "not judged"),
                   findings(ok, bad, unknown), "strict",
                   values={"as_stated": stated, "deviations": len(bad), "open": len(unknown)})


MACHINE_COLUMN = "machine_memory_gb"  # the machine's physical memory, recorded per row
HARDWARE = ("the papers' 56 cores at 2.2 GHz and MATLAB are not mirrored (a fact of the paper; "
            "no check compares absolute times)")


def guard_limit(study: Study) -> int | None:
    """The memory limit the run's memory guard applied, in bytes, from its skip messages
    (``limit 9.42 GB (18.8 GB shared by 2 parallel cells)``); None without a skip."""
    found = []
    skipped = ev.rows_of(study.results, status="skipped") if len(study.results) else []
    for message in (skipped["message"].astype(str) if len(skipped) else []):
        match = re.search(r"limit ([\d.]+) GB(?: \(([\d.]+) GB shared)?", message)
        if match:
            found.append(float(match.group(2) or match.group(1)) * GIB)
    return int(max(found)) if found else None


def machine_findings(study: Study, config: str) -> tuple[list[str], list[str], list[str]]:
    """(as the paper, deviations, open points) about the machine's 80 GB: what the run
    recorded, never a config's ``memory_limit``. The memory guard applying a limit below 80 GB
    (it skipped cells the papers' machine would run) deviates; a recorded machine memory
    (``machine_memory_gb``) decides; otherwise not recorded."""
    ok, bad, unknown = [], [], []
    limit = guard_limit(study)
    if limit is not None and limit < 79e9:
        bad.append(f"the memory guard ran at {limit / GIB:.3g} GiB, below the papers' 80 GB: "
                   "it skipped cells their machine would have run")
    machine = pd.to_numeric(study.results.get(MACHINE_COLUMN, pd.Series(dtype=float)),
                            errors="coerce").dropna() if len(study.results) else pd.Series()
    if len(machine):
        line = f"machine memory {machine.min():.3g} GB"
        (ok if machine.min() >= 79.0 else bad).append(
            line + ("" if machine.min() >= 79.0 else ", not 80 GB"))
    elif not bad:
        unknown.append("the machine's memory is not recorded (a config's memory_limit is not "
                       f"evidence of the machine): record it per run (`{MACHINE_COLUMN}`) and "
                       f"run {config} with --memory-limit 80GB on an 80 GB machine"
                       + (f"; the memory guard applied {limit / GIB:.3g} GiB" if limit else ""))
    return ok, bad, unknown


_MACHINE = ("the run's machine has 80 GB (the papers' 56-core, 80 GB machine): DEVIATED if the "
            "run's memory guard skipped cells under a limit below 80 GB or the recorded machine "
            "memory is below it, FOLLOWED if the run records a machine of >= 80 GB, NOT "
            "RECORDED otherwise (a config's memory_limit is never evidence of the machine); the "
            "56 cores, 2.2 GHz and MATLAB are noted, not mirrored, and no check compares "
            "absolute times")


@claim("QS3ORAO", "QS3-P6", studies=("qs3orao_time", "qs3orao"),
       text="The experiments ran on a PC with 56 2.2 GHz cores and 80 GB RAM, in MATLAB",
       rule=_MACHINE)
def qs3_p6(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Experimental Setup": the machine bounds what "out of memory" means
    in the Figure 1 claims, so the time study should run with the same 80 GB."""
    ok, bad, unknown = machine_findings(study, "configs/qs3orao_time.yaml")
    return Outcome(verdict_of(bad, unknown), (bad + ok + ["machine memory not recorded"])[0],
                   findings(ok, bad, unknown) + f" | {HARDWARE}", "strict",
                   values={"guard_limit_gb": (guard_limit(study) or 0) / GIB or None})


@claim("QSG-S2AUC", "QSG-P6", studies=("qsg_s2auc_time", "qsg_s2auc"),
       text="Squared pairwise loss and Gaussian kernel exp(-sigma ||x - x'||^2) for all "
            "algorithms, on a PC with 56 cores and 80 GB RAM",
       rule="what each model used (the class the solver registry ran for qsg_s2auc, samult and "
            "pnu_auc, its loss and kernel convention, each ok run's recorded width p_sigma and "
            "feature map; PNU-AUC's width converted), and " + _MACHINE + "; FOLLOWED if both "
            "halves are, DEVIATED if either deviates, else NOT RECORDED")
def qsg_p6(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.1: one loss and kernel for all algorithms, MATLAB, 56
    cores and 80 GB RAM (the bound of its "out of memory" claims)."""
    ok, bad, unknown = kernel_findings(study, ("qsg_s2auc", "samult", "pnu_auc"))
    machine = machine_findings(study, "configs/qsg_s2auc_time.yaml")
    kernel_bad = len(bad)
    ok, bad, unknown = ok + machine[0], bad + machine[1], unknown + machine[2]
    return Outcome(verdict_of(bad, unknown), f"{len(bad)} deviations, {len(unknown)} open "
                   "points (kernels and machine memory)",
                   findings(ok, bad, unknown) + f" | {HARDWARE}", "strict",
                   values={"kernel_deviations": kernel_bad,
                           "machine_deviations": len(machine[1]),
                           "open": len(unknown)})
