"""The one writer of a study folder's tables: ``results.csv`` appended cell by cell,
``results.parquet`` at the end; ``curves.csv`` (iterative solvers' checkpoints) and
``tuning_scores.csv`` (every grid point's score) through the same append-only code.

Crash safety rests on three rules. Only the runner's parent process writes. Each finished cell
is one complete line written by one ``os.write`` on an ``O_APPEND`` descriptor, then fsync'ed.
Every other change (creation, a wider header, dropping rows of cells to run again, repairing a
half line left by a kill) writes a temporary file and renames it over the table
(:func:`ordauc.results.atomic.write_atomically`). So a kill at any moment leaves at worst one
half line at the end, which the next run cuts off (:func:`ordauc.results.read.read_table` leaves
it out). A full disk (:class:`ordauc.errors.DiskFull`) takes back the line it could not finish
and leaves no temporary file.

A cell's curve rows and tuning scores are appended before its results row (:func:`record`), so
a crash in between leaves side rows without a results row, which the next run drops (a side
row whose key has no results row is an orphan); the results row is what makes a cell done. A
failed cell's full traceback goes to ``OUT/logs/<key>.log``.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.results.atomic import KEPT, room_for, write_atomically
from ordauc.results.outcome import CellOutcome
from ordauc.results.read import Snapshot, read_snapshot, read_table, table_frame
from ordauc.results.schema import (
    CURVE_COLUMNS,
    CURVES_CSV,
    LOGS_DIR,
    RESULTS_CSV,
    RESULTS_PARQUET,
    TEXT_COLUMNS,
    TUNING_COLUMNS,
    TUNING_CSV,
    columns,
)


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


class ResultsTable:
    """An append-only CSV of one output folder (``results.csv`` by default), held open by the
    runner; every row has a ``key`` naming its cell."""

    def __init__(self, directory: Path, name: str = RESULTS_CSV) -> None:
        self.path = Path(directory) / name
        self.header: list[str] = []
        self._fd: int | None = None

    def rows(self) -> list[dict[str, str]]:
        """Complete rows on disk (read-only, no repair)."""
        return read_table(self.path)[1] if self.path.exists() else []

    def read(self) -> Snapshot:
        """The table's header and rows as they are now (read-only, no repair), with the stamp
        by which :meth:`open` can reuse them."""
        return read_snapshot(self.path)

    def open(self, wanted: list[str], drop_keys: set[str] | None = None,
             keep_keys: set[str] | None = None, unique: bool = True,
             snapshot: Snapshot | None = None) -> list[dict[str, str]]:
        """Make the file hold ``wanted`` columns (and any it had), no row of ``drop_keys`` and,
        when ``keep_keys`` is given, only rows of those keys, repairing a half line and (when
        ``unique``) duplicate keys; then open it for appending. ``snapshot`` is the table as
        :meth:`read` read it earlier, used unless the file changed since (then it is read
        again). Returns the rows kept, in table order."""
        if snapshot is None or snapshot.path != self.path or not snapshot.current():
            snapshot = self.read()
        header, rows = snapshot.header, snapshot.rows
        merged = _merge_header(header, wanted)
        drop = drop_keys or set()
        kept: dict[Any, dict[str, str]] = {}
        for i, row in enumerate(rows):  # the last row of a key wins: no key listed twice
            if row["key"] in drop or (keep_keys is not None and row["key"] not in keep_keys):
                continue
            slot = row["key"] if unique else i
            kept.pop(slot, None)
            kept[slot] = row
        if merged != header or len(kept) != len(rows) or not snapshot.complete:
            self._rewrite(merged, list(kept.values()))
        self.header = merged
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        return list(kept.values())

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished cell: one complete line, one ``os.write``, then fsync.

        A write or fsync that fails takes the line back out (the cell runs again next time),
        so a full disk never leaves a half line; it is :class:`~ordauc.errors.DiskFull`."""
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
        target = self.path.with_name(RESULTS_PARQUET)
        header, rows = read_table(self.path)
        table = table_frame(header, rows)
        for column in TEXT_COLUMNS:
            if column in table.columns:
                table[column] = table[column].astype("string")
        drawn = io.BytesIO()  # built in memory: a failure can leave no part of it on disk
        table.to_parquet(drawn, index=False)
        write_atomically(target, drawn.getvalue(), f"{KEPT} in {RESULTS_CSV}")
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


class Tables:
    """The results table and its two side tables, keyed by the cell's ``key``: iteration
    curves (``curves.csv``) and every grid point's tuning score (``tuning_scores.csv``)."""

    def __init__(self, out: Path) -> None:
        self.results = ResultsTable(out)
        self.curves = ResultsTable(out, CURVES_CSV)
        self.tuning = ResultsTable(out, TUNING_CSV)
        self._read: dict[str, Snapshot] = {}  # what existing() read, by table

    def existing(self) -> list[dict[str, str]]:
        """The results rows on disk, once every table of the folder has been read: a damaged
        line in any of the three stops the run before it writes anything (not once the
        results table has been rewritten). What is read here is kept for :meth:`current` and
        :meth:`open`, which read a table again only where it changed since."""
        self._read = {name: getattr(self, name).read() for name in ("curves", "tuning",
                                                                    "results")}
        return self._read["results"].rows

    def current(self) -> list[dict[str, str]]:
        """The results rows as they are now: those :meth:`existing` read, unless the table
        was written since (another run, before this one took the folder's lock)."""
        snapshot = self._read.get("results")
        if snapshot is None or not snapshot.current():
            snapshot = self._read["results"] = self.results.read()
        return snapshot.rows

    def open(self, wanted: list[str], todo: set[str], params: list[str]
             ) -> dict[str, dict[str, str]]:
        """Open all three for appending, dropping the rows of cells to run again (and the
        side rows of cells without a row); the kept results rows by key."""
        kept = self.results.open(wanted, drop_keys=todo, snapshot=self._read.get("results"))
        done = {row["key"]: row for row in kept}
        self.curves.open(list(CURVE_COLUMNS), keep_keys=set(done), unique=False,
                         snapshot=self._read.get("curves"))
        self.tuning.open([*TUNING_COLUMNS, *(f"p_{p}" for p in params)],
                         keep_keys=set(done), unique=False, snapshot=self._read.get("tuning"))
        return done

    def close(self) -> None:
        for table in (self.results, self.curves, self.tuning):
            table.close()


def record(outcome: CellOutcome, tables: Tables, out: Path) -> None:
    """Append a cell's curves and tuning scores, then its row (a crash in between leaves
    orphan side rows, which the next run drops); keep a failure's traceback in OUT/logs."""
    row = outcome.row
    for point in outcome.curves:
        tables.curves.append({k: row[k] for k in CURVE_COLUMNS if k in row} | point)
    for score in outcome.tuning:
        tables.tuning.append({k: row[k] for k in TUNING_COLUMNS if k in row} | score)
    if outcome.traceback:
        log = out / LOGS_DIR / f"{re.sub(r'[^A-Za-z0-9._=-]+', '_', row['key'])}.log"
        with room_for(out, LOGS_DIR, KEPT):
            log.parent.mkdir(exist_ok=True)
        # whole or not at all, as every file of the folder
        write_atomically(log, f"{row['key']}\n{row['message']}\n\n{outcome.traceback}".encode(),
                         KEPT)
    tables.results.append(row)
