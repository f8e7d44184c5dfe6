"""A pass of the QSG engine run in steps: successive halving inside the pass.

:class:`SteppedPass` is an engine pass (:class:`~ordauc.solvers.dsg.engine.Pass`) that can be
paused: ``advance(t)`` runs it to iteration t, ``snapshot()`` gives every model still running
as it stands (its first t blocks), and ``keep(indices)`` drops the others from every array of
the pass (coefficients, step tables, f on the labeled rows, the unlabeled evaluation, the
scratch), so the rest of the pass costs what the kept models cost. A kept model goes on as it
would have: its iterates depend on its own state and on the draws and blocks, which the run
seed alone decides whatever the models (:mod:`.engine`); it ends as its lone fit, up to the
float32 rounding every pass has. :class:`QSGSteps` wraps it for the estimators of
:mod:`.qsg`, turning engine results into fitted estimators, for
:meth:`~ordauc.solvers.gridfit.GridFit.iter_fit_grid_halving`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
from sklearn.base import clone

from ordauc.solvers.dsg.engine import (
    Divergence,
    EngineOptions,
    Pass,
    QSGResult,
)
from ordauc.solvers.dsg.folds import fitted_model, grid_specs
from ordauc.solvers.dsg.schedule import run_seed
from ordauc.solvers.dsg.unlabeled import PoolShare
from ordauc.solvers.gridfit import GridData

__all__ = ["QSGSteps", "SteppedPass"]


class SteppedPass(Pass):
    """An engine pass that can be paused, looked at and thinned (module docstring)."""

    def snapshot(self) -> dict[int, QSGResult | Divergence]:
        """Every model of the pass at the current iteration t (coefficients of blocks 1..t,
        copied), by its index in ``models``, with f on the labeled and tracked rows at t; no
        unlabeled scores or kernel coefficients."""
        out: dict[int, QSGResult | Divergence] = {}
        for i, spec in enumerate(self.models):
            j = int(self.order[i])
            out[j] = self.errors.get(j) or QSGResult(
                self.blocks, self.coef[i][: self.t].copy(), float(self.scale[i]),
                spec.schedule, None, None, *self.running(i))
        return out

    def keep(self, indices: Collection[int]) -> None:
        """Go on with the models ``indices`` (into ``models``) alone."""
        wanted = {int(i) for i in indices}
        cols = [i for i in range(self.M) if int(self.order[i]) in wanted]
        sel = np.array(cols, dtype=np.intp)
        self.order, self.models = self.order[sel], [self.models[i] for i in cols]
        self.w_pn, self.w_u = self.w_pn[:, sel], self.w_u[:, sel]
        self.eta, self.rho, self.step = self.eta[:, sel], self.rho[:, sel], self.step[:, sel]
        self.bound, self.scale, self.alive = self.bound[sel], self.scale[sel], self.alive[sel]
        self.coef = [self.coef[i] for i in cols]
        self.f_l = np.ascontiguousarray(self.f_l[:, sel])
        if self.f_v is not None:
            self.f_v = np.ascontiguousarray(self.f_v[:, sel])
        if self.beta is not None:
            self.beta = np.ascontiguousarray(self.beta[:, sel])
        semi = [i for i in cols if i < self.MA]
        if self.unl is not None:
            self.unl = self.unl.keep(semi) if semi else None
        self.M, self.MA = len(cols), len(semi)
        self.errors = {j: e for j, e in self.errors.items() if j in wanted}
        self.over = self.over or not self.alive.any()
        self._buffers()


class QSGSteps:
    """A pass of QSG estimators ``models`` run in steps, the hook ``_grid_pass_steps`` of
    :meth:`~ordauc.solvers.gridfit.GridFit.iter_fit_grid_halving`: the models fitted so far at
    each step, those kept going on; a gamma list of the wrong length fails alone, as in the
    estimators' ``_grid_pass``. ``track``: the float32 rows whose decision values every model
    carries (``tracked_decision_``), or None; ``share``: what the passes of the other training
    sets share with this one (:class:`.unlabeled.PoolShare`), when run in lockstep."""

    def __init__(self, data: GridData, models: list[Any], options: EngineOptions,
                 track: np.ndarray | None = None, share: PoolShare | None = None) -> None:
        self.data, self.models = data, models
        self.failed, specs = grid_specs(models, data.labels.n_classes)
        self.positions = list(specs)  # the engine's model j is models[positions[j]]
        self.run = (SteppedPass(data.X, data.labels, models[0]._settings(),
                                list(specs.values()), run_seed(models[0].random_state), options,
                                track, share)
                    if specs else None)

    def advance(self, t: int) -> dict[int, Any]:
        """Every model still running, fitted to iteration t (copies: the pass goes on)."""
        out: dict[int, Any] = dict(self.failed)
        if self.run is not None:
            self.run.advance(t)
            for j, result in self.run.snapshot().items():
                out[self.positions[j]] = self._model(clone(self.models[self.positions[j]]),
                                                     result)
        return out

    def keep(self, positions: list[int]) -> None:
        kept = set(positions)
        self.failed = {i: e for i, e in self.failed.items() if i in kept}
        if self.run is not None:
            self.run.keep([j for j, i in enumerate(self.positions) if i in kept])

    def finish(self) -> list[Any]:
        """The kept models at the end (None in place of a dropped one)."""
        out: list[Any] = [None] * len(self.models)
        for i, exc in self.failed.items():
            out[i] = exc
        if self.run is not None:
            self.run.advance(int(self.run.settings.n_iter))
            for j, result in enumerate(self.run.results()):
                if result is not None:
                    out[self.positions[j]] = self._model(self.models[self.positions[j]], result)
        return out

    def _model(self, est: Any, result: QSGResult | Divergence) -> Any:
        return fitted_model(est, result, self.data, len(self.positions) > 1)
