"""The AUC-DCD paper's protocol statements (Jiang, Tao, Gao & Chu, Journal of Software 25(10),
2014, section 3.1-3.2, Tables 1-2) as checks that a study's runs follow them: class ratios,
no preprocessing, 5 folds x 4 fold assignments, lambda in 10^-9..10^1 chosen on the test
folds, T = n+ n- iterations, the implementation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    METHODS,
    MSGD,
    N_DATASETS,
    OAM,
    PERM,
    SDCD,
    SHORT,
    no_paper_runs,
    paper_protocol,
    paper_variant,
)
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    NOTE,
    PARTIAL,
    Outcome,
    claim,
    undecidable,
)
from ordauc.claims.study import Study
from ordauc.results.frame import registry_names

STUDIES = ("auc_dcd",)
PAPER_GRID = tuple(10.0 ** k for k in range(-9, 2))  # 10^-9 .. 10^1
PAPER_FOLDS, PAPER_REPEATS = 5, 4


def _entry(dataset: str) -> object | None:
    """The catalogue entry of a dataset column value (``sonar`` or ``sonar[...]``)."""
    from ordauc.data.catalog import CATALOG

    return CATALOG.get(dataset.split("[", 1)[0])


def table1_ratio(dataset: str) -> float | None:
    """The paper's Table 1 n-/n+ of ``dataset`` as the catalogue records it (None: not one of
    the paper's sets)."""
    entry = _entry(dataset)
    return entry.class_ratio if entry else None


def _pair_updates(rows: pd.DataFrame) -> pd.Series:
    column = "p_n_iter" if "p_n_iter" in rows.columns else "n_iter"
    if column not in rows.columns:
        return pd.Series(np.nan, index=rows.index)
    return pd.to_numeric(rows[column], errors="coerce")


def minority_train(T: float, n: float) -> int | None:
    """The smaller class count m of ``n`` training rows with m (n - m) = T, or None when T is
    no such product (it was not n+ n- pair updates)."""
    disc = n * n - 4 * T
    if not (np.isfinite(disc) and disc >= 0):
        return None
    m = round((n - math.sqrt(disc)) / 2)
    return int(m) if m >= 1 and m * (n - m) == T else None


