"""Small estimators for the runner tests: fast, slow, raising, crashing, too big, label-only.

They follow the solver contract (y == -1 unlabeled, ``decision_function``, ``predict``,
``meta``, ``_parameter_constraints``, ``fit_memory_bytes``) without any kernel, so a whole study
runs in a second. ``register`` adds them to the
solver registry under the names in ``TEST_SOLVERS``. Setting ``ORDAUC_TEST_FIT_LOG`` to a file
path makes every ``fit`` append one line ``name pid random_state n_rows digest rows_digest`` to
it, which lets tests count fits and compare the data each solver saw, across processes
(``digest`` depends on the order of the rows, ``rows_digest`` (:func:`rows_digest`) does not).

Run as a script, this module is ``ordauc`` with the test solvers registered:
``python tests/runner_solvers.py run CONFIG ...``.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import time
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from ordauc.errors import ResourceLimitError
from ordauc.solvers._base import SolverMeta, nonnegative, positive, seed
from ordauc.solvers.dsg.qsg import QSGS2AUC

FIT_LOG = "ORDAUC_TEST_FIT_LOG"


class MeanRanker(BaseEstimator):
    """Kernel-free ranker: the covariance of each feature with the label, plus seeded noise."""

    # Declared semi-supervised, so the runner hands it every training row (it reads only the
    # labeled ones) and the runner tests see whole splits; LabeledRanker is the supervised one.
    meta = SolverMeta(display="Mean ranker", tasks=("binary", "ordinal"),
                      uses_unlabeled=True)
    _parameter_constraints: dict = {
        "lam": [positive()], "sigma": [positive()],
        "gamma": [nonnegative()],
        "delay": [nonnegative()], "random_state": [seed(), None]}

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float = 0.5,
                 delay: float = 0.0, random_state: int | None = None) -> None:
        self.lam = lam
        self.sigma = sigma
        self.gamma = gamma
        self.delay = delay
        self.random_state = random_state

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        return 8 * n_samples * n_features

    def fit(self, X: np.ndarray, y: np.ndarray) -> MeanRanker:
        self._validate_params()
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

    meta = SolverMeta(display="Binary ranker", tasks=("binary",),
                      uses_unlabeled=True)


class BlockRanker(MeanRanker):
    """MeanRanker that allocates and touches a block of ``block_mb`` MB during its fit, so the
    peak memory column must show it."""

    _parameter_constraints: dict = {**MeanRanker._parameter_constraints,
                                    "block_mb": [nonnegative()]}

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float = 0.5,
                 delay: float = 0.0, random_state: int | None = None,
                 block_mb: float = 0.0) -> None:
        super().__init__(lam=lam, sigma=sigma, gamma=gamma, delay=delay,
                         random_state=random_state)
        self.block_mb = block_mb

    def fit(self, X: np.ndarray, y: np.ndarray) -> BlockRanker:
        block = np.ones(int(self.block_mb * (1 << 20)) // 8)  # every page written
        super().fit(X, y)
        self.block_sum_ = float(block[::4096].sum())
        return self


class LabeledRanker(MeanRanker):
    """MeanRanker declared supervised: the runner hands it the labeled rows alone and fits it
    once for every unlabeled budget of its labeled set."""

    meta = SolverMeta(display="Labeled ranker", tasks=("binary", "ordinal"),
                      uses_unlabeled=False)

    def fit(self, X: np.ndarray, y: np.ndarray) -> LabeledRanker:
        if (np.asarray(y) == -1).any():
            raise AssertionError("a supervised solver was handed unlabeled rows")
        return super().fit(X, y)


class HugeRanker(MeanRanker):
    """MeanRanker that states it needs 1 TB per fit: the memory guard must skip it unstarted."""

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        return 1 << 40

    def fit(self, X: np.ndarray, y: np.ndarray) -> HugeRanker:
        raise AssertionError("the memory guard should have skipped this cell")


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


class PickyRanker(MeanRanker):
    """MeanRanker whose fit raises for lam > 2: one failing point of a grid."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> PickyRanker:
        if self.lam > 2:
            raise ValueError(f"deliberate failure for lam = {self.lam}")
        return super().fit(X, y)


