"""PNU-AUC (Sakai, Niu & Sugiyama 2018) and its ordinal wrapper M-PNU-AUC (AAAI 2020 baseline).

T. Sakai, G. Niu, M. Sugiyama, "Semi-supervised AUC optimization based on positive-unlabeled
learning", Machine Learning 107:767-794, 2018. The reading followed here is the authors' MATLAB
reference ``PNU-AUC/PNU_AUC_SL.m`` (t-sakai-kure/PNU, MIT): its functions ``solve_gauss`` (the
closed form), ``calc_loss`` (the zero-one risk of model selection) and ``calc_eta_heu_unb`` (the
combination weight of that risk). docs/algorithms.md, section 3, describes them.

**Model.** g(x) = sum_{l=1}^{b} theta_l exp(-sigma ||x - c_l||^2), no bias, with b =
min(n_basis, n) centres drawn without replacement (seeded by ``random_state``) from ALL n training
rows, labeled and unlabeled, and kept in row order (so with b = n the centres are the training
points whatever the seed). ordauc's ``sigma`` is the coefficient of exp(-sigma ||x - x'||^2) for
every solver; the reference writes exp(-||x - c||^2 / (2 s^2)), so its width is
s = 1 / sqrt(2 sigma) (:func:`reference_width`), and sigma = 1 / (2 s^2) converts a reference
grid to ordauc's.

**Risks** (squared loss l(m) = (1 - m)^2 of the margin m = g(x) - g(x') of a pair whose first
point should rank higher; theta_P = ``prior``, theta_N = 1 - theta_P):

    R_PN = mean_{P x N} l(g(p) - g(n))
    R_PU = [mean_{P x U} l(g(p) - g(u)) - theta_P mean_{P x P} l(g(p) - g(p'))] / theta_N
    R_NU = [mean_{U x N} l(g(u) - g(n)) - theta_N mean_{N x N} l(g(n) - g(n'))] / theta_P

The P x P (N x N) means run over all ordered pairs, the diagonal included: those are the moments
the reference uses (2 H_P - 2 m_P^T m_P), a V-statistic. The objective, for eta in [-1, 1],

    J(theta) = (1 - |eta|) R_PN + |eta| R_XU + lam ||theta||^2,
    XU = PU if eta >= 0, NU if eta < 0,

is the reference's: the sign of eta selects PN+PU or PN+NU and |eta| is the weight. The
regulariser is lam ||theta||^2 on the coefficient vector, without a 1/2: the reference's
system (H + lambda I) theta = h (``Reg = lambda*eye(b)``) is the stationary condition of
R + lambda ||theta||^2, the risk R having Hessian 2 H; a lam/2 convention is this one with lam
doubled.

**Closed form** (``solve_gauss``). With K_A the |A| x b design matrix of the rows in A,
H_A = K_A^T K_A / |A|, m_A the mean row of K_A (a column vector below):

    H_PN = H_P - m_P m_N^T - m_N m_P^T + H_N,                    h_PN = m_P - m_N
    H_PU = [H_P - m_P m_U^T - m_U m_P^T + H_U - theta_P (2 H_P - 2 m_P m_P^T)] / theta_N
    h_PU = (m_P - m_U) / theta_N
    H_NU = [H_N - m_N m_U^T - m_U m_N^T + H_U - theta_N (2 H_N - 2 m_N m_N^T)] / theta_P
    h_NU = (m_U - m_N) / theta_P
    theta = [(1 - |eta|) H_PN + |eta| H_XU + lam I]^{-1} [(1 - |eta|) h_PN + |eta| h_XU]

since every risk above equals 1 - 2 theta^T h + theta^T H theta. At the solution
J = 1 - theta^T h (stored as ``objective_``).

Choices the reference leaves open:

- H_PU and H_NU can be indefinite. When the system matrix is not positive definite J has no
  minimum and, as in the reference, the stationary point is returned; a singular system is
  solved in the least-squares sense (minimum norm).
- No unlabeled row: the PU / NU risk is undefined, so it is dropped (|eta| taken as 0: PN-AUC).
- ``prior``: ``"labeled"`` is n_P / (n_P + n_N) of the labeled rows (the papers' protocol takes
  the class proportion of the training set, of which only the labeled rows are known; with
  labels drawn at random this is its estimate); ``"energy"`` is :func:`energy_prior`
  (Kawakubo et al. 2016, the reference's ``EneCPE``) on the labeled classes and U, clipped to
  [0.01, 0.99] so that 1/theta_N and 1/theta_P stay finite (without U it falls back to
  ``"labeled"``); a number in (0, 1) is used as given. The value used is ``prior_``.

**Model selection** (``calc_loss`` and ``calc_eta_heu_unb``). The reference selects (sigma, lam,
eta) by the ZERO-ONE PNU-AUC risk on the held-out fold, with the zero-one loss
l01(m) = (1 - sign(m)) / 2 (a tie counts 1/2) and a combination weight w that ignores the
candidate's |eta| and keeps only its sign:

    eta >= 0: a = theta_N^2 (N_P - 1), b = theta_P^2 N_N, w = a / (a + b)
    eta <  0: a = theta_N^2 N_P,       b = theta_P^2 (N_N - 1), w = -b / (a + b)

    risk = (1 - |w|) L_PN + |w| L_XU   (XU = PU if w >= 0, NU otherwise)
    L_PU = [L_{P x U} - theta_P (S_PP / (n_P (n_P - 1)) - 1 / (2 (n_P - 1)))] / theta_N

with N_P, N_N the counts of the whole data set that cross-validation splits (the reference's
``np``, ``nn``), L_{A x B} the mean of l01 over the validation pairs, n_P the number of
validation positives, S_PP the sum of l01 over all their ordered pairs, the diagonal included, and
the added term removes the diagonal's ties (L_NU symmetrically, with U x N and N x N). For the
zero-one loss the corrected P x P term is exactly 1/2 whenever n_P >= 2 (the two orders of a pair
add up to 1, a tie to 1/2 + 1/2); with a single validation positive it is undefined in the
reference and taken as this 1/2 here. The zero-one means are computed by sorting, in
O(n log n). See :meth:`PNUAUC.pnu_risk_01` for how N_P, N_N are obtained, and
:mod:`ordauc.solvers.kernel.pnu_risk` for the same risk given scores. A risk that cannot be
computed (a validation set without P or N, or without U when w != 0) is NaN, which the
project's tuner skips. ``score`` is minus the risk, for ``tuning: {metric: own}``.

``MPNUAUC`` is the QS3ORAO paper's M-PNU-AUC: k-1 binary PNU-AUC models, model j on subproblem j
({y > j} against {y <= j}, U shared), through :class:`OneModelPerSubproblem`.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.utils.validation import check_is_fitted

from ordauc.solvers._base import (
    Number,
    OrdaucEstimator,
    SolverMeta,
    StrOptions,
    count,
    positive,
    seed,
)
from ordauc.solvers._labels import UNLABELED, LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.gridfit import (
    GridData,
    GridFit,
    PassBytes,
    copy_input_attributes,
    fit_alone,
)
from ordauc.solvers.kernel.linalg import lam_path, solve_regularised
from ordauc.solvers.kernel.multi import OneModelPerSubproblem, subproblem_labels
from ordauc.solvers.kernel.pnu_risk import pnu_risk_01_from_scores
from ordauc.solvers.kernel.pnu_system import class_moments, moments, pnu_auc_coef, pnu_system
from ordauc.solvers.kernel.prior import energy_prior
from ordauc.solvers.kernel.samult import gaussian_kernel
from ordauc.solvers.thresholds import ThresholdLabels, fit_thresholds

__all__ = ["MPNUAUC", "PNUAUC", "pnu_auc_coef", "reference_width"]

_CHUNK_ROWS = 2048
_ENERGY_CLIP = (0.01, 0.99)


def reference_width(sigma: float) -> float:
    """The reference's kernel width s for ordauc's sigma: exp(-||x-c||^2 / (2 s^2)) equals
    exp(-sigma ||x-c||^2) when s = 1 / sqrt(2 sigma)."""
    return 1.0 / math.sqrt(2.0 * sigma)


def _rows(labels: LabeledSplit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices of P, N and U."""
    return labels.labeled[labels.z == 2], labels.labeled[labels.z == 1], labels.unlabeled


