"""The law a calibration fits: the core-seconds of a fit, and of a shared grid pass, from the
work a solver declares.

A solver states the work of one fit in its own units (``fit_cost(n, d)``: n^3 / 3 for a dense
solve, n_iter (c + n) for the QSG engine); the machine turns units into core-seconds. The law
fitted here is

    fit seconds = a + b * units ** e

from fits timed at two or more sizes and two feature counts (:func:`fit_law`). ``e`` says how
this machine's speed per unit changes over the timed range (LAPACK runs a large matrix faster
per flop than a small one, so a dense solve's ``e`` is below 1). It is kept only where it is
credible (:data:`CREDIBLE`): the timed units span :data:`MIN_SPAN` or more and the part that
grows is at least the intercept at the largest size, else ``e`` would be fitted to noise; it is
1 otherwise (the declared units scaled by one constant) and :attr:`Calibration.law` says which
and why. Beyond the largest timed size the declared growth holds, at the speed measured at that
size: a fitted ``e`` is never extrapolated, since the speed per unit of a solver stops changing
once its arrays outgrow the caches.

A shared grid pass of m models (:class:`~ordauc.solvers.gridfit.GridFit`) costs a shared part
(a kernel, an eigendecomposition, the random features all models of a QSG pass read) and m
per-model parts (:func:`fit_pass`):

    pass seconds = (sa + sb * shared_units ** e) + m (ma + mb * model_units ** e)

each part in the units the solver states for it (``pass_cost(n, d, n_unlabeled)``, else the
fit's units for both), both timed: passes of two sizes of m at two or more sizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

EXPONENTS = np.round(np.arange(0.5, 1.5001, 0.01), 2)  # the exponents a law may take
CREDIBLE = (0.7, 1.3)  # a fitted exponent outside this range is not believed
MIN_SPAN = 3.0  # the timed units must span this ratio for an exponent to be fitted


@dataclass(frozen=True)
class Calibration:
    """One solver's constants on this machine, in core-seconds (process CPU time).

    A lone fit costs ``(a + b * units ** exponent) * grid``; a shared pass of m models, where
    passes were timed (``passes > 0``), ``(shared_a + shared_b * shared_units ** exponent + m
    (model_a + model_b * model_units ** exponent)) * grid``; scoring ``score * score_cost``.
    Units past the largest timed ones (``top``, ``top_shared``, ``top_model``) grow linearly
    from there (module docstring).
    """

    a: float
    b: float
    points: int  # fits timed
    exponent: float = 1.0
    top: float = 0.0  # the largest fit units timed (0: no limit)
    law: str = "declared units"  # how the exponent was chosen, and why
    shared_a: float = 0.0
    shared_b: float = 0.0
    model_a: float = 0.0
    model_b: float = 0.0
    top_shared: float = 0.0
    top_model: float = 0.0
    passes: int = 0  # shared passes timed; 0: a pass of m models costs m fits
    score: float = 0.0  # core-seconds per unit of the solver's score_cost
    grid: float = 1.0  # a fit at the grid's average point against one at its first point

    def _power(self, units: float, top: float) -> float:
        units = max(float(units), 0.0)
        if top <= 0 or units <= top:
            return units ** self.exponent
        return top ** self.exponent * units / top  # the declared growth past the timed range

    def fit_seconds(self, units: float) -> float:
        """Core-seconds of one lone fit of ``units``."""
        return (self.a + self.b * self._power(units, self.top)) * self.grid

    def shared_seconds(self, shared_units: float) -> float:
        """Core-seconds of the shared part of a pass (0 where no pass was timed)."""
        if not self.passes:
            return 0.0
        return (self.shared_a + self.shared_b * self._power(shared_units, self.top_shared)
                ) * self.grid

    def model_seconds(self, model_units: float) -> float:
        """Core-seconds one model adds to a pass (0 where no pass was timed)."""
        if not self.passes:
            return 0.0
        return (self.model_a + self.model_b * self._power(model_units, self.top_model)
                ) * self.grid

    def seconds(self, units: float, models: float = 1, shared_units: float | None = None,
                model_units: float | None = None) -> float:
        """Core-seconds of a fit of ``models`` models: a lone fit (or a share of one) when
        ``models`` <= 1 or no pass was timed (then m lone fits), else a shared pass."""
        if models <= 1 or not self.passes:
            return models * self.fit_seconds(units)
        shared = units if shared_units is None else shared_units
        model = units if model_units is None else model_units
        return self.shared_seconds(shared) + models * self.model_seconds(model)


def relative_nnls(columns: Sequence[Sequence[float]], seconds: Sequence[float]
                  ) -> tuple[np.ndarray, float]:
    """Non-negative coefficients of ``seconds ~ sum_j c_j columns[j]``, each row weighted by
    1 / its time (a size's error counts as a share of its time, so the smallest sizes fix the
    intercepts instead of being drowned out), and the relative residual norm."""
    t = np.asarray(seconds, dtype=float)
    design = np.column_stack([np.asarray(c, dtype=float) for c in columns])
    scale = np.maximum(np.abs(design).max(axis=0), 1e-300)  # columns of one magnitude
    weights = 1.0 / np.maximum(t, 1e-9)
    coef, residual = nnls(design / scale * weights[:, None], np.ones(t.size))
    return coef / scale, float(residual)


def fit_law(units: Sequence[float], seconds: Sequence[float]
            ) -> tuple[float, float, float, str]:
    """``(a, b, e, law)`` of ``seconds = a + b * units ** e`` (module docstring)."""
    u = np.asarray(units, dtype=float)
    t = np.asarray(seconds, dtype=float)
    if u.size < 2 or u.max() <= u.min():
        return float(t.mean()), 0.0, 1.0, "constant: the declared units do not vary"
    norm = u / u.max()  # units ** e in a range where every exponent is well scaled

    def solve(e: float) -> tuple[float, float, float]:
        (a, b), residual = relative_nnls([np.ones(u.size), norm ** e], t)
        return a, b, residual

    best = min(EXPONENTS, key=lambda e: solve(float(e))[2])
    a, b, _ = solve(float(best))
    span = u.max() / max(u.min(), 1e-300)
    why = ""
    if span < MIN_SPAN:
        why = f"the timed units span {span:.1f}x (< {MIN_SPAN:g}x)"
    elif b < a:
        why = "the intercept outweighs the growing part at the largest size"
    elif not CREDIBLE[0] <= best <= CREDIBLE[1]:
        why = f"fitted exponent {best:g} outside {CREDIBLE[0]:g}..{CREDIBLE[1]:g}"
    if why:
        a, b, _ = solve(1.0)
        best, law = 1.0, f"declared units ({why})"
    else:
        law = f"fitted exponent {best:g}"
    return float(a), float(b) / float(u.max()) ** float(best), float(best), law


def fit_pass(shared_units: Sequence[float], model_units: Sequence[float],
             models: Sequence[float], seconds: Sequence[float], exponent: float
             ) -> tuple[float, float, float, float]:
    """``(sa, sb, ma, mb)`` of the pass law (module docstring) from timed passes: rows of
    (shared units, per-model units, models, seconds), at two or more sizes and two model
    counts, the exponent the lone fits gave."""
    us = np.asarray(shared_units, dtype=float)
    um = np.asarray(model_units, dtype=float)
    m = np.asarray(models, dtype=float)
    if len(set(zip(us.tolist(), um.tolist(), strict=True))) < 2 or len(set(m.tolist())) < 2:
        raise ValueError("a pass law needs passes timed at two sizes and two model counts")
    top_s, top_m = float(max(us.max(), 1e-300)), float(max(um.max(), 1e-300))
    columns = [np.ones(m.size), (us / top_s) ** exponent, m, m * (um / top_m) ** exponent]
    (sa, sb, ma, mb), _ = relative_nnls(columns, seconds)
    return (float(sa), float(sb / top_s ** exponent), float(ma),
            float(mb / top_m ** exponent))
