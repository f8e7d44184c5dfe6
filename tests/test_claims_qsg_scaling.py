"""The time, memory and scaling claims of the QSG papers (QS3-5 to QS3-9; QSG-1 to QSG-4, QSG-7)
on hand-made results tables, one per verdict each rule can reach."""

from __future__ import annotations

import types

import pandas as pd
import pytest
from claims_tables import curve, runs, study

from ordauc.claims import CLAIMS, Outcome
from ordauc.claims.registry import Claim

C, P, N, U = "CONFIRMED", "PARTIAL", "NOT CONFIRMED", "UNDECIDABLE"
BIG_NEED = ("skipped", "needs 120 GB for 50,500 training rows x 8 features, limit 80 GB; "
            "raise --memory-limit to run it")
SMALL_NEED = ("skipped", "needs 30 GB for 50,500 training rows x 8 features, limit 9 GB; "
              "raise --memory-limit to run it")
OOM = ("error", "MemoryError: Unable to allocate 80.0 GiB")
TIMEOUT = ("timeout", "exceeded 86400 s")


def line(dataset: str, solver: str, cells: dict[int, object], n_labeled: int = 200,
         n_iter: int | None = None) -> list[dict[str, object]]:
    """Two runs of ``solver`` at each size: a float is their fit time (ok), a pair a failure."""
    rows = []
    for size, value in cells.items():
        extra = {} if n_iter is None else {"p_n_iter": n_iter}
        if isinstance(value, tuple):
            rows += runs(dataset, solver, n_labeled=n_labeled, n_unlabeled=size,
                         status=value[0], message=value[1], repetitions=[0, 1], **extra)
        else:
            rows += runs(dataset, solver, n_labeled=n_labeled, n_unlabeled=size,
                         fit_time_s=[value, value * 1.02], auc=0.8, **extra)
    return rows


def paper(name: str, lines: dict[str, dict[int, object]], n: int = 8,
          special: dict[int, dict[str, dict[int, object]]] | None = None, **kw: object):
    """A study with ``n`` datasets, each with ``lines`` (solver -> size -> value), dataset i's
    lines updated by ``special[i]``."""
    groups = []
    for i in range(n):
        mine = {**lines, **(special or {}).get(i, {})}
        groups += [line(f"d{i}", solver, cells, **kw) for solver, cells in mine.items()]
    return study(name, *groups)


def check(claim_id: str, target) -> Outcome:
    return CLAIMS[claim_id].check(target)


# QS3-5, QSG-4: the baselines stop for memory -------------------------------------------------

SIZES = (1000, 20000, 50000)


def _feasibility(ours: str, bases: tuple[str, str], samult: tuple, pnu: tuple, n: int = 8,
                 name: str = "qs3orao_time", ours_last: object = 1.0, first: tuple = ()):
    """Every dataset with these lines; with ``first``, dataset 0's samult line instead."""
    lines = {ours: {1000: 1.0, 20000: 1.0, 50000: ours_last},
             bases[0]: dict(zip(SIZES, samult, strict=True)),
             bases[1]: dict(zip(SIZES, pnu, strict=True))}
    special = {0: {bases[0]: dict(zip(SIZES, first, strict=True))}} if first else None
    return paper(name, lines, n=n, special=special)


@pytest.mark.parametrize(("samult", "pnu", "n", "first", "verdict"), [
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM), 8, (), C),
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, TIMEOUT), 8, (), P),  # a timeout is no memory failure
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM), 8, (0.1, 5.0, TIMEOUT), P),  # one stop is not
    ((0.1, SMALL_NEED, BIG_NEED), (0.1, SMALL_NEED, SMALL_NEED), 8, (), P),  # 30 GB < 80 GB
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 8, (), N),
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 3, (), U),              # 5 datasets could still stop
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM), 3, (), U),      # ... and not for memory
])
def test_qs3_5(samult, pnu, n, first, verdict):
    target = _feasibility("qs3orao", ("m_samult", "m_pnu_auc"), samult, pnu, n, first=first)
    outcome = check("QS3-5", target)
    assert outcome.verdict == verdict, outcome


def test_qs3_5_without_qs3orao_is_undecidable():
    target = study("qs3orao_time", line("d0", "m_samult", {1000: 0.1}))
    assert check("QS3-5", target).verdict == U


@pytest.mark.parametrize(("failing", "n", "verdict"), [
    (0, 8, C), (2, 8, P), (3, 8, N), (0, 3, U)])
def test_qs3_6(failing, n, verdict):
    target = paper("qs3orao_time", {"qs3orao": {1000: 1.0, 50000: 2.0}}, n=n,
                   special={i: {"qs3orao": {1000: 1.0, 50000: TIMEOUT}} for i in range(failing)})
    outcome = check("QS3-6", target)
    assert outcome.verdict == verdict, outcome
    assert f"on {n - failing} of {n}" in outcome.statistic


