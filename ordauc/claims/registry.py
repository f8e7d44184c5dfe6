"""The registry of the papers' claims: one :class:`Claim` per checkable statement, each with
a check that reads a study's results and returns an :class:`Outcome`.

A claim is registered with :func:`claim` on its check function::

    @claim("QS3ORAO", "QS3-2", studies=("qs3orao",),
           text="QS3ORAO has higher AUC than SVOREX trained on the 500 labeled rows",
           rule="CONFIRMED if the mean paired difference is > 0 on all 8 datasets and "
                "significant on >= 5; PARTIAL if > 0 on >= 5")
    def qs3_2(study: Study) -> Outcome: ...

``studies`` names the configs (by file stem) whose runs decide the claim; checking a claim on
a folder that serves another study gives UNDECIDABLE naming them, without calling the check.
``composite`` claims are called with the other claims' outcomes (a dict by claim id) instead
of a study, once every other claim is decided.

A claim from outside the package (a fifth paper, a researcher's own question) is a module that
calls :func:`register_paper` and decorates its checks with :func:`claim`: imported by hand, or
named in the ``ordauc.claims`` entry-point group of an installed package, which ``import
ordauc.claims`` loads after the built-in claims.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ordauc.claims.algebra import Judgment

CONFIRMED = "CONFIRMED"
PARTIAL = "PARTIAL"
NOT_CONFIRMED = "NOT CONFIRMED"
UNDECIDABLE = "UNDECIDABLE"
VERDICTS = (CONFIRMED, PARTIAL, NOT_CONFIRMED, UNDECIDABLE)
# A protocol statement of a paper is a property of our runs, not a claim the paper could get
# wrong: it is FOLLOWED or DEVIATED (how, and why), NOT RECORDED where the runs cannot tell,
# and a NOTE where it is a fact about the paper (its machine, its code) that no run reproduces.
FOLLOWED, DEVIATED, NOT_RECORDED, NOTE = "FOLLOWED", "DEVIATED", "NOT RECORDED", "NOTE"
PROTOCOL_STATES = (FOLLOWED, DEVIATED, NOT_RECORDED, NOTE)

PAPERS = {  # registry key -> how the report names the paper
    "QS3ORAO": "QS3ORAO (AAAI 2020)",
    "QSG-S2AUC": "QSG-S2AUC (IJCAI 2019)",
    "NPSVOR": "NPSVOR (IEEE T-Cyb 2017)",
    "AUC-DCD": "AUC-DCD (J. Software 2014)",
}


@dataclass(frozen=True)
class Outcome:
    """What a check found.

    ``verdict`` is one of :data:`VERDICTS`; ``statistic`` the number(s) the rule compares, in
    a few words (``"highest on 6 of 8 datasets"``); ``evidence`` the per-dataset or per-cell
    detail behind it; ``reading`` says whether the rule is the paper's literal words
    (``strict``) or this project's operational reading of vague words (``interpretation``).
    An UNDECIDABLE outcome's ``evidence`` says what is missing.

    The structured side, for tests and for readers' own rules: ``values`` holds the numbers
    behind the statistic by name (counts, ratios, slopes); ``judgments`` each unit's state
    (:class:`ordauc.claims.algebra.Judgment`); ``provisional`` what an UNDECIDABLE rule leans
    to on the runs at hand (never a verdict).
    """

    verdict: str
    statistic: str
    evidence: str
    reading: str = "interpretation"
    values: Mapping[str, object] = field(default_factory=dict, compare=False)
    judgments: tuple[Judgment, ...] = field(default=(), compare=False)
    provisional: str | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS + PROTOCOL_STATES:
            raise ValueError(f"verdict must be one of {VERDICTS + PROTOCOL_STATES}, "
                             f"not {self.verdict!r}")


def undecidable(why: str, statistic: str = "") -> Outcome:
    """An UNDECIDABLE outcome whose evidence is the reason (what is missing)."""
    return Outcome(UNDECIDABLE, statistic or "not computed", why)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, as a check over the results of the studies named in ``studies``.

    ``paper`` is a key of :data:`PAPERS`; ``id`` the claim's short name (``QS3-1``); ``text``
    the claim in one sentence (the paper's words where they are plain); ``rule`` the verdict
    rule in words, printed beside every verdict so a reader can disagree with it.
    """

    paper: str
    id: str
    text: str
    rule: str
    studies: tuple[str, ...]
    check: Callable[..., Outcome] = field(compare=False, repr=False)
    composite: bool = False

    @property
    def label(self) -> str:
        return f"{self.id}: {self.text}"

    @property
    def protocol(self) -> bool:
        """A protocol statement (``QS3-P2``): reported as FOLLOWED / DEVIATED, not a verdict."""
        tail = self.id.rsplit("-", 1)[-1]
        return tail[:1] == "P" and tail[1:].isdigit()


CLAIMS: dict[str, Claim] = {}
ENTRY_POINT_GROUP = "ordauc.claims"  # installed packages' modules that register claims


def register_paper(key: str, title: str) -> None:
    """Add a paper whose claims :func:`claim` may register (``title`` is how the report names
    it); registering the same key again with the same title is a no-op."""
    if PAPERS.get(key, title) != title:
        raise ValueError(f"paper {key!r} is registered already as {PAPERS[key]!r}")
    PAPERS[key] = title


def claim(paper: str, id: str, *, text: str, rule: str, studies: tuple[str, ...],
          composite: bool = False) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register the decorated function as the check of claim ``id`` of ``paper``."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; one of {sorted(PAPERS)}")

    def register(check: Callable[..., Outcome]) -> Callable[..., Outcome]:
        if id in CLAIMS:
            raise ValueError(f"claim {id} is registered twice")
        CLAIMS[id] = Claim(paper, id, text, rule, tuple(studies), check, composite)
        return check

    return register
