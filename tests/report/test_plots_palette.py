"""One look per solver: every figure of a study draws a label in one colour, and no two labels
alike; a variant (an ablation, a protocol or sweep variant, a wrapper) keeps its solver's colour
with a marker and dash of its own; the same label looks the same in every shipped study.

The figures are drawn by `plot_results` on small made-up studies shaped like the papers' (a
semi-supervised study over unlabeled sizes, a pairwise study with tuning and convergence curves,
a supervised ordinal study of label-only solvers); the colours are read back from the
matplotlib artists (lines, box patches, scatter dots, legend handles, text), not from the
palette that should have set them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

from ordauc.report.load import base_solver_of, display_name
from ordauc.report.palette import solver_palette, study_palette
from ordauc.results.frame import solver_names
from ordauc.results.schema import CURVE_COLUMNS, TUNING_COLUMNS

SAVERS = ("plots", "size_boxes", "cv_time", "tuning_curves", "convergence", "sweeps", "cd")
QSG = {"qsg_s2auc": "qsg_s2auc", "qsg_s2auc_gamma1": "qsg_s2auc", "pnu_auc": "pnu_auc",
       "samult": "samult", "svc_rbf": "svc_rbf"}
DCD = {"auc_sdcd_paper": "auc_sdcd", "auc_sdcd_cv": "auc_sdcd", "auc_msgd_paper": "auc_msgd",
       "oam_inf_paper": "oam_inf", "oam_inf_cv": "oam_inf", "oam_seq_paper": "oam_seq"}
NPSVOR = {"npsvor": "npsvor", "npsvor_tuned": "npsvor", "npsvor.eps=0.1": "npsvor",
          "svr": "svr", "svorim": "svorim", "svc1v1": "svc1v1"}
LABEL_ONLY = ("npsvor", "svc1v1")  # no decision_function: no AUC although they finish


def _row(dataset: str, label: str, name: str, rep: int, n_l: int, n_u: int, s: int,
         rng: np.random.Generator, **extra: object) -> dict:
    auc = 0.6 + 0.04 * s + 0.02 * rng.random()
    return {"key": f"{dataset}/{label}/r{rep}/l{n_l}/u{n_u}", "dataset": dataset,
            "solver": label, "solver_name": name, "repetition": rep, "n_labeled": n_l,
            "n_unlabeled": n_u, "status": "ok", "message": "", "auc": auc,
            "mze": 0.5 - 0.03 * s + 0.05 * rng.random(), "mae": 0.7 - 0.03 * s + 0.1 * rng.random(),
            "fit_time_s": (1 + s) * (1 + n_u / 1000) * (1 + 0.1 * rng.random()),
            "cv_time_s": (1 + s) * (1 + 0.1 * rng.random()), "p_lam": 0.1, **extra}


def _qsg(folder: Path) -> Path:
    """Semi-supervised: AUC over two unlabeled sizes; SAMULT out of memory at the larger."""
    rng = np.random.default_rng(0)
    rows = []
    for d in ("b1", "b2"):
        for s, (label, name) in enumerate(QSG.items()):
            for rep in range(3):
                for n_u in (1000, 2000):
                    row = _row(d, label, name, rep, 200, n_u, s, rng)
                    if label == "samult" and n_u == 2000:
                        row.update(status="skipped", message="needs 40 GiB, over the memory",
                                   auc=np.nan, fit_time_s=np.nan)
                    rows.append(row)
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    return folder


def _dcd(folder: Path) -> Path:
    """Pairwise AUC at one size (k-fold): tuning scores against lambda and convergence curves."""
    rng = np.random.default_rng(1)
    rows, scores, curves = [], [], []
    for d in ("a1", "a2", "a3"):
        for s, (label, name) in enumerate(DCD.items()):
            for rep in range(3):
                row = _row(d, label, name, rep, 600, 0, s, rng)
                rows.append(row)
                for point, lam in enumerate((0.01, 0.1, 1.0)):
                    scores.append({"key": row["key"], "dataset": d, "solver": label,
                                   "repetition": rep, "n_labeled": 600, "n_unlabeled": 0,
                                   "tuning": "cv" if label.endswith("_cv") else "test",
                                   "point": point, "metric": "auc",
                                   "score": 0.7 + 0.02 * s - 0.01 * point, "p_lam": lam})
                for it in (10, 20, 30):
                    point = {"key": row["key"], "dataset": d, "solver": label, "repetition": rep,
                             "n_labeled": 600, "n_unlabeled": 0, "iteration": it, "time_s": 0.1}
                    curves.append({**point, "metric": "auc", "value": 0.6 + 0.01 * s + it / 1e3})
                    curves.append({**point, "metric": "objective", "value": 1 + (s + 1) / it})
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    pd.DataFrame(scores)[[*TUNING_COLUMNS, "p_lam"]].to_csv(folder / "tuning_scores.csv",
                                                             index=False)
    pd.DataFrame(curves)[[*CURVE_COLUMNS]].to_csv(folder / "curves.csv", index=False)
    return folder


def _npsvor(folder: Path) -> Path:
    """Supervised ordinal: one size per dataset (n_unlabeled 0); two solvers predict labels
    only; a dataset of several training sizes with repeated draws (boxes by size)."""
    rng = np.random.default_rng(2)
    rows = []
    for d, sizes in (("c1", (100,)), ("c2", (150,)), ("c3", (600,)), ("ml", (100, 200, 300))):
        for s, (label, name) in enumerate(NPSVOR.items()):
            for rep in range(3):
                for n_l in sizes:
                    row = _row(d, label, name, rep, n_l, 0, s, rng)
                    if name in LABEL_ONLY:
                        row["auc"] = np.nan
                    rows.append(row)
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "results.csv", index=False)
    return folder


STUDIES = {"qsg": _qsg, "dcd": _dcd, "npsvor": _npsvor}


def _figures(folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Every figure `plot_results` makes of ``folder``, by file stem (nothing is rendered)."""
    import importlib

    from ordauc.report.plots import plot_results

    figures: dict[str, object] = {}

    def keep(fig: object, out_dir: Path, stem: str, **_: object) -> list[Path]:
        figures[stem] = fig
        return [Path(out_dir) / f"{stem}.png"]

    for module in SAVERS:
        monkeypatch.setattr(importlib.import_module(f"ordauc.report.{module}"), "save_figure",
                            keep)
    plot_results(folder)
    return figures


