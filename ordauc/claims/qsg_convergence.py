"""The claims of the two QSG papers that only the checkpoint curves (``curves.csv``) decide: the
O(1/t) convergence of Theorem 1 and the O(D t^2) training time of Table 1.

- QS3ORAO (Shi et al., AAAI 2020): Theorem 1, E|f_{t+1}(x) - f*(x)|^2 <= (2C^2 + 2 kappa
  Q_1^2)/t for eta_t = theta/t with theta lambda in (1, 2) or a positive integer (QS3-10,
  decided by ``configs/qs3orao_convergence.yaml``), and Table 1's computational complexity
  O(D t^2) (QS3-11).
- QSG-S2AUC (Shi et al., IJCAI 2019): the same Theorem 1 (QSG-8, decided by
  ``configs/qsg_s2auc_convergence.yaml``), and Table 1's O(D t^2) (the curve half of QSG-3,
  checked in :mod:`ordauc.claims.qsg_scaling` with :func:`time_growth`).

The papers ran no experiment for either statement. A curve row holds, every checkpoint of a
run's final fit, the fit time so far (``time_s``, cumulative) and the metrics the checkpoint
reports (``auc``; with ``curves: {reference: samult}`` also ``reference_error``, the mean over
the checkpoint's scored evaluation rows of (f_t(x) - f*(x))^2, f* SAMULT fitted on the same
training rows with the final model's lambda, sigma and gamma). SAMULT minimises exactly the
objective the iterates descend (for QS3ORAO the joint ordinal objective with one f over the
k-1 subproblems), so f* is the theorem's minimiser. A run's schedule is read from its
``p_step``, ``p_theta`` and ``p_lam`` columns (:mod:`ordauc.solvers.dsg.schedule`: ``step:
inverse`` is theta/(t + t0), the theorem's theta/t offset by t0 for stability; our reading: the
offset keeps the theorem's rate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
)

if TYPE_CHECKING:
    from ordauc.claims.study import Study

CELL = ("dataset", "n_labeled", "n_unlabeled")
RUN = (*CELL, "repetition")
ARM_RUN = ("solver", *RUN)  # a run of one arm: the curves key their rows by config label
TIME_BAND = (1.6, 2.4)  # a log-log slope of cumulative time on t read as "O(t^2)"
RATE_CONFIRM, RATE_PARTIAL = -0.8, -0.5  # log-log slopes of the error read as O(1/t), PARTIAL
QS3_STUDIES = ("qs3orao_time", "qs3orao")
QSG_STUDIES = ("qsg_s2auc_time", "qsg_s2auc")
QS3_CONVERGENCE = ("qs3orao_convergence",)
QSG_CONVERGENCE = ("qsg_s2auc_convergence",)
NOT_APPLICABLE = "not applicable"  # how time_growth's statistic starts below the O(t^2) band
REFERENCE = "samult"  # the exact solver of the iterates' objective (``curves.reference``)
ERROR = "reference_error"  # the curve metric: mean over evaluation rows of (f_t - f*)^2
WINDOW = 0.01  # the slope is fitted over t in [WINDOW * T, T]: the last two decades
MIN_RUNS = 5  # theorem runs a cell needs to count (the shipped configs run 10)
SHIPPED_RUNS = 10
RESAMPLES, LEVEL, SEED = 2000, 0.95, 20190810  # the bootstrap over runs; fixed: reproducible


def solver_curves(study: Study, solver: str, metric: str | None = None) -> pd.DataFrame:
    """The curve rows of ``solver`` (its config label), of ``metric`` if given; empty without."""
    curves = study.curves
    if curves is None or curves.empty or "solver" not in curves.columns:
        return pd.DataFrame(columns=[*RUN, "iteration", "time_s", "metric", "value"])
    rows = curves[curves["solver"] == solver]
    return rows if metric is None else rows[rows["metric"] == metric]


def curves_hint(study: Study, what: str) -> str:
    """How to make a study record the curves a check needs."""
    return (f"set `curves: {{every: 10}}` in configs/{study.name}.yaml so that every final fit "
            f"records {what}")


def _cells_text(notes: list[str]) -> str:
    return "; ".join(notes[:6]) + (f"; ... {len(notes) - 6} more" if len(notes) > 6 else "")


def time_growth(study: Study, solver: str) -> tuple[str, str, str]:
    """(verdict, statistic, evidence) of "training costs O(D t^2)" for ``solver``.

    Per cell, the slope (C8) of the median over runs of the cumulative fit time on the
    iteration, over the last decade of checkpoints (t in [T/10, T]); the median slope over cells
    is read against [1.6, 2.4]. Below 1.6 the implementation is cheaper than the paper's
    algorithm: UNDECIDABLE as "not applicable", since a cheaper cost does not refute an O(t^2)
    bound and cannot confirm it either.
    """
    rows = solver_curves(study, solver).dropna(subset=["iteration", "time_s"])
    if rows.empty:
        return (UNDECIDABLE, "no curves",
                f"curves.csv has no checkpoint of {solver}: {curves_hint(study, 'its time')}")
    slopes, notes = [], []
    for cell, mine in rows.groupby(list(CELL), sort=True):
        # one time per (run, iteration): each checkpoint writes a row per metric
        per_run = mine.drop_duplicates(["repetition", "iteration"])
        times = per_run.groupby("iteration")["time_s"].median()
        last = float(times.index.max())
        tail = times[times.index >= last / 10]
        slope = ev.loglog_slope(tail.index.to_numpy(), tail.to_numpy())
        if np.isfinite(slope):
            slopes.append(slope)
            notes.append(f"{cell[0]} n_u={cell[2]}: {slope:.2f} (T={last:.0f})")
    if not slopes:
        return (UNDECIDABLE, "fewer than 3 checkpoints in [T/10, T]",
                f"{solver}'s curves have fewer than 3 checkpoints in the last decade of "
                f"iterations: record them more often ({curves_hint(study, 'its time')})")
    slope = float(np.median(slopes))
    statistic = f"slope of cumulative time on t {slope:.2f} (median of {len(slopes)} cells)"
    if slope < TIME_BAND[0]:
        return (UNDECIDABLE, f"{NOT_APPLICABLE}: {statistic}",
                f"{_cells_text(notes)}. The implementation is cheaper than O(D t^2) (it does "
                "not re-evaluate the t earlier blocks at each step): the paper's bound is "
                "neither refuted nor confirmed")
    return (CONFIRMED if slope <= TIME_BAND[1] else NOT_CONFIRMED), statistic, _cells_text(notes)


def _products(rows: pd.DataFrame) -> np.ndarray:
    return (pd.to_numeric(rows["p_theta"], errors="coerce")
            * pd.to_numeric(rows["p_lam"], errors="coerce")).to_numpy(np.float64)


def _schedules(rows: pd.DataFrame) -> list[str]:
    """The schedules of ``rows``, as ``inverse theta*lam=1.5``."""
    return sorted({f"{s} theta*lam={p:.3g}" for s, p in zip(rows["p_step"], _products(rows),
                                                             strict=True)})


def theorem_runs(study: Study, solver: str) -> tuple[pd.DataFrame | None, pd.DataFrame | None,
                                                      str]:
    """The ok rows of the registry solver ``solver`` (its ``solver_name``, under any config
    label) split by Theorem 1's step-size condition, eta_t = theta/t (offset t0 allowed) with
    theta lambda in (1, 2) or a positive integer: (the rows that meet it, the others, a note on
    the schedules seen); (None, None, why) when the rows do not record the schedule."""
    results = study.results
    column = "solver_name" if "solver_name" in results.columns else "solver"
    rows = ev.ok(ev.rows_of(results, "auc", **{column: solver}))
    if rows.empty:
        return None, None, f"no ok run of {solver}"
    missing = [c for c in ("p_step", "p_theta", "p_lam") if c not in rows.columns]
    if missing:
        return None, None, f"the rows of {solver} do not record {', '.join(missing)}"
    product = _products(rows)
    integer = np.isclose(product, np.round(product)) & (product >= 1 - 1e-9)
    meets = (rows["p_step"].astype(str).to_numpy() == "inverse") & (
        ((product > 1) & (product < 2)) | integer)
    return rows[meets], rows[~meets], "schedules: " + ", ".join(_schedules(rows)[:4])


def _run_keys(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s run key (:data:`ARM_RUN`) typed alike in results and curves tables."""
    keys = pd.DataFrame({c: frame[c].astype(str) for c in ("solver", "dataset")},
                        index=frame.index)
    for column in ("n_labeled", "n_unlabeled", "repetition"):
        keys[column] = pd.to_numeric(frame[column], errors="coerce")
    return keys


