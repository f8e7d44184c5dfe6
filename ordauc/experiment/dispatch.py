"""One run's tasks on the workers of a dask.distributed client (:class:`Dispatch`), through
dask's own API:

- Datasets travel once. The client loads each dataset the tasks need (each partition a task
  needs) once and scatters it; every task gets the scattered future as an argument, so dask
  runs it where the data is, or copies the data from worker to worker, never again from the
  client. On the worker the task runs :func:`~ordauc.experiment.cell.run_cell` on a copy of
  itself whose ``data`` is a :class:`Scattered` handle. Only the client needs the data folder.
  A dataset is released when its last task is back.
- Rows come back as cells finish (``distributed.as_completed``); the runner records them as
  with loky.
- A worker that dies loses no cell: dask runs its tasks again elsewhere. A task that killed
  more than ``distributed.scheduler.allowed-failures`` workers ends ``KilledWorker`` and its
  cells get ``error`` rows naming the lost workers. A task whose scattered dataset was lost
  with every worker holding it is submitted again with the dataset scattered anew (as many
  times). Each task's rows are yielded exactly once.
- Between results the client's watch (:class:`~ordauc.experiment.watch.WorkerWatch`) looks at
  the workers, once a second.

A worker runs a task per thread and forks each cell from the worker process; a solver's
warm-up in the worker and those forks take turns (:func:`_on_worker`).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from dataclasses import dataclass, replace
from typing import Any

from ordauc.experiment.cell import DatasetRef, describe, load_repetition, warm_up
from ordauc.experiment.watch import TICK_S, WorkerWatch

_SCATTER_WAIT_S = 5.0  # for a worker to scatter to; none by then: the task waits with the rest
_POLL_S = 0.02  # how often a dispatch waiting for a result asks whether one is back


@dataclass(frozen=True)
class Scattered:
    """A dataset loaded by the client and scattered to the workers, as a task sees it there.

    ``load`` with the arguments it was loaded with returns it without reading anything; any
    other call loads through ``ref``, the :class:`~ordauc.experiment.cell.DatasetRef` it came
    from (the same signature, so a cell cannot tell the two apart).

    Parameters
    ----------
    ref : DatasetRef
        Where the dataset comes from.
    extra : dict
        The keyword arguments of ``ref.load`` it was loaded with (e.g. ``partition``).
    dataset : Dataset
        The loaded dataset.
    """

    ref: Any
    extra: dict[str, Any]
    dataset: Any

    def load(self, **extra: Any) -> Any:
        return self.dataset if extra == self.extra else self.ref.load(**extra)


@dataclass(frozen=True)
class _Source:
    """One dataset a task loads: its ref, the load's arguments and a key naming both."""

    key: str
    ref: Any
    extra: dict[str, Any]


