"""Execution backends: where cells run. Each owns its joblib arguments and its orphan guard.

- :class:`LocalBackend` (``loky``): worker processes on this machine. BLAS is capped at one
  thread per worker from the start (joblib's ``inner_max_num_threads``), and each worker checks
  that its parent is still the runner (:class:`~ordauc.experiment.isolate.ParentGuard`).
- :class:`DaskBackend` (``dask``): the workers of a dask.distributed scheduler. joblib's dask
  backend refuses ``inner_max_num_threads`` (each cell still caps BLAS itself), and a dask
  worker's parent is its nanny, so no parent check applies: the scheduler owns its workers'
  lifetime.

A backend also decides how a dataset reaches a cell (``data_handle``): a path-based handle for
both today, which a cluster whose workers do not share the data folder will replace by a
scattered object.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from ordauc.errors import UserError
from ordauc.experiment.isolate import ParentGuard

BACKENDS = ("loky", "dask")


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


class DaskBackend:
    """joblib's dask backend on a dask.distributed scheduler at ``scheduler``."""

    name = "dask"

    def __init__(self, scheduler: str, n_jobs: int = -1) -> None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise UserError("--backend dask needs dask.distributed; install it with "
                            "pip install 'ordauc[cluster]'") from None
        self.scheduler = scheduler
        self.n_jobs = n_jobs

    def guard(self) -> None:
        return None  # a dask worker's parent is its nanny, not this process

    def check(self) -> None:
        """Reach the scheduler now, so a wrong address is one sentence before any work."""
        self._client().close()

    def data_handle(self, ref: Any) -> Any:
        return ref

    def _client(self) -> Any:
        from distributed import Client

        try:
            return Client(self.scheduler, timeout=30)
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot reach the dask scheduler at {self.scheduler} ({exc}); "
                            "start it (`dask scheduler`) or fix --scheduler") from None

    def parallel_cells(self) -> int:
        with self._client() as client:
            return max(1, sum(w["nthreads"] for w in client.scheduler_info()["workers"]
                              .values()))

    def map(self, fn: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        from joblib import Parallel, delayed, parallel_config

        with self._client(), parallel_config(backend="dask"):
            yield from Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(
                delayed(fn)(task) for task in tasks)


def make_backend(name: str, n_jobs: int, scheduler: str | None) -> LocalBackend | DaskBackend:
    """The backend the command line asked for; one sentence for a bad combination."""
    if name not in BACKENDS:
        raise UserError(f"--backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise UserError(f"--n-jobs must be a positive number of cells at once, or -1 for one "
                        f"per core, got {n_jobs}")
    if name == "dask":
        if scheduler is None:
            raise UserError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        return DaskBackend(scheduler, n_jobs)
    if scheduler is not None:
        raise UserError("--scheduler needs --backend dask")
    return LocalBackend(n_jobs)
