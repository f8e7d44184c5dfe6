"""The forked cell process: hard deadline, crashes, and death with its parent."""

from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from ordauc.experiment.isolate import CellTimeout, ChildDied, run_isolated


def _sleep_then(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value


def _crash() -> None:
    faulthandler.disable()  # pytest's handler would print the child's stack: noise, not a failure
    os.kill(os.getpid(), signal.SIGSEGV)


def test_result_comes_back_through_the_pipe() -> None:
    assert run_isolated(lambda: {"auc": 0.75, "rows": list(range(100_000))}, timeout=10) == {
        "auc": 0.75, "rows": list(range(100_000))}  # larger than a pipe buffer


def test_child_is_killed_at_the_deadline() -> None:
    start = time.monotonic()
    with pytest.raises(CellTimeout, match="killed after the 0.5 s timeout"):
        run_isolated(lambda: _sleep_then(1, 30), timeout=0.5)
    assert time.monotonic() - start < 3


def test_a_crashing_child_is_reported() -> None:
    with pytest.raises(ChildDied, match="killed by SIGSEGV"):
        run_isolated(_crash, timeout=None)


def _script(body: str, tmp_path: Path) -> Path:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:  # dead, not yet reaped
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_the_child_dies_with_its_parent(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = _script(f"""
        import os, time
        from ordauc.experiment.isolate import run_isolated
        def cell():
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(60)
        run_isolated(cell, timeout=None)
        """, tmp_path)
    parent = subprocess.Popen([sys.executable, str(script)])
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        assert _gone_within(child, 5)
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_worker_whose_runner_is_gone_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = _script(f"""
        from ordauc.experiment.isolate import ParentGuard, run_isolated
        run_isolated(lambda: open({str(marker)!r}, "w").write("x"), None, ParentGuard(1))
        print("returned")
        """, tmp_path)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and "returned" not in done.stdout and not marker.exists()
