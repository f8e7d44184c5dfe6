"""The study record of a folder (``study.json``): which config the folder's results were run
from (its path, file stem, the SHA-256 of its text), whether it is an offline twin, and under
which profile. Read and written here only; what a run does with it (refuse another study) is
the runner's (:mod:`ordauc.experiment.study`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ordauc.errors import UserError
from ordauc.results.atomic import write_atomically
from ordauc.results.schema import STUDY_RECORD


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


def write_study_record(directory: Path, record: StudyRecord) -> None:
    """Record (atomically) that ``directory`` serves ``record``'s config."""
    text = json.dumps(asdict(record), indent=2) + "\n"
    write_atomically(Path(directory) / STUDY_RECORD, text.encode("utf-8"))
