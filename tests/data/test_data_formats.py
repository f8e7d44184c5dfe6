"""Every source format of the catalogue, fetched through a local mirror and loaded back.

Each test writes small files under the catalogue's own file names (synthetic content), serves
them on 127.0.0.1 and runs ``ordauc fetch NAME --mirror URL``; the loaded dataset must have the
fixture's shape and labels.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from fixtures_data import makers
from fixtures_data.helpers import fetch_ok, patch_entry, serve

from ordauc import data
from ordauc.data.discretize import equal_frequency

RNG = np.random.default_rng(20240601)


@pytest.fixture
def mirror(tmp_path):
    """A local HTTP mirror serving ``tmp_path/mirror``, stopped after the test."""
    yield from serve(tmp_path)


def minmax(X: np.ndarray, lo: np.ndarray | None = None, hi: np.ndarray | None = None):
    lo = X.min(axis=0) if lo is None else lo
    hi = X.max(axis=0) if hi is None else hi
    span = np.where(hi > lo, hi - lo, 1.0)
    return (X - lo) / span


def test_libsvm_text_with_test_file(mirror, tmp_path):
    X, Xt = RNG.random((120, 8)), RNG.random((40, 8))
    y, yt = np.where(RNG.random(120) < 0.3, 1, -1), np.where(RNG.random(40) < 0.3, 1, -1)
    (mirror.root / "cod-rna").write_bytes(makers.libsvm_text(X, y))
    (mirror.root / "cod-rna.t").write_bytes(makers.libsvm_text(Xt, yt))
    fetch_ok(mirror, tmp_path / "d", "codrna")
    ds = data.load("codrna", tmp_path / "d")
    assert ds.X.shape == (120, 8) and ds.X_test.shape == (40, 8)
    assert ds.X.dtype == np.float32 and isinstance(ds.X, np.memmap)
    np.testing.assert_array_equal(ds.y, (y == 1).astype(int))
    np.testing.assert_array_equal(ds.y_test, (yt == 1).astype(int))
    np.testing.assert_allclose(ds.X, minmax(X), atol=1e-5)  # QSG protocol: [0, 1] scaling
    np.testing.assert_allclose(ds.X_test, minmax(Xt, X.min(0), X.max(0)), atol=1e-5)
    assert ds.info["positive_class"] == 1


def test_libsvm_bz2_uses_catalogue_feature_count(mirror, tmp_path):
    X = RNG.random((50, 22))
    X[:, 18:] = 0  # the file's largest index is 18, the dataset has 22 features
    y = np.where(RNG.random(50) < 0.2, 1, -1)
    y[:2] = [1, -1]
    (mirror.root / "ijcnn1.bz2").write_bytes(makers.bz(makers.libsvm_text(X, y)))
    (mirror.root / "ijcnn1.t.bz2").write_bytes(makers.bz(makers.libsvm_text(X[:10], y[:10])))
    fetch_ok(mirror, tmp_path / "d", "ijcnn1")
    ds = data.load("ijcnn1", tmp_path / "d")
    assert ds.X.shape == (50, 22) and ds.X_test.shape == (10, 22)
    assert ds.class_counts() == {0: int((y == -1).sum()), 1: int((y == 1).sum())}


def test_sparse_libsvm_stays_csr(mirror, tmp_path):
    n, d = 60, 55_197
    M = sp.random(n, d, density=2e-4, random_state=1, format="csr", dtype=np.float64)
    labels = np.repeat(np.arange(1, 7), 10)  # six classes of 10: none matches 148.1 exactly
    labels[:1] = 7  # class 7 has one row: n-/n+ = 59, the nearest to Table 1's 148.1
    labels[1:10] = 1
    for name, rows in (("sector.scale.bz2", M), ("sector.t.scale.bz2", M[:20])):
        (mirror.root / name).write_bytes(makers.bz(makers.libsvm_text(rows.toarray(),
                                                                      labels[: rows.shape[0]])))
    fetch_ok(mirror, tmp_path / "d", "sector")
    ds = data.load("sector", tmp_path / "d")
    assert sp.issparse(ds.X) and ds.X.format == "csr" and ds.X.shape == (n, d)
    assert ds.X.dtype == np.float32 and ds.X_test.shape == (20, d)
    np.testing.assert_allclose(ds.X.toarray(), M.toarray(), rtol=1e-5)
    assert ds.info["positive_class"] == 7 and ds.y.sum() == 1


def test_csv_gz_label_first_with_tail_test_split(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "higgs", test_tail=25)
    rows = np.column_stack([RNG.integers(0, 2, 100), RNG.normal(size=(100, 28))])
    (mirror.root / "HIGGS.csv.gz").write_bytes(makers.gz(makers.csv_text(rows, fmt="%.18e")))
    fetch_ok(mirror, tmp_path / "d", "higgs")
    ds = data.load("higgs", tmp_path / "d")
    assert ds.X.shape == (75, 28) and ds.X_test.shape == (25, 28)
    np.testing.assert_array_equal(ds.y, rows[:75, 0])
    np.testing.assert_array_equal(ds.y_test, rows[75:, 0])
    train = rows[:75, 1:]
    np.testing.assert_allclose(ds.X, minmax(train), atol=1e-5)
    np.testing.assert_allclose(ds.X_test, minmax(rows[75:, 1:], train.min(0), train.max(0)),
                               atol=1e-5)


def test_csv_gz_label_last_one_class_positive(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "covtype")
    labels = RNG.integers(1, 8, 90)
    rows = np.column_stack([RNG.integers(0, 100, (90, 54)), labels])
    (mirror.root / "covtype.data.gz").write_bytes(makers.gz(makers.csv_text(rows, fmt="%d")))
    fetch_ok(mirror, tmp_path / "d", "covtype")
    ds = data.load("covtype", tmp_path / "d")
    assert ds.X.shape == (90, 54) and ds.X_test is None
    np.testing.assert_array_equal(ds.y, (labels == 2).astype(int))
    assert ds.info["positive_class"] == 2


def test_zip_with_train_and_test_members(mirror, tmp_path):
    def game(n):
        return np.column_stack([RNG.choice([-1, 1], n), RNG.integers(100, 200, n),
                                RNG.integers(1, 9, (n, 2)), RNG.integers(-1, 2, (n, 113))])
    train, test = game(60), game(20)
    (mirror.root / "dota2Dataset.zip").write_bytes(makers.zip_bytes(
        {"dota2Train.csv": makers.csv_text(train, fmt="%d"),
         "dota2Test.csv": makers.csv_text(test, fmt="%d")}))
    fetch_ok(mirror, tmp_path / "d", "dota2")
    ds = data.load("dota2", tmp_path / "d")
    assert ds.X.shape == (60, 116) and ds.X_test.shape == (20, 116)
    np.testing.assert_array_equal(ds.y, (train[:, 0] == 1).astype(int))
    np.testing.assert_array_equal(ds.y_test, (test[:, 0] == 1).astype(int))


def test_zip_nested_member_label_last(mirror, tmp_path):
    def puf(n):
        return RNG.choice([-1, 1], (n, 129))
    train, test = puf(80), puf(30)
    folder = "XOR_Arbiter_PUFs/5xor_128bit"
    (mirror.root / "XOR_Arbiter_PUFs.zip").write_bytes(makers.zip_bytes(
        {f"{folder}/train_5xor_128dim.csv": makers.csv_text(train, fmt="%d"),
         f"{folder}/test_5xor_128dim.csv": makers.csv_text(test, fmt="%d"),
         "XOR_Arbiter_PUFs/6xor_64bit/train_6xor_64dim.csv": b"1,-1\n"}))
    fetch_ok(mirror, tmp_path / "d", "unclonable")
    ds = data.load("unclonable", tmp_path / "d")
    assert ds.X.shape == (80, 128) and ds.X_test.shape == (30, 128)
    np.testing.assert_array_equal(ds.y, (train[:, -1] == 1).astype(int))
    np.testing.assert_array_equal(np.asarray(ds.X), (train[:, :-1] + 1) / 2)  # -1/1 -> 0/1


def test_plain_csv_regression_target_equal_frequency(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "road3d")
    rows = np.column_stack([RNG.integers(1e6, 2e6, 100), RNG.random((100, 2)) + 9,
                            RNG.permutation(100) * 0.5])
    (mirror.root / "3D_spatial_network.txt").write_bytes(makers.csv_text(rows))
    fetch_ok(mirror, tmp_path / "d", "road3d")
    ds = data.load("road3d", tmp_path / "d")
    assert ds.X.shape == (100, 3) and ds.n_classes == 5
    assert ds.class_counts() == {k: 20 for k in range(1, 6)}
    np.testing.assert_array_equal(ds.y, equal_frequency(rows[:, 3], 5))
    assert ds.info["discretisation"]["rule"] == "equal_frequency"
    wide = data.load("road3d", tmp_path / "d", binning="equal_width", n_bins=4)
    assert wide.info["discretisation"]["rule"] == "equal_width" and wide.n_classes == 4


def test_zip_csv_with_header_and_averaged_target(mirror, tmp_path):
    names = ["MWG", "NWG", "KWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "KWI", "VWM", "VWN",
             "STRM", "STRN", "SA", "SB", "Run1 (ms)", "Run2 (ms)", "Run3 (ms)", "Run4 (ms)"]
    rows = np.column_stack([RNG.integers(1, 64, (50, 14)), RNG.random((50, 4)) * 100])
    (mirror.root / "sgemm_product_dataset.zip").write_bytes(makers.zip_bytes(
        {"sgemm_product.csv": makers.csv_text(rows, header=names)}))
    fetch_ok(mirror, tmp_path / "d", "sgemm")
    ds = data.load("sgemm", tmp_path / "d")
    assert ds.X.shape == (50, 14)
    np.testing.assert_array_equal(ds.y, equal_frequency(rows[:, 14:].mean(axis=1), 5))
    columns = ds.info["preparation"]["columns"]
    assert columns["features"] == names[:14] and columns["target_reduce"] == "mean"


def test_year_tail_split_bins_cut_on_training_targets(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "year", test_tail=30)
    years = RNG.integers(1950, 2011, 130)
    rows = np.column_stack([years, RNG.normal(size=(130, 90))])
    (mirror.root / "YearPredictionMSD.txt.zip").write_bytes(makers.zip_bytes(
        {"YearPredictionMSD.txt": makers.csv_text(rows)}))
    fetch_ok(mirror, tmp_path / "d", "year")
    ds = data.load("year", tmp_path / "d")
    assert ds.X.shape == (100, 90) and ds.X_test.shape == (30, 90)
    cuts = np.asarray(ds.info["discretisation"]["cuts"])
    np.testing.assert_array_equal(ds.y, equal_frequency(years[:100], 5))
    np.testing.assert_array_equal(ds.y_test, np.searchsorted(cuts, years[100:]) + 1)


def test_parquet_target_last_column(mirror, tmp_path):
    cols = {str(i): RNG.normal(size=200) for i in range(1, 101)}
    cols["101"] = RNG.normal(size=200)
    (mirror.root / "dataset_42705.pq").write_bytes(makers.parquet_bytes(cols))
    fetch_ok(mirror, tmp_path / "d", "yolanda")
    ds = data.load("yolanda", tmp_path / "d")
    assert ds.X.shape == (200, 100)
    np.testing.assert_array_equal(ds.y, equal_frequency(cols["101"], 5))


def test_json_lines_reviews_tfidf_svd(mirror, tmp_path):
    text, ratings = makers.amazon_jsonl(300)
    (mirror.root / "reviews_Baby_5.json.gz").write_bytes(makers.gz(text))
    out = fetch_ok(mirror, tmp_path / "d", "baby")
    ds = data.load("baby", tmp_path / "d")
    svd = ds.info["preparation"]["svd"]
    assert ds.X.shape == (300, svd["n_components"]) and svd["n_components"] < 1000
    assert "SVD components" in out  # a small vocabulary is reported, not hidden
    np.testing.assert_array_equal(ds.y, ratings)
    assert float(np.min(ds.X)) == 0.0 and float(np.max(ds.X)) == 1.0
    # The words depend on the rating, so the components must carry it: not noise.
    from sklearn.linear_model import LogisticRegression
    assert LogisticRegression(max_iter=500).fit(ds.X, ds.y).score(ds.X, ds.y) > 0.6


def test_tar_gz_member_csv(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "california")
    rows = np.column_stack([RNG.random((70, 8)), RNG.random(70) * 5e5])
    (mirror.root / "cal_housing.tgz").write_bytes(makers.tgz_bytes(
        {"CaliforniaHousing/cal_housing.data": makers.csv_text(rows),
         "CaliforniaHousing/cal_housing.domain": b"longitude: continuous.\n"}))
    fetch_ok(mirror, tmp_path / "d", "california")
    ds = data.load("california", tmp_path / "d")
    assert ds.X.shape == (70, 8) and ds.X_test is None
    np.testing.assert_allclose(ds.X, rows[:, :8], rtol=1e-6)  # NPSVOR sets are not rescaled
    assert ds.info["split_sizes"] == {"n_train": 5000, "n_test": 15640,
                                      "source": "NPSVOR Table I (random train/test partitions)"}


def test_tar_gz_whitespace_files_concatenated(mirror, tmp_path):
    a, b = RNG.random((45, 33)), RNG.random((37, 33))
    (mirror.root / "bank32NH.tgz").write_bytes(makers.tgz_bytes(
        {"Bank32nh/bank32nh.data": makers.csv_text(a, sep=" "),
         "Bank32nh/bank32nh.test": makers.csv_text(b, sep=" ")}))
    fetch_ok(mirror, tmp_path / "d", "bank")
    ds = data.load("bank", tmp_path / "d", n_bins=10)
    assert ds.X.shape == (82, 32) and ds.X_test is None and ds.n_classes == 10
    np.testing.assert_array_equal(ds.y, equal_frequency(np.r_[a[:, -1], b[:, -1]], 10))


def test_tsv_gz_with_header_named_target(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "computer")
    rows = np.column_stack([RNG.random((64, 21)), RNG.integers(0, 100, 64)])
    header = [f"f{i}" for i in range(21)] + ["target"]
    (mirror.root / "197_cpu_act.tsv.gz").write_bytes(makers.gz(makers.csv_text(
        rows, sep="\t", header=header)))
    fetch_ok(mirror, tmp_path / "d", "computer")
    ds = data.load("computer", tmp_path / "d")
    assert ds.X.shape == (64, 21)
    np.testing.assert_array_equal(ds.y, equal_frequency(rows[:, -1], 5))


def _chu_archive(raw: np.ndarray, folder: str, stem: str, n_train: int) -> bytes:
    """Chu's layout: raw file, then 20 partitions for 5 and 10 equal-width bins."""
    from ordauc.data.discretize import equal_width

    members = {f"{folder}/{stem}": makers.csv_text(raw, sep=" ")}
    for k, sub in ((5, "quantile"), (10, "decile")):
        labelled = np.column_stack([raw[:, :-1], equal_width(raw[:, -1], k)])
        for i in range(1, 21):
            order = np.random.default_rng(i).permutation(len(raw))
            for part, rows in (("train", order[:n_train]), ("test", order[n_train:])):
                members[f"{folder}/{sub}/{stem}_{part}_{k}.{i}"] = makers.csv_text(
                    labelled[rows], sep=" ")
    return makers.zip_bytes(members)


