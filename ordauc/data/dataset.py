"""The prepared dataset handed to experiments: arrays plus what they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

Task = Literal["binary", "ordinal"]


@dataclass
class Dataset:
    """A prepared dataset.

    ``X`` is float32 (dense, possibly memory-mapped, or CSR); ``y`` holds int labels, 0/1 for
    binary tasks and 1..k for ordinal ones. ``X_test``/``y_test`` are the official test split,
    or None where the source has none. ``info`` records source, checksums and preparation.
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    task: Task
    n_classes: int
    X_test: np.ndarray | sp.csr_matrix | None = None
    y_test: np.ndarray | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def class_counts(self) -> dict[int, int]:
        values, counts = np.unique(self.y, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}
