"""The time, memory and scaling claims of the QSG papers (QS3-5 to QS3-9, QS3-12; QSG-1 to QSG-4,
QSG-7) on hand-made results tables: one per verdict each rule can reach, and one per guard of
the verdict algebra (too few repetitions, a substitute dataset, a memory skip below the papers'
80 GB, a practical tie)."""

from __future__ import annotations

import types

import pandas as pd
import pytest
from claims_tables import curve, runs, study

from ordauc.claims import CLAIMS, Outcome
from ordauc.claims.qsg_thresholds import qs3_12
from ordauc.claims.registry import Claim

C, P, N, U = "CONFIRMED", "PARTIAL", "NOT CONFIRMED", "UNDECIDABLE"
BIG_NEED = ("skipped", "needs 120 GB for 50,500 training rows x 8 features, limit 80 GB; "
            "raise --memory-limit to run it")
SMALL_NEED = ("skipped", "needs 30 GB for 50,500 training rows x 8 features, limit 9 GB; "
              "raise --memory-limit to run it")
OOM = ("error", "MemoryError: Unable to allocate 80.0 GiB")
TIMEOUT = ("timeout", "exceeded 86400 s")
QS3_SETS = ("road3d", "sgemm", "year", "yolanda", "baby", "beauty", "clothes", "pet")
QSG_SETS = ("codrna", "ijcnn1", "susy", "covtype", "higgs", "skin", "dota2", "unclonable")
SUBSTITUTES = tuple(f"synthetic_binary[n={i}]" for i in range(8))


def line(dataset: str, solver: str, cells: dict[int, object], n_labeled: int = 200,
         n_iter: int | None = None, reps: int = 10) -> list[dict[str, object]]:
    """``reps`` runs of ``solver`` at each size: a float is their fit time (ok; repetition r
    takes it x (1 + r/100), so two lines are paired by repetition), a pair a failure."""
    rows = []
    for size, value in cells.items():
        extra = {} if n_iter is None else {"p_n_iter": n_iter}
        if isinstance(value, tuple):
            rows += runs(dataset, solver, n_labeled=n_labeled, n_unlabeled=size,
                         status=value[0], message=value[1], repetitions=list(range(reps)),
                         **extra)
        else:
            rows += runs(dataset, solver, n_labeled=n_labeled, n_unlabeled=size,
                         fit_time_s=[value * (1 + r / 100) for r in range(reps)], auc=0.8,
                         **extra)
    return rows


def paper(name: str, lines: dict[str, dict[int, object]], n: int = 8,
          special: dict[int, dict[str, dict[int, object]]] | None = None,
          names: tuple[str, ...] | None = None, **kw: object):
    """A study with the first ``n`` of ``names`` (the paper's 8 by default), each with
    ``lines`` (solver -> size -> value), dataset i's lines updated by ``special[i]``."""
    names = names or (QS3_SETS if name.startswith("qs3") else QSG_SETS)
    groups = []
    for i in range(n):
        mine = {**lines, **(special or {}).get(i, {})}
        groups += [line(names[i], solver, cells, **kw) for solver, cells in mine.items()]
    return study(name, *groups)


def check(claim_id: str, target) -> Outcome:
    return CLAIMS[claim_id].check(target)


# QS3-5, QSG-4: the baselines stop for memory -------------------------------------------------

SIZES = (1000, 20000, 50000)


def _feasibility(ours: str, bases: tuple[str, str], samult: tuple, pnu: tuple, n: int = 8,
                 name: str = "qs3orao_time", ours_last: object = 1.0, first: tuple = (),
                 **kw: object):
    """Every dataset with these lines; with ``first``, dataset 0's samult line instead."""
    lines = {ours: {1000: 1.0, 20000: 1.0, 50000: ours_last},
             bases[0]: dict(zip(SIZES, samult, strict=True)),
             bases[1]: dict(zip(SIZES, pnu, strict=True))}
    special = {0: {bases[0]: dict(zip(SIZES, first, strict=True))}} if first else None
    return paper(name, lines, n=n, special=special, **kw)


STOPS = ((0.1, BIG_NEED, BIG_NEED), (0.1, 5.0, OOM))


