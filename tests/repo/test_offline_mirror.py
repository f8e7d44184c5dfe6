"""The repository's offline mirror (data/offline-mirror): every file matches its MANIFEST.csv
row (sha256, size, source, licence), the catalogue's stand-in hashes are the manifest's, every
file the offline twins and the unlabeled-rows studies read is there under the host's name but
the AUC-DCD twin's dna and pendigits (no licence lets the repository ship them: they are nowhere
in the folder, its manifest or the catalogue's stand-ins), a fetch from the folder prepares the
rest with no network, and stand-ins are accepted by their own hash without becoming the hash a
host's file is later held to. CI's .ci/devdata.py prepares dna and pendigits from the
development data, after which the twin's fetch needs no network."""

from __future__ import annotations

import csv
import hashlib
import socket
from pathlib import Path

import pytest
from conftest import REPO
from fixtures_data.helpers import mirror_builder, run_cli, shared_or_skip

from ordauc.config import load_config
from ordauc.data.cache import DataCache
from ordauc.data.catalog import CATALOG
from ordauc.data.download import COPY, FIRST, obtain
from ordauc.data.spec import STAND_INS, Source
from ordauc.errors import UserError

MIRROR = REPO / "data" / "offline-mirror"
MANIFEST = MIRROR / "MANIFEST.csv"
FIELDS = ["file", "sha256", "bytes", "kind", "datasets", "original_url", "built_from",
          "licence"]
# The sets the folder must never hold (their copies carry no licence that allows shipping them),
# by catalogue name: the files of each.
NOT_SHIPPED = {"dna": ("dna.scale", "dna.scale.t"), "pendigits": ("pendigits", "pendigits.t")}
# Where make reproduce-offline looks up a file the folder lacks: the host of NOT_SHIPPED's files.
LIBSVM_MULTICLASS = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass"
# The configs whose real data the mirror serves: the offline twins and the unlabeled-rows studies.
CONFIGS = [*sorted((REPO / "configs" / "offline").glob("*.yaml")),
           REPO / "configs" / "unlabeled_binary.yaml", REPO / "configs" / "unlabeled_ordinal.yaml"]


