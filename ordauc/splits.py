"""Labeled / unlabeled / evaluation splits by budget and seed, and inner CV folds.

A split is built from the labels alone (so the runner can check every split before running
anything) and holds row indices. The estimator then gets ``X_train`` = labeled rows followed by
unlabeled rows, and ``y`` with -1 on the unlabeled rows (scikit-learn's semi-supervised
convention). Evaluation rows are the official test split when the dataset has one, else a
stratified held-out fraction, or the unlabeled rows themselves (``evaluate: unlabeled``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ordauc.errors import UserError

UNLABELED = -1


@dataclass(frozen=True)
class Split:
    """Row indices of one cell's split.

    ``labeled`` and ``unlabeled`` index the dataset's ``X``; ``evaluation`` indexes ``X_test``
    when ``eval_source`` is ``official_test``, else ``X``.
    """

    labeled: np.ndarray
    unlabeled: np.ndarray
    evaluation: np.ndarray
    eval_source: str  # official_test | held_out | unlabeled

    @property
    def train(self) -> np.ndarray:
        """Rows of ``X_train``: labeled first, so CV folds index the labeled rows by position."""
        return np.concatenate([self.labeled, self.unlabeled])


def make_split(y: np.ndarray, *, n_labeled: int, n_unlabeled: int | None, seed: int,
               has_official_test: bool = False, test_size: float = 0.25,
               sampling: str = "uniform", evaluate: str = "test") -> Split:
    """Draw one split from labels ``y`` with ``np.random.default_rng(seed)``.

    ``n_unlabeled=None`` takes every remaining training row. Raises :class:`UserError` when the
    budget does not fit in the data (the caller adds which dataset and seed).
    """
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    rows = np.arange(y.size)
    held_out = np.empty(0, dtype=np.int64)
    if evaluate == "test" and not has_official_test:
        n_test = max(1, int(round(test_size * y.size)))
        held_out = _draw(y, rows, n_test, rng, stratified=True)
        rows = rows[_outside(held_out, y.size)]
    pool = rng.permutation(rows)
    if n_labeled > pool.size:
        raise UserError(f"n_labeled {n_labeled} exceeds the {pool.size} rows available for "
                        "training")
    labeled = _draw(y, pool, n_labeled, rng, stratified=sampling == "stratified")
    rest = pool[_outside(labeled, y.size)[pool]]
    if n_unlabeled is not None and n_unlabeled > rest.size:
        raise UserError(f"n_labeled {n_labeled} + n_unlabeled {n_unlabeled} exceeds the "
                        f"{pool.size} rows available for training")
    unlabeled = rest if n_unlabeled is None else rest[:n_unlabeled]
    if evaluate == "unlabeled":
        if unlabeled.size == 0:
            raise UserError("evaluate: unlabeled needs n_unlabeled > 0, as the AUC is measured "
                            "on the unlabeled rows")
        return Split(labeled, unlabeled, unlabeled, "unlabeled")
    if has_official_test:
        return Split(labeled, unlabeled, np.empty(0, dtype=np.int64), "official_test")
    return Split(labeled, unlabeled, held_out, "held_out")


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


def cv_folds(y_labeled: np.ndarray, n_unlabeled: int, folds: int, seed: int
             ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(fit rows, validation rows) of ``X_train`` per fold: stratified folds of the labeled rows
    (positions 0..n_labeled-1), with every unlabeled row always on the fitting side."""
    n_labeled = len(y_labeled)
    unlabeled = np.arange(n_labeled, n_labeled + n_unlabeled)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        # A class rarer than `folds` is allowed: its validation folds simply lack it.
        warnings.filterwarnings("ignore", message="The least populated class")
        pairs = list(splitter.split(np.zeros(n_labeled), y_labeled))
    return [(np.concatenate([fit, unlabeled]), val) for fit, val in pairs]
