"""Fitting many points of a parameter grid at once: the protocol, its groups, its memory budget.

A cross-validated grid search fits the same estimator at hundreds of parameter points on the same
training fold, and much of that work can be shared between points: the QSG models of one sigma
and seed sample the same points and draw the same random-feature blocks whatever lam and gamma
(:mod:`ordauc.solvers.dsg.engine`); the exact kernel solvers share a kernel matrix across lam
and gamma and a factorisation across lam (:mod:`ordauc.solvers.kernel`). :class:`GridFit` gives
such an estimator

- ``fit_grid(X, y, points, max_bytes=None)``: for each point (a dict of parameter overrides) the
  model ``clone(self).set_params(**point).fit(X, y)``, computed group by group;
- ``iter_fit_grid(...)``: the same as ``(index, model)`` pairs as each group finishes, so that a
  caller can score and drop the models of a group before the next one is fitted;
- ``iter_fit_grid_folds(X, y, folds, points, max_bytes=None, track=False)``: the points on every
  fold of a cross-validation at once, as ``(fold, index, model)`` triples: groups outer, folds
  inner (one group's kernel and factorisation in memory at a time), each fold's model the one
  ``iter_fit_grid(X[fit], y[fit], ...)`` gives. An estimator whose folds share work (SAMULT's
  unlabeled rows are the same in every fold) opts in with ``grid_fold_whole = True``: its passes
  are then handed ``data.whole`` (:class:`FoldOf`: the whole training data validated once, the
  fold's rows in it, and a dict living for one group across the folds). With ``track`` each
  fold's data carries its validation rows (``data.track``), on which a pass may leave each
  model's ``decision_function`` as ``tracked_decision_`` so that the caller need not compute it;
- ``fit_grid_memory_bytes(n_samples, n_features, points, ...)``: the peak bytes of one
  ``fit_grid`` call;

- ``iter_fit_grid_halving(fits, points, rungs, judge, max_bytes=None)``: the points on several
  training sets (the inner folds) in lockstep, for an estimator whose passes can be paused
  (``grid_resource``, below): at the iterations ``rungs(n_models, n_iter)`` of each pass, every
  model still running is handed, fitted so far on each training set, to ``judge``, which
  returns the ones that go on; the others are dropped from the pass. The points that reach the
  end are yielded as ``(index, [model or exception per training set])``, each the model its
  lone fit would give (successive halving inside the pass, :mod:`ordauc.experiment.halving`);

and the two hooks through which a wrapper of the estimator (the M-* wrapper of k-1 binary models,
:mod:`ordauc.solvers.kernel.multi`) groups its points as the estimator does and sizes its passes:
``grid_key(params)`` and ``grid_memory(...)``.

Points whose parameters differ only in the estimator's ``grid_shared`` parameters form one group,
fitted in passes that share their work; the others (sigma, n_iter, random_state, ...) separate
groups. A group whose pass would need more than ``max_bytes`` is split into smaller passes (down
to single points), never refused. A point whose own fit would fail (a parameter refused by
validation, a diverging schedule) gets that exception in its place in the results; the other
points are unaffected, as in a tuner that catches each candidate's failure. Unknown parameter
names and bad data raise at once, as ``set_params`` and ``fit`` would. ``random_state=None``
draws one seed per pass (a lone fit draws one per point: equal in distribution).

An estimator takes part by subclassing :class:`GridFit`, declaring ``grid_shared`` and
implementing ``_grid_data(X, y)`` (a :class:`GridData`, computed once per call),
``_grid_pass(data, models, cache)`` (fit a list of unfitted estimators of one group in one pass;
return, for each, the fitted estimator or the exception its fit raised; ``cache`` is a dict
shared by the passes of a group, and by a caller's further calls) and ``_grid_pass_bytes(
n_samples, n_features, n_unlabeled, models)`` (a :class:`PassBytes`). An estimator whose pass
can be paused also names its resource, ``grid_resource`` (the parameter counting the
iterations), and implements ``_grid_pass_steps(data, models)``: an object with
``advance(t) -> {position: model fitted to iteration t or exception}`` (the models still
running), ``keep(positions)`` and ``finish() -> [model, exception or None (dropped)]``. A pass
whose memory depends on more than the fold's sizes (the whole data it shares across folds, the
validation rows it tracks) overrides ``_grid_data_pass_bytes(data, models)``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from numbers import Real
from typing import Any, ClassVar, NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import validate_parameter_constraints

from ordauc.solvers._labels import LabeledSplit

__all__ = ["FoldOf", "GridData", "GridFit", "GridMemory", "PassBytes", "copy_input_attributes",
           "fit_alone", "split_sizes", "validate_params"]


@dataclass(frozen=True)
class GridData:
    """Training data validated once for a whole grid call.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The validated features, in the estimator's dtype.
    y : ndarray of shape (n_samples,)
        The targets, -1 for an unlabeled row.
    labels : LabeledSplit
        The labeled and unlabeled rows and the classes.
    validated : estimator
        The estimator input validation ran on: every returned model copies its
        ``n_features_in_`` (and ``feature_names_in_``) as its own fit would have set them.
    whole : FoldOf, default=None
        In a fold of ``iter_fit_grid_folds`` of an estimator with ``grid_fold_whole``: the
        whole training data this fold's rows were taken from.
    track : array-like of shape (n_track, n_features), default=None
        The rows whose decision values a pass may track (a fold's validation rows, as the
        caller gave them): an estimator that can sets ``tracked_decision_`` on each fitted
        model, its ``decision_function`` on these rows (to the rounding it documents).
    """

    X: np.ndarray
    y: np.ndarray
    labels: LabeledSplit
    validated: Any
    whole: FoldOf | None = None
    track: Any = None


@dataclass(frozen=True, eq=False)
class FoldOf:
    """A fold's place in the whole training data of a cross-validation.

    Parameters
    ----------
    data : GridData
        The whole training data, validated once for all the folds.
    rows : ndarray of shape (n_fit,)
        The fold's fitting rows: ``data.X[rows]`` is the fold's X.
    shared : dict
        Lives for one group across the folds (and, in the M-* wrapper, the subproblems): what a
        pass computes from the whole data, keyed by the pass so that nothing else reads it.
    """

    data: GridData
    rows: np.ndarray
    shared: dict


class PassBytes(NamedTuple):
    """Bytes of one pass of ``n`` models: ``fixed + per_model * n``; ``kept`` of them stay with
    each returned model."""

    fixed: int
    per_model: int
    kept: int


class GridMemory(NamedTuple):
    """The peak of one ``fit_grid`` call, in parts: the validated copy of the data, the largest
    pass, every returned model."""

    data: int
    largest_pass: int
    kept: int


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


def fit_alone(estimator: Any, data: GridData) -> Any:
    """A pass of one point by the estimator's own ``fit``: the fitted estimator, with the input
    attributes of the call, or the exception its fit raised."""
    try:
        estimator.fit(data.X, data.y)
    except Exception as exc:  # the point's own failure, returned in its place
        return exc
    copy_input_attributes(data.validated, estimator)
    return estimator


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s parameters against its declared constraints, as its ``fit`` does
    first (scikit-learn's ``InvalidParameterError``, a ValueError and a TypeError)."""
    validate_parameter_constraints(type(estimator)._parameter_constraints,
                                   estimator.get_params(deep=False),
                                   caller_name=type(estimator).__name__)


