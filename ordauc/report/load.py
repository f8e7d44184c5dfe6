"""Read a results folder's ``results.csv`` and name what it holds: solvers, tasks, statuses.

Columns are selected by name (DESIGN §5). Every problem with the input raises
:class:`ordauc.errors.UserError` with one sentence, before anything is written.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ordauc.errors import UserError

RESULTS_FILE = "results.csv"
REQUIRED_COLUMNS = ("dataset", "solver", "n_labeled", "n_unlabeled", "status", "auc", "fit_time_s")
FAILED_STATUSES = ("error", "timeout", "skipped")

DISPLAY_NAMES: dict[str, str] = {
    "qsg_s2auc": "QSG-S2AUC",
    "qs3orao": "QS3ORAO",
    "samult": "SAMULT",
    "m_samult": "M-SAMULT",
    "pnu_auc": "PNU-AUC",
    "m_pnu_auc": "M-PNU-AUC",
    "svorex": "SVOREX",
    "svorim": "SVORIM",
    "npsvor": "NPSVOR",
    "svc1v1": "SVC1V1",
    "svc1va": "SVC1VA",
    "svr": "SVR",
    "cssvc": "CSSVC",
    "svmop": "SVMOP",
    "redsvm": "REDSVM",
    "opbe": "OPBE",
    "auc_sdcd": "AUC-SDCD",
    "auc_sdcdperm": "AUC-SDCDperm",
    "auc_msgd": "AUC-MSGD",
    "oam_inf": "OAM-inf",
    "oam_seq": "OAM-seq",
    "oam_gra": "OAM-gra",
}

# Plot order: baselines first, the papers' own methods last (as in their figures).
_BASELINES_FIRST = (
    "svorex", "svorim", "npsvor", "svc1v1", "svc1va", "svr", "cssvc", "svmop", "redsvm", "opbe",
    "auc_sdcd", "auc_sdcdperm", "auc_msgd", "oam_inf", "oam_seq", "oam_gra",
)
_PAPER_METHODS_LAST = ("pnu_auc", "m_pnu_auc", "samult", "m_samult", "qsg_s2auc", "qs3orao")

# Solvers that only exist for ordinal tasks: the last hint when the rows cannot tell.
_ORDINAL_SOLVERS = frozenset(
    {"qs3orao", "m_samult", "m_pnu_auc", "svorex", "svorim", "npsvor", "redsvm", "svmop", "opbe",
     "cssvc"}
)


def display_name(solver: str) -> str:
    """The papers' name of a solver (``m_samult`` -> ``M-SAMULT``), else the raw name."""
    return DISPLAY_NAMES.get(solver, solver)


def solver_order(solvers: list[str] | np.ndarray | pd.Series) -> list[str]:
    """Distinct solver names in plot order: baselines, unknown solvers, the papers' methods."""

    def key(name: str) -> tuple[int, int, str]:
        if name in _BASELINES_FIRST:
            return (0, _BASELINES_FIRST.index(name), name)
        if name in _PAPER_METHODS_LAST:
            return (2, _PAPER_METHODS_LAST.index(name), name)
        return (1, 0, name)

    return sorted({str(s) for s in solvers}, key=key)


def infer_task(rows: pd.DataFrame) -> str:
    """``"ordinal"`` or ``"binary"`` for one dataset's rows.

    A ``task`` column decides when present; otherwise the ordinal AUC (mean of the k-1
    subproblem AUCs) differs from the C-index only for k > 2, and ordinal-only solvers
    are the last hint.
    """
    if "task" in rows.columns:
        tasks = rows["task"].dropna().astype(str).str.strip().str.lower().unique()
        if len(tasks) == 1 and tasks[0] in ("binary", "ordinal"):
            return str(tasks[0])
    if "c_index" in rows.columns:
        both = rows[["auc", "c_index"]].dropna()
        if (np.abs(both["auc"] - both["c_index"]) > 1e-9).any():
            return "ordinal"
    if rows["solver"].isin(_ORDINAL_SOLVERS).any():
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
    try:
        table = pd.read_csv(path, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"{str(path)!r} is not a readable CSV table ({reason})") from None
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
