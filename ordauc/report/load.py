"""Read a results folder's ``results.csv`` and name what it holds: solvers, tasks, statuses.

Columns are selected by name. Solvers' display names, base solvers and order come from the
solver registry (:func:`ordauc.solvers.meta_of`), through the table's ``solver_name`` column,
never from a list kept here. ``solver_name`` is a registry name or, for a solver a study brings
along, an import path ``package.module:Class``; a solver the registry cannot describe keeps its
label and is still drawn and tabulated. The table is read with the runner's own reader, so
``ordauc plot`` sees exactly the rows a rerun would keep (a damaged line is refused by its
number, never guessed at). Every problem with the input raises
:class:`ordauc.errors.UserError` with one sentence, before anything is written.

Statuses are cleaned here, once: every table, statistic and figure takes the table as
:func:`load_results` returns it, so ``status`` holds ``ok`` or a lower-case failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.experiment.results import CONFIG_COPY, TEXT_COLUMNS, read_table, table_frame
from ordauc.solvers import meta_of
from ordauc.solvers import names as solver_registry_names

if TYPE_CHECKING:
    from ordauc.config import Config
    from ordauc.solvers import SolverMeta

RESULTS_FILE = "results.csv"
REQUIRED_COLUMNS = ("dataset", "solver", "n_labeled", "n_unlabeled", "status", "auc", "fit_time_s")
OK = "ok"  # the status of a finished run
NO_STATUS = "no status"  # how an empty status is named in counts and notes

Names = Mapping[str, str]  # solver label (``solver`` column) -> registry name or import path


def registry_names(table: pd.DataFrame) -> pd.Series:
    """Per row, the solver that ran: ``solver_name`` (a registry name or an import path), or the
    label where the table has no such column or the row leaves it empty."""
    labels = table["solver"].astype(str)
    if "solver_name" not in table.columns:
        return labels
    names = table["solver_name"]
    return names.astype(object).where(names.notna() & (names.astype(str) != ""), labels).astype(str)


def solver_names(table: pd.DataFrame) -> dict[str, str]:
    """Each solver label of a results table and the solver it ran (:func:`registry_names`)."""
    pairs = pd.DataFrame({"solver": table["solver"].astype(str),
                          "name": registry_names(table)}).drop_duplicates()
    return dict(zip(pairs["solver"], pairs["name"], strict=True))


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


def by_selection(rows: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The rows a table or figure of ``metric`` reads.

    A study that selects hyper-parameters by several metrics writes one row per selection
    metric (``cv_metric``; the NPSVOR paper's MZE table is of MZE-tuned models, its MAE table
    of MAE-tuned ones). Per solver: keep its rows selected by ``metric`` where it has some,
    else those of its first selection metric (the first to appear), and always its untuned
    rows. A solver with one selection metric (e.g. one tuned by its own risk beside others
    tuned by AUC) keeps all its rows.
    """
    if "cv_metric" not in rows.columns:
        return rows
    # object first: an all-empty column reads as float, where fillna("") would upcast
    chosen = rows["cv_metric"].astype(object).fillna("").astype(str)
    keep = pd.Series(True, index=rows.index)
    for _, mine in chosen.groupby(rows["solver"].astype(str), sort=False):
        used = [m for m in pd.unique(mine) if m]
        if len(used) > 1:
            wanted = metric if metric in used else used[0]
            keep[mine.index] = (mine == wanted) | (mine == "")
    return rows[keep]


def failure_counts(statuses: pd.Series) -> str:
    """Counts of the statuses of runs that did not finish, most frequent first: ``3 timeout,
    1 error`` (an empty status counts as ``no status``)."""
    counts = statuses.replace("", NO_STATUS).value_counts()
    return ", ".join(f"{n} {s}" for s, n in counts.items())


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
        meta = solver_meta(label, names)
        if meta is not None and meta.tasks == ("ordinal",):
            return "ordinal"
    return "binary"


