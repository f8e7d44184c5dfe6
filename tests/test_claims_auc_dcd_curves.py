"""The AUC-DCD paper's convergence claims (DCD-5 .. DCD-8, its Figure 2) on hand-made results
and curves tables, one per verdict each rule can reach."""

from __future__ import annotations

import pytest
from test_claims_auc_dcd import (
    FAST,
    PERM_TOP,
    SLOW,
    TEN,
    check,
    dcd_study,
    same,
    speed_curves,
)

from ordauc.claims import CLAIMS
from ordauc.claims.auc_dcd_common import FIGURE2, MSGD, OAM, PERM, SDCD
from ordauc.claims.auc_dcd_curves import figure
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

MSGD_SLOW = {OAM: (2, 2), SDCD: (1, 1), PERM: (1, 1), MSGD: (3, 3)}  # 12 of 18 cells
MSGD_AUC_ONLY = {OAM: (4, 4), SDCD: (2, 1), PERM: (2, 2), MSGD: (1, 3)}


def curve_study(datasets: list[str], speed: dict | None, *, suffix: str = "_paper",
                metrics: tuple[str, ...] = ("auc", "objective")):
    curves = None if speed is None else speed_curves(datasets, speed, suffix=suffix)
    if curves is not None:
        curves = curves[curves["metric"].isin(metrics)]
    return dcd_study(same(PERM_TOP, datasets), n=5, suffix=suffix,
                     tuning="test" if suffix == "_paper" else "cv", curves=curves)


@pytest.mark.parametrize(("datasets", "speed", "verdict", "key"), [
    (TEN[:3], FAST, CONFIRMED, "18/18"),
    (TEN[:3], MSGD_SLOW, PARTIAL, "12/18"),
    (TEN[:3], SLOW, NOT_CONFIRMED, "0/18"),
    (TEN[:2], FAST, UNDECIDABLE, "12/12"),  # 2 datasets: 6 cells missing
    (TEN[:3], None, UNDECIDABLE, "not computed"),
])
def test_dcd_5(datasets: list[str], speed: dict | None, verdict: str, key: str) -> None:
    got, statistic = check("DCD-5", curve_study(datasets, speed))
    assert got == verdict and key in statistic, statistic


def test_dcd_5_reads_figure_2s_datasets_and_the_cv_curves() -> None:
    study = curve_study([*FIGURE2, "other"], FAST, suffix="_cv")
    fig = figure(study)
    assert fig.variant.suffix == "_cv" and fig.chosen() == (list(FIGURE2), True)
    outcome = CLAIMS["DCD-5"].check(study)
    assert outcome.verdict == CONFIRMED and "Figure 2's datasets" in outcome.statistic
    assert "curves of *_cv" in outcome.evidence


@pytest.mark.parametrize(("datasets", "speed", "verdict"), [
    (["sonar", "x"], FAST, CONFIRMED),
    (["sonar"], MSGD_AUC_ONLY, PARTIAL),
    (["sonar"], SLOW, NOT_CONFIRMED),
    (TEN[:3], FAST, UNDECIDABLE),
])
def test_dcd_6(datasets: list[str], speed: dict, verdict: str) -> None:
    got, statistic = check("DCD-6", curve_study(datasets, speed))
    assert got == verdict, statistic


@pytest.mark.parametrize(("speed", "metrics", "verdict", "key"), [
    (FAST, ("auc", "objective"), CONFIRMED, "3/3"),  # SDCD 1.5 against SDCDperm 2
    (SLOW, ("auc", "objective"), NOT_CONFIRMED, "0/3"),  # equal: not below
    (FAST, ("auc",), UNDECIDABLE, "not computed"),
])
def test_dcd_7(speed: dict, metrics: tuple[str, ...], verdict: str, key: str) -> None:
    got, statistic = check("DCD-7", curve_study(TEN[:3], speed, metrics=metrics))
    assert got == verdict and key in statistic, statistic


TIED = {OAM: 0.80, SDCD: 0.81, PERM: 0.83, MSGD: 0.8301}  # MSGD above by 0.0001: a tie


@pytest.mark.parametrize(("means", "spread", "verdict", "key"), [
    (same(PERM_TOP, list(FIGURE2)), None, CONFIRMED, "strictly highest on 3/3"),
    ({**same(PERM_TOP, ["sonar", "vowel"]), "svmguide4": TIED},
     {PERM: 0.02, MSGD: 0.02}, CONFIRMED, "strictly highest on 2/3"),
    ({**same(PERM_TOP, ["sonar", "vowel"]), "svmguide4": {**PERM_TOP, MSGD: 0.86}}, None,
     NOT_CONFIRMED, "highest-or-tied on 2/3"),
    (same(PERM_TOP, ["sonar", "vowel"]), None, UNDECIDABLE, "on 2/2"),
])
def test_dcd_8(means: dict, spread: dict | None, verdict: str, key: str) -> None:
    got, statistic = check("DCD-8", dcd_study(means, spread=spread))
    assert got == verdict and key in statistic, statistic


def test_dcd_8_grants_no_tie_on_runs_too_few_for_the_test() -> None:
    study = dcd_study(same(TIED, list(FIGURE2)), n=5, spread={PERM: 0.02, MSGD: 0.02})
    got, statistic = check("DCD-8", study)  # n = 5: the smallest two-sided p is 0.0625
    assert got == UNDECIDABLE and "on 0/0" in statistic, statistic
