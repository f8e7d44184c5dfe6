"""Datasets that need no network: scikit-learn's bundled sets and seeded synthetic generators.

Features are scaled to [0, 1] per column, as both QSG papers do before splitting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ordauc.data.dataset import Dataset
from ordauc.data.discretize import equal_frequency


def minmax_scale(X: np.ndarray) -> np.ndarray:
    """Scale each column to [0, 1] in place-safe float32; constant columns become 0."""
    X = np.asarray(X, dtype=np.float32)
    lo = X.min(axis=0)
    span = X.max(axis=0) - lo
    span[span == 0] = 1.0
    return ((X - lo) / span).astype(np.float32, copy=False)


def breast_cancer() -> Dataset:
    """Wisconsin diagnostic breast cancer (569 x 30); positive class 1 = malignant (212 rows)."""
    from sklearn.datasets import load_breast_cancer

    raw = load_breast_cancer()
    y = (raw.target == 0).astype(np.int64)  # scikit-learn codes malignant as 0
    return Dataset(
        name="breast_cancer", X=minmax_scale(raw.data), y=y, task="binary", n_classes=2,
        info={"source": "sklearn.datasets.load_breast_cancer", "positive_class": "malignant",
              "scaling": "minmax [0, 1]", "licence": "CC BY 4.0 (UCI)"},
    )


def diabetes(n_bins: int = 5) -> Dataset:
    """scikit-learn's diabetes (442 x 10), target cut into ``n_bins`` equal-frequency classes."""
    from sklearn.datasets import load_diabetes

    raw = load_diabetes()
    return Dataset(
        name="diabetes", X=minmax_scale(raw.data), y=equal_frequency(raw.target, n_bins),
        task="ordinal", n_classes=n_bins,
        info={"source": "sklearn.datasets.load_diabetes", "scaling": "minmax [0, 1]",
              "discretisation": {"rule": "equal_frequency", "n_bins": n_bins}},
    )


def _latent(X: np.ndarray) -> np.ndarray:
    """A smooth nonlinear score of the first columns: a Gaussian kernel beats a linear one."""
    d = X.shape[1]
    a, b, c = X[:, 0], X[:, 1 % d], X[:, 2 % d]
    return (np.sin(2.0 * np.pi * a) + np.cos(3.0 * b) * (c - 0.5) * 2.0
            + 2.0 * (X[:, : min(d, 8)].mean(axis=1) - 0.5))


def _synthetic_X(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    if n < 10 or d < 1:
        raise ValueError(f"synthetic data needs n >= 10 and d >= 1, got n={n}, d={d}")
    rng = np.random.default_rng(seed)
    X = rng.random((n, d), dtype=np.float32)
    g = _latent(X) + rng.normal(0.0, 0.3, size=n).astype(np.float32)
    return X, g


def synthetic_binary(n: int = 10_000, d: int = 20, seed: int = 0, positive_rate: float = 0.5
                     ) -> Dataset:
    """Seeded binary data of any size: uniform features, label = noisy nonlinear score > cut."""
    X, g = _synthetic_X(n, d, seed)
    y = (g > np.quantile(g, 1.0 - positive_rate)).astype(np.int64)
    return Dataset(name="synthetic_binary", X=X, y=y, task="binary", n_classes=2,
                   info={"generator": "synthetic_binary", "n": n, "d": d, "seed": seed,
                         "positive_rate": positive_rate})


def synthetic_ordinal(n: int = 10_000, d: int = 20, seed: int = 0, n_classes: int = 5) -> Dataset:
    """Seeded ordinal data of any size: the noisy nonlinear score cut into equal-frequency bins."""
    X, g = _synthetic_X(n, d, seed)
    return Dataset(name="synthetic_ordinal", X=X, y=equal_frequency(g, n_classes), task="ordinal",
                   n_classes=n_classes,
                   info={"generator": "synthetic_ordinal", "n": n, "d": d, "seed": seed,
                         "discretisation": {"rule": "equal_frequency", "n_bins": n_classes}})


BUILTIN: dict[str, tuple[Callable[..., Dataset], str, str]] = {
    "breast_cancer": (breast_cancer, "binary", "scikit-learn's breast cancer, 569 x 30"),
    "diabetes": (diabetes, "ordinal", "scikit-learn's diabetes, 442 x 10, 5 equal-frequency bins"),
    "synthetic_binary": (synthetic_binary, "binary", "seeded nonlinear binary data, any n x d"),
    "synthetic_ordinal": (synthetic_ordinal, "ordinal", "seeded nonlinear ordinal data, any n x d"),
}


def load_builtin(name: str, **params: Any) -> Dataset:
    return BUILTIN[name][0](**params)