def _hashable(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Real):
        return float(value)
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return repr(value)


class GridFit:
    """Mixin giving an estimator ``fit_grid``, ``iter_fit_grid``, ``fit_grid_memory_bytes`` and
    the hooks ``grid_key`` and ``grid_memory`` (module docstring).

    Attributes
    ----------
    grid_shared : frozenset of str
        The parameters that may differ between the points of one pass.
    """

    grid_shared: ClassVar[frozenset[str]] = frozenset()
    grid_resource: ClassVar[str | None] = None  # the iterations a pass can be paused at
    # passes that share work across the folds of iter_fit_grid_folds get data.whole; the others
    # are spared its validated copy of X
    grid_fold_whole: ClassVar[bool] = False
    # passes whose folds run together (_grid_pass_folds), e.g. in lockstep sharing per-iteration
    # work; the others fit one fold's pass after the other
    grid_fold_lockstep: ClassVar[bool] = False

    # -- the protocol ---------------------------------------------------------------------------
    def fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                 max_bytes: int | None = None) -> list[Any]:
        """For each point, the model ``clone(self).set_params(**point).fit(X, y)`` (within the
        rounding the estimator documents), or the exception that fit would raise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, as for ``fit``.
        y : array-like of shape (n_samples,)
            Targets, -1 for an unlabeled row.
        points : sequence of dict
            Parameter overrides, one dict per grid point.
        max_bytes : int, default=None
            Memory budget of one pass; larger groups are split (None: no limit).

        Returns
        -------
        list
            One fitted estimator or exception per point, in their order.
        """
        out: list[Any] = [None] * len(points)
        for i, model in self.iter_fit_grid(X, y, points, max_bytes):
            out[i] = model
        return out

    def iter_fit_grid(self, X: Any, y: Any, points: Sequence[dict[str, Any]],
                      max_bytes: int | None = None, *, cache: dict | None = None,
                      whole: FoldOf | None = None, track: Any = None
                      ) -> Iterator[tuple[int, Any]]:
        """``(index into points, fitted model or exception)``, a pass at a time.

        ``cache`` (optional) keeps what passes computed from X alone (kernel matrices and their
        decompositions) for later calls on the same X with the same unlabeled rows, as the
        M-* wrapper makes one call per subproblem; the caller owns it and drops it. ``whole``
        and ``track`` (optional) are handed to the passes as :class:`GridData`'s fields of the
        same names (the M-* wrapper passes its fold's on to each subproblem).
        """
        models, failed = self._grid_points(points)
        yield from failed.items()
        if not models:
            return
        data = self._grid_data(X, y)
        if whole is not None or track is not None:
            data = replace(data, whole=whole, track=track)
        for group in self._grid_groups(models):
            shared = {} if cache is None else cache
            yield from self._grid_fit_group(data, {i: models[i] for i in group}, max_bytes,
                                            shared)
            del shared

    def iter_fit_grid_folds(self, X: Any, y: Any,
                            folds: Sequence[tuple[np.ndarray, np.ndarray]],
                            points: Sequence[dict[str, Any]], max_bytes: int | None = None, *,
                            track: bool = False) -> Iterator[tuple[int, int, Any]]:
        """``(fold index, index into points, fitted model or exception)`` of every point on every
        fold, a group at a time, the folds inside the group.

        Each fold's model is the one ``iter_fit_grid(X[fit], y[fit], points, max_bytes)`` gives
        (each fold has its own ``cache``, as that call would); a point that fails validation
        is yielded first, with its exception for every fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The whole training data of the cross-validation.
        y : array-like of shape (n_samples,)
            Targets, -1 for an unlabeled row.
        folds : sequence of (fit_rows, val_rows)
            Index arrays into X, one pair per fold.
        points : sequence of dict
            Parameter overrides, one dict per grid point.
        max_bytes : int, default=None
            Memory budget of one pass; larger groups are split (None: no limit).
        track : bool, default=False
            Hand each fold's passes its validation rows ``X[val]`` (``GridData.track``).
        """
        models, failed = self._grid_points(points)
        for f in range(len(folds)):
            for i, exc in failed.items():
                yield f, i, exc
        if not models:
            return
        datas = [self._grid_data(X[fit], y[fit]) for fit, _ in folds]  # bad data raises at once
        if track:
            datas = [replace(data, track=X[val]) for data, (_, val) in zip(datas, folds,
                                                                             strict=True)]
        whole = self._grid_whole(X, y)
        for group in self._grid_groups(models):
            if self.grid_fold_lockstep:
                yield from self._grid_fit_group_folds(datas, {i: models[i] for i in group},
                                                      max_bytes)
                continue
            shared: dict = {}  # one group's whole-data work, across its folds
            for f, (data, (fit, _)) in enumerate(zip(datas, folds, strict=True)):
                if whole is not None:
                    data = replace(data, whole=FoldOf(whole, np.asarray(fit), shared))
                cache: dict = {}  # the fold's own, as its iter_fit_grid call would have
                # every fold fits its own copies: a fitted model must not be another fold's
                for i, model in self._grid_fit_group(data, {i: clone(models[i]) for i in group},
                                                     max_bytes, cache):
                    yield f, i, model
                del cache
            del shared

    def _grid_whole(self, X: Any, y: Any) -> GridData | None:
        """The whole data validated once, for an estimator that shares work across folds; None
        for the others, or when the whole data does not validate (each fold then works
        alone)."""
        if not self.grid_fold_whole:
            return None
        try:
            return self._grid_data(X, y)
        except (ValueError, TypeError):
            return None

    def iter_fit_grid_halving(self, fits: Sequence[tuple[Any, Any]],
                              points: Sequence[dict[str, Any]],
                              rungs: Callable[[int, int], Sequence[int]],
                              judge: Callable[[int, dict[int, list[Any]]], Collection[int]],
                              max_bytes: int | None = None) -> Iterator[tuple[int, list[Any]]]:
        """``(index into points, [fitted model or exception per training set])`` of the points
        that ``judge`` keeps to the end (module docstring); a point that fails validation is
        yielded at once, with its exception for every set.

        Parameters
        ----------
        fits : sequence of (X, y)
            The training sets, fitted in lockstep (the inner folds' fitting rows).
        points : sequence of dict
            Parameter overrides, one dict per grid point.
        rungs : callable
            ``rungs(n_models, n_iter)``: the iterations, below ``n_iter``, at which a pass of
            ``n_models`` models is judged.
        judge : callable
            ``judge(t, {index: [model at iteration t or exception per set]})``: the indices
            that go on.
        max_bytes : int, default=None
            Memory budget of the passes running at once (one per training set).
        """
        if self.grid_resource is None:
            raise TypeError(f"{type(self).__name__} has no pass that can be paused")
        models, failed = self._grid_points(points)
        for i, exc in failed.items():
            yield i, [exc] * len(fits)
        if not models:
            return
        datas = [self._grid_data(X, y) for X, y in fits]
        budget = None if max_bytes is None else int(max_bytes) // len(fits)
        for group in self._grid_groups(models):
            fixed, per_model, _ = self._grid_folds_pass_bytes(
                datas[0], [models[i] for i in group], len(fits))
            at = 0
            for size in split_sizes(len(group), fixed, per_model, budget):
                part = group[at:at + size]
                at += size
                yield from self._halving_pass(datas, [models[i] for i in part], part, rungs,
                                              judge)

    def _halving_pass(self, datas: list[GridData], models: list[Any], index: list[int],
                      rungs: Callable[[int, int], Sequence[int]],
                      judge: Callable[[int, dict[int, list[Any]]], Collection[int]]
                      ) -> Iterator[tuple[int, list[Any]]]:
        """One pass of ``models`` (the points ``index``) per training set, in lockstep."""
        runs = self._grid_steps_together(datas, models)
        alive = list(range(len(models)))
        n_iter = int(models[0].get_params(deep=False)[self.grid_resource])
        for t in rungs(len(models), n_iter):
            self._grid_steps_run_to(runs, t)
            states = [run.advance(t) for run in runs]
            kept = set(judge(t, {index[p]: [s[p] for s in states] for p in alive}))
            alive = [p for p in alive if index[p] in kept]
            for run in runs:
                run.keep(alive)
        self._grid_steps_run_to(runs, n_iter)
        ends = [run.finish() for run in runs]
        for p in alive:
            yield index[p], [end[p] for end in ends]

    def _grid_pass_steps(self, data: GridData, models: list[Any]) -> Any:
        raise NotImplementedError

    def _grid_steps_together(self, datas: list[GridData], models: list[Any]) -> list[Any]:
        """One paused pass of ``models`` per training set (each set fits its own copies: a
        fitted model must not be another set's)."""
        return [self._grid_pass_steps(data, [clone(m) for m in models]) for data in datas]

    def _grid_steps_run_to(self, runs: list[Any], t: int) -> None:
        """Bring the paused passes to iteration ``t`` together before they are looked at (an
        estimator whose passes share per-iteration work runs them in lockstep); by default
        each pass's ``advance`` gets there alone."""

    def fit_grid_memory_bytes(self, n_samples: int, n_features: int,
                              points: Sequence[dict[str, Any]], max_bytes: int | None = None,
                              n_unlabeled: int | None = None, n_classes: int | None = None
                              ) -> int:
        """Peak bytes of one ``fit_grid`` call, a bound from above: the sum of
        :meth:`grid_memory`."""
        return int(sum(self.grid_memory(n_samples, n_features, points, max_bytes, n_unlabeled,
                                        n_classes)))

    def grid_memory(self, n_samples: int, n_features: int, points: Sequence[dict[str, Any]],
                    max_bytes: int | None = None, n_unlabeled: int | None = None,
                    n_classes: int | None = None) -> GridMemory:
        """The validated data, the largest pass (after splitting under ``max_bytes``) and every
        returned model (``fit_grid`` keeps them all; with ``iter_fit_grid`` the caller may drop
        them). ``n_unlabeled`` defaults to the worst case, every row; ``n_classes``, the data's
        number of classes, is needed where the memory depends on it (the M-* wrappers)."""
        models, _ = self._grid_points(points)
        n_u = n_samples if n_unlabeled is None else int(n_unlabeled)
        peak, kept = 0, 0
        for group in self._grid_groups(models):
            ests = [models[i] for i in group]
            fixed, per_model, keep = self._grid_pass_bytes(n_samples, n_features, n_u, ests)
            sizes = split_sizes(len(group), fixed, per_model, max_bytes)
            peak = max(peak, fixed + per_model * max(sizes))
            kept += keep * len(group)
        return GridMemory(int(self._grid_data_bytes(n_samples, n_features)), int(peak),
                          int(kept))

    def grid_key(self, params: dict[str, Any]) -> tuple:
        """The group of a point with parameters ``params`` (all of them, as ``get_params``):
        points with equal keys are fitted in shared passes."""
        return tuple((k, _hashable(v)) for k, v in sorted(params.items())
                     if k not in self.grid_shared)

    # -- what an estimator implements -----------------------------------------------------------
    def _grid_data(self, X: Any, y: Any) -> GridData:
        raise NotImplementedError

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict) -> list[Any]:
        raise NotImplementedError

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        raise NotImplementedError

    def _grid_data_pass_bytes(self, data: GridData, models: list[Any]) -> PassBytes:
        """The bytes of a pass of ``models`` on ``data``: :meth:`_grid_pass_bytes` of its sizes
        (an estimator whose passes hold more, e.g. ``data.whole``'s shared blocks, says so)."""
        n, d = data.X.shape
        return self._grid_pass_bytes(n, d, int(data.labels.unlabeled.size), models)

    def _grid_data_bytes(self, n_samples: int, n_features: int) -> int:
        """The validated copy of X a call makes (float64 unless the estimator says less)."""
        return 8 * n_samples * n_features

    def _grid_fit_group(self, data: GridData, models: dict[int, Any], max_bytes: int | None,
                        cache: dict) -> Iterator[tuple[int, Any]]:
        """The points of one group, in passes as large as ``max_bytes`` allows."""
        index = list(models)
        fixed, per_model, _ = self._grid_data_pass_bytes(data, list(models.values()))
        at = 0
        for size in split_sizes(len(index), fixed, per_model, max_bytes):
            part = index[at:at + size]
            at += size
            results = self._grid_pass(data, [models[i] for i in part], cache)
            yield from zip(part, results, strict=True)

    def _grid_fit_group_folds(self, datas: list[GridData], models: dict[int, Any],
                              max_bytes: int | None) -> Iterator[tuple[int, int, Any]]:
        """The points of one group on every fold, each part in one ``_grid_pass_folds`` call:
        the folds' passes run together, so the budget holds all of them at once."""
        index = list(models)
        sizes = [self._grid_folds_pass_bytes(data, list(models.values()), len(datas))
                 for data in datas]
        at = 0
        for size in split_sizes(len(index), sum(b.fixed for b in sizes),
                                sum(b.per_model for b in sizes), max_bytes):
            part = index[at:at + size]
            at += size
            # every fold fits its own copies: a fitted model must not be another fold's
            results = self._grid_pass_folds(datas, [[clone(models[i]) for i in part]
                                                    for _ in datas])
            for f, fold in enumerate(results):
                yield from ((f, i, model) for i, model in zip(part, fold, strict=True))

    def _grid_pass_folds(self, datas: list[GridData], models: list[list[Any]]) -> list[list[Any]]:
        """One pass per fold (``models[f]`` on ``datas[f]``), run together: for each fold what
        ``_grid_pass`` gives (an estimator with ``grid_fold_lockstep`` implements it)."""
        return [self._grid_pass(data, fold, {}) for data, fold in zip(datas, models, strict=True)]

    def _grid_folds_pass_bytes(self, data: GridData, models: list[Any], n_folds: int
                               ) -> PassBytes:
        """One fold's share of the bytes of ``n_folds`` passes run together (by default each
        pass's own)."""
        return self._grid_data_pass_bytes(data, models)

    # -- groups ---------------------------------------------------------------------------------
    def _grid_points(self, points: Sequence[dict[str, Any]]
                     ) -> tuple[dict[int, Any], dict[int, Exception]]:
        """Unfitted estimators of the valid points, and the exceptions of the others."""
        models: dict[int, Any] = {}
        failed: dict[int, Exception] = {}
        for i, point in enumerate(points):
            est = clone(self).set_params(**point)  # an unknown name raises here, as it would
            try:
                validate_params(est)
            except (ValueError, TypeError) as exc:
                failed[i] = exc
                continue
            models[i] = est
        return models, failed

    def _grid_groups(self, models: dict[int, Any]) -> list[list[int]]:
        """Indices of the points, grouped by :meth:`grid_key` (first appearance order)."""
        groups: dict[tuple, list[int]] = {}
        for i, est in models.items():
            groups.setdefault(self.grid_key(est.get_params(deep=False)), []).append(i)
        return list(groups.values())
