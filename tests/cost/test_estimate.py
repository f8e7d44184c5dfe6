"""The cost estimate of a dry run: fits counted as the tuner makes them, constants calibrated
from timed fits, finished rows rescaling an estimate, and the lines the dry run prints."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from study_helpers import STUDY

from ordauc.config import SolverSpec, TuningSpec
from ordauc.cost import calibration as cal
from ordauc.cost import estimate as est
from ordauc.cost.fits import CellShape
from ordauc.experiment.costing import empty_cell, runtime
from ordauc.experiment.evaluate import evaluate
from ordauc.experiment.plan import Cell, SplitSeeds
from ordauc.experiment.tuners import planned_fits
from ordauc.experiment.tuning import shared_passes


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDAUC_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ORDAUC_ESTIMATE", "1")


def cell(grid: dict, kind: str = "cv", folds: int = 5, labeled_only: bool = False,
         name: str = "samult", shared: bool = True) -> Cell:
    from ordauc.config import DatasetSpec

    return Cell(dataset=DatasetSpec(name="diabetes"),
                solver=SolverSpec(label=name, name=name, params={}, grid=grid),
                tuning=TuningSpec(kind=kind, folds=folds, shared=shared), task="binary",
                repetition=0, n_labeled=100, n_unlabeled=400, seeds=SplitSeeds(1, 2),
                solver_seed=4, config_hash="h", labeled_only=labeled_only)


def fits_of(c: Cell, n_labeled: int, n_unlabeled: int) -> list[tuple]:
    """The fits the cell's tuner states, for a solver without shared passes."""
    from ordauc import solvers

    estimator = solvers.get("svc_rbf")
    return planned_fits(c, estimator, CellShape(n_labeled, n_unlabeled, 2, c.labeled_only))


def test_fits_are_counted_as_the_tuner_makes_them() -> None:
    grid = {"lam": [0.5, 1.0, 2.0], "sigma": [0.5, 1.0]}
    # inner 5-fold CV: every point on 4/5 of the labeled rows (+ every unlabeled row), a refit
    assert fits_of(cell(grid), 100, 400) == [(480, 5, 1)] * 6 + [(500, 1, 1)]
    assert fits_of(cell(grid, labeled_only=True), 100, 400) == [(80, 5, 1)] * 6 + [
        (100, 1, 1)]
    assert fits_of(cell(grid, kind="test"), 100, 400) == [(500, 6, 1)]
    assert fits_of(cell({}), 100, 400) == [(500, 1, 1)]


def test_shared_passes_are_counted_per_pass() -> None:
    from ordauc import solvers

    grid = {"lam": [0.5, 1.0, 2.0], "gamma": [0.2, 0.8], "sigma": [0.5, 1.0]}
    qsg = solvers.get("qsg_s2auc")
    passes = shared_passes(qsg, grid, shared=True)
    assert sorted(passes) == [6, 6]  # one pass per sigma, every (lam, gamma) inside it
    assert shared_passes(qsg, grid, shared=False) == [1] * 12
    assert len(est.pass_points(qsg, cell(grid, name="qsg_s2auc"))) == 4


