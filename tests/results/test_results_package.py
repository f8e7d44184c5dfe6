"""The study folder's one owner (ordauc.results): what is written reads back as the same typed
values, every text the writer formats parses back to the parts it was made of, a partial write
is never visible, and a run reads the folder's rows once."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from ordauc.errors import DiskFull
from ordauc.results import CellOutcome, StudyFolder
from ordauc.results import read as read_module
from ordauc.results.atomic import write_atomically
from ordauc.results.read import read_snapshot, read_table, table_frame
from ordauc.results.schema import (
    CELL_FACTS,
    CURVE_COLUMNS,
    IDENTITY,
    KEY_FIELDS,
    OK,
    TUNING_COLUMNS,
    CellKey,
    cell_key,
    columns,
    dataset_label,
    identity_row,
    parse_dataset_label,
    parse_key,
    parse_thresholds,
    repetition_column,
    thresholds_text,
)
from ordauc.results.write import ResultsTable, Tables, record

# -- schema round trip: write, then read the same typed values ------------------------------


def _row(i: int, **extra: object) -> dict[str, object]:
    return {"key": f"d/s/r{i}/l30/u20", "dataset": "d", "solver": "s", "solver_name": "s",
            "task": "binary", "resampling": "budget", "repetition": i, "n_labeled": 30,
            "n_unlabeled": 20, "n_test": 70, "eval_set": "test", "status": OK, **extra}


def test_what_the_writer_appends_reads_back_as_the_same_typed_values(tmp_path: Path) -> None:
    values = [  # awkward floats: shortest repr must give back the very same double
        {"auc": 0.1 + 0.2, "fit_time_s": 1e-300, "shared_fit": True, "n_iter": 7,
         "message": "two  words\nand a line", "cv_score": None},
        {"auc": np.float64(2.0) / 3.0, "fit_time_s": 123456.789, "shared_fit": False,
         "n_iter": np.int64(2**40), "message": "", "cv_score": float("nan")},
    ]
    table = ResultsTable(tmp_path)
    table.open(columns(["lam"]))
    for i, extra in enumerate(values):
        table.append(_row(i, **extra, p_lam=0.5))
    table.close()

    header, rows = read_table(tmp_path / "results.csv")
    assert header == columns(["lam"])
    frame = table_frame(header, rows)
    for i, extra in enumerate(values):
        got = frame.iloc[i]
        assert got["auc"] == float(extra["auc"])  # exact, not approximately
        assert got["fit_time_s"] == float(extra["fit_time_s"])
        assert got["shared_fit"] is np.True_ or got["shared_fit"] == extra["shared_fit"]
        assert bool(got["shared_fit"]) == extra["shared_fit"]
        assert int(got["n_iter"]) == int(extra["n_iter"])
        assert int(got["repetition"]) == i and int(got["n_labeled"]) == 30
        assert np.isnan(got["cv_score"])  # None and NaN are both written empty
        assert got["p_lam"] == 0.5
    assert frame.iloc[0]["message"] == "two words and a line"  # one line per row
    assert frame["key"].tolist() == [f"d/s/r{i}/l30/u20" for i in range(2)]

    parquet = StudyFolder(tmp_path).tables().results.write_parquet()
    import pandas as pd

    typed = pd.read_parquet(parquet)
    assert typed["auc"].tolist() == [float(v["auc"]) for v in values]
    assert typed["key"].tolist() == frame["key"].tolist()


def test_the_side_tables_read_back_typed_under_their_cell(tmp_path: Path) -> None:
    folder = StudyFolder(tmp_path)
    tables = folder.tables()
    tables.existing()
    tables.open(columns(["lam"]), set(), ["lam"])
    outcome = CellOutcome(_row(0, p_lam=0.5),
                          curves=[{"iteration": 10, "time_s": 0.25, "metric": "auc",
                                   "value": 0.75}],
                          tuning=[{"point": 0, "metric": "auc", "score": 0.5, "p_lam": 0.5}])
    record(outcome, tables, tmp_path)
    tables.close()
    curves, tuning = folder.curves(), folder.tuning()
    assert list(curves.columns) == list(CURVE_COLUMNS)
    assert curves.iloc[0][["iteration", "time_s", "value"]].tolist() == [10, 0.25, 0.75]
    assert curves.iloc[0]["key"] == "d/s/r0/l30/u20"
    assert list(tuning.columns) == [*TUNING_COLUMNS, "p_lam"]
    assert tuning.iloc[0]["score"] == 0.5
    assert [r["key"] for r in folder.rows()] == ["d/s/r0/l30/u20"]


def test_a_cell_identity_names_exactly_the_schema_columns() -> None:
    values = dict.fromkeys((*IDENTITY, *CELL_FACTS), 1)
    assert list(identity_row(values)) == [*IDENTITY, *CELL_FACTS]
    with pytest.raises(ValueError, match="missing"):
        identity_row({k: v for k, v in values.items() if k != "n_test"})
    with pytest.raises(ValueError, match="not in the schema"):
        identity_row({**values, "seed": 3})
    assert set(KEY_FIELDS) <= set(IDENTITY)
    assert CURVE_COLUMNS[:len(KEY_FIELDS)] == KEY_FIELDS == TUNING_COLUMNS[:len(KEY_FIELDS)]


def test_the_legacy_seed_column_numbers_repetitions_only_without_a_repetition_column() -> None:
    assert repetition_column(["key", "repetition", "seed"]) == "repetition"
    assert repetition_column(["key", "seed"]) == "seed"
    assert repetition_column(["key"]) is None


# -- every formatter has its one parser, and they agree --------------------------------------

KEYS = [CellKey("breast_cancer", "samult", 0, 30, 20),
        CellKey("breast_cancer", "samult", 12, None, None, "mze"),
        CellKey("synthetic_binary[d=10,n=2000]", "qsg_short", 3, 100, None),
        CellKey("path_set[file=a/b.csv]", "npsvor.eps=0.1", 1, None, 500, "mae"),
        CellKey("d", "s", 0, 0, 0)]


@pytest.mark.parametrize("parts", KEYS, ids=lambda k: k.text)
def test_a_cell_key_parses_back_to_its_parts(parts: CellKey) -> None:
    text = cell_key(parts.dataset, parts.solver, parts.repetition, parts.n_labeled,
                    parts.n_unlabeled, parts.by_metric)
    assert text == parts.text
    assert parse_key(text) == parts


@pytest.mark.parametrize("bad", ["d/s/r0/l30", "d/r0/l30/u20", "d/s/rx/l30/u20",
                                 "d/s/r0/l3x/u20", "/s/r0/l1/u2"])
def test_a_text_that_is_no_cell_key_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_key(bad)


def test_the_plan_keys_are_the_schema_keys(write_config) -> None:
    from ordauc.config import load_config
    from ordauc.experiment.plan import make_plan

    config = load_config(write_config({
        "datasets": [{"name": "synthetic_binary", "n": 200, "d": 5}],
        "resampling": {"repeats": 2, "n_labeled": [30, "all"], "n_unlabeled": [20]},
        "tuning": {"folds": 3, "metric": ["auc", "mze"]},
        "solvers": {"samult": {"grid": {"lam": [0.1, 1.0]}}}}))
    cells = make_plan(config).cells
    assert cells
    for cell in cells:
        parts = parse_key(cell.key)
        assert parts == CellKey(cell.dataset.label, cell.solver.label, cell.repetition,
                                cell.n_labeled, cell.n_unlabeled,
                                cell.cv_metric if cell.by_metric else "")
        assert parse_dataset_label(cell.dataset.label) == (cell.dataset.name,
                                                           dict(cell.dataset.params))


@pytest.mark.parametrize(("name", "params"), [
    ("breast_cancer", {}), ("synthetic_binary", {"n": 2000, "d": 10}),
    ("movielens", {"positive": "high", "shift": -3})])
def test_a_dataset_label_parses_back_to_its_name_and_parameters(name: str, params: dict
                                                               ) -> None:
    assert parse_dataset_label(dataset_label(name, params)) == (name, params)


def test_thresholds_parse_back_to_the_numbers_written() -> None:
    b = np.array([-1.234567891, 0.0, 2.5e-7, 31415.9265])
    text = thresholds_text(b)
    assert text == "-1.23457;0;2.5e-07;31415.9"
    assert parse_thresholds(text) == [float(f"{v:.6g}") for v in b]
    assert parse_thresholds("") is None and parse_thresholds("1;x") is None


# -- a partial write is never visible --------------------------------------------------------


def test_a_failed_atomic_write_leaves_the_previous_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "config.yaml"
    target.write_bytes(b"old\n")

    def no_room(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_room)
    with pytest.raises(DiskFull):
        write_atomically(target, b"new and longer\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]


def test_a_short_append_is_taken_back_whole(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    table = ResultsTable(tmp_path)
    table.open(columns([]))
    table.append(_row(0, auc=0.5))
    before = table.path.read_bytes()
    real_write = os.write

    def half(fd: int, data: bytes) -> int:  # the disk took half the line, then filled up
        return real_write(fd, data[: len(data) // 2])

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(DiskFull):
        table.append(_row(1, auc=0.25))
    monkeypatch.undo()
    table.close()
    assert table.path.read_bytes() == before
    assert [r["key"] for r in read_table(table.path)[1]] == ["d/s/r0/l30/u20"]


def test_a_killed_append_is_never_read_and_the_next_open_cuts_it(tmp_path: Path) -> None:
    table = ResultsTable(tmp_path)
    table.open(columns([]))
    table.append(_row(0, auc=0.5))
    table.close()
    whole = table.path.read_bytes()
    with open(table.path, "ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b"d/s/r1/l30/u20,d,s,s,bin")
    snap = read_snapshot(table.path)
    assert not snap.complete
    assert [r["key"] for r in snap.rows] == ["d/s/r0/l30/u20"]
    kept = ResultsTable(tmp_path).open(columns([]), snapshot=snap)
    assert [r["key"] for r in kept] == ["d/s/r0/l30/u20"]
    assert table.path.read_bytes() == whole


# -- a run reads the folder's rows once ------------------------------------------------------


def test_tables_reuse_what_they_read_unless_the_file_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = ResultsTable(tmp_path)
    table.open(columns([]))
    table.append(_row(0, auc=0.5))
    table.close()
    reads: list[str] = []
    real = read_module._read_bytes

    def counted(path: Path) -> bytes:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(read_module, "_read_bytes", counted)
    tables = Tables(tmp_path)
    assert [r["key"] for r in tables.existing()] == ["d/s/r0/l30/u20"]
    assert reads == ["results.csv"]  # no side tables yet: nothing else to read
    tables.current()
    tables.open(columns([]), set(), [])
    tables.close()
    assert reads == ["results.csv"]  # read once: current() and open() reused it

    other = Tables(tmp_path)
    other.existing()
    writer = ResultsTable(tmp_path)  # another run appends before this one takes the lock
    writer.open(columns([]))
    writer.append(_row(1, auc=0.25))
    writer.close()
    assert [r["key"] for r in other.current()] == ["d/s/r0/l30/u20", "d/s/r1/l30/u20"]
    done = other.open(columns([]), set(), [])
    other.close()
    assert set(done) == {"d/s/r0/l30/u20", "d/s/r1/l30/u20"}


def test_a_run_into_a_folder_reads_its_results_once_before_the_parquet_copy(
        test_solvers, write_config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc.config import load_config
    from ordauc.experiment.runner import RunOptions, run

    config = load_config(write_config({
        "datasets": ["breast_cancer"],
        "resampling": {"repeats": 2, "n_labeled": [30], "n_unlabeled": [20]},
        "solvers": {"mean_ranker": None}}))
    options = RunOptions(out=tmp_path / "out", progress=False)
    run(config, options)
    reads: list[str] = []
    real = read_module._read_bytes

    def counted(path: Path) -> bytes:
        reads.append(path.name)
        return real(path)

    monkeypatch.setattr(read_module, "_read_bytes", counted)
    summary = run(config, RunOptions(out=tmp_path / "out", progress=False, force=True))
    assert summary.ran == 2 and summary.statuses[OK] == 2
    # once to survey the cells, once after the last append for results.parquet
    assert reads.count("results.csv") == 2
