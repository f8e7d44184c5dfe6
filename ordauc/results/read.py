"""The one reader of a study folder's tables (results, curves, tuning scores).

Every command (``run``, its dry run, ``report``, ``plot``, the claims, the parquet copy) reads
a table through :func:`read_table`, so all of them see the same rows. Every row is one line, as
the writer (:mod:`ordauc.results.write`) makes it. The bytes after the last newline are the
half line a kill leaves, which the next run cuts off: they are left out without a word. Any
other damaged line was done to the file from outside (an editor, a copy, a failing disk): it is
named by its line number and the command stops before anything runs or is written, rather than
guess which rows it holds.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ordauc.errors import UserError
from ordauc.results.schema import KEY_FIELDS, TEXT_COLUMNS

if TYPE_CHECKING:
    import pandas as pd


def read_table(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a table of ``ordauc run`` (results, curves, tuning scores).

    The one reader of every command (``run``, its dry run, ``report``, ``plot``, the parquet
    copy), so all of them see the same rows. Every row is one line, as the writer makes it
    (:func:`ordauc.results.write.cell_text` keeps each field on one line). The bytes after the
    last newline are left out without a word: that is the half line a kill leaves (see
    :mod:`ordauc.results.write`), which the next run cuts off. Any other damaged line is a
    :class:`UserError` naming its line number (the header is line 1), raised before anything
    is run or written: a line that is not UTF-8, holds NUL bytes, has an unclosed or stray
    quote, has another number of fields than the header, or leaves a field of
    :data:`~ordauc.results.schema.KEY_FIELDS` empty. Such a line is never guessed at, so it can
    neither swallow the rows after it nor pass as a row (a run would then recompute and append
    cells it already holds). Blank lines carry nothing and are skipped.
    """
    raw = _read_bytes(path)
    return _parsed(path, raw[: raw.rfind(b"\n") + 1])


@dataclass(frozen=True)
class Snapshot:
    """A table as :func:`read_snapshot` read it: its header and rows, whether it ends on a
    whole line (no half line to repair), and the file's stamp when it was read (inode, size,
    modification time) by which :meth:`current` tells whether it was written since."""

    path: Path
    header: list[str]
    rows: list[dict[str, str]]
    complete: bool  # the file exists and ends with a newline
    stamp: tuple[int, int, int] | None  # None: there was no file

    def current(self) -> bool:
        """Whether the file is still the one read (nothing written, replaced or removed)."""
        return _stamp(self.path) == self.stamp


def read_snapshot(path: Path) -> Snapshot:
    """:func:`read_table`'s header and rows of ``path`` (none where there is no file), with
    what a writer needs to reuse them rather than read the file again (:class:`Snapshot`)."""
    stamp = _stamp(path)  # before the read: a write during it then shows as a later change
    if stamp is None:
        return Snapshot(path, [], [], False, None)
    raw = _read_bytes(path)
    header, rows = _parsed(path, raw[: raw.rfind(b"\n") + 1])
    return Snapshot(path, header, rows, raw.endswith(b"\n"), stamp)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # no file there (or a file above it)
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _parsed(path: Path, raw: bytes) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of the whole lines ``raw`` of ``path`` (:func:`read_table`)."""
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
