"""The JSON manifest written beside every prepared dataset.

It records what was prepared from what: the source files (URL, sha256, how the hash was
established), the preparation parameters, the stored arrays with their sha256, shapes, the class
counts under the default load parameters, licence and citation. ``ordauc datasets`` and
``ordauc.data.load`` read it; nothing in it is ever executed.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ordauc.data.arrays import npy_info, sha256_file
from ordauc.data.download import Obtained
from ordauc.data.spec import Entry
from ordauc.errors import UserError

FORMAT = 1


def default_positive(entry: Entry, y_orig: np.ndarray) -> dict[str, Any]:
    """The catalogue's positive class for a binary set, resolved on its training labels."""
    from ordauc.data.store import table1_class

    spec = entry.options.get("positive")
    labels, counts = np.unique(y_orig, return_counts=True)
    if isinstance(spec, dict) and "table1_ratio" in spec:
        label, rule = table1_class(labels, counts, float(spec["table1_ratio"]))
        return {"label": label, "rule": rule, "table1_ratio": float(spec["table1_ratio"])}
    if spec not in labels:
        raise UserError(f"{entry.name}: the labels found ({', '.join(map(str, labels))}) do "
                        f"not include the positive class {spec}, so nothing was stored")
    return {"label": int(spec), "rule": f"label {spec} is the positive class ({entry.paper})"}


def build(entry: Entry, folder: Path, obtained: dict[str, Obtained], result: dict[str, Any],
          warnings: list[str], timings: dict[str, float]) -> dict[str, Any]:
    """The manifest of a freshly prepared dataset in ``folder`` (arrays already written)."""
    from ordauc.data.store import derive_labels

    manifest: dict[str, Any] = {
        "format": FORMAT, "name": entry.name, "task": entry.task, "paper": entry.paper,
        "recipe": entry.recipe,
        "prepared_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "ordauc_version": _version(),
        "source": entry.origin,
        "sources": {role: {"filename": o.path.name, "url": o.url, "sha256": o.sha256,
                           "bytes": o.bytes, "checksum": o.check}
                    for role, o in obtained.items()},
        "preparation": {**result.get("preparation", {}), "options": _plain(entry.options)},
        "label_kind": result["label_kind"],
        "arrays": result["arrays"],
        "n": result["n"], "n_test": result.get("n_test"),
        "d": int(result.get("d", entry.d)), "n_classes": entry.n_classes,
        "params": dict(entry.params),
        "licence": entry.licence, "citation": entry.citation,
        "redistributable": entry.redistributable, "notes": entry.notes,
    }
    for key in ("partitions", "source_labels"):
        if key in result:
            manifest[key] = result[key]
    if "split" in entry.options:
        n_train, n_test = entry.options["split"]
        manifest["split_sizes"] = {"n_train": n_train, "n_test": n_test,
                                   "source": "NPSVOR Table I (random train/test partitions)"}
    if result["label_kind"] == "class_labels":
        y_orig = np.load(folder / _file(result["arrays"]["y_orig"]), mmap_mode="r")
        manifest["positive"] = default_positive(entry, np.asarray(y_orig))
    _, _, labels = derive_labels(folder, manifest, manifest["params"])
    manifest["class_counts"] = {str(k): v for k, v in labels["class_counts"].items()}
    if "discretisation" in labels:
        manifest["discretisation"] = labels["discretisation"]
    manifest["files"] = {p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size,
                                  **_shape(p)}
                         for p in sorted(folder.glob("*.npy"))}
    manifest["warnings"] = list(warnings)
    manifest["timings_s"] = {k: round(v, 2) for k, v in timings.items()}
    return manifest


def _shape(path: Path) -> dict[str, Any]:
    dtype, shape, _ = npy_info(path)
    return {"dtype": dtype.str, "shape": list(shape)}


def _file(spec: Any) -> str:
    return spec if isinstance(spec, str) else spec["file"]


def _plain(value: Any) -> Any:
    """Options as JSON-friendly values (tuples become lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("ordauc")
    except Exception:  # noqa: BLE001 - an uninstalled checkout has no metadata
        return "unknown"
