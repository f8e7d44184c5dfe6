"""The QSG papers' protocol statements (QS3-P1 ... QS3-P6, QSG-P1 ... QSG-P6) on hand-made
results tables; the prepared data is replaced by small arrays, or is a built-in set (no
network, no large data)."""

from __future__ import annotations

import dataclasses
import functools
from types import SimpleNamespace

import numpy as np
import pytest
from claims_tables import runs, study

from ordauc.claims import CLAIMS, qsg_protocol
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE
from ordauc.data.catalog import CATALOG

UNIT_X = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], dtype=np.float32)


def check(claim_id: str, s) -> tuple[str, str]:
    outcome = CLAIMS[claim_id].check(s)
    return outcome.verdict, outcome.statistic + " | " + outcome.evidence


@pytest.fixture
def data(monkeypatch):
    """Every dataset 'prepared', loaded as ``data.X`` / ``data.y`` (set by the test)."""
    fake = SimpleNamespace(X=UNIT_X, y=np.repeat(np.arange(1, 6), 20), info={}, cached=True)
    monkeypatch.setattr(qsg_protocol, "prepared", lambda name: fake.cached)
    monkeypatch.setattr(qsg_protocol, "load_dataset", lambda name, params: fake)
    return fake


# --- datasets: Table 2 -----------------------------------------------------------------------

QS3_EIGHT = ("road3d", "sgemm", "year", "yolanda", "baby", "beauty", "clothes", "pet")
QSG_EIGHT = ("codrna", "ijcnn1", "susy", "covtype", "skin", "dota2", "unclonable")


def every(names: tuple[str, ...], solver: str, *more: str) -> list[dict[str, object]]:
    """One run on each of ``names`` and ``more``."""
    return [row for name in (*names, *more) for row in runs(name, solver)]


def test_qs3_p1_catalogue_and_class_shares(data, monkeypatch):
    s = study("qs3orao", every(QS3_EIGHT, "qs3orao"))
    assert check("QS3-P1", s)[0] == CONFIRMED
    data.y = np.repeat(np.arange(1, 6), [30, 20, 20, 15, 15])
    got, text = check("QS3-P1", s)
    assert got == NOT_CONFIRMED and "shares 0.150-0.300" in text
    data.cached = False
    got, text = check("QS3-P1", s)
    assert got == UNDECIDABLE and "fetch road3d" in text and "fetch pet" in text
    monkeypatch.setitem(CATALOG, "year", dataclasses.replace(CATALOG["year"], n=515_345))
    got, text = check("QS3-P1", s)
    assert got == NOT_CONFIRMED and "year catalogue 515,345" in text


@pytest.mark.parametrize("label, verdict", [
    ("higgs[n_rows=1100000]", CONFIRMED), ("higgs", PARTIAL)])
def test_qsg_p1_catalogue_with_higgs_flagged(label, verdict):
    got, text = check("QSG-P1", study("qsg_s2auc", every(QSG_EIGHT, "qsg_s2auc", label)))
    assert got == verdict and "Higgs: paper 1,100,000" in text
    assert "unclonable: N = train + official test, d + response column" in text


def test_p1_runs_without_the_papers_datasets_deviate(data):
    got, text = check("QSG-P1", study("qsg_s2auc", every(("codrna",), "qsg_s2auc",
                                                        "breast_cancer")))
    assert got == NOT_CONFIRMED
    assert "the runs lack 7 of the paper's 8" in text and "use breast_cancer instead" in text
    got, text = check("QS3-P1", study("qs3orao", every(QS3_EIGHT[:7], "qs3orao")))
    assert got == NOT_CONFIRMED and "lack 1 of the paper's 8 (pet)" in text


def test_qsg_p1_a_mismatch_is_not_confirmed(monkeypatch):
    monkeypatch.setitem(CATALOG, "codrna", dataclasses.replace(CATALOG["codrna"], d=9))
    got, text = check("QSG-P1", study("qsg_s2auc", every(QSG_EIGHT, "qsg_s2auc", "higgs")))
    assert got == NOT_CONFIRMED and "codrna d 9 vs 8" in text


# --- labeled rows, full size, features in [0, 1] --------------------------------------------

ORD = "synthetic_ordinal[d=3,n=1500]"  # N = 1,500 by its generator's parameter


@pytest.mark.parametrize("n_labeled, n_unlabeled, x, cached, verdict, key", [
    (500, 1000, UNIT_X, True, CONFIRMED, "1,500 of 1,500 rows"),
    (150, 1350, UNIT_X, True, NOT_CONFIRMED, "n_labeled [150]"),
    (500, 1000, UNIT_X * 0.9, True, NOT_CONFIRMED, "2 of 3 columns not min-max scaled"),
    (500, 1000, UNIT_X, False, UNDECIDABLE, "fetch synthetic_ordinal"),
    (500, 800, UNIT_X, True, UNDECIDABLE, "add n_unlabeled: all"),
])
def test_qs3_p2_labeled_rows_and_scaling(data, n_labeled, n_unlabeled, x, cached, verdict, key):
    data.X, data.cached = x, cached
    s = study("qs3orao", runs(ORD, "qs3orao", n_labeled=n_labeled, n_unlabeled=n_unlabeled,
                              n_test=n_unlabeled, eval_set="unlabeled", auc=[0.8]))
    got, text = check("QS3-P2", s)
    assert got == verdict and key in text


