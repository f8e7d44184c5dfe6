"""The two profiles on the offline twins: what ``--profile quick`` saves and what it changes.

    python benchmarks/bench_profiles.py [TWIN ...] [--out DIR] [--paper-grid]

Runs each offline twin (default: ``qsg_s2auc``, ``qs3orao``, ``npsvor_toy``, ``npsvor_eps`` of
``configs/offline/``, which need no download) under ``--profile paper`` and ``--profile quick``,
one cell at a time (``--n-jobs 1``, so the times compare) under ``--memory-limit 1GB``, into a
temporary folder (``--out`` keeps them), and prints one Markdown table per twin, one line per
solver:

- fits: the candidate fits the searches started (a grid point on an inner fold, in every
  round), then in full fits (each weighted by the share of the rows or iterations it used),
  counted by wrapping the tuners' ``tune`` in the cells' processes, plus one refit per chosen
  point; over the repetitions both profiles ran;
- time: the searches' ``cv_time_s`` plus the final fits' ``fit_time_s``, summed over the same
  repetitions (each shared search or fit once);
- the mean test metric over those repetitions: AUC (the ordinal AUC on ordinal data) for the
  QSG twins, MAE of the MAE-selected rows for the NPSVOR twins;
- same point: the rows of those repetitions where quick chose paper's point (every ``p_*``);

and, above each table, each whole run: its cells and wall time (one process per cell, loading
and scoring included; quick also drops the repetitions after the third).

The twins' grids are small (4 to 9 points a pass), so halving has little to drop there.
``--paper-grid`` also times one search at the size of the QSG papers' passes: the 7 lam x 11
gamma points of one sigma, 3 inner folds of 200 labeled and 1,000 unlabeled rows of
synthetic_binary (d = 8), QSG-S2AUC at 600 iterations and SAMULT, each tuner once.

The load average at the start and the end is printed: on a busy machine the times are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TWINS = ("qsg_s2auc", "qs3orao", "npsvor_toy", "npsvor_eps")
PROFILES = ("paper", "quick")
SEARCHES = "ORDAUC_BENCH_SEARCHES"  # the file each cell appends its searches' counts to


def count_searches() -> None:
    """Wrap every tuner's ``tune`` so that each search appends ``fit_key fits work`` to the
    file named by $ORDAUC_BENCH_SEARCHES; cells fork from this process, so they inherit it."""
    from ordauc.experiment import cell, halving, tuning

    measure = cell.measure
    current: dict[str, str] = {}

    def measured(task: Any) -> Any:
        current["key"] = task.cell.fit_key
        return measure(task)

    def wrap(cls: type) -> None:
        tune = cls.tune

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            out = tune(self, *args, **kwargs)
            first = next(iter(out.values()))
            line = f"{current.get('key', '?')}\t{first.fits}\t{first.work}\n"
            fd = os.open(os.environ[SEARCHES], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
            return out

        cls.tune = counted

    cell.measure = measured
    for cls in (tuning.InnerCV, tuning.TestSelection, halving.HalvingCV):
        wrap(cls)


def run(twin: str, profile: str, out: Path) -> tuple[pd.DataFrame, float]:
    """Run one twin under one profile: its rows with the searches' counts, and the wall time."""
    from ordauc.cli import main

    log = out.parent / f"{out.name}.searches"
    os.environ[SEARCHES] = str(log)
    start = time.perf_counter()
    try:
        main(["run", str(ROOT / "configs" / "offline" / f"{twin}.yaml"), "--out", str(out),
              "--profile", profile, "--n-jobs", "1", "--memory-limit", "1GB"])
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise SystemExit(f"{twin} ({profile}) failed: exit {stop.code}") from None
    wall = time.perf_counter() - start
    rows = pd.read_csv(out / "results.csv")
    counts = pd.read_csv(log, sep="\t", names=["fit_key", "fits", "work"])
    # a search that runs again (a resumed folder) counts once: the last one made the rows
    counts = counts.drop_duplicates("fit_key", keep="last")
    return rows.merge(counts, on="fit_key", how="left"), wall


def _cost(rows: pd.DataFrame) -> tuple[float, float, float]:
    """(fits, work, seconds): each search and each distinct final fit once."""
    params = sorted(c for c in rows.columns if c.startswith("p_"))
    searches = rows.drop_duplicates("fit_key")
    finals = rows.drop_duplicates(["fit_key", *params])
    fits = searches["fits"].fillna(0).sum() + len(finals)
    work = searches["work"].fillna(0).sum() + len(finals)
    seconds = searches["cv_time_s"].fillna(0).sum() + finals["fit_time_s"].fillna(0).sum()
    return float(fits), float(work), float(seconds)