@pytest.mark.parametrize(("samult", "pnu", "n", "first", "kw", "verdict"), [
    (*STOPS, 8, (), {}, C),
    (STOPS[0], (0.1, 5.0, TIMEOUT), 8, (), {}, P),   # a timeout is no memory failure
    (*STOPS, 8, (0.1, 5.0, TIMEOUT), {}, P),          # one stop is not for memory
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 8, (), {}, N),
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 3, (), {}, U),  # 5 datasets could still stop
    (*STOPS, 3, (), {}, U),                           # ... and not for memory
    # guards: a skip at 30 GB (below the papers' 80 GB) is not observed; 3 of 10 repetitions;
    # the same numbers on substitute datasets
    ((0.1, SMALL_NEED, SMALL_NEED), (0.1, SMALL_NEED, SMALL_NEED), 8, (), {}, U),
    (*STOPS, 8, (), {"reps": 3}, U),
    (*STOPS, 8, (), {"names": SUBSTITUTES}, U),
])
def test_qs3_5(samult, pnu, n, first, kw, verdict):
    target = _feasibility("qs3orao", ("m_samult", "m_pnu_auc"), samult, pnu, n, first=first,
                          **kw)
    outcome = check("QS3-5", target)
    assert outcome.verdict == verdict, outcome
    if kw or samult[1] == SMALL_NEED:
        assert outcome.provisional is not None  # the runs lean, the guards keep it open


def test_qs3_5_small_limit_leans_but_never_supports():
    target = _feasibility("qs3orao", ("m_samult", "m_pnu_auc"), (0.1, SMALL_NEED, SMALL_NEED),
                          (0.1, 5.0, OOM))
    outcome = check("QS3-5", target)
    assert outcome.verdict == U
    assert outcome.values["m_samult"]["decided"] == 0
    assert outcome.values["m_pnu_auc"]["verdict"] == C


def test_qs3_5_without_qs3orao_is_undecidable():
    target = study("qs3orao_time", line("road3d", "m_samult", {1000: 0.1}))
    assert check("QS3-5", target).verdict == U


@pytest.mark.parametrize(("failing", "n", "last", "kw", "verdict"), [
    (0, 8, TIMEOUT, {}, C), (2, 8, TIMEOUT, {}, P), (3, 8, TIMEOUT, {}, N),
    (0, 3, TIMEOUT, {}, U),
    (3, 8, SMALL_NEED, {}, U),          # skipped below 80 GB: not observed, not a failure
    (0, 8, TIMEOUT, {"reps": 3}, U),
    (0, 8, TIMEOUT, {"names": SUBSTITUTES}, U),
])
def test_qs3_6(failing, n, last, kw, verdict):
    target = paper("qs3orao_time", {"qs3orao": {1000: 1.0, 50000: 2.0}}, n=n,
                   special={i: {"qs3orao": {1000: 1.0, 50000: last}} for i in range(failing)},
                   **kw)
    outcome = check("QS3-6", target)
    assert outcome.verdict == verdict, outcome
    if not kw:
        assert outcome.values["ok"] == n - failing


def test_qs3_6_needs_the_full_size_in_the_grid():
    target = paper("qs3orao_time", {"qs3orao": {1000: 1.0, 50000: 2.0}})
    target.config = types.SimpleNamespace(
        resampling=types.SimpleNamespace(n_unlabeled=(1000, 50000)))
    outcome = check("QS3-6", target)
    assert outcome.verdict == U and "add `all`" in outcome.evidence


@pytest.mark.parametrize(("samult", "pnu", "ours_last", "n", "kw", "verdict"), [
    (*STOPS, 1.0, 8, {}, C),
    (*STOPS, TIMEOUT, 8, {}, P),                       # QSG itself stops short
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 1.0, 8, {}, N),
    ((0.1, 5.0, 50.0), (0.1, 5.0, 50.0), 1.0, 2, {}, U),
    ((0.1, SMALL_NEED, SMALL_NEED), (0.1, 5.0, SMALL_NEED), 1.0, 8, {}, U),
    (*STOPS, 1.0, 8, {"reps": 3}, U),
    (*STOPS, 1.0, 8, {"names": SUBSTITUTES}, U),
])
def test_qsg_4(samult, pnu, ours_last, n, kw, verdict):
    target = _feasibility("qsg_s2auc", ("samult", "pnu_auc"), samult, pnu, n,
                          "qsg_s2auc_time", ours_last, **kw)
    outcome = check("QSG-4", target)
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert outcome.values["full_size"]["ok"] == 8


# QS3-7, QSG-1: paired speed -----------------------------------------------------------------

