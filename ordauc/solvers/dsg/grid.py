"""The QSG estimators' side of :mod:`ordauc.solvers.gridfit`: many (lam, gamma, schedule)
points of one sigma and seed in one engine pass (:mod:`.engine`), the folds of a
cross-validation in lockstep (:mod:`.folds`), a pass run in steps for successive halving
(:mod:`.steps`), and what each of them holds in memory.

:class:`QSGGridFit` is mixed into the estimators of :mod:`.qsg`; it relies on their
``_settings()``, ``_spec()`` and ``_fitted(result, X, labels, shared)`` and on the class
attribute ``engine_options``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import clone

from ordauc.solvers._labels import split_labels
from ordauc.solvers._validation import fit_input, predict_input
from ordauc.solvers.dsg.engine import (
    EngineOptions,
    Pass,
    pass_bytes,
    run_pass,
)
from ordauc.solvers.dsg.folds import grid_specs, outcomes, run_together
from ordauc.solvers.dsg.random_features import feature_width
from ordauc.solvers.dsg.schedule import run_seed
from ordauc.solvers.dsg.steps import QSGSteps
from ordauc.solvers.dsg.unlabeled import PoolShare, pool_start
from ordauc.solvers.gridfit import GridData, GridFit, PassBytes

__all__ = ["QSGGridFit"]


class QSGGridFit(GridFit):
    """The grid hooks of the QSG estimators (module docstring)."""

    engine_options: ClassVar[EngineOptions]
    grid_shared = frozenset({"lam", "gamma", "step", "theta", "t0", "theta_decay"})
    grid_resource = "n_iter"  # a pass can be paused between iterations (successive halving)
    grid_fold_lockstep = True  # a CV's folds share the blocks and the pool's features (.folds)

    def _grid_data(self, X: Any, y: Any) -> GridData:
        validated = clone(self)  # input validation sets attributes: never on self
        X, y = fit_input(validated, X, y, np.float32)
        return GridData(X, y, split_labels(y, self._task), validated)

    def _grid_pass(self, data: GridData, models: list[Any], cache: dict) -> list[Any]:
        failed, specs = grid_specs(models, data.labels.n_classes)
        results = (run_pass(data.X, data.labels, models[0]._settings(), list(specs.values()),
                            run_seed(models[0].random_state), self.engine_options,
                            track=self._grid_track(data)) if specs else [])
        return outcomes(models, failed, list(specs), results, data)

    def _grid_pass_folds(self, datas: list[GridData], models: list[list[Any]]
                         ) -> list[list[Any]]:
        """The folds' passes in lockstep, sharing the pool's features (:mod:`.folds`)."""
        share, runs, parts = PoolShare(), [], []
        for data, fold in zip(datas, models, strict=True):
            failed, specs = grid_specs(fold, data.labels.n_classes)
            run = (Pass(data.X, data.labels, fold[0]._settings(), list(specs.values()),
                        run_seed(fold[0].random_state), self.engine_options,
                        self._grid_track(data), share) if specs else None)
            runs.append(run)
            parts.append((failed, specs))
        run_together([run for run in runs if run is not None], int(models[0][0].n_iter))
        return [outcomes(fold, failed, list(specs), [] if run is None else run.results(), data)
                for data, fold, run, (failed, specs) in zip(datas, models, runs, parts,
                                                            strict=True)]

    def _grid_pass_steps(self, data: GridData, models: list[Any]) -> QSGSteps:
        return QSGSteps(data, models, self.engine_options, self._grid_track(data))

    def _grid_steps_together(self, datas: list[GridData], models: list[Any]
                             ) -> list[QSGSteps]:
        """The training sets' paused passes sharing the blocks and the pool's features."""
        share = PoolShare()
        return [QSGSteps(data, [clone(m) for m in models], self.engine_options,
                         self._grid_track(data), share) for data in datas]

    def _grid_steps_run_to(self, runs: list[QSGSteps], t: int) -> None:
        run_together([r.run for r in runs if r.run is not None], t)

    @staticmethod
    def _grid_track(data: GridData) -> np.ndarray | None:
        """The rows a pass tracks (``data.track``), validated as ``decision_function``
        validates its input: float32, dense, the training data's features (no rows: an empty
        array of decision values, where ``decision_function`` would refuse)."""
        track = data.track
        if track is None:
            return None
        if (track.shape[0] if hasattr(track, "shape") else len(track)) == 0:
            return np.empty((0, data.X.shape[1]), dtype=np.float32)
        return predict_input(data.validated, track, np.float32)

    def _grid_pass_bytes(self, n_samples: int, n_features: int, n_unlabeled: int,
                         models: list[Any]) -> PassBytes:
        supervised = all(np.all(np.asarray(e.gamma, dtype=float) == 1.0) for e in models)
        return PassBytes(*pass_bytes(models[0]._settings(), n_samples, n_features, n_unlabeled,
                                     supervised, self.engine_options.pool))

    def _grid_folds_pass_bytes(self, data: GridData, models: list[Any], n_folds: int
                               ) -> PassBytes:
        """A fold's pass and its share of the pool's features kept for the folds
        (:class:`.unlabeled.PoolShare`, when the pool is kept)."""
        own = self._grid_data_pass_bytes(data, models)
        settings, n_u = models[0]._settings(), int(data.labels.unlabeled.size)
        pooled = pool_start(n_u, settings.batch_size, settings.n_iter,
                            self.engine_options.pool) <= settings.n_iter
        share = (PoolShare.bytes(n_u, feature_width(settings.block_size, settings.feature_map))
                 if pooled else 0)
        return own._replace(fixed=own.fixed + -(-share // max(1, n_folds)))

    def _grid_data_bytes(self, n_samples: int, n_features: int) -> int:
        return 4 * n_samples * n_features  # the float32 copy
