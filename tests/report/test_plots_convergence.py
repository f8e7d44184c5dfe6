"""The convergence figure (AUC-DCD Figure 2) from curves.csv: its numbers (mean 1 - AUC, relative
objective against the smallest P(w) of the same problem), lines that carry their own solver's
curve, and the files `ordauc plot` writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordauc.report.convergence import convergence_figure, draw_quantity, line_styles
from ordauc.report.curvedata import ONE_MINUS_AUC, RELATIVE_OBJECTIVE, convergence, read_curves
from ordauc.report.load import display_name
from ordauc.report.plots import plot_results
from ordauc.results.frame import load_results
from ordauc.results.schema import CURVE_COLUMNS

SOLVERS = {"oam_inf_cv": "oam_inf", "auc_sdcd_cv": "auc_sdcd", "auc_msgd_cv": "auc_msgd"}
REPS, ITERATIONS = 3, (100, 200, 300, 400)


def _study(lam: dict[str, float] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Results and curves of one dataset: each solver its own AUC level and objective decay,
    so any mix-up of solvers, repetitions or metrics changes the numbers."""
    rng = np.random.default_rng(3)
    results, curves = [], []
    for s, (label, name) in enumerate(SOLVERS.items()):
        for rep in range(REPS):
            key = f"set/{label}/r{rep}/lall/uall"
            results.append({"key": key, "dataset": "set", "solver": label, "solver_name": name,
                            "repetition": rep, "n_labeled": 90 + rep % 2, "n_unlabeled": 0,
                            "status": "ok", "auc": 0.9, "fit_time_s": 0.1,
                            "p_lam": (lam or {}).get(label, 0.01)})
            for it in ITERATIONS:
                point = {"key": key, "dataset": "set", "solver": label, "repetition": rep,
                         "n_labeled": 90 + rep % 2, "n_unlabeled": 0, "iteration": it,
                         "time_s": it / 1e4}
                curves.append({**point, "metric": "auc",
                               "value": 0.6 + 0.1 * s + 0.05 * rng.random() + it / 1e4})
                curves.append({**point, "metric": "objective",
                               "value": 1.0 + rep + (s + 1) * 100 / it + rng.random() / 10})
    return pd.DataFrame(results), pd.DataFrame(curves)[[*CURVE_COLUMNS]]


def _write(folder: Path, results: pd.DataFrame, curves: pd.DataFrame | None) -> Path:
    folder.mkdir()
    results.to_csv(folder / "results.csv", index=False)
    if curves is not None:
        curves.to_csv(folder / "curves.csv", index=False)
    return folder


def test_mean_one_minus_auc_and_relative_objective_against_the_same_problem() -> None:
    results, curves = _study()
    conv = convergence(curves, results, "set")
    assert conv.quantities == [ONE_MINUS_AUC, RELATIVE_OBJECTIVE] and conv.n_runs == REPS
    assert conv.last == ITERATIONS[-1] and "same lambda, over all solvers" in conv.reference
    objective = curves[curves["metric"] == "objective"]
    for label in SOLVERS:
        mine = curves[curves["solver"] == label]
        auc = mine[mine["metric"] == "auc"].pivot(index="iteration", columns="repetition",
                                                  values="value")
        line = conv.curve(label, ONE_MINUS_AUC)
        np.testing.assert_allclose(line["mean"], 1 - auc.mean(axis=1))
        np.testing.assert_allclose(line["std"], auc.std(axis=1, ddof=1))
        relative = []
        for rep in range(REPS):  # P*: the smallest P over every solver on this fold and lambda
            best = objective.loc[objective["repetition"] == rep, "value"].min()
            own = mine[(mine["metric"] == "objective") & (mine["repetition"] == rep)]
            relative.append((own["value"].to_numpy() - best) / best)
        np.testing.assert_allclose(conv.curve(label, RELATIVE_OBJECTIVE)["mean"],
                                   np.mean(relative, axis=0))
    assert conv.table.loc[conv.table["quantity"] == RELATIVE_OBJECTIVE, "mean"].min() == 0


def test_another_lambda_is_another_problem_and_orphan_curves_are_left_out() -> None:
    results, curves = _study(lam={"auc_msgd_cv": 1.0})
    orphan = curves[curves["solver"] == "auc_sdcd_cv"].assign(key="set/auc_sdcd_cv/r9/x",
                                                               value=1e-9)
    conv = convergence(pd.concat([curves, orphan]), results, "set")
    msgd = curves[(curves["solver"] == "auc_msgd_cv") & (curves["metric"] == "objective")]
    relative = [(g["value"].to_numpy() - g["value"].min()) / g["value"].min()
                for _, g in msgd.groupby("repetition")]  # its own P*: nobody else ran lam = 1
    np.testing.assert_allclose(conv.curve("auc_msgd_cv", RELATIVE_OBJECTIVE)["mean"],
                               np.mean(relative, axis=0))
    assert (conv.curve("auc_sdcd_cv", ONE_MINUS_AUC)["n_runs"] == REPS).all()


def test_without_lambdas_each_run_is_its_own_reference() -> None:
    results, curves = _study()
    conv = convergence(curves, results.drop(columns="p_lam"), "set")
    assert "in the same run" in conv.reference
    for label in SOLVERS:
        mine = curves[(curves["solver"] == label) & (curves["metric"] == "objective")]
        relative = [(g["value"].to_numpy() - g["value"].min()) / g["value"].min()
                    for _, g in mine.groupby("repetition")]
        np.testing.assert_allclose(conv.curve(label, RELATIVE_OBJECTIVE)["mean"],
                                   np.mean(relative, axis=0))