def spin(seconds: float) -> None:
    """Burn ``seconds`` of this process's CPU time (sleeping would burn none)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class QuadraticSleeper(BaseEstimator):
    """A fit that burns 0.01 + n^2 / 5e7 core-seconds and declares n^2 as its cost; scoring
    burns n_eval / 2e5 and declares n_eval."""

    def __init__(self, scale: float = 5e7) -> None:
        self.scale = scale

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        return float(n_samples) ** 2

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        return float(n_eval)

    def fit(self, X: np.ndarray, y: np.ndarray) -> QuadraticSleeper:
        spin(0.01 + len(X) ** 2 / self.scale)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        spin(len(X) / 2e5)
        return np.arange(len(X), dtype=float)


def _rows(n: int, labeled: int) -> tuple[np.ndarray, np.ndarray]:
    return cal.synthetic("binary", 2, n, labeled, d=3)


def test_calibration_recovers_the_constants_of_a_known_cost() -> None:
    found = cal.calibrate(QuadraticSleeper(), _rows, [250, 500, 1000], uses_unlabeled=False,
                          evaluate=evaluate)
    assert found.points == 3 + 2  # three sizes, and the two largest with half the features
    # 1000 rows: 0.01 + 0.02 s; extrapolated to 4000 rows: 0.01 + 0.32 s; the intercept too
    assert found.seconds(1000 ** 2) == pytest.approx(0.03, rel=0.3)
    assert found.seconds(4000 ** 2) == pytest.approx(0.33, rel=0.3)
    assert found.a == pytest.approx(0.01, rel=0.5)
    assert found.score == pytest.approx(1 / 2e5, rel=0.5)  # seconds per scored row


class GridSleeper(BaseEstimator):
    """A fit that burns ``slow`` x 0.03 core-seconds whatever the size (an SVM whose C sets
    its time)."""

    def __init__(self, slow: float = 1.0) -> None:
        self.slow = slow

    def fit(self, X: np.ndarray, y: np.ndarray) -> GridSleeper:
        spin(0.03 * self.slow)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.arange(len(X), dtype=float)


def test_the_grids_average_point_sets_a_fits_cost_not_its_first() -> None:
    points = [{"slow": 1.0}, {"slow": 2.0}, {"slow": 3.0}]
    found = cal.calibrate(GridSleeper(), _rows, [50, 100], uses_unlabeled=False, evaluate=evaluate,
                          grid_points=points)
    assert found.grid == pytest.approx(2.0, rel=0.25)  # (1 + 2 + 3) / 3 against 1
    assert found.seconds(0.0) == pytest.approx(0.06, rel=0.3)
    # a lambda path shares one pass (one point timed) unless the study turns sharing off
    grid = {"lam": [float(i) for i in range(1, 31)]}
    assert len(est.grid_spread(_samult(), cell(grid))) == 1
    spread = est.grid_spread(_samult(), cell(grid, shared=False))
    assert len(spread) == est.GRID_POINTS and spread[0] == {"lam": 1.0}
    assert spread[-1] == {"lam": 30.0}


def test_calibration_sizes_reach_the_studys_own_size() -> None:
    assert cal.calibration_sizes(10 ** 6) == [250, 500, 1000, 2000]
    assert cal.calibration_sizes(800) == [250, 500, 800]
    assert cal.calibration_sizes(150) == [75, 150]
    assert cal.calibration_sizes(3) == [10, 20]


def test_a_sampler_draws_the_datasets_own_rows_as_a_cell_sees_them() -> None:
    from ordauc import data

    sampler = cal.Sampler(lambda: data.load("breast_cancer"), standardize=True)
    X, y = sampler.rows(100, 30)
    full = data.load("breast_cancer")
    assert X.shape == (100, full.n_features) and sampler.n_rows == full.n_samples
    assert set(y[:30]) <= {0, 1} and set(y[30:]) == {-1}
    assert np.allclose(X.mean(axis=0), 0, atol=1e-6) and np.allclose(X.std(axis=0), 1, atol=1e-3)
    raw = cal.Sampler(lambda: data.load("breast_cancer")).rows(100, 100)[0]
    # the rows are the dataset's (each drawn row is one of its rows), not synthetic stand-ins
    assert all((np.abs(full.X - row).sum(axis=1) < 1e-9).any() for row in raw[:10])


def test_a_binary_stand_in_keeps_the_catalogues_class_ratio(monkeypatch) -> None:
    """A pairwise solver visits n+ n- pairs: AUC-DCD's sector (n-/n+ = 148) stood in for by
    balanced rows would be priced 37 times its work. The stand-in takes the catalogue's ratio
    (at least two rows of each class); datasets that state none stay balanced."""
    from dataclasses import replace

    from ordauc import solvers
    from ordauc.config import DatasetSpec

    X, y = cal.synthetic("binary", 2, 1000, 1000, 5, positive_share=1 / 149)
    assert int(y.sum()) == 7 and set(y) == {0, 1}
    assert int(cal.synthetic("binary", 2, 100, 100, 5, positive_share=1e-4)[1].sum()) == 2
    assert int(cal.synthetic("binary", 2, 1000, 1000, 5)[1].sum()) == 500
    sector = replace(cell({"lam": [1.0]}, name="auc_sdcd"), dataset=DatasetSpec(name="sector"))
    assert est.positive_share(sector) == pytest.approx(1 / 149.1163)
    assert est.positive_share(cell({"lam": [1.0]})) is None  # diabetes states no ratio
    seen: list[int] = []

    def timed(estimator, rows, *args, **kwargs):
        seen.append(int(rows(1000, 1000)[1].sum()))
        return cal.Calibration(a=0.0, b=1e-9, points=2)

    monkeypatch.setattr(est, "calibrate", timed)
    est._calibration(solvers.get("auc_sdcd"), sector, 2, 10, None, 1000, None,
                     est.positive_share(sector), runtime())
    assert seen == [7]


def test_a_calibration_is_reused_only_for_the_same_class_ratio(monkeypatch) -> None:
    """Past the calibration budget a solver's further datasets reuse the calibration of the
    nearest feature count, never one of another class ratio: sector (n-/n+ = 148) is timed on
    its own stand-in, not on dna's (3.3), whose stand-in has as many features (100)."""
    from dataclasses import replace

    from ordauc.config import DatasetSpec

    timed: list[str] = []
    shares: list[float | None] = []

    def calibration(estimator, cell, k, d_cal, sampler, top, calibrate_with, share, *rest):
        timed.append(cell.dataset.name)
        shares.append(share)
        return cal.Calibration(a=0.0, b=1e-12, points=2)

    monkeypatch.setattr(est, "_calibration", calibration)
    monkeypatch.setattr(est, "CALIBRATION_BUDGET", -1.0)  # reuse wherever it may
    base = replace(cell({"lam": [1.0]}, kind="none", name="auc_sdcd"), tuning=TuningSpec())
    cells = [replace(base, dataset=DatasetSpec(name=name), repetition=i)
             for i, name in enumerate(["dna", "letter", "sector", "vowel"])]
    est.estimate_cells(cells, {}, fixed=0.0, runtime=runtime())
    # each states its own ratio (3.3, 24.3, 148, 10): none takes another's calibration
    assert timed == ["dna", "letter", "sector", "vowel"]
    # and each is timed on a stand-in of its own ratio
    assert shares == [est.positive_share(c) for c in cells]
    assert shares[2] == pytest.approx(1 / 149.1163)


