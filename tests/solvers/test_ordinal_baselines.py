"""The NPSVOR paper's nine SVM baselines: thin wrappers that run their backends as ORCA did.

ORCA's own reference results come from its single tests (ayrna/orca, ``src/tests/singletests/
<method>Test.m``, run by ``src/runtestssingle.m`` on ``exampledata/1-holdout/toy``, raw features):
test accuracy at the stated C and k, accepted within 0.001 (one toy test row is 1/75).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import REPO
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC
from sklearn.svm import SVR as SkSVR
from skordinal.classifiers import REDSVM as SkREDSVM
from skordinal.classifiers import SVOR, CostSensitiveWrapper, OrdinalDecomposition

from ordauc.data import load
from ordauc.solvers.ordinal.libsvm import CSSVC, SVC1V1, SVC1VA, SVMOP, SVR
from ordauc.solvers.ordinal.opbe import OPBE, group_probabilities
from ordauc.solvers.ordinal.svor import REDSVM, SVOREX, SVORIM

ALL = [SVC1V1, SVC1VA, SVR, CSSVC, SVMOP, SVOREX, SVORIM, REDSVM, OPBE]
ORCA_DATA = REPO.parent / "shared" / "data" / "orca" / "exampledata"
needs_orca_data = pytest.mark.skipif(not ORCA_DATA.is_dir(),
                                     reason=f"ORCA's example data is not at {ORCA_DATA}")
SHIFT = 6  # the caller's labels are 7..11, ordauc's internal ones 1..5


def _matlab_pair(folder: str, name: str, i: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    base = ORCA_DATA / folder / name / "matlab"
    train = np.loadtxt(base / f"train_{name}.{i}")
    test = np.loadtxt(base / f"test_{name}.{i}")
    return (train[:, :-1], train[:, -1].astype(np.int64), test[:, :-1],
            test[:, -1].astype(np.int64))


def _seeded(cls: type) -> dict[str, int]:
    """A fixed seed for the baselines that draw something (SVMOP's probability folds)."""
    return {"random_state": 0} if "random_state" in cls().get_params() else {}


def _standardised(X: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ORCA's ``standarize``: the training part's mean and std (constant columns kept at 0)."""
    mean, std = X.mean(axis=0), X.std(axis=0)
    std[std == 0] = 1.0
    return (X - mean) / std, (X_test - mean) / std


@pytest.fixture(scope="module")
def synthetic() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Labeled rows (labels 1..5), the same rows with 60 more marked unlabeled and the caller's
    labels shifted to 7..11, and held-out rows."""
    ds = load("synthetic_ordinal", n=400, d=4)
    X = ds.X.astype(np.float64)
    X_fit, y_fit, X_eval = X[:300], ds.y[:300].astype(np.int64), X[300:]
    y_caller = y_fit + SHIFT
    y_caller[::5] = -1  # unlabeled: a supervised baseline must drop these rows
    labeled = y_caller != -1
    return X_fit, y_caller, X_fit[labeled], y_fit[labeled], X_eval


# 1. Each wrapper is its backend, called with the converted parameters.

def _ovr(C: float, kappa: float) -> OneVsRestClassifier:
    return OneVsRestClassifier(SVC(C=C, gamma=kappa))


BACKENDS = {
    SVC1V1: lambda C, kappa: SVC(C=C, kernel="rbf", gamma=kappa),
    SVC1VA: _ovr,
    CSSVC: lambda C, kappa: CostSensitiveWrapper(SVC(C=C, kernel="rbf", gamma=kappa)),
    SVOREX: lambda C, kappa: SVOR(C=C, kernel="rbf", gamma=kappa, constraints="explicit"),
    SVORIM: lambda C, kappa: SVOR(C=C, kernel="rbf", gamma=kappa, constraints="implicit"),
    REDSVM: lambda C, kappa: SkREDSVM(C=C, kernel="rbf", gamma=kappa),
}


@pytest.mark.parametrize("cls", list(BACKENDS))
@pytest.mark.parametrize(("C", "kappa"), [(1.0, 0.5), (10.0, 0.05)])
def test_a_wrapper_gives_its_backends_labels(synthetic, cls, C, kappa) -> None:
    X_fit, y_caller, X_lab, y_lab, X_eval = synthetic
    model = cls(C=C, kappa=kappa).fit(X_fit, y_caller)
    backend = BACKENDS[cls](C, kappa).fit(X_lab, y_lab)
    np.testing.assert_array_equal(model.predict(X_eval), backend.predict(X_eval) + SHIFT)
    assert model.classes_.tolist() == list(range(1 + SHIFT, 6 + SHIFT))
    assert model.n_features_in_ == X_fit.shape[1]
    if hasattr(backend, "predict_projection"):  # SVOREX, SVORIM, REDSVM: one latent f
        np.testing.assert_array_equal(model.decision_function(X_eval),
                                      backend.predict_projection(X_eval))
        assert model.decision_function(X_eval).shape == (X_eval.shape[0],)
    else:
        assert not hasattr(model, "decision_function")  # no single ranking function


def test_svr_is_sklearn_svr_on_scaled_labels(synthetic) -> None:
    X_fit, y_caller, X_lab, y_lab, X_eval = synthetic
    model = SVR(C=3.0, kappa=0.5, eps=0.05).fit(X_fit, y_caller)
    f = SkSVR(C=3.0, gamma=0.5, epsilon=0.05).fit(X_lab, (y_lab - 1) / 4).predict(X_eval)
    np.testing.assert_array_equal(model.decision_function(X_eval), f)
    expected = np.clip(np.rint(4 * f) + 1, 1, 5).astype(np.int64) + SHIFT
    np.testing.assert_array_equal(model.predict(X_eval), expected)


def test_unweighted_svmop_is_skordinals_frank_and_hall(synthetic) -> None:
    X_fit, y_caller, X_lab, y_lab, X_eval = synthetic
    model = SVMOP(C=2.0, kappa=0.5, weighted=False, random_state=3).fit(X_fit, y_caller)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # SVC(probability=True), sklearn 1.9
        backend = OrdinalDecomposition(
            SVC(C=2.0, gamma=0.5, probability=True, random_state=3),
            decomposition="ordered_partitions", decision_method="frank_hall").fit(X_lab, y_lab)
    np.testing.assert_array_equal(model.predict(X_eval), backend.predict(X_eval) + SHIFT)
    np.testing.assert_allclose(model.predict_proba(X_eval), backend.predict_proba(X_eval))


def test_weighted_svmop_weights_rows_by_distance_to_the_split(synthetic) -> None:
    """ORCA's SVMOP weights: for split j, a row of class y <= j weighs (j + 1 - y) and one of
    class y > j weighs (y - j), each side rescaled to sum to its size; probabilities
    differenced as ORCA does (P(y = i) = q_{i-1} - q_i)."""
    X_fit, y_caller, X_lab, y_lab, X_eval = synthetic
    model = SVMOP(C=2.0, kappa=0.5, random_state=3).fit(X_fit, y_caller)
    above = []
    for j in range(1, 5):
        lower = y_lab <= j
        w = np.where(lower, j + 1 - y_lab, y_lab - j).astype(np.float64)
        w[lower] *= lower.sum() / w[lower].sum()
        w[~lower] *= (~lower).sum() / w[~lower].sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            svc = SVC(C=2.0, gamma=0.5, probability=True, random_state=3)
            svc.fit(X_lab, (~lower).astype(int), sample_weight=w)
        above.append(svc.predict_proba(X_eval)[:, 1])
    q = np.column_stack([np.ones(X_eval.shape[0]), *above, np.zeros(X_eval.shape[0])])
    ordered = np.all(np.diff(q, axis=1) <= 0, axis=1)
    assert ordered.mean() > 0.5
    expected = (q[:, :-1] - q[:, 1:]).argmax(axis=1) + 1 + SHIFT
    # where the q_j are ordered, skordinal's isotonic repair changes nothing
    np.testing.assert_array_equal(model.predict(X_eval)[ordered], expected[ordered])
    assert np.mean(model.predict(X_eval) == expected) > 0.95


# 2. With kappa = ORCA's k, the wrappers reproduce ORCA's reference results on its toy data.

ORCA_SINGLE_TESTS = [  # (class, C, k, ORCA's reference test accuracy)
    (SVC1V1, 10, 1, 0.773333), (SVC1VA, 10, 10, 0.906667), (CSSVC, 10, 1, 0.626667),
    (REDSVM, 10, 1, 0.893333), (SVOREX, 10, 10, 0.946667), (SVORIM, 10, 1, 0.893333),
    (OPBE, 10, 10, 0.920000),
]


@needs_orca_data
@pytest.mark.parametrize(("cls", "C", "k", "reference"), ORCA_SINGLE_TESTS)
def test_orcas_reference_accuracy_on_toy(cls, C, k, reference) -> None:
    X, y, X_test, y_test = _matlab_pair("1-holdout", "toy", 0)
    accuracy = np.mean(cls(C=C, kappa=k).fit(X, y).predict(X_test) == y_test)
    assert abs(accuracy - reference) < 0.001


@needs_orca_data
def test_orcas_reference_accuracy_on_toy_svr() -> None:
    X, y, X_test, y_test = _matlab_pair("1-holdout", "toy", 0)
    accuracy = np.mean(SVR(C=10, kappa=10, eps=0.1).fit(X, y).predict(X_test) == y_test)
    assert abs(accuracy - 0.973333) < 0.001


@needs_orca_data
def test_orcas_reference_accuracy_on_toy_svmop() -> None:
    """libsvm's probability outputs draw their cross-validation folds at random, so ORCA
    records 0.96 (Linux) and 0.92 (Windows) for the same data and parameters (ayrna/orca issue
    19); the seeds here must stay within that band and hit the Linux value."""
    X, y, X_test, y_test = _matlab_pair("1-holdout", "toy", 0)
    accuracy = np.array([np.mean(SVMOP(C=10, kappa=10, random_state=s).fit(X, y).predict(X_test)
                                 == y_test) for s in range(4)])
    assert np.all((accuracy > 0.92 - 0.001) & (accuracy < 0.96 + 0.001)), accuracy
    assert np.any(np.abs(accuracy - 0.96) < 0.001), accuracy


# 3. OPBE: subproblem probabilities, the product rule, and better than the majority class.

@needs_orca_data
def test_opbe_subproblems_product_rule_and_prediction() -> None:
    X, y, X_test, y_test = _matlab_pair("1-holdout", "toy", 0)
    model = OPBE(C=10, kappa=10).fit(X, y)
    probs = model.subproblem_proba(X_test)
    assert [p.shape[1] for p in probs] == [2, 3, 3, 3, 2]
    for p in probs:
        assert np.all(p >= 0)
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # the product rule written out class by class: own class, lower or upper group shared
    # equally, the product divided by the sum of the shares
    Q = 5
    scores, shares = np.ones((X_test.shape[0], Q)), np.zeros(Q)
    for q, p in enumerate(probs, start=1):
        for c in range(1, Q + 1):
            if c < q:
                part, share = p[:, 0], 1 / (q - 1)
            elif c > q:
                part, share = p[:, -1], 1 / (Q - q)
            else:
                part, share = p[:, 0 if q == 1 else 1], 1.0
            scores[:, c - 1] *= part * share
            shares[c - 1] += share
    np.testing.assert_array_equal(model.predict(X_test), (scores / shares).argmax(axis=1) + 1)
    np.testing.assert_allclose(model.predict_proba(X_test).sum(axis=1), 1.0)
    # each subproblem is SVORIM on the relabelled rows (below q, q, above q)
    for q, estimator in enumerate(model.estimators_, start=1):
        groups = np.searchsorted(np.unique(np.sign(y - q)), np.sign(y - q)) + 1
        direct = SVOR(C=10, gamma=10, constraints="implicit").fit(X, groups)
        np.testing.assert_array_equal(estimator.predict_projection(X_test),
                                      direct.predict_projection(X_test))
    # better than the majority class, clearly: toy MAE 0.08 against 1.12
    majority = np.bincount(y).argmax()
    mae = np.mean(np.abs(model.predict(X_test) - y_test))
    assert mae < 0.2 < 1.0 < np.mean(np.abs(majority - y_test))


def test_opbe_stretches_close_thresholds_only() -> None:
    f = np.linspace(-3, 3, 7)
    near = group_probabilities(f, np.array([-0.5, 0.5]))
    np.testing.assert_allclose(near, group_probabilities(4 * f, np.array([-2.0, 2.0])))
    far = np.array([-3.0, 3.0])
    np.testing.assert_allclose(group_probabilities(f, far)[:, 0], 1 / (1 + np.exp(f + 3)))
    np.testing.assert_allclose(group_probabilities(np.array([1e4, -1e4]), far),
                               [[0, 0, 1], [1, 0, 0]])


# 4. SVR: the regression output is rounded to the label grid and clipped to 1..Q.

def test_svr_rounds_and_clips_to_the_label_range(synthetic) -> None:
    X_fit, y_caller, _, _, X_eval = synthetic
    model = SVR(C=1.0, kappa=0.5).fit(X_fit, y_caller)
    scores = np.array([-5.0, -0.2, 0.0, 0.1, 0.124, 0.126, 0.5, 0.874, 0.876, 1.0, 1.3, 40.0])
    expected = np.array([1, 1, 1, 1, 1, 2, 3, 4, 5, 5, 5, 5]) + SHIFT
    np.testing.assert_array_equal(model.predict_from_scores(scores), expected)
    far = np.vstack([X_eval, 1e3 * np.ones((1, X_eval.shape[1]))])  # f = intercept far away
    labels = model.predict(far)
    assert set(labels.tolist()) <= set(range(1 + SHIFT, 6 + SHIFT))
    np.testing.assert_array_equal(labels, model.predict_from_scores(model.decision_function(far)))


# 5. Every wrapper beats the majority class on a small real ordinal set.

@needs_orca_data
@pytest.mark.parametrize("cls", ALL)
def test_beats_the_majority_class_on_tae(cls) -> None:
    """tae (151 rows, 3 classes), ORCA's three holdouts, standardised with the training part;
    C = 10, kappa = 0.1. Majority-class MZE is 0.658 on each test part; the wrappers reach
    0.37-0.47 on average."""
    mze, majority = [], []
    for i in range(3):
        X, y, X_test, y_test = _matlab_pair("3-holdout", "tae", i)
        X, X_test = _standardised(X, X_test)
        predicted = cls(C=10, kappa=0.1, **_seeded(cls)).fit(X, y).predict(X_test)
        mze.append(np.mean(predicted != y_test))
        majority.append(np.mean(np.bincount(y).argmax() != y_test))
    assert np.mean(mze) < np.mean(majority) - 0.1, (mze, majority)


# 6. scikit-learn's estimator checks, and the rest of the contract.

# scikit-learn's estimator checks run over every registered solver in
# tests/solvers/test_estimator_checks.py; SVMOP and OPBE declare the two they knowingly fail.


@pytest.mark.parametrize("cls", ALL)
def test_sparse_input_gives_the_dense_model(synthetic, cls) -> None:
    X_fit, y_caller, _, _, X_eval = synthetic
    dense = cls(**_seeded(cls)).fit(X_fit, y_caller).predict(X_eval)
    sparse = cls(**_seeded(cls)).fit(sp.csr_matrix(X_fit), y_caller).predict(sp.csr_matrix(X_eval))
    np.testing.assert_array_equal(dense, sparse)


@pytest.mark.parametrize("cls", ALL)
def test_declares_an_ordinal_supervised_solver(cls) -> None:
    assert cls.meta.tasks == ("ordinal",)
    assert not cls.meta.uses_unlabeled
    model = cls()
    assert set(model.get_params()) == set(cls._parameter_constraints)
    # Only SVMOP draws at random (libsvm's probability folds): a seed elsewhere would be a
    # results column that means nothing.
    assert ("random_state" in model.get_params()) == (cls is SVMOP)
    small, large = model.fit_memory_bytes(100, 5), model.fit_memory_bytes(10_000, 5)
    assert 0 < small < large
    assert model.fit_memory_bytes(10_000, 50) > large


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("params", [dict(C=0.0), dict(kappa=-1.0), dict(C=float("nan")),
                                    dict(kappa=True)])
def test_bad_parameters_are_refused_by_the_wrapper(synthetic, cls, params) -> None:
    # The wrapper's own constraints refuse them, naming the wrapper (not its backend) before
    # any backend is built.
    X_fit, y_caller, *_ = synthetic
    with pytest.raises(ValueError, match=rf"parameter of {cls.__name__} must be"):
        cls(**params).fit(X_fit, y_caller)


@pytest.mark.parametrize("cls", ALL)
def test_a_gap_in_the_labels_is_a_missing_class(cls) -> None:
    X = np.random.default_rng(0).random((20, 3))
    with pytest.raises(ValueError, match=r"lack class\(es\) \[5\]"):
        cls().fit(X, np.array([4, 6] * 10))


def test_svmop_is_reproducible_with_a_seed(synthetic) -> None:
    X_fit, y_caller, _, _, X_eval = synthetic
    a = SVMOP(random_state=5).fit(X_fit, y_caller).predict_proba(X_eval)
    b = SVMOP(random_state=5).fit(X_fit, y_caller).predict_proba(X_eval)
    np.testing.assert_array_equal(a, b)
