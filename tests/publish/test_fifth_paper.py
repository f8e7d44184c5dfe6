"""A fifth paper is one folder: its config, claim, figure family and report section register
through the public seams (tests/publish/fixtures/fifth_paper/, four files), and a tiny study of
it is run, plotted and reported by the command line with no module of ordauc edited: the figure,
the section and the claim's verdict are on the study's page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

FOLDER = Path(__file__).resolve().parent / "fixtures" / "fifth_paper"
PACKAGE = REPO / "ordauc"


@pytest.fixture(scope="module")
def registries() -> Iterator[None]:
    """Leave the registries as they were: the fifth paper is registered for this module's
    tests only (other tests count the four papers' claims)."""
    from ordauc.claims import CLAIMS, PAPERS
    from ordauc.publish import papers
    from ordauc.report import plots, write  # noqa: F401  (the four papers' families, first)
    from ordauc.report.figure_families import FIGURE_FAMILIES
    from ordauc.report.sections import REPORT_SECTIONS

    saved = [(r, dict(r)) for r in (CLAIMS, PAPERS, FIGURE_FAMILIES, REPORT_SECTIONS,
                                    papers._LOADED)]
    yield
    for registry, before in saved:
        registry.clear()
        registry.update(before)


@pytest.fixture(scope="module")
def study(registries: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fifth paper's study run, plotted and reported through the command line, with the
    paper's folder named in ORDAUC_PAPERS."""
    from ordauc.cli import main

    out = tmp_path_factory.mktemp("fifth") / "fifth"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ORDAUC_PAPERS", str(FOLDER))
        for argv in (["run", str(FOLDER / "fifth.yaml"), "--out", str(out)],
                     ["plot", str(out)], ["report", str(out)]):
            with pytest.raises(SystemExit) as done:
                main(argv)
            assert not done.value.code, argv
    return out


def test_the_paper_is_one_folder_that_no_module_names() -> None:
    assert sorted(p.name for p in FOLDER.iterdir() if p.name != "__pycache__") == [
        "claims.py", "fifth.yaml", "figures.py", "sections.py"]
    # it registers through the seams alone: no module of the package knows of it
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "fifth_auc" not in text and "FIFTH" not in text, path


def _ok(study: Path) -> pd.DataFrame:
    results = pd.read_csv(study / "results.csv")
    return results[results["status"] == "ok"]


def test_the_figure_family_draws_its_figure_onto_the_page(study: Path) -> None:
    figures = study / "figures"
    assert (figures / "fifth_auc_means.png").is_file()
    assert (figures / "fifth_auc_means.pdf").is_file()
    page = (study / "report" / "index.html").read_text(encoding="utf-8")
    assert '<img alt="fifth_auc_means" src="data:image/png;base64,' in page
    # the families of the four papers still draw theirs beside it
    assert (figures / "auc_all.png").is_file()


def test_the_section_writes_its_files_and_is_on_the_page(study: Path) -> None:
    report = study / "report"
    for ext in ("md", "csv", "tex"):
        assert (report / f"fifth_auc_gap.{ext}").is_file()
    table = pd.read_csv(report / "fifth_auc_gap.csv", index_col=0)
    means = _ok(study).groupby("solver")["auc"].mean()  # computed here, not by the section
    dataset = table.index[0]
    for solver in ("svc_rbf", "samult"):
        assert table.loc[dataset, solver] == pytest.approx(means[solver], abs=1e-6)
    assert table.loc[dataset, "gap svc_rbf - samult"] == pytest.approx(
        means["svc_rbf"] - means["samult"], abs=1e-6)
    page = (report / "index.html").read_text(encoding="utf-8")
    tables = page[page.index('<section id="tables">'):page.index('<section id="figures">')]
    assert '<h3 id="fifth_auc_gap">fifth_auc_gap</h3>' in tables
    # after the four papers' tables, in the order the sections are registered
    assert tables.index('id="friedman_mze"') < tables.index('id="fifth_auc_gap"')
    assert f"{means['svc_rbf']:.4f}" in tables
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert "## Mean AUC per solver (fifth paper)" in summary


def test_the_claim_is_decided_and_its_verdict_is_on_the_page(study: Path) -> None:
    claims = pd.read_csv(study / "report" / "claims.csv")
    mine = claims[claims["paper"] == "A fifth paper (test fixture)"]
    assert len(mine) == 1
    means = _ok(study).groupby(["dataset", "solver"])["auc"].mean()
    expected = "CONFIRMED" if bool((means > 0.5).all()) else "NOT CONFIRMED"
    assert mine["verdict"].iloc[0] == expected
    page = (study / "report" / "index.html").read_text(encoding="utf-8")
    row = re.search(r"<tr><td>FIFTH-1: Every method ranks the test rows better than chance"
                    r".*?</tr>", page)
    assert row is not None and f">{expected}</span>" in row.group(0)
    assert f"in {int((means > 0.5).sum())} of {len(means)} cells" in row.group(0)
    assert np.isfinite(means.to_numpy()).all()


def test_loading_the_folder_twice_registers_it_once(study: Path) -> None:
    from ordauc.publish.papers import load_paper

    first = load_paper(FOLDER)
    assert load_paper(FOLDER) is first
    assert [p.name for p in first.configs] == ["fifth.yaml"] and len(first.modules) == 3