class WarningRanker(MeanRanker):
    """MeanRanker that warns it did not converge and reports ``n_iter_``, as iterative solvers
    do."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> WarningRanker:
        super().fit(X, y)
        warnings.warn("stopped after 7 iterations without converging", ConvergenceWarning,
                      stacklevel=2)
        self.n_iter_ = np.array([5, 7])  # per subproblem: the column holds the largest
        return self


class LabelOnly(BaseEstimator):
    """A classifier with ``predict`` but no ``decision_function`` (a label-only baseline)."""

    meta = MeanRanker.meta
    _parameter_constraints: dict = {"lam": [positive()]}

    def __init__(self, lam: float = 1.0) -> None:
        self.lam = lam

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        return 8 * n_samples * n_features

    def fit(self, X: np.ndarray, y: np.ndarray) -> LabelOnly:
        self.inner_ = MeanRanker(lam=self.lam, random_state=0).fit(X, y)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.inner_.predict(X)


class RankOnly(BaseEstimator):
    """A ranker with ``decision_function`` but no ``predict``."""

    meta = MeanRanker.meta
    _parameter_constraints: dict = {"lam": [positive()]}

    def __init__(self, lam: float = 1.0) -> None:
        self.lam = lam

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        return 8 * n_samples * n_features

    def fit(self, X: np.ndarray, y: np.ndarray) -> RankOnly:
        self.inner_ = MeanRanker(lam=self.lam, random_state=0).fit(X, y)
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return self.inner_.decision_function(X)


class LoggedQSG(QSGS2AUC):
    """QSG-S2AUC whose every lone ``fit`` is logged (the fit log above): counts the fits a
    run makes of a real semi-supervised solver, e.g. one configured not to read unlabeled
    rows."""

    def fit(self, X: Any, y: Any, checkpoint: Any = None) -> LoggedQSG:
        _log(self, X, y)
        return super().fit(X, y, checkpoint)


TEST_SOLVERS = {
    "mean_ranker": "runner_solvers:MeanRanker",
    "slow_ranker": "runner_solvers:SlowRanker",
    "binary_ranker": "runner_solvers:BinaryRanker",
    "failing_ranker": "runner_solvers:FailingRanker",
    "too_big_ranker": "runner_solvers:TooBigRanker",
    "huge_ranker": "runner_solvers:HugeRanker",
    "crashing_ranker": "runner_solvers:CrashingRanker",
    "rank_only": "runner_solvers:RankOnly",
    "picky_ranker": "runner_solvers:PickyRanker",
    "warning_ranker": "runner_solvers:WarningRanker",
    "label_only": "runner_solvers:LabelOnly",
    "labeled_ranker": "runner_solvers:LabeledRanker",
    "block_ranker": "runner_solvers:BlockRanker",
    "logged_qsg": "runner_solvers:LoggedQSG",
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
             "digest": f[4], "rows_digest": f[5]} for f in fields]


def rows_digest(X: Any) -> str:
    """A digest of the rows of ``X`` as float32, whatever their order (a set of rows)."""
    X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.float32)
    X = X.reshape(len(X), -1)
    ordered = X[np.lexsort(X.T[::-1])] if X.size else X
    return hashlib.sha1(np.ascontiguousarray(ordered).tobytes()).hexdigest()[:16]


def _log(estimator: BaseEstimator, X: np.ndarray, y: np.ndarray) -> None:
    path = os.environ.get(FIT_LOG)
    if not path:
        return
    digest = hashlib.sha1(np.ascontiguousarray(X).tobytes() + np.asarray(y).tobytes())
    state = getattr(estimator, "random_state", None)
    line = (f"{type(estimator).__name__} {os.getpid()} {state} {len(y)} "
            f"{digest.hexdigest()[:16]} {rows_digest(X)}\n")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


if __name__ == "__main__":
    register()
    from ordauc.cli import main

    main(sys.argv[1:])
