"""A config sweep over parameters the solver fits in shared passes (NPSVOR's ADMM tolerances)
runs as one task per split, and writes exactly the rows (and curve rows) of the per-spec tasks
it replaces; resume, --force, --dry-run and --debug work on it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ordauc.config import load_config
from ordauc.experiment import sweep
from ordauc.experiment.runner import RunOptions, build_tasks, prepare

TOLERANCES = [1.0e-9, 1.0e-3, 1.0]
STUDY = {  # a small twin of configs/offline/npsvor_tolerance.yaml
    "seed": 2017,
    "datasets": [{"name": "synthetic_ordinal", "n": 260, "d": 4}],
    "resampling": {"kind": "budget", "repeats": 2, "n_labeled": "all", "test_size": 0.4},
    "evaluate": "test", "preprocess": "standardize", "curves": {"every": 10},
    "solvers": {"npsvor": {"params": {"C": 10.0, "kappa": 0.1, "eps": 0.2, "rho": 1.0,
                                      "max_iter": 300},
                           "sweep": {"tol_abs": TOLERANCES, "tol_rel": TOLERANCES}},
                "svorim": {"params": {"C": 1.0, "kappa": 0.5}}},  # an ordinary task beside
}
N_SPECS = len(TOLERANCES) ** 2
# what may differ between two runs of the same cell: clocks, memory, when, and what the clock is
TIMING = ["fit_time_s", "fit_time_basis", "predict_time_s", "cv_time_s", "wall_time_s",
          "peak_rss_mb", "started_at"]


def _per_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner as it was: one task per spec of the sweep."""
    monkeypatch.setattr(sweep, "shares_pass", lambda *args: False)


