"""Cluster backends: cells on the workers of a dask.distributed scheduler.

- :class:`DaskBackend` (``dask``): joblib's dask backend refuses ``inner_max_num_threads``
  (each cell still caps BLAS itself), and a dask worker's parent is its nanny, so no parent
  check applies: the scheduler owns its workers' lifetime.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ordauc.errors import UserError


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


def make_cluster_backend(name: str, n_jobs: int, scheduler: str | None) -> DaskBackend:
    """The cluster backend ``name``; one sentence for a bad combination."""
    if scheduler is None:
        raise UserError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    return DaskBackend(scheduler, n_jobs)
