"""Reports that read every study right: a study of binary and ordinal data is ranked per task,
a dataset run at several sizes is one dataset of the ranks, the study's own metrics are the
default, and the critical difference stays on its axis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordauc.report import cd as cd_module
from ordauc.report.load import study_metrics, task_groups
from ordauc.report.tables import metric_table
from ordauc.report.write import write_report
from ordauc.results.schema import CONFIG_COPY


def _rows(cells: dict[tuple[str, str, str, int], list[float]]) -> pd.DataFrame:
    """One ok row per repetition of each (task, dataset, solver, n_unlabeled) cell."""
    rows = []
    for (task, dataset, solver, n_u), values in cells.items():
        for rep, value in enumerate(values):
            rows.append({"dataset": dataset, "solver": solver, "solver_name": solver,
                         "task": task, "repetition": rep, "n_labeled": 50,
                         "n_unlabeled": n_u, "status": "ok", "auc": value,
                         "fit_time_s": 1.0})
    return pd.DataFrame(rows)


def _mixed() -> pd.DataFrame:
    """Binary solvers on two binary sets, ordinal ones on two ordinal sets, SAMULT on all."""
    cells = {}
    for task, datasets, solvers in (("binary", ("b1", "b2"), ("qsg_s2auc", "samult", "svc_rbf")),
                                    ("ordinal", ("o1", "o2"), ("qs3orao", "samult", "m_samult"))):
        for d in datasets:
            for i, s in enumerate(solvers):
                cells[(task, d, s, 100)] = [0.9 - 0.1 * i + 0.01 * r for r in range(3)]
    return _rows(cells)


def test_a_study_of_both_tasks_is_ranked_per_task_and_counts_no_missing_pair(tmp_path: Path):
    results = _mixed()
    report = write_report(results, tmp_path, metrics=("auc",))
    text = report.summary
    assert "# Report over 4 datasets and 5 methods" in text
    assert "All 36 runs finished." in text
    assert "not every run finished" not in text and "did not finish" not in text
    for task in ("binary", "ordinal"):
        assert f"## AUC, {task} datasets" in text
        table = pd.read_csv(tmp_path / f"table_auc_{task}.csv")
        ranks = table[table["dataset"] == "Average rank"].set_index("method")["rank"]
        assert len(ranks) == 3 and ranks.tolist() == [1.0, 2.0, 3.0]  # every set ranked
    binary = pd.read_csv(tmp_path / "table_auc_binary.csv")
    assert set(binary["method"]) == {"QSG-S2AUC", "SAMULT", "SVC-RBF"}
    assert text.count("Friedman test of AUC over N = 2 datasets and k = 3 methods") == 2
    assert not (tmp_path / "table_auc.csv").exists()
    assert [task for task, _ in task_groups(results)] == ["binary", "ordinal"]
    assert task_groups(results[results["task"] == "binary"])[0][0] is None  # one task: whole


def test_a_dataset_run_at_several_sizes_is_one_dataset_ranked_at_its_largest_size():
    cells = {}
    for d in ("d1", "d2"):
        for n_u, order in ((100, ("A", "B", "C")), (200, ("C", "B", "A"))):
            for i, s in enumerate(order):
                cells[("binary", d, s, n_u)] = [0.9 - 0.1 * i, 0.9 - 0.1 * i + 0.01]
    results = _rows(cells)
    table = metric_table(results, "auc")
    assert len(table.problems) == 4 and table.datasets == ["d1", "d2"]
    assert table.ranked_problems == ["d1 [n_l=50, n_u=200]", "d2 [n_l=50, n_u=200]"]
    assert table.average_ranks.to_dict() == {"A": 3.0, "B": 2.0, "C": 1.0}
    # the largest size unfinished for d2: d2 is ranked at the size below, never dropped
    failed = results.index[(results["dataset"] == "d2") & (results["n_unlabeled"] == 200)
                           & (results["solver"] == "A")][0]
    results.loc[failed, ["status", "auc"]] = ["timeout", np.nan]
    table = metric_table(results, "auc")
    assert table.ranked_problems == ["d1 [n_l=50, n_u=200]", "d2 [n_l=50, n_u=100]"]
    assert table.unranked_problems == []


def _folder(tmp_path: Path, tuning: str) -> Path:
    (tmp_path / CONFIG_COPY).write_text(
        "datasets: [breast_cancer]\nresampling: {n_labeled: [20]}\n"
        f"tuning: {tuning}\nsolvers: {{samult: {{grid: {{lam: [1, 2]}}}}, "
        "pnu_auc: {grid: {eta: [0, 1]}, tuning: {metric: own}}}\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("tuning", "expected"), [
    ("{metric: auc}", ("auc",)),
    ("{metric: [mze, mae]}", ("mze", "mae")),
])
def test_the_default_metrics_are_those_the_study_tunes_by(tmp_path: Path, tuning, expected):
    results = _mixed().assign(mze=0.3, mae=0.4)
    assert study_metrics(_folder(tmp_path, tuning), results) == expected


def test_without_its_config_a_folder_shows_what_its_runs_have(tmp_path: Path):
    results = _mixed()
    assert study_metrics(tmp_path, results) == ("auc",)
    assert study_metrics(tmp_path, results.assign(mze=0.3, mae=0.4)) == ("mze", "mae")


@pytest.mark.parametrize(("k", "cd"), [(4, 2.0), (4, 3.317), (3, 5.0)])
def test_the_critical_difference_bar_stays_on_the_rank_axis(tmp_path: Path, monkeypatch, k, cd):
    drawn = {}

    def keep(fig, folder, stem, tight=False):
        drawn["fig"] = fig
        return []

    monkeypatch.setattr(cd_module, "save_figure", keep)
    ranks = {chr(65 + i): 1.0 + i * (k - 1) / (k - 1 or 1) for i in range(k)}
    cd_module.draw_cd(ranks, [list(ranks)], tmp_path / "cd", cd=cd)
    ax = drawn["fig"].axes[0]
    lines = [line for line in ax.get_lines() if np.allclose(line.get_ydata(), 1.6)]
    ends = [float(x) for line in lines for x in line.get_xdata()]
    assert min(ends) == pytest.approx(1.0)
    assert max(ends) <= k + 1e-9  # never past the last rank
    assert max(ends) == pytest.approx(min(1.0 + cd, k))
    left, right = ax.get_xlim()
    assert left <= 1.0 and right >= max(ends)
    words = " ".join(t.get_text() for t in ax.texts)
    assert (f"> {k - 1}" in words) == (1.0 + cd > k)


def test_papers_names_in_tables_and_figures_and_labels_that_would_collide_stay_apart():
    from ordauc.report.figdata import auc_panel
    from ordauc.report.load import display_name

    cells = {("ordinal", d, s, 100): [0.8, 0.81] for d in ("o1", "o2")
             for s in ("svorex", "samult", "SAMULT", "qs3orao_gamma1")}
    results = _rows(cells)
    results["solver_name"] = results["solver"].replace(
        {"SAMULT": "samult", "qs3orao_gamma1": "qs3orao"})
    table = metric_table(results, "auc")
    # the papers' name for a solver under its own name; a configuration keeps its label
    assert table.methods == ["SVOREX", "samult", "SAMULT", "qs3orao_gamma1"]
    panel = auc_panel(results, "o1")
    shown = [display_name(s, panel.names) for s in panel.solvers]
    assert sorted(shown) == sorted(["SVOREX", "samult", "SAMULT", "qs3orao_gamma1"])
