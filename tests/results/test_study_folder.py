"""A results folder serves one study: the record it keeps, the refusal of another config, and
the offline twins' own default folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from study_helpers import STUDY, snapshot

from ordauc.experiment.study import default_out
from ordauc.results import StudyRecord

SOLVERS = {"solvers": {"samult": {"params": {"lam": 1.0, "sigma": 1.0, "gamma": 0.5}}}}


def test_the_folder_records_its_study_and_refuses_another(write_config, cli,
                                                          tmp_path: Path) -> None:
    first = write_config({**STUDY, **SOLVERS}, name="first.yaml")
    out = tmp_path / "out"
    code, _, _ = cli("run", first, "--out", out)
    assert code == 0
    record = json.loads((out / "study.json").read_text())
    assert record["stem"] == "first" and record["config"] == str(first)
    assert (out / "config.yaml").read_text() == first.read_text()

    other = write_config({**STUDY, **SOLVERS, "seed": 7}, name="other.yaml")
    before = snapshot(out)
    for extra in ((), ("--dry-run",)):
        code, _, stderr = cli("run", other, "--out", out, *extra)
        assert code == 2
        assert stderr.count("\n") == 1 and "holds the results of" in stderr
        assert str(first) in stderr and "--out" in stderr
    assert snapshot(out) == before  # nothing written


def test_an_edited_config_stays_the_same_study(write_config, cli, tmp_path: Path) -> None:
    config = write_config({**STUDY, **SOLVERS}, name="study.yaml")
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    write_config({**STUDY, **SOLVERS, "seed": 3}, name="study.yaml")  # edited in place
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 0, stderr
    assert json.loads((out / "study.json").read_text())["sha256"] != ""


def test_the_same_text_from_another_path_is_the_same_study(write_config, cli,
                                                          tmp_path: Path) -> None:
    config = write_config({**STUDY, **SOLVERS}, name="study.yaml")
    out = tmp_path / "out"
    assert cli("run", config, "--out", out)[0] == 0
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "study.yaml").write_text(config.read_text())
    assert cli("run", moved / "study.yaml", "--out", out)[0] == 0


@pytest.mark.parametrize(("path", "expected"), [
    ("configs/offline/qs3orao.yaml", "results/offline/qs3orao"),
    ("configs/qs3orao.yaml", "results/qs3orao"),
    ("my/study.yaml", "results/study"),
])
def test_offline_twins_default_to_their_own_folder(path: str, expected: str) -> None:
    assert default_out(StudyRecord.of(Path(path), "seed: 1\n")) == Path(expected)


def test_a_damaged_record_is_one_sentence(write_config, cli, tmp_path: Path) -> None:
    config = write_config({**STUDY, **SOLVERS})
    out = tmp_path / "out"
    out.mkdir()
    (out / "study.json").write_text("{not json")
    code, _, stderr = cli("run", config, "--out", out)
    assert code == 2 and "study.json" in stderr and "damaged" in stderr
