"""The dask backend on a real `dask scheduler` and `dask worker` (a nanny starts the worker, so
the local pool's parent check must not apply): cells run there and the table is the loky one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("distributed", reason="the dask backend needs dask.distributed "
                    "(pip install 'ordauc[cluster]')")

STUDY = {"datasets": ["breast_cancer"],
         "resampling": {"kind": "budget", "repeats": 2, "n_labeled": [40], "n_unlabeled": [50]},
         "tuning": {"kind": "cv", "folds": 3},
         "solvers": {"samult": {"grid": {"lam": [0.5, 1.0]}},
                     "qsg_s2auc": {"params": {"n_iter": 40}}}}


def _dask(*args: str) -> list[str]:
    exe = shutil.which("dask", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("the `dask` command is not installed beside this Python")
    return [exe, *args]


@pytest.fixture
def cluster(tmp_path: Path):
    """A scheduler and one nanny-managed worker on 127.0.0.1; yields the scheduler address."""
    info = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = [subprocess.Popen(_dask("scheduler", "--host", "127.0.0.1", "--port", "0",
                                    "--no-dashboard", "--scheduler-file", str(info)),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        procs.append(subprocess.Popen(
            _dask("worker", "--scheduler-file", str(info), "--nworkers", "1", "--nthreads", "2",
                  "--no-dashboard", "--host", "127.0.0.1"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        address = json.loads(info.read_text())["address"]
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.mark.slow  # a real scheduler and worker process end to end: `make test-all`
def test_cells_run_on_dask_workers_like_on_loky(cluster: str, write_config, cli,
                                                tmp_path: Path) -> None:
    config = write_config(STUDY)
    code, _, stderr = cli("run", config, "--out", tmp_path / "dask", "--backend", "dask",
                          "--scheduler", cluster, "-j", "2")
    assert code == 0, stderr
    code, _, stderr = cli("run", config, "--out", tmp_path / "loky", "-j", "2")
    assert code == 0, stderr
    dask = pd.read_csv(tmp_path / "dask" / "results.csv").set_index("key").sort_index()
    loky = pd.read_csv(tmp_path / "loky" / "results.csv").set_index("key").sort_index()
    assert (dask["status"] == "ok").all() and len(dask) == 4
    for column in ("auc", "mze", "p_lam", "split_seed", "solver_seed"):
        pd.testing.assert_series_equal(dask[column], loky[column])


def test_dask_backend_needs_a_scheduler(cli, write_config, tmp_path: Path) -> None:
    code, _, stderr = cli("run", write_config(STUDY), "--out", tmp_path / "o", "--backend",
                          "dask")
    assert code == 2 and "--scheduler" in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "o").exists()