def _speed(name: str, ours: str, bases: tuple[str, str], base_times: dict[int, object],
           n: int = 8, slow: dict[int, dict[int, object]] | None = None, **kw: object):
    sizes = list(base_times)
    lines = {ours: dict.fromkeys(sizes, 1.0), bases[0]: base_times, bases[1]: base_times}
    special = {i: {bases[0]: {**base_times, **cells}} for i, cells in (slow or {}).items()}
    return paper(name, lines, n=n, special=special, **kw)


QS3_NAMES = ("qs3orao_time", "qs3orao", ("m_samult", "m_pnu_auc"))
QS3_TIMES = {5000: 0.5, 20000: 5.0, 50000: 50.0, 100000: 100.0, 200000: 200.0}


@pytest.mark.parametrize(("times", "n", "slow", "kw", "verdict"), [
    (QS3_TIMES, 8, None, {}, C),
    (QS3_TIMES, 8, {0: {20000: 0.5}}, {}, P),           # 3 of 4 cells beyond 10,000 faster
    (dict.fromkeys(QS3_TIMES, 0.5), 8, None, {}, N),      # slower everywhere
    (QS3_TIMES, 3, None, {}, U),
    (dict.fromkeys(QS3_TIMES, 1.03), 8, None, {}, N),     # ratio 0.97: a tie, not faster
    (QS3_TIMES, 8, None, {"reps": 3}, U),
    (QS3_TIMES, 8, None, {"names": SUBSTITUTES}, U),
    (QS3_TIMES, 8, {0: {200000: SMALL_NEED}}, {}, U),     # a cell not observed below 80 GB
])
def test_qs3_7(times, n, slow, kw, verdict):
    outcome = check("QS3-7", _speed(*QS3_NAMES, times, n, slow, **kw))
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert "crossover 20000" in outcome.evidence
        assert outcome.values["m_samult"]["counts"] == {"faster in every cell": 8}


def test_qs3_7_one_baseline_not_faster_is_partial_overall():
    outcome = check("QS3-7", _speed(*QS3_NAMES, QS3_TIMES, slow={0: {20000: 0.5, 50000: 0.5}}))
    assert outcome.verdict == P
    assert outcome.values["parts"] == {"m_samult": N, "m_pnu_auc": C}


def test_qs3_7_without_comparable_cells_is_undecidable():
    times = {5000: 0.5, 20000: BIG_NEED, 50000: BIG_NEED}
    outcome = check("QS3-7", _speed(*QS3_NAMES, times))
    assert outcome.verdict == U and "infeasible at [20000, 50000]" in outcome.evidence


QSG_NAMES = ("qsg_s2auc_time", "qsg_s2auc", ("samult", "pnu_auc"))
QSG_TIMES = {1000: 2.0, 5000: 20.0, 20000: 200.0, 50000: 2000.0}


@pytest.mark.parametrize(("times", "n", "kw", "verdict"), [
    (QSG_TIMES, 8, {}, C),
    ({**QSG_TIMES, 1000: 0.5}, 8, {}, P),               # slower below the crossover only
    ({**QSG_TIMES, 1000: 0.5, 5000: 0.5}, 8, {}, N),     # only half the cells faster
    (QSG_TIMES, 3, {}, U),
    ({**QSG_TIMES, 1000: 1.02}, 8, {}, P),               # a tie at 1000 is not faster
    (QSG_TIMES, 8, {"reps": 3}, U),
    (QSG_TIMES, 8, {"names": SUBSTITUTES}, U),
])
def test_qsg_1(times, n, kw, verdict):
    outcome = check("QSG-1", _speed(*QSG_NAMES, times, n, **kw))
    assert outcome.verdict == verdict, outcome
    assert outcome.values["parts"]["samult"] == verdict


# QS3-8, QSG-2, QSG-3: slopes ----------------------------------------------------------------

GRID = (5000, 10000, 20000, 40000)


def _slopes(name: str, ours: str, bases: tuple[str, str], powers: tuple[float, float],
            ours_power: float = 0.0, grid: tuple[int, ...] = GRID, n: int = 8,
            curves: pd.DataFrame | None = None, names: tuple[str, ...] | None = None,
            reps: int = 10):
    labeled = 500 if ours == "qs3orao" else 200
    names = names or (QS3_SETS if ours == "qs3orao" else QSG_SETS)
    groups = []
    for dataset in names[:n]:
        groups.append(line(dataset, ours, {s: 1e-3 * (labeled + s) ** ours_power for s in grid},
                           n_labeled=labeled, n_iter=2000, reps=reps))
        for base, power in zip(bases, powers, strict=True):
            groups.append(line(dataset, base, {s: 1e-12 * (labeled + s) ** power for s in grid},
                               n_labeled=labeled, reps=reps))
    return study(name, *groups, curves=curves)


