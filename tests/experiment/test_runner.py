"""`ordauc run` in-process: statuses, resume, stale rows, dry runs, the table's columns."""

from __future__ import annotations

import csv
import fcntl
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from runner_solvers import read_fit_log
from study_helpers import STUDY, snapshot

from ordauc.results.frame import load_results


def repeats(n: int, **resampling: object) -> dict:
    """STUDY's resampling with ``n`` repetitions (and any other resampling keys changed)."""
    return {"resampling": {**STUDY["resampling"], "repeats": n, **resampling}}


def read_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "results.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def by_key(out: Path) -> dict[str, dict[str, str]]:
    rows = read_rows(out)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)), "a key is listed twice"
    return {r["key"]: r for r in rows}


def test_failed_cells_are_recorded_and_the_others_go_on(test_solvers, write_config, cli,
                                                        tmp_path: Path) -> None:
    config = write_config({**STUDY, "timeout": 1, "solvers": {
        "mean_ranker": {"grid": {"sigma": [0.5, 2]}},
        "failing_ranker": None,
        "too_big_ranker": None,
        "sleepy": {"solver": "slow_ranker", "params": {"delay": 60}},
        "crashing_ranker": None}})
    out = tmp_path / "out"
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 1
    assert stderr.strip().splitlines()[-1] == (
        f"5 cells: 1 ok, 1 skipped, 2 error, 1 timeout (5 run now); results in {out}")
    rows = {r["solver"]: r for r in read_rows(out)}
    assert rows["mean_ranker"]["status"] == "ok" and float(rows["mean_ranker"]["auc"]) > 0.8
    failing = rows["failing_ranker"]
    assert failing["status"] == "error" and failing["auc"] == ""
    assert failing["message"].startswith("ValueError (at runner_solvers.py:")
    assert failing["message"].endswith("deliberate failure in fit")
    assert rows["too_big_ranker"]["status"] == "skipped"
    assert rows["too_big_ranker"]["message"] == "needs 99 GB of memory, above max_memory_gb = 1"
    assert rows["sleepy"]["status"] == "timeout"
    assert rows["sleepy"]["message"] == "killed after the 1 s timeout"
    assert 1.0 <= float(rows["sleepy"]["wall_time_s"]) < 5.0  # hard: the 60 s sleep is cut
    assert rows["crashing_ranker"]["status"] == "error"
    assert "killed by SIGKILL" in rows["crashing_ranker"]["message"]
    for row in rows.values():  # failed rows still say which cell they are
        assert (row["n_labeled"], row["n_unlabeled"], row["n_test"]) == ("30", "20", "142")
    assert len(pd.read_parquet(out / "results.parquet")) == 5
    assert set(load_results(out)["status"]) == {"ok", "skipped", "error", "timeout"}


