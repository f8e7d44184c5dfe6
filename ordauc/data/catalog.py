"""The download catalogue: every dataset of the four papers (and a few real sets of ordauc's own
studies), name -> :class:`Entry`.

Sources and formats are those the hosts publish; sizes and classes come from the papers' tables
(QSG-S2AUC Table 2, QS3ORAO Table 2, AUC-DCD Table 1, NPSVOR Table I). The built-in sets are
entries of :mod:`ordauc.data.builtin`, not of this catalogue (they have nothing to fetch).
Checksums are pinned only where a host or independent third-party code publishes them; every
other file is trusted on first download (see ``ordauc.data.download``).
"""

from __future__ import annotations

from typing import Any

from ordauc.data.catalog_ordinal import NPSVOR, QS3ORAO
from ordauc.data.spec import (
    CC_BY,
    LIBSVM_CITE,
    LIBSVM_LICENCE,
    LS,
    UCI,
    Entry,
    Source,
    libsvm,
)

QSG = "QSG-S2AUC (Shi et al., IJCAI 2019)"
DCD = "AUC-DCD (Jiang et al., J. Software 2014)"
BINARY_PARAMS: dict[str, Any] = {"positive_class": "default"}


def _qsg(name: str, recipe: str, sources: dict[str, Source], n: int, d: int, origin: str,
         licence: str, citation: str, positive: Any, n_test: int | None = None,
         options: dict[str, Any] | None = None, notes: str = "") -> Entry:
    opts = {"scale": "minmax", "positive": positive, **(options or {})}
    return Entry(name=name, task="binary", paper=QSG, recipe=recipe, sources=sources, n=n, d=d,
                 n_classes=2, origin=origin, licence=licence, citation=citation, n_test=n_test,
                 options=opts, params=dict(BINARY_PARAMS), notes=notes)


def _csv(target: int, header: bool = False, **extra: Any) -> dict[str, Any]:
    return {"format": {"kind": "csv", "header": header}, "target": target, **extra}


# The QSG-S2AUC paper's sets (its Table 2), in its order; benchmarks read them too.
QSG_ENTRIES = [
    _qsg("codrna", "svmlight", {"train": libsvm("binary/cod-rna"),
                                "test": libsvm("binary/cod-rna.t")},
         59_535, 8, "LIBSVM", LIBSVM_LICENCE,
         "Uzilov, Keegan & Mathews, BMC Bioinformatics 2006; " + LIBSVM_CITE, positive=1,
         n_test=271_617),
    _qsg("ijcnn1", "svmlight", {"train": libsvm("binary/ijcnn1.bz2"),
                                "test": libsvm("binary/ijcnn1.t.bz2")},
         49_990, 22, "LIBSVM", LIBSVM_LICENCE,
         "Prokhorov, IJCNN 2001 neural network competition; " + LIBSVM_CITE, positive=1,
         n_test=91_701),
    _qsg("susy", "table", {"train": Source(
        "SUSY.csv.gz", (f"{UCI}/00279/SUSY.csv.gz",),
        sha256="be56cb5598da8ece4b13912230ee713bab8b3431a7d118e0054ffdf3a2f25664",
        pin_by="Intel scikit-learn_bench")},
         4_500_000, 18, "UCI", CC_BY,
         "Baldi, Sadowski & Whiteson, Nature Communications 2014; UCI SUSY (dataset 279)",
         positive=1, n_test=500_000,
         options=_csv(0, test_tail=500_000),
         notes="the last 500,000 rows are the customary test split; the paper lists 5,000,000"),
    _qsg("covtype", "table", {"train": Source(
        "covtype.data.gz", (f"{UCI}/covtype/covtype.data.gz",
                            "https://ndownloader.figshare.com/files/5976039"),
        sha256="614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",
        pin_by="scikit-learn (fetch_covtype)")},
         581_012, 54, "UCI", CC_BY,
         "Blackard & Dean, Computers and Electronics in Agriculture 1999; UCI Covertype "
         "(dataset 31)", positive=2, options=_csv(-1),
         notes="class 2 (lodgepole pine, 283,301 rows) against the other six, as in "
               "Collobert et al. and LIBSVM's covtype.binary"),
    _qsg("higgs", "table", {"train": Source(
        "HIGGS.csv.gz", (f"{UCI}/00280/HIGGS.csv.gz",),
        sha256="ea302c18164d4e3d916a1e2e83a9a8d07069fa6ebc7771e4c0540d54e593b698",
        pin_by="Intel scikit-learn_bench and other independent code")},
         10_500_000, 28, "UCI", CC_BY,
         "Baldi, Sadowski & Whiteson, Nature Communications 2014; UCI HIGGS, "
         "doi:10.24432/C5V312", positive=1, n_test=500_000,
         options=_csv(0, test_tail=500_000),
         notes="the last 500,000 rows are the customary test split; the paper's Table 2 "
               "lists 1,100,000 samples"),
    _qsg("skin", "svmlight", {"train": libsvm("binary/skin_nonskin")},
         245_057, 3, "LIBSVM", LIBSVM_LICENCE + "; UCI original is CC BY 4.0",
         "Bhatt & Dhall, UCI Skin Segmentation (dataset 229); " + LIBSVM_CITE,
         positive=1, notes="label 1 = skin (50,859 rows), 2 = non-skin"),
    _qsg("dota2", "table", {"archive": Source(
        "dota2Dataset.zip", (f"{UCI}/00367/dota2Dataset.zip",))},
         92_650, 116, "UCI", CC_BY,
         "Tridgell, UCI Dota2 Games Results, doi:10.24432/C5W593", positive=1, n_test=10_294,
         options=_csv(0, train={"role": "archive", "member": "dota2Train.csv"},
                      test={"role": "archive", "member": "dota2Test.csv"}),
         notes="column 0 is the winning team (+1/-1); then cluster, game mode, game type and "
               "113 hero columns"),
    _qsg("unclonable", "table", {"archive": Source(
        "XOR_Arbiter_PUFs.zip", (f"{UCI}/00463/XOR_Arbiter_PUFs.zip",))},
         5_000_000, 128, "UCI", CC_BY,
         "Aseeri, Zhuang & Alkatheiri, UCI Physical Unclonable "
         "Functions (dataset 463)", positive=1, n_test=1_000_000,
         options=_csv(-1, train={"role": "archive",
                                 "member": "XOR_Arbiter_PUFs/5xor_128bit/train_5xor_128dim.csv"},
                      test={"role": "archive",
                            "member": "XOR_Arbiter_PUFs/5xor_128bit/test_5xor_128dim.csv"}),
         notes="the 5xor_128bit pair (the paper's 6,000,000 x 129 counts the response "
               "column); 128 challenge bits in {-1, 1}, the response last"),
]


