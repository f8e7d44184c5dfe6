"""The protocol statements of the two QSG papers, QS3ORAO (Shi et al., AAAI 2020, "Experimental
Setup" and "Datasets", Table 2) and QSG-S2AUC (Shi et al., IJCAI 2019, Sections 6.1-6.2, Table 2):
checks that the catalogue and the runs follow what the papers did.

Checks that need the prepared data (class shares, feature ranges, the class prior) read it only
where the data cache holds it (:func:`ordauc.data.is_prepared`; built-in sets always), and are
otherwise undecidable, naming the ``ordauc fetch`` that would decide them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.qsg_accuracy_common import dataset_labels
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
from ordauc.results.schema import parse_dataset_label

QS3_TABLE2 = {"road3d": (434_874, 3), "sgemm": (241_600, 14), "year": (463_715, 90),
              "yolanda": (400_000, 100), "baby": (160_792, 1000), "beauty": (198_502, 1000),
              "clothes": (278_677, 1000), "pet": (157_836, 1000)}  # (N, d), 5 classes each
QSG_TABLE2 = {"codrna": (59_535, 8), "ijcnn1": (49_990, 22), "susy": (5_000_000, 18),
              "covtype": (581_012, 54), "higgs": (1_100_000, 28), "skin": (245_057, 3),
              "dota2": (92_650, 116), "unclonable": (6_000_000, 129)}
SCAN_LIMIT = 50_000_000  # feature values scanned in full; larger sets are sampled
TOL = 1e-5  # float32 rounding of a [0, 1] scaling


# --- data access (tests replace these two) -----------------------------------------------------

def prepared(name: str) -> bool:
    """Whether the data cache (or the built-in sets) holds ``name``."""
    from ordauc import data
    from ordauc.errors import UserError

    try:
        return data.is_prepared(name)
    except UserError:
        return False


def load_dataset(name: str, params: dict[str, Any]) -> Any:
    """The prepared dataset, memory-mapped (nothing is fetched)."""
    from ordauc import data

    return data.load(name, **params)


def dataset_spec(study: Study, label: str) -> tuple[str, dict[str, Any]]:
    """(name, parameters) of a ``dataset`` label: from the study's config copy, else parsed
    from ``name[k=v,...]`` (:func:`ordauc.results.schema.parse_dataset_label`)."""
    for spec in getattr(study.config, "datasets", ()) or ():
        if spec.label == label:
            return spec.name, dict(spec.params)
    return parse_dataset_label(label)


def training_rows(name: str, params: dict[str, Any]) -> int | None:
    """N of the training source as a study loads it (``n_rows`` or a generator's size)."""
    from ordauc import data
    from ordauc.errors import UserError

    try:
        entry = data.entry(name)
    except UserError:
        return None
    if params.get("n_rows") is not None:
        return int(params["n_rows"])
    key = entry.set_by.get("n")
    return int(params[key]) if key and params.get(key) is not None else int(entry.n)


def feature_range(X: Any, info: dict[str, Any]) -> tuple[bool | None, str]:
    """Whether every feature lies in [0, 1] with min 0 and max 1 (a constant column: 0).
    Sets above :data:`SCAN_LIMIT` values are sampled (10,000 rows inside [0, 1]) and rely on
    the preparation record for the exact range."""
    import scipy.sparse as sp

    if sp.issparse(X):
        lo, hi = (np.asarray(f(axis=0).todense()).ravel() for f in (X.min, X.max))
    elif X.size <= SCAN_LIMIT:
        lo, hi = np.min(X, axis=0), np.max(X, axis=0)
    else:
        rows = np.sort(np.random.default_rng(0).choice(X.shape[0], 10_000, replace=False))
        sample = np.asarray(X[rows])
        record = str(info.get("scaling") or info.get("preparation", {}).get("scaling", ""))
        inside = sample.min() >= -TOL and sample.max() <= 1 + TOL
        if not inside:
            return False, "sampled rows outside [0, 1]"
        return (True, "sampled; prepared by " + record) if "minmax" in record else (
            None, "too large to scan and no min-max record")
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    good = (np.abs(lo) <= TOL) & ((np.abs(hi - 1) <= TOL) | (hi <= TOL))
    if good.all():
        return True, f"min 0 and max 1 (or constant 0) in all {lo.size} columns"
    inside = lo.min() >= -TOL and hi.max() <= 1 + TOL
    gap = float(np.max(np.maximum(np.abs(lo), np.where(hi <= TOL, 0.0, np.abs(1 - hi)))))
    return False, (f"{int((~good).sum())} of {lo.size} columns not min-max scaled ("
                   f"{'inside' if inside else 'outside'} [0, 1], largest gap {gap:.2g})")


def verdict_of(bad: list[str], unknown: list[str]) -> str:
    """NOT CONFIRMED with any deviation, else UNDECIDABLE with any open point, else CONFIRMED."""
    return NOT_CONFIRMED if bad else UNDECIDABLE if unknown else CONFIRMED


def findings(ok: list[str], bad: list[str], unknown: list[str]) -> str:
    """The evidence of a protocol check: its deviations, agreements and open points."""
    parts = [f"deviates: {'; '.join(bad)}"] if bad else []
    parts += [f"as the paper: {'; '.join(ok)}"] if ok else []
    parts += [f"not decided: {'; '.join(unknown)}"] if unknown else []
    return " | ".join(parts)


# --- datasets (Table 2 of each paper) ----------------------------------------------------------

@claim("QS3ORAO", "QS3-P1", studies=("qs3orao", "qs3orao_time"),
       text="Table 2: 3D, Sgemm, Year, Yolanda, Baby, Beauty, Clothes, Pet with their sizes, "
            "dimensions and 5 equal-frequency classes",
       rule="the catalogue's rows N, features d and classes (5) of road3d, sgemm, year, "
            "yolanda, baby, beauty, clothes, pet equal Table 2 exactly, and each class holds "
            "between 19% and 21% of the rows (our reading of 'equal-frequency bins': ties in "
            "the targets allowed), the shares read from the prepared data, and the runs use all "
            "8; CONFIRMED if all hold, NOT CONFIRMED if any fails, else UNDECIDABLE (data not "
            "fetched)")
def qs3_p1(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), Table 2 and "Datasets": the regression targets are cut into
    equal-frequency bins, the Amazon reviews reduced by TF-IDF and SVD to 1000 dimensions."""
    from ordauc.data.catalog import CATALOG

    ok, bad, unknown = [], [], []
    for name, (n, d) in QS3_TABLE2.items():
        entry = CATALOG.get(name)
        if entry is None or (entry.n, entry.d, entry.n_classes) != (n, d, 5):
            found = "absent" if entry is None else f"{entry.n:,} x {entry.d}, {entry.n_classes}"
            bad.append(f"{name} catalogue {found} vs {n:,} x {d}, 5")
            continue
        if not prepared(name):
            unknown.append(f"fetch {name}")
            continue
        _, counts = np.unique(np.asarray(load_dataset(name, {}).y), return_counts=True)
        shares = counts / counts.sum()
        line = f"{name} shares {shares.min():.3f}-{shares.max():.3f}"
        inside = len(shares) == 5 and shares.min() >= 0.19 and shares.max() <= 0.21
        (ok if inside else bad).append(line)
    matched = len(QS3_TABLE2) - sum("catalogue" in b for b in bad)
    read = sum(" shares " in line for line in ok + bad)
    bad += _runs_the_papers(study, QS3_TABLE2)
    return Outcome(verdict_of(bad, unknown), f"catalogue equals Table 2 on {matched} of 8; class "
                   f"shares read on {read} of 8",
                   findings(ok, bad, unknown), "interpretation")


def _runs_the_papers(study: Study, paper: dict[str, object]) -> list[str]:
    """What the study's runs do instead of the paper's datasets (empty when they run all of
    them): the statement is about the data our runs used, not the catalogue alone."""
    ran = {str(label).split("[")[0] for label in dataset_labels(study.results)}
    missing = [name for name in paper if name not in ran]
    extra = sorted(ran - set(paper))
    if not missing:
        return []
    line = f"the runs lack {len(missing)} of the paper's {len(paper)} ({', '.join(missing)})"
    return [line + (f" and use {', '.join(extra)} instead" if extra else "")]



def _qsg_size(name: str, entry: Any, n: int, d: int, study: Study) -> tuple[str, str]:
    """('ok' | 'higgs' | 'bad', why) for one dataset of the IJCAI paper's Table 2."""
    how = []
    if entry.n == n:
        how.append("N exact")
    elif entry.n_test is not None and entry.n + entry.n_test == n:
        how.append("N = train + official test")
    else:
        sizes = {dataset_spec(study, label)[1].get("n_rows")
                 for label in dataset_labels(study.results) if label.split("[")[0] == name}
        if sizes and sizes != {n}:
            return "higgs" if name == "higgs" else "bad", f"{name} runs with n_rows {sizes}"
        how.append(f"N by n_rows subset of {entry.n:,}" if sizes else
                   f"N reachable by n_rows (catalogue {entry.n:,}; not run here)")
    if entry.d == d:
        how.append("d exact")
    elif entry.d + 1 == d and "response" in entry.notes:
        how.append("d + response column")
    else:
        return "bad", f"{name} d {entry.d} vs {d}"
    return "ok", f"{name}: {', '.join(how)}"


@claim("QSG-S2AUC", "QSG-P1", studies=("qsg_s2auc", "qsg_s2auc_time"),
       text="Table 2: Codrna, Ijcnn1, Susy, Covtype, Higgs, Skin, Dota2, Unclonable with their "
            "sizes and dimensions",
       rule="each catalogue entry matches Table 2: N equal to the training rows or to training "
            "plus official test rows (Susy, Unclonable), d equal or the paper counting the "
            "response column (Unclonable 129 = 128 + 1), 2 classes; Higgs's 1,100,000 is not "
            "UCI's 11,000,000 and is matched only by a seeded n_rows subset (flagged); "
            "CONFIRMED if all match and the runs use all 8, PARTIAL if only Higgs runs at "
            "another size, else NOT CONFIRMED (our reading of the reconciliations)")
def qsg_p1(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Table 2 and Section 6.2 (LIBSVM and UCI sets). Higgs is listed
    with 1,100,000 rows, a tenth of the published set: a subset or a typo."""
    from ordauc.data.catalog import CATALOG

    ok, bad, flagged = [], [], []
    for name, (n, d) in QSG_TABLE2.items():
        entry = CATALOG.get(name)
        if entry is None or entry.n_classes != 2:
            bad.append(f"{name} not a binary catalogue entry")
            continue
        state, why = _qsg_size(name, entry, n, d, study)
        {"ok": ok, "bad": bad, "higgs": flagged}[state].append(why)
    bad += _runs_the_papers(study, QSG_TABLE2)
    verdict = NOT_CONFIRMED if bad else PARTIAL if flagged else CONFIRMED
    return Outcome(verdict, f"{len(ok)} of 8 match; Higgs: paper 1,100,000 vs UCI 11,000,000",
                   findings(ok, bad + flagged, []), "interpretation")


# --- labeled rows, full size, features in [0, 1] --------------------------------------------

def labeled_protocol(study: Study, paper_labeled: int) -> Outcome:
    """n_labeled is the paper's in every row; at the largest size the labeled, unlabeled (and
    held-out test) rows make up the dataset; the prepared features lie in [0, 1]."""
    from ordauc import data

    results = study.results
    if not len(results):
        return undecidable("no runs in this folder")
    evaluate = getattr(study.config, "evaluate", None)
    ok, bad, unknown = [], [], []
    for label in dataset_labels(results):
        rows = ev.rows_of(results, dataset=label)
        sizes = sorted({int(v) for v in pd.to_numeric(rows["n_labeled"], errors="coerce")
                        .dropna()})
        if sizes != [paper_labeled]:
            bad.append(f"{label} n_labeled {sizes}")
        name, params = dataset_spec(study, label)
        total = training_rows(name, params)
        if total is None:
            unknown.append(f"{label}: unknown dataset")
            continue
        unlabeled = pd.to_numeric(rows["n_unlabeled"], errors="coerce")
        largest = rows[unlabeled == unlabeled.max()]
        held = (evaluate or str(largest["eval_set"].iloc[0] if "eval_set" in largest else "")
                ) == "test" and data.entry(name).n_test is None
        tests = pd.to_numeric(largest.get("n_test", pd.Series(dtype=float)), errors="coerce")
        if held and tests.dropna().empty:
            unknown.append(f"{label}: no n_test at the largest size")
            continue
        used = int(largest["n_labeled"].iloc[0]) + int(unlabeled.max()) + \
            (int(tests.dropna().iloc[0]) if held else 0)
        line = f"{label} {used:,} of {total:,} rows"
        (ok if used == total else bad if used > total else unknown).append(
            line + ("" if used <= total else " (more than the data)") +
            ("" if used >= total else ": add n_unlabeled: all"))
        if not prepared(name):
            unknown.append(f"fetch {name} (feature range)")
            continue
        loaded = load_dataset(name, {k: v for k, v in params.items() if k != "n_rows"})
        inside, why = feature_range(loaded.X, loaded.info)
        {True: ok, False: bad, None: unknown}[inside].append(f"{label} features {why}")
    return Outcome(verdict_of(bad, unknown), f"{len(bad)} deviations, {len(unknown)} open "
                   f"points over {len(dataset_labels(results))} datasets",
                   findings(ok, bad, unknown), "strict")


@claim("QS3ORAO", "QS3-P2", studies=("qs3orao",),
       text="500 labeled rows drawn at random, the labels of the rest dropped; features "
            "normalised to [0, 1]",
       rule="n_labeled = 500 in every row; at the largest unlabeled size n_labeled + "
            "n_unlabeled = N; every prepared feature has min 0 and max 1 (a constant column 0; "
            "sets over 5e7 values: a 10,000-row sample inside [0, 1] and the min-max "
            "preparation record); CONFIRMED if all hold, NOT CONFIRMED if any fails, else "
            "UNDECIDABLE (data not fetched, or the full size not run)")
def qs3_p2(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), "Datasets": "we randomly sample 500 labeled instances and drop
    labels of the rest instances. All the data features are normalized to [0, 1] in advance."""
    return labeled_protocol(study, 500)


@claim("QSG-S2AUC", "QSG-P2", studies=("qsg_s2auc",),
       text="200 labeled rows drawn at random, the rest unlabeled; features normalised to "
            "[0, 1]",
       rule="n_labeled = 200 in every row; at the largest unlabeled size n_labeled + "
            "n_unlabeled (+ the held-out test rows, where the source has no official test "
            "split) = N; every prepared feature has min 0 and max 1 (as QS3-P2); CONFIRMED if "
            "all hold, NOT CONFIRMED if any fails, else UNDECIDABLE (the paper never says where "
            "its test rows come from)")
def qsg_p2(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.2: "we randomly sample 200 labeled instances and treat
    the rest of the data as unlabeled. All the data features are normalized to [0, 1]"."""
    return labeled_protocol(study, 200)


# --- the class prior of PNU-AUC --------------------------------------------------------------

@claim("QSG-S2AUC", "QSG-P5", studies=("qsg_s2auc",),
       text="PNU-AUC's class prior is set to the class proportion of the whole training set",
       rule="in every ok pnu_auc run at the full size (labeled + unlabeled rows = the training "
            "rows), p_prior equals the positive share of the prepared training rows, within "
            "1e-6 (within 1/(n_labeled + n_unlabeled) where a stratified test part is held "
            "out); smaller sizes are random subsets whose share the table does not hold; "
            "CONFIRMED if every checked run matches, NOT CONFIRMED if one does not, else "
            "UNDECIDABLE (note: the paper's choice hands PNU-AUC the true prior)")
def qsg_p5(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Section 6.1: "the class prior pi in PNU-AUC is set to the class
    proportion in the whole training set", oracle information that its introduction blames
    PNU-AUC for needing. ordauc's default estimates it from the labeled rows instead."""
    from ordauc import data

    results = study.results
    runs = ev.ok(ev.rows_of(results, solver="pnu_auc")) if len(results) else results
    if not len(runs) or "p_prior" not in runs.columns:
        return undecidable("no ok pnu_auc run with a p_prior column: configs/qsg_s2auc.yaml")
    ok, bad, unknown = [], [], []
    multiples = 0
    for label in dataset_labels(runs):
        mine = runs[runs["dataset"] == label]
        name, params = dataset_spec(study, label)
        total = training_rows(name, params)
        if total is None:
            unknown.append(f"{label}: unknown dataset")
            continue
        prior = pd.to_numeric(mine["p_prior"], errors="coerce")
        if prior.isna().any():
            bad.append(f"{label} prior {sorted(set(map(str, mine['p_prior'])))}")
            continue
        multiples += int((np.abs(prior * mine["n_labeled"] - np.round(
            prior * mine["n_labeled"])) < 1e-6).sum())
        held = data.entry(name).n_test is None
        pool = mine["n_labeled"] + mine["n_unlabeled"]
        full = mine[(pool + (mine["n_test"] if held else 0)) == total]
        if not len(full) or not prepared(name):
            unknown.append(f"{label}: " + ("no full-size run" if not len(full) else
                                           f"fetch {name}"))
            continue
        share = float(np.mean(np.asarray(load_dataset(name, params).y) == 1))
        tol = 1.0 / float(pool.loc[full.index].min()) if held else 1e-6
        gap = float(np.max(np.abs(pd.to_numeric(full["p_prior"]) - share)))
        (ok if gap <= tol else bad).append(f"{label} share {share:.4f}, max |p_prior - "
                                           f"share| {gap:.4f} (tolerance {tol:.2g})")
    return Outcome(verdict_of(bad, unknown), f"{len(bad)} of {len(ok) + len(bad)} checked "
                   f"datasets off; p_prior a multiple of 1/n_labeled (the labeled rows' share) "
                   f"in {multiples} of {len(runs)} runs", findings(ok, bad, unknown), "strict")
