"""The five folds of one QS3ORAO cross-validation, one sigma: the folds' passes in lockstep,
sharing the unlabeled pool's features, against one fold's pass after the other.

    python benchmarks/bench_qsg_folds.py [--d 18 1000] [--n-unlabeled 5000] [--reps 1]
                                         [--quick] [--out benchmarks/results/qsg_folds.json]

The shape of configs/qs3orao.yaml: 500 labeled rows, 5 folds (each fits 400 labeled rows and
every unlabeled row, and validates on 100), 2,000 iterations, batches and blocks of 64, one
sigma's 77 models (7 lam x 11 gamma), the validation rows tracked; synthetic ordinal rows (5
classes). The pool is kept (2 n_u <= 64 x 1,999, n_u up to 63,968), as in every cell of the
paper's grid below ``all``.

- ``per_fold``: ``iter_fit_grid(X[fit], y[fit], points, track=X[val])`` for each fold, the
  path before the lockstep;
- ``lockstep``: ``iter_fit_grid_folds(X, y, folds, points, track=True)``: the five passes one
  iteration at a time, the pool's features against each block computed once.

CPU time of this process (one BLAS thread), the two alternated ``--reps`` times in one run,
the least of each kept; every fold's models compared bitwise between the two.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import numpy as np
from report import git_commit, provenance
from threadpoolctl import threadpool_limits

from ordauc.data.builtin import synthetic_ordinal
from ordauc.solvers.dsg import unlabeled
from ordauc.solvers.dsg.qsg import QS3ORAO
from ordauc.splits import cv_folds

LAMS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
GAMMAS = [round(0.1 * i, 1) for i in range(11)]
N_LABELED, FOLDS, K = 500, 5, 5


def _data(d: int, n_unlabeled: int):
    ds = synthetic_ordinal(n=N_LABELED + n_unlabeled, d=d, seed=0, n_classes=K)
    X, y = ds.X.astype(np.float32), ds.y.copy()
    y[N_LABELED:] = -1
    folds = cv_folds(y[:N_LABELED], n_unlabeled, FOLDS, 7)
    return X, y, folds


def run_per_fold(base, points, X, y, folds) -> dict:
    t0 = time.process_time()
    models = []
    for fit, val in folds:
        fold = [None] * len(points)
        for i, model in base.iter_fit_grid(X[fit], y[fit], points, track=X[val]):
            fold[i] = model
        models.append(fold)
    return {"cpu_s": time.process_time() - t0, "models": models}


def run_lockstep(base, points, X, y, folds) -> dict:
    computed = []
    compute = unlabeled.PoolShare._compute

    def counted(self, blocks, b, fast):
        computed.append(b)
        return compute(self, blocks, b, fast)

    unlabeled.PoolShare._compute = counted
    try:
        t0 = time.process_time()
        models = [[None] * len(points) for _ in folds]
        for f, i, model in base.iter_fit_grid_folds(X, y, folds, points, track=True):
            models[f][i] = model
        cpu = time.process_time() - t0
    finally:
        unlabeled.PoolShare._compute = compute
    return {"cpu_s": cpu, "models": models, "pool_feature_blocks": len(computed)}


def bench_one(d: int, n_unlabeled: int, reps: int, n_iter: int) -> dict:
    X, y, folds = _data(d, n_unlabeled)
    base = QS3ORAO(n_iter=n_iter, batch_size=64, block_size=64, sigma=1.0, random_state=1)
    points = [dict(lam=lam, gamma=g) for lam in LAMS for g in GAMMAS]
    QS3ORAO(n_iter=5, batch_size=8, block_size=8, random_state=1).fit_grid(  # warm up
        X[:300], y[:300], points[:3])
    before, after = [], []
    for _ in range(reps):  # alternated, so a slow spell of the machine hits both alike
        for r in before + after:
            r.pop("models", None)
        before.append(run_per_fold(base, points, X, y, folds))
        after.append(run_lockstep(base, points, X, y, folds))
    b, a = before[-1]["models"], after[-1]["models"]
    same = all(np.array_equal(p.coef_, q.coef_) and np.array_equal(p.tracked_decision_,
                                                                   q.tracked_decision_)
               for fb, fa in zip(b, a, strict=True) for p, q in zip(fb, fa, strict=True))
    cpu_b, cpu_a = min(r["cpu_s"] for r in before), min(r["cpu_s"] for r in after)
    return {
        "d": d, "n_unlabeled": n_unlabeled, "folds": FOLDS, "n_models": len(points),
        "n_iter": n_iter, "reps": reps, "per_fold_cpu_s": cpu_b, "lockstep_cpu_s": cpu_a,
        "speedup": cpu_b / cpu_a, "per_fold_all_cpu_s": [r["cpu_s"] for r in before],
        "lockstep_all_cpu_s": [r["cpu_s"] for r in after],
        "pool_feature_blocks": after[-1]["pool_feature_blocks"], "bitwise_equal": same,
        "measured_at": time.strftime("%Y-%m-%d %H:%M"), "git_sha": git_commit(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[18, 1000])
    ap.add_argument("--n-unlabeled", type=int, nargs="+", default=[5000])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="200 iterations instead of 2,000")
    ap.add_argument("--out", default="benchmarks/results/qsg_folds.json")
    args = ap.parse_args()
    start = time.perf_counter()
    n_iter = 200 if args.quick else 2000
    out = Path(args.out)
    old = json.loads(out.read_text()) if out.exists() else {}
    kept = {(r["d"], r["n_unlabeled"]): r for r in old.get("runs", [])
            if r.get("n_iter") == n_iter}
    results = {**provenance(), "quick": args.quick}
    with threadpool_limits(1):
        for d in args.d:
            for n_u in args.n_unlabeled:
                r = bench_one(d, n_u, args.reps, n_iter)
                kept[(d, n_u)] = r
                print(f"d={d:5d} n_u={n_u:6d}: per fold {r['per_fold_cpu_s']:8.1f} s, "
                      f"lockstep {r['lockstep_cpu_s']:8.1f} s: {r['speedup']:.2f}x; pool "
                      f"features of {r['pool_feature_blocks']} blocks; bitwise equal "
                      f"{r['bitwise_equal']}", flush=True)
    results["runs"] = sorted(kept.values(), key=lambda r: (r["d"], r["n_unlabeled"]))
    results["load_average_end"] = list(os.getloadavg())
    results["bench_s"] = time.perf_counter() - start
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
