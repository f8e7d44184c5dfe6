"""The estimate under load (``bench_estimate_stability.py``): two dry runs of each config, one
beside a busy loop on every core, whose totals should agree.

Its headline states its goal in words, without the met or missed verdict of a
:class:`~sections.Goal`."""

from __future__ import annotations

from sections import Row, Section


def body(r: Row) -> list[str]:
    lines = ["Two dry runs of each config with a fresh calibration cache, one as the machine "
             "was and one beside a busy loop on every core (the order alternating), datasets "
             f"not fetched (sizes from the catalogue); the goal: totals within {r['within']}x.",
             "", "| config | as is | under load | ratio | per solver | dry run CPU | measured |",
             "|---|---|---|---|---|---|---|"]
    for x in r["results"]:
        when = " ".join(str(x[k]) for k in ("measured_at", "git_sha") if x.get(k))
        lines.append(
            f"| `{x['config']}` | {x['as_is']['core_hours']:,.1f} core-h | "
            f"{x['under_load']['core_hours']:,.1f} core-h | {x['ratio']:.2f}x | "
            f"{x['solver_ratio_min']:.2f}x to {x['solver_ratio_max']:.2f}x | "
            f"{x['as_is']['dry_run_cpu_s']:.0f} s / {x['under_load']['dry_run_cpu_s']:.0f} s | "
            f"{when or r.get('date', '')} |")
    return lines


def notes(r: Row) -> list[str]:
    worst = max(max(x["ratio"], 1 / x["ratio"]) for x in r["results"])
    return [f"two dry runs, one under load, agree within {worst:.2f}x (goal <= {r['within']}x)"]


def rerun(r: Row) -> str:
    return "python benchmarks/bench_estimate_stability.py"


SECTION = Section("estimate_stability", "The estimate under load", 130, body, rerun, notes=notes)
