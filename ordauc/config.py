"""Experiment configuration: a YAML file read into validated, typed dataclasses.

Schema (every key but ``datasets``, ``n_labeled`` and ``solvers`` is optional; defaults shown)::

    seed: 0                   # base seed of every hashed seed (DESIGN section 6)
    seeds: 1                  # repetitions, seed indices 0..seeds-1
    datasets:                 # names, or {name: ..., <dataset parameter>: value, ...}
      - breast_cancer
      - {name: synthetic_binary, n: 2000, d: 10}   # reported as synthetic_binary[d=10,n=2000]
    n_labeled: [200]          # labeled budgets (a single integer is a one-element list)
    n_unlabeled: [null]       # unlabeled budgets; null = all the remaining training rows
    test_size: 0.25           # held-out fraction when a dataset has no official test split
    evaluate: test            # test, or unlabeled (transductive AUC on the unlabeled rows)
    labeled_sampling: uniform # uniform, or stratified (class proportions, >= 1 row per class)
    cv: {folds: 5, metric: auc}   # inner grid search on the labeled rows; metric auc|mze|mae
    timeout: null             # seconds per cell, or null for none
    solvers:                  # label: {solver: <registry name>, params: {...}, grid: {...}}
      samult: {grid: {lam: [0.5, 1], sigma: [1, 4], gamma: [0, 0.5, 1]}}
      qsg_short: {solver: qsg_s2auc, params: {n_iter: 300}}   # solver defaults to the label

Every problem raises :class:`~ordauc.errors.UserError` with one sentence naming the key or value
and what is allowed; malformed YAML names the line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ordauc.errors import UserError

TOP_LEVEL_KEYS = ("seed", "seeds", "datasets", "n_labeled", "n_unlabeled", "test_size",
                  "evaluate", "labeled_sampling", "cv", "timeout", "solvers")
EVALUATE = ("test", "unlabeled")
SAMPLING = ("uniform", "stratified")
CV_METRICS = ("auc", "mze", "mae")


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the study: a registry name plus its parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The ``dataset`` column: the name, with its parameters when there are any."""
        if not self.params:
            return self.name
        return f"{self.name}[{','.join(f'{k}={v}' for k, v in sorted(self.params.items()))}]"


@dataclass(frozen=True)
class SolverSpec:
    """One solver of the study: ``label`` names it in the results, ``name`` in the registry."""

    label: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class CVSpec:
    folds: int = 5
    metric: str = "auc"


@dataclass(frozen=True)
class Config:
    datasets: tuple[DatasetSpec, ...]
    solvers: tuple[SolverSpec, ...]
    n_labeled: tuple[int, ...]
    n_unlabeled: tuple[int | None, ...] = (None,)
    seed: int = 0
    seeds: int = 1
    test_size: float = 0.25
    evaluate: str = "test"
    labeled_sampling: str = "uniform"
    cv: CVSpec = field(default_factory=CVSpec)
    timeout: float | None = None


class _UniqueKeyLoader(yaml.SafeLoader):
    """Safe loader that refuses a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_config(path: str | Path) -> Config:
    """Read and validate the YAML file ``path``."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"config file {str(path)!r} does not exist")
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path.name}{where}: malformed YAML ({problem})") from None
    except UnicodeDecodeError:
        raise UserError(f"config file {str(path)!r} is not UTF-8 text") from None
    return parse_config(raw)


