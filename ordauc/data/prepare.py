"""Preparation shared by every recipe: the context a recipe gets, dense array output, scaling.

A recipe (a :data:`Recipe`, in the ``recipe_*`` modules) turns the downloaded files of one
catalogue entry into arrays in a staging folder and returns the manifest's description of them.
Labels are stored in one of three forms, which ``ordauc.data.store`` turns into a
:class:`~ordauc.data.dataset.Dataset`:

- ``class_labels``: the source's own class labels (``y_orig``); the binary label is derived at
  load time from the positive class (a load parameter, recorded in ``info``);
- ``regression_target``: the continuous target (``target``); load cuts it into ordinal classes
  with the chosen rule and number of bins (``ordauc.data.discretize``);
- ``ordinal_labels``: labels 1..k as published (``y``).

Dense features are written in row blocks (:class:`~ordauc.data.arrays.NpyWriter`) and, where
the paper scales features to [0, 1], rescaled in a second block-wise pass with the training
rows' column minimum and maximum, so no step holds a whole large array in memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.archive import safe_extract
from ordauc.data.arrays import NpyWriter, column_range, iter_rows, npy_info
from ordauc.data.spec import Entry
from ordauc.errors import UserError


@dataclass
class Context:
    """What a recipe works with: its entry, the downloaded files by role, two folders."""

    entry: Entry
    files: dict[str, Path]
    out: Path  # the staging folder: everything written here becomes the dataset
    work: Path  # scratch space (extracted archives, raw blocks), deleted afterwards
    warnings: list[str] = field(default_factory=list)

    def label(self, role: str, member: str | None = None) -> str:
        """How error messages name an input file: its name, and the member of an archive."""
        name = self.files[role].name
        return f"{member} in {name}" if member else name

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def path(self, role: str, member: str | None = None) -> Path:
        """The downloaded file of ``role``, or its archive member ``member`` (extracted)."""
        if member is None:
            return self.files[role]
        target = self.work / role / member
        if not target.is_file():
            safe_extract(self.files[role], self.work / role, self.label(role),
                         select=lambda name: name == member)
        if not target.is_file():
            raise UserError(f"{self.files[role].name} has no member {member}, so nothing was "
                            "stored")
        return target

    def extract(self, role: str, prefix: str = "") -> Path:
        """Extract the members of ``role``'s archive under ``prefix``; return the folder."""
        dest = self.work / role
        safe_extract(self.files[role], dest, self.label(role),
                     select=lambda name: name.startswith(prefix))
        return dest


# What every recipe is. The recipes import this module and it imports none of them: the
# table of recipes by name is kept by their one caller (:func:`ordauc.data.fetch.recipes`).
Recipe = Callable[[Context], dict[str, Any]]


def minmax(X: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Scale columns to [0, 1] with the given range; a constant column becomes 0."""
    span = (hi - lo).astype(np.float32)
    span[span == 0] = 1.0
    return ((X - lo) / span).astype(np.float32, copy=False)


def finish_dense(ctx: Context, raw: Path, n_train: int, scale: str | None) -> dict[str, Any]:
    """Split the raw feature rows into ``X.npy`` (first ``n_train``) and ``X_test.npy`` (rest).

    With ``scale="minmax"`` every column is mapped to [0, 1] using the training rows' range
    (test rows use the same map, so they may fall slightly outside). Works block by block.
    """
    total = _rows(raw)
    record: dict[str, Any] = {"scaling": scale or "none"}
    lo = hi = None
    if scale == "minmax":
        lo, hi = column_range(raw, 0, n_train)
        record.update(scaling="minmax [0, 1] with the training rows' column range",
                      feature_min=lo.tolist(), feature_max=hi.tolist())
    elif scale is not None:
        raise ValueError(f"unknown scaling {scale!r}")
    arrays: dict[str, Any] = {}
    if lo is None and n_train == total:
        os.replace(raw, ctx.out / "X.npy")
        arrays["X"] = "X.npy"
    else:
        for key, start, stop in (("X", 0, n_train), ("X_test", n_train, total)):
            if stop > start or key == "X":
                arrays[key] = _copy_rows(raw, ctx.out / f"{key}.npy", start, stop, lo, hi)
        raw.unlink()
    return {"arrays": arrays, "preparation": record}


def split_vector(ctx: Context, raw: Path, n_train: int, stem: str) -> dict[str, str]:
    """Split a raw 1-d array into ``<stem>.npy`` and ``<stem>_test.npy`` like the features."""
    total = _rows(raw)
    if n_train == total:
        os.replace(raw, ctx.out / f"{stem}.npy")
        return {stem: f"{stem}.npy"}
    names = {stem: _copy_rows(raw, ctx.out / f"{stem}.npy", 0, n_train, None, None),
             f"{stem}_test": _copy_rows(raw, ctx.out / f"{stem}_test.npy", n_train, total,
                                        None, None)}
    raw.unlink()
    return names


def save_dense(ctx: Context, key: str, array: np.ndarray) -> str:
    """Save an in-memory array (small datasets) as ``<key>.npy``; return the file name."""
    name = f"{key}.npy"
    np.save(ctx.out / name, np.ascontiguousarray(array), allow_pickle=False)
    return name


def check_features(ctx: Context, d: int, where: str) -> None:
    """Fail unless the number of feature columns found is the catalogue's."""
    if d != ctx.entry.d:
        raise UserError(f"{where} has {d} feature columns but the catalogue expects "
                        f"{ctx.entry.d} for {ctx.entry.name}, so nothing was stored")


def check_rows(ctx: Context, n: int, n_test: int | None) -> None:
    """Warn (do not fail) when the row counts differ from the catalogue's expectation."""
    if n != ctx.entry.n or (ctx.entry.n_test is not None and n_test != ctx.entry.n_test):
        expected = f"{ctx.entry.n:,}" + (f" + {ctx.entry.n_test:,} test"
                                         if ctx.entry.n_test is not None else "")
        found = f"{n:,}" + (f" + {n_test:,} test" if n_test is not None else "")
        ctx.warn(f"{ctx.entry.name}: {found} rows where the catalogue expects {expected}")


def integer_labels(values: np.ndarray, where: str, offset: int = 0) -> np.ndarray:
    """Class labels as int64; UserError if any is not a whole number (rows counted from 1)."""
    rounded = np.round(values)
    if not np.all(rounded == values):
        row = int(np.argmax(rounded != values))
        raise UserError(f"{where}: the class label of data row {offset + row + 1} "
                        f"({float(values[row])!r}) is not a whole number, so nothing was stored")
    return rounded.astype(np.int64)


def label_counts(y: np.ndarray) -> dict[str, int]:
    values, counts = np.unique(np.asarray(y), return_counts=True)
    return {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)}


def _rows(path: Path) -> int:
    return npy_info(path)[1][0]


def _copy_rows(src: Path, dst: Path, start: int, stop: int, lo: np.ndarray | None,
               hi: np.ndarray | None) -> str:
    dtype, shape, _ = npy_info(src)
    with NpyWriter(dst, dtype, shape[1:]) as w:
        for block in iter_rows(src, start, stop):
            w.write(minmax(block, lo, hi) if lo is not None and hi is not None else block)
    return dst.name
