"""What `ordauc` refuses before anything runs: one sentence on stderr, exit 2, nothing written.

Bad config content is in test_config's BAD list; here are the command line, the output folder,
the data cache and the execution backends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from ordauc.errors import UserError
from ordauc.experiment.backends import LocalBackend, make_backend
from ordauc.experiment.cluster import DaskBackend
from ordauc.experiment.isolate import ParentGuard

STUDY = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [30], "n_unlabeled": [20]},
         "solvers": {"mean_ranker": None}}


def files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*"))


def assert_one_sentence(code: int, stderr: str, named: str) -> None:
    assert code == 2, stderr
    assert stderr.startswith("ordauc: error: ") and named in stderr, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    message = stderr.removeprefix("ordauc: error: ").replace("e.g. ", "")
    assert ". " not in message.rstrip(".\n")


@pytest.mark.parametrize(("args", "named"), [
    (["--n-jobs", "-5"], "--n-jobs must be a positive number of cells at once, or -1 for one "
                         "per core, got -5"),
    (["--n-jobs", "0"], "got 0"),
    (["--memory-limit", "-1GB"], "--memory-limit must be a size"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"], "needs dask.distributed"),
])
def test_bad_options_are_refused(args: list[str], named: str, test_solvers, write_config, cli,
                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    config = write_config(STUDY)
    before = files(tmp_path)
    for extra in ([], ["--dry-run"]):
        code, _, stderr = cli("run", config, "--out", tmp_path / "out", *args, *extra)
        assert_one_sentence(code, stderr, named)
        assert files(tmp_path) == before


def test_a_folder_given_as_config_is_refused(cli, tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    code, _, stderr = cli("run", tmp_path / "configs", "--out", tmp_path / "out")
    assert_one_sentence(code, stderr, f"config '{tmp_path / 'configs'}' is a folder; give the "
                                      "YAML file of a study")
    assert files(tmp_path) == [tmp_path / "configs"]


def test_an_output_folder_under_a_file_is_refused(test_solvers, write_config, cli,
                                                  tmp_path: Path) -> None:
    config = write_config(STUDY)
    (tmp_path / "plain").write_text("a file, not a folder")
    before = files(tmp_path)
    out = tmp_path / "plain" / "results" / "study"
    code, _, stderr = cli("run", config, "--out", out)
    assert_one_sentence(code, stderr, f"cannot write results to '{out}' (Not a directory); "
                                      "give a writable --out folder")
    assert files(tmp_path) == before and (tmp_path / "plain").read_text() == (
        "a file, not a folder")


def test_a_read_only_output_folder_is_refused(test_solvers, write_config, cli,
                                              tmp_path: Path) -> None:
    config = write_config(STUDY)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user (root?) may write to a folder with mode 0o500")
        for out in (locked, locked / "study"):
            code, _, stderr = cli("run", config, "--out", out)
            assert_one_sentence(code, stderr, f"cannot write results to '{out}' (Permission "
                                              "denied); give a writable --out folder")
            assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_the_system_refuses_to_create_is_refused(test_solvers, write_config, cli,
                                                          tmp_path: Path) -> None:
    # /proc refuses new folders even to root, for whom a read-only mode means nothing
    config = write_config(STUDY)
    before = files(tmp_path)
    out = Path("/proc/ordauc-results")
    code, _, stderr = cli("run", config, "--out", out)
    assert_one_sentence(code, stderr, f"cannot write results to '{out}' (")
    assert not out.exists() and files(tmp_path) == before


def test_fetching_a_built_in_dataset_is_a_no_op_with_a_note(cli, tmp_path: Path) -> None:
    code, out, stderr = cli("fetch", "breast_cancer", "diabetes", "--data-dir",
                            tmp_path / "data")
    assert code == 0, stderr
    assert "breast_cancer: built in, nothing to fetch" in out
    assert "diabetes: built in, nothing to fetch" in out
    assert files(tmp_path) == []  # nothing downloaded, nothing stored
    # an unknown name beside it is still refused before any work
    code, _, stderr = cli("fetch", "breast_cancer", "no-such-set", "--data-dir",
                          tmp_path / "data")
    assert_one_sentence(code, stderr, "no dataset 'no-such-set' in the catalogue")
    assert files(tmp_path) == []


def test_every_unfetched_dataset_is_named(test_solvers, write_config, cli,
                                          tmp_path: Path) -> None:
    config = write_config({**STUDY, "datasets": ["dna", "breast_cancer", "codrna"]})
    before = files(tmp_path)
    code, _, stderr = cli("run", config, "--out", tmp_path / "out", "--data-dir",
                          tmp_path / "empty")
    assert_one_sentence(code, stderr, "dataset(s) codrna, dna are not fetched yet; run "
                                      "`ordauc fetch codrna dna` first")
    assert files(tmp_path) == before


def test_the_dask_backend_without_distributed_is_one_sentence(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(UserError) as caught:
        make_backend("dask", 4, "tcp://127.0.0.1:8786")
    assert str(caught.value) == ("--backend dask needs dask.distributed; install it with pip "
                                 "install 'ordauc[cluster]'")
    with pytest.raises(UserError, match="--backend dask needs --scheduler ADDRESS"):
        make_backend("dask", 4, None)
    # with distributed present, a dask worker gets no parent guard: its parent is its nanny
    monkeypatch.setitem(sys.modules, "distributed", types.ModuleType("distributed"))
    backend = make_backend("dask", -1, "tcp://127.0.0.1:8786")
    assert isinstance(backend, DaskBackend) and backend.guard() is None


def test_local_workers_are_guarded_by_the_runner_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = make_backend("loky", 3, None)
    assert isinstance(backend, LocalBackend) and backend.parallel_cells() == 3
    assert make_backend("loky", -1, None).parallel_cells() == (os.cpu_count() or 1)
    guard = backend.guard()
    assert isinstance(guard, ParentGuard) and guard.pid == os.getpid()
    assert not guard.orphaned()  # the runner itself
    # a worker whose parent is the runner is not orphaned; one whose runner is gone is
    script = ("import sys; from ordauc.experiment.isolate import ParentGuard; "
              "print(ParentGuard(int(sys.argv[1])).orphaned())")
    for pid, orphaned in ((os.getpid(), "False"), (1, "True")):
        done = subprocess.run([sys.executable, "-c", script, str(pid)], capture_output=True,
                              text=True, timeout=60, check=True)
        assert done.stdout.strip() == orphaned
