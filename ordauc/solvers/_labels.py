"""Label handling shared by the semi-supervised ranking solvers.

Conventions (DESIGN section 4): ``y == -1`` marks an unlabeled point; binary labels are 0/1 and
ordinal labels 1..k. Internally every task is ordinal with labels 1..k (binary 0/1 becomes 1/2),
so the binary case is the k = 2 case of the same code, as in the papers.
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
    n_classes: int
    binary: bool  # the caller's labels were 0/1

    def to_user(self, z: np.ndarray) -> np.ndarray:
        """Internal labels 1..k back to the caller's convention."""
        return z - 1 if self.binary else z


def split_labels(y: np.ndarray, task: str | None = None) -> LabeledSplit:
    """Separate labeled from unlabeled rows and check every class 1..k (or 0/1) is present.

    ``task`` forces ``binary`` (labels must be 0/1) or ``ordinal`` (labels 1..k); None infers it:
    labels containing 0 are binary, labels from 1 up are ordinal.
    """
    y = np.asarray(y).ravel()
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("labels must be integers (-1 marks an unlabeled point)")
        y = y.astype(np.int64)
    labeled = np.flatnonzero(y != UNLABELED)
    unlabeled = np.flatnonzero(y == UNLABELED)
    if labeled.size == 0:
        raise ValueError("no labeled point: every label is -1")
    values = y[labeled]
    if values.min() < 0:
        raise ValueError(f"labels must be -1 (unlabeled) or non-negative, got {values.min()}")
    binary = task == "binary" or (task is None and values.min() == 0)
    if binary:
        if not np.all((values == 0) | (values == 1)):
            raise ValueError("binary labels must be 0 or 1 (-1 marks an unlabeled point)")
        z = values + 1
        k = 2
    else:
        if values.min() < 1:
            raise ValueError("ordinal labels must be 1..k (-1 marks an unlabeled point)")
        z = values.astype(np.int64)
        k = int(z.max())
        if k < 2:
            raise ValueError("ordinal labels need at least two classes 1..k")
    missing = sorted(set(range(1, k + 1)) - set(np.unique(z).tolist()))
    if missing:
        shown = [c - 1 for c in missing] if binary else missing
        raise ValueError(f"the labeled points lack class(es) {shown}; every class must be present")
    return LabeledSplit(labeled=labeled, unlabeled=unlabeled, z=z, n_classes=k, binary=binary)
