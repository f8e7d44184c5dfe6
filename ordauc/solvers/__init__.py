"""Solver registry: names from the papers mapped to scikit-learn style estimators.

Every estimator follows scikit-learn's conventions with one addition taken from its
semi-supervised API: ``y == -1`` marks an unlabeled point, so class labels are non-negative
(binary 0/1, ordinal 1..k). ``decision_function`` returns ranking scores, shape (n,) for one
ranking function and (n, k-1) for per-subproblem models (M-*). Each class declares, beside
itself (:mod:`ordauc.solvers._base`), its metadata (``meta``), its parameters
(``_parameter_constraints``) and the memory one fit needs (``fit_memory_bytes``); the runner,
plots and reports read those through :func:`info` and nothing else about a solver.

:func:`register` adds a solver (a class, or ``"module:Class"`` imported on first use), so a
study can bring its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ordauc.errors import UserError
from ordauc.solvers._base import SolverMeta

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


def _available(name: str) -> bool:
    try:
        _class(name)
    except (ImportError, AttributeError):
        return False
    return True


def names(include_unavailable: bool = False) -> list[str]:
    """Registered solver names, in registry order (only those whose class imports, unless
    ``include_unavailable``)."""
    return [n for n in _REGISTRY if include_unavailable or _available(n)]


def _class(name: str) -> type:
    target = _REGISTRY[name]
    if isinstance(target, str):
        module, cls = target.split(":")
        target = getattr(import_module(module), cls)
    return target


def _known(name: str) -> type:
    if name not in _REGISTRY:
        raise UserError(f"unknown solver {name!r}; registered solvers are: {', '.join(names())}")
    try:
        return _class(name)
    except (ImportError, AttributeError):
        raise UserError(f"solver {name!r} is registered but not available in this "
                        f"installation; available solvers are: {', '.join(names())}") from None


def info(name: str) -> SolverInfo:
    """What the registry knows of ``name``: class, metadata, parameters, defaults, constraints."""
    cls = _known(name)
    meta = getattr(cls, "meta", None)
    if not isinstance(meta, SolverMeta):
        raise TypeError(f"solver {name!r} ({cls.__name__}) declares no SolverMeta `meta`")
    if not callable(getattr(cls, "fit_memory_bytes", None)):
        raise TypeError(f"solver {name!r} ({cls.__name__}) declares no fit_memory_bytes")
    defaults = cls().get_params(deep=False)
    constraints = dict(getattr(cls, "_parameter_constraints", {}))
    undeclared = sorted(set(defaults) - set(constraints))
    if undeclared:
        raise TypeError(f"solver {name!r} declares no constraint for {', '.join(undeclared)}")
    doc = (cls.__doc__ or "").strip().splitlines()
    return SolverInfo(name=name, cls=cls, meta=meta, defaults=defaults,
                      constraints=constraints, summary=doc[0] if doc else "")


def meta_of(name: str) -> SolverMeta | None:
    """The metadata of a registered solver, or None for a name the registry does not know
    (e.g. a results table written with a solver that was registered by a script)."""
    if name not in _REGISTRY:
        return None
    try:
        return info(name).meta
    except (UserError, TypeError):
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
