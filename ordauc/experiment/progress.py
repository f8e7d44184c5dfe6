"""The run's progress bar on stderr, redrawn by the main thread only when a cell finishes.

A cluster backend adds what it knows while the bar is up: :func:`note` shows a short status
after the counts (its workers, the cells running on them), redrawn at once, and :func:`say`
prints a line above the bar (a worker lost, a wait); both do nothing else with no bar, so the
local pool's display is the same as ever.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

# The bar being shown, if any: (redraw with a note, console to print above it). A list, not a
# global rebound, so nested or failed bars restore the outer one.
_SHOWN: list[tuple[Callable[[str], None], Any]] = []


@contextlib.contextmanager
def progress_bar(total: int, enabled: bool) -> Iterator[Any]:
    """Yields ``advance(row)``, to call once per finished cell."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=Console(stderr=True), auto_refresh=False,
                   disable=not enabled or total == 0)
    counts: Counter[str] = Counter()
    status = {"note": ""}
    with bar:
        task = bar.add_task("cells", total=total)
        bar.refresh()

        def describe() -> str:
            label = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
            text = f"cells ({label})" if label else "cells"
            return f"{text} · {status['note']}" if status["note"] else text

        def advance(row: dict[str, Any]) -> None:
            counts[row["status"]] += 1
            bar.update(task, advance=1, description=describe())
            bar.refresh()

        def redraw(text: str) -> None:
            if text != status["note"]:
                status["note"] = text
                bar.update(task, description=describe())
                bar.refresh()

        _SHOWN.append((redraw, bar.console))
        try:
            yield advance
        finally:
            _SHOWN.remove((redraw, bar.console))


def note(text: str) -> None:
    """Show ``text`` after the bar's counts (e.g. ``2 workers, 2 cells running``)."""
    if _SHOWN:
        _SHOWN[-1][0](text)


def say(message: str) -> None:
    """Print ``message`` on stderr, above the bar when one is shown, so it is not drawn over."""
    if _SHOWN:
        _SHOWN[-1][1].print(message, markup=False, highlight=False, soft_wrap=True)
    else:
        print(message, file=sys.stderr, flush=True)
