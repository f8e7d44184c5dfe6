"""QSG-S2AUC (Shi et al., IJCAI 2019) and QS3ORAO (Shi et al., AAAI 2020): one engine.

Both minimise L(f) = lam/2 ||f||_H^2 + 1/(k-1) sum_j R_PNU^j(f) (AAAI 2020 Eq. 9; IJCAI 2019
Eq. 9 is k = 2) over ONE ranking function f(x) = sum_i alpha_i^T phi_{omega_i}(x), one block of
random Fourier features per iteration (see :mod:`ordauc.solvers.random_features`). Iteration i
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

The iterates are those of Algorithm 1, computed without waste: f on the (small) labeled set is
kept current incrementally, one new block per iteration, so only the sampled unlabeled points
need the full sum over old blocks; the shrink of step 4 is one global scale factor; features are
float32 and sums float64; blocks are cached under ``cache_mb`` and drawn again beyond it; old
blocks are evaluated in amplitude-phase form, one cosine per frequency
(:class:`~ordauc.solvers.random_features.PackedCoef`), an exact identity.

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
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags, Tags

from ordauc.solvers._labels import LabeledSplit, draw_batches, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.objective import gamma_vector
from ordauc.solvers.random_features import FeatureBlocks, PackedCoef
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

STEP_RULES = ("inverse", "dsg")
_MAX_FIRST_STEP = 0.25  # 2 / (curvature bound 8 of the squared pairwise risks)
# Fold the global scale into the coefficients when it gets this small: coef/scale must stay
# far inside the float32 range of the packed copy (a fold costs one pass over the coefficients,
# and with eta_t ~ 1/t the scale only decays polynomially, so folds are rare).
_FOLD_BELOW = 1e-20


def resolve_steps(step: str, lam: float, theta: float | None, t0: float | None,
                  theta_decay: float) -> tuple[float, float]:
    """(theta, t0) of the schedule; ``eta_t = theta/(t + t0)`` or ``theta/(1 + decay*t)``."""
    if step not in STEP_RULES:
        raise ValueError(f"step must be one of {STEP_RULES}, got {step!r}")
    if step == "dsg":
        return (1.0 if theta is None else float(theta)), 0.0
    th = 1.5 / lam if theta is None else float(theta)
    off = max(0.0, math.ceil(th / _MAX_FIRST_STEP) - 1.0) if t0 is None else float(t0)
    return th, off


def step_size(t: int, step: str, theta: float, t0: float, theta_decay: float) -> float:
    """eta_t for iteration t = 1, 2, ..."""
    if step == "dsg":
        return theta / (1.0 + theta_decay * t)
    return theta / (t + t0)


class _QSGBase(ThresholdLabels, BaseEstimator):
    """Shared engine; subclasses fix the task."""

    tasks: tuple[str, ...] = ()
    _task = "ordinal"
    list_params = ("gamma",)  # one gamma_j per subproblem is allowed
    param_choices = {"step": STEP_RULES, "feature_map": ("cos_sin", "cos_phase")}

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

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    # -- fitting ---------------------------------------------------------------------------
    def fit(self, X: np.ndarray, y: np.ndarray) -> _QSGBase:
        """Run Algorithm 1 for ``n_iter`` iterations; ``y == -1`` marks unlabeled rows."""
        X, y = fit_input(self, X, y, np.float32)
        if self.lam <= 0 or self.n_iter < 1 or self.batch_size < 1 or self.block_size < 1:
            raise ValueError("lam must be > 0 and n_iter, batch_size, block_size >= 1")
        labels = split_labels(y, self._task)
        self.n_classes_ = labels.n_classes
        self.seed_ = _seed(self.random_state)
        self.theta_, self.t0_ = resolve_steps(self.step, self.lam, self.theta, self.t0,
                                              self.theta_decay)
        self.blocks_ = FeatureBlocks(self.seed_, X.shape[1], self.block_size, self.sigma,
                                     self.feature_map, int(self.cache_mb * (1 << 20)))
        self._run(X, labels)
        # The thresholds are fitted on the scores predict will compute (the float32 evaluation),
        # not on the float64 running f of the iterations: predict on the labeled rows then
        # places them exactly as the fit did.
        f_l = self.blocks_.evaluate(X[labels.labeled], self.coef_, self.scale_)
        self.thresholds_ = fit_thresholds(f_l, labels.z, labels.n_classes)
        self.classes_ = labels.classes
        return self

    def _run(self, X: np.ndarray, labels: LabeledSplit) -> None:
        k, b, T = labels.n_classes, int(self.batch_size), int(self.n_iter)
        blocks = self.blocks_
        gammas = gamma_vector(self.gamma, k)
        w_pn, w_u = gammas / (k - 1), (1.0 - gammas) / (k - 1)
        # With gamma_j = 1 for all j (or no unlabeled rows) U plays no part: draw no U batch.
        supervised = bool(np.all(w_u == 0.0)) or labels.unlabeled.size == 0
        n_l = labels.labeled.size
        # Rows that meet the new block each iteration: the labeled set, then the U batch.
        X_new = np.empty((n_l + (0 if supervised else b), X.shape[1]), dtype=np.float32)
        X_new[:n_l] = X[labels.labeled]
        X_u = X_new[n_l:]
        pools = labels.batch_pools(with_unlabeled=not supervised)
        rng = np.random.default_rng([self.seed_, 0])
        coef = np.zeros((T, blocks.width), dtype=np.float64)
        packed = PackedCoef(T, blocks.m, blocks.phase)  # float32 copy that evaluate reads
        f_l = np.zeros(n_l, dtype=np.float64)
        f_u = np.empty(X_u.shape[0], dtype=np.float64)
        F32 = np.empty((X_new.shape[0], blocks.width), dtype=np.float32)
        F = np.empty((X_new.shape[0], blocks.width), dtype=np.float64)
        c = np.empty(X_new.shape[0], dtype=np.float64)
        scale = 1.0
        beta = np.zeros(X.shape[0], dtype=np.float64) if self.track_kernel else None
        for t in range(1, T + 1):
            draws, u_rows = draw_batches(rng, pools, b)
            if u_rows is not None:
                np.take(X, u_rows, axis=0, out=X_u)
                blocks.evaluate(X_u, packed, scale, n_blocks=t - 1, out=f_u)
            pair_coefficients(f_l, f_u, draws, w_pn, w_u, out=c)
            np.copyto(F, blocks.features(X_new, t - 1, out=F32))
            eta = step_size(t, self.step, self.theta_, self.t0_, self.theta_decay)
            alpha = (-eta * blocks.norm) * (c @ F)
            rho = 1.0 - eta * self.lam
            if t > 1:
                scale *= rho
                if abs(scale) < _FOLD_BELOW:  # includes rho == 0: old terms vanish exactly
                    coef[: t - 1] *= scale
                    packed.load(coef[: t - 1])
                    if beta is not None:
                        beta *= scale
                    scale = 1.0
            coef[t - 1] = alpha / scale
            packed.load(coef[t - 1: t], start=t - 1)
            f_l *= rho
            f_l += blocks.norm * (F[:n_l] @ alpha)
            if beta is not None:
                beta[labels.labeled] -= eta * c[:n_l] / scale
                if u_rows is not None:
                    np.add.at(beta, u_rows, -eta * c[n_l:] / scale)
        self.coef_ = coef
        self.scale_ = scale
        self.n_iter_ = T
        if beta is not None:
            self.kernel_coef_ = beta * scale

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Ranking scores f(x) (n,), float64; evaluated in chunks of bounded memory."""
        X = predict_input(self, X, np.float32)
        return self.blocks_.evaluate(X, self.coef_, self.scale_)



