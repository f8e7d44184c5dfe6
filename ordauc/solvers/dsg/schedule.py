"""The step sizes of a QSG run and the seed it draws everything from.

Step sizes (a choice the papers leave open, documented in :mod:`ordauc.solvers.dsg.qsg`):

- ``inverse``: eta_t = theta/(t + t0), the theory's theta/t (AAAI 2020 Lemma 3: theta lam in
  (1, 2)), default theta = 1.5/lam, offset by t0 so that eta_1 <= 1/4 (2 over the curvature
  bound 8 of the squared pairwise risks) unless t0 is given (``t0=0``: the papers' literal
  schedule);
- ``dsg``: eta_t = theta/(1 + theta_decay t), the DSG authors' schedule (default theta = 1).

The seed: a run with ``random_state`` r draws its mini-batches from
``numpy.random.default_rng([r, 0])`` and block i's frequencies from Philox keyed by (r, i)
(:mod:`ordauc.solvers.dsg.random_features`); ``random_state=None`` draws r once per run (one
pass of a grid is one run).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["STEP_RULES", "Schedule", "batch_generator", "run_seed", "step_table"]

STEP_RULES = ("inverse", "dsg")
_MAX_FIRST_STEP = 0.25  # 2 / (curvature bound 8 of the squared pairwise risks)


@dataclass(frozen=True)
class Schedule:
    """One model's step-size schedule, resolved (the defaults filled in).

    Parameters
    ----------
    rule : str
        ``"inverse"`` or ``"dsg"``.
    theta : float
        The numerator theta.
    t0 : float
        The offset of ``inverse`` (0 for ``dsg``).
    decay : float
        ``theta_decay`` of ``dsg``.
    """

    rule: str
    theta: float
    t0: float
    decay: float

    @classmethod
    def resolve(cls, step: str, lam: float, theta: float | None = None,
                t0: float | None = None, decay: float = 1e-4) -> Schedule:
        """The schedule an estimator's ``step``, ``theta``, ``t0``, ``theta_decay`` name."""
        if step not in STEP_RULES:
            raise ValueError(f"step must be one of {STEP_RULES}, got {step!r}")
        if step == "dsg":
            return cls("dsg", 1.0 if theta is None else float(theta), 0.0, float(decay))
        th = 1.5 / lam if theta is None else float(theta)
        off = max(0.0, math.ceil(th / _MAX_FIRST_STEP) - 1.0) if t0 is None else float(t0)
        return cls("inverse", th, off, float(decay))

    def eta(self, t: int) -> float:
        """eta_t for iteration t = 1, 2, ..."""
        if self.rule == "dsg":
            return self.theta / (1.0 + self.decay * t)
        return self.theta / (t + self.t0)

    def describe(self) -> str:
        """The schedule in words, for a divergence error."""
        if self.rule == "dsg":
            return (f"eta_t = theta/(1 + theta_decay t) with theta = {self.theta:g}, "
                    f"theta_decay = {self.decay:g}")
        return f"eta_t = theta/(t + t0) with theta = {self.theta:g}, t0 = {self.t0:g}"


def step_table(schedules: Sequence[Schedule], n_iter: int) -> np.ndarray:
    """eta_t of every model at every iteration, (n_iter, models): the same float64 operations
    as :meth:`Schedule.eta`, so a model's steps do not depend on the models beside it."""
    t = np.arange(1, n_iter + 1, dtype=np.float64)[:, None]
    theta = np.array([s.theta for s in schedules])
    t0 = np.array([s.t0 for s in schedules])
    decay = np.array([s.decay for s in schedules])
    dsg = np.array([s.rule == "dsg" for s in schedules])
    with np.errstate(divide="ignore"):  # t + t0 > 0 and 1 + decay t > 0: never met
        return np.where(dsg, theta / (1.0 + decay * t), theta / (t + t0))


def run_seed(random_state: int | None) -> int:
    """The seed of a run: ``random_state``, or one fresh draw when it is None."""
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (1 << 63))
    return int(random_state)


def batch_generator(seed: int) -> np.random.Generator:
    """The generator of a run's mini-batches (the blocks are keyed by the seed apart)."""
    return np.random.default_rng([seed, 0])
