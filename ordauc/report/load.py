"""Read a results folder's ``results.csv`` and name what it holds: solvers, tasks, statuses.

Columns are selected by name. Solvers' display names, families and order come from the solver
registry (:func:`ordauc.solvers.meta_of`), through the table's ``solver_name`` column, never
from a list kept here. The table is read with the runner's own reader, so ``ordauc plot`` sees
exactly the rows a rerun would keep. Every problem with the input raises
:class:`ordauc.errors.UserError` with one sentence, before anything is written.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.experiment.results import TEXT_COLUMNS, read_table
from ordauc.solvers import meta_of
from ordauc.solvers import names as solver_registry_names
from ordauc.solvers._base import SolverMeta

RESULTS_FILE = "results.csv"
REQUIRED_COLUMNS = ("dataset", "solver", "n_labeled", "n_unlabeled", "status", "auc", "fit_time_s")
FAILED_STATUSES = ("error", "timeout", "skipped")

Names = Mapping[str, str]  # solver label (the ``solver`` column) -> registry name


def solver_names(table: pd.DataFrame) -> dict[str, str]:
    """Each solver label of a results table and the registry name it ran (``solver_name``);
    a table without that column names solvers by their registry names."""
    if "solver_name" not in table.columns:
        return {str(s): str(s) for s in pd.unique(table["solver"])}
    pairs = table[["solver", "solver_name"]].astype(str).drop_duplicates()
    return dict(zip(pairs["solver"], pairs["solver_name"], strict=True))


def _meta(solver: str, names: Names | None) -> SolverMeta | None:
    return meta_of((names or {}).get(solver, solver))


def display_name(solver: str, names: Names | None = None) -> str:
    """The papers' name of a solver (``m_samult`` -> ``M-SAMULT``) from the registry; a label
    other than the registry name (two configurations of one solver) is shown as it is."""
    meta = _meta(solver, names)
    registry = (names or {}).get(solver, solver)
    return meta.display if meta is not None and registry == solver else solver


def is_wrapper(solver: str, names: Names | None = None) -> bool:
    """Whether the solver is an M-* wrapper of k-1 binary models."""
    meta = _meta(solver, names)
    return meta is not None and meta.wrapper_of is not None


def family_of(solver: str, names: Names | None = None) -> str:
    """The method a solver belongs to: a wrapper's binary solver, else its registry name."""
    meta = _meta(solver, names)
    registry = (names or {}).get(solver, solver)
    return meta.wrapper_of if meta is not None and meta.wrapper_of else registry


def solver_order(solvers: list[str] | np.ndarray | pd.Series, names: Names | None = None
                 ) -> list[str]:
    """Distinct solvers in plot order: baselines in registry order, unknown solvers, then the
    papers' own methods (as in their figures)."""
    registry = {name: i for i, name in enumerate(solver_registry_names())}

    def key(label: str) -> tuple[int, int, str]:
        meta = _meta(label, names)
        name = (names or {}).get(label, label)
        if meta is None:
            return (1, 0, label)
        return (2 if meta.proposed else 0, registry.get(name, 0), label)

    return sorted({str(s) for s in solvers}, key=key)


def one_budget(rows: pd.DataFrame, size_columns: tuple[str, ...] = ("n_labeled", "n_unlabeled")
               ) -> bool:
    """Whether one dataset's rows ran at one budget: no repetition holds several sizes. Sizes
    that differ only between repetitions are what the resampling left for training (k-fold
    folds of unequal size with ``n_labeled: all``), not budgets of the study."""
    columns = [c for c in size_columns if c in rows.columns]
    repetition = next((c for c in ("repetition", "seed") if c in rows.columns), None)
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
        meta = _meta(label, names)
        if meta is not None and meta.tasks == ("ordinal",):
            return "ordinal"
    return "binary"


def load_results(directory: str | Path) -> pd.DataFrame:
    """The results table of ``directory``, checked and with numeric and status columns cleaned."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(
            f"results folder {str(directory)!r} does not exist; "
            "pass an output folder of `ordauc run`"
        )
    path = directory / RESULTS_FILE
    if not path.is_file():
        raise UserError(
            f"{str(directory)!r} holds no {RESULTS_FILE}; "
            f"pass an output folder of `ordauc run`, which writes {RESULTS_FILE} there"
        )
    try:  # the runner's own reader: a row cut mid-line by a kill is left out, as a rerun does
        header, rows = read_table(path)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UserError(f"{str(path)!r} is not a readable CSV table ({exc})") from None
    if not header:
        raise UserError(f"{str(path)!r} is empty; run `ordauc run` to fill it")
    table = pd.DataFrame.from_records(rows, columns=header).replace("", np.nan)
    numeric = [c for c in header if c not in TEXT_COLUMNS and not c.startswith("p_")]
    for column in numeric:  # numbers where every filled field is one; text stays text
        values = pd.to_numeric(table[column], errors="coerce")
        if values.notna().sum() == table[column].notna().sum():
            table[column] = values
    return _clean(table, path)


def _clean(table: pd.DataFrame, path: Path) -> pd.DataFrame:
    missing = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing:
        raise UserError(
            f"{str(path)!r} lacks the column(s) {', '.join(missing)}; "
            f"plots need {', '.join(REQUIRED_COLUMNS)}"
        )
    table = table.copy()
    table["dataset"] = table["dataset"].astype(str)
    table["solver"] = table["solver"].astype(str)
    table["status"] = (table["status"].astype(object).fillna("").astype(str)
                       .str.strip().str.lower())
    if "message" in table.columns:
        # object dtype first: an all-empty column reads as float and fillna("") would upcast
        table["message"] = table["message"].astype(object).fillna("").astype(str)
    else:
        table["message"] = ""
    for column in ("n_labeled", "n_unlabeled"):
        sizes = pd.to_numeric(table[column], errors="coerce")
        bad = sizes.isna() | (sizes < 0) | (sizes != np.round(sizes))
        if bad.any():
            raise UserError(
                f"{str(path)!r} has {int(bad.sum())} row(s) whose {column} is not a "
                "non-negative integer; every row must name its sample sizes"
            )
        table[column] = sizes.astype(np.int64)
    for column in ("auc", "c_index", "mze", "fit_time_s"):
        if column in table.columns:
            table[column] = pd.to_numeric(table[column], errors="coerce")
    if not (table["status"] == "ok").any():
        counts = table["status"].replace("", "empty").value_counts()
        seen = ", ".join(f"{n} {s}" for s, n in counts.items()) or "no rows"
        raise UserError(
            f"{str(path)!r} has no row with status ok ({seen}); "
            "plots need at least one finished cell"
        )
    return table
