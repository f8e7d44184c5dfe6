"""The results table: ``results.csv`` appended cell by cell, ``results.parquet`` at the end;
``curves.csv``, iterative solvers' checkpoints, through the same append-only code.

Crash safety rests on three rules. Only the runner's parent process writes. Each finished cell
is one complete line written by one ``os.write`` on an ``O_APPEND`` descriptor, then fsync'ed.
Every other change (creation, a wider header, dropping rows of cells to run again, repairing a
half line left by a kill) writes a temporary file and renames it over the table. So a kill at
any moment leaves at worst one half line at the end, which the next run cuts off.

Anything else wrong with a line was done to the file from outside (an editor, a copy, a failing
disk): :func:`read_table`, the one reader of every command, names it by its line number and
stops before anything runs or is written, rather than guess which rows it holds. A full disk
(:class:`ordauc.errors.DiskFull`) takes back the line it could not finish and leaves no
temporary file.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import math
import os
import platform
import subprocess
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ordauc.errors import NO_SPACE, DiskFull, UserError

if TYPE_CHECKING:
    import pandas as pd

CSV_NAME = "results.csv"
PARQUET_NAME = "results.parquet"

CURVES_NAME = "curves.csv"
CONFIG_COPY = "config.yaml"  # the study the folder serves, as its YAML was given

IDENTITY = ["key", "dataset", "solver", "solver_name", "task", "resampling", "repetition",
            "n_labeled", "n_unlabeled", "n_test", "eval_set"]
TIMES = ["fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb"]
FIT = ["fit_key", "shared_fit", "fit_time_basis"]  # cells with one fit_key share one fit (a
# supervised solver); fit_time_basis: what fit_time_s is (fit: the model's own fit timed;
# in_pass or pass_share: a sweep's shared grid call, ordauc.experiment.sweep)
TUNING = ["tuning", "cv_metric", "cv_score", "cv_failed", "cv_message", "n_iter", "warnings",
          "profile", "thresholds"]
TRAILER = ["split_seed", "solver_seed", "config_hash", "ordauc_version", "git_sha", "python",
           "numpy", "platform", "machine_memory_gb", "started_at"]
TEXT_COLUMNS = ["key", "fit_key", "fit_time_basis", "dataset", "solver", "solver_name", "task",
                "resampling", "eval_set",
                "status", "message", "tuning", "cv_metric", "cv_message", "warnings", "profile",
                "thresholds", "config_hash", "ordauc_version", "git_sha", "python", "numpy",
                "platform",
                "started_at"]
CURVE_COLUMNS = ["key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled",
                 "iteration", "time_s", "metric", "value"]
TUNING_NAME = "tuning_scores.csv"
TUNING_COLUMNS = ["key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled",
                  "tuning", "point", "metric", "score"]  # then the point's p_<name> columns
DONE_STATUSES = ("ok", "skipped")  # failures (error, timeout) are run again
# A row that leaves one of these empty names no cell: it is damage, not a row (read_table).
KEY_FIELDS = ("key", "dataset", "solver", "repetition", "n_labeled", "n_unlabeled")
KEPT = "every finished cell is kept"  # what a full disk leaves of a run


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
    """The provenance columns shared by every row of a run (``started_at`` is per cell);
    ``machine_memory_gb`` is the machine's physical memory, the fact the papers' memory
    claims are about (a config's ``memory_limit`` is only what the run allowed itself)."""
    import ordauc
    from ordauc.experiment.preflight import physical_memory

    memory = physical_memory()
    return {"ordauc_version": ordauc.__version__, "git_sha": git_sha(),
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(),
            "machine_memory_gb": f"{memory / 1e9:.1f}" if memory else ""}


def git_sha(where: Path | None = None, length: int = 12) -> str:
    """The commit of ``where`` (default: the ordauc source tree), ``length`` hex digits,
    ``+dirty`` when tracked files have local edits; '' outside git."""
    where = where or Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", f"--short={length}", "HEAD"], cwd=where,
                             text=True, capture_output=True, timeout=10, check=True
                             ).stdout.strip()
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
    """Header and rows of a table of ``ordauc run`` (results, curves, tuning scores).

    The one reader of every command (``run``, its dry run, ``report``, ``plot``, the parquet
    copy), so all of them see the same rows. Every row is one line, as the runner writes it
    (:func:`cell_text` keeps each field on one line). The bytes after the last newline are left out
    without a word: that is the half line a kill leaves (see the module docstring), which the
    next run cuts off. Any other damaged line is a :class:`UserError` naming its line number
    (the header is line 1), raised before anything is run or written: a line that is not
    UTF-8, holds NUL bytes, has an unclosed or stray quote, has another number of fields than
    the header, or leaves a field of :data:`KEY_FIELDS` empty. Such a line is never guessed at,
    so it can neither swallow the rows after it nor pass as a row (a run would then recompute
    and append cells it already holds). Blank lines carry nothing and are skipped.
    """
    raw = _read_bytes(path)
    raw = raw[: raw.rfind(b"\n") + 1]
    if not raw:
        return [], []
    lines = _decoded(raw.split(b"\n")[:-1])
    header, problem = _fields(lines[0].lstrip("\ufeff") if lines[0] is not None else None)
    if problem or not header:
        raise UserError(f"{path} line 1, the header, is damaged ({problem or 'it is empty'}); "
                        "repair it, or move the file away to start a new table")
    if "key" not in header:
        raise UserError(f"{str(path)!r} is not a results table of `ordauc run` (it has no key "
                        "column); choose another --out")
    needed = [i for i, column in enumerate(header) if column in KEY_FIELDS]
    rows: list[dict[str, str]] = []
    problems: list[tuple[int, str]] = []
    for number, line in enumerate(lines[1:], start=2):
        fields, problem = _fields(line)
        if not problem and fields and len(fields) != len(header):
            many = "field" if len(fields) == 1 else "fields"
            problem = f"it has {len(fields)} {many} where the header has {len(header)}"
        elif not problem and fields:
            empty = [header[i] for i in needed if not fields[i]]
            if empty:
                problem = f"its {', '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty"
        if problem:
            problems.append((number, problem))
        elif fields:
            rows.append(dict(zip(header, fields, strict=True)))
    if problems:
        raise UserError(_damaged(path, problems))
    return header, rows


