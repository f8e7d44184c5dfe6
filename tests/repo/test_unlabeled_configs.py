"""The unlabeled-rows studies (configs/unlabeled_binary.yaml, configs/unlabeled_ordinal.yaml):
their configs load and plan, name real catalogue sets of the right task and every arm the
checks look for, tune every arm alike; heart_scale's catalogue entry reads LIBSVM's file; the
``minmax`` preprocessing they use. That their data prepares offline, from the repository's
data/offline-mirror, is tested in test_offline_mirror.py."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import REPO
from fixtures_data.helpers import fetch_ok, serve, shared_or_skip

from ordauc import data
from ordauc.config import load_config
from ordauc.experiment.plan import make_plan

BINARY = REPO / "configs" / "unlabeled_binary.yaml"
ORDINAL = REPO / "configs" / "unlabeled_ordinal.yaml"
Cli = Callable[..., tuple[int, str, str]]

# config -> (task, semi-supervised arms, supervised references, the paper's labeled budget)
STUDIES = {
    BINARY: ("binary", {"qsg_s2auc", "samult"}, {"qsg_s2auc_gamma1", "svc_rbf"}, 200),
    ORDINAL: ("ordinal", {"qs3orao", "m_samult"},
              {"qs3orao_gamma1", "svorim", "svorex", "m_svc_rbf"}, 500),
}


@pytest.fixture
def mirror(tmp_path):
    """A local HTTP mirror serving ``tmp_path/mirror``, stopped after the test."""
    yield from serve(tmp_path)


@pytest.mark.parametrize("path", list(STUDIES), ids=lambda p: p.stem)
def test_config_plans_every_arm_on_real_sets_of_its_task(path: Path) -> None:
    task, ssl, supervised, budget = STUDIES[path]
    config = load_config(path)
    labels = {s.label for s in config.solvers}
    assert labels == ssl | supervised
    engine = next(s for s in config.solvers if s.label.endswith("_gamma1"))
    assert engine.params["gamma"] == 1.0 and "gamma" not in engine.grid
    twin = next(s for s in config.solvers if s.label == engine.name)
    assert {k: v for k, v in engine.params.items() if k != "gamma"} == twin.params
    assert all(1.0 in s.grid["gamma"] for s in config.solvers if s.label in ssl)
    # one inner CV for every arm, by AUC, and features scaled alike
    assert all(s.tuning is None for s in config.solvers)
    assert config.tuning.kind == "cv" and config.tuning.metrics == ("auc",)
    assert config.preprocess == "minmax"
    assert len(config.datasets) >= 5
    for spec in config.datasets:
        entry = data.entry(spec.name)
        assert entry.task == task, spec.name
        assert "generator" not in entry.origin and "seeded" not in entry.origin, spec.name
        r = spec.resampling or config.resampling
        assert r.repeats * (r.folds if r.kind == "kfold" else 1) >= 10, spec.name
        assert r.beyond_data == "drop" and len(r.n_unlabeled) == 2, spec.name
        assert r.n_labeled == ((100,) if spec.name == "heart_scale" else (budget,)), spec.name
    plan = make_plan(config)
    assert {c.solver.label for c in plan.cells} == labels
    assert {c.task for c in plan.cells} == {task}


@pytest.mark.parametrize("path", list(STUDIES), ids=lambda p: p.stem)
def test_dry_run_validates_the_config(cli: Cli, path: Path, tmp_path: Path) -> None:
    code, out, err = cli("run", path, "--dry-run", "--out", tmp_path / "out",
                         "--data-dir", tmp_path / "empty")
    assert code == 0, err
    assert "nothing written" in out + err and not (tmp_path / "out").exists()


def test_heart_scale_entry() -> None:
    entry = data.entry("heart_scale")
    assert entry.task == "binary" and (entry.n, entry.d, entry.n_classes) == (270, 13, 2)
    assert entry.recipe == "svmlight" and entry.options["positive"] == 1
    source = entry.sources["train"]
    assert source.urls[0].endswith("/binary/heart_scale") and source.sha256 == (
        "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9")
    assert entry.licence and "Statlog" in entry.citation and "LIBSVM" in entry.citation


def test_heart_scale_entry_parses_libsvm_file(mirror, tmp_path: Path) -> None:
    """LIBSVM's heart_scale, served under its name with the checksum pin kept: 270 x 13 (feature
    11 absent on some lines), label +1 the positive class (120 rows)."""
    source = shared_or_skip("libsvm-heart_scale", "heart_scale")
    shutil.copy(source, mirror.root / "heart_scale")
    fetch_ok(mirror, tmp_path / "d", "heart_scale")
    heart = data.load("heart_scale", tmp_path / "d")
    assert heart.X.shape == (270, 13) and heart.X_test is None and heart.task == "binary"
    assert heart.class_counts() == {0: 150, 1: 120} and heart.info["positive_class"] == 1
    X = np.asarray(heart.X)
    assert X.min() == -1.0 and X.max() == 1.0
    first = source.read_text().splitlines()[0].split()
    assert first[0] == "+1" and np.isclose(X[0, 0], float(first[1].split(":")[1]))


def test_minmax_scales_by_the_reference_rows() -> None:
    from ordauc.experiment.cell import minmax_scaler

    ref = np.array([[0.0, 5.0, 2.0], [10.0, 5.0, 4.0], [5.0, 5.0, 3.0]], dtype=np.float32)
    scale = minmax_scaler(ref, block=2)  # blocks of rows give the same range
    out = scale(ref)
    assert out.dtype == np.float32
    assert np.allclose(out, [[0, 0, 0], [1, 0, 1], [0.5, 0, 0.5]])  # a constant feature: 0
    assert np.allclose(scale(np.array([[20.0, 6.0, 1.0]])), [[2.0, 1.0, -0.5]])  # no clipping
    sparse = sp.csr_matrix(np.array([[0.0, 2.0], [4.0, 0.0]]))
    assert np.allclose(minmax_scaler(sparse)(sparse).toarray(), [[0, 1], [1, 0]])


def test_minmax_config_runs_every_solver_on_the_same_features(cli: Cli, write_config,
                                                               tmp_path: Path) -> None:
    """``preprocess: minmax`` is accepted and scales by the whole dataset, before the split:
    a supervised arm (labeled rows only) gets the same result at every unlabeled size."""
    import pandas as pd

    path = write_config({
        "seed": 1, "datasets": ["breast_cancer"], "preprocess": "minmax",
        "resampling": {"kind": "budget", "repeats": 1, "n_labeled": [40],
                       "n_unlabeled": [20, 60]},
        "tuning": {"kind": "cv", "folds": 2, "metric": "auc"},
        "solvers": {"svc_rbf": {"grid": {"C": [1.0], "sigma": [1.0]}}}})
    code, _, err = cli("run", path, "--out", tmp_path / "out", "--n-jobs", "1")
    assert code == 0, err
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert (table["status"] == "ok").all() and table["auc"].nunique() == 1


def test_calibration_scores_an_ordinal_draw_that_misses_the_top_class() -> None:
    """A dry run's timing draw of a set whose top class is rare (era's 9th: 18 of 1,000 rows)
    may not hold that class: the timing scores the model on the classes it saw."""
    from ordauc import solvers
    from ordauc.cost.calibration import calibrate
    from ordauc.experiment.evaluate import evaluate

    def rows(n: int, labeled: int) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(n)
        y = (np.arange(n) % 3 + 1).astype(np.int64)  # classes 1..3 of the set's 4
        y[labeled:] = -1
        return rng.random((n, 3)), y

    made = calibrate(solvers.get("svorim"), rows, [60, 120], False, task="ordinal",
                     n_classes=4, evaluate=evaluate)
    assert made is not None
