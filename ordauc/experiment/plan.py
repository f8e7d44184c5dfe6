"""The plan: every cell (dataset x solver x repetition x n_labeled x n_unlabeled) with its seeds.

Seeds (README, "Resampling and seeds"): the outer seed of a repetition hashes (base seed,
dataset, repetition) and draws its held-out rows or fold assignment (under k-fold resampling it
hashes the repeat instead, so the k folds of one repeat share one assignment and together hold
out every row exactly once); the inner seed hashes
(base seed, dataset, repetition, n_labeled) and draws the labeled rows and the order in which
unlabeled rows are added, so unlabeled sets of growing size nest over one labeled set. Every
solver of a repetition and budget sees the same split, whatever the order of the config or the
number of workers; a solver's ``random_state`` hashes the inner seed with its registry name.
A (dataset, solver) pair is planned only when the solver handles the dataset's task; the others
are listed as not applicable.

A supervised solver (``meta.uses_unlabeled`` false) trains on the labeled rows alone, so its
cells that differ only in ``n_unlabeled`` share one fit (:attr:`Cell.fit_key`): it is tuned and
fitted once per (dataset, repetition, n_labeled), and every ``n_unlabeled`` row is scored on its
own evaluation set. The exception is a solver tuned on the evaluation rows (``tuning: test``)
when those rows are the unlabeled ones (``evaluate: unlabeled``): its choice depends on
``n_unlabeled``, so each cell fits its own. A semi-supervised solver may narrow
``uses_unlabeled`` per configuration: one whose solver spec (fixed parameters and grid) reads
no unlabeled row, e.g. QSG with gamma = 1 (:func:`~ordauc.solvers._base.reads_unlabeled`), is
planned as a supervised one, since its model is the same without the unlabeled rows; except
under ``preprocess: standardize``, where the unlabeled rows are part of the statistics its
features are scaled by (:func:`labeled_only`). Its settings hash does not depend on this, so
rows made when it was fitted per ``n_unlabeled`` stay done.

The profile (``ordauc run --profile``): ``paper`` plans every repetition and searches each grid
in full; ``quick`` plans the first :data:`~ordauc.experiment.halving.QUICK_REPEATS`
repetitions of each dataset (the same splits as paper's: seeds hash the cell, not the plan)
and searches by successive halving (:mod:`ordauc.experiment.halving`). A quick cell's settings
hash includes the profile, so paper and quick rows never stand for each other; a paper cell's
hash is what it was before profiles existed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from sklearn.model_selection import ParameterGrid

from ordauc.config import Config, DatasetSpec, ResamplingSpec, SolverSpec, TuningSpec
from ordauc.errors import UserError
from ordauc.experiment.halving import PROFILES, QUICK, QUICK_REPEATS
from ordauc.results.schema import budget_text, cell_key, fit_key
from ordauc.splits import Split, SplitSeeds, make_split


def hashed_seed(*parts: Any) -> int:
    """A seed in [0, 2**32) from the SHA-256 of the parts: stable across runs and machines."""
    text = "|".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def split_seeds(base_seed: int, dataset: str, repetition: int, n_labeled: int | None,
                folds: int | None = None) -> SplitSeeds:
    """The seeds of a repetition's split (n_unlabeled is left out: unlabeled sets nest).

    With ``folds`` (k-fold resampling) the outer seed is that of the repeat
    ``repetition // folds``: one fold assignment for the k folds of a repeat.
    """
    draw = repetition if folds is None else repetition // folds
    return SplitSeeds(outer=hashed_seed(base_seed, dataset, "outer", draw),
                      inner=hashed_seed(base_seed, dataset, repetition, budget_text(n_labeled)))


def solver_seed(split: int, solver: str) -> int:
    """The ``random_state`` of solver ``solver`` (registry name) on the split seeded ``split``."""
    return hashed_seed(split, solver)


def is_tuned(solver: SolverSpec) -> bool:
    """The one place that decides whether a solver's cells search a grid."""
    return len(ParameterGrid(solver.grid)) > 1


