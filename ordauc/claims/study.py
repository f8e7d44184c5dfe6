"""A study's results as the claim checks read them, and the checking of every claim on one
study or on all the studies of a folder.

A study is named by the file stem of the config it ran (``qs3orao`` for ``configs/qs3orao.yaml``
and for its offline twin ``configs/offline/qs3orao.yaml``); a claim names the studies whose runs
decide it. On a study's own page every claim of its paper is listed: those decided by another
study's runs are UNDECIDABLE, naming that config. Over a folder of studies (the index page) a
claim takes the outcome of the first of its studies present.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ordauc.claims.algebra import lean_text
from ordauc.claims.costs import with_costs

if TYPE_CHECKING:
    from ordauc.config import Config
from ordauc.claims.registry import (
    CLAIMS,
    CONFIRMED,
    DEVIATED,
    FOLLOWED,
    NOT_CONFIRMED,
    NOT_RECORDED,
    PARTIAL,
    UNDECIDABLE,
    Claim,
    Outcome,
    undecidable,
)


@dataclass
class Study:
    """The tables of one study's results folder.

    ``results`` has every row whatever its status (:func:`ordauc.results.frame.load_results`);
    ``curves`` and ``tuning`` are the side tables (None where the folder has none); ``offline``
    marks an offline twin (reduced data), which the outcomes mention.
    """

    name: str
    results: pd.DataFrame
    curves: pd.DataFrame | None = None
    tuning: pd.DataFrame | None = None
    offline: bool = False
    directory: Path | None = None
    config: Config | None = field(default=None, repr=False)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The papers' studies this folder is (:func:`ordauc.claims.kinds.kinds_of`): by its
        runs, not by the name of its config."""
        from ordauc.claims.kinds import kinds_of

        return kinds_of(self.results, self.name)

    @classmethod
    def from_folder(cls, directory: str | Path, results: pd.DataFrame | None = None) -> Study:
        """Read a results folder of ``ordauc run`` (its table too, unless ``results`` is the
        one a caller has read already)."""
        from ordauc.results import StudyFolder

        folder = StudyFolder(Path(directory))
        record = folder.record()
        name = record.stem if record else folder.path.name
        offline = record.offline if record else folder.path.parent.name == "offline"
        return cls(name=name, results=folder.results() if results is None else results,
                   curves=folder.curves(), tuning=folder.tuning(), offline=offline,
                   directory=folder.path, config=folder.config())


@dataclass(frozen=True)
class Finding:
    """A claim's outcome, and the study that decided it ('' when none could)."""

    claim: Claim
    outcome: Outcome
    study: str = ""


def papers_of(kinds: Iterable[str]) -> list[str]:
    """The papers whose claims some of these studies' runs decide, in registry order."""
    kinds = set(kinds)
    return list(dict.fromkeys(c.paper for c in CLAIMS.values() if kinds & set(c.studies)))


def _needs(claim: Claim) -> str:
    configs = " or ".join(f"configs/{s}.yaml" for s in claim.studies)
    return f"decided by the runs of {configs}, which are not in this folder"


_PROTOCOL = {CONFIRMED: FOLLOWED, PARTIAL: DEVIATED, NOT_CONFIRMED: DEVIATED,
             UNDECIDABLE: NOT_RECORDED}


def _why_deviated(study: Study) -> str:
    """Why a study deviates from a paper's protocol, where the study itself says so."""
    reasons = []
    if study.offline:
        reasons.append("an offline twin, reduced on purpose to run on a laptop")
    profiles = (set(study.results["profile"].dropna().astype(str))
                if "profile" in study.results.columns else set())
    if "quick" in profiles:
        reasons.append("run under the quick profile (successive halving, 3 repetitions)")
    return "; ".join(reasons)


