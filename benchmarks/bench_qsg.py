"""Speed and memory of the QSG engine, against a plain Algorithm 1 and against the machine's floor.

    python benchmarks/bench_qsg.py [a b c d] [--quick] [--out benchmarks/results/qsg.json]

(a) QSG-S2AUC training vs the plain Algorithm 1 of :mod:`ordauc.solvers.dsg.reference` (float64,
    every block drawn again at every prediction) on the same iterates: d = 20, 200 labeled,
    20,000 unlabeled, batches of 64, 64 frequencies per block, 200 iterations.
(b) the same training against the floor: the float32 matrix products and cos/sin of the shapes
    each iteration must compute (the sampled unlabeled batch against all previous blocks, the
    labeled rows and the batch against the new block), timed in the same run. A second, stricter
    floor is that of the amplitude-phase form the engine evaluates (one cosine per frequency,
    the phase as one more column of the product): the engine's own overhead.
(c) 5,000,000 x 18 float32 rows (SUSY's shape): time per iteration (the slope between 50 and
    150 iterations, so the one-off O(n) label split is apart) against 50,000 rows, and the peak
    resident memory of a fresh process against the data's size + 1 GB.
(d) scoring 1,000,000 points with a 2,000-block model against both floors on the same chunks.

Every timing runs with one BLAS thread (as the experiment runner's workers do).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from provenance import git_commit, provenance
from report import section_text
from threadpoolctl import threadpool_limits

from ordauc.data.builtin import synthetic_binary
from ordauc.solvers.dsg import reference as qsg_reference
from ordauc.solvers.dsg.qsg import QSGS2AUC

D, M, BATCH, ITERS, SIGMA = 20, 64, 64, 200, 1.0


def _semi(n_labeled: int, n_unlabeled: int, d: int = D, seed: int = 0):
    ds = synthetic_binary(n=n_labeled + n_unlabeled, d=d, seed=seed)
    y = ds.y.copy()
    y[n_labeled:] = -1
    return ds.X, y


def _params(n_iter: int = ITERS) -> dict:
    return dict(lam=0.5, sigma=SIGMA, gamma=0.5, n_iter=n_iter, batch_size=BATCH,
                block_size=M, random_state=1)


def _best(fn, reps: int) -> float:
    """Least wall time of ``reps`` calls: the estimate least disturbed by other load."""
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_a() -> dict:
    X, y = _semi(200, 20_000)
    QSGS2AUC(**_params(20)).fit(X, y)  # warm up both, then time each on the same iterates
    qsg_reference.fit(X, y, binary=True, **_params(5))
    t_fast = _best(lambda: QSGS2AUC(**_params()).fit(X, y), 5)
    fast = QSGS2AUC(**_params()).fit(X, y)
    out = {}
    t_plain = _best(lambda: out.update(alphas=qsg_reference.fit(X, y, binary=True,
                                                                 **_params())), 2)
    alphas = out["alphas"]
    probe = X[:2000]
    f_ref = qsg_reference.predict(probe, alphas, 1, M, SIGMA)
    gap = float(np.abs(fast.decision_function(probe) - f_ref).max() / np.abs(f_ref).max())
    return {"fast_s": t_fast, "plain_s": t_plain, "speedup": t_plain / t_fast,
            "max_rel_gap_same_iterates": gap, "target": ">= 50x"}


def floor_training(n_labeled: int = 200, n_iter: int = ITERS, phase_form: bool = False) -> float:
    """The float32 products and cos/sin every iteration needs, into preallocated outputs: the
    unlabeled batch against blocks 1..t-1, and labeled + batch rows against block t (cos and sin
    of the new block are needed by the gradient in either form). ``phase_form``: one cosine per
    old frequency, the product one column wider (the engine's evaluation)."""
    rng = np.random.default_rng(0)
    k = D + 1 if phase_form else D
    Xb = rng.random((BATCH, k), dtype=np.float32)
    Xn = rng.random((n_labeled + BATCH, D), dtype=np.float32)
    W = rng.standard_normal((n_iter * M, k), dtype=np.float32)
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
        if not phase_form:
            np.sin(z, out=z)
        np.matmul(Xn, W[w:w + M, :D].T, out=Zn)
        np.cos(Zn, out=Cn)
        np.sin(Zn, out=Zn)
    return time.perf_counter() - t


def bench_b() -> dict:
    X, y = _semi(200, 20_000)
    QSGS2AUC(**_params(20)).fit(X, y)  # warm up
    fits, floors, strict = [], [], []
    for _ in range(7):  # interleaved, so slow spells of the machine hit all three alike
        t = time.perf_counter()
        QSGS2AUC(**_params()).fit(X, y)
        fits.append(time.perf_counter() - t)
        floors.append(floor_training())
        strict.append(floor_training(phase_form=True))
    fit, floor, floor_pf = min(fits), min(floors), min(strict)
    return {"fit_s": fit, "floor_s": floor, "ratio": fit / floor,
            "floor_phase_form_s": floor_pf, "ratio_phase_form": fit / floor_pf,
            "per_iteration_ms": 1e3 * fit / ITERS, "target": "<= 1.5x"}


_C_CHILD = """
import json, resource, sys, time
import numpy as np
from threadpoolctl import threadpool_limits
from ordauc.data.builtin import synthetic_binary
from ordauc.solvers.dsg.qsg import QSGS2AUC
n = int(sys.argv[1])
ds = synthetic_binary(n=n, d=18, seed=0)
X, y = ds.X, ds.y
y[200:] = -1
fit = {}
with threadpool_limits(1):
    for T in (50, 150, 50, 150):
        t = time.perf_counter()
        QSGS2AUC(lam=0.5, sigma=1.0, gamma=0.5, n_iter=T, batch_size=64, block_size=64,
                 random_state=1).fit(X, y)
        fit[T] = min(fit.get(T, 1e9), time.perf_counter() - t)
print(json.dumps({"n": n, "fit_s": fit[150], "per_iteration_s": (fit[150] - fit[50]) / 100,
                  "data_bytes": X.nbytes,
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
            "per_iteration_ms_50k": 1e3 * small["per_iteration_s"],
            "per_iteration_ms_large": 1e3 * large["per_iteration_s"],
            "per_iteration_ratio_large_vs_50k": large["per_iteration_s"]
            / small["per_iteration_s"],
            "data_mb": large["data_bytes"] / 2**20, "peak_rss_mb": large["peak_rss_bytes"] / 2**20,
            "budget_mb": budget / 2**20, "within_budget": large["peak_rss_bytes"] <= budget,
            "target": "per-iteration ratio ~1, peak <= data + 1 GB"}


def _floor_scoring(Xs: np.ndarray, n_blocks: int, rows: int, per_chunk: int,
                   phase_form: bool) -> float:
    """matmul + cos (+ sin) over the chunk shapes of the engine, on every row of ``Xs``."""
    k = D + 1 if phase_form else D
    W = np.random.default_rng(2).standard_normal((per_chunk * M, k), dtype=np.float32)
    Xa = np.ones((rows, k), np.float32)
    Z = np.empty(per_chunk * M * rows, np.float32)
    C = np.empty_like(Z)
    t = time.perf_counter()
    for _ in range(0, n_blocks, per_chunk):  # every block chunk has the same shape here
        for r0 in range(0, Xs.shape[0], rows):
            x = Xs[r0:r0 + rows]
            Xa[: x.shape[0], :D] = x
            z = Z[: W.shape[0] * x.shape[0]].reshape(W.shape[0], x.shape[0])
            np.matmul(W, Xa[: x.shape[0]].T, out=z)
            if phase_form:
                np.cos(z, out=z)
            else:
                c = C[: z.size].reshape(z.shape)
                np.cos(z, out=c)
                np.sin(z, out=z)
    return time.perf_counter() - t


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
    # The floors run on a tenth of the rows (the cost is linear in the rows), scaled up.
    rows, per_chunk = model.blocks_._chunking(n_score, n_blocks)
    sub = Xs[: n_score // 10]
    scale = n_score / sub.shape[0]
    floor = _floor_scoring(sub, n_blocks, rows, per_chunk, False) * scale
    floor_pf = _floor_scoring(sub, n_blocks, rows, per_chunk, True) * scale
    return {"n_score": n_score, "n_blocks": n_blocks, "score_s": t_score, "floor_s": floor,
            "ratio": t_score / floor, "floor_phase_form_s": floor_pf,
            "ratio_phase_form": t_score / floor_pf, "chunk": [rows, per_chunk * M],
            "chunk_mb": rows * per_chunk * M * 4 / 2**20, "target": "<= 1.5x"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("which", nargs="*", default=["a", "b", "c", "d"])
    ap.add_argument("--quick", action="store_true", help="smaller (c) and (d)")
    ap.add_argument("--out", default="benchmarks/results/qsg.json")
    ap.add_argument("--md", default=None,
                    help="also write this benchmark's section alone to this Markdown file "
                         "(benchmarks/RESULTS.md is benchmarks/report.py's, from every JSON)")
    args = ap.parse_args()
    start = time.perf_counter()
    results = {**provenance(), "quick": args.quick}
    with threadpool_limits(1):
        for key in args.which:
            fn = {"a": bench_a, "b": bench_b, "c": lambda: bench_c(args.quick),
                  "d": lambda: bench_d(args.quick)}[key]
            # Each part is stamped: a later run of some parts merges into the same JSON.
            results[key] = {**fn(), "measured_at": time.strftime("%Y-%m-%d %H:%M"),
                            "git_sha": git_commit()}
            print(key, json.dumps(results[key], indent=1), flush=True)
    results["load_average_end"] = list(os.getloadavg())
    results["bench_s"] = time.perf_counter() - start
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(out.read_text()) if out.exists() else {}
    old.update(results)
    out.write_text(json.dumps(old, indent=1) + "\n")
    section = section_text("qsg", old)
    print(section)
    if args.md:
        Path(args.md).write_text(section)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak rss of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
