"""Fitting many points of a parameter grid at once: the interface, the groups, the memory budget.

A cross-validated grid search fits the same estimator at hundreds of parameter points on the same
training fold. Much of that work is shared: QSG models with the same sigma and seed sample the
same points and draw the same random-feature blocks whatever lam and gamma
(:mod:`ordauc.solvers.dsg.grid`); the exact kernel solvers share their kernel matrix across lam
and gamma, and a factorisation across lam (:mod:`ordauc.solvers.kernel.samult`,
:mod:`ordauc.solvers.kernel.pnu_auc`). :class:`GridFit` gives such an estimator

- ``fit_grid(X, y, points, max_bytes=None)``: for each point (a dict of parameter overrides) the
  model ``clone(self).set_params(**point).fit(X, y)``, computed group by group;
- ``iter_fit_grid(...)``: the same as ``(index, model)`` pairs as each group finishes, so that a
  caller can score and drop the models of a group before the next one is fitted;
- ``fit_grid_memory_bytes(n_samples, n_features, points, max_bytes=None)``: the peak bytes of one
  ``fit_grid`` call.

Points whose parameters differ only in the estimator's ``_grid_shared`` parameters form one
group, fitted in one pass; the others (sigma, n_iter, random_state, ...) separate groups. A
group whose pass would need more than ``max_bytes`` is split into smaller groups (down to single
points, which are fitted alone), never refused. A point whose own fit would fail (a parameter
refused by validation, a diverging schedule) gets that exception in its place in the results;
the other points are unaffected, as in a tuner that catches each candidate's failure. Unknown
parameter names and bad data raise at once, as ``set_params`` and ``fit`` would.
``random_state=None`` draws one seed per group (a lone fit would draw one per point: equal in
distribution).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import scipy.linalg
from sklearn.base import clone

from ordauc.solvers._labels import LabeledSplit

__all__ = ["GridData", "GridFit", "copy_input_attributes", "lam_path", "split_sizes"]


@dataclass(frozen=True)
class GridData:
    """Training data validated once for a whole grid call.

    ``validated`` is the estimator input validation ran on: every returned model copies its
    ``n_features_in_`` (and ``feature_names_in_``) as its own fit would have set them.
    """

    X: np.ndarray
    y: np.ndarray
    labels: LabeledSplit
    validated: Any


def _hashable(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return repr(value)


def split_sizes(n_points: int, fixed: int, per_point: int, max_bytes: int | None) -> list[int]:
    """Sizes of the passes a group of ``n_points`` is fitted in: as few as the budget allows,
    each needing ``fixed + per_point * size`` bytes (a single point when even two do not fit)."""
    if max_bytes is None or n_points <= 1:
        return [n_points] if n_points else []
    cap = max(1, (int(max_bytes) - int(fixed)) // max(1, int(per_point)))
    n_pass = -(-n_points // cap)
    size, extra = divmod(n_points, n_pass)  # balanced: passes differ by at most one point
    return [size + (1 if i < extra else 0) for i in range(n_pass)]


def copy_input_attributes(source: Any, target: Any) -> None:
    """What input validation set on ``source`` (n_features_in_, feature_names_in_)."""
    for name in ("n_features_in_", "feature_names_in_"):
        if hasattr(source, name):
            setattr(target, name, getattr(source, name))


def lam_path(A: np.ndarray, h: np.ndarray, lams: list[float]
             ) -> list[tuple[np.ndarray, float]]:
    """(theta, J) of (A + lam I) theta = h for every lam from one eigendecomposition A = V diag(a)
    V^T: theta = V ((V^T h) / (a + lam)), O(b^2) per lam. A term whose a + lam vanishes (to
    rounding: |a + lam| <= b eps max|a + lam|) is dropped, the minimum-norm solution, as the
    single fit's least-squares fallback for a singular system."""
    a, V = scipy.linalg.eigh(A, check_finite=False)
    Vh = V.T @ h
    out = []
    for lam in lams:
        d = a + lam
        tiny = A.shape[0] * np.finfo(float).eps * np.abs(d).max()
        inv = np.divide(1.0, d, out=np.zeros_like(d), where=np.abs(d) > tiny)
        theta = V @ (Vh * inv)
        out.append((theta, float(1.0 - theta @ h)))
    return out


