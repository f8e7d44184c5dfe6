"""The offline twin of the NPSVOR study (``configs/offline/npsvor.yaml``), end to end: Chu Wei's
archives and the survey's hold-out bundle rebuilt from ``../shared/data`` in a local mirror,
fetched, all ten methods run, then ``ordauc report``. Skipped where ``../shared`` is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fixtures_data.helpers import REPO, fetch_ok, serve
from fixtures_data.shared_archives import chu_archive, survey_bundle

from ordauc import data, solvers
from ordauc.config import load_config
from ordauc.data.catalog import CATALOG
from ordauc.experiment.plan import make_plan, split_of
from ordauc.metrics import METRICS as REGISTRY

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

TWIN = REPO / "configs" / "offline" / "npsvor.yaml"
CHU = ["pyrimidines", "machinecpu", "boston", "stocks", "abalone"]
SURVEY = ["tae", "era", "car"]
METHODS = ["npsvor", "svc1v1", "svc1va", "svr", "cssvc", "svmop", "svorex", "svorim", "redsvm",
           "opbe"]
METRICS = ("mze", "mae")


@pytest.fixture
def mirror(tmp_path: Path):
    yield from serve(tmp_path)


@pytest.fixture
def study(mirror, cli, tmp_path: Path) -> tuple[Path, Path]:
    """The twin run on the mirrored real data: (results folder, data folder)."""
    for name in CHU:
        chu_archive(mirror.root, name)
    survey_bundle(mirror.root, SURVEY)
    data_dir = tmp_path / "data"
    fetch_ok(mirror, data_dir, *CHU, *SURVEY)
    out = tmp_path / "out"
    code, _, err = cli("run", TWIN, "--out", out, "--data-dir", data_dir, "--n-jobs", "2")
    assert code == 0, err
    return out, data_dir


def majority_mze(config_path: Path, data_dir: Path) -> dict[str, float]:
    """Per dataset, the mean over its repetitions of the test MZE of always predicting the
    training majority class of the repetition's split (the split every method saw)."""
    config = load_config(config_path)
    plan = make_plan(config, str(data_dir))
    values: dict[str, list[float]] = {}
    for cell in plan.cells:
        if cell.solver.name != "npsvor" or cell.cv_metric != "mze":
            continue
        published = cell.resampling.kind == "partitions"
        ds = data.load(cell.dataset.name, data_dir,
                       **({"partition": cell.repetition} if published else {}))
        split = split_of(cell, ds, config)
        labels, counts = np.unique(ds.y[split.labeled], return_counts=True)
        y_test = ds.y_test if published else ds.y[split.evaluation]
        values.setdefault(cell.dataset.name, []).append(
            float(np.mean(y_test != labels[np.argmax(counts)])))
    return {name: float(np.mean(v)) for name, v in values.items()}


def test_twin_covers_the_study() -> None:
    config = load_config(TWIN)
    full = load_config(REPO / "configs" / "npsvor.yaml")
    assert {d.name for d in config.datasets} == set(CHU + SURVEY)
    assert sorted(s.name for s in config.solvers) == sorted(METHODS)
    assert all(CATALOG[n].recipe == "chu" for n in CHU)
    assert all(CATALOG[n].recipe == "orreview" for n in SURVEY)
    assert config.resampling.kind == "partitions" and config.preprocess == "standardize"
    assert config.tuning.metrics == full.tuning.metrics == ("mze", "mae")
    for spec in config.datasets:  # Chu's sets on the paper's protocol, as in the full study
        own = config.resampling_of(spec)
        if spec.name in CHU:
            assert (own.kind, own.n_labeled, own.train_size) == ("budget", (None,), "catalogue")
        else:
            assert own == config.resampling
    chu_full = [d for d in full.datasets if d.resampling is not None]
    assert len(chu_full) == 6 and all(d.resampling.repeats == 5 for d in chu_full)
    npsvor = next(s for s in config.solvers if s.name == "npsvor")
    assert npsvor.params["eps"] == 0.2 and "eps" not in npsvor.grid


def test_twin_runs_all_ten_methods_and_reports(study, cli) -> None:
    out, data_dir = study
    config = load_config(TWIN)
    parts = list(config.resampling.partitions)
    table = pd.read_csv(out / "results.csv")
    assert len(table) == len(CHU + SURVEY) * len(METHODS) * len(parts) * len(METRICS)
    assert set(table["status"]) <= {"ok", "skipped"}, table[["key", "message"]]
    reasons = table.loc[table["status"] == "skipped", "message"]
    assert reasons.notna().all() and (reasons.astype(str).str.strip() != "").all()
    ok = table[table["status"] == "ok"]
    for name in CHU + SURVEY:  # every method has MZE and MAE on every dataset, both selections
        rows = ok[ok["dataset"] == name]
        assert sorted(rows["solver"].unique()) == sorted(METHODS), name
        assert np.isfinite(rows[list(METRICS)].to_numpy()).all(), name
        assert sorted(rows["repetition"].unique()) == (parts if name in SURVEY else [0, 1]), name
        assert sorted(rows["cv_metric"].unique()) == sorted(METRICS), name
    chu = ok[ok["dataset"] == "boston"]
    assert (chu["n_labeled"] == 300).all() and (chu["n_test"] == 206).all()  # Table I sizes

    # NPSVOR learns something: below the MZE of the training majority class on most datasets
    npsvor = ok[(ok["solver"] == "npsvor") & (ok["cv_metric"] == "mze")]
    npsvor = npsvor.groupby("dataset")["mze"].mean()
    majority = majority_mze(TWIN, data_dir)
    beaten = [name for name in CHU + SURVEY if npsvor[name] < majority[name]]
    assert len(beaten) >= 0.75 * len(CHU + SURVEY), (beaten, npsvor, majority)

    code, printed, err = cli("report", out, "-v")
    assert code == 0, err
    check_report(table, out / "report", printed, n_parts=len(parts))
    check_cv_time(table, out, cli)


