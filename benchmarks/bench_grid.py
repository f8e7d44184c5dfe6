"""Grid fits (``fit_grid``) against point-by-point fits, and the single-fit saving of the pool.

    python benchmarks/bench_grid.py [a b c p] [--quick] [--out benchmarks/results/grid.json]

(a) One cell of the QSG-S2AUC protocol: 200 labeled and 20,000 unlabeled rows, d = 20, the
    papers' grid (7 lam x 7 sigma x 11 gamma = 539 points), 5-fold CV, 2,000 iterations, batches
    and blocks of 64. A fold fits 160 labeled + 20,000 unlabeled rows; ``fit_grid`` makes one
    pass per sigma (77 points). Timed: two whole passes (sigma = 1/8 and 8, two folds) and a few
    lone fits; the cell is extrapolated linearly in the number of passes (35) and of points
    (2,695: 70 of every 77 with gamma < 1, 7 with gamma = 1, which sample no U and cost less).
(b) The same for SAMULT at 2,000 training rows (200 labeled): one whole fold (all 539 points,
    seven passes) against lone fits of a spread of points, extrapolated to 5 folds and 539
    points.
(c) One QSG-S2AUC fit (200 labeled, 20,000 unlabeled, 2,000 iterations): the engine against the
    engine without its two savings (``EngineOptions(pool="off", fast_trig=False)``: the batch
    against every block, numpy's cosine), and fit + transductive scores of the unlabeled pool
    (free with the pool; ``decision_function`` on those rows without it). Also the two savings
    apart: the pool with numpy's cosine, and the compiled cosine without the pool.
(p) The projected CV time of the QSG papers' protocol (8 datasets x 7 unlabeled sizes x 10
    trials, 539 points, 5 folds) before (today's engine, point by point) and after (fit_grid),
    from costs measured here at d = 20 (the datasets have d = 3..128: the W x products grow with
    d, the cosines do not), fits only (no scoring, no final refit).

One BLAS thread throughout, as the runner's workers. Times are CPU time, and (c)'s variants take
turns, so that other jobs on a shared machine slow none of them more than another; short
measurements are repeated (min and median recorded) and the load average is recorded. (c) also
records numpy's cosine time over the compiled loop's at the engine's shapes, and which of the two
this machine's processes choose (:mod:`ordauc.solvers.dsg.trig`). Running some sections keeps the
other sections' last figures in the JSON; each section records when and at which commit it ran.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from provenance import provenance
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from ordauc.data.builtin import synthetic_binary
from ordauc.data.catalog import QSG_ENTRIES
from ordauc.solvers.dsg import trig
from ordauc.solvers.dsg.engine import EngineOptions
from ordauc.solvers.dsg.qsg import QSGS2AUC
from ordauc.solvers.dsg.unlabeled import pool_start
from ordauc.solvers.kernel.samult import SAMULT

LAMS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
SIGMAS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
GAMMAS = [round(0.1 * i, 1) for i in range(11)]
FOLDS, D = 5, 20
SIZES = [1000, 2000, 5000, 10000, 20000, 50000, None]  # None: all the training rows


class Today(QSGS2AUC):
    """The engine without its savings: the batch against every block, numpy's cosine."""

    engine_options = EngineOptions(pool="off", fast_trig=False)


class PoolOnly(QSGS2AUC):
    engine_options = EngineOptions(fast_trig=False)


class CosineOnly(QSGS2AUC):
    engine_options = EngineOptions(pool="off")


def _params(n_iter: int) -> dict:
    return dict(n_iter=n_iter, batch_size=64, block_size=64, random_state=1)


def _data(n_labeled: int, n_unlabeled: int) -> tuple[np.ndarray, np.ndarray]:
    ds = synthetic_binary(n=n_labeled + n_unlabeled, d=D, seed=0)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _fold(X: np.ndarray, y: np.ndarray, fold: int) -> tuple[np.ndarray, np.ndarray]:
    """Training rows of CV fold ``fold``: the labeled rows outside it, every unlabeled row."""
    labeled = np.flatnonzero(y != -1)
    held = np.random.default_rng(7).permutation(labeled)[fold::FOLDS]
    keep = np.ones(y.size, dtype=bool)
    keep[held] = False
    return X[keep], y[keep]


def _cpu(fn) -> float:
    """CPU seconds of one call (one BLAS thread: the process's CPU time is the call's)."""
    t = time.process_time()
    fn()
    return time.process_time() - t


def _summary(times: list[float]) -> dict:
    return {"min_s": min(times), "median_s": float(np.median(times)), "all_s": times,
            "clock": "cpu"}


def _timed(fn, reps: int = 1) -> dict:
    return _summary([_cpu(fn) for _ in range(reps)])


def _alternated(variants: dict, reps: int) -> dict:
    """Each variant ``reps`` times, the variants taking turns (a load that comes and goes falls
    on all of them alike), in CPU time."""
    times: dict = {name: [] for name in variants}
    for _ in range(reps):
        for name, fn in variants.items():
            times[name].append(_cpu(fn))
    return {name: _summary(t) for name, t in times.items()}


