"""Recording finished cells: the results table and its side tables, written by the runner's
parent process only.

Each cell's curve rows and tuning scores are appended before its results row, so a crash in
between leaves side rows without a results row, which the next run drops (a side row whose key
has no results row is an orphan); the results row is what makes a cell done. A failed cell's
full traceback goes to ``OUT/logs/<key>.log``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ordauc.experiment.results import (
    CURVE_COLUMNS,
    CURVES_NAME,
    KEPT,
    TUNING_COLUMNS,
    TUNING_NAME,
    ResultsTable,
    room_for,
    write_atomically,
)

LOGS_DIR = "logs"


class Tables:
    """The results table and its two side tables, keyed by the cell's ``key``: iteration
    curves (``curves.csv``) and every grid point's tuning score (``tuning_scores.csv``)."""

    def __init__(self, out: Path) -> None:
        self.results = ResultsTable(out)
        self.curves = ResultsTable(out, CURVES_NAME)
        self.tuning = ResultsTable(out, TUNING_NAME)

    def existing(self) -> list[dict[str, str]]:
        """The results rows on disk, once every table of the folder has been read: a damaged
        line in any of the three stops the run before it writes anything (not once the
        results table has been rewritten)."""
        self.curves.rows()
        self.tuning.rows()
        return self.results.rows()

    def open(self, wanted: list[str], todo: set[str], params: list[str]
             ) -> dict[str, dict[str, str]]:
        """Open all three for appending, dropping the rows of cells to run again (and the
        side rows of cells without a row); the kept results rows by key."""
        self.results.open(wanted, drop_keys=todo)
        done = {row["key"]: row for row in self.results.rows()}
        self.curves.open(CURVE_COLUMNS, keep_keys=set(done), unique=False)
        self.tuning.open(TUNING_COLUMNS + [f"p_{p}" for p in params], keep_keys=set(done),
                         unique=False)
        return done

    def close(self) -> None:
        for table in (self.results, self.curves, self.tuning):
            table.close()


def record(row: dict[str, Any], tables: Tables, out: Path) -> None:
    """Append a cell's curves and tuning scores, then its row (a crash in between leaves
    orphan side rows, which the next run drops); keep a failure's traceback in OUT/logs."""
    points = row.pop("_curves", None) or []
    scores = row.pop("_tuning", None) or []
    trace = row.pop("_traceback", None)
    for point in points:
        tables.curves.append({k: row[k] for k in CURVE_COLUMNS if k in row} | point)
    for score in scores:
        tables.tuning.append({k: row[k] for k in TUNING_COLUMNS if k in row} | score)
    if trace:
        log = out / LOGS_DIR / f"{re.sub(r'[^A-Za-z0-9._=-]+', '_', row['key'])}.log"
        with room_for(out, LOGS_DIR, KEPT):
            log.parent.mkdir(exist_ok=True)
        # whole or not at all, as every file of the folder
        write_atomically(log, f"{row['key']}\n{row['message']}\n\n{trace}".encode(), KEPT)
    tables.results.append(row)
