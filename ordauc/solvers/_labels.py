"""Label handling shared by the semi-supervised ranking solvers.

Conventions (docs/algorithms.md, section 1, and scikit-learn's semi-supervised estimators):
``y == -1`` marks an unlabeled point; every other label is a class. Binary data has two classes
(0/1 in ordauc's datasets) and ordinal data consecutive integer classes (1..k in ordauc's
datasets); the classes are ``classes_`` in increasing order, the last one the positive or
highest. Internally every
task is ordinal with labels 1..k, so the binary case is the k = 2 case of the same code, as in
the papers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

UNLABELED = -1


@dataclass(frozen=True)
class LabeledSplit:
    """Row indices of the labeled and unlabeled points, and the labeled targets as 1..k."""

    labeled: np.ndarray
    unlabeled: np.ndarray
    z: np.ndarray  # labels of the labeled rows in 1..k
    classes: np.ndarray  # the caller's label of internal class 1..k, increasing

    @property
    def n_classes(self) -> int:
        return int(self.classes.size)

    def batch_pools(self, with_unlabeled: bool) -> list[np.ndarray]:
        """Row pools of the mini-batches, in the order they are drawn: P_1 = {labeled z > 1},
        N_1 = {labeled z <= 1}, ..., P_{k-1}, N_{k-1}, then U if ``with_unlabeled``. P and N
        hold positions among the labeled rows, U row indices of X."""
        pools = [pool for j in range(1, self.n_classes)
                 for pool in (np.flatnonzero(self.z > j), np.flatnonzero(self.z <= j))]
        return [*pools, self.unlabeled] if with_unlabeled else pools


def draw_batches(rng: np.random.Generator, pools: list[np.ndarray], size: int
                 ) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray | None]:
    """One iteration's mini-batches, ``size`` draws with replacement from each pool of
    :meth:`LabeledSplit.batch_pools`, in one call to ``rng``: the (P_j, N_j) pairs, and the U
    batch or None when the pools hold no U."""
    highs = np.array([pool.size for pool in pools])[:, None]
    pos = rng.integers(0, highs, (len(pools), size))
    pairs = [(pools[i][pos[i]], pools[i + 1][pos[i + 1]]) for i in range(0, len(pools) - 1, 2)]
    return pairs, (pools[-1][pos[-1]] if len(pools) % 2 else None)


def split_labels(y: np.ndarray, task: str | None = None) -> LabeledSplit:
    """Separate labeled from unlabeled rows and check the classes.

    ``task`` ``binary`` needs exactly two classes among the labeled points; ``ordinal`` (and
    None) needs two or more consecutive integers, every class between the lowest and the highest
    present (a gap is a class missing from the labeled set).
    """
    y = np.asarray(y).ravel()
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("labels must be integers (-1 marks an unlabeled point)")
        y = y.astype(np.int64)
    if y.dtype.kind not in "iu":
        raise ValueError(f"labels must be integers (-1 marks an unlabeled point), got {y.dtype}")
    labeled = np.flatnonzero(y != UNLABELED)
    unlabeled = np.flatnonzero(y == UNLABELED)
    if labeled.size == 0:
        raise ValueError("no labeled point: every label is -1")
    values = y[labeled].astype(np.int64)
    classes = np.unique(values)
    if task == "binary" and classes.size != 2:
        raise ValueError(f"binary labels must take exactly two values besides -1 (unlabeled); "
                         f"the labeled points have {classes.tolist()}")
    if classes.size < 2:
        raise ValueError(f"the labeled points have one class only, {classes.tolist()}; at least "
                         "two are needed (-1 marks an unlabeled point)")
    if task != "binary":
        missing = sorted(set(range(int(classes[0]), int(classes[-1]) + 1))
                         - set(classes.tolist()))
        if missing:
            raise ValueError(f"the labeled points lack class(es) {missing}; ordinal labels are "
                             "consecutive integers and every class between the lowest and the "
                             "highest must be present")
    z = np.searchsorted(classes, values) + 1
    return LabeledSplit(labeled=labeled, unlabeled=unlabeled, z=z, classes=classes)
