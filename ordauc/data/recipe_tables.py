"""Recipes for feature tables: LIBSVM files, and delimited or parquet tables of any size.

``svmlight`` reads the (small to medium) LIBSVM files whole, with the catalogue's feature count;
the result stays CSR when the entry says ``sparse`` (sector's 55,197 columns). ``table`` streams
a numeric table block by block into ``.npy`` files (HIGGS, SUSY, the PUF set, Year, ...), so its
memory does not grow with the file.

Entry options used here: ``sparse``, ``scale`` ("minmax" or absent), ``format`` (a
:class:`~ordauc.data.tables.TableFormat`), ``train``/``test`` (``{"role": .., "member": ..}``),
``target`` (a column index or name, or a list of them averaged: sgemm's four runs),
``concat`` (the train and test files are one table),
``features`` (columns; default all but the target and ``drop``), ``label_kind``
("class_labels" or "regression_target"), ``test_tail`` (the last rows are the test split).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.arrays import NpyWriter, save_csr
from ordauc.data.prepare import (
    Context,
    check_features,
    check_rows,
    finish_dense,
    integer_labels,
    label_counts,
    minmax,
    save_dense,
    split_vector,
)
from ordauc.data.svmlight import read_svmlight
from ordauc.data.tables import TableFormat, column_names, iter_table
from ordauc.errors import UserError


def svmlight(ctx: Context) -> dict[str, Any]:
    """LIBSVM train (and test) files -> features and the source's class labels."""
    o = ctx.entry.options
    d = ctx.entry.d
    parts = {}
    for role in ("train", "test"):
        if role in ctx.files:
            X, y = read_svmlight(ctx.files[role], d, ctx.label(role))
            parts[role] = (X, integer_labels(y, ctx.label(role)))
    X, y = parts["train"]
    Xt, yt = parts.get("test", (None, None))
    check_rows(ctx, X.shape[0], None if Xt is None else Xt.shape[0])
    arrays: dict[str, Any] = {}
    prep: dict[str, Any] = {"parser": "sklearn.datasets.load_svmlight_file",
                            "n_features": d, "zero_based": False}
    if o.get("sparse"):
        arrays["X"] = {"csr": save_csr(ctx.out, "X", X), "shape": list(X.shape)}
        if Xt is not None:
            arrays["X_test"] = {"csr": save_csr(ctx.out, "X_test", Xt), "shape": list(Xt.shape)}
        prep["storage"] = "CSR float32"
        prep["scaling"] = "none"
    else:
        dense = X.toarray()
        dense_t = None if Xt is None else Xt.toarray()
        prep["scaling"] = "none"
        if o.get("scale") == "minmax":
            lo, hi = dense.min(axis=0), dense.max(axis=0)
            dense = minmax(dense, lo, hi)
            dense_t = None if dense_t is None else minmax(dense_t, lo, hi)
            prep.update(scaling="minmax [0, 1] with the training rows' column range",
                        feature_min=lo.tolist(), feature_max=hi.tolist())
        arrays["X"] = save_dense(ctx, "X", dense)
        if dense_t is not None:
            arrays["X_test"] = save_dense(ctx, "X_test", dense_t)
    arrays["y_orig"] = save_dense(ctx, "y_orig", y)
    if yt is not None:
        arrays["y_orig_test"] = save_dense(ctx, "y_orig_test", yt)
    return {"arrays": arrays, "preparation": prep, "label_kind": "class_labels",
            "n": int(X.shape[0]), "n_test": None if Xt is None else int(Xt.shape[0]),
            "source_labels": label_counts(y)}


