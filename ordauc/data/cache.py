"""The data cache on disk: where downloads, prepared datasets and their records live.

Layout under the data folder (``--data-dir``, ``$ORDAUC_DATA`` or ``./datasets``)::

    downloads/<file>            verified source files, under their original names
    downloads/lock.json         sha256 of every file downloaded so far (trust on first use)
    .partial/<file>             an interrupted download, resumed by the next fetch
    .staging/<name>.<random>/   a dataset being prepared; renamed to <name>/ when complete
    <name>/manifest.json        what was prepared from what (see ordauc.data.manifest)
    <name>/*.npy                the prepared arrays

Everything is written to a temporary name first and moved into place with ``os.replace``, so a
folder or file under its final name is always complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=False)
            f.write("\n")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@dataclass(frozen=True)
class DataCache:
    """Paths of one data folder; creating the object touches nothing on disk."""

    root: Path

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    @property
    def partial(self) -> Path:
        return self.root / ".partial"

    @property
    def staging(self) -> Path:
        return self.root / ".staging"

    @property
    def lock_path(self) -> Path:
        return self.downloads / "lock.json"

    def dataset_dir(self, name: str) -> Path:
        return self.root / name

    def manifest_path(self, name: str) -> Path:
        return self.dataset_dir(name) / MANIFEST

    def is_prepared(self, name: str) -> bool:
        return self.manifest_path(name).is_file()

    def manifest(self, name: str) -> dict[str, Any]:
        return read_json(self.manifest_path(name))

    # --- the download lock: sha256 of every file seen, so a later copy must match it ---------

    def lock(self) -> dict[str, dict[str, Any]]:
        if not self.lock_path.is_file():
            return {}
        return read_json(self.lock_path)

    def record_download(self, filename: str, entry: dict[str, Any]) -> None:
        lock = self.lock()
        lock[filename] = entry
        write_json_atomic(self.lock_path, dict(sorted(lock.items())))

    # --- staging ------------------------------------------------------------------------------

    def new_staging_dir(self, name: str) -> Path:
        self.staging.mkdir(parents=True, exist_ok=True)
        path = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=self.staging))
        path.chmod(0o777 & ~_umask())  # mkdtemp makes it private; datasets are ordinary folders
        return path

    def publish(self, staged: Path, name: str) -> Path:
        """Move a complete staging folder to ``<name>/``, replacing an older copy."""
        final = self.dataset_dir(name)
        old = None
        if final.exists():
            old = self.staging / f"{name}.old.{os.getpid()}"
            os.replace(final, old)
        os.replace(staged, final)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self.tidy()
        return final

    def discard(self, path: Path) -> None:
        """Remove a staging folder or partial file, and the staging folders if now empty."""
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        self.tidy()

    def tidy(self) -> None:
        """Remove the staging and partial folders when they are empty."""
        for folder in (self.staging, self.partial):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only succeeds when empty
