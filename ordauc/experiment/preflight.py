"""Pre-flight: every cell's split, inner folds and memory need, before anything runs or is written.

A budget larger than the data, a labeled set that lacks a class, more inner folds than a class
has labeled rows, or a gamma list of the wrong length is a mistake in the config: it is reported
as one :class:`UserError` naming the dataset, repetition and budget, instead of surfacing as a
column of failed cells hours later. A cell whose solver states that one fit needs more memory
than the run allows each cell is not an error but a fact to record: it becomes a ``skipped``
row with the reason, and is never started.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import ParameterGrid

from ordauc.config import Config
from ordauc.errors import UserError
from ordauc.experiment.plan import Cell, Plan, budget_text, split_of
from ordauc.splits import BeyondData, check_labeled, cv_folds, n_eval

DEFAULT_MEMORY_SHARE = 0.8  # of physical memory, when the run sets no limit


@dataclass(frozen=True)
class SplitSizes:
    """What every row of a split's cells reports, even when the cell fails."""

    n_labeled: int
    n_unlabeled: int
    n_test: int
    n_features: int


@dataclass(frozen=True)
class Preflight:
    """Sizes of every split, the cells that the memory guard skips (key -> reason), and the
    bytes each running cell may use."""

    sizes: dict[tuple, SplitSizes]
    skips: dict[str, str] = field(default_factory=dict)
    cell_budget: int | None = None
    dropped: dict[str, str] = field(default_factory=dict)  # key -> why (beyond_data: drop)


def physical_memory() -> int | None:
    """Bytes of physical memory, or None where the platform does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_limit() -> int:
    total = physical_memory()
    return int(DEFAULT_MEMORY_SHARE * total) if total else 8 << 30


def where(cell: Cell) -> str:
    return (f"dataset {cell.dataset.label!r}, repetition {cell.repetition}, n_labeled "
            f"{budget_text(cell.n_labeled)}, n_unlabeled {budget_text(cell.n_unlabeled)}")


def preflight(plan: Plan, config: Config, data_dir: str | os.PathLike[str] | None,
              skip: Collection[str] = (), memory_limit: int | None = None, n_jobs: int = 1
              ) -> Preflight:
    """Check every split of the plan and apply the memory guard; raises :class:`UserError` for
    any split that cannot be drawn or trained on. Datasets named in ``skip`` are left out (a dry
    run plans datasets before they are fetched). Each of ``n_jobs`` parallel cells may use
    ``memory_limit / n_jobs`` bytes."""
    from ordauc import data

    sizes: dict[tuple, SplitSizes] = {}
    dropped: dict[str, str] = {}
    for spec in config.datasets:
        cells = [c for c in plan.cells if c.dataset == spec]
        if not cells or spec.name in skip:
            continue
        loaded: dict[int, object] = {}
        for cell in cells:
            if cell.repetition not in loaded:
                published = cell.resampling.kind == "partitions"
                extra = {"partition": cell.repetition} if published else {}
                loaded[cell.repetition] = data.load(spec.name, data_dir, **spec.params, **extra)
            dataset = loaded[cell.repetition]
            _check_gamma(cell, dataset.n_classes)  # every solver, whoever drew the split
            if cell.split_key in sizes and not cell.tuned:
                continue
            if cell.split_key not in sizes:
                try:
                    sizes[cell.split_key] = _sizes(cell, dataset, config)
                except BeyondData as exc:
                    if cell.resampling.beyond_data != "drop":
                        raise
                    dropped[cell.key] = str(exc)
                    continue
            _check_tuning(cell, dataset, config)
    limit = memory_limit or config.memory_limit or default_memory_limit()
    n_jobs = max(1, n_jobs)
    return Preflight(sizes, memory_skips(plan, sizes, limit, n_jobs), limit // n_jobs, dropped)


def _split(cell: Cell, dataset: object, config: Config):  # noqa: ANN202 - a Split
    try:
        return split_of(cell, dataset, config)
    except UserError as exc:
        raise type(exc)(f"{where(cell)}: {exc}") from None


def _sizes(cell: Cell, dataset: object, config: Config) -> SplitSizes:
    split = _split(cell, dataset, config)
    n_official = 0 if dataset.y_test is None else len(dataset.y_test)
    return SplitSizes(int(split.labeled.size), int(split.unlabeled.size),
                      n_eval(split, n_official), int(dataset.X.shape[1]))


def _check_tuning(cell: Cell, dataset: object, config: Config) -> None:
    """The labeled set holds every class, and the inner folds can be drawn as the cell will."""
    split = _split(cell, dataset, config)
    y_l = np.asarray(dataset.y)[split.labeled]
    inner_cv = cell.tuned and cell.tuning.kind == "cv"
    problem = check_labeled(y_l, np.unique(dataset.y), 2 if inner_cv else 1)
    if problem:
        raise UserError(f"{where(cell)}: {problem}; use resampling sampling: stratified or a "
                        "larger n_labeled")
    if inner_cv:
        try:
            cv_folds(y_l, 0, cell.tuning.folds, cell.seeds.inner)
        except UserError as exc:
            raise UserError(f"{where(cell)}: {exc}") from None


def _check_gamma(cell: Cell, n_classes: int) -> None:
    """A gamma list must give one value per subproblem of the dataset: k - 1 of them."""
    values = [cell.solver.params.get("gamma"), *cell.solver.grid.get("gamma", [])]
    for value in values:
        if isinstance(value, list) and len(value) not in (1, n_classes - 1):
            raise UserError(f"solvers.{cell.solver.label}: gamma {value} has {len(value)} "
                            f"values, and dataset {cell.dataset.label!r} has {n_classes} "
                            f"classes, so k - 1 = {n_classes - 1} subproblems")


def memory_skips(plan: Plan, sizes: dict[tuple, SplitSizes], limit: int, n_jobs: int
                 ) -> dict[str, str]:
    """Cells whose solver needs more than ``limit / n_jobs`` bytes for one fit (the largest over
    its grid), with the reason in the words a results row shows. A supervised solver is sized
    on the labeled rows it trains on."""
    from ordauc import solvers

    share = limit / n_jobs
    skips: dict[str, str] = {}
    for cell in plan.cells:
        size = sizes.get(cell.split_key)
        if size is None:
            continue
        n_train = size.n_labeled + (0 if cell.labeled_only else size.n_unlabeled)
        base = solvers.get(cell.solver.name, **cell.solver.params)
        need = max(base.set_params(**point).fit_memory_bytes(n_train, size.n_features)
                   for point in ParameterGrid(cell.solver.grid))
        if need > share:
            shared = f" ({_gb(limit)} shared by {n_jobs} parallel cells)" if n_jobs > 1 else ""
            skips[cell.key] = (f"needs {_gb(need)} for {n_train:,} training rows x "
                               f"{size.n_features:,} features, limit {_gb(share)}{shared}; "
                               "raise --memory-limit to run it")
    return skips


def _gb(n: float) -> str:
    return f"{n / (1 << 30):.3g} GB"