def test_samplers_are_made_for_fetched_datasets_only(tmp_path: Path) -> None:
    from ordauc.config import DatasetSpec

    fetched, missing = cell({}), cell({})
    object.__setattr__(missing, "dataset", DatasetSpec(name="abalone"))
    object.__setattr__(fetched, "dataset", DatasetSpec(name="breast_cancer"))
    found = est.samplers_for([fetched, missing], str(tmp_path / "empty"), standardize=False)
    assert list(found) == ["breast_cancer"]


def test_calibrations_are_cached_per_machine(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cal, "busy", lambda: False)  # a loaded machine keeps none
    made = []

    def make() -> est.Calibration:
        made.append(1)
        return est.Calibration(0.5, 2e-9, 3, 0.25)

    first = cal.cached_calibration("k", make)
    again = cal.cached_calibration("k", make)
    assert first == again == est.Calibration(0.5, 2e-9, 3, 0.25) and made == [1]
    assert (tmp_path / "cache" / "calibration.json").is_file()


def test_a_cell_costs_its_fits_and_finished_rows_rescale_it(monkeypatch) -> None:
    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.02)
    calib = est.Calibration(a=0.0, b=1e-6, points=3, shared_b=2e-6, model_b=3e-7, passes=4,
                            score=1e-7)
    grid = {"lam": [0.5, 1.0]}
    todo = cell(grid)
    costs, by_key = est.estimate_cells([todo], {}, calibrate_with=lambda: calib, fixed=0.05,
                                       runtime=runtime())
    n_fold, n = 80 + 400, 500  # the catalogue has no diabetes: the sizes of the cell
    shared, model = est.pass_units(_samult(), n_fold, 10, 400)
    # scoring the 250 held-out rows (test_size 0.25 of the 1,000 rows a dataset the
    # catalogue does not know is given; a kernel expansion over the training rows) and
    # computing the metrics
    scoring = 1e-7 * n * 250 * 10 + 0.02
    # SAMULT fits its lambda path in one shared pass per fold, the folds sharing the unlabeled
    # rows' eigendecomposition: once for the search, each fold its part and its 2 models
    once, per_fold = _samult().cv_shared_cost(n_fold, 10, 400, 5)
    assert once + 5 * per_fold < 5 * shared  # the folds do share
    expected = (2e-6 * once + 5 * (2e-6 * per_fold + 2 * 3e-7 * model)
                + 1e-6 * est.fit_units(_samult(), n, 10) + 0.05 + scoring)
    assert by_key[todo.fit_key] == pytest.approx(expected)
    assert costs["samult"].fits == 11 and costs["samult"].cells == 1

    done = cell(grid)  # the same cell, finished in the folder in twice the estimated time
    rows = [{"key": done.key, "fit_key": done.fit_key, "status": "ok",
             "wall_time_s": str(2 * expected)}]
    est.scale_by_rows(costs, [done], {}, rows, calibrate_with=lambda: calib, fixed=0.05,
                      runtime=runtime())
    assert costs["samult"].seconds == pytest.approx(2 * expected)
    assert "1 finished fit" in costs["samult"].source


