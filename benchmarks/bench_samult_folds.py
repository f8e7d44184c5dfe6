"""SAMULT's inner CV with the folds sharing their work against one grid call per fold.

    python benchmarks/bench_samult_folds.py [--full 2000] [--large 5000] [--repeats 1] [--quick]
                                           [--out benchmarks/results/samult_folds.json]

One cell of the QSG-S2AUC protocol for SAMULT: 200 labeled rows, n_u unlabeled rows, d = 20,
5-fold CV, the papers' grid (7 lam x 7 sigma x 11 gamma = 539 points), tuned by AUC, as the
runner's InnerCV does it:

- before: one ``iter_fit_grid`` call per fold (the tuner without the fold protocol): each fold
  builds its kernel and decomposes K_UU once per sigma, 35 decompositions per cell, and every
  model is scored by ``decision_function`` on the validation rows;
- after: one ``iter_fit_grid_folds`` call for the cell: one decomposition per sigma serves the
  5 folds (7 per cell), the validation scores come from the pass.

Timed: the whole cell at ``--full`` unlabeled rows, and one sigma of the cell (77 points x 5
folds; every sigma costs the same, the sizes being the same) at ``--large`` unlabeled rows,
scaled by 7 to the cell. Before and after alternate in one run, CPU time (one BLAS thread, as
the runner's workers), and the two must choose the same point with the same CV scores. Also
timed alone: one decomposition of a sigma (the whole data's kernel, eigh(K_UU), M = K_LU Q).

The projection to 20,000 unlabeled rows splits each time per sigma into the decompositions
(before: 5, after: 1, each E, O(n_u^3)) and the rest (R = time - decompositions: the per-point
n_l x n_l systems, O(n_l^2 n_u), and the products with Q and K, O(n_u^2)); E is scaled by
n_u^3, R by n_u^2, which overstates the rest's growth, so the projected ratio is a floor.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from provenance import provenance
from threadpoolctl import threadpool_limits

from ordauc.data.builtin import synthetic_binary
from ordauc.experiment.tuning import InnerCV
from ordauc.solvers._labels import split_labels
from ordauc.solvers.kernel.kernel_path import KernelPath
from ordauc.solvers.kernel.samult import SAMULT
from ordauc.splits import cv_folds

LAMS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
SIGMAS = [0.125, 0.25, 0.5, 1, 2, 4, 8]
GAMMAS = [round(0.1 * i, 1) for i in range(11)]
FOLDS, D, N_LABELED, TARGET_U = 5, 20, 200, 20_000


class PerFold:
    """SAMULT without the fold protocol: the tuner calls ``iter_fit_grid`` once per fold."""

    def __init__(self, est: SAMULT) -> None:
        self.est = est

    def iter_fit_grid(self, *args, **kwargs):
        return self.est.iter_fit_grid(*args, **kwargs)


def _data(n_unlabeled: int) -> tuple[np.ndarray, np.ndarray, list]:
    ds = synthetic_binary(n=N_LABELED + n_unlabeled, d=D, seed=0)
    y = ds.y.copy()
    y[N_LABELED:] = -1
    return ds.X, y, cv_folds(y[:N_LABELED], n_unlabeled, FOLDS, seed=1)


def _tune(variant: str, X: np.ndarray, y: np.ndarray, folds: list, grid: dict) -> tuple:
    est = SAMULT() if variant == "after" else PerFold(SAMULT())
    start = time.process_time()
    tuned = InnerCV(folds, ["auc"], "binary", 2).tune(est, X, y, grid)["auc"]
    return time.process_time() - start, tuned


def bench_cell(n_unlabeled: int, sigmas: list[float], repeats: int) -> dict:
    """Before and after, alternated, on the cell's grid restricted to ``sigmas``."""
    X, y, folds = _data(n_unlabeled)
    grid = {"lam": LAMS, "sigma": sigmas, "gamma": GAMMAS}
    times: dict[str, list[float]] = {"before": [], "after": []}
    chosen = {}
    for _ in range(repeats):
        for variant in ("before", "after"):
            seconds, tuned = _tune(variant, X, y, folds, grid)
            times[variant].append(seconds)
            chosen[variant] = tuned
            print(f"  n_u={n_unlabeled} sigmas={len(sigmas)} {variant}: {seconds:.1f} s CPU",
                  flush=True)
    a, b = chosen["after"], chosen["before"]
    gap = max(abs(sa - sb) for (_, sa), (_, sb) in zip(a.points, b.points, strict=True))
    labels = split_labels(y)
    start = time.process_time()
    KernelPath(X, labels, sigmas[0])  # one sigma's decomposition of the whole data
    decomposition = time.process_time() - start
    before, after = min(times["before"]), min(times["after"])
    return {"n_labeled": N_LABELED, "n_unlabeled": n_unlabeled, "d": D, "folds": FOLDS,
            "sigmas": sigmas, "points": len(LAMS) * len(sigmas) * len(GAMMAS),
            "before_cpu_s": times["before"], "after_cpu_s": times["after"],
            "ratio": before / after, "decomposition_cpu_s": decomposition,
            "same_choice": a.params == b.params and a.fits == b.fits,
            "chosen": a.params, "max_cv_score_gap": gap}


