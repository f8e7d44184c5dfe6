"""The run's progress bar on stderr, redrawn by the main thread only when a cell finishes."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from typing import Any


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
    with bar:
        task = bar.add_task("cells", total=total)
        bar.refresh()

        def advance(row: dict[str, Any]) -> None:
            counts[row["status"]] += 1
            label = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
            bar.update(task, advance=1, description=f"cells ({label})")
            bar.refresh()

        yield advance
