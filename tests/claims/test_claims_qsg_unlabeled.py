"""Did the unlabeled rows help? U-ORD and QS3-3 (QS3ORAO), U-BIN and QSG-9 (QSG-S2AUC) on
hand-made results tables: every verdict each can reach, and the guards of the verdict algebra
(3-4 of the paper's 10 repetitions are undecided, never "no effect"; datasets that are not the
paper's are extra evidence; a practical tie is no help)."""

from __future__ import annotations

import pytest
from claims_tables import study
from test_claims_qsg_accuracy import QS3_NAMES, QSG_NAMES, SUBSTITUTES, arm

from ordauc.claims import CLAIMS, algebra
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

# the gamma = 1 engine first, then the supervised references (SVORIM and M-SVC-RBF join
# SVOREX only where a test needs them: every comparison costs time)
ARMS = {"ordinal": ("qs3orao", ["qs3orao_gamma1", "svorex"], 500, QS3_NAMES),
        "binary": ("qsg_s2auc", ["qsg_s2auc_gamma1", "svc_rbf"], 200, QSG_NAMES)}
CHECKS = [("U-ORD", "ordinal"), ("QS3-3", "ordinal"), ("U-BIN", "binary"), ("QSG-9", "binary")]


def arms_study(kind: str, shifts: list[str], *, drop: str | None = None, gamma: float = 0.5,
               hurt_on: int | None = None, more: tuple[str, ...] = (), reps: int = 10,
               names: list[str] | None = None, extra: list[list] | None = None):
    ssl, supervised, n_l, paper_names = ARMS[kind]
    supervised = [*supervised, *more]
    groups = []
    for i, (dataset, shift) in enumerate(zip(names or paper_names, shifts, strict=False)):
        groups.append(arm(dataset, ssl, shift, n_labeled=n_l, reps=reps, p_gamma=gamma))
        for j, s in enumerate(supervised):
            if s != drop:  # the last supervised arm beats the SSL model on ``hurt_on``
                up = 0.02 if (i == hurt_on and j == len(supervised) - 1) else 0.0
                groups.append(arm(dataset, s, up, n_labeled=n_l, reps=reps))
    return study("qs3orao" if kind == "ordinal" else "qsg_s2auc", *groups, *(extra or []))


def check(claim_id: str, s):
    return CLAIMS[claim_id].check(s)


PAPER_CHECKS = [("QS3-3", "ordinal"), ("QSG-9", "binary")]  # the papers' claims: their 8
REAL_CHECKS = [("U-ORD", "ordinal"), ("U-BIN", "binary")]  # the open question: real data
GENERATED = ["synthetic_ordinal", "synthetic_binary[n=2000]", "synthetic_ordinal[d=3,n=900]",
             "synthetic_binary", "npsvor_toy", "synthetic_ordinal[n=5000]",
             "synthetic_binary[d=4,n=900]", "synthetic_ordinal[n=700]"]


@pytest.mark.parametrize("claim_id, kind", CHECKS)
@pytest.mark.parametrize("shifts, hurt_on, verdict, counts", [
    (["better"] * 5 + ["equal"] * 3, None, CONFIRMED, (5, 0, 3)),
    (["better"] + ["equal"] * 7, None, PARTIAL, (1, 0, 7)),
    (["better"] * 6 + ["equal"] * 2, 7, NOT_CONFIRMED, (6, 1, 1)),
    (["equal"] * 8, None, NOT_CONFIRMED, (0, 0, 8)),
])
def test_unlabeled_value_reaches_every_verdict(claim_id, kind, shifts, hurt_on, verdict, counts):
    got = check(claim_id, arms_study(kind, shifts, hurt_on=hurt_on))
    assert got.verdict == verdict
    assert (got.values["helped"], got.values["hurt"], got.values["no_effect"]) == counts


@pytest.mark.parametrize("claim_id, kind", PAPER_CHECKS)
def test_the_papers_claims_need_their_eight_datasets(claim_id, kind):
    got = check(claim_id, arms_study(kind, ["better"] * 7))  # one of the paper's 8 not run
    assert got.verdict == UNDECIDABLE and got.values["helped"] == 7


@pytest.mark.parametrize("claim_id, kind", REAL_CHECKS)
def test_the_open_question_takes_any_five_real_datasets(claim_id, kind):
    got = check(claim_id, arms_study(kind, ["better"] * 5, names=SUBSTITUTES[4:] + ["era"]))
    assert got.verdict == CONFIRMED and got.values["helped"] == 5
    four = check(claim_id, arms_study(kind, ["better"] * 4, names=SUBSTITUTES[4:]))
    assert four.verdict == UNDECIDABLE and four.provisional == CONFIRMED  # fewer than 5 real
    assert "at least 5 real datasets" in four.evidence


