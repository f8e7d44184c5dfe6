"""A dask worker with several threads forks each cell from one of them while another may be
warming a solver up in the worker itself (numba compiling, its lock held): the fork must wait
for the warm-up, or the cell's process starts with that lock taken for ever."""

from __future__ import annotations

import time

import pandas as pd
import pytest

pytest.importorskip("distributed", reason="the dask backend needs dask.distributed "
                    "(pip install 'ordauc[cluster]')")

from runner_solvers import MeanRanker  # noqa: E402


def _numba_lock():  # noqa: ANN202
    from numba.core.compiler_lock import global_compiler_lock

    return global_compiler_lock


class SlowWarmUp(MeanRanker):
    """Warms up for 3 s holding numba's compiler lock, as a long compilation does."""

    def warm_up(self) -> None:
        with _numba_lock():
            time.sleep(3)


class NumbaFit(MeanRanker):
    """Takes numba's compiler lock in its fit, as a first call of a compiled loop does."""

    def fit(self, X, y):  # noqa: ANN001, ANN201
        with _numba_lock():
            return super().fit(X, y)


@pytest.mark.slow
def test_cells_fork_only_between_warm_ups(test_solvers, write_config, cli, tmp_path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from distributed import LocalCluster

    from ordauc import solvers

    monkeypatch.setitem(solvers._REGISTRY, "slow_warm_up", "test_cluster_fork:SlowWarmUp")
    monkeypatch.setitem(solvers._REGISTRY, "numba_fit", "test_cluster_fork:NumbaFit")
    config = write_config({"datasets": ["breast_cancer"], "timeout": 20,
                           "resampling": {"repeats": 4, "n_labeled": [30], "n_unlabeled": [20]},
                           "solvers": {"slow_warm_up": None, "numba_fit": None}})
    # one worker, two threads: the numba_fit cells fork while slow_warm_up warms up
    with LocalCluster(host="127.0.0.1", n_workers=1, threads_per_worker=2, processes=True,
                      dashboard_address=None) as cluster:
        code, _, stderr = cli("run", config, "--out", tmp_path / "out", "--backend", "dask",
                              "--scheduler", cluster.scheduler_address)
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert code == 0, table[["key", "status", "message"]].to_string()
    assert len(table) == 8 and (table["status"] == "ok").all()