def _run(claim: Claim, study: Study) -> Outcome:
    outcome = claim.check(study)
    if claim.protocol:  # conformance of our runs, never a verdict on the paper
        state = _PROTOCOL.get(outcome.verdict, outcome.verdict)
        evidence = outcome.evidence
        if state == DEVIATED and "why" not in evidence and (what := _why_deviated(study)):
            # the study's own nature, stated as context: the check names its own cause
            evidence = f"{evidence} (this study is {what})"
        return replace(outcome, verdict=state, evidence=evidence)
    if outcome.verdict == UNDECIDABLE:  # what deciding it would take
        outcome = replace(outcome, evidence=with_costs(outcome.evidence))
    if outcome.provisional and outcome.verdict == UNDECIDABLE:
        outcome = replace(outcome, statistic=f"{outcome.statistic}{lean_text(outcome.provisional)}"
                          if "leans" not in outcome.statistic else outcome.statistic)
    if study.offline and outcome.verdict != UNDECIDABLE:
        outcome = replace(outcome, evidence=f"{outcome.evidence} (offline twin: reduced data)")
    return outcome


def check_claims(studies: Iterable[Study], papers: Iterable[str] | None = None) -> list[Finding]:
    """Every claim of ``papers`` (default: the papers the studies' runs speak to) checked on
    the first of its studies present in ``studies``; composite claims last, on the outcomes of
    the others."""
    by_name: dict[str, Study] = {}  # by the papers' study each is (its kinds), first wins
    for study in studies:
        for kind in study.kinds:
            by_name.setdefault(kind, study)
    wanted = list(papers) if papers is not None else papers_of(by_name)
    found: dict[str, Finding] = {}
    for claim in CLAIMS.values():
        if claim.paper not in wanted or claim.composite:
            continue
        present = [by_name[s] for s in claim.studies if s in by_name]
        if not present:
            missing = undecidable(with_costs(_needs(claim)))
            if claim.protocol:
                missing = replace(missing, verdict=NOT_RECORDED)
            found[claim.id] = Finding(claim, missing)
            continue
        decided = _run(claim, present[0])
        others: list[Study] = []
        for other in present[1:]:
            if all(other is not seen for seen in (present[0], *others)):
                others.append(other)
        if others:  # the index says what each study's own page says of the claim
            also = "; ".join(f"{o.name}: {_run(claim, o).verdict}" for o in others)
            decided = replace(decided, evidence=f"{decided.evidence} (on the other studies' "
                                                f"pages: {also})")
        found[claim.id] = Finding(claim, decided, present[0].name)
    outcomes = {key: f.outcome for key, f in found.items()}
    for claim in CLAIMS.values():
        if claim.paper in wanted and claim.composite:
            found[claim.id] = Finding(claim, claim.check(outcomes))
            outcomes[claim.id] = found[claim.id].outcome
    return sorted(found.values(), key=lambda f: order_key(f.claim))


def order_key(claim: Claim) -> tuple[int, int, int, str]:
    """Papers in :data:`PAPERS` order; per paper the result claims by number, then the
    protocol statements (``QS3-P2``), then the checks of the unlabeled rows (``U-ORD``)."""
    from ordauc.claims.registry import PAPERS

    tail = claim.id.rsplit("-", 1)[-1]
    kind = 0 if tail.isdigit() else 1 if tail[:1] == "P" and tail[1:].isdigit() else 2
    number = int(tail) if kind == 0 else int(tail[1:]) if kind == 1 else 0
    return list(PAPERS).index(claim.paper), kind, number, claim.id


def findings_table(findings: list[Finding]) -> pd.DataFrame:
    """The claims table: ``paper, claim, verdict, statistic, evidence, rule``, plus the
    ``study`` that decided each, the ``reading`` of its rule, and its ``kind``: ``claim`` (a
    result of the paper) or ``protocol`` (a statement of its protocol, whose verdict says
    whether our runs FOLLOWED it)."""
    from ordauc.claims.registry import PAPERS

    return pd.DataFrame([{
        "paper": PAPERS[f.claim.paper], "claim": f.claim.label, "verdict": f.outcome.verdict,
        "statistic": f.outcome.statistic, "evidence": f.outcome.evidence,
        "rule": f.claim.rule, "reading": f.outcome.reading, "study": f.study,
        "kind": "protocol" if f.claim.protocol else "claim",
    } for f in findings], columns=["paper", "claim", "verdict", "statistic", "evidence", "rule",
                                   "reading", "study", "kind"])
