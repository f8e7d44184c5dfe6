"""The real download code against a local server: mirrors, resume, checksums, damage, full disk.

Every failure must be one clear sentence (exit code 2, no traceback) and leave nothing in the
cache: no dataset folder, no staging folder, no partial or unverified download.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fixtures_data import makers
from fixtures_data.helpers import (
    REPO,
    empty_of_data,
    fetch_ok,
    patch_entry,
    run_cli,
    serve,
)

from ordauc import data
from ordauc.data.fetch import fetch
from ordauc.errors import UserError

RNG = np.random.default_rng(7)


@pytest.fixture
def mirror(tmp_path):
    """A local HTTP mirror serving ``tmp_path/mirror``, stopped after the test."""
    yield from serve(tmp_path)


def _fourclass(root: Path, n: int = 200) -> bytes:
    X = RNG.random((n, 2))
    y = np.where(X[:, 0] > 0.64, 1, -1)
    blob = makers.libsvm_text(X, y)
    (root / "fourclass").write_bytes(blob)
    return blob


def _covtype(root: Path, n: int = 3000) -> bytes:
    rows = np.column_stack([RNG.integers(0, 4000, (n, 54)), RNG.integers(1, 8, n)])
    blob = makers.gz(makers.csv_text(rows, fmt="%d"))
    (root / "covtype.data.gz").write_bytes(blob)
    return blob


def _fetch_fails(server_url: str, data_dir: Path, name: str, *extra: str, code: int = 2
                 ) -> str:
    """The one error line of a failing fetch; ``code`` 2 for bad data or input, 3 for a
    download that failed on every source."""
    expected = code
    code, out, err = run_cli("fetch", name, "--mirror", server_url, "--data-dir", str(data_dir),
                             "--quiet", *extra)
    assert code == expected, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ordauc: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("failing", ["missing", "error"])  # the server answers 404, or 503
def test_a_failing_mirror_falls_through_to_the_next(mirror, tmp_path, failing):
    _fourclass(mirror.root)
    code, out, err = run_cli("fetch", "fourclass", "--mirror", f"{mirror.url}/{failing}",
                             "--mirror", f"{mirror.url}/good", "--data-dir",
                             str(tmp_path / "d"), "--quiet")
    assert code == 0, err
    assert [p for p, _ in mirror.requests] == [f"/{failing}/fourclass", "/good/fourclass"]
    assert data.load("fourclass", tmp_path / "d").X.shape == (200, 2)


def test_every_mirror_failing_names_each_attempt(mirror, tmp_path):
    line = _fetch_fails(f"{mirror.url}/missing", tmp_path / "d", "fourclass",
                        "--mirror", f"{mirror.url}/error", code=3)
    assert "could not download fourclass" in line and "HTTP 404" in line and "HTTP 503" in line
    assert empty_of_data(tmp_path / "d", "fourclass")


def test_cut_connection_is_resumed_byte_identical(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "covtype")
    blob = _covtype(mirror.root)
    fetch(["covtype"], tmp_path / "d", [f"{mirror.url}/cut"], progress=False, backoff=0.01,
          echo=lambda s: None)
    ranges = [r for _, r in mirror.requests]
    assert ranges[0] is None and ranges[1] == f"bytes={len(blob) // 2}-"  # resumed, not redone
    assert (tmp_path / "d/downloads/covtype.data.gz").read_bytes() == blob
    assert data.load("covtype", tmp_path / "d").X.shape == (3000, 54)
    assert empty_of_data(tmp_path / "d", "nothing-else")  # no partial or staging left


def test_interrupted_download_is_kept_and_resumed_by_next_fetch(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "covtype")
    blob = _covtype(mirror.root)
    with pytest.raises(UserError, match="kept in .* and the next fetch resumes them"):
        fetch(["covtype"], tmp_path / "d", [f"{mirror.url}/always-cut"], progress=False,
              retries=1, backoff=0.01, echo=lambda s: None)
    assert not (tmp_path / "d/covtype").exists()
    assert not (tmp_path / "d/downloads/covtype.data.gz").exists()  # never counted as cached
    kept = (tmp_path / "d/.partial/covtype.data.gz").stat().st_size
    assert 0 < kept < len(blob)
    mirror.requests.clear()
    fetch(["covtype"], tmp_path / "d", [f"{mirror.url}/good"], progress=False,
          echo=lambda s: None)
    assert mirror.requests[0][1] == f"bytes={kept}-"
    assert (tmp_path / "d/downloads/covtype.data.gz").read_bytes() == blob


def test_pinned_checksum_mismatch_fails_and_stores_nothing(mirror, tmp_path):
    _covtype(mirror.root)  # not the host's file, so the catalogue's sha256 pin cannot match
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "covtype")
    assert "covtype.data.gz" in line and "has sha256" in line
    assert "614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771" in line
    assert "pinned by scikit-learn" in line
    assert empty_of_data(tmp_path / "d", "covtype")
    assert not (tmp_path / "d/downloads/covtype.data.gz").exists()


def test_first_download_hash_is_recorded_and_enforced(mirror, tmp_path):
    original = _fourclass(mirror.root)
    fetch_ok(mirror, tmp_path / "d", "fourclass")
    lock = data.load("fourclass", tmp_path / "d").info["sources"]["train"]
    assert lock["checksum"] == "sha256 recorded on this first download"
    # The host changes the file: a new download must match the hash recorded the first time.
    (mirror.root / "fourclass").write_bytes(original.replace(b"\n", b" \n", 1))
    (tmp_path / "d/downloads/fourclass").unlink()
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "fourclass", "--force")
    assert "recorded on first download" in line and lock["sha256"] in line
    assert not (tmp_path / "d/downloads/fourclass").exists()
    assert (tmp_path / "d/fourclass").is_dir()  # the earlier, verified dataset is untouched


def test_cached_download_is_verified_again_on_reuse(mirror, tmp_path):
    original = _fourclass(mirror.root)
    fetch_ok(mirror, tmp_path / "d", "fourclass")
    cached = tmp_path / "d/downloads/fourclass"
    cached.write_bytes(b"1 1:0.5 2:0.5\n")  # damaged on disk since it was verified
    mirror.requests.clear()
    fetch_ok(mirror, tmp_path / "d", "fourclass", "--force")
    assert [p for p, _ in mirror.requests] == ["/good/fourclass"]  # so it was fetched again
    assert cached.read_bytes() == original


def test_truncated_bz2_is_refused(mirror, tmp_path):
    good = makers.bz(makers.libsvm_text(RNG.random((300, 22)), np.ones(300)))
    (mirror.root / "ijcnn1.bz2").write_bytes(good[: len(good) * 2 // 3])
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "ijcnn1")
    assert "ijcnn1.bz2" in line and "is not a valid bz2 file" in line
    assert empty_of_data(tmp_path / "d", "ijcnn1")
    assert not (tmp_path / "d/downloads/ijcnn1.bz2").exists()


def test_zip_with_bad_crc_is_refused(mirror, tmp_path):
    blob = bytearray(makers.zip_bytes({"dota2Train.csv": b"1,2,3\n" * 2000,
                                       "dota2Test.csv": b"1,2,3\n"}))
    blob[60] ^= 0xFF  # inside the first member's compressed data
    (mirror.root / "dota2Dataset.zip").write_bytes(bytes(blob))
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "dota2")
    assert "dota2Dataset.zip" in line and "not a valid zip file" in line
    assert empty_of_data(tmp_path / "d", "dota2")
    assert not list((tmp_path / "d").glob("downloads/dota2*"))


def test_archive_member_escaping_the_folder_is_refused(mirror, tmp_path):
    (mirror.root / "dota2Dataset.zip").write_bytes(makers.zip_bytes(
        {"dota2Train.csv": b"1,2\n", "../../escaped.csv": b"x\n", "dota2Test.csv": b"1,2\n"}))
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "dota2")
    assert "leaves the extraction folder" in line
    assert not list(tmp_path.rglob("escaped.csv"))
    assert empty_of_data(tmp_path / "d", "dota2")


def test_tar_with_symlink_is_refused(tmp_path):
    import io
    import tarfile

    from ordauc.data.archive import safe_extract

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        link = tarfile.TarInfo("CaliforniaHousing/cal_housing.data")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(link)
    (tmp_path / "cal_housing.tgz").write_bytes(buf.getvalue())
    with pytest.raises(UserError, match="link or device"):
        safe_extract(tmp_path / "cal_housing.tgz", tmp_path / "out", "cal_housing.tgz")
    assert not (tmp_path / "out/CaliforniaHousing").exists()


def test_full_disk_while_downloading_stores_nothing(mirror, tmp_path, monkeypatch):
    import ordauc.data.download as download

    _fourclass(mirror.root)

    def no_space(f, chunk):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(download, "_write", no_space)
    line = _fetch_fails(f"{mirror.url}/good", tmp_path / "d", "fourclass")
    assert "is full" in line and "nothing was stored" in line
    assert empty_of_data(tmp_path / "d", "fourclass")
    assert not (tmp_path / "d/downloads/fourclass").exists()


def test_full_disk_while_preparing_stores_nothing(mirror, tmp_path, monkeypatch):
    from ordauc.data.arrays import NpyWriter

    patch_entry(monkeypatch, "covtype")
    _covtype(mirror.root)
    real_write = NpyWriter.write
    calls = []

    def fill_up(self, block):
        calls.append(block.shape)
        if len(calls) > 2:  # the raw features and labels fit, the scaled copy does not
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(self, block)

    monkeypatch.setattr(NpyWriter, "write", fill_up)
    code, _, err = run_cli("fetch", "covtype", "--mirror", f"{mirror.url}/good", "--data-dir",
                           str(tmp_path / "d"), "--quiet")
    assert code == 2 and "is full (while preparing covtype)" in err
    assert len(calls) == 3
    assert empty_of_data(tmp_path / "d", "covtype")


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX resource limits")
def test_real_file_size_limit_is_reported_as_full_disk(mirror, tmp_path):
    """The OS refuses the write (RLIMIT_FSIZE, SIGXFSZ ignored -> EFBIG): a real write error."""
    X = RNG.random((4000, 2))
    (mirror.root / "fourclass").write_bytes(makers.libsvm_text(X, np.where(X[:, 0] > .5, 1, -1)))
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))\n"
        "from ordauc.cli import main\n"
        "main(sys.argv[1:])\n")
    proc = subprocess.run(
        [sys.executable, "-c", script, "fetch", "fourclass", "--mirror", f"{mirror.url}/good",
         "--data-dir", str(tmp_path / "d"), "--quiet"],
        capture_output=True, text=True, timeout=60, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 2, proc.stderr
    assert "is full" in proc.stderr and "Traceback" not in proc.stderr
    assert empty_of_data(tmp_path / "d", "fourclass")


def test_local_folder_mirror(tmp_path):
    folder = tmp_path / "manual-downloads"
    folder.mkdir()
    _fourclass(folder)
    code, _, err = run_cli("fetch", "fourclass", "--mirror", str(folder), "--data-dir",
                           str(tmp_path / "d"), "--quiet")
    assert code == 0, err
    assert data.load("fourclass", tmp_path / "d").X.shape == (200, 2)


def test_unknown_name_and_missing_dataset_are_one_sentence(tmp_path):
    code, _, err = run_cli("fetch", "no-such-set", "--data-dir", str(tmp_path))
    assert code == 2 and "no dataset 'no-such-set' in the catalogue" in err
    with pytest.raises(UserError, match=r"run `ordauc fetch fourclass --data-dir"):
        data.load("fourclass", tmp_path / "empty")


def test_zip_member_listing_is_checked_before_use(tmp_path):
    from ordauc.data.archive import check_integrity

    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("/abs/path.csv", "1\n")
    with pytest.raises(UserError, match="leaves the extraction folder"):
        check_integrity(path, "x.zip")


def test_retries_are_shown_as_they_are_made(mirror, tmp_path, monkeypatch, capsys):
    from ordauc.errors import NetworkError

    patch_entry(monkeypatch, "covtype")
    _covtype(mirror.root)
    with pytest.raises(NetworkError, match=r"could not download .*\(after 3 retries\)"):
        fetch(["covtype"], tmp_path / "d", [f"{mirror.url}/always-cut"], progress=False,
              retries=3, backoff=0.01, echo=lambda s: None)
    said = [line for line in capsys.readouterr().err.splitlines() if "retry" in line]
    assert [line.split("; ")[-1] for line in said] == [
        "retry 1 of 3 in 0.01 s", "retry 2 of 3 in 0.02 s", "retry 3 of 3 in 0.04 s"]
    assert all(line.startswith("ordauc: covtype.data.gz") for line in said), said
    assert NetworkError.exit_code == 3 != NetworkError.__mro__[1].exit_code  # not bad input