def rows() -> list[dict[str, str]]:
    with open(MANIFEST, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == FIELDS
        return list(reader)


def real_datasets() -> set[str]:
    """The catalogue datasets (not built in) those configs read."""
    names = {spec.name for path in CONFIGS for spec in load_config(path).datasets}
    return {n for n in names if n in CATALOG}


def test_every_file_matches_its_manifest_row() -> None:
    listed = {row["file"]: row for row in rows()}
    shipped = {p.name for p in MIRROR.iterdir() if p.name not in ("MANIFEST.csv", "README.md")}
    assert shipped == set(listed)
    for name, row in listed.items():
        data = (MIRROR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["sha256"], name
        assert len(data) == int(row["bytes"]), name
        assert all(row[field].strip() for field in FIELDS), name


def test_the_mirror_stays_small() -> None:
    assert sum(int(row["bytes"]) for row in rows()) < 8_000_000


def test_each_file_stands_for_a_catalogue_source_under_its_name() -> None:
    sources = {s.filename: s for e in CATALOG.values() for s in e.sources.values()}
    for row in rows():
        source = sources[row["file"]]
        assert row["original_url"] in source.urls
        for name in row["datasets"].split():
            assert any(s.filename == row["file"] for s in CATALOG[name].sources.values())
        if row["kind"].startswith("host's bytes"):
            # the host's own file: held to the catalogue's pin like any download
            assert source.sha256 == row["sha256"] and not source.copies
        else:
            # a stand-in: the catalogue knows exactly these bytes, and no pin of the host's
            assert source.copies == (row["sha256"],) and STAND_INS[row["file"]] == row["sha256"]
            assert source.sha256 is None and source.md5 is None


def test_the_catalogue_lists_no_stand_in_the_folder_lacks() -> None:
    assert set(STAND_INS) <= {row["file"] for row in rows()}


def test_every_file_the_studies_read_is_in_the_mirror() -> None:
    names = real_datasets()
    assert {"pyrimidines", "abalone", "tae", "era", "car", "svmguide3", "dna", "pendigits",
            "heart_scale", "winequality-red"} <= names
    shipped = {row["file"] for row in rows()}
    for name in names - set(NOT_SHIPPED):
        for source in CATALOG[name].sources.values():
            assert source.filename in shipped, (name, source.filename)


def test_the_unlicensed_sets_are_nowhere_in_the_repository_s_mirror() -> None:
    """dna and pendigits: not in the folder, its manifest or the catalogue's stand-ins; their
    host (LIBSVM's multiclass folder, the second mirror of make reproduce-offline) serves them
    under the names the catalogue downloads."""
    in_folder = {p.name for p in MIRROR.iterdir()}
    listed = {row["file"] for row in rows()}
    listed |= {n for row in rows() for n in row["datasets"].split()}
    for name, files in NOT_SHIPPED.items():
        assert name not in listed
        sources = CATALOG[name].sources.values()
        assert sorted(s.filename for s in sources) == sorted(files)
        for source in sources:
            assert source.filename not in in_folder | listed | set(STAND_INS)
            assert source.copies == ()
            assert f"{LIBSVM_MULTICLASS}/{source.filename}" in source.urls


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every socket connection and name lookup refused (and recorded): the fetch must not need
    one."""
    attempts: list[object] = []

    def refuse(self: socket.socket, address: object, *args: object) -> None:
        attempts.append(address)
        raise OSError("no network in this test")

    def no_lookup(host: object, *args: object) -> None:
        attempts.append(host)
        raise socket.gaierror("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    return attempts


def test_a_fetch_from_the_folder_uses_no_network_and_names_the_stand_ins(
        tmp_path: Path, no_network: list[object]) -> None:
    code, out, err = run_cli("fetch", "pyrimidines", "tae", "svmguide3", "heart_scale",
                             "--mirror", str(MIRROR), "--data-dir", str(tmp_path), "--quiet")
    assert code == 0, err
    assert no_network == []
    text = out + err
    for name in ("ordinal_pyrimidines.zip", "datasets-orreview.zip", "svmguide3"):
        assert f"{name} verified ({COPY})" in text
    assert "heart_scale verified (sha256 pinned by LIBSVM" in text
    lock = DataCache(tmp_path).lock()
    assert set(lock) == {"heart_scale"}  # the stand-ins' hashes are never recorded


@pytest.mark.slow  # about 15 s of CPU: every dataset of the twins and unlabeled-rows studies
def test_every_study_s_data_prepares_from_the_folder_alone(
        tmp_path: Path, no_network: list[object]) -> None:
    from ordauc import data

    names = sorted(real_datasets() - set(NOT_SHIPPED))
    code, _, err = run_cli("fetch", *names, "--mirror", str(MIRROR), "--data-dir", str(tmp_path),
                           "--quiet")
    assert code == 0, err
    assert no_network == []
    for name in names:
        assert data.is_prepared(name, tmp_path), name


def test_without_network_the_auc_dcd_twin_fails_at_fetch_on_dna(
        tmp_path: Path, no_network: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    """With make reproduce-offline's mirrors and no network: svmguide3 comes from the folder,
    dna and pendigits are each asked of LIBSVM's site (a connection is tried: a failure does not
    stop the next dataset) and the fetch fails naming both."""
    monkeypatch.setattr("ordauc.data.download.time.sleep", lambda _: None)  # no back-off waits
    code, out, err = run_cli("fetch", str(REPO / "configs" / "offline" / "auc_dcd.yaml"),
                             "--mirror", str(MIRROR), "--mirror", LIBSVM_MULTICLASS,
                             "--data-dir", str(tmp_path), "--quiet")
    assert code != 0
    assert "2 datasets could not be fetched (the others are prepared): dna: " in out + err
    assert "could not download dna.scale" in out + err
    assert f"{LIBSVM_MULTICLASS}/dna.scale: connection failed" in out + err
    assert "; pendigits: could not download pendigits" in out + err
    assert no_network  # the host was asked
    from ordauc import data

    assert data.is_prepared("svmguide3", tmp_path)
    assert not data.is_prepared("dna", tmp_path)


def _devdata() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("devdata", REPO / ".ci" / "devdata.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_prepares_dna_and_pendigits_then_the_twin_s_fetch_needs_no_network(
        tmp_path: Path, no_network: list[object]) -> None:
    """.ci/devdata.py serves the development data's dna.scale(.t) and UCI pendigits(.t) through
    a local mirror folder; their hashes are recorded as on a first download; make
    reproduce-offline's fetch then finds both prepared (skipped where that data is absent)."""
    dev = shared_or_skip()
    assert _devdata().main(tmp_path, dev) == 0  # type: ignore[attr-defined]
    lock = DataCache(tmp_path).lock()
    assert set(lock) == {f for files in NOT_SHIPPED.values() for f in files}
    for name, folder in (("dna.scale", "zpli0320-dataset"), ("pendigits", "uci-pendigits")):
        expected = hashlib.sha256((dev / folder / name).read_bytes()).hexdigest()
        assert lock[name]["sha256"] == expected
    code, out, err = run_cli("fetch", str(REPO / "configs" / "offline" / "auc_dcd.yaml"),
                             "--mirror", str(MIRROR), "--mirror", LIBSVM_MULTICLASS,
                             "--data-dir", str(tmp_path), "--quiet")
    assert code == 0, err
    assert no_network == []
    for name in NOT_SHIPPED:
        assert f"{name}: already prepared" in out + err


def test_ci_step_says_so_and_does_nothing_without_the_development_data(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _devdata().main(tmp_path / "d", tmp_path / "absent") == 0  # type: ignore[attr-defined]
    assert "nothing prepared" in capsys.readouterr().out
    assert not (tmp_path / "d").exists()


# --- how a stand-in is verified (ordauc.data.download) -----------------------------------------

def _source(tmp_path: Path, stand_in: bytes) -> tuple[Source, Path]:
    """An unpinned source whose stand-in is ``stand_in``, served by a local mirror folder, and
    a host (another local folder) serving different bytes under the same name."""
    mirror, host = tmp_path / "mirror", tmp_path / "host"
    mirror.mkdir()
    host.mkdir()
    (mirror / "f.txt").write_bytes(stand_in)
    (host / "f.txt").write_bytes(b"the host's own bytes\n")
    source = Source("f.txt", (str(host / "f.txt"),),
                    copies=(hashlib.sha256(stand_in).hexdigest(),))
    return source, mirror


def test_a_stand_in_is_accepted_by_its_hash_and_not_recorded(tmp_path: Path) -> None:
    source, mirror = _source(tmp_path, b"the repository's stand-in\n")
    cache = DataCache(tmp_path / "data")
    got = obtain(source, cache, [str(mirror)], progress=False)
    assert got.check == COPY and got.sha256 == source.copies[0]
    assert cache.lock() == {}
    again = obtain(source, cache, [str(mirror)], progress=False)  # cached: reused from a mirror
    assert again.check == COPY and again.path == got.path


def test_the_host_s_file_replaces_a_cached_stand_in_and_is_recorded(tmp_path: Path) -> None:
    source, mirror = _source(tmp_path, b"the repository's stand-in\n")
    cache = DataCache(tmp_path / "data")
    obtain(source, cache, [str(mirror)], progress=False)
    got = obtain(source, cache, progress=False)  # from the hosts: the stand-in is not used
    assert got.check == FIRST
    assert got.path.read_bytes() == b"the host's own bytes\n"
    assert cache.lock()["f.txt"]["sha256"] == got.sha256


def test_a_host_serving_the_stand_in_s_bytes_serves_the_host_s_file(tmp_path: Path) -> None:
    """A stand-in may well be the host's own bytes: from the host they are its file, recorded,
    and reused without a new download."""
    source, mirror = _source(tmp_path, b"the host's own bytes\n")
    cache = DataCache(tmp_path / "data")
    got = obtain(source, cache, progress=False)
    assert got.check == FIRST and cache.lock()["f.txt"]["sha256"] == got.sha256
    (tmp_path / "host" / "f.txt").unlink()  # a second download would now fail
    assert obtain(source, cache, progress=False).check.startswith("sha256 recorded")
    assert obtain(source, cache, [str(mirror)], progress=False).path == got.path


def test_other_bytes_are_not_taken_for_a_stand_in(tmp_path: Path) -> None:
    """A host record in the lock still holds other bytes to the host's hash."""
    source, mirror = _source(tmp_path, b"the repository's stand-in\n")
    cache = DataCache(tmp_path / "data")
    obtain(source, cache, progress=False)  # the host's file, recorded
    (cache.downloads / "f.txt").unlink()
    (mirror / "f.txt").write_bytes(b"the repository's stand-in, altered\n")
    with pytest.raises(UserError, match="recorded on first download"):
        obtain(source, cache, [str(mirror)], progress=False)


@pytest.mark.slow  # rebuilds the whole mirror from the development data: `make test-all`
def test_the_folder_is_what_its_builder_makes_from_the_development_data(tmp_path: Path) -> None:
    """Rebuilt from ../shared/data by scripts/build_offline_mirror.py, every file and the
    manifest come out byte for byte as shipped (skipped where that folder is absent)."""
    dev = shared_or_skip()
    mirror_builder().build(dev, tmp_path)
    for row in rows():
        assert (tmp_path / row["file"]).read_bytes() == (MIRROR / row["file"]).read_bytes()
    assert (tmp_path / "MANIFEST.csv").read_bytes() == MANIFEST.read_bytes()
