"""Supervised solvers in a semi-supervised study: labeled rows only, one fit per labeled set.

A solver that declares ``uses_unlabeled = False`` is handed the labeled rows alone, sized on
them by the memory guard, and tuned and fitted once per (dataset, repetition, n_labeled); each
``n_unlabeled`` cell still gets its row, scored on its own evaluation set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from runner_solvers import read_fit_log

from ordauc.data import load
from ordauc.experiment.plan import split_seeds
from ordauc.splits import make_split


def _table(out: Path) -> pd.DataFrame:
    # provenance is text: a commit id of digits only would otherwise read as a number
    table = pd.read_csv(out / "results.csv", dtype={"git_sha": str, "ordauc_version": str})
    assert table["key"].is_unique
    return table


def test_svorex_trains_on_200_rows_whatever_the_unlabeled_budget(write_config, cli,
                                                                 tmp_path: Path) -> None:
    # 40,200 training rows would need several GB for SVOREX's kernel matrix; it trains on 200.
    dataset = {"name": "synthetic_ordinal", "n": 41_500, "d": 4}
    config = write_config({
        "datasets": [dataset], "evaluate": "unlabeled",
        "resampling": {"n_labeled": [200], "n_unlabeled": [1000, 40_000],
                       "sampling": "stratified"},
        "solvers": {"svorex": {"params": {"C": 1.0, "kappa": 1.0}}}})
    out = tmp_path / "out"
    code, _, stderr = cli("run", config, "--out", out, "--memory-limit", "1GB")
    assert code == 0, stderr
    table = _table(out).set_index("n_unlabeled")
    assert list(table["status"]) == ["ok", "ok"], table["message"].tolist()
    assert (table["n_labeled"] == 200).all()
    assert table.loc[1000, "n_test"] == 1000 and table.loc[40_000, "n_test"] == 40_000
    assert table["shared_fit"].all()
    assert table["fit_key"].nunique() == 1
    assert table["fit_time_s"].nunique() == 1  # one fit, its time on both rows
    # each row is scored on its own evaluation set: the transductive AUC of the unlabeled rows
    ds = load("synthetic_ordinal", n=41_500, d=4)
    seeds = split_seeds(0, "synthetic_ordinal[d=4,n=41500]", 0, 200)
    small = make_split(ds.y, n_labeled=200, n_unlabeled=1000, seeds=seeds,
                       sampling="stratified", evaluate="unlabeled")
    large = make_split(ds.y, n_labeled=200, n_unlabeled=40_000, seeds=seeds,
                       sampling="stratified", evaluate="unlabeled")
    np.testing.assert_array_equal(small.labeled, large.labeled)
    from ordauc import metrics, solvers

    model = solvers.get("svorex", C=1.0, kappa=1.0).fit(ds.X[small.labeled], ds.y[small.labeled])
    for n, split in ((1000, small), (40_000, large)):
        expected = metrics.ranking_score("ordinal", ds.y[split.evaluation],
                                         model.decision_function(ds.X[split.evaluation]), 5)
        assert table.loc[n, "auc"] == np.float64(expected).item()
    assert table.loc[1000, "auc"] != table.loc[40_000, "auc"]

    # the limit would refuse 40,200 training rows: the guard sized it on its 200
    svorex = solvers.info("svorex").cls()
    assert svorex.fit_memory_bytes(40_200, 4) > 1 << 30 > svorex.fit_memory_bytes(200, 4)


def test_one_fit_serves_every_unlabeled_budget_and_resume_stays_exact(
        test_solvers, write_config, cli, fit_log: Path, tmp_path: Path) -> None:
    config = write_config({
        "datasets": ["breast_cancer"], "tuning": {"folds": 3},
        "resampling": {"n_labeled": [30], "n_unlabeled": [20, 100, 300], "repeats": 2},
        "solvers": {"labeled_ranker": {"grid": {"sigma": [0.5, 2]}},
                    "mean_ranker": {"grid": {"sigma": [0.5, 2]}}}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    fits = read_fit_log(fit_log)
    supervised = [f for f in fits if f["name"] == "LabeledRanker"]
    semi = [f for f in fits if f["name"] == "MeanRanker"]
    # tuned once per repetition (2 points x 3 folds) and fitted once: 7 fits per repetition
    assert len(supervised) == 2 * 7
    assert len(semi) == 2 * 3 * 7  # the semi-supervised solver fits each budget on its own
    assert {f["n_rows"] for f in supervised if f["n_rows"] == 30} == {30}
    assert max(f["n_rows"] for f in supervised) == 30  # never an unlabeled row
    table = _table(out)
    mine = table[table["solver"] == "labeled_ranker"]
    assert len(mine) == 6 and (mine["status"] == "ok").all()
    assert mine["shared_fit"].all() and not table[table["solver"] == "mean_ranker"][
        "shared_fit"].any()
    per_rep = mine.groupby("repetition")
    assert (per_rep["fit_time_s"].nunique() == 1).all()
    assert (per_rep["p_sigma"].nunique() == 1).all()
    assert (per_rep["fit_key"].nunique() == 1).all()
    assert sorted(mine["n_unlabeled"].unique()) == [20, 100, 300]

    # drop one of the shared rows: the dry run misses exactly that cell, the run refits once
    # and writes that row alone
    lost = mine[(mine["repetition"] == 0) & (mine["n_unlabeled"] == 100)]["key"].item()
    kept = table[table["key"] != lost]
    kept.to_csv(out / "results.csv", index=False)
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0
    assert [line.split()[1] for line in stdout.splitlines() if line.startswith("missing")] == [lost]
    fit_log.write_text("")
    assert cli("run", config, "--out", out)[0] == 0
    assert len([f for f in read_fit_log(fit_log) if f["name"] == "LabeledRanker"]) == 7
    again = _table(out)
    assert len(again) == len(table)
    new = again.set_index("key").loc[lost]
    old = table.set_index("key").loc[lost]
    assert new["auc"] == old["auc"] and new["p_sigma"] == old["p_sigma"]


def test_rows_of_older_code_are_kept_and_shown_until_rerun_older(
        test_solvers, write_config, cli, tmp_path: Path) -> None:
    config = write_config({"datasets": ["breast_cancer"],
                           "resampling": {"n_labeled": [30], "n_unlabeled": [20], "repeats": 2},
                           "solvers": {"mean_ranker": None}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    table = _table(out)
    table.loc[0, "git_sha"] = "0123456789ab"
    table.loc[1, "ordauc_version"] = "0.0.1"
    table.to_csv(out / "results.csv", index=False)
    old_key, other_key = table.loc[0, "key"], table.loc[1, "key"]

    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0
    lines = stdout.splitlines()
    assert any(line.startswith("done (older code)") and other_key in line
               and "ordauc 0.0.1" in line for line in lines)
    assert "2 cells: 2 done (older code);" in stdout
    # a plain run keeps them (never mixes silently: the dry run said so), --rerun-older redoes
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0 and "(0 run now)" in stderr
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run", "--rerun-older")
    assert sum(line.startswith("stale") for line in stdout.splitlines()) == 2
    code, _, stderr = cli("run", config, "--out", out, "--rerun-older")
    assert code == 0 and "(2 run now)" in stderr
    redone = _table(out).set_index("key")
    assert redone.loc[old_key, "git_sha"] != "0123456789ab"
    assert redone.loc[other_key, "ordauc_version"] != "0.0.1"
