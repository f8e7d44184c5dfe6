"""Experiment configuration: a YAML file read into validated, typed dataclasses.

Schema (every key but ``datasets``, ``resampling`` and ``solvers`` is optional; defaults shown)::

    seed: 0                   # base seed of every hashed seed (README, "Resampling and seeds")
    datasets:                 # names, or {name: ..., <dataset parameter>: value, ...}
      - breast_cancer
      - {name: synthetic_binary, n: 2000, d: 10}   # reported as synthetic_binary[d=10,n=2000]
      - {name: boston, resampling: {kind: budget, repeats: 5, n_labeled: all,
                                    train_size: catalogue}}  # its own resampling
    resampling:               # how a dataset becomes repetitions (ordauc.splits)
      kind: budget            # budget | partitions | kfold
      repeats: 1              # budget: random draws; kfold: repeats of the k folds
      folds: 5                # kfold: k
      partitions: null        # partitions: which published ones (default: all of them)
      n_labeled: [200]        # labeled budgets, or `all` (every training row labeled)
      n_unlabeled: [null]     # unlabeled budgets; null or `all` = every remaining training row
      test_size: 0.25         # budget without an official test split: held-out fraction
      train_size: null        # or the training rows of each draw (the rest held out), or
                              # catalogue: the dataset's published train/test sizes
      sampling: uniform       # labeled rows: uniform, or stratified (>= 1 row per class)
      beyond_data: error      # drop: a dataset's unlabeled budgets larger than its rows are
                              # left out of its plan (one log grid for datasets of any size)
    evaluate: test            # test, or unlabeled (transductive AUC on the unlabeled rows)
    preprocess: none          # none, standardize (z-score with the training rows' statistics),
                              # or minmax (each feature to [0, 1] by its range over the
                              # dataset's training rows, before the split: the same for every
                              # solver, as the QSG papers scale their data)
    tuning: {kind: cv, folds: 5, metric: auc}   # cv (inner CV on the labeled training rows) or
                              # test (the best point on the evaluation rows: some papers' protocol);
                              # metric: a registry metric, or own (the solver's score(X, y)), or
                              # a list ([mze, mae]): one search, one row per selection metric;
                              # shared: false fits the grid one point at a time
    curves: null              # {every: 100}: iterative solvers' checkpoints into curves.csv;
                              # until: N records none after iteration N (default: all);
                              # sample: N scores each checkpoint on a fixed seeded draw of at
                              # most N evaluation rows (default: all of them);
                              # spacing: log keeps about 20 checkpoints per decade of
                              # iterations (default linear: every one); reference: samult fits
                              # that solver once per cell on the same rows with the final
                              # model's shared hyper-parameters and records
                              # reference_error = mean (f_t(x) - f_ref(x))^2 per checkpoint
    timeout: null             # seconds per cell, or null for none
    memory_limit: null        # e.g. 12GB; default a safe share of this machine's memory
    solvers:                  # label: {solver: <registry name>, params, grid, tuning, sweep}
      samult: {grid: {lam: [0.5, 1], sigma: [1, 4], gamma: [0, 0.5, 1]}}
      qsg_short: {solver: qsg_s2auc, params: {n_iter: 300}}   # solver defaults to the label
      npsvor: {sweep: {eps: [0.1, 0.2]}, grid: {C: [1, 10]}}  # one run per swept value, tuned
                              # per value: labels npsvor.eps=0.1 and npsvor.eps=0.2

Every problem raises :class:`~ordauc.errors.UserError` with one sentence naming the key or value
and what is allowed; malformed YAML names the line. Solver parameters and every grid point are
checked against the solver's declared constraints here, before anything runs.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from ordauc.config_values import (
    budgets,
    choice,
    dataset_label,
    fraction,
    integer,
    listed,
    mapping,
    memory_bytes,
    only_keys,
    timeout,
)
from ordauc.errors import UserError

TOP_LEVEL_KEYS = ("seed", "datasets", "resampling", "evaluate", "preprocess", "tuning",
                  "curves", "timeout", "memory_limit", "solvers")
MOVED = {"seeds": "resampling: {repeats: N}", "n_labeled": "resampling: {n_labeled: [...]}",
         "n_unlabeled": "resampling: {n_unlabeled: [...]}",
         "test_size": "resampling: {test_size: ...}",
         "labeled_sampling": "resampling: {sampling: ...}",
         "cv": "tuning: {kind: cv, folds: 5, metric: auc}"}
EVALUATE = ("test", "unlabeled")
PREPROCESS = ("none", "standardize", "minmax")
SPACING = ("linear", "log")  # how often a curve records: every checkpoint, or ~20 per decade
SAMPLING = ("uniform", "stratified")
BEYOND_DATA = ("error", "drop")
RESAMPLING = ("budget", "partitions", "kfold")
TUNERS = ("cv", "test")


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the study: a registry name plus its parameters, and its own resampling
    where it differs from the study's (a study may mix published partitions and random
    hold-outs, as the NPSVOR paper does)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    resampling: ResamplingSpec | None = None  # None: the study's

    @property
    def label(self) -> str:
        """The ``dataset`` column: the name, with its parameters when there are any."""
        return dataset_label(self.name, self.params)


@dataclass(frozen=True)
class TuningSpec:
    """How a solver's grid is searched: ``cv`` (inner k-fold CV on the labeled training rows)
    or ``test`` (every point scored on the evaluation rows, the best one kept: the protocol
    some papers report, optimistic by construction), by each of ``metrics``: the search runs
    once and every metric selects its own point (one results row each, e.g. the NPSVOR
    paper's MZE-tuned and MAE-tuned tables)."""

    kind: str = "cv"
    folds: int = 5
    metrics: tuple[str, ...] = ("auc",)  # one row per selection metric, from one search
    shared: bool = True  # cv: fit the grid in the solver's shared passes where it has them


@dataclass(frozen=True)
class SolverSpec:
    """One solver of the study: ``label`` names it in the results, ``name`` in the registry."""

    label: str
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    tuning: TuningSpec | None = None  # None: the study's tuning
    sweep_of: str | None = None  # the config entry whose `sweep` made this one
    swept: tuple[str, ...] = ()  # the parameters that entry sweeps


@dataclass(frozen=True)
class ResamplingSpec:
    """How each dataset becomes repetitions; see :mod:`ordauc.splits`.

    ``n_labeled`` None means every training row is labeled (``all``); ``n_unlabeled`` None means
    every remaining training row.
    """

    kind: str = "budget"
    repeats: int = 1
    folds: int = 5
    partitions: tuple[int, ...] | None = None
    n_labeled: tuple[int | None, ...] = (None,)
    n_unlabeled: tuple[int | None, ...] = (None,)
    test_size: float = 0.25
    sampling: str = "uniform"
    beyond_data: str = "error"  # or "drop": unlabeled budgets a dataset cannot fill
    train_size: int | str | None = None  # budget: training rows per draw (the rest is held
    # out), or "catalogue": the dataset's published train/test sizes; None: test_size decides


@dataclass(frozen=True)
class Config:
    datasets: tuple[DatasetSpec, ...]
    solvers: tuple[SolverSpec, ...]
    resampling: ResamplingSpec
    seed: int = 0
    evaluate: str = "test"
    preprocess: str = "none"
    tuning: TuningSpec = field(default_factory=TuningSpec)
    curves_every: int | None = None
    curves_until: int | None = None  # no checkpoint recorded after this iteration
    curves_sample: int | None = None  # checkpoints score at most this many evaluation rows
    curves_spacing: str = "linear"  # "log": about 20 checkpoints per decade of iterations
    curves_reference: str | None = None  # a solver whose exact fit the iterates are compared with
    timeout: float | None = None
    memory_limit: int | None = None  # bytes; None: the run's default

    def tuning_of(self, solver: SolverSpec) -> TuningSpec:
        """The tuning protocol of ``solver``: its own, else the study's."""
        return solver.tuning or self.tuning

    def resampling_of(self, dataset: DatasetSpec) -> ResamplingSpec:
        """How ``dataset`` becomes repetitions: its own resampling, else the study's."""
        return dataset.resampling or self.resampling


class _UniqueKeyLoader(yaml.SafeLoader):
    """Safe loader that refuses a key given twice in one mapping (PyYAML keeps the last). Keys
    merged from an anchor (``<<: *defaults``) may be overridden, as YAML intends."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_config(path: str | Path) -> Config:
    """Read and validate the YAML file ``path``."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"config {str(path)!r} is a folder; give the YAML file of a study, "
                        "e.g. configs/quickstart.yaml")
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
    except OSError as exc:
        raise UserError(f"cannot read config {str(path)!r} ({exc.strerror or exc})") from None
    return parse_config(raw)