def test_qs3_6_needs_the_full_size_in_the_grid():
    target = paper("qs3orao_time", {"qs3orao": {1000: 1.0, 50000: 2.0}})
    target.config = types.SimpleNamespace(
        resampling=types.SimpleNamespace(n_unlabeled=(1000, 50000)))
    outcome = check("QS3-6", target)
    assert outcome.verdict == U and "add `all`" in outcome.evidence


@pytest.mark.parametrize(("samult", "pnu", "ours_last", "n", "verdict"), [
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM), 1.0, 8, C),
    ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM), TIMEOUT, 8, P),  # QSG itself stops short
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 1.0, 8, N),
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 1.0, 2, U),
])
def test_qsg_4(samult, pnu, ours_last, n, verdict):
    target = _feasibility("qsg_s2auc", ("samult", "pnu_auc"), samult, pnu, n,
                          "qsg_s2auc_time", ours_last)
    outcome = check("QSG-4", target)
    assert outcome.verdict == verdict, outcome


# QS3-7, QSG-1: speed ratios -----------------------------------------------------------------

def _speed(name: str, ours: str, bases: tuple[str, str], base_times: dict[int, float],
           n: int = 8, slow: dict[int, dict[int, float]] | None = None):
    sizes = list(base_times)
    lines = {ours: dict.fromkeys(sizes, 1.0), bases[0]: base_times, bases[1]: base_times}
    special = {i: {bases[0]: {**base_times, **cells}} for i, cells in (slow or {}).items()}
    return paper(name, lines, n=n, special=special)


QS3_NAMES = ("qs3orao_time", "qs3orao", ("m_samult", "m_pnu_auc"))


@pytest.mark.parametrize(("times", "n", "slow", "verdict"), [
    ({5000: 0.5, 20000: 5.0, 50000: 50.0}, 8, None, C),
    ({5000: 0.5, 20000: 5.0, 50000: 50.0}, 8, {0: {20000: 0.5}, 1: {20000: 0.5}}, P),
    ({5000: 0.5, 20000: 0.5, 50000: 0.5}, 8, None, N),
    ({5000: 0.5, 20000: 5.0, 50000: 50.0}, 3, None, U),
])
def test_qs3_7(times, n, slow, verdict):
    outcome = check("QS3-7", _speed(*QS3_NAMES, times, n, slow))
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert "crossover 20000" in outcome.evidence


def test_qs3_7_without_comparable_cells_is_undecidable():
    times = {5000: 0.5, 20000: BIG_NEED, 50000: BIG_NEED}
    outcome = check("QS3-7", _speed(*QS3_NAMES, times))
    assert outcome.verdict == U and "infeasible at [20000, 50000]" in outcome.evidence


QSG_NAMES = ("qsg_s2auc_time", "qsg_s2auc", ("samult", "pnu_auc"))


@pytest.mark.parametrize(("times", "n", "verdict"), [
    ({1000: 2.0, 5000: 20.0, 20000: 200.0, 50000: 2000.0}, 8, C),
    ({1000: 0.5, 5000: 20.0, 20000: 200.0, 50000: 2000.0}, 8, P),  # slower below the crossover
    ({1000: 0.5, 5000: 0.5, 20000: 200.0, 50000: 2000.0}, 8, N),   # only half the cells faster
    ({1000: 2.0, 5000: 20.0, 20000: 200.0, 50000: 2000.0}, 3, U),
])
def test_qsg_1(times, n, verdict):
    outcome = check("QSG-1", _speed(*QSG_NAMES, times, n))
    assert outcome.verdict == verdict, outcome


# QS3-8, QSG-2, QSG-3: slopes ----------------------------------------------------------------

def _slopes(name: str, ours: str, bases: tuple[str, str], powers: tuple[float, float],
            ours_power: float = 0.0, grid: tuple[int, ...] = (5000, 10000, 20000, 40000),
            curves: pd.DataFrame | None = None):
    labeled = 500 if ours == "qs3orao" else 200
    groups = [line("d0", ours, {s: 1e-3 * (labeled + s) ** ours_power for s in grid},
                   n_labeled=labeled, n_iter=2000)]
    for base, power in zip(bases, powers, strict=True):
        groups.append(line("d0", base, {s: 1e-12 * (labeled + s) ** power for s in grid},
                           n_labeled=labeled))
    return study(name, *groups, curves=curves)


@pytest.mark.parametrize(("powers", "ours_power", "grid", "verdict"), [
    ((3.0, 3.0), 0.0, (5000, 10000, 20000, 40000), C),
    ((3.0, 1.0), 0.0, (5000, 10000, 20000, 40000), P),
    ((3.0, 3.0), 1.0, (5000, 10000, 20000, 40000), P),     # ours grows with n
    ((1.0, 1.0), 0.0, (5000, 10000, 20000, 40000), N),
    ((3.0, 3.0), 0.0, (1000, 2000, 5000, 10000), U),       # 2 sizes with n >= 5,000
])
def test_qs3_8(powers, ours_power, grid, verdict):
    outcome = check("QS3-8", _slopes(*QS3_NAMES, powers, ours_power, grid))
    assert outcome.verdict == verdict, outcome