@dataclass(frozen=True)
class Cell:
    """One unit of work: one solver, tuned and fitted on one split of one dataset."""

    dataset: DatasetSpec
    solver: SolverSpec
    tuning: TuningSpec
    task: str
    repetition: int
    n_labeled: int | None  # None = every training row labeled
    n_unlabeled: int | None  # None = all the remaining training rows
    seeds: SplitSeeds
    solver_seed: int
    config_hash: str
    labeled_only: bool = False  # fitted on the labeled rows alone (:func:`labeled_only`)
    shares_fit: bool = False  # its fit serves every n_unlabeled of its labeled set
    cv_metric: str = ""  # the metric that selects this row's point ('' when untuned)
    by_metric: bool = False  # the study selects by several metrics: one cell per metric
    resampling: ResamplingSpec = ResamplingSpec()  # the dataset's, train_size resolved
    profile: str = "paper"  # or "quick": successive halving, the first repetitions

    @property
    def key(self) -> str:
        """Unique, readable id of the cell: the results table's ``key`` column (ending in
        ``/by-<metric>`` when a study selects by several metrics)."""
        return cell_key(self.dataset.label, self.solver.label, self.repetition,
                        self.n_labeled, self.n_unlabeled,
                        self.cv_metric if self.by_metric else "")

    @property
    def fit_key(self) -> str:
        """Cells with the same fit key share their tuning, and their fit wherever they chose
        the same point (the ``fit_key`` column): those of several selection metrics, and for a
        solver fitted on the labeled rows alone, those of every ``n_unlabeled``."""
        return fit_key(self.dataset.label, self.solver.label, self.repetition,
                       self.n_labeled, self.n_unlabeled, self.shares_fit)

    @property
    def split_key(self) -> tuple[str, int, int | None, int | None]:
        """Cells with the same split key share their split."""
        return (self.dataset.label, self.repetition, self.n_labeled, self.n_unlabeled)

    @property
    def tuned(self) -> bool:
        return is_tuned(self.solver)


@dataclass(frozen=True)
class Plan:
    cells: tuple[Cell, ...]
    not_applicable: tuple[tuple[str, str, str, tuple[str, ...]], ...] = field(default=())
    # (dataset label, solver label, dataset task, the solver's tasks)

    def fits(self) -> list[tuple[Cell, ...]]:
        """The cells grouped by the fit they share (:attr:`Cell.fit_key`), in plan order."""
        groups: dict[str, list[Cell]] = {}
        for cell in self.cells:
            groups.setdefault(cell.fit_key, []).append(cell)
        return [tuple(group) for group in groups.values()]

    @property
    def param_names(self) -> list[str]:
        """Every parameter of every planned solver: the ``p_*`` columns of the table."""
        from ordauc import solvers

        names = {k for name in {c.solver.name for c in self.cells}
                 for k in solvers.info(name).defaults}
        return sorted(names)