def table(ctx: Context) -> dict[str, Any]:
    """A numeric table (one file, or train and test files) streamed into ``.npy`` files."""
    o = ctx.entry.options
    fmt = TableFormat(**o.get("format", {}))
    kind = o.get("label_kind", "class_labels")
    inputs = [(s, ctx.path(s["role"], s.get("member")))
              for s in (o.get("train", {"role": "train"}), o.get("test"))
              if s is not None and s["role"] in ctx.files]
    first = inputs[0][1]
    names = column_names(first, fmt)
    targets = _columns(o["target"], names, first.name)
    features = (_columns(o["features"], names, first.name) if "features" in o else
                [j for j in range(len(names))
                 if j not in targets and j not in _columns(o.get("drop", []), names, "")])
    check_features(ctx, len(features), ctx.label(inputs[0][0]["role"],
                                                 inputs[0][0].get("member")))
    raw_X = ctx.work / "X.raw.npy"
    raw_y = ctx.work / "y.raw.npy"
    rows_per_file = []
    with NpyWriter(raw_X, np.float32, (len(features),)) as wx, \
            NpyWriter(raw_y, np.int64 if kind == "class_labels" else np.float64) as wy:
        for spec, path in inputs:
            where = ctx.label(spec["role"], spec.get("member"))
            if column_names(path, fmt) != names and fmt.header:
                raise UserError(f"{where} has other columns than {first.name}, so nothing "
                                "was stored")
            start = wx.rows
            for block in iter_table(path, fmt, where):
                if block.shape[1] != len(names):
                    raise UserError(f"{where} has {block.shape[1]} columns where "
                                    f"{first.name} has {len(names)}, so nothing was stored")
                target = block[:, targets].mean(axis=1)
                if kind == "class_labels":
                    target = integer_labels(target, where, wy.rows - start)
                wx.write(block[:, features])
                wy.write(target)
            rows_per_file.append(wx.rows - start)
    total = sum(rows_per_file)
    if o.get("concat"):
        n_train = total  # several files that together are one table (Torgo's .data + .test)
    elif len(rows_per_file) > 1:
        n_train = rows_per_file[0]
    elif o.get("test_tail"):
        n_train = total - int(o["test_tail"])
        if n_train <= 0:
            raise UserError(f"{first.name} has {total:,} rows, fewer than the "
                            f"{int(o['test_tail']):,} test rows its split needs, so nothing "
                            "was stored")
    else:
        n_train = total
    n_test = total - n_train if total > n_train else None
    check_rows(ctx, n_train, n_test)
    result = finish_dense(ctx, raw_X, n_train, o.get("scale"))
    stem = "y_orig" if kind == "class_labels" else "target"
    result["arrays"].update(split_vector(ctx, raw_y, n_train, stem))
    result["preparation"].update(
        parser="pyarrow.csv (streamed)" if fmt.kind in ("csv", "tsv") else fmt.kind,
        columns={"features": [names[j] for j in features], "target": [names[j] for j in targets],
                 "target_reduce": "mean" if len(targets) > 1 else "none"},
        split=("none (files concatenated)" if o.get("concat") else
               "file" if len(rows_per_file) > 1 else
               f"last {o['test_tail']} rows are the test split" if o.get("test_tail") else "none"))
    result.update(label_kind=kind, n=n_train, n_test=n_test)
    if kind == "class_labels":
        result["source_labels"] = _count_labels(ctx.out / result["arrays"]["y_orig"])
    return result


def _columns(spec: Any, names: list[str], where: str) -> list[int]:
    """Column positions from an index, a name, or a list of either."""
    items = spec if isinstance(spec, (list, tuple)) else [spec]
    out = []
    for item in items:
        if isinstance(item, int):
            if not -len(names) <= item < len(names):
                raise UserError(f"{where} has {len(names)} columns, so column {item} does not "
                                "exist and nothing was stored")
            out.append(item % len(names))
        elif item in names:
            out.append(names.index(item))
        else:
            raise UserError(f"{where} has no column named {item!r}, so nothing was stored")
    return out


def _count_labels(path: Path) -> dict[str, int]:
    return label_counts(np.load(path, mmap_mode="r"))
