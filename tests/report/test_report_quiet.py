"""`ordauc report` and `ordauc plot` are quiet: one line says where the page or the figures are,
the files are listed with -v, and a library's warning is counted on a line of its own rather
than printed as Python prints it."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SOLVERS = ("svorim", "svr", "npsvor")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A supervised study: three datasets, three solvers (one that predicts labels only),
    three repetitions, MZE and MAE, and a dataset where every method ties (the Friedman
    statistic is undefined there)."""
    rng = np.random.default_rng(0)
    rows = []
    for d, dataset in enumerate(("d1", "d2", "d3")):
        for s, solver in enumerate(SOLVERS):
            for rep in range(3):
                mze = 0.3 + 0.05 * s + 0.01 * rng.random()
                rows.append({"key": f"{dataset}/{solver}/{rep}", "dataset": dataset,
                             "solver": solver, "solver_name": solver, "repetition": rep,
                             "n_labeled": 100 + 50 * d, "n_unlabeled": 0, "status": "ok",
                             "message": "", "auc": np.nan if solver == "npsvor" else 0.8,
                             "mze": mze, "mae": mze + 0.2, "fit_time_s": 0.1})
    directory = tmp_path_factory.mktemp("quiet") / "study"
    directory.mkdir()
    pd.DataFrame(rows).to_csv(directory / "results.csv", index=False)
    return directory


def _ordauc(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ordauc", *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_report_prints_one_line_and_lists_the_files_only_when_asked(folder: Path) -> None:
    done = _ordauc("report", folder)
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) <= 3, lines
    page = folder / "report" / "index.html"
    assert lines[0].startswith(f"Report of {folder}: {page} (") and page.is_file()
    assert "Warning" not in done.stderr
    loud = _ordauc("report", folder, "-v")
    assert loud.returncode == 0, loud.stderr
    listed = set(loud.stderr.splitlines())
    written = {str(p) for p in (folder / "report").iterdir()}
    assert written <= listed  # every file written is named
    assert "# Report over 3 datasets and 3 methods" in loud.stdout


def test_a_library_warning_is_one_counted_line(folder: Path, monkeypatch, capsys) -> None:
    from ordauc.cli import main
    from ordauc.publish import study as publish

    real = publish.report_study

    def noisy(*args: object, **kwargs: object) -> object:
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(publish, "report_study", noisy)
    for verbose, expected in (([], 2), (["-v"], None)):
        with pytest.raises(SystemExit) as done:
            main(["report", str(folder), *verbose])
        assert not done.value.code
        out, err = capsys.readouterr()
        notes = [line for line in err.splitlines() if line.startswith("note:")]
        assert notes == ["note: 2 warning(s) from libraries"
                         + ("" if verbose else " (see them with -v)")]
        if expected:
            assert len((out + err).splitlines()) == expected
        else:
            assert "  RuntimeWarning: invalid value encountered in divide" in err
