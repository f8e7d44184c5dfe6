"""Datasets that need no network: scikit-learn's bundled sets and seeded synthetic generators.

Each is a catalogue :class:`~ordauc.data.spec.Entry` (recipe ``builtin``) whose loader makes the
arrays; its ``params`` are the loader's keyword parameters, and ``set_by`` names those that
change its size or its number of classes. Features are scaled to [0, 1] per column, as both QSG
papers do before splitting, except for the NPSVOR paper's two-feature example, kept in the
paper's units.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ordauc.data.dataset import Dataset, Task
from ordauc.data.discretize import equal_frequency
from ordauc.data.spec import BUILTIN_RECIPE, Entry


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


def npsvor_toy(n: int = 300, seed: int = 0) -> Dataset:
    """The NPSVOR paper's three-rank example (Section II, Fig. 2): ``n`` rows (the paper's 300),
    a third per rank, from bivariate Gaussians with means (10, 10), (15, 15), (20, 10) and
    variance 5 per coordinate, independent. Kept in the paper's units (not scaled), so that its
    figure reads as the paper's; the rows are ordered by rank."""
    if n < 6:
        raise ValueError(f"npsvor_toy needs n >= 6, got {n}")
    rng = np.random.default_rng(seed)
    means = np.array([[10.0, 10.0], [15.0, 15.0], [20.0, 10.0]])
    sizes = [len(part) for part in np.array_split(np.arange(n), 3)]
    X = np.concatenate([rng.normal(m, np.sqrt(5.0), size=(k, 2))
                        for m, k in zip(means, sizes, strict=True)])
    y = np.repeat(np.arange(1, 4), sizes).astype(np.int64)
    return Dataset(name="npsvor_toy", X=X.astype(np.float32), y=y, task="ordinal", n_classes=3,
                   info={"generator": "npsvor_toy", "n": n, "seed": seed,
                         "means": means.tolist(), "variance": 5.0, "scaling": "none"})


def builtin_entry(name: str, loader: Callable[..., Dataset], *, task: Task, n: int, d: int,
                  n_classes: int, origin: str, licence: str, citation: str = "",
                  set_by: dict[str, str] | None = None, notes: str = "") -> Entry:
    """The catalogue entry of a set made by ``loader``: its parameters are the loader's keyword
    parameters with their defaults, and ``n``, ``d``, ``n_classes`` what those defaults give."""
    params = {p.name: None if p.default is inspect.Parameter.empty else p.default
              for p in inspect.signature(loader).parameters.values()}
    return Entry(name=name, task=task, paper="", recipe=BUILTIN_RECIPE, sources={}, n=n, d=d,
                 n_classes=n_classes, origin=origin, licence=licence, citation=citation,
                 params=params, notes=notes, set_by=dict(set_by or {}), loader=loader)


GENERATED = "seeded generator (ordauc)"
NO_LICENCE_NEEDED = "none needed (generated data)"

BUILTIN: dict[str, Entry] = {e.name: e for e in (
    builtin_entry("breast_cancer", breast_cancer, task="binary", n=569, d=30, n_classes=2,
                  origin="scikit-learn (UCI)", licence="CC BY 4.0 (UCI)",
                  citation="Street, Wolberg & Mangasarian 1993; UCI Breast Cancer Wisconsin "
                           "(Diagnostic); scikit-learn's load_breast_cancer",
                  notes="positive class 1 = malignant (212 rows)"),
    builtin_entry("diabetes", diabetes, task="ordinal", n=442, d=10, n_classes=5,
                  origin="scikit-learn",
                  licence="no licence stated by the source; shipped with scikit-learn "
                          "(BSD-3-Clause)",
                  citation="Efron, Hastie, Johnstone & Tibshirani, Least angle regression, "
                           "Annals of Statistics 2004; scikit-learn's load_diabetes",
                  set_by={"n_classes": "n_bins"},
                  notes="disease progression cut into n_bins equal-frequency classes"),
    builtin_entry("npsvor_toy", npsvor_toy, task="ordinal", n=300, d=2, n_classes=3,
                  origin=GENERATED, licence=NO_LICENCE_NEEDED,
                  citation="Wang, Shi, Niu & Tian, NPSVOR, IEEE Trans. Cybernetics 2017, "
                           "Section II (Fig. 2)",
                  set_by={"n": "n"},
                  notes="three ranks from Gaussians at (10, 10), (15, 15), (20, 10), variance 5; "
                        "the paper's units, not scaled"),
    builtin_entry("synthetic_binary", synthetic_binary, task="binary", n=10_000, d=20,
                  n_classes=2, origin=GENERATED, licence=NO_LICENCE_NEEDED,
                  set_by={"n": "n", "d": "d"},
                  notes="uniform features; label = noisy nonlinear score above a cut"),
    builtin_entry("synthetic_ordinal", synthetic_ordinal, task="ordinal", n=10_000, d=20,
                  n_classes=5, origin=GENERATED, licence=NO_LICENCE_NEEDED,
                  set_by={"n": "n", "d": "d", "n_classes": "n_classes"},
                  notes="uniform features; the noisy nonlinear score cut into equal-frequency "
                        "classes"),
)}


def load_builtin(name: str, **params: Any) -> Dataset:
    """The built-in set ``name`` made with ``params``."""
    loader = BUILTIN[name].loader
    assert loader is not None  # every entry of BUILTIN is built by builtin_entry
    return loader(**params)
