"""QSG-S2AUC (Shi et al., IJCAI 2019) and QS3ORAO (Shi et al., AAAI 2020): one engine.

Both minimise L(f) = lam/2 ||f||_H^2 + 1/(k-1) sum_j R_PNU^j(f) (AAAI 2020 Eq. 9; IJCAI 2019
Eq. 9 is k = 2) over ONE ranking function f(x) = sum_i alpha_i^T phi_{omega_i}(x), one block of
random Fourier features per iteration (see :mod:`ordauc.solvers.dsg.random_features`). Iteration i
(AAAI 2020 Algorithm 1, IJCAI 2019 Algorithm 1; docs/algorithms.md, section 2):

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
``unlabeled_scores_`` (:mod:`ordauc.solvers.dsg.unlabeled`); the shrink of step 4 is one global
scale factor; features are float32 and sums float64; blocks are cached under ``cache_mb`` and
drawn again beyond it; a lone model is evaluated in amplitude-phase form, one cosine per
frequency (:class:`~ordauc.solvers.dsg.random_features.PackedCoef`), an exact identity.
``fit`` is a pass of one model; ``fit_grid`` fits the many (lam, gamma, schedule) points of a
(sigma, seed) in one pass of the same engine.

Choices the papers leave open, all parameters here:

- step size: ``inverse`` is the theory's eta_t = theta/t with theta*lam in (1, 2) (Lemma 3); the
  default theta is 1.5/lam. Early steps theta/t are far beyond the stable range of the squared
  loss (curvature up to 4 per pair set, 8 in total), so t is offset, eta_t = theta/(t + t0), with
  t0 chosen so that eta_1 <= 1/4 unless given (``t0=0`` is the papers' literal schedule).
  ``dsg`` is the DSG authors' eta_t = theta/(1 + theta_decay * t)
  (:mod:`ordauc.solvers.dsg.schedule`).
- mini-batches of ``batch_size`` from each of P_j, N_j and U, drawn uniformly with replacement;
  ``block_size`` frequencies per block;
- the thresholds: all-threshold fit on the labeled points (:mod:`ordauc.solvers.thresholds`),
  also for k = 2, which gives QSG-S2AUC a ``predict``; for a lone fit, fitted on the scores
  ``predict`` computes (the float32 evaluation), not on the float64 running f of the
  iterations, so that ``predict`` on the labeled rows places them exactly as the fit did. A
  model of a grid pass of several takes them from the pass's running f on the labeled rows
  (equal up to float32 rounding): a full evaluation of every candidate of a grid search would
  cost more than the pass itself at d = 1,000, and the thresholds are cheap once f is known
  (a sort of the labeled scores), so they stay eager.

A grid pass given validation rows to track (``GridData.track``, a cross-validation fold's held
out rows) keeps f current on them as on the labeled rows, for all its models at once, and sets
``tracked_decision_`` on each: what ``decision_function`` would give on those rows, up to
float32 rounding, without evaluating any model again (:class:`~.engine.Pass`). The folds of a
cross-validation run their passes in lockstep, sharing the blocks and the unlabeled pool's
features, each fold's models bitwise those of its pass alone (:mod:`.folds`, :mod:`.grid`).

A fit whose scores leave every range a minimiser can lie in stops with
:class:`~ordauc.errors.DivergenceError` naming the schedule, instead of returning an exploded or
NaN model: the minimiser f* of L satisfies lam/2 ||f*||^2 <= L(f*) <= L(0) <= 3/2, so
|f*(x)| <= ||f*||_H <= sqrt(3/lam); iterates beyond 10^4 times that bound have diverged (the
papers' literal schedule ``t0=0`` does this within tens of iterations).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context

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
    spec_values,
    warm_fit,
)
from ordauc.solvers._labels import LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.dsg import trig
from ordauc.solvers.dsg.engine import (
    Divergence,
    EngineOptions,
    ModelSpec,
    PassSettings,
    QSGResult,
    run_pass,
)
from ordauc.solvers.dsg.grid import QSGGridFit
from ordauc.solvers.dsg.schedule import STEP_RULES, Schedule, run_seed
from ordauc.solvers.dsg.unlabeled import pool_start
from ordauc.solvers.objective import labeled_pairs_only
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

__all__ = ["QS3ORAO", "QSGS2AUC"]


class _QSGBase(QSGGridFit, ThresholdLabels, OrdaucEstimator):
    """Shared estimator; subclasses fix the task."""

    meta: SolverMeta
    _task = "ordinal"
    # How the engine computes the iterates (the same iterates whatever the options, to float32
    # rounding); a subclass may set other options, e.g. to time the engine without the pool.
    engine_options: ClassVar[EngineOptions] = EngineOptions()
    _check_params: ClassVar[dict[str, Any]] = {"n_iter": 20, "batch_size": 8, "block_size": 8,
                                               "random_state": 0}
    # Scores are sums of float32 cosines (in float64 across chunks): a row's last float32 bits
    # can depend on its position in a chunk, as BLAS kernels treat edge rows differently, and
    # these two checks compare at float64's 1e-7.
    _known_check_failures: ClassVar[dict[str, str]] = {
        "check_methods_sample_order_invariance":
            "float32 scores: row order may change the last bits",
        "check_methods_subset_invariance":
            "float32 scores: batch boundaries may change the last bits",
    }
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

    @classmethod
    def reads_unlabeled(cls, params: dict[str, Any], grid: dict[str, list[Any]]) -> bool:
        """False when every gamma the spec can take is 1 for every subproblem (the default is
        0.5): the U terms then weigh 1 - gamma = 0 and the engine draws no U batch, so the
        batches, the blocks and hence the model are the same with or without the unlabeled
        rows (the labeled rows in the same order). Such a spec is run as a supervised one."""
        return not labeled_pairs_only(spec_values(cls, "gamma", params, grid))

    # -- fitting ---------------------------------------------------------------------------
    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """Each of the n_iter iterations draws a block of random features (block d per row)
        for its batches (c batch rows, c = 32 measured on the engine) and keeps f current on
        the unlabeled rows it evaluates: every row while that is cheaper, else the batch
        against every earlier block (t batch per iteration, the papers' O(D t^2)):
        n_iter block d (c batch + min(n, n_iter batch / 2))."""
        t, batch = float(self.n_iter), int(self.batch_size)
        rows = min(float(n_samples), t * batch / 2)
        return t * int(self.block_size) * n_features * (32 * batch + rows)

    def pass_cost(self, n_samples: int, n_features: int, n_unlabeled: int
                  ) -> tuple[float, float]:
        """(shared, per-model) work of a grid pass, for the dry run's estimate: the blocks'
        features of the sampled rows, computed once for every model, grow with d as a fit
        does (:meth:`fit_cost`); what each model adds (its steps, its f on those rows against
        the block) does not: the same without the factor d."""
        shared = self.fit_cost(n_samples, n_features)
        return shared, shared / max(int(n_features), 1)

    def cv_shared_cost(self, n_samples: int, n_features: int, n_unlabeled: int, n_folds: int
                       ) -> tuple[float, float] | None:
        """(once, per fold) shared work of a cross-validation whose folds run in lockstep
        (:mod:`.folds`), for the dry run's estimate: the pool's features against every block
        once for all the folds (n_iter block d n_u); per fold, the rest of a pass's shared
        part (its batches' and labeled rows' features). None when the pool is not kept (the
        folds' U batches differ: nothing large is shared)."""
        t, batch = int(self.n_iter), int(self.batch_size)
        n_u = int(min(n_unlabeled, n_samples))
        if pool_start(n_u, batch, t, self.engine_options.pool) > t:
            return None
        shared, _ = self.pass_cost(n_samples, n_features, n_unlabeled)
        once = float(t) * int(self.block_size) * n_features * n_u
        return once, max(shared - once, 0.0)

    def warm_up(self) -> None:
        """Load the compiled trigonometric loops (numba) by a fit on a tiny problem: a cell
        forked afterwards does not pay for them again (about 0.4 s), and the choice between the
        compiled cosine and numpy's made (:func:`.trig.compiled_wins`), which times both."""
        warm_fit(self)
        trig.compiled_wins("cos")

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        """Every row against the n_iter blocks of random features: n_eval n_iter block d,
        whatever the training size."""
        return float(n_eval) * int(self.n_iter) * int(self.block_size) * n_features

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """Peak bytes of one fit, a pass of one model (:func:`~.engine.pass_bytes`) beside the
        float32 copy of X; every row counted as unlabeled, the worst case."""
        fixed, per_model, _ = self._grid_pass_bytes(n_samples, n_features, n_samples, [self])
        return int(self._grid_data_bytes(n_samples, n_features) + fixed + per_model)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: np.ndarray, y: np.ndarray, checkpoint: Checkpoint | None = None
            ) -> _QSGBase:
        """Run Algorithm 1 for ``n_iter`` iterations; ``y == -1`` marks unlabeled rows.

        ``checkpoint`` (optional) is called every ``checkpoint.every`` iterations with the
        current iterate f_t (:class:`~ordauc.solvers._base.Checkpoint`).
        """
        X, y = fit_input(self, X, y, np.float32)
        labels = split_labels(y, self._task)
        [result] = run_pass(X, labels, self._settings(), [self._spec()],
                            run_seed(self.random_state), self.engine_options, checkpoint)
        if isinstance(result, Divergence):
            raise result.error(type(self).__name__)
        return self._fitted(result, X, labels)

    def _settings(self) -> PassSettings:
        return PassSettings(int(self.n_iter), int(self.batch_size), int(self.block_size),
                            float(self.sigma), self.feature_map, float(self.cache_mb),
                            bool(self.track_kernel))

    def _spec(self) -> ModelSpec:
        return ModelSpec(float(self.lam), self.gamma,
                         Schedule.resolve(self.step, self.lam, self.theta, self.t0,
                                          self.theta_decay))

    def _fitted(self, result: QSGResult, X: np.ndarray, labels: LabeledSplit,
                shared: bool = False) -> _QSGBase:
        """The fitted attributes from the engine's result. The thresholds: from the scores
        ``predict`` computes on the labeled rows for a model fitted alone (module docstring);
        for a model of a pass of several (``shared``), from the pass's own f on those rows,
        equal to them up to float32 rounding, which spares every model a full evaluation."""
        self.blocks_, self.seed_ = result.blocks, result.blocks.seed
        self.coef_, self.scale_, self.n_iter_ = result.coef, result.scale, result.coef.shape[0]
        self.theta_, self.t0_ = result.schedule.theta, result.schedule.t0
        self.unlabeled_scores_ = result.unlabeled_scores
        if result.kernel_coef is not None:
            self.kernel_coef_ = result.kernel_coef
        if result.tracked_scores is not None:
            self.tracked_decision_ = result.tracked_scores
        else:  # never a stale one from an earlier fit of this estimator
            self.__dict__.pop("tracked_decision_", None)
        if shared and result.labeled_scores is not None:
            f_l = result.labeled_scores
        else:
            f_l = self.blocks_.evaluate(X[labels.labeled], self.coef_, self.scale_)
        self.thresholds_ = fit_thresholds(f_l, labels.z, labels.n_classes)
        self.n_classes_, self.classes_ = labels.n_classes, labels.classes
        return self

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Ranking scores f(x) (n,), float64; evaluated in chunks of bounded memory."""
        X = predict_input(self, X, np.float32)
        return self.blocks_.evaluate(X, self.coef_, self.scale_)

_DOC = """

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight lambda of L(f).
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - x'||^2) (frequencies ~ N(0, 2 sigma I)).
    gamma : float or list of float, default=0.5
        Weight of R_PN against R_PU + R_NU - 1/2; a list gives one gamma_j per subproblem.
    n_iter : int, default=1000
        Iterations T, one block each.
    batch_size : int, default=64
        Mini-batch size of each of P_j, N_j and U.
    block_size : int, default=64
        Frequencies per block.
    step : {"inverse", "dsg"}, default="inverse"
        The step-size rule (module docstring).
    theta : float, default=None
        Numerator of the step size (None: 1.5/lam for ``inverse``, 1 for ``dsg``).
    t0 : float, default=None
        Offset of ``inverse`` (None: the smallest with eta_1 <= 1/4; 0: the papers' literal
        schedule).
    theta_decay : float, default=1e-4
        Decay of ``dsg``.
    feature_map : {"cos_sin", "cos_phase"}, default="cos_sin"
        ``cos_sin`` (the papers) or ``cos_phase`` (Rahimi & Recht's cos(W x + b)).
    cache_mb : float, default=256
        Memory for cached blocks; beyond it blocks are drawn again (the same model).
    track_kernel : bool, default=False
        Also keep the exact-kernel coefficients of the iterates (``kernel_coef_``).
    random_state : int, default=None
        Run seed: samples and blocks (None: a fresh seed).

    Attributes
    ----------
    coef_ : ndarray of shape (n_iter, width)
        Block coefficients; f(x) = norm * scale_ * sum_i F_i(x) . coef_[i].
    scale_ : float
        The global shrink factor.
    blocks_ : FeatureBlocks
        The random-feature blocks.
    seed_ : int
        The seed used.
    n_iter_ : int
        Iterations run.
    theta_ : float
        The step-size numerator used.
    t0_ : float
        The step-size offset used.
    thresholds_ : ndarray of shape (n_classes - 1,)
        All-threshold fit on the labeled scores.
    classes_ : ndarray of shape (n_classes,)
        The labels of the classes, increasing.
    n_classes_ : int
        Number of classes k.
    unlabeled_scores_ : ndarray of shape (n_unlabeled,) or None
        f on the unlabeled training rows (float64, in their row order), kept for free when the
        fit kept f on the whole pool (when 2 n_u <= batch_size (n_iter - 1), for gamma < 1);
        None otherwise. Equal to ``decision_function`` on those rows up to float32 rounding:
        the transductive scores.
    kernel_coef_ : ndarray of shape (n_samples,)
        With ``track_kernel``: the iterate as sum_x beta_x k(x, .) over the training rows.
    tracked_decision_ : ndarray of shape (n_track,)
        Set by a grid pass given rows to track (``GridData.track``): f on those rows, float64,
        equal to ``decision_function`` on them up to float32 rounding (both are float32
        evaluations of the same f, in another order); absent otherwise.

    Notes
    -----
    ``fit_grid(X, y, points)`` fits many (lam, gamma, schedule) points in one pass per sigma
    and seed (:mod:`ordauc.solvers.dsg.engine`, :mod:`ordauc.solvers.gridfit`); each point's
    model equals its lone fit up to float32 rounding. The class attribute ``engine_options``
    (:class:`~ordauc.solvers.dsg.engine.EngineOptions`) chooses how the iterates are
    computed, never what they are.
    """


class QSGS2AUC(_QSGBase):
    __doc__ = ("QSG-S2AUC: quadruply stochastic semi-supervised AUC optimisation (IJCAI 2019, "
               "Alg. 1)." + _DOC)

    meta = SolverMeta(display="QSG-S2AUC", tasks=("binary",),
                      uses_unlabeled=True, iterative=True, proposed=True)
    _task = "binary"
    _binary_only = True


class QS3ORAO(_QSGBase):
    __doc__ = ("QS3ORAO: quadruply stochastic semi-supervised ordinal AUC optimisation "
               "(AAAI 2020)." + _DOC)

    meta = SolverMeta(display="QS3ORAO", tasks=("ordinal",),
                      uses_unlabeled=True, iterative=True, proposed=True)
    _task = "ordinal"
