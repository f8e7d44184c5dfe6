"""Datasets: ``load(name)`` returns a prepared :class:`Dataset`, fetching nothing.

Built-in sets (scikit-learn's bundled data, synthetic generators) need no download; every other
name comes from the catalogue and must have been prepared by ``ordauc fetch NAME``.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

from ordauc.data.builtin import BUILTIN, load_builtin
from ordauc.data.dataset import Dataset, Task
from ordauc.errors import UserError

__all__ = ["Dataset", "Task", "dataset_params", "is_prepared", "load", "names",
           "resolve_data_dir", "task_of"]


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data cache: the argument, else ``$ORDAUC_DATA``, else ``./datasets``."""
    if data_dir is not None:
        return Path(data_dir)
    return Path(os.environ.get("ORDAUC_DATA", "datasets"))


def _catalog() -> dict[str, Any]:
    from ordauc.data.catalog import CATALOG

    return CATALOG


def names() -> list[str]:
    """Every dataset name: built-in first, then the download catalogue."""
    return list(BUILTIN) + sorted(n for n in _catalog() if n not in BUILTIN)


def task_of(name: str) -> Task:
    """``binary`` or ``ordinal`` for a known name, without loading anything."""
    if name in BUILTIN:
        return BUILTIN[name][1]  # type: ignore[return-value]
    catalog = _catalog()
    if name in catalog:
        return catalog[name].task
    raise UserError(f"unknown dataset {name!r}; known datasets are: {', '.join(names())}")


def dataset_params(name: str) -> list[str]:
    """The keyword parameters a dataset accepts (generators' size and seed, bin counts)."""
    if name in BUILTIN:
        return list(inspect.signature(BUILTIN[name][0]).parameters)
    task_of(name)  # raises for unknown names
    return list(_catalog()[name].params)


def is_prepared(name: str, data_dir: str | os.PathLike[str] | None = None) -> bool:
    """Whether ``load(name)`` finds its data: always for built-in sets, else once fetched."""
    task_of(name)  # raises for unknown names
    if name in BUILTIN:
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
