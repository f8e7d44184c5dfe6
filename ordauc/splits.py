"""Resampling: how one dataset becomes repetitions, and each repetition's split; inner CV folds.

Three kinds (a config's ``resampling.kind``), each giving repetitions numbered 0, 1, ...:

- ``budget``: ``repeats`` random draws. The evaluation rows are the dataset's official test
  split, or a stratified held-out fraction ``test_size`` drawn once per repetition (the same for
  every budget), or the unlabeled rows themselves (``evaluate: unlabeled``).
- ``partitions``: a dataset's published train/test partitions (Chu's 20, the survey's 30), one
  repetition each, used as published: the partition's test part is the evaluation set.
- ``kfold``: ``folds`` x ``repeats``: repetition r * folds + f holds fold f of the r-th random
  stratified fold assignment out (the AUC-DCD paper's 5 x 4).

Within a repetition's training rows, ``n_labeled`` rows are labeled (``None``: all of them) and
the first ``n_unlabeled`` of the remaining rows, in a seeded random order, are unlabeled. The
seed of that order leaves ``n_unlabeled`` out, so for one labeled set the unlabeled sets of
growing size are nested: a time curve adds unlabeled rows to the same problem, as the QSG
papers' Figure 1 implies.

A split is built from labels alone (so the runner checks every split before anything runs) and
holds row indices. The estimator gets ``X_train`` = labeled rows followed by unlabeled rows, and
``y`` with -1 on the unlabeled rows (scikit-learn's semi-supervised convention).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ordauc.errors import UserError

UNLABELED = -1


class BeyondData(UserError):
    """An unlabeled budget larger than the rows left after the labeled and evaluation rows."""


@dataclass(frozen=True)
class Split:
    """Row indices of one cell's split.

    ``labeled`` and ``unlabeled`` index the repetition's ``X``; ``evaluation`` indexes ``X_test``
    when ``eval_source`` is ``official_test``, else ``X``.
    """

    labeled: np.ndarray
    unlabeled: np.ndarray
    evaluation: np.ndarray
    eval_source: str  # official_test | held_out | unlabeled | fold

    @property
    def train(self) -> np.ndarray:
        """Rows of ``X_train``: labeled first, so CV folds index the labeled rows by position."""
        return np.concatenate([self.labeled, self.unlabeled])


@dataclass(frozen=True)
class SplitSeeds:
    """The seeds of one split: ``outer`` draws the held-out rows or the fold assignment (shared
    by every budget of a repetition), ``inner`` the labeled rows and the unlabeled order (shared
    by every unlabeled budget)."""

    outer: int
    inner: int


def make_split(y: np.ndarray, *, kind: str = "budget", repetition: int = 0,
               n_labeled: int | None, n_unlabeled: int | None, seeds: SplitSeeds,
               has_official_test: bool = False, test_size: float = 0.25,
               sampling: str = "uniform", evaluate: str = "test", folds: int = 5,
               train_size: int | None = None) -> Split:
    """Draw one split from the labels ``y`` of the repetition's training source.

    Without an official test split, ``budget`` holds out a stratified ``test_size`` fraction,
    or every row but ``train_size`` of them (the NPSVOR paper's random partitions of a
    published size). Raises :class:`UserError` when the budget does not fit in the data (the
    caller adds which dataset and repetition).
    """
    y = np.asarray(y)
    rows = np.arange(y.size)
    evaluation, source = np.empty(0, dtype=np.int64), "official_test"
    if kind == "kfold":
        evaluation = _fold(y, folds, repetition % folds, seeds.outer)
        rows, source = rows[_outside(evaluation, y.size)], "fold"
    elif evaluate == "test" and not has_official_test:
        if train_size is not None and not 0 < train_size < y.size:
            raise UserError(f"resampling.train_size {train_size} must be below the {y.size} "
                            "rows of the dataset, leaving rows to test on")
        n_test = (y.size - train_size if train_size is not None
                  else max(1, int(round(test_size * y.size))))
        evaluation = _draw(y, rows, n_test, np.random.default_rng(seeds.outer), stratified=True)
        rows, source = rows[_outside(evaluation, y.size)], "held_out"
    rng = np.random.default_rng(seeds.inner)
    pool = rng.permutation(rows)
    if n_labeled is None:
        labeled = pool
    elif n_labeled > pool.size:
        raise UserError(f"n_labeled {n_labeled} exceeds the {pool.size} rows available for "
                        "training")
    else:
        labeled = _draw(y, pool, n_labeled, rng, stratified=sampling == "stratified")
    rest = pool[_outside(labeled, y.size)[pool]]
    if n_unlabeled is not None and n_unlabeled > rest.size:
        raise BeyondData(f"n_labeled {_text(n_labeled)} + n_unlabeled {n_unlabeled} exceeds the "
                        f"{pool.size} rows available for training")
    unlabeled = rest if n_unlabeled is None else rest[:n_unlabeled]
    if evaluate == "unlabeled":
        if unlabeled.size == 0:
            raise UserError("evaluate: unlabeled needs n_unlabeled > 0, as the AUC is measured "
                            "on the unlabeled rows")
        return Split(labeled, unlabeled, unlabeled, "unlabeled")
    return Split(labeled, unlabeled, evaluation, source)


def _text(n: int | None) -> str:
    return "all" if n is None else str(n)


def _fold(y: np.ndarray, folds: int, fold: int, seed: int) -> np.ndarray:
    """Rows of fold ``fold`` of a seeded stratified assignment of all rows to ``folds`` folds."""
    if folds > y.size:
        raise UserError(f"resampling.folds {folds} exceeds the {y.size} rows of the dataset")
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed % (1 << 32))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class")
        return list(splitter.split(np.zeros(y.size), y))[fold][1]


def _outside(taken: np.ndarray, n: int) -> np.ndarray:
    """Mask of the rows 0..n-1 not in ``taken`` (linear time; ``np.setdiff1d`` sorts)."""
    mask = np.ones(n, dtype=bool)
    mask[taken] = False
    return mask


def _draw(y: np.ndarray, candidates: np.ndarray, k: int, rng: np.random.Generator,
          stratified: bool) -> np.ndarray:
    """``k`` distinct rows of ``candidates``, uniformly or in the classes' proportions."""
    if not stratified:
        return rng.choice(candidates, size=k, replace=False)
    classes, counts = np.unique(y[candidates], return_counts=True)
    quota = _allocate(counts, k)
    parts = [rng.choice(candidates[y[candidates] == c], size=q, replace=False)
             for c, q in zip(classes, quota, strict=True)]
    return rng.permutation(np.concatenate(parts))


