"""The plan: every cell (dataset x solver x seed x n_labeled x n_unlabeled) with its seeds.

Seeds follow DESIGN section 6: the split seed hashes (base seed, dataset, seed index, n_labeled,
n_unlabeled), so every solver of a cell sees the same split whatever the order of the config or
the number of workers; the solver's ``random_state`` hashes the split seed with the solver's
registry name. A (dataset, solver) pair is planned only when the solver handles the dataset's
task (``ordauc.solvers.info(name).tasks``); the others are listed as not applicable.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ordauc.config import Config, DatasetSpec, SolverSpec
from ordauc.errors import UserError


def hashed_seed(*parts: Any) -> int:
    """A seed in [0, 2**32) from the SHA-256 of the parts: stable across runs and machines."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def budget_text(n_unlabeled: int | None) -> str:
    return "all" if n_unlabeled is None else str(n_unlabeled)


def split_seed(base_seed: int, dataset: str, seed_index: int, n_labeled: int,
               n_unlabeled: int | None) -> int:
    """The seed of a cell's split, shared by every solver of the cell."""
    return hashed_seed(base_seed, dataset, seed_index, n_labeled, budget_text(n_unlabeled))


def solver_seed(split: int, solver: str) -> int:
    """The ``random_state`` of solver ``solver`` (registry name) on the split seeded ``split``."""
    return hashed_seed(split, solver)


@dataclass(frozen=True)
class Cell:
    """One unit of work: one solver, tuned and fitted on one split of one dataset."""

    dataset: DatasetSpec
    solver: SolverSpec
    task: str
    seed: int
    n_labeled: int
    n_unlabeled: int | None  # None = all the remaining training rows
    split_seed: int
    solver_seed: int
    config_hash: str

    @property
    def key(self) -> str:
        """Unique, readable id of the cell: the results table's ``key`` column."""
        return (f"{self.dataset.label}/{self.solver.label}/s{self.seed}/l{self.n_labeled}"
                f"/u{budget_text(self.n_unlabeled)}")

    @property
    def split_key(self) -> tuple[str, int, int, int | None]:
        """Cells with the same split key share their split."""
        return (self.dataset.label, self.seed, self.n_labeled, self.n_unlabeled)


@dataclass(frozen=True)
class Plan:
    cells: tuple[Cell, ...]
    not_applicable: tuple[tuple[str, str, str, tuple[str, ...]], ...] = field(default=())
    # (dataset label, solver label, dataset task, the solver's tasks)

    @property
    def param_names(self) -> list[str]:
        """Hyper-parameters set in the config (params and grids), over all planned solvers."""
        names = {k for c in self.cells for k in (*c.solver.params, *c.solver.grid)}
        return sorted(names)


def settings_hash(config: Config, dataset: DatasetSpec, solver: SolverSpec) -> str:
    """Hash of everything that shapes a cell's result beyond its key and seeds.

    A finished row whose hash differs from the current config's is stale and is run again.
    The timeout is left out: it decides whether a cell finishes, not what it computes.
    """
    settings = {"dataset": [dataset.name, dataset.params],
                "solver": [solver.name, solver.params, solver.grid],
                "test_size": config.test_size, "evaluate": config.evaluate,
                "labeled_sampling": config.labeled_sampling,
                "cv": [config.cv.folds, config.cv.metric], "seed": config.seed}
    text = json.dumps(settings, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def make_plan(config: Config) -> Plan:
    """Every applicable cell of ``config``, in config order."""
    from ordauc import data, solvers

    cells: list[Cell] = []
    skipped = []
    for dataset in config.datasets:
        task = data.task_of(dataset.name)
        for solver in config.solvers:
            info = solvers.info(solver.name)
            tasks = tuple(info.tasks)
            if task not in tasks:
                skipped.append((dataset.label, solver.label, task, tasks))
                continue
            if config.cv.metric != "auc" and solver.grid and not hasattr(info.cls, "predict"):
                raise UserError(f"cv.metric {config.cv.metric} needs predicted labels, and solver "
                                f"{solver.name!r} has no predict; use cv.metric auc")
            digest = settings_hash(config, dataset, solver)
            for seed in range(config.seeds):
                for n_labeled in config.n_labeled:
                    for n_unlabeled in config.n_unlabeled:
                        split = split_seed(config.seed, dataset.label, seed, n_labeled,
                                           n_unlabeled)
                        cells.append(Cell(dataset, solver, task, seed, n_labeled, n_unlabeled,
                                          split, solver_seed(split, solver.name), digest))
    if not cells:
        raise UserError("no solver of the config handles the task of any of its datasets; "
                        "`ordauc solvers` lists the tasks of each solver")
    return Plan(tuple(cells), tuple(skipped))
