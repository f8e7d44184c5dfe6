"""The results table: ``results.csv`` appended cell by cell, ``results.parquet`` at the end;
``curves.csv``, iterative solvers' checkpoints, through the same append-only code.

Crash safety rests on three rules. Only the runner's parent process writes. Each finished cell
is one complete line written by one ``os.write`` on an ``O_APPEND`` descriptor, then fsync'ed.
Every other change (creation, a wider header, dropping rows of cells to run again, repairing a
half line left by a kill) writes a temporary file and renames it over the table. So a kill at
any moment leaves at worst one half line at the end, which the next run cuts off.
"""

from __future__ import annotations

import csv
import io
import math
import os
import platform
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.errors import UserError

CSV_NAME = "results.csv"
PARQUET_NAME = "results.parquet"

CURVES_NAME = "curves.csv"
CONFIG_COPY = "config.yaml"  # the study the folder serves, as its YAML was given

IDENTITY = ["key", "dataset", "solver", "solver_name", "task", "resampling", "repetition",
            "n_labeled", "n_unlabeled", "n_test", "eval_set"]
TIMES = ["fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb"]
FIT = ["fit_key", "shared_fit"]  # cells with one fit_key share one fit (a supervised solver)
TUNING = ["tuning", "cv_metric", "cv_score", "cv_failed", "cv_message", "n_iter", "warnings"]
TRAILER = ["split_seed", "solver_seed", "config_hash", "ordauc_version", "git_sha", "python",
           "numpy", "platform", "started_at"]
TEXT_COLUMNS = ["key", "fit_key", "dataset", "solver", "solver_name", "task", "resampling",
                "eval_set",
                "status", "message", "tuning", "cv_metric", "cv_message", "warnings",
                "config_hash", "ordauc_version", "git_sha", "python", "numpy", "platform",
                "started_at"]
CURVE_COLUMNS = ["key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled",
                 "iteration", "time_s", "metric", "value"]
TUNING_NAME = "tuning_scores.csv"
TUNING_COLUMNS = ["key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled",
                  "tuning", "point", "metric", "score"]  # then the point's p_<name> columns
DONE_STATUSES = ("ok", "skipped")  # failures (error, timeout) are run again


def metric_columns() -> list[str]:
    """One column per metric of the registry (``ordauc.metrics.METRICS``), in its order."""
    from ordauc.metrics import METRICS

    return list(METRICS)


def columns(param_names: Iterable[str]) -> list[str]:
    """Column order: identity, status, metrics, times, tuning, ``p_<name>`` sorted, seeds and
    provenance."""
    params = sorted({f"p_{n}" if not n.startswith("p_") else n for n in param_names})
    return (IDENTITY + ["status", "message"] + metric_columns() + TIMES + FIT + TUNING + params
            + TRAILER)


def provenance() -> dict[str, str]:
    """The provenance columns shared by every row of a run (``started_at`` is per cell)."""
    import ordauc

    return {"ordauc_version": ordauc.__version__, "git_sha": git_sha(),
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform()}


def git_sha() -> str:
    """The commit of the ordauc source tree (``+dirty`` with local edits), or '' outside git."""
    where = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=where, text=True,
                             capture_output=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=where, text=True, capture_output=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return sha + ("+dirty" if dirty.strip() else "")


def cell_text(value: Any) -> str:
    """One CSV field: '' for missing/NaN, shortest round-trip repr for floats, one line."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else repr(float(value))
    return " ".join(str(value).split())


def read_table(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and complete rows of a results CSV, ignoring a trailing half line."""
    raw = path.read_bytes()
    raw = raw[: raw.rfind(b"\n") + 1]
    if not raw:
        return [], []
    reader = csv.reader(io.StringIO(raw.decode("utf-8"), newline=""))
    header = next(reader)
    if "key" not in header:
        raise UserError(f"{str(path)!r} is not a results table of `ordauc run` (it has no key "
                        "column); choose another --out")
    return header, [dict(zip(header, row, strict=False)) for row in reader if row]


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` all at once: temp file, fsync, rename, fsync the folder."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:  # a full disk or a kill mid-write: leave no temporary file behind
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some platforms cannot open folders
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ResultsTable:
    """An append-only CSV of one output folder (``results.csv`` by default), held open by the
    runner; every row has a ``key`` naming its cell."""

    def __init__(self, directory: Path, name: str = CSV_NAME) -> None:
        self.path = Path(directory) / name
        self.header: list[str] = []
        self._fd: int | None = None

    def rows(self) -> list[dict[str, str]]:
        """Complete rows on disk (read-only, no repair)."""
        return read_table(self.path)[1] if self.path.exists() else []

    def open(self, wanted: list[str], drop_keys: set[str] | None = None,
             keep_keys: set[str] | None = None, unique: bool = True) -> None:
        """Make the file hold ``wanted`` columns (and any it had), no row of ``drop_keys`` and,
        when ``keep_keys`` is given, only rows of those keys, repairing a half line and (when
        ``unique``) duplicate keys; then open it for appending."""
        header, rows = read_table(self.path) if self.path.exists() else ([], [])
        merged = _merge_header(header, wanted)
        drop = drop_keys or set()
        kept: dict[Any, dict[str, str]] = {}
        for i, row in enumerate(rows):  # the last row of a key wins: no key listed twice
            if row["key"] in drop or (keep_keys is not None and row["key"] not in keep_keys):
                continue
            slot = row["key"] if unique else i
            kept.pop(slot, None)
            kept[slot] = row
        current = self.path.read_bytes() if self.path.exists() else b""
        if merged != header or len(kept) != len(rows) or not current.endswith(b"\n"):
            self._rewrite(merged, list(kept.values()))
        self.header = merged
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished cell: one complete line, one ``os.write``, then fsync."""
        assert self._fd is not None, "open() the table first"
        data = _lines(self.header, [{k: cell_text(v) for k, v in row.items()}])
        written = os.write(self._fd, data)
        if written != len(data):  # only a full disk does this; never leave a half line behind
            os.ftruncate(self._fd, os.lseek(self._fd, 0, os.SEEK_END) - written)
            raise OSError(f"could not append to {self.path} (disk full?)")
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _rewrite(self, header: list[str], rows: list[dict[str, str]]) -> None:
        write_atomically(self.path, _lines(header, rows, with_header=True))

    def write_parquet(self) -> Path:
        """``results.parquet`` from the CSV, replaced atomically."""
        import pandas as pd

        target = self.path.with_name(PARQUET_NAME)
        header, _ = read_table(self.path)
        text = {c: "string" for c in TEXT_COLUMNS if c in header}
        table = pd.read_csv(self.path, dtype=text, low_memory=False)  # type: ignore[arg-type]
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        table.to_parquet(tmp, index=False)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
        return target


def _merge_header(header: list[str], wanted: list[str]) -> list[str]:
    if "status" not in wanted:  # not a results table: the wanted columns, then any others
        return wanted + [c for c in header if c not in wanted]
    params = [c for c in wanted if c.startswith("p_")] + [c for c in header if c.startswith("p_")]
    merged = columns(params)
    return merged + [c for c in header if c not in merged]


def _lines(header: list[str], rows: list[dict[str, str]], with_header: bool = False) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n", restval="",
                            extrasaction="raise")
    if with_header:
        writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")