class _Probe:
    """Stands for a task's data to learn which ``load`` call the cell makes."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def load(self, **extra: Any) -> None:
        self.calls.append(extra)


def _source(task: Any) -> _Source | None:
    """What ``task`` loads, or None for a handle that is not a DatasetRef (shipped as is)."""
    if not isinstance(task.data, DatasetRef):
        return None
    probe = _Probe()
    load_repetition(replace(task, data=probe))  # the cell's own choice (a partition or all)
    extra = probe.calls[0] if len(probe.calls) == 1 else {}
    ref = task.data
    key = repr((ref.name, sorted(ref.params.items()), ref.data_dir, sorted(extra.items())))
    return _Source(key, ref, extra)


# In a worker: its solvers' warm-ups and the forks of its cells, one at a time (_on_worker).
_FORKS = threading.RLock()
_FORKS_HOOKED: list[bool] = []  # the at-fork hooks are in place in this process


def _on_worker(fn: Callable[[Any], Any], task: Any, extra: dict[str, Any] | None = None,
               dataset: Any = None) -> Any:
    """On the worker: ``fn`` on the task, given its scattered dataset (resolved by dask) when
    it has one.

    A worker runs a task per thread, each cell in a process forked from the worker
    (:func:`~ordauc.experiment.isolate.run_isolated`), and each solver class first warms up in
    the worker itself (:func:`~ordauc.experiment.cell.warm_up`: numba compiles its loops,
    holding numba's lock). A fork while another thread compiles would leave the cell's process
    with that lock taken for ever; so the warm-ups run here under a lock that every fork of
    this process takes too, and run_cell's own warm-up finds the class warm.
    """
    _hold_forks_during_warm_ups()
    if hasattr(task, "estimator"):
        with _FORKS:
            warm_up(task.estimator)
    if dataset is not None:
        task = replace(task, data=Scattered(task.data, extra or {}, dataset))
    return fn(task)


def _hold_forks_during_warm_ups() -> None:
    with _FORKS:
        if not _FORKS_HOOKED and hasattr(os, "register_at_fork"):
            os.register_at_fork(before=_FORKS.acquire, after_in_parent=_FORKS.release,
                                after_in_child=_FORKS.release)
            _FORKS_HOOKED.append(True)


class Dispatch:
    """One run's tasks on a client's workers: submits them, yields what comes back, submits
    again what was lost (see the module).

    Parameters
    ----------
    client : distributed.Client
        Connected to the scheduler.
    fn : callable
        What a worker computes for one task.
    lost : callable
        ``lost(task, message)``, what stands for ``fn(task)`` when the task cannot run.
    watch : WorkerWatch
        Looks at the workers while tasks are out.
    """

    def __init__(self, client: Any, fn: Callable[[Any], Any],
                 lost: Callable[[Any, str], Any], watch: WorkerWatch) -> None:
        import dask

        self.client, self.fn, self.lost, self.watch = client, fn, lost, watch
        self.limit = int(dask.config.get("distributed.scheduler.allowed-failures", 3))
        self.tag = uuid.uuid4().hex[:8]  # keys of runs sharing a scheduler never collide
        self.futures: dict[Any, int] = {}  # in flight -> task index
        self.keys: dict[int, list[str]] = {}  # task index -> every key it was submitted as
        self.retry: list[int] = []  # lost with their dataset: submitted when workers are back
        self.scattered: dict[str, Any] = {}  # source key -> scattered future
        self.unloadable: set[str] = set()  # sources the client failed to load
        self.users: Counter[str] = Counter()  # source key -> tasks not back yet

    def run(self, tasks: list[Any]) -> Iterator[Any]:
        from distributed import as_completed

        self.tasks, self.sources = tasks, [_source(t) for t in tasks]
        self.left = sum(len(t.cells) for t in tasks)  # cells not back yet
        for source in self.sources:
            if source is not None:
                self.users[source.key] += 1
        with self.client.as_current():  # as_completed runs on the current client's loop
            self.done = as_completed(with_results=False)
        self._submit_all(list(range(len(tasks))))
        while self.futures or self.retry:
            for future in self._ready():
                i = self.futures.pop(future)
                out = self._outcome(future, i)
                future.release()  # a result kept on a worker would be computed again if lost
                if out is not None:
                    self._release(i)
                    self.watch.show(self._on_workers())
                    yield out
            if self.watch.look(self.left) and self.retry:
                retry, self.retry = self.retry, []
                self._submit_all(retry)
            self.watch.show(self._on_workers())

    def _on_workers(self) -> int:
        """The cells of the tasks on the workers at the watch's last look, still out."""
        seen = self.watch.on_workers
        return sum(len(self.tasks[i].cells) for f, i in self.futures.items() if f.key in seen)

    def _ready(self) -> list[Any]:
        """The futures done by now, after waiting up to a tick for the first one.

        ``as_completed`` hands each future back once, when it first completes, and its
        documented calls wait without a time limit; so a tick is waited by asking
        ``has_ready`` every few milliseconds, which costs nothing next to a cell.
        (``distributed.wait(..., timeout=...)`` would wait as well, but each call that times
        out leaves a waiter behind on the client's loop for every future still out.)
        """
        done, deadline = self.done, time.monotonic() + TICK_S
        while not done.has_ready() and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        return list(done.next_batch(block=False))

    def _submit_all(self, indices: list[int]) -> None:
        for n, i in enumerate(indices):
            if not self._submit(i):  # no worker took a dataset: the others wait as well
                self.retry.extend(indices[n:])
                return

    def _submit(self, i: int) -> bool:
        """Submit task ``i``; False when its dataset found no worker to go to."""
        task, source = self.tasks[i], self.sources[i]
        try:
            data = self._scatter(source) if source is not None else None
        except (TimeoutError, asyncio.TimeoutError):  # no worker: the watch waits for one
            return False
        attempts = self.keys.setdefault(i, [])
        key = f"ordauc-cell-{self.tag}-{i}-{len(attempts)}"
        attempts.append(key)
        if data is None:  # not ours to scatter, or unloadable here: the worker loads it
            future = self.client.submit(_on_worker, self.fn, task, key=key, pure=False)
        else:
            future = self.client.submit(_on_worker, self.fn, task, source.extra, data,
                                        key=key, pure=False)
        self.futures[future] = i
        self.done.add(future)
        return True

    def _scatter(self, source: _Source) -> Any:
        """The scattered future of ``source``: loaded and scattered on first use, and again
        once lost with its workers; None when the client cannot load it (the cells then load
        it on the workers and fail there as on loky, with their tracebacks)."""
        future = self.scattered.get(source.key)
        if future is not None and future.status == "finished":
            return future
        if source.key in self.unloadable:
            return None
        try:
            dataset = source.ref.load(**source.extra)
        except Exception:
            self.unloadable.add(source.key)
            return None
        # Not broadcast: one copy leaves the client; dask copies it to the workers that need
        # it from the one that has it (hash=False: a large dataset is not hashed for a key).
        future = self.scattered[source.key] = self.client.scatter(
            dataset, hash=False, timeout=_SCATTER_WAIT_S)
        return future

    def _outcome(self, future: Any, i: int) -> Any:
        """What task ``i`` gives, or None when it was lost and will be submitted again."""
        from distributed import KilledWorker

        task = self.tasks[i]
        if future.status == "finished":
            try:
                return future.result()
            except CancelledError:  # the result was lost with its worker before it came back
                pass
        elif future.status == "error":
            exc = future.exception()
            if isinstance(exc, KilledWorker):
                return self.lost(task, self._killed(i, exc))
            # run_cell catches the cell's failures: this is the worker's (e.g. no ordauc there)
            return self.lost(task, f"dask could not run the cell: {describe(exc)}")
        # cancelled: its scattered dataset was lost with every worker holding it
        if len(self.keys[i]) > self.limit:
            return self.lost(task, self._killed(i, None))
        self.retry.append(i)
        return None

    def _killed(self, i: int, exc: Any) -> str:
        """One line naming the workers that died while running task ``i``."""
        keys = set(self.keys[i])
        try:
            events = self.client.get_events("all")
        except Exception:  # the message does without them
            events = ()
        workers = [msg["worker"] for _, msg in events
                   if isinstance(msg, dict) and msg.get("action") == "remove-worker"
                   and keys & set(msg.get("processing-tasks", ()))]
        if not workers and exc is not None:
            workers = [exc.last_worker.address]
        named = ", ".join(dict.fromkeys(workers)) or "workers unknown"
        return (f"lost with the dask workers that died while running it ({named}), more than "
                f"distributed.scheduler.allowed-failures = {self.limit} times; why they died "
                "(memory, a kill, a crash) is in the workers' logs")

    def _release(self, i: int) -> None:
        self.left -= len(self.tasks[i].cells)
        source = self.sources[i]
        if source is not None:
            self.users[source.key] -= 1
            if not self.users[source.key]:  # its last task is back: free the workers' copy
                self.scattered.pop(source.key, None)
