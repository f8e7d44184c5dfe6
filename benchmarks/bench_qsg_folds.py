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

import time

import numpy as np
import qsg_shapes
from provenance import git_commit

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


def describe(r: dict) -> str:
    return (f"per fold {r['per_fold_cpu_s']:8.1f} s, lockstep {r['lockstep_cpu_s']:8.1f} s: "
            f"{r['speedup']:.2f}x; pool features of {r['pool_feature_blocks']} blocks; bitwise "
            f"equal {r['bitwise_equal']}")


if __name__ == "__main__":
    qsg_shapes.main(__doc__, [18, 1000], [5000], "benchmarks/results/qsg_folds.json",
                    bench_one, describe)
