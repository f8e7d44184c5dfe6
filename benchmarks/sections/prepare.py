"""Dataset preparation (``bench_prepare.py``): a HIGGS-shaped file through the real fetch,
its peak memory against the float32 data and its time against decompressing alone."""

from __future__ import annotations

from sections import Goal, Row, Section


def body(r: Row) -> list[str]:
    """bench_prepare: a HIGGS-shaped file through the real fetch, against decompressing it."""
    phases = ", ".join(f"{k} {v:.0f} s" for k, v in r["timings_s"].items())
    return [
        f"A generated HIGGS-shaped CSV.gz ({r['rows']:,} x {r['features']}, "
        f"{r['gzip_bytes'] / 1e9:.2f} GB) prepared by the real `ordauc fetch` code from a local "
        "mirror, in a child process.", "",
        "| item | measured | reference (same run) | ratio | target |",
        "|---|---|---|---|---|",
        f"| peak resident memory | {r['peak_rss_bytes'] / 2**30:.2f} GiB | float32 data "
        f"{r['float32_bytes'] / 2**30:.2f} GiB | {r['peak_over_float32']:.2f}x | "
        f"{PEAK_MEMORY.target} |",
        f"| time to prepare | {r['prepare_s']:.0f} s | decompressing alone "
        f"{r['decompress_only_s']:.0f} s | {r['ratio_vs_decompress']:.1f}x | |", "",
        f"Phases: {phases}. `download_and_verify` copies the file from the mirror, checks "
        "the whole archive (one full decompression, so that a corrupt file never enters the "
        "cache) and hashes it; `prepare` decompresses and parses it in blocks into float32 "
        "arrays."]


PEAK_MEMORY = Goal(lambda r: f"peak memory {r['peak_over_float32']:.2f}x the float32 data",
                   lambda r: r["peak_over_float32"], "<= 2x", 2, at_most=True)


def notes(r: Row) -> list[str]:
    return [f"{r['ratio_vs_decompress']:.1f}x the time of decompressing alone"]


def rerun(r: Row) -> str:
    rows = r.get("rows", 11_000_000)
    return "python benchmarks/bench_prepare.py" + ("" if rows == 11_000_000 else f" --rows {rows}")


SECTION = Section("prepare", "Dataset preparation", 60, body, rerun, (PEAK_MEMORY,), notes)
