"""The benchmark sections of ``benchmarks/RESULTS.md``: one module per benchmark.

Each module of this package registers one benchmark's section by defining ``SECTION``, a
:class:`Section`: the stem of the JSON it reads (``benchmarks/results/<name>.json``), its
heading and place on the page, the goals the benchmark sets itself (:class:`Goal`), and how its
figures are rendered and measured again. ``benchmarks/report.py`` walks the package and lays the
sections out; adding a benchmark to the page is one new module here, with no edit of the report.

The modules only read a JSON's figures: they import nothing heavy, so the report renders in a
second and a bench script can print its own section (``report.section_text``) or table without
loading the other benchmarks' dependencies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]

LABELS = {"qsg_s2auc": "QSG-S2AUC", "samult": "SAMULT", "pnu_auc": "PNU-AUC",
          "npsvor": "NPSVOR", "svorex": "SVOREX", "svorim": "SVORIM"}


# -- formatting shared by the sections and the page frame ----------------------------------------

def duration(seconds: float) -> str:
    """A duration in the unit that reads best: seconds, minutes or hours."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:,.1f} h"


def seconds(value: float) -> str:
    """CPU seconds as the shared-work sections give them: seconds below 10 minutes, else hours."""
    return f"{value:,.1f} s" if value < 600 else f"{value / 3600:,.2f} h"


def faster(ratio: float) -> str:
    """A speed-up as words: '1.92x faster', or '0.52x (slower)' below 1."""
    return f"{ratio:.2f}x " + ("faster" if ratio >= 1 else "(slower)")


def judged(r: Row, met: bool) -> bool | None:
    """Whether a goal is met; not judged on a quick run (smaller work, a look only)."""
    return None if r.get("quick") else met


def with_goal(measured: str, goal: str, met: bool | None) -> str:
    """``measured (goal <target>: met)``, ``: **missed**``, or no verdict when not judged."""
    verdict = "" if met is None else (": met" if met else ": **missed**")
    return f"{measured} (goal {goal}{verdict})"


# -- the family --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Goal:
    """A target a benchmark sets itself, judged on every full run of it.

    Parameters
    ----------
    phrase
        The measured figure as the headline says it (``'training 61.1x faster than ...'``).
    value
        The number the goal judges, read from the benchmark's JSON.
    target
        The goal as the page writes it (``'>= 50x'``).
    bound
        The number ``value`` must reach: at least it, or at most it with ``at_most``.
    at_most
        The value must stay at or below ``bound`` (a ratio to a floor, a memory share).
    part
        The path of keys the goal reads in the JSON; a run without it (a benchmark measured in
        parts, some left out) does not state the goal.
    """

    phrase: Callable[[Row], str]
    value: Callable[[Row], float]
    target: str
    bound: float
    at_most: bool = False
    part: tuple[str, ...] = ()

    def applies(self, r: Row) -> bool:
        """Whether the run measured what the goal reads."""
        at: Any = r
        for key in self.part:
            if not isinstance(at, dict) or key not in at:
                return False
            at = at[key]
        return True

    def met(self, r: Row) -> bool | None:
        """True or False on a full run; None on a quick run, which is not judged."""
        value = self.value(r)
        return judged(r, value <= self.bound if self.at_most else value >= self.bound)

    def shown(self, r: Row) -> str:
        """The headline entry: the measured phrase, the goal and its verdict."""
        return with_goal(self.phrase(r), self.target, self.met(r))


def _no_notes(r: Row) -> list[str]:
    return []


@dataclass(frozen=True)
class Section:
    """One benchmark on the page: what it reads, its goals and how it is rendered.

    Parameters
    ----------
    name
        The stem of the JSON the benchmark writes: ``benchmarks/results/<name>.json``.
    title
        The section's heading (and its entry in the table of contents).
    order
        Its place on the page: sections are laid out by increasing ``order``.
    body
        The section's text under its heading, from the JSON (lines of Markdown).
    rerun
        The command that measures the figures again, as the JSON's run was made.
    goals
        The benchmark's goals; each the run measured is stated in the headline with its verdict.
    notes
        Further headline entries after the goals (figures without a goal).
    """

    name: str
    title: str
    order: int
    body: Callable[[Row], list[str]]
    rerun: Callable[[Row], str]
    goals: tuple[Goal, ...] = ()
    notes: Callable[[Row], list[str]] = _no_notes

    @property
    def file(self) -> str:
        """The file name of the JSON the section reads."""
        return f"{self.name}.json"

    def headline(self, r: Row) -> list[str]:
        """The section's entries of the table of contents: its goals, then its notes."""
        return [goal.shown(r) for goal in self.goals if goal.applies(r)] + self.notes(r)
