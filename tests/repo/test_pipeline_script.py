"""The reproduce pipeline (scripts/pipeline.sh, called by the Makefile's reproduce targets), run
through the real Makefile with a stub ``ordauc`` that logs its calls and fails where told: a
study failing at any step is named with that step and the next study goes on, the index page is
written over what finished, and make exits non-zero at the end; all studies succeeding exits 0;
an interrupted run stops the pipeline; ``reproduce-offline`` fetches from the repository's
mirror folder, then from LIBSVM's multiclass folder (the two sets the folder does not ship), and
where that fetch fails runs the study without them (``--missing-data skip``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

STUDIES = ("alpha", "beta", "gamma")

# Logs "<command> <first argument>" and exits with the code STUB_FAIL gives the pair
# (study and command), else 0. The study is the first argument's stem (a config or a results
# folder); the index page's report names the results root.
STUB = """#!/usr/bin/env bash
echo "$*" >> "$STUB_LOG"
study=$(basename "$2" .yaml)
for rule in $STUB_FAIL; do
    IFS=: read -r s c code <<< "$rule"
    if [ "$s" = "$study" ] && [ "$c" = "$1" ]; then exit "$code"; fi
done
exit 0
"""

needs_tools = pytest.mark.skipif(shutil.which("make") is None or shutil.which("bash") is None,
                                 reason="needs make and bash")


def make(tmp_path: Path, target: str = "reproduce-offline", fail: str = "",
         studies: tuple[str, ...] = STUDIES) -> tuple[int, list[str], str]:
    """Run ``make TARGET`` in the repository with the stub as the venv's ``ordauc``; return the
    exit status, the stub's calls and make's stderr."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    stub = venv / "bin" / "ordauc"
    stub.write_text(STUB, encoding="utf-8")
    stub.chmod(0o755)
    # newer than pyproject.toml, so the install rule has nothing to do
    later = (REPO / "pyproject.toml").stat().st_mtime + 10
    os.utime(stub, (later, later))
    log = tmp_path / "calls.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "STUB_LOG": str(log), "STUB_FAIL": fail}
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), target, f"VENV={venv}",
         f"OUT={tmp_path / 'results'}", f"STUDIES={' '.join(studies)}", "JOBS=1"],
        env=env, capture_output=True, text=True, timeout=120)
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return done.returncode, calls, done.stdout + done.stderr


def steps(calls: list[str]) -> list[str]:
    """Each call as "<command> <study>" (the index page: "report <root>")."""
    return [f"{c.split()[0]} {Path(c.split()[1]).name.removesuffix('.yaml')}" for c in calls]


def failures(out: str) -> list[str]:
    """The failures the pipeline's closing summary lists."""
    summary = out.split("failure(s) over")[1].splitlines()[1:]
    return [line.strip() for line in summary if line.startswith("  ")]


def full(study: str) -> list[str]:
    return [f"{step} {study}" for step in ("fetch", "run", "plot", "report")]


@needs_tools
def test_every_study_succeeding_runs_each_step_then_the_index_and_exits_0(tmp_path) -> None:
    code, calls, out = make(tmp_path)
    assert code == 0, out
    assert steps(calls) == [*full("alpha"), *full("beta"), *full("gamma"), "report offline"]
    assert "FAILED" not in out


@needs_tools
def test_the_offline_pipeline_fetches_from_the_repository_mirror_then_libsvm(tmp_path) -> None:
    _, calls, _ = make(tmp_path)
    fetches = [c for c in calls if c.startswith("fetch ")]
    assert len(fetches) == len(STUDIES)
    for call in fetches:
        assert call.split()[1].startswith("configs/offline/")
        # the repository's folder first, then the host of the two sets it does not ship
        assert call.endswith("--quiet --mirror data/offline-mirror --mirror "
                             "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass")
    assert (REPO / "data" / "offline-mirror" / "MANIFEST.csv").is_file()


