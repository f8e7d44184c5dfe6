"""The cost estimate in core-seconds: calibrations timed in CPU time, the law's exponent fitted
from two sizes and two feature counts, a shared pass costed as a shared part and a part per
model, both timed, the evaluation rows of a dataset not fetched, the cache's unit."""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from ordauc.config import DatasetSpec, ResamplingSpec, SolverSpec, TuningSpec
from ordauc.cost import calibration as cal
from ordauc.cost import costlaw
from ordauc.cost import estimate as est
from ordauc.experiment.costing import runtime
from ordauc.experiment.evaluate import evaluate
from ordauc.experiment.plan import Cell, SplitSeeds


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDAUC_CACHE", str(tmp_path / "cache"))


def spin(seconds: float) -> None:
    """Burn ``seconds`` of this process's CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def _rows(n: int, labeled: int) -> tuple[np.ndarray, np.ndarray]:
    return cal.synthetic("binary", 2, n, labeled, d=8)


class Idle(BaseEstimator):
    """A fit that waits ``wait`` seconds and burns ``burn`` core-seconds, whatever the size."""

    def __init__(self, wait: float = 0.0, burn: float = 0.0) -> None:
        self.wait = wait
        self.burn = burn

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        return float(n_samples)

    def fit(self, X: np.ndarray, y: np.ndarray) -> Idle:
        time.sleep(self.wait)
        spin(self.burn)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.arange(len(X), dtype=float)


def test_a_calibration_counts_core_seconds_not_wall_time() -> None:
    """A fit that sleeps costs no core-seconds, however long it takes; one that spins costs
    what it burns (a machine busy with other work delays a fit without making it dearer)."""
    sleeper = cal.calibrate(Idle(wait=0.04), _rows, [100, 200], uses_unlabeled=False,
                            evaluate=evaluate)
    spinner = cal.calibrate(Idle(burn=0.04), _rows, [100, 200], uses_unlabeled=False,
                            evaluate=evaluate)
    assert sleeper.fit_seconds(150) < 0.005
    assert spinner.fit_seconds(150) == pytest.approx(0.04, rel=0.25)


def test_a_forked_childs_cpu_counts() -> None:
    from ordauc.experiment.isolate import run_isolated

    start = cal.cpu_seconds()
    run_isolated(lambda: spin(0.1), None)
    assert cal.cpu_seconds() - start >= 0.09


class Clock:
    """A CPU clock that only the fits below advance: the calibration's arithmetic checked on
    exact times (the real clock is checked above, by a fit that sleeps and one that spins)."""

    def __init__(self) -> None:
        self.now = 0.0

    def process_time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


class Scaled(BaseEstimator):
    """A fit costing 1e-3 + 1e-6 (n^2 d)^0.8 core-seconds (on ``clock`` when set, else burnt),
    declaring n^2 d; records the (rows, features) of every fit it is given."""

    seen: list[tuple[int, int]] = []
    clock: Clock | None = None

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        return float(n_samples) ** 2 * n_features

    def fit(self, X: np.ndarray, y: np.ndarray) -> Scaled:
        Scaled.seen.append(X.shape)
        seconds = 1e-3 + 1e-6 * (X.shape[0] ** 2 * X.shape[1]) ** 0.8
        if Scaled.clock is None:
            spin(seconds)
        else:
            Scaled.clock.now += seconds
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(len(X))


def test_two_sizes_and_two_feature_counts_fit_the_exponent(monkeypatch) -> None:
    Scaled.seen = []
    clock = Clock()  # exact times: the law's fit is what is checked, not this machine's load
    monkeypatch.setattr(cal, "time", clock)
    monkeypatch.setattr(Scaled, "clock", clock)
    found = cal.calibrate(Scaled(), _rows, [200, 400, 800], uses_unlabeled=False,
                          evaluate=evaluate)
    shapes = set(Scaled.seen[1:])  # after the untimed first fit
    assert {n for n, _ in shapes} >= {200, 400, 800} and {d for _, d in shapes} == {4, 8}
    assert found.law.startswith("fitted exponent")
    assert found.exponent == pytest.approx(0.8, abs=0.08)
    # beyond the timed sizes, the declared growth from the speed at the largest one
    top = 800 ** 2 * 8
    at_top = 1e-3 + 1e-6 * top ** 0.8
    assert found.fit_seconds(top) == pytest.approx(at_top, rel=0.2)
    assert found.fit_seconds(8 * top) - found.a == pytest.approx(
        8 * (found.fit_seconds(top) - found.a), rel=1e-9)
    # a first fit past the budget does not leave the calibration with one size
    Scaled.seen = []
    monkeypatch.setattr(cal, "FIT_BUDGET", 1e-6)
    few = cal.calibrate(Scaled(), _rows, [200, 400, 800], uses_unlabeled=False,
                        evaluate=evaluate)
    assert {n for n, _ in Scaled.seen[1:]} == {200, 400} and few.points == 4


def test_an_exponent_is_kept_only_where_it_is_credible() -> None:
    units = [1e6, 8e6, 2e6, 16e6]
    a, b, e, law = costlaw.fit_law(units, [0.01 + 1e-6 * u ** 0.9 for u in units])
    assert e == pytest.approx(0.9, abs=0.02) and law == "fitted exponent 0.9"
    # the intercept dominates: the exponent cannot be seen, the declared units are scaled
    _, _, e, law = costlaw.fit_law(units, [1.0 + 1e-12 * u for u in units])
    assert e == 1.0 and law.startswith("declared units (the intercept")
    _, _, e, law = costlaw.fit_law([1e6, 2e6], [0.1, 0.2])
    assert e == 1.0 and "span" in law
    _, _, e, law = costlaw.fit_law([1e4, 1e6], [1e-6 * u ** 0.5 for u in (1e4, 1e6)])
    assert e == 1.0 and "outside" in law


class Pass(BaseEstimator):
    """A shared grid pass of m models burning 3e-8 n^2 (shared) + m * 3e-5 n core-seconds;
    a lone fit is a pass of one (and says so in its units)."""

    def __init__(self, lam: float = 1.0) -> None:
        self.lam = lam

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        return float(n_samples) ** 2 + 1000.0 * n_samples

    def pass_cost(self, n_samples: int, n_features: int, n_unlabeled: int
                  ) -> tuple[float, float]:
        return float(n_samples) ** 2, float(n_samples)

    def fit(self, X: np.ndarray, y: np.ndarray) -> Pass:
        return self.fit_grid(X, y, [{}])

    def fit_grid(self, X: np.ndarray, y: np.ndarray, points: list) -> Pass:
        n = X.shape[0]
        spin(3e-8 * n * n + len(points) * 3e-5 * n)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(len(X))


def test_a_pass_is_a_shared_part_and_a_part_per_model_timed_at_two_sizes() -> None:
    points = [{"lam": v} for v in (0.5, 1.0, 2.0, 4.0)]
    found = cal.calibrate(Pass(), _rows, [200, 400, 800], uses_unlabeled=False, evaluate=evaluate,
                          pass_points=points)
    assert found.passes == 4  # passes of 2 and 4 models at 400 and 800 rows
    # a pass of 34 models on 1,600 rows: the n^2 part once, the n part 34 times
    n = 1600
    truth = 3e-8 * n * n + 34 * 3e-5 * n
    assert found.seconds(n * n, 34, n * n, n) == pytest.approx(truth, rel=0.2)
    assert found.shared_seconds(n * n) == pytest.approx(3e-8 * n * n, rel=0.2)
    assert found.model_seconds(n) == pytest.approx(3e-5 * n, rel=0.2)


def test_a_pass_law_needs_two_sizes_and_two_model_counts() -> None:
    with pytest.raises(ValueError, match="two sizes"):
        costlaw.fit_pass([1e6, 1e6], [1e3, 1e3], [2, 4], [0.1, 0.2], 1.0)
    with pytest.raises(ValueError, match="two model counts"):
        costlaw.fit_pass([1e6, 4e6], [1e3, 2e3], [2, 2], [0.1, 0.2], 1.0)


class Folds(BaseEstimator):
    """Declares work its cross-validation shares across folds."""

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        return 100.0

    def pass_cost(self, n_samples: int, n_features: int, n_unlabeled: int
                  ) -> tuple[float, float]:
        return 50.0, 10.0

    def cv_shared_cost(self, n_samples: int, n_features: int, n_unlabeled: int, n_folds: int
                       ) -> tuple[float, float]:
        return 40.0, 10.0


def test_a_solver_states_what_its_folds_share() -> None:
    calib = costlaw.Calibration(a=0.0, b=1.0, points=4, shared_b=1.0, model_b=1.0, passes=4)
    # 5 folds, a pass of 3 models each: 40 once, then 10 shared and 3 x 10 per fold
    assert est.fit_seconds(calib, Folds(), 100, 4, 0, 5, 3, folds=5) == 40 + 5 * (10 + 30)
    # without the hook (or outside a CV), each fold pays the pass's own shared part
    plain = Pass()
    assert est.fit_seconds(calib, plain, 10, 4, 0, 5, 3, folds=5) == 5 * (100 + 3 * 10)
    assert est.fit_seconds(calib, Folds(), 100, 4, 0, 1, 3) == 50 + 3 * 10


def _cell(name: str, n_labeled: int | None, n_unlabeled: int | None,
          resampling: ResamplingSpec | None = None) -> Cell:
    return Cell(dataset=DatasetSpec(name=name),
                solver=SolverSpec(label="samult", name="samult", params={}, grid={}),
                tuning=TuningSpec(), task="binary", repetition=0, n_labeled=n_labeled,
                n_unlabeled=n_unlabeled, seeds=SplitSeeds(1, 2), solver_seed=4,
                config_hash="h", resampling=resampling or ResamplingSpec())


def test_a_dataset_not_fetched_is_scored_on_the_rows_its_split_will_hold() -> None:
    higgs = _cell("higgs", 100, 10_000)
    # its official test file, not its 10.5 M training rows
    assert est.cell_sizes(higgs, {})[:4] == (100, 10_000, 500_000, 28)
    assert est.cell_sizes(higgs, {}, "unlabeled")[2] == 10_000  # evaluate: unlabeled
    subset = replace(higgs, dataset=DatasetSpec(name="higgs", params={"n_rows": 1_100_000}),
                     n_unlabeled=None)  # the paper's copy: a subset of the training rows
    assert est.cell_sizes(subset, {})[:3] == (100, 1_099_900, 500_000)
    # a held-out share of a set without a test file; a train_size; a fold; a partition
    assert est.cell_sizes(_cell("fourclass", 100, None), {})[:3] == (100, 546, 216)
    sized = replace(higgs, dataset=DatasetSpec(name="california"), n_labeled=None,
                    n_unlabeled=None, resampling=ResamplingSpec(train_size=5000))
    assert est.cell_sizes(sized, {})[:3] == (5000, 0, 15_640)
    fold = replace(sized, resampling=ResamplingSpec(kind="kfold", folds=5))
    assert est.cell_sizes(fold, {})[:3] == (16_512, 0, 4128)
    part = replace(sized, dataset=DatasetSpec(name="abalone"),
                   resampling=ResamplingSpec(kind="partitions"))
    assert est.cell_sizes(part, {})[:3] == (1000, 0, 3177)


def test_wall_time_calibrations_of_older_versions_are_timed_again(tmp_path: Path,
                                                                   monkeypatch) -> None:
    import ordauc

    monkeypatch.setattr(cal, "busy", lambda: False)
    old = f"{platform.node()}|{os.cpu_count()}|{ordauc.__version__}"  # the key before units
    path = tmp_path / "cache" / "calibration.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({old: {"k": {"a": 9.0, "b": 0.0, "points": 2}}}))
    made = cal.cached_calibration("k", lambda: costlaw.Calibration(0.5, 0.0, 2))
    assert made.a == 0.5  # timed again, not the wall-time entry
    again = cal.cached_calibration("k", lambda: costlaw.Calibration(7.0, 0.0, 2))
    assert again.a == 0.5  # and the new one is kept


def test_past_the_budget_a_sweeps_labels_share_a_calibration(monkeypatch, tmp_path: Path
                                                             ) -> None:
    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.0)
    monkeypatch.setattr(cal, "busy", lambda: False)
    made: list[int] = []

    def calibrate() -> costlaw.Calibration:
        made.append(1)
        return costlaw.Calibration(a=1.0, b=0.0, points=2)

    first = _cell("fourclass", 100, 0)
    second = replace(first, solver=replace(first.solver, label="samult.lam=2",
                                           params={"lam": 2.0}))
    est.estimate_cells([first, second], {}, calibrate_with=calibrate, fixed=0.0,
                       runtime=runtime())
    assert len(made) == 2  # within the budget, each label its own
    made.clear()
    monkeypatch.setenv("ORDAUC_CACHE", str(tmp_path / "another"))  # nothing cached
    monkeypatch.setattr(est, "CALIBRATION_BUDGET", -1.0)
    costs, _ = est.estimate_cells([first, second], {}, calibrate_with=calibrate, fixed=0.0,
                       runtime=runtime())
    assert len(made) == 1 and costs["samult.lam=2"].seconds == costs["samult"].seconds


def test_solvers_state_the_parts_of_their_passes() -> None:
    from ordauc import solvers

    qsg = solvers.get("qsg_s2auc")
    (s10, m10), (s1000, m1000) = (cal.pass_units(qsg, 1000, d, 700) for d in (10, 1000))
    assert s1000 == 100 * s10 and m1000 == m10  # the features are shared, the steps are not
    samult = solvers.get("samult")  # 100 labeled rows: the eigendecomposition grows as n_u^3
    (s1, m1), (s2, m2) = (cal.pass_units(samult, 100 + u, 8, u) for u in (10_000, 20_000))
    assert 7.5 < s2 / s1 < 8.1 and 3.5 < m2 / m1 < 4.1
    m_samult = solvers.get("m_samult")  # the subproblems share the decomposition
    shared, model = cal.pass_units(samult, 500, 8, 300)
    assert cal.pass_units(m_samult, 500, 8, 300) == (shared, 4 * model)
    svc = solvers.get("svc_rbf")  # no statement: the fit's units for both parts
    assert cal.pass_units(svc, 500, 8, 0) == (cal.fit_units(svc, 500, 8),) * 2
