"""A worker warms each solver class up once (its compiled loops loaded) before it forks cells,
so the cells inherit the loops instead of each loading them again."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ordauc.experiment import cell as cell_module


class Counting:
    """An estimator whose warm-up counts its calls and may fail."""

    calls = 0

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def warm_up(self) -> None:
        type(self).calls += 1
        if self.fail:
            raise RuntimeError("no warm-up for you")


def test_each_solver_class_is_warmed_up_once_per_process(monkeypatch) -> None:
    monkeypatch.setattr(cell_module, "_WARM", set())
    Counting.calls = 0
    for _ in range(3):
        cell_module.warm_up(Counting())
    assert Counting.calls == 1


def test_a_failing_warm_up_is_left_to_the_cells_fit(monkeypatch) -> None:
    monkeypatch.setattr(cell_module, "_WARM", set())
    Counting.calls = 0
    cell_module.warm_up(Counting(fail=True))  # does not raise
    assert Counting.calls == 1


CHECK = """
import sys
from ordauc import solvers
from ordauc.experiment.cell import warm_up
from ordauc.solvers.pairwise import _dcd_loops
from ordauc.solvers.dsg import trig

loops = {"auc_sdcd": [_dcd_loops.sdcd], "qsg_s2auc": [trig._cos_flat]}[sys.argv[1]]
assert all(not f.signatures for f in loops), "loaded before the warm-up"
warm_up(solvers.get(sys.argv[1]))
print(all(f.signatures for f in loops))
"""


@pytest.mark.parametrize("name", ["auc_sdcd", "qsg_s2auc"])
def test_warming_up_loads_the_compiled_loops_of_numba_solvers(name: str) -> None:
    # a fresh interpreter: this one may have run these solvers already
    done = subprocess.run([sys.executable, "-c", CHECK, name], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
