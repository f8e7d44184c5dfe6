"""Solver registry: names from the papers mapped to scikit-learn style estimators.

Every estimator follows scikit-learn's conventions with one addition taken from its
semi-supervised API: ``y == -1`` marks an unlabeled point, so class labels are non-negative
(binary 0/1, ordinal 1..k). ``decision_function`` returns ranking scores, shape (n,) for one
ranking function and (n, k-1) for per-subproblem models (M-*). Each class declares, beside
itself (:mod:`ordauc.solvers._base`), its metadata (``meta``), its parameters
(``_parameter_constraints``) and the memory one fit needs (``fit_memory_bytes``); the runner,
plots and reports read those through :func:`info` and nothing else about a solver.

Solvers come from three places, with the same contract and checks:

- the built-ins below;
- an installed plugin: the ``ordauc.solvers`` entry-point group, each entry a name and a
  ``"package.module:Class"`` (read once, on the first look-up);
- any importable class named ``"package.module:Class"`` where a solver name is expected (a
  config's ``solver:`` key), so a researcher adds a baseline without editing ordauc.

:func:`register` adds a solver from Python (a class, or ``"module:Class"`` imported on first
use).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ordauc.errors import UserError
from ordauc.solvers._base import (
    Interval,
    SolverMeta,
    StrOptions,
    count,
    nonnegative,
    positive,
    seed,
    unit_interval,
)

__all__ = ["Interval", "SolverInfo", "SolverMeta", "StrOptions", "check_params", "count", "get",
           "info", "meta_of", "names", "nonnegative", "positive", "register", "seed",
           "unit_interval"]

ENTRY_POINT_GROUP = "ordauc.solvers"

# name -> class or "module:Class"; imported lazily so that `ordauc --help` stays instant.
# Registry order is plot and report order: baselines first, the papers' own methods last.
_REGISTRY: dict[str, Any] = {}


def register(name: str, target: type | str, *, replace: bool = False) -> None:
    """Add solver ``name``: a class, or ``"package.module:Class"`` imported when first used.

    The class must declare ``meta`` (:class:`~ordauc.solvers._base.SolverMeta`),
    ``_parameter_constraints`` for every constructor parameter, and ``fit_memory_bytes``;
    :func:`info` checks that when the class is first loaded.
    """
    if not name.isidentifier():
        raise ValueError(f"solver names are identifiers, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"solver {name!r} is registered already (pass replace=True)")
    _REGISTRY[name] = target


for _name, _target in (
    ("svc1v1", "ordauc.solvers.ordinal.libsvm:SVC1V1"),
    ("svc1va", "ordauc.solvers.ordinal.libsvm:SVC1VA"),
    ("svr", "ordauc.solvers.ordinal.libsvm:SVR"),
    ("cssvc", "ordauc.solvers.ordinal.libsvm:CSSVC"),
    ("svmop", "ordauc.solvers.ordinal.libsvm:SVMOP"),
    ("svorex", "ordauc.solvers.ordinal.svor:SVOREX"),
    ("svorim", "ordauc.solvers.ordinal.svor:SVORIM"),
    ("redsvm", "ordauc.solvers.ordinal.svor:REDSVM"),
    ("opbe", "ordauc.solvers.ordinal.opbe:OPBE"),
    ("npsvor", "ordauc.solvers.ordinal.npsvor:NPSVOR"),
    ("oam_seq", "ordauc.solvers.pairwise.oam:OAMSeq"),
    ("oam_gra", "ordauc.solvers.pairwise.oam:OAMGra"),
    ("oam_inf", "ordauc.solvers.pairwise.oam:OAMInf"),
    ("auc_msgd", "ordauc.solvers.pairwise.dcd:AUCMSGD"),
    ("auc_sdcd", "ordauc.solvers.pairwise.dcd:AUCSDCD"),
    ("auc_sdcdperm", "ordauc.solvers.pairwise.dcd:AUCSDCDPerm"),
    ("svc_rbf", "ordauc.solvers.kernel.svc:SVCRBF"),
    ("m_svc_rbf", "ordauc.solvers.kernel.svc:MSVCRBF"),
    ("pnu_auc", "ordauc.solvers.kernel.pnu_auc:PNUAUC"),
    ("m_pnu_auc", "ordauc.solvers.kernel.pnu_auc:MPNUAUC"),
    ("samult", "ordauc.solvers.kernel.samult:SAMULT"),
    ("m_samult", "ordauc.solvers.kernel.samult:MSAMULT"),
    ("qsg_s2auc", "ordauc.solvers.dsg.qsg:QSGS2AUC"),
    ("qs3orao", "ordauc.solvers.dsg.qsg:QS3ORAO"),
):
    register(_name, _target)


@dataclass(frozen=True)
class SolverInfo:
    """What the registry knows of one solver."""

    name: str
    cls: type
    meta: SolverMeta
    defaults: dict[str, Any]
    constraints: dict[str, list[Any]]
    summary: str

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.meta.tasks


_plugins_read = False


def _read_plugins() -> None:
    """Register the ``ordauc.solvers`` entry points of installed packages, once. A plugin
    never replaces a built-in of the same name."""
    global _plugins_read
    if _plugins_read:
        return
    _plugins_read = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in _REGISTRY and entry.name.isidentifier():
            _REGISTRY[entry.name] = entry.value


def is_import_path(name: str) -> bool:
    """``name`` is a ``"package.module:Class"`` path rather than a registry name."""
    module, sep, cls = name.partition(":")
    return bool(sep) and all(part.isidentifier() for part in module.split(".")) \
        and cls.isidentifier()


def _available(name: str) -> bool:
    try:
        _class(name)
    except (ImportError, AttributeError):
        return False
    return True


def names(include_unavailable: bool = False) -> list[str]:
    """Registered solver names (built-ins, then plugins and solvers added by
    :func:`register`), in registry order; only those whose class imports, unless
    ``include_unavailable``."""
    _read_plugins()
    return [n for n in _REGISTRY if include_unavailable or _available(n)]


def _class(name: str) -> type:
    target = _REGISTRY.get(name, name)
    if isinstance(target, str):
        module, _, cls = target.partition(":")
        target = getattr(import_module(module), cls)
    return target


def _known(name: str) -> type:
    _read_plugins()
    if name not in _REGISTRY and is_import_path(name):
        try:
            return _class(name)
        except ImportError as exc:
            raise UserError(f"solver {name!r} cannot be imported ({exc}); give an importable "
                            "'package.module:Class', with its folder on PYTHONPATH") from None
        except AttributeError:
            module = name.partition(":")[0]
            raise UserError(f"solver {name!r}: module {module!r} has no class "
                            f"{name.partition(':')[2]!r}; give an importable "
                            "'package.module:Class'") from None
    if name not in _REGISTRY:
        raise UserError(f"unknown solver {name!r}; registered solvers are: "
                        f"{', '.join(names())}, or give an importable 'package.module:Class'")
    try:
        return _class(name)
    except (ImportError, AttributeError):
        raise UserError(f"solver {name!r} is registered but not available in this "
                        f"installation; available solvers are: {', '.join(names())}") from None


def _contract(name: str, cls: Any) -> tuple[SolverMeta, dict[str, Any], dict[str, list[Any]]]:
    """The metadata, defaults and constraints of a solver class; raises :class:`UserError`
    naming what the class lacks when it breaks the solver contract."""
    what = f"solver {name!r} ({getattr(cls, '__name__', cls)!s})"
    if not isinstance(cls, type):
        raise UserError(f"{what} is not a class; a solver is a scikit-learn style estimator "
                        "class")
    meta = getattr(cls, "meta", None)
    if not isinstance(meta, SolverMeta):
        raise UserError(f"{what} declares no `meta = SolverMeta(...)`; every solver states its "
                        "display name, tasks and whether it reads unlabeled rows")
    for method in ("fit", "fit_memory_bytes", "get_params", "set_params"):
        if not callable(getattr(cls, method, None)):
            raise UserError(f"{what} has no {method}(); a solver is a scikit-learn estimator "
                            "(sklearn.base.BaseEstimator) with fit and fit_memory_bytes")
    if not (hasattr(cls, "decision_function") or hasattr(cls, "predict")):
        raise UserError(f"{what} has neither decision_function() nor predict(); a solver "
                        "outputs ranking scores, labels, or both")
    try:
        defaults = cls().get_params(deep=False)
    except Exception as exc:  # a constructor that needs arguments, or raises
        raise UserError(f"{what} cannot be built with its default parameters ({exc}); every "
                        "constructor parameter needs a default") from None
    constraints = dict(getattr(cls, "_parameter_constraints", {}) or {})
    undeclared = sorted(set(defaults) - set(constraints))
    if undeclared:
        raise UserError(f"{what} declares no constraint for {', '.join(undeclared)} in "
                        "_parameter_constraints (scikit-learn's parameter declaration)")
    return meta, defaults, constraints


def info(name: str) -> SolverInfo:
    """What the registry knows of ``name`` (a registry name or ``"package.module:Class"``):
    class, metadata, parameters, defaults, constraints."""
    cls = _known(name)
    meta, defaults, constraints = _contract(name, cls)
    doc = (cls.__doc__ or "").strip().splitlines()
    return SolverInfo(name=name, cls=cls, meta=meta, defaults=defaults,
                      constraints=constraints, summary=doc[0] if doc else "")


def meta_of(name: str) -> SolverMeta | None:
    """The metadata of a solver (registry name or ``"package.module:Class"``), or None where
    it cannot be had (e.g. a results table written with a solver of a script that is gone)."""
    _read_plugins()
    if name not in _REGISTRY and not is_import_path(name):
        return None
    try:
        return info(name).meta
    except UserError:
        return None


def check_params(name: str, params: dict[str, Any], where: str = "") -> None:
    """Refuse an unknown parameter or a value outside its declared constraint, with one
    sentence naming the solver, the key, the value and what is allowed."""
    from sklearn.utils._param_validation import make_constraint

    solver = info(name)
    prefix = f"{where}: " if where else ""
    for key, value in params.items():
        if key not in solver.defaults:
            raise UserError(f"{prefix}solver {name!r} has no parameter {key!r}; "
                            f"allowed: {', '.join(sorted(solver.defaults))}")
        allowed = [make_constraint(c) for c in solver.constraints[key]]
        if not any(c.is_satisfied_by(value) for c in allowed):
            text = " or ".join(str(c) for c in allowed if not getattr(c, "hidden", False))
            raise UserError(f"{prefix}solver {name!r} parameter {key} = {value!r} is not "
                            f"allowed; it must be {text}")


def get(name: str, **params: Any) -> Any:
    """An unfitted estimator ``name``; unknown or invalid parameters raise :class:`UserError`."""
    check_params(name, params)
    return info(name).cls(**params)
