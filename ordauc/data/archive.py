"""Compressed files and archives: gz, bz2, xz streams; zip and tar archives.

Nothing downloaded is trusted: :func:`check_integrity` reads every byte once (gzip, bzip2 and xz
carry their own checksums, zip its CRC-32s) before a file enters the cache, and
:func:`safe_extract` refuses any member whose path would leave the target folder, as well as
links and device files, before it extracts anything.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ordauc.errors import UserError

# Exceptions the decompressors and archive readers raise on damaged input.
CORRUPTION_ERRORS: tuple[type[BaseException], ...] = (
    EOFError, zlib.error, lzma.LZMAError, gzip.BadGzipFile, zipfile.BadZipFile,
    zipfile.LargeZipFile, tarfile.TarError,
)
_STREAM_SUFFIXES = {".gz": "gz", ".bz2": "bz2", ".xz": "xz"}
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def archive_kind(filename: str) -> str | None:
    """``zip`` or ``tar`` for archives holding several files, else None."""
    lower = filename.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith(_TAR_SUFFIXES):
        return "tar"
    return None


def compression(filename: str) -> str | None:
    """``gz``, ``bz2`` or ``xz`` for a single compressed file (not a tar archive), else None."""
    if archive_kind(filename):
        return None
    return _STREAM_SUFFIXES.get(PurePosixPath(filename.lower()).suffix)


def open_stream(path: Path) -> BinaryIO:
    """A binary stream of the file's content, decompressed according to its name."""
    kind = compression(path.name)
    if kind == "gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if kind == "bz2":
        return bz2.open(path, "rb")  # type: ignore[return-value]
    if kind == "xz":
        return lzma.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def check_integrity(path: Path, label: str) -> None:
    """Read the whole file through its decompressor or archive reader; UserError if damaged."""
    kind = archive_kind(path.name)
    try:
        if kind == "zip":
            with zipfile.ZipFile(path) as zf:
                bad = zf.testzip()
                if bad is not None:
                    raise zipfile.BadZipFile(f"member {bad} fails its CRC-32 check")
                _check_names([i.filename for i in zf.infolist()], label)
        elif kind == "tar":
            with tarfile.open(path, "r:*") as tf:
                names = []
                for member in tf:
                    names.append(member.name)
                    if member.isfile():
                        extracted = tf.extractfile(member)
                        if extracted is not None:
                            _drain(extracted)
                _check_names(names, label)
        elif compression(path.name):
            with open_stream(path) as stream:
                _drain(stream)
    except CORRUPTION_ERRORS as exc:
        raise UserError(f"{label} is not a valid {kind or compression(path.name)} file "
                        f"({_describe(exc)}), so it was deleted and nothing was stored") from None


def safe_extract(path: Path, dest: Path, label: str,
                 select: Callable[[str], bool] | None = None) -> list[Path]:
    """Extract the members ``select`` accepts (all by default) into ``dest``; return their paths.

    Every member name is checked first, and a name that is absolute, climbs out with ``..``, or
    a member that is a link or a device, aborts the whole extraction with a UserError.
    """
    dest.mkdir(parents=True, exist_ok=True)
    kind = archive_kind(path.name)
    out: list[Path] = []
    try:
        if kind == "zip":
            with zipfile.ZipFile(path) as zf:
                infos = zf.infolist()
                _check_names([i.filename for i in infos], label)
                for info in infos:
                    if _zip_is_link(info):
                        raise UserError(f"{label} holds a symbolic link ({info.filename}), "
                                        "which is never extracted")
                for info in infos:
                    if info.is_dir() or (select and not select(info.filename)):
                        continue
                    target = dest / info.filename
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    out.append(target)
        elif kind == "tar":
            with tarfile.open(path, "r:*") as tf:
                members = tf.getmembers()
                _check_names([m.name for m in members], label)
                for m in members:
                    if not (m.isfile() or m.isdir()):
                        raise UserError(f"{label} holds {m.name}, which is a link or device "
                                        "file and is never extracted")
                for m in members:
                    if not m.isfile() or (select and not select(m.name)):
                        continue
                    target = dest / m.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tf.extractfile(m)
                    assert src is not None
                    with src, open(target, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    out.append(target)
        else:
            raise ValueError(f"{path.name} is not a zip or tar archive")
    except CORRUPTION_ERRORS as exc:
        raise UserError(f"{label} is a damaged archive ({_describe(exc)}), so nothing was "
                        "stored") from None
    return out


def _check_names(names: list[str], label: str) -> None:
    for name in names:
        p = PurePosixPath(name.replace("\\", "/"))
        if p.is_absolute() or ".." in p.parts or (p.parts and ":" in p.parts[0]):
            raise UserError(f"{label} holds the member {name!r}, whose path leaves the "
                            "extraction folder, so nothing was extracted")


def _zip_is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _drain(stream: BinaryIO | io.BufferedReader) -> None:
    while stream.read(1 << 20):
        pass


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text or type(exc).__name__