@pytest.mark.parametrize(("powers", "ours_power", "kw", "verdict"), [
    ((3.0, 3.0), 0.0, {}, C),
    ((3.0, 1.0), 0.0, {}, P),
    ((3.0, 3.0), 1.0, {}, P),                      # ours grows with n
    ((1.0, 1.0), 0.0, {}, N),
    ((3.0, 3.0), 0.0, {"grid": (1000, 2000, 5000, 10000)}, U),   # 2 sizes with n >= 5,000
    ((3.0, 3.0), 0.0, {"n": 5}, C),                # 3 undecided cannot move the median of 8
    ((3.0, 3.0), 0.0, {"n": 4}, U),                # 4 undecided can
    ((3.0, 3.0), 0.0, {"n": 1, "names": ("synthetic_ordinal[n=30000]",)}, U),
    ((3.0, 3.0), 0.0, {"reps": 3}, U),
])
def test_qs3_8(powers, ours_power, kw, verdict):
    outcome = check("QS3-8", _slopes(*QS3_NAMES, powers, ours_power, **kw))
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert outcome.values["m_samult"]["median"] == pytest.approx(3.0)


def test_one_synthetic_dataset_never_confirms_a_slope():
    outcome = check("QSG-2", _slopes(*QSG_NAMES, (3.0, 3.0), n=1,
                                     names=("synthetic_binary[n=60000]",)))
    assert outcome.verdict == U and outcome.provisional == C
    assert outcome.values["samult"]["known"] == 0


@pytest.mark.parametrize(("powers", "kw", "verdict"), [
    ((3.0, 2.8), {}, C),
    ((2.0, 3.0), {}, P),
    ((1.0, 1.2), {}, N),
    ((3.0, 3.0), {"grid": (1000, 2000, 5000)}, U),
    ((3.0, 3.0), {"reps": 3}, U),
])
def test_qsg_2(powers, kw, verdict):
    outcome = check("QSG-2", _slopes(*QSG_NAMES, powers, **kw))
    assert outcome.verdict == verdict, outcome
    if verdict == C:
        assert outcome.values["samult"]["median"] == pytest.approx(3.0)


def _time_curve(power: float) -> pd.DataFrame:
    t = list(range(100, 2001, 100))
    return pd.concat([curve("codrna", "qsg_s2auc", "auc", t, [0.8] * len(t), repetition=r,
                            n_unlabeled=5000, times=[1e-6 * i ** power for i in t])
                      for r in (0, 1)])


@pytest.mark.parametrize(("ours_power", "curve_power", "kw", "verdict"), [
    (0.0, 2.0, {}, C),
    (0.0, 3.0, {}, P),      # (b) grows faster than t^2
    (1.0, 3.0, {}, N),
    (0.0, None, {}, U),     # no curves: (b) could go either way
    (0.0, 1.0, {}, C),      # (b) not applicable: (a) alone
    (0.0, 1.0, {"reps": 3}, U),
])
def test_qsg_3(ours_power, curve_power, kw, verdict):
    curves = None if curve_power is None else _time_curve(curve_power)
    outcome = check("QSG-3", _slopes(*QSG_NAMES, (3.0, 3.0), ours_power, curves=curves, **kw))
    assert outcome.verdict == verdict, outcome


# QS3-9 (composite) and QSG-7 ----------------------------------------------------------------

def _outcomes(**verdicts: str) -> dict[str, Outcome]:
    return {k.replace("_", "-"): Outcome(v, v.lower(), "") for k, v in verdicts.items()}


@pytest.mark.parametrize(("verdicts", "verdict"), [
    ({"QS3_4": C, "QS3_5": N, "QS3_6": C, "QS3_7": C}, C),   # QS3-6 stands for scalability
    ({"QS3_4": C, "QS3_5": C, "QS3_6": P, "QS3_7": P}, P),
    ({"QS3_4": C, "QS3_5": C, "QS3_6": C, "QS3_7": N}, N),
    ({"QS3_4": U, "QS3_5": C, "QS3_6": C, "QS3_7": N}, N),   # an undecided part cannot save it
    ({"QS3_5": C, "QS3_6": C, "QS3_7": C}, U),               # QS3-4 not checked
    ({"QS3_4": C, "QS3_5": U, "QS3_6": U, "QS3_7": C}, U),
])
def test_qs3_9(verdicts, verdict):
    outcome = CLAIMS["QS3-9"].check(_outcomes(**verdicts))
    assert outcome.verdict == verdict, outcome


