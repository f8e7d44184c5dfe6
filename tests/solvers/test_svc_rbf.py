"""The QSG papers' supervised reference: an RBF SVC on the labeled rows (binary, and M-* for
ordinal data), checked against scikit-learn's SVC fitted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from ordauc import metrics, solvers
from ordauc.data import load


def _half_unlabeled(y: np.ndarray) -> np.ndarray:
    y = y.copy()
    y[1::2] = -1
    return y


def test_svc_rbf_is_scikit_learns_svc_on_the_labeled_rows() -> None:
    ds = load("breast_cancer")
    X, y = ds.X[:400].astype(np.float64), _half_unlabeled(ds.y[:400])
    model = solvers.get("svc_rbf", C=2.0, sigma=0.05).fit(X, y)
    labeled = y != -1
    reference = SVC(C=2.0, kernel="rbf", gamma=0.05).fit(X[labeled], y[labeled])
    X_eval = ds.X[400:].astype(np.float64)
    np.testing.assert_allclose(model.decision_function(X_eval),
                               reference.decision_function(X_eval), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(model.predict(X_eval), reference.predict(X_eval))
    # the unlabeled rows are never read: the same model without them
    alone = solvers.get("svc_rbf", C=2.0, sigma=0.05).fit(X[labeled], y[labeled])
    np.testing.assert_array_equal(alone.decision_function(X_eval), model.decision_function(X_eval))
    assert metrics.auc(ds.y[400:], model.decision_function(X_eval)) > 0.95


def test_svc_rbf_ranks_the_higher_class_high_whatever_its_labels() -> None:
    ds = load("synthetic_binary", n=600, d=4)
    a = solvers.get("svc_rbf").fit(ds.X[:400], ds.y[:400])
    b = solvers.get("svc_rbf").fit(ds.X[:400], ds.y[:400] + 2)  # classes 2 and 3
    np.testing.assert_array_equal(a.decision_function(ds.X[400:]),
                                  b.decision_function(ds.X[400:]))
    np.testing.assert_array_equal(a.predict(ds.X[400:]) + 2, b.predict(ds.X[400:]))
    assert b.classes_.tolist() == [2, 3]
    assert metrics.auc(ds.y[400:], a.decision_function(ds.X[400:])) > 0.8


def test_m_svc_rbf_is_one_svc_per_subproblem_and_beats_every_constant() -> None:
    ds = load("synthetic_ordinal", n=900, d=4)
    X, y = ds.X[:600].astype(np.float64), ds.y[:600]
    model = solvers.get("m_svc_rbf", C=1.0, sigma=0.5).fit(X, _half_unlabeled(y))
    X_eval, y_eval = ds.X[600:].astype(np.float64), ds.y[600:]
    scores = model.decision_function(X_eval)
    assert scores.shape == (300, ds.n_classes - 1)
    labeled = np.arange(600) % 2 == 0
    for j in range(1, ds.n_classes):
        svc = SVC(C=1.0, kernel="rbf", gamma=0.5).fit(X[labeled], (y[labeled] > j).astype(int))
        np.testing.assert_allclose(scores[:, j - 1], svc.decision_function(X_eval), rtol=0,
                                   atol=1e-10)
    best_constant = min(metrics.mae(y_eval, np.full_like(y_eval, c)) for c in np.unique(y))
    assert metrics.mae(y_eval, model.predict(X_eval)) < 0.75 * best_constant
    assert metrics.ranking_score("ordinal", y_eval, scores, ds.n_classes) > 0.8


def test_both_are_supervised_and_sized_on_their_rows() -> None:
    for name in ("svc_rbf", "m_svc_rbf"):
        info = solvers.info(name)
        assert not info.meta.uses_unlabeled
        model = info.cls()
        assert model.fit_memory_bytes(2000, 10) > model.fit_memory_bytes(200, 10)
    assert solvers.info("m_svc_rbf").meta.wrapper_of == "svc_rbf"
    with pytest.raises(ValueError, match="two values"):
        solvers.get("svc_rbf").fit(np.eye(6), np.array([0, 1, 2, 0, 1, 2]))
