"""`ordauc plot`: figure files, the numbers they draw, failure marks, and bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordauc.cli import main
from ordauc.report.figdata import auc_panel, time_curves
from ordauc.report.load import display_name, infer_task
from ordauc.report.palette import solver_palette, study_palette
from ordauc.report.plots import draw_auc_panel, draw_time_curves
from ordauc.results.frame import load_results

SIZES = (1000, 2000, 5000)
SEEDS = (0, 1, 2)
ORDINAL = ("svorex", "m_samult", "qs3orao")
BINARY = ("pnu_auc", "samult", "qsg_s2auc")


def _row(dataset: str, solver: str, seed: int, n_u: int, rng: np.random.Generator) -> dict:
    status, message = "ok", ""
    if solver in ("samult", "m_samult") and n_u > 2000:
        status, message = "skipped", "kernel matrix needs 12 GiB, over the memory limit"
    if solver == "pnu_auc" and n_u == 5000 and seed == 0:
        status, message = "timeout", "time limit 60 s"
    ordinal = dataset == "ordi"
    auc = float(rng.uniform(0.6, 0.9)) if status == "ok" else np.nan
    return {
        "key": f"{dataset}/{solver}/{seed}/{n_u}", "dataset": dataset, "solver": solver,
        "seed": seed, "n_labeled": 500 if ordinal else 200, "n_unlabeled": n_u, "n_test": 300,
        "eval_set": "unlabeled" if ordinal else "test", "status": status, "message": message,
        "auc": auc, "c_index": auc - 0.02 if ordinal else auc, "mze": 0.4, "mae": 0.6,
        "fit_time_s": float(rng.uniform(0.5, 2.0)) * n_u / 1000 if status == "ok" else np.nan,
        "predict_time_s": 0.01, "cv_time_s": 0.0, "cv_score": np.nan, "p_lam": 1e-4,
        "split_seed": 7, "solver_seed": 8, "ordauc_version": "0.1.0", "git_sha": "abc",
        "python": "3.11", "numpy": "1.26", "platform": "linux",
        "started_at": "2024-01-01T00:00:00",
    }


def _results(columns_first: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [_row(d, s, seed, n_u, rng)
            for d, solvers in (("ordi", ORDINAL), ("bin", BINARY))
            for s in solvers for seed in SEEDS for n_u in SIZES]
    table = pd.DataFrame(rows)
    # A reordered copy: readers must select columns by name.
    return table[table.columns[::-1]] if columns_first else table


@pytest.fixture()
def results_dir(tmp_path: Path) -> Path:
    _results(columns_first=True).to_csv(tmp_path / "results.csv", index=False)
    return tmp_path


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return int(exit_info.value.code or 0)


def test_plot_writes_every_figure_as_png_and_pdf(results_dir: Path, capsys) -> None:
    assert _run(["plot", str(results_dir)]) == 0
    figures = results_dir / "figures"
    # without a config the study's metrics are MZE and MAE (its runs have them): a boxplot of
    # each per ordinal dataset beside the AUC boxplots (on binary data both are the error rate)
    expected = {f"{kind}_{name}.{ext}" for kind in ("auc", "time") for name in ("ordi", "bin")
                for ext in ("png", "pdf")} | {"auc_all.png", "auc_all.pdf"} | {
        f"{m}_ordi.{ext}" for m in ("mze", "mae") for ext in ("png", "pdf")}
    assert capsys.readouterr().out.splitlines() == [
        f"{len(expected)} figure files in {figures} (list them with -v)"]
    assert {p.name for p in figures.iterdir()} == expected  # no temporary files left
    assert _run(["plot", str(results_dir), "-v"]) == 0
    printed = capsys.readouterr().out.splitlines()[1:]
    assert sorted(printed) == sorted(str(figures / name) for name in expected)
    for path in figures.iterdir():
        head = path.read_bytes()[:8]
        assert head == b"\x89PNG\r\n\x1a\n" if path.suffix == ".png" else head[:5] == b"%PDF-"
        assert path.stat().st_size > 5000


def test_out_option_replaces_old_figures(tmp_path: Path, capsys) -> None:
    directory, out = tmp_path / "res", tmp_path / "elsewhere"
    directory.mkdir()
    out.mkdir()
    results = _results()
    results[results["dataset"] == "bin"].to_csv(directory / "results.csv", index=False)
    (out / "auc_bin.png").write_bytes(b"old")
    assert _run(["plot", str(directory), "--out", str(out), "--n-unlabeled", "1000"]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{stem}.{ext}" for stem in ("auc_bin", "time_bin", "auc_all") for ext in ("png", "pdf"))
    assert (out / "auc_bin.png").read_bytes()[:4] == b"\x89PNG"
    assert not (directory / "figures").exists()


def test_auc_panel_draws_the_seeds_of_the_largest_size() -> None:
    results = _results()
    panel = auc_panel(results, "ordi")
    assert (panel.n_labeled, panel.n_unlabeled) == (500, 5000)
    assert panel.task == "ordinal" and panel.metric_label == "ordinal AUC"
    assert panel.eval_set == "unlabeled"
    assert panel.solvers == ["svorex", "m_samult", "qs3orao"]  # the paper's method last
    cell = results[(results["dataset"] == "ordi") & (results["n_unlabeled"] == 5000)
                   & (results["status"] == "ok")]
    for solver in ("svorex", "qs3orao"):
        expected = np.sort(cell.loc[cell["solver"] == solver, "auc"].to_numpy())
        np.testing.assert_allclose(panel.values[solver], expected)
    summary = panel.summary().set_index("solver")
    medians = cell.groupby("solver")["auc"].median()
    np.testing.assert_allclose(summary.loc["qs3orao", "median"], medians["qs3orao"])
    assert summary.loc["qs3orao", "n_ok"] == len(SEEDS)
    # The skipped solver keeps its slot, empty, with the reason under its name.
    assert panel.values["m_samult"].size == 0
    assert panel.notes["m_samult"] == "3 skipped"


def test_k_fold_folds_of_unequal_size_are_one_boxplot() -> None:
    rows = [{"dataset": "d", "solver": "auc_sdcd", "solver_name": "auc_sdcd", "repetition": r,
             "n_labeled": 994 + r % 2, "n_unlabeled": 0, "status": "ok", "auc": 0.7 + r / 100,
             "fit_time_s": 0.1, "message": ""} for r in range(5)]
    panel = auc_panel(pd.DataFrame(rows), "d")
    np.testing.assert_allclose(panel.values["auc_sdcd"], [0.7, 0.71, 0.72, 0.73, 0.74])
    assert panel.n_labeled == 994  # the most common training size
    curve = time_curves(pd.DataFrame(rows), "d")
    assert curve.table["n_runs"].tolist() == [5]


def test_auc_panel_sizes_on_request() -> None:
    results = _results()
    binary = auc_panel(results, "bin")
    assert binary.task == "binary" and binary.metric_label == "AUC"
    assert binary.notes == {"samult": "3 skipped", "pnu_auc": "1 timeout"}
    assert binary.values["pnu_auc"].size == 2
    complete = auc_panel(results, "bin", complete=True)
    assert complete.n_unlabeled == 2000 and complete.notes == {}
    chosen = auc_panel(results, "bin", n_unlabeled=1000)
    one_k = results[(results["dataset"] == "bin") & (results["n_unlabeled"] == 1000)]
    np.testing.assert_allclose(chosen.values["samult"],
                               np.sort(one_k.loc[one_k["solver"] == "samult", "auc"]))


def test_time_curves_stop_where_runs_fail() -> None:
    results = _results()
    curves = time_curves(results, "bin")
    table = curves.table.set_index(["solver", "n_unlabeled"])
    ok = results[(results["dataset"] == "bin") & (results["status"] == "ok")]
    stats = ok.groupby(["solver", "n_unlabeled"])["fit_time_s"].agg(["mean", "min", "max"])
    for key, row in stats.iterrows():
        np.testing.assert_allclose(table.loc[key, ["mean", "min", "max"]].to_numpy(dtype=float),
                                   row.to_numpy(dtype=float))
    assert not table.loc[("samult", 5000), "drawn"] and table.loc[("samult", 2000), "drawn"]
    assert not table.loc[("pnu_auc", 5000), "drawn"]  # 2 of 3 finished: not a line point
    assert table.loc[("qsg_s2auc", 5000), "drawn"]
    marks = curves.first_failures()
    assert set(marks) == {"samult", "pnu_auc"}
    assert (marks["samult"].size, marks["samult"].last_ok) == (5000, 2000)
    assert marks["samult"].note() == "SAMULT: skipped beyond 2000 (memory)"
    assert marks["pnu_auc"].note() == "PNU-AUC: timeout beyond 2000 (1/3 runs)"


def test_a_method_and_its_wrapper_on_the_same_data_look_different() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(1)
    results = pd.DataFrame([_row("ordi", s, seed, n_u, rng) for s in ("samult", "m_samult")
                            for seed in SEEDS for n_u in (1000, 2000)])
    palette = study_palette(results)
    # one base solver, one colour; the wrapper in its own marker and dash
    assert palette["samult"].colour == palette["m_samult"].colour
    assert palette["samult"].key != palette["m_samult"].key
    fig, (left, right) = plt.subplots(1, 2)
    draw_time_curves(left, time_curves(results, "ordi"), palette)
    lines = {line.get_label(): line for line in left.get_lines()}
    styles = {name: (lines[name].get_linestyle(), lines[name].get_marker())
              for name in ("SAMULT", "M-SAMULT")}
    assert styles["SAMULT"] != styles["M-SAMULT"]
    draw_auc_panel(right, auc_panel(results, "ordi"), palette, "ordi")
    hatches = [patch.get_hatch() for patch in right.patches]
    assert sorted(hatches, key=str) == sorted([None, "///"], key=str)
    plt.close(fig)


def test_failure_from_the_first_size_is_marked() -> None:
    results = _results()
    results.loc[results["solver"] == "m_samult", "status"] = "error"
    results.loc[results["solver"] == "m_samult", "message"] = "singular matrix"
    marks = time_curves(results, "ordi").marks
    assert [(m.solver, m.size, m.last_ok) for m in marks] == [("m_samult", 1000, None)]
    assert marks[0].note() == "M-SAMULT: error from 1000"


def test_task_inference_and_names() -> None:
    rows = pd.DataFrame({"solver": ["foo"], "auc": [0.8], "c_index": [0.8]})
    assert infer_task(rows) == "binary"
    assert infer_task(rows.assign(c_index=0.7)) == "ordinal"
    assert infer_task(rows.assign(task="ordinal")) == "ordinal"
    assert infer_task(rows.assign(solver="qs3orao", c_index=np.nan)) == "ordinal"
    assert display_name("m_pnu_auc") == "M-PNU-AUC" and display_name("my_solver") == "my_solver"
    colours = solver_palette(["qsg_s2auc", "samult", "pnu_auc", "x", "y"]).colours()
    assert colours["qsg_s2auc"] == solver_palette(["npsvor"])["npsvor"].colour  # proposed: red
    assert len(set(colours.values())) == 5


def test_names_base_solvers_and_wrappers_come_from_the_registry_through_solver_name() -> None:
    # Labels are the config's; the registry name in `solver_name` says what ran.
    from ordauc.report.load import base_solver_of, is_wrapper, solver_order
    from ordauc.results.frame import solver_names

    table = pd.DataFrame({"solver": ["fast", "ms", "svorex", "mine"],
                          "solver_name": ["qs3orao", "m_samult", "svorex", "mine"]})
    names = solver_names(table)
    assert display_name("svorex", names) == "SVOREX"
    assert display_name("fast", names) == "fast"  # a second configuration keeps its label
    assert is_wrapper("ms", names) and not is_wrapper("fast", names)
    assert base_solver_of("ms", names) == "samult" and base_solver_of("fast", names) == "qs3orao"
    # baselines in registry order, unknown solvers, the papers' own methods last
    assert solver_order(table["solver"], names) == ["svorex", "ms", "mine", "fast"]
    palette = solver_palette(table["solver"], names)
    assert palette["fast"].colour == solver_palette(["qs3orao"])["qs3orao"].colour
    assert palette["fast"].key != palette.style("qs3orao").key  # a second configuration


def test_unfinished_sizes_are_marked_above_the_time_axis() -> None:
    # A skipped or timed-out size must never sit inside the axes, where it reads as a time.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = _results()
    curves = time_curves(results, "bin")
    assert curves.marks
    fig, ax = plt.subplots()
    draw_time_curves(ax, curves, study_palette(results))
    fig.canvas.draw()
    x_marks = [line for line in ax.get_lines() if line.get_marker() == "x"]
    assert len(x_marks) == len(curves.marks)
    for line in x_marks:
        _, y_axes = ax.transAxes.inverted().transform(
            line.get_transform().transform(np.column_stack(line.get_data()))[0])
        assert y_axes > 1.0
    plt.close(fig)


def _bad(tmp_path: Path, case: str) -> Path:
    directory = tmp_path / "res"
    if case == "missing folder":
        return directory
    directory.mkdir()
    table = _results()
    if case == "no ok rows":
        table["status"] = "skipped"
    elif case == "missing column":
        table = table.drop(columns=["fit_time_s"])
    elif case == "bad size":
        table["n_unlabeled"] = table["n_unlabeled"].astype(object)
        table.loc[3, "n_unlabeled"] = "lots"
    elif case == "empty file":
        (directory / "results.csv").write_text("")
        return directory
    if case != "no results.csv":
        table.to_csv(directory / "results.csv", index=False)
    return directory


@pytest.mark.parametrize("case", ["missing folder", "no results.csv", "no ok rows",
                                  "missing column", "bad size", "empty file"])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, case: str, capsys) -> None:
    directory = _bad(tmp_path, case)
    assert _run(["plot", str(directory)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ordauc: error: ")
    assert not (directory / "figures").exists()


def test_unknown_size_is_refused(results_dir: Path, capsys) -> None:
    assert _run(["plot", str(results_dir), "--n-unlabeled", "123"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "n_unlabeled=123" in err[0] and "1000, 2000, 5000" in err[0]
    assert not (results_dir / "figures").exists()


def test_cli_module_does_not_import_matplotlib() -> None:
    code = "import sys, ordauc.cli.report; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_load_selects_columns_by_name(results_dir: Path) -> None:
    table = load_results(results_dir)
    assert table["n_unlabeled"].dtype == np.int64
    assert set(table["status"]) == {"ok", "skipped", "timeout"}


def _with_outside_solvers() -> pd.DataFrame:
    """Two registered solvers and two the registry does not hold: ``rbf`` runs a class given by
    import path, ``mine`` a name nobody registered."""
    rng = np.random.default_rng(2)
    rows = [_row("bin", s, seed, n_u, rng) for s in ("samult", "qsg_s2auc", "rbf", "mine")
            for seed in SEEDS for n_u in (1000, 2000)]
    table = pd.DataFrame(rows)
    table["solver_name"] = table["solver"].replace({"rbf": "mysolvers:RbfSVC"})
    return table


def test_a_solver_outside_the_registry_is_in_every_figure_under_its_label() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ordauc.results.frame import solver_names

    results = _with_outside_solvers()
    names = solver_names(results)
    panel = auc_panel(results, "bin")
    curves = time_curves(results, "bin")
    for data in (panel, curves):
        assert set(data.solvers) == {"samult", "qsg_s2auc", "rbf", "mine"}
        assert data.solvers[-1] == "qsg_s2auc"  # the paper's method stays last
    assert panel.values["rbf"].size == len(SEEDS) and panel.values["mine"].size == len(SEEDS)
    assert set(curves.table["solver"]) == set(curves.solvers)
    assert curves.table.loc[curves.table["solver"] == "rbf", "drawn"].all()
    colours = solver_palette(results["solver"], names)
    assert len(set(colours.colours().values())) == 4  # each outside solver has its colour
    assert display_name("rbf", names) == "rbf" and display_name("mine", names) == "mine"
    fig, (left, right) = plt.subplots(1, 2)
    draw_auc_panel(left, panel, colours, "bin")
    assert {t.get_text() for t in left.get_xticklabels()} == {"SAMULT", "QSG-S2AUC", "rbf",
                                                              "mine"}
    draw_time_curves(right, curves, colours)
    assert {"rbf", "mine"} <= {line.get_label() for line in right.get_lines()}
    plt.close(fig)


def test_a_solver_given_by_import_path_shows_the_name_its_metadata_gives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc.report import load
    from ordauc.report.load import base_solver_of, solver_order
    from ordauc.results.frame import solver_names
    from ordauc.solvers import SolverMeta, meta_of

    outside = SolverMeta(display="RBF-SVC", tasks=("binary",), uses_unlabeled=False)
    monkeypatch.setattr(load, "meta_of", lambda name: outside if name == "mysolvers:RbfSVC"
                        else meta_of(name))
    results = _with_outside_solvers()
    names = solver_names(results)
    assert names["rbf"] == "mysolvers:RbfSVC" and base_solver_of("rbf", names) == names["rbf"]
    assert display_name("rbf", names) == "RBF-SVC"
    # after the registry's baselines, before solvers without metadata and the papers' methods
    assert solver_order(results["solver"], names) == ["samult", "rbf", "mine", "qsg_s2auc"]
    assert auc_panel(results, "bin").solvers == ["samult", "rbf", "mine", "qsg_s2auc"]
    assert time_curves(results, "bin").solvers == ["samult", "rbf", "mine", "qsg_s2auc"]
    # Two configurations of one outside solver keep their labels, so they stay apart.
    twice = pd.concat([results, results[results["solver"] == "rbf"].assign(solver="rbf_wide")])
    both = solver_names(twice)
    assert (display_name("rbf", both), display_name("rbf_wide", both)) == ("rbf", "rbf_wide")


def test_a_figure_is_saved_whole_in_every_format_or_not_at_all(tmp_path: Path) -> None:
    from ordauc.report.files import FORMATS, new_figure, save_figure

    fig = new_figure(2, 2)
    fig.add_subplot().plot([0, 1], [1, 0])
    paths = save_figure(fig, tmp_path, "one")
    assert [p.name for p in paths] == [f"one.{ext}" for ext in FORMATS] == ["one.png", "one.pdf"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.pdf", "one.png"]
    assert paths[0].read_bytes()[:4] == b"\x89PNG" and paths[1].read_bytes()[:5] == b"%PDF-"

    def broken(target: object, **_: object) -> None:
        if isinstance(target, (str, Path)):
            Path(target).write_bytes(b"half a figure")
        else:
            target.write(b"half a figure")
        raise OSError(28, "No space left on device")

    fig.savefig = broken
    with pytest.raises(OSError):
        save_figure(fig, tmp_path, "two")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.pdf", "one.png"]  # nothing half


def test_a_tight_figure_keeps_text_drawn_beyond_its_axes(tmp_path: Path) -> None:
    # Critical-difference diagrams write their labels outside the axes; tight saving keeps them.
    import struct

    from ordauc.report.files import DPI, new_figure, save_figure

    def png_width(path: Path) -> int:
        return struct.unpack(">I", path.read_bytes()[16:20])[0]

    fig = new_figure(2, 2, constrained=False)
    fig.add_subplot().text(3.0, 0.5, "a label far to the right", transform=fig.axes[0].transAxes)
    loose = save_figure(fig, tmp_path, "loose")[0]
    tight = save_figure(fig, tmp_path, "tight", tight=True)[0]
    assert png_width(loose) == 2 * DPI and png_width(tight) > 2 * DPI
