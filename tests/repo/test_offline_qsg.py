"""The offline twins of both QSG papers' configs (``configs/offline/``), run end to end: the
AUC studies with every solver of each paper, QSG-S2AUC against SAMULT on the same splits and
hyper-parameters, and the time curves with a memory limit that stops the exact methods."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO

from ordauc.report.figdata import auc_panel, time_curves

pytestmark = pytest.mark.slow  # end to end: `make test-all` and CI run it

CONFIGS = REPO / "configs"
Cli = Callable[..., tuple[int, str, str]]


def twin(name: str) -> dict:
    return yaml.safe_load((CONFIGS / "offline" / f"{name}.yaml").read_text(encoding="utf-8"))


def run(cli: Cli, config: Path, out: Path, *extra: str) -> pd.DataFrame:
    code, _, stderr = cli("run", config, "--out", out, "--n-jobs", "2", *extra)
    assert code == 0, stderr
    return pd.read_csv(out / "results.csv")


def test_twins_keep_the_papers_solvers_and_protocol() -> None:
    """A twin shrinks sizes, trials and grids, never the list of solvers or the protocol."""
    for name, n_labeled in (("qsg_s2auc", 200), ("qs3orao", 150)):
        paper = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8"))
        small = twin(name)
        assert list(small["solvers"]) == list(paper["solvers"])
        assert small["evaluate"] == paper["evaluate"]
        assert small["resampling"]["n_labeled"] == [n_labeled]
        for label, spec in paper["solvers"].items():
            assert set(small["solvers"][label]["grid"]) == set(spec["grid"])
            assert small["solvers"][label].get("tuning") == (
                {**spec["tuning"], "folds": 3} if "tuning" in spec else None)
    for name in ("qsg_s2auc", "qs3orao"):
        paper = yaml.safe_load((CONFIGS / f"{name}_time.yaml").read_text(encoding="utf-8"))
        small = twin(f"{name}_time")
        assert list(small["solvers"]) == list(paper["solvers"])
        assert "tuning" not in small and "tuning" not in paper  # fixed parameters, no CV
        assert all("grid" not in spec for spec in small["solvers"].values())


def test_binary_twin_qsg_matches_samult(cli: Cli, write_config, tmp_path: Path) -> None:
    study = twin("qsg_s2auc")
    table = run(cli, CONFIGS / "offline" / "qsg_s2auc.yaml", tmp_path / "tuned")
    assert (table["status"] == "ok").all() and len(table) == 2 * 5 * 2 * 3
    assert set(table["solver"]) == {"qsg_s2auc", "samult", "pnu_auc", "qsg_s2auc_gamma1",
                                    "svc_rbf"}
    check_supervised_references(table, "qsg_s2auc_gamma1", "svc_rbf")
    pnu = table[table["solver"] == "pnu_auc"]
    assert (pnu["cv_metric"] == "own").all() and pnu["p_eta"].notna().all()
    means = table.groupby(["dataset", "solver"])["auc"].mean().unstack()
    assert (means > 0.8).all().all(), means  # every solver learns (chance is 0.5)
    assert ((means["qsg_s2auc"] - means["samult"]).abs() < 0.02).all(), means

    # The same splits (same seed and budgets) and the same hyper-parameters for both.
    point = {"lam": 0.25, "sigma": 2.0, "gamma": 0.8}
    fixed = {**study, "solvers": {
        "qsg_s2auc": {"params": {**study["solvers"]["qsg_s2auc"]["params"], **point}},
        "samult": {"params": point}}}
    same = run(cli, write_config(fixed), tmp_path / "fixed")
    assert (same["status"] == "ok").all()
    pairs = same.pivot_table(index=["dataset", "repetition", "n_unlabeled"], columns="solver",
                             values=["auc", "n_test", "p_lam", "p_sigma", "p_gamma"])
    for name in ("n_test", "p_lam", "p_sigma", "p_gamma"):
        assert (pairs[name]["qsg_s2auc"] == pairs[name]["samult"]).all()
    gap = same.groupby(["dataset", "solver"])["auc"].mean().unstack()
    assert ((gap["qsg_s2auc"] - gap["samult"]).abs() < 0.02).all(), gap


def test_ordinal_twin_runs_every_solver_of_the_paper(cli: Cli, tmp_path: Path) -> None:
    table = run(cli, CONFIGS / "offline" / "qs3orao.yaml", tmp_path / "out")
    assert (table["status"] == "ok").all() and len(table) == 2 * 7 * 3 * 2
    assert (table["eval_set"] == "unlabeled").all()
    means = table.groupby(["dataset", "solver"])["auc"].mean().unstack()
    assert set(means.columns) == {"qs3orao", "m_samult", "m_pnu_auc", "svorex", "svorim",
                                  "qs3orao_gamma1", "m_svc_rbf"}
    check_supervised_references(table, "qs3orao_gamma1", "m_svc_rbf", "svorex", "svorim")
    assert (means > 0.7).all().all(), means  # the ordinal AUC of a constant scorer is 0.5
    svorex = table[table["solver"] == "svorex"]
    assert svorex["mze"].notna().all()  # labels too: the supervised reference has thresholds
    panel = auc_panel(table, str(table["dataset"].iloc[0]))
    assert set(panel.solvers) == set(means.columns)  # Figure 2 draws every one


def check_supervised_references(table: pd.DataFrame, ablation: str, *supervised: str) -> None:
    """The references see the semi-supervised solvers' labeled rows: the gamma = 1 ablation
    (gamma 1 at every point, so it reads no unlabeled row) and every supervised solver are
    fitted once per labeled set, and that fit serves both unlabeled budgets."""
    same = table.pivot_table(index=["dataset", "repetition", "n_unlabeled"], columns="solver",
                             values="n_test")
    assert (same.nunique(axis=1) == 1).all()  # every solver scored on the same rows
    gamma1 = table[table["solver"] == ablation]
    assert (gamma1["p_gamma"].astype(float) == 1.0).all()
    for name in (ablation, *supervised):
        rows = table[table["solver"] == name]
        assert rows["shared_fit"].all(), name
        per_rep = rows.groupby(["dataset", "repetition"])
        assert (per_rep["fit_key"].nunique() == 1).all(), name
        assert (per_rep["fit_time_s"].nunique() == 1).all(), name


@pytest.mark.parametrize(("name", "limit", "exact", "kernel_stop", "basis_stop"), [
    ("qsg_s2auc_time", "64MB", ("samult", "pnu_auc"), (1000, 2000), (10000, 20000)),
    ("qs3orao_time", "80MB", ("m_samult", "m_pnu_auc"), (1000, 2000), (20000, 29500))])
def test_time_twin_marks_where_the_exact_methods_stop(
        name: str, limit: str, exact: tuple[str, str], kernel_stop: tuple[int, int],
        basis_stop: tuple[int, int], cli: Cli, tmp_path: Path) -> None:
    """With the limit shared by 2 parallel cells, the O(n^2) kernel solver stops first and the
    200-centre PNU-AUC (linear in n) later; QSG's need does not grow with n, so every one of
    its cells runs. The run exits 0 and Figure 1 marks each stop with its reason."""
    out = tmp_path / "out"
    table = run(cli, CONFIGS / "offline" / f"{name}.yaml", out, "--memory-limit", limit)
    status = table.pivot_table(index="n_unlabeled", columns="solver", values="status",
                               aggfunc=lambda s: "/".join(sorted(set(s))))
    kernel, basis = exact
    qsg = next(s for s in status.columns if s not in exact)
    assert (status[qsg] == "ok").all()
    for solver, (last_ok, _) in ((kernel, kernel_stop), (basis, basis_stop)):
        expected = ["ok" if n <= last_ok else "skipped" for n in status.index]
        assert list(status[solver]) == expected, solver
    skipped = table[table["status"] == "skipped"]
    share = f"{float(limit[:-2]) / 1024 / 2:.3g}"
    assert skipped["message"].str.match(rf"needs .* GB for .* training rows x .* features, "
                                        rf"limit {share} GB \(.* shared by 2 parallel").all()
    assert skipped["fit_time_s"].isna().all()  # never started, never given a time

    curves = time_curves(table, str(table["dataset"].iloc[0]))
    stops = {m.solver: (m.last_ok, m.size, m.reason) for m in curves.marks}
    assert stops == {kernel: (*kernel_stop, "memory"), basis: (*basis_stop, "memory")}
    drawn = curves.table[curves.table["drawn"]]
    assert set(drawn[drawn["solver"] == qsg]["n_unlabeled"]) == set(status.index)
    code, _, stderr = cli("plot", out)
    assert code == 0, stderr
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", curves.dataset).strip("._")
    assert (out / "figures" / f"time_{stem}.png").stat().st_size > 0