def pair_coefficients(f_l: np.ndarray, f_u: np.ndarray,
                      draws: list[tuple[np.ndarray, np.ndarray]], w_pn: np.ndarray,
                      w_u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Weights of the sampled points in the stochastic functional gradient (AAAI Eq. 10).

    For batches A, B the mean over all pairs of the derivatives of (1 - f_a + f_b)^2 splits into
    per-point terms, d/df_a = -2 (1 - f_a + mean f_B) / |A| and d/df_b = 2 (1 - mean f_A + f_b)
    / |B|, so the pair average costs O(|A| + |B|). Subproblem j weighs its PN pairs by
    ``w_pn[j] = gamma_j/(k-1)`` and its PU and UN pairs by ``w_u[j] = (1-gamma_j)/(k-1)``.
    Returns the weights of every labeled point then of each point of the unlabeled batch,
    (n_l + |U batch|,), written into ``out`` when given.
    """
    n_l = f_l.size
    c = np.zeros(n_l + f_u.size, dtype=np.float64) if out is None else out
    c[:] = 0.0
    c_l = c[:n_l]
    has_u = f_u.size > 0
    mu = _mean(f_u) if has_u else 0.0
    u_mean_sum = 0.0  # sum_j h_j (mean f_P_j + mean f_N_j), for the weights of U
    for (p, n), g, h in zip(draws, w_pn, w_u, strict=True):
        h = h if has_u else 0.0
        fp, fn = f_l[p], f_l[n]
        mp, mn = _mean(fp), _mean(fn)
        # On phi(x_p): l1 (PN pairs) -2g/|P| (1 - f_p + mean f_N), l3 (PU pairs)
        # -2h/|P| (1 - f_p + mean f_U); on phi(x_n): l2 (PN) 2g/|N| (1 - mean f_P + f_n),
        # l6 (UN) 2h/|N| (1 - mean f_U + f_n); both affine in f, summed here.
        wp = fp * (2.0 * (g + h) / p.size)
        wp -= 2.0 * ((g + h) + g * mn + h * mu) / p.size
        wn = fn * (2.0 * (g + h) / n.size)
        wn += 2.0 * ((g + h) - g * mp - h * mu) / n.size
        np.add.at(c_l, p, wp)  # a point drawn twice counts twice (draws with replacement)
        np.add.at(c_l, n, wn)
        u_mean_sum += h * (mp + mn)
    if has_u:
        # On phi(x_u): l4 (PU) 2h/|U| (1 - mean f_P + f_u) and l5 (UN) -2h/|U| (1 - f_u +
        # mean f_N), which sum to 2h/|U| (2 f_u - mean f_P - mean f_N).
        np.multiply(f_u, 4.0 * float(np.add.reduce(w_u)) / f_u.size, out=c[n_l:])
        c[n_l:] -= 2.0 * u_mean_sum / f_u.size
    return c


def _mean(a: np.ndarray) -> float:
    return float(np.add.reduce(a)) / a.size  # ndarray.mean's dispatch costs more than the sum


def _seed(random_state: int | None) -> int:
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    if isinstance(random_state, (int, np.integer)) and random_state >= 0:
        return int(random_state)
    raise ValueError(f"random_state must be None or a non-negative int, got {random_state!r}")


class QSGS2AUC(_QSGBase):
    """QSG-S2AUC: quadruply stochastic semi-supervised AUC optimisation (IJCAI 2019, Alg. 1)."""

    tasks = ("binary",)
    _task = "binary"

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=False)  # two classes (besides -1)
        return tags


class QS3ORAO(_QSGBase):
    """QS3ORAO: quadruply stochastic semi-supervised ordinal AUC optimisation (AAAI 2020)."""

    tasks = ("ordinal",)
    _task = "ordinal"
