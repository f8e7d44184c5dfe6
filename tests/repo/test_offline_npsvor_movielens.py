"""The offline twin of the NPSVOR paper's collaborative-filtering study (Fig. 8): the ten methods
on training sets of growing size, each tested on all the remaining rows, and `ordauc plot`
drawing MAE as boxplots grouped by training-set size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from ordauc.report.figdata import size_axis
from ordauc.report.size_boxes import size_boxes, wanted
from ordauc.results.frame import load_results

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

CONFIGS = REPO / "configs"
TWIN = CONFIGS / "offline" / "npsvor_movielens.yaml"


def test_twin_keeps_the_studys_methods_and_protocol() -> None:
    paper = yaml.safe_load((CONFIGS / "npsvor_movielens.yaml").read_text(encoding="utf-8"))
    small = yaml.safe_load(TWIN.read_text(encoding="utf-8"))
    assert list(small["solvers"]) == list(paper["solvers"]) and len(paper["solvers"]) == 10
    for key in ("evaluate", "preprocess"):
        assert small[key] == paper[key]
    assert paper["resampling"]["n_labeled"] == list(range(100, 401, 50))
    assert paper["resampling"]["repeats"] == 20 and paper["datasets"] == ["movielens"]
    assert small["tuning"]["metric"] == paper["tuning"]["metric"] == ["mze", "mae"]


def test_figure_8_grouped_mae_boxplots_by_training_size(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = cli("run", TWIN, "--out", out, "--n-jobs", "2")
    assert code == 0, err
    table = pd.read_csv(out / "results.csv")
    assert (table["status"] == "ok").all() and len(table) == 10 * 3 * 3 * 2
    # tested on every remaining row, never read by these supervised methods
    assert ((table["n_labeled"] + table["n_test"]) == 503).all()

    results = load_results(out)
    dataset = str(results["dataset"].iloc[0])
    assert size_axis(results) == "n_labeled" and wanted(results, dataset)
    boxes = size_boxes(results, dataset, "mae")
    assert len(boxes) == 10 * 3 and boxes["complete"].all()
    mae_rows = table[table["cv_metric"] == "mae"]  # the MAE figure reads MAE-tuned rows
    for row in boxes.itertuples():
        mine = mae_rows[(mae_rows["solver"] == row.solver)
                        & (mae_rows["n_labeled"] == row.n_labeled)]["mae"]
        np.testing.assert_array_equal(row.values, np.sort(mine.to_numpy()))
    npsvor = boxes[boxes["solver"] == "npsvor"].set_index("n_labeled")["values"]
    assert np.mean(npsvor[400]) < np.mean(npsvor[100])  # more movies, smaller error
    code, printed, err = cli("plot", out, "-v")
    assert code == 0, err
    stem = "synthetic_ordinal_d_30_n_503"
    for name in (f"boxes_mae_{stem}", f"metrics_{stem}"):
        path = out / "figures" / f"{name}.png"
        assert str(path) in printed.split() and path.stat().st_size > 10_000
