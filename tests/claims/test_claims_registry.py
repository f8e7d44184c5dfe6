"""The claims registry as a whole: every claim of the four papers registered once, documented,
and checked without error on a study that lacks its runs (UNDECIDABLE, saying what is missing);
a study's page lists its paper's claims, other studies' claims naming their config."""

from __future__ import annotations

import pytest
from claims_tables import runs, study
from conftest import REPO

from ordauc.claims import CLAIMS, PAPERS, check_claims
from ordauc.claims.catalogue import with_catalogue
from ordauc.claims.registry import NOT_RECORDED, PROTOCOL_STATES, UNDECIDABLE, VERDICTS

DOCS = REPO / "docs" / "claims.md"
# The papers' claims: result claims, theory with a trace in the data, protocol statements, and
# the two checks of the unlabeled rows' value.
EXPECTED = {
    "QS3ORAO": [f"QS3-{i}" for i in range(1, 13)] + [f"QS3-P{i}" for i in range(1, 7)]
    + ["U-ORD"],
    "QSG-S2AUC": [f"QSG-{i}" for i in range(1, 10)] + [f"QSG-P{i}" for i in range(1, 7)]
    + ["U-BIN"],
    "NPSVOR": [f"NP-{i}" for i in range(1, 18)] + [f"NP-P{i}" for i in range(1, 6)],
    "AUC-DCD": [f"DCD-{i}" for i in range(1, 11)] + [f"DCD-P{i}" for i in range(1, 7)],
}


def test_every_claim_of_the_four_papers_is_registered_once() -> None:
    for paper, ids in EXPECTED.items():
        assert sorted(c.id for c in CLAIMS.values() if c.paper == paper) == sorted(ids), paper
    assert len(CLAIMS) == sum(len(ids) for ids in EXPECTED.values()) == 73
    for claim in CLAIMS.values():
        assert claim.paper in PAPERS and claim.text and len(claim.rule) > 20
        assert claim.composite or claim.studies


def test_the_docs_list_every_claim_as_the_registry_has_it() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert with_catalogue(text) == text, "run python -m ordauc.claims.catalogue docs/claims.md"
    for claim_id in CLAIMS:
        assert f"| {claim_id} |" in text


@pytest.mark.parametrize("name", sorted({s for c in CLAIMS.values() for s in c.studies}))
def test_a_study_without_the_runs_gives_undecidable_with_a_reason(name: str) -> None:
    """Every claim, on a study of the right name whose rows are of another solver and dataset:
    no exception, every verdict UNDECIDABLE or decided, never silent."""
    empty = study(name, runs("some_data", "some_solver", auc=[0.8, 0.9], mze=[0.3, 0.2],
                             mae=[0.4, 0.3], fit_time_s=[1.0, 1.0], cv_time_s=[2.0, 2.0]))
    findings = check_claims([empty])
    mine = {c.id for c in CLAIMS.values() if name in c.studies}
    assert mine <= {f.claim.id for f in findings}
    for finding in findings:
        # a protocol statement gets a state of our runs, a claim a verdict
        allowed = PROTOCOL_STATES if finding.claim.protocol else VERDICTS
        assert finding.outcome.verdict in allowed, finding.claim.id
        if finding.outcome.verdict in (UNDECIDABLE, NOT_RECORDED):
            assert len(finding.outcome.evidence) > 15, finding.claim.id


def test_claims_of_another_study_name_the_config_that_decides_them() -> None:
    findings = {f.claim.id: f for f in check_claims([study("npsvor_toy", runs(
        "npsvor_toy", "npsvor", mze=[0.1] * 20, mae=[0.1] * 20))])}
    assert set(findings) == set(EXPECTED["NPSVOR"])
    ranks = findings["NP-5"]
    assert ranks.outcome.verdict == UNDECIDABLE and ranks.study == ""
    assert "configs/npsvor.yaml" in ranks.outcome.evidence
    assert findings["NP-2"].study == "npsvor_toy"


