"""The NPSVOR paper's tables and statistics: mean ± std tables with the best in bold and average
ranks, Wilcoxon wins/draws/losses, Friedman with Nemenyi and Wilcoxon-Holm, CD diagrams."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as ss
from stats_reference import brute_force_p

from ordauc.errors import UserError
from ordauc.metrics import METRICS
from ordauc.report import stats
from ordauc.report.cd import draw_cd
from ordauc.report.table_render import to_csv, to_latex, to_markdown
from ordauc.report.tables import metric_table
from ordauc.report.write import write_report, write_table

# Demšar (2006), Table 5(a): critical values of the two-tailed Nemenyi test at alpha = 0.05.
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102,
              10: 3.164}


def _results(cells: dict[tuple[str, str], list], metric: str = "mze") -> pd.DataFrame:
    """One row per repetition of each (dataset, solver) cell; a value that is a string is the
    status of a run that did not finish."""
    rows = []
    for (dataset, solver), values in cells.items():
        for rep, value in enumerate(values):
            failed = isinstance(value, str)
            rows.append({"dataset": dataset, "solver": solver, "solver_name": solver,
                         "repetition": rep, "n_labeled": 50, "n_unlabeled": 0,
                         "status": value if failed else "ok",
                         metric: np.nan if failed else float(value)})
    return pd.DataFrame(rows)


def _constant(matrix: dict[str, list[float]], methods: str, metric: str = "mze",
              reps: int = 3) -> pd.DataFrame:
    """Every repetition of a cell has the same value: the cell means are ``matrix``."""
    return _results({(d, m): [v] * reps for d, row in matrix.items()
                     for m, v in zip(methods, row, strict=True)}, metric)


HAND = {("d1", "A"): [0.1, 0.2, 0.3, 0.4], ("d1", "B"): [0.2, 0.2, 0.2, 0.2],
        ("d1", "C"): [0.3, 0.3, 0.4, 0.4],
        ("d2", "A"): [0.5] * 4, ("d2", "B"): [0.45] * 4, ("d2", "C"): [0.4] * 4}


def test_mean_std_and_best_lowest_for_an_error_metric():
    assert METRICS["mze"].lower_is_better
    table = metric_table(_results(HAND), "mze")
    assert table.problems == ["d1", "d2"] and table.methods == ["A", "B", "C"]
    assert table.mean.loc["d1"].tolist() == pytest.approx([0.25, 0.2, 0.35])
    # sample standard deviation (n - 1): sqrt(sum of squared deviations / 3)
    assert table.std.loc["d1", "A"] == pytest.approx(math.sqrt((0.15**2 + 0.05**2) * 2 / 3))
    assert table.std.loc["d1", "B"] == pytest.approx(0.0)
    assert table.std.loc["d1", "C"] == pytest.approx(math.sqrt(4 * 0.05**2 / 3))
    assert table.best.loc["d1"].tolist() == [False, True, False]
    assert table.best.loc["d2"].tolist() == [False, False, True]
    assert table.average_ranks.tolist() == pytest.approx([2.5, 1.5, 2.0])


def test_best_highest_for_a_metric_where_higher_is_better():
    assert not METRICS["gm"].lower_is_better
    table = metric_table(_results(HAND, "gm"), "gm")
    assert table.best.loc["d1"].tolist() == [False, False, True]
    assert table.best.loc["d2"].tolist() == [True, False, False]
    assert table.average_ranks.tolist() == pytest.approx([1.5, 2.5, 2.0])


def test_average_ranks_share_ties_and_ties_for_best_are_all_bold():
    table = metric_table(_constant({"d1": [0.1, 0.2, 0.3], "d2": [0.1, 0.1, 0.3],
                                    "d3": [0.3, 0.3, 0.1]}, "ABC"), "mze")
    assert table.ranks.loc["d2"].tolist() == [1.5, 1.5, 3.0]
    assert table.ranks.loc["d3"].tolist() == [2.5, 2.5, 1.0]
    # A: (1 + 1.5 + 2.5) / 3, B: (2 + 1.5 + 2.5) / 3, C: (3 + 3 + 1) / 3
    assert table.average_ranks.tolist() == pytest.approx([5 / 3, 2.0, 7 / 3])
    assert table.best.loc["d2"].tolist() == [True, True, False]
    assert "| Average rank | **1.67** | 2.00 | 2.33 |" in to_markdown(table)


def test_failed_runs_are_counted_shown_and_kept_out_of_best_and_ranks():
    cells = {("d1", "A"): [0.3] * 4, ("d1", "B"): [0.1, "timeout", "timeout", "timeout"],
             ("d1", "C"): ["error"] * 4,
             ("d2", "A"): [0.3] * 4, ("d2", "B"): [0.2] * 4, ("d2", "C"): [0.4] * 4}
    results = _results(cells)
    only_auc = results[results["solver"] == "A"].assign(solver="R", solver_name="R", mze=np.nan)
    table = metric_table(pd.concat([results, only_auc], ignore_index=True), "mze")
    assert table.methods == ["A", "B", "C"]  # C never finished on d1 but keeps its column
    assert table.n_runs.loc["d1"].tolist() == [4, 4, 4]
    assert table.n_ok.loc["d1"].tolist() == [4, 1, 0]
    assert table.notes.loc["d1", "B"] == "1/4 ok; 3 timeout"
    assert table.notes.loc["d1", "C"] == "0/4 ok; 4 error"
    assert table.mean.loc["d1", "B"] == pytest.approx(0.1)
    assert table.best.loc["d1"].tolist() == [True, False, False]  # B's 1 run does not count
    assert table.ranked_problems == ["d2"] and table.unranked_problems == ["d1"]
    assert table.average_ranks.tolist() == pytest.approx([2.0, 1.0, 3.0])
    assert any(d.startswith("R: no MZE") for d in table.dropped)
    md = to_markdown(table)
    assert "0.100 (1/4 ok; 3 timeout)" in md and "– (0/4 ok; 4 error)" in md
    assert "left out: d1" in md and "R: no MZE" in md
    assert "(1/4 ok; 3 timeout)" in to_latex(table)
    frame = pd.read_csv(pd.io.common.StringIO(to_csv(table)))
    assert frame.loc[(frame["dataset"] == "d1") & (frame["method"] == "C"),
                     ["n_runs", "n_ok"]].to_numpy().tolist() == [[4, 0]]


def test_a_dataset_run_at_several_sizes_gets_one_row_per_size():
    results = _results({("d1", "A"): [0.1, 0.2], ("d1", "B"): [0.2, 0.3]})
    bigger = results.assign(n_labeled=100)
    table = metric_table(pd.concat([bigger, results], ignore_index=True), "mze")
    assert table.problems == ["d1 [n_l=50, n_u=0]", "d1 [n_l=100, n_u=0]"]


def test_k_fold_folds_of_unequal_size_are_one_row():
    results = _results({("d1", "A"): [0.1, 0.2, 0.3], ("d1", "B"): [0.2, 0.3, 0.4]})
    folds = results.assign(n_labeled=results["repetition"].map({0: 994, 1: 995, 2: 994}))
    table = metric_table(folds, "mze")
    assert table.problems == ["d1"]
    assert table.mean.loc["d1", "A"] == pytest.approx(0.2) and table.n_runs.loc["d1", "A"] == 3


def test_markdown_latex_and_csv_mark_the_best():
    table = metric_table(_results(HAND), "mze")
    md = to_markdown(table)
    assert "| d1 | 0.250 ± 0.129 | **0.200 ± 0.000** | 0.350 ± 0.058 |" in md
    assert "| d2 | 0.500 ± 0.000 | 0.450 ± 0.000 | **0.400 ± 0.000** |" in md
    tex = to_latex(table)
    assert r"d1 & 0.250 $\pm$ 0.129 & \textbf{0.200 $\pm$ 0.000} & 0.350 $\pm$ 0.058 \\" in tex
    assert tex.count(r"\textbf{") == 3  # two best cells and the best average rank
    frame = pd.read_csv(pd.io.common.StringIO(to_csv(table)))
    best = frame[frame["best"] & (frame["dataset"] != "Average rank")]
    assert best[["dataset", "method"]].to_numpy().tolist() == [["d1", "B"], ["d2", "C"]]


def _wdl_cells() -> dict[tuple[str, str], list[float]]:
    """A is clearly better than B on d1 and d2 and equal on d3; C is worse than A on d1, no
    different on d2 (symmetric noise) and better on d3."""
    rng = np.random.default_rng(3)
    cells = {}
    for d in ("d1", "d2", "d3"):
        base = rng.uniform(0.2, 0.4, 10)
        cells[(d, "A")] = base
        cells[(d, "B")] = base if d == "d3" else base + 0.05 + rng.uniform(0, 0.01, 10)
        cells[(d, "C")] = {"d1": base + 0.1 + rng.uniform(0, 0.01, 10),
                           "d2": base + 0.01 * np.array([1, -1] * 5) * np.arange(1, 11),
                           "d3": base - 0.02 - 0.001 * np.arange(10)}[d]
    return {k: list(v) for k, v in cells.items()}


def test_win_draw_loss_against_scipy_wilcoxon_paired_on_repetition():
    cells = _wdl_cells()
    # Rows in random order: the test must pair on the repetition, not on row order.
    results = _results(cells).sample(frac=1.0, random_state=1)
    wdl = stats.win_draw_loss(metric_table(results, "mze"))
    assert wdl.wins.loc["A", "B"] == 2 and wdl.draws.loc["A", "B"] == 1
    assert wdl.losses.loc["B", "A"] == 2 and wdl.wins.loc["B", "A"] == 0
    assert (wdl.wins.loc["C", "A"], wdl.draws.loc["C", "A"], wdl.losses.loc["C", "A"]) == (1, 1, 1)
    # antisymmetry: A's wins over B are B's losses to A; draws are symmetric
    pd.testing.assert_frame_equal(wdl.wins, wdl.losses.T)
    pd.testing.assert_frame_equal(wdl.draws, wdl.draws.T)
    # A against B: 2 wins, 1 draw; against C: 1 win, 1 draw, 1 loss
    assert wdl.totals.loc["A"].tolist() == [3, 2, 1, 0, 0, 2]  # wins, draws, losses, not
    # compared, undecidable draws (10 pairs can reject), wins - losses
    for test in wdl.tests.itertuples():
        a, b = np.array(cells[(test.dataset, test.method)]), np.array(
            cells[(test.dataset, test.opponent)])
        if np.all(a == b):  # all-zero differences: a draw without an error
            assert (test.p_value, test.outcome) == (1.0, "draw")
            continue
        p = brute_force_p(a - b)  # the exact test, every sign flip listed
        assert test.p_value == pytest.approx(p)
        expected = "draw" if p >= 0.05 else ("win" if np.median(a - b) < 0 else "loss")
        assert test.outcome == expected


def test_win_draw_loss_follows_the_metric_direction():
    wdl = stats.win_draw_loss(metric_table(_results(_wdl_cells(), "gm"), "gm"))
    assert wdl.wins.loc["B", "A"] == 2 and wdl.losses.loc["A", "B"] == 2


def test_significance_direction_with_a_zero_median_difference():
    a = np.array([-1.0 * i for i in range(1, 11)] + [0.0] * 10 + [0.5])
    b = np.zeros_like(a)
    assert np.median(a - b) == 0
    test = stats.wilcoxon_pair(a, b, lower_is_better=True)
    assert test.p_value == pytest.approx(brute_force_p(a - b)) and test.p_value < 0.05
    assert test.outcome == "win"  # the signed ranks favour a: significantly lower
    assert stats.wilcoxon_pair(a, b, lower_is_better=False).outcome == "loss"


MATRIX = {"d1": [0.10, 0.20, 0.30, 0.40], "d2": [0.15, 0.10, 0.35, 0.30],
          "d3": [0.20, 0.25, 0.20, 0.50], "d4": [0.05, 0.30, 0.25, 0.45],
          "d5": [0.12, 0.11, 0.33, 0.34], "d6": [0.30, 0.31, 0.32, 0.60],
          "d7": [0.21, 0.26, 0.22, 0.24], "d8": [0.08, 0.18, 0.28, 0.38]}


def test_friedman_statistic_and_p_against_scipy():
    result = stats.friedman(metric_table(_constant(MATRIX, "ABCD"), "mze"))
    values = np.array(list(MATRIX.values()))
    expected = ss.friedmanchisquare(*values.T)
    assert (result.n, result.k) == (8, 4)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.p_value == pytest.approx(expected.pvalue)
    ranks = ss.rankdata(values, axis=1).mean(axis=0)
    assert result.average_ranks.tolist() == pytest.approx(ranks.tolist())


def test_nemenyi_critical_difference_matches_demsar_table():
    for k, q in DEMSAR_Q05.items():
        assert stats.nemenyi_q(k) == pytest.approx(q, abs=2e-3)
    assert stats.nemenyi_cd(10, 23) == pytest.approx(3.164 * math.sqrt(10 * 11 / (6 * 23)),
                                                     abs=2e-3)
    result = stats.friedman(metric_table(_constant(MATRIX, "ABCD"), "mze"))
    nemenyi = result.nemenyi
    assert nemenyi.cd == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * 8)), abs=2e-3)
    # a pair differs (Nemenyi p < 0.05) exactly when its average ranks are more than CD apart
    ranks = result.average_ranks
    for a in result.methods:
        for b in result.methods:
            if a != b:
                apart = abs(ranks[a] - ranks[b]) > nemenyi.cd
                assert bool(nemenyi.significant.loc[a, b]) == apart


def test_wilcoxon_holm_against_scipy_with_holm_by_hand():
    result = stats.friedman(metric_table(_constant(MATRIX, "ABCD"), "mze"))
    values = np.array(list(MATRIX.values()))
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    raw = np.array([ss.wilcoxon(values[:, i], values[:, j]).pvalue for i, j in pairs])
    order = np.argsort(raw)
    adjusted = np.empty_like(raw)
    running = 0.0
    for rank, idx in enumerate(order):  # Holm: step-down, (m - rank) p, non-decreasing
        running = max(running, min(1.0, (len(raw) - rank) * raw[idx]))
        adjusted[idx] = running
    got = result.wilcoxon_holm.pvalues.to_numpy()
    assert [got[i, j] for i, j in pairs] == pytest.approx(adjusted.tolist())
    assert (adjusted != raw).any()


def test_cliques_are_maximal_groups_without_a_significant_pair():
    names = ["A", "B", "C", "D"]
    p = pd.DataFrame(1.0, index=names, columns=names)
    for (a, b), value in {("A", "B"): 0.5, ("B", "C"): 0.05, ("A", "C"): 0.01,
                          ("C", "D"): 0.3, ("B", "D"): 0.01, ("A", "D"): 0.001}.items():
        p.loc[a, b] = p.loc[b, a] = value
    ranks = pd.Series([1.0, 2.0, 3.0, 4.0], index=names)
    # p = 0.05 is not below alpha: B and C do not differ
    assert stats.cliques(p, ranks) == [["A", "B"], ["B", "C"], ["C", "D"]]


def test_write_report_writes_every_file_atomically(tmp_path: Path):
    results = _results(_wdl_cells())
    results.loc[results.index[:2], ["status", "mze"]] = ["timeout", np.nan]
    report = write_report(results, tmp_path / "out", metrics=("mze", "auc"))
    names = sorted(p.name for p in report)
    expected = sorted([f"{kind}_mze.{ext}" for kind in ("table", "wdl", "friedman")
                       for ext in ("md", "csv", "tex")] + ["wdl_mze_tests.csv", "summary.md"])
    assert names == expected
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == expected  # no .part left
    assert "Friedman test of MZE" in report.summary and "2 timeout" in report.summary
    assert "No finished run has AUC" in report.summary
    assert (tmp_path / "out" / "summary.md").read_text(encoding="utf-8") == report.summary
    with pytest.raises(UserError, match="unknown metric"):
        write_report(results, tmp_path / "other", metrics=("nope",))
    paths = write_table(metric_table(results, "mze"), tmp_path / "t")
    assert [p.suffix for p in paths] == [".md", ".csv", ".tex"]


def test_results_without_a_repetition_are_refused():
    results = _results(HAND).drop(columns="repetition")
    with pytest.raises(UserError, match="repetition"):
        metric_table(results, "mze")


def test_cd_diagram_is_written_as_png_and_pdf(tmp_path: Path):
    result = stats.friedman(metric_table(_constant(MATRIX, "ABCD"), "mze"))
    paths = draw_cd(result.average_ranks, result.nemenyi.pvalues, tmp_path / "cd" / "mze",
                    cd=result.nemenyi.cd, title="MZE")
    assert [p.name for p in paths] == ["mze.png", "mze.pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths[1].read_bytes()[:5] == b"%PDF-"
    groups = draw_cd({"A": 1.2, "B": 2.0, "C": 3.5}, [["A", "B"]], tmp_path / "groups")
    assert all(p.stat().st_size > 0 for p in groups)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cd", "groups.pdf", "groups.png"]
    with pytest.raises(UserError, match="Z"):
        draw_cd({"A": 1.0, "B": 2.0}, [["A", "Z"]], tmp_path / "bad")


def _with_outside_solvers() -> pd.DataFrame:
    """Registered solvers beside two the registry does not hold: ``rbf`` runs a class given by
    import path, ``mine`` a name nobody registered."""
    cells = {(d, s): [0.1 * (i + 1) + 0.01 * r for r in range(4)]
             for d in ("d1", "d2") for i, s in enumerate(("svorex", "rbf", "mine", "svorim"))}
    results = _results(cells)
    results["solver_name"] = results["solver"].replace({"rbf": "mysolvers:RbfSVC"})
    return results


def test_a_solver_outside_the_registry_has_its_column_in_every_table(tmp_path: Path):
    results = _with_outside_solvers()
    table = metric_table(results, "mze")
    assert table.methods == ["SVOREX", "rbf", "mine", "SVORIM"]  # the config's order
    assert table.mean.loc["d1", "rbf"] == pytest.approx(0.215)
    assert table.average_ranks.tolist() == pytest.approx([1.0, 2.0, 3.0, 4.0])
    assert "| Dataset | SVOREX | rbf | mine | SVORIM |" in to_markdown(table)
    assert " & rbf & mine & " in to_latex(table)
    report = write_report(results, tmp_path / "out", metrics=("mze",))
    assert "4 methods" in report.summary
    wdl = (tmp_path / "out" / "wdl_mze.csv").read_text(encoding="utf-8")
    assert "rbf,mine," in wdl and "mine,rbf," in wdl


def test_a_solver_given_by_import_path_is_named_by_its_metadata(
        monkeypatch: pytest.MonkeyPatch):
    from ordauc.report import load
    from ordauc.solvers import SolverMeta, meta_of

    outside = SolverMeta(display="RBF-SVC", tasks=("ordinal",), uses_unlabeled=False)
    monkeypatch.setattr(load, "meta_of", lambda name: outside if name == "mysolvers:RbfSVC"
                        else meta_of(name))
    table = metric_table(_with_outside_solvers(), "mze")
    assert table.methods == ["SVOREX", "RBF-SVC", "mine", "SVORIM"]


def test_statuses_are_cleaned_once_when_the_results_are_read(tmp_path: Path):
    # The runner writes lower-case statuses; a table edited by hand may not. Every table reads
    # the statuses as load_results cleaned them.
    from ordauc.results.frame import load_results

    results = _results({("d1", "A"): [0.1, 0.2, "timeout"], ("d1", "B"): [0.3, 0.3, 0.3]})
    results["status"] = [" OK", "Ok ", "Timeout", "ok", "OK", None]
    results[["auc", "fit_time_s"]] = [0.8, 1.0]
    results["key"] = [f"run{i}" for i in range(len(results))]
    results.to_csv(tmp_path / "results.csv", index=False)
    table = metric_table(load_results(tmp_path), "mze")
    assert table.n_ok.loc["d1"].tolist() == [2, 2]
    assert table.notes.loc["d1", "A"] == "2/3 ok; 1 timeout"
    assert table.notes.loc["d1", "B"] == "2/3 ok; 1 no status"


def test_tables_follow_the_config_kept_in_the_folder_not_the_finish_order(tmp_path: Path):
    from ordauc.results.frame import load_results
    from ordauc.results.schema import CONFIG_COPY

    # rows in the order cells finished: B and d2 first
    results = _results({("d2", "B"): [0.3, 0.3], ("d2", "A"): [0.2, 0.2],
                        ("d1", "B"): [0.1, 0.2], ("d1", "A"): [0.4, 0.4]})
    results[["auc", "fit_time_s"]] = [0.8, 1.0]
    results["key"] = [f"run{i}" for i in range(len(results))]
    results.to_csv(tmp_path / "results.csv", index=False)
    assert metric_table(load_results(tmp_path), "mze").methods == ["B", "A"]
    (tmp_path / CONFIG_COPY).write_text(
        "datasets: [breast_cancer]\nresampling: {n_labeled: [20]}\n"
        "solvers: {A: {solver: svorex}, B: {solver: svorim}}\n", encoding="utf-8")
    table = metric_table(load_results(tmp_path), "mze")
    assert table.methods == ["A", "B"]  # the config's order; unknown datasets keep theirs
    assert table.problems == ["d2", "d1"]
    # a copy that no longer loads is refused, never silently ignored (the order, the metric
    # and the verdicts would change without a word)
    (tmp_path / CONFIG_COPY).write_text("datasets: [", encoding="utf-8")
    with pytest.raises(UserError, match="does not load here"):
        metric_table(load_results(tmp_path), "mze")
    (tmp_path / CONFIG_COPY).unlink()  # no copy at all: the finish order
    assert metric_table(load_results(tmp_path), "mze").methods == ["B", "A"]


def test_each_solver_reads_its_own_selection_when_a_study_selects_by_several_metrics():
    from ordauc.results.frame import by_selection

    rows = pd.DataFrame({
        "solver": ["np", "np", "np", "np", "own", "own", "fixed"],
        "cv_metric": ["mze", "mae", "mze", "mae", "own", "own", None],
        "mze": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]})
    assert by_selection(rows, "mae")["mze"].tolist() == [0.2, 0.4, 0.5, 0.6, 0.7]
    assert by_selection(rows, "mze")["mze"].tolist() == [0.1, 0.3, 0.5, 0.6, 0.7]
    # a metric no solver selected by: each solver's first selection
    assert by_selection(rows, "auc")["mze"].tolist() == [0.1, 0.3, 0.5, 0.6, 0.7]
