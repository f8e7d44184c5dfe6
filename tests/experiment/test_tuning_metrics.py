"""Several selection metrics from one search: `tuning: {metric: [mze, mae]}`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from runner_solvers import read_fit_log

from ordauc.config import parse_config
from ordauc.errors import UserError

STUDY = {"datasets": ["diabetes"], "tuning": {"folds": 3},
         "resampling": {"n_labeled": [80], "n_unlabeled": [40], "repeats": 2,
                        "sampling": "stratified"}}
GRID = {"grid": {"lam": [0.05, 1.0, 20.0], "sigma": [0.2, 5.0]}}


def _table(out: Path) -> pd.DataFrame:
    table = pd.read_csv(out / "results.csv")
    assert table["key"].is_unique
    return table


def test_one_search_gives_one_row_per_selection_metric(test_solvers, write_config, cli,
                                                       fit_log: Path, tmp_path: Path) -> None:
    both = write_config({**STUDY, "tuning": {"folds": 3, "metric": ["mze", "mae"]},
                         "solvers": {"mean_ranker": GRID, "labeled_ranker": GRID,
                                     "fixed": {"solver": "mean_ranker"}}}, "both.yaml")
    out = tmp_path / "both"
    assert cli("run", both, "--out", out)[0] == 0
    searched = read_fit_log(fit_log)
    table = _table(out)
    tuned = table[table["solver"] != "fixed"]
    assert len(tuned) == 2 * 2 * 2  # 2 solvers x 2 repetitions x 2 metrics
    assert sorted(tuned["cv_metric"].unique()) == ["mae", "mze"]
    assert tuned["key"].str.endswith(("/by-mze", "/by-mae")).all()
    fixed = table[table["solver"] == "fixed"]
    assert len(fixed) == 2 and (fixed["cv_metric"].isna()).all()  # nothing to select
    # one search: 6 points x 3 folds per repetition and solver, then one refit per distinct
    # chosen point (two metrics choosing the same point share that fit)
    for label, name, lone in (("mean_ranker", "MeanRanker", 2), ("labeled_ranker",
                                                                 "LabeledRanker", 0)):
        mine = tuned[tuned["solver"] == label]
        refits = mine.groupby("repetition")[["p_lam", "p_sigma"]].apply(
            lambda rows: len(rows.drop_duplicates())).sum()
        assert sum(f["name"] == name for f in searched) == 2 * 6 * 3 + refits + lone, name
        same = mine.groupby("repetition").apply(
            lambda rows: len(rows[["p_lam", "p_sigma"]].drop_duplicates()) == 1)
        for repetition, shared in same.items():
            rows = mine[mine["repetition"] == repetition]
            assert rows["shared_fit"].eq(shared).all()
            assert rows["fit_key"].nunique() == 1 and rows["cv_time_s"].nunique() == 1

    # each row equals the single-metric run of its metric
    for metric in ("mze", "mae"):
        fit_log.write_text("")
        one = write_config({**STUDY, "tuning": {"folds": 3, "metric": metric},
                            "solvers": {"mean_ranker": GRID, "labeled_ranker": GRID}},
                           f"{metric}.yaml")
        assert cli("run", one, "--out", tmp_path / metric)[0] == 0
        single = _table(tmp_path / metric).set_index(["solver", "repetition"])
        mine = tuned[tuned["cv_metric"] == metric].set_index(["solver", "repetition"])
        for column in ("p_lam", "p_sigma", "mze", "mae", "auc", "cv_score"):
            pd.testing.assert_series_equal(mine[column].sort_index(),
                                           single[column].sort_index(), check_names=False)


def test_the_two_metrics_choose_by_their_own_scores(test_solvers, write_config, cli,
                                                    tmp_path: Path) -> None:
    config = write_config({**STUDY, "tuning": {"folds": 3, "metric": ["mze", "mae", "auc"]},
                           "solvers": {"mean_ranker": GRID}})
    assert cli("run", config, "--out", tmp_path / "out")[0] == 0
    table = _table(tmp_path / "out")
    # the cv_score of each row is its own metric's (MZE, MAE in [0, k-1], AUC in [0, 1])
    for metric, low, high in (("mze", 0, 1), ("mae", 0, 4), ("auc", 0.5, 1)):
        scores = table[table["cv_metric"] == metric]["cv_score"]
        assert len(scores) == 2 and scores.between(low, high).all(), metric


@pytest.mark.parametrize(("metric", "words"), [
    (["mze", "mze"], "lists a metric twice"),
    (["own", "auc"], "cannot be combined"),
    ([], "at least one metric"),
])
def test_bad_metric_lists_are_refused(metric, words) -> None:
    raw = {**STUDY, "tuning": {"metric": metric}, "solvers": {"svorex": None}}
    with pytest.raises(UserError, match=words):
        parse_config(raw)


def test_every_grid_point_score_is_recorded_beside_the_choice(test_solvers, write_config, cli,
                                                              tmp_path: Path) -> None:
    config = write_config({**STUDY, "tuning": {"folds": 3, "metric": ["mze", "auc"]},
                           "solvers": {"mean_ranker": GRID}})
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    table = _table(out).set_index("key")
    scores = pd.read_csv(out / "tuning_scores.csv")
    assert len(scores) == len(table) * 6  # six points behind each row
    for key, rows in scores.groupby("key"):
        row = table.loc[key]
        assert set(rows["metric"]) == {row["cv_metric"]}
        best = rows["score"].min() if row["cv_metric"] == "mze" else rows["score"].max()
        assert row["cv_score"] == best
        chosen = rows[(rows["p_lam"] == row["p_lam"]) & (rows["p_sigma"] == row["p_sigma"])]
        assert chosen["score"].item() == row["cv_score"]
    # a rerun of one cell replaces its scores, never appends a second set
    table.drop(index=table.index[0]).reset_index().to_csv(out / "results.csv", index=False)
    assert cli("run", config, "--out", out)[0] == 0
    assert len(pd.read_csv(out / "tuning_scores.csv")) == len(table) * 6