def load_results(directory: str | Path) -> pd.DataFrame:
    """The results table of ``directory``, checked and with numeric and status columns cleaned.

    Read by :func:`ordauc.experiment.results.read_table`, the runner's own reader, so ``report``
    and ``plot`` see exactly the rows a rerun keeps: a half line a kill left at the end is left
    out, any other damaged line is refused, named by its line number."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(
            f"results folder {str(directory)!r} does not exist; "
            "pass an output folder of `ordauc run`"
        )
    path = directory / RESULTS_FILE
    if not path.exists():  # a folder of that name is named by read_table
        raise UserError(
            f"{str(directory)!r} holds no {RESULTS_FILE}; "
            f"pass an output folder of `ordauc run`, which writes {RESULTS_FILE} there"
        )
    header, rows = read_table(path)
    if not header:
        raise UserError(f"{str(path)!r} is empty; run `ordauc run` to fill it")
    # parameters stay text (a grid may mix numbers and names); another column holds numbers
    # (or booleans) where every filled field is one
    params = [c for c in header if c.startswith("p_")]
    return _clean(table_frame(header, rows, [*TEXT_COLUMNS, *params]), path)


def _clean(table: pd.DataFrame, path: Path) -> pd.DataFrame:
    missing = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing:
        raise UserError(
            f"{str(path)!r} lacks the column(s) {', '.join(missing)}; "
            f"figures and tables need {', '.join(REQUIRED_COLUMNS)}"
        )
    table = table.copy()
    table["dataset"] = table["dataset"].astype(str)
    table["solver"] = table["solver"].astype(str)
    table["status"] = (table["status"].astype(object).fillna("").astype(str)
                       .str.strip().str.lower())  # every reader after this compares with OK
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
    if not (table["status"] == OK).any():
        seen = failure_counts(table["status"]) or "no rows"
        raise UserError(
            f"{str(path)!r} has no row with status ok ({seen}); "
            "figures and tables need at least one finished cell"
        )
    return in_study_order(table, path.parent)


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


def study_config(directory: Path) -> Config | None:
    """The config of the study a results folder serves (the copy ``ordauc run`` keeps there),
    or None where there is no copy (a folder written by hand or by an older ordauc: the figures
    and tables that need it are then left out).

    Raises
    ------
    UserError
        When the copy no longer reads as a config here, e.g. it names an outside solver that
        is not importable in this session: reporting without it would silently change the
        summary's metric and the claims' verdicts, so it is refused, naming the cause and how
        to fix it.
    """
    from ordauc.config import load_config

    path = Path(directory) / CONFIG_COPY
    if not path.is_file():
        return None
    try:
        return load_config(path)
    except UserError as exc:
        reason = str(exc).rstrip(".")
        raise UserError(f"{directory}: its study's config ({path.name}) does not load here "
                        f"({reason}); make the solvers it names importable (e.g. put their "
                        "folder on PYTHONPATH, as when the study ran) and report or plot "
                        "again") from exc


def check_study_configs(directory: Path) -> None:
    """Before any figure or table is written: every study under ``directory`` (the folder
    itself, or each of its subfolders holding a results table) has a config copy that loads
    here, or none (:func:`study_config` raises the one sentence otherwise)."""
    directory = Path(directory)
    folders = ([directory] if (directory / "results.csv").exists() or not directory.is_dir()
               else sorted(p for p in directory.iterdir() if (p / "results.csv").exists()))
    for folder in folders:
        study_config(folder)


def study_order(directory: Path) -> tuple[list[str], list[str]] | None:
    """The dataset and solver labels of the study a results folder serves, in its config's
    order, or None without a readable config copy."""
    config = study_config(directory)
    if config is None:
        return None
    return [d.label for d in config.datasets], [s.label for s in config.solvers]


def in_study_order(table: pd.DataFrame, directory: Path) -> pd.DataFrame:
    """The rows sorted by dataset, then solver, in the study's config order, so tables and
    figures list them as the config does whatever order the cells finished in; labels the
    config does not name (an earlier study's rows) follow in the order they first appear."""
    order = study_order(directory)
    if order is None:
        return table
    keys = []
    for column, labels in zip(("dataset", "solver"), order, strict=True):
        known = {label: i for i, label in enumerate(labels)}
        first = pd.unique(table[column])
        rank = {label: known.get(label, len(known) + i) for i, label in enumerate(first)}
        keys.append(table[column].map(rank))
    position = pd.DataFrame({"d": keys[0], "s": keys[1]}, index=table.index)
    return table.loc[position.sort_values(["d", "s"], kind="stable").index]
