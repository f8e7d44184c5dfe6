"""Prepared datasets in the data cache -> :class:`~ordauc.data.dataset.Dataset` (nothing fetched).

Arrays are memory-mapped (dense ``.npy``) or assembled from memory-mapped parts (CSR). The
labels are derived here from what preparation stored (see ``ordauc.data.prepare``), according to
the load parameters each catalogue entry declares:

- ``positive_class`` (binary sets): ``"default"`` (the catalogue's choice: the paper's class, or
  for AUC-DCD the class whose n-/n+ matches its Table 1), a class label of the source,
  ``"smallest"`` (the minority class), ``"first"`` (the lowest label) or ``"table1"``;
- ``n_bins`` and ``binning`` (regression targets): ``"equal_frequency"`` or ``"equal_width"``;
- ``partition``: one of the published partitions (Chu's 1..20, the survey's 0..29), used as given;
- ``n_rows`` (every catalogue set): a seeded subset of the training rows, e.g. a paper's smaller
  copy of a dataset (HIGGS: 1,100,000 of 10,500,000). The rows are the first ``n_rows`` of a
  permutation drawn by ``numpy.random.default_rng(0)``, kept in file order, so smaller subsets
  nest in larger ones and every run and machine gets the same rows. Labels come first (bins are
  cut on the full training targets); the official test split is left whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.arrays import load_csr
from ordauc.data.cache import DataCache
from ordauc.data.dataset import Dataset
from ordauc.data.discretize import RULES, discretize
from ordauc.errors import UserError

POSITIVE_RULES = ("default", "smallest", "first", "table1")


def load_prepared(name: str, data_dir: Path, **params: Any) -> Dataset:
    """The prepared dataset ``name`` from ``data_dir``, labelled according to ``params``."""
    cache = DataCache(Path(data_dir))
    if not cache.is_prepared(name):
        hint = "" if str(data_dir) == "datasets" else f" --data-dir {data_dir}"
        raise UserError(f"dataset {name!r} is not prepared in {data_dir}; run "
                        f"`ordauc fetch {name}{hint}` to download and prepare it")
    manifest = cache.manifest(name)
    folder = cache.dataset_dir(name)
    params = {**manifest.get("params", {}), **params}
    if params.get("partition") is not None:
        X, y, X_test, y_test, labels_info = _partition(folder, manifest, params)
    else:
        X, X_test = open_features(folder, manifest)
        y, y_test, labels_info = derive_labels(folder, manifest, params)
    if params.get("n_rows") is not None:
        if params.get("partition") is not None:
            raise UserError("n_rows and partition cannot be combined: a published partition is "
                            "used as given")
        rows = subset_rows(len(y), _int_param(params["n_rows"], "n_rows", 1))
        labels_info["subset"] = {"n_rows": int(rows.size), "of": len(y), "rule":
                                 "first n_rows of numpy default_rng(0).permutation, file order"}
        X, y = X[rows], y[rows]
    task = manifest["task"]
    n_classes = 2 if task == "binary" else int(labels_info.get("n_classes", 0))
    info = {key: manifest[key] for key in ("source", "sources", "preparation", "licence",
                                           "citation", "paper", "notes", "warnings",
                                           "split_sizes", "prepared_at")
            if key in manifest}
    info.update(labels_info, params=params)
    return Dataset(name=name, X=X, y=y, task=task, n_classes=n_classes, X_test=X_test,
                   y_test=y_test, info=info)


def subset_rows(n: int, n_rows: int) -> np.ndarray:
    """Indices of the seeded ``n_rows`` subset of ``n`` rows, ascending (see the module notes)."""
    if n_rows > n:
        raise UserError(f"n_rows {n_rows} exceeds the {n:,} training rows of this dataset")
    return np.sort(np.random.default_rng(0).permutation(n)[:n_rows])


def open_features(folder: Path, manifest: dict[str, Any]) -> tuple[Any, Any]:
    """X and X_test (or None): memory-mapped dense arrays or CSR matrices."""
    out = []
    for key in ("X", "X_test"):
        spec = manifest["arrays"].get(key)
        if spec is None:
            out.append(None)
        elif "csr" in spec:
            out.append(load_csr(folder, spec["csr"], tuple(spec["shape"])))
        else:
            out.append(_map(folder, spec))
    return out[0], out[1]


def derive_labels(folder: Path, manifest: dict[str, Any], params: dict[str, Any]
                  ) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
    """y, y_test and a record of how they were obtained, from the stored labels or target."""
    arrays = manifest["arrays"]
    kind = manifest["label_kind"]
    if kind == "class_labels":
        y0 = np.asarray(_map(folder, arrays["y_orig"]))
        yt0 = _map(folder, arrays["y_orig_test"]) if "y_orig_test" in arrays else None
        positive, rule = resolve_positive(y0, params.get("positive_class", "default"),
                                          manifest.get("positive", {}))
        y = (y0 == positive).astype(np.int64)
        yt = None if yt0 is None else (np.asarray(yt0) == positive).astype(np.int64)
        return y, yt, {"positive_class": positive, "positive_rule": rule,
                       "class_counts": _counts(y), "n_classes": 2}
    if kind == "regression_target":
        n_bins = _int_param(params.get("n_bins", 5), "n_bins", 2)
        rule = params.get("binning", "equal_frequency")
        if rule not in RULES:
            raise UserError(f"binning {rule!r} is not known; allowed: {', '.join(RULES)}")
        target = np.asarray(_map(folder, arrays["target"]))
        others = (np.asarray(_map(folder, arrays["target_test"])),) \
            if "target_test" in arrays else ()
        try:
            y, rest, record = discretize(target, n_bins, rule, others)
        except ValueError as exc:
            raise UserError(f"cannot cut {manifest['name']}'s target into {n_bins} bins: {exc}"
                            ) from None
        return y, (rest[0] if rest else None), {"discretisation": record,
                                                "class_counts": _counts(y), "n_classes": n_bins}
    if kind == "ordinal_labels":
        y = np.asarray(_map(folder, arrays["y"]))
        return y, None, {"class_counts": _counts(y), "n_classes": int(manifest["n_classes"])}
    raise ValueError(f"unknown label kind {kind!r} in the manifest")


def resolve_positive(y: np.ndarray, choice: Any, stored: dict[str, Any]) -> tuple[int, str]:
    """The positive class label for ``choice`` (see the module docstring) and how it was chosen."""
    labels, counts = np.unique(y, return_counts=True)
    if choice == "default":
        if "label" not in stored:
            raise ValueError("the manifest records no default positive class")
        return int(stored["label"]), stored.get("rule", "the catalogue's choice")
    if isinstance(choice, str) and choice.lstrip("+-").isdigit():
        choice = int(choice)
    if isinstance(choice, (int, np.integer)) and not isinstance(choice, bool):
        if choice not in labels:
            raise UserError(f"positive_class {choice} is not a class of this dataset; its "
                            f"classes are {', '.join(str(int(v)) for v in labels)}")
        return int(choice), "chosen by the user"
    if choice == "smallest":
        order = np.lexsort((labels, counts))
        return int(labels[order[0]]), "the smallest class"
    if choice == "first":
        return int(labels[0]), "the lowest class label"
    if choice == "table1":
        ratio = stored.get("table1_ratio")
        if ratio is None:
            raise UserError("positive_class 'table1' only applies to the AUC-DCD datasets")
        return table1_class(labels, counts, ratio)
    raise UserError(f"positive_class {choice!r} is not allowed; use a class label or one of "
                    f"{', '.join(POSITIVE_RULES)}")


def table1_class(labels: np.ndarray, counts: np.ndarray, ratio: float) -> tuple[int, str]:
    """The class whose n-/n+ is nearest to ``ratio`` (ties: the lowest label)."""
    n = counts.sum()
    ratios = (n - counts) / counts
    order = np.lexsort((labels, np.abs(ratios - ratio)))
    best = order[0]
    rule = (f"n-/n+ = {ratios[best]:.4f} matches AUC-DCD Table 1's {ratio:g} "
            f"({int(counts[best])} of {int(n)} rows)")
    if abs(ratios[best] - ratio) > 0.01 * ratio:
        rule += "; no class matches within 1 %"
    return int(labels[best]), rule


def _partition(folder: Path, manifest: dict[str, Any], params: dict[str, Any]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    parts = manifest.get("partitions")
    if not parts:
        raise UserError(f"dataset {manifest['name']!r} has no published partitions")
    key = str(params.get("n_bins", 5)) if "holdout" not in parts else "holdout"
    if key not in parts:
        raise UserError(f"{manifest['name']}'s partitions exist for n_bins "
                        f"{' or '.join(parts)}, not {key}")
    part = parts[key]
    first, count = int(part["first_index"]), int(part["count"])
    i = _int_param(params["partition"], "partition", first)
    if i >= first + count:
        raise UserError(f"partition must be in {first}..{first + count - 1}, got {i}")
    a = part["arrays"]
    pick = [np.asarray(_map(folder, a[k])[i - first]) for k in ("X_train", "y_train",
                                                               "X_test", "y_test")]
    info = {"partition": {"index": i, "rule": part["rule"], "n_bins": part["n_bins"]},
            "class_counts": _counts(pick[1]), "n_classes": int(part["n_bins"])}
    return pick[0], pick[1], pick[2], pick[3], info


def _map(folder: Path, spec: dict[str, Any] | str) -> np.ndarray:
    name = spec if isinstance(spec, str) else spec["file"]
    return np.load(folder / name, mmap_mode="r", allow_pickle=False)


def _counts(y: np.ndarray) -> dict[int, int]:
    values, counts = np.unique(np.asarray(y), return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def _int_param(value: Any, name: str, minimum: int) -> int:
    try:
        out = int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be an integer, got {value!r}") from None
    if out != value and not (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        raise UserError(f"{name} must be an integer, got {value!r}")
    if out < minimum:
        raise UserError(f"{name} must be at least {minimum}, got {out}")
    return out