def parse_config(raw: Any) -> Config:
    """Validate an already-parsed YAML document."""
    if not isinstance(raw, dict):
        raise UserError("the config must be a YAML mapping with keys such as datasets, n_labeled "
                        "and solvers")
    unknown = [k for k in raw if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise UserError(f"unknown config key {unknown[0]!r}; allowed keys are: "
                        f"{', '.join(TOP_LEVEL_KEYS)}")
    for key in ("datasets", "n_labeled", "solvers"):
        if raw.get(key) is None:
            raise UserError(f"the config needs the key {key!r}")
    return Config(
        datasets=_datasets(raw["datasets"]),
        solvers=_solvers(raw["solvers"]),
        n_labeled=_budgets(raw["n_labeled"], "n_labeled", 1, allow_all=False),
        n_unlabeled=_budgets(raw.get("n_unlabeled"), "n_unlabeled", 0, allow_all=True),
        seed=_int(raw.get("seed", 0), "seed", 0),
        seeds=_int(raw.get("seeds", 1), "seeds", 1),
        test_size=_fraction(raw.get("test_size", 0.25), "test_size"),
        evaluate=_choice(raw.get("evaluate", "test"), "evaluate", EVALUATE),
        labeled_sampling=_choice(raw.get("labeled_sampling", "uniform"), "labeled_sampling",
                                 SAMPLING),
        cv=_cv(raw.get("cv")),
        timeout=_timeout(raw.get("timeout")),
    )


def _listed(value: Any, key: str, default: list[Any] | None = None) -> list[Any]:
    if value is None and default is not None:
        return default
    items = value if isinstance(value, list) else [value]
    if not items:
        raise UserError(f"{key} must not be an empty list")
    return items


def _budgets(value: Any, key: str, minimum: int, allow_all: bool) -> tuple[Any, ...]:
    """A list of distinct sizes; ``null`` (all the remaining rows) only where ``allow_all``."""
    items = _listed(value, key, default=[None] if allow_all else None)
    sizes = tuple(None if v is None and allow_all else _int(v, key, minimum, listed=True)
                  for v in items)
    for size in sizes:
        if sizes.count(size) > 1:
            raise UserError(f"{key} lists {'null' if size is None else size} twice")
    return sizes


def _int(value: Any, key: str, minimum: int, listed: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "a list of integers" if listed else "an integer"
        raise UserError(f"{key} must be {kind} >= {minimum}, got {value!r}")
    return value


def _fraction(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise UserError(f"{key} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _choice(value: Any, key: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UserError(f"{key} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def _timeout(value: Any) -> float | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0
            or not math.isfinite(value)):
        raise UserError(f"timeout must be a positive number of seconds or null, got {value!r}")
    return float(value)


def _cv(value: Any) -> CVSpec:
    if value is None:
        return CVSpec()
    if not isinstance(value, dict):
        raise UserError(f"cv must be a mapping such as {{folds: 5, metric: auc}}, got {value!r}")
    unknown = [k for k in value if k not in ("folds", "metric")]
    if unknown:
        raise UserError(f"unknown key {unknown[0]!r} in cv; allowed keys are: folds, metric")
    return CVSpec(folds=_int(value.get("folds", 5), "cv.folds", 2),
                  metric=_choice(value.get("metric", "auc"), "cv.metric", CV_METRICS))


def _datasets(value: Any) -> tuple[DatasetSpec, ...]:
    from ordauc import data

    specs = []
    for entry in _listed(value, "datasets"):
        if isinstance(entry, str):
            spec = DatasetSpec(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            spec = DatasetSpec(entry["name"], {k: v for k, v in entry.items() if k != "name"})
        else:
            raise UserError(f"each entry of datasets must be a name or a mapping with a 'name' "
                            f"key, got {entry!r}")
        allowed = data.dataset_params(spec.name)  # raises for an unknown dataset
        for key in spec.params:
            if key not in allowed:
                raise UserError(f"dataset {spec.name!r} has no parameter {key!r}; allowed: "
                                f"{', '.join(allowed) or 'none'}")
        specs.append(spec)
    labels = [s.label for s in specs]
    for label in labels:
        if labels.count(label) > 1:
            raise UserError(f"dataset {label!r} is listed twice in datasets")
    return tuple(specs)


def _solvers(value: Any) -> tuple[SolverSpec, ...]:
    if not isinstance(value, dict) or not value:
        raise UserError("solvers must be a non-empty mapping of solver names to "
                        "{params: ..., grid: ...}")
    return tuple(_solver(str(label), entry) for label, entry in value.items())


def _solver(label: str, entry: Any) -> SolverSpec:
    from ordauc import solvers

    if not re.fullmatch(r"[\w.\-]+", label):
        raise UserError(f"solver label {label!r} may only hold letters, digits, '_', '.' and "
                        "'-', as it becomes part of each cell's key")
    entry = {} if entry is None else entry
    if not isinstance(entry, dict):
        raise UserError(f"solvers.{label} must be a mapping with keys solver, params, grid, "
                        f"got {entry!r}")
    unknown = [k for k in entry if k not in ("solver", "params", "grid")]
    if unknown:
        raise UserError(f"unknown key {unknown[0]!r} in solvers.{label}; allowed keys are: "
                        "solver, params, grid")
    name = entry.get("solver", label)
    params = _mapping(entry.get("params"), f"solvers.{label}.params")
    grid = {k: v if isinstance(v, list) else [v]
            for k, v in _mapping(entry.get("grid"), f"solvers.{label}.grid").items()}
    for key, values in grid.items():
        if not values:
            raise UserError(f"solvers.{label}.grid.{key} must list at least one value")
        if key in params:
            raise UserError(f"solvers.{label}: parameter {key!r} is in both params and grid; "
                            "give it in one of them")
    for key in (*params, *grid):
        if key == "random_state":
            raise UserError(f"solvers.{label}: random_state cannot be set, it is derived from "
                            "the cell's seed")
    solvers.get(str(name), **params, **{k: v[0] for k, v in grid.items()})  # names the bad key
    for key, value in params.items():
        solvers.check_value(str(name), key, value)
    for key, values in grid.items():
        for value in values:
            solvers.check_value(str(name), key, value)
    return SolverSpec(label=label, name=str(name), params=params, grid=grid)


def _mapping(value: Any, key: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UserError(f"{key} must be a mapping of parameter names to values, got {value!r}")
    return {str(k): v for k, v in value.items()}