def test_rerun_skips_done_cells_and_retries_failed_ones(test_solvers, write_config, cli,
                                                       fit_log: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    config = write_config({**STUDY, **repeats(2), "solvers": {
        "mean_ranker": {"grid": {"sigma": [0.5, 2]}}, "failing_ranker": None,
        "too_big_ranker": None}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 1
    first = by_key(out)
    fits = len(read_fit_log(fit_log))
    assert fits == 2 * (2 * 3 + 1)  # 2 repetitions x (2 grid points x 3 folds + the refit)

    code, _, stderr = cli("run", config, "--out", out)
    assert code == 1 and "(2 run now)" in stderr  # only the two failed cells
    second = by_key(out)
    assert len(read_fit_log(fit_log)) == fits  # no done cell was fitted again
    for key, row in first.items():
        if row["status"] != "error":
            assert second[key] == row  # same row, same started_at

    # The bug is fixed: the failed cells now succeed and replace their error rows.
    monkeypatch.setitem(__import__("ordauc.solvers").solvers._REGISTRY, "failing_ranker",
                        "runner_solvers:MeanRanker")
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0 and "6 cells: 4 ok, 2 skipped (2 run now)" in stderr
    third = by_key(out)
    assert len(third) == 6 and {r["status"] for r in third.values()} == {"ok", "skipped"}


def test_changed_settings_and_force_run_cells_again(test_solvers, write_config, cli,
                                                    fit_log: Path, tmp_path: Path) -> None:
    study = {**STUDY, "solvers": {"mean_ranker": None, "fast": {"solver": "mean_ranker"}}}
    out = tmp_path / "out"
    cli("run", write_config(study), "--out", out)
    assert len(read_fit_log(fit_log)) == 2
    study["solvers"]["fast"] = {"solver": "mean_ranker", "params": {"lam": 3}}
    config = write_config(study)
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert "stale    breast_cancer/fast/r0/l30/u20" in stdout
    assert "done     breast_cancer/mean_ranker/r0/l30/u20" in stdout
    cli("run", config, "--out", out)
    assert len(read_fit_log(fit_log)) == 3 and by_key(out)["breast_cancer/fast/r0/l30/u20"][
        "p_lam"] == "3"
    code, _, stderr = cli("run", config, "--out", out, "--force")
    assert code == 0 and "(2 run now)" in stderr and len(read_fit_log(fit_log)) == 5
    assert len(by_key(out)) == 2


def test_dry_run_lists_cells_and_writes_nothing(test_solvers, write_config, cli,
                                                tmp_path: Path) -> None:
    config = write_config({**STUDY, "datasets": ["breast_cancer", "diabetes"], "solvers": {
        "mean_ranker": None, "binary_ranker": None, "failing_ranker": None}})
    out = tmp_path / "out"
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0 and not out.exists()
    assert "missing  diabetes/mean_ranker/r0/l30/u20" in stdout
    assert "n/a      diabetes x binary_ranker  (diabetes is ordinal; binary_ranker solves binary)" \
        in stdout
    assert stdout.strip().splitlines()[-1].startswith(
        "5 cells: 5 missing; 1 dataset-solver pair(s) not applicable; nothing written")
    cli("run", config, "--out", out)
    before = snapshot(out)
    assert "logs/breast_cancer_failing_ranker_r0_l30_u20.log" in before
    assert (out / "config.yaml").read_text(encoding="utf-8") == config.read_text(encoding="utf-8")
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0 and snapshot(out) == before
    assert "failed   breast_cancer/failing_ranker/r0/l30/u20  (error: ValueError" in stdout
    assert "5 cells: 3 done, 2 failed;" in stdout


def test_a_half_written_last_line_is_cut_off_on_resume(test_solvers, write_config, cli,
                                                       tmp_path: Path) -> None:
    out = tmp_path / "out"
    study = {**STUDY, "solvers": {"mean_ranker": None}}
    cli("run", write_config(study), "--out", out)
    with open(out / "results.csv", "ab") as handle:  # a kill in the middle of a write
        handle.write(b"breast_cancer/mean_ranker/r1/l30/u20,breast_cancer,mean_ra")
    code, _, stderr = cli("run", write_config({**study, **repeats(3)}), "--out", out)
    assert code == 0 and "(2 run now)" in stderr
    assert (out / "results.csv").read_bytes().endswith(b"\n")
    rows = by_key(out)
    assert sorted(rows) == [f"breast_cancer/mean_ranker/r{r}/l30/u20" for r in range(3)]
    assert all(r["status"] == "ok" and r["task"] == "binary" for r in rows.values())


def test_new_params_widen_the_header_and_keep_the_rows(test_solvers, write_config, cli,
                                                       tmp_path: Path) -> None:
    # Every parameter of every planned solver has a column: rank_only has lam only, so adding
    # mean_ranker (lam, sigma, gamma, delay, random_state) widens the header.
    out = tmp_path / "out"
    study = {**STUDY, "solvers": {"rank_only": None}}
    cli("run", write_config(study), "--out", out)
    first = by_key(out)
    assert [c for c in next(iter(first.values())) if c.startswith("p_")] == ["p_lam"]
    study["solvers"]["mean_ranker"] = {"grid": {"sigma": [1, 2]}}
    code, _, stderr = cli("run", write_config(study), "--out", out)
    assert code == 0 and "(1 run now)" in stderr
    rows = by_key(out)
    new = rows["breast_cancer/mean_ranker/r0/l30/u20"]
    assert len(rows) == 2 and new["p_delay"] == "0.0" and new["p_lam"] == "1.0"
    assert new["p_random_state"] == new["solver_seed"]  # the seed the cell gave the solver
    old = rows["breast_cancer/rank_only/r0/l30/u20"]
    added = {"p_delay": "", "p_gamma": "", "p_random_state": "", "p_sigma": ""}
    assert old == {**first["breast_cancer/rank_only/r0/l30/u20"], **added}
    header = list(old)
    params = [c for c in header if c.startswith("p_")]
    assert params == ["p_delay", "p_gamma", "p_lam", "p_random_state", "p_sigma"]
    assert header.index("p_sigma") < header.index("split_seed")
    assert len(pd.read_parquet(out / "results.parquet")) == 2


def test_all_solvers_of_a_cell_see_the_same_split(test_solvers, write_config, cli,
                                                  fit_log: Path, tmp_path: Path) -> None:
    config = write_config({**STUDY, **repeats(2), "solvers": {
        "mean_ranker": None, "fast": {"solver": "mean_ranker", "params": {"lam": 2}},
        "slow_ranker": {"params": {"delay": 0.0}}}})
    cli("run", config, "--out", tmp_path / "out")
    rows = by_key(tmp_path / "out")
    refits = read_fit_log(fit_log)
    assert len(refits) == 6 and all(f["n_rows"] == 50 for f in refits)
    for repetition in ("0", "1"):
        cells = [r for r in rows.values() if r["repetition"] == repetition]
        assert len({r["split_seed"] for r in cells}) == 1
        states = {r["solver_seed"] for r in cells}
        assert {f["random_state"] for f in refits} >= states  # each fit got its cell's seed
    digests = {f["digest"] for f in refits}
    assert len(digests) == 2  # one training set per repetition, shared by the three solvers


def test_columns_metrics_and_transductive_evaluation(test_solvers, write_config, cli,
                                                     tmp_path: Path) -> None:
    config = write_config({**STUDY, **repeats(1, sampling="stratified"),
                           "datasets": ["breast_cancer", "diabetes"], "evaluate": "unlabeled",
                           "solvers": {"mean_ranker": {"grid": {"sigma": [0.5, 2]}},
                                       "rank_only": None}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    table = pd.read_csv(out / "results.csv").set_index("key")
    expected = ["dataset", "solver", "solver_name", "task", "resampling", "repetition",
                "n_labeled", "n_unlabeled", "n_test", "eval_set", "status", "message", "auc",
                "c_index", "mze", "mae", "amae", "mmae", "gm", "ms", "spearman", "tau", "wkappa",
                "fit_time_s", "predict_time_s", "cv_time_s", "wall_time_s", "peak_rss_mb",
                "fit_key", "shared_fit", "fit_time_basis", "tuning", "cv_metric", "cv_score",
                "cv_failed",
                "cv_message", "n_iter", "warnings", "profile", "thresholds",
                "p_delay", "p_gamma", "p_lam", "p_random_state", "p_sigma", "split_seed",
                "solver_seed", "config_hash", "ordauc_version", "git_sha", "python", "numpy",
                "platform", "machine_memory_gb", "started_at"]
    assert list(table.columns) == expected
    binary = table.loc["breast_cancer/mean_ranker/r0/l30/u20"]
    ordinal = table.loc["diabetes/mean_ranker/r0/l30/u20"]
    assert binary["auc"] == binary["c_index"] and binary["mze"] == binary["mae"]
    assert ordinal["task"] == "ordinal" and ordinal["auc"] != ordinal["c_index"]
    assert ordinal["mae"] >= ordinal["mze"] > 0
    assert (table["eval_set"] == "unlabeled").all() and (table["n_test"] == 20).all()
    assert binary["p_sigma"] in (0.5, 2.0) and binary["cv_score"] > 0.5
    assert binary["cv_time_s"] > 0 and binary["fit_time_s"] > 0
    assert (binary["tuning"], binary["cv_metric"], binary["cv_failed"]) == ("cv", "auc", 0)
    assert (table["resampling"] == "budget").all() and (table["repetition"] == 0).all()
    rank_only = table.loc["diabetes/rank_only/r0/l30/u20"]
    assert np.isnan(rank_only["mze"]) and np.isnan(rank_only["amae"])  # no predict
    assert np.isnan(rank_only["cv_score"]) and rank_only["tuning"] == "none"  # nothing to tune
    assert rank_only["solver_name"] == "rank_only" and rank_only["p_lam"] == 1.0


def test_a_second_concurrent_run_is_refused(test_solvers, write_config, cli,
                                            tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        code, _, stderr = cli("run", write_config({**STUDY, "solvers": {"mean_ranker": None}}),
                              "--out", out)
    assert code == 2 and "another `ordauc run` is writing to" in stderr
    # nothing written by the refused run: not its table, nor its study record or config copy
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


def test_dry_run_plans_datasets_not_fetched_yet_and_run_refuses_them(
        test_solvers, write_config, cli, tmp_path: Path) -> None:
    config = write_config({**STUDY, "datasets": ["breast_cancer", "codrna"],
                           "solvers": {"mean_ranker": None}})
    out, cache = tmp_path / "out", tmp_path / "empty-cache"
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run", "--data-dir", cache)
    assert code == 0 and not out.exists() and not cache.exists()
    assert "missing  codrna/mean_ranker/r0/l30/u20  (needs `ordauc fetch codrna`)" in stdout
    assert "missing  breast_cancer/mean_ranker/r0/l30/u20\n" in stdout
    assert stdout.strip().splitlines()[-1].startswith("not fetched yet: codrna; `ordauc fetch "
                                                      "codrna` gets them")
    code, _, stderr = cli("run", config, "--out", out, "--data-dir", cache)
    assert code == 2 and not out.exists()
    assert "dataset(s) codrna are not fetched yet; run `ordauc fetch codrna` first" in stderr


def test_missing_data_skip_records_their_cells_and_a_later_run_fills_them(
        test_solvers, write_config, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc import data

    config = write_config({**STUDY, "datasets": ["breast_cancer", "diabetes"],
                           "solvers": {"mean_ranker": None}})
    out = tmp_path / "out"
    prepared = data.is_prepared
    monkeypatch.setattr(data, "is_prepared", lambda name, data_dir=None: (
        name != "breast_cancer" and prepared(name, data_dir)))
    code, _, stderr = cli("run", config, "--out", out, "--missing-data", "skip")
    assert code == 0, stderr
    assert "dataset(s) breast_cancer not fetched: their cells are recorded as skipped" in stderr
    table = pd.read_csv(out / "results.csv").set_index("dataset")
    skipped = table.loc["breast_cancer"]
    assert skipped["status"] == "skipped" and pd.isna(skipped["auc"])
    assert skipped["message"] == ("dataset breast_cancer is not fetched: `ordauc fetch "
                                  "breast_cancer` gets it, and the next run fills this cell")
    assert table.loc["diabetes", "status"] == "ok"
    # still not fetched: kept as skipped, nothing run
    assert cli("run", config, "--out", out, "--missing-data", "skip")[2].count("0 run now")
    monkeypatch.setattr(data, "is_prepared", prepared)  # fetched now: the same run fills it
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0, stderr
    rows = pd.read_csv(out / "results.csv").drop_duplicates("key", keep="last")
    assert (rows["status"] == "ok").all() and len(rows) == 2
    code, _, stderr = cli("run", config, "--out", out, "--missing-data", "sometimes")
    assert code == 2 and "--missing-data must be one of refuse, skip, got 'sometimes'" in stderr


def test_official_test_split_and_data_dir_reach_the_cell(test_solvers, write_config, cli,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc import data
    from ordauc.data import builtin
    from ordauc.data.dataset import Dataset

    def with_test(n: int = 120) -> Dataset:
        rng = np.random.default_rng(0)
        X = rng.random((n + 40, 3), dtype=np.float32)
        y = (X[:, 0] > 0.5).astype(np.int64)
        return Dataset("with_test", X[:n], y[:n], "binary", 2, X_test=X[n:], y_test=y[n:])

    monkeypatch.setitem(builtin.BUILTIN, "with_test", builtin.builtin_entry(
        "with_test", with_test, task="binary", n=120, d=3, n_classes=2, origin="test",
        licence="none"))
    seen = tmp_path / "data_dirs.txt"
    real_load = data.load

    def load(name: str, data_dir: str | None = None, **params: object) -> Dataset:
        with open(seen, "a", encoding="utf-8") as handle:  # the forked cell writes here too
            handle.write(f"{data_dir}\n")
        return real_load(name, data_dir, **params)

    monkeypatch.setattr(data, "load", load)
    config = write_config({"datasets": ["with_test"], "resampling": {"n_labeled": [20]},
                           "solvers": {"mean_ranker": None}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out, "--data-dir", tmp_path / "cache")[0] == 0
    row = read_rows(out)[0]
    assert (row["status"], row["n_test"], row["n_unlabeled"], row["eval_set"]) == (
        "ok", "40", "100", "test")  # nothing held out: all 120 rows train
    assert seen.read_text().split() == [str(tmp_path / "cache")] * 2  # pre-flight, then cell


def test_an_output_path_that_is_a_file_is_refused(test_solvers, write_config, cli,
                                                  tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("not a folder")
    code, _, stderr = cli("run", write_config({**STUDY, "solvers": {"mean_ranker": None}}),
                          "--out", target)
    assert code == 2 and "is a file" in stderr and target.read_text() == "not a folder"


def test_peak_memory_of_the_fit_is_measured(test_solvers, write_config, cli,
                                            tmp_path: Path) -> None:
    # Both cells fork from the same worker, so the difference of their peaks is the block.
    block = 600
    config = write_config({**STUDY, "solvers": {
        "mean_ranker": None, "block_ranker": {"params": {"block_mb": block}}}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    peaks = pd.read_csv(out / "results.csv").set_index("solver")["peak_rss_mb"]
    assert peaks["mean_ranker"] > 0
    assert abs((peaks["block_ranker"] - peaks["mean_ranker"]) - block) < 0.2 * block
