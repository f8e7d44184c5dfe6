"""Sparse input: a CSR matrix (how LIBSVM files load) gives SAMULT and QSG the same scores as the
dense array, directly and through `ordauc run`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from ordauc.data import builtin
from ordauc.data.dataset import Dataset
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT


def sparse_rows(n: int, d: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Mostly-zero features (as text data are) and labels 1..k (0/1 for k = 2) that depend on
    them, with a quarter of the rows unlabeled (-1)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)).astype(np.float32)
    X[rng.random((n, d)) < 0.7] = 0.0
    latent = X[:, : d // 2].sum(axis=1) - X[:, d // 2:].sum(axis=1) + rng.normal(0, 0.2, n)
    y = np.searchsorted(np.quantile(latent, np.linspace(0, 1, k + 1)[1:-1]), latent)
    return X, (y if k == 2 else y + 1).astype(np.int64)


@pytest.mark.parametrize(("estimator", "k"), [
    (SAMULT(lam=0.5, sigma=2.0), 2), (MSAMULT(sigma=2.0), 4),
    (QSGS2AUC(n_iter=40, batch_size=16, random_state=3), 2),
    (QS3ORAO(n_iter=40, batch_size=16, random_state=3), 4)])
def test_csr_input_scores_as_the_dense_array_does(estimator, k: int) -> None:
    X, y = sparse_rows(160, 12, k, seed=k)
    y_train = y.copy()
    y_train[::4] = -1
    dense = estimator.__class__(**estimator.get_params()).fit(X, y_train)
    csr = estimator.__class__(**estimator.get_params()).fit(sp.csr_matrix(X), y_train)
    X_new = sparse_rows(50, 12, k, seed=10 + k)[0]
    expected = dense.decision_function(X_new)
    np.testing.assert_array_equal(csr.decision_function(X_new), expected)
    np.testing.assert_array_equal(csr.decision_function(sp.csr_matrix(X_new)), expected)
    np.testing.assert_array_equal(csr.predict(sp.csr_matrix(X_new)), dense.predict(X_new))
    assert np.unique(expected).size > 10  # a real ranking, not a constant


def test_a_sparse_dataset_runs_end_to_end_with_the_dense_results(
        write_config, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    X, y = sparse_rows(300, 12, 2, seed=0)

    form = {"sparse": False}  # one dataset name (so one split), stored dense or as CSR

    def make() -> Dataset:
        return Dataset("sparse_set", sp.csr_matrix(X) if form["sparse"] else X.copy(), y.copy(),
                       "binary", 2)

    monkeypatch.setitem(builtin.BUILTIN, "sparse_set", builtin.builtin_entry(
        "sparse_set", make, task="binary", n=300, d=12, n_classes=2, origin="test",
        licence="none"))
    tables = {}
    for sparse, preprocess in ((False, "none"), (True, "none"), (True, "standardize")):
        form["sparse"] = sparse  # each cell is forked from this process and sees the change
        out = tmp_path / f"{sparse}-{preprocess}"
        config = write_config({
            "datasets": ["sparse_set"],
            "resampling": {"n_labeled": [60], "n_unlabeled": [100]},
            "preprocess": preprocess, "tuning": {"folds": 2},
            "solvers": {"samult": {"grid": {"sigma": [0.5, 2]}},
                        "qsg_s2auc": {"params": {"n_iter": 60, "lam": 0.1, "sigma": 2}}}})
        code, _, stderr = cli("run", config, "--out", out)
        assert code == 0, stderr
        tables[sparse, preprocess] = pd.read_csv(out / "results.csv").set_index("solver")
    dense, csr = tables[False, "none"], tables[True, "none"]
    assert (csr["status"] == "ok").all() and (csr["auc"] > 0.6).all()
    same = ["n_labeled", "n_unlabeled", "n_test", "split_seed", "solver_seed", "cv_score",
            "p_sigma", "auc", "c_index", "mze", "gm", "ms"]
    pd.testing.assert_frame_equal(csr[same], dense[same], check_exact=True)
    # z-scores of sparse data are scaled, not centred (centring would densify them)
    scaled = tables[True, "standardize"]
    assert (scaled["status"] == "ok").all() and (scaled["auc"] > 0.6).all()