def _read_bytes(path: Path) -> bytes:
    if path.is_dir():
        raise UserError(f"{path} is a folder, not a table of `ordauc run`; move or rename that "
                        "folder (a run then starts the table afresh)")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {path} ({exc.strerror or exc}); make it a readable "
                        "file") from None


def _decoded(lines: list[bytes]) -> list[str | None]:
    """Each line as text, None where it is not UTF-8 (decoded whole first: the common case)."""
    try:
        return b"\n".join(lines).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        out: list[str | None] = []
        for line in lines:
            try:
                out.append(line.decode("utf-8"))
            except UnicodeDecodeError:
                out.append(None)
        return out


# How Python's csv module words each quoting problem, and how the user is told.
_QUOTING = {"unexpected end of data": "an unclosed quote",
            "',' expected after '\"'": "a stray quote after a closing quote",
            "new-line character seen in unquoted field": "a stray carriage return"}


def _fields(line: str | None) -> tuple[list[str], str]:
    """The fields of one line and '' (none for a blank line), or [] and what is wrong."""
    if line is None:
        return [], "it is not UTF-8 text"
    line = line[:-1] if line.endswith("\r") else line  # a table saved with CRLF line ends
    if not line.strip():
        return [], ""
    if "\x00" in line:  # zeros are what a crashed file system leaves in a file
        return [], "it holds NUL bytes"
    if '"' not in line and "\r" not in line:  # nothing quoted: a plain split, far faster
        return line.split(","), ""
    try:  # strict: a quote left open is an error here, never a field running on to later lines
        parsed = list(csv.reader([line], strict=True))
    except csv.Error as exc:
        return [], _QUOTING.get(str(exc), str(exc))
    return (parsed[0], "") if len(parsed) == 1 else ([], "it is not one CSV row")


