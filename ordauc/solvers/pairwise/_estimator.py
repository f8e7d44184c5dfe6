"""What the six pairwise estimators share: input, the positive/negative split, the checkpoint
loop, the iterate a checkpoint sees, scoring, and the constructor of the lambda-parametrised ones.

Data stay in their layout end to end: a dense input becomes one C-ordered float64 matrix per
class; a CSR input (LIBSVM files; sector has 55,197 features) one canonical CSR matrix per class
(float64 values, int64 indices, so the compiled loops have one type per layout and compile
once). Rows labeled -1 (unlabeled) are dropped: these solvers are supervised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from ordauc.solvers._base import (
    Checkpoint,
    OrdaucEstimator,
    SolverMeta,
    count,
    positive,
    seed,
    warm_fit,
)
from ordauc.solvers._labels import split_labels
from ordauc.solvers.pairwise.objective import dual_objective, primal_objective
from ordauc.solvers.pairwise.order import root_key

# The run's parameters, common to all six: how long it runs and the seed of its random order.
RUN_CONSTRAINTS: dict = {"n_iter": [count(), None], "random_state": [seed(), None]}

# Without a checkpoint the loop still returns to Python this often (a few tenths of a second
# of work), so an interrupt is seen and no single call runs unbounded.
_BUDGET_WITHOUT_CHECKPOINT = 1 << 24


@dataclass
class PairData:
    """The training rows of each class, in the layout the compiled loops take.

    ``pos``/``neg`` are C-ordered (n, d) float64 arrays, or CSR tuples
    ``(data, indices, indptr, squared row norms)``; ``X_pos``/``X_neg`` the same rows as
    matrices for scoring.
    """

    X_pos: np.ndarray | sp.csr_matrix
    X_neg: np.ndarray | sp.csr_matrix
    pos: np.ndarray | tuple = field(init=False)
    neg: np.ndarray | tuple = field(init=False)

    def __post_init__(self) -> None:
        self.pos = _rows(self.X_pos)
        self.neg = _rows(self.X_neg)

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X_pos)

    @property
    def n_pos(self) -> int:
        return int(self.X_pos.shape[0])

    @property
    def n_neg(self) -> int:
        return int(self.X_neg.shape[0])

    @property
    def n_pairs(self) -> int:
        return self.n_pos * self.n_neg

    @property
    def n_features(self) -> int:
        return int(self.X_pos.shape[1])

    def scores(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _scores(self.X_pos, w), _scores(self.X_neg, w)


def _rows(M: np.ndarray | sp.csr_matrix) -> np.ndarray | tuple:
    if sp.issparse(M):
        return (np.ascontiguousarray(M.data, dtype=np.float64),
                np.ascontiguousarray(M.indices, dtype=np.int64),
                np.ascontiguousarray(M.indptr, dtype=np.int64),
                np.asarray(M.multiply(M).sum(axis=1), dtype=np.float64).ravel())
    return M


def _scores(X: Any, w: np.ndarray) -> np.ndarray:
    return np.asarray(X @ w, dtype=np.float64).ravel()


def split_classes(X: np.ndarray | sp.csr_matrix, y: np.ndarray) -> tuple[PairData, np.ndarray]:
    """The labeled rows of each class (the larger label positive) and the two labels."""
    labels = split_labels(y, "binary")
    pos_rows = labels.labeled[labels.z == 2]
    neg_rows = labels.labeled[labels.z == 1]
    if sp.issparse(X):
        X_pos, X_neg = X[pos_rows].tocsr(), X[neg_rows].tocsr()
        for M in (X_pos, X_neg):
            M.sum_duplicates()  # canonical rows: unique, sorted column indices
    else:
        X_pos = np.ascontiguousarray(X[pos_rows], dtype=np.float64)
        X_neg = np.ascontiguousarray(X[neg_rows], dtype=np.float64)
    return PairData(X_pos, X_neg), labels.classes


class PairIterate:
    """What a checkpoint receives: the current w = ``scale`` * ``v``, scoring and objectives.

    It reads the solver's live arrays and copies nothing when made, so everything is computed
    in the methods, inside the checkpoint's call (whose time the caller leaves out of the fit
    time); it is valid during that call only. ``objective()`` is the primal P(w) of AUC-DCD
    Eq. (3) with this fit's lambda on the training pairs; ``dual_objective()`` is D(alpha) of
    Eq. (4), for the solvers that keep the dual variables (``has_dual``).
    """

    def __init__(self, v: np.ndarray, lam: float, data: PairData,
                 alpha: np.ndarray | None = None, scale: float = 1.0) -> None:
        self._v = v
        self._scale = scale
        self.lam = lam
        self._data = data
        self._alpha = alpha
        self.has_dual = alpha is not None and alpha.size > 0

    @property
    def coef(self) -> np.ndarray:
        """The current w (the solver's own array when ``scale`` is 1: read, do not keep)."""
        return self._v if self._scale == 1.0 else self._v * self._scale

    def decision_function(self, X: Any) -> np.ndarray:
        X = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        return _scores(X, self.coef)

    def objective(self) -> float:
        w = self.coef
        return primal_objective(w, *self._data.scores(w), self.lam)

    def dual_objective(self) -> float:
        if not self.has_dual:
            raise AttributeError("this solver keeps no dual variables")
        return dual_objective(self.coef, self._alpha, self.lam)

    def dual_coef(self) -> np.ndarray:
        """A copy of the dual variables, shape (n+, n-)."""
        if not self.has_dual:
            raise AttributeError("this solver keeps no dual variables")
        return self._alpha.reshape(self._data.n_pos, self._data.n_neg).copy()


def run_checkpointed(step: Callable[[int], int], checkpoint: Checkpoint | None,
                     iterate: Callable[[], PairIterate]) -> int:
    """Run ``step(budget)`` (a compiled loop doing at most ``budget`` units of work, returning
    how many it did) in chunks of ``checkpoint.every`` and call the checkpoint after each full
    chunk, with the iteration count; stop when a chunk comes back short. A checkpoint with an
    ``until`` attribute is not called after that iteration: the rest runs in long chunks, free
    of the return to Python every ``every`` units. Returns the units done."""
    every = _BUDGET_WITHOUT_CHECKPOINT if checkpoint is None else max(1, int(checkpoint.every))
    until = getattr(checkpoint, "until", None)
    done = 0
    while True:
        got = step(every)
        done += got
        if got < every:
            return done
        if checkpoint is not None:
            checkpoint(done, iterate())
            if until is not None and done >= until:
                checkpoint, every = None, _BUDGET_WITHOUT_CHECKPOINT


def fit_seed(random_state: int | None) -> np.uint64:
    """The 64-bit key of one fit: from ``random_state``, or fresh entropy when None."""
    seed = np.random.SeedSequence().entropy if random_state is None else int(random_state)
    return root_key(int(seed) % (1 << 63))


class PairwiseEstimator(OrdaucEstimator):
    """Shared fit input, scoring and tags; subclasses define ``_solve``.

    The constructor is that of the AUC-DCD paper's four methods (AUC-SDCD, AUC-SDCDperm,
    AUC-MSGD, OAMinf), which all take its lambda; OAMseq and OAMgra, parametrised by OAM's C
    instead, declare their own. Each subclass documents what its parameters mean for it.

    Parameters
    ----------
    lam : float, default=1e-2
        The AUC-DCD paper's lambda, the weight of lam/2 ||w||^2 (Eq. 3).
    n_iter : int or None, default=None
        The run length, in the subclass's unit (pair updates, epochs or passes); None is the
        AUC-DCD paper's Table 2 budget.
    random_state : int or None, default=None
        Seed of the run's random pair order (:mod:`ordauc.solvers.pairwise.order`); None draws
        a fresh seed.
    """

    meta: ClassVar[SolverMeta]
    _parameter_constraints: ClassVar[dict] = {"lam": [positive()], **RUN_CONSTRAINTS}
    _binary_only = True
    _check_params: ClassVar[dict] = {"random_state": 0}

    def __init__(self, lam: float = 1e-2, n_iter: int | None = None,
                 random_state: int | None = None) -> None:
        self.lam = lam
        self.n_iter = n_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any, checkpoint: Checkpoint | None = None) -> PairwiseEstimator:
        """Fit w on the labeled rows of X (y == -1 marks an unlabeled row, ignored).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows; CSR input stays sparse.
        y : array-like of shape (n_samples,)
            Two labels (the larger one positive), -1 for an unlabeled row.
        checkpoint : Checkpoint or None, default=None
            Called every ``checkpoint.every`` iterations with the current iterate
            (:class:`PairIterate`); what an iteration is is stated in the class.

        Returns
        -------
        self : PairwiseEstimator
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             y_numeric=True, ensure_min_samples=2)
        data, classes = split_classes(X, y)
        self.classes_ = classes
        self.coef_, self.n_updates_, self.n_iter_ = self._solve(data, fit_seed(self.random_state),
                                                                checkpoint)
        return self

    def _solve(self, data: PairData, key: np.uint64, checkpoint: Checkpoint | None
               ) -> tuple[np.ndarray, int, int]:
        """(w, pair updates done, iterations in the unit of ``n_iter``)."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load the compiled pair loops (numba) by a fit on a tiny problem: a cell forked
        afterwards starts in 1 ms instead of 0.4 s."""
        warm_fit(self)

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        """A linear model: one dot product per row, n_eval d."""
        return float(n_eval) * n_features

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores X @ w, shape (n,)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=np.float64)
        return _scores(X, self.coef_)


def data_bytes(n_samples: int, n_features: int) -> int:
    """The validated float64 copy of X and the per-class copy of its labeled rows, at the dense
    size: a bound for CSR input too unless it is denser than about one half (a stored value
    costs 16 bytes here, 8 for the value and 8 for its int64 column index)."""
    return 2 * 8 * int(n_samples) * int(n_features)


def max_pairs(n_samples: int) -> int:
    """n+ n- <= floor(n/2) ceil(n/2): the class sizes are unknown before the labels are read,
    so memory estimates take the balanced worst case."""
    n = int(n_samples)
    return (n // 2) * (n - n // 2)