class GridFit:
    """Mixin giving an estimator ``fit_grid``, ``iter_fit_grid`` and ``fit_grid_memory_bytes``
    (module docstring).

    The estimator declares ``_grid_shared``, the parameters that may differ inside one pass, and
    implements ``_grid_data(X, y)`` (a :class:`GridData`, computed once per call),
    ``_grid_pass(data, models, cache)`` (fit a list of unfitted estimators of one group in one
    pass; return, for each, the fitted estimator or the exception its fit raised; ``cache`` is
    a dict shared by the passes of a group) and ``_grid_bytes(n_samples, n_features,
    n_unlabeled, models)`` (bytes of one pass: ``(fixed, per_model, kept_per_model)``, the last
    what a returned model keeps).
    """

    _grid_shared: ClassVar[frozenset[str]] = frozenset()

    # -- the interface --------------------------------------------------------------------------
    def fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                 max_bytes: int | None = None) -> list[Any]:
        """For each point, the model ``clone(self).set_params(**point).fit(X, y)`` (within the
        rounding the estimator documents), or the exception that fit would raise.

        Parameters
        ----------
        X, y : training data, as for ``fit``.
        points : parameter overrides, one dict per grid point.
        max_bytes : memory budget of one pass; larger groups are split (None: no limit).
        """
        out: list[Any] = [None] * len(points)
        for i, model in self.iter_fit_grid(X, y, points, max_bytes):
            out[i] = model
        return out

    def iter_fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                      max_bytes: int | None = None, *, cache: dict | None = None
                      ) -> Iterator[tuple[int, Any]]:
        """``(index into points, fitted model or exception)``, a group at a time.

        ``cache`` (optional) keeps what passes computed from X alone (kernel matrices and their
        decompositions) for later calls on the same X with the same unlabeled rows, as the
        M-* wrapper makes one call per subproblem; the caller owns it and drops it.
        """
        models, failed = self._grid_points(points)
        yield from failed.items()
        if not models:
            return
        data = self._grid_data(X, y)
        n_u = self._grid_unlabeled(data)
        n, d = data.X.shape
        for group in self._grid_groups(models):
            ests = [models[i] for i in group]
            fixed, per_model, _ = self._grid_bytes(n, d, n_u, ests)
            # the passes of one group share what they compute from X alone (its "fixed" part)
            shared = {} if cache is None else cache
            at = 0
            for size in split_sizes(len(group), fixed, per_model, max_bytes):
                part = group[at:at + size]
                at += size
                results = self._grid_pass(data, [models[i] for i in part], shared)
                yield from zip(part, results, strict=True)
            del shared

    def fit_grid_memory_bytes(self, n_samples: int, n_features: int,
                              points: Sequence[dict[str, Any]], max_bytes: int | None = None,
                              n_unlabeled: int | None = None) -> int:
        """Peak bytes of one ``fit_grid`` call, a bound from above: the validated data, the
        largest pass (after splitting under ``max_bytes``) and every returned model
        (``fit_grid`` keeps them all; with ``iter_fit_grid`` the caller may drop them).
        ``n_unlabeled`` defaults to the worst case, every row."""
        return int(sum(self._grid_memory_parts(n_samples, n_features, points, max_bytes,
                                               n_unlabeled)))

    def _grid_memory_parts(self, n_samples: int, n_features: int,
                           points: Sequence[dict[str, Any]], max_bytes: int | None,
                           n_unlabeled: int | None) -> tuple[int, int, int]:
        """(validated data, largest pass, all returned models) bytes."""
        models, _ = self._grid_points(points)
        n_u = n_samples if n_unlabeled is None else int(n_unlabeled)
        peak, kept = 0, 0
        for group in self._grid_groups(models):
            ests = [models[i] for i in group]
            fixed, per_model, keep = self._grid_bytes(n_samples, n_features, n_u, ests)
            sizes = split_sizes(len(group), fixed, per_model, max_bytes)
            peak = max(peak, fixed + per_model * max(sizes))
            kept += keep * len(group)
        return int(self._grid_data_bytes(n_samples, n_features)), int(peak), int(kept)

    # -- groups -------------------------------------------------------------------------------
    def _grid_points(self, points: Sequence[dict[str, Any]]
                     ) -> tuple[dict[int, Any], dict[int, Exception]]:
        """Unfitted estimators of the valid points, and the exceptions of the others."""
        models: dict[int, Any] = {}
        failed: dict[int, Exception] = {}
        for i, point in enumerate(points):
            est = clone(self).set_params(**point)  # an unknown name raises here, as it would
            try:
                est._validate_params()
            except (ValueError, TypeError) as exc:
                failed[i] = exc
                continue
            models[i] = est
        return models, failed

    def _grid_key(self, est: Any) -> tuple:
        params = est.get_params(deep=False)
        return tuple((k, _hashable(v)) for k, v in sorted(params.items())
                     if k not in self._grid_shared)

    def _grid_groups(self, models: dict[int, Any]) -> list[list[int]]:
        """Indices of the points, grouped by the parameters a pass cannot vary (first
        appearance order)."""
        groups: dict[tuple, list[int]] = {}
        for i, est in models.items():
            groups.setdefault(self._grid_key(est), []).append(i)
        return list(groups.values())

    def _grid_unlabeled(self, data: GridData) -> int:
        return int(data.labels.unlabeled.size)

    def _grid_data_bytes(self, n_samples: int, n_features: int) -> int:
        """The validated copy of X a call makes (float64 unless the estimator says less)."""
        return 8 * n_samples * n_features
