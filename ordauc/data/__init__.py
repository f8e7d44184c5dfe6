"""Datasets: ``load(name)`` returns a prepared :class:`Dataset`, fetching nothing.

Every name has a catalogue :class:`~ordauc.data.spec.Entry`. Built-in sets (scikit-learn's
bundled data, synthetic generators) need no download; every other name comes from the download
catalogue and must have been prepared by ``ordauc fetch NAME``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ordauc.data.builtin import BUILTIN, load_builtin
from ordauc.data.dataset import Dataset, Task
from ordauc.data.spec import Entry
from ordauc.errors import UserError

__all__ = ["Dataset", "Entry", "Task", "dataset_params", "entry", "is_prepared", "load", "names",
           "partition_indices", "resolve_data_dir", "task_of"]

# Published partitions by recipe, as the sources publish them: Chu Wei's 20 (numbered 1..20, for
# 5 and 10 bins) and the survey's 30 hold-outs (numbered 0..29).
_PARTITIONS = {"chu": range(1, 21), "orreview": range(0, 30)}


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data cache: the argument, else ``$ORDAUC_DATA``, else ``./datasets``."""
    if data_dir is not None:
        return Path(data_dir)
    return Path(os.environ.get("ORDAUC_DATA", "datasets"))


def _catalog() -> dict[str, Entry]:
    # The download catalogue is imported on first use: the command line starts without it.
    from ordauc.data.catalog import CATALOG

    return CATALOG


def names() -> list[str]:
    """Every dataset name: built-in first, then the download catalogue."""
    return list(BUILTIN) + sorted(n for n in _catalog() if n not in BUILTIN)


def entry(name: str) -> Entry:
    """The catalogue entry of a built-in or downloadable dataset; :class:`UserError` naming the
    known datasets for any other name."""
    found = BUILTIN[name] if name in BUILTIN else _catalog().get(name)
    if found is None:
        raise UserError(f"unknown dataset {name!r}; known datasets are: {', '.join(names())}")
    return found


def task_of(name: str) -> Task:
    """``binary`` or ``ordinal`` for a known name, without loading anything."""
    return entry(name).task


def dataset_params(name: str) -> list[str]:
    """The keyword parameters a dataset accepts (generators' size and seed, bin counts)."""
    found = entry(name)
    if found.builtin:
        return list(found.params)
    return [*found.params, "n_rows"]  # n_rows: a seeded subset (ordauc.data.store)


def is_prepared(name: str, data_dir: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``load(name)`` finds its data: always for built-in sets, else once fetched."""
    if entry(name).builtin:  # raises for unknown names
        return True
    from ordauc.data.cache import DataCache

    return DataCache(resolve_data_dir(data_dir)).is_prepared(name)


def load(name: str, data_dir: str | os.PathLike[str] | None = None, **params: Any) -> Dataset:
    """The prepared dataset ``name``; ``params`` go to generators (e.g. ``n``, ``d``, ``seed``).

    Raises :class:`UserError` for an unknown name, an unknown parameter, or a catalogue dataset
    that is not in the data cache (the message names the ``ordauc fetch`` command that gets it).
    """
    allowed = dataset_params(name)
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        shown = ", ".join(allowed) if allowed else "none"
        raise UserError(f"dataset {name!r} has no parameter {unknown[0]!r}; allowed: {shown}")
    if name in BUILTIN:
        try:
            return load_builtin(name, **params)
        except (TypeError, ValueError) as exc:
            raise UserError(f"dataset {name!r}: {exc}") from None
    from ordauc.data.store import load_prepared

    return load_prepared(name, resolve_data_dir(data_dir), **params)


def partition_indices(name: str, data_dir: str | os.PathLike[str] | None = None,
                      **params: Any) -> list[int]:
    """The published partitions of ``name`` (``load(name, partition=i)``), without loading data:
    from the prepared manifest when fetched, else from what the source publishes. Raises
    :class:`UserError` for a dataset without published partitions."""
    found = entry(name)
    if found.recipe not in _PARTITIONS:
        with_parts = sorted(n for n, e in _catalog().items() if e.recipe in _PARTITIONS)
        raise UserError(f"dataset {name!r} has no published partitions; datasets with "
                        f"partitions are: {', '.join(with_parts)}")
    from ordauc.data.cache import DataCache

    cache = DataCache(resolve_data_dir(data_dir))
    if cache.is_prepared(name):
        parts = cache.manifest(name).get("partitions", {})
        part = parts.get("holdout") or parts.get(str(params.get("n_bins", 5)))
        if part is None:
            raise UserError(f"{name}'s partitions exist for n_bins {' or '.join(parts)}, not "
                            f"{params.get('n_bins')}")
        first = int(part["first_index"])
        return list(range(first, first + int(part["count"])))
    return list(_PARTITIONS[found.recipe])
