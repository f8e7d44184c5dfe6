"""The offline twin of the NPSVOR paper's scalability study (Fig. 7): the ten methods at fixed
parameters on growing training sets, and `ordauc plot` drawing MZE, MAE and time against the
number of training rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from ordauc.report.figdata import time_curves
from ordauc.results.frame import load_results

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

CONFIGS = REPO / "configs"
TWIN = CONFIGS / "offline" / "npsvor_scale.yaml"


def test_twin_keeps_the_studys_methods_and_parameters() -> None:
    paper = yaml.safe_load((CONFIGS / "npsvor_scale.yaml").read_text(encoding="utf-8"))
    small = yaml.safe_load(TWIN.read_text(encoding="utf-8"))
    assert small["solvers"] == paper["solvers"]
    for key in ("evaluate", "preprocess", "seed"):
        assert small[key] == paper[key]
    assert small["resampling"]["n_unlabeled"] == [0] and "tuning" not in small


def test_figure_7_draws_metrics_and_time_against_the_training_rows(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = cli("run", TWIN, "--out", out, "--n-jobs", "2")
    assert code == 0, err
    table = pd.read_csv(out / "results.csv")
    sizes = [100, 200, 400, 800, 1600]
    assert (table["status"] == "ok").all() and len(table) == 10 * len(sizes)
    assert (table["n_test"] == 1600).all()  # one held-out half, scored at every size

    results = load_results(out)
    dataset = str(results["dataset"].iloc[0])
    for value in ("fit_time_s", "mze", "mae"):
        curves = time_curves(results, dataset, value=value)
        assert curves.axis == "n_labeled" and curves.n_labeled is None
        assert len(curves.solvers) == 10 and not curves.marks
        for solver in curves.solvers:
            line = curves.table[curves.table["solver"] == solver].sort_values("n_labeled")
            assert line["n_labeled"].tolist() == sizes and line["drawn"].all()
            mine = table[table["solver"] == solver].set_index("n_labeled")[value]
            np.testing.assert_allclose(line["mean"].to_numpy(), mine.loc[sizes].to_numpy())
    npsvor = table[table["solver"] == "npsvor"].set_index("n_labeled")["mae"]
    assert npsvor[1600] < npsvor[100]  # more training rows, smaller error

    code, printed, err = cli("plot", out, "-v")
    assert code == 0, err
    stem = "synthetic_ordinal_d_8_n_3200"
    for name in (f"metrics_{stem}", f"time_{stem}"):
        for ext in ("png", "pdf"):
            path = out / "figures" / f"{name}.{ext}"
            assert str(path) in printed.split() and path.stat().st_size > 5000
