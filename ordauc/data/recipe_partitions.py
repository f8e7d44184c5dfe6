"""Recipes for published partitions: Chu Wei's benchmarks and the ordinal-regression survey.

Chu Wei's archives (``ordinal_<name>.zip``, gatsby.ucl.ac.uk/~chuwei/ordinalregression.html;
Chu & Ghahramani, JMLR 2005) hold the raw file (features, continuous target last) and 20
train/test partitions for 5 bins (folder ``quantile``) and 10 bins (``decile``), whitespace
separated, label last. Their bins are equal-width, whatever the folder names say. The raw
target is kept so ``load`` can cut it by either rule; the partitions are kept as published.

The survey's bundle (``datasets-orreview.zip``, Gutiérrez et al., IEEE TKDE 2016) holds, per
dataset, 30 stratified hold-out partitions ``matlab/{train,test}_<name>.<i>``, i = 0..29, in the
same text format. Partition 0's train and test rows together are the whole dataset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.prepare import (
    Context,
    check_features,
    check_rows,
    integer_labels,
    label_counts,
    save_dense,
)
from ordauc.data.tables import read_numbers
from ordauc.errors import UserError

CHU_BINS = {5: "quantile", 10: "decile"}


def chu(ctx: Context) -> dict[str, Any]:
    """Raw features and target from Chu's archive, plus his 5- and 10-bin partitions."""
    o = ctx.entry.options
    folder, stem = o["folder"], o["stem"]
    root = ctx.extract("archive", prefix=f"{folder}/")
    raw_path = root / folder / stem
    if not raw_path.is_file():
        raise UserError(f"{ctx.files['archive'].name} has no member {folder}/{stem}, so nothing "
                        "was stored")
    raw = read_numbers(raw_path, ctx.label("archive", f"{folder}/{stem}"))
    check_features(ctx, raw.shape[1] - 1, ctx.label("archive", f"{folder}/{stem}"))
    check_rows(ctx, raw.shape[0], None)
    arrays: dict[str, Any] = {"X": save_dense(ctx, "X", raw[:, :-1].astype(np.float32)),
                              "target": save_dense(ctx, "target", raw[:, -1])}
    partitions = {}
    for k, sub in CHU_BINS.items():
        files = [(root / folder / sub / f"{stem}_train_{k}.{i}",
                  root / folder / sub / f"{stem}_test_{k}.{i}") for i in range(1, 21)]
        partitions[str(k)] = _stack(ctx, "archive", f"p{k}", files, k, first_index=1,
                                    rule=f"Chu's {sub} files as published (equal-width bins)")
    return {"arrays": arrays, "label_kind": "regression_target", "n": int(raw.shape[0]),
            "n_test": None, "partitions": partitions,
            "preparation": {"parser": "whitespace/comma text", "scaling": "none",
                            "raw_file": f"{folder}/{stem}"}}


def orreview(ctx: Context) -> dict[str, Any]:
    """The survey's 30 hold-out partitions of one dataset; X, y = partition 0's rows."""
    folder = ctx.entry.options["folder"]
    prefix = _find_prefix(ctx, folder)
    root = ctx.extract("bundle", prefix=prefix)
    base = root / prefix
    files = [(base / f"train_{folder}.{i}", base / f"test_{folder}.{i}") for i in range(30)]
    part = _stack(ctx, "bundle", "p", files, ctx.entry.n_classes, first_index=0,
                  rule="the survey's stratified hold-outs as published")
    files_of = part["arrays"]
    X = np.concatenate([np.load(ctx.out / files_of["X_train"])[0],
                        np.load(ctx.out / files_of["X_test"])[0]])
    y = np.concatenate([np.load(ctx.out / files_of["y_train"])[0],
                        np.load(ctx.out / files_of["y_test"])[0]])
    check_rows(ctx, X.shape[0], None)
    arrays = {"X": save_dense(ctx, "X", X), "y": save_dense(ctx, "y", y)}
    return {"arrays": arrays, "label_kind": "ordinal_labels", "n": int(X.shape[0]),
            "n_test": None, "partitions": {"holdout": part},
            "preparation": {"parser": "whitespace text", "scaling": "none",
                            "folder": prefix}}


def _stack(ctx: Context, role: str, key: str, files: list[tuple[Path, Path]], k: int,
           first_index: int, rule: str) -> dict[str, Any]:
    """Read partition files (label last) into stacked arrays of shape (P, n, d) and (P, n)."""
    blocks: dict[str, list[np.ndarray]] = {"X_train": [], "y_train": [], "X_test": [],
                                           "y_test": []}
    for train, test in files:
        for part, path in (("train", train), ("test", test)):
            where = ctx.label(role, path.name)
            if not path.is_file():
                raise UserError(f"{ctx.files[role].name} has no partition "
                                f"file {path.name}, so nothing was stored")
            values = read_numbers(path, where)
            check_features(ctx, values.shape[1] - 1, where)
            labels = integer_labels(values[:, -1], where)
            if labels.min() < 1 or labels.max() > k:
                raise UserError(f"{where} has labels outside 1..{k}, so nothing was stored")
            blocks[f"X_{part}"].append(values[:, :-1].astype(np.float32))
            blocks[f"y_{part}"].append(labels)
    sizes = {part: {len(b) for b in blocks[f"y_{part}"]} for part in ("train", "test")}
    if len(sizes["train"]) != 1 or len(sizes["test"]) != 1:
        raise UserError(f"the partitions of {ctx.entry.name} differ in size ({sizes}), so "
                        "nothing was stored")
    arrays = {name: save_dense(ctx, f"{key}_{name}", np.stack(value))
              for name, value in blocks.items()}
    return {"arrays": arrays, "count": len(files), "first_index": first_index,
            "n_train": sizes["train"].pop(), "n_test": sizes["test"].pop(), "n_bins": k,
            "rule": rule, "class_counts_first": label_counts(
                np.concatenate([blocks["y_train"][0], blocks["y_test"][0]]))}


def _find_prefix(ctx: Context, folder: str) -> str:
    """The folder of ``folder``'s matlab partitions inside the bundle, wherever it sits."""
    import zipfile

    wanted = f"/{folder}/matlab/train_{folder}.0"
    with zipfile.ZipFile(ctx.files["bundle"]) as zf:
        hits = sorted(n for n in zf.namelist() if ("/" + n).endswith(wanted))
    hits.sort(key=lambda n: "ordinal-regression" not in n)
    if not hits:
        raise UserError(f"{ctx.files['bundle'].name} has no folder {folder}/matlab with the "
                        "survey's partitions, so nothing was stored")
    return hits[0][: -len(f"train_{folder}.0")]
