"""Arrays on disk: ``.npy`` files written a chunk at a time, read back a block at a time.

Prepared arrays are plain ``.npy`` files (``np.load(path, mmap_mode="r")`` maps them), written
without ever holding the whole array: :class:`NpyWriter` appends C-ordered rows to the file and
writes the header, whose row count is only known at the end, last. Reading back for a second
pass uses ordinary file reads, not a memory map, so the pages read do not count towards the
process's resident memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import scipy.sparse as sp

# A version 1.0 header padded to exactly this many bytes fits any 2-d shape below 10**30 rows
# and keeps the data 64-byte aligned, as numpy's own writer does.
_HEADER_BYTES = 128
_MAGIC = b"\x93NUMPY\x01\x00"


def _header(dtype: np.dtype, shape: tuple[int, ...]) -> bytes:
    text = repr({"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                 "shape": tuple(shape)})
    room = _HEADER_BYTES - len(_MAGIC) - 2
    body = text.encode("latin1")
    if len(body) + 1 > room:
        raise ValueError(f"shape {shape} does not fit a {_HEADER_BYTES}-byte .npy header")
    body = body + b" " * (room - len(body) - 1) + b"\n"
    return _MAGIC + len(body).to_bytes(2, "little") + body


class NpyWriter:
    """Append rows of one dtype and row shape to a new ``.npy`` file; call :meth:`close` at the end.

    Used as a context manager, the file is complete after a normal exit; after an exception it
    is left truncated and must be discarded (callers write into a staging folder).
    """

    def __init__(self, path: Path, dtype: np.dtype | type, row_shape: tuple[int, ...] = ()):
        self.path = Path(path)
        self.dtype = np.dtype(dtype)
        self.row_shape = tuple(row_shape)
        self.rows = 0
        self._file: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        self._file.write(b"\0" * _HEADER_BYTES)

    def write(self, block: np.ndarray) -> None:
        """Append ``block`` (shape ``(m, *row_shape)``), converted to the writer's dtype."""
        block = np.ascontiguousarray(block, dtype=self.dtype)
        if block.shape[1:] != self.row_shape:
            raise ValueError(f"rows of shape {block.shape[1:]} do not match {self.row_shape}")
        assert self._file is not None, "writer is closed"
        self._file.write(memoryview(block).cast("B"))
        self.rows += block.shape[0]

    def close(self) -> Path:
        """Write the header with the final row count and close the file."""
        if self._file is not None:
            self._file.seek(0)
            self._file.write(_header(self.dtype, (self.rows, *self.row_shape)))
            self._file.close()
            self._file = None
        return self.path

    def abort(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> NpyWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def npy_info(path: Path) -> tuple[np.dtype, tuple[int, ...], int]:
    """dtype, shape and data offset of a C-ordered ``.npy`` file (no pickled objects allowed)."""
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        if fortran or dtype.hasobject:
            raise ValueError(f"{path} is not a plain C-ordered numeric array")
        return dtype, tuple(shape), f.tell()


def iter_rows(path: Path, start: int = 0, stop: int | None = None,
              block_rows: int = 262_144) -> Iterator[np.ndarray]:
    """Blocks of rows ``start:stop`` of a ``.npy`` file, read with plain file reads."""
    dtype, shape, offset = npy_info(path)
    stop = shape[0] if stop is None else stop
    row_bytes = int(np.prod(shape[1:], dtype=np.int64)) * dtype.itemsize
    with open(path, "rb") as f:
        f.seek(offset + start * row_bytes)
        for begin in range(start, stop, block_rows):
            m = min(block_rows, stop - begin)
            buf = np.empty((m, *shape[1:]), dtype=dtype)
            got = f.readinto(memoryview(buf).cast("B"))
            if got != m * row_bytes:
                raise ValueError(f"{path} is shorter than its header says")
            yield buf


def column_range(path: Path, start: int = 0, stop: int | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per-column minimum and maximum of rows ``start:stop`` of a 2-d ``.npy`` file."""
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    for block in iter_rows(path, start, stop):
        if block.shape[0] == 0:
            continue
        bmin, bmax = block.min(axis=0), block.max(axis=0)
        lo = bmin if lo is None else np.minimum(lo, bmin)
        hi = bmax if hi is None else np.maximum(hi, bmax)
    if lo is None or hi is None:
        raise ValueError(f"{path} has no rows in {start}:{stop}")
    return lo, hi


def save_csr(folder: Path, stem: str, matrix: sp.csr_matrix) -> dict[str, str]:
    """Store a CSR matrix as three memory-mappable ``.npy`` files plus its shape; return names."""
    matrix = sp.csr_matrix(matrix, dtype=np.float32)
    matrix.sort_indices()
    names = {}
    for part in ("data", "indices", "indptr"):
        name = f"{stem}.{part}.npy"
        np.save(folder / name, getattr(matrix, part), allow_pickle=False)
        names[part] = name
    return names


def load_csr(folder: Path, names: dict[str, str], shape: tuple[int, int]) -> sp.csr_matrix:
    """The CSR matrix written by :func:`save_csr`, its three arrays memory-mapped."""
    parts = [np.load(folder / names[p], mmap_mode="r", allow_pickle=False)
             for p in ("data", "indices", "indptr")]
    return sp.csr_matrix(tuple(parts), shape=shape, copy=False)


def sha256_file(path: Path, block: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()

