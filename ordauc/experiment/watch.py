"""The workers of a cluster run, watched from the client while cells are still to come.

Every second the client asks the scheduler for its workers and the tasks on them: the progress
bar shows both (:func:`ordauc.experiment.progress.note`). When no worker is left, the run says
so at once on stderr, naming the cells still to run and how to bring workers, and waits; past
the wait without any it stops with :class:`WorkersLost` (exit 3), the finished rows kept, so
the same command resumes later. The waits, in seconds, come from the environment:

- ``ORDAUC_WORKER_WAIT`` (10): how long ``--backend dask`` waits for a first worker to join
  before refusing the scheduler (exit 2, nothing written).
- ``ORDAUC_WORKER_LOST_WAIT`` (300; 3600 for ``slurm`` and ``pbs``, whose new workers wait in
  the batch queue): how long a run without any worker waits for one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from ordauc.errors import UserError
from ordauc.experiment import progress

WAIT_ENV = "ORDAUC_WORKER_WAIT"
LOST_ENV = "ORDAUC_WORKER_LOST_WAIT"
WAIT_S = 10.0
LOST_S = 300.0
QUEUE_S = 3600.0  # LOST_ENV's default where workers are batch jobs
TICK_S = 1.0  # how often the client asks the scheduler


class WorkersLost(UserError):
    """No worker left to run the cells, and none came within the wait. The finished rows are
    kept and the same command resumes them, so exit code 3, as for a download a script may
    retry later."""

    exit_code = 3


def seconds_from_env(name: str, default: float) -> float:
    """A wait in seconds from the environment variable ``name``, else ``default``."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 0:  # refuses nan too
        raise UserError(f"{name} must be a number of seconds (0 or more), got {text!r}")
    return value


class WorkerWatch:
    """The scheduler's workers as the run goes (see the module).

    Parameters
    ----------
    client : distributed.Client
        The run's client.
    wait : float
        Seconds without any worker before the run stops.
    add : str
        What brings workers, as an imperative (``start workers (`dask worker ...`)``).
    queued : str, optional
        Who starts the workers (``Slurm``) when they are batch jobs: their first wait is then
        said as a wait for the queue, not as workers lost.
    on_look : callable, optional
        Called with the number of workers at every look (a batch backend keeps its jobs up).
    """

    def __init__(self, client: Any, wait: float, add: str, queued: str | None = None,
                 on_look: Callable[[int], None] | None = None) -> None:
        self.client, self.wait, self.add, self.queued = client, wait, add, queued
        self.on_look = on_look
        self.workers = 0
        self.on_workers: set[str] = set()  # task keys on the workers at the last look
        self.seen = False  # a worker was there once
        self.since: float | None = None  # no worker since then
        self.next = 0.0

    def look(self, waiting: int) -> int:
        """The number of workers, asked again once a second; ``waiting`` cells are still to
        come. Raises :class:`WorkersLost` past the wait without any."""
        now = time.monotonic()
        if now < self.next:
            return self.workers
        self.next = now + TICK_S
        try:
            self.workers = len(self.client.nthreads())
            self.on_workers = {k for keys in self.client.processing().values() for k in keys}
        except (OSError, TimeoutError) as exc:
            raise WorkersLost(f"lost the dask scheduler ({' '.join(str(exc).split())}) with "
                              f"{waiting} cell(s) still to run; the finished rows are kept, so "
                              "restart it and run the same command again") from None
        if self.on_look is not None:
            self.on_look(self.workers)
        if self.workers:
            if self.since is not None:
                progress.say(f"ordauc: {self.workers} dask worker(s) here again; the run goes "
                             "on")
            self.seen, self.since = True, None
        elif self.since is None:
            self.since = now
            progress.say(self._alone(waiting))
        elif now - self.since > self.wait:
            came = "came back" if self.seen else "joined"
            raise WorkersLost(f"no dask worker {came} within {self.wait:g} s and {waiting} "
                              f"cell(s) are still to run; the finished rows are kept, so "
                              f"{self.add} and run the same command again")
        return self.workers

    def show(self, on_workers: int) -> None:
        """The bar's note: the workers and the cells on them (running or next in line)."""
        progress.note(f"{self.workers} worker(s), {on_workers} cell(s) on them")

    def _alone(self, waiting: int) -> str:
        if self.queued and not self.seen:
            return (f"ordauc: waiting for {self.queued} to start the dask workers ({waiting} "
                    f"cell(s) to run); the run stops if none has joined within {self.wait:g} s "
                    f"({LOST_ENV})")
        return (f"ordauc: every dask worker is gone and {waiting} cell(s) are still to run; "
                f"{self.add} within {self.wait:g} s ({LOST_ENV}), or the run stops with the "
                "finished rows kept")
