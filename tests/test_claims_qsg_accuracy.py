"""The QSG papers' accuracy claims and the checks of the unlabeled rows' value, on hand-made
results tables whose verdicts are known (QS3-1, QS3-2, QS3-3, QS3-4, QS3-12, U-ORD; QSG-5,
QSG-6, QSG-9, U-BIN)."""

from __future__ import annotations

import numpy as np
import pytest
from claims_tables import runs, study

from ordauc.claims import CLAIMS
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

REPS = 10
BASE = 0.80 + 0.002 * np.arange(REPS)  # a repetition effect every solver shares
# AUC offsets against the reference, per repetition: significantly better / worse, equal
# (similar), and just below with mixed signs (tied: not significantly below). The magnitudes
# differ so that no two |d| tie: scipy's Wilcoxon then takes its exact distribution instead
# of a slow permutation test.
STEP = 1e-4 * np.arange(1, REPS + 1)
SIGNS = np.where(np.arange(REPS) % 2, 1.0, -1.0)
SHIFTS = {"better": 0.01 + STEP, "worse": -0.01 - STEP, "equal": SIGNS * STEP,
          "tied": np.where(np.arange(REPS) % 2, 0.003, -0.005) + STEP / 10}
ORD = ["qs3orao", "svorex", "m_pnu_auc", "m_samult"]
BIN = ["qsg_s2auc", "samult", "pnu_auc"]


def arm(dataset: str, solver: str, shift: str | float = 0.0, *, n_labeled: int = 500,
        n_unlabeled: int = 1000, status: str | list[str] = "ok", **values: object) -> list:
    offset = SHIFTS[shift] if isinstance(shift, str) else np.full(REPS, shift)
    return runs(dataset, solver, n_labeled=n_labeled, n_unlabeled=n_unlabeled, status=status,
                auc=list(BASE + offset), mze=0.5, mae=0.7, fit_time_s=1.0, **values)


def paper(name: str, ours: str, others: list[str], shifts: list[str], *, rival: float = 0.0,
          n_labeled: int = 500, extra: list[list] | None = None, names: list[str] | None = None):
    """A study with one dataset per entry of ``shifts``: ``ours`` at that offset against
    ``others`` (the first at offset 0, the rest at ``rival``)."""
    names = names or [f"d{i}" for i in range(len(shifts))]
    groups = []
    for dataset, shift in zip(names, shifts, strict=True):
        groups.append(arm(dataset, ours, shift, n_labeled=n_labeled))
        groups += [arm(dataset, s, 0.0 if i == 0 else rival, n_labeled=n_labeled)
                   for i, s in enumerate(others)]
    return study(name, *groups, *(extra or []))


def check(claim_id: str, s) -> tuple[str, str]:
    outcome = CLAIMS[claim_id].check(s)
    return outcome.verdict, outcome.statistic + " | " + outcome.evidence


# --- QS3-1, QS3-2, QS3-4 -----------------------------------------------------------------------

@pytest.mark.parametrize("shifts, verdict, key", [
    (["better"] * 5 + ["worse"] * 3, CONFIRMED, "highest on 5"),
    (["better"] * 2 + ["tied"] * 3 + ["worse"] * 3, PARTIAL, "highest-or-tied on 5"),
    (["better"] + ["worse"] * 7, NOT_CONFIRMED, "highest on 1"),
    (["better"] * 2, UNDECIDABLE, "6 more"),
])
def test_qs3_1_highest_auc(shifts, verdict, key):
    got, text = check("QS3-1", paper("qs3orao", "qs3orao", ORD[1:], shifts, rival=-0.02))
    assert got == verdict and key in text


def test_qs3_1_without_a_baseline_is_undecidable():
    s = study("qs3orao", arm("d0", "qs3orao"), arm("d0", "svorex"))
    got, text = check("QS3-1", s)
    assert got == UNDECIDABLE and "m_pnu_auc" in text


