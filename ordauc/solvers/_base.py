"""What every ordauc estimator declares beside its class, so that nothing else guesses it.

- ``meta``: a :class:`SolverMeta` (display name, tasks, whether it reads unlabeled rows,
  whether it is iterative, which binary solver an M-* wrapper runs). Plots, reports and the
  runner learn about a solver here and nowhere else.
- ``reads_unlabeled(params, grid)``: whether a configuration of the solver (a config's fixed
  parameters and grid) reads the unlabeled rows; ``meta.uses_unlabeled`` unless the solver
  narrows it (QSG with gamma = 1 is supervised). :func:`reads_unlabeled` is what the planner
  asks.
- ``_parameter_constraints``: scikit-learn's declaration of every constructor parameter
  (:class:`~sklearn.utils._param_validation.Interval`, ``StrOptions``, ...), checked by
  ``fit`` (scikit-learn's ``@_fit_context``) and by config validation before anything runs. The
  constraint kinds below add what scikit-learn lacks: numbers that refuse booleans and
  non-finite values, and ordauc's gamma (a number or a list of k-1 numbers).
- ``fit_memory_bytes(n_samples, n_features)``: the peak bytes one ``fit`` needs, its copies of
  the data included, so the runner can skip a cell that cannot fit before it starts.
- ``fit_cost(n_samples, n_features)``: the relative work of one fit (n^2 d unless a solver
  says otherwise), which a dry run calibrates on the machine to estimate a run's cost.
- iterative solvers (``meta.iterative``) accept ``fit(X, y, checkpoint=...)``: a
  :class:`Checkpoint` called every ``checkpoint.every`` iterations with a scorer of the current
  iterate. The solver knows nothing of what the checkpoint records or where.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar, Protocol

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import ClassifierTags, Tags
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["Checkpoint", "GammaWeights", "Interval", "Iterate", "Number", "OrdaucEstimator",
           "SolverMeta", "StrOptions", "count", "nonnegative", "positive", "reads_unlabeled",
           "seed", "spec_values", "unit_interval"]

TASKS = ("binary", "ordinal")


@dataclass(frozen=True)
class SolverMeta:
    """What the registry, the runner, plots and reports know of a solver.

    Parameters
    ----------
    display : str
        The papers' name, e.g. ``"M-SAMULT"``.
    tasks : tuple of str
        The tasks it solves, from ``binary`` and ``ordinal``.
    uses_unlabeled : bool
        It reads the rows with ``y == -1`` (semi-supervised). A supervised solver is handed
        the labeled rows alone and fitted once per labeled set. A semi-supervised solver may
        narrow this per configuration (:meth:`OrdaucEstimator.reads_unlabeled`): one whose
        configuration reads no unlabeled row is run as a supervised one.
    iterative : bool, default=False
        ``fit`` accepts ``checkpoint=`` and reports every ``checkpoint.every`` iterations.
    wrapper_of : str or None, default=None
        For a wrapper of k-1 binary models (M-*), the registry name of the binary solver it
        runs.
    proposed : bool, default=False
        A method one of the four papers proposes (drawn last and highlighted).
    """

    display: str
    tasks: tuple[str, ...]
    uses_unlabeled: bool
    iterative: bool = False
    wrapper_of: str | None = None
    proposed: bool = False

    def __post_init__(self) -> None:
        if not self.tasks or any(t not in TASKS for t in self.tasks):
            raise ValueError(f"tasks must be a non-empty subset of {TASKS}, got {self.tasks!r}")


class OrdaucEstimator(BaseEstimator):
    """scikit-learn's base with the tags every ordauc solver shares: fit needs y (-1 marks an
    unlabeled row), and scipy sparse input is accepted (dense-only solvers densify it once,
    :mod:`ordauc.solvers._validation`). ``_binary_only`` solvers take two classes besides -1."""

    _binary_only: ClassVar[bool] = False
    # For scikit-learn's estimator checks, which every registered solver runs
    # (tests/solvers/test_estimator_checks.py): parameters that keep a fit on the checks' tiny data
    # quick, and the checks a solver knowingly fails, each with the reason.
    _check_params: ClassVar[dict[str, Any]] = {}
    _known_check_failures: ClassVar[dict[str, str]] = {}

    @classmethod
    def reads_unlabeled(cls, params: dict[str, Any], grid: dict[str, list[Any]]) -> bool:
        """Whether a fit with the fixed ``params`` at any point of ``grid`` (a config's solver
        spec) reads the unlabeled rows: ``meta.uses_unlabeled`` here. A semi-supervised solver
        returns False for the configurations that make it supervised (QSG with gamma = 1):
        it is then handed the labeled rows alone and fitted once per labeled set, so its model
        must be the same with the unlabeled rows as without them."""
        return bool(cls.meta.uses_unlabeled)  # type: ignore[attr-defined] - every solver's

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """The relative work of one ``fit`` on ``n_samples`` rows: the cost model whose
        constants a dry run calibrates on the machine (:mod:`ordauc.cost.estimate`).
        n^2 d here, what a kernel method pays to evaluate its kernel; solvers whose work grows
        otherwise say so."""
        return float(n_samples) ** 2 * n_features

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        """The relative work of scoring ``n_eval`` rows with a model fitted on ``n_train``:
        n_train n_eval d here, a kernel expansion over the training rows (an upper bound where
        only the support vectors count); models of another size say so."""
        return float(n_train) * n_eval * n_features

    def warm_up(self) -> None:
        """Pay now what every process pays once for this solver (loading its compiled loops),
        so that the cells a worker forks inherit it instead of each paying it again. Nothing
        here; solvers with compiled loops fit a tiny problem (:func:`warm_fit`)."""

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        if self._binary_only:
            tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


def reads_unlabeled(cls: type, params: dict[str, Any], grid: dict[str, list[Any]]) -> bool:
    """Whether solver class ``cls`` configured with the fixed ``params`` and the ``grid`` of a
    config's solver spec reads the unlabeled rows: never when its ``meta`` says it is
    supervised; otherwise what its ``reads_unlabeled`` says (a class without one, e.g. a
    plain scikit-learn estimator with a ``meta``: its ``meta``)."""
    if not cls.meta.uses_unlabeled:  # type: ignore[attr-defined] - checked by the registry
        return False
    narrow = getattr(cls, "reads_unlabeled", None)
    return True if narrow is None else bool(narrow(dict(params), dict(grid)))


def spec_values(cls: type, name: str, params: dict[str, Any], grid: dict[str, list[Any]]
                ) -> list[Any]:
    """Every value parameter ``name`` takes in a solver spec: its grid's values, else its
    fixed value, else the constructor's default."""
    if name in grid:
        return list(grid[name])
    if name in params:
        return [params[name]]
    return [cls().get_params(deep=False)[name]]


