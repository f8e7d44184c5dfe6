"""Fetches of real files from ``../shared/data`` served by a local mirror (skipped without it).

The files are served under the hosts' original names; nothing from ../shared is copied into the
repository (tests build their mirror folders in a temporary directory).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from fixtures_data import makers
from fixtures_data.helpers import (
    empty_of_data,
    fetch_ok,
    run_cli,
    serve,
    shared_or_skip,
)

from ordauc import data


@pytest.fixture
def mirror(tmp_path):
    """A local HTTP mirror serving ``tmp_path/mirror``, stopped after the test."""
    yield from serve(tmp_path)


def test_dna_and_pendigits_load_with_catalogue_shapes(mirror, tmp_path):
    folder = shared_or_skip("zpli0320-dataset")
    # pendigits from the UCI copy: the other collection's lacks each row's last non-zero feature
    pendigits = shared_or_skip("uci-pendigits")
    for source, name in ((folder, "dna.scale"), (folder, "dna.scale.t"),
                         (pendigits, "pendigits"), (pendigits, "pendigits.t")):
        shutil.copy(source / name, mirror.root / name)
    fetch_ok(mirror, tmp_path / "d", "dna", "pendigits")
    dna = data.load("dna", tmp_path / "d")
    assert dna.X.shape == (2000, 180) and dna.X_test.shape == (1186, 180)
    pen = data.load("pendigits", tmp_path / "d")
    assert pen.X.shape == (7494, 16) and pen.X_test.shape == (3498, 16)
    assert np.asarray(pen.X[:, 15]).any()  # every feature is there, the 16th included
    # AUC-DCD Table 1: n-/n+ = 3.3103 (dna) and 8.6200 (pendigits) name the positive class
    assert dna.class_counts() == {0: 1536, 1: 464} and dna.info["positive_class"] == 1
    assert pen.class_counts() == {0: 6715, 1: 779} and pen.info["positive_class"] == 1
    labels = [int(line.split()[0]) for line in (pendigits / "pendigits").read_text().splitlines()]
    other = data.load("pendigits", tmp_path / "d", positive_class=7)
    assert other.info["positive_rule"] == "chosen by the user"
    assert other.y.sum() == labels.count(7) and np.bincount(labels).max() < 800


def test_malformed_line_names_file_and_line_and_stores_nothing(mirror, tmp_path):
    folder = shared_or_skip("uci-pendigits")
    lines = (folder / "pendigits").read_bytes().splitlines(keepends=True)
    lines[1233] = lines[1233].replace(b"3:", b"3;", 1)
    (mirror.root / "pendigits").write_bytes(b"".join(lines))
    shutil.copy(folder / "pendigits.t", mirror.root / "pendigits.t")
    code, _, err = run_cli("fetch", "pendigits", "--mirror", f"{mirror.url}/good",
                           "--data-dir", str(tmp_path / "d"), "--quiet")
    assert code == 2
    assert err.startswith("ordauc: error: pendigits, line 1234: ")
    assert "is not of the form index:value" in err and "nothing was stored" in err
    assert empty_of_data(tmp_path / "d", "pendigits")


def test_feature_index_beyond_catalogue_count_is_located(mirror, tmp_path):
    folder = shared_or_skip("zpli0320-dataset")
    lines = (folder / "dna.scale.t").read_bytes().splitlines(keepends=True)
    lines[9] = lines[9].rstrip() + b" 181:1\n"
    shutil.copy(folder / "dna.scale", mirror.root / "dna.scale")
    (mirror.root / "dna.scale.t").write_bytes(b"".join(lines))
    code, _, err = run_cli("fetch", "dna", "--mirror", f"{mirror.url}/good",
                           "--data-dir", str(tmp_path / "d"), "--quiet")
    assert code == 2 and "dna.scale.t, line 10: the feature index 181 is outside 1..180" in err
    assert empty_of_data(tmp_path / "d", "dna")


def test_chu_boston_archive_fetch_matches_files(mirror, tmp_path):
    root = shared_or_skip("chuwei-ordinal-bb515-probit", "probit", "data")
    members = {f"bostonhousing/{p.relative_to(root / 'bostonhousing')}": p.read_bytes()
               for p in (root / "bostonhousing").rglob("*") if p.is_file()}
    (mirror.root / "ordinal_bostonhousing.zip").write_bytes(makers.zip_bytes(members))
    fetch_ok(mirror, tmp_path / "d", "boston")
    whole = data.load("boston", tmp_path / "d")
    assert whole.X.shape == (506, 13) and whole.n_classes == 5
    sizes = np.bincount(whole.y)[1:]
    assert sizes.sum() == 506 and sizes.max() - sizes.min() <= 10  # equal-frequency
    assert data.load("boston", tmp_path / "d", binning="equal_width").class_counts() == {
        1: 77, 2: 239, 3: 123, 4: 36, 5: 31}
    p = data.load("boston", tmp_path / "d", partition=1)
    file = np.loadtxt(root / "bostonhousing/quantile/housing_train_5.1")
    assert p.X.shape == (300, 13) and p.X_test.shape == (206, 13)
    np.testing.assert_allclose(p.X, file[:, :-1], rtol=1e-6)
    np.testing.assert_array_equal(p.y, file[:, -1])


@pytest.mark.parametrize("name, folder, shape", [
    ("pyrimidines", "pyrimidines", (74, 27)), ("machinecpu", "machinecpu", (209, 6)),
    ("abalone", "abalone", (4177, 10)), ("stocks", "stocksdomain", (950, 9))])
def test_chu_archives_with_comma_and_space_raw_files(mirror, tmp_path, name, folder, shape):
    root = shared_or_skip("chuwei-ordinal-bb515-probit", "probit", "data")
    from ordauc.data.catalog import CATALOG

    members = {f"{folder}/{p.relative_to(root / folder)}": p.read_bytes()
               for p in (root / folder).rglob("*") if p.is_file()}
    archive = CATALOG[name].sources["archive"].filename
    (mirror.root / archive).write_bytes(makers.zip_bytes(members))
    fetch_ok(mirror, tmp_path / "d", name)
    ds = data.load(name, tmp_path / "d")
    assert ds.X.shape == shape and ds.n_classes == 5
    p = data.load(name, tmp_path / "d", partition=20, n_bins=10)
    n_train, n_test = CATALOG[name].options["split"]
    assert p.X.shape == (n_train, shape[1]) and p.X_test.shape == (n_test, shape[1])
    assert set(np.unique(p.y)) <= set(range(1, 11))


def test_survey_partitions_from_orca_example_data(mirror, tmp_path):
    base = shared_or_skip("orca", "exampledata", "30-holdout", "tae", "matlab")
    members = {f"datasets-orreview/ordinal-regression/tae/matlab/{p.name}": p.read_bytes()
               for p in base.iterdir()}
    (mirror.root / "datasets-orreview.zip").write_bytes(makers.zip_bytes(members))
    fetch_ok(mirror, tmp_path / "d", "tae")
    whole = data.load("tae", tmp_path / "d")
    assert whole.X.shape == (151, 54) and whole.n_classes == 3
    for i in (0, 29):
        part = data.load("tae", tmp_path / "d", partition=i)
        test = np.loadtxt(base / f"test_tae.{i}")
        np.testing.assert_allclose(part.X_test, test[:, :-1], rtol=1e-6)
        np.testing.assert_array_equal(part.y_test, test[:, -1])
    code, _, err = run_cli("datasets", "--data-dir", str(tmp_path / "d"))
    assert code == 0
    row = next(line for line in _.splitlines() if line.startswith("tae "))
    assert row.split()[-1] == "yes" and "151" in row
