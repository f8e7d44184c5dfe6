"""Execution backends: where cells run. Each owns its workers and its orphan guard.

What every backend offers the runner is the :class:`Backend` protocol; :func:`make_backend`
makes the one ``--backend`` names.

- :class:`LocalBackend` (``loky``): worker processes on this machine, one single-worker loky
  executor per cell that runs at once (a *slot*), each given one task at a time. BLAS is
  capped at one thread per worker from the start (the thread variables are in the worker's
  environment before it imports anything), and each worker checks that its parent is still
  the runner (:class:`~ordauc.experiment.isolate.ParentGuard`), while a cell runs and while it
  waits for the next. A worker process that dies (killed, out of memory) loses only the task
  it was running: its cells are recorded as ``error`` rows
  (:func:`~ordauc.experiment.cell.lost_outcomes`), the slot gets a new worker and the other cells
  run on; the next run retries them, as it retries every failed cell. ``--n-jobs 1`` runs the
  cells in this process, one after another.
- the cluster backends (``dask``, ``slurm``, ``pbs``): one
  :class:`~ordauc.experiment.cluster.DaskBackend`, on the workers of a dask.distributed
  scheduler reached at its address (:class:`~ordauc.experiment.cluster.SchedulerAddress`) or
  started with workers as batch jobs through dask-jobqueue
  (:class:`~ordauc.experiment.jobqueue.JobqueueCluster`).

A backend also decides how a dataset reaches a cell (``data_handle``).
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ordauc.errors import UserError
from ordauc.experiment.cluster import CLUSTER_BACKENDS, DaskBackend, SchedulerAddress
from ordauc.experiment.isolate import ParentGuard
from ordauc.experiment.jobqueue import SYSTEMS, JobqueueCluster

BACKENDS = ("loky", *CLUSTER_BACKENDS)

# The variables joblib sets for ``inner_max_num_threads``: read by the BLAS and OpenMP
# libraries when they load, so they must be in the worker's environment from its start.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS",
                "NUMEXPR_NUM_THREADS")
_IDLE_TIMEOUT_S = 300  # an idle worker exits after this (joblib's default); a slot respawns it
_WATCH_S = 0.5
_NO_TASK = object()


class Backend(Protocol):
    """Where the cells of a run execute: what the runner asks of every backend.

    ``--n-jobs`` (``n_jobs``) means, per backend:

    - ``loky``: how many cells run at once on this machine, each in a worker process of its
      own (``-1``: one per core; ``1``: in the runner's process, one after another). Those
      cells share this machine's memory, so it is also :meth:`memory_share`.
    - ``dask``: nothing. The workers' threads are how many cells run at once (start workers
      with ``--nthreads 1`` so that each cell has a core).
    - ``slurm``, ``pbs``: how many worker jobs to keep (a job that ends is submitted again
      while cells are left); ``-1``: between one and one per task left, as dask adapts. A
      worker runs as many cells at once as it has threads.

    Attributes
    ----------
    name : str
        The ``--backend`` name (one of :data:`BACKENDS`).
    """

    name: str

    def check(self) -> None:
        """Fail before any work (nothing written, nothing submitted) with one sentence, a
        :class:`~ordauc.errors.UserError`, when the backend cannot run the cells."""

    def memory_share(self) -> int:
        """How many cells share one machine's memory at once: the memory guard gives each
        cell the memory limit divided by this."""

    def data_handle(self, ref: Any) -> Any:
        """What a cell gets to load the dataset ``ref`` (a
        :class:`~ordauc.experiment.cell.DatasetRef`) from: anything with ``ref``'s ``load``."""

    def guard(self) -> ParentGuard | None:
        """What a running cell checks to stop once the runner is gone; None when someone else
        owns the workers' lifetime (a dask worker's nanny)."""

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            lost: Callable[[Any, str], Any] | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task, in completion order, exactly once each; for a task
        whose worker died and that will not run again, ``lost(task, message)`` instead
        (:func:`~ordauc.experiment.cell.lost_outcomes` by default). Stopping early (closing the
        iterator) leaves no worker computing for nobody."""


class LocalBackend:
    """loky worker processes on this machine (see the module docstring)."""

    name = "loky"

    def __init__(self, n_jobs: int = 1) -> None:
        self.n_jobs = n_jobs

    def guard(self) -> ParentGuard:
        return ParentGuard(os.getpid())

    def check(self) -> None:
        """Nothing to reach: local processes."""

    def data_handle(self, ref: Any) -> Any:
        return ref

    def parallel_cells(self) -> int:
        """How many cells run at once."""
        return (os.cpu_count() or 1) if self.n_jobs == -1 else self.n_jobs

    def memory_share(self) -> int:
        """The cells at once: all of them share this machine's memory."""
        return self.parallel_cells()

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            lost: Callable[[Any, str], Any] | None = None) -> Iterator[Any]:
        """``fn(task)`` for every task, in completion order.

        Parameters
        ----------
        fn : callable
            What a worker computes for one task (picklable; it should catch the failures of
            the work itself).
        tasks : iterable
            The tasks, submitted in this order.
        lost : callable, optional
            ``lost(task, message)``, what stands for ``fn(task)`` when the worker process
            running it dies; :func:`~ordauc.experiment.cell.lost_outcomes` by default.

        Yields
        ------
        object
            ``fn(task)``, or ``lost(task, message)``, once for every task.

        Notes
        -----
        Any other exception of a worker propagates once every worker is killed, as they are
        when the caller stops early (Ctrl-C, or SIGTERM raised as an exception).
        """
        if self.parallel_cells() == 1:  # in this process, as joblib does for n_jobs=1
            for task in tasks:
                yield fn(task)
            return
        if lost is None:
            from ordauc.experiment.cell import lost_outcomes

            lost = lost_outcomes
        yield from _Slots(self.parallel_cells(), self.guard()).run(fn, tasks, lost)


