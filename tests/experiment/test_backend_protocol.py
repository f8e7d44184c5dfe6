"""The backends' contract (:class:`ordauc.experiment.backends.Backend`): every ``--backend`` name
makes, through the one factory, a backend that declares it; the memory guard divides the limit
by what the backend declares; the cluster modules do not import each other; and a dask run
waits for its results through documented dask calls without piling up waiters on the client.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO

from ordauc.experiment import runner
from ordauc.experiment.backends import BACKENDS, Backend, LocalBackend, make_backend
from ordauc.experiment.cluster import DaskBackend, SchedulerAddress
from ordauc.experiment.isolate import ParentGuard

EXPERIMENT = REPO / "ordauc" / "experiment"
MEMBERS = ("name", "check", "memory_share", "data_handle", "guard", "map")
# 1,500 training rows: SAMULT needs about 36 MB (as in test_seams_memory).
LARGER = {"datasets": [{"name": "synthetic_binary", "n": 2000, "d": 5}],
          "resampling": {"n_labeled": [100]},
          "solvers": {"samult": None}}


def test_the_protocol_names_every_member() -> None:
    declared = {n for n in vars(Backend) if not n.startswith("_")} | set(
        Backend.__annotations__)
    assert declared == set(MEMBERS)
    for name in ("loky", "dask", "slurm", "pbs"):  # n_jobs is said for each backend
        assert f"``{name}``" in Backend.__doc__


@pytest.fixture
def batch_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sbatch and qsub on PATH (never run here), and dask's configuration folder in tmp_path:
    dask-jobqueue writes its template there on its first import."""
    if importlib.util.find_spec("dask_jobqueue") is None:
        pytest.skip("--backend slurm/pbs needs dask-jobqueue (pip install 'ordauc[cluster]')")
    import dask.config

    folder = tmp_path / "dask-config"
    folder.mkdir()
    monkeypatch.setattr(dask.config, "PATH", str(folder))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for command in ("sbatch", "qsub"):
        (bin_dir / command).write_text("#!/bin/sh\nexit 1\n")
        (bin_dir / command).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_every_backend_name_makes_a_backend_of_the_protocol(batch_commands) -> None:
    pytest.importorskip("distributed")
    assert BACKENDS == ("loky", "dask", "slurm", "pbs")
    for name in BACKENDS:
        backend = make_backend(name, 4, "tcp://127.0.0.1:8786" if name == "dask" else None)
        assert backend.name == name
        assert all(callable(getattr(backend, m)) for m in MEMBERS if m != "name")
        # loky: the 4 cells at once share this machine; a dask worker's memory is its own
        assert backend.memory_share() == (4 if name == "loky" else 1)
        ref = object()
        assert backend.data_handle(ref) is ref
        if name == "loky":
            assert isinstance(backend, LocalBackend) and isinstance(backend.guard(), ParentGuard)
        else:
            assert isinstance(backend, DaskBackend) and backend.guard() is None
    assert make_backend("loky", -1, None).memory_share() == (os.cpu_count() or 1)
    assert make_backend("loky", 1, None).memory_share() == 1
    # the dask backend is one class; where its scheduler comes from is its source
    assert isinstance(make_backend("dask", -1, "tcp://h:1").source, SchedulerAddress)
    assert type(make_backend("slurm", 2, None).source).__name__ == "JobqueueCluster"


@dataclass
class _Stub:
    """A backend that only declares: how the runner's memory guard reads it."""

    name: str
    share: int
    cells_at_once: int

    def check(self) -> None:
        pass

    def memory_share(self) -> int:
        return self.share

    def parallel_cells(self) -> int:  # what the runner read before the protocol
        return self.cells_at_once


@pytest.mark.parametrize(("name", "share", "cells_at_once"),
                         [("dask", 3, 1), ("loky", 1, 4), ("loky", 2, 2)])
