"""One split of the NPSVOR tolerance sweep: its 121 per-spec tasks against the one sweep task.

    python benchmarks/bench_npsvor_sweep.py [--dataset california] [--train-size N] [--every K]
                                            [--data-dir DIR]
                                            [--out benchmarks/results/npsvor_sweep.json]

configs/npsvor_tolerance.yaml (the NPSVOR paper's Fig. 4) runs NPSVOR at 11 x 11 ADMM
tolerances (tol_abs, tol_rel in 10^-10..10^0), C = 10, kappa = 0.1, eps = 0.2, max_iter = 1000,
ADMM residuals recorded every 10 iterations, on California housing (5,000 training rows,
15,640 test rows, Chu's sizes) and census (6,000 / 16,784). The runner used to make one task per
spec (121 per split, each building and factoring the kernel and running its ADMM); it now makes
one task per split, whose grid call shares the factor and one ADMM trajectory among the 121
points (ordauc.experiment.sweep). This script builds both sets of tasks for the first split of
the study, as ``ordauc run`` does, and runs each task's ``measure`` in this process with one BLAS
thread (the runner's workers' setting): the sweep task, then the 121 per-spec tasks, then the
sweep task again (so a slow spell of the shared machine does not favour one side), and
compares every measured column except the timings between the two (they must be equal).

Data: the dataset when ``ordauc fetch`` has prepared it in the data folder, else a seeded
synthetic ordinal set of its shape (``synthetic_ordinal``: california 20,640 x 8, census
22,784 x 16, 5 equal-frequency classes) at the catalogue's training size; the output says
which. ``--train-size`` and ``--every`` (keep every K-th tolerance of the 11) make a smaller
run; the default is the study's split at its real size, some 20 to 25 CPU minutes on this
machine, nearly all of it the per-spec tasks (121 factorisations of a 5,000 x 5,000 kernel,
some 52,600 ADMM iterations over the points, 121 scorings of 15,640 test rows), against about
a minute for the sweep task (one factorisation, 1,000 iterations, one kernel against the test
rows for all its models, then one product per distinct stop). Times are process CPU seconds
(wall seconds recorded too); ``*_scoring_cpu_s`` is the part spent scoring models
(``evaluate``): per model on the per-spec side (a kernel and a product each), shared on the
sweep side (the first model scored computes every model's rank functions).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

from provenance import provenance
from threadpoolctl import threadpool_limits

from ordauc import data
from ordauc.config import DatasetSpec, load_config
from ordauc.experiment import cell as cell_module
from ordauc.experiment import sweep
from ordauc.experiment.cell import measure
from ordauc.experiment.runner import RunOptions, build_tasks, prepare

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {"california": (20_640, 8), "census": (22_784, 16)}  # rows, features (catalogue)
TIMING = {"fit_time_s", "fit_time_basis", "predict_time_s", "cv_time_s", "peak_rss_mb"}


def study(dataset: str, data_dir: str | None, train_size: int | None, every: int
          ) -> tuple[Any, str]:
    """configs/npsvor_tolerance.yaml on one dataset (or its synthetic stand-in), one split."""
    config = load_config(ROOT / "configs" / "npsvor_tolerance.yaml")
    size = int(data.entry(dataset).options["split"][0])
    if data.is_prepared(dataset, data_dir):
        spec, source = DatasetSpec(dataset), dataset
    else:
        n, d = SHAPES[dataset]
        spec = DatasetSpec("synthetic_ordinal", {"n": n, "d": d})
        source = f"synthetic_ordinal(n={n}, d={d}, 5 classes, seed 0): {dataset}'s shape"
    resampling = replace(config.resampling, repeats=1, train_size=train_size or size)
    tolerances = sorted({s.params["tol_abs"] for s in config.solvers})[::every]
    solvers = tuple(s for s in config.solvers
                    if s.params["tol_abs"] in tolerances and s.params["tol_rel"] in tolerances)
    return replace(config, datasets=(spec,), resampling=resampling, solvers=solvers), source


SCORING = [0.0]  # CPU seconds spent scoring models (evaluate), over the whole run


def _counted(evaluate: Any) -> Any:
    def scored(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return evaluate(*args, **kwargs)
        finally:
            SCORING[0] += time.process_time() - start

    return scored


def timed(task: Any) -> tuple[float, float, float, list[dict[str, Any]]]:
    """(CPU seconds, wall seconds, CPU seconds of scoring, measured rows) of one task's
    measure, in this process."""
    cpu, wall, scoring = time.process_time(), time.perf_counter(), SCORING[0]
    with mock.patch.object(cell_module, "evaluate", _counted(cell_module.evaluate)), \
            mock.patch.object(sweep, "evaluate", _counted(sweep.evaluate)):
        outcomes = measure(task)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    # a cell's columns with its curve rows and tuning scores beside them, compared whole
    rows = [{**o.row, "curves": o.curves, "tuning": o.tuning} for o in outcomes]
    return (cpu, wall, SCORING[0] - scoring, rows)


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in TIMING}


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal measured columns (NaN equals NaN: a metric the outputs do not allow)."""
    if a.keys() != b.keys():
        return False
    for key, value in a.items():
        other = b[key]
        if isinstance(value, float) and isinstance(other, float):
            if not (value == other or (math.isnan(value) and math.isnan(other))):
                return False
        elif value != other:
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", choices=sorted(SHAPES), default="california")
    ap.add_argument("--train-size", type=int, default=None,
                    help="training rows (default: the catalogue's, Chu's)")
    ap.add_argument("--every", type=int, default=1, help="keep every K-th tolerance of the 11")
    ap.add_argument("--data-dir", default=None, help="ordauc's data folder")
    ap.add_argument("--out", default="benchmarks/results/npsvor_sweep.json")
    args = ap.parse_args()
    config, source = study(args.dataset, args.data_dir, args.train_size, args.every)
    with tempfile.TemporaryDirectory() as out:
        options = RunOptions(out=Path(out), data_dir=args.data_dir, progress=False)
        ready = prepare(config, options)
        first = ready.plan.cells[0].split_key

        def first_split(tasks: list[Any]) -> list[Any]:
            return [t for t in tasks if t.cell.split_key == first]

        (one,) = first_split(build_tasks(ready, config, options))
        with mock.patch.object(sweep, "shares_pass", lambda *a: False):
            alone = first_split(build_tasks(ready, config, options))
    sizes = ready.checked.sizes[first]
    print(f"data: {source}; {sizes.n_labeled} training rows, {sizes.n_test} test rows; "
          f"{len(alone)} per-spec tasks against 1 sweep task", flush=True)
    start = time.perf_counter()
    with threadpool_limits(1):
        cpu_a1, wall_a1, score_a1, rows = timed(one)
        print(f"sweep task: {cpu_a1:.1f} s CPU ({score_a1:.1f} s scoring)", flush=True)
        cpu_b, wall_b, score_b, rows_b = 0.0, 0.0, 0.0, []
        for task in alone:
            cpu, wall, scoring, got = timed(task)
            cpu_b, wall_b, score_b = cpu_b + cpu, wall_b + wall, score_b + scoring
            rows_b += got
        print(f"{len(alone)} per-spec tasks: {cpu_b:.1f} s CPU ({score_b:.1f} s scoring)",
              flush=True)
        cpu_a2, wall_a2, score_a2, _ = timed(one)
        print(f"sweep task again: {cpu_a2:.1f} s CPU ({score_a2:.1f} s scoring)", flush=True)
    keys = [c.key for c in one.cells]
    by_key = dict(zip([c.key for t in alone for c in t.cells], rows_b, strict=True))
    equal = all(same(comparable(r), comparable(by_key[k]))
                for k, r in zip(keys, rows, strict=True))
    n_iter = [r["n_iter"] for r in rows]
    sweep_cpu = (cpu_a1 + cpu_a2) / 2
    results = {**provenance(), "data": source, "dataset": args.dataset,
               "n_train": sizes.n_labeled, "n_test": sizes.n_test, "points": len(alone),
               "params": {k: v for k, v in config.solvers[0].params.items()
                          if k not in ("tol_abs", "tol_rel")},
               "sweep_cpu_s": [cpu_a1, cpu_a2], "sweep_wall_s": [wall_a1, wall_a2],
               "per_spec_cpu_s": cpu_b, "per_spec_wall_s": wall_b,
               "sweep_scoring_cpu_s": [score_a1, score_a2], "per_spec_scoring_cpu_s": score_b,
               "speedup_cpu": cpu_b / sweep_cpu,
               "speedup_cpu_without_scoring": (cpu_b - score_b) / (
                   sweep_cpu - (score_a1 + score_a2) / 2),
               "speedup_wall": wall_b / ((wall_a1 + wall_a2) / 2),
               "rows_equal": equal, "n_iter_sum": int(sum(n_iter)),
               "n_iter_max": int(max(n_iter)),
               "every": args.every, "quick": bool(args.train_size),
               "bench_s": time.perf_counter() - start, "load_average_end": os.getloadavg()}
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"speedup {results['speedup_cpu']:.1f}x CPU ({cpu_b:.1f} s / {sweep_cpu:.1f} s; "
          f"{results['speedup_cpu_without_scoring']:.1f}x without scoring the models), "
          f"{results['speedup_wall']:.1f}x wall; rows equal: {equal}; ADMM iterations "
          f"{results['n_iter_sum']} over the points, {results['n_iter_max']} on the trajectory")


if __name__ == "__main__":
    main()
