"""Catalogue rows of the two ordinal papers: QS3ORAO and NPSVOR (see ``ordauc.data.catalog``)."""

from __future__ import annotations

from typing import Any

from ordauc.data.spec import CC_BY, UCI, Entry, Source, stand_ins

QS3 = "QS3ORAO (Shi et al., AAAI 2020)"
NPS = "NPSVOR (Wang et al., IEEE Trans. Cybernetics 2017)"
BINNED: dict[str, Any] = {"n_bins": 5, "binning": "equal_frequency"}
BINS_SET_CLASSES = {"n_classes": "n_bins"}  # a regression target cut into n_bins classes
AMAZON = "http://snap.stanford.edu/data/amazon/productGraph/categoryFiles"
CHU = "http://www.gatsby.ucl.ac.uk/~chuwei/data"
TORGO = "https://www.dcc.fc.up.pt/~ltorgo/Regression"
PMLB = "https://github.com/EpistasisLab/pmlb/raw/master/datasets"
CHU_LICENCE = ("no licence stated ('property of Chu Wei'); research use; cite Chu & Ghahramani "
               "2005 and Chu & Keerthi 2007")
CHU_CITE = ("Chu & Ghahramani, Gaussian processes for ordinal regression, JMLR 2005; Chu & "
            "Keerthi, Support vector ordinal regression, Neural Computation 2007")


def _qs3(name: str, sources: dict[str, Source], n: int, d: int, options: dict[str, Any],
         licence: str, citation: str, origin: str = "UCI", n_test: int | None = None,
         notes: str = "") -> Entry:
    return Entry(name=name, task="ordinal", paper=QS3, recipe="table", sources=sources, n=n,
                 d=d, n_classes=5, origin=origin, licence=licence, citation=citation,
                 n_test=n_test, params=dict(BINNED), set_by=dict(BINS_SET_CLASSES), notes=notes,
                 options={"label_kind": "regression_target", "scale": "minmax", **options})


def _amazon(name: str, category: str, n: int) -> Entry:
    filename = f"reviews_{category}_5.json.gz"
    return Entry(name=name, task="ordinal", paper=QS3, recipe="amazon",
                 sources={"reviews": Source(filename, (f"{AMAZON}/{filename}",))}, n=n, d=1000,
                 n_classes=5, origin="Amazon (McAuley)",
                 licence="no licence: research use only, never redistribute",
                 citation="McAuley, Targett, Shi & van den Hengel, SIGIR 2015; He & McAuley, "
                          "WWW 2016", redistributable=False,
                 notes=f"{category} 5-core reviews; rating 1-5 is the label; TF-IDF of summary "
                       "and text, truncated SVD to 1000 dimensions")


QS3ORAO = [
    _qs3("road3d", {"train": Source(
        "3D_spatial_network.txt", (f"{UCI}/00246/3D_spatial_network.txt",),
        sha256="d83303a61dc3c9d0842df2c7e5b496ec29aafa2080a430253acb8411cae789dc",
        pin_by="Intel scikit-learn_bench")}, 434_874, 3,
        {"format": {"kind": "csv"}, "target": 3}, CC_BY,
        "Kaul, Yang & Jensen, UCI 3D Road Network (North Jutland, Denmark) (dataset 246)",
        notes="features OSM_ID, longitude, latitude; target altitude"),
    _qs3("sgemm", {"archive": Source(
        "sgemm_product_dataset.zip", (f"{UCI}/00440/sgemm_product_dataset.zip",))},
        241_600, 14,
        {"format": {"kind": "csv", "header": True},
         "train": {"role": "archive", "member": "sgemm_product.csv"},
         "target": ["Run1 (ms)", "Run2 (ms)", "Run3 (ms)", "Run4 (ms)"]}, CC_BY,
        "Nugteren & Codreanu, UCI SGEMM GPU kernel performance (dataset 440)",
        notes="target: mean of the four runs' times"),
    _qs3("year", {"archive": Source(
        "YearPredictionMSD.txt.zip", (f"{UCI}/00203/YearPredictionMSD.txt.zip",),
        sha256="06f801af323bb7798e800583acce4ea1ed2697ac12c23f4424aea0a7a3d09e11",
        pin_by="Intel scikit-learn_bench")}, 463_715, 90,
        {"format": {"kind": "csv"}, "train": {"role": "archive",
                                              "member": "YearPredictionMSD.txt"},
         "target": 0, "test_tail": 51_630}, CC_BY,
        "Bertin-Mahieux, Ellis, Whitman & Lamere, ISMIR 2011; UCI YearPredictionMSD "
        "(dataset 203)", n_test=51_630,
        notes="the official split: first 463,715 rows train, last 51,630 test; bins are cut "
              "on the training targets"),
    _qs3("yolanda", {"train": Source(
        "dataset_42705.pq", ("https://data.openml.org/datasets/0004/42705/dataset_42705.pq",))},
        400_000, 100, {"format": {"kind": "parquet"}, "target": -1},
        "OpenML 'public' (ChaLearn AutoML challenge data; licence to be confirmed)",
        "Guyon et al., ChaLearn AutoML challenge 2015-2018; OpenML dataset 42705",
        origin="OpenML", notes="target: the last column (OpenML's default target)"),
    _amazon("baby", "Baby", 160_792),
    _amazon("beauty", "Beauty", 198_502),
    _amazon("clothes", "Clothing_Shoes_and_Jewelry", 278_677),
    _amazon("pet", "Pet_Supplies", 157_836),
]