def test_each_line_carries_its_own_solvers_curve() -> None:
    results, curves = _study()
    conv = convergence(curves, results, "set")
    fig = convergence_figure(conv)
    axes = fig.get_axes()
    assert [ax.get_ylabel() for ax in axes] == ["1 - AUC", "(P(w) - P*) / P*"]
    assert axes[1].get_yscale() == "log"
    for ax, quantity in zip(axes, conv.quantities, strict=True):
        lines = ax.get_lines()
        assert [line.get_label() for line in lines] == [display_name(s, conv.names)
                                                        for s in conv.solvers]
        for line, solver in zip(lines, conv.solvers, strict=True):
            expected = conv.curve(solver, quantity)
            np.testing.assert_allclose(line.get_xdata(), expected["iteration"])
            mean = expected["mean"].to_numpy()
            if quantity == RELATIVE_OBJECTIVE:  # the log axis leaves out P* itself
                mean = np.where(mean > 0, mean, np.nan)
            np.testing.assert_allclose(line.get_ydata(), mean)
    legend = [t.get_text() for t in axes[-1].get_legend().get_texts()]
    assert legend == [display_name(s, conv.names) for s in conv.solvers]
    styles = line_styles(conv)
    assert len({(s["color"], s["marker"], s["linestyle"]) for s in styles.values()}) == len(
        SOLVERS)


def test_point_at_the_reference_is_not_drawn_on_the_log_axis() -> None:
    results, curves = _study()
    one = curves[curves["repetition"] == 0]
    conv = convergence(one, results[results["repetition"] == 0], "set")
    from ordauc.report.files import new_figure

    ax = new_figure(4, 3).add_subplot()
    draw_quantity(ax, conv, RELATIVE_OBJECTIVE, line_styles(conv))
    drawn = np.concatenate([line.get_ydata() for line in ax.get_lines()])
    assert np.isnan(drawn).sum() == 1 and np.nanmin(drawn) > 0  # P* itself is 0: left out


def test_plot_writes_the_convergence_figures_only_with_curves(tmp_path: Path) -> None:
    results, curves = _study()
    with_curves = _write(tmp_path / "a", results, curves)
    written = plot_results(with_curves)
    names = {p.name for p in written}
    assert {"convergence_set.png", "convergence_set.pdf"} <= names
    assert all(p.stat().st_size > 5000 for p in written if p.name.startswith("convergence"))
    without = plot_results(_write(tmp_path / "b", results, None))
    assert not any(p.name.startswith("convergence") for p in without)
    assert read_curves(tmp_path / "b") is None
    assert len(load_results(with_curves)) == len(results)


def test_a_malformed_curves_table_is_one_sentence(tmp_path: Path) -> None:
    from ordauc.errors import UserError

    results, curves = _study()
    folder = _write(tmp_path / "c", results, curves.drop(columns="metric"))
    with pytest.raises(UserError, match=r"lacks the column\(s\) metric; it is not a curves"):
        plot_results(folder)
    assert not (folder / "figures").exists()


def test_a_solvers_logged_residuals_are_drawn_and_nothing_else_is_invented(tmp_path: Path
                                                                          ) -> None:
    """Curves holding only an ADMM's residuals (NPSVOR under a study that records curves) are
    drawn as their own log-scale panels; curves of an unknown metric draw no empty figure."""
    results, curves = _study()
    residual = curves[curves["metric"] == "objective"].assign(metric="primal_residual")
    conv = convergence(residual, results, "set")
    assert conv.quantities == ["primal_residual"]
    line = conv.curve(next(iter(SOLVERS)), "primal_residual")
    mine = residual[residual["solver"] == next(iter(SOLVERS))]
    assert np.allclose(line["mean"], mine.groupby("iteration")["value"].mean())
    fig = convergence_figure(conv)
    assert fig.axes[0].get_yscale() == "log"
    written = plot_results(_write(tmp_path / "r", results, residual))
    assert any(p.name == "convergence_set.png" for p in written)
    other = curves[curves["metric"] == "objective"].assign(metric="something_else")
    written = plot_results(_write(tmp_path / "s", results, other))
    assert not any(p.name.startswith("convergence") for p in written)


def test_the_distance_to_an_exact_solution_is_drawn_log_log_beside_c_over_t() -> None:
    """reference_error (curves.reference) reads as a rate: both axes logarithmic, each line the
    mean over its solver's runs, and a C/t guide through the first solver's curve."""
    results, curves = _study()
    error = curves[curves["metric"] == "objective"].assign(metric="reference_error")
    conv = convergence(error, results, "set")
    assert conv.quantities == ["reference_error"]
    ax = convergence_figure(conv).axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    guide = [line for line in ax.get_lines() if line.get_label() == "C/t (Theorem 1)"]
    assert len(guide) == 1
    t, c_over_t = guide[0].get_data()
    first = conv.curve(conv.solvers[0], "reference_error")
    assert np.allclose(np.asarray(t) * np.asarray(c_over_t), first["mean"].iloc[2] * t[2])
    drawn = {line.get_label() for line in ax.get_lines()}
    assert {display_name(s, conv.names) for s in conv.solvers} <= drawn
