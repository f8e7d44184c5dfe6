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

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ordauc.errors import UserError

STUDY_RECORD = "study.json"


@dataclass(frozen=True)
class StudyRecord:
    """The study a results folder serves: ``config`` as given on the command line,
    ``resolved`` its absolute path, ``stem`` its file name without ``.yaml`` (the study's name
    in reports and claims), ``sha256`` of its text, ``offline`` for an offline twin (a config in
    a folder named ``offline``), ``profile`` the run's profile (``paper`` or ``quick``)."""

    config: str
    resolved: str
    stem: str
    sha256: str
    offline: bool
    profile: str = "paper"

    @classmethod
    def of(cls, config: Path, text: str, profile: str = "paper") -> StudyRecord:
        resolved = config.resolve()
        return cls(config=str(config), resolved=str(resolved), stem=config.stem,
                   sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                   offline=resolved.parent.name == "offline", profile=profile)

    def same_study(self, other: StudyRecord) -> bool:
        return (self.resolved == other.resolved or self.sha256 == other.sha256) and \
            self.profile == other.profile


def read_study_record(directory: Path) -> StudyRecord | None:
    """The record of the study ``directory`` serves, or None for a folder without one."""
    path = Path(directory) / STUDY_RECORD
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw.setdefault("profile", "paper")  # recorded before profiles existed
        return StudyRecord(**{k: raw[k] for k in StudyRecord.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError(f"{str(path)!r} is damaged; it records which config the folder serves "
                        "(remove it to let the next run record its own)") from None


def check_study(directory: Path, record: StudyRecord) -> None:
    """Refuse to run ``record``'s config into a folder that serves another study (another
    config, or the same under another profile); a folder without a record, whose rows were
    made under another profile, too."""
    held = read_study_record(directory)
    where = f"give this study its own folder with --out (default: {default_out(record)})"
    if held is not None and not held.same_study(record):
        what = (f"the {held.profile}-profile results of {held.config}, not the "
                f"{record.profile}-profile ones" if held.profile != record.profile
                and held.same_study(replace(record, profile=held.profile))
                else f"the results of {held.config}, not of {record.config}")
        raise UserError(f"{str(directory)!r} holds {what}; {where}")
    if held is None and Path(directory).is_dir():
        from ordauc.experiment.results import ResultsTable

        found = {row.get("profile") or "paper" for row in ResultsTable(directory).rows()}
        if found - {record.profile}:
            raise UserError(f"{str(directory)!r} holds {', '.join(sorted(found))}-profile "
                            f"results, not {record.profile}-profile ones; {where}")


def default_out(record: StudyRecord) -> Path:
    """``results/<stem>``, or ``results/offline/<stem>`` for an offline twin; with
    ``-<profile>`` after the stem for a profile other than paper."""
    stem = record.stem if record.profile == "paper" else f"{record.stem}-{record.profile}"
    return Path("results") / ("offline" if record.offline else "") / stem


def write_study_record(directory: Path, record: StudyRecord) -> None:
    """Record (atomically) that ``directory`` serves ``record``'s config."""
    from ordauc.experiment.results import write_atomically

    text = json.dumps(asdict(record), indent=2) + "\n"
    write_atomically(Path(directory) / STUDY_RECORD, text.encode("utf-8"))
