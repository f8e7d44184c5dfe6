"""The curve claims of the QSG papers (QS3-10, QS3-11, QSG-8) on hand-made results and curves
tables, one per verdict each rule can reach."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from claims_tables import curve, runs, study

from ordauc.claims import CLAIMS
from ordauc.claims.qsg_convergence import RATE_CONFIRM, RATE_PARTIAL, rate_verdict
from ordauc.config import parse_config

C, P, N, U = "CONFIRMED", "PARTIAL", "NOT CONFIRMED", "UNDECIDABLE"
SCHEDULE = {"p_step": "inverse", "p_theta": 1.5, "p_lam": 1.0, "p_sigma": 1.0, "p_gamma": 0.5}
CONTROL = {"p_theta": 0.5}  # theta * lam = 0.5: outside Theorem 1's condition
CHECKPOINTS = sorted({round(float(t)) for t in np.geomspace(10, 10_000, 61)})  # ~20 a decade
CONFIG = parse_config({"datasets": ["heart_scale"], "resampling": {"n_labeled": [20]},
                       "solvers": {"qsg_s2auc": {}},
                       "curves": {"every": 10, "spacing": "log", "reference": "samult"}})
# (claim, registry solver, the study that decides it)
CONVERGENCE = [("QS3-10", "qs3orao", "qs3orao_convergence"),
               ("QSG-8", "qsg_s2auc", "qsg_s2auc_convergence")]
BANDS = {C: (-np.inf, RATE_CONFIRM), P: (RATE_CONFIRM, RATE_PARTIAL), N: (RATE_PARTIAL, np.inf)}


def _fits(solver: str, **schedule: object) -> list[dict[str, object]]:
    return runs("d0", solver, auc=[0.8, 0.8], fit_time_s=1.0, **{**SCHEDULE, **schedule})


def _arm(solver: str, label: str, rate: float, *, repetitions: int = 10,
         datasets: tuple[str, ...] = ("d0", "d1"), noise: float = 0.3, seed: int = 0,
         metric: str = "reference_error", **schedule: object,
         ) -> tuple[list[dict[str, object]], pd.DataFrame]:
    """Results rows and curves of one arm (config ``label`` of registry ``solver``): per run,
    error = c t^-rate times lognormal noise of scale ``noise`` at every checkpoint."""
    rng = np.random.default_rng(seed)
    t = np.asarray(CHECKPOINTS, dtype=np.float64)
    rows: list[dict[str, object]] = []
    parts = []
    for dataset in datasets:
        rows += runs(dataset, label, auc=[0.8] * repetitions, fit_time_s=1.0, solver_name=solver,
                     **{**SCHEDULE, **schedule})
        for r in range(repetitions):
            error = 3.0 * t ** -rate * np.exp(noise * rng.standard_normal(t.size))
            parts += [curve(dataset, label, metric, CHECKPOINTS, list(error), repetition=r),
                      curve(dataset, label, "auc", CHECKPOINTS, [0.8] * t.size, repetition=r)]
    return rows, pd.concat(parts)


def _check(claim: str, name: str, *arms: tuple[list[dict[str, object]], pd.DataFrame],
           config=CONFIG):  # type: ignore[no-untyped-def]
    target = study(name, *(rows for rows, _ in arms),
                   curves=pd.concat([c for _, c in arms]) if arms else None, config=config)
    return CLAIMS[claim].check(target)


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
@pytest.mark.parametrize(("rate", "verdict"), [(1.0, C), (0.65, P), (0.2, N)])
def test_convergence_verdicts(claim, solver, name, rate, verdict):
    theorem = _arm(solver, solver, rate)
    control = _arm(solver, f"{solver}_slow", 0.5, seed=1, **CONTROL)
    outcome = _check(claim, name, theorem, control)
    assert outcome.verdict == verdict, outcome
    values = outcome.values
    assert values["lo"] <= values["slope"] <= values["hi"]
    low, high = BANDS[verdict]  # the whole interval sits in the verdict's band
    assert low < values["lo"] and values["hi"] <= high
    assert rate_verdict(values["slope"]) == verdict
    assert values["slope"] == pytest.approx(-rate, abs=0.1)
    assert values["cells"] == 2 and values["runs"] == 20
    assert values["control_slope"] == pytest.approx(-0.5, abs=0.1)
    assert "control theta*lam=0.5: slope -0.5" in outcome.evidence
    assert f"on log t {values['slope']:.2f} [95% " in outcome.statistic
    assert "median of 2 cells" in outcome.statistic and outcome.provisional is None


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
def test_an_interval_across_a_band_edge_is_undecidable_with_a_lean(claim, solver, name):
    outcome = _check(claim, name, _arm(solver, solver, 0.8, datasets=("d0",), noise=2.0,
                                        seed=1))
    values = outcome.values
    assert outcome.verdict == U, outcome
    assert values["lo"] < RATE_CONFIRM < values["hi"]
    assert outcome.provisional == rate_verdict(values["slope"])
    assert f"leans {outcome.provisional}" in outcome.statistic
    assert "more repetitions or longer runs would decide" in outcome.evidence
    assert values["control_slope"] is None and "no control run" in outcome.evidence


def test_the_bootstrap_is_reproducible():
    arm = _arm("qsg_s2auc", "qsg_s2auc", 0.8, datasets=("d0",), noise=2.0, seed=1)
    first, again = (_check("QSG-8", "qsg_s2auc_convergence", arm) for _ in range(2))
    assert (first.values["lo"], first.values["hi"]) == (again.values["lo"], again.values["hi"])


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
def test_fewer_than_five_runs_per_cell_is_undecidable(claim, solver, name):
    outcome = _check(claim, name, _arm(solver, solver, 1.0, repetitions=4))
    assert outcome.verdict == U, outcome
    assert "repetitions" in outcome.evidence and "8 runs" in outcome.evidence
    assert "a cell needs 5" in outcome.evidence and f"configs/{name}.yaml runs 10" in \
        outcome.evidence
    assert outcome.values["runs"] == 8 and outcome.values["slope"] is None


def test_a_cell_with_fewer_than_five_runs_does_not_count():
    full = _arm("qsg_s2auc", "qsg_s2auc", 1.0, datasets=("d0",))
    few = _arm("qsg_s2auc", "qsg_s2auc", 0.2, datasets=("d1",), repetitions=4, seed=2)
    outcome = _check("QSG-8", "qsg_s2auc_convergence", full, few)
    assert outcome.verdict == C, outcome  # d1's shallow curve would drag the median up
    assert outcome.values["cells"] == 1 and outcome.values["runs"] == 10
    assert "d1 n_l=200 n_u=1000: 4 runs" in outcome.evidence


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
@pytest.mark.parametrize(("config", "missing"), [
    (None, "config is unknown"),
    (replace(CONFIG, curves_reference=None), "no `curves.reference`"),
    (replace(CONFIG, curves_reference="pnu_auc"), "`curves.reference: pnu_auc`"),
])
def test_without_samult_as_the_reference_is_undecidable(claim, solver, name, config, missing):
    outcome = _check(claim, name, _arm(solver, solver, 1.0), config=config)
    assert outcome.verdict == U, outcome
    assert f"configs/{name}.yaml" in outcome.evidence and missing in outcome.evidence


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
def test_without_reference_error_curves_is_undecidable(claim, solver, name):
    outcome = _check(claim, name, _arm(solver, solver, 1.0, metric="objective"))
    assert outcome.verdict == U, outcome
    assert "`reference_error`" in outcome.evidence and "reference: samult" in outcome.evidence
    assert f"configs/{name}.yaml" in outcome.evidence


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
@pytest.mark.parametrize("schedule", [{"p_step": "dsg"}, {"p_theta": 2.5}],
                         ids=["dsg", "theta-lam-2.5"])
def test_runs_outside_the_condition_are_a_control_never_deciding(claim, solver, name,
                                                                  schedule):
    alone = _check(claim, name, _arm(solver, solver, 1.0, **schedule))
    assert alone.verdict == U, alone
    assert "Theorem 1's step size" in alone.evidence
    assert alone.values["control_slope"] == pytest.approx(-1.0, abs=0.1)
    # beside slow theorem runs, a fast control does not lift the verdict
    slow = _arm(solver, f"{solver}_theorem", 0.2, seed=3)
    outcome = _check(claim, name, slow, _arm(solver, solver, 1.0, **schedule))
    assert outcome.verdict == N, outcome
    assert outcome.values["runs"] == 20
    assert outcome.values["control_slope"] == pytest.approx(-1.0, abs=0.1)


@pytest.mark.parametrize(("claim", "solver", "name"), CONVERGENCE)
def test_theta_lam_a_positive_integer_meets_the_condition(claim, solver, name):
    outcome = _check(claim, name, _arm(solver, solver, 1.0, p_theta=2.0))
    assert outcome.verdict == C, outcome
    assert outcome.values["runs"] == 20 and outcome.values["control_slope"] is None


def test_without_schedule_columns_is_undecidable():
    target = study("qs3orao_convergence", runs("d0", "qs3orao", auc=[0.8] * 10),
                   curves=_arm("qs3orao", "qs3orao", 1.0)[1], config=CONFIG)
    outcome = CLAIMS["QS3-10"].check(target)
    assert outcome.verdict == U and "p_step" in outcome.evidence


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