def table(twin: str, paper: pd.DataFrame, quick: pd.DataFrame, walls: dict[str, float]) -> str:
    """The Markdown table of one twin."""
    metric = "mae" if twin.startswith("npsvor") else "auc"
    whole = (f"whole runs: paper {len(paper)} cells in {walls['paper']:.0f} s, quick "
             f"{len(quick)} cells in {walls['quick']:.0f} s (wall)")
    shared = sorted(set(quick["repetition"]) & set(paper["repetition"]))
    paper = paper[paper["repetition"].isin(shared)]
    quick = quick[quick["repetition"].isin(shared)]
    params = sorted(c for c in paper.columns if c.startswith("p_"))
    lines = [f"**{twin}** ({len(shared)} repetitions; {metric.upper()} "
             f"{'of the MAE-selected rows' if metric == 'mae' else 'on the evaluation rows'}; "
             f"{whole})",
             "",
             "| solver | fits paper | fits quick (full-fit equiv.) | time paper (s) | "
             f"time quick (s) | {metric.upper()} paper | {metric.upper()} quick | same point |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    totals = [0.0] * 5
    for solver in paper["solver"].drop_duplicates():
        p, q = paper[paper["solver"] == solver], quick[quick["solver"] == solver]
        pf, _, pt = _cost(p)
        qf, qw, qt = _cost(q)
        scored = (p, q) if metric == "auc" else (p[p["cv_metric"] == "mae"],
                                                 q[q["cv_metric"] == "mae"])
        both = p[["key", *params]].merge(q[["key", *params]], on="key", suffixes=("", "_q"))
        same = sum(all(_equal(r[c], r[f"{c}_q"]) for c in params)
                   for _, r in both.iterrows())
        lines.append(f"| {solver} | {pf:.0f} | {qf:.0f} ({qw:.1f}) | {pt:.1f} | {qt:.1f} | "
                     f"{scored[0][metric].mean():.4f} | {scored[1][metric].mean():.4f} | "
                     f"{same}/{len(both)} |")
        totals = [a + b for a, b in zip(totals, (pf, qf, qw, pt, qt), strict=True)]
    lines.append(f"| **all** | {totals[0]:.0f} | {totals[1]:.0f} ({totals[2]:.1f}) | "
                 f"{totals[3]:.1f} | {totals[4]:.1f} | | | |")
    return "\n".join(lines)


def paper_grid() -> str:
    """One search per profile at the size of the papers' passes (module docstring)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    from ordauc import data, solvers
    from ordauc.experiment.halving import HalvingCV
    from ordauc.experiment.tuning import InnerCV
    from ordauc.splits import cv_folds

    ds = data.load("synthetic_binary", None, n=2000, d=8)
    order = np.random.default_rng(0).permutation(len(ds.y))
    X = np.r_[ds.X[order[:200]], ds.X[order[200:1200]]]
    y = np.r_[ds.y[order[:200]], np.full(1000, -1)]
    folds = cv_folds(y[:200], 1000, 3, 5)
    grid = {"lam": [2.0 ** k for k in range(-3, 4)], "gamma": [k / 10 for k in range(11)],
            "sigma": [1.0]}
    lines = ["**paper-sized pass** (77 points, 3 folds, 200 labeled + 1,000 unlabeled rows)", "",
             "| solver | profile | fits (full-fit equiv.) | search (s) | chosen "
             "| CV AUC (its last round) |",
             "|---|---|---:|---:|---|---:|"]
    for name, params in (("qsg_s2auc", {"n_iter": 600, "batch_size": 64, "block_size": 64,
                                        "random_state": 1}), ("samult", {})):
        est = solvers.get(name, **params)
        for profile, tuner in (("paper", InnerCV(folds, ["auc"], "binary", 2)),
                               ("quick", HalvingCV(folds, ["auc"], "binary", 2, seed=5))):
            with threadpool_limits(limits=1):
                start = time.perf_counter()
                got = tuner.tune(est, X, y, grid)["auc"]
                seconds = time.perf_counter() - start
            chosen = ", ".join(f"{k}={v:g}" for k, v in got.params.items() if k != "sigma")
            lines.append(f"| {name} | {profile} | {got.fits} ({got.work:.1f}) | {seconds:.1f} "
                         f"| {chosen} | {got.score:.4f} |")
    return "\n".join(lines)


def _equal(a: Any, b: Any) -> bool:
    if pd.isna(a) and pd.isna(b):
        return True
    return bool(a == b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("twins", nargs="*", default=list(TWINS))
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the results (default: a temporary one, removed)")
    parser.add_argument("--paper-grid", action="store_true",
                        help="also time one search at the size of the papers' passes")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)  # the data cache ./datasets, as `ordauc run` from the repository
    count_searches()
    print(f"load average at the start: {os.getloadavg()}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-profiles-") as tmp:
        base = args.out or Path(tmp)
        tables, summary = [], {}
        for twin in args.twins:
            got = {profile: run(twin, profile, base / f"{twin}-{profile}")
                   for profile in PROFILES}
            tables.append(table(twin, got["paper"][0], got["quick"][0],
                                {p: wall for p, (_, wall) in got.items()}))
            summary[twin] = {p: len(rows) for p, (rows, _) in got.items()}
        if args.paper_grid:
            tables.append(paper_grid())
    print(f"load average at the end: {os.getloadavg()}", file=sys.stderr)
    print("\n\n".join(tables))
    print(json.dumps({"rows": summary, "cores": os.cpu_count()}), file=sys.stderr)


if __name__ == "__main__":
    main()
