"""Resampling by published partitions (Chu Wei's 20) and by repeated k-fold (the AUC-DCD 5 x 4),
end to end: real files from ``../shared/data`` fetched through a local mirror, then `ordauc run`.
Skipped where ``../shared`` is absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures_data import makers
from fixtures_data.helpers import fetch_ok, serve, shared_or_skip
from runner_solvers import read_fit_log, rows_digest

from ordauc import data
from ordauc.config import load_config
from ordauc.data.catalog import CATALOG
from ordauc.experiment.plan import make_plan
from ordauc.splits import make_split

# catalogue name -> (Chu's folder, file stem, published n_train, n_test)
CHU = {"machinecpu": ("machinecpu", "machine", 150, 59),
       "boston": ("bostonhousing", "housing", 300, 206)}


@pytest.fixture
def mirror(tmp_path: Path):
    yield from serve(tmp_path)


def chu_archive(mirror, name: str) -> Path:
    """Chu's ``ordinal_<name>.zip`` rebuilt from the shared files, served by the mirror."""
    root = shared_or_skip("chuwei-ordinal-bb515-probit", "probit", "data")
    folder = CHU[name][0]
    members = {f"{folder}/{p.relative_to(root / folder)}": p.read_bytes()
               for p in (root / folder).rglob("*") if p.is_file()}
    archive = CATALOG[name].sources["archive"].filename
    (mirror.root / archive).write_bytes(makers.zip_bytes(members))
    return root / folder / "quantile"


def run_table(cli, write_config, study: dict, out: Path, data_dir: Path) -> pd.DataFrame:
    code, _, stderr = cli("run", write_config(study), "--out", out, "--data-dir", data_dir)
    assert code == 0, stderr
    return pd.read_csv(out / "results.csv")


def test_published_partitions_are_the_repetitions(mirror, test_solvers, write_config, cli,
                                                 fit_log: Path, tmp_path: Path) -> None:
    quantile = {name: chu_archive(mirror, name) for name in CHU}
    data_dir = tmp_path / "data"
    fetch_ok(mirror, data_dir, *CHU)
    study = {"datasets": list(CHU), "resampling": {"kind": "partitions"},
             "solvers": {"mean_ranker": None}}
    table = run_table(cli, write_config, study, tmp_path / "out", data_dir)
    assert len(table) == 40 and (table["status"] == "ok").all()
    assert (table["resampling"] == "partitions").all() and (table["eval_set"] == "test").all()
    fits = {f["random_state"]: f for f in read_fit_log(fit_log)}
    for name, (_, stem, n_train, n_test) in CHU.items():
        rows = table[table["dataset"] == name].set_index("repetition").sort_index()
        assert list(rows.index) == list(range(1, 21))  # Chu's partitions 1..20, as published
        assert (rows["n_test"] == n_test).all() and (rows["n_labeled"] == n_train).all()
        assert (rows["n_unlabeled"] == 0).all() and rows["auc"].nunique() > 1
        for partition, row in rows.iterrows():
            published = np.loadtxt(quantile[name] / f"{stem}_train_5.{partition}")[:, :-1]
            fit = fits[str(row["solver_seed"])]
            assert fit["n_rows"] == n_train and fit["rows_digest"] == rows_digest(published)

    chosen = run_table(cli, write_config, {**study, "resampling": {
        "kind": "partitions", "partitions": [2, 17]}}, tmp_path / "some", data_dir)
    assert sorted(chosen["repetition"]) == [2, 2, 17, 17]
    key = "boston/mean_ranker/r17/lall/uall"
    assert chosen.set_index("key").loc[key, "auc"] == table.set_index("key").loc[key, "auc"]
    code, _, stderr = cli("run", write_config({**study, "resampling": {
        "kind": "partitions", "partitions": [21]}}), "--out", tmp_path / "none", "--data-dir",
        data_dir)
    assert code == 2 and "has no partition 21; its partitions are 1..20" in stderr