def parse_config(raw: Any) -> Config:
    """Validate an already-parsed YAML document."""
    if not isinstance(raw, dict):
        raise UserError("the config must be a YAML mapping with keys such as datasets, "
                        "resampling and solvers")
    for key in raw:
        if key in MOVED:
            raise UserError(f"config key {key!r} has moved: write it as {MOVED[key]}")
    only_keys(raw, TOP_LEVEL_KEYS, "the config")
    for key in ("datasets", "resampling", "solvers"):
        if raw.get(key) is None:
            raise UserError(f"the config needs the key {key!r}")
    tuning = _tuning(raw.get("tuning"), "tuning")
    curves = _curves(raw.get("curves"))
    return Config(
        datasets=_datasets(raw["datasets"]),
        solvers=_solvers(raw["solvers"]),
        resampling=_resampling(raw["resampling"]),
        seed=integer(raw.get("seed", 0), "seed", 0),
        evaluate=choice(raw.get("evaluate", "test"), "evaluate", EVALUATE),
        preprocess=choice(raw.get("preprocess", "none"), "preprocess", PREPROCESS),
        tuning=tuning or TuningSpec(),
        curves_every=curves.every, curves_until=curves.until, curves_sample=curves.sample,
        curves_spacing=curves.spacing, curves_reference=curves.reference,
        timeout=timeout(raw.get("timeout")),
        memory_limit=memory_bytes(raw.get("memory_limit"), "memory_limit"),
    )