def error_cells(study: Study, runs: pd.DataFrame | None) -> dict[tuple, tuple[np.ndarray,
                                                                             np.ndarray]]:
    """Per cell (:data:`CELL`) of ``runs`` (results rows), the checkpoints t and the (runs x
    checkpoints) matrix of the runs' ``reference_error`` (NaN where a run has no checkpoint at
    t); cells in sorted order, no cell without curves."""
    curves = study.curves
    needed = {*ARM_RUN, "iteration", "metric", "value"}
    if runs is None or runs.empty or curves is None or not needed <= set(curves.columns):
        return {}
    rows = curves[curves["metric"] == ERROR]
    points = _run_keys(rows).assign(
        iteration=pd.to_numeric(rows["iteration"], errors="coerce"),
        value=pd.to_numeric(rows["value"], errors="coerce")).dropna(subset=["iteration",
                                                                            "value"])
    points = points.merge(_run_keys(runs).drop_duplicates(), on=list(ARM_RUN), how="inner")
    cells = {}
    for cell, mine in points.groupby(list(CELL), sort=True):
        matrix = mine.pivot_table(index=["solver", "repetition"], columns="iteration",
                                  values="value", aggfunc="mean")
        cells[cell] = (matrix.columns.to_numpy(np.float64), matrix.to_numpy(np.float64))
    return cells


