"""What a results table's solvers and tasks are called, and which of its metrics to show.

Columns are selected by name. Solvers' display names, base solvers and order come from the
solver registry (:func:`ordauc.solvers.meta_of`), through the table's ``solver_name`` column,
never from a list kept here. ``solver_name`` is a registry name or, for a solver a study brings
along, an import path ``package.module:Class``; a solver the registry cannot describe keeps its
label and is still drawn and tabulated. The table itself is read, checked and typed by
:func:`ordauc.results.frame.load_results` (statuses cleaned there, once), which every table,
statistic and figure takes as it returns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.results.frame import solver_names, study_config
from ordauc.results.schema import OK, repetition_column
from ordauc.solvers import meta_of
from ordauc.solvers import names as solver_registry_names

if TYPE_CHECKING:
    from ordauc.solvers import SolverMeta

Names = Mapping[str, str]  # solver label (``solver`` column) -> registry name or import path


def solver_meta(solver: str, names: Names | None = None) -> SolverMeta | None:
    """The metadata of the solver a label ran (a registry name, or the label itself without
    ``names``); None when the registry cannot describe it."""
    return meta_of((names or {}).get(solver, solver))


def own_label(solver: str, names: Names | None) -> bool:
    """Whether a label stands for its solver rather than for one configuration of it: the label
    is the registry name, or the solver is an import path (which no label can spell) that no
    other label of the table runs."""
    mapping = names or {}
    name = mapping.get(solver, solver)
    if name == solver:
        return True
    # registry names are identifiers, so a ":" marks an import path
    return ":" in name and sum(n == name for n in mapping.values()) == 1


def _shown(solver: str, names: Names | None) -> str:
    meta = solver_meta(solver, names)
    return meta.display if meta is not None and own_label(solver, names) else solver


def display_name(solver: str, names: Names | None = None) -> str:
    """The papers' name of a solver (``m_samult`` -> ``M-SAMULT``) from its metadata; a label
    that names one configuration among others (a label other than the registry name), or a
    solver without metadata, is shown as the label. Labels that would be shown alike (e.g.
    ``samult`` and a label ``SAMULT``) keep their labels, so every table column and legend
    entry stands for one label of ``names`` (the table's labels)."""
    shown = _shown(solver, names)
    if any(other != solver and _shown(other, names) == shown for other in names or {}):
        return solver
    return shown


def is_wrapper(solver: str, names: Names | None = None) -> bool:
    """Whether the solver is an M-* wrapper of k-1 binary models."""
    meta = solver_meta(solver, names)
    return meta is not None and meta.wrapper_of is not None


def base_solver_of(solver: str, names: Names | None = None) -> str:
    """The binary solver a label runs: a wrapper's (M-SAMULT runs SAMULT), else the solver
    itself (its registry name or import path). Labels with one base solver share a colour."""
    meta = solver_meta(solver, names)
    name = (names or {}).get(solver, solver)
    return meta.wrapper_of if meta is not None and meta.wrapper_of else name


def solver_order(solvers: list[str] | np.ndarray | pd.Series, names: Names | None = None
                 ) -> list[str]:
    """Distinct solvers in plot order: baselines in registry order (those a study brings along
    after them), solvers without metadata, then the papers' own methods (as in their figures)."""
    registry = {name: i for i, name in enumerate(solver_registry_names())}

    def key(label: str) -> tuple[int, int, str]:
        meta = solver_meta(label, names)
        name = (names or {}).get(label, label)
        if meta is None:
            return (1, 0, label)
        return (2 if meta.proposed else 0, registry.get(name, len(registry)), label)

    return sorted({str(s) for s in solvers}, key=key)


def one_budget(rows: pd.DataFrame, size_columns: tuple[str, ...] = ("n_labeled", "n_unlabeled")
               ) -> bool:
    """Whether one dataset's rows ran at one budget: no repetition holds several sizes. Sizes
    that differ only between repetitions are what the resampling left for training (k-fold
    folds of unequal size with ``n_labeled: all``), not budgets of the study."""
    columns = [c for c in size_columns if c in rows.columns]
    repetition = repetition_column(rows.columns)
    if not columns or rows.empty:
        return True
    if repetition is None:
        return len(rows[columns].drop_duplicates()) == 1
    return not bool((rows.groupby(repetition)[columns].nunique() > 1).any(axis=None))


def infer_task(rows: pd.DataFrame) -> str:
    """``"ordinal"`` or ``"binary"`` for one dataset's rows.

    A ``task`` column decides when present; otherwise the ordinal AUC (mean of the k-1
    subproblem AUCs) differs from the C-index only for k > 2, and ordinal-only solvers
    (from the registry) are the last hint.
    """
    if "task" in rows.columns:
        tasks = rows["task"].dropna().astype(str).str.strip().str.lower().unique()
        if len(tasks) == 1 and tasks[0] in ("binary", "ordinal"):
            return str(tasks[0])
    if "c_index" in rows.columns:
        both = rows[["auc", "c_index"]].dropna()
        if (np.abs(both["auc"] - both["c_index"]) > 1e-9).any():
            return "ordinal"
    names = solver_names(rows)
    for label in names:
        meta = solver_meta(label, names)
        if meta is not None and meta.tasks == ("ordinal",):
            return "ordinal"
    return "binary"


def has_values(results: pd.DataFrame, metric: str) -> bool:
    """True when some finished run of ``results`` has a value of ``metric``."""
    if metric not in results.columns or "status" not in results.columns:
        return False
    values = pd.to_numeric(results.loc[results["status"] == OK, metric], errors="coerce")
    return bool(np.isfinite(values).any())


def study_metrics(directory: Path, results: pd.DataFrame) -> tuple[str, ...]:
    """The metrics a study's tables and diagrams show by default: the registry metrics its
    config selects hyper-parameters by (the copy ``ordauc run`` keeps in the folder), else AUC;
    of those, the ones some finished run has. A study without any falls back to MZE and MAE,
    then AUC, whichever its runs have (an untuned study, or a folder without its config)."""
    picked = [m for m in tuned_metrics(directory) if has_values(results, m)]
    if picked:
        return tuple(picked)
    for fallback in (("mze", "mae"), ("auc",)):
        found = [m for m in fallback if has_values(results, m)]
        if found:
            return tuple(found)
    return ("auc",)


def tuned_metrics(directory: Path) -> tuple[str, ...]:
    """The registry metrics the study's config selects hyper-parameters by, in its order
    (none without a readable config copy, or when nothing is tuned)."""
    from ordauc.metrics import METRICS

    chosen: list[str] = []
    config = study_config(Path(directory))
    if config is not None:
        for solver in config.solvers:
            tuning = config.tuning_of(solver)
            if solver.grid:  # only a tuned solver selects by its metrics
                chosen += [m for m in tuning.metrics if m in METRICS]
    return tuple(dict.fromkeys(chosen))


def task_groups(results: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
    """The results split by the task of their datasets when a study mixes binary and ordinal
    data (binary solvers do not apply to ordinal datasets and the reverse, so each task is
    ranked over its own datasets and the solvers that ran on them): ``[(task, rows), ...]``,
    or ``[(None, results)]`` for a study of one task."""
    if "task" not in results.columns:
        return [(None, results)]
    tasks = results["task"].fillna("").astype(str)
    kinds = [t for t in pd.unique(tasks) if t]
    if len(kinds) <= 1:
        return [(None, results)]
    return [(task, results[tasks == task]) for task in kinds]