# AUC-DCD Table 1: n-/n+ identifies the positive class of each set.
_DCD_SETS = [
    # name, LIBSVM files (train, test), n, n_test, d, n-/n+, source citation
    ("sonar", ("binary/sonar_scale", None), 208, None, 60, 1.1443,
     "Gorman & Sejnowski, UCI Connectionist Bench (Sonar)"),
    ("fourclass", ("binary/fourclass", None), 862, None, 2, 1.8078, "Ho & Kleinberg 1996"),
    ("german", ("binary/german.numer", None), 1_000, None, 24, 2.3333,
     "Hofmann, Statlog (German Credit Data)"),
    ("svmguide3", ("binary/svmguide3", "binary/svmguide3.t"), 1_243, 41, 22, 3.1993,
     "Hsu, Chang & Lin, A practical guide to support vector classification"),
    ("dna", ("multiclass/dna.scale", "multiclass/dna.scale.t"), 2_000, 1_186, 180, 3.3103,
     "Statlog (DNA), Noordewier, Towell & Shavlik"),
    ("svmguide4", ("multiclass/svmguide4", "multiclass/svmguide4.t"), 300, 312, 10, 5.8182,
     "Hsu, Chang & Lin, A practical guide to support vector classification"),
    ("pendigits", ("multiclass/pendigits", "multiclass/pendigits.t"), 7_494, 3_498, 16, 8.6200,
     "Alpaydin & Alimoglu, UCI Pen-Based Recognition of Handwritten Digits"),
    ("vowel", ("multiclass/vowel", "multiclass/vowel.t"), 528, 462, 10, 10.0000,
     "Deterding, Niranjan & Robinson, UCI Connectionist Bench (Vowel)"),
    ("letter", ("multiclass/letter.scale", "multiclass/letter.scale.t"), 15_000, 5_000, 16,
     24.2525, "Frey & Slate, Statlog (Letter Recognition)"),
    ("sector", ("multiclass/sector/sector.scale.bz2", "multiclass/sector/sector.t.scale.bz2"),
     6_412, 3_207, 55_197, 148.1163, "Rennie & Rifkin, Industry Sector (CMU)"),
]


def _dcd(name: str, files: tuple[str, str | None], n: int, n_test: int | None, d: int,
         ratio: float, cite: str) -> Entry:
    sources = {"train": libsvm(files[0])}
    if files[1]:
        sources["test"] = libsvm(files[1])
    return Entry(name=name, task="binary", paper=DCD, recipe="svmlight", sources=sources, n=n,
                 d=d, n_classes=2, origin="LIBSVM", licence=LIBSVM_LICENCE,
                 citation=f"{cite}; {LIBSVM_CITE}", n_test=n_test,
                 options={"sparse": name == "sector", "positive": {"table1_ratio": ratio}},
                 params=dict(BINARY_PARAMS),
                 notes=f"one class positive, the rest negative; default positive class: the one "
                       f"whose n-/n+ is the paper's {ratio:g}; no preprocessing")


# Real binary sets beyond the four papers' tables, for ordauc's own studies (the unlabeled-rows
# check of configs/unlabeled_binary.yaml reads heart_scale).
UNLABELED = "ordauc's unlabeled-rows study, configs/unlabeled_binary.yaml"
EXTRA_BINARY = [
    Entry(name="heart_scale", task="binary", paper=UNLABELED, recipe="svmlight",
          sources={"train": Source(
              "heart_scale", (f"{LS}/binary/heart_scale",),
              sha256="5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9",
              pin_by="LIBSVM (the copy in its source tree, cjlin1/libsvm)")},
          n=270, d=13, n_classes=2, origin="LIBSVM", licence=LIBSVM_LICENCE,
          citation="Statlog (Heart), UCI Machine Learning Repository; " + LIBSVM_CITE,
          options={"positive": 1}, params=dict(BINARY_PARAMS),
          notes="label +1 (presence of heart disease, 120 rows) is the positive class, -1 "
                "(absence, 150 rows) the negative; features scaled to [-1, 1] by LIBSVM"),
]


CATALOG: dict[str, Entry] = {e.name: e for e in
                             [*QSG_ENTRIES, *(_dcd(*row) for row in _DCD_SETS), *EXTRA_BINARY,
                              *QS3ORAO, *NPSVOR]}