def _window(t: np.ndarray) -> np.ndarray:
    return t >= WINDOW * t.max()


def cell_slope(t: np.ndarray, errors: np.ndarray) -> float:
    """The slope (C8) of log10 of the mean over runs (rows of ``errors``) of the error on
    log10 t, for t in [T/100, T]; NaN with fewer than 3 positive means there."""
    window = _window(t)
    mine = errors[:, window]
    present = np.isfinite(mine)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, mine, 0.0).sum(axis=0) / present.sum(axis=0)
    return ev.loglog_slope(t[window], mean)


def _resampled_slopes(t: np.ndarray, errors: np.ndarray, rng: np.random.Generator,
                      resamples: int) -> np.ndarray:
    """:func:`cell_slope` on ``resamples`` draws of the runs (rows) with replacement."""
    window = _window(t)
    mine = errors[:, window]
    n = mine.shape[0]
    weights = np.zeros((resamples, n))
    np.add.at(weights, (np.arange(resamples)[:, None], rng.integers(0, n, (resamples, n))), 1.0)
    present = np.isfinite(mine)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (weights @ np.where(present, mine, 0.0)) / (weights @ present)
    return np.array([ev.loglog_slope(t[window], mean) for mean in means])


def _cells(n: int) -> str:
    return f"{n} cell" if n == 1 else f"{n} cells"


def _cell_name(cell: tuple) -> str:
    return f"{cell[0]} n_l={cell[1]:g} n_u={cell[2]:g}"


@dataclass(frozen=True)
class Rate:
    """The median over cells of :func:`cell_slope` and what it rests on."""

    slope: float  # NaN without a counted cell
    lo: float  # the percentile bootstrap interval; NaN without resamples
    hi: float
    cells: int  # the cells counted: >= MIN_RUNS runs and a finite slope
    runs: int  # the runs of the counted cells
    notes: tuple[str, ...]  # per counted cell: its slope, runs and T
    short: tuple[str, ...]  # the cells left out for fewer than MIN_RUNS runs