def check_cv_time(table: pd.DataFrame, out: Path, cli) -> None:
    """Table V (the time of each problem's CV, one search per repetition serving both
    selections) and Fig. 6(a) (the datasets with more than 500 training rows)."""
    from ordauc.report.cv_time import cv_time_bars

    times = pd.read_csv(out / "report" / "table_cv_time_s.csv")
    times = times[times["dataset"] != "Average rank"]
    display = {solvers.info(m).meta.display: m for m in METHODS}
    per_rep = table.groupby(["dataset", "solver", "repetition"])["cv_time_s"]
    assert (per_rep.nunique() == 1).all()  # both selections share the search's time
    expected = per_rep.first().groupby(["dataset", "solver"]).mean()
    for row in times.itertuples():
        assert row.mean == pytest.approx(expected[(row.dataset, display[row.method])])
    bars = cv_time_bars(table)
    large = sorted(table.loc[table["n_labeled"] > 500, "dataset"].unique())
    assert sorted(bars["dataset"].unique()) == large and len(large) >= 3
    assert bars["complete"].all() and len(bars) == len(large) * len(METHODS)
    code, printed, err = cli("plot", out)
    assert code == 0, err
    assert (out / "figures" / "cv_time.png").stat().st_size > 5000


def check_report(table: pd.DataFrame, folder: Path, printed: str, n_parts: int) -> None:
    """The paper's Tables II-IV and the Friedman ranking, each with all ten methods."""
    display = {solvers.info(m).meta.display: m for m in METHODS}
    datasets = CHU + SURVEY
    k = len(METHODS)
    assert f"Report over {len(datasets)} datasets and {k} methods" in printed
    for metric in METRICS:
        shown = REGISTRY[metric].display
        assert f"## {shown}" in printed
        assert f"Friedman test of {shown} over N = {len(datasets)} datasets and k = {k}" in printed
        assert all(name in printed for name in display)

        means = pd.read_csv(folder / f"table_{metric}.csv")
        last_row = means[means["dataset"] == "Average rank"].set_index("method")["rank"]
        means = means[means["dataset"] != "Average rank"]
        assert set(means["method"]) == set(display) and set(means["dataset"]) == set(datasets)
        chosen = table[table["cv_metric"] == metric]  # MZE of MZE-tuned models, MAE of MAE's
        expected = chosen.groupby(["dataset", "solver"])[metric].mean()
        for row in means.itertuples():
            assert row.mean == pytest.approx(expected[(row.dataset, display[row.method])])
        markdown = (folder / f"table_{metric}.md").read_text()
        header = next(line for line in markdown.splitlines() if line.startswith("| Dataset"))
        assert [c.strip() for c in header.strip("|").split("|")][1:] == list(display)
        assert "| Average rank |" in markdown

        counts = ["wins", "draws", "losses", "not_compared"]
        wdl = pd.read_csv(folder / f"wdl_{metric}.csv")
        totals = wdl[wdl["opponent"] == "all"].set_index("method")[counts]
        wdl = wdl[wdl["opponent"] != "all"]
        assert len(wdl) == k * (k - 1) and set(wdl["method"]) == set(display)
        assert (wdl[counts].sum(axis=1) == len(datasets)).all()
        assert totals.sort_index().equals(wdl.groupby("method")[counts].sum().sort_index())
        pairs = wdl.set_index(["method", "opponent"])
        for (a, b), row in pairs.iterrows():
            assert row["wins"] == pairs.loc[(b, a), "losses"]
        if 2.0 ** (1 - n_parts) > 0.05:  # Wilcoxon's smallest two-sided p over n pairs
            assert (wdl["wins"] == 0).all() and (wdl["losses"] == 0).all()
        rows = [line.split("|")[1].strip() for line in
                (folder / f"wdl_{metric}.md").read_text().splitlines()
                if line.startswith("| ") and not line.startswith("| ---")]
        assert rows[0] == "Method" and sorted(rows[1:]) == sorted(display)

        friedman = pd.read_csv(folder / f"friedman_{metric}.csv")
        ranks = friedman[friedman["quantity"] == "average_rank"].set_index("method")["value"]
        assert set(ranks.index) == set(display)
        assert ranks.sum() == pytest.approx(k * (k + 1) / 2)
        per_dataset = means.groupby("method")["rank"].mean()
        for method, rank in ranks.items():
            assert rank == pytest.approx(per_dataset[method])
            assert rank == pytest.approx(last_row[method])
        assert (folder / f"friedman_{metric}.tex").stat().st_size > 0