def test_chu_archive_bins_and_partitions(mirror, tmp_path):
    raw = np.column_stack([RNG.random((40, 13)), RNG.random(40) * 45 + 5])
    (mirror.root / "ordinal_bostonhousing.zip").write_bytes(
        _chu_archive(raw, "bostonhousing", "housing", 30))
    fetch_ok(mirror, tmp_path / "d", "boston")
    ds = data.load("boston", tmp_path / "d")
    assert ds.X.shape == (40, 13) and ds.X_test is None
    np.testing.assert_array_equal(ds.y, equal_frequency(raw[:, -1], 5))
    part = data.load("boston", tmp_path / "d", partition=3, n_bins=10)
    assert part.X.shape == (30, 13) and part.X_test.shape == (10, 13)
    order = np.random.default_rng(3).permutation(40)
    np.testing.assert_allclose(part.X, raw[order[:30], :-1], rtol=1e-6)
    from ordauc.data.discretize import equal_width
    np.testing.assert_array_equal(part.y_test, equal_width(raw[:, -1], 10)[order[30:]])
    assert part.info["partition"]["index"] == 3


def test_survey_bundle_holdouts(mirror, tmp_path):
    X = RNG.random((151, 54))
    y = np.repeat([1, 2, 3], [49, 50, 52])
    members = {}
    for i in range(30):
        order = np.random.default_rng(100 + i).permutation(151)
        for part, rows in (("train", order[:113]), ("test", order[113:])):
            members[f"datasets-orreview/ordinal-regression/tae/matlab/{part}_tae.{i}"] = \
                makers.csv_text(np.column_stack([X[rows], y[rows]]), sep=" ")
    members["datasets-orreview/ordinal-regression/tae/weka/train_tae.0.arff"] = b"@relation x\n"
    (mirror.root / "datasets-orreview.zip").write_bytes(makers.zip_bytes(members))
    fetch_ok(mirror, tmp_path / "d", "tae")
    whole = data.load("tae", tmp_path / "d")
    assert whole.X.shape == (151, 54) and whole.class_counts() == {1: 49, 2: 50, 3: 52}
    p7 = data.load("tae", tmp_path / "d", partition=7)
    order = np.random.default_rng(107).permutation(151)
    np.testing.assert_allclose(p7.X_test, X[order[113:]], rtol=1e-6)
    np.testing.assert_array_equal(p7.y, y[order[:113]])


