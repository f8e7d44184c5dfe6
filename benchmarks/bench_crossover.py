"""Where QSG-S2AUC overtakes the exact methods: training time against the unlabeled size.

    python benchmarks/bench_crossover.py [--max-n 1000000] [--budget 600]
                                         [--out benchmarks/results/crossover.json]

The QSG papers' headline (IJCAI 2019 Figure 2, AAAI 2020 Figure 1): with 200 labeled rows,
QSG-S2AUC (2,000 iterations, batches and blocks of 64) against SAMULT (one n x n kernel solve)
and PNU-AUC (a ridge solve on 200 Gaussian centres), on seeded synthetic data of codrna's shape
(d = 8), unlabeled sizes 1,000 to 1,000,000 on a log grid, hyper-parameters fixed (lambda =
sigma = 1, gamma = eta = 0.5). One fit per size and solver, one BLAS thread (as the runner's
workers), wall time of ``fit`` only.

An exact method stops at the first size whose stated memory need (``fit_memory_bytes``, the
runner's memory guard) passes the limit (80% of this machine's memory, as ``ordauc run``), or
after a fit longer than ``--budget`` seconds (the next size would take longer still); the
reason is recorded. The crossover is the first measured size where QSG-S2AUC's fit is faster
than the exact method's, with the log-log interpolated point between the two sizes around it.
PNU-AUC's cost grows linearly in n (200 centres), QSG-S2AUC's barely at all (its work is
T^2 x batch x block, independent of n), so whether and where they cross is measured, not assumed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np
from provenance import provenance
from threadpoolctl import threadpool_limits

from ordauc import solvers
from ordauc.data.builtin import synthetic_binary
from ordauc.experiment.preflight import default_memory_limit

N_LABELED, D = 200, 8
SIZES = [1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000]
PARAMS = {"qsg_s2auc": {"n_iter": 2000, "batch_size": 64, "block_size": 64, "lam": 1.0,
                        "sigma": 1.0, "gamma": 0.5, "random_state": 0},
          "samult": {"lam": 1.0, "sigma": 1.0, "gamma": 0.5},
          "pnu_auc": {"lam": 1.0, "sigma": 1.0, "eta": 0.5, "random_state": 0}}


def _data(max_n: int) -> tuple[np.ndarray, np.ndarray]:
    """200 labeled rows (both classes), then ``max_n`` unlabeled rows (-1), in a seeded order."""
    ds = synthetic_binary(n=N_LABELED + max_n, d=D, seed=8)
    y = ds.y.copy()
    y[N_LABELED:] = -1
    return np.ascontiguousarray(ds.X), y


def _fit_seconds(name: str, X: np.ndarray, y: np.ndarray) -> float:
    model = solvers.get(name, **PARAMS[name])
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def measure(sizes: list[int], budget: float, limit: int) -> dict:
    X, y = _data(sizes[-1])
    rows: dict[str, list[dict]] = {name: [] for name in PARAMS}
    stopped: dict[str, str] = {}
    for n_u in sizes:
        n = N_LABELED + n_u
        for name in PARAMS:
            if name in stopped:
                continue
            need = solvers.get(name, **PARAMS[name]).fit_memory_bytes(n, D)
            if need > limit:
                stopped[name] = (f"needs {need / 2**30:.3g} GB at {n_u:,} unlabeled, limit "
                                 f"{limit / 2**30:.3g} GB")
                continue
            seconds = _fit_seconds(name, X[:n], y[:n])
            rows[name].append({"n_unlabeled": n_u, "fit_s": seconds,
                               "memory_gb": need / 2**30})
            print(f"{name:10} {n_u:>9,}  {seconds:9.2f} s", flush=True)
            if seconds > budget:
                stopped[name] = f"a fit took {seconds:.0f} s > {budget:.0f} s at {n_u:,}"
    return {"rows": rows, "stopped": stopped}


def crossover(qsg: list[dict], exact: list[dict]) -> dict:
    """First measured size where QSG is faster, and the log-log interpolated crossing."""
    mine = {r["n_unlabeled"]: r["fit_s"] for r in qsg}
    theirs = {r["n_unlabeled"]: r["fit_s"] for r in exact}
    common = sorted(set(mine) & set(theirs))
    previous = None
    for n in common:
        if mine[n] < theirs[n]:
            if previous is None:
                return {"first_faster": n, "interpolated": None,
                        "note": "QSG-S2AUC is faster from the smallest size measured"}
            gap0 = math.log(theirs[previous] / mine[previous])
            gap1 = math.log(theirs[n] / mine[n])
            t = gap0 / (gap0 - gap1)
            at = math.exp(math.log(previous) + t * (math.log(n) - math.log(previous)))
            return {"first_faster": n, "interpolated": round(at), "note": ""}
        previous = n
    last = common[-1] if common else None
    return {"first_faster": None, "interpolated": None,
            "note": f"QSG-S2AUC is slower at every size both ran (to {last:,})" if last else
            "no common size"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=SIZES[-1])
    ap.add_argument("--budget", type=float, default=600.0)
    ap.add_argument("--out", default="benchmarks/results/crossover.json")
    args = ap.parse_args()
    sizes = [n for n in SIZES if n <= args.max_n]
    limit = default_memory_limit()
    start = time.perf_counter()
    info = {**provenance(), "max_n": args.max_n, "budget_s": args.budget,
            "memory_limit_gb": limit / 2**30, "n_labeled": N_LABELED, "d": D, "params": PARAMS}
    with threadpool_limits(1):
        result = measure(sizes, args.budget, limit)
    rows = result["rows"]
    result["crossover"] = {name: crossover(rows["qsg_s2auc"], rows[name])
                           for name in ("samult", "pnu_auc")}
    result["largest_within_limit"] = {name: (rows[name][-1]["n_unlabeled"] if rows[name] else None)
                                      for name in PARAMS}
    result = {**info, **result, "load_average_end": os.getloadavg(),
              "bench_s": time.perf_counter() - start}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("crossover", "largest_within_limit", "stopped")},
                     indent=1))


if __name__ == "__main__":
    main()