def test_cells_sharing_a_fit_pay_its_process_once_and_score_each(monkeypatch) -> None:
    from dataclasses import replace

    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.02)
    calib = est.Calibration(a=1.0, b=0.0, points=2, score=0.0)
    one = cell({}, labeled_only=True)
    one = replace(one, shares_fit=True)
    two = replace(one, n_unlabeled=800)
    assert one.fit_key == two.fit_key and one.key != two.key
    costs, by_key = est.estimate_cells([one, two], {}, calibrate_with=lambda: calib, fixed=0.5,
                                       runtime=runtime())
    assert by_key[one.fit_key] == pytest.approx(1.0 + 0.5 + 2 * 0.02)
    assert costs["samult"].cells == 2 and costs["samult"].fits == 1


def _samult() -> object:
    from ordauc import solvers

    return solvers.get("samult")


def test_wall_time_is_core_time_shared_by_the_jobs_never_below_the_longest() -> None:
    costs = {"a": est.SolverCost(cells=4, seconds=400.0, longest=100.0),
             "b": est.SolverCost(cells=1, seconds=300.0, longest=300.0)}
    assert est.core_hours(costs) == pytest.approx(700 / 3600)
    assert est.wall_seconds(costs, 2) == 350.0
    assert est.wall_seconds(costs, 8) == 300.0
    assert [est.human(s) for s in (45, 720, 3.4 * 3600, 3 * 86400)] == [
        "45 s", "12 min", "3.4 h", "3.0 days"]


def test_the_dry_run_ends_with_the_estimate(write_config, cli, tmp_path: Path) -> None:
    config = write_config({**STUDY, "solvers": {
        "samult": {"grid": {"lam": [0.5, 1.0], "sigma": [1.0], "gamma": [0.5]}}}})
    code, out, _ = cli("run", config, "--dry-run", "--out", tmp_path / "out", "-j", "2")
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("estimated cost of the"))
    assert "1 cells to run" in lines[head] and "--n-jobs 2" in lines[head]
    assert lines[head + 1].split()[:5] == ["samult", "1", "cells", "7", "fits"]
    assert lines[head + 2].split()[0] == "total" and "core-hours" in lines[head + 2]
    assert not (tmp_path / "out").exists()


def test_an_empty_cell_replaces_the_pieces_of_a_cells_fixed_cost(monkeypatch) -> None:
    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.02)
    calib = est.Calibration(a=1.0, b=0.0, points=2, score=0.0)
    from dataclasses import replace

    one = replace(cell({}, labeled_only=True), shares_fit=True)
    two = replace(one, n_unlabeled=800)
    _, by_key = est.estimate_cells([one, two], {}, calibrate_with=lambda: calib, fixed=0.5,
                                   empty={"diabetes": 0.3}, runtime=runtime())
    # the fit, the measured empty cell (with the first cell's metrics), the second's metrics
    assert by_key[one.fit_key] == pytest.approx(1.0 + 0.3 + 0.02)


def test_an_empty_cell_runs_the_cells_own_pipeline(write_config, tmp_path: Path) -> None:
    from ordauc.config import load_config
    from ordauc.experiment import RunOptions
    from ordauc.experiment.runner import dry_run

    config = load_config(write_config({**STUDY, "solvers": {
        "samult": {"grid": {"lam": [0.5, 1.0]}}}}))
    report = dry_run(config, RunOptions(out=tmp_path / "out"))
    first = report.states[0].cell
    seconds = cal.empty_cell_seconds(first, report.sizes[first.split_key], config, None,
                                     empty_cell)
    assert 0 < seconds < 10  # ran to status ok: a failed empty cell counts 0
    broken = replace_dataset(first, "no_such_dataset")
    assert cal.empty_cell_seconds(broken, report.sizes[first.split_key], config, None,
                                  empty_cell) == 0


def replace_dataset(c: Cell, name: str) -> Cell:
    from dataclasses import replace

    from ordauc.config import DatasetSpec

    return replace(c, dataset=DatasetSpec(name=name))
