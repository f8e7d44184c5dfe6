"""One cell's model fitted again after the run, as the cell fitted it.

A results table keeps the scores and the chosen hyper-parameters of every cell, not its model.
What needs the model itself afterwards (a figure of a model's decision regions) fits it again
through :func:`refit_cell`, which starts as a cell does (:func:`ordauc.experiment.cell.prepare`):
the cell's split of the dataset, its training rows (the labeled rows then the unlabeled ones,
or the labeled rows alone for a cell planned so), the config's preprocessing fitted on them,
the solver built from its spec with the cell's seed, then the chosen point. The fit runs with
one BLAS thread, as a cell's does, so that its float arithmetic is the cell's. Being the same
model, it scores what the cell's row says; callers can check that on the evaluation rows it
returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ordauc.config import Config
from ordauc.experiment.cell import minmax_scaler, standardized, training_arrays
from ordauc.experiment.plan import Cell, split_of
from ordauc.splits import Split, eval_arrays


@dataclass(frozen=True)
class Refit:
    """A cell's model fitted again, with its split and the map of its input.

    Parameters
    ----------
    model
        The fitted estimator.
    split
        The cell's split of the dataset.
    evaluation
        The cell's evaluation rows, preprocessed as the model's input, and their labels: the
        rows the cell's row was scored on.
    features
        The config's preprocessing as fitted on the training rows: any rows in the dataset's
        raw units (e.g. a grid of the plane to draw the predictions on) to the model's input.
    """

    model: Any
    split: Split
    evaluation: tuple[Any, np.ndarray]
    features: Callable[[Any], Any]


def refit_cell(cell: Cell, dataset: Any, config: Config, params: dict[str, Any]) -> Refit:
    """Fit ``cell``'s solver on its split of ``dataset`` with ``params`` (the hyper-parameters
    its row chose), exactly as the cell fitted it.

    Parameters
    ----------
    cell
        A cell of the plan of ``config``.
    dataset
        The dataset as the cell's repetition sees it (for published partitions, that
        repetition's partition).
    config
        The study's config: its split settings and preprocessing.
    params
        Parameters set on the solver after its spec's and the cell's seed, as the cell set its
        chosen point.

    Returns
    -------
    Refit
        The fitted model, the split, the preprocessed evaluation rows and the preprocessing.
    """
    from ordauc import solvers

    split = split_of(cell, dataset, config)
    X_raw, y = training_arrays(cell, dataset, split)
    features = _preprocessing(config.preprocess, X_raw, dataset)
    X_eval, y_eval = eval_arrays(dataset, split)
    estimator = solvers.get(cell.solver.name, **cell.solver.params)
    if "random_state" in estimator.get_params(deep=False):
        estimator.set_params(random_state=cell.solver_seed)
    with threadpool_limits(limits=1):
        model = estimator.set_params(**params).fit(features(X_raw), y)
    return Refit(model, split, (features(X_eval), y_eval), features)


def _preprocessing(kind: str, X_train: Any, dataset: Any) -> Callable[[Any], Any]:
    """The cell's preprocessing (:func:`~ordauc.experiment.cell.prepare`) as a map of rows:
    z-scores by the training rows' statistics, [0, 1] by the dataset's range, or none. The
    cell's own functions compute it, so that the refit cannot drift from the cell."""
    if kind == "standardize":
        return lambda rows: standardized(X_train, [(rows, None)])[1][0][0]
    if kind == "minmax":
        return minmax_scaler(dataset.X)
    return lambda rows: rows