class PNUAUC(GridFit, ThresholdLabels, OrdaucEstimator):
    """PNU-AUC: semi-supervised AUC optimisation from PN and PU (or NU) pairs, in closed form
    (Sakai, Niu & Sugiyama 2018; reference ``PNU_AUC_SL.m``). See the module docstring for the
    model, the risks, the closed form and every choice left open.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight lambda of lam ||theta||^2 (the reference's lambda, no 1/2).
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - c||^2); the reference's s = 1 / sqrt(2 sigma).
    eta : float, default=0.5
        In [-1, 1]; eta >= 0 combines PN with PU, eta < 0 PN with NU, weight |eta|.
    prior : {"labeled", "energy"} or float, default="labeled"
        theta_P: ``"labeled"`` (labeled class proportion), ``"energy"`` (Kawakubo et al. 2016
        on the training data) or a number in (0, 1).
    n_basis : int, default=200
        Maximum number of Gaussian centres (b = min(n_basis, n)); the reference's 200.
    random_state : int, default=None
        Seed of the centres' draw (None: a fresh draw).

    Attributes
    ----------
    coef_ : ndarray of shape (b,)
        theta.
    centers_ : ndarray of shape (b, n_features)
        The b centres.
    prior_ : float
        theta_P used.
    objective_ : float
        J at theta.
    thresholds_ : ndarray of shape (1,)
        The all-threshold fit on the labeled scores.
    classes_ : ndarray of shape (2,)
        The labels of the classes, increasing.
    n_classes_ : int
        2.
    n_pos_ : int
        Labeled positives of the training data.
    n_neg_ : int
        Labeled negatives of the training data.
    n_unlabeled_ : int
        Unlabeled rows of the training data.

    Notes
    -----
    ``fit_grid(X, y, points)`` shares the centres, the basis matrix and its moments across
    every (lam, eta, prior) point of a (sigma, n_basis, random_state), and the eigendecomposition
    of each (eta, prior) system across its lam values (:func:`lam_path`).
    """

    grid_shared = frozenset({"lam", "eta", "prior"})

    _binary_only = True
    meta = SolverMeta(display="PNU-AUC", tasks=("binary",),
                      uses_unlabeled=True)
    _parameter_constraints: dict = {
        "lam": [positive()], "sigma": [positive()],
        "eta": [Number(Real, -1, 1, closed="both")],
        "prior": [StrOptions({"labeled", "energy"}), Number(Real, 0, 1, closed="neither")],
        "n_basis": [count()], "random_state": [seed(), None],
    }

    def __init__(self, lam: float = 1.0, sigma: float = 1.0, eta: float = 0.5,
                 prior: str | float = "labeled", n_basis: int = 200,
                 random_state: int | None = None) -> None:
        self.lam = lam
        self.sigma = sigma
        self.eta = eta
        self.prior = prior
        self.n_basis = n_basis
        self.random_state = random_state


    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """The n x b basis (n b d), its moments (n b^2) and the b x b solve (b^3), b the
        number of centres: linear in n, not the n^3 the QSG papers state."""
        n, b = float(n_samples), float(min(int(self.n_basis), n_samples))
        return n * b * n_features + n * b * b + b ** 3

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        """Every row against the b = min(n_basis, n_train) centres: n_eval b d."""
        return float(n_eval) * min(int(self.n_basis), n_train) * n_features

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """float64 bytes: the validated copy of X and its rows regrouped by P, N, U (2 n d), the
        n x b basis matrix, the centres (b d) and four b x b moment / system matrices; with
        ``prior="energy"`` also one chunk of distances (at most 2048 x n)."""
        b = min(int(self.n_basis), n_samples)
        total = 2 * n_samples * n_features + n_samples * b + b * n_features + 4 * b * b
        if isinstance(self.prior, str) and self.prior == "energy":
            total += min(n_samples, _CHUNK_ROWS) * n_samples
        return int(8 * total)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: np.ndarray, y: np.ndarray) -> PNUAUC:
        """The closed form on P, N and U; ``y == -1`` marks unlabeled rows."""
        X, y = fit_input(self, X, y, np.float64)
        labels = split_labels(y, "binary")
        n = X.shape[0]
        b = min(int(self.n_basis), n)
        rng = np.random.default_rng(self.random_state)
        self.centers_ = X[np.sort(rng.choice(n, size=b, replace=False))]
        pos, neg, unl = _rows(labels)
        self.prior_ = self._class_prior(X, pos, neg, unl)
        K_pos, K_neg, K_unl = (self.basis(X[rows], check=False) for rows in (pos, neg, unl))
        self.coef_, self.objective_ = pnu_auc_coef(K_pos, K_neg, K_unl, self.prior_,
                                                   float(self.eta), float(self.lam))
        return self._finish(labels, K_pos, K_neg, unl.size)

    def _finish(self, labels: LabeledSplit, K_pos: np.ndarray, K_neg: np.ndarray, n_unl: int
                ) -> PNUAUC:
        self.n_pos_, self.n_neg_, self.n_unlabeled_ = K_pos.shape[0], K_neg.shape[0], n_unl
        self.classes_ = labels.classes
        self.n_classes_ = labels.n_classes
        f = np.empty(labels.labeled.size)
        f[labels.z == 2] = K_pos @ self.coef_
        f[labels.z == 1] = K_neg @ self.coef_
        self.thresholds_ = fit_thresholds(f, labels.z, labels.n_classes)
        return self

    # -- many grid points at once (ordauc.solvers.gridfit) -----------------------------------
    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, np.float64)
        return GridData(X, y, split_labels(y, "binary"), validated)

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict) -> list[Any]:
        proto, X = models[0], data.X
        key = ("pnu", float(proto.sigma), int(proto.n_basis), proto.random_state)
        if len(models) == 1 and key not in cache:
            return [fit_alone(models[0], data)]
        pos, neg, unl = _rows(data.labels)
        if key not in cache:  # centres, basis and U's moments depend on X alone (per sigma)
            cache.clear()
            rng = np.random.default_rng(proto.random_state)
            centres = X[np.sort(rng.choice(X.shape[0], size=min(int(proto.n_basis),
                                                                X.shape[0]), replace=False))]
            K = gaussian_kernel(X, centres, float(proto.sigma))
            cache[key] = (centres, K, moments(K[unl]) if unl.size else (None, None))
        centres, K, (H_u, m_u) = cache[key]
        K_pos, K_neg = K[pos], K[neg]
        mom = {**class_moments(K_pos, K_neg, K[:0]), "H_u": H_u, "m_u": m_u}
        priors: dict[Any, float] = {}
        systems: dict[tuple[float, float], list[Any]] = {}
        for est in models:  # one system (A, h) per (prior, eta), every lam from its eigh
            spec = est.prior if isinstance(est.prior, str) else float(est.prior)
            if spec not in priors:
                priors[spec] = est._class_prior(X, pos, neg, unl)
            est.prior_ = priors[spec]
            systems.setdefault((est.prior_, float(est.eta)), []).append(est)
        out: dict[int, Any] = {}
        for (prior, eta), ests in systems.items():
            try:
                A, h = pnu_system(mom, prior, eta)
                if len(ests) == 1:
                    A[np.diag_indices(A.shape[0])] += float(ests[0].lam)
                    solved = [solve_regularised(A, h)]
                else:
                    solved = lam_path(A, h, [float(e.lam) for e in ests])
            except Exception as exc:  # these points' own failure, returned in their place
                out.update((id(e), exc) for e in ests)
                continue
            for est, (theta, J) in zip(ests, solved, strict=True):
                est.centers_, est.coef_, est.objective_ = centres, theta, J
                copy_input_attributes(data.validated, est)
                out[id(est)] = est._finish(data.labels, K_pos, K_neg, unl.size)
        return [out[id(est)] for est in models]

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        """The n x b basis, the centres and a few b x b moments are shared; a point keeps
        theta, and its (prior, eta) system needs two b x b arrays."""
        b = min(int(models[0].n_basis), n_samples)
        fixed = 8 * (n_samples * b + b * n_features + 8 * b * b + 2 * n_samples)
        return PassBytes(fixed, 8 * (2 * b * b + 4 * b), 8 * b)

    def _class_prior(self, X: np.ndarray, pos: np.ndarray, neg: np.ndarray, unl: np.ndarray
                     ) -> float:
        if isinstance(self.prior, str):
            if self.prior == "energy" and unl.size:
                return float(np.clip(energy_prior(X[pos], X[neg], X[unl]), *_ENERGY_CLIP))
            return float(pos.size / (pos.size + neg.size))
        return float(self.prior)

    def basis(self, X: np.ndarray, check: bool = True) -> np.ndarray:
        """The n x b design matrix exp(-sigma ||x - c_l||^2) of the fitted centres."""
        if check:
            X = predict_input(self, X, np.float64)
        if X.shape[0] == 0:
            return np.empty((0, self.centers_.shape[0]))
        return gaussian_kernel(X, self.centers_, self.sigma)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """g(x) = sum_l theta_l exp(-sigma ||x - c_l||^2), shape (n,)."""
        X = predict_input(self, X, np.float64)
        out = np.empty(X.shape[0])
        for r0 in range(0, X.shape[0], _CHUNK_ROWS):  # bounded memory: one basis slab at a time
            out[r0:r0 + _CHUNK_ROWS] = self.basis(X[r0:r0 + _CHUNK_ROWS], check=False) @ self.coef_
        return out

    def pnu_risk_01(self, X: np.ndarray, y: np.ndarray) -> float:
        """The reference's model-selection criterion on a validation set (lower is better).

        ``y`` holds the training labels (``classes_``) and -1 for unlabeled rows. The weight is
        ``pnu_risk.heuristic_weight`` with this model's ``prior_``, the sign of its ``eta``, and
        the counts n_P = ``n_pos_`` + validation positives, n_N = ``n_neg_`` + validation negatives:
        when (X, y) is the held-out fold of a cross-validation, these are the counts of the whole
        data set it splits, as in the reference (``np``, ``nn`` of ``PNU_AUC_SL``). The risk's
        own means (and its 1/(n_P - 1) correction) use the validation set alone. NaN when it
        cannot be computed (module docstring).
        """
        return self.pnu_risk_01_from_scores(self.decision_function(X), y)

    def score(self, X: np.ndarray, y: np.ndarray) -> float:
        """Minus :meth:`pnu_risk_01`: the reference's model-selection criterion as scikit-learn's
        higher-is-better ``score`` (the runner's ``tuning: {metric: own}``)."""
        return -self.pnu_risk_01(X, y)

    def pnu_risk_01_from_scores(self, scores: np.ndarray, y: np.ndarray) -> float:
        """:meth:`pnu_risk_01` from the output of ``decision_function``."""
        check_is_fitted(self)
        scores = np.asarray(scores, dtype=np.float64).ravel()
        y = np.asarray(y).ravel()
        if y.shape != scores.shape:
            raise ValueError(f"{scores.size} scores but {y.size} labels")
        known = np.isin(y, self.classes_) | (y == UNLABELED)
        if not np.all(known):
            raise ValueError(f"labels must be {self.classes_.tolist()} or -1 (unlabeled), got "
                             f"{np.unique(y[~known]).tolist()}")
        g_pos = scores[y == self.classes_[1]]
        g_neg = scores[y == self.classes_[0]]
        g_unl = scores[y == UNLABELED]
        return pnu_risk_01_from_scores(g_pos, g_neg, g_unl, self.prior_, float(self.eta),
                                       self.n_pos_ + g_pos.size, self.n_neg_ + g_neg.size)