def _allocate(counts: np.ndarray, k: int) -> np.ndarray:
    """Per-class sizes summing to ``k``: proportional (largest remainder), and at least two rows
    per class when ``k`` allows it, so every training fold of the inner CV sees every class."""
    exact = counts * k / counts.sum()
    floor = min(2, k // counts.size)
    quota = np.minimum(np.maximum(np.floor(exact).astype(np.int64), floor), counts)
    while quota.sum() > k:  # the floor took rows from the large classes
        quota[np.argmax(quota)] -= 1
    for c in np.argsort(-(exact - quota), kind="stable"):  # fewer than counts.size rows short
        if quota.sum() < k and quota[c] < counts[c]:
            quota[c] += 1
    return quota


def check_labeled(y_labeled: np.ndarray, classes: np.ndarray, min_count: int) -> str | None:
    """Why a labeled set cannot train every fold (a class missing or too rare), or None."""
    present, counts = np.unique(y_labeled, return_counts=True)
    have = dict(zip(present.tolist(), counts.tolist(), strict=True))
    rarest = min(classes.tolist(), key=lambda c: have.get(c, 0))  # a missing class first
    got = have.get(rarest, 0)
    if got >= min_count:
        return None
    if got == 0:
        return f"the labeled set has no row of class {rarest}"
    return (f"the labeled set has {got} row(s) of class {rarest}, and needs at least "
            f"{min_count} so that every inner CV training fold holds it")


def train_arrays(X: Any, y: np.ndarray, split: Split) -> tuple[Any, np.ndarray]:
    """``X_train`` (labeled then unlabeled rows) and ``y`` with -1 on the unlabeled rows."""
    y_train = np.concatenate([np.asarray(y)[split.labeled],
                              np.full(split.unlabeled.size, UNLABELED, dtype=np.int64)])
    return X[split.train], y_train


def eval_arrays(dataset: Any, split: Split) -> tuple[Any, np.ndarray]:
    """The rows the cell is scored on, with their true labels."""
    if split.eval_source == "official_test":
        return dataset.X_test, np.asarray(dataset.y_test)
    return dataset.X[split.evaluation], np.asarray(dataset.y)[split.evaluation]


def n_eval(split: Split, n_official_test: int) -> int:
    """How many rows the cell is scored on."""
    return n_official_test if split.eval_source == "official_test" else int(split.evaluation.size)


def cv_folds(y_labeled: np.ndarray, n_unlabeled: int, folds: int, seed: int,
             split_unlabeled: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """(fit rows, validation rows) of ``X_train`` per fold: stratified folds of the labeled rows
    (positions 0..n_labeled-1), with every unlabeled row always on the fitting side; or, with
    ``split_unlabeled``, the unlabeled rows cut into ``folds`` parts too, each fold validating
    on its part (for a solver's own semi-supervised criterion, as PNU-AUC's reference splits
    P, N and U separately into folds).

    Raises :class:`UserError` when there are fewer labeled rows than folds, or when no class has
    as many labeled rows as folds (scikit-learn cannot stratify then); a class rarer than
    ``folds`` is allowed: its validation folds simply lack it.
    """
    n_labeled = len(y_labeled)
    if n_labeled < folds:
        raise UserError(f"the inner CV needs at least {folds} labeled rows (tuning.folds), "
                        f"and there are {n_labeled}; use a larger n_labeled or fewer folds")
    unlabeled = np.arange(n_labeled, n_labeled + n_unlabeled)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed % (1 << 32))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class")
        try:
            pairs = list(splitter.split(np.zeros(n_labeled), y_labeled))
        except ValueError:
            counts = np.unique(y_labeled, return_counts=True)[1]
            raise UserError(f"tuning.folds = {folds} is larger than the labeled rows of every "
                            f"class (at most {int(counts.max())}); use fewer folds or a larger "
                            "n_labeled") from None
    if not split_unlabeled:
        return [(np.concatenate([fit, unlabeled]), val) for fit, val in pairs]
    parts = np.array_split(np.random.default_rng(seed).permutation(unlabeled), folds)
    return [(np.concatenate([fit, *parts[:i], *parts[i + 1:]]), np.concatenate([val, parts[i]]))
            for i, (fit, val) in enumerate(pairs)]
