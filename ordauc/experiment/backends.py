"""Execution backends: where cells run. Each owns its workers and its orphan guard.

- :class:`LocalBackend` (``loky``): worker processes on this machine. BLAS is capped at one
  thread per worker from the start (joblib's ``inner_max_num_threads``), and each worker checks
  that its parent is still the runner (:class:`~ordauc.experiment.isolate.ParentGuard`).
- the cluster backends (``dask``, in :mod:`ordauc.experiment.cluster`): the workers of a
  dask.distributed scheduler.

A backend also decides how a dataset reaches a cell (``data_handle``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ordauc.errors import UserError
from ordauc.experiment.isolate import ParentGuard

BACKENDS = ("loky", "dask")  # the cluster module may add its own


class LocalBackend:
    """joblib's loky processes on this machine."""

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
        """How many cells run at once (the memory guard shares the limit between them)."""
        return (os.cpu_count() or 1) if self.n_jobs == -1 else self.n_jobs

    def map(self, fn: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        """``fn(task)`` for every task, in completion order."""
        from joblib import Parallel, delayed, parallel_config

        with parallel_config(backend="loky", inner_max_num_threads=1):
            yield from Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(
                delayed(fn)(task) for task in tasks)


def make_backend(name: str, n_jobs: int, scheduler: str | None) -> Any:
    """The backend the command line asked for; one sentence for a bad combination."""
    if name not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise UserError(f"--n-jobs must be a positive number of cells at once, or -1 for one "
                        f"per core, got {n_jobs}")
    if name != "loky":
        from ordauc.experiment.cluster import make_cluster_backend

        return make_cluster_backend(name, n_jobs, scheduler)
    if scheduler is not None:
        raise UserError("--scheduler needs --backend dask")
    return LocalBackend(n_jobs)
