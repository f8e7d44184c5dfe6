"""A solver from outside the package: the README's example, run from a config by import path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO


def readme_example() -> str:
    """The Python block of the README's "Adding a solver" section: the documented example."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Adding a solver"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def plugin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "mysolvers.py").write_text(readme_example(), encoding="utf-8")
    (folder / "brokensolvers.py").write_text(
        "from sklearn.base import BaseEstimator\n\n\nclass NoMeta(BaseEstimator):\n"
        "    def fit(self, X, y):\n        return self\n", encoding="utf-8")
    return folder


def ordauc(*args: object, plugins: Path) -> subprocess.CompletedProcess[str]:
    """``ordauc ARGS`` in a fresh process with ``plugins`` on PYTHONPATH, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(plugins)}
    return subprocess.run([sys.executable, "-m", "ordauc", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=plugins.parent)


def study(solver: str) -> dict:
    return {"datasets": ["breast_cancer"], "tuning": {"folds": 3},
            "resampling": {"n_labeled": [60], "n_unlabeled": [100, 200], "repeats": 2},
            "solvers": {"rbf_svc": {"solver": solver, "grid": {"C": [0.1, 10]}},
                        "samult": {"params": {"lam": 0.1, "sigma": 1.0, "gamma": 1.0}}}}


def test_the_readme_example_is_short_and_complete() -> None:
    code = readme_example()
    assert len(code.strip().splitlines()) <= 32
    assert "class RbfSVC" in code and "decision_function" in code


@pytest.mark.slow
def test_a_solver_from_a_file_runs_plots_and_reports_like_a_builtin(plugin_dir: Path,
                                                                    tmp_path: Path) -> None:
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump(study("mysolvers:RbfSVC")), encoding="utf-8")
    out = tmp_path / "out"
    done = ordauc("run", config, "--out", out, "--n-jobs", 2, plugins=plugin_dir)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out / "results.csv")
    mine = table[table["solver"] == "rbf_svc"]
    assert len(mine) == 4 and (mine["status"] == "ok").all()
    assert set(mine["solver_name"]) == {"mysolvers:RbfSVC"}
    assert mine["auc"].min() > 0.9  # an RBF SVC ranks breast cancer well
    assert mine["shared_fit"].all()  # supervised: one fit serves both unlabeled budgets
    assert set(mine["p_C"]) <= {0.1, 10.0}

    plotted = ordauc("plot", out, plugins=plugin_dir)
    assert plotted.returncode == 0, plotted.stderr
    assert any((out / "figures").glob("*.png"))
    reported = ordauc("report", out, "--metric", "auc", plugins=plugin_dir)
    assert reported.returncode == 0, reported.stderr
    text = "\n".join(p.read_text(encoding="utf-8") for p in (out / "report").glob("*.md"))
    assert "RBF-SVC" in text  # the display name its meta declares

    # without the solver importable, reporting would silently drop it: one sentence, exit 2,
    # and nothing of the folder touched, for the study and for a folder of studies alike
    elsewhere = tmp_path / "nothing-here"
    elsewhere.mkdir()
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    for args in (("report", out), ("plot", out), ("report", tmp_path)):
        refused = ordauc(*args, plugins=elsewhere)
        assert refused.returncode == 2, (args, refused.stderr)
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "mysolvers" in lines[0] and "PYTHONPATH" in lines[0]
        assert "Traceback" not in refused.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
    assert not (tmp_path / "index.html").exists()


@pytest.mark.parametrize(("path", "words"), [
    ("mysolvers:RbfSvc", "has no class 'RbfSvc'"),
    ("mysolver:RbfSVC", "cannot be imported"),
    ("brokensolvers:NoMeta", "declares no `meta = SolverMeta(...)`"),
])
def test_a_bad_solver_path_is_one_sentence_and_nothing_written(plugin_dir: Path, tmp_path: Path,
                                                               path: str, words: str) -> None:
    config = tmp_path / "study.yaml"
    config.write_text(yaml.safe_dump(study(path)), encoding="utf-8")
    out = tmp_path / "out"
    done = ordauc("run", config, "--out", out, plugins=plugin_dir)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr
    assert not out.exists()


def test_installed_plugins_are_solver_names(plugin_dir: Path, monkeypatch) -> None:
    from importlib.metadata import EntryPoint

    from ordauc import solvers

    monkeypatch.syspath_prepend(str(plugin_dir))
    # imported here, the module would stay in sys.modules and name the import path
    # "mysolvers:RbfSVC" in other tests, where it must be a solver the registry cannot describe
    monkeypatch.setitem(sys.modules, "mysolvers", None)
    del sys.modules["mysolvers"]
    monkeypatch.setattr(solvers, "_REGISTRY", dict(solvers._REGISTRY))
    monkeypatch.setattr(solvers, "_plugins_read", False)
    found = [EntryPoint(name="rbf_svc", value="mysolvers:RbfSVC", group="ordauc.solvers"),
             EntryPoint(name="svorex", value="mysolvers:RbfSVC", group="ordauc.solvers")]
    monkeypatch.setattr("importlib.metadata.entry_points",
                        lambda group: found if group == "ordauc.solvers" else [])
    assert "rbf_svc" in solvers.names()
    assert solvers.info("rbf_svc").meta.display == "RBF-SVC"
    assert solvers.info("svorex").meta.display == "SVOREX"  # a plugin never replaces a built-in
    assert solvers.meta_of("mysolvers:RbfSVC").display == "RBF-SVC"
    assert solvers.meta_of("nowhere:Gone") is None
