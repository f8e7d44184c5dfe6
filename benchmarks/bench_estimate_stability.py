"""Does the dry run's estimate hold while other work loads the machine? For each config, two
dry-run estimates, each with a fresh calibration cache: one as the machine is, one while a busy
loop spins on every core (one spinning process per core), in alternating order. The estimate
is in core-seconds (CPU time), so the two must agree within :data:`WITHIN`; a wall-time
calibration read several times higher under load.

    python benchmarks/bench_estimate_stability.py [--data-dir DIR] [--out FILE.json] [CONFIG ...]

By default the datasets are taken as not fetched (an empty data folder: the sizes come from the
catalogue, the calibrations time synthetic rows shaped like them); ``--data-dir`` times the
fetched datasets' own rows instead. Each estimate runs in its own process (as ``ordauc run
--dry-run`` would); the figures, the load average and the dry run's own CPU and wall time are
printed and written to ``benchmarks/results/estimate_stability.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import git_commit

REPO = Path(__file__).resolve().parents[1]
CONFIGS = ["configs/npsvor_eps.yaml", "configs/qsg_s2auc_time.yaml"]
WITHIN = 1.5  # the largest ratio of the two totals a stable estimate allows


def one(config: str, data_dir: str, n_jobs: int) -> dict:
    """The estimate of ``config`` in this process: core-hours per solver label and in
    total, and what computing it cost."""
    from ordauc.config import load_config
    from ordauc.experiment import RunOptions
    from ordauc.experiment.costing import dry_run_costs
    from ordauc.experiment.preflight import default_memory_limit
    from ordauc.experiment.runner import dry_run

    cpu, wall = time.process_time(), time.perf_counter()
    study = load_config(Path(config))
    with tempfile.TemporaryDirectory() as out:
        options = RunOptions(out=Path(out) / "out", data_dir=data_dir, n_jobs=n_jobs)
        report = dry_run(study, options)
        limit = study.memory_limit or default_memory_limit()
        costs = dry_run_costs(report, study, data_dir, memory_share=limit // n_jobs)
    return {"solvers": {label: c.seconds / 3600 for label, c in costs.items()},
            "core_hours": sum(c.seconds for c in costs.values()) / 3600,
            "dry_run_cpu_s": time.process_time() - cpu,
            "dry_run_wall_s": time.perf_counter() - wall}


def measured(config: str, data_dir: str, loaded: bool) -> dict:
    """One estimate in a fresh process and a fresh calibration cache; under ``loaded``, one
    process per core spins for as long as it runs."""
    spinners = []
    if loaded:
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(os.cpu_count() or 1)]
    try:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "ORDAUC_CACHE": cache, "PYTHONPATH": str(REPO)}
            argv = [sys.executable, __file__, "--one", config, "--data-dir", data_dir]
            done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True,
                                  check=True)
            load = os.getloadavg()[0]
    finally:
        for spinner in spinners:  # only the processes started here
            spinner.kill()
            spinner.wait()
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "loaded": loaded,
            "load_average": load}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", default=CONFIGS)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / "estimate_stability.json")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child: one estimate, as one JSON line
        print(json.dumps(one(args.one, args.data_dir, 2)))
        return
    with tempfile.TemporaryDirectory() as empty:
        data_dir = args.data_dir or empty  # nothing fetched: the catalogue's sizes
        results = []
        for i, config in enumerate(args.configs):
            order = (False, True) if i % 2 == 0 else (True, False)  # alternate which is first
            runs = {loaded: measured(config, data_dir, loaded) for loaded in order}
            quiet, busy = runs[False], runs[True]
            ratio = busy["core_hours"] / quiet["core_hours"]
            per = {label: busy["solvers"][label] / quiet["solvers"][label]
                   for label in quiet["solvers"] if quiet["solvers"][label] > 0}
            results.append({"config": config, "as_is": quiet, "under_load": busy,
                            "ratio": ratio, "solver_ratio_min": min(per.values()),
                            "solver_ratio_max": max(per.values()),
                            "stable": 1 / WITHIN <= ratio <= WITHIN,
                            "measured_at": dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
                            "git_sha": git_commit()})
            print(f"{config}: {quiet['core_hours']:,.4g} core-hours as is (load "
                  f"{quiet['load_average']:.1f}), {busy['core_hours']:,.4g} under load (load "
                  f"{busy['load_average']:.1f}): {ratio:.2f}x; per solver "
                  f"{min(per.values()):.2f}x to {max(per.values()):.2f}x; dry runs "
                  f"{quiet['dry_run_cpu_s']:.0f} / {busy['dry_run_cpu_s']:.0f} CPU s, "
                  f"{quiet['dry_run_wall_s']:.0f} / {busy['dry_run_wall_s']:.0f} s wall")
    record = {"date": dt.date.today().isoformat(), "machine": platform.node(),
              "cores": os.cpu_count(), "data": "fetched" if args.data_dir else "catalogue",
              "within": WITHIN, "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    if not all(r["stable"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
