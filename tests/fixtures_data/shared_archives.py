"""The hosts' archives of Chu Wei's benchmarks and of the survey's hold-outs, rebuilt in a mirror
folder from the real files in ``../shared/data`` (skipping where that folder is absent).

Nothing is copied into the repository: the archives are written under the mirror's root in the
test's temporary folder, under the names the catalogue downloads.
"""

from __future__ import annotations

from pathlib import Path

from fixtures_data import makers
from fixtures_data.helpers import shared_or_skip

CHU_ROOT = ("chuwei-ordinal-bb515-probit", "probit", "data")
SURVEY_ROOT = ("orca-python-partitions", "orca_python", "datasets", "data")
BUNDLE = "datasets-orreview.zip"


def chu_archive(root: Path, name: str) -> Path:
    """Chu's ``ordinal_<name>.zip`` for catalogue dataset ``name``, written under ``root``."""
    from ordauc.data.catalog import CATALOG

    entry = CATALOG[name]
    folder = entry.options["folder"]
    source = shared_or_skip(*CHU_ROOT, folder)
    members = {f"{folder}/{p.relative_to(source)}": p.read_bytes()
               for p in sorted(source.rglob("*")) if p.is_file()}
    path = root / entry.sources["archive"].filename
    path.write_bytes(makers.zip_bytes(members))
    return path


def survey_bundle(root: Path, names: list[str]) -> Path:
    """The survey's ``datasets-orreview.zip`` holding the 30 hold-outs of each dataset of
    ``names``, from orca-python's copies (``train_<folder>_<i>.csv``) renamed into the bundle's
    ``matlab/train_<folder>.<i>`` layout, written under ``root``."""
    from ordauc.data.catalog import CATALOG

    members = {}
    for name in names:
        folder = CATALOG[name].options["folder"]
        source = shared_or_skip(*SURVEY_ROOT, folder)
        for part in ("train", "test"):
            for i in range(30):
                member = f"datasets-orreview/ordinal-regression/{folder}/matlab/{part}_{folder}.{i}"
                members[member] = (source / f"{part}_{folder}_{i}.csv").read_bytes()
    path = root / BUNDLE
    path.write_bytes(makers.zip_bytes(members))
    return path
