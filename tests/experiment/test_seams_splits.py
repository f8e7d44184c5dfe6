"""Seeds and splits across budgets: one test set per repetition, one labeled set per labeled
budget, unlabeled sets that nest, and k folds of one repeat that partition the rows."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from runner_solvers import read_fit_log

from ordauc import data
from ordauc.config import parse_config
from ordauc.experiment.plan import make_plan, split_seeds
from ordauc.splits import UNLABELED, make_split, train_arrays


@pytest.mark.parametrize("dataset", ["breast_cancer", "diabetes"])
def test_unlabeled_sets_nest_over_one_labeled_set(dataset: str) -> None:
    y = data.load(dataset).y
    for repetition in range(3):
        seeds = split_seeds(0, dataset, repetition, 30)
        u10, u20, rest = (make_split(y, n_labeled=30, n_unlabeled=u, seeds=seeds,
                                     repetition=repetition) for u in (10, 20, None))
        for split in (u20, rest):
            assert np.array_equal(split.labeled, u10.labeled)
            assert np.array_equal(split.evaluation, u10.evaluation)
        assert np.array_equal(u20.unlabeled[:10], u10.unlabeled)  # u=10's rows come first
        assert np.array_equal(rest.unlabeled[:20], u20.unlabeled)
        assert rest.labeled.size + rest.unlabeled.size + rest.evaluation.size == y.size


def test_every_budget_of_a_repetition_is_scored_on_the_same_test_rows() -> None:
    y = data.load("breast_cancer").y
    splits = {n: make_split(y, n_labeled=n, n_unlabeled=None if n is None else 20,
                            seeds=split_seeds(0, "breast_cancer", 0, n)) for n in (20, 60, None)}
    tests = [s.evaluation for s in splits.values()]
    assert all(np.array_equal(t, tests[0]) for t in tests) and tests[0].size == 142
    assert [s.labeled.size for s in splits.values()] == [20, 60, 427]
    other = make_split(y, n_labeled=20, n_unlabeled=20, seeds=split_seeds(0, "breast_cancer", 1,
                                                                          20))
    assert not np.array_equal(np.sort(other.evaluation), np.sort(tests[0]))  # a new repetition


def test_the_folds_of_one_repeat_partition_the_rows() -> None:
    y = data.load("diabetes").y
    config = parse_config({"datasets": ["diabetes"], "solvers": {"samult": None},
                           "resampling": {"kind": "kfold", "folds": 5, "repeats": 2,
                                          "n_labeled": [40, "all"], "n_unlabeled": [30]}})
    cells = [c for c in make_plan(config).cells if c.n_labeled == 40]
    assert [c.repetition for c in cells] == list(range(10))
    held_out = []
    for cell in cells:
        split = make_split(y, kind="kfold", repetition=cell.repetition, n_labeled=40,
                           n_unlabeled=30, seeds=cell.seeds, folds=5)
        assert split.eval_source == "fold" and split.labeled.size == 40
        assert not set(split.evaluation) & set(split.train)
        held_out.append(split.evaluation)
    for repeat in (held_out[:5], held_out[5:]):
        rows = np.concatenate(repeat)
        assert np.array_equal(np.sort(rows), np.arange(y.size))  # each row in exactly one fold
        for fold in repeat:  # stratified: every class in every fold
            assert np.unique(y[fold]).size == 5
    assert not all(np.array_equal(a, b) for a, b in zip(held_out[:5], held_out[5:], strict=True))


def test_the_plan_gives_unlabeled_budgets_one_seed(test_solvers) -> None:
    config = parse_config({"datasets": ["breast_cancer"], "solvers": {"mean_ranker": None},
                           "resampling": {"repeats": 2, "n_labeled": [30, 60],
                                          "n_unlabeled": [10, 20, None]}})
    seeds: dict[tuple, set] = {}
    outer: dict[int, set] = {}
    for cell in make_plan(config).cells:
        seeds.setdefault((cell.repetition, cell.n_labeled), set()).add(cell.seeds)
        outer.setdefault(cell.repetition, set()).add(cell.seeds.outer)
        assert cell.seeds == split_seeds(0, "breast_cancer", cell.repetition, cell.n_labeled)
    assert len(seeds) == 4 and all(len(s) == 1 for s in seeds.values())
    assert all(len(s) == 1 for s in outer.values()) and len(set().union(*outer.values())) == 2


def digest(X: np.ndarray, y: np.ndarray) -> str:
    """The fit log's digest of the data a test solver was fitted on (runner_solvers._log)."""
    return hashlib.sha1(np.ascontiguousarray(X).tobytes()
                        + np.asarray(y).tobytes()).hexdigest()[:16]


