"""Loading prepared datasets: load parameters, block-wise preparation, the cache commands."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures_data import makers
from fixtures_data.helpers import fetch_ok, patch_entry, run_cli, serve

from ordauc import data
from ordauc.data.arrays import NpyWriter, column_range, iter_rows
from ordauc.errors import UserError

RNG = np.random.default_rng(11)


@pytest.fixture
def mirror(tmp_path):
    """A local HTTP mirror serving ``tmp_path/mirror``, stopped after the test."""
    yield from serve(tmp_path)


def _vowel(root, n=110):
    X = RNG.random((n, 10))
    y = np.repeat(np.arange(11), n // 11)
    y[:3] = 10  # class 10 is the largest now, class 0 the smallest (7 rows)
    (root / "vowel").write_bytes(makers.libsvm_text(X, y))
    (root / "vowel.t").write_bytes(makers.libsvm_text(X[:22], y[:22]))
    return y


def test_positive_class_choices(mirror, tmp_path):
    y = _vowel(mirror.root)
    fetch_ok(mirror, tmp_path / "d", "vowel")
    d = tmp_path / "d"
    default = data.load("vowel", d)  # Table 1: n-/n+ = 10 -> a class of 10 rows out of 110
    assert default.info["positive_class"] == 1 and "Table 1" in default.info["positive_rule"]
    assert data.load("vowel", d, positive_class="smallest").info["positive_class"] == 0
    assert data.load("vowel", d, positive_class="first").info["positive_class"] == 0
    chosen = data.load("vowel", d, positive_class=10)
    np.testing.assert_array_equal(chosen.y, (y == 10).astype(int))
    assert chosen.y_test.sum() == 3
    with pytest.raises(UserError, match="positive_class 42 is not a class"):
        data.load("vowel", d, positive_class=42)
    with pytest.raises(UserError, match="has no parameter 'n_bins'"):
        data.load("vowel", d, n_bins=3)
    assert data.dataset_params("vowel") == ["positive_class", "n_rows"]
    assert data.dataset_params("boston") == ["n_bins", "binning", "partition", "n_rows"]


def test_n_rows_is_a_seeded_nested_subset_of_the_training_rows(mirror, tmp_path):
    y = _vowel(mirror.root)
    fetch_ok(mirror, tmp_path / "d", "vowel")
    d = tmp_path / "d"
    whole = data.load("vowel", d, positive_class=10)
    small = data.load("vowel", d, positive_class=10, n_rows=40)
    large = data.load("vowel", d, positive_class=10, n_rows=80)
    expected = np.sort(np.random.default_rng(0).permutation(110)[:40])
    np.testing.assert_array_equal(small.X, np.asarray(whole.X)[expected])
    np.testing.assert_array_equal(small.y, (y[expected] == 10).astype(int))
    rows_of = {tuple(r) for r in np.asarray(large.X)}
    assert all(tuple(r) in rows_of for r in np.asarray(small.X))  # smaller subsets nest
    assert small.X_test.shape == whole.X_test.shape  # the official test split stays whole
    assert small.info["subset"]["n_rows"] == 40 and small.info["subset"]["of"] == 110
    again = data.load("vowel", d, positive_class=10, n_rows=40)
    np.testing.assert_array_equal(again.X, small.X)
    with pytest.raises(UserError, match="n_rows 111 exceeds the 110 training rows"):
        data.load("vowel", d, n_rows=111)
    with pytest.raises(UserError, match="n_rows must be an integer"):
        data.load("vowel", d, n_rows=4.5)


def test_regression_parameters_are_checked(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "road3d")
    rows = np.column_stack([RNG.random((60, 3)), RNG.random(60)])
    (mirror.root / "3D_spatial_network.txt").write_bytes(makers.csv_text(rows))
    fetch_ok(mirror, tmp_path / "d", "road3d")
    with pytest.raises(UserError, match="binning 'quantile' is not known"):
        data.load("road3d", tmp_path / "d", binning="quantile")
    with pytest.raises(UserError, match="n_bins must be at least 2"):
        data.load("road3d", tmp_path / "d", n_bins=1)
    with pytest.raises(UserError, match="has no parameter 'partition'"):
        data.load("road3d", tmp_path / "d", partition=1)
    assert data.load("road3d", tmp_path / "d", n_bins=3).class_counts() == {1: 20, 2: 20, 3: 20}


def test_table_preparation_is_identical_in_small_blocks(mirror, tmp_path, monkeypatch):
    """Block boundaries (parse, scaling statistics, the train/test cut) change nothing."""
    import ordauc.data.arrays as arrays
    import ordauc.data.tables as tables

    patch_entry(monkeypatch, "higgs", test_tail=77)
    rows = np.column_stack([RNG.integers(0, 2, 1000), RNG.normal(size=(1000, 28)) * 3])
    (mirror.root / "HIGGS.csv.gz").write_bytes(makers.gz(makers.csv_text(rows)))
    fetch_ok(mirror, tmp_path / "whole", "higgs")
    monkeypatch.setattr(tables, "BLOCK_BYTES", 4096)  # ~ 8 rows per parsed block
    real_iter = arrays.iter_rows
    monkeypatch.setattr(arrays, "iter_rows",
                        lambda path, start=0, stop=None, block_rows=0: real_iter(path, start,
                                                                                 stop, 13))
    fetch_ok(mirror, tmp_path / "blocks", "higgs")
    a, b = data.load("higgs", tmp_path / "whole"), data.load("higgs", tmp_path / "blocks")
    assert a.X.shape == (923, 28) and a.X_test.shape == (77, 28)
    for key in ("X", "y", "X_test", "y_test"):
        np.testing.assert_array_equal(getattr(a, key), getattr(b, key))
    train = rows[:923, 1:]
    np.testing.assert_allclose(
        a.info["preparation"]["feature_min"], train.min(axis=0).astype(np.float32), rtol=1e-6)


def test_npy_writer_round_trip_and_blocks(tmp_path):
    with NpyWriter(tmp_path / "a.npy", np.float32, (3,)) as w:
        w.write(np.arange(6).reshape(2, 3))
        w.write(np.full((5, 3), 7.0))
    a = np.load(tmp_path / "a.npy", mmap_mode="r")
    assert a.shape == (7, 3) and a.dtype == np.float32 and a[1, 2] == 5 and a[6, 0] == 7
    blocks = list(iter_rows(tmp_path / "a.npy", 1, 6, block_rows=2))
    assert [b.shape[0] for b in blocks] == [2, 2, 1]
    np.testing.assert_array_equal(np.vstack(blocks), a[1:6])
    lo, hi = column_range(tmp_path / "a.npy", 0, 2)
    np.testing.assert_array_equal(lo, [0, 1, 2])
    np.testing.assert_array_equal(hi, [3, 4, 5])
    with pytest.raises(ValueError, match="do not match"):
        NpyWriter(tmp_path / "b.npy", np.float32, (3,)).write(np.zeros((2, 4)))


def test_fetch_is_idempotent_and_datasets_shows_the_cache(mirror, tmp_path):
    _vowel(mirror.root)
    fetch_ok(mirror, tmp_path / "d", "vowel")
    mirror.requests.clear()
    out = fetch_ok(mirror, tmp_path / "d", "vowel")
    assert "already prepared" in out and mirror.requests == []
    out = fetch_ok(mirror, tmp_path / "d", "vowel", "--force")
    assert "prepared in" in out and mirror.requests == []  # verified downloads are reused
    code, out, _ = run_cli("datasets", "--data-dir", str(tmp_path / "d"))
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert rows["vowel"].endswith("yes (1 warning)")  # 110 rows where the paper has 528
    assert rows["letter"].split()[-1] == "no"
    assert "110 +22" in rows["vowel"]  # the cached copy's own size
    manifest = data.load("vowel", tmp_path / "d").info
    assert manifest["sources"]["train"]["sha256"] and manifest["licence"]


def test_fetch_arguments_are_checked(tmp_path):
    code, _, err = run_cli("fetch", "--data-dir", str(tmp_path))
    assert code == 2 and "name at least one dataset" in err
    code, _, err = run_cli("fetch", "vowel", "--all", "--data-dir", str(tmp_path))
    assert code == 2 and "not both" in err


def test_catalogue_covers_the_four_papers():
    from ordauc.data.catalog import CATALOG

    # the four papers' sets, and real sets of ordauc's own studies (heart_scale, binary)
    own = {e.name for e in CATALOG.values() if e.paper.startswith("ordauc")}
    assert own == {"heart_scale"} and CATALOG["heart_scale"].task == "binary"
    papers = {e.paper.split()[0] for e in CATALOG.values() if e.name not in own}
    assert papers == {"QSG-S2AUC", "QS3ORAO", "AUC-DCD", "NPSVOR"}
    required = [
        "codrna", "ijcnn1", "susy", "covtype", "higgs", "skin", "dota2", "unclonable", "road3d",
        "sgemm", "year", "yolanda", "baby", "beauty", "clothes", "pet", "sonar", "fourclass",
        "german", "svmguide3", "dna", "svmguide4", "pendigits", "vowel", "letter", "sector",
        "pyrimidines", "machinecpu", "boston", "abalone", "bank", "computer", "california",
        "census", "movielens", "tae", "era"
    ]
    assert set(required) <= set(CATALOG)
    for e in CATALOG.values():
        assert e.name in own or e.task == ("binary" if e.paper.split()[0] in ("QSG-S2AUC",
                                                                              "AUC-DCD")
                                           else "ordinal")
        assert e.licence and e.citation and e.sources
        if not e.redistributable:
            assert e.name in {"baby", "beauty", "clothes", "pet", "movielens"}
    assert CATALOG["sector"].options["sparse"] and CATALOG["sector"].d == 55_197
