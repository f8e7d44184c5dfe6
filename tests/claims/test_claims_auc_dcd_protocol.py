"""The AUC-DCD paper's protocol statements (DCD-P1 .. DCD-P6) on hand-made results tables,
one per verdict each rule can reach."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from claims_tables import table
from test_claims_auc_dcd import PERM_TOP, check, dcd_study, method_rows, same, tuning_scores

from ordauc.claims import CLAIMS
from ordauc.claims.auc_dcd_common import METHODS, MSGD, OAM, PERM, SDCD
from ordauc.claims.auc_dcd_protocol import PAPER_GRID, minority_train
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, NOTE, PARTIAL, UNDECIDABLE
from ordauc.claims.study import Study
from ordauc.data.catalog import CATALOG

PAPER_SETS = [name for name, e in CATALOG.items()
              if isinstance(e.options.get("positive"), dict)]  # the ten of Table 1


def fold_rows(dataset: str, n: int, n_pos: int, method: str = SDCD, folds: int = 5,
              repeats: int = 1, epochs: float | None = None) -> list[dict[str, object]]:
    """Stratified k-fold runs of ``method`` on a set of n rows with n_pos positives: each
    training fold's n_labeled and n_test, and p_n_iter = n+ n- of the training fold (or
    ``epochs``)."""
    sizes = [len(a) for a in np.array_split(np.arange(n), folds)]
    pos = [len(a) for a in np.array_split(np.arange(n_pos), folds)]
    rows = []
    for r in range(repeats):
        for f in range(folds):
            n_train, pos_train = n - sizes[f], n_pos - pos[f]
            T = epochs if epochs is not None else pos_train * (n_train - pos_train)
            rows += method_rows(dataset, method, [0.8], repetitions=[r * folds + f],
                                n_labeled=n_train, n_unlabeled=0, n_test=sizes[f], p_n_iter=T)
    return rows


def paper_positives(dataset: str) -> int:
    entry = CATALOG[dataset]
    return round(entry.n / (1 + entry.options["positive"]["table1_ratio"]))


def test_minority_train_inverts_n_plus_times_n_minus() -> None:
    assert minority_train(97 * 111, 208) == 97 and minority_train(97 * 111 + 1, 208) is None
    assert paper_positives("sector") == 43 and len(PAPER_SETS) == 10


@pytest.mark.parametrize(("datasets", "wrong", "verdict", "key"), [
    (PAPER_SETS, None, CONFIRMED, "10/10"),
    (PAPER_SETS, "sonar", NOT_CONFIRMED, "9/10"),
    (PAPER_SETS[:3], None, UNDECIDABLE, "3/3"),
])
def test_dcd_p1(datasets: list[str], wrong: str | None, verdict: str, key: str) -> None:
    groups = [fold_rows(d, CATALOG[d].n, paper_positives(d) - (7 if d == wrong else 0),
                        method=MSGD if i % 2 else SDCD) for i, d in enumerate(datasets)]
    got, statistic = check("DCD-P1", Study(name="auc_dcd", results=table(*groups)))
    assert got == verdict and key in statistic, statistic


def test_dcd_p1_without_pair_counts() -> None:
    study = dcd_study(same(PERM_TOP, ["sonar"]))
    outcome = CLAIMS["DCD-P1"].check(study)
    assert outcome.verdict == UNDECIDABLE and "p_n_iter" in outcome.evidence


@pytest.mark.parametrize(("preprocess", "dataset", "verdict"), [
    ("none", "dna", CONFIRMED), ("standardize", "dna", NOT_CONFIRMED),
    ("none", "codrna", NOT_CONFIRMED), (None, "dna", UNDECIDABLE),
])
def test_dcd_p2(preprocess: str | None, dataset: str, verdict: str) -> None:
    config = None if preprocess is None else SimpleNamespace(preprocess=preprocess)
    outcome = CLAIMS["DCD-P2"].check(dcd_study(same(PERM_TOP, [dataset]), config=config))
    assert outcome.verdict == verdict, outcome.statistic
    if dataset == "dna" and preprocess:
        assert "dna.scale" in outcome.evidence


def p3_study(n: int, fail: bool = False, shift: bool = False) -> Study:
    study = dcd_study(same(PERM_TOP, ["a", "b"]), n=n)
    rows = study.results
    rows["n_test"] = 50
    if fail:
        rows.loc[(rows["solver"] == "oam_inf_paper") & (rows["repetition"] == 3),
                 ["status", "auc"]] = ["timeout", np.nan]
    if shift:
        rows.loc[rows["solver"] == "auc_msgd_paper", "n_test"] = 49
    return study


@pytest.mark.parametrize(("study", "verdict"), [
    (p3_study(20), CONFIRMED), (p3_study(20, fail=True), PARTIAL),
    (p3_study(5), NOT_CONFIRMED), (p3_study(20, shift=True), NOT_CONFIRMED),
    (Study(name="auc_dcd", results=table(method_rows("a", SDCD, [0.8] * 20))), UNDECIDABLE),
])
def test_dcd_p3(study: Study, verdict: str) -> None:
    assert check("DCD-P3", study)[0] == verdict


def p4_study(lams: list[float] | None, tuning: str = "test", config: object = None) -> Study:
    scores = None if lams is None else tuning_scores(
        ["a"], lams, lambda d, m, r, i: 0.8 + 0.001 * i + 0.0001 * r, n=20)
    return dcd_study(same(PERM_TOP, ["a"]), tuning=tuning, scores=scores, config=config)


CV_CONFIG = SimpleNamespace(solvers=[SimpleNamespace(label=f"{m}_paper",
                                                     grid={"lam": list(PAPER_GRID)})
                                     for m in METHODS])


@pytest.mark.parametrize(("study", "verdict", "key"), [
    (p4_study(list(PAPER_GRID)), CONFIRMED, "11 lambdas"),
    (p4_study([1e-5, 1e-3, 1e-1, 1.0]), PARTIAL, "4 lambdas"),
    (p4_study(None, config=CV_CONFIG), PARTIAL, "chosen per run"),
    (p4_study(None, tuning="cv", config=CV_CONFIG), NOT_CONFIRMED, "tuned 'cv'"),
    (p4_study(None), UNDECIDABLE, "not computed"),
])
def test_dcd_p4(study: Study, verdict: str, key: str) -> None:
    outcome = CLAIMS["DCD-P4"].check(study)
    assert outcome.verdict == verdict and key in outcome.statistic, outcome.statistic
    if verdict == CONFIRMED:  # the best mean is the last lambda, 10^1: a grid edge
        assert "a/SDCDperm lam=10.0" in outcome.evidence


def p5_rows(perm_epochs: float = 1) -> list[list[dict[str, object]]]:
    return [fold_rows("dna", 2000, 464, SDCD), fold_rows("dna", 2000, 464, MSGD),
            fold_rows("dna", 2000, 464, PERM, epochs=perm_epochs),
            fold_rows("dna", 2000, 464, OAM, epochs=1)]


@pytest.mark.parametrize(("groups", "verdict"), [
    (p5_rows(), CONFIRMED), (p5_rows(perm_epochs=3), NOT_CONFIRMED),
    (p5_rows()[:3], UNDECIDABLE),
])
def test_dcd_p5(groups: list, verdict: str) -> None:
    got, statistic = check("DCD-P5", Study(name="auc_dcd", results=table(*groups)))
    assert got == verdict, statistic


def test_dcd_p5_off_share_and_missing_column() -> None:
    rows = p5_rows()
    rows[0] = fold_rows("dna", 2000, 300, SDCD)  # a product n+ n-, but not Table 1's n+
    assert check("DCD-P5", Study(name="auc_dcd", results=table(*rows)))[0] == NOT_CONFIRMED
    study = dcd_study(same(PERM_TOP, ["dna"]))
    assert check("DCD-P5", study)[0] == UNDECIDABLE


@pytest.mark.parametrize("names", [["liblinear_auc_dcd"], list(METHODS), ["svm"]])
def test_dcd_p6_is_a_note(names: list[str]) -> None:
    groups = [method_rows("dna", name, [0.8] * 3) for name in names]
    outcome = CLAIMS["DCD-P6"].check(Study(name="auc_dcd", results=table(*groups)))
    assert outcome.verdict == NOTE  # a fact about the paper, never a verdict
    assert outcome.values["methods"] == sorted(set(names) & set(METHODS))


def test_dcd_p3_says_why_a_twin_deviates() -> None:
    study = p3_study(5)
    study.offline = True
    outcome = CLAIMS["DCD-P3"].check(study)
    assert outcome.verdict == NOT_CONFIRMED and outcome.values["planned_max"] == 5
    assert "offline twin" in outcome.evidence
