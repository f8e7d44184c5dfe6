"""``--backend slurm`` and ``--backend pbs`` offline: the job script comes from dask's jobqueue
configuration (a jobqueue.yaml in dask's config folder), a missing sbatch/qsub or dask-jobqueue
is one sentence, and a run goes through, its worker jobs started by a stand-in sbatch (qsub)
that runs the job script on this machine and cancelled by a stand-in scancel (qdel) at the end.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import TESTS_DIR

# Not imported here: on its first import dask-jobqueue writes a template into dask's config
# folder, which the fixture below points away from ~/.config/dask first.
if importlib.util.find_spec("dask_jobqueue") is None:
    pytest.skip("--backend slurm/pbs needs dask-jobqueue (pip install 'ordauc[cluster]')",
                allow_module_level=True)

from ordauc.errors import UserError  # noqa: E402
from ordauc.experiment import backends  # noqa: E402
from ordauc.experiment.backends import make_backend  # noqa: E402
from ordauc.experiment.cluster import CLUSTER_BACKENDS  # noqa: E402

STUDY = {"datasets": ["breast_cancer"],
         "resampling": {"kind": "budget", "repeats": 2, "n_labeled": [40], "n_unlabeled": [50]},
         "tuning": {"kind": "cv", "folds": 3},
         "solvers": {"samult": {"grid": {"lam": [0.5, 1.0]}}}}
SETTINGS = {"cores": 2, "memory": "4GB", "processes": 1, "queue": "short",
            "account": "proj42", "walltime": "02:00:00",
            "job-script-prologue": ["module load python/3.11"]}
SUBMIT = {"slurm": ("sbatch", "scancel", 'echo "Submitted batch job $!"'),
          "pbs": ("qsub", "qdel", 'echo "$!.fakeserver"')}


@pytest.fixture(autouse=True)
def dask_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """dask's configuration folder for the test (not ~/.config/dask): dask-jobqueue writes its
    template there, and its jobqueue.yaml is the only one read."""
    import dask.config

    folder = tmp_path / "dask-config"
    folder.mkdir()
    monkeypatch.setattr(dask.config, "PATH", str(folder))
    dask.config.refresh(paths=[str(folder)])
    yield folder
    dask.config.refresh()


@pytest.fixture(autouse=True)
def cluster_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line accepts every cluster backend (as backends.BACKENDS will)."""
    monkeypatch.setattr(backends, "BACKENDS", ("loky", *CLUSTER_BACKENDS))


def configure(folder: Path, system: str, **settings: object) -> None:
    import dask.config

    (folder / "jobqueue.yaml").write_text(yaml.safe_dump({"jobqueue": {system: settings}}))
    dask.config.refresh(paths=[str(folder)])


@pytest.fixture
def batch_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Stand-ins for sbatch/scancel and qsub/qdel on PATH: a job runs at once on this machine,
    in a session of its own (its id), and is cancelled by killing that session. Yields the
    folder of the jobs' scripts; any job still there at the end is killed."""
    if shutil.which("setsid") is None:
        pytest.skip("the stand-in batch system needs setsid")
    jobs, bin_dir = tmp_path / "jobs", tmp_path / "bin"
    jobs.mkdir()
    bin_dir.mkdir()
    for submit, cancel, say_id in SUBMIT.values():
        (bin_dir / submit).write_text(
            "#!/bin/sh\n"
            f'copy="{jobs}/job-$$.sh"\n'
            'cp "$1" "$copy"\n'
            'setsid bash "$copy" > "$copy.log" 2>&1 < /dev/null &\n'
            f'echo "$!" >> "{jobs}/ids"\n'
            f"{say_id}\n")
        (bin_dir / cancel).write_text(
            "#!/bin/sh\n"
            f'echo "${{1%%.*}}" >> "{jobs}/cancelled"\n'
            'kill -TERM -- "-${1%%.*}" 2>/dev/null\n'
            "exit 0\n")
    for script in bin_dir.iterdir():
        script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield jobs
    for job in _ids(jobs, "ids"):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(job, signal.SIGKILL)