def test_movielens_target_user_matrix(mirror, tmp_path, monkeypatch):
    patch_entry(monkeypatch, "movielens", n_users=20, target_movies=40)
    blob, ratings = makers.movielens_zip()
    (mirror.root / "ml-1m.zip").write_bytes(blob)
    fetch_ok(mirror, tmp_path / "d", "movielens")
    ds = data.load("movielens", tmp_path / "d")
    prep = ds.info["preparation"]
    target = prep["target_user"]
    users, counts = np.unique(ratings[:, 0], return_counts=True)
    assert np.abs(counts[users == target] - 40) == np.abs(counts - 40).min()
    mine = ratings[ratings[:, 0] == target]
    assert ds.X.shape == (prep["movies_kept"], 20) and prep["movies_kept"] <= len(mine)
    movies, users = prep["movie_ids"], prep["feature_user_ids"]
    assert target not in users and len(users) == 20
    lookup = {(u, m): r for u, m, r, _ in ratings.tolist()}
    np.testing.assert_array_equal(ds.y, [lookup[(target, m)] for m in movies])
    X = np.asarray(ds.X)
    for j, u in enumerate(users):
        seen = [(i, lookup[(u, m)]) for i, m in enumerate(movies) if (u, m) in lookup]
        assert seen, "every feature user rated one of the movies"
        mean = np.mean([r for _, r in seen])
        expected = np.full(len(movies), mean)
        for i, r in seen:
            expected[i] = r
        np.testing.assert_allclose(X[:, j], expected, rtol=1e-6)  # mean imputation