def test_the_memory_guard_divides_by_the_backends_share(
        name: str, share: int, cells_at_once: int, write_config, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc.config import load_config

    stub = _Stub(name, share, cells_at_once)
    monkeypatch.setattr(runner, "make_backend", lambda *args: stub)
    limit = 60 << 20  # 60 MB: SAMULT's 36 MB fits alone, not in a half or a third of it
    options = runner.RunOptions(out=tmp_path / "out", memory_limit=limit)
    prepared = runner.prepare(load_config(write_config(LARGER)), options)
    assert prepared.backend is stub
    assert prepared.checked.cell_budget == limit // share
    skipped = [key for key in prepared.checked.skips if "/samult/" in key]
    assert bool(skipped) == (share > 1)
    if share > 1:
        reason = prepared.checked.skips[skipped[0]]
        assert f"shared by {share} parallel cells" in reason


def _imports(module: str) -> set[str]:
    """The ordauc modules ``module`` (a file of ordauc/experiment) imports, anywhere in it."""
    tree = ast.parse((EXPERIMENT / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {name for name in found if name.startswith("ordauc.")}


def test_the_cluster_modules_do_not_import_each_other() -> None:
    cluster, jobqueue, dispatch = _imports("cluster"), _imports("jobqueue"), _imports("dispatch")
    assert not any(name.startswith("ordauc.experiment.jobqueue") for name in cluster | dispatch)
    assert not any(name.startswith("ordauc.experiment.cluster") for name in jobqueue | dispatch)
    assert not any(name.startswith("ordauc.experiment.dispatch") for name in jobqueue)
    assert not any(name.startswith("ordauc.experiment.backends")
                   for name in cluster | jobqueue | dispatch)
    # the factory is the one place that knows them all
    assert {"ordauc.experiment.cluster", "ordauc.experiment.jobqueue"} <= _imports("backends")


@dataclass(frozen=True)
class _Task:
    """A task for Dispatch: its cells (counted) and its data (not a DatasetRef: shipped)."""

    cells: tuple[int, ...]
    data: None
    seconds: float


def _nap(task: _Task) -> float:
    time.sleep(task.seconds)
    return task.seconds


class _Watch:
    """Stands for the WorkerWatch: counts the client loop's asyncio tasks at every look."""

    def __init__(self, client: object) -> None:
        self.client, self.on_workers, self.loop_tasks = client, set(), []

    def look(self, waiting: int) -> int:
        self.loop_tasks.append(self.client.sync(_count_tasks))
        return 1

    def show(self, on_workers: int) -> None:
        pass


def _never_lost(task: _Task, message: str) -> None:
    raise AssertionError(f"no worker dies here, yet {task} was lost: {message}")


async def _count_tasks() -> int:
    return len(asyncio.all_tasks())


# The in-process cluster names itself after this machine's outward address; a machine with no
# network has none, and distributed warns before it falls back to the host name (harmless here).
@pytest.mark.filterwarnings("ignore:Couldn't detect a suitable IP address:RuntimeWarning")
def test_a_dispatch_yields_each_task_once_and_leaves_no_waiters(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One long task and many short ones behind it on a one-thread worker: every result comes
    back once, in completion order, and the waits for the long one (a tick each) add nothing
    to the client's loop (a ``distributed.wait`` that times out leaves one waiter per future
    still out, each time)."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from ordauc.experiment import dispatch as dispatch_module
    from ordauc.experiment.dispatch import Dispatch

    monkeypatch.setattr(dispatch_module, "TICK_S", 0.1)  # many waits within the long task
    tasks = [_Task((0,), None, 1.5)] + [_Task((i,), None, 0.0) for i in range(1, 41)]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        watch = _Watch(client)
        out = list(Dispatch(client, _nap, _never_lost, watch).run(tasks))
    assert sorted(out) == sorted(t.seconds for t in tasks)
    assert len(watch.loop_tasks) >= 8  # it waited, a tick at a time
    # the loop holds a few tasks per future out (dask's own); the waits add none to them
    assert max(watch.loop_tasks) <= watch.loop_tasks[0] + 5, watch.loop_tasks