@pytest.mark.parametrize("shifts, verdict, key", [
    (["better"] * 8, CONFIRMED, "d-bar > 0 on 8"),
    (["better"] * 5 + ["worse"] * 3, PARTIAL, "d-bar > 0 on 5"),
    (["better"] * 3 + ["worse"] * 5, NOT_CONFIRMED, "d-bar > 0 on 3"),
])
def test_qs3_2_higher_than_svorex(shifts, verdict, key):
    got, text = check("QS3-2", paper("qs3orao", "qs3orao", ["svorex"], shifts))
    assert got == verdict and key in text


def test_qs3_2_too_few_pairs_on_one_dataset_leaves_it_open():
    failed = ["ok"] * 5 + ["error"] * 5  # 5 of 10 paired: below the 80 % of C2
    s = paper("qs3orao", "qs3orao", ["svorex"], ["better"] * 7,
              extra=[arm("d7", "qs3orao", "better"), arm("d7", "svorex", status=failed)])
    got, text = check("QS3-2", s)
    assert got == UNDECIDABLE and "too few paired" in text and "d-bar > 0 on 7" in text


@pytest.mark.parametrize("shifts, verdict, key", [
    (["equal"] * 7 + ["worse"], CONFIRMED, "both on 7"),
    (["equal"] * 5 + ["worse"] * 3, PARTIAL, "both on 5"),
    (["equal"] * 4 + ["worse"] * 4, NOT_CONFIRMED, "both on 4"),
    (["equal"] * 6, UNDECIDABLE, "both on 6"),
])
def test_qs3_4_similar_to_the_exact_methods(shifts, verdict, key):
    got, text = check("QS3-4", paper("qs3orao", "qs3orao", ["m_samult", "m_pnu_auc"], shifts))
    assert got == verdict and key in text


# --- QSG-5, QSG-6 -----------------------------------------------------------------------------

@pytest.mark.parametrize("shifts, rival, verdict, key", [
    (["equal"] * 5 + ["worse"] * 3, 0.0, CONFIRMED, "both on 5"),
    (["equal"] * 5 + ["worse"] * 3, 0.05, PARTIAL, "vs samult alone 5, vs pnu_auc alone 0"),
    (["equal"] * 2 + ["worse"] * 6, 0.0, NOT_CONFIRMED, "both on 2"),
    (["equal"] * 3, 0.0, UNDECIDABLE, "both on 3"),
])
def test_qsg_5_similar_auc(shifts, rival, verdict, key):
    got, text = check("QSG-5", paper("qsg_s2auc", "qsg_s2auc", BIN[1:], shifts, rival=rival,
                                     n_labeled=200))
    assert got == verdict and key in text and "deployment reading" in text


def test_qsg_5_reports_the_boxplots_seven_datasets_and_needs_every_solver():
    names = [f"d{i}" for i in range(7)] + ["unclonable"]
    s = paper("qsg_s2auc", "qsg_s2auc", BIN[1:], ["equal"] * 8, n_labeled=200, names=names)
    got, text = check("QSG-5", s)
    assert got == CONFIRMED and "boxplot's 7 datasets: CONFIRMED" in text
    got, text = check("QSG-5", study("qsg_s2auc", arm("d0", "qsg_s2auc", n_labeled=200)))
    assert got == UNDECIDABLE and "samult" in text


@pytest.mark.parametrize("shifts, names, verdict", [
    (["better", "better", "worse"], ["covtype", "ijcnn1", "codrna"], CONFIRMED),
    (["better", "worse"], ["covtype", "ijcnn1"], PARTIAL),
    (["worse", "worse"], ["covtype", "ijcnn1"], NOT_CONFIRMED),
    (["better"], ["covtype"], UNDECIDABLE),
    (["better"], ["codrna"], UNDECIDABLE),
])
def test_qsg_6_highest_on_covtype_and_ijcnn1(shifts, names, verdict):
    s = paper("qsg_s2auc", "qsg_s2auc", BIN[1:], shifts, rival=-0.005, n_labeled=200,
              names=names)
    assert check("QSG-6", s)[0] == verdict


# --- QS3-12 -----------------------------------------------------------------------------------

