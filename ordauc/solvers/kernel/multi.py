"""The M-* wrapper of the QS3ORAO paper's baselines: k-1 binary models, one per subproblem.

Subproblem j = 1..k-1 of ordinal labels 1..k is binary: P_j = {labeled y > j} against
N_j = {labeled y <= j}, with every unlabeled row shared (AAAI 2020, "Semi-supervised ordinal
regression AUC optimization"; docs/algorithms.md, section 3). M-SAMULT and M-PNU-AUC train one
binary model per subproblem with the same parameters, except those listed in
``per_subproblem`` (gamma, which may be a list of k-1 values, one per subproblem). Scores are
(n, k-1), column j-1 from model j, and are evaluated by the ordinal AUC (Eq. 2) column by column.
``predict`` counts the subproblems whose model puts x on its positive side ("above class j"),
the Frank & Hall reading of k-1 binary answers (a choice the paper leaves open).

A concrete wrapper is a subclass that names its binary solver in ``base``; it takes the base's
constructor and parameter constraints (scikit-learn reads the parameters from ``__init__``'s
signature), so the two cannot drift apart.

The grid-fit protocol (:mod:`ordauc.solvers.gridfit`): points are grouped as the base groups
them (its ``grid_key``), and a group's k-1 subproblems are fitted by the base's own
``iter_fit_grid``, one call per subproblem, sharing a cache, so what the base computes from X
alone (SAMULT's kernel matrix and its eigendecomposition, PNU-AUC's centres and basis) is
computed once for all k-1 subproblems. In ``iter_fit_grid_folds`` the wrapper shares across
the folds what its base shares (``grid_fold_whole``): each subproblem's call is handed the fold's
place in the whole data, so M-SAMULT decomposes K_UU once per sigma for all the folds and all
the subproblems; a point whose k-1 models tracked their validation scores tracks their columns.
A base without the protocol is fitted point by point.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import _fit_context, clone

from ordauc.solvers._base import OrdaucEstimator
from ordauc.solvers._base import reads_unlabeled as base_reads_unlabeled
from ordauc.solvers._labels import UNLABELED, LabeledSplit, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.gridfit import (
    GridData,
    GridFit,
    GridMemory,
    copy_input_attributes,
    fit_alone,
)
from ordauc.solvers.objective import gamma_vector

__all__ = ["OneModelPerSubproblem", "subproblem_labels"]


# The fitted attributes of every wrapper, appended to a concrete wrapper's docstring.
_ATTRIBUTES = """

    Attributes
    ----------
    models_ : list of {base}
        Model j-1 fitted on subproblem j.
    classes_ : ndarray of shape (n_classes,)
        The labels of the classes, increasing.
    n_classes_ : int
        Number of classes k.
    """


def subproblem_labels(labels: LabeledSplit, j: int) -> np.ndarray:
    """Binary targets of subproblem j: 1 for labeled y > j, 0 for labeled y <= j, -1 for the
    unlabeled rows (every row of the data, in order)."""
    y_j = np.full(labels.labeled.size + labels.unlabeled.size, UNLABELED, dtype=np.int64)
    y_j[labels.labeled] = labels.z > j
    return y_j


class OneModelPerSubproblem(GridFit, OrdaucEstimator):
    __doc__ = """k-1 binary models of ``base``, model j on subproblem j (see the module docstring).

    Parameters
    ----------
    **params
        The base's parameters (its constructor, taken as this class's own).""" + \
        _ATTRIBUTES.format(base="base estimators")

    base: ClassVar[type]
    per_subproblem: ClassVar[tuple[str, ...]] = ("gamma",)
    _dtype: ClassVar[type] = np.float64

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        base = cls.__dict__.get("base")
        if base is None:
            return
        cls.grid_fold_whole = bool(getattr(base, "grid_fold_whole", False))
        if "__init__" not in cls.__dict__:
            cls.__init__ = base.__init__  # type: ignore[method-assign]
        if "_parameter_constraints" not in cls.__dict__:
            cls._parameter_constraints = base._parameter_constraints
        if cls.__doc__ and "Attributes\n" not in cls.__doc__:
            cls.__doc__ = cls.__doc__.rstrip() + _ATTRIBUTES.format(base=base.__name__)

    @classmethod
    def reads_unlabeled(cls, params: dict[str, Any], grid: dict[str, list[Any]]) -> bool:
        """As the base solver configured alike: the k-1 models read no unlabeled row when
        the base's spec reads none (M-SAMULT with every gamma_j = 1)."""
        return base_reads_unlabeled(cls.base, params, grid)

    def subproblem_params(self, j: int, n_classes: int | None = None) -> dict[str, Any]:
        """The base's parameters for subproblem j = 1..k-1 of ``n_classes`` classes (None: as
        many as a per-subproblem list gives). Raises ValueError for a list of another length."""
        params = self.get_params(deep=False)
        for key in self.per_subproblem:
            value = params[key]
            k = np.atleast_1d(value).size + 1 if n_classes is None else n_classes
            params[key] = float(gamma_vector(value, k)[j - 1])
        return params

    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """The models are fitted one after the other: one binary fit's peak, plus the k-1
        fitted models kept (each holds at most a copy of X)."""
        one = self.base(**self.subproblem_params(1)).fit_memory_bytes(n_samples, n_features)
        return int(one + 8 * n_samples * n_features)

    def fit_cost(self, n_samples: int, n_features: int) -> float:
        """The base model's, once per subproblem (k is unknown here: counted as 4, the
        QS3ORAO paper's five classes)."""
        return 4 * self.base(**self.subproblem_params(1)).fit_cost(n_samples, n_features)

    def pass_cost(self, n_samples: int, n_features: int, n_unlabeled: int
                  ) -> tuple[float, float]:
        """(shared, per-model) work of a grid pass, for the dry run's estimate: what the base
        computes from X alone once for all the subproblems (the base's shared part), the
        base's per-model part once per subproblem (counted as 4, as in :meth:`fit_cost`)."""
        base = self.base(**self.subproblem_params(1))
        if not hasattr(base, "pass_cost"):
            units = self.fit_cost(n_samples, n_features)
            return units, units
        shared, model = base.pass_cost(n_samples, n_features, n_unlabeled)
        return shared, 4 * model

    def cv_shared_cost(self, n_samples: int, n_features: int, n_unlabeled: int, n_folds: int
                       ) -> tuple[float, float] | None:
        """The base's (once, per fold) shared work of a cross-validation, None when it shares
        nothing across folds: the once part serves every subproblem, the per-fold part is paid
        per subproblem (counted as 4, as in :meth:`fit_cost`)."""
        base = self.base(**self.subproblem_params(1))
        if not hasattr(base, "cv_shared_cost"):
            return None
        once, per_fold = base.cv_shared_cost(n_samples, n_features, n_unlabeled, n_folds)
        return once, 4 * per_fold

    def score_cost(self, n_train: int, n_eval: int, n_features: int) -> float:
        """The base model's, once per subproblem (counted as 4, as in :meth:`fit_cost`)."""
        return 4 * self.base(**self.subproblem_params(1)).score_cost(n_train, n_eval,
                                                                      n_features)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> OneModelPerSubproblem:
        """Fit model j on {labeled y > j} against {labeled y <= j}, unlabeled rows shared."""
        X, y = fit_input(self, X, y, self._dtype)
        labels = split_labels(y, "ordinal")
        k = labels.n_classes
        models = [self.base(**self.subproblem_params(j, k)).fit(X, subproblem_labels(labels, j))
                  for j in range(1, k)]
        return self._fitted(models, labels)

    def _fitted(self, models: list[Any], labels: LabeledSplit) -> OneModelPerSubproblem:
        self.models_ = models
        self.n_classes_, self.classes_ = labels.n_classes, labels.classes
        return self

    # -- many grid points at once (ordauc.solvers.gridfit) -----------------------------------
    def grid_key(self, params: dict[str, Any]) -> tuple:
        """The base's group of the point's other parameters: the per-subproblem ones may differ
        inside a group, as each subproblem's call to the base groups by its own values."""
        base = self.base()
        if not isinstance(base, GridFit):
            return super().grid_key(params)  # no shared work: a group per distinct point
        return base.grid_key({k: v for k, v in params.items() if k not in self.per_subproblem})

    def grid_memory(self, n_samples: int, n_features: int, points: Sequence[dict[str, Any]],
                    max_bytes: int | None = None, n_unlabeled: int | None = None,
                    n_classes: int | None = None) -> GridMemory:
        """The base's statement for the points' subproblems, with k-1 models kept per point:
        ``n_classes``, the data's number of classes, is required."""
        if n_classes is None:
            raise ValueError(f"{type(self).__name__} keeps k-1 models per point: its grid "
                             "memory needs n_classes, the data's number of classes")
        base = self.base()
        if not isinstance(base, GridFit):
            one = self.fit_memory_bytes(n_samples, n_features)
            return GridMemory(0, one, one * max(0, len(points) - 1))
        params = []
        for point in points:
            try:
                params.append(clone(self).set_params(**point).subproblem_params(1, n_classes))
            except ValueError:  # a point that fails at once needs nothing
                continue
        data, peak, kept = base.grid_memory(n_samples, n_features, params, max_bytes,
                                            n_unlabeled)
        return GridMemory(data, peak, (n_classes - 1) * kept)

    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, self._dtype)
        return GridData(X, y, split_labels(y, "ordinal"), validated)

    def _grid_fit_group(self, data: GridData, models: dict[int, Any], max_bytes: int | None,
                        cache: dict) -> Iterator[tuple[int, Any]]:
        """The group's k-1 subproblems through the base's ``iter_fit_grid``, one call each."""
        base = self.base()
        if not isinstance(base, GridFit):
            for i, est in models.items():
                yield i, fit_alone(est, data)
            return
        labels, k = data.labels, data.labels.n_classes
        params: dict[int, list[dict[str, Any]]] = {}  # per point, the base's per subproblem
        for i, est in models.items():
            try:
                params[i] = [est.subproblem_params(j, k) for j in range(1, k)]
            except ValueError as exc:  # e.g. a gamma list that is not k-1 long
                yield i, exc
        index = list(params)
        fitted: dict[int, list[Any]] = {i: [] for i in index}
        for j in range(1, k):
            part = [params[i][j - 1] for i in index]
            for at, model in base.iter_fit_grid(data.X, subproblem_labels(labels, j), part,
                                                max_bytes, cache=cache, whole=data.whole,
                                                track=data.track):
                fitted[index[at]].append(model)
        for i in index:
            failed = [m for m in fitted[i] if isinstance(m, Exception)]
            if failed:
                yield i, failed[0]
                continue
            copy_input_attributes(data.validated, models[i])
            model = models[i]._fitted(fitted[i], labels)
            tracked = [getattr(m, "tracked_decision_", None) for m in fitted[i]]
            if tracked and all(t is not None for t in tracked):
                model.tracked_decision_ = np.column_stack(tracked)  # as decision_function
            yield i, model

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """Scores (n, k-1): column j-1 ranks subproblem j."""
        X = predict_input(self, X, self._dtype)
        return np.column_stack([m.decision_function(X) for m in self.models_])

    def predict(self, X: Any) -> np.ndarray:
        """The class above as many classes as subproblems whose model says 'above'."""
        return self.predict_from_scores(self.decision_function(X))

    def predict_from_scores(self, scores: np.ndarray) -> np.ndarray:
        """``predict`` from the output of ``decision_function``."""
        scores = np.asarray(scores)
        above = np.column_stack([m.predict_from_scores(scores[:, j]) == m.classes_[-1]
                                 for j, m in enumerate(self.models_)])
        return self.classes_[above.sum(axis=1)]