def rate(cells: dict[tuple, tuple[np.ndarray, np.ndarray]], resamples: int = RESAMPLES,
         seed: int = SEED) -> Rate:
    """The median over the cells with >= 5 runs of :func:`cell_slope`, and its percentile
    bootstrap interval: the runs resampled with replacement within each cell, every cell's
    slope and the median recomputed, ``resamples`` times (none with 0) from ``seed``."""
    kept, slopes, notes, short = [], [], [], []
    for cell, (t, errors) in cells.items():
        if errors.shape[0] < MIN_RUNS:
            short.append(f"{_cell_name(cell)}: {errors.shape[0]} runs")
            continue
        slope = cell_slope(t, errors)
        if np.isfinite(slope):
            kept.append((t, errors))
            slopes.append(slope)
            notes.append(f"{_cell_name(cell)}: {slope:.2f} ({errors.shape[0]} runs, "
                         f"T={t.max():.0f})")
    lo = hi = np.nan
    if slopes and resamples:
        rng = np.random.default_rng(seed)
        draws = np.column_stack([_resampled_slopes(t, e, rng, resamples) for t, e in kept])
        medians = np.nanmedian(draws[np.isfinite(draws).any(axis=1)], axis=1)
        tail = 50 * (1 - LEVEL)
        if medians.size:
            lo, hi = (float(v) for v in np.percentile(medians, [tail, 100 - tail]))
    return Rate(float(np.median(slopes)) if slopes else np.nan, lo, hi, len(slopes),
                sum(e.shape[0] for _, e in kept), tuple(notes), tuple(short))


def rate_verdict(slope: float) -> str:
    """<= -0.8 consistent with O(1/t) (CONFIRMED); (-0.8, -0.5] PARTIAL; above NOT CONFIRMED."""
    return (CONFIRMED if slope <= RATE_CONFIRM else PARTIAL if slope <= RATE_PARTIAL
            else NOT_CONFIRMED)


def interval_verdict(lo: float, hi: float) -> str:
    """The verdict of the slope's interval [lo, hi]: all of it in one band of
    :func:`rate_verdict`, else UNDECIDABLE (it straddles -0.8 or -0.5, or is unknown)."""
    if hi <= RATE_CONFIRM:
        return CONFIRMED
    if lo > RATE_PARTIAL:
        return NOT_CONFIRMED
    if lo > RATE_CONFIRM and hi <= RATE_PARTIAL:
        return PARTIAL
    return UNDECIDABLE


def _open(why: str, **values: object) -> Outcome:
    """UNDECIDABLE with ``why`` as evidence and every value key present."""
    keys = {"slope": None, "lo": None, "hi": None, "cells": 0, "runs": 0, "control_slope": None}
    return Outcome(UNDECIDABLE, "not computed", why, "interpretation", values=keys | values)


def _control(study: Study, control: pd.DataFrame | None) -> tuple[float | None, str]:
    """The slope of the runs outside the theorem's condition (None without one) and a text."""
    if control is None or control.empty:
        return None, "no control run outside the condition"
    arms = ", ".join(s.removeprefix("inverse ") for s in _schedules(control))
    found = rate(error_cells(study, control), resamples=0)
    if not found.cells:
        return None, f"control {arms}: no slope (no cell with {MIN_RUNS} runs with curves)"
    return found.slope, (f"control {arms}: slope {found.slope:.2f} (median of "
                         f"{_cells(found.cells)})")


