"""Numeric tables: delimited text (CSV, TSV, whitespace) and parquet, read in row blocks.

Large files stream through pyarrow's CSV reader (native gzip/bz2 decompression, several
threads) one block at a time, so memory stays at a few blocks whatever the file size. Every
value is parsed as float64; the caller casts features to float32. When a block fails to parse,
or holds an empty or non-finite value, the file is read again in plain Python from the failed
block on, to name the first offending line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.archive import compression, open_stream
from ordauc.errors import UserError

BLOCK_BYTES = 1 << 24  # 16 MiB of text per block


@dataclass(frozen=True)
class TableFormat:
    """How a table file is laid out: ``kind`` is csv, tsv, whitespace or parquet."""

    kind: str = "csv"
    header: bool = False

    @property
    def delimiter(self) -> str:
        return {"csv": ",", "tsv": "\t"}.get(self.kind, " ")


def column_names(path: Path, fmt: TableFormat) -> list[str]:
    """The header's names, or "0", "1", ... when the file has no header."""
    if fmt.kind == "parquet":
        import pyarrow.parquet as pq

        return list(pq.ParquetFile(path).schema_arrow.names)
    with open_stream(path) as stream:
        first = stream.readline().decode("utf-8", "replace").strip()
    fields = _split(first, fmt)
    if fmt.header:
        return [f.strip().strip('"') for f in fields]
    return [str(i) for i in range(len(fields))]


def iter_table(path: Path, fmt: TableFormat, label: str) -> Iterator[np.ndarray]:
    """Blocks of rows, each a float64 array with one column per table column."""
    if fmt.kind == "parquet":
        yield from _iter_parquet(path, label)
        return
    if fmt.kind == "whitespace":
        yield read_numbers(path, label, skip_header=fmt.header)
        return
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = column_names(path, fmt)
    read = pcsv.ReadOptions(block_size=BLOCK_BYTES, column_names=names,
                            skip_rows=1 if fmt.header else 0)
    parse = pcsv.ParseOptions(delimiter=fmt.delimiter)
    convert = pcsv.ConvertOptions(column_types={n: pa.float64() for n in names})
    done = 0
    try:
        with _arrow_stream(path) as source:
            reader = pcsv.open_csv(source, read_options=read, parse_options=parse,
                                   convert_options=convert)
            for batch in reader:
                block = _batch_to_array(batch)
                bad = _first_bad_row(block)
                if bad is not None:
                    raise _BadBlock(done)
                done += block.shape[0]
                yield block
    except (pa.ArrowInvalid, _BadBlock):
        line, reason = locate_table_problem(path, fmt, len(names), done)
        raise UserError(f"{label}, line {line}: {reason}, so nothing was stored") from None


def read_numbers(path: Path, label: str, skip_header: bool = False) -> np.ndarray:
    """A small whitespace- or comma-separated numeric file as one float64 array."""
    with open_stream(path) as stream:
        lines = [raw.replace(b",", b" ") for raw in stream]
    if skip_header:
        lines = lines[1:]
    try:
        values = np.loadtxt(lines, dtype=np.float64, ndmin=2, comments="#")
    except ValueError:
        values = None
    if values is None or not np.all(np.isfinite(values)):
        line, reason = locate_table_problem(path, TableFormat("whitespace", skip_header),
                                            None, 0)
        raise UserError(f"{label}, line {line}: {reason}, so nothing was stored")
    if values.size == 0:
        raise UserError(f"{label} holds no data lines, so nothing was stored")
    return values


def locate_table_problem(path: Path, fmt: TableFormat, n_columns: int | None,
                         skip_rows: int) -> tuple[int, str]:
    """The first line (1-based) from data row ``skip_rows`` on that is not a clean number row."""
    rows = 0
    with open_stream(path) as stream:
        for number, raw in enumerate(stream, start=1):
            if fmt.header and number == 1:
                continue
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not text.strip() or text.lstrip().startswith("#") and fmt.kind == "whitespace":
                continue
            rows += 1
            if rows <= skip_rows:
                continue
            fields = _split(text, fmt)
            if n_columns is None:
                n_columns = len(fields)
            if len(fields) != n_columns:
                return number, f"it has {len(fields)} fields where the file has {n_columns}"
            for position, field in enumerate(fields, start=1):
                try:
                    value = float(field)
                except ValueError:
                    return number, f"field {position} ({field.strip()!r}) is not a number"
                if not math.isfinite(value):
                    return number, f"field {position} ({field.strip()!r}) is not a finite number"
    return rows, "the file could not be parsed"


class _BadBlock(Exception):
    pass


def _split(text: str, fmt: TableFormat) -> list[str]:
    if fmt.kind == "whitespace":
        return text.replace(",", " ").split()
    return text.split(fmt.delimiter)


def _batch_to_array(batch: Any) -> np.ndarray:
    out = np.empty((batch.num_rows, batch.num_columns), dtype=np.float64)
    for j, column in enumerate(batch.columns):
        if column.null_count:
            out[:, j] = np.nan  # an empty field: reported by _first_bad_row
        else:
            out[:, j] = column.to_numpy(zero_copy_only=False)
    return out


def _first_bad_row(block: np.ndarray) -> int | None:
    finite = np.isfinite(block).all(axis=1)
    return None if finite.all() else int(np.argmin(finite))


def _arrow_stream(path: Path) -> Any:
    import pyarrow as pa

    kind = compression(path.name)
    if kind in ("gz", "bz2"):
        return pa.input_stream(str(path), compression="gzip" if kind == "gz" else "bz2")
    if kind is None:
        return pa.input_stream(str(path))
    return pa.PythonFile(open_stream(path), mode="r")  # xz: no native codec in pyarrow


def _iter_parquet(path: Path, label: str) -> Iterator[np.ndarray]:
    import pyarrow.parquet as pq

    with pq.ParquetFile(path) as pf:
        done = 0
        for batch in pf.iter_batches(batch_size=131_072):
            try:
                block = _batch_to_array(batch)
            except (TypeError, ValueError) as exc:
                raise UserError(f"{label} has a column that is not numeric ({exc}), so "
                                "nothing was stored") from None
            bad = _first_bad_row(block)
            if bad is not None:
                raise UserError(f"{label}, row {done + bad + 1}: a value is missing or not "
                                "finite, so nothing was stored")
            done += block.shape[0]
            yield block