def _damaged(path: Path, problems: list[tuple[int, str]]) -> str:
    """One sentence naming the first damaged line, what is wrong with it, and the others."""
    (first, what), rest = problems[0], problems[1:]
    if not rest:
        return (f"{path} line {first} is damaged ({what}); remove or repair that line, every "
                "other row is kept")
    others = ", ".join(str(n) for n, _ in rest[:5]) + (
        f" and {len(rest) - 5} more" if len(rest) > 5 else "")
    so = "is line" if len(rest) == 1 else "are lines"
    return (f"{path} line {first} is damaged ({what}), and so {so} {others}; remove or repair "
            "those lines, every other row is kept")


def table_frame(header: list[str], rows: list[dict[str, str]],
                text: Collection[str] = TEXT_COLUMNS) -> pd.DataFrame:
    """Rows of :func:`read_table` as a frame, '' as missing: a column not in ``text`` holds
    numbers where every filled field is one, booleans where every one is True or False, and
    its text otherwise."""
    import pandas as pd

    table = pd.DataFrame.from_records(rows, columns=header).replace("", np.nan)
    for column in header:
        if column in text:
            continue
        filled = table[column].notna()
        values = pd.to_numeric(table[column], errors="coerce")
        if values.notna().sum() == filled.sum():
            table[column] = values
        elif filled.any() and table.loc[filled, column].isin(("True", "False")).all():
            table[column] = table[column].map({"True": True, "False": False})
    return table


@contextlib.contextmanager
def room_for(folder: Path, what: str, kept: str = "") -> Iterator[None]:
    """Let an ``OSError`` of a full disk (or quota, or file-size limit) out as one sentence,
    :class:`DiskFull`, naming ``folder`` and ``what`` was being written."""
    try:
        yield
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise DiskFull.at(folder, what, kept) from None
        raise


def write_atomically(path: Path, data: bytes, kept: str = "") -> None:
    """Replace ``path`` by ``data`` all at once: temp file, fsync, rename, fsync the folder.

    A failure leaves the previous file and no temporary one; a full disk is :class:`DiskFull`
    (``kept`` says what stays as it was)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with room_for(path.parent, path.name, kept):
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:  # a full disk or a kill mid-write: leave no temporary file
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
        """Write one finished cell: one complete line, one ``os.write``, then fsync.

        A write or fsync that fails takes the line back out (the cell runs again next time),
        so a full disk never leaves a half line; it is :class:`DiskFull`."""
        assert self._fd is not None, "open() the table first"
        data = _lines(self.header, [{k: cell_text(v) for k, v in row.items()}])
        end = os.lseek(self._fd, 0, os.SEEK_END)  # only this process writes: the line's start
        with room_for(self.path.parent, self.path.name, KEPT):
            try:
                if os.write(self._fd, data) != len(data):  # only a full disk writes part of it
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
                os.fsync(self._fd)  # fails on a full disk too where space is taken late
            except OSError:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, end)
                raise

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _rewrite(self, header: list[str], rows: list[dict[str, str]]) -> None:
        write_atomically(self.path, _lines(header, rows, with_header=True))

    def write_parquet(self) -> Path:
        """``results.parquet``: the rows :func:`read_table` reads (no second parser that could
        read them otherwise), typed by :func:`table_frame`, replaced atomically."""
        target = self.path.with_name(PARQUET_NAME)
        header, rows = read_table(self.path)
        table = table_frame(header, rows)
        for column in TEXT_COLUMNS:
            if column in table.columns:
                table[column] = table[column].astype("string")
        drawn = io.BytesIO()  # built in memory: a failure can leave no part of it on disk
        table.to_parquet(drawn, index=False)
        write_atomically(target, drawn.getvalue(), f"{KEPT} in {CSV_NAME}")
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
