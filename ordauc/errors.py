"""Exceptions that carry a one-sentence message for the user."""

from __future__ import annotations


class UserError(Exception):
    """Bad input: the message is one sentence naming what is wrong and what is allowed.

    The command line prints it without a traceback and exits with ``exit_code`` (2).
    """

    exit_code = 2


class NetworkError(UserError):
    """A download that failed on every source after its retries: the network or a server, not
    the input, so a script may retry later. Exit code 3."""

    exit_code = 3


class ResourceLimitError(RuntimeError):
    """A solver cannot run within its memory or time budget.

    The experiment runner records the cell as ``skipped`` with this message, never as a result.
    """


class DivergenceError(ArithmeticError):
    """An iterative solver's iterates left every range a solution can lie in.

    The message names the step-size schedule that caused it; the cell is recorded as ``error``.
    """
