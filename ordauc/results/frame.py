"""A results folder's table as a typed frame, and what its rows say about themselves.

:func:`load_results` is how the report and the claims read a study's results: with the runner's
own reader (:func:`ordauc.results.read.read_table`), so they see exactly the rows a rerun would
keep (a damaged line is refused by its number, never guessed at), typed
(:func:`ordauc.results.read.table_frame`), checked, and with statuses cleaned once, so that
``status`` holds ``ok`` or a lower-case failure for every table, statistic, figure and claim
after it. Every problem with the input raises :class:`ordauc.errors.UserError` with one
sentence, before anything is written. The rows are put in the order of the study's config (its
copy in the folder), whatever order the cells finished in.

The rest reads columns the runner writes: which solver a label ran (``solver_name``), which
rows a metric's table reads (``cv_metric``), how failures are counted (``status``), how labels
of one solver group into variants (``solver``, ``tuning``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.results.read import read_table, table_frame
from ordauc.results.schema import (
    CONFIG_COPY,
    NO_STATUS,
    OK,
    PARAM_PREFIX,
    RESULTS_CSV,
    TEXT_COLUMNS,
)

if TYPE_CHECKING:
    from ordauc.config import Config


REQUIRED_COLUMNS = ("dataset", "solver", "n_labeled", "n_unlabeled", "status", "auc", "fit_time_s")


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


def load_results(directory: str | Path) -> pd.DataFrame:
    """The results table of ``directory``, checked and with numeric and status columns cleaned.

    Read by :func:`ordauc.results.read.read_table`, the runner's own reader, so ``report``
    and ``plot`` see exactly the rows a rerun keeps: a half line a kill left at the end is left
    out, any other damaged line is refused, named by its line number."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(
            f"results folder {str(directory)!r} does not exist; "
            "pass an output folder of `ordauc run`"
        )
    path = directory / RESULTS_CSV
    if not path.exists():  # a folder of that name is named by read_table
        raise UserError(
            f"{str(directory)!r} holds no {RESULTS_CSV}; "
            f"pass an output folder of `ordauc run`, which writes {RESULTS_CSV} there"
        )
    header, rows = read_table(path)
    if not header:
        raise UserError(f"{str(path)!r} is empty; run `ordauc run` to fill it")
    # parameters stay text (a grid may mix numbers and names); another column holds numbers
    # (or booleans) where every filled field is one
    params = [c for c in header if c.startswith(PARAM_PREFIX)]
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
    from ordauc.results.folder import StudyFolder

    for folder in StudyFolder(Path(directory)).studies():
        study_config(folder.path)


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


def _variant_of(label: str, name: str) -> str:
    return label[len(name):] if label.startswith(name) else f"_{label}"


def _tuning_of(rows: pd.DataFrame) -> str:
    if "tuning" not in rows.columns:
        return ""
    kinds = rows["tuning"].dropna().astype(str)
    return str(kinds.mode().iloc[0]) if len(kinds) else ""


def label_variants(rows: pd.DataFrame) -> dict[tuple[str, str], dict[str, str]]:
    """(variant, tuning) -> {registry name: label}, in the order labels first appear; ``rows``
    has the registry name of each row in a ``registry`` column. The variant is what a label
    adds to its registry name (``_paper``), the tuning the rows' most common tuning kind."""
    variants: dict[tuple[str, str], dict[str, str]] = {}
    for label in pd.unique(rows["solver"]):
        mine = rows[rows["solver"] == label]
        name = str(mine["registry"].iloc[0])
        key = (_variant_of(str(label), name), _tuning_of(mine))
        labels = variants.setdefault(key, {})
        if name in labels:  # two labels of one solver in one variant: keep both apart
            key = (f"_{label}", key[1])
            labels = variants.setdefault(key, {})
        labels[name] = str(label)
    return variants
