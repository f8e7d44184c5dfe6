"""Pair updates per second of AUC-SDCDperm, against the floor of the same loop.

    python benchmarks/bench_pairwise.py [--reps 7] [--out benchmarks/results/pairwise.json]

Two shapes from the AUC-DCD paper's Table 1, synthetic data of the same size:

- dense: pendigits, 7,494 x 16, one class in ten positive (n+ = 779), features in [0, 1);
- sparse: sector, 6,412 x 55,197 CSR at 0.3% density, one row in 105 positive (n+ = 61),
  non-negative rows of unit norm (as tf-idf rows are).

Each is timed over one epoch (every pair once) in the permuted order AUC-SDCDperm uses and
against the floor: the same compiled loop visiting the pairs in sequential (row-major) order,
which costs no permutation and reads rows in order. lam = 1 makes every update change w in both
orders (the fraction is measured and recorded), so both do the same arithmetic and the ratio is
the price of the order alone. The figure is the best of ``--reps`` interleaved runs, in process
CPU time (the machine is shared; CPU time is what one core delivers, wall time is recorded too).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit
from provenance import provenance
from sections.pairwise import pairwise_table
from threadpoolctl import threadpool_limits

from ordauc.solvers.pairwise._estimator import PairData
from ordauc.solvers.pairwise._rows import dcd_step, pair_axpy, pair_stats
from ordauc.solvers.pairwise.dcd import sdcdperm_loop
from ordauc.solvers.pairwise.order import PERMUTATIONS, key_of, permuted_pairs, root_key

LAM = 1.0
TARGET_RATE = 25e6
TARGET_RATIO = 1.5


def dense_shape(seed: int = 0) -> PairData:
    """pendigits' shape: 779 positives, 6,715 negatives, 16 features in [0, 1)."""
    rng = np.random.default_rng(seed)
    return PairData(rng.random((779, 16)), rng.random((6715, 16)))


def sparse_shape(seed: int = 0) -> PairData:
    """sector's shape: 61 positives, 6,351 negatives, 55,197 columns, 0.3% density."""
    rng = np.random.default_rng(seed)
    n, d, per_row = 6412, 55_197, 166  # 166 / 55,197 = 0.3%
    cols = np.stack([rng.choice(d, per_row, replace=False) for _ in range(n)])
    cols.sort(axis=1)
    vals = rng.random((n, per_row))
    vals /= np.linalg.norm(vals, axis=1, keepdims=True)
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, n * per_row + 1, per_row)),
                      shape=(n, d))
    return PairData(X[:61].tocsr(), X[61:].tocsr())


@njit(cache=True)
def _changed(P: np.ndarray | tuple, N: np.ndarray | tuple, w: np.ndarray, pi: np.ndarray,
             pj: np.ndarray, lk: float) -> int:
    """Updates of one epoch from alpha = 0 that change w (a replay of the same pairs)."""
    count = 0
    for t in range(pi.size):
        zw, zz = pair_stats(P, pi[t], N, pj[t], w)
        a = dcd_step(0.0, zw, zz, lk)
        if a > 0.0:
            count += 1
            pair_axpy(a / lk, P, pi[t], N, pj[t], w)
    return count


def changed_fraction(data: PairData, key: np.uint64, shuffle: bool) -> float:
    """Share of updates that change w, over (at most) the first 2,000,000 of the epoch."""
    stop = min(data.n_pairs, 2_000_000)
    pi, pj = permuted_pairs(key, 0, stop, data.n_pos, data.n_neg, shuffle)
    count = _changed(data.pos, data.neg, np.zeros(data.n_features), pi, pj,
                     LAM * data.n_pairs)
    return count / stop


def time_epoch(data: PairData, key: np.uint64, shuffle: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one epoch from w = 0."""
    w = np.zeros(data.n_features)
    run = sdcdperm_loop(data, w, np.zeros(0), LAM * data.n_pairs, key, shuffle)
    c, t = time.process_time(), time.perf_counter()
    run(0, data.n_pairs)
    return time.process_time() - c, time.perf_counter() - t


def bench(name: str, data: PairData, reps: int) -> dict:
    key = key_of(root_key(0), PERMUTATIONS)
    sdcdperm_loop(data, np.zeros(data.n_features), np.zeros(0), 1.0, key, True)(0, 1000)
    sdcdperm_loop(data, np.zeros(data.n_features), np.zeros(0), 1.0, key, False)(0, 1000)
    best = {True: (np.inf, np.inf), False: (np.inf, np.inf)}
    for _ in range(reps):  # interleaved, so slow spells of the machine hit both alike
        for shuffle in (True, False):
            cpu, wall = time_epoch(data, key, shuffle)
            best[shuffle] = (min(best[shuffle][0], cpu), min(best[shuffle][1], wall))
    k = data.n_pairs
    rate, floor = k / best[True][0], k / best[False][0]
    out = {"shape": name, "n_pos": data.n_pos, "n_neg": data.n_neg, "n_features":
           data.n_features, "pairs_per_epoch": k, "lam": LAM,
           "updates_per_s": rate, "floor_updates_per_s": floor, "ratio_to_floor": floor / rate,
           "updates_per_s_wall": k / best[True][1],
           "floor_updates_per_s_wall": k / best[False][1], "reps": reps}
    out["changed_fraction_permuted"] = changed_fraction(data, key, True)
    out["changed_fraction_sequential"] = changed_fraction(data, key, False)
    if data.sparse:
        out["density"] = (data.X_pos.nnz + data.X_neg.nnz) / ((data.n_pos + data.n_neg)
                                                             * data.n_features)
    else:
        out["target"] = (f">= {TARGET_RATE / 1e6:.0f}M updates/s per core, "
                         f"<= {TARGET_RATIO}x the floor")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default="benchmarks/results/pairwise.json")
    args = ap.parse_args()
    start = time.perf_counter()
    results = {**provenance(), "numba": numba.__version__}
    stamp = {"measured_at": results["measured_at"], "git_sha": results["git_sha"]}
    with threadpool_limits(1):
        results["dense"] = {**bench("pendigits", dense_shape(), args.reps), **stamp}
        results["sparse"] = {**bench("sector", sparse_shape(), args.reps), **stamp}
    results["load_average_end"] = list(os.getloadavg())
    results["bench_s"] = time.perf_counter() - start
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(pairwise_table(results))
    d = results["dense"]
    print(f"dense: {d['updates_per_s'] / 1e6:.1f}M updates/s (target >= "
          f"{TARGET_RATE / 1e6:.0f}M), {d['ratio_to_floor']:.2f}x the floor (target <= "
          f"{TARGET_RATIO}x)")
    for key in ("dense", "sparse"):
        r = results[key]
        print(f"{key}: w changed at {100 * r['changed_fraction_permuted']:.1f}% of permuted and "
              f"{100 * r['changed_fraction_sequential']:.1f}% of sequential updates")


if __name__ == "__main__":
    main()
