"""NPSVOR scale (``bench_npsvor_scale.py``): training time of NPSVOR, SVOREX and SVORIM against
the training size, as ratios to SVORIM's. ``bench_npsvor_scale.py`` prints its table through
:func:`npsvor_table`."""

from __future__ import annotations

from sections import LABELS, Row, Section


def npsvor_table(rows: list[Row]) -> str:
    """CPU seconds of one fit per method and size, ratios to SVORIM, test MZE (Markdown)."""
    lines = ["| n | NPSVOR (s) | SVOREX (s) | SVORIM (s) | NPSVOR / SVORIM | SVOREX / SVORIM "
             "| MZE NPSVOR / SVOREX / SVORIM |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['n']:,} | {r['npsvor_cpu_s']:.3f} | {r['svorex_cpu_s']:.3f} | "
                     f"{r['svorim_cpu_s']:.3f} | {r['npsvor_ratio_to_svorim']:.2f}x | "
                     f"{r['svorex_ratio_to_svorim']:.2f}x | {r['npsvor_mze']:.3f} / "
                     f"{r['svorex_mze']:.3f} / {r['svorim_mze']:.3f} |")
    return "\n".join(lines)


def body(r: Row) -> list[str]:
    """bench_npsvor_scale: training time against the training size, as ratios to SVORIM."""
    params = "; ".join(f"{LABELS.get(k, k)} " + ", ".join(f"{p} = {v:g}" for p, v in v.items())
                       for k, v in r.get("params", {}).items())
    return [f"Data: {r['data']}. {params}. Process CPU seconds of one fit, one BLAS thread: the "
            f"best of {r['reps']} fits up to 1,000 rows, one fit above; ratios to SVORIM at the "
            "same size in the same run; MZE on 2,000 held-out rows.", "",
            npsvor_table(r["sizes"])]


def notes(r: Row) -> list[str]:
    if not r.get("sizes"):
        return []
    last = r["sizes"][-1]
    return [f"at {last['n']:,} rows NPSVOR takes {last['npsvor_ratio_to_svorim']:.2f}x SVORIM's "
            f"time, SVOREX {last['svorex_ratio_to_svorim']:.2f}x"]


def rerun(r: Row) -> str:
    args = "" if r.get("max_size", 6000) == 6000 else f" --max-size {r['max_size']}"
    args += "" if r.get("reps", 3) == 3 else f" --reps {r['reps']}"
    return "python benchmarks/bench_npsvor_scale.py" + args


SECTION = Section("npsvor_scale", "NPSVOR scale", 50, body, rerun, notes=notes)
