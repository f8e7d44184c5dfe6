"""Benchmark: prepare a HIGGS-shaped CSV.gz (11,000,000 x 28 by default) through `ordauc fetch`.

Generates ``HIGGS.csv.gz`` in a temporary folder (label first, then 28 features, every value
printed like the real file's ``%.18e``), then runs the real fetch code in a child process with
that folder as a local ``--mirror``: copy into the cache, integrity check, sha256, streamed
parse, [0, 1] scaling, train/test split, manifest. The catalogue's sha256 pin is lifted for the
run (the generated file is not the host's). Reports the child's peak resident memory against
twice the float32 size of the data, the time of each phase, and, as the reference timed in the
same run, the time to merely decompress the file (gzip, 1 MiB reads): no parser can be faster.
Figures go to ``benchmarks/results/prepare.json`` (``benchmarks/report.py`` renders them).

    python benchmarks/bench_prepare.py                  # the full 11,000,000 rows (minutes)
    python benchmarks/bench_prepare.py --rows 1000000   # a quicker look
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np
from provenance import provenance
from report import section_text

FEATURES = 28
TOKEN = 25  # 24 characters per value plus its separator


def _pool(rng: np.random.Generator, size: int = 1 << 16) -> np.ndarray:
    """``size`` formatted values as a (size, 25) byte table; negatives keep the width."""
    values = rng.normal(0.5, 1.0, size)
    text = [(f"{v:.17e}" if v < 0 else f"{v:.18e}") + "," for v in values]
    table = np.frombuffer("".join(text).encode(), dtype=np.uint8).reshape(size, TOKEN)
    return table


def generate(path: Path, rows: int, seed: int = 0, block: int = 200_000) -> float:
    """Write ``rows`` HIGGS-like lines to a gzip file; return seconds taken."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    pool = _pool(rng)
    labels = np.frombuffer(b"0.000000000000000000e+00,1.000000000000000000e+00,",
                           dtype=np.uint8).reshape(2, TOKEN)
    gz = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip container, fast level
    with open(path, "wb") as f:
        for begin in range(0, rows, block):
            m = min(block, rows - begin)
            line = np.empty((m, FEATURES + 1, TOKEN), dtype=np.uint8)
            line[:, 0] = labels[rng.integers(0, 2, m)]
            line[:, 1:] = pool[rng.integers(0, pool.shape[0], (m, FEATURES))]
            line[:, -1, -1] = ord("\n")
            f.write(gz.compress(line.tobytes()))
        f.write(gz.flush())
    return time.perf_counter() - start


def child(source: Path, data_dir: Path, rows: int) -> None:
    """Run the real fetch of `higgs` from the local folder ``source`` (in this process)."""
    from dataclasses import replace

    from ordauc.data.catalog import CATALOG
    from ordauc.data.fetch import fetch

    entry = CATALOG["higgs"]
    tail = min(500_000, rows // 22)  # the real file's last 500,000 rows, scaled down if smaller
    CATALOG["higgs"] = replace(entry, n=rows - tail, n_test=tail,
                               sources={"train": replace(entry.sources["train"], sha256=None)},
                               options={**entry.options, "test_tail": tail})
    start = time.perf_counter()
    fetch(["higgs"], data_dir, [str(source)], progress=False, echo=lambda s: None)
    total = time.perf_counter() - start
    manifest = json.loads((data_dir / "higgs" / "manifest.json").read_text())
    print(json.dumps({"total_s": total, "timings_s": manifest["timings_s"],
                      "n": manifest["n"], "n_test": manifest["n_test"], "d": manifest["d"]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=11_000_000)
    parser.add_argument("--child", nargs=2, metavar=("SOURCE", "DATA_DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--tmp", default=None, help="Folder for the temporary files.")
    parser.add_argument("--out", default="benchmarks/results/prepare.json")
    parser.add_argument("--md", default=None,
                        help="also write this benchmark's section alone to this Markdown file "
                             "(benchmarks/RESULTS.md is benchmarks/report.py's, from every JSON)")
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), args.rows)
        return
    start = time.perf_counter()
    stamp = provenance()
    with tempfile.TemporaryDirectory(dir=args.tmp, prefix="ordauc-bench-") as tmp:
        source, data_dir = Path(tmp) / "mirror", Path(tmp) / "data"
        source.mkdir()
        csv = source / "HIGGS.csv.gz"
        gen_s = generate(csv, args.rows)
        print(f"generated {args.rows:,} x {FEATURES} ({csv.stat().st_size / 1e9:.2f} GB gzip) "
              f"in {gen_s:.0f} s", flush=True)
        proc = subprocess.run([sys.executable, __file__, "--rows", str(args.rows), "--child",
                               str(source), str(data_dir)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
        if proc.returncode:
            sys.exit(f"the fetch failed:\n{proc.stderr}")
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # Linux: KiB
        unzip_s = decompress_time(csv)
        gz_bytes = csv.stat().st_size
    size32 = args.rows * FEATURES * 4
    result = {**stamp, "rows": args.rows, "features": FEATURES, "gzip_bytes": gz_bytes,
              "generate_s": gen_s, "prepare_s": report["total_s"],
              "timings_s": report["timings_s"], "decompress_only_s": unzip_s,
              "ratio_vs_decompress": report["total_s"] / unzip_s, "peak_rss_bytes": peak,
              "float32_bytes": size32, "peak_over_float32": peak / size32,
              "target": "peak <= 2x float32", "load_average_end": list(os.getloadavg()),
              "bench_s": time.perf_counter() - start}
    print(f"prepared {report['n']:,} + {report['n_test']:,} test rows x {report['d']}")
    print(f"peak resident memory of the fetch: {peak / 2**30:.2f} GiB; float32 data "
          f"{size32 / 2**30:.2f} GiB; bound 2x = {2 * size32 / 2**30:.2f} GiB "
          f"({'within' if peak <= 2 * size32 else 'ABOVE'} the bound)")
    print("time: " + ", ".join(f"{k} {v:.0f} s" for k, v in report["timings_s"].items())
          + f"; total {report['total_s']:.0f} s; decompressing alone {unzip_s:.0f} s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    section = section_text("prepare", result)
    print(section)
    if args.md:
        Path(args.md).write_text(section)


def decompress_time(path: Path) -> float:
    """Seconds to read ``path`` through gzip and discard the text: the floor of any parser."""
    start = time.perf_counter()
    with gzip.open(path, "rb") as f:
        while f.read(1 << 20):
            pass
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