@pytest.mark.parametrize(("powers", "grid", "verdict"), [
    ((3.0, 2.8), (5000, 10000, 20000, 40000), C),
    ((2.0, 3.0), (5000, 10000, 20000, 40000), P),
    ((1.0, 1.2), (5000, 10000, 20000, 40000), N),
    ((3.0, 3.0), (1000, 2000, 5000), U),
])
def test_qsg_2(powers, grid, verdict):
    outcome = check("QSG-2", _slopes(*QSG_NAMES, powers, grid=grid))
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert "samult slope 3.00" in outcome.statistic


def _time_curve(power: float) -> pd.DataFrame:
    t = list(range(100, 2001, 100))
    return pd.concat([curve("d0", "qsg_s2auc", "auc", t, [0.8] * len(t), repetition=r,
                            n_unlabeled=5000, times=[1e-6 * i ** power for i in t])
                      for r in (0, 1)])


@pytest.mark.parametrize(("ours_power", "curve_power", "verdict"), [
    (0.0, 2.0, C),
    (0.0, 3.0, P),      # (b) grows faster than t^2
    (1.0, 3.0, N),
    (0.0, None, U),     # no curves: (b) could go either way
    (0.0, 1.0, C),      # (b) not applicable: (a) alone
])
def test_qsg_3(ours_power, curve_power, verdict):
    curves = None if curve_power is None else _time_curve(curve_power)
    outcome = check("QSG-3", _slopes(*QSG_NAMES, (3.0, 3.0), ours_power, curves=curves))
    assert outcome.verdict == verdict, outcome


# QS3-9 (composite) and QSG-7 ----------------------------------------------------------------

def _outcomes(**verdicts: str) -> dict[str, Outcome]:
    return {k.replace("_", "-"): Outcome(v, v.lower(), "") for k, v in verdicts.items()}


@pytest.mark.parametrize(("verdicts", "verdict"), [
    ({"QS3_4": C, "QS3_5": N, "QS3_6": C, "QS3_7": C}, C),   # QS3-6 stands for scalability
    ({"QS3_4": C, "QS3_5": C, "QS3_6": P, "QS3_7": P}, P),
    ({"QS3_4": C, "QS3_5": C, "QS3_6": C, "QS3_7": N}, N),
    ({"QS3_5": C, "QS3_6": C, "QS3_7": C}, U),               # QS3-4 not checked
])
def test_qs3_9(verdicts, verdict):
    outcome = CLAIMS["QS3-9"].check(_outcomes(**verdicts))
    assert outcome.verdict == verdict, outcome


def _qsg_7(name: str, base_times: dict[int, object], far_everywhere: bool):
    lines = {"qsg_s2auc": {1000: 1.0, 20000: 1.0, 50000: 1.0},
             "samult": base_times, "pnu_auc": base_times}
    stops = {"samult": {1000: 20.0, 20000: BIG_NEED, 50000: BIG_NEED},
             "pnu_auc": {1000: 20.0, 20000: 40.0, 50000: OOM}}
    special = {i: stops for i in range(8 if far_everywhere else 1)}
    return paper(name, lines, special=special)


@pytest.mark.parametrize(("name", "far", "accuracy", "verdict"), [
    ("qsg_s2auc", True, C, C),
    ("qsg_s2auc", False, C, P),          # 2x faster on 7 datasets: faster, not far
    ("qsg_s2auc", True, N, N),           # the similar-AUC part fails
    ("qsg_s2auc_time", True, C, U),      # no accuracy runs in the time study
])
def test_qsg_7(monkeypatch, name, far, accuracy, verdict):
    fake = Claim("QSG-S2AUC", "QSG-5", "similar AUC", "", ("qsg_s2auc",),
                 lambda s: Outcome(accuracy, accuracy.lower(), ""))
    monkeypatch.setitem(CLAIMS, "QSG-5", fake)
    target = _qsg_7(name, {1000: 2.0, 20000: 2.0, 50000: 2.0}, far)
    outcome = check("QSG-7", target)
    assert outcome.verdict == verdict, outcome
    if verdict == U:
        assert "configs/qsg_s2auc.yaml" in outcome.evidence


def test_missing_time_column_is_undecidable():
    target = study("qsg_s2auc_time", runs("d0", "qsg_s2auc", auc=[0.8, 0.8]))
    for claim_id in ("QSG-1", "QSG-2", "QSG-3", "QSG-4", "QSG-7"):
        assert check(claim_id, target).verdict == U, claim_id
