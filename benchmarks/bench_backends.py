"""The backends through the real CLI: 1 and 2 loky workers and a two-worker dask LocalCluster.

    python benchmarks/bench_backends.py [--quick] [--reps 1] [--config benchmarks/backends.yaml]
                                        [--out benchmarks/results/backends.json]

Runs one CPU-bound study (``benchmarks/backends.yaml``: 32 cells of one QSG-S2AUC fit each,
about 2.3 s a cell, 75 s on one core) three ways, each into a fresh temporary folder with
``ORDAUC_ESTIMATE=0``:

1. ``ordauc run CFG --out TMP --n-jobs 1``
2. ``ordauc run CFG --out TMP --n-jobs 2``
3. ``ordauc run CFG --out TMP --backend dask --scheduler ADDR`` against a
   ``distributed.LocalCluster`` of 2 worker processes of one thread each on 127.0.0.1, started
   here before the timed run (its start-up is recorded apart) and closed after it; the
   cluster's workers set how many cells run at once, as they do for a user of a cluster.

Each time is the wall time of the ``ordauc`` process from start to exit; the sum of the cells'
``wall_time_s`` from its results table is recorded beside it, so the time spent outside the
cells (start-up, dispatch, workers idle at the tail) shows. Ratios, with their goals: 2 loky
workers against 1 (>= 1.8x faster), the LocalCluster against 2 loky workers (within 10%). The
three results tables must hold the same metric values (the cells' seeds do not depend on the
backend or the workers); the bench checks and records it. An untimed warm-up run first fills
the compiled-code caches, so that the first timed run does not pay for them alone.

``--quick`` shrinks the study (4 repetitions, 200 iterations: seconds) to check the machinery;
its times mean nothing and the report marks it. ``--reps N`` runs the three N times,
interleaved, and keeps the least wall time of each. Run the benchmark itself on a quiet
machine: other work on the 2 cores shows up directly in the ratios.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import yaml
from provenance import ROOT, provenance
from report import section_text
from sections.backends import GOAL_DASK, GOAL_SPEEDUP_2

CONFIG = ROOT / "benchmarks" / "backends.yaml"
QUICK = {"repeats": 4, "n_iter": 200}
WARM_UP = {"repeats": 2, "n_iter": 50}
WORKERS = 2
# The options of each run, and the cells it runs at once.
RUNS = {"loky_1": (["--n-jobs", "1"], 1), "loky_2": (["--n-jobs", str(WORKERS)], WORKERS),
        "dask": (["--backend", "dask"], WORKERS)}


def shrunk(config: Path, repeats: int, n_iter: int, into: Path) -> Path:
    """``config`` with ``repeats`` repetitions and every iterative solver at ``n_iter``, written
    to ``into``: the quick study and the warm-up are the real one, smaller."""
    study = yaml.safe_load(config.read_text(encoding="utf-8"))
    study["resampling"]["repeats"] = repeats
    for entry in study["solvers"].values():
        params = (entry or {}).get("params") or {}
        if "n_iter" in params:
            params["n_iter"] = n_iter
    into.write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    return into


def ordauc() -> list[str]:
    """The ``ordauc`` command of this environment (the console script beside this Python)."""
    script = Path(sys.executable).with_name("ordauc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ordauc"]


def run(config: Path, out: Path, extra: list[str]) -> float:
    """Wall seconds of ``ordauc run config --out out *extra``, start to exit; stops the bench
    with the run's own words when a cell or the run failed (its figures would mean nothing)."""
    argv = [*ordauc(), "run", str(config), "--out", str(out), *extra]
    env = {**os.environ, "ORDAUC_ESTIMATE": "0"}
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if proc.returncode:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
        sys.exit(f"`{' '.join(argv)}` exited {proc.returncode}:\n{tail}")
    return wall


def read_table(out: Path) -> dict[str, dict[str, str]]:
    """The run's results table, one row per cell key, as the text the CSV holds."""
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        return {row["key"]: row for row in csv.DictReader(f)}


def metric_columns(tables: list[dict[str, dict[str, str]]]) -> list[str]:
    """The registry's metric columns that some cell filled."""
    from ordauc.metrics import METRICS

    return [m for m in METRICS if any(row.get(m) for t in tables for row in t.values())]


