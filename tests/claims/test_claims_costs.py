"""An UNDECIDABLE verdict says what deciding it would take: the shipped config and its
core-hours, the README's figures."""

from __future__ import annotations

import re

from claims_tables import runs, study
from conftest import REPO

from ordauc.claims import check_claims
from ordauc.claims.costs import CORE_HOURS, _hours, cost_text, with_costs

README = REPO / "README.md"


def _readme_table() -> dict[str, tuple[float, float]]:
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| ([\d.,]+) \| ([\d.,]+) \|$",
                      README.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {stem: (float(a.replace(",", "")), float(b.replace(",", ""))) for stem, a, b in rows}


def test_costs_are_the_readmes_table() -> None:
    assert _readme_table() == CORE_HOURS


def test_every_shipped_config_has_a_cost() -> None:
    shipped = {p.stem for p in (README.parent / "configs").glob("*.yaml")}
    assert shipped - {"quickstart", "unlabeled_binary", "unlabeled_ordinal"} == set(CORE_HOURS)


def test_with_costs_names_each_config_once() -> None:
    text = with_costs("run configs/qsg_s2auc.yaml or configs/npsvor_toy.yaml; configs/qsg_s2auc"
                      ".yaml again; configs/my_own.yaml")
    assert text.count("core-hours") == 2
    paper, quick = CORE_HOURS["qsg_s2auc"]
    assert (f"configs/qsg_s2auc.yaml: about {_hours(paper)} core-hours ({_hours(quick)} under "
            "--profile quick)") in text
    assert f"configs/npsvor_toy.yaml: about {_hours(CORE_HOURS['npsvor_toy'][0])} core-hours" \
        in text
    assert with_costs(text) == text  # once
    assert with_costs("no config named") == "no config named"
    assert cost_text("npsvor_scale") == f"about {_hours(CORE_HOURS['npsvor_scale'][0])} core-hours"


def test_an_undecidable_verdict_names_the_config_and_its_cost() -> None:
    """A folder without the time study: QSG-1 says which config decides it, at what cost."""
    rows = runs("codrna", "qsg_s2auc", auc=[0.8] * 10, tuning="cv") + runs(
        "codrna", "samult", auc=[0.7] * 10, tuning="cv")
    found = {f.claim.id: f.outcome for f in check_claims([study("qsg_s2auc", rows)])}
    convergence = found["QSG-8"]
    assert convergence.verdict == "UNDECIDABLE"
    assert "configs/qsg_s2auc_convergence.yaml: about 0.5 core-hours" in convergence.evidence
    decided = [o for o in found.values() if o.verdict != "UNDECIDABLE"]
    assert decided and not any("core-hours" in o.evidence for o in decided)
