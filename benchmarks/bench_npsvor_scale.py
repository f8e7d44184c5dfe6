"""Training time of NPSVOR, SVOREX and SVORIM against the training size, as ratios to SVORIM.

    python benchmarks/bench_npsvor_scale.py [--max-size 6000] [--reps 3] [--data-dir DIR]
                                            [--out benchmarks/results/npsvor_scale.json]

The NPSVOR paper's scalability study (Fig. 7c; configs/npsvor_scale.yaml): training sets of
100, 200, ..., 1,000 and 2,000, ..., 10,000 rows, C = 100 and kappa = 1 for every method
(C1 = C2 = C and eps = 0.2 for NPSVOR), features standardised with the training rows'
statistics. Data: California housing (5 equal-frequency bins) when ``ordauc fetch california``
has prepared it in the data folder, else a seeded synthetic ordinal set of its shape
(``synthetic_ordinal``: 20,640 x 8, 5 equal-frequency classes); the output says which. Each size
draws its training rows at random (seeded) from one half of the rows; 2,000 rows of the other
half score the fits (test MZE beside each time, so a fast fit is also a sound one).

The default stops at 6,000 rows (``--max-size``), about five minutes on this machine: SVOREX
and SVORIM grow about as n^2.2 here (some 40 s a fit at 5,000 rows), so the four sizes above it
would add about a quarter of an hour. ``--max-size 10000`` runs the paper's whole range.

Times are process CPU seconds of one fit with one BLAS thread (the runner's workers' setting;
the machine is shared, and CPU time is what one core delivers; wall time is recorded too): the
best of ``--reps`` fits for sizes up to 1,000, one fit above. The three methods of a size run
one after the other, in each repetition, so a slow spell of the machine hits all three. Ratios
are to SVORIM at the same size in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from provenance import provenance
from sections.npsvor_scale import npsvor_table
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from ordauc import data, solvers
from ordauc.data.builtin import synthetic_ordinal

SIZES = [*range(100, 1001, 100), *range(2000, 10001, 1000)]
METHODS = {"npsvor": {"C": 100.0, "kappa": 1.0, "eps": 0.2},
           "svorex": {"C": 100.0, "kappa": 1.0}, "svorim": {"C": 100.0, "kappa": 1.0}}
N_SCORE = 2000
REPEATED_UP_TO = 1000


def load_rows(data_dir: str | None) -> tuple[np.ndarray, np.ndarray, str]:
    """California's rows and 5 equal-frequency labels, or the synthetic stand-in of its shape."""
    if data.is_prepared("california", data_dir):
        ds = data.load("california", data_dir)
        return np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y), "california"
    ds = synthetic_ordinal(n=20_640, d=8, seed=0, n_classes=5)
    return (np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y),
            "synthetic_ordinal(n=20640, d=8, n_classes=5, seed=0): California's shape")


def halves(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded split of the rows: the training pool, and the scoring rows."""
    order = np.random.default_rng(2017).permutation(n)
    return order[: n // 2], order[n // 2:][:N_SCORE]


def timed_fit(name: str, X: np.ndarray, y: np.ndarray) -> tuple[float, float, object]:
    """(CPU seconds, wall seconds, fitted model) of one fit."""
    model = solvers.get(name, **METHODS[name])
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X, y)
    return time.process_time() - cpu, time.perf_counter() - wall, model


def bench_size(X: np.ndarray, y: np.ndarray, pool: np.ndarray, scoring: np.ndarray, n: int,
               reps: int) -> dict:
    rows = np.random.default_rng(n).choice(pool, size=n, replace=False)
    scaler = StandardScaler().fit(X[rows])
    X_train, X_score = scaler.transform(X[rows]), scaler.transform(X[scoring])
    best = {name: (np.inf, np.inf) for name in METHODS}
    mze = {}
    for _ in range(reps if n <= REPEATED_UP_TO else 1):
        for name in METHODS:
            cpu, wall, model = timed_fit(name, X_train, y[rows])
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
            mze[name] = float(np.mean(model.predict(X_score) != y[scoring]))
    base = best["svorim"][0]
    return {"n": n, **{f"{name}_cpu_s": best[name][0] for name in METHODS},
            **{f"{name}_wall_s": best[name][1] for name in METHODS},
            **{f"{name}_ratio_to_svorim": best[name][0] / base for name in METHODS},
            **{f"{name}_mze": mze[name] for name in METHODS}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-size", type=int, default=6000,
                    help="largest training size (the paper's range ends at 10000)")
    ap.add_argument("--reps", type=int, default=3, help="fits per method at sizes <= 1000")
    ap.add_argument("--data-dir", default=None, help="ordauc's data folder (for california)")
    ap.add_argument("--out", default="benchmarks/results/npsvor_scale.json")
    args = ap.parse_args()
    X, y, source = load_rows(args.data_dir)
    pool, scoring = halves(len(y))
    sizes = [n for n in SIZES if n <= min(args.max_size, pool.size)]
    results = {**provenance(), "data": source, "params": METHODS, "max_size": args.max_size,
               "reps": args.reps, "sizes": []}
    start = time.perf_counter()
    with threadpool_limits(1):
        for n in sizes:
            results["sizes"].append(bench_size(X, y, pool, scoring, n, args.reps))
            print(npsvor_table(results["sizes"][-1:]).splitlines()[-1], flush=True)
    results["bench_s"] = time.perf_counter() - start
    results["load_average_end"] = os.getloadavg()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"data: {source}; C = 100, kappa = 1; CPU seconds of one fit, one BLAS thread")
    print(npsvor_table(results["sizes"]))


if __name__ == "__main__":
    main()