@pytest.mark.parametrize("n_labeled, n_unlabeled, n_test, verdict", [
    (200, 227, 142, CONFIRMED),  # breast cancer's 569 rows, 142 held out for testing
    (100, 327, 142, NOT_CONFIRMED),
    (200, 100, 142, UNDECIDABLE),
])
def test_qsg_p2_on_a_built_in_set(n_labeled, n_unlabeled, n_test, verdict):
    s = study("qsg_s2auc", runs("breast_cancer", "qsg_s2auc", n_labeled=n_labeled,
                                n_unlabeled=n_unlabeled, n_test=n_test, eval_set="test",
                                auc=[0.9]))
    got, text = check("QSG-P2", s)
    assert got == verdict and "breast_cancer features min 0 and max 1" in text


# --- PNU-AUC's class prior -------------------------------------------------------------------

@pytest.mark.parametrize("prior, n_unlabeled, verdict", [
    (212 / 569, 227, CONFIRMED),  # the training share (212 malignant of 569)
    (0.4, 227, NOT_CONFIRMED),  # the 200 labeled rows' share
    (0.4, 100, UNDECIDABLE),  # no full-size run
])
def test_qsg_p5_prior_is_the_training_share(prior, n_unlabeled, verdict):
    s = study("qsg_s2auc", runs("breast_cancer", "pnu_auc", n_unlabeled=n_unlabeled,
                                n_test=142, p_prior=[prior, prior]))
    got, text = check("QSG-P5", s)
    assert got == verdict and f"in {2 if prior == 0.4 else 0} of 2 runs" in text
    assert check("QSG-P5", study("qsg_s2auc", runs("x", "samult")))[0] == UNDECIDABLE


# --- trials, grids, kernels, the machine -----------------------------------------------------

def trials(name: str, solvers: list[str], reps: int, n_labeled: int) -> object:
    return study(name, *[runs(d, s, n_labeled=n_labeled, auc=[0.8] * reps)
                         for d in ("d0", "d1") for s in solvers])


@pytest.mark.parametrize("claim_id, name, solvers, n_labeled", [
    ("QS3-P3", "qs3orao", ["qs3orao", "svorex", "m_pnu_auc", "m_samult"], 500),
    ("QSG-P3", "qsg_s2auc", ["qsg_s2auc", "samult", "pnu_auc"], 200)])
def test_ten_trials(claim_id, name, solvers, n_labeled):
    assert check(claim_id, trials(name, solvers, 10, n_labeled))[0] == CONFIRMED  # FOLLOWED
    got, text = check(claim_id, trials(name, solvers, 3, n_labeled))
    assert got == NOT_CONFIRMED and f"{solvers[0]} 3" in text  # DEVIATED, our run
    assert check(claim_id, trials(name, solvers[:-1], 10, n_labeled))[0] == UNDECIDABLE


def test_ten_trials_deviation_says_why():
    solvers = ["qsg_s2auc", "samult", "pnu_auc"]
    twin = study("qsg_s2auc", *[runs(d, s, auc=[0.8] * 3, profile="quick")
                                for d in ("d0", "d1") for s in solvers], offline=True)
    outcome = CLAIMS["QSG-P3"].check(twin)
    assert outcome.verdict == NOT_CONFIRMED
    assert outcome.values["reason"] == ("offline twin configs/offline/qsg_s2auc.yaml (reduced "
                                        "by design), profile quick")
    assert outcome.values["datasets"]["d0"] == {"planned": 3, "qsg_s2auc": 3, "samult": 3,
                                                "pnu_auc": 3}


GRID_CASES = [("QS3-P4", "qs3orao", {"qs3orao": "gamma", "m_samult": "gamma",
                                       "m_pnu_auc": "eta"}),
              ("QSG-P4", "qsg_s2auc", {"qsg_s2auc": "gamma", "samult": "gamma",
                                        "pnu_auc": "eta"})]


@functools.cache
def config_of(path: str) -> object:
    from ordauc.config import load_config

    return load_config(path)


def grid_study(name: str, solvers: dict[str, str], lam: float, config: str | None):
    s = study(name, *[runs("d0", solver, tuning="cv", p_lam=[lam, 8.0], p_sigma=[1.0, 0.5],
                           **{f"p_{third}": [0.3, 1.0]}) for solver, third in solvers.items()])
    s.config = config_of(config) if config else None
    return s