def _chu(name: str, zipname: str, folder: str, stem: str, n: int, d: int, split: tuple[int, int]
         ) -> Entry:
    return Entry(name=name, task="ordinal", paper=NPS, recipe="chu",
                 sources={"archive": Source(f"ordinal_{zipname}.zip",
                                            (f"{CHU}/ordinal_{zipname}.zip",),
                                            copies=stand_ins(f"ordinal_{zipname}.zip"))},
                 n=n, d=d, n_classes=5, origin="Chu Wei", licence=CHU_LICENCE,
                 citation=CHU_CITE, options={"folder": folder, "stem": stem, "split": split},
                 params={**BINNED, "partition": None}, set_by=dict(BINS_SET_CLASSES),
                 notes=f"NPSVOR Table I split {split[0]}/{split[1]}; partition=1..20 gives "
                       "Chu's own files (equal-width bins, n_bins 5 or 10); features unscaled "
                       "(NPSVOR standardises on each training split)")


def _regression(name: str, source: Source, n: int, d: int, split: tuple[int, int],
                options: dict[str, Any], origin: str, licence: str, citation: str,
                notes: str) -> Entry:
    return Entry(name=name, task="ordinal", paper=NPS, recipe="table",
                 sources={"archive" if "train" in options else "train": source}, n=n, d=d,
                 n_classes=5, origin=origin, licence=licence, citation=citation,
                 options={"label_kind": "regression_target", "split": split, **options},
                 params=dict(BINNED), set_by=dict(BINS_SET_CLASSES),
                 notes=f"NPSVOR Table I split {split[0]}/{split[1]}; {notes}; features unscaled")


def _pmlb(name: str, dataset: str, sha: str, n: int, d: int, split: tuple[int, int],
          notes: str) -> Entry:
    filename = f"{dataset}.tsv.gz"
    return _regression(name, Source(filename, (f"{PMLB}/{dataset}/{filename}",), sha256=sha,
                                    pin_by="PMLB (git LFS object id)"),
                       n, d, split, {"format": {"kind": "tsv", "header": True},
                                     "target": "target"},
                       "PMLB", "as the original (Delve / Torgo collection); PMLB is MIT",
                       f"Olson et al., PMLB, BioData Mining 2017; Torgo regression collection; "
                       f"{CHU_CITE}", notes)


def _torgo_bank(name: str, archive: str, folder: str, stem: str, d: int) -> Entry:
    member = f"{folder}/{stem}"
    return _regression(name, Source(archive, (f"{TORGO}/{archive}",)), 8_192, d,
                       (3_000, 5_192),
                       {"format": {"kind": "whitespace"}, "target": -1, "concat": True,
                        "train": {"role": "archive", "member": f"{member}.data"},
                        "test": {"role": "archive", "member": f"{member}.test"}},
                       "Torgo", "Delve terms (research use); no licence stated by the mirror",
                       f"Delve bank family (Rasmussen et al.); Torgo regression collection; "
                       f"{CHU_CITE}", f"{stem}: {d} features; .data and .test together")


_CALIFORNIA = Source("cal_housing.tgz", (f"{TORGO}/cal_housing.tgz",
                                         "https://ndownloader.figshare.com/files/5976036"),
                     sha256="aaa5c9a6afe2225cc2aed2723682ae403280c4a3695a2ddda4ffb5d8215ea681",
                     pin_by="scikit-learn (fetch_california_housing)")

# The survey's real ordinal datasets used by NPSVOR: name, folder, n, d, classes.
_SURVEY = [("contact-lenses", "contact-lenses", 24, 6, 3), ("pasture", "pasture", 36, 25, 3),
           ("squash-stored", "squash-stored", 52, 51, 3),
           ("squash-unstored", "squash-unstored", 52, 52, 3), ("tae", "tae", 151, 54, 3),
           ("newthyroid", "newthyroid", 215, 5, 3),
           ("balance-scale", "balance-scale", 625, 4, 3), ("swd", "SWD", 1_000, 10, 4),
           ("car", "car", 1_728, 21, 4), ("bondrate", "bondrate", 57, 37, 5),
           ("toy", "toy", 300, 2, 5), ("eucalyptus", "eucalyptus", 736, 91, 5),
           ("lev", "LEV", 1_000, 4, 5), ("automobile", "automobile", 205, 71, 6),
           ("winequality-red", "winequality-red", 1_599, 11, 6), ("esl", "ESL", 488, 4, 9),
           ("era", "ERA", 1_000, 4, 9)]
