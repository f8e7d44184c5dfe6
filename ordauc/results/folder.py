"""A study folder, typed: where each of its files is, and the one way to read or write each.

An ``ordauc run`` output folder holds the results table and its parquet copy, the side tables
(curves, tuning scores), the copy of the study's config, the study record, a failed cell's log
and the lock of the run writing it (file names: :mod:`ordauc.results.schema`). The runner, the
report and the claims all reach them through :class:`StudyFolder`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ordauc.results.atomic import exclusive, write_atomically
from ordauc.results.read import read_table
from ordauc.results.record import StudyRecord, read_study_record, write_study_record
from ordauc.results.schema import (
    CONFIG_COPY,
    CURVES_CSV,
    LOGS_DIR,
    RESULTS_CSV,
    RESULTS_PARQUET,
    STUDY_RECORD,
    TUNING_CSV,
)
from ordauc.results.write import Tables

if TYPE_CHECKING:
    import pandas as pd

    from ordauc.config import Config

# The side tables' columns that hold numbers (the others stay text, as the runner wrote them).
_SIDE_NUMBERS = ("repetition", "n_labeled", "n_unlabeled", "iteration", "time_s", "value",
                 "score")


class _Member:
    """A file or subfolder of every study folder, by its name in the schema: on a
    :class:`StudyFolder` it is that folder's path to it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, folder: StudyFolder | None, owner: type | None = None) -> Path:
        if folder is None:  # read on the class: the name's own descriptor (introspection)
            return self  # type: ignore[return-value]
        return folder.path / self.name


@dataclass(frozen=True)
class StudyFolder:
    """One results folder of ``ordauc run``.

    Parameters
    ----------
    path : Path
        The folder (it need not exist yet: a run creates it).
    """

    path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))

    # -- where things are ------------------------------------------------------------------
    results_csv = _Member(RESULTS_CSV)
    results_parquet = _Member(RESULTS_PARQUET)
    curves_csv = _Member(CURVES_CSV)
    tuning_csv = _Member(TUNING_CSV)
    config_copy = _Member(CONFIG_COPY)
    study_record = _Member(STUDY_RECORD)
    logs = _Member(LOGS_DIR)

    def is_study(self) -> bool:
        """Whether the folder holds a results table (a folder of studies holds none)."""
        return self.results_csv.exists()

    def studies(self) -> list[StudyFolder]:
        """This folder when it is a study (or not a folder at all), else its subfolders that
        are, by name."""
        if self.is_study() or not self.path.is_dir():
            return [self]
        return [StudyFolder(p) for p in sorted(self.path.iterdir())
                if StudyFolder(p).is_study()]

    # -- reads -----------------------------------------------------------------------------
    def rows(self) -> list[dict[str, str]]:
        """The results rows as text, as the runner reads them (none without a table)."""
        return read_table(self.results_csv)[1] if self.results_csv.exists() else []

    def results(self) -> pd.DataFrame:
        """The results table typed and checked (:func:`ordauc.results.frame.load_results`)."""
        from ordauc.results.frame import load_results

        return load_results(self.path)

    def curves(self) -> pd.DataFrame | None:
        """The iteration curves (numbers as numbers), or None where the folder has none."""
        return _side_table(self.curves_csv)

    def tuning(self) -> pd.DataFrame | None:
        """Every grid point's tuning score (numbers as numbers), or None where there is none."""
        return _side_table(self.tuning_csv)

    def config(self) -> Config | None:
        """The study's config from its copy (:func:`ordauc.results.frame.study_config`)."""
        from ordauc.results.frame import study_config

        return study_config(self.path)

    def record(self) -> StudyRecord | None:
        """The study record, or None for a folder without one."""
        return read_study_record(self.path)

    # -- writes (the runner's parent process only) -----------------------------------------
    def tables(self) -> Tables:
        """The results table and its side tables, for appending (:class:`Tables`)."""
        return Tables(self.path)

    def write_record(self, record: StudyRecord) -> None:
        write_study_record(self.path, record)

    def write_config(self, text: str) -> None:
        """Keep the study's YAML as given (replaced whole)."""
        write_atomically(self.config_copy, text.encode("utf-8"))

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the folder's lock: a second concurrent run is refused (one sentence)."""
        with exclusive(self.path):
            yield


def _side_table(path: Path) -> pd.DataFrame | None:
    """A side table (curves, tuning scores) with its numeric columns as numbers, or None."""
    import pandas as pd

    if not path.is_file():
        return None
    header, rows = read_table(path)
    if not header:
        return None
    table = pd.DataFrame.from_records(rows, columns=header)
    for column in _SIDE_NUMBERS:
        if column in table.columns:
            table[column] = pd.to_numeric(table[column], errors="coerce")
    return table