def test_qs3_12_labels_in_every_ok_run():
    good = study("qs3orao", arm("d0", "qs3orao"), arm("d1", "qs3orao"))
    assert check("QS3-12", good) == (CONFIRMED, "mze and mae finite in 20 of 20 ok runs | "
                                                "20 ok runs of qs3orao")
    rows = arm("d0", "qs3orao")
    rows[3]["mae"] = float("nan")
    got, text = check("QS3-12", study("qs3orao", rows))
    assert got == NOT_CONFIRMED and "9 of 10" in text and "d0" in text
    assert check("QS3-12", study("qs3orao", arm("d0", "svorex")))[0] == UNDECIDABLE


# --- did the unlabeled rows help? U-ORD and QS3-3, U-BIN and QSG-9 ----------------------------

# the gamma = 1 engine first, then the supervised references (SVORIM and M-SVC-RBF join
# SVOREX only where a test needs them: every comparison costs time)
ARMS = {"ordinal": ("qs3orao", ["qs3orao_gamma1", "svorex"], 500),
        "binary": ("qsg_s2auc", ["qsg_s2auc_gamma1", "svc_rbf"], 200)}
CHECKS = [("U-ORD", "ordinal"), ("QS3-3", "ordinal"), ("U-BIN", "binary"), ("QSG-9", "binary")]


def arms_study(kind: str, shifts: list[str], *, drop: str | None = None, gamma: float = 0.5,
               hurt_on: int | None = None, more: tuple[str, ...] = ()):
    ssl, supervised, n_l = ARMS[kind]
    supervised = [*supervised, *more]
    groups = []
    for i, shift in enumerate(shifts):
        groups.append(arm(f"d{i}", ssl, shift, n_labeled=n_l, p_gamma=gamma))
        for j, s in enumerate(supervised):
            if s != drop:  # the last supervised arm beats the SSL model on ``hurt_on``
                up = 0.02 if (i == hurt_on and j == len(supervised) - 1) else 0.0
                groups.append(arm(f"d{i}", s, up, n_labeled=n_l))
    return study("qs3orao" if kind == "ordinal" else "qsg_s2auc", *groups)


@pytest.mark.parametrize("claim_id, kind", CHECKS)
@pytest.mark.parametrize("shifts, hurt_on, verdict, key", [
    (["better"] * 5 + ["equal"] * 3, None, CONFIRMED, "helped on 5, hurt on 0"),
    (["better"] + ["equal"] * 7, None, PARTIAL, "helped on 1, hurt on 0"),
    (["better"] * 6 + ["equal"] * 2, 7, NOT_CONFIRMED, "hurt on 1"),
    (["equal"] * 8, None, NOT_CONFIRMED, "helped on 0, hurt on 0"),
    (["better"] * 7, None, UNDECIDABLE, "1 more"),
])
def test_unlabeled_value(claim_id, kind, shifts, hurt_on, verdict, key):
    got, text = check(claim_id, arms_study(kind, shifts, hurt_on=hurt_on))
    assert got == verdict and key in text


@pytest.mark.parametrize("claim_id, kind", CHECKS)
def test_unlabeled_value_needs_the_gamma_one_engine(claim_id, kind):
    engine = ARMS[kind][1][0]
    got, text = check(claim_id, arms_study(kind, ["better"] * 8, drop=engine))
    assert got == UNDECIDABLE and engine in text


def test_qs3_3_says_when_cv_switched_the_unlabeled_rows_off():
    got, text = check("QS3-3", arms_study("ordinal", ["equal"] * 8, gamma=1.0))
    assert got == NOT_CONFIRMED and "80/80 (100%)" in text and "effectively unused" in text
    assert "effectively unused" not in check("U-ORD", arms_study("ordinal", ["equal"] * 8))[1]


def test_every_supervised_reference_that_ran_counts():
    # SVORIM and M-SVC-RBF join: helped needs a win against each; losing to one is "hurt"
    more = ("svorim", "m_svc_rbf")
    got, text = check("U-ORD", arms_study("ordinal", ["better"] * 2, more=more, hurt_on=1))
    assert got == NOT_CONFIRMED and "d0@1000: helped" in text and "d1@1000: hurt" in text
    assert "m_svc_rbf -0.0" in text