def test_a_composite_claim_reads_the_outcomes_of_its_parts() -> None:
    """QS3-9 is decided from QS3-4, QS3-5/6 and QS3-7: all undecidable here, so is it."""
    findings = {f.claim.id: f for f in check_claims([study("qs3orao_time", runs(
        "x", "qs3orao", auc=[0.8] * 10, fit_time_s=[1.0] * 10))])}
    assert CLAIMS["QS3-9"].composite
    assert findings["QS3-9"].outcome.verdict == UNDECIDABLE


def test_a_study_is_matched_to_the_papers_by_what_it_ran_not_by_its_name() -> None:
    """A researcher's config under another name with the same runs gets the same verdicts."""
    from ordauc.claims.kinds import kinds_of

    rows = [*runs("codrna", "qsg_s2auc", auc=[0.8] * 10, tuning="cv"),
            *runs("codrna", "samult", auc=[0.7] * 10, tuning="cv")]
    named, mine = study("qsg_s2auc", rows), study("my_own_config", rows)
    assert mine.kinds == ("qsg_s2auc",)
    ours = {f.claim.id: (f.outcome.verdict, f.outcome.statistic) for f in check_claims([named])}
    theirs = {f.claim.id: (f.outcome.verdict, f.outcome.statistic) for f in check_claims([mine])}
    assert ours == theirs and "QSG-5" in theirs
    # the same solvers untuned over a grid of unlabeled sizes are the time study
    grid = [row | {"n_unlabeled": size} for size in (1000, 5000, 20000)
            for row in runs("codrna", "qsg_s2auc", fit_time_s=[1.0] * 3, tuning="none")
            + runs("codrna", "pnu_auc", fit_time_s=[2.0] * 3, tuning="none")]
    assert kinds_of(study("x", grid).results) == ("qsg_s2auc_time",)
    sweep = runs("california", "npsvor.eps=0.1", mae=[0.5] * 5) + runs(
        "california", "npsvor.eps=0.2", mae=[0.5] * 5) + runs("california", "npsvor.eps=0.3",
                                                              mae=[0.5] * 5)
    assert kinds_of(study("y", sweep).results) == ("npsvor_eps",)
    # the solver alone, untuned, under two step sizes: Theorem 1's measurement
    arms = [*runs("svmguide3", "qsg_s2auc", auc=[0.8] * 5, tuning="none"),
            *runs("svmguide3", "qsg_s2auc_slow", auc=[0.8] * 5, tuning="none")]
    assert kinds_of(study("w", arms).results) == ("qsg_s2auc_convergence",)
    ordinal = runs("abalone", "qs3orao", auc=[0.8] * 5, tuning="none")
    assert kinds_of(study("v", ordinal).results) == ("qs3orao_convergence",)
    # a folder of no paper's study lists no claim
    assert study("z", runs("codrna", "my_solver", auc=[0.8] * 3)).kinds == ()


def test_the_index_says_what_each_studys_own_page_says() -> None:
    """QSG-1 is decided by the time study on the index; the accuracy study's page decides it
    too, and the index names that verdict beside its own."""
    rows = [*runs("codrna", "qsg_s2auc", auc=[0.8] * 10, fit_time_s=[1.0] * 10, tuning="cv"),
            *runs("codrna", "samult", auc=[0.7] * 10, fit_time_s=[2.0] * 10, tuning="cv")]
    grid = [row | {"n_unlabeled": size} for size in (1000, 5000, 20000)
            for row in runs("codrna", "qsg_s2auc", fit_time_s=[1.0] * 3, tuning="none")
            + runs("codrna", "samult", fit_time_s=[2.0] * 3, tuning="none")]
    accuracy, time = study("qsg_s2auc", rows), study("qsg_s2auc_time", grid)
    index = {f.claim.id: f for f in check_claims([time, accuracy])}
    page = {f.claim.id: f for f in check_claims([accuracy])}
    assert index["QSG-1"].study == "qsg_s2auc_time"
    assert f"qsg_s2auc: {page['QSG-1'].outcome.verdict}" in index["QSG-1"].outcome.evidence