def _rgb(colour: object) -> tuple[float, ...]:
    from matplotlib.colors import to_rgb

    array = np.asarray(colour, dtype=object)
    if array.ndim == 2:  # a collection's colours: its first
        colour = tuple(array[0])
    return tuple(round(c, 3) for c in to_rgb(colour))


def _name_at(ax: object, x: float, shown: dict[str, str]) -> str | None:
    """The solver whose x tick sits at ``x`` (boxplots name each slot by a tick label)."""
    ticks = np.asarray(ax.get_xticks(), dtype=float)
    if not ticks.size or np.min(np.abs(ticks - x)) > 0.3:
        return None
    text = ax.get_xticklabels()[int(np.argmin(np.abs(ticks - x)))].get_text().split("\n")[0]
    return shown.get(text)


def _seen(fig: object, shown: dict[str, str]) -> list[tuple[str, tuple, str | None, str | None]]:
    """(label, colour, marker, dash) of every artist of ``fig`` that draws a solver: lines and
    legend entries by their text, box patches and dots by their tick, texts (the critical
    difference diagrams' names) by their words; marker and dash where the artist has them."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, PathPatch

    seen = []
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_label() in shown:
                seen.append((shown[line.get_label()], _rgb(line.get_color()), line.get_marker(),
                             line.get_linestyle()))
        legend = ax.get_legend()
        if legend is not None:
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True):
                label = shown.get(text.get_text())
                if label is None:
                    continue
                if isinstance(handle, Line2D):
                    seen.append((label, _rgb(handle.get_color()), handle.get_marker(),
                                 handle.get_linestyle()))
                elif isinstance(handle, Patch):
                    seen.append((label, _rgb(handle.get_facecolor()), None, None))
        for text in ax.texts:
            words = re.sub(r"\s*\(\d+\.\d+\)\s*", "", text.get_text()).strip()
            if words in shown:
                seen.append((shown[words], _rgb(text.get_color()), None, None))
        for patch in ax.patches:
            if isinstance(patch, PathPatch):  # a boxplot's box
                x = patch.get_path().vertices[:, 0]
                label = _name_at(ax, (x.min() + x.max()) / 2, shown)
                if label is not None:
                    seen.append((label, _rgb(patch.get_edgecolor()), None,
                                 patch.get_linestyle()))
        for dots in ax.collections:
            if isinstance(dots, PathCollection) and len(dots.get_offsets()):
                label = _name_at(ax, float(np.mean(dots.get_offsets()[:, 0])), shown)
                if label is not None:
                    seen.append((label, _rgb(dots.get_facecolor()), None, None))
    return seen


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    """Per made-up study: its results, its figures by stem, and what each figure drew."""
    from ordauc.results.frame import load_results

    out = {}
    root = tmp_path_factory.mktemp("palette")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for study, make in STUDIES.items():
            folder = make(root / study)
            results = load_results(folder)
            names = solver_names(results)
            shown = {display_name(label, names): label for label in names}
            figures = _figures(folder, monkeypatch)
            out[study] = (results, figures, {stem: _seen(fig, shown)
                                             for stem, fig in figures.items()})
    return out


@pytest.mark.parametrize("study", list(STUDIES))
def test_each_label_has_one_colour_in_every_figure_and_no_two_labels_look_alike(
        drawn: dict[str, tuple], study: str) -> None:
    results, figures, seen = drawn[study]
    colours: dict[str, set] = defaultdict(set)
    where: dict[str, set] = defaultdict(set)
    for stem, items in seen.items():
        looks: dict[tuple, set] = defaultdict(set)
        for label, colour, marker, dash in items:
            colours[label].add(colour)
            where[label].add(stem)
            if marker is not None and dash is not None:
                looks[(colour, marker, dash)].add(label)
        alike = {look: labels for look, labels in looks.items() if len(labels) > 1}
        assert not alike, f"{stem}: labels drawn alike {alike}"
    twice = {label: c for label, c in colours.items() if len(c) > 1}
    assert not twice, f"labels drawn in two colours across the figures: {twice}"
    assert set(colours) == set(results["solver"])  # every label was read back somewhere
    # the kinds of figure read: each draws solvers (a figure kind without readable solvers
    # would let a wrong colour through unseen)
    kinds = {stem.split("_")[0] for stem, items in seen.items() if items}
    expected = {"qsg": {"auc", "time", "cd"},
                "dcd": {"auc", "cd", "cv", "tuning", "convergence"},
                "npsvor": {"auc", "mze", "mae", "time", "metrics", "boxes", "cd", "cv"}}[study]
    assert expected <= kinds, sorted(kinds)
    # one base solver, one colour; two base solvers, two colours
    palette = study_palette(results)
    names = solver_names(results)
    for a in names:
        for b in names:
            same_base = palette[a].family == palette[b].family
            assert same_base == (base_solver_of(a, names) == base_solver_of(b, names)) or a == b
            assert a == b or palette[a].key != palette[b].key
            if a != b and colours[a] and colours[b] and names[a] != names[b]:
                assert colours[a] != colours[b], (a, b)


def test_a_variant_keeps_its_solvers_colour_with_its_own_marker_and_dash(
        drawn: dict[str, tuple]) -> None:
    _, figures, _ = drawn["qsg"]
    lines = {line.get_label(): line for line in figures["time_b1"].axes[0].get_lines()}
    base, ablation = lines["QSG-S2AUC"], lines["qsg_s2auc_gamma1"]
    assert base.get_color() == ablation.get_color()
    assert (base.get_marker(), base.get_linestyle()) == ("o", "-")
    assert (ablation.get_marker(), ablation.get_linestyle()) != ("o", "-")


def test_a_study_at_one_size_gets_no_curve_against_it_and_label_only_solvers_are_named(
        drawn: dict[str, tuple]) -> None:
    _, figures, _ = drawn["npsvor"]
    stems = set(figures)
    # n_unlabeled is 0 throughout and each of c1..c3 has one training size: no time figure;
    # ml varies the training size: its time and metrics against it
    assert not {"time_c1", "time_c2", "time_c3"} & stems
    assert {"time_ml", "metrics_ml", "boxes_mze_ml", "boxes_mae_ml"} <= stems
    assert figures["time_ml"].axes[0].get_xlabel() == "number of training samples"
    # the study's own metrics get a boxplot per dataset (ml has its boxes by size instead)
    assert {f"{m}_{d}" for m in ("mze", "mae") for d in ("c1", "c2", "c3")} <= stems
    assert "mze_ml" not in stems
    ax = figures["auc_c1"].axes[0]
    notes = {t.get_text() for t in ax.texts}
    assert notes == {"labels only, no AUC"}  # every run finished
    runs_npsvor = [label for label, name in NPSVOR.items() if name in LABEL_ONLY]
    assert len(ax.texts) == len(runs_npsvor) == 4  # the three NPSVOR labels and SVC1V1
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert not any("without AUC" in t for t in ticks)
    for dcd_stem in drawn["dcd"][1]:  # the pairwise study is run at one size too
        assert not dcd_stem.startswith("time_")


def test_a_failed_solver_still_says_no_finished_run() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ordauc.report.figdata import auc_panel
    from ordauc.report.plots import draw_auc_panel

    rng = np.random.default_rng(4)
    rows = [_row("b", label, label, rep, 200, 1000, s, rng)
            for s, label in enumerate(("pnu_auc", "samult")) for rep in range(3)]
    table = pd.DataFrame(rows)
    table.loc[table["solver"] == "samult", ["status", "auc"]] = ["error", np.nan]
    fig, ax = plt.subplots()
    draw_auc_panel(ax, auc_panel(table, "b"), study_palette(table), "b")
    assert [t.get_text() for t in ax.texts] == ["no finished run"]
    plt.close(fig)


def _configs() -> dict[str, dict[str, str]]:
    """Each shipped config's solver labels and the registry solver each runs."""
    from ordauc.config import load_config

    root = REPO / "configs"
    out = {}
    for path in sorted(root.glob("*.yaml")):
        config = load_config(path)
        out[path.stem] = {s.label: s.name for s in config.solvers}
    return out


def test_every_shipped_study_draws_its_labels_apart_and_shared_labels_alike() -> None:
    configs = _configs()
    styles: dict[str, dict[str, object]] = defaultdict(dict)
    for stem, names in configs.items():
        palette = solver_palette(names, names)
        keys = [palette[label].key for label in names]
        assert len(set(keys)) == len(keys), stem
        bases: dict[str, set[str]] = {}
        for label in names:
            bases.setdefault(palette[label].family, set()).add(base_solver_of(label, names))
            styles[label][stem] = palette[label]
        assert all(len(b) == 1 for b in bases.values()), (stem, bases)  # family = base
    for label, per_study in styles.items():
        assert len(set(per_study.values())) == 1, (label, per_study)
    # every built-in solver, together, stays apart by (colour, marker)
    from ordauc.report.palette import BASE_STYLES
    from ordauc.solvers import meta_of, names

    plain = [n for n in names() if meta_of(n).wrapper_of is None]
    assert set(plain) <= set(BASE_STYLES)
    assert len({BASE_STYLES[n] for n in plain}) == len(plain)
