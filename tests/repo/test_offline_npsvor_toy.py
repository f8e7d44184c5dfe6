"""The NPSVOR paper's two-feature example (Section II, Fig. 2) from its offline twin: NPSVOR, SVR
and SVORIM on three Gaussian ranks, MZE and MAE over the draws, and each method's decision
regions refitted exactly as its cell fitted it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from ordauc import data
from ordauc.report.regions import regions_data
from ordauc.results.frame import load_results

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

CONFIGS = REPO / "configs"


def test_the_toy_is_the_papers_three_gaussian_ranks() -> None:
    ds = data.load("npsvor_toy")
    assert ds.X.shape == (300, 2) and np.bincount(ds.y)[1:].tolist() == [100, 100, 100]
    for rank, mean in zip((1, 2, 3), ((10, 10), (15, 15), (20, 10)), strict=True):
        rows = ds.X[ds.y == rank].astype(np.float64)
        np.testing.assert_allclose(rows.mean(axis=0), mean, atol=0.8)  # 4 std errors
        np.testing.assert_allclose(rows.var(axis=0, ddof=1), (5, 5), rtol=0.35)
    paper = yaml.safe_load((CONFIGS / "npsvor_toy.yaml").read_text(encoding="utf-8"))
    small = yaml.safe_load((CONFIGS / "offline" / "npsvor_toy.yaml").read_text(encoding="utf-8"))
    assert list(small["solvers"]) == list(paper["solvers"]) == ["npsvor", "svr", "svorim"]
    assert small["resampling"] == {**paper["resampling"], "repeats": 5}


def test_figure_2_regions_are_the_models_the_rows_scored(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = cli("run", CONFIGS / "offline" / "npsvor_toy.yaml", "--out", out)
    assert code == 0, err
    table = pd.read_csv(out / "results.csv")
    assert (table["status"] == "ok").all() and len(table) == 3 * 5 * 2
    assert (table["n_labeled"] == 75).all() and (table["n_test"] == 225).all()
    # every method learns the ranks: far below the 2/3 MZE of a constant rank
    assert (table.groupby("solver")["mze"].mean() < 0.3).all()

    (regions,) = regions_data(out, load_results(out))
    assert list(regions.predicted) == ["npsvor", "svr", "svorim"]
    assert regions.X_train.shape == (75, 2)
    assert np.bincount(regions.y_train)[1:].tolist() == [25, 25, 25]
    for label, grid in regions.predicted.items():
        assert grid.shape == regions.xx.shape and set(np.unique(grid)) == {1, 2, 3}, label
        assert regions.refit_mze[label] == regions.rows[label]["mze"], label
        assert regions.rows[label]["repetition"] == 0
    code, printed, err = cli("plot", out, "-v")
    assert code == 0, err
    path = out / "figures" / "regions_npsvor_toy.png"
    assert str(path) in printed.split() and path.stat().st_size > 10_000
