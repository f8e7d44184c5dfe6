"""Exceptions that carry a one-sentence message for the user."""

from __future__ import annotations

import errno
from pathlib import Path

# What a write on a full disk fails with: no space, a quota exceeded, a file-size limit.
NO_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class UserError(Exception):
    """Bad input: the message is one sentence naming what is wrong and what is allowed.

    The command line prints it without a traceback and exits with ``exit_code`` (2).
    """

    exit_code = 2


class NetworkError(UserError):
    """A download that failed on every source after its retries: the network or a server, not
    the input, so a script may retry later. Exit code 3."""

    exit_code = 3


class DiskFull(UserError):
    """A write found no room on its disk (or went over a quota or a file-size limit): not the
    input's fault and not a cell's, so exit code 1. Whatever was being written is left out
    whole (no half line, no temporary file, no part of a set of figures or tables); the
    message names the folder and says to free space and run the same command again."""

    exit_code = 1

    @classmethod
    def at(cls, folder: Path | str, what: str, kept: str = "") -> DiskFull:
        """The error for writing ``what`` into ``folder``; ``kept`` says what stays as it was
        (e.g. "every finished cell is kept")."""
        tail = f", {kept}" if kept else ""
        return cls(f"the disk holding {folder} is full (no room for {what}); free some space "
                   f"and run the same command again{tail}")


class ResourceLimitError(RuntimeError):
    """A solver cannot run within its memory or time budget.

    The experiment runner records the cell as ``skipped`` with this message, never as a result.
    """


class DivergenceError(ArithmeticError):
    """An iterative solver's iterates left every range a solution can lie in.

    The message names the step-size schedule that caused it; the cell is recorded as ``error``.
    """
