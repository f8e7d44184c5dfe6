"""The page is built from the report's objects: its tables are the very HTML the reference path
made by reading back the Markdown files the report wrote (every ``table_``, ``published_``,
``wdl_`` and ``friedman_`` file, in that order, by name), and the files are the renderings of
the same objects. The report and the claims are peers: neither imports the other."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from claims_tables import runs, table
from conftest import REPO
from study_helpers import published_results

from ordauc.publish.page import _tables_html
from ordauc.report import html
from ordauc.report.write import write_report

PACKAGE = REPO / "ordauc"
PREFIXES = ("table_", "published_", "wdl_", "friedman_")  # the page's order before objects


def _read_back(report_dir: Path) -> str:
    """The page's tables as they were made before the report was an object: globbed and read
    back from the files written."""
    files = sorted(report_dir.glob("*.md"))
    ordered = [p for prefix in PREFIXES for p in files if p.name.startswith(prefix)]
    return "\n".join(f'<h3 id="{html.esc(p.stem)}">{html.esc(p.stem)}</h3>'
                     f"{html.markdown(p.read_text(encoding='utf-8'))}" for p in ordered)


def _mixed() -> pd.DataFrame:
    """Binary and ordinal datasets (tables per task), a failed run, CV times (Table V)."""
    rng = np.random.default_rng(7)
    groups = []
    for task, data, solvers in (("binary", ("b1", "b2", "b3"), ("s1", "s2", "s3")),
                                ("ordinal", ("o1", "o2"), ("s1", "s4", "s5"))):
        for dataset in data:
            for solver in solvers:
                status = ["ok", "ok", "timeout"] if (dataset, solver) == ("b2", "s3") else "ok"
                groups.append(runs(dataset, solver, task=task, status=status,
                                   auc=list(rng.uniform(0.6, 0.9, 3)),
                                   mze=list(rng.uniform(0.1, 0.4, 3)),
                                   mae=list(rng.uniform(0.1, 0.6, 3)),
                                   cv_time_s=list(rng.uniform(1, 5, 3))))
    return table(*groups)


def _published() -> pd.DataFrame:
    return published_results({("dna", "auc_sdcd_paper", "auc_sdcd"): [0.95, 0.96, 0.97],
                              ("dna", "oam_inf_paper", "oam_inf"): [0.99, 0.98, "timeout"],
                              ("dna", "auc_sdcd_cv", "auc_sdcd"): [0.90, 0.92, 0.94],
                              ("svmguide3", "auc_sdcd_paper", "auc_sdcd"): [0.70, 0.80],
                              ("svmguide3", "oam_inf_paper", "oam_inf"): [0.75, 0.77],
                              ("svmguide3", "auc_sdcd_cv", "auc_sdcd"): [0.72, 0.74]},
                             {"auc_sdcd_cv": "cv"})


@pytest.mark.parametrize(("make", "metrics"), [(_mixed, ("mze", "mae", "auc")),
                                               (_published, ("auc",))])
def test_the_page_s_tables_equal_the_files_read_back(make, metrics, tmp_path: Path) -> None:
    report = write_report(make(), tmp_path, metrics=metrics)
    document = report.document
    reference = _read_back(tmp_path)
    kinds = [p for p in PREFIXES if f'<h3 id="{p}' in reference]  # every kind the case has
    assert kinds == [p for p in PREFIXES if make is _published or p != "published_"]
    assert _tables_html(document) == reference
    # each file is the rendering of the objects, byte for byte
    files = document.files()
    assert [tmp_path / name for name in files] == list(report)
    for name, text in files.items():
        assert (tmp_path / name).read_text(encoding="utf-8") == text, name
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == report.summary


def test_a_stale_file_of_an_earlier_report_is_not_on_the_page(tmp_path: Path) -> None:
    (tmp_path / "table_old.md").write_text("| a |\n| --- |\n| 1 |\n", encoding="utf-8")
    report = write_report(_mixed(), tmp_path, metrics=("mze",))
    assert "table_old" in _read_back(tmp_path) and "table_old" not in _tables_html(
        report.document)


def _within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(f"{p}.") for p in packages)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_report_imports_neither_the_claims_nor_publishing() -> None:
    for path in (PACKAGE / "report").rglob("*.py"):
        bad = {m for m in _imports(path) if _within(m, "ordauc.claims", "ordauc.publish")}
        assert not bad, (path.name, bad)


def test_the_claims_import_neither_publishing_nor_the_report() -> None:
    # the reading of results tables (report.load) is on its way out of the report
    allowed = {"ordauc.report.load"}
    for path in (PACKAGE / "claims").rglob("*.py"):
        bad = {m for m in _imports(path) if _within(m, "ordauc.publish", "ordauc.report")
               and m not in allowed}
        assert not bad, (path.name, bad)
