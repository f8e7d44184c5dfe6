"""The curve claims of the QSG papers (QS3-10, QS3-11, QSG-8) on hand-made results and curves
tables, one per verdict each rule can reach."""

from __future__ import annotations

import pandas as pd
import pytest
from claims_tables import curve, runs, study

from ordauc.claims import CLAIMS
from ordauc.claims.qsg_convergence import rate_verdict

C, P, N, U = "CONFIRMED", "PARTIAL", "NOT CONFIRMED", "UNDECIDABLE"
T = list(range(10, 10001, 10))
SCHEDULE = {"p_step": "inverse", "p_theta": 1.5, "p_lam": 1.0, "p_sigma": 1.0, "p_gamma": 0.5}


def _fits(solver: str, **schedule: object) -> list[dict[str, object]]:
    return runs("d0", solver, auc=[0.8, 0.8], fit_time_s=1.0, **{**SCHEDULE, **schedule})


def _objective(solver: str, rate: float | None, floor: float = 1.0) -> pd.DataFrame:
    """Objective checkpoints floor + t^-rate of two runs (none with ``rate`` None)."""
    if rate is None:
        return pd.DataFrame()
    return pd.concat([curve("d0", solver, "objective", T, [floor + t ** -rate for t in T],
                            repetition=r) for r in (0, 1)])


@pytest.mark.parametrize(("rate", "schedule", "verdict"), [
    (1.0, {}, C),
    (0.6, {}, P),
    (0.2, {}, N),
    (None, {}, U),                                  # no objective curves
    (1.0, {"p_step": "dsg"}, U),                    # not the theorem's schedule
    (1.0, {"p_theta": 2.5}, U),                     # theta * lam = 2.5: outside (1, 2), no integer
    (1.0, {"p_theta": 2.0}, C),                     # theta * lam = 2: a positive integer
])
def test_qs3_10(rate, schedule, verdict):
    target = study("qs3orao_time", _fits("qs3orao", **schedule),
                   curves=_objective("qs3orao", rate))
    outcome = CLAIMS["QS3-10"].check(target)
    assert outcome.verdict == verdict, outcome
    if verdict != U:  # the slope the verdict rests on sits in its band
        assert rate_verdict(outcome.values["slope"]) == verdict
    if verdict == U:
        assert "configs/qs3orao_time.yaml" in outcome.evidence or "schedule" in outcome.evidence


def test_qs3_10_without_schedule_columns_is_undecidable():
    target = study("qs3orao_time", runs("d0", "qs3orao", auc=[0.8, 0.8]),
                   curves=_objective("qs3orao", 1.0))
    assert CLAIMS["QS3-10"].check(target).verdict == U


def _times(solver: str, power: float | None) -> pd.DataFrame | None:
    if power is None:
        return None
    t = list(range(100, 2001, 100))
    return pd.concat([curve("d0", solver, metric, t, [0.8] * len(t), repetition=r,
                            times=[1e-6 * i ** power for i in t])
                      for r in (0, 1) for metric in ("auc", "objective")])


@pytest.mark.parametrize(("power", "verdict", "statistic"), [
    (2.0, C, "2.00"), (3.0, N, "3.00"), (1.0, U, "not applicable"), (None, U, "no curves")])
def test_qs3_11(power, verdict, statistic):
    target = study("qs3orao_time", _fits("qs3orao"), curves=_times("qs3orao", power))
    outcome = CLAIMS["QS3-11"].check(target)
    assert outcome.verdict == verdict, outcome
    assert statistic in outcome.statistic
    if power is not None:
        assert outcome.values["slope"] == pytest.approx(power, abs=0.05)
        assert outcome.values["applicable"] == (power >= 1.6)
    else:
        assert "configs/qs3orao_time.yaml" in outcome.evidence


def _oracle(by_curve: bool, **params: object) -> tuple[list[dict[str, object]], pd.DataFrame]:
    """SAMULT's exact fits of the same runs, objective 1 (as a curve point or a column)."""
    extra = {} if by_curve else {"objective": 1.0}
    rows = runs("d0", "samult", auc=[0.8, 0.8], fit_time_s=1.0, **{**SCHEDULE, **params},
                **extra)
    points = pd.concat([curve("d0", "samult", "objective", [1], [1.0], repetition=r)
                        for r in (0, 1)]) if by_curve else pd.DataFrame()
    return rows, points


@pytest.mark.parametrize(("rate", "by_curve", "params", "verdict"), [
    (1.0, True, {}, C),
    (0.6, False, {}, P),
    (0.2, True, {}, N),
    (1.0, True, {"p_lam": 2.0}, U),        # the oracle solved another problem
    (None, True, {}, U),                   # no objective curves of QSG-S2AUC
])
def test_qsg_8(rate, by_curve, params, verdict):
    exact, points = _oracle(by_curve, **params)
    curves = pd.concat([_objective("qsg_s2auc", rate), points])
    target = study("qsg_s2auc_time", _fits("qsg_s2auc"), exact, curves=curves)
    outcome = CLAIMS["QSG-8"].check(target)
    assert outcome.verdict == verdict, outcome
    if verdict != U:
        assert rate_verdict(outcome.values["slope"]) == verdict
    if rate is None:
        assert "`objective`" in outcome.evidence and "configs/qsg_s2auc_time.yaml" in \
            outcome.evidence
    if verdict == U and rate is not None:
        assert outcome.statistic.startswith("proxy only")


def test_qsg_8_without_samult_is_undecidable():
    target = study("qsg_s2auc_time", _fits("qsg_s2auc"), curves=_objective("qsg_s2auc", 1.0))
    outcome = CLAIMS["QSG-8"].check(target)
    assert outcome.verdict == U and "SAMULT" in outcome.evidence
