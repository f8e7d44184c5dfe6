"""Solver registry: names from the papers mapped to scikit-learn style estimators.

Every estimator follows scikit-learn's conventions with one addition taken from its
semi-supervised API: ``y == -1`` marks an unlabeled point, so class labels are non-negative
(binary 0/1, ordinal 1..k). ``decision_function`` returns ranking scores, shape (n,) for one
ranking function and (n, k-1) for per-subproblem models (M-*). Each class declares the tasks it
solves in ``tasks``; the experiment runner reads that and nothing else about a solver.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ordauc.errors import UserError

# name -> "module:Class"; imported lazily so that `ordauc --help` stays instant.
_REGISTRY: dict[str, str] = {
    "qsg_s2auc": "ordauc.solvers.qsg:QSGS2AUC",
    "qs3orao": "ordauc.solvers.qsg:QS3ORAO",
    "samult": "ordauc.solvers.kernel_auc:SAMULT",
    "m_samult": "ordauc.solvers.kernel_auc:MSAMULT",
}


@dataclass(frozen=True)
class SolverInfo:
    name: str
    cls: type
    tasks: tuple[str, ...]
    defaults: dict[str, Any]
    summary: str


def names() -> list[str]:
    """Registered solver names, in registry order."""
    return list(_REGISTRY)


def _class(name: str) -> type:
    if name not in _REGISTRY:
        raise UserError(f"unknown solver {name!r}; registered solvers are: {', '.join(names())}")
    module, cls = _REGISTRY[name].split(":")
    return getattr(import_module(module), cls)


def info(name: str) -> SolverInfo:
    """What the registry knows of ``name``: class, tasks, parameters and their defaults."""
    cls = _class(name)
    doc = (cls.__doc__ or "").strip().splitlines()
    return SolverInfo(name=name, cls=cls, tasks=tuple(cls.tasks),
                      defaults=cls().get_params(deep=False), summary=doc[0] if doc else "")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_value(name: str, key: str, value: Any) -> None:
    """Refuse a parameter value of the wrong kind, with one sentence naming what is allowed.

    The kind comes from the default: numbers for numeric defaults (or None where the default is
    None), strings from the class's ``param_choices`` where it lists them, booleans for flags;
    a list of numbers only for parameters the class names in ``list_params`` (e.g. gamma_j).
    """
    cls = _class(name)
    defaults = cls().get_params(deep=False)
    if key not in defaults:
        raise UserError(f"solver {name!r} has no parameter {key!r}; "
                        f"allowed: {', '.join(sorted(defaults))}")
    default = defaults[key]
    choices = getattr(cls, "param_choices", {}).get(key)
    if isinstance(default, bool):
        ok, allowed = isinstance(value, bool), "true or false"
    elif choices is not None:
        ok, allowed = value in choices, "one of " + ", ".join(map(str, choices))
    elif _is_number(default) or default is None:
        listed = key in getattr(cls, "list_params", ())
        ok = (_is_number(value) or (default is None and value is None)
              or (listed and isinstance(value, list) and all(map(_is_number, value))))
        allowed = "a number" + (" or a list of numbers" if listed else "")
        allowed += " or null" if default is None else ""
    else:
        ok, allowed = isinstance(value, type(default)), f"a {type(default).__name__}"
    if not ok:
        raise UserError(f"solver {name!r} parameter {key!r} must be {allowed}, got {value!r}")


def get(name: str, **params: Any) -> Any:
    """An unfitted estimator ``name``; unknown parameters raise :class:`UserError`."""
    cls = _class(name)
    allowed = cls().get_params(deep=False)
    for key in params:
        if key not in allowed:
            raise UserError(f"solver {name!r} has no parameter {key!r}; "
                            f"allowed: {', '.join(sorted(allowed))}")
    return cls(**params)
