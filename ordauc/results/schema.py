"""What a study folder holds, declared once: its file names, the columns and statuses of its
tables, and the texts the runner writes into them (cell keys, dataset labels, thresholds) with
their one formatter and their one parser each.

Everything that reads or writes a study folder (the runner, the report, the claims) takes these
names from here, so a file, a column or a status is spelled in one place. A parser here is the
inverse of its formatter: ``parse_key(cell_key(...))`` gives back the parts it was made of, and
the tests check every pair both ways.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# The dataset column holds a config's dataset label: its one formatter and parser live with
# the config's values, below both the config and this package (re-exported here).
from ordauc.config_values import dataset_label as dataset_label
from ordauc.config_values import parse_dataset_label as parse_dataset_label

# -- file names ------------------------------------------------------------------------------
RESULTS_CSV = "results.csv"  # one row per cell, appended as each one finishes
RESULTS_PARQUET = "results.parquet"  # the same rows, typed, written at the end of a run
CURVES_CSV = "curves.csv"  # iterative solvers' checkpoints, one row per (cell, iteration)
TUNING_CSV = "tuning_scores.csv"  # every grid point's score behind a cell's choice
CONFIG_COPY = "config.yaml"  # the study the folder serves, as its YAML was given
STUDY_RECORD = "study.json"  # which config the folder serves (path, stem, SHA-256)
LOGS_DIR = "logs"  # a failed cell's full traceback, one file per key
LOCK_FILE = ".lock"  # held by the one run writing the folder

# -- statuses of a results row ---------------------------------------------------------------
OK = "ok"  # the cell finished: its metrics are results
SKIPPED = "skipped"  # not run (the memory guard, a dataset not fetched, a solver's own limit)
ERROR = "error"  # the fit raised, or its process died
TIMEOUT = "timeout"  # killed past the study's timeout
STATUS_ORDER = (OK, SKIPPED, ERROR, TIMEOUT)  # how a summary lists them
DONE_STATUSES = (OK, SKIPPED)  # failures (error, timeout) are run again
NO_STATUS = "no status"  # how an empty status is named in counts and notes

# -- states of a planned cell, given the rows already in the table (the runner's survey) ------
DONE = "done"
OLDER = "older"  # done by other code: kept unless --rerun-older
MISSING = "missing"
FAILED = "failed"  # its row failed: run again
STALE = "stale"  # settings changed since its row was written: run again
KEPT_STATES = (DONE, OLDER)  # cells whose rows a run keeps as they are

# -- columns ---------------------------------------------------------------------------------
# The columns naming a cell, in table order (every row has them, failed or not).
IDENTITY = ("key", "dataset", "solver", "solver_name", "task", "resampling", "repetition",
            "n_labeled", "n_unlabeled", "n_test", "eval_set")
# What the plan fixes for every row of a cell besides its identity, failed or not.
CELL_FACTS = ("fit_key", "shared_fit", "tuning", "cv_metric", "profile", "split_seed",
              "solver_seed", "config_hash")
TIMES = ("fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb")
# Cells with one fit_key share one fit (a supervised solver); fit_time_basis says what
# fit_time_s is (fit: the model's own fit timed; in_pass or pass_share: a sweep's shared grid
# call, ordauc.experiment.sweep).
FIT = ("fit_key", "shared_fit", "fit_time_basis")
TUNING = ("tuning", "cv_metric", "cv_score", "cv_failed", "cv_message", "n_iter", "warnings",
          "profile", "thresholds")
PROVENANCE = ("ordauc_version", "git_sha", "python", "numpy", "platform", "machine_memory_gb")
TRAILER = ("split_seed", "solver_seed", "config_hash", "ordauc_version", "git_sha", "python",
           "numpy", "platform", "machine_memory_gb", "started_at")
TEXT_COLUMNS = ("key", "fit_key", "fit_time_basis", "dataset", "solver", "solver_name", "task",
                "resampling", "eval_set", "status", "message", "tuning", "cv_metric",
                "cv_message", "warnings", "profile", "thresholds", "config_hash",
                "ordauc_version", "git_sha", "python", "numpy", "platform", "started_at")
# A row that leaves one of these empty names no cell: it is damage, not a row. The side tables
# (curves, tuning scores) start with them, so each side row names its cell.
KEY_FIELDS = ("key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled")
CURVE_COLUMNS = (*KEY_FIELDS, "iteration", "time_s", "metric", "value")
TUNING_COLUMNS = (*KEY_FIELDS, "tuning", "point", "metric", "score")  # then p_<name> columns
REPETITION = "repetition"
LEGACY_REPETITION = "seed"  # what tables written before repetitions were named called it
PARAM_PREFIX = "p_"


def metric_columns() -> list[str]:
    """One column per metric of the registry (``ordauc.metrics.METRICS``), in its order."""
    from ordauc.metrics import METRICS

    return list(METRICS)


def param_column(name: str) -> str:
    """The column of a hyper-parameter: ``p_<name>`` (a name given with its prefix is kept)."""
    return name if name.startswith(PARAM_PREFIX) else f"{PARAM_PREFIX}{name}"


def columns(param_names: Iterable[str]) -> list[str]:
    """The results table's column order: identity, status, metrics, times, fit, tuning,
    ``p_<name>`` sorted, seeds and provenance."""
    params = sorted({param_column(n) for n in param_names})
    return [*IDENTITY, "status", "message", *metric_columns(), *TIMES, *FIT, *TUNING, *params,
            *TRAILER]


def identity_row(values: Mapping[str, Any]) -> dict[str, Any]:
    """The identity and cell facts of a row (:data:`IDENTITY`, :data:`CELL_FACTS`), in that
    order; ``values`` must give exactly those columns, so no writer can name a cell's
    columns otherwise than this schema does."""
    wanted = (*IDENTITY, *CELL_FACTS)
    if set(values) != set(wanted):
        extra, missing = set(values) - set(wanted), set(wanted) - set(values)
        raise ValueError(f"a cell's identity has the columns {', '.join(wanted)}; "
                         f"missing {sorted(missing)}, not in the schema {sorted(extra)}")
    return {column: values[column] for column in wanted}


def repetition_column(names: Iterable[str]) -> str | None:
    """The column numbering a table's repetitions: ``repetition``, or ``seed`` in a table
    written before repetitions were named; None where it has neither."""
    names = set(names)
    for column in (REPETITION, LEGACY_REPETITION):
        if column in names:
            return column
    return None


# -- texts the runner writes, each with its one formatter and its one parser -----------------
def budget_text(n: int | None) -> str:
    """A budget in a key: its number, or ``all`` (every row of its kind)."""
    return "all" if n is None else str(n)


def parse_budget(text: str) -> int | None:
    """The inverse of :func:`budget_text`."""
    if text == "all":
        return None
    if not text.lstrip("-").isdigit():
        raise ValueError(f"{text!r} is not a budget (a whole number or 'all')")
    return int(text)


@dataclass(frozen=True)
class CellKey:
    """The parts of a cell's ``key``: its dataset and solver labels, its repetition, its
    budgets and, where a study selects by several metrics, the selecting one."""

    dataset: str
    solver: str
    repetition: int
    n_labeled: int | None
    n_unlabeled: int | None
    by_metric: str = ""  # '' when the study selects by one metric

    @property
    def text(self) -> str:
        """The key as the results table writes it (:func:`cell_key`)."""
        return cell_key(self.dataset, self.solver, self.repetition, self.n_labeled,
                        self.n_unlabeled, self.by_metric)


def fit_key(dataset: str, solver: str, repetition: int, n_labeled: int | None,
            n_unlabeled: int | None, shares_fit: bool) -> str:
    """The ``fit_key`` column: cells with one fit key share their tuning and fit; a fit that
    serves every unlabeled budget of its labeled set leaves the unlabeled budget out."""
    base = f"{dataset}/{solver}/r{repetition}/l{budget_text(n_labeled)}"
    return base if shares_fit else f"{base}/u{budget_text(n_unlabeled)}"


def cell_key(dataset: str, solver: str, repetition: int, n_labeled: int | None,
             n_unlabeled: int | None, by_metric: str = "") -> str:
    """The ``key`` column: ``<dataset>/<solver>/r<rep>/l<n_l>/u<n_u>``, then
    ``/by-<metric>`` when the study selects by several metrics."""
    base = fit_key(dataset, solver, repetition, n_labeled, n_unlabeled, shares_fit=False)
    return f"{base}/by-{by_metric}" if by_metric else base


def parse_key(key: str) -> CellKey:
    """The parts of a ``key`` written by :func:`cell_key`. The parts are read from the end
    (their prefixes mark them); the dataset label ends at the first ``/`` outside its
    ``[...]`` parameters, so a parameter's value may hold a slash."""
    parts = key.split("/")
    by_metric = ""
    if parts and parts[-1].startswith("by-"):
        by_metric = parts.pop()[3:]
    if len(parts) < 5 or not all(p.startswith(c) for p, c in zip(parts[-3:], "rlu",
                                                                    strict=True)):
        raise ValueError(f"{key!r} is not a cell key (<dataset>/<solver>/r<n>/l<n>/u<n>)")
    head = "/".join(parts[:-3])
    depth, cut = 0, -1
    for i, char in enumerate(head):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "/" and depth == 0:
            cut = i
            break
    if cut <= 0 or cut == len(head) - 1:
        raise ValueError(f"{key!r} is not a cell key (no dataset and solver labels)")
    repetition = parts[-3][1:]
    if not repetition.isdigit():
        raise ValueError(f"{key!r} is not a cell key (repetition {repetition!r})")
    return CellKey(head[:cut], head[cut + 1:], int(repetition), parse_budget(parts[-2][1:]),
                   parse_budget(parts[-1][1:]), by_metric)


def thresholds_text(values: Iterable[float]) -> str:
    """The ``thresholds`` column: a fitted model's b_1;...;b_(k-1), six significant digits."""
    return ";".join(f"{float(v):.6g}" for v in values)


def parse_thresholds(value: object) -> list[float] | None:
    """The floats of a ``thresholds`` field (:func:`thresholds_text`; a comma-separated or
    bracketed list reads too); None where it is empty or unreadable."""
    text = str(value if value is not None else "").strip().strip("[]")
    if not text or text.lower() == "nan":
        return None
    try:
        found = [float(v) for v in text.replace(",", ";").split(";") if v.strip()]
    except ValueError:
        return None
    return found if found and all(math.isfinite(v) for v in found) else None
