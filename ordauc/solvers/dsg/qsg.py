"""QSG-S2AUC (Shi et al., IJCAI 2019) and QS3ORAO (Shi et al., AAAI 2020): one engine.

Both minimise L(f) = lam/2 ||f||_H^2 + 1/(k-1) sum_j R_PNU^j(f) (AAAI 2020 Eq. 9; IJCAI 2019
Eq. 9 is k = 2) over ONE ranking function f(x) = sum_i alpha_i^T phi_{omega_i}(x), one block of
random Fourier features per iteration (see :mod:`ordauc.solvers.dsg.random_features`). Iteration i
(AAAI 2020 Algorithm 1, IJCAI 2019 Algorithm 1):

1. for every subproblem j, sample a mini-batch from P_j = {labeled y > j} and from
   N_j = {labeled y <= j}; sample one mini-batch from U, shared by all j (the AAAI paper's
   "sample a batch ... and then conduct the data of k-1 subproblems");
2. evaluate f at the sampled points with blocks 1..i-1;
3. alpha_i = -eta_i/(k-1) sum_j [gamma_j (l1 phi(x_p) + l2 phi(x_n))
   + (1-gamma_j)(l3 phi(x_p) + l4 phi(x_u) + l5 phi(x_u) + l6 phi(x_n))], the derivatives of
   l(u, v) = (1 - u + v)^2 averaged over all pairs inside the batches. l5 goes with phi(x_u)
   and l6 with phi(x_n), as in the gradient (AAAI Eq. 10); the AAAI paper's Eq. (13) and
   Algorithm 1 line 11 swap them, a typo;
4. alpha_m <- (1 - eta_i lam) alpha_m for m < i.

The iterates are those of Algorithm 1, computed without waste (:mod:`ordauc.solvers.dsg.engine`):
f on the (small) labeled set is kept current incrementally, one new block per iteration; f at
the sampled unlabeled points is either evaluated against the old blocks or, when that costs more
in all, kept current on the whole unlabeled pool, which also gives the transductive scores
``unlabeled_scores_``; the shrink of step 4 is one global scale factor; features are float32 and
sums float64; blocks are cached under ``cache_mb`` and drawn again beyond it; old blocks are
evaluated in amplitude-phase form, one cosine per frequency
(:class:`~ordauc.solvers.dsg.random_features.PackedCoef`), an exact identity. ``fit_grid`` fits
many grid points in one pass (:mod:`ordauc.solvers.dsg.grid`).

Choices the papers leave open, all parameters here:

- step size: ``inverse`` is the theory's eta_t = theta/t with theta*lam in (1, 2) (Lemma 3); the
  default theta is 1.5/lam. Early steps theta/t are far beyond the stable range of the squared
  loss (curvature up to 4 per pair set, 8 in total), so t is offset, eta_t = theta/(t + t0), with
  t0 chosen so that eta_1 <= 1/4 unless given (``t0=0`` is the papers' literal schedule).
  ``dsg`` is the DSG authors' eta_t = theta/(1 + theta_decay * t).
- mini-batches of ``batch_size`` from each of P_j, N_j and U, drawn uniformly with replacement;
  ``block_size`` frequencies per block;
- the thresholds: all-threshold fit on the labeled points (:mod:`ordauc.solvers.thresholds`),
  also for k = 2, which gives QSG-S2AUC a ``predict``.

A fit whose scores leave every range a minimiser can lie in stops with
:class:`~ordauc.errors.DivergenceError` naming the schedule, instead of returning an exploded or
NaN model: the minimiser f* of L satisfies lam/2 ||f*||^2 <= L(f*) <= L(0) <= 3/2, so
|f*(x)| <= ||f*||_H <= sqrt(3/lam); iterates beyond 10^4 times that bound have diverged (the
papers' literal schedule ``t0=0`` does this within tens of iterations).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from sklearn.base import clone

from ordauc.solvers._base import (
    Checkpoint,
    GammaWeights,
    OrdaucEstimator,
    SolverMeta,
    StrOptions,
    count,
    nonnegative,
    positive,
    seed,
)
from ordauc.solvers._labels import LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.dsg import grid
from ordauc.solvers.dsg.engine import (
    STEP_RULES,
    pair_coefficients,
    pool_start,
    resolve_steps,
    run_one,
    step_size,
)
from ordauc.solvers.dsg.gridpoints import GridData, GridFit
from ordauc.solvers.dsg.random_features import FeatureBlocks
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

__all__ = ["QS3ORAO", "QSGS2AUC", "STEP_RULES", "pair_coefficients", "resolve_steps",
           "step_size"]


class _QSGBase(GridFit, ThresholdLabels, OrdaucEstimator):
    """Shared engine; subclasses fix the task."""

    meta: SolverMeta
    _task = "ordinal"
    # When f is kept on the whole unlabeled pool (engine.pool_start): "auto", "off" (the
    # batch evaluated against every block at every iteration), or an iteration number.
    _pool_rule: ClassVar[str | int] = "auto"
    # The compiled float32 cosine (dsg.trig) for f at the unlabeled points during training;
    # False: numpy's (with _pool_rule = "off", the engine as it was before either).
    _fast_trig: ClassVar[bool] = True
    _grid_shared = grid.SHARED
    _parameter_constraints: dict = {
        "lam": [positive()],
        "sigma": [positive()],
        "gamma": [GammaWeights()],
        "n_iter": [count()],
        "batch_size": [count()],
        "block_size": [count()],
        "step": [StrOptions(set(STEP_RULES))],
        "theta": [positive(), None],
        "t0": [nonnegative(), None],
        "theta_decay": [nonnegative()],
        "feature_map": [StrOptions({"cos_sin", "cos_phase"})],
        "cache_mb": [nonnegative()],
        "track_kernel": ["boolean"],
        "random_state": [seed(), None],
    }

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, gamma: float | list[float] = 0.5,
                 n_iter: int = 1000, batch_size: int = 64, block_size: int = 64,
                 step: str = "inverse", theta: float | None = None, t0: float | None = None,
                 theta_decay: float = 1e-4, feature_map: str = "cos_sin", cache_mb: float = 256,
                 track_kernel: bool = False, random_state: int | None = None) -> None:
        self.lam = lam
        self.sigma = sigma
        self.gamma = gamma
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.block_size = block_size
        self.step = step
        self.theta = theta
        self.t0 = t0
        self.theta_decay = theta_decay
        self.feature_map = feature_map
        self.cache_mb = cache_mb
        self.track_kernel = track_kernel
        self.random_state = random_state


    # -- fitting ---------------------------------------------------------------------------
    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Peak bytes of one fit: the float32 copy of X, the float64 coefficients and their
        float32 packed copy, the block cache (at most ``cache_mb``), scratch buffers, and the
        unlabeled pool when it is kept (its rows in float32 and f in float64; every row counted
        as unlabeled, the worst case)."""
        T, m, d = int(self.n_iter), int(self.block_size), int(n_features)
        width = m if self.feature_map == "cos_phase" else 2 * m
        cache = min(float(self.cache_mb) * (1 << 20), 4.0 * T * m * (d + 2))
        scratch = 16 << 20  # evaluation chunks, per-iteration features
        pooled = pool_start(n_samples, int(self.batch_size), T, self._pool_rule) <= T
        pool = (4 * (d + 1) + 8) * n_samples if pooled else 0
        return int(4 * n_samples * d + 8 * T * width + 8 * T * m + cache + scratch + pool)

    def fit(self, X: np.ndarray, y: np.ndarray, checkpoint: Checkpoint | None = None
            ) -> _QSGBase:
        """Run Algorithm 1 for ``n_iter`` iterations; ``y == -1`` marks unlabeled rows.

        ``checkpoint`` (optional) is called every ``checkpoint.every`` iterations with the
        current iterate f_t (:class:`~ordauc.solvers._base.Checkpoint`).
        """
        self._validate_params()
        X, y = fit_input(self, X, y, np.float32)
        labels = split_labels(y, self._task)
        self.n_classes_ = labels.n_classes
        self.seed_ = _seed(self.random_state)
        self.theta_, self.t0_ = resolve_steps(self.step, self.lam, self.theta, self.t0,
                                              self.theta_decay)
        self.blocks_ = FeatureBlocks(self.seed_, X.shape[1], self.block_size, self.sigma,
                                     self.feature_map, int(self.cache_mb * (1 << 20)))
        self._run(X, labels, checkpoint)
        # The thresholds are fitted on the scores predict will compute (the float32 evaluation),
        # not on the float64 running f of the iterations: predict on the labeled rows then
        # places them exactly as the fit did.
        f_l = self.blocks_.evaluate(X[labels.labeled], self.coef_, self.scale_)
        self.thresholds_ = fit_thresholds(f_l, labels.z, labels.n_classes)
        self.classes_ = labels.classes
        return self

    def _run(self, X: np.ndarray, labels: LabeledSplit, checkpoint: Checkpoint | None) -> None:
        run_one(self, X, labels, checkpoint, self._pool_rule, self._fast_trig)

    def _diverged(self, t: int, f: np.ndarray, bound: float) -> str:
        top = float(np.nanmax(np.abs(f))) if np.isfinite(f).any() else math.nan
        size = "NaN" if not np.isfinite(f).all() else f"|f| = {top:.3g}"
        if self.step == "dsg":
            rule = (f"eta_t = theta/(1 + theta_decay t) with theta = {self.theta_:g}, "
                    f"theta_decay = {self.theta_decay:g}")
        else:
            rule = f"eta_t = theta/(t + t0) with theta = {self.theta_:g}, t0 = {self.t0_:g}"
        return (f"{type(self).__name__} diverged at iteration {t} ({size} on the labeled rows, "
                f"beyond 1e4 sqrt(3/lam) = {bound:.3g}): the step size {rule} is too large for "
                "the squared pairwise loss; leave t0 unset (the stable offset) or lower theta")

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Ranking scores f(x) (n,), float64; evaluated in chunks of bounded memory."""
        X = predict_input(self, X, np.float32)
        return self.blocks_.evaluate(X, self.coef_, self.scale_)

    # -- many grid points at once (gridpoints.GridFit; the pass is dsg.grid) --------------------
    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, np.float32)
        return GridData(X, y, split_labels(y, self._task), validated)

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict | None) -> list[Any]:
        if len(models) == 1:  # nothing to share: the single-model engine
            try:
                return [models[0].fit(data.X, data.y)]
            except Exception as exc:  # the point's own failure, returned in its place
                return [exc]
        return grid.fit_pass(models, data, grid.group_seed(models[0].random_state))

    def _grid_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                    models: list[Any]) -> tuple[int, int, int]:
        supervised = all(np.all(np.asarray(e.gamma, dtype=float) == 1.0) for e in models)
        return grid.pass_bytes(models[0], n_samples, n_features, n_unlabeled, len(models),
                               supervised)

    def _grid_data_bytes(self, n_samples: int, n_features: int) -> int:
        return 4 * n_samples * n_features  # the float32 copy


def _seed(random_state: int | None) -> int:
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    if isinstance(random_state, (int, np.integer)) and random_state >= 0:
        return int(random_state)
    raise ValueError(f"random_state must be None or a non-negative int, got {random_state!r}")


_DOC = """

    Parameters
    ----------
    lam : regularisation weight lambda of L(f).
    sigma : kernel width in exp(-sigma ||x - x'||^2) (frequencies ~ N(0, 2 sigma I)).
    gamma : weight of R_PN against R_PU + R_NU - 1/2; a list gives one gamma_j per subproblem.
    n_iter, batch_size, block_size : iterations T, mini-batch size, frequencies per block.
    step, theta, t0, theta_decay : the step-size schedule (module docstring).
    feature_map : ``cos_sin`` (the papers) or ``cos_phase``.
    cache_mb : memory for cached blocks; beyond it blocks are drawn again (same model).
    track_kernel : also keep the exact-kernel coefficients of the iterates (``kernel_coef_``).
    random_state : run seed: samples and blocks (None: a fresh seed).

    Attributes
    ----------
    coef_ : (n_iter, width) block coefficients; f(x) = norm * scale_ * sum_i F_i(x) . coef_[i].
    scale_ : the global shrink factor.  blocks_ : the feature blocks.  seed_ : the seed used.
    theta_, t0_ : the schedule used.  thresholds_ : (k-1,) all-threshold fit.
    unlabeled_scores_ : f on the unlabeled training rows (float64, in their row order), kept
        for free when the fit kept f on the whole pool (:mod:`ordauc.solvers.dsg.engine`: when
        2 n_u <= batch_size (n_iter - 1), for gamma < 1); None otherwise. Equal to
        ``decision_function`` on those rows up to float32 rounding: the transductive scores.

    ``fit_grid(X, y, points)`` fits many (lam, gamma, schedule) points in one pass per sigma
    and seed (:mod:`ordauc.solvers.dsg.grid`, :mod:`ordauc.solvers.dsg.gridpoints`).
    """


class QSGS2AUC(_QSGBase):
    __doc__ = ("QSG-S2AUC: quadruply stochastic semi-supervised AUC optimisation (IJCAI 2019, "
               "Alg. 1)." + _DOC)

    meta = SolverMeta(display="QSG-S2AUC", family="dsg", tasks=("binary",),
                      uses_unlabeled=True, iterative=True, proposed=True)
    _task = "binary"
    _binary_only = True



class QS3ORAO(_QSGBase):
    __doc__ = ("QS3ORAO: quadruply stochastic semi-supervised ordinal AUC optimisation "
               "(AAAI 2020)." + _DOC)

    meta = SolverMeta(display="QS3ORAO", family="dsg", tasks=("ordinal",),
                      uses_unlabeled=True, iterative=True, proposed=True)
    _task = "ordinal"