def warm_fit(estimator: OrdaucEstimator) -> None:
    """Fit a copy of ``estimator`` (with its quick ``_check_params``) on a tiny problem, dense
    and sparse: numba loads a compiled loop for each input layout it meets, on first use."""
    import scipy.sparse as sp
    from sklearn.base import clone

    rng = np.random.default_rng(0)
    X = rng.random((24, 3)).astype(np.float32)
    classes = (0, 1) if estimator._binary_only else (1, 2, 3)
    y = np.resize(np.asarray(classes), 24)
    y[-6:] = -1  # some unlabeled rows, as a semi-supervised fit meets them
    for data in (X, sp.csr_matrix(X)):
        clone(estimator).set_params(**estimator._check_params).fit(data, y)


class Number(Interval):
    """scikit-learn's :class:`Interval` that also refuses booleans, NaN and infinities.

    YAML reads ``true`` as a boolean and ``.inf`` / ``.nan`` as floats; none of them is a
    meaningful step count, width or regularisation weight.
    """

    def is_satisfied_by(self, val: Any) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        if isinstance(val, Real) and not math.isfinite(float(val)):
            return False
        return super().is_satisfied_by(val)


def positive() -> Number:
    """A finite real number > 0 (lam, sigma, C, kappa, ...)."""
    return Number(Real, 0, None, closed="neither")


def nonnegative() -> Number:
    """A finite real number >= 0."""
    return Number(Real, 0, None, closed="left")


def seed() -> Number:
    """A ``random_state``: an integer >= 0 (or None, declared beside it)."""
    return Number(Integral, 0, None, closed="left")


def unit_interval() -> Number:
    """A real number in [0, 1]."""
    return Number(Real, 0, 1, closed="both")


def count(minimum: int = 1) -> Number:
    """An integer >= ``minimum`` (n_iter, batch_size, ...)."""
    return Number(Integral, minimum, None, closed="left")


class GammaWeights(Number):
    """ordauc's gamma: one number in [0, 1] for every subproblem, or a list of k-1 of them
    (AAAI 2020 Eq. 9 allows a gamma_j per subproblem). The list's length is checked against
    the data's k at fit time, and by the runner against each dataset before a run. (An
    :class:`Interval` applied elementwise, so scikit-learn's validation accepts it.)"""

    def __init__(self) -> None:
        super().__init__(Real, 0, 1, closed="both")

    def is_satisfied_by(self, val: Any) -> bool:
        items = list(val) if isinstance(val, (list, tuple, np.ndarray)) else [val]
        return bool(items) and all(super(GammaWeights, self).is_satisfied_by(v) for v in items)

    def __str__(self) -> str:
        return "a number in [0, 1] or a list of k-1 such numbers (one per subproblem)"


class Iterate(Protocol):
    """The current iterate of an iterative solver, as a checkpoint sees it."""

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values of the current iterate (same shape rules as the fitted model)."""
        ...


class Checkpoint(Protocol):
    """Receives an iterative solver's progress; the solver calls it, the caller records.

    ``every`` is the number of iterations between calls. The call gets the iteration number and
    the current iterate: an object with ``decision_function(X)`` and, where the solver can
    compute it, ``objective()`` (its primal objective on the training data). Everything is
    computed inside the call, so the caller can exclude the call's time from the fit time.
    A checkpoint may also have ``until`` (an int or None): it records nothing after that
    iteration, so a solver may stop calling it there.
    """

    every: int

    def __call__(self, iteration: int, iterate: Iterate) -> None: ...
