"""What a catalogue row says: its source files, how to prepare them, and what to expect.

A :class:`Source` is one file as published: its original name (``--mirror`` looks it up under
that name), the hosts that serve exactly those bytes, and a checksum pin when a trustworthy one
exists. An :class:`Entry` is one dataset: sources by role, the recipe that prepares them, the
expected shape and classes, and the load-time parameters (``ordauc.data.load(name, **params)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ordauc.data.dataset import Task

LS = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
LIBSVM_LICENCE = ("no licence stated by LIBSVM (data from UCI, Statlog, StatLib and other "
                  "collections); cite the original source and LIBSVM")
LIBSVM_CITE = ("Chang & Lin, LIBSVM: a library for support vector machines, ACM TIST 2011; "
               "datasets page https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/")
CC_BY = "CC BY 4.0 (UCI Machine Learning Repository)"


@dataclass(frozen=True)
class Source:
    """One published file: its name, the URLs serving those bytes, and any checksum pin.

    ``sha256``/``md5`` are pins from the host or from third-party code that checks against
    them (``pin_by`` says whose). Files without a pin are trusted on first download: the hash
    seen then is recorded and every later copy must match it.
    """

    filename: str
    urls: tuple[str, ...]
    sha256: str | None = None
    md5: str | None = None
    pin_by: str = ""

    def __post_init__(self) -> None:
        if "/" in self.filename or not self.urls:
            raise ValueError(f"bad source {self.filename!r}")


def libsvm(path: str) -> Source:
    """A file of the LIBSVM data page, ``path`` relative to its datasets folder."""
    return Source(path.rsplit("/", 1)[-1], (f"{LS}/{path}",))


@dataclass(frozen=True)
class Entry:
    """A catalogue row: one dataset of one of the four papers."""

    name: str
    task: Task
    paper: str
    recipe: str
    sources: dict[str, Source]
    n: int
    d: int
    n_classes: int
    origin: str
    licence: str
    citation: str
    n_test: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    redistributable: bool = True
    notes: str = ""

    def __post_init__(self) -> None:
        if self.task not in ("binary", "ordinal"):
            raise ValueError(f"{self.name}: task must be binary or ordinal")