@needs_tools
def test_reproduce_fetches_from_the_hosts_unless_a_mirror_is_named(tmp_path) -> None:
    code, calls, out = make(tmp_path, target="reproduce")
    assert code == 0, out
    fetches = [c for c in calls if c.startswith("fetch ")]
    assert fetches and all(c.split()[1].startswith("configs/") and "--mirror" not in c
                           for c in fetches)


@needs_tools
@pytest.mark.parametrize(("fail", "step", "skipped"), [
    ("beta:fetch:1", "fetch", ["run beta", "plot beta", "report beta"]),
    ("beta:run:2", "run (exit 2)", ["plot beta", "report beta"]),
    ("beta:plot:1", "plot", ["report beta"]),
    ("beta:report:1", "report", []),
])
def test_a_failing_study_is_named_and_the_next_ones_go_on(tmp_path, fail, step,
                                                          skipped) -> None:
    code, calls, out = make(tmp_path, target="reproduce", fail=fail)
    assert code != 0
    assert f"pipeline: FAILED beta at {step}" in out
    expected = [*full("alpha"), *(s for s in full("beta") if s not in skipped),
                *full("gamma"), "report results"]
    assert steps(calls) == expected
    assert failures(out) == [f"beta ({step})"]


@needs_tools
def test_two_failing_studies_are_both_named_and_the_rest_still_run(tmp_path) -> None:
    code, calls, out = make(tmp_path, target="reproduce", fail="alpha:fetch:1 beta:run:3")
    assert code != 0
    assert "pipeline: FAILED alpha at fetch" in out
    assert "pipeline: FAILED beta at run (exit 3)" in out
    assert "2 failure(s) over 3 studies" in out
    assert failures(out) == ["alpha (fetch)", "beta (run (exit 3))"]
    assert steps(calls)[-5:] == [*full("gamma"), "report results"]
    assert all(c.endswith("--missing-data refuse") for c in calls if c.startswith("run "))


@needs_tools
def test_offline_a_fetch_that_fails_runs_the_study_without_the_missing_data(tmp_path) -> None:
    """No network: the twin runs on what it has, the cells of the sets it could not get are
    recorded as skipped by ``ordauc run --missing-data skip``, and the pipeline succeeds,
    naming the study in its closing lines."""
    code, calls, out = make(tmp_path, fail="beta:fetch:1")
    assert code == 0, out
    assert "FAILED" not in out
    assert steps(calls) == [*full("alpha"), *full("beta"), *full("gamma"), "report offline"]
    assert all(c.endswith("--missing-data skip") for c in calls if c.startswith("run "))
    assert "pipeline: beta: some datasets could not be fetched; running the others" in out
    assert out.rstrip().endswith("each saying which `ordauc fetch` gets it): beta")


@needs_tools
def test_failed_cells_exit_1_count_as_a_finished_study(tmp_path) -> None:
    code, calls, out = make(tmp_path, fail="beta:run:1")
    assert code == 0, out
    assert steps(calls) == [*full("alpha"), *full("beta"), *full("gamma"), "report offline"]


@needs_tools
def test_a_failing_index_page_fails_the_pipeline(tmp_path) -> None:
    code, calls, out = make(tmp_path, fail="offline:report:1")
    assert code != 0
    assert "the index page" in out
    assert steps(calls)[-1] == "report offline"


@needs_tools
@pytest.mark.parametrize("signal_code", [130, 143])
def test_an_interrupted_run_stops_the_pipeline(tmp_path, signal_code) -> None:
    code, calls, out = make(tmp_path, fail=f"beta:run:{signal_code}")
    assert code != 0
    assert f"beta: run interrupted (exit {signal_code})" in out
    assert steps(calls) == [*full("alpha"), "fetch beta", "run beta"]


@needs_tools
def test_the_script_alone_reports_its_usage_and_exits_2(tmp_path) -> None:
    done = subprocess.run(["bash", str(REPO / "scripts" / "pipeline.sh")],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "usage" in done.stderr
