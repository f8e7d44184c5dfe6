"""How every file of a study folder is written so that a crash never leaves half of it: a
whole file replaced at once (:func:`write_atomically`), a full disk named in one sentence
(:func:`room_for`), and the lock that lets one run at a time write the folder
(:func:`exclusive`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from ordauc.errors import NO_SPACE, DiskFull, UserError
from ordauc.results.schema import LOCK_FILE

KEPT = "every finished cell is kept"  # what a full disk leaves of a run


@contextlib.contextmanager
def room_for(folder: Path, what: str, kept: str = "") -> Iterator[None]:
    """Let an ``OSError`` of a full disk (or quota, or file-size limit) out as one sentence,
    :class:`~ordauc.errors.DiskFull`, naming ``folder`` and ``what`` was being written."""
    try:
        yield
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise DiskFull.at(folder, what, kept) from None
        raise


def write_atomically(path: Path, data: bytes, kept: str = "") -> None:
    """Replace ``path`` by ``data`` all at once: temp file, fsync, rename, fsync the folder.

    A failure leaves the previous file and no temporary one; a full disk is
    :class:`~ordauc.errors.DiskFull` (``kept`` says what stays as it was)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with room_for(path.parent, path.name, kept):
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:  # a full disk or a kill mid-write: leave no temporary file
            tmp.unlink(missing_ok=True)
            raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename inside ``directory`` durable (where the platform can open folders)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some platforms cannot open folders
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """Refuse a second concurrent run on the same folder (the lock dies with its process)."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: trust the user
        yield
        return
    with open(folder / LOCK_FILE, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UserError(f"another `ordauc run` is writing to {folder}; wait for it to "
                            "finish or choose another --out") from None
        yield