def _one_sigma(sigma: float) -> list[dict]:
    return [dict(lam=lam, gamma=g, sigma=sigma) for lam in LAMS for g in GAMMAS]


def bench_a(T: int, shared: dict) -> dict:
    X, y = _data(200, 20_000)
    passes = {}
    for fold, sigma in ((0, 0.125), (1, 8.0)):
        Xf, yf = _fold(X, y, fold)
        points = _one_sigma(sigma)
        passes[str(sigma)] = _timed(
            lambda Xf=Xf, yf=yf, points=points: QSGS2AUC(**_params(T)).fit_grid(Xf, yf, points))
    Xf, yf = _fold(X, y, 0)
    lone = {}
    for p in (dict(lam=0.125, gamma=0.0, sigma=0.125), dict(lam=1, gamma=0.5, sigma=1.0),
              dict(lam=8, gamma=0.9, sigma=8.0), dict(lam=1, gamma=1.0, sigma=1.0)):
        est = clone(QSGS2AUC(**_params(T))).set_params(**p)
        lone[json.dumps(p)] = _timed(lambda est=est: clone(est).fit(Xf, yf), reps=2)
    semi = float(np.mean([v["median_s"] for k, v in lone.items() if '"gamma": 1.0' not in k]))
    sup = [v["median_s"] for k, v in lone.items() if '"gamma": 1.0' in k][0]
    per_pass = float(np.mean([p["min_s"] for p in passes.values()]))
    n_pass = len(SIGMAS) * FOLDS
    cell_shared = n_pass * per_pass
    cell_lone = n_pass * (70 * semi + 7 * sup)
    today = shared["c"]["today_fit"]["median_s"]
    cell_today = n_pass * (70 * today + 7 * sup)
    shared["a"] = {"pass_s": per_pass, "semi_fit_s": semi, "supervised_fit_s": sup}
    return {"n_iter": T, "pass_77_points": passes, "lone_fits": lone,
            "cell_shared_s": cell_shared, "cell_point_by_point_s": cell_lone,
            "cell_point_by_point_today_engine_s": cell_today,
            "ratio": cell_lone / cell_shared, "ratio_vs_today_engine": cell_today / cell_shared,
            "extrapolation": "cell = 35 passes x mean pass (2 timed); point by point = 35 x "
                             "(70 x mean lone fit with gamma < 1 + 7 x lone fit with gamma = 1); "
                             "today's engine: its fit time from (c)",
            "target": ">= 15x"}


def bench_b() -> dict:
    X, y = _data(200, 1800)
    Xf, yf = _fold(X, y, 0)
    passes = {}
    t0 = time.perf_counter()
    for sigma in SIGMAS:
        passes[str(sigma)] = _timed(lambda sigma=sigma: SAMULT().fit_grid(Xf, yf,
                                                                          _one_sigma(sigma)))
    fold_shared = time.perf_counter() - t0
    spread = [dict(lam=LAMS[i % 7], gamma=GAMMAS[(3 * i) % 11], sigma=SIGMAS[(2 * i) % 7])
              for i in range(6)]
    lone = [_timed(lambda p=p: SAMULT(**p).fit(Xf, yf), reps=2)["median_s"] for p in spread]
    per_point = float(np.mean(lone))
    cell_shared, cell_lone = FOLDS * fold_shared, FOLDS * 539 * per_point
    return {"n_train": int(Xf.shape[0]), "fold_shared_s": fold_shared, "passes": passes,
            "lone_fit_s": lone, "cell_shared_s": cell_shared, "cell_point_by_point_s": cell_lone,
            "ratio": cell_lone / cell_shared,
            "extrapolation": "cell = 5 x one whole fold (539 points timed); point by point = "
                             "5 x 539 x mean of 6 lone fits spread over the grid",
            "target": ">= 5x"}