def _run(cli, config: Path, out: Path, *extra: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    code, _, err = cli("run", config, "--out", out, "--n-jobs", "1", *extra)
    assert code == 0, err
    return _tables(out)


def _tables(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = pd.read_csv(out / "results.csv").set_index("key").sort_index()
    curves = pd.read_csv(out / "curves.csv").sort_values(["key", "metric", "iteration"])
    return rows, curves.reset_index(drop=True)


def _same_rows(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_frame_equal(a.drop(columns=TIMING), b.drop(columns=TIMING),
                                  check_exact=True)


def test_a_sweep_is_one_task_per_split(write_config, tmp_path: Path) -> None:
    config = load_config(write_config(STUDY))
    options = RunOptions(out=tmp_path / "out", progress=False)
    tasks = build_tasks(prepare(config, options), config, options)
    swept = [t for t in tasks if t.sweep]
    assert len(swept) == 2 and len(tasks) == 2 + 2  # two splits; svorim one task per split
    assert all(len(t.cells) == N_SPECS for t in swept)
    assert {c.solver.sweep_of for t in swept for c in t.cells} == {"npsvor"}
    assert not any(t.sweep for t in tasks if t.cell.solver.name == "svorim")


def test_a_tuned_sweep_or_one_outside_grid_shared_keeps_a_task_per_spec() -> None:
    from ordauc.config import parse_config
    from ordauc.solvers.ordinal.npsvor import NPSVOR

    tuned = parse_config({**STUDY, "solvers": {"npsvor": {
        "sweep": {"tol_abs": [1e-3, 1.0]}, "grid": {"C": [1.0, 10.0]}}}}).solvers[0]
    kappa = parse_config({**STUDY, "solvers": {"npsvor": {
        "sweep": {"kappa": [0.1, 1.0]}}}}).solvers[0]
    plain = parse_config({**STUDY, "solvers": {"npsvor": {
        "sweep": {"tol_abs": [1e-3, 1.0]}}}}).solvers[0]
    assert sweep.shares_pass(plain, NPSVOR, tuned=False, checkpoints=False)
    assert not sweep.shares_pass(tuned, NPSVOR, tuned=True, checkpoints=False)
    assert not sweep.shares_pass(kappa, NPSVOR, tuned=False, checkpoints=False)  # not shared
    assert not sweep.shares_pass(plain, NPSVOR, tuned=False, checkpoints=True)
    assert not sweep.shares_pass(plain, object, tuned=False, checkpoints=False)  # no GridFit
    unswept = parse_config({**STUDY, "solvers": {"npsvor": None}}).solvers[0]
    assert not sweep.shares_pass(unswept, NPSVOR, tuned=False, checkpoints=False)


def test_the_sweep_task_writes_the_rows_of_the_per_spec_tasks(cli, write_config, tmp_path,
                                                              monkeypatch) -> None:
    config = write_config(STUDY)
    rows, curves = _run(cli, config, tmp_path / "sweep")
    with monkeypatch.context() as patch:
        _per_spec(patch)
        alone, alone_curves = _run(cli, config, tmp_path / "alone")
    assert len(rows) == 2 * (N_SPECS + 1) and (rows["status"] == "ok").all()
    _same_rows(rows, alone)
    pd.testing.assert_frame_equal(curves, alone_curves, check_exact=True)
    npsvor = rows[rows["solver_name"] == "npsvor"]
    assert (npsvor["fit_time_basis"] == "in_pass").all() and (npsvor["fit_time_s"] > 0).all()
    assert (alone["fit_time_basis"] == "fit").all()
    assert (rows.loc[rows["solver_name"] == "svorim", "fit_time_basis"] == "fit").all()
    # the points really differ: one ADMM iteration at tolerance 1, the cap at 1e-9
    assert npsvor["n_iter"].min() == 1 and npsvor["n_iter"].max() == 300
    assert npsvor["warnings"].fillna("").str.contains("ConvergenceWarning").sum() >= 2
    assert npsvor["mze"].nunique() > 1
    assert set(curves["metric"]) == {"primal_residual", "dual_residual"}


def test_a_half_done_sweep_reruns_only_its_missing_rows(cli, write_config, tmp_path) -> None:
    config = write_config(STUDY)
    out = tmp_path / "out"
    full, full_curves = _run(cli, config, out)
    # keep the header and the first 7 rows, as a run killed during the second task leaves it
    lines = (out / "results.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "results.csv").write_text("".join(lines[:8]), encoding="utf-8")
    kept = pd.read_csv(out / "results.csv").set_index("key")
    code, printed, _ = cli("run", config, "--out", out, "--dry-run", "--no-estimate")
    assert code == 0 and f"7 done, {len(full) - 7} missing" in printed
    again, again_curves = _run(cli, config, out)
    assert again.index.is_unique and len(again) == len(full)
    _same_rows(again, full)
    pd.testing.assert_frame_equal(again_curves, full_curves, check_exact=True)
    # the rows that were there are kept as they were, not written again
    assert (again.loc[kept.index, "started_at"] == kept["started_at"]).all()
    code, printed, _ = cli("run", config, "--out", out, "--dry-run", "--no-estimate")
    assert f"{len(full)} done" in printed
    forced, _ = _run(cli, config, out, "--force")
    assert forced.index.is_unique and len(forced) == len(full)
    _same_rows(forced, full)


def test_debug_runs_the_sweep_task_in_process(cli, write_config, tmp_path) -> None:
    code, printed, err = cli("run", write_config(STUDY), "--out", tmp_path / "out", "--debug")
    assert code == 0, err
    assert not (tmp_path / "out" / "results.csv").exists()


def test_a_point_that_fails_fails_its_own_rows_only(cli, write_config, tmp_path,
                                                    monkeypatch) -> None:
    from ordauc.solvers.ordinal.npsvor import NPSVOR

    real = NPSVOR._finish

    def finish(self, *args):  # the biases of the loosest points fail (the cells fork: inherited)
        if self.tol_abs == 1.0 and self.tol_rel == 1e-3:
            raise FloatingPointError("no bias")
        return real(self, *args)

    monkeypatch.setattr(NPSVOR, "_finish", finish)
    config = write_config({**STUDY, "solvers": {"npsvor": STUDY["solvers"]["npsvor"]}})
    code, _, _ = cli("run", config, "--out", tmp_path / "sweep", "--n-jobs", "1")
    rows = _tables(tmp_path / "sweep")[0]
    _per_spec(monkeypatch)
    cli("run", config, "--out", tmp_path / "alone", "--n-jobs", "1")
    alone = _tables(tmp_path / "alone")[0]
    assert code != 0 and (rows["status"] == "error").sum() == 2  # one point, two splits
    for column in ("status", "message"):
        assert rows[column].fillna("").to_dict() == alone[column].fillna("").to_dict()
    assert (tmp_path / "sweep" / "logs").is_dir()


def test_a_sweep_without_own_fit_times_shares_the_call_time(cli, write_config, tmp_path,
                                                            monkeypatch) -> None:
    """SAMULT's lam is in its grid_shared and its models do not report their own time: the
    call's time is divided among the points; the rows equal the per-spec ones (its shared
    passes equal its lone fits to 1e-12)."""
    config = write_config({"seed": 3, "datasets": ["breast_cancer"],
                           "resampling": {"repeats": 1, "n_labeled": [40],
                                          "n_unlabeled": [60]},
                           "solvers": {"samult": {"params": {"sigma": 0.5, "gamma": 0.5},
                                                  "sweep": {"lam": [0.1, 1.0, 10.0]}}}})
    rows, _ = _run(cli, config, tmp_path / "sweep")
    _per_spec(monkeypatch)
    alone, _ = _run(cli, config, tmp_path / "alone")
    assert (rows["fit_time_basis"] == "pass_share").all() and (rows["fit_time_s"] > 0).all()
    assert rows["fit_time_s"].nunique() == 1
    numbers = [c for c in rows.columns if c not in TIMING and rows[c].dtype.kind == "f"]
    pd.testing.assert_frame_equal(rows[numbers], alone[numbers], rtol=1e-12, atol=0)
    texts = [c for c in rows.columns if c not in TIMING and c not in numbers]
    pd.testing.assert_frame_equal(rows[texts], alone[texts])
    assert rows["auc"].nunique() > 1


def test_the_estimate_costs_a_sweep_task_as_one_fit(write_config, monkeypatch) -> None:
    from ordauc.cost import estimate as est
    from ordauc.experiment.costing import runtime
    from ordauc.experiment.plan import make_plan

    monkeypatch.setattr(est, "metrics_seconds", lambda task, k, n: 0.0)
    calib = est.Calibration(a=1.0, b=0.0, points=2, score=0.0)  # every fit: one second
    config = load_config(write_config({**STUDY, "solvers": {
        "npsvor": STUDY["solvers"]["npsvor"]}}))
    cells = [c for group in make_plan(config).fits() for c in group]
    assert len(cells) == 2 * N_SPECS

    def total() -> tuple[float, int]:
        costs, _ = est.estimate_cells(cells, {}, calibrate_with=lambda: calib, fixed=0.0,
                                      curves=True, runtime=runtime())
        return sum(c.seconds for c in costs.values()), sum(c.fits for c in costs.values())

    assert total() == (pytest.approx(2.0), 2)  # one fit per split: the shared trajectory
    _per_spec(monkeypatch)
    assert total() == (pytest.approx(2.0 * N_SPECS), 2 * N_SPECS)