def test_repeated_kfold_folds_partition_the_rows(mirror, test_solvers, write_config, cli,
                                                 fit_log: Path, tmp_path: Path) -> None:
    folder = shared_or_skip("zpli0320-dataset")
    for name in ("dna.scale", "dna.scale.t"):
        shutil.copy(folder / name, mirror.root / name)
    data_dir = tmp_path / "data"
    fetch_ok(mirror, data_dir, "dna")
    study = {"datasets": ["dna"], "resampling": {"kind": "kfold", "folds": 5, "repeats": 4},
             "solvers": {"mean_ranker": None}}
    table = run_table(cli, write_config, study, tmp_path / "out", data_dir)
    table = table.set_index("repetition").sort_index()
    assert list(table.index) == list(range(20)) and (table["status"] == "ok").all()
    assert (table["resampling"] == "kfold").all()
    dna = data.load("dna", data_dir)
    n = dna.y.size
    assert n == 2000 and (table["n_labeled"] + table["n_test"] == n).all()
    assert (table["n_test"].between(n // 5, n // 5 + 1)).all()
    fits = {f["random_state"]: f for f in read_fit_log(fit_log)}
    cells = make_plan(load_config(write_config(study)), str(data_dir)).cells
    held_out: dict[int, list[np.ndarray]] = {}
    for cell in cells:
        split = make_split(dna.y, kind="kfold", repetition=cell.repetition, n_labeled=None,
                           n_unlabeled=None, seeds=cell.seeds, folds=5)
        row = table.loc[cell.repetition]
        assert row["n_test"] == split.evaluation.size
        fit = fits[str(row["solver_seed"])]  # the run trained on the rows outside the fold
        assert fit["rows_digest"] == rows_digest(dna.X[np.sort(split.train)])
        held_out.setdefault(cell.repetition // 5, []).append(split.evaluation)
    assert len(held_out) == 4
    for folds in held_out.values():  # each row in exactly one evaluation fold of a repeat
        assert np.array_equal(np.sort(np.concatenate(folds)), np.arange(n))
    firsts = [np.sort(folds[0]) for folds in held_out.values()]
    assert not any(np.array_equal(firsts[0], other) for other in firsts[1:])  # new repeats


def test_chu_sets_on_the_npsvor_protocol_beside_published_partitions(
        mirror, test_solvers, write_config, cli, tmp_path: Path) -> None:
    # The NPSVOR paper: Chu's regression sets cut into 5 equal-frequency bins, each split at
    # random into its Table I train/test sizes, 5 times; the survey's sets keep their published
    # partitions. One study, two resamplings.
    for name in CHU:
        chu_archive(mirror, name)
    data_dir = tmp_path / "data"
    fetch_ok(mirror, data_dir, *CHU)
    paper = {"kind": "budget", "repeats": 5, "n_labeled": "all", "train_size": "catalogue"}
    study = {"datasets": [{"name": "boston", "resampling": paper}, "machinecpu"],
             "resampling": {"kind": "partitions", "partitions": [1, 2]},
             "solvers": {"mean_ranker": None}}
    config = write_config(study)
    code, stdout, _ = cli("run", config, "--dry-run", "--data-dir", data_dir)
    assert code == 0
    planned = [line.split()[1] for line in stdout.splitlines() if line.startswith("missing")]
    assert sorted(k for k in planned if k.startswith("boston/")) == [
        f"boston/mean_ranker/r{r}/lall/uall" for r in range(5)]
    assert sum(k.startswith("machinecpu/") for k in planned) == 2
    table = run_table(cli, write_config, study, tmp_path / "out", data_dir)
    boston = table[table["dataset"] == "boston"]
    assert (boston["resampling"] == "budget").all() and (boston["n_labeled"] == 300).all()
    assert (boston["n_test"] == 206).all()
    machine = table[table["dataset"] == "machinecpu"]
    assert (machine["resampling"] == "partitions").all() and (machine["n_labeled"] == 150).all()
    # equal-frequency classes (the paper's), not Chu's equal-width 77/239/123/36/31
    counts = np.bincount(data.load("boston", data_dir).y)[1:]
    assert counts.sum() == 506 and counts.max() - counts.min() <= 3, counts
    # five different random partitions
    cfg = load_config(config)
    plan = make_plan(cfg, str(data_dir))
    ds = data.load("boston", data_dir)
    tests = {tuple(np.sort(make_split(ds.y, n_labeled=None, n_unlabeled=None, seeds=c.seeds,
                                      train_size=300).evaluation))
             for c in plan.cells if c.dataset.name == "boston"}
    assert len(tests) == 5


def test_train_size_catalogue_needs_published_sizes(write_config, cli, tmp_path: Path) -> None:
    study = {"datasets": ["breast_cancer"],
             "resampling": {"kind": "budget", "n_labeled": "all", "train_size": "catalogue"},
             "solvers": {"svorex": None}}
    code, _, stderr = cli("run", write_config(study), "--out", tmp_path / "out")
    assert code == 2 and "has no published train/test sizes" in stderr
    assert not (tmp_path / "out").exists()