def _ids(jobs: Path, name: str) -> list[int]:
    path = jobs / name
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def test_without_the_submit_command_is_one_sentence(write_config, cli, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for name, submit, title in (("slurm", "sbatch", "Slurm"), ("pbs", "qsub", "PBS")):
        with pytest.raises(UserError) as caught:
            make_backend(name, 4, None)
        assert str(caught.value) == (
            f"--backend {name} submits its workers with {submit}, which is not on PATH here; "
            f"run ordauc where {title} is (a login node), or start workers by hand and use "
            "--backend dask --scheduler ADDRESS")
    code, _, stderr = cli("run", write_config(STUDY), "--out", tmp_path / "out", "--backend",
                          "slurm", "-j", "4")
    assert code == 2 and stderr.count("\n") == 1 and "sbatch, which is not on PATH" in stderr
    assert not (tmp_path / "out").exists()


def test_without_dask_jobqueue_or_with_a_scheduler_is_one_sentence(
        batch_system, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match=r"^--backend slurm starts its own scheduler, so "
                                        r"--scheduler does not apply \(it goes with --backend "
                                        r"dask\)$"):
        make_backend("slurm", 2, "tcp://127.0.0.1:8786")
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # as if not installed
    with pytest.raises(UserError) as caught:
        make_backend("pbs", 2, None)
    assert str(caught.value) == ("--backend pbs needs dask-jobqueue; install it with pip "
                                 "install 'ordauc[cluster]'")


@pytest.mark.parametrize(("system", "expected"), [
    ("slurm", ["#SBATCH -p short", "#SBATCH -A proj42", "#SBATCH -t 02:00:00",
               "#SBATCH --cpus-per-task=2", "#SBATCH --mem=", "--qos=low"]),
    ("pbs", ["#PBS -q short", "#PBS -A proj42", "#PBS -l walltime=02:00:00",
             "#PBS -l select=1:ncpus=2:mem=", "--qos=low"]),
])
def test_the_job_script_is_dask_jobqueue_configuration(system: str, expected: list[str],
                                                        batch_system, dask_folder: Path) -> None:
    backend = make_backend(system, 3, None)
    with pytest.raises(UserError) as caught:  # no configuration yet: cores and memory asked
        backend.check()
    assert str(caught.value) == (
        f"--backend {system} needs the cores and memory of a job in dask's jobqueue "
        f"configuration, e.g. `jobqueue: {{{system}: {{cores: 4, memory: 16GB}}}}` in "
        "~/.config/dask/jobqueue.yaml")
    configure(dask_folder, system, **SETTINGS, **{"job-extra-directives": ["--qos=low"]})
    backend.check()  # builds the script, submits nothing
    script = backend.source.job_script()
    for line in [*expected, "module load python/3.11", "--nthreads 2", sys.executable,
                 "tcp://SCHEDULER:8786"]:
        assert line in script, script
    assert not (batch_system / "ids").exists()


def test_a_dry_run_submits_no_job(batch_system, dask_folder: Path, write_config, cli,
                                  tmp_path: Path) -> None:
    configure(dask_folder, "slurm", **SETTINGS)
    code, out, stderr = cli("run", write_config(STUDY), "--out", tmp_path / "out", "--backend",
                            "slurm", "-j", "2", "--dry-run")
    assert code == 0, stderr
    assert "2 cells: 2 missing" in out
    assert not (batch_system / "ids").exists() and not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize(("system", "n_jobs"), [("slurm", "2"), ("pbs", "-1")])
def test_a_run_on_batch_jobs_goes_through_and_cancels_them(
        system: str, n_jobs: str, batch_system: Path, dask_folder: Path, write_config, cli,
        tmp_path: Path) -> None:
    configure(dask_folder, system, cores=1, memory="2GB", processes=1, walltime="00:10:00",
              queue="testq", **{"death-timeout": 30,
                                "job-script-prologue": ["export ORDAUC_JOB_MARK=1"],
                                "scheduler-options": {"host": "127.0.0.1",
                                                      "dashboard_address": None}})
    config = write_config(STUDY)
    code, _, stderr = cli("run", config, "--out", tmp_path / "out", "--backend", system,
                          "-j", n_jobs)  # -1: adapt, up to one worker per task
    assert code == 0, stderr
    title, listing = ("Slurm", "squeue") if system == "slurm" else ("PBS", "qstat")
    count = "2" if n_jobs == "2" else "up to 2"
    assert f"ordauc: asked {title} for {count} dask worker(s) (`{listing} -u $USER` shows" in stderr
    table = pd.read_csv(tmp_path / "out" / "results.csv")
    assert len(table) == 2 and table["key"].is_unique and (table["status"] == "ok").all()
    submitted = _ids(batch_system, "ids")
    assert len(submitted) == 2 if n_jobs == "2" else 1 <= len(submitted) <= 2
    for script in batch_system.glob("job-*.sh"):
        text = script.read_text()
        assert "export ORDAUC_JOB_MARK=1" in text and "testq" in text and "00:10:00" in text
    # the run cancelled its jobs: every one of them is gone
    assert sorted(_ids(batch_system, "cancelled")) == sorted(submitted)
    deadline = time.monotonic() + 20
    while any(_alive(job) for job in submitted) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(job) for job in submitted)


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_a_job_that_ends_is_submitted_again(batch_system: Path, dask_folder: Path,
                                            write_config, tmp_path: Path) -> None:
    """A worker job killed mid-run (as at its walltime): its cells run elsewhere, a new job
    takes its place, and every row is there once."""
    configure(dask_folder, "slurm", cores=1, memory="2GB", processes=1,
              **{"death-timeout": 30, "scheduler-options": {"host": "127.0.0.1",
                                                            "dashboard_address": None}})
    config = write_config({"datasets": ["breast_cancer"],
                           "resampling": {"repeats": 16, "n_labeled": [30], "n_unlabeled": [20]},
                           "solvers": {"slow_ranker": {"params": {"delay": 0.7}}}})
    out, log = tmp_path / "out", tmp_path / "stderr.txt"
    # ordauc with the test solvers and the cluster backends on its command line
    script = ("import sys; import runner_solvers; from ordauc.experiment import backends, "
              "cluster; backends.BACKENDS = ('loky', *cluster.CLUSTER_BACKENDS); "
              "runner_solvers.register(); from ordauc.cli import main; main(sys.argv[1:])")
    env = {**os.environ, "DASK_CONFIG": str(dask_folder), "PYTHONPATH": str(TESTS_DIR),
           "DASK_DISTRIBUTED__DEPLOY__LOST_WORKER_TIMEOUT": "1s"}
    with log.open("w") as stream:
        run = subprocess.Popen([sys.executable, "-c", script, "run", str(config), "--out",
                                str(out), "--backend", "slurm", "-j", "2"], stdout=stream,
                               stderr=stream, env=env, cwd=tmp_path)
        try:
            deadline = time.monotonic() + 60
            while not _rows(out) and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _rows(out) and len(_ids(batch_system, "ids")) == 2, log.read_text()
            os.killpg(_ids(batch_system, "ids")[0], signal.SIGKILL)
            assert run.wait(90) == 0, log.read_text()
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    table = pd.read_csv(out / "results.csv")
    assert len(table) == 16 and table["key"].is_unique and (table["status"] == "ok").all()
    assert len(_ids(batch_system, "ids")) == 3  # the killed job was submitted again


def _rows(out: Path) -> int:
    path = out / "results.csv"
    return max(0, len(path.read_text().splitlines()) - 1) if path.exists() else 0
