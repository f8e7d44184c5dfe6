"""The reproduction (``cost_table.py``): the paper profile's core-hours per study, before
(the README's table at an older commit) and after (the dry run's estimate now).

Its headline states its goal in words, without the met or missed verdict of a
:class:`~sections.Goal`."""

from __future__ import annotations

from sections import Row, Section


def body(r: Row) -> list[str]:
    lines = [r["how"], "", "| study | core-hours before | core-hours after | ratio |",
             "|---|---:|---:|---:|"]
    for x in r["studies"]:
        ratio = x["before"] / x["after"] if x["after"] else float("nan")
        lines.append(f"| `{x['study']}` | {x['before']:,.4g} | {x['after']:,.4g} | "
                     f"{ratio:.1f}x |")
    before = sum(x["before"] for x in r["studies"])
    after = sum(x["after"] for x in r["studies"])
    lines.append(f"| **all** | **{before:,.0f}** | **{after:,.0f}** | "
                 f"**{before / after:.1f}x** |")
    return lines + ["", *r.get("notes", [])]


def notes(r: Row) -> list[str]:
    after = sum(x["after"] for x in r["studies"])
    return [f"the paper profile {after:,.0f} core-hours (goal <= {r['goal']:,})"]


def rerun(r: Row) -> str:
    return "python benchmarks/cost_table.py --json benchmarks/results/reproduction.json"


SECTION = Section("reproduction", "The reproduction", 80, body, rerun, notes=notes)
