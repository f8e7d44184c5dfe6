"""The inner-CV tuner with the solvers' shared grid passes chooses what one fit per point does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

GRID = {"lam": [0.25, 1.0], "sigma": [0.5, 2.0], "gamma": [0.2, 0.8]}
STUDY = {
    "datasets": ["breast_cancer", "diabetes"],
    "resampling": {"kind": "budget", "repeats": 2, "n_labeled": [50], "n_unlabeled": [100],
                   "sampling": "stratified"},
    "solvers": {
        "qsg_s2auc": {"params": {"n_iter": 120, "batch_size": 16, "block_size": 16},
                      "grid": GRID},
        "qs3orao": {"params": {"n_iter": 120, "batch_size": 16, "block_size": 16},
                    "grid": GRID},
        "samult": {"grid": GRID},
        "m_samult": {"grid": GRID},
        "pnu_auc": {"grid": {"lam": [0.1, 1.0], "sigma": [0.5, 2.0], "eta": [-0.5, 0.5]}},
        "m_pnu_auc": {"grid": {"lam": [0.1, 1.0], "sigma": [0.5, 2.0], "eta": [-0.5, 0.5]}},
    },
}


def _run(shared: bool, write_config, cli, out: Path) -> pd.DataFrame:
    config = write_config({**STUDY, "tuning": {"kind": "cv", "folds": 3, "shared": shared}},
                          name=f"study_{shared}.yaml")
    code, _, stderr = cli("run", config, "--out", out, "-j", "2")
    assert code == 0, stderr
    return pd.read_csv(out / "results.csv").set_index("key").sort_index()


# End to end (two `ordauc run` over six real solvers and their grids): `make test-all` runs it;
# the fast tests compare shared passes with lone fits in tests/solvers/test_grid_*.py.
@pytest.mark.slow
def test_shared_passes_choose_the_points_one_fit_per_point_chooses(write_config, cli,
                                                                   tmp_path: Path) -> None:
    shared = _run(True, write_config, cli, tmp_path / "shared")
    alone = _run(False, write_config, cli, tmp_path / "alone")
    assert (shared["status"] == "ok").all() and len(shared) == 14
    assert list(shared.index) == list(alone.index)
    for column in [c for c in shared.columns if c.startswith("p_")]:
        pd.testing.assert_series_equal(shared[column], alone[column])
    # QSG models of a shared pass equal lone fits to float32 rounding (the engine's tests bound
    # the gap by 5e-6 of max |f|); the exact solvers agree to the last digits.
    np.testing.assert_allclose(shared["auc"], alone["auc"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(shared["cv_score"], alone["cv_score"], rtol=0, atol=1e-6)
    # The setting is part of the cells' settings: one table never mixes the two.
    assert (shared["config_hash"] != alone["config_hash"]).all()


@pytest.mark.slow
def test_shared_passes_agree_on_the_offline_twins(write_config, cli, tmp_path: Path) -> None:
    """Both QSG papers' offline twins (configs/offline/), first dataset, one trial, the largest
    unlabeled size: their grids, iterations and tuning, shared passes against one fit per
    point. The same chosen parameters, AUC and CV scores (QSG to float32 rounding)."""
    import yaml

    tables, n_solvers = {}, {}
    for name in ("qsg_s2auc", "qs3orao"):
        twin = yaml.safe_load((REPO / "configs" / "offline"
                               / f"{name}.yaml").read_text(encoding="utf-8"))
        n_solvers[name] = len(twin["solvers"])
        twin["datasets"] = twin["datasets"][:1]
        twin["resampling"] = {**twin["resampling"], "repeats": 1, "n_unlabeled": ["all"]}
        for shared in (True, False):
            own = {label: {**spec, "tuning": {**spec["tuning"], "shared": shared}}
                   for label, spec in twin["solvers"].items() if "tuning" in spec}
            study = {**twin, "tuning": {**twin["tuning"], "shared": shared},
                     "solvers": {**twin["solvers"], **own}}
            out = tmp_path / f"{name}_{shared}"
            code, _, stderr = cli("run", write_config(study, name=f"{name}_{shared}.yaml"),
                                  "--out", out, "-j", "2")
            assert code == 0, stderr
            tables[name, shared] = pd.read_csv(out / "results.csv").set_index("key").sort_index()
    for name in ("qsg_s2auc", "qs3orao"):
        shared, alone = tables[name, True], tables[name, False]
        assert (shared["status"] == "ok").all() and list(shared.index) == list(alone.index)
        assert len(shared) == n_solvers[name]
        for column in [c for c in shared.columns if c.startswith("p_")]:
            pd.testing.assert_series_equal(shared[column], alone[column])
        np.testing.assert_allclose(shared["auc"], alone["auc"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(shared["cv_score"], alone["cv_score"], rtol=0, atol=1e-6)