def _resampling(value: Any) -> ResamplingSpec:
    raw = mapping(value, "resampling", example="{kind: budget, repeats: 10, n_labeled: [200]}")
    kind = choice(raw.get("kind", "budget"), "resampling.kind", RESAMPLING)
    common = ("n_labeled", "n_unlabeled", "sampling", "beyond_data")
    allowed = {"budget": ("kind", "repeats", "test_size", "train_size", *common),
               "partitions": ("kind", "partitions", *common),
               "kfold": ("kind", "folds", "repeats", *common)}
    only_keys(raw, allowed[kind], f"resampling (kind {kind})")
    if kind == "budget" and raw.get("n_labeled") is None:
        raise UserError("resampling of kind budget needs n_labeled, e.g. n_labeled: [200], or "
                        "n_labeled: all for a supervised study")
    parts = raw.get("partitions")
    if "train_size" in raw and "test_size" in raw:
        raise UserError("resampling gives both train_size and test_size; give one of them (the "
                        "rest of the rows is the other)")
    train_size = raw.get("train_size")
    if train_size is not None and train_size != "catalogue":
        train_size = integer(train_size, "resampling.train_size", 2)
    return ResamplingSpec(
        kind=kind,
        repeats=integer(raw.get("repeats", 1), "resampling.repeats", 1),
        folds=integer(raw.get("folds", 5), "resampling.folds", 2),
        partitions=None if parts is None else tuple(
            integer(p, "resampling.partitions", 0, listed=True)
            for p in listed(parts, "resampling.partitions")),
        n_labeled=budgets(raw.get("n_labeled", "all"), "resampling.n_labeled", 1),
        n_unlabeled=budgets(raw.get("n_unlabeled"), "resampling.n_unlabeled", 0),
        test_size=fraction(raw.get("test_size", 0.25), "resampling.test_size"),
        sampling=choice(raw.get("sampling", "uniform"), "resampling.sampling", SAMPLING),
        beyond_data=choice(raw.get("beyond_data", "error"), "resampling.beyond_data",
                           BEYOND_DATA),
        train_size=train_size,
    )


def _tuning(value: Any, key: str) -> TuningSpec | None:
    if value is None:
        return None
    raw = mapping(value, key, example="{kind: cv, folds: 5, metric: auc}")
    kind = choice(raw.get("kind", "cv"), f"{key}.kind", TUNERS)
    only_keys(raw, ("kind", "folds", "metric", "shared") if kind == "cv" else ("kind", "metric"),
              key)
    shared = raw.get("shared", True)
    if not isinstance(shared, bool):
        raise UserError(f"{key}.shared must be true or false, got {shared!r}")
    from ordauc.metrics import METRICS

    names = raw.get("metric", "auc")
    metrics = tuple(choice(m, f"{key}.metric", (*METRICS, "own"))
                    for m in (names if isinstance(names, list) else [names]))
    if not metrics:
        raise UserError(f"{key}.metric must name at least one metric, e.g. metric: [mze, mae]")
    if len(set(metrics)) < len(metrics):
        raise UserError(f"{key}.metric lists a metric twice: {list(metrics)}")
    if "own" in metrics and len(metrics) > 1:
        raise UserError(f"{key}.metric own (the solver's own criterion, validated on folds that "
                        "split the unlabeled rows too) cannot be combined with other metrics")
    return TuningSpec(kind=kind, folds=integer(raw.get("folds", 5), f"{key}.folds", 2),
                      metrics=metrics, shared=shared)


class _Curves(NamedTuple):
    every: int | None = None
    until: int | None = None
    sample: int | None = None
    spacing: str = "linear"
    reference: str | None = None


