"""One QS3ORAO cross-validation fold of the paper's grid: the candidates scored from the pass
that fitted them (tracked validation rows) against a full evaluation of every candidate after it.

    python benchmarks/bench_qsg_cv.py [--d 18 128 1000] [--n-unlabeled 1000] [--reps 1]
                                      [--quick] [--out benchmarks/results/qsg_cv.json]

The shape of configs/qs3orao.yaml: 500 labeled rows, 5-fold CV (a fold fits 400 labeled rows
and every unlabeled row, and validates on 100 labeled rows), 2,000 iterations, batches and blocks
of 64, and one sigma's pass of the paper's grid, 7 lam x 11 gamma = 77 models (7 of them gamma =
1, which sample no U). d = 1,000 is the Amazon sets' (TF-IDF + SVD), d = 18 SUSY's, d = 128 a
middle width; synthetic ordinal rows (5 classes) of that shape.

Two ways to score the 77 candidates of the fold on the validation rows by the ordinal AUC, both
from the same pass (the same iterates, bit for bit):

- ``before``: the pass, then every candidate evaluated as before the tracking: its thresholds
  from a full evaluation of the labeled rows, its decision values by ``decision_function`` on the
  validation rows (both against all 2,000 blocks);
- ``after``: the pass with the validation rows tracked (``GridData.track``): each candidate's
  decision values on them (``tracked_decision_``) and its thresholds come out of the pass.

CPU time of this process (one BLAS thread), the two alternated ``--reps`` times in one run, the
least of each kept. The whole CV is 7 sigmas x 5 folds of such passes, so its ratio is this
fold's. Also recorded: how far the tracked values and the thresholds are from the per-model
computation (relative to max |f|), and how far each is from f evaluated in float64
throughout, for two of the models.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import qsg_shapes
from provenance import git_commit
from sklearn.base import clone

from ordauc import metrics
from ordauc.data.builtin import synthetic_ordinal
from ordauc.solvers.dsg.qsg import QS3ORAO
from ordauc.solvers.dsg.reference import decision_float64
from ordauc.solvers.thresholds import fit_thresholds

LAMS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
GAMMAS = [round(0.1 * i, 1) for i in range(11)]
N_LABELED, FOLDS, K = 500, 5, 5


def _fold(d: int, n_unlabeled: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fitting rows (400 labeled + the unlabeled), validation rows and their labels."""
    ds = synthetic_ordinal(n=N_LABELED + n_unlabeled, d=d, seed=0, n_classes=K)
    X, y = ds.X.astype(np.float32), ds.y.copy()
    y[N_LABELED:] = -1
    val = np.zeros(len(y), dtype=bool)
    val[:N_LABELED:FOLDS] = True  # every fifth labeled row: one fold of five
    return X[~val], y[~val], X[val], y[val]


def _models(base: QS3ORAO, points: list[dict]) -> list[QS3ORAO]:
    return [clone(base).set_params(**p) for p in points]


def _auc(y: np.ndarray, f: np.ndarray) -> float:
    return metrics.METRICS["auc"].compute(y, f, "ordinal", K)


def run_before(base, points, X, y, X_val, y_val) -> dict:
    """The pass, then every candidate evaluated on the labeled and validation rows."""
    t0 = time.process_time()
    data = base._grid_data(X, y)
    models = base._grid_pass(data, _models(base, points), {})
    t1 = time.process_time()
    labels, scores, thresholds, values = data.labels, [], [], []
    X_l = data.X[labels.labeled]
    for m in models:
        f_l = m.blocks_.evaluate(X_l, m.coef_, m.scale_)  # the thresholds' full evaluation
        thresholds.append(fit_thresholds(f_l, labels.z, labels.n_classes))
        f = m.decision_function(X_val)
        values.append(f)
        scores.append(_auc(y_val, f))
    t2 = time.process_time()
    return {"cpu_s": t2 - t0, "pass_cpu_s": t1 - t0, "evaluation_cpu_s": t2 - t1,
            "scores": scores, "thresholds": thresholds, "values": values, "models": models}


def run_after(base, points, X, y, X_val, y_val) -> dict:
    """The pass with the validation rows tracked; every candidate scored from it."""
    t0 = time.process_time()
    data = dataclasses.replace(base._grid_data(X, y), track=X_val)
    models = base._grid_pass(data, _models(base, points), {})
    t1 = time.process_time()
    scores = [_auc(y_val, m.tracked_decision_) for m in models]
    t2 = time.process_time()
    return {"cpu_s": t2 - t0, "pass_cpu_s": t1 - t0, "scoring_cpu_s": t2 - t1,
            "scores": scores, "thresholds": [m.thresholds_ for m in models],
            "values": [m.tracked_decision_ for m in models], "models": models}


