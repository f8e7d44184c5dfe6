"""Speed and memory of the QSG engine, against a plain Algorithm 1 and against the machine's floor.

    python benchmarks/bench_qsg.py [a b c d] [--quick] [--out benchmarks/results/qsg.json]

(a) QSG-S2AUC training vs the plain Algorithm 1 of :mod:`ordauc.solvers.qsg_reference` (float64,
    every block drawn again at every prediction) on the same iterates: d = 20, 200 labeled,
    20,000 unlabeled, batches of 64, 64 frequencies per block, 200 iterations.
(b) the same training against the floor: the float32 matrix products and cos/sin of the shapes
    each iteration must compute (the sampled unlabeled batch against all previous blocks),
    timed in the same run.
(c) 5,000,000 x 18 float32 rows (SUSY's shape): time per iteration against 50,000 rows, and the
    peak resident memory of a fresh process against the data's size + 1 GB.
(d) scoring 1,000,000 points with a 2,000-block model against the floor of the same chunk shapes.

Every timing runs with one BLAS thread (as the experiment runner's workers do).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ordauc.data.builtin import synthetic_binary
from ordauc.solvers import qsg_reference
from ordauc.solvers.qsg import QSGS2AUC
from ordauc.solvers.random_features import FeatureBlocks

D, M, BATCH, ITERS, SIGMA = 20, 64, 64, 200, 1.0


def _semi(n_labeled: int, n_unlabeled: int, d: int = D, seed: int = 0):
    ds = synthetic_binary(n=n_labeled + n_unlabeled, d=d, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _params(n_iter: int = ITERS) -> dict:
    return dict(lam=0.5, sigma=SIGMA, gamma=0.5, n_iter=n_iter, batch_size=BATCH,
                block_size=M, random_state=1)


def bench_a() -> dict:
    X, y = _semi(200, 20_000)
    QSGS2AUC(**_params(20)).fit(X, y)  # warm up both, then time each on the same iterates
    qsg_reference.fit(X, y, binary=True, **_params(5))
    fits = []
    for _ in range(3):
        t = time.perf_counter()
        fast = QSGS2AUC(**_params()).fit(X, y)
        fits.append(time.perf_counter() - t)
    t_fast = float(np.median(fits))
    t = time.perf_counter()
    alphas = qsg_reference.fit(X, y, binary=True, **_params())
    t_plain = time.perf_counter() - t
    probe = X[:2000]
    f_ref = qsg_reference.predict(probe, alphas, 1, M, SIGMA)
    gap = float(np.abs(fast.decision_function(probe) - f_ref).max() / np.abs(f_ref).max())
    return {"fast_s": t_fast, "plain_s": t_plain, "speedup": t_plain / t_fast,
            "max_rel_gap_same_iterates": gap, "target": ">= 50x"}


def floor_training(n_labeled: int = 200, n_iter: int = ITERS) -> float:
    """The float32 products and cos/sin every iteration needs, into preallocated outputs:
    the unlabeled batch against blocks 1..t-1, and labeled + batch rows against block t."""
    rng = np.random.default_rng(0)
    Xb = rng.random((BATCH, D), dtype=np.float32)
    Xn = rng.random((n_labeled + BATCH, D), dtype=np.float32)
    W = rng.standard_normal((n_iter * M, D), dtype=np.float32)
    Z = np.empty(BATCH * n_iter * M, np.float32)
    C = np.empty_like(Z)
    Zn = np.empty((n_labeled + BATCH, M), np.float32)
    Cn = np.empty_like(Zn)
    t = time.perf_counter()
    for i in range(1, n_iter + 1):
        w = (i - 1) * M
        # The faster layout of the product, (W X^T), as the engine uses.
        z, c = Z[: w * BATCH].reshape(w, BATCH), C[: w * BATCH].reshape(w, BATCH)
        np.matmul(W[:w], Xb.T, out=z)
        np.cos(z, out=c)
        np.sin(z, out=z)
        np.matmul(Xn, W[w:w + M].T, out=Zn)
        np.cos(Zn, out=Cn)
        np.sin(Zn, out=Zn)
    return time.perf_counter() - t


def bench_b() -> dict:
    X, y = _semi(200, 20_000)
    QSGS2AUC(**_params(20)).fit(X, y)  # warm up
    fits, floors = [], []
    for _ in range(3):
        t = time.perf_counter()
        QSGS2AUC(**_params()).fit(X, y)
        fits.append(time.perf_counter() - t)
        floors.append(floor_training())
    fit, floor = min(fits), min(floors)
    return {"fit_s": fit, "floor_s": floor, "ratio": fit / floor,
            "per_iteration_ms": 1e3 * fit / ITERS, "target": "<= 1.5x"}


_C_CHILD = """
import json, resource, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
from ordauc.data.builtin import synthetic_binary
from ordauc.solvers.qsg import QSGS2AUC
n = int(sys.argv[1])
ds = synthetic_binary(n=n, d=18, seed=0)
X, y = ds.X, ds.y
y[200:] = -1
with threadpool_limits(1):
    t = time.perf_counter()
    QSGS2AUC(lam=0.5, sigma=1.0, gamma=0.5, n_iter=150, batch_size=64, block_size=64,
             random_state=1).fit(X, y)
    fit = time.perf_counter() - t
