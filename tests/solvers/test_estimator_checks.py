"""Every solver is a scikit-learn estimator: scikit-learn's own checks, labels, read-only models."""

from __future__ import annotations

from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from ordauc.data import load
from ordauc.solvers import get, names
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT

SMALL = QSGS2AUC._check_params  # a quick fit on small data


def registered() -> list:
    """Every registered solver (built-ins, plugins, solvers added by ``register``), built with
    the parameters its class declares for these checks (``_check_params``): a new solver is
    checked without editing this file."""
    from ordauc import solvers

    out = []
    for name in names():
        cls = solvers.info(name).cls
        out.append(get(name, **getattr(cls, "_check_params", {})))
    return out


@parametrize_with_checks(registered(), expected_failed_checks=lambda est: dict(
    getattr(est, "_known_check_failures", {})))
def test_scikit_learn_estimator_checks(estimator, check) -> None:
    # the checks a solver knowingly fails are declared beside it, each with its reason
    check(estimator)


def test_every_registered_solver_declares_its_contract() -> None:
    # meta, a constraint for every parameter, and the memory one fit needs (info() checks all)
    from ordauc import solvers

    for name in names():
        info = solvers.info(name)
        model = info.cls()
        assert model.fit_memory_bytes(1000, 10) > 8 * 1000 * 10 / 2, name
        assert set(info.constraints) == set(info.defaults), name
        solvers.check_params(name, info.defaults)  # every default satisfies its constraint


@pytest.mark.parametrize(("cls", "task"), [(QSGS2AUC, "binary"), (QS3ORAO, "ordinal"),
                                            (SAMULT, "binary"), (SAMULT, "ordinal"),
                                            (MSAMULT, "ordinal")])
def test_any_consecutive_labels_give_the_same_model(cls, task) -> None:
    ds = load("synthetic_binary" if task == "binary" else "synthetic_ordinal", n=300, d=4)
    y = ds.y.copy()
    y[100:] = -1
    kw = SMALL if cls in (QSGS2AUC, QS3ORAO) else {}
    shift = 7 - int(ds.y.min())  # labels 7, 8, ... instead of ordauc's 0/1 or 1..k
    a = cls(**kw).fit(ds.X, y)
    b = cls(**kw).fit(ds.X, np.where(y == -1, -1, y + shift))
    np.testing.assert_array_equal(a.decision_function(ds.X), b.decision_function(ds.X))
    np.testing.assert_array_equal(a.predict(ds.X) + shift, b.predict(ds.X))
    assert b.classes_.tolist() == list(range(7, 7 + ds.n_classes))


def test_a_gap_in_ordinal_labels_is_a_missing_class() -> None:
    X = np.random.default_rng(0).random((20, 3))
    with pytest.raises(ValueError, match=r"lack class\(es\) \[5\]"):
        SAMULT().fit(X, np.array([4, 6] * 10))


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
def test_a_model_loaded_read_only_still_predicts(tmp_path: Path, feature_map: str) -> None:
    ds = load("synthetic_ordinal", n=300, d=4)
    model = QS3ORAO(feature_map=feature_map, **SMALL).fit(ds.X, ds.y)
    joblib.dump(model, tmp_path / "model.joblib")
    loaded = joblib.load(tmp_path / "model.joblib", mmap_mode="r")
    assert not loaded.blocks_._Wa.flags.writeable  # the cache comes back memory-mapped
    np.testing.assert_array_equal(loaded.decision_function(ds.X), model.decision_function(ds.X))


@pytest.mark.parametrize("cls", [QSGS2AUC, QS3ORAO])
def test_scores_do_not_depend_on_row_order_beyond_float32_rounding(cls) -> None:
    # 1e-5 of the largest score: the float32 rounding of thousands of summed cosines; a row
    # scored with another row's features would be off by the size of the scores themselves.
    ds = load("synthetic_binary" if cls is QSGS2AUC else "synthetic_ordinal", n=3000, d=6)
    model = cls(n_iter=100, random_state=1).fit(ds.X, ds.y)
    order = np.random.default_rng(0).permutation(ds.X.shape[0])
    f = model.decision_function(ds.X)
    f_perm = model.decision_function(ds.X[order])
    np.testing.assert_allclose(f_perm, f[order], rtol=0, atol=1e-5 * np.abs(f).max())
    np.testing.assert_allclose(model.decision_function(ds.X[:7]), f[:7], rtol=0,
                               atol=1e-5 * np.abs(f).max())


def test_threads_scoring_one_model_at_once_get_the_serial_scores() -> None:
    from concurrent.futures import ThreadPoolExecutor

    ds = load("synthetic_binary", n=4000, d=5)
    model = QSGS2AUC(n_iter=150, random_state=2).fit(ds.X, ds.y)
    parts = np.array_split(np.arange(ds.X.shape[0]), 8)
    serial = [model.decision_function(ds.X[p]) for p in parts]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda p: model.decision_function(ds.X[p]), parts))
    for a, b in zip(serial, threaded, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["qsg_s2auc", "qs3orao", "samult", "m_samult"])
def test_labels_from_scores_are_predict_and_the_runner_scores_once(name) -> None:
    from ordauc.experiment.evaluate import evaluate

    task = "binary" if name in ("qsg_s2auc", "samult") else "ordinal"
    ds = load(f"synthetic_{task}", n=400, d=4)
    y = ds.y.copy()
    y[120:] = -1
    params = SMALL if name.startswith("q") else {}
    model = get(name, **params).fit(ds.X[:300], y[:300])
    X_eval, y_eval = ds.X[300:], ds.y[300:]
    np.testing.assert_array_equal(model.predict_from_scores(model.decision_function(X_eval)),
                                  model.predict(X_eval))
    calls = []
    real = model.decision_function
    model.decision_function = lambda X: calls.append(len(X)) or real(X)
    scores = evaluate(model, X_eval, y_eval, task, ds.n_classes)
    assert calls == [100]
    from ordauc import metrics

    assert scores["mze"] == metrics.mze(y_eval, model.predict_from_scores(real(X_eval)))