def bench_one(d: int, n_unlabeled: int, reps: int, n_iter: int) -> dict:
    X, y, X_val, y_val = _fold(d, n_unlabeled)
    base = QS3ORAO(n_iter=n_iter, batch_size=64, block_size=64, sigma=1.0, random_state=1)
    points = [dict(lam=lam, gamma=g) for lam in LAMS for g in GAMMAS]
    # warm up the compiled loops and the caches on a tiny pass
    QS3ORAO(n_iter=5, batch_size=8, block_size=8, random_state=1).fit_grid(
        X[:300], y[:300], points[:3])
    before, after = [], []
    for _ in range(reps):  # alternated, so a slow spell of the machine hits both alike
        for r in before + after:  # only the last run's models are compared: free the others
            r.pop("models", None)
        before.append(run_before(base, points, X, y, X_val, y_val))
        after.append(run_after(base, points, X, y, X_val, y_val))
    b, a = before[-1], after[-1]
    same = all(np.array_equal(p.coef_, q.coef_) for p, q in zip(b["models"], a["models"],
                                                                  strict=True))
    gap = max(float(np.abs(f - g).max() / np.abs(g).max())
              for f, g in zip(a["values"], b["values"], strict=True))
    t_gap = max(float(np.abs(s - t).max() / np.abs(g).max()) for s, t, g in
                zip(a["thresholds"], b["thresholds"], b["values"], strict=True))
    d_auc = max(abs(s - t) for s, t in zip(a["scores"], b["scores"], strict=True))
    # against float64 throughout, for the first and the last model (lam = 1/8, gamma = 0 and
    # lam = 8, gamma = 1): both float32 evaluations are off by their own rounding
    vs_exact = {"tracked": [], "decision_function": []}
    for i in (0, len(points) - 1):
        f64 = decision_float64(a["models"][i], X_val)
        top = np.abs(f64).max()
        vs_exact["tracked"].append(float(np.abs(a["values"][i] - f64).max() / top))
        vs_exact["decision_function"].append(float(np.abs(b["values"][i] - f64).max() / top))
    cpu_b = min(r["cpu_s"] for r in before)
    cpu_a = min(r["cpu_s"] for r in after)
    pass_b = min(r["pass_cpu_s"] for r in before)
    return {
        "d": d, "n_unlabeled": n_unlabeled, "n_fit": int(len(y)), "n_val": int(len(y_val)),
        "n_models": len(points), "n_iter": n_iter, "reps": reps,
        "before_cpu_s": cpu_b, "after_cpu_s": cpu_a, "speedup": cpu_b / cpu_a,
        "pass_cpu_s": pass_b, "evaluation_cpu_s": min(r["evaluation_cpu_s"] for r in before),
        "evaluation_share_of_pass": min(r["evaluation_cpu_s"] for r in before) / pass_b,
        "tracked_pass_cpu_s": min(r["pass_cpu_s"] for r in after),
        "tracking_overhead": min(r["pass_cpu_s"] for r in after) / pass_b - 1.0,
        "before_all_cpu_s": [r["cpu_s"] for r in before],
        "after_all_cpu_s": [r["cpu_s"] for r in after],
        "same_iterates": same, "max_rel_gap_tracked": gap, "max_rel_gap_thresholds": t_gap,
        "max_auc_difference": d_auc, "max_rel_gap_to_float64": vs_exact,
        "measured_at": time.strftime("%Y-%m-%d %H:%M"), "git_sha": git_commit(),
    }


def describe(r: dict) -> str:
    return (f"before {r['before_cpu_s']:8.1f} s (pass {r['pass_cpu_s']:.1f} + evaluation "
            f"{r['evaluation_cpu_s']:.1f}), after {r['after_cpu_s']:8.1f} s: {r['speedup']:.2f}x; "
            f"tracking {100 * r['tracking_overhead']:+.1f}% of the pass; tracked values within "
            f"{r['max_rel_gap_tracked']:.1e}, same iterates {r['same_iterates']}")


if __name__ == "__main__":
    qsg_shapes.main(__doc__, [18, 128, 1000], [1000], "benchmarks/results/qsg_cv.json",
                    bench_one, describe)