print(json.dumps({"n": n, "fit_s": fit, "data_bytes": X.nbytes,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def bench_c(quick: bool) -> dict:
    big = 500_000 if quick else 5_000_000
    runs = {}
    for n in (50_000, big):
        out = subprocess.run([sys.executable, "-c", _C_CHILD, str(n)], capture_output=True,
                             text=True, check=True)
        runs[n] = json.loads(out.stdout)
    small, large = runs[50_000], runs[big]
    budget = large["data_bytes"] + (1 << 30)
    return {"n_large": big, "fit_s_50k": small["fit_s"], "fit_s_large": large["fit_s"],
            "time_ratio_large_vs_50k": large["fit_s"] / small["fit_s"],
            "data_mb": large["data_bytes"] / 2**20, "peak_rss_mb": large["peak_rss_bytes"] / 2**20,
            "budget_mb": budget / 2**20, "within_budget": large["peak_rss_bytes"] <= budget,
            "target": "ratio ~1, peak <= data + 1 GB"}


def bench_d(quick: bool) -> dict:
    n_score = 100_000 if quick else 1_000_000
    n_blocks = 2000
    X, y = _semi(200, 5_000)
    model = QSGS2AUC(lam=0.5, sigma=SIGMA, gamma=0.5, n_iter=n_blocks, batch_size=4,
                     block_size=M, random_state=1).fit(X, y)
    Xs = np.random.default_rng(1).random((n_score, D), dtype=np.float32)
    t = time.perf_counter()
    model.decision_function(Xs)
    t_score = time.perf_counter() - t
    # Floor: the same chunk shapes as the engine, matmul + cos + sin only, on a tenth of the
    # rows (the cost is linear in the rows) and scaled up.
    blocks: FeatureBlocks = model.blocks_
    rows, per_chunk = blocks._chunking(n_score, n_blocks)
    W = blocks.stacked(0, n_blocks, np.empty((n_blocks * M, D), np.float32), None)[0]
    sub = Xs[: n_score // 10]
    Z = np.empty((per_chunk * M, rows), np.float32)
    C = np.empty_like(Z)
    t = time.perf_counter()
    for b0 in range(0, n_blocks, per_chunk):
        Wc = W[b0 * M:(b0 + per_chunk) * M]
        for r0 in range(0, sub.shape[0], rows):  # rows divides sub's size here
            np.matmul(Wc, sub[r0:r0 + rows].T, out=Z[: Wc.shape[0]])
            np.cos(Z[: Wc.shape[0]], out=C[: Wc.shape[0]])
            np.sin(Z[: Wc.shape[0]], out=Z[: Wc.shape[0]])
    floor = (time.perf_counter() - t) * n_score / sub.shape[0]
    return {"n_score": n_score, "n_blocks": n_blocks, "score_s": t_score, "floor_s": floor,
            "ratio": t_score / floor, "chunk": [rows, per_chunk * M],
            "chunk_mb": 2 * rows * per_chunk * M * 4 / 2**20, "target": "<= 1.5x"}


def summary(r: dict) -> str:
    """The figures as Markdown: every speed as a ratio against a reference timed in the run."""
    lines = ["# QSG engine benchmarks", "",
             f"`python benchmarks/bench_qsg.py` ({'quick' if r.get('quick') else 'full'} run; "
             f"Python {r.get('python')}, numpy {r.get('numpy')}, one BLAS thread).", "",
             "| item | measured | reference (same run) | ratio | target |",
             "|---|---|---|---|---|"]
    if "a" in r:
        a = r["a"]
        lines.append(f"| (a) training, 200 iterations | {a['fast_s']:.3f} s | plain Algorithm 1 "
                     f"{a['plain_s']:.2f} s | {a['speedup']:.1f}x faster | >= 50x |")
    if "b" in r:
        b = r["b"]
        lines.append(f"| (b) training time per iteration | {b['per_iteration_ms']:.3f} ms | floor "
                     f"{1e3 * b['floor_s'] / ITERS:.3f} ms | {b['ratio']:.2f}x | <= 1.5x |")
    if "c" in r:
        c = r["c"]
        lines.append(f"| (c) {c['n_large']:,} x 18 rows, 150 iterations | {c['fit_s_large']:.2f} s,"
                     f" peak {c['peak_rss_mb']:.0f} MB | 50,000 rows {c['fit_s_50k']:.2f} s; "
                     f"budget {c['budget_mb']:.0f} MB (data {c['data_mb']:.0f} MB + 1 GB) | "
                     f"{c['time_ratio_large_vs_50k']:.2f}x time | ~1x, within budget |")
    if "d" in r:
        d = r["d"]
        lines.append(f"| (d) scoring {d['n_score']:,} points, {d['n_blocks']} blocks | "
                     f"{d['score_s']:.1f} s | floor {d['floor_s']:.1f} s | {d['ratio']:.2f}x | "
                     f"<= 1.5x |")
    lines += ["", "The floor is the float32 matrix products and cos/sin of the shapes the work "
              "needs, into preallocated buffers, in the faster (W X^T) layout. (a) uses the same "
              "samples and frequencies on both sides; their decision values agree to "
              f"{r.get('a', {}).get('max_rel_gap_same_iterates', float('nan')):.1e} (relative).",
              ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", nargs="*", default=["a", "b", "c", "d"])
    ap.add_argument("--quick", action="store_true", help="smaller (c) and (d)")
    ap.add_argument("--out", default="benchmarks/results/qsg.json")
    ap.add_argument("--md", default="benchmarks/RESULTS.md", help="readable summary")
    args = ap.parse_args()
    results = {"machine": platform.processor() or platform.machine(),
               "python": sys.version.split()[0], "numpy": np.__version__, "quick": args.quick}
    with threadpool_limits(1):
        for key in args.which:
            fn = {"a": bench_a, "b": bench_b, "c": lambda: bench_c(args.quick),
                  "d": lambda: bench_d(args.quick)}[key]
            results[key] = fn()
            print(key, json.dumps(results[key], indent=1), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(out.read_text()) if out.exists() else {}
    old.update(results)
    out.write_text(json.dumps(old, indent=1) + "\n")
    if args.md:
        Path(args.md).write_text(summary(old))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak rss of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
