"""ordauc.experiment.refit: a cell's model fitted again after the run is the model its row
scored, under every preprocessing, for supervised and semi-supervised (seeded) solvers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordauc import data, metrics
from ordauc.config import load_config
from ordauc.experiment import make_plan
from ordauc.experiment.refit import refit_cell

STUDY = {
    "seed": 11,
    "datasets": ["npsvor_toy"],
    "resampling": {"kind": "budget", "repeats": 1, "n_labeled": [60], "n_unlabeled": [40],
                   "test_size": 0.5, "sampling": "stratified"},
    "evaluate": "test",
    "tuning": {"kind": "cv", "folds": 2, "metric": ["mze"]},
    "timeout": 120,
    "solvers": {
        "npsvor": {"params": {"eps": 0.2}, "grid": {"C": [0.1, 10]}},
        "svorim": {},
        "qs3orao": {"params": {"n_iter": 150, "sigma": 3.0}, "grid": {"lam": [0.001, 1.0]}},
        "m_pnu_auc": {"params": {"n_basis": 30, "sigma": 3.0}},
    },
}


@pytest.mark.parametrize("preprocess", ["none", "standardize", "minmax"])
def test_a_refit_scores_what_its_row_scored(cli, write_config, tmp_path: Path,
                                            preprocess: str) -> None:
    path = write_config({**STUDY, "preprocess": preprocess})
    out = tmp_path / "out"
    code, _, err = cli("run", path, "--out", out, "--n-jobs", "1")
    assert code == 0, err
    table = pd.read_csv(out / "results.csv")
    assert (table["status"] == "ok").all() and len(table) == 4
    config = load_config(path)
    ds = data.load("npsvor_toy")
    checked = set()
    for cell in make_plan(config).cells:
        row = table[table["key"] == cell.key].iloc[0]
        # the chosen point: the row's values of the grid's parameters (all floats here)
        params = {name: float(row[f"p_{name}"]) for name in cell.solver.grid}
        fitted = refit_cell(cell, ds, config, params)
        X_eval, y_eval = fitted.evaluation
        assert X_eval.shape[0] == row["n_test"]
        predicted = fitted.model.predict(X_eval)
        # exactly the row's figures: the same model, not a near one
        assert metrics.mze(y_eval, predicted) == row["mze"], (cell.key, preprocess)
        assert metrics.mae(y_eval, predicted) == row["mae"], (cell.key, preprocess)
        # the map of raw rows is the one the evaluation rows went through
        raw = ds.X[fitted.split.evaluation]
        np.testing.assert_array_equal(fitted.features(raw), X_eval)
        checked.add(cell.solver.name)
    assert checked == {"npsvor", "svorim", "qs3orao", "m_pnu_auc"}
