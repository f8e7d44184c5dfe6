"""benchmarks/report.py: one page from the benchmarks' JSON files, offline and in a second."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO

BENCH = REPO / "benchmarks"


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/report.py, imported as the bench scripts import it (their folder on the path)."""
    monkeypatch.syspath_prepend(str(BENCH))
    for name in ("report", "bench_backends"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import report

    return report


def _backends(quick: bool) -> dict:
    """A backends JSON as bench_backends.py writes it (figures made up for the test)."""
    run = {"wall_s": 40.0, "wall_s_all": [40.0], "cells": 32, "cell_wall_sum_s": 74.0,
           "overhead_s": 3.0, "workers": 2, "command": "ordauc run CFG --out TMP --n-jobs 2"}
    return {"measured_at": "2026-11-25 12:00", "git_sha": "abc1234", "machine": "x86_64",
            "cpus": 2, "python": "3.11.7", "numpy": "2.4.6", "quick": quick, "reps": 1,
            "config": "benchmarks/backends.yaml",
            "config_overrides": "repeats 4, n_iter 200" if quick else None, "cells": 32,
            "runs": {"loky_1": {**run, "wall_s": 76.0, "workers": 1, "overhead_s": 2.0},
                     "loky_2": run, "dask": {**run, "wall_s": 42.0}},
            "ratios": {"loky_2_vs_1": 1.9, "dask_vs_loky_2": 1.05},
            "same_metrics": {"cells": 32, "columns": ["auc"], "tables": ["loky_1"],
                             "identical": True, "differing_values": 0, "max_abs_diff": 0.0,
                             "examples": []},
            "cluster": {"n_workers": 2, "threads_per_worker": 1, "start_s": 1.0},
            "bench_s": 160.0}


def test_every_stored_result_renders_with_its_provenance_and_rerun(report) -> None:
    text, failed = report.render()
    assert failed == []
    stored = {p.stem for p in (BENCH / "results").glob("*.json")}
    for section in report.SECTIONS:
        assert f"## {section.title}" in text
        if section.name in stored:
            body = text.split(f"## {section.title}\n", 1)[1].split("\n## ", 1)[0]
            assert body.lstrip().startswith("Measured")
            rerun = re.search(r"Rerun: `python (benchmarks/\S+\.py)", body)
            assert rerun and (BENCH.parent / rerun.group(1)).is_file()  # a script that exists
    # every section is in the table of contents, linked to its heading
    for section in report.SECTIONS:
        assert f"(#{report._slug(section.title)})" in text


def test_missing_results_say_how_to_measure_them_and_quick_runs_are_marked(
        report, tmp_path: Path) -> None:
    (tmp_path / "backends.json").write_text(json.dumps(_backends(quick=True)))
    text, failed = report.render(tmp_path, now="2026-11-25 12:30")
    assert failed == []
    assert "Assembled 2026-11-25 12:30" in text
    assert "Not measured yet: `python benchmarks/bench_qsg.py` writes `results/qsg.json`." in text
    assert "**Quick run**" in text and "**quick run**" in text
    assert "`python benchmarks/bench_backends.py --quick`" in text
    assert "1.90x faster" in text and "1.05x the time" in text
    assert "(goal >= 1.8x)" in text and "not judged (quick run)" in text
    assert "Metric values of the three results tables (32 cells x auc): the same." in text


def test_a_full_backends_run_is_judged_against_its_goals(report, tmp_path: Path) -> None:
    result = _backends(quick=False)
    result["ratios"] = {"loky_2_vs_1": 1.5, "dask_vs_loky_2": 1.2}
    result["same_metrics"].update(identical=False, differing_values=2, max_abs_diff=1e-3,
                                  examples=["dask k auc"])
    (tmp_path / "backends.json").write_text(json.dumps(result))
    text, _ = report.render(tmp_path)
    assert "Quick run" not in text
    assert "(goal >= 1.8x: **missed**)" in text and "(goal <= 1.10x: **missed**)" in text
    assert "**not the same**: 2 values differ" in text


def test_a_result_that_does_not_render_is_named_and_the_page_still_written(
        report, tmp_path: Path) -> None:
    (tmp_path / "prepare.json").write_text(json.dumps({"rows": 10}))
    text, failed = report.render(tmp_path)
    assert failed == ["prepare"]
    assert "Could not render prepare.json: KeyError" in text


def test_provenance_names_the_commit_and_the_machine(report) -> None:
    import provenance

    stamp = provenance.provenance()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", stamp["measured_at"])
    assert stamp["cpus"] and stamp["machine"] and stamp["python"]
    assert "git_sha" in stamp


def test_makefile_readme_and_report_give_one_duration_for_make_bench(report) -> None:
    makefile = (REPO / "Makefile").read_text()
    readme = (REPO / "README.md").read_text()
    bench = [line for line in makefile.splitlines() if line.startswith("bench:")]
    assert bench and report.MAKE_BENCH_TIME in bench[0]
    mentions = [line for line in readme.splitlines() if "make bench " in line]
    assert mentions and all(report.MAKE_BENCH_TIME in line for line in mentions)
    for text in (makefile, readme):
        assert "90 minutes" not in text and "an hour or more" not in text
    assert "benchmarks/report.py" in makefile and "bench-report:" in makefile


def test_the_backends_bench_compares_metric_values_cell_by_cell(report) -> None:
    import bench_backends

    row = {"key": "k1", "auc": "0.91", "mae": "", "status": "ok"}
    same = {"a": {"k1": row}, "b": {"k1": dict(row)}}
    got = bench_backends.compare(same)
    assert got["identical"] and got["cells"] == 1 and "auc" in got["columns"]
    other = {"a": {"k1": row}, "b": {"k1": {**row, "auc": "0.9100000000000001"}}}
    got = bench_backends.compare(other)
    assert not got["identical"] and got["differing_values"] == 1
    assert got["max_abs_diff"] == pytest.approx(1e-16, abs=1e-15)
