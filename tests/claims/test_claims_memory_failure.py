"""C7: which error messages are taken for an out-of-memory kill.

A 137 counts only as the exit status it means (128 + SIGKILL's 9), a -9 only as the return code
of a process SIGKILL ended; a message merely holding the digits (1370 rows, seed 137, 137
features) is no memory failure. The real messages, those the runner writes and those Python's
subprocess gives for a killed child, are still taken for one.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ordauc.claims.evidence import memory_failure
from ordauc.experiment.backends import lost_worker_message

KILLED = [
    "MemoryError: Unable to allocate 80.0 GiB for an array with shape (100000, 100000)",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "the cell's process was killed by SIGKILL (out of memory?)",
    "its worker process was killed by SIGKILL (signal 9)",
    "its worker process exited with code 137",
    "the cell's process exited with code 137",
    "CalledProcessError: Command '['samult']' returned non-zero exit status 137.",
    "CalledProcessError: Command '['samult']' returned non-zero exit status -9.",
    "Command '['samult']' died with <Signals.SIGKILL: 9>.",
    "solver failed: exit code: 137",
    "ExitCode=137",
    "returncode=-9",
    "/bin/sh: line 1: 4242 Killed                  ./samult",
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=12.0",
    "job ended in state OUT_OF_MEMORY",
    "container terminated: OOMKilled",
]

NOT_KILLED = [
    "ValueError: expected 1370 rows, got 1369",
    "ValueError: X has 137 features, but the model was fitted with 136",
    "seed 137 did not converge in 1,000 iterations",
    "LinAlgError: 137-th leading minor not positive definite",
    "its worker process exited with code 1",
    "its worker process exited with code 1370",
    "its worker process exited with code 2137",
    "ValueError: lambda must be positive, got -9",
    "ValueError: sigma=-9.5 is not positive",
    "the cell's process was killed by SIGTERM",
    "its worker process was killed by SIGINT (signal 2)",
    "KeyError: 'signal 90'",
]


@pytest.mark.parametrize("message", KILLED)
def test_an_out_of_memory_kill_is_an_observed_failure(message: str) -> None:
    assert memory_failure("error", message) == "observed"


@pytest.mark.parametrize("message", NOT_KILLED)
def test_a_message_merely_holding_137_is_not_a_memory_failure(message: str) -> None:
    assert memory_failure("error", message) is None


def test_status_decides_first() -> None:
    assert memory_failure("timeout", "its worker process exited with code 137") is None
    assert memory_failure("ok", "Killed") is None
    assert memory_failure("skipped", "needs 90 GB, limit 80 GB; raise --memory-limit") == (
        "predicted")


def _failure(argv: list[str]) -> str:
    """The message Python's subprocess gives for a child run as ``argv`` that fails."""
    try:
        subprocess.run(argv, check=True, capture_output=True)
    except subprocess.CalledProcessError as exc:
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError("the child did not fail")


def test_the_real_messages_of_a_killed_process_are_observed() -> None:
    """Messages made by the code that reports them, not written here: a child that SIGKILL
    ends, a shell whose child was killed (exit status 137), loky's lost worker."""
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert memory_failure("error", _failure([sys.executable, "-c", kill])) == "observed"
    assert memory_failure("error", _failure(["sh", "-c", "exit 137"])) == "observed"
    assert memory_failure("error", _failure(["sh", "-c", "exit 1"])) is None
    loky = ("A worker process managed by the executor was unexpectedly terminated.\n"
            "The exit codes of the workers are {}\n")
    for codes, kind in (("{SIGKILL(-9)}", "observed"), ("{EXIT(137)}", "observed"),
                        ("{EXIT(1)}", None), ("{SIGTERM(-15)}", None)):
        message = lost_worker_message(Exception(loky.format(codes)))
        assert memory_failure("error", message) == kind, message