class _Slots:
    """``size`` single-worker loky executors, each running one task at a time.

    One task per worker is what makes a dead worker attributable: loky fails every pending
    future of a pool whose worker dies, so with one worker and one future the failed future is
    exactly the lost task, and only that slot needs a new executor.
    """

    def __init__(self, size: int, guard: ParentGuard) -> None:
        self.executors: list[Any] = [None] * size
        self.guard = guard

    def run(self, fn: Callable[[Any], Any], tasks: Iterable[Any],
            lost: Callable[[Any, str], Any]) -> Iterator[Any]:
        from joblib.externals.loky import FIRST_COMPLETED, wait
        from joblib.externals.loky.process_executor import TerminatedWorkerError

        queue = iter(tasks)
        running: dict[Any, tuple[int, Any]] = {}

        def start(slot: int) -> None:
            task = next(queue, _NO_TASK)
            if task is not _NO_TASK:
                running[self.submit(slot, fn, task)] = (slot, task)

        finished = False
        try:
            for slot in range(len(self.executors)):
                start(slot)
            while running:
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    slot, task = running.pop(future)
                    try:
                        result = future.result()
                    except TerminatedWorkerError as exc:
                        self.retire(slot)
                        result = lost(task, lost_worker_message(exc))
                    start(slot)  # before yielding: the slot works while the caller records
                    yield result
            finished = True
        finally:
            # Killed (with their cells' processes) unless every task is back: an exception or
            # an early stop must leave no worker computing for nobody.
            for slot in range(len(self.executors)):
                self.retire(slot, kill=not finished)

    def submit(self, slot: int, fn: Callable[[Any], Any], task: Any) -> Any:
        """Submit ``fn(task)`` on ``slot``, on a new executor if it has none or a broken one
        (its worker died between two tasks)."""
        from joblib.externals.loky import BrokenProcessPool

        if self.executors[slot] is not None:
            try:
                return self.executors[slot].submit(fn, task)
            except BrokenProcessPool:
                self.retire(slot)
        self.executors[slot] = _executor(self.guard)
        return self.executors[slot].submit(fn, task)

    def retire(self, slot: int, kill: bool = False) -> None:
        executor, self.executors[slot] = self.executors[slot], None
        if executor is not None:
            executor.shutdown(wait=True, kill_workers=kill)


def _executor(guard: ParentGuard) -> Any:
    from joblib.externals.loky import ProcessPoolExecutor

    env = dict.fromkeys(_THREAD_VARS, "1")
    env.setdefault("ENABLE_IPC", os.environ.get("ENABLE_IPC", "1"))  # TBB pools: share, as joblib
    return ProcessPoolExecutor(max_workers=1, timeout=_IDLE_TIMEOUT_S, env=env,
                               initializer=_watch_parent, initargs=(guard,))


def _watch_parent(guard: ParentGuard) -> None:
    """Worker initializer: exit once the runner is gone, also while idle (a running cell checks
    the guard itself), so that a killed runner leaves no worker waiting for tasks forever."""
    def watch() -> None:
        while not guard.orphaned():
            time.sleep(_WATCH_S)
        os._exit(1)

    threading.Thread(target=watch, name="ordauc-parent-guard", daemon=True).start()


def lost_worker_message(exc: BaseException) -> str:
    """One line on how a worker process ended, from the exit code loky reports in ``exc``
    (a negative code is the signal that killed it).

    Parameters
    ----------
    exc : BaseException
        loky's ``TerminatedWorkerError`` for a pool of one worker.

    Returns
    -------
    str
        E.g. ``its worker process was killed by SIGKILL (signal 9)``.
    """
    found = re.search(r"exit codes of the workers are \{[^}(]*\((-?\d+)\)", str(exc))
    if found is None:
        return "its worker process ended unexpectedly"
    code = int(found.group(1))
    if code >= 0:
        return f"its worker process exited with code {code}"
    try:
        name = f"{signal.Signals(-code).name} "
    except ValueError:
        name = ""
    return f"its worker process was killed by {name}(signal {-code})"


def make_backend(name: str, n_jobs: int, scheduler: str | None) -> Backend:
    """The backend the command line asked for, the only place that maps a ``--backend`` name
    to a backend; one sentence for a bad combination.

    Parameters
    ----------
    name : str
        ``--backend``, one of :data:`BACKENDS`.
    n_jobs : int
        ``--n-jobs`` (what it means per backend: :class:`Backend`).
    scheduler : str or None
        ``--scheduler``, the address of a dask scheduler (``dask`` only).

    Returns
    -------
    Backend
        Not checked yet: :meth:`Backend.check` reaches what it needs.
    """
    if name not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise UserError(f"--n-jobs must be a positive number of cells at once, or -1 for one "
                        f"per core, got {n_jobs}")
    if name in SYSTEMS:
        if scheduler is not None:
            raise UserError(f"--backend {name} starts its own scheduler, so --scheduler does not "
                            "apply (it goes with --backend dask)")
        return DaskBackend(name, JobqueueCluster(name, n_jobs), n_jobs)
    if name == "dask":
        if scheduler is None:
            raise UserError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        return DaskBackend(name, SchedulerAddress(scheduler), n_jobs)
    if scheduler is not None:
        raise UserError("--scheduler needs --backend dask")
    return LocalBackend(n_jobs)