def compare(tables: dict[str, dict[str, dict[str, str]]]) -> dict[str, Any]:
    """Whether every table holds the same cells and, cell by cell, the same metric values.

    The CSV writes each float as its shortest round-trip text, so equal text is equal value."""
    names = list(tables)
    columns = metric_columns(list(tables.values()))
    base = tables[names[0]]
    differing, worst, examples = 0, 0.0, []
    for name in names[1:]:
        other = tables[name]
        for key in sorted(set(base) | set(other)):
            a, b = base.get(key), other.get(key)
            if a is None or b is None:
                differing += 1
                examples.append(f"{key} missing in {names[0] if a is None else name}")
                continue
            for col in columns:
                if a.get(col, "") != b.get(col, ""):
                    differing += 1
                    examples.append(f"{name} {key} {col}")
                    try:
                        worst = max(worst, abs(float(a[col]) - float(b[col])))
                    except (ValueError, KeyError):
                        worst = math.inf
    return {"cells": len(base), "columns": columns, "tables": names,
            "identical": differing == 0, "differing_values": differing,
            "max_abs_diff": worst, "examples": examples[:3]}


def start_cluster() -> tuple[Any, float]:
    """A LocalCluster of 2 single-thread worker processes on 127.0.0.1; seconds to start it."""
    from distributed import LocalCluster

    start = time.perf_counter()
    with warnings.catch_warnings():
        # The scheduler's HTTP server (on 127.0.0.1, dashboard off) moves to a free port when
        # another cluster on this shared machine holds 8787, and says so: nothing to act on.
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
    cluster.wait_for_workers(WORKERS)
    return cluster, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="a tiny study (4 repetitions, 200 iterations): checks the machinery")
    ap.add_argument("--reps", type=int, default=1,
                    help="times to run the three, interleaved; the least wall time counts")
    ap.add_argument("--config", type=Path, default=CONFIG)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/backends.json")
    args = ap.parse_args()
    import distributed
    import joblib

    result: dict[str, Any] = {
        **provenance(), "distributed": distributed.__version__, "joblib": joblib.__version__,
        "quick": args.quick, "reps": args.reps,
        "config": str(args.config.resolve().relative_to(ROOT)
                      if args.config.resolve().is_relative_to(ROOT) else args.config),
        "config_overrides": (f"repeats {QUICK['repeats']}, n_iter {QUICK['n_iter']}"
                             if args.quick else None)}
    bench_start = time.perf_counter()
    walls: dict[str, list[float]] = {key: [] for key in RUNS}
    tables: dict[str, dict[str, dict[str, str]]] = {}
    sums: dict[str, float] = {}
    starts: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ordauc-bench-backends-") as tmp:
        base = Path(tmp)
        config = (shrunk(args.config, **QUICK, into=base / "quick.yaml") if args.quick
                  else args.config.resolve())
        warm = shrunk(args.config, **WARM_UP, into=base / "warm-up.yaml")
        run(warm, base / "warm-up", RUNS["loky_2"][0])
        for rep in range(args.reps):
            for key, (extra, _) in RUNS.items():
                out = base / f"{key}-{rep}"
                if key == "dask":
                    cluster, started = start_cluster()
                    starts.append(started)
                    try:
                        wall = run(config, out, [*extra, "--scheduler",
                                                 cluster.scheduler_address])
                    finally:
                        cluster.close()
                else:
                    wall = run(config, out, extra)
                table = read_table(out)
                bad = [k for k, row in table.items() if row["status"] != "ok"]
                if bad:
                    sys.exit(f"{key}: {len(bad)} cells not ok, e.g. {bad[0]}")
                walls[key].append(wall)
                if wall <= min(walls[key]):  # the table of the run whose time counts
                    tables[key] = table
                    sums[key] = sum(float(row["wall_time_s"]) for row in table.values())
                print(f"{key:7} rep {rep}: {wall:6.1f} s wall, {len(table)} cells", flush=True)
    runs = {}
    for key, (extra, workers) in RUNS.items():
        wall = min(walls[key])
        command = " ".join(["ordauc run CFG --out TMP", *extra]
                           + (["--scheduler tcp://127.0.0.1:PORT"] if key == "dask" else []))
        runs[key] = {"command": command, "workers": workers, "wall_s": wall,
                     "wall_s_all": walls[key], "cells": len(tables[key]),
                     "cell_wall_sum_s": sums[key], "overhead_s": wall - sums[key] / workers}
    result.update({
        "cells": runs["loky_1"]["cells"], "runs": runs,
        "ratios": {"loky_2_vs_1": runs["loky_1"]["wall_s"] / runs["loky_2"]["wall_s"],
                   "dask_vs_loky_2": runs["dask"]["wall_s"] / runs["loky_2"]["wall_s"]},
        "goals": {"loky_2_vs_1": f">= {GOAL_SPEEDUP_2}x", "dask_vs_loky_2": f"<= {GOAL_DASK}x"},
        "same_metrics": compare(tables),
        "cluster": {"n_workers": WORKERS, "threads_per_worker": 1, "start_s": min(starts)},
        "load_average_end": list(os.getloadavg()),
        "bench_s": time.perf_counter() - bench_start})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(section_text("backends", result))


if __name__ == "__main__":
    main()
