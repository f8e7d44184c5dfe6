"""A results folder serves one study: ``study.json`` records the config it ran (its path, file
stem and the SHA-256 of its text) beside the copy of that config (``config.yaml``).

Another config run into a folder that serves a study is refused before anything is written,
unless it is the same study: the same config file (edited since: its changed cells are stale and
run again) or the same text from another path (a moved clone). A folder written before the record
existed is adopted by the first run into it.

The profile (``ordauc run --profile``) is part of the study: a quick run into a folder of paper
results (or the reverse) is another study, refused, and its default folder is its own
(``results/<stem>-quick``). A record written before profiles existed is a paper study's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ordauc.errors import UserError
from ordauc.results import StudyFolder, StudyRecord


def check_study(directory: Path, record: StudyRecord,
                rows: Iterable[dict[str, str]] | None = None) -> None:
    """Refuse to run ``record``'s config into a folder that serves another study (another
    config, or the same under another profile); a folder without a record, whose rows were
    made under another profile, too (``rows``: the folder's results rows, when the caller
    has read them already)."""
    folder = StudyFolder(directory)
    held = folder.record()
    where = f"give this study its own folder with --out (default: {default_out(record)})"
    if held is not None and not held.same_study(record):
        what = (f"the {held.profile}-profile results of {held.config}, not the "
                f"{record.profile}-profile ones" if held.profile != record.profile
                and held.same_study(replace(record, profile=held.profile))
                else f"the results of {held.config}, not of {record.config}")
        raise UserError(f"{str(directory)!r} holds {what}; {where}")
    if held is None and folder.path.is_dir():
        found = {row.get("profile") or "paper"
                 for row in (folder.rows() if rows is None else rows)}
        if found - {record.profile}:
            raise UserError(f"{str(directory)!r} holds {', '.join(sorted(found))}-profile "
                            f"results, not {record.profile}-profile ones; {where}")


def default_out(record: StudyRecord) -> Path:
    """``results/<stem>``, or ``results/offline/<stem>`` for an offline twin; with
    ``-<profile>`` after the stem for a profile other than paper."""
    stem = record.stem if record.profile == "paper" else f"{record.stem}-{record.profile}"
    return Path("results") / ("offline" if record.offline else "") / stem
