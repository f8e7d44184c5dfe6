"""The folds of a cross-validation in lockstep: one pass per fold, the pool's features shared.

The inner folds of the tuner (:class:`~ordauc.experiment.tuning.InnerCV`) keep every unlabeled
row on their fitting side, and their models share the run seed. So the folds' passes of one
sigma draw the same blocks (block t from (seed, t) alone, :mod:`.random_features`) and keep f on
the same unlabeled pool; what differs is their labeled rows, hence their mini-batches (each
fold draws from its own generator, as its pass alone would) and their models' coefficients.

Run one iteration at a time, fold after fold, the passes share the costliest part of a pass on
a large pool: the features of every unlabeled row against the new block (n_u x block x d
multiply-adds and n_u x block cosines per iteration) are computed by the first fold and read by
the others (:class:`.unlabeled.PoolShare`). Every fold's models are bitwise the ones of its pass
alone: the same features, the same products in the same chunks. Where a fold's pool differs
(a tuner that splits the unlabeled rows too) that fold works alone, still in lockstep.

With 5 folds and 77 models per pass at d = 1,000 the shared part is about 13 times the models'
own on the pool (d against 77 products per feature), so a CV costs about a quarter of five
passes; at d = 18 the models' products dominate and little is saved
(``benchmarks/bench_qsg_cv.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ordauc.solvers.dsg.engine import Divergence, ModelSpec, Pass, QSGResult
from ordauc.solvers.gridfit import GridData, copy_input_attributes
from ordauc.solvers.objective import gamma_vector

__all__ = ["fitted_model", "grid_specs", "outcomes", "run_together"]


def run_together(runs: Sequence[Pass], stop: int) -> None:
    """Run every pass to iteration ``stop``, one iteration at a time, each pass in turn (from
    the earliest pass's iteration: a pass already further waits)."""
    for t in range(min((run.t for run in runs), default=stop) + 1, int(stop) + 1):
        for run in runs:
            run.advance(t)


def grid_specs(models: Sequence[Any], n_classes: int
               ) -> tuple[dict[int, Exception], dict[int, ModelSpec]]:
    """The engine's spec of each estimator of a pass, by position; a gamma list of the wrong
    length fails alone (its exception in the first dict), as its fit would."""
    failed: dict[int, Exception] = {}
    specs: dict[int, ModelSpec] = {}
    for i, est in enumerate(models):
        try:
            gamma_vector(est.gamma, n_classes)
        except ValueError as exc:
            failed[i] = exc
            continue
        specs[i] = est._spec()
    return failed, specs


def fitted_model(est: Any, result: QSGResult | Divergence, data: GridData, shared: bool
                 ) -> Any:
    """The estimator ``est`` fitted from its engine ``result`` on ``data`` (``shared``: its
    pass had several models), or the error its fit would raise when it diverged."""
    if isinstance(result, Divergence):
        return result.error(type(est).__name__)
    est._fitted(result, data.X, data.labels, shared=shared)
    copy_input_attributes(data.validated, est)
    return est


def outcomes(models: Sequence[Any], failed: dict[int, Exception], positions: Sequence[int],
             results: Sequence[QSGResult | Divergence], data: GridData) -> list[Any]:
    """Per estimator of a pass on ``data``, in order: its exception, or its
    :func:`fitted_model`."""
    out: dict[int, Any] = dict(failed)
    for i, result in zip(positions, results, strict=True):
        out[i] = fitted_model(models[i], result, data, len(positions) > 1)
    return [out[i] for i in range(len(models))]