def bench_c(T: int, shared: dict) -> dict:
    X, y = _data(200, 20_000)
    unl = X[y == -1]
    base = dict(lam=1.0, gamma=0.5, sigma=1.0, **_params(T))
    today_model = Today(**base)
    QSGS2AUC(**base).warm_up()  # the compiled loops loaded and the cosine chosen: not timed
    timed = _alternated({"new": lambda: QSGS2AUC(**base).fit(X, y),
                         "today": lambda: today_model.fit(X, y),
                         "pool_only": lambda: PoolOnly(**base).fit(X, y),
                         "cosine_only": lambda: CosineOnly(**base).fit(X, y)}, reps=3)
    new, today = timed["new"], timed["today"]
    pool_only, cosine_only = timed["pool_only"], timed["cosine_only"]
    score = _timed(lambda: today_model.decision_function(unl), reps=3)
    model = QSGS2AUC(**base).fit(X, y)
    f = today_model.decision_function(unl)
    gap = (None if model.unlabeled_scores_ is None  # a --quick run keeps no pool
           else float(np.abs(model.unlabeled_scores_ - f).max() / np.abs(f).max()))
    fit_gap = float(np.abs(model.decision_function(unl) - f).max() / np.abs(f).max())
    shared["c"] = {"today_fit": today}
    t_new, t_old, t_score = new["median_s"], today["median_s"], score["median_s"]
    return {"n_iter": T, "new_fit": new, "today_fit": today, "today_score_unlabeled": score,
            "pool_only_fit": pool_only, "cosine_only_fit": cosine_only,
            "fit_ratio": t_old / t_new, "fit_and_score_ratio": (t_old + t_score) / t_new,
            "pool_alone_ratio": t_old / pool_only["median_s"],
            "cosine_alone_ratio": t_old / cosine_only["median_s"],
            "max_rel_gap_decision_vs_today": fit_gap,
            "max_rel_gap_unlabeled_scores_vs_today_decision": gap,
            "cosine_numpy_over_compiled": trig.timed_ratios(),
            "cosine_chosen": {k: "compiled" if trig.compiled_wins(k) else "numpy"
                              for k in ("cos", "sincos")},
            "target": ">= 2.5x (fit), >= 5x (fit + transductive scores)"}


def bench_p(T: int, shared: dict) -> dict:
    """Costs for the projection: passes at two pool sizes (linear in n_u), a pass in batch mode
    (pools beyond b (T-1)/2 rows: its cost does not depend on n_u)."""
    X, y = _data(160, 5000)
    at_5k = _timed(lambda: QSGS2AUC(**_params(T)).fit_grid(X, y, _one_sigma(1.0)))["min_s"]
    at_20k = shared["a"]["pass_s"]
    X, y = _data(160, 20_000)

    class Batch(QSGS2AUC):
        engine_options = EngineOptions(pool="off")

    batch = _timed(lambda: Batch(**_params(T)).fit_grid(X, y, _one_sigma(1.0)))["min_s"]
    slope = (at_20k - at_5k) / 15_000
    today, sup = shared["c"]["today_fit"]["median_s"], shared["a"]["supervised_fit_s"]

    def pass_after(n_u: int) -> float:
        pooled = pool_start(n_u, 64, T) <= T
        return at_5k + slope * (n_u - 5000) if pooled else batch

    before = after = 0.0
    cells = []
    for e in QSG_ENTRIES:
        n_train = e.n if e.n_test else int(round(0.75 * e.n))
        for size in SIZES:
            n_u = n_train - 200 if size is None else size
            if n_u > n_train - 200:
                continue  # the runner refuses the cell: the budget exceeds the data
            cells.append((e.name, n_u))
            passes = 10 * FOLDS * len(SIGMAS)  # trials x folds x sigma
            before += passes * (70 * today + 7 * sup)
            after += passes * pass_after(n_u)
    return {"n_iter": T, "pass_5k_s": at_5k, "pass_20k_s": at_20k, "pass_batch_mode_s": batch,
            "cells": len(cells), "before_h": before / 3600, "after_h": after / 3600,
            "ratio": before / after,
            "model": "before: every fit as today's lone fit at 20k (its time does not depend on "
                     "n_u); after: per pass, linear in n_u between the passes timed at 5k and "
                     "20k while the pool is kept (n_u <= 63,968), the batch-mode pass beyond"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", nargs="*", default=["c", "a", "b", "p"])
    ap.add_argument("--quick", action="store_true", help="300 iterations (a quick look only)")
    ap.add_argument("--out", default="benchmarks/results/grid.json")
    args = ap.parse_args()
    T = 300 if args.quick else 2000
    order = [k for k in ("c", "a", "b", "p") if k in args.which]  # (a) and (p) reuse (c)
    bench_start = time.perf_counter()
    out = Path(args.out)
    # a run of some sections keeps the others' last figures (each section says when it ran)
    kept = json.loads(out.read_text()) if out.exists() and set(order) != {"c", "a", "b", "p"} \
        else {}
    results = {**kept, **provenance(), "quick": args.quick}
    shared: dict = {}
    with threadpool_limits(1):
        for key in order:
            fn = {"a": lambda: bench_a(T, shared), "b": bench_b,
                  "c": lambda: bench_c(T, shared), "p": lambda: bench_p(T, shared)}[key]
            start = time.perf_counter()
            results[key] = {**fn(), "bench_s": time.perf_counter() - start,
                            "run": provenance()}
            print(key, json.dumps(results[key], indent=1), flush=True)
    results["load_average_end"] = os.getloadavg()
    results["bench_s"] = time.perf_counter() - bench_start
    if "p" in results:
        p = results["p"]
        print(f"QSG papers' CV protocol ({p['cells']} cells x 10 trials x 5 folds x 539 points): "
              f"{p['before_h']:.0f} h before, {p['after_h']:.0f} h after on this machine "
              f"(one core), {p['ratio']:.0f}x")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
