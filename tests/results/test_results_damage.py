"""A results folder nothing can corrupt: a damaged line is named by its number before anything
runs or is written, a full disk is one sentence (exit 1) that leaves no half line, temporary
file or part of a set of figures or tables, and reruns never list a cell twice."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TESTS_DIR

from ordauc.results.write import ResultsTable

STUDY = {"datasets": ["breast_cancer"],
         "resampling": {"repeats": 3, "n_labeled": [30], "n_unlabeled": [20]},
         "solvers": {"mean_ranker": None, "binary_ranker": None}}
CELLS = 6


def no_space() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def keys(out: Path) -> list[str]:
    """The key of every complete line of results.csv (a plain split: the test's own reader)."""
    lines = (out / "results.csv").read_bytes().decode().splitlines()[1:]
    return [line.split(",", 1)[0] for line in lines]


def leftovers(folder: Path) -> list[str]:
    """Temporary files and folders anywhere under ``folder``."""
    return [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")]


def one_error(result: tuple[int, str, str], expected_code: int) -> str:
    """The single sentence a failed command (exit code, stdout, stderr) printed on stderr: no
    traceback, nothing else."""
    code, _, err = result
    lines = [line for line in err.splitlines()
             if line.strip() and not line.startswith("cells")]  # but the progress bar
    assert code == expected_code, err
    assert len(lines) == 1 and lines[0].startswith("ordauc: error: "), err
    return lines[0].removeprefix("ordauc: error: ")


@pytest.fixture
def done(test_solvers, write_config, cli, tmp_path: Path) -> tuple[Path, Path]:
    """(config, output folder) of a study whose every cell is done."""
    config, out = write_config(STUDY), tmp_path / "out"
    code, _, err = cli("run", config, "--out", out)
    assert code == 0, err
    assert len(keys(out)) == CELLS
    return config, out


def header_width(out: Path) -> int:
    return len((out / "results.csv").read_bytes().splitlines()[0].split(b","))


DAMAGE: dict[str, tuple[Callable[[bytes], bytes], Callable[[int], str]]] = {
    # what goes in as line 3 (given line 2, a real row), and how the message words it
    "unclosed quote": (lambda row: b'"breast_cancer/x,breast_cancer,1,2\n',
                       lambda width: "an unclosed quote"),
    "garbage": (lambda row: b"some garbage\n",
                lambda width: f"it has 1 field where the header has {width}"),
    "fields cut": (lambda row: row[: row.index(b",ok,") + 3] + b"\n",
                   lambda width: f"it has 12 fields where the header has {width}"),
    "empty key": (lambda row: row[row.index(b","):],
                  lambda width: "its key is empty"),
    "not UTF-8": (lambda row: row.replace(b"breast", b"br\xffeast"),
                  lambda width: "it is not UTF-8 text"),
    "zeros": (lambda row: b"\x00" * (len(row) - 1) + b"\n",
              lambda width: "it holds NUL bytes"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_line_is_named_and_no_command_runs_or_writes(done, cli, damage: str) -> None:
    config, out = done
    make, what = DAMAGE[damage]
    path = out / "results.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:2], make(lines[1]), *lines[2:]]))
    before = snapshot(out)
    expected = (f"{path} line 3 is damaged ({what(header_width(out))}); remove or repair that "
                "line, every other row is kept")
    for args in (("run", config, "--out", out, "--dry-run"), ("run", config, "--out", out),
                 ("run", config, "--out", out), ("run", config, "--out", out),
                 ("report", out), ("plot", out)):
        assert one_error(cli(*args), 2) == expected, args
    assert snapshot(out) == before  # nothing recomputed, appended, repaired or drawn

    path.write_bytes(b"".join(lines))  # the user removes the line: every cell is still done
    code, _, err = cli("run", config, "--out", out)
    assert code == 0 and f"{CELLS} cells: {CELLS} ok (0 run now)" in err
    assert sorted(keys(out)) == sorted(set(keys(out))) and len(keys(out)) == CELLS


def test_every_damaged_line_is_counted_in_one_sentence(done, cli) -> None:
    config, out = done
    path = out / "results.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[0], b'"open\n', *lines[1:3], b"x\n", b"y\n", *lines[3:]]))
    message = one_error(cli("run", config, "--out", out, "--dry-run"), 2)
    assert message == (f"{path} line 2 is damaged (an unclosed quote), and so are lines 5, 6; "
                       "remove or repair those lines, every other row is kept")


def test_only_a_half_line_at_the_end_is_left_out_silently(done, cli) -> None:
    """The half line a kill leaves has no newline yet; with one, the same bytes are damage."""
    config, out = done
    path = out / "results.csv"
    whole = path.read_bytes()
    path.write_bytes(whole + b"breast_cancer/mean_ranker/r7/l30/u20,breast_can")
    code, stdout, _ = cli("run", config, "--out", out, "--dry-run")
    assert code == 0 and f"{CELLS} cells: {CELLS} done" in stdout
    path.write_bytes(whole + b"breast_cancer/mean_ranker/r7/l30/u20,breast_can\n")
    assert f"{path} line {CELLS + 2} is damaged (it has 2 fields" in one_error(
        cli("report", out), 2)


def test_a_damaged_side_table_stops_the_run_before_it_writes(done, cli) -> None:
    config, out = done
    with open(out / "curves.csv", "ab") as handle:
        handle.write(b'"a,b\n')
    lines = (out / "results.csv").read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b",ok,", b",error,", 1)  # to run again: its row is dropped
    (out / "results.csv").write_bytes(b"".join(lines))
    before = snapshot(out)
    message = one_error(cli("run", config, "--out", out), 2)
    assert message.startswith(f"{out / 'curves.csv'} line 2 is damaged (an unclosed quote)")
    assert snapshot(out) == before


def test_a_folder_named_results_csv_is_one_sentence(test_solvers, write_config, cli,
                                                    tmp_path: Path) -> None:
    config, out = write_config(STUDY), tmp_path / "out"
    (out / "results.csv").mkdir(parents=True)
    expected = (f"{out / 'results.csv'} is a folder, not a table of `ordauc run`; move or rename "
                "that folder (a run then starts the table afresh)")
    for args in (("run", config, "--out", out, "--dry-run"), ("run", config, "--out", out),
                 ("report", out), ("plot", out)):
        assert one_error(cli(*args), 2) == expected, args
    assert [p.name for p in out.iterdir()] == ["results.csv"]


def fill_results_after(monkeypatch: pytest.MonkeyPatch, rows: int) -> Callable[[], None]:
    """``os.write`` to results.csv fails with ENOSPC after ``rows`` lines (of any run), until
    the function returned is called (space freed)."""
    real_open, real_write = ResultsTable.open, os.write
    appended, current, room = [0], [-1], [rows]

    def open_(self: ResultsTable, *args: object, **kwargs: object) -> list[dict[str, str]]:
        kept = real_open(self, *args, **kwargs)
        if self.path.name == "results.csv":
            current[0] = self._fd
        return kept

    def write(fd: int, data: bytes) -> int:
        if fd == current[0]:
            appended[0] += 1
            if appended[0] > room[0]:
                raise no_space()
        return real_write(fd, data)

    def free() -> None:
        room[0] = sys.maxsize

    monkeypatch.setattr(ResultsTable, "open", open_)
    monkeypatch.setattr(os, "write", write)
    return free


def test_a_full_disk_mid_run_is_one_sentence_and_reruns_never_duplicate(
        test_solvers, write_config, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = write_config(STUDY), tmp_path / "out"
    free = fill_results_after(monkeypatch, 2)
    expected = (f"the disk holding {out} is full (no room for results.csv); free some space and "
                "run the same command again, every finished cell is kept")
    for _ in range(3):
        assert one_error(cli("run", config, "--out", out), 1) == expected
        assert len(keys(out)) == 2 and (out / "results.csv").read_bytes().endswith(b"\n")
        assert leftovers(tmp_path) == []
    free()
    code, _, err = cli("run", config, "--out", out)
    assert code == 0 and f"{CELLS} cells: {CELLS} ok ({CELLS - 2} run now)" in err, err
    assert len(keys(out)) == len(set(keys(out))) == CELLS


def fsync_fails_for(monkeypatch: pytest.MonkeyPatch, wanted: Callable[[Path], bool],
                    after: int = 0) -> None:
    """``os.fsync`` of a file whose name ``wanted`` accepts fails with ENOSPC (after ``after``
    such files went through), as on a disk whose space is taken when the data is flushed."""
    real = os.fsync
    seen: list[int] = []

    def fsync(fd: int) -> None:
        name = Path(os.readlink(f"/proc/self/fd/{fd}")) if sys.platform == "linux" else None
        if name is not None and wanted(name):
            seen.append(fd)
            if len(seen) > after:
                raise no_space()
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


linux_only = pytest.mark.skipif(sys.platform != "linux", reason="names an fd through /proc")


@linux_only
def test_a_full_disk_writing_the_parquet_copy_leaves_no_temporary_file(
        done, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, out = done
    before = snapshot(out)
    fsync_fails_for(monkeypatch, lambda p: p.name.startswith(".results.parquet."))
    message = one_error(cli("run", config, "--out", out, "--force"), 1)
    assert message == (f"the disk holding {out} is full (no room for results.parquet); free some "
                       "space and run the same command again, every finished cell is kept in "
                       "results.csv")
    assert leftovers(tmp_path) == []
    assert (out / "results.parquet").read_bytes() == before["results.parquet"]
    assert len(keys(out)) == len(set(keys(out))) == CELLS


@linux_only
@pytest.mark.parametrize("fresh", [False, True])
def test_plot_on_a_full_disk_leaves_no_partial_set_of_figures(
        done, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: bool) -> None:
    _, out = done
    figures = tmp_path / "new" if fresh else out / "figures"
    if not fresh:  # a complete set from an earlier plot
        code, _, err = cli("plot", out)
        assert code == 0, err
    before = snapshot(tmp_path)
    fsync_fails_for(monkeypatch, lambda p: ".png." in p.name or ".pdf." in p.name, after=3)
    message = one_error(cli("plot", out, "--out", figures) if fresh else cli("plot", out), 1)
    assert message == (f"the disk holding {figures} is full (no room for the figures); free some "
                       "space and run the same command again, the folder is left as it was")
    assert snapshot(tmp_path) == before  # the old figures, or no folder at all
    assert leftovers(tmp_path) == [] and figures.exists() != fresh


@linux_only
def test_report_on_a_full_disk_leaves_no_partial_set_of_tables(
        done, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, out = done
    fsync_fails_for(monkeypatch, lambda p: p.name.startswith(".table_"), after=2)
    message = one_error(cli("report", out), 1)
    assert message == (f"the disk holding {out / 'report'} is full (no room for the tables); free "
                       "some space and run the same command again, the folder is left as it was")
    assert not (out / "report").exists() or not any((out / "report").iterdir())
    assert leftovers(tmp_path) == []


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX resource limits")
def test_a_real_file_size_limit_mid_run_keeps_whole_lines_and_no_duplicates(
        test_solvers, write_config, cli, tmp_path: Path) -> None:
    """The OS refuses the write (RLIMIT_FSIZE with SIGXFSZ ignored: a short write, then
    EFBIG), in a child process, so no write of ordauc is patched."""
    config, out = write_config(STUDY), tmp_path / "out"
    script = ("import resource, signal, sys\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))\n"
              "import runner_solvers\n"
              "runner_solvers.register()\n"
              "from ordauc.cli import main\n"
              "main(sys.argv[1:])\n")
    # the header and a few rows fit in 3000 bytes, not all six rows, nor the parquet copy
    kept = b""
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", script, "run", str(config), "--out", str(out)],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONPATH": str(TESTS_DIR)})
        message = one_error((proc.returncode, proc.stdout, proc.stderr), 1)
        assert message.startswith(f"the disk holding {out} is full (no room for results.")
        kept = kept or (out / "results.csv").read_bytes()
        assert (out / "results.csv").read_bytes() == kept and kept.endswith(b"\n")
        assert 0 < len(keys(out)) < CELLS and leftovers(tmp_path) == []
    missing = CELLS - len(keys(out))
    code, _, err = cli("run", config, "--out", out)  # space freed
    assert code == 0 and f"{CELLS} cells: {CELLS} ok ({missing} run now)" in err
    assert len(keys(out)) == len(set(keys(out))) == CELLS