def settings_hash(config: Config, dataset: DatasetSpec, solver: SolverSpec,
                  metric: str | None = None, profile: str = "paper") -> str:
    """Hash of everything that shapes a cell's result beyond its key and seeds.

    A finished row whose hash differs from the current config's is stale and is run again.
    The timeout and the memory limit are left out: they decide whether a cell finishes, not
    what it computes; of the selection metrics, only the row's own (``metric``; the first
    when None) counts, so adding a metric to a study adds rows and keeps the others. A
    profile other than ``paper`` is hashed with its halving parameters; ``paper`` adds nothing,
    so rows made before profiles existed stay done.
    """
    r = resolved_resampling(config, dataset)
    tuning = config.tuning_of(solver)
    resampling: list[Any] = [r.kind, r.folds, r.test_size, r.sampling]
    if r.train_size is not None:
        resampling.append(r.train_size)
    settings = {"dataset": [dataset.name, dataset.params],
                "solver": [solver.name, solver.params, solver.grid],
                "resampling": resampling,
                "evaluate": config.evaluate, "preprocess": config.preprocess,
                "tuning": [tuning.kind, tuning.folds, metric or tuning.metrics[0],
                           tuning.shared],
                "curves": (config.curves_every if config.curves_until is None
                           else [config.curves_every, config.curves_until]),
                **({"curves_sample": config.curves_sample} if config.curves_sample else {}),
                **({"curves_spacing": config.curves_spacing}
                   if config.curves_spacing != "linear" else {}),
                **({"curves_reference": config.curves_reference}
                   if config.curves_reference else {}),
                "seed": config.seed}
    if profile != "paper":
        settings["profile"] = [profile, QUICK.factor, QUICK.min_resources,
                               QUICK.aggressive_elimination]
    text = json.dumps(settings, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def resolved_resampling(config: Config, dataset: DatasetSpec) -> ResamplingSpec:
    """The dataset's resampling (its own, else the study's) with ``train_size: catalogue``
    replaced by the number of training rows the catalogue publishes for it."""
    r = config.resampling_of(dataset)
    if r.train_size != "catalogue":
        return r
    from ordauc import data

    sizes = data.entry(dataset.name).options.get("split")
    if not sizes:
        raise UserError(f"dataset {dataset.label!r} has no published train/test sizes, so "
                        "resampling.train_size cannot be catalogue; give a number of rows")
    return replace(r, train_size=int(sizes[0]))


def repetitions(config: Config, dataset: DatasetSpec, data_dir: str | None) -> list[int]:
    """The repetition numbers of ``dataset`` under its resampling."""
    r = config.resampling_of(dataset)
    if r.kind == "budget":
        return list(range(r.repeats))
    if r.kind == "kfold":
        return list(range(r.folds * r.repeats))
    from ordauc import data

    published = data.partition_indices(dataset.name, data_dir, **dataset.params)
    if r.partitions is None:
        return published
    missing = [p for p in r.partitions if p not in published]
    if missing:
        raise UserError(f"dataset {dataset.label!r} has no partition {missing[0]}; its "
                        f"partitions are {published[0]}..{published[-1]}")
    return list(r.partitions)


def labeled_only(config: Config, solver: SolverSpec) -> bool:
    """Whether ``solver``'s cells train on the labeled rows alone (module docstring): it is
    supervised, or its spec reads no unlabeled row (the solver class says so) and the study
    does not standardize by the training rows, which would include the unlabeled ones."""
    from ordauc import solvers
    from ordauc.solvers._base import reads_unlabeled

    info = solvers.info(solver.name)
    if not info.meta.uses_unlabeled:
        return True
    if config.preprocess == "standardize":
        return False
    return not reads_unlabeled(info.cls, solver.params, solver.grid)


def make_plan(config: Config, data_dir: str | None = None, profile: str = "paper") -> Plan:
    """Every applicable cell of ``config``, in config order, under ``profile`` (module
    docstring)."""
    from ordauc import data, solvers

    if profile not in PROFILES:
        raise UserError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    cells: list[Cell] = []
    skipped = []
    for dataset in config.datasets:
        if "partition" in dataset.params:
            raise UserError(f"dataset {dataset.label!r}: choose partitions with resampling: "
                            "{kind: partitions}, where each one is a repetition")
        r = resolved_resampling(config, dataset)
        task = data.task_of(dataset.name)
        reps = repetitions(config, dataset, data_dir)
        if profile == "quick":
            reps = reps[:QUICK_REPEATS]
        for solver in config.solvers:
            info = solvers.info(solver.name)
            if task not in info.tasks:
                skipped.append((dataset.label, solver.label, task, info.tasks))
                continue
            tuning = config.tuning_of(solver)
            tuned = is_tuned(solver)
            for metric in tuning.metrics:
                _check_metric(metric, solver, info.cls, tuned)
            selections = tuning.metrics if tuned else ("",)
            digests = {m: settings_hash(config, dataset, solver, m or None, profile)
                       for m in selections}
            labeled = labeled_only(config, solver)
            shares_fit = labeled and not (
                is_tuned(solver) and tuning.kind == "test" and config.evaluate == "unlabeled")
            for rep in reps:
                for n_labeled in r.n_labeled:
                    seeds = split_seeds(config.seed, dataset.label, rep, n_labeled,
                                        r.folds if r.kind == "kfold" else None)
                    for n_unlabeled in r.n_unlabeled:
                        for metric in selections:
                            cells.append(Cell(
                                dataset, solver, tuning, task, rep, n_labeled, n_unlabeled,
                                seeds, solver_seed(seeds.inner, solver.name), digests[metric],
                                labeled_only=labeled, shares_fit=shares_fit,
                                cv_metric=metric, by_metric=len(selections) > 1,
                                resampling=r, profile=profile))
    if not cells:
        raise UserError("no solver of the config handles the task of any of its datasets; "
                        "`ordauc solvers` lists the tasks of each solver")
    return Plan(tuple(cells), tuple(skipped))


def split_of(cell: Cell, dataset: Any, config: Config) -> Split:
    """The cell's split of ``dataset`` (its repetition's training source): the one place a
    split is drawn, for the preflight checks and for the cell itself."""
    r = cell.resampling
    return make_split(dataset.y, kind=r.kind, repetition=cell.repetition,
                      n_labeled=cell.n_labeled, n_unlabeled=cell.n_unlabeled, seeds=cell.seeds,
                      has_official_test=dataset.y_test is not None, test_size=r.test_size,
                      sampling=r.sampling, evaluate=config.evaluate, folds=r.folds,
                      train_size=r.train_size)  # type: ignore[arg-type] - resolved to an int


def _check_metric(metric: str, solver: SolverSpec, cls: type, tuned: bool) -> None:
    from ordauc.metrics import METRICS

    if metric == "own":
        if tuned and not callable(getattr(cls, "score", None)):
            raise UserError(f"tuning metric own needs the solver's own score(X, y), and solver "
                            f"{solver.name!r} has none; tune it on auc, mze or mae")
        return
    needs = METRICS[metric].needs
    method = "decision_function" if needs == "scores" else "predict"
    if tuned and not hasattr(cls, method):
        other = "mze or mae" if needs == "scores" else "auc"
        raise UserError(f"tuning metric {metric} needs {needs} ({method}), and solver "
                        f"{solver.name!r} has no {method}; tune it on {other}")
