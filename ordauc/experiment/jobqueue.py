"""``--backend slurm`` and ``--backend pbs``: dask workers as batch jobs, through dask-jobqueue.

This module only builds the cluster (:class:`JobqueueCluster`); the cells run on it through
the dask backend (:class:`~ordauc.experiment.cluster.DaskBackend`), as on any scheduler.

The scheduler runs in this process (a login node, say) and the workers are jobs it submits
with ``sbatch`` or ``qsub``. What a job asks for (cores, memory, queue, walltime, account,
modules to load, ...) is dask's own jobqueue configuration, the standard
``~/.config/dask/jobqueue.yaml`` (keys ``jobqueue.slurm.*`` or ``jobqueue.pbs.*``), so a
cluster's settings for any dask-jobqueue user serve ordauc too; ``cores`` and ``memory`` are
required. ordauc decides only how many workers: ``--n-jobs N`` keeps N of them (a job that
ends, at its walltime say, is submitted again while cells are left), ``--n-jobs -1`` adapts
between one and one per task left. A worker runs as many cells at once as it has threads.

``check`` (also part of a dry run) builds the job script from the configuration and submits
nothing; the jobs are submitted when the cells are about to run, and cancelled when the run
ends, however it ends. A job waits in the queue: the run says so and waits for its first
worker up to ``ORDAUC_WORKER_LOST_WAIT`` seconds (3600 here), as for workers lost later.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ordauc.errors import UserError
from ordauc.experiment import progress
from ordauc.experiment.cell import one_line
from ordauc.experiment.watch import LOST_ENV, QUEUE_S, WorkerWatch, seconds_from_env

_PLACEHOLDER = "tcp://SCHEDULER:8786"  # the address in a job script shown before the start


@dataclass(frozen=True)
class _System:
    title: str  # as people write it
    cluster: str  # the dask_jobqueue class
    submit: str  # the command that submits a job
    jobs: str  # the command that lists one's jobs


SYSTEMS = {"slurm": _System("Slurm", "SLURMCluster", "sbatch", "squeue -u $USER"),
           "pbs": _System("PBS", "PBSCluster", "qsub", "qstat -u $USER")}


class JobqueueCluster:
    """Where a ``slurm`` or ``pbs`` run's scheduler and workers come from: a dask-jobqueue
    cluster started in this process for the run (see the module). It is the ``source`` of a
    :class:`~ordauc.experiment.cluster.DaskBackend`.

    Parameters
    ----------
    name : {"slurm", "pbs"}
        The batch system.
    n_jobs : int
        Workers to keep (``-1``: adapt to the tasks left).
    """

    lost_wait = QUEUE_S  # a new worker waits in the batch queue first

    def __init__(self, name: str, n_jobs: int) -> None:
        system = SYSTEMS[name]
        try:
            import dask_jobqueue  # noqa: F401
        except ImportError:
            raise UserError(f"--backend {name} needs dask-jobqueue; install it with pip "
                            "install 'ordauc[cluster]'") from None
        if shutil.which(system.submit) is None:
            raise UserError(f"--backend {name} submits its workers with {system.submit}, which "
                            f"is not on PATH here; run ordauc where {system.title} is (a login "
                            "node), or start workers by hand and use --backend dask "
                            "--scheduler ADDRESS")
        self.name, self.system, self.n_jobs = name, system, n_jobs
        self.scheduler: str | None = None  # known once the cluster has started

    def check(self) -> None:
        """The configuration makes a job script; nothing is submitted."""
        self.job_script()

    def job_script(self, scheduler: str = _PLACEHOLDER) -> str:
        """The script each worker job runs, from dask's jobqueue configuration; one sentence
        when the configuration cannot make one."""
        import dask

        section = f"jobqueue.{self.name}"
        if dask.config.get(f"{section}.cores", None) is None or dask.config.get(
                f"{section}.memory", None) is None:
            raise UserError(f"--backend {self.name} needs the cores and memory of a job in "
                            f"dask's jobqueue configuration, e.g. `jobqueue: {{{self.name}: "
                            "{cores: 4, memory: 16GB}}` in ~/.config/dask/jobqueue.yaml")
        try:
            return self._cluster_class().job_cls(scheduler, name="ordauc-worker").job_script()
        except (ValueError, TypeError, KeyError) as exc:
            raise UserError(f"dask's jobqueue configuration for {self.name} cannot make a job "
                            f"script ({one_line(str(exc))}); fix it in "
                            "~/.config/dask/jobqueue.yaml") from None

    @contextmanager
    def watch(self, n_tasks: int) -> Iterator[WorkerWatch]:
        """The cluster for a run of ``n_tasks`` tasks, its jobs asked for, and the watch of
        its workers (whose ``client`` the run submits through); every job it submitted is
        cancelled on the way out, however the run ends."""
        from distributed import Client

        self.check()
        try:
            cluster = self._cluster_class()()
        except (ValueError, OSError) as exc:
            raise UserError(f"cannot start the scheduler of the {self.system.title} workers "
                            f"({one_line(str(exc))}); fix dask's jobqueue configuration "
                            "(~/.config/dask/jobqueue.yaml)") from None
        try:
            self.scheduler = cluster.scheduler_address
            if self.n_jobs == -1:
                cluster.adapt(minimum=1, maximum=n_tasks)
                keep = None
            else:
                cluster.scale(self.n_jobs)
                keep = self._keeper(cluster)
            count = f"up to {n_tasks}" if keep is None else str(self.n_jobs)
            progress.say(f"ordauc: asked {self.system.title} for {count} dask worker(s) "
                         f"(`{self.system.jobs}` shows their jobs); the scheduler is at "
                         f"{self.scheduler}")
            with Client(cluster, set_as_default=False) as client:
                yield WorkerWatch(client, seconds_from_env(LOST_ENV, self.lost_wait),
                                  f"check the worker jobs (`{self.system.jobs}`, their "
                                  "logs) and dask's jobqueue configuration",
                                  queued=self.system.title, on_look=keep)
        finally:
            cluster.close()  # cancels every job it submitted

    def _keeper(self, cluster: Any) -> Callable[[int], None]:
        """What keeps ``--n-jobs`` workers: asking the cluster again for them whenever fewer are
        there makes it submit anew the jobs that ended (once it has seen their workers go)."""
        def keep(workers: int) -> None:
            if workers < self.n_jobs:
                cluster.scale(self.n_jobs)

        return keep

    def _cluster_class(self) -> Any:
        import dask_jobqueue

        return getattr(dask_jobqueue, self.system.cluster)
