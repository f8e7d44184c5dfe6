"""What a catalogue row says: its source files, how to prepare them, and what to expect.

A :class:`Source` is one file as published: its original name (``--mirror`` looks it up under
that name), the hosts that serve exactly those bytes, and a checksum pin when a trustworthy one
exists. An :class:`Entry` is one dataset: sources by role, the recipe that prepares them, the
expected shape and classes, and the load-time parameters (``ordauc.data.load(name, **params)``).
Built-in sets (:mod:`ordauc.data.builtin`) are entries too, with a loader instead of sources.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ordauc.data.dataset import Dataset, Task

LS = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
LIBSVM_LICENCE = ("no licence stated by LIBSVM (data from UCI, Statlog, StatLib and other "
                  "collections); cite the original source and LIBSVM")
LIBSVM_CITE = ("Chang & Lin, LIBSVM: a library for support vector machines, ACM TIST 2011; "
               "datasets page https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/")
CC_BY = "CC BY 4.0 (UCI Machine Learning Repository)"
BUILTIN_RECIPE = "builtin"


@dataclass(frozen=True)
class Source:
    """One published file: its name, the URLs serving those bytes, and any checksum pin.

    ``sha256``/``md5`` are pins from the host or from third-party code that checks against
    them (``pin_by`` says whose). Files without a pin are trusted on first download: the hash
    seen then is recorded and every later copy must match it. ``copies`` are the sha256 of the
    repository's own stand-ins for the file in ``data/offline-mirror`` (archives rebuilt or
    files converted from other public copies, listed in its MANIFEST.csv): exactly those bytes
    are accepted as well, said to be a stand-in, and never recorded as the host's hash.
    """

    filename: str
    urls: tuple[str, ...]
    sha256: str | None = None
    md5: str | None = None
    pin_by: str = ""
    copies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if "/" in self.filename or not self.urls:
            raise ValueError(f"bad source {self.filename!r}")


# The repository's stand-ins in data/offline-mirror, by the host's file name: archives rebuilt
# and files converted from other public copies of the data (its MANIFEST.csv says how each was
# made); a test checks these against the manifest and the files.
STAND_INS = {
    "ordinal_pyrimidines.zip": "187614db055e5c174825cf3f390619d8514e7866e341a06e2663e81bd23e08bf",
    "ordinal_machine.zip": "5ede4de525590fb412ad7d20edf6e57a028a755201d028f5fc4a992826edb4af",
    "ordinal_bostonhousing.zip": "dbc39b15dd1d5e8192afe4c079d867f792e0ecc5d8cc9a11f2a8ea1ff09ea49e",
    "ordinal_stocksdomain.zip": "c2edc115d4335ffc084d9033fea37003d1ab7b89708e8d8ccc2051ae8d9559bb",
    "ordinal_abalone.zip": "db507b0c2a8050d2d67a030963740a96928230e7871bbd726befd1d3e90f1ae8",
    "datasets-orreview.zip": "e01839e9244d9b30a86ff13ad10f7289348306544369625992972e130c6ecdd6",
    "svmguide3": "bfe04715056855e54186d73f20900011d1f1be95e220f434d9314b6262e849fd",
    "svmguide3.t": "8b9d951201fcb7c6f07d2fd435b91245f9135a35db28716b3e56581f8b8591ac",
}


def stand_ins(filename: str) -> tuple[str, ...]:
    """The sha256 of the repository's stand-in for ``filename``, if it has one."""
    return (STAND_INS[filename],) if filename in STAND_INS else ()


def libsvm(path: str) -> Source:
    """A file of the LIBSVM data page, ``path`` relative to its datasets folder."""
    name = path.rsplit("/", 1)[-1]
    return Source(name, (f"{LS}/{path}",), copies=stand_ins(name))


SIZES = ("n", "d", "n_classes")  # the fields of an entry a load parameter may change


@dataclass(frozen=True)
class Entry:
    """A catalogue row: one dataset, downloaded and prepared or built in.

    Parameters
    ----------
    name : the dataset's name in configs and on the command line.
    task : ``binary`` or ``ordinal``.
    paper : the paper whose experiments use it (empty for the built-in sets).
    recipe : how the downloaded files are prepared (:func:`ordauc.data.fetch.recipes`), or
        ``builtin`` for a set made by ``loader``.
    sources : the published files by role (none for a built-in set).
    n, d, n_classes : rows (the training rows where the source splits), features and classes,
        as the papers report them, or as a built-in set gives them with its defaults.
    origin : where the data comes from (a host, a collection, a generator).
    licence : the terms of use, as the source states them.
    citation : whom to cite.
    n_test : rows of the source's official test split, if it has one.
    options : what the recipe needs to know about the files.
    params : the keyword parameters ``ordauc.data.load`` accepts, with their defaults.
    redistributable : whether the prepared data may be shared.
    notes : anything else a user should know.
    set_by : the load parameter that changes ``n``, ``d`` or ``n_classes`` from the value
        above, per field (a generator's size, a bin count).
    loader : for a built-in set, the function that makes it from ``params``.
    """

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
    set_by: dict[str, str] = field(default_factory=dict)
    loader: Callable[..., Dataset] | None = None

    def __post_init__(self) -> None:
        if self.task not in ("binary", "ordinal"):
            raise ValueError(f"{self.name}: task must be binary or ordinal")
        if (self.loader is None) == (self.recipe == BUILTIN_RECIPE):
            raise ValueError(f"{self.name}: a loader makes exactly the entries of recipe "
                             f"{BUILTIN_RECIPE!r}")
        for size, param in self.set_by.items():
            if size not in SIZES or param not in self.params:
                raise ValueError(f"{self.name}: set_by maps a field of {SIZES} to a parameter "
                                 f"of params, got {size!r}: {param!r}")

    @property
    def class_ratio(self) -> float | None:
        """n-/n+ as the entry states it (``options["positive"]["table1_ratio"]``: the AUC-DCD
        paper's Table 1, which picks the positive class), None where it states none."""
        positive = self.options.get("positive")
        if isinstance(positive, dict) and "table1_ratio" in positive:
            return float(positive["table1_ratio"])
        return None

    @property
    def builtin(self) -> bool:
        """Whether the set is made by its loader, with nothing to download or prepare."""
        return self.loader is not None
