"""Pre-flight: build every cell's split from the labels before anything runs or is written.

A budget larger than the data, or a labeled set that lacks a class, is a mistake in the config:
it is reported as one :class:`UserError` naming the dataset, seed and budget, instead of
surfacing as a column of failed cells hours later.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import ParameterGrid

from ordauc.config import Config
from ordauc.errors import UserError
from ordauc.experiment.plan import Plan, budget_text
from ordauc.splits import check_labeled, make_split, n_eval


@dataclass(frozen=True)
class SplitSizes:
    """What every row of a split's cells reports, even when the cell fails."""

    n_unlabeled: int
    n_test: int


def split_options(config: Config) -> dict[str, object]:
    """The keyword arguments of :func:`ordauc.splits.make_split` that come from the config."""
    return {"test_size": config.test_size, "sampling": config.labeled_sampling,
            "evaluate": config.evaluate}


def preflight(plan: Plan, config: Config, data_dir: str | os.PathLike[str] | None,
              skip: Collection[str] = ()
              ) -> dict[tuple[str, int, int, int | None], SplitSizes]:
    """Sizes of every split of the plan; raises :class:`UserError` for any split that cannot be
    drawn or trained on. Datasets named in ``skip`` are left out (a dry run plans datasets
    before they are fetched)."""
    from ordauc import data

    sizes: dict[tuple[str, int, int, int | None], SplitSizes] = {}
    for spec in config.datasets:
        cells = [c for c in plan.cells if c.dataset == spec]
        if not cells or spec.name in skip:
            continue
        dataset = data.load(spec.name, data_dir, **spec.params)
        classes = np.unique(dataset.y)
        tuned = any(len(ParameterGrid(c.solver.grid)) > 1 for c in cells)
        n_official = 0 if dataset.y_test is None else len(dataset.y_test)
        for cell in cells:
            if cell.split_key in sizes:
                continue
            where = (f"dataset {spec.label!r}, seed {cell.seed}, n_labeled {cell.n_labeled}, "
                     f"n_unlabeled {budget_text(cell.n_unlabeled)}")
            try:
                split = make_split(dataset.y, n_labeled=cell.n_labeled,
                                   n_unlabeled=cell.n_unlabeled, seed=cell.split_seed,
                                   has_official_test=dataset.y_test is not None,
                                   **split_options(config))  # type: ignore[arg-type]
            except UserError as exc:
                raise UserError(f"{where}: {exc}") from None
            if tuned and cell.n_labeled < config.cv.folds:
                raise UserError(f"{where}: the inner CV needs at least cv.folds = "
                                f"{config.cv.folds} labeled rows; use a larger n_labeled or "
                                "fewer folds")
            problem = check_labeled(dataset.y[split.labeled], classes, 2 if tuned else 1)
            if problem:
                raise UserError(f"{where}: {problem}; use labeled_sampling: stratified or a "
                                "larger n_labeled")
            sizes[cell.split_key] = SplitSizes(int(split.unlabeled.size),
                                               n_eval(split, n_official))
    return sizes
