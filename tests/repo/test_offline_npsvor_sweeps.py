"""Swept parameters (a config's `sweep:`) and the NPSVOR paper's Figs. 3 and 4 from their
offline twins: MZE and MAE against eps with C and kappa tuned per eps, and over the ADMM
tolerances at fixed parameters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from ordauc.config import parse_config
from ordauc.errors import UserError
from ordauc.report.sweeps import study_sweeps, sweep_data
from ordauc.results.frame import load_results

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

CONFIGS = REPO / "configs"


def _study(entry: dict) -> dict:
    return {"datasets": ["diabetes"], "resampling": {"n_labeled": [50]},
            "solvers": {"npsvor": entry}}


def test_a_sweep_is_one_label_per_combination_each_tuned_on_its_own() -> None:
    config = parse_config(_study({"sweep": {"eps": [0.1, 0.2], "tol_abs": [1e-9, 1.0]},
                                  "grid": {"C": [1, 10]}, "params": {"kappa": 0.5}}))
    labels = [s.label for s in config.solvers]
    assert labels == ["npsvor.eps=0.1.tol_abs=1e-09", "npsvor.eps=0.1.tol_abs=1",
                      "npsvor.eps=0.2.tol_abs=1e-09", "npsvor.eps=0.2.tol_abs=1"]
    first = config.solvers[0]
    assert first.params == {"kappa": 0.5, "eps": 0.1, "tol_abs": 1e-9}
    assert first.grid == {"C": [1, 10]} and first.sweep_of == "npsvor"
    assert first.swept == ("eps", "tol_abs")
    assert parse_config(_study({"grid": {"C": [1]}})).solvers[0].sweep_of is None


@pytest.mark.parametrize(("entry", "words"), [
    ({"sweep": {"eps": [0.1]}, "grid": {"eps": [0.2]}}, "in both sweep and grid"),
    ({"sweep": {"eps": [0.1]}, "params": {"eps": 0.2}}, "in both sweep and params"),
    ({"sweep": {"eps": []}}, "must list at least one value"),
    ({"sweep": {"eps": [0.1, 0.1]}}, "lists a value twice"),
    ({"sweep": {"eps": [-1.0]}}, "solvers.npsvor.sweep"),
    ({"sweep": {"random_state": [1, 2]}}, "random_state cannot be set"),
])
def test_bad_sweeps_are_one_sentence(entry: dict, words: str) -> None:
    with pytest.raises(UserError, match=words):
        parse_config(_study(entry))


def _run(cli, name: str, out: Path) -> pd.DataFrame:
    code, _, err = cli("run", CONFIGS / "offline" / f"{name}.yaml", "--out", out,
                       "--n-jobs", "2")
    assert code == 0, err
    return pd.read_csv(out / "results.csv")


def test_twins_keep_the_studies_sweeps_and_fixed_parameters() -> None:
    for name in ("npsvor_eps", "npsvor_tolerance"):
        paper = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8"))
        small = yaml.safe_load((CONFIGS / "offline" / f"{name}.yaml").read_text(encoding="utf-8"))
        for label, spec in paper["solvers"].items():
            twin = small["solvers"][label]
            assert set(twin["sweep"]) == set(spec["sweep"])
            assert twin["params"] == spec["params"] and set(twin.get("grid", {})) == set(
                spec.get("grid", {}))
        assert small.get("tuning", {}).get("metric") == paper.get("tuning", {}).get("metric")


def test_figure_3_mze_and_mae_against_eps_tuned_per_eps(cli, tmp_path: Path) -> None:
    out = tmp_path / "eps"
    table = _run(cli, "npsvor_eps", out)
    eps = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    assert (table["status"] == "ok").all() and len(table) == len(eps) * 2 * 2
    assert sorted(table["p_eps"].unique()) == eps
    assert (table["solver"] == table["p_eps"].map(lambda v: f"npsvor.eps={v:g}")).all()
    assert sorted(table["cv_metric"].unique()) == ["mae", "mze"]
    results = load_results(out)
    assert study_sweeps(out) == {"npsvor": (("eps",), [f"npsvor.eps={v:g}" for v in eps])}
    (sweep,) = sweep_data(results, out, ("mze", "mae"))
    for metric in ("mze", "mae"):
        drawn = sweep.table[sweep.table["metric"] == metric].set_index("p_eps")["mean"]
        rows = table[table["cv_metric"] == metric]  # each panel reads its own selection
        np.testing.assert_allclose(drawn.sort_index().to_numpy(),
                                   rows.groupby("p_eps")[metric].mean().sort_index().to_numpy())
    code, printed, err = cli("plot", out, "-v")
    assert code == 0, err
    pngs = [Path(p).name for p in printed.split() if p.endswith(".png")]
    assert pngs == ["sweep_npsvor_synthetic_ordinal_d_8_n_1000.png"]  # no box per eps


def test_figure_4_mze_and_mae_over_the_admm_tolerances(cli, tmp_path: Path) -> None:
    out = tmp_path / "tol"
    table = _run(cli, "npsvor_tolerance", out)
    assert (table["status"] == "ok").all() and len(table) == 4 * 4 * 2
    assert table["cv_metric"].isna().all() and (table["p_C"] == 10.0).all()
    (sweep,) = sweep_data(load_results(out), out, ("mze", "mae"))
    assert sweep.params == ("tol_abs", "tol_rel") and (sweep.table["n"] == 2).all()
    mze = sweep.table[sweep.table["metric"] == "mze"].set_index(["p_tol_abs", "p_tol_rel"])
    # ADMM stopped at once (tolerance 1) is far from the converged model the tight ones reach
    assert mze.loc[(1.0, 1.0), "mean"] > mze.loc[(1e-9, 1e-9), "mean"] + 0.05
    code, printed, err = cli("plot", out)
    assert code == 0, err
    assert (out / "figures" / "sweep_npsvor_synthetic_ordinal_d_8_n_1000.png").stat().st_size
