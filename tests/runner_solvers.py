"""Small estimators for the runner tests: fast, slow, raising, crashing, too big.

They follow the solver contract (y == -1 unlabeled, ``decision_function``, ``predict``,
``tasks``) without any kernel, so a whole study runs in a second. ``register`` adds them to the
solver registry under the names in ``TEST_SOLVERS``. Setting ``ORDAUC_TEST_FIT_LOG`` to a file
path makes every ``fit`` append one line ``name pid random_state n_rows digest`` to it, which
lets tests count fits and compare the data each solver saw, across processes.

Run as a script, this module is ``ordauc`` with the test solvers registered:
``python tests/runner_solvers.py run CONFIG ...``.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from ordauc.errors import ResourceLimitError

FIT_LOG = "ORDAUC_TEST_FIT_LOG"


class MeanRanker(BaseEstimator):
    """Kernel-free ranker: the covariance of each feature with the label, plus seeded noise."""

    tasks: tuple[str, ...] = ("binary", "ordinal")

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float = 0.5,
                 delay: float = 0.0, random_state: int | None = None) -> None:
        self.lam = lam
        self.sigma = sigma
        self.gamma = gamma
        self.delay = delay
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> MeanRanker:
        _log(self, X, y)
        if self.delay:
            time.sleep(self.delay)
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        labeled = y >= 0
        Xl, yl = X[labeled], y[labeled].astype(np.float64)
        w = ((Xl - Xl.mean(axis=0)) * (yl - yl.mean())[:, None]).mean(axis=0) / self.lam
        rng = np.random.default_rng(self.random_state)
        # sigma scales the noise, so the grid search has a real choice to make
        w = w + rng.normal(scale=0.05 * self.sigma * (np.abs(w).max() + 1e-12), size=w.shape)
        self.coef_ = w
        self.classes_ = np.unique(y[labeled])
        scores = Xl @ w
        shares = np.cumsum([np.mean(y[labeled] == c) for c in self.classes_])[:-1]
        self.thresholds_ = np.quantile(scores, shares)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=np.float64) @ self.coef_

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.classes_[np.searchsorted(self.thresholds_, self.decision_function(X))]


class SlowRanker(MeanRanker):
    """MeanRanker that sleeps ``delay`` seconds per fit."""

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float = 0.5,
                 delay: float = 0.3, random_state: int | None = None) -> None:
        super().__init__(lam=lam, sigma=sigma, gamma=gamma, delay=delay,
                         random_state=random_state)


class BinaryRanker(MeanRanker):
    """MeanRanker that declares binary tasks only."""

    tasks = ("binary",)


class FailingRanker(MeanRanker):
    """Raises in ``fit``."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> FailingRanker:
        raise ValueError("deliberate failure in fit")


class TooBigRanker(MeanRanker):
    """Raises ResourceLimitError in ``fit``, as a solver over its memory budget does."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> TooBigRanker:
        raise ResourceLimitError("needs 99 GB of memory, above max_memory_gb = 1")


class CrashingRanker(MeanRanker):
    """Kills its own process in ``fit``, as the kernel's out-of-memory killer would."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> CrashingRanker:
        os.kill(os.getpid(), signal.SIGKILL)
        return self


class RankOnly(BaseEstimator):
    """A ranker with ``decision_function`` but no ``predict``."""

    tasks = ("binary", "ordinal")

    def __init__(self, lam: float = 1.0) -> None:
        self.lam = lam

    def fit(self, X: np.ndarray, y: np.ndarray) -> RankOnly:
        self.inner_ = MeanRanker(lam=self.lam, random_state=0).fit(X, y)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return self.inner_.decision_function(X)


TEST_SOLVERS = {
    "mean_ranker": "runner_solvers:MeanRanker",
    "slow_ranker": "runner_solvers:SlowRanker",
    "binary_ranker": "runner_solvers:BinaryRanker",
    "failing_ranker": "runner_solvers:FailingRanker",
    "too_big_ranker": "runner_solvers:TooBigRanker",
    "crashing_ranker": "runner_solvers:CrashingRanker",
    "rank_only": "runner_solvers:RankOnly",
}


def register(monkeypatch: Any | None = None) -> None:
    """Add the test solvers to the registry (undone after the test when given ``monkeypatch``)."""
    from ordauc import solvers

    for name, target in TEST_SOLVERS.items():
        if monkeypatch is None:
            solvers._REGISTRY[name] = target
        else:
            monkeypatch.setitem(solvers._REGISTRY, name, target)


def read_fit_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The lines of a fit log as dicts."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        fields = [line.split() for line in handle if line.strip()]
    return [{"name": f[0], "pid": int(f[1]), "random_state": f[2], "n_rows": int(f[3]),
             "digest": f[4]} for f in fields]


def _log(estimator: BaseEstimator, X: np.ndarray, y: np.ndarray) -> None:
    path = os.environ.get(FIT_LOG)
    if not path:
        return
    digest = hashlib.sha1(np.ascontiguousarray(X).tobytes() + np.asarray(y).tobytes())
    state = getattr(estimator, "random_state", None)
    line = (f"{type(estimator).__name__} {os.getpid()} {state} {len(y)} "
            f"{digest.hexdigest()[:16]}\n")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


if __name__ == "__main__":
    register()
    from ordauc.cli import main

    main(sys.argv[1:])