class MPNUAUC(OneModelPerSubproblem):
    """M-PNU-AUC: k-1 binary PNU-AUC models, one per ordinal subproblem (AAAI 2020 baseline).

    Every model gets the same parameters (``eta`` is one number; nothing varies per
    subproblem). With ``prior="labeled"`` (or ``"energy"``) each model estimates theta_P of its
    own subproblem, P_j = {labeled y > j}, by construction; a numeric prior is used as given for
    every subproblem. The same ``random_state`` draws the same centres in every model. The
    constructor and parameters are :class:`PNUAUC`'s.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight lambda of every model.
    sigma : float, default=1.0
        Kernel width in exp(-sigma ||x - c||^2).
    eta : float, default=0.5
        In [-1, 1]: PN with PU (>= 0) or NU (< 0), weight |eta|.
    prior : {"labeled", "energy"} or float, default="labeled"
        theta_P of each subproblem (module docstring of :class:`PNUAUC`).
    n_basis : int, default=200
        Maximum number of Gaussian centres of each model.
    random_state : int, default=None
        Seed of the centres' draw, the same for every model.
    """

    base = PNUAUC
    per_subproblem = ()
    meta = SolverMeta(display="M-PNU-AUC", tasks=("ordinal",),
                      uses_unlabeled=True, wrapper_of="pnu_auc")

    def score(self, X: np.ndarray, y: np.ndarray) -> float:
        """Minus :meth:`pnu_risk_01` (higher is better, as scikit-learn's ``score``)."""
        return -self.pnu_risk_01(X, y)

    def pnu_risk_01(self, X: np.ndarray, y: np.ndarray) -> float:
        """Mean over the subproblems of model j's :meth:`PNUAUC.pnu_risk_01` on subproblem j
        ({y > j} positive, {y <= j} negative, -1 unlabeled), over the subproblems whose risk
        could be computed (NaN when none could)."""
        scores = self.decision_function(X)
        y = np.asarray(y).ravel()
        known = np.isin(y, self.classes_) | (y == UNLABELED)
        if not np.all(known):
            raise ValueError(f"labels must be {self.classes_.tolist()} or -1 (unlabeled), got "
                             f"{np.unique(y[~known]).tolist()}")
        labeled = y != UNLABELED
        split = LabeledSplit(labeled=np.flatnonzero(labeled), unlabeled=np.flatnonzero(~labeled),
                             z=np.searchsorted(self.classes_, y[labeled]) + 1,
                             classes=self.classes_)
        risks = [model.pnu_risk_01_from_scores(scores[:, j - 1], subproblem_labels(split, j))
                 for j, model in enumerate(self.models_, start=1)]
        finite = [r for r in risks if math.isfinite(r)]
        return float(np.mean(finite)) if finite else math.nan
