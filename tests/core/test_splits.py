"""Splits by budget and repetition, inner CV folds, and the hashed seeds of the plan."""

from __future__ import annotations

import numpy as np
import pytest

from ordauc.config import parse_config
from ordauc.errors import UserError
from ordauc.experiment.plan import make_plan, solver_seed, split_seeds
from ordauc.splits import UNLABELED, SplitSeeds, _allocate, cv_folds, make_split, train_arrays

Y = np.repeat([1, 2, 3], [60, 30, 10])  # 100 rows, imbalanced ordinal labels


def seeds(seed: int) -> SplitSeeds:
    return SplitSeeds(outer=seed, inner=seed)


def test_split_is_disjoint_sized_and_seeded() -> None:
    split = make_split(Y, n_labeled=20, n_unlabeled=30, seeds=seeds(5), test_size=0.2)
    assert (split.labeled.size, split.unlabeled.size, split.evaluation.size) == (20, 30, 20)
    everything = np.concatenate([split.labeled, split.unlabeled, split.evaluation])
    assert np.unique(everything).size == everything.size
    assert split.eval_source == "held_out"
    # the held-out rows keep the class proportions
    assert np.array_equal(np.bincount(Y[split.evaluation]), [0, 12, 6, 2])
    again = make_split(Y, n_labeled=20, n_unlabeled=30, seeds=seeds(5), test_size=0.2)
    other = make_split(Y, n_labeled=20, n_unlabeled=30, seeds=seeds(6), test_size=0.2)
    assert np.array_equal(split.labeled, again.labeled)
    assert np.array_equal(split.unlabeled, again.unlabeled)
    assert not np.array_equal(np.sort(split.labeled), np.sort(other.labeled))


def test_unlabeled_budget_all_takes_every_remaining_row() -> None:
    split = make_split(Y, n_labeled=20, n_unlabeled=None, seeds=seeds(0), test_size=0.25)
    assert split.labeled.size + split.unlabeled.size + split.evaluation.size == Y.size


def test_official_test_split_and_transductive_evaluation() -> None:
    official = make_split(Y, n_labeled=10, n_unlabeled=None, seeds=seeds(0),
                          has_official_test=True)
    assert official.eval_source == "official_test"
    assert official.labeled.size + official.unlabeled.size == Y.size  # nothing held out
    transductive = make_split(Y, n_labeled=10, n_unlabeled=40, seeds=seeds(0),
                              evaluate="unlabeled")
    assert transductive.eval_source == "unlabeled"
    assert np.array_equal(transductive.evaluation, transductive.unlabeled)


def test_stratified_labeled_draw_keeps_proportions_and_every_class() -> None:
    split = make_split(Y, n_labeled=10, n_unlabeled=0, seeds=seeds(1), sampling="stratified")
    assert np.array_equal(np.bincount(Y[split.labeled]), [0, 6, 2, 2])  # 2 = floor per class
    assert np.array_equal(_allocate(np.array([3, 3, 3]), 2), [1, 1, 0])
    rng = np.random.default_rng(0)
    for _ in range(300):
        counts = rng.integers(1, 40, size=rng.integers(1, 7))
        k = int(rng.integers(1, counts.sum() + 1))
        quota = _allocate(counts, k)
        assert quota.sum() == k and (quota <= counts).all()
        if k >= 2 * counts.size:
            assert (quota >= np.minimum(counts, 2)).all()


def test_budget_larger_than_the_data_raises() -> None:
    with pytest.raises(UserError, match="n_labeled 200 exceeds the 75 rows"):
        make_split(Y, n_labeled=200, n_unlabeled=0, seeds=seeds(0))
    with pytest.raises(UserError, match=r"n_labeled 50 \+ n_unlabeled 30 exceeds the 75 rows"):
        make_split(Y, n_labeled=50, n_unlabeled=30, seeds=seeds(0))
    with pytest.raises(UserError, match="n_unlabeled > 0"):
        make_split(Y, n_labeled=50, n_unlabeled=0, seeds=seeds(0), evaluate="unlabeled")


def test_train_arrays_mark_unlabeled_rows_minus_one() -> None:
    X = np.arange(Y.size, dtype=np.float32)[:, None]
    split = make_split(Y, n_labeled=8, n_unlabeled=12, seeds=seeds(3))
    X_train, y_train = train_arrays(X, Y, split)
    assert X_train.shape == (20, 1)
    assert np.array_equal(X_train[:8, 0].astype(int), split.labeled)
    assert np.array_equal(y_train[:8], Y[split.labeled])
    assert (y_train[8:] == UNLABELED).all()


def test_cv_folds_hold_out_labeled_rows_only() -> None:
    y_labeled = np.repeat([0, 1], [12, 6])
    folds = cv_folds(y_labeled, n_unlabeled=7, folds=3, seed=0)
    assert len(folds) == 3
    validated = np.concatenate([val for _, val in folds])
    assert np.array_equal(np.sort(validated), np.arange(18))  # each labeled row once
    for fit, val in folds:
        assert set(range(18, 25)) <= set(fit.tolist())  # unlabeled rows always fit
        assert not set(fit.tolist()) & set(val.tolist())
        assert np.array_equal(np.bincount(y_labeled[val]), [4, 2])  # stratified
    assert all(np.array_equal(a[1], b[1])
               for a, b in zip(folds, cv_folds(y_labeled, 7, 3, seed=0), strict=True))


def test_split_seeds_are_a_stable_hash_of_the_cell() -> None:
    # Frozen values: changing the hashing silently changes every published split.
    assert split_seeds(0, "breast_cancer", 0, 50) == SplitSeeds(4064500873, 2174168995)
    # the outer seed (held-out rows, folds) is the repetition's, whatever the budget
    assert split_seeds(0, "breast_cancer", 0, None) == SplitSeeds(4064500873, 1010764853)
    assert split_seeds(0, "breast_cancer", 1, 50) == SplitSeeds(2859501291, 3627475730)
    assert solver_seed(2174168995, "samult") == 1809465425
    assert len({split_seeds(0, "d", r, 50) for r in range(5)}) == 5


def test_split_seeds_ignore_config_order_and_are_shared_by_solvers(test_solvers) -> None:
    one = make_plan(parse_config({
        "resampling": {"repeats": 2, "n_labeled": [20, 40], "n_unlabeled": [10, None]},
        "datasets": ["breast_cancer", "diabetes"],
        "solvers": {"mean_ranker": None, "fast": {"solver": "mean_ranker"},
                    "binary_ranker": None}}))
    two = make_plan(parse_config({
        "resampling": {"repeats": 2, "n_labeled": [40, 20], "n_unlabeled": [None, 10]},
        "datasets": ["diabetes", "breast_cancer"],
        "solvers": {"binary_ranker": None, "fast": {"solver": "mean_ranker"},
                    "mean_ranker": None}}))
    first = {c.key: (c.seeds, c.solver_seed) for c in one.cells}
    second = {c.key: (c.seeds, c.solver_seed) for c in two.cells}
    assert first == second and len(first) == 2 * 2 * 2 * 2 * 2 + 2 * 2 * 2 * 1
    by_split: dict[tuple, set[SplitSeeds]] = {}
    for cell in one.cells:
        by_split.setdefault(cell.split_key, set()).add(cell.seeds)
    assert all(len(s) == 1 for s in by_split.values())  # one split per cell, all solvers
    assert ("diabetes", "binary_ranker", "ordinal", ("binary",)) in one.not_applicable