def convergence(study: Study, solver: str, shipped: str) -> Outcome:
    """Theorem 1's O(1/t) for the registry solver ``solver`` (the rule of QS3-10 and QSG-8);
    ``shipped`` is the stem of the config that decides it.

    Needs a config with ``curves.reference: samult``. Per cell with >= 5 runs under the
    theorem's step size, the slope of the mean over runs of ``reference_error`` on t over
    [T/100, T] (:func:`cell_slope`); the median over cells and its bootstrap interval over runs
    (:func:`rate`) decide by :func:`interval_verdict`, an interval across a band edge leaning
    to :func:`rate_verdict` of the point slope. The runs outside the condition (the control
    arm) get the same slope, reported and never deciding.
    """
    config = f"configs/{shipped}.yaml"
    curves = f"`curves: {{every: 10, spacing: log, sample: 300, reference: {REFERENCE}}}`"
    if study.config is None:
        return _open(f"this study's config is unknown (none recorded beside its results), so "
                     f"nothing says its curves compare the iterates with {REFERENCE}'s exact "
                     f"fit: run {config}, whose {curves} records (f_t - f*)^2")
    reference = getattr(study.config, "curves_reference", None)
    if reference != REFERENCE:
        setting = ("no `curves.reference`" if reference is None
                   else f"`curves.reference: {reference}`")
        return _open(f"this study's config sets {setting}: the rule needs f* = {REFERENCE}, "
                     f"which minimises the same objective exactly; run {config} ({curves})")
    theorem, control, schedules = theorem_runs(study, solver)
    if theorem is None:
        return _open(f"{schedules}: the theorem's step-size condition cannot be checked "
                     f"(run {config})")
    control_slope, control_text = _control(study, control)
    if theorem.empty:
        return _open(f"no run of {solver} uses Theorem 1's step size (eta_t = theta/t with "
                     f"theta*lam in (1, 2) or a positive integer; {schedules}): set `step: "
                     f"inverse` and theta = 1.5/lam as in {config}; {control_text}",
                     control_slope=control_slope)
    cells = error_cells(study, theorem)
    if not cells:
        return _open(f"curves.csv has no `{ERROR}` checkpoints of {solver}'s runs under the "
                     f"theorem's step size: set {curves} as in {config}, so that every final "
                     f"fit records the mean (f_t(x) - f*(x))^2 against {REFERENCE}'s exact fit",
                     control_slope=control_slope)
    found = rate(cells)
    short = "; ".join(found.short)
    if not found.cells:
        counts = [e.shape[0] for _, e in cells.values()]
        if max(counts) < MIN_RUNS:
            return _open(f"too few repetitions: {sum(counts)} runs of {solver} under the "
                         f"theorem's step size have `{ERROR}` curves, at most {max(counts)} in "
                         f"a cell ({short}); a cell needs {MIN_RUNS} ({config} runs "
                         f"{SHIPPED_RUNS}); {control_text}",
                         runs=sum(counts), control_slope=control_slope)
        return _open(f"fewer than 3 checkpoints at t in [T/100, T] in every cell with "
                     f"{MIN_RUNS} runs: record them more often or run longer ({curves} as in "
                     f"{config})", runs=sum(counts), control_slope=control_slope)
    slope, lo, hi = found.slope, found.lo, found.hi
    verdict = interval_verdict(lo, hi)
    lean = rate_verdict(slope) if verdict == UNDECIDABLE else None
    statistic = (f"slope of log mean (f_t - f*)^2 on log t {slope:.2f} [95% {lo:.2f}, "
                 f"{hi:.2f}] (median of {_cells(found.cells)})" + algebra.lean_text(lean))
    notes = _cells_text(list(found.notes))
    if short:
        notes += f" (left out, fewer than {MIN_RUNS} runs: {short})"
    evidence = (f"{notes}; {control_text}; f* = {REFERENCE} fitted on the same rows with the "
                f"same (lambda, sigma, gamma); {schedules}")
    if verdict == UNDECIDABLE:
        straddled = ", ".join(f"{b:g}" for b in (RATE_CONFIRM, RATE_PARTIAL) if lo <= b < hi)
        evidence = (f"the 95% interval straddles {straddled or 'a band edge'}: more "
                    f"repetitions or longer runs would decide; {evidence}")
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"slope": slope, "lo": lo, "hi": hi, "cells": found.cells,
                           "runs": found.runs, "control_slope": control_slope},
                   provisional=lean)