def project(cell: dict, n_target: int = TARGET_U) -> dict:
    """Per sigma: before = 5 E + R_b, after = E + R_a; E scaled by n_u^3, R by n_u^2."""
    n_sig, n_u = len(cell["sigmas"]), cell["n_unlabeled"]
    E = cell["decomposition_cpu_s"]
    before, after = min(cell["before_cpu_s"]) / n_sig, min(cell["after_cpu_s"]) / n_sig
    rest_b, rest_a = max(0.0, before - FOLDS * E), max(0.0, after - E)
    e, r = (n_target / n_u) ** 3, (n_target / n_u) ** 2
    b_t, a_t = FOLDS * E * e + rest_b * r, E * e + rest_a * r
    return {"from_n_unlabeled": n_u, "n_unlabeled": n_target,
            "decomposition_share_before": FOLDS * E / before,
            "cell_before_cpu_s": len(SIGMAS) * b_t, "cell_after_cpu_s": len(SIGMAS) * a_t,
            "ratio": b_t / a_t,
            "law": "per sigma: decompositions E ~ n_u^3 (5 before, 1 after), the rest ~ n_u^2 "
                   "(an upper bound: its n_l^2 n_u part grows slower): a floor on the ratio"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", type=int, default=2000,
                    help="unlabeled rows of the cell timed whole (all 7 sigmas)")
    ap.add_argument("--large", type=int, default=5000,
                    help="unlabeled rows of the cell timed on one sigma (0: none)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="small sizes: a look, not a figure")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "samult_folds.json")
    args = ap.parse_args(argv)
    if args.quick:
        args.full, args.large = 300, 600
    out = {**provenance(), "quick": args.quick, "grid": {"lam": LAMS, "sigma": SIGMAS,
                                                         "gamma": GAMMAS}}
    start = time.perf_counter()
    with threadpool_limits(1):
        out["cell"] = bench_cell(args.full, SIGMAS, args.repeats)
        cells = [out["cell"]]
        if args.large:
            out["one_sigma"] = bench_cell(args.large, [1.0], args.repeats)
            cells.append(out["one_sigma"])
    out["projection"] = project(cells[-1])
    out["target"] = ">= 3x at 20,000 unlabeled rows"
    out["bench_s"] = time.perf_counter() - start
    out["load_average_end"] = list(os.getloadavg())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    for name in ("cell", "one_sigma"):
        if name in out:
            c = out[name]
            print(f"{name}: n_u={c['n_unlabeled']} before {min(c['before_cpu_s']):.1f} s, "
                  f"after {min(c['after_cpu_s']):.1f} s CPU: {c['ratio']:.2f}x "
                  f"(same choice: {c['same_choice']}, score gap {c['max_cv_score_gap']:.1e})")
    p = out["projection"]
    print(f"projected at {p['n_unlabeled']:,} unlabeled: {p['ratio']:.2f}x "
          f"(cell {p['cell_before_cpu_s'] / 3600:.1f} h -> {p['cell_after_cpu_s'] / 3600:.1f} h)")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