def test_a_run_fits_the_nested_sets(test_solvers, write_config, cli, fit_log: Path,
                                    tmp_path: Path) -> None:
    out = tmp_path / "out"
    study = {"datasets": ["breast_cancer"], "solvers": {"mean_ranker": None},
             "resampling": {"repeats": 2, "n_labeled": [30], "n_unlabeled": [10, 20]}}
    assert cli("run", write_config(study), "--out", out)[0] == 0
    table = pd.read_csv(out / "results.csv").set_index("key")
    dataset = data.load("breast_cancer")
    fitted = {f["digest"]: f for f in read_fit_log(fit_log)}
    assert len(fitted) == 4
    for repetition in (0, 1):
        seeds = split_seeds(0, "breast_cancer", repetition, 30)
        small, large = (table.loc[f"breast_cancer/mean_ranker/r{repetition}/l30/u{u}"]
                        for u in (10, 20))
        for u, row in ((10, small), (20, large)):
            split = make_split(dataset.y, n_labeled=30, n_unlabeled=u, seeds=seeds)
            X, y = train_arrays(dataset.X, dataset.y, split)
            assert (y[30:] == UNLABELED).all()
            fit = fitted[digest(X, y)]  # the run fitted exactly this split
            assert fit["n_rows"] == 30 + u and fit["random_state"] == str(row["solver_seed"])
        # one labeled set and one test set: a supervised ranker scores the same on both
        assert small["split_seed"] == large["split_seed"] == seeds.inner
        assert small["auc"] == large["auc"] and small["n_test"] == large["n_test"] == 142


def test_own_criterion_folds_split_the_unlabeled_rows_too() -> None:
    # For a solver's own semi-supervised criterion (PNU-AUC's), every fold validates on its
    # share of the unlabeled rows, as the reference splits P, N and U into folds.
    from ordauc.splits import cv_folds

    y_l = np.array([0, 1] * 15)
    folds = cv_folds(y_l, 40, 5, seed=3, split_unlabeled=True)
    unlabeled = set(range(30, 70))
    held_out = [set(val.tolist()) & unlabeled for _, val in folds]
    assert all(len(part) == 8 for part in held_out)
    assert set().union(*held_out) == unlabeled  # each unlabeled row validated exactly once
    for (fit, val), part in zip(folds, held_out, strict=True):
        assert not set(fit.tolist()) & set(val.tolist())
        assert unlabeled - part <= set(fit.tolist())
    plain = cv_folds(y_l, 40, 5, seed=3)
    assert all(not set(val.tolist()) & unlabeled for _, val in plain)


def test_unlabeled_budgets_beyond_a_dataset_are_dropped_only_when_asked(
        test_solvers, write_config, cli, tmp_path: Path) -> None:
    """One log grid of unlabeled sizes for datasets of any size (the QSG papers' Figure 1):
    with ``beyond_data: drop`` a size a dataset cannot fill leaves its plan, listed by the dry
    run; without it the same config is refused before anything runs."""
    # breast_cancer: 569 rows, 142 held out, 30 labeled -> 397 unlabeled rows at most
    study = {"datasets": ["breast_cancer", {"name": "synthetic_binary", "n": 2000, "d": 4}],
             "solvers": {"mean_ranker": None},
             "resampling": {"kind": "budget", "repeats": 2, "n_labeled": [30],
                            "n_unlabeled": [100, 397, 398, 1000, "all"]}}
    code, _, stderr = cli("run", write_config(study), "--out", tmp_path / "refused")
    assert code == 2 and "n_unlabeled 398 exceeds the 427 rows available" in stderr
    assert not (tmp_path / "refused").exists()

    config = write_config({**study, "resampling": {**study["resampling"],
                                                   "beyond_data": "drop"}})
    code, stdout, _ = cli("run", config, "--out", tmp_path / "out", "--dry-run")
    assert code == 0
    assert "dropped  breast_cancer n_unlabeled 398, 1000  (beyond the rows it has" in stdout
    assert "dropped  synthetic_binary" not in stdout
    code, _, stderr = cli("run", config, "--out", tmp_path / "out")
    assert code == 0, stderr
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    sizes = {name: sorted(set(rows["n_unlabeled"]))
             for name, rows in table.groupby(table["dataset"].str.split("[").str[0])}
    assert sizes == {"breast_cancer": [100, 397], "synthetic_binary": [100, 397, 398, 1000, 1470]}
    assert len(table) == 2 * (3 + 5) and (table["status"] == "ok").all()
    code, stdout, _ = cli("run", config, "--out", tmp_path / "out", "--dry-run")
    assert code == 0 and "16 cells: 16 done;" in stdout  # nothing dropped waits as missing
