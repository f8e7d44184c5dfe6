"""Run a function in a forked child process with a hard deadline.

Soft timeouts (checked between iterations) let a stuck solver run far past its budget; here the
child is killed at the deadline. The child also dies with its parent, and a backend may pass an
orphan guard (:class:`ParentGuard` for local pools) so that a worker whose runner is gone stops
at once, so killing the runner leaves no orphan burning CPU. A crash of the child (segfault,
out-of-memory kill) becomes a failed outcome instead of taking the worker pool down.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import select
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_POLL_S = 0.2


class CellTimeout(Exception):
    """The child ran past its deadline and was killed."""


class ChildDied(Exception):
    """The child ended without returning a result."""


class ParentGuard:
    """Orphan guard of a local worker pool: the worker's parent must stay the runner ``pid``.

    Only valid where the runner starts the workers itself (loky); a cluster worker's parent is
    its nanny, so cluster backends pass no guard.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def orphaned(self) -> bool:
        return os.getpid() != self.pid and os.getppid() != self.pid


def run_isolated(fn: Callable[[], Any], timeout: float | None, guard: Any = None) -> Any:
    """``fn()`` computed in a forked child and returned through a pipe.

    Raises :class:`CellTimeout` past ``timeout`` seconds and :class:`ChildDied` when the child
    exits without a result. ``fn`` should catch its own exceptions and return them as values.
    ``guard`` (an object with ``orphaned()``, or None) says when nobody will read the result:
    then the worker kills the child and exits at once. Without ``os.fork`` (Windows) ``fn`` runs
    in-process and the timeout is not enforced.
    """
    _exit_if_orphaned(guard)
    if not hasattr(os, "fork"):
        return fn()
    parent = os.getpid()
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python >= 3.12 warns when a process with threads forks (a pool worker's queue
        # threads); the child only computes its cell and leaves by os._exit, never touching
        # the locks those threads might hold.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # child: never returns
        os.close(read_end)
        _child(fn, write_end, parent)
    os.close(write_end)
    try:
        payload = _collect(read_end, pid, timeout, guard)
    except BaseException:
        _kill(pid)
        raise
    finally:
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if payload:
        return pickle.loads(payload)
    raise ChildDied(_describe(status))


def _child(fn: Callable[[], Any], write_end: int, parent: int) -> None:
    code = 0
    try:
        _die_with(parent)
        data = pickle.dumps(fn())
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view):]
    except BaseException:  # noqa: B036 - nothing may escape a forked child
        code = 1
    finally:
        os._exit(code)  # skip atexit handlers and buffered output inherited from the parent


def _die_with(parent: int) -> None:
    """Make this process exit when ``parent`` does."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _exit_if_orphaned(guard: Any, child: int | None = None) -> None:
    if guard is not None and guard.orphaned():
        if child is not None:
            _kill(child)
        os._exit(1)


def _collect(read_end: int, pid: int, timeout: float | None, guard: Any) -> bytes:
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks = []
    while True:
        wait = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
        if wait <= 0:  # the caller kills the child
            raise CellTimeout(f"killed after the {timeout:g} s timeout")
        ready, _, _ = select.select([read_end], [], [], wait)
        if ready:
            chunk = os.read(read_end, 1 << 16)
            if not chunk:  # end of file: the child has finished
                return b"".join(chunks)
            chunks.append(chunk)
        else:
            _exit_if_orphaned(guard, pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hint = " (out of memory?)" if number == signal.SIGKILL else ""
        return f"the cell's process was killed by {name}{hint}"
    return f"the cell's process exited with code {os.waitstatus_to_exitcode(status)}"