def _qsg_7(name: str, base_times: dict[int, object], far_everywhere: bool, **kw: object):
    lines = {"qsg_s2auc": {1000: 1.0, 20000: 1.0, 50000: 1.0},
             "samult": base_times, "pnu_auc": base_times}
    stops = {"samult": {1000: 20.0, 20000: BIG_NEED, 50000: BIG_NEED},
             "pnu_auc": {1000: 20.0, 20000: 40.0, 50000: OOM}}
    special = {i: stops for i in range(8 if far_everywhere else 1)}
    return paper(name, lines, special=special, **kw)


TWICE = {1000: 2.0, 20000: 2.0, 50000: 2.0}


@pytest.mark.parametrize(("name", "times", "far", "accuracy", "kw", "verdict"), [
    ("qsg_s2auc", TWICE, True, C, {}, C),
    ("qsg_s2auc", TWICE, False, C, {}, P),          # 2x faster on 7 datasets: not far
    ("qsg_s2auc", dict.fromkeys(TWICE, 1.03), False, C, {}, N),  # a tie on 7 datasets
    ("qsg_s2auc", TWICE, True, N, {}, N),           # the similar-AUC part fails
    ("qsg_s2auc_time", TWICE, True, C, {}, U),      # no accuracy runs in the time study
    ("qsg_s2auc", TWICE, False, C, {"reps": 3}, U),
    ("qsg_s2auc", TWICE, False, C, {"names": SUBSTITUTES}, U),
])
def test_qsg_7(monkeypatch, name, times, far, accuracy, kw, verdict):
    fake = Claim("QSG-S2AUC", "QSG-5", "similar AUC", "", ("qsg_s2auc",),
                 lambda s: Outcome(accuracy, accuracy.lower(), ""))
    monkeypatch.setitem(CLAIMS, "QSG-5", fake)
    outcome = check("QSG-7", _qsg_7(name, times, far, **kw))
    assert outcome.verdict == verdict, outcome
    if verdict == U and name == "qsg_s2auc_time":
        assert "configs/qsg_s2auc.yaml" in outcome.evidence
    if not kw and name == "qsg_s2auc":
        assert outcome.values["far"] == (8 if far else 1)


def test_qsg_7_memory_skip_below_80_gb_is_not_infeasible(monkeypatch):
    fake = Claim("QSG-S2AUC", "QSG-5", "similar AUC", "", ("qsg_s2auc",),
                 lambda s: Outcome(C, "c", ""))
    monkeypatch.setitem(CLAIMS, "QSG-5", fake)
    lines = {"qsg_s2auc": {1000: 1.0, 20000: 1.0}, "samult": {1000: 2.0, 20000: SMALL_NEED},
             "pnu_auc": {1000: 2.0, 20000: SMALL_NEED}}
    outcome = check("QSG-7", paper("qsg_s2auc", lines))
    assert outcome.verdict == U and outcome.values["decided"] == 0


def test_missing_time_column_is_undecidable():
    target = study("qsg_s2auc_time", runs("codrna", "qsg_s2auc", auc=[0.8, 0.8]))
    for claim_id in ("QSG-1", "QSG-2", "QSG-3", "QSG-4", "QSG-7"):
        assert check(claim_id, target).verdict == U, claim_id


# QS3-12: thresholds from a recorded column, else UNDECIDABLE -------------------------------

@pytest.mark.parametrize(("thresholds", "verdict"), [
    (None, U),                                      # the table does not record them
    (["-1;0;1;2"] * 3, C),
    (["-1;0;1;2", "-1;1;0;2", "-1;0;1;2"], N),
    (["-1;0;1;2", "", "-1;0;1;2"], U),              # one run unreadable
])
def test_qs3_12(thresholds, verdict):
    extra = {} if thresholds is None else {"thresholds": thresholds}
    target = study("qs3orao", runs("road3d", "qs3orao", mze=[0.5] * 3, mae=[0.6] * 3, **extra))
    outcome = qs3_12(target)
    assert outcome.verdict == verdict, outcome
    if thresholds is None:
        assert "tests/solvers/test_thresholds.py" in outcome.evidence
    else:
        assert outcome.values["runs"] == 3