@pytest.mark.parametrize("claim_id, name, solvers", GRID_CASES)
def test_cv_grids(claim_id, name, solvers):
    got, text = check(claim_id, grid_study(name, solvers, 0.125, f"configs/{name}.yaml"))
    assert got == CONFIRMED and f"{list(solvers)[0]}.lam 100%" in text
    got, text = check(claim_id, grid_study(name, solvers, 0.125, f"configs/offline/{name}.yaml"))
    assert got == NOT_CONFIRMED and "searched 3-fold over 2 lam" in text
    got, text = check(claim_id, grid_study(name, solvers, 0.3, f"configs/{name}.yaml"))
    assert got == NOT_CONFIRMED and "lam off the grid" in text
    assert check(claim_id, grid_study(name, solvers, 0.125, None))[0] == UNDECIDABLE


def kernels(solvers: dict[str, str], message: str = "", limit: int | None = None):
    s = study("qsg_s2auc_time", *[runs("d0", solver, **{column: [1.0]})
                                  for solver, column in solvers.items()],
              runs("d0", "samult", status="skipped", message=message) if message else [])
    s.config = SimpleNamespace(memory_limit=limit, datasets=())
    return s


ORD_KERNELS = {"qs3orao": "p_sigma", "m_samult": "p_sigma", "m_pnu_auc": "p_sigma",
               "svorex": "p_kappa"}
BIN_KERNELS = {"qsg_s2auc": "p_sigma", "samult": "p_sigma", "pnu_auc": "p_sigma"}
GUARD = "needs 90 GB for 70,000 training rows x 8 features, limit {} GB{}; raise --memory-limit"


def test_qs3_p5_kernels_read_from_the_models():
    got, text = check("QS3-P5", kernels(ORD_KERNELS))
    # svorex's hinge loss cannot follow the statement: DEVIATED (how: the loss), the rest as said
    assert got == NOT_CONFIRMED and "3 of 3 AUC methods" in text and "hinge" in text
    assert "s = 1 / sqrt(2 sigma)" in text and "k - 1 models of samult" in text
    outcome = CLAIMS["QS3-P5"].check(kernels(ORD_KERNELS))
    assert outcome.values["as_stated"] == 3 and outcome.values["deviations"] == 1
    # a model without its Gaussian width deviates; a missing method is not recorded
    assert check("QS3-P5", kernels({**ORD_KERNELS, "m_samult": "p_lam"}))[0] == NOT_CONFIRMED
    assert check("QS3-P5", kernels({"qs3orao": "p_sigma"}))[0] == UNDECIDABLE


def test_kernel_read_from_the_class_the_registry_ran():
    s = kernels(BIN_KERNELS, GUARD.format(9.42, ""))
    s.results.loc[s.results["solver"] == "samult", "solver_name"] = "svc_rbf"
    got, text = check("QSG-P6", s)
    assert got == NOT_CONFIRMED and "samult: svc_rbf resolves to" in text
    s = kernels(BIN_KERNELS, GUARD.format(9.42, ""))
    s.results["p_feature_map"] = "linear"
    got, text = check("QSG-P6", s)
    assert got == NOT_CONFIRMED and "feature map ['linear']" in text


@pytest.mark.parametrize("message, limit, machine, verdict", [
    (GUARD.format(40, " (80 GB shared by 2 parallel cells)"), None, None, UNDECIDABLE),
    ("", 80 * 2**30, None, UNDECIDABLE),      # the config's memory_limit: 80GB is no evidence
    ("", 80 * 2**30, 80.0, CONFIRMED),        # a recorded machine of 80 GB
    ("", None, 24.0, NOT_CONFIRMED),          # a recorded machine of 24 GB
    (GUARD.format(9.42, ""), None, None, NOT_CONFIRMED),  # the guard ran below 80 GB
    ("", None, None, UNDECIDABLE),
])
def test_memory_of_the_machine(message, limit, machine, verdict):
    for claim_id, solvers in (("QS3-P6", ORD_KERNELS), ("QSG-P6", BIN_KERNELS)):
        s = kernels(solvers, message, limit)
        if machine is not None:
            s.results["machine_memory_gb"] = machine
        got = CLAIMS[claim_id].check(s)
        expected = verdict if claim_id == "QS3-P6" or verdict == NOT_CONFIRMED else (
            CONFIRMED if verdict == CONFIRMED else UNDECIDABLE)
        assert got.verdict == expected, (claim_id, got)


def test_qsg_p6_needs_the_sigma_kernel_of_every_method():
    message = GUARD.format(80, "")
    outcome = CLAIMS["QSG-P6"].check(kernels({**BIN_KERNELS, "pnu_auc": "p_kappa"}, message))
    assert outcome.verdict == NOT_CONFIRMED and outcome.values["kernel_deviations"] == 1
    got, text = check("QSG-P6", kernels({"qsg_s2auc": "p_sigma"}, message))
    assert got == UNDECIDABLE and "no ok run of samult" in text and "no runs of pnu_auc" in text
