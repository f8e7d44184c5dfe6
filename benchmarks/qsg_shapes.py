"""The command line and the JSON of the QSG benchmarks measured shape by shape (feature count d
and unlabeled rows): ``bench_qsg_cv.py`` and ``bench_qsg_folds.py``.

Each shape is measured by the benchmark's ``bench_one(d, n_unlabeled, reps, n_iter)`` on one
BLAS thread and printed by its ``describe(run)``; the JSON keeps the runs of the other shapes
already stored at the same iteration count, so a call for some shapes adds to the others.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provenance import provenance
from threadpoolctl import threadpool_limits

Row = dict[str, Any]


def main(doc: str, d: list[int], n_unlabeled: list[int], out: str,
         bench_one: Callable[[int, int, int, int], Row], describe: Callable[[Row], str]
         ) -> None:
    """Parse ``--d --n-unlabeled --reps --quick --out`` (defaults: ``d``, ``n_unlabeled``,
    ``out``), measure every shape asked for, and write the JSON."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=d)
    ap.add_argument("--n-unlabeled", type=int, nargs="+", default=n_unlabeled)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="200 iterations instead of 2,000")
    ap.add_argument("--out", default=out)
    args = ap.parse_args()
    start = time.perf_counter()
    n_iter = 200 if args.quick else 2000
    path = Path(args.out)
    old = json.loads(path.read_text()) if path.exists() else {}
    kept = {(r["d"], r["n_unlabeled"]): r for r in old.get("runs", [])
            if r.get("n_iter") == n_iter}
    results = {**provenance(), "quick": args.quick}
    with threadpool_limits(1):
        for dim in args.d:
            for n_u in args.n_unlabeled:
                r = bench_one(dim, n_u, args.reps, n_iter)
                kept[(dim, n_u)] = r
                print(f"d={dim:5d} n_u={n_u:6d}: {describe(r)}", flush=True)
    results["runs"] = sorted(kept.values(), key=lambda r: (r["d"], r["n_unlabeled"]))
    results["load_average_end"] = list(os.getloadavg())
    results["bench_s"] = time.perf_counter() - start
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {path}")
