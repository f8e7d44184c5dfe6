"""benchmarks/sections/: each benchmark registers its section, goals included, in one module."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO

BENCH = REPO / "benchmarks"


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/report.py, imported as the bench scripts import it (their folder on the path)."""
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.delitem(sys.modules, "report", raising=False)
    import report

    return report


def _stored(name: str) -> dict:
    return json.loads((BENCH / "results" / f"{name}.json").read_text(encoding="utf-8"))


def _contents_row(text: str, title: str) -> str:
    """The table-of-contents row of the section headed ``title``."""
    (row,) = [line for line in text.splitlines() if line.startswith(f"| [{title}](")]
    return row


def _judged_goals(report: ModuleType) -> list[tuple[object, object, dict]]:
    """(section, goal, stored JSON) for every goal a stored full run states."""
    out = []
    for section in report.SECTIONS:
        if not (BENCH / "results" / section.file).is_file():
            continue
        r = _stored(section.name)
        out += [(section, goal, r) for goal in section.goals
                if goal.applies(r) and not r.get("quick")]
    return out


def test_every_module_of_the_package_is_one_section_in_page_order(report) -> None:
    modules = sorted(p.stem for p in (BENCH / "sections").glob("*.py")
                     if not p.stem.startswith("_"))
    sections = report.registered()
    assert sorted(s.name for s in sections) == modules  # each module registers its own JSON
    orders = [s.order for s in sections]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    assert sections == report.SECTIONS
    # the benchmarks that set themselves goals own them (the page judges them)
    with_goals = {s.name for s in sections if s.goals}
    assert {"qsg", "grid", "pairwise", "prepare", "backends"} <= with_goals


def test_the_page_states_every_goal_with_the_verdict_of_its_figures(report) -> None:
    judged = _judged_goals(report)
    assert len(judged) >= 10  # qsg 4, grid 3, pairwise 2, prepare 1, backends 2
    text, failed = report.render()
    assert failed == []
    for section, goal, r in judged:
        met = goal.met(r)
        value = goal.value(r)
        assert met is (value <= goal.bound if goal.at_most else value >= goal.bound)
        verdict = ": met)" if met else ": **missed**)"
        shown = f"{goal.phrase(r)} (goal {goal.target}{verdict}"
        assert shown in _contents_row(text, section.title), (section.name, goal.target)


def test_a_goal_the_figures_miss_is_shown_missed_on_the_page(report) -> None:
    """Each goal in turn is made unreachable (its bound past any figure): that goal, and only
    it, turns to missed in its section's headline; the other sections' rows do not change."""
    judged = _judged_goals(report)
    text, _ = report.render(now="2026-01-01 00:00")
    for section, goal, r in judged:
        unreachable = replace(goal, bound=-math.inf if goal.at_most else math.inf)
        broken = replace(section, goals=tuple(unreachable if g is goal else g
                                               for g in section.goals))
        registry = tuple(broken if s is section else s for s in report.SECTIONS)
        page, failed = report.render(now="2026-01-01 00:00", registry=registry)
        assert failed == []
        row = _contents_row(page, section.title)
        assert f"{goal.phrase(r)} (goal {goal.target}: **missed**)" in row, section.name
        assert row.count("**missed**") == _contents_row(text, section.title).count(
            "**missed**") + (goal.met(r) is True)
        for other in report.SECTIONS:
            if other is not section:
                assert _contents_row(page, other.title) == _contents_row(text, other.title)


def test_a_quick_run_states_its_goals_unjudged(report, tmp_path: Path) -> None:
    r = {**_stored("pairwise"), "quick": True}
    (tmp_path / "pairwise.json").write_text(json.dumps(r))
    text, failed = report.render(tmp_path)
    assert failed == []
    row = _contents_row(text, "Pairwise updates")
    assert "**quick run**" in row and "(goal >= 25M)" in row and "(goal <= 1.5x)" in row
    assert ": met" not in row and "**missed**" not in row


def test_a_new_benchmark_is_one_module_in_the_package(report, monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    """A module dropped beside the others (here in a second folder of the package) is on the
    page, after the sections it follows, with its goal judged, and report.py unedited."""
    import sections

    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "toy.py").write_text(
        "from sections import Goal, Section\n"
        "GOAL = Goal(lambda r: f\"{r['speedup']:.1f}x faster\", lambda r: r['speedup'], "
        "'>= 3x', 3)\n"
        "SECTION = Section('toy', 'A toy benchmark', 1000, lambda r: ['figures'], "
        "lambda r: 'python benchmarks/bench_toy.py', (GOAL,))\n")
    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(extra)])
    monkeypatch.delitem(sys.modules, "sections.toy", raising=False)
    registry = report.registered()
    assert registry[-1].name == "toy" and len(registry) == len(report.SECTIONS) + 1
    results = tmp_path / "results"
    results.mkdir()
    (results / "toy.json").write_text(json.dumps({"speedup": 2.5, "measured_at": "2026-01-01"}))
    text, failed = report.render(results, registry=registry)
    assert failed == []
    assert "2.5x faster (goal >= 3x: **missed**)" in _contents_row(text, "A toy benchmark")
    assert "## A toy benchmark" in text and "No renderer for" not in text
    (results / "toy.json").write_text(json.dumps({"speedup": 3.0}))
    text, _ = report.render(results, registry=registry)
    assert "3.0x faster (goal >= 3x: met)" in _contents_row(text, "A toy benchmark")


def test_a_module_without_a_section_or_reading_a_taken_json_is_refused(
        report, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sections

    monkeypatch.setattr(sections, "__path__", [*sections.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "sections.stray", raising=False)
    (tmp_path / "stray.py").write_text("X = 1\n")
    with pytest.raises(TypeError, match="stray.py registers no SECTION"):
        report.registered()
    monkeypatch.delitem(sys.modules, "sections.stray", raising=False)
    (tmp_path / "stray.py").write_text(
        "from sections import Section\n"
        "SECTION = Section('qsg', 'Again', 5, lambda r: [], lambda r: '')\n")
    with pytest.raises(ValueError, match="two sections read qsg.json"):
        report.registered()
