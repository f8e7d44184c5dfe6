"""Get one source file into the cache: stream, resume, retry, fall through mirrors, verify.

The file is streamed (requests) into ``.partial/<name>``; a cut connection is resumed with an
HTTP Range request after a back-off; a 4xx or 5xx answer moves on to the next URL. Once complete
the file is checked (:func:`ordauc.data.archive.check_integrity`, then the checksum: the
catalogue's pin if it has one, else the hash recorded when the file was first downloaded, else
it is recorded now) and only then renamed to ``downloads/<name>``. The repository's stand-ins
(``Source.copies``: rebuilt or converted files in ``data/offline-mirror``) are accepted from a
mirror by their own sha256 and never recorded as the host's hash, so a later real download is
still held to the host's; a cached stand-in serves fetches from a mirror only (a fetch from the
hosts replaces it with the host's file). A file that fails a check is deleted. A download that
fails for network reasons keeps its partial bytes in ``.partial/`` so the next fetch resumes it;
they never count as cached.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote, unquote, urlparse

from ordauc.data.archive import check_integrity
from ordauc.data.cache import DataCache, read_json, write_json_atomic
from ordauc.data.spec import Source
from ordauc.errors import NetworkError, UserError

CHUNK = 1 << 20
FIRST = "sha256 recorded on this first download"
COPY = ("sha256 of the repository's stand-in (data/offline-mirror/MANIFEST.csv), not the "
        "host's file")
NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


@dataclass(frozen=True)
class Obtained:
    """A verified file in ``downloads/`` and where it came from."""

    path: Path
    url: str
    sha256: str
    bytes: int
    check: str  # how the checksum was established


class _Transient(Exception):
    """A failure worth retrying on the same URL (cut connection, timeout, short body)."""


class _Refused(Exception):
    """The URL answered with an error status; the next URL is tried."""


def candidate_urls(source: Source, mirrors: Sequence[str]) -> list[str]:
    """Where to look for ``source``: under its original name at each mirror, else its hosts."""
    if not mirrors:
        return list(source.urls)
    out = []
    for m in mirrors:
        if urlparse(m).scheme in ("http", "https"):
            out.append(m.rstrip("/") + "/" + quote(source.filename))
        else:
            out.append(str(Path(_local_path(m)) / source.filename))
    return out


def obtain(source: Source, cache: DataCache, mirrors: Sequence[str] = (), *,
           progress: bool = True, retries: int = 5, backoff: float = 1.0,
           timeout: float = 60.0) -> Obtained:
    """The verified file ``downloads/<source.filename>``, downloading it if needed."""
    final = cache.downloads / source.filename
    if final.is_file():
        # Verified on every use: a cached copy must still have the pinned or recorded hash.
        sha, md5 = hash_file(final)
        expected, how = expected_sha256(source, cache)
        if sha in source.copies and sha != expected:
            if mirrors:  # a stand-in serves fetches from a mirror, never those from the hosts
                return Obtained(final, "", sha, final.stat().st_size, COPY)
        else:
            if expected is None and (source.md5 is None or md5 == source.md5):
                _record(cache, source.filename, sha, final.stat().st_size, "")
                expected, how = sha, FIRST
            if sha == expected:
                lock = cache.lock().get(source.filename, {})
                return Obtained(final, lock.get("url", ""), sha, final.stat().st_size, how)
        # Changed since it was verified, or a stand-in while the hosts are asked: download afresh
        final.unlink()
    cache.partial.mkdir(parents=True, exist_ok=True)
    part = cache.partial / source.filename
    try:
        # A network failure raises UserError here and keeps the partial bytes for a resume.
        url = _download_any(candidate_urls(source, mirrors), part, source.filename, progress,
                            retries, backoff, timeout)
    except UserError:
        if not part.exists() or part.stat().st_size == 0:
            _discard_partial(cache, part)  # nothing worth resuming
        raise
    except OSError as exc:
        _discard_partial(cache, part)
        _raise_if_no_space(exc, cache, source.filename)
        raise
    try:
        check_integrity(part, f"{source.filename} (from {url})")
        sha, md5 = hash_file(part)
        how = _verify(source, cache, url, sha, md5)
        size = part.stat().st_size
        cache.downloads.mkdir(parents=True, exist_ok=True)
        os.replace(part, final)
    except UserError:
        _discard_partial(cache, part)  # damaged or wrong bytes are worth nothing
        raise
    except OSError as exc:
        _discard_partial(cache, part)
        _raise_if_no_space(exc, cache, source.filename)
        raise
    if how != COPY:  # a stand-in's hash must never become the one the host's file is held to
        _record(cache, source.filename, sha, size, url)  # where it came from, and its hash
    _discard_partial(cache, part)
    return Obtained(final, url, sha, size, how)


def expected_sha256(source: Source, cache: DataCache) -> tuple[str | None, str]:
    """The sha256 a copy of ``source`` must have, and why (pin, or first download)."""
    if source.sha256:
        return source.sha256, f"sha256 pinned by {source.pin_by or 'the catalogue'}"
    recorded = cache.lock().get(source.filename)
    if recorded:
        return recorded["sha256"], f"sha256 recorded on first download ({recorded['recorded']})"
    return None, ""


def _verify(source: Source, cache: DataCache, url: str, sha: str, md5: str) -> str:
    if sha in source.copies and url not in source.urls:
        return COPY  # from a mirror; the same bytes from a host are the host's file
    if source.md5 and md5 != source.md5:
        raise UserError(f"{source.filename} from {url} has md5 {md5} but "
                        f"{source.pin_by or 'the catalogue'} publishes {source.md5}, so it was "
                        "deleted and nothing was stored")
    expected, how = expected_sha256(source, cache)
    if expected is None:
        return f"md5 pinned by {source.pin_by}" if source.md5 else FIRST
    if sha != expected:
        raise UserError(f"{source.filename} from {url} has sha256 {sha} but {expected} was "
                        f"expected ({how}), so it was deleted and nothing was stored")
    return how


def _record(cache: DataCache, filename: str, sha: str, size: int, url: str) -> None:
    """Note a verified file in the lock, unless it is there already (keep the first date)."""
    if cache.lock().get(filename, {}).get("sha256") == sha:
        return
    cache.record_download(filename, {
        "sha256": sha, "bytes": size, "url": url,
        "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds")})


def hash_file(path: Path) -> tuple[str, str]:
    """sha256 and md5 of a file in one pass."""
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            sha.update(chunk)
            md5.update(chunk)
    return sha.hexdigest(), md5.hexdigest()


# --- transport -----------------------------------------------------------------------------------

def _download_any(urls: list[str], part: Path, label: str, progress: bool, retries: int,
                  backoff: float, timeout: float) -> str:
    """Fill ``part`` from the first URL that serves it completely; return that URL."""
    failures: list[str] = []
    for url in urls:
        for attempt in range(retries + 1):
            try:
                if urlparse(url).scheme in ("http", "https"):
                    _http_once(url, part, label, progress, timeout)
                else:
                    _copy_local(url, part, label, progress)
                return url
            except _Refused as exc:
                failures.append(f"{url}: {exc}")
                break
            except _Transient as exc:
                if attempt == retries:
                    failures.append(f"{url}: {exc} (after {retries} retries)")
                else:
                    delay = min(backoff * 2 ** attempt, 60.0)
                    # said as it happens, so a slow network is not a silent wait
                    print(f"ordauc: {label}: {exc}; retry {attempt + 1} of {retries} in "
                          f"{delay:g} s", file=sys.stderr, flush=True)
                    time.sleep(delay)
    kept = part.stat().st_size if part.exists() else 0
    tail = (f"; the {kept:,} bytes received are kept in {part.parent} and the next fetch "
            "resumes them") if kept else ""
    raise NetworkError(f"could not download {label}: {'; '.join(failures)}{tail}")


def _http_once(url: str, part: Path, label: str, progress: bool, timeout: float) -> None:
    import requests
    import urllib3

    offset = part.stat().st_size if part.exists() else 0
    meta = _read_meta(part)
    headers = {"Accept-Encoding": "identity", "User-Agent": "ordauc-fetch/0.1"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
        if meta.get("url") == url and meta.get("validator"):
            headers["If-Range"] = meta["validator"]
    try:
        r = requests.get(url, headers=headers, stream=True, timeout=timeout)
    except (requests.ConnectionError, requests.Timeout) as exc:
        raise _Transient(f"connection failed ({type(exc).__name__})") from None
    with r:
        if r.status_code == 416 and offset:
            total = r.headers.get("Content-Range", "").rpartition("/")[2]
            if total.isdigit() and int(total) == offset:
                return  # already complete
            part.unlink()
            raise _Transient("the server refused to resume; restarting from the beginning")
        if r.status_code >= 400:
            raise _Refused(f"HTTP {r.status_code}")
        if r.status_code == 206 and not r.headers.get("Content-Range", "").startswith(
                f"bytes {offset}-"):
            part.unlink()
            raise _Transient("the server resumed at the wrong place; restarting")
        if r.status_code != 206:
            offset = 0  # a full answer: start over
        length = r.headers.get("Content-Length")
        total = offset + int(length) if length and length.isdigit() else None
        _write_meta(part, {"url": url, "validator": r.headers.get("ETag")
                           or r.headers.get("Last-Modified"), "total": total})
        _check_space(part, (total or 0) - offset)
        with open(part, "ab" if offset else "wb") as f, _bar(label, total, offset,
                                                              progress) as advance:
            try:
                for chunk in r.raw.stream(CHUNK, decode_content=False):
                    _write(f, chunk)
                    advance(len(chunk))
            except (urllib3.exceptions.HTTPError, requests.RequestException,
                    ConnectionError, TimeoutError) as exc:
                raise _Transient(f"the connection was cut ({type(exc).__name__})") from None
    size = part.stat().st_size
    if total is not None and size != total:
        raise _Transient(f"received {size:,} of {total:,} bytes")


def _copy_local(url: str, part: Path, label: str, progress: bool) -> None:
    src = Path(_local_path(url))
    if not src.is_file():
        raise _Refused("no such file")
    total = src.stat().st_size
    _check_space(part, total)
    with open(src, "rb") as fin, open(part, "wb") as f, _bar(label, total, 0, progress) as adv:
        while chunk := fin.read(CHUNK):
            _write(f, chunk)
            adv(len(chunk))


def _write(f: BinaryIO, chunk: bytes) -> None:
    """Every downloaded byte goes through here (a seam for simulating a full disk in tests)."""
    f.write(chunk)


def _check_space(part: Path, needed: int) -> None:
    free = shutil.disk_usage(part.parent).free
    if needed > free:
        raise OSError(errno.ENOSPC, f"{needed:,} bytes needed, {free:,} free")


def _local_path(url: str) -> str:
    parsed = urlparse(url)
    return unquote(parsed.path) if parsed.scheme == "file" else url


def _meta_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def _read_meta(part: Path) -> dict[str, Any]:
    p = _meta_path(part)
    return read_json(p) if p.is_file() and part.exists() else {}


def _write_meta(part: Path, meta: dict[str, Any]) -> None:
    write_json_atomic(_meta_path(part), meta)


def _discard_partial(cache: DataCache, part: Path) -> None:
    part.unlink(missing_ok=True)
    _meta_path(part).unlink(missing_ok=True)
    cache.tidy()


def _raise_if_no_space(exc: OSError, cache: DataCache, filename: str) -> None:
    if exc.errno in NO_SPACE:
        raise UserError(f"the disk holding {cache.root} is full (no room for {filename}), so "
                        "nothing was stored; free some space and fetch again") from None


@contextmanager
def _bar(label: str, total: int | None, done: int, enabled: bool) -> Iterator[Any]:
    """A progress bar on stderr (rich), or nothing when disabled."""
    if not enabled:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=total, completed=done)
        yield lambda n: bar.advance(task, n)
