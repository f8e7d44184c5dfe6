"""Cluster backends: cells on the workers of a dask.distributed scheduler.

One backend class, :class:`DaskBackend`, serves ``dask``, ``slurm`` and ``pbs``; what differs
is where its scheduler and workers come from, its ``source`` (a :class:`ClusterSource`):

- :class:`SchedulerAddress` (``dask``): a scheduler someone started (``--scheduler ADDRESS``).
- :class:`~ordauc.experiment.jobqueue.JobqueueCluster` (``slurm``, ``pbs``): a scheduler in
  this process whose workers are batch jobs, through dask-jobqueue.

The source hands the backend a client and the watch of its workers
(:mod:`ordauc.experiment.watch`); the run's tasks go out through
:class:`~ordauc.experiment.dispatch.Dispatch` (datasets scattered once, lost workers survived,
each task's rows yielded once). The client looks at the workers every second: the progress
bar shows them, and when none is left the run says so at once on stderr, waits
``ORDAUC_WORKER_LOST_WAIT`` seconds (300 by default) for one, then stops with one sentence (exit
3), the finished rows kept. ``check`` refuses a scheduler that has no worker within
``ORDAUC_WORKER_WAIT`` seconds (10), before anything is written.

A dask worker's parent is its nanny, so no parent check applies (``guard`` is None): the
scheduler owns its workers' lifetime. The scheduler and the workers need ordauc installed (dask
unpickles the tasks there), not the data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from ordauc.errors import UserError
from ordauc.experiment.cell import lost_outcomes
from ordauc.experiment.dispatch import Dispatch
from ordauc.experiment.watch import (
    LOST_ENV,
    LOST_S,
    WAIT_ENV,
    WAIT_S,
    WorkerWatch,
    seconds_from_env,
)

CLUSTER_BACKENDS = ("dask", "slurm", "pbs")  # the --backend names DaskBackend serves


class ClusterSource(Protocol):
    """Where a :class:`DaskBackend`'s scheduler and workers come from."""

    lost_wait: float  # seconds without any worker before a run stops (ORDAUC_WORKER_LOST_WAIT)

    def check(self) -> None:
        """One sentence (a UserError) if the cluster cannot serve a run; submits nothing."""

    def watch(self, n_tasks: int) -> AbstractContextManager[WorkerWatch]:
        """The cluster ready for ``n_tasks`` tasks, as the watch of its workers (whose
        ``client`` the run submits through); whatever was started for the run is stopped
        on the way out."""


class SchedulerAddress:
    """The dask.distributed scheduler someone started, at ``scheduler`` (``tcp://host:8786``).

    Parameters
    ----------
    scheduler : str
        The scheduler's address.
    """

    lost_wait = LOST_S  # default of LOST_ENV

    def __init__(self, scheduler: str) -> None:
        self.scheduler = scheduler

    def check(self) -> None:
        """Reach the scheduler and see a worker within ``ORDAUC_WORKER_WAIT`` seconds (10 by
        default), so a wrong address or an empty cluster is one sentence before any work."""
        wait = seconds_from_env(WAIT_ENV, WAIT_S)
        with self._client() as client:
            try:
                client.wait_for_workers(1, timeout=wait)
            except (TimeoutError, asyncio.TimeoutError):
                raise UserError(f"the dask scheduler at {self.scheduler} has no workers (none "
                                f"joined within {wait:g} s); start some with `dask worker "
                                f"{self.scheduler} --nthreads 1`, or set {WAIT_ENV} to wait "
                                "longer") from None

    @contextmanager
    def watch(self, n_tasks: int) -> Iterator[WorkerWatch]:
        with self._client() as client:
            yield WorkerWatch(client, seconds_from_env(LOST_ENV, self.lost_wait),
                              f"start workers (`dask worker {self.scheduler} --nthreads 1`)")

    def _client(self) -> Any:
        from distributed import Client

        try:
            return Client(self.scheduler, timeout=30, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot reach the dask scheduler at {self.scheduler} ({exc}); "
                            "start it (`dask scheduler`) or fix --scheduler") from None


class DaskBackend:
    """Cells on the workers of a dask.distributed scheduler (see the module).

    Parameters
    ----------
    name : str
        The ``--backend`` name (one of :data:`CLUSTER_BACKENDS`).
    source : ClusterSource
        Where the scheduler and its workers come from.
    n_jobs : int
        ``--n-jobs``, kept to be read back: what it means here is the source's (the workers a
        batch cluster keeps; nothing for a scheduler at an address). How many cells run at
        once is the workers' threads.
    """

    def __init__(self, name: str, source: ClusterSource, n_jobs: int = -1) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UserError(f"--backend {name} needs dask.distributed; install it with "
                            "pip install 'ordauc[cluster]'") from None
        self.name, self.source, self.n_jobs = name, source, n_jobs

    def guard(self) -> None:
        return None  # a dask worker's parent is its nanny, not this process

    def check(self) -> None:
        self.source.check()

    def memory_share(self) -> int:
        """1: a cell runs on a worker whose memory is its own, so the limit is per cell."""
        return 1

    def data_handle(self, ref: Any) -> Any:
        return ref  # map scatters what the tasks need, each dataset once

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            lost: Callable[[Any, str], Any] | None = None) -> Iterator[Any]:
        """``fn(task)`` on the workers for every task, in completion order.

        Parameters
        ----------
        fn : callable
            What a worker computes for one task (:func:`~ordauc.experiment.cell.run_cell`).
        tasks : iterable of CellTask
            The tasks; their ``DatasetRef`` datasets are scattered, each once.
        lost : callable, optional
            ``lost(task, message)``, what stands for ``fn(task)`` when the task cannot run
            (it killed its workers); ``error`` rows of its cells by default.

        Yields
        ------
        object
            ``fn(task)`` or ``lost(task, message)``, once for every task.
        """
        tasks = list(tasks)
        if not tasks:
            return
        with self.source.watch(len(tasks)) as watch:
            yield from Dispatch(watch.client, fn, lost or lost_outcomes, watch).run(tasks)