def _curves(value: Any) -> _Curves:
    """The ``curves`` mapping; every field None (no curves) without it."""
    if value is None:
        return _Curves()
    raw = mapping(value, "curves", example="{every: 100, until: 5000, sample: 2000}")
    only_keys(raw, ("every", "until", "sample", "spacing", "reference"), "curves")
    every = integer(raw.get("every", 100), "curves.every", 1)
    until = raw.get("until")
    sample = raw.get("sample")
    reference = raw.get("reference")
    if reference is not None:
        from ordauc import solvers

        if not isinstance(reference, str) or reference not in solvers.names():
            raise UserError(f"curves.reference must name a registered solver whose exact fit "
                            f"the iterates are compared with (e.g. samult), got {reference!r}")
    return _Curves(every, None if until is None else integer(until, "curves.until", every),
                   None if sample is None else integer(sample, "curves.sample", 2),
                   choice(raw.get("spacing", "linear"), "curves.spacing", SPACING), reference)


def _datasets(value: Any) -> tuple[DatasetSpec, ...]:
    from ordauc import data

    specs = []
    for entry in listed(value, "datasets"):
        if isinstance(entry, str):
            spec = DatasetSpec(entry)
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            own = entry.get("resampling")
            spec = DatasetSpec(entry["name"], {k: v for k, v in entry.items()
                                               if k not in ("name", "resampling")},
                               None if own is None else _resampling(own))
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
    return tuple(spec for label, entry in value.items() for spec in _solver(str(label), entry))


def _number_text(value: Any) -> str:
    return format(value, "g") if isinstance(value, (int, float)) else str(value)


def _sweep(value: Any, where: str, params: dict[str, Any], grid: dict[str, list[Any]]
           ) -> dict[str, list[Any]]:
    """A solver entry's ``sweep``: parameters run at each listed value (every combination),
    untuned, as one label per combination."""
    if value is None:
        return {}
    raw = mapping(value, f"{where}.sweep", example="{eps: [0.0, 0.1, 0.2]}")
    out = {}
    for key, values in raw.items():
        values = values if isinstance(values, list) else [values]
        if not values:
            raise UserError(f"{where}.sweep.{key} must list at least one value")
        for other, what in ((params, "params"), (grid, "grid")):
            if key in other:
                raise UserError(f"{where}: parameter {key!r} is in both sweep and {what}; "
                                "give it in one of them")
        texts = [_number_text(v) for v in values]
        if len(set(texts)) < len(texts):
            raise UserError(f"{where}.sweep.{key} lists a value twice")
        out[str(key)] = values
    return out


def _solver(label: str, entry: Any) -> list[SolverSpec]:
    """The solver specs of one config entry: one, or one per combination of its ``sweep``
    values, labelled ``<label>.<param>=<value>...``."""
    from ordauc import solvers

    if not re.fullmatch(r"[\w.\-]+", label):
        raise UserError(f"solver label {label!r} may only hold letters, digits, '_', '.' and "
                        "'-', as it becomes part of each cell's key")
    where = f"solvers.{label}"
    entry = {} if entry is None else mapping(entry, where,
                                             example="{solver: ..., params: ..., grid: ...}")
    only_keys(entry, ("solver", "params", "grid", "tuning", "sweep"), where)
    name = str(entry.get("solver", label))
    params = mapping(entry.get("params") or {}, f"{where}.params")
    grid = {str(k): v if isinstance(v, list) else [v]
            for k, v in mapping(entry.get("grid") or {}, f"{where}.grid").items()}
    for key, values in grid.items():
        if not values:
            raise UserError(f"{where}.grid.{key} must list at least one value")
        if key in params:
            raise UserError(f"{where}: parameter {key!r} is in both params and grid; give it in "
                            "one of them")
    sweep = _sweep(entry.get("sweep"), where, params, grid)
    for key in (*params, *grid, *sweep):
        if key == "random_state":
            raise UserError(f"{where}: random_state cannot be set, it is derived from the "
                            "cell's seed")
    solvers.check_params(name, params, where=f"{where}.params")
    for key, values in (*grid.items(), *sweep.items()):
        for value in values:
            solvers.check_params(name, {key: value},
                                 where=f"{where}.{'sweep' if key in sweep else 'grid'}")
    spec = SolverSpec(label=label, name=name, params=params, grid=grid,
                      tuning=_tuning(entry.get("tuning"), f"{where}.tuning"))
    if not sweep:
        return [spec]
    combos = itertools.product(*sweep.values())
    return [replace(spec, label=label + "".join(f".{k}={_number_text(v)}"
                                                for k, v in zip(sweep, combo, strict=True)),
                    params={**params, **dict(zip(sweep, combo, strict=True))},
                    sweep_of=label, swept=tuple(sweep))
            for combo in combos]
