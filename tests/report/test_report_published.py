"""Published tables beside our results: the transcription of AUC-DCD Table 2, the matching of
results to a published table (solvers by registry name, protocols as variants), the numbers of
the comparison, and reports of other studies left unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from study_helpers import published_results as _results

from ordauc.published_tables import AUC_DCD_TABLE2, TABLES, published_values
from ordauc.report.compare import compare_published
from ordauc.report.compare_render import to_csv, to_latex, to_markdown
from ordauc.report.write import write_report

PAPER = REPO.parent / "shared" / "papers" / "004_fb72647950010b93.txt"
METHODS = ("oam_inf", "auc_sdcd", "auc_sdcdperm", "auc_msgd")


def test_table_2_is_the_papers_text() -> None:
    if not PAPER.is_file():
        pytest.skip(f"needs {PAPER} (the shared papers folder beside the repository)")
    text = PAPER.read_text(encoding="utf-8")
    table = text[text.index("Comparison of AUC performances"):text.index("Fig.1")]
    lines = [line.split() for line in table.splitlines() if "±" in line]
    assert len(lines) == 10
    for dataset, *cells in lines:
        for solver, cell in zip(METHODS, cells, strict=True):
            mean, std = re.fullmatch(r"(\d\.\d{4})±(\d\.\d{4})", cell).groups()
            published = AUC_DCD_TABLE2.value(dataset, solver)
            assert (published["mean"], published["std"]) == (float(mean), float(std))
    assert AUC_DCD_TABLE2.datasets == [line[0] for line in lines]


def test_published_values_are_keyed_by_paper_dataset_solver_and_metric() -> None:
    values = published_values()
    assert set(values["table"]) == set(TABLES)
    assert not values.duplicated(["table", "dataset", "solver", "metric"]).any()
    dcd = values[values["table"] == "auc_dcd_table2"]
    assert len(dcd) == 40 and (dcd["metric"] == "auc").all() and (dcd["n_runs"] == 20).all()
    assert AUC_DCD_TABLE2.solvers == list(METHODS)  # the paper's column order
    assert dcd["mean"].between(0.5, 1).all() and dcd["std"].between(0, 0.2).all()


def test_both_protocols_are_compared_with_the_numbers_of_their_runs() -> None:
    runs = {("dna", "auc_sdcd_paper", "auc_sdcd"): [0.95, 0.96, 0.97],
            ("dna", "oam_inf_paper", "oam_inf"): [0.99, 0.98, "timeout"],
            ("dna", "auc_sdcd_cv", "auc_sdcd"): [0.90, 0.92, 0.94],
            ("svmguide3", "auc_sdcd_paper", "auc_sdcd"): [0.70, 0.80],
            ("breast_cancer", "auc_sdcd_paper", "auc_sdcd"): [0.99, 0.98]}
    results = _results(runs, {"auc_sdcd_cv": "cv"})
    paper, cv = compare_published(results)
    assert (paper.variant, paper.tuning, cv.variant, cv.tuning) == ("_paper", "test", "_cv", "cv")
    assert paper.labels == {"auc_sdcd": "auc_sdcd_paper", "oam_inf": "oam_inf_paper"}
    assert paper.key == "published_auc_dcd_table2_paper"
    # datasets in the paper's order, every published solver a column, the rest not run
    assert list(paper.frame["dataset"].unique()) == ["svmguide3", "dna"]
    assert "breast_cancer" not in set(paper.frame["dataset"])
    assert paper.not_run == [d for d in AUC_DCD_TABLE2.datasets if d not in ("svmguide3", "dna")]
    frame = paper.frame.set_index(["dataset", "solver"])
    for (dataset, label, name), values in runs.items():
        if dataset == "breast_cancer" or not label.endswith("_paper"):
            continue
        ok = np.array([v for v in values if not isinstance(v, str)])
        row, published = frame.loc[(dataset, name)], AUC_DCD_TABLE2.value(dataset, name)
        assert (row["n_runs"], row["n_ok"]) == (len(values), ok.size)
        assert row["mean"] == pytest.approx(ok.mean()) and row["std"] == pytest.approx(
            ok.std(ddof=1))
        z = (ok.mean() - published["mean"]) / published["std"]
        assert row["diff_sd"] == pytest.approx(z) and row["within_sd"] == (abs(z) <= 1)
    assert np.isnan(frame.loc[("dna", "auc_msgd"), "mean"])  # not run in this study
    assert cv.frame.set_index(["dataset", "solver"]).loc[("dna", "auc_sdcd"), "mean"] == (
        pytest.approx(0.92))
    assert paper.counts() == (int(frame["within_sd"].sum()), 3)


def test_renderings_mark_the_misses_and_the_unfinished_runs() -> None:
    sdcdperm = AUC_DCD_TABLE2.value("dna", "auc_sdcdperm")
    far = sdcdperm["mean"] - 3 * sdcdperm["std"]
    results = _results({("dna", "auc_sdcdperm", "auc_sdcdperm"): [far, far, "error"],
                        ("dna", "oam_inf", "oam_inf"): [0.989, 0.989]})
    (comparison,) = compare_published(results)
    assert comparison.variant == "" and comparison.key == "published_auc_dcd_table2"
    markdown = to_markdown(comparison)
    rows = {line.split("|")[2].strip(): line for line in markdown.splitlines()
            if line.startswith("|  |") or line.startswith("| dna |")}
    assert rows["Δ / paper std"].count("**") == 2 and "**-3.00**" in rows["Δ / paper std"]
    assert "(2/3 ok)" in rows["ours"] and "not run" in rows["ours"]
    assert f"{sdcdperm['mean']:.4f} ± {sdcdperm['std']:.4f}" in rows["paper"]
    assert "1 of 2 cells within the paper's std" in markdown  # OAMinf at the paper's mean
    assert r"\textbf{-3.00}" in to_latex(comparison)
    frame = pd.read_csv(pd.io.common.StringIO(to_csv(comparison)))
    assert frame["variant"].isna().all() and len(frame) == 4


def test_other_studies_reports_are_unchanged(tmp_path: Path) -> None:
    # the NPSVOR-style study: no published table shares a dataset and a solver with it
    other = _results({("breast_cancer", "auc_sdcd", "auc_sdcd"): [0.9, 0.8],
                      ("dna", "samult", "samult"): [0.9, 0.95],
                      ("dna[positive_class=2]", "auc_sdcd", "auc_sdcd"): [0.9, 0.95]})
    assert compare_published(other) == []
    report = write_report(other, tmp_path / "r", metrics=("auc",))
    assert not any(p.name.startswith("published_") for p in report)
    assert "Table 2" not in report.summary