def positives(study: Study, dataset: str) -> tuple[int, int] | None:
    """(n, n+) of ``dataset`` from the runs: SDCD and MSGD make T = n+ n- pair updates on each
    training fold, and over one fold assignment every row trains k - 1 times, so the training
    folds' n+ sum to (k - 1) n+. None without a complete fold assignment."""
    rows = ev.ok(ev.rows_of(study.results, dataset=dataset))
    rows = rows[registry_names(rows).isin([SDCD, MSGD])]
    if rows.empty or "n_test" not in rows.columns:
        return None
    folds = getattr(getattr(study.config, "resampling", None), "folds", PAPER_FOLDS)
    T, n = _pair_updates(rows), pd.to_numeric(rows["n_labeled"], errors="coerce")
    found = rows.assign(m=[minority_train(t, k) for t, k in zip(T, n, strict=True)],
                        n_all=n + pd.to_numeric(rows["n_test"], errors="coerce"))
    found = found.dropna(subset=["m"]).drop_duplicates(["repetition"])
    for _, group in found.groupby(found["repetition"] // folds):
        if len(group) == folds and group["n_all"].nunique() == 1:
            total = float(group["m"].sum())
            if total % (folds - 1) == 0:
                return int(group["n_all"].iloc[0]), int(total // (folds - 1))
    return None


@claim("AUC-DCD", "DCD-P1", studies=STUDIES,
       text="The ten datasets have Table 1's sizes and class ratios n-/n+, one class positive "
            "and the rest negative",
       rule="Per dataset, n+ from the runs (SDCD and MSGD make n+ n- pair updates per training "
            "fold; over one fold assignment the training folds' n+ sum to 4 n+) and n = "
            "n_labeled + n_test; the ratio (n - n+)/n+ must equal Table 1's to 4 decimals "
            "(our reading: n+ is the minority class, as every Table 1 ratio exceeds 1). "
            "CONFIRMED if it does on all 10 datasets, otherwise NOT CONFIRMED")
def dcd_p1(study: Study) -> Outcome:
    """Jiang et al. 2014, Table 1 (sizes, dimensions, n-/n+) and section 3.1: for the
    multi-class sets one class is positive, the others negative. The ratio identifies the
    positive class. The catalogue holds Table 1's ratios; the class counts come from the runs,
    so the check reads no data."""
    hits, decided, parts, unknown = 0, 0, [], []
    for dataset in (str(d) for d in pd.unique(study.results["dataset"])):
        ratio = table1_ratio(dataset)
        if ratio is None:
            continue
        counts = positives(study, dataset)
        if counts is None:
            unknown.append(dataset)
            continue
        n, pos = counts
        ours = (n - pos) / pos
        decided += 1
        hits += round(ours, 4) == round(ratio, 4)
        parts.append(f"{dataset} n={n} n+={pos} {ours:.4f} vs {ratio:.4f}")
    verdict = ev.count_rule(hits, decided, N_DATASETS, N_DATASETS)
    if not decided and verdict != NOT_CONFIRMED:
        return undecidable("no complete fold assignment of SDCD or MSGD runs with p_n_iter on "
                           "any of the paper's datasets" + (f" ({', '.join(unknown)})"
                                                            if unknown else ""))
    evidence = "; ".join(parts) + (f"; no class counts for {', '.join(unknown)}" if unknown
                                   else "")
    return Outcome(verdict, f"Table 1 ratio reproduced on {hits}/{decided} (of {N_DATASETS})",
                   evidence, "strict", values={"reproduced": hits, "decided": decided})


@claim("AUC-DCD", "DCD-P2", studies=STUDIES,
       text="The data are not preprocessed",
       rule="CONFIRMED if the study's config adds no preprocessing (preprocess: none) and no "
            "dataset's recipe rescales its features; otherwise NOT CONFIRMED. The LIBSVM files "
            "used (some pre-scaled by LIBSVM, e.g. dna.scale) are reported")
def dcd_p2(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.1: "the experiments do not preprocess the data"."""
    why = no_paper_runs(study, ())
    if why:
        return undecidable(why)
    config = study.config
    if config is None:
        return undecidable("the study's config copy (config.yaml in the results folder) is "
                           "missing, so its preprocessing is unknown")
    scaled, files = [], []
    for dataset in (str(d) for d in pd.unique(study.results["dataset"])):
        entry = _entry(dataset)
        if entry is None:
            continue
        if entry.options.get("scale"):
            scaled.append(f"{dataset} ({entry.options['scale']})")
        train = entry.sources.get("train")
        files.append(f"{dataset}: {train.filename}" if train else dataset)
    preprocess = getattr(config, "preprocess", "none")
    verdict = CONFIRMED if preprocess == "none" and not scaled else NOT_CONFIRMED
    statistic = f"preprocess: {preprocess}; recipes that rescale: {', '.join(scaled) or 'none'}"
    return Outcome(verdict, statistic, f"files: {', '.join(files) or 'n/a'}", "strict")


@claim("AUC-DCD", "DCD-P3", studies=STUDIES,
       text="5 random equal folds, 4 for training and 1 for testing, repeated with 4 fold "
            "assignments: 20 AUC values per method, their mean and sd",
       rule="Per dataset and method of the paper's variant: 20 planned runs (5 folds x 4 "
            "assignments) on the same folds for all four methods (the same repetitions with "
            "the same n_labeled and n_test). CONFIRMED if every cell has 20 ok runs, PARTIAL "
            "if 20 are planned on the same folds but some failed, NOT CONFIRMED if the plan or "
            "the folds differ. Our sd always has ddof 1")
def dcd_p3(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: five random equal folds, four train and one test,
    repeated with four random fold assignments; mean and (sample) sd of the 20 AUCs."""
    why = no_paper_runs(study)
    if why:
        return undecidable(why)
    table = paper_protocol(study).table
    want = PAPER_FOLDS * PAPER_REPEATS
    plans, folds_differ, short = [], [], []
    for dataset in (str(d) for d in pd.unique(table["dataset"])):
        rows = table[table["dataset"] == dataset]
        planned = ev.planned(table, dataset)
        plans.append(planned)
        sizes = rows.groupby("repetition")[["n_labeled", "n_test"]
                                           if "n_test" in rows else ["n_labeled"]].nunique()
        reps = rows.groupby("solver")["repetition"].agg(frozenset)
        if (sizes > 1).any().any() or reps.nunique() > 1:
            folds_differ.append(dataset)
        n_ok = ev.ok(rows).groupby("solver")["repetition"].nunique()
        short += [f"{dataset}/{SHORT[m]} {int(n_ok.get(m, 0))}" for m in METHODS
                  if n_ok.get(m, 0) < want]
    if any(p != want for p in plans) or folds_differ:
        verdict = NOT_CONFIRMED
    else:
        verdict = PARTIAL if short else CONFIRMED
    config = getattr(study.config, "resampling", None)
    plan = (f"{config.kind} {config.folds} folds x {config.repeats}" if config else "n/a")
    statistic = (f"{min(plans)}-{max(plans)} runs planned per dataset (paper {want}); "
                 f"folds differ on {len(folds_differ)} datasets")
    evidence = (f"resampling: {plan}; cells short of {want} ok runs: "
                f"{', '.join(short[:8]) or 'none'}" + (" ..." if len(short) > 8 else ""))
    if verdict != CONFIRMED:
        evidence += ". Why: " + (
            "an offline twin (configs/offline/auc_dcd.yaml) runs fewer fold assignments by "
            "design" if study.offline else
            "the study's resampling plans another number of runs" if any(
                p != want for p in plans) else
            "the methods did not run on the same folds" if folds_differ else
            "some runs failed (status other than ok)")
    values = {"planned_min": min(plans), "planned_max": max(plans), "paper": want,
              "folds_differ": len(folds_differ), "short_cells": len(short)}
    return Outcome(verdict, statistic, evidence, "strict", values=values)


def _grid(study: Study, labels: list[str]) -> list[float]:
    """The lambda values the paper's variant searched: from the tuning scores, else from the
    config."""
    scores = study.tuning
    if scores is not None and "p_lam" in scores.columns:
        mine = scores[scores["solver"].isin(labels)]
        values = pd.to_numeric(mine["p_lam"], errors="coerce").dropna()
        if len(values):
            return sorted(set(values.tolist()))
    for spec in getattr(study.config, "solvers", ()):
        if spec.label in labels and "lam" in spec.grid:
            return sorted({float(v) for v in spec.grid["lam"]})
    return []


@claim("AUC-DCD", "DCD-P4", studies=STUDIES,
       text="lambda ranges over 10^-9 .. 10^1 and the best value in the experiment is chosen",
       rule="Our reading: one lambda per (dataset, method) from the 11 powers of ten 10^-9 .. "
            "10^1, the one with the best mean test AUC over the runs (optimistic: no inner "
            "CV). CONFIRMED if the paper's variant searched exactly that grid on the test "
            "folds by AUC and its tuning scores let one lambda per (dataset, method) be "
            "chosen; PARTIAL if tuned on the test folds by AUC with another grid or a choice "
            "per run only; NOT CONFIRMED if not tuned on the test folds. Choices on a grid "
            "edge are flagged")
def dcd_p4(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: "the parameter range is 10^-9 .. 10^1; the best
    parameter is chosen in the experiment" (Figure 1 plots the test AUC against lambda)."""
    variant = paper_variant(study.results)
    if variant is None:
        return undecidable(no_paper_runs(study) or "no runs of the paper's methods")
    labels = list(variant.labels.values())
    grid = _grid(study, labels)
    if not grid:
        return undecidable(f"the lambda grid of {variant.name} is unknown: neither tuning "
                           "scores nor the config copy are in the results folder")
    rows = ev.rows_of(study.results, solver=labels)
    metric = set(rows["cv_metric"].dropna().astype(str)) if "cv_metric" in rows else {"auc"}
    proto = paper_protocol(study)
    exact = len(grid) == len(PAPER_GRID) and np.allclose(grid, PAPER_GRID, rtol=1e-9)
    if variant.tuning != "test" or metric - {"auc", ""}:
        verdict = NOT_CONFIRMED
    else:
        verdict = CONFIRMED if exact and proto.chosen else PARTIAL
    shown = ", ".join(f"{v:g}" for v in grid)
    statistic = (f"{variant.name} tuned '{variant.tuning}' by {'/'.join(sorted(metric))} over "
                 f"{len(grid)} lambdas ({shown}); {proto.how}")
    edge = f"on a grid edge: {', '.join(proto.edge[:6]) or 'none'}"
    return Outcome(verdict, statistic, f"{len(proto.chosen)} (dataset, method) choices; {edge}",
                   values={"grid": grid, "exact_grid": bool(exact), "chosen": len(proto.chosen),
                           "edge": len(proto.edge)})


@claim("AUC-DCD", "DCD-P5", studies=STUDIES,
       text="T = n+ n- iterations for SDCD and MSGD, one epoch for SDCDperm, so all four "
            "methods make the same number of iterations",
       rule="Per ok run: SDCD and MSGD made n+ n- pair updates (p_n_iter = m (n - m) for an "
            "integer m, n = the training rows, m the training positives: within 1.5 of "
            "Table 1's share where the catalogue has it); SDCDperm one epoch and OAMinf one "
            "pass (p_n_iter = 1). CONFIRMED if every run does, otherwise NOT CONFIRMED")
def dcd_p5(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.2: T = n+ x n- for SDCD and MSGD, one outer loop for
    SDCDperm, "so that the four algorithms iterate the same number of times" (OAMinf visits
    every pair once in one pass)."""
    rows = ev.ok(study.results)
    rows = rows.assign(_name=registry_names(rows))
    rows = rows[rows["_name"].isin(METHODS)]
    present = set(rows["_name"])
    if not set(METHODS) <= present or _pair_updates(rows).isna().all():
        missing = [SHORT[m] for m in METHODS if m not in present]
        return undecidable("no ok runs of " + ", ".join(missing) if missing else
                           "the results have no p_n_iter column (the iterations each fit made)")
    T = _pair_updates(rows)
    good, bad = {m: 0 for m in METHODS}, []
    for (_, row), t in zip(rows.iterrows(), T, strict=True):
        name, n = row["_name"], float(row["n_labeled"])
        if name in (PERM, OAM):
            fine = t == 1
        else:
            m = minority_train(t, n)
            ratio = table1_ratio(str(row["dataset"]))
            fine = m is not None and (ratio is None or abs(m - n / (1 + ratio)) <= 1.5)
        good[name] += bool(fine)
        if not fine:
            bad.append(f"{row['dataset']}/{row['solver']} r{row['repetition']}: {t:g}")
    verdict = NOT_CONFIRMED if bad else CONFIRMED
    statistic = ", ".join(f"{SHORT[m]} {good[m]}/{int((rows['_name'] == m).sum())}"
                          for m in METHODS) + " runs as the paper"
    return Outcome(verdict, statistic, "off: " + ("; ".join(bad[:6]) or "none"), "strict",
                   values={"as_paper": good, "off": len(bad)})


@claim("AUC-DCD", "DCD-P6", studies=STUDIES,
       text="The methods are implemented in LIBLINEAR (C)",
       rule="A fact about the paper, no run can reproduce it: NOTE recording our "
            "implementation (ordauc's own, Python with numba-compiled loops; the authors' "
            "LIBLINEAR code is not published), so only time ratios are comparable with the "
            "paper, never absolute times")
def dcd_p6(study: Study) -> Outcome:
    """Jiang et al. 2014, section 3.1: the algorithms are implemented in LIBLINEAR (C). The
    authors' code is not published; ordauc implements them itself (numba-compiled loops)."""
    rows = study.results
    names = registry_names(rows) if len(rows) else pd.Series(dtype=str)
    mine = sorted(set(names[names.isin(METHODS)]))
    first = rows.iloc[0] if len(rows) else None
    stack = "" if first is None else ", ".join(
        f"{c} {first[c]}" for c in ("ordauc_version", "python", "numpy")
        if c in rows.columns and pd.notna(first[c]))
    return Outcome(NOTE, "the paper: LIBLINEAR (C); ours: ordauc (Python, numba)",
                   f"methods run: {', '.join(SHORT[m] for m in mine) or 'none'}"
                   f"{'; ' + stack if stack else ''}; only time ratios are compared",
                   "strict", values={"methods": mine})