_ORREVIEW = Source("datasets-orreview.zip",
                   ("http://www.uco.es/grupos/ayrna/ucobigfiles/datasets-orreview.zip",),
                   copies=stand_ins("datasets-orreview.zip"))


def _survey(name: str, folder: str, n: int, d: int, k: int) -> Entry:
    return Entry(name=name, task="ordinal", paper=NPS, recipe="orreview",
                 sources={"bundle": _ORREVIEW}, n=n, d=d, n_classes=k, origin="ORCA survey",
                 licence="no licence stated for the partitions; cite the survey and the "
                         "original source",
                 citation="Gutiérrez, Pérez-Ortiz, Sánchez-Monedero, Fernández-Navarro & "
                          "Hervás-Martínez, Ordinal regression methods: survey and experimental "
                          "study, IEEE TKDE 2016",
                 options={"folder": folder}, params={"partition": None},
                 notes="30 stratified 75/25 hold-outs; partition=0..29 selects one; features "
                       "as published")


NPSVOR = [
    _chu("pyrimidines", "pyrimidines", "pyrimidines", "pyrim", 74, 27, (50, 24)),
    _chu("machinecpu", "machine", "machinecpu", "machine", 209, 6, (150, 59)),
    _chu("boston", "bostonhousing", "bostonhousing", "housing", 506, 13, (300, 206)),
    _chu("stocks", "stocksdomain", "stocksdomain", "stock", 950, 9, (600, 350)),
    _chu("abalone", "abalone", "abalone", "abalone", 4_177, 10, (1_000, 3_177)),
    _torgo_bank("bank", "bank32NH.tgz", "Bank32nh", "bank32nh", 32),
    _torgo_bank("bank8", "bank8FM.tgz", "Bank8FM", "bank8FM", 8),
    _pmlb("computer", "197_cpu_act",
          "d00fd6bac2eda0821a04ff10277663d211127745a19a474c0feee41a16914fdc",
          8_192, 21, (4_000, 4_192), "cpu_act: 21 features"),
    _pmlb("computer12", "227_cpu_small",
          "2d1386a66ab4548b5bdfc95581a77d5fd21852094da5ad2a7844b04e47e1e612",
          8_192, 12, (4_000, 4_192), "cpu_small: 12 features"),
    _regression("california", _CALIFORNIA, 20_640, 8, (5_000, 15_640),
                {"format": {"kind": "csv"}, "target": -1,
                 "train": {"role": "archive", "member": "CaliforniaHousing/cal_housing.data"}},
                "Torgo", "no licence stated (StatLib); cite Pace & Barry 1997",
                f"Pace & Barry, Statistics & Probability Letters 1997; {CHU_CITE}",
                "median house value is the target"),
    _pmlb("census", "574_house_16H",
          "a551e2941365201552a3a819f035c64f297467464f7c7c349d00711316ce3c57",
          22_784, 16, (6_000, 16_784), "house_16H: 16 features (NPSVOR's census)"),
    _pmlb("census8", "218_house_8L",
          "034378d7304b89725c914779ed819b6d22e62f60f15d1eac774c4a1244bbc790",
          22_784, 8, (6_000, 16_784), "house_8L: 8 features"),
    *(_survey(*row) for row in _SURVEY),
    Entry(name="movielens", task="ordinal", paper=NPS, recipe="movielens",
          sources={"archive": Source(
              "ml-1m.zip", ("https://files.grouplens.org/datasets/movielens/ml-1m.zip",),
              sha256="a6898adb50b9ca05aa231689da44c217cb524e7ebd39d264c56e2832f2c54e20",
              md5="c4d9eecfca2ab87c1945afe126590906",
              pin_by="GroupLens (md5 published beside the file) and third-party code (sha256)")},
          n=503, d=1_500, n_classes=5, origin="GroupLens",
          licence="GroupLens terms: research use, no redistribution, no commercial use",
          citation="Harper & Konstan, The MovieLens datasets, ACM TiiS 2015",
          redistributable=False, options={"n_users": 1_500, "target_movies": 518},
          notes="movies rated by one target user x the 1500 users who rated most of them "
                "(Chu & Keerthi 2007); the target user is not named by the paper"),
]
