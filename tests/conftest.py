"""Shared fixtures: the test solvers, a config writer and an in-process ``ordauc`` runner."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

TESTS_DIR = Path(__file__).resolve().parent
# The repository's root: tests find its README, configs and folders from here, whatever
# folder of tests/ they sit in.
REPO = TESTS_DIR.parent
# The solver registry imports "runner_solvers:Class"; joblib's loky workers inherit sys.path.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

import runner_solvers  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _calibration_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Dry runs keep their solver calibrations in the session's own cache, not the user's, and
    print no cost estimate (its calibration fits solvers in-process, which tests counting fits
    would see): tests/cost/test_estimate.py turns it on where it is the subject."""
    import os

    before = {k: os.environ.get(k) for k in ("ORDAUC_CACHE", "ORDAUC_ESTIMATE")}
    os.environ["ORDAUC_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["ORDAUC_ESTIMATE"] = "0"
    yield
    for key, value in before.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def test_solvers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the estimators of ``tests/runner_solvers.py`` for one test."""
    runner_solvers.register(monkeypatch)


@pytest.fixture
def fit_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A file where every fit of a test solver appends one line (see runner_solvers)."""
    path = tmp_path / "fits.log"
    monkeypatch.setenv(runner_solvers.FIT_LOG, str(path))
    _fresh_workers()  # loky reuses its workers, whose environment predates this variable
    yield path
    _fresh_workers()


def _fresh_workers() -> None:
    """Stop joblib's reusable loky workers, so the next pool starts with this environment."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


@pytest.fixture
def write_config(tmp_path: Path) -> Callable[..., Path]:
    """Write a config (a dict, or raw YAML text) to ``tmp_path/<name>`` and return its path."""

    def write(content: dict[str, Any] | str, name: str = "study.yaml") -> Path:
        path = tmp_path / name
        text = content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run ``ordauc ARGS...`` in-process: (exit code, stdout, stderr)."""
    from ordauc.cli import main

    def invoke(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return code, out, err

    return invoke
