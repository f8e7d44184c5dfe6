"""Curves of iterative solvers: checkpoints in curves.csv, their time kept out of the fit time,
and no orphan curve after a crash between a cell's curves and its row."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordauc import metrics

STUDY = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [30], "n_unlabeled": [100]},
         "curves": {"every": 50},
         "solvers": {"qsg_s2auc": {"params": {"n_iter": 200, "lam": 0.5}}, "samult": None}}
KEY = "breast_cancer/qsg_s2auc/r0/l30/u100"


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_checkpoints_are_written_and_the_last_one_is_the_row(write_config, cli,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, stderr = cli("run", write_config(STUDY), "--out", out)
    assert code == 0, stderr
    curves = pd.read_csv(out / "curves.csv")
    assert list(curves.columns) == ["key", "dataset", "solver", "repetition", "n_labeled",
                                    "n_unlabeled", "iteration", "time_s", "metric", "value"]
    assert set(curves["key"]) == {KEY}  # samult is not iterative: no curve
    assert list(curves["iteration"]) == [50, 100, 150, 200] and set(curves["metric"]) == {"auc"}
    assert (curves[["repetition", "n_labeled", "n_unlabeled"]].values == [0, 30, 100]).all()
    row = pd.read_csv(out / "results.csv").set_index("key").loc[KEY]
    assert curves["value"].iloc[-1] == row["auc"]  # iteration 200 is the fitted model
    assert curves["time_s"].is_monotonic_increasing
    assert 0 < curves["time_s"].iloc[-1] <= row["fit_time_s"]
    assert curves["value"].between(0.5, 1).all()


def test_the_time_spent_scoring_checkpoints_is_not_fit_time(
        write_config, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pause = 0.5
    real = metrics.ranking_score

    def slow(*args: object, **kwargs: object) -> float:
        time.sleep(pause)
        return real(*args, **kwargs)

    # --n-jobs 1 forks each cell from this process, so the cell sees the slow scorer
    monkeypatch.setattr(metrics, "ranking_score", slow)
    out = tmp_path / "out"
    study = {**STUDY, "solvers": {"qsg_s2auc": STUDY["solvers"]["qsg_s2auc"]}}
    code, _, stderr = cli("run", write_config(study), "--out", out, "--n-jobs", "1")
    assert code == 0, stderr
    row = pd.read_csv(out / "results.csv").set_index("key").loc[KEY]
    curve_time = 4 * pause  # four checkpoints, each scored once
    assert row["wall_time_s"] >= curve_time + 2 * pause  # + auc and c_index of the row
    assert row["fit_time_s"] < curve_time, row["fit_time_s"]
    curves = pd.read_csv(out / "curves.csv")
    assert curves["time_s"].iloc[-1] <= row["fit_time_s"]
    assert curves["time_s"].diff().dropna().lt(pause).all()  # no pause inside a curve step


def test_a_crash_between_curves_and_row_leaves_no_orphan_curve(write_config, cli,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "out"
    study = {**STUDY, "resampling": {**STUDY["resampling"], "repeats": 2},
             "solvers": {"qsg_s2auc": {"params": {"n_iter": 100, "lam": 0.5}}}}
    config = write_config(study)
    assert cli("run", config, "--out", out)[0] == 0
    first = read_csv(out / "curves.csv")
    lost, kept = KEY, KEY.replace("/r0/", "/r1/")
    assert sorted(c["key"] for c in first) == sorted([lost, kept] * 2)  # 2 checkpoints each
    # The crash: the cell's curves were appended, its row never was.
    header, *lines = (out / "results.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "results.csv").write_text(header + "".join(x for x in lines if not x.startswith(lost)),
                                     encoding="utf-8")
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0 and "(1 run now)" in stderr
    second = read_csv(out / "curves.csv")
    assert [c for c in second if c["key"] == kept] == [c for c in first if c["key"] == kept]
    redone = [c for c in second if c["key"] == lost]
    assert [c["iteration"] for c in redone] == ["50", "100"]  # once, not twice
    assert [c["value"] for c in redone] == [c["value"] for c in first if c["key"] == lost]
    assert sorted(r["key"] for r in read_csv(out / "results.csv")) == sorted([lost, kept])


def test_curves_until_records_the_first_iterations_only(write_config, cli,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "out"
    study = {**STUDY, "curves": {"every": 50, "until": 100},
             "solvers": {"qsg_s2auc": STUDY["solvers"]["qsg_s2auc"]}}
    code, _, stderr = cli("run", write_config(study), "--out", out)
    assert code == 0, stderr
    curves = pd.read_csv(out / "curves.csv")
    assert list(curves["iteration"]) == [50, 100]  # of 200 iterations
    row = pd.read_csv(out / "results.csv").set_index("key").loc[KEY]
    assert row["n_iter"] == 200 and curves["value"].between(0.5, 1).all()
    code, _, stderr = cli("run", write_config({**study, "curves": {"every": 50, "until": 20}}),
                          "--out", tmp_path / "bad")
    assert code == 2 and "curves.until must be an integer >= 50, got 20" in stderr


@pytest.mark.parametrize("name", ["auc_sdcd", "auc_sdcdperm", "auc_msgd", "oam_inf"])
def test_a_pairwise_solver_stops_calling_after_until_with_the_same_iterates(name: str) -> None:
    from sklearn.datasets import make_classification

    from ordauc import solvers

    X, y = make_classification(n_samples=120, n_features=5, weights=[0.7], random_state=0)

    class Calls:
        every, until = 100, 300

        def __init__(self) -> None:
            self.at: list[int] = []

        def __call__(self, iteration: int, iterate: object) -> None:
            self.at.append(iteration)

    calls = Calls()
    watched = solvers.get(name, lam=0.01, random_state=4).fit(X, y, checkpoint=calls)
    plain = solvers.get(name, lam=0.01, random_state=4).fit(X, y)
    assert calls.at == [100, 200, 300] and watched.n_updates_ > 300
    np.testing.assert_array_equal(watched.coef_, plain.coef_)


def test_curves_score_a_fixed_seeded_draw_of_the_evaluation_rows():
    """``curves: {sample: N}``: a checkpoint scores at most N evaluation rows, the same draw
    for the same seed (a time study's checkpoints then cost the same at every size)."""
    import yaml

    from ordauc.config import parse_config
    from ordauc.errors import UserError
    from ordauc.experiment.cell import sampled

    X, y = np.arange(100.0).reshape(50, 2), np.arange(50) % 2
    Xs, ys = sampled(X, y, 20, seed=7)
    assert Xs.shape == (20, 2) and ys.shape == (20,)
    assert np.array_equal(Xs, sampled(X, y, 20, seed=7)[0])
    assert not np.array_equal(Xs, sampled(X, y, 20, seed=8)[0])
    assert np.array_equal(Xs[:, 0] // 2 % 2, ys)  # rows and labels drawn together
    assert sampled(X, y, 50, seed=7)[0] is X and sampled(X, y, None, seed=7)[0] is X
    base = ("datasets: [breast_cancer]\nresampling: {repeats: 1, n_labeled: [50]}\n"
            "solvers: {qsg_s2auc: {}}\n")
    read = lambda text: parse_config(yaml.safe_load(base + text))  # noqa: E731
    assert read("curves: {every: 10, sample: 500}\n").curves_sample == 500
    with pytest.raises(UserError, match="curves.sample"):
        read("curves: {every: 10, sample: 1}\n")