def _rate_rule(objective: str) -> str:
    return (
        "only runs whose step size meets Theorem 1 count: eta_t = theta/t with theta*lambda in "
        "(1, 2) or a positive integer (our reading: the offset t0 of theta/(t + t0) keeps the "
        f"theorem's rate); f* = SAMULT fitted on the same rows with the same (lambda, sigma, "
        f"gamma); SAMULT minimises the same objective exactly ({objective}); the study's "
        "config must set `curves: {reference: samult}`, so that every checkpoint records the "
        "mean over a fixed sample of evaluation points of (f_t(x) - f*(x))^2 (our reading: "
        "this mean stands in for the theorem's 'any x'); per cell (dataset, labeled and "
        f"unlabeled size) with at least {MIN_RUNS} such runs, the error curve is the mean over "
        "its runs at each iteration and the statistic is the OLS slope of log10(mean error) on "
        "log10(t) for t in [T/100, T], T the cell's last iteration; the claim's slope is the "
        f"median over cells; a percentile bootstrap over runs (runs resampled with replacement "
        f"within each cell, every cell's slope and the median recomputed, {RESAMPLES:,} "
        "resamples, fixed seed) gives a 95 % interval [lo, hi]: hi <= -0.8 CONFIRMED "
        "(consistent with O(1/t)), lo > -0.5 NOT CONFIRMED, -0.8 < lo and hi <= -0.5 PARTIAL, "
        "an interval across -0.8 or -0.5 UNDECIDABLE (leaning to the band of the point slope: "
        f"more repetitions or longer runs would decide); no cell with {MIN_RUNS} runs: "
        "UNDECIDABLE; the runs outside the condition (a control arm with theta*lambda below 1) "
        "get the same slope, reported beside the verdict and never deciding it: it shows the "
        "check tells rates apart")


@claim("QS3ORAO", "QS3-10", studies=QS3_CONVERGENCE,
       text="QS3ORAO converges to the optimal solution at the rate O(1/t) (Theorem 1)",
       rule=_rate_rule("for QS3ORAO the joint objective with one f over the k-1 subproblems"))
def qs3_10(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), Theorem 1 and Remark 2: E|f_{t+1}(x) - f*(x)|^2 <= (2C^2 + 2 kappa
    Q_1^2)/t for eta_t = theta/t with theta lambda in (1, 2) or a positive integer.

    No experiment in the paper. f* is SAMULT's exact minimiser of the same joint objective (one
    f over the k-1 binary subproblems), fitted on the run's rows with its (lambda, sigma,
    gamma); the mean over a fixed sample of evaluation points of the squared pointwise error
    stands in for "any x" (:func:`convergence`).
    """
    return convergence(study, "qs3orao", QS3_CONVERGENCE[0])


@claim("QSG-S2AUC", "QSG-8", studies=QSG_CONVERGENCE,
       text="QSG-S2AUC converges to the optimal solution at the rate O(1/t) (Theorem 1)",
       rule=_rate_rule("for QSG-S2AUC the binary semi-supervised AUC objective"))
def qsg_8(study: Study) -> Outcome:
    """QSG-S2AUC (IJCAI 2019), Theorem 1 and Remark 2: E|f_{t+1}(x) - f*(x)|^2 <= (2C^2 + 2
    kappa Q_1^2)/t for eta_t = theta/t with theta lambda in (1, 2) or a positive integer.

    No experiment in the paper. f* is SAMULT's exact minimiser of the same objective, fitted
    on the run's rows with its (lambda, sigma, gamma); the mean over a fixed sample of
    evaluation points of the squared pointwise error stands in for "any x"
    (:func:`convergence`).
    """
    return convergence(study, "qsg_s2auc", QSG_CONVERGENCE[0])


@claim("QS3ORAO", "QS3-11", studies=QS3_STUDIES,
       text="QS3ORAO's training time grows as O(D t^2) in the number of iterations t (Table 1)",
       rule="per cell, the OLS slope of log10(median over runs of the cumulative fit time) on "
       "log10(t) over the last decade of checkpoints, median over cells: in [1.6, 2.4] "
       "CONFIRMED, above 2.4 NOT CONFIRMED, below 1.6 UNDECIDABLE as 'not applicable' (the "
       "implementation is cheaper than the paper's algorithm, which an O(t^2) bound does not "
       "refute)")
def qs3_11(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), Table 1: computational complexity O(D t^2), i.e. step t
    re-evaluates the t earlier random-feature blocks. Read from the curves' cumulative fit time
    (the curve's own time excluded) against the iteration."""
    verdict, statistic, evidence = time_growth(study, "qs3orao")
    slope = re.search(r"slope of cumulative time on t (-?[\d.]+)", statistic)
    return Outcome(verdict, statistic, evidence, "strict",
                   values={"slope": float(slope.group(1)) if slope else None,
                           "applicable": not statistic.startswith(NOT_APPLICABLE)})
