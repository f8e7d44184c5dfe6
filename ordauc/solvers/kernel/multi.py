"""The M-* wrapper of the QS3ORAO paper's baselines: k-1 binary models, one per subproblem.

Subproblem j = 1..k-1 of ordinal labels 1..k is binary: P_j = {labeled y > j} against
N_j = {labeled y <= j}, with every unlabeled row shared (AAAI 2020, "Semi-supervised ordinal
regression AUC optimization"; ALGORITHMS.md section 3). M-SAMULT and M-PNU-AUC train one binary
model per subproblem with the same parameters, except those listed in ``per_subproblem`` (gamma,
which may be a list of k-1 values, one per subproblem). Scores are (n, k-1), column j-1 from
model j, and are evaluated by the ordinal AUC (Eq. 2) column by column. ``predict`` counts the
subproblems whose model puts x on its positive side ("above class j"), the Frank & Hall reading
of k-1 binary answers.

A concrete wrapper is a subclass that names its binary solver in ``base`` and repeats the base's
constructor (scikit-learn reads parameters from ``__init__``'s signature).

``fit_grid(X, y, points)`` (the interface of :mod:`ordauc.solvers.dsg.gridpoints`) fits every
point's k-1 models through the base's own ``iter_fit_grid``, one call per subproblem, with the
points grouped as the base groups them; the calls of one group share a cache, so what the base
computes from X alone (SAMULT's kernel matrix and its eigendecomposition, PNU-AUC's centres and
basis) is computed once for all k-1 subproblems. A base without ``fit_grid`` is fitted point by
point.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import clone

from ordauc.solvers._base import OrdaucEstimator
from ordauc.solvers._labels import UNLABELED, split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.dsg.gridpoints import copy_input_attributes
from ordauc.solvers.objective import gamma_vector


class OneModelPerSubproblem(OrdaucEstimator):
    """k-1 binary models of ``base``, model j on subproblem j (see the module docstring)."""

    base: ClassVar[type]
    per_subproblem: ClassVar[tuple[str, ...]] = ("gamma",)
    _dtype: ClassVar[type] = np.float64


    def fit_memory_bytes(self, n_samples: int, n_features: int) -> int:
        """The models are fitted one after the other: one binary fit's peak, plus the k-1
        fitted models kept (each holds at most a copy of X)."""
        one = self.base(**self._params_of(0, 2)).fit_memory_bytes(n_samples, n_features)
        return int(one + 8 * n_samples * n_features)

    def _params_of(self, j: int, k: int) -> dict[str, Any]:
        """The base's parameters for subproblem j + 1 (0-based ``j``) of ``k`` classes."""
        params = self.get_params(deep=False)
        for key in self.per_subproblem:
            if key in params:
                params[key] = float(gamma_vector(params[key], k)[j])
        return params

    def fit(self, X: Any, y: Any) -> OneModelPerSubproblem:
        """Fit model j on {labeled y > j} against {labeled y <= j}, unlabeled rows shared."""
        self._validate_params()
        X, y = fit_input(self, X, y, self._dtype)
        labels = split_labels(y, "ordinal")
        k = labels.n_classes
        self.models_ = []
        for j in range(1, k):
            y_j = np.full(y.shape[0], UNLABELED, dtype=np.int64)
            y_j[labels.labeled] = labels.z > j
            self.models_.append(self.base(**self._params_of(j - 1, k)).fit(X, y_j))
        self.n_classes_ = k
        self.classes_ = labels.classes
        return self

    # -- many grid points at once ------------------------------------------------------------
    def fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                 max_bytes: int | None = None) -> list[Any]:
        """For each point, ``clone(self).set_params(**point).fit(X, y)`` or the exception that
        fit would raise (see :mod:`ordauc.solvers.dsg.gridpoints`); ``max_bytes`` bounds each
        of the base's passes."""
        out: list[Any] = [None] * len(points)
        for i, model in self.iter_fit_grid(X, y, points, max_bytes):
            out[i] = model
        return out

    def iter_fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                      max_bytes: int | None = None) -> Iterator[tuple[int, Any]]:
        """``(index into points, fitted wrapper or exception)``, a group of the base at a time."""
        wrappers: dict[int, Any] = {}
        for i, point in enumerate(points):
            est = clone(self).set_params(**point)  # an unknown name raises here, as it would
            try:
                est._validate_params()
            except (ValueError, TypeError) as exc:
                yield i, exc
                continue
            wrappers[i] = est
        if not wrappers:
            return
        validated = clone(self)
        X, y = fit_input(validated, X, y, self._dtype)
        labels = split_labels(y, "ordinal")
        k = labels.n_classes
        base = self.base()
        if not hasattr(base, "iter_fit_grid"):
            for i, est in wrappers.items():
                try:
                    yield i, est.fit(X, y)
                except Exception as exc:  # the point's own failure, returned in its place
                    yield i, exc
            return
        params: dict[int, list[dict[str, Any]]] = {}  # per point, the base's per subproblem
        groups: dict[tuple, list[int]] = {}
        for i, est in wrappers.items():
            try:
                params[i] = [est._params_of(j, k) for j in range(k - 1)]
            except ValueError as exc:  # e.g. a gamma list that is not k-1 long
                yield i, exc
                continue
            groups.setdefault(base._grid_key(self.base(**params[i][0])), []).append(i)
        for group in groups.values():
            cache: dict = {}  # the base's shared work, for every subproblem of this group
            models: dict[int, list[Any]] = {i: [] for i in group}
            for j in range(1, k):
                y_j = np.full(y.shape[0], UNLABELED, dtype=np.int64)
                y_j[labels.labeled] = labels.z > j
                part = [params[i][j - 1] for i in group]
                for at, model in base.iter_fit_grid(X, y_j, part, max_bytes, cache=cache):
                    models[group[at]].append(model)
            del cache
            for i in group:
                failed = [m for m in models[i] if isinstance(m, Exception)]
                if failed:
                    yield i, failed[0]
                    continue
                est = wrappers[i]
                est.models_, est.n_classes_, est.classes_ = models[i], k, labels.classes
                copy_input_attributes(validated, est)
                yield i, est

    def fit_grid_memory_bytes(self, n_samples: int, n_features: int,
                              points: Sequence[dict[str, Any]], max_bytes: int | None = None,
                              n_unlabeled: int | None = None, n_classes: int = 5) -> int:
        """Peak bytes of one ``fit_grid`` call with ``n_classes`` classes: the validated data,
        the base's largest pass, and every returned model's k-1 base models."""
        base = self.base()
        if not hasattr(base, "fit_grid_memory_bytes"):
            return int(self.fit_memory_bytes(n_samples, n_features) * max(1, len(points)))
        params = []
        for point in points:
            est = clone(self).set_params(**point)
            try:
                params.append(est._params_of(0, n_classes))
            except ValueError:  # a point that fails at once needs nothing
                continue
        data, peak, kept = base._grid_memory_parts(n_samples, n_features, params, max_bytes,
                                                   n_unlabeled)
        return int(data + peak + (n_classes - 1) * kept)

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