@pytest.mark.parametrize("claim_id, kind", CHECKS)
@pytest.mark.parametrize("reps", [3, 4])
def test_three_or_four_repetitions_are_undecidable_with_the_lean(claim_id, kind, reps):
    # a consistent gain on every run: the one-sided test cannot reach 0.05 below 5 pairs,
    # and the papers plan 10 repetitions (8 needed)
    got = check(claim_id, arms_study(kind, ["better"] * 8, reps=reps))
    assert got.verdict == UNDECIDABLE and got.values["decided"] == 0
    assert set(got.values["undecided"].values()) == {algebra.REPETITIONS}
    assert got.provisional == CONFIRMED
    config = {"U-ORD": "configs/unlabeled_ordinal.yaml", "QS3-3": "configs/qs3orao.yaml",
              "U-BIN": "configs/unlabeled_binary.yaml", "QSG-9": "configs/qsg_s2auc.yaml"}
    assert config[claim_id] in got.evidence  # what would decide it


@pytest.mark.parametrize("claim_id, kind", CHECKS)
def test_substitute_datasets_never_decide(claim_id, kind):
    # the papers' claims take only their 8; the open question any real set, never generated
    names = SUBSTITUTES if (claim_id, kind) in PAPER_CHECKS else GENERATED
    got = check(claim_id, arms_study(kind, ["better"] * 8, names=names))
    assert got.verdict == UNDECIDABLE and got.values["decided"] == 0
    assert set(got.values["extra"].values()) == {"helped"}
    assert got.provisional == CONFIRMED


@pytest.mark.parametrize("claim_id, kind", PAPER_CHECKS)
def test_extra_real_datasets_show_beside_the_papers_eight(claim_id, kind):
    ssl, supervised, n_l, _ = ARMS[kind]
    abalone = [arm("abalone", ssl, "worse", n_labeled=n_l)] + [
        arm("abalone", s, n_labeled=n_l) for s in supervised]
    got = check(claim_id, arms_study(kind, ["better"] * 5 + ["equal"] * 3, extra=abalone))
    assert got.verdict == CONFIRMED and got.values["hurt"] == 0  # abalone does not count
    assert got.values["extra"] == {"abalone": "hurt"}
    assert "abalone" in got.evidence and "[extra" in got.evidence


@pytest.mark.parametrize("claim_id, kind", [("U-ORD", "ordinal"), ("U-BIN", "binary")])
def test_a_practical_tie_is_no_help(claim_id, kind):
    got = check(claim_id, arms_study(kind, ["nudge"] * 8))  # +0.0005 on every run
    assert got.verdict == NOT_CONFIRMED
    assert (got.values["helped"], got.values["no_effect"]) == (0, 8)


@pytest.mark.parametrize("claim_id, kind", CHECKS)
def test_unlabeled_value_needs_the_gamma_one_engine(claim_id, kind):
    engine = ARMS[kind][1][0]
    got = check(claim_id, arms_study(kind, ["better"] * 8, drop=engine))
    assert got.verdict == UNDECIDABLE and engine in got.evidence


def test_qs3_3_says_when_cv_switched_the_unlabeled_rows_off():
    got = check("QS3-3", arms_study("ordinal", ["equal"] * 8, gamma=1.0))
    assert got.verdict == NOT_CONFIRMED and got.values["effectively_unused"]
    assert (got.values["gamma_one"], got.values["gamma_runs"]) == (80, 80)
    plain = check("U-ORD", arms_study("ordinal", ["equal"] * 8))
    assert "effectively_unused" not in plain.values and plain.values["gamma_one"] == 0


def test_every_supervised_reference_that_ran_counts():
    # SVORIM and M-SVC-RBF join: helped needs a win against each; losing to one is "hurt"
    more = ("svorim", "m_svc_rbf")
    got = check("U-ORD", arms_study("ordinal", ["better"] * 2, more=more, hurt_on=1))
    states = {j.unit: j.state for j in got.judgments}
    assert states == {"road3d": "helped", "sgemm": "hurt"}
    assert got.verdict == NOT_CONFIRMED  # a hurt settles it, whatever the 6 not run


def test_the_other_semi_supervised_solvers_are_reported():
    other = [arm(d, "m_samult", "better") for d in QS3_NAMES]
    got = check("U-ORD", arms_study("ordinal", ["equal"] * 8, extra=other))
    assert got.values["others"]["m_samult"] == {"helped": 8, "hurt": 0, "decided": 8}
    assert got.verdict == NOT_CONFIRMED  # only qs3orao decides
