"""The verdict algebra: how a check turns comparisons into a verdict, with the guards that no
check may bypass (docs/claims.md, "The verdict algebra").

A check judges *units* (datasets, cells, sizes) and settles a monotone rule over them:

* :func:`compare` judges one paired comparison: ``better``, ``worse``, ``tie`` (the mean
  difference is within the metric's practical margin), ``no difference`` (the test could have
  rejected and did not), or *undecided* with the guard that stopped it: ``missing`` (fewer than
  80 % of the planned repetitions paired), ``repetitions`` (fewer than 80 % of the paper's
  planned repetitions), ``power`` (the smallest p the test can reach with these pairs is not
  below alpha: five pairs can never reject two-sided at 0.05).
* :func:`best_state` judges "highest" among means: a gap within the practical margin is a tie,
  never a win or a loss.
* :class:`Judgment` is one unit's state, or None with the guard that keeps it undecided, and
  whether the unit is one of the paper's (:class:`PaperData`): a generated or substitute dataset
  is shown as extra evidence and never decides a claim about the paper's data.
* :func:`settle` applies a monotone count rule over the paper's units: a verdict stands only if
  every undecided or missing unit, turning out either way, would leave it unchanged; otherwise
  UNDECIDABLE. It also returns the *provisional* verdict, the rule applied to every unit
  (extra ones and guarded states included), scaled to the paper's number of units as if the
  missing ones went as these did: what the runs lean to, printed beside UNDECIDABLE, never in
  its place.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ordauc import stats
from ordauc.claims.registry import UNDECIDABLE

ALPHA = stats.ALPHA
PAIRED_SHARE = 0.8  # C2: a comparison needs 80 % of the planned repetitions paired
# Practical margins (C11): mean gaps at or below these are ties, whatever a test says. One
# thousandth of AUC, MZE or MAE is below the precision any of the papers print (4 decimals of
# a mean over 10-30 runs whose sd is 10-100 times larger).
MARGINS = {"auc": 1e-3, "c_index": 1e-3, "mze": 1e-3, "mae": 1e-3}
TIME_MARGIN = 0.05  # times: ratios within 5 % of 1 are ties (timer noise on a loaded machine)

BETTER, WORSE, TIE, NO_DIFFERENCE = "better", "worse", "tie", "no difference"
MISSING, REPETITIONS, POWER, SUBSTITUTE, MEMORY = (
    "missing", "repetitions", "power", "substitute", "memory below the paper's machine")
GUARD_TEXT = {
    MISSING: "fewer than 80 % of the planned repetitions paired",
    REPETITIONS: "fewer than 80 % of the paper's repetitions",
    POWER: "too few pairs for the test ever to reach p < 0.05",
    SUBSTITUTE: "not one of the paper's datasets",
    MEMORY: "skipped for memory below the paper's machine: not observed",
}


def margin_of(metric: str) -> float:
    """The practical margin of ``metric`` (absolute; times use :data:`TIME_MARGIN` as a
    ratio)."""
    return MARGINS.get(metric, 0.0)


def needed(planned: int) -> int:
    """80 % of ``planned`` repetitions, rounded up (8 of 10, 16 of 20, 24 of 30, 4 of 5)."""
    return math.ceil(PAIRED_SHARE * planned - 1e-9)


@dataclass(frozen=True)
class Compared:
    """The state of one paired comparison of ``a`` against ``b`` (for ``a``), or UNDECIDED
    (``state`` None) with the ``guard`` that stopped it."""

    state: str | None
    guard: str
    n: int
    planned: int
    mean: float
    p: float

    @property
    def decided(self) -> bool:
        return self.state is not None

    def text(self) -> str:
        head = f"d={self.mean:+.4f} n={self.n}/{self.planned}" if self.n else "no paired runs"
        if self.state is None:
            return f"{head}: undecided ({GUARD_TEXT.get(self.guard, self.guard)})"
        return f"{head} p={self.p:.3g}: {self.state}"


def compare(d: np.ndarray, planned: int, *, lower_is_better: bool, metric: str = "",
            paper_repetitions: int | None = None, one_sided: bool = True,
            alpha: float = ALPHA) -> Compared:
    """Judge paired differences ``d = a - b`` (see the module docstring).

    ``one_sided`` tests each direction at ``alpha`` (the claims' "better"); otherwise the
    two-sided p must be below ``alpha`` (a win or loss of the paper's Table IV).
    """
    d = np.asarray(d, dtype=np.float64)
    d = d[np.isfinite(d)]
    n = int(d.size)
    mean = float(d.mean()) if n else math.nan
    if n == 0 or n < needed(planned):
        return Compared(None, MISSING, n, planned, mean, math.nan)
    if paper_repetitions and n < needed(paper_repetitions):
        return Compared(None, REPETITIONS, n, planned, mean, math.nan)
    alternative = "greater" if one_sided else "two-sided"
    if not stats.can_reject(n, alpha, alternative):
        return Compared(None, POWER, n, planned, mean, math.nan)
    good = -d if lower_is_better else d  # positive = a better
    p_better = stats.signed_rank_p(good, "greater")
    p_worse = stats.signed_rank_p(good, "less")
    if abs(mean) <= margin_of(metric):
        return Compared(TIE, "", n, planned, mean, min(p_better, p_worse))
    if one_sided:
        # each direction at alpha, and the mean must agree with the ranks' side
        if p_better < alpha and good.mean() > 0:
            return Compared(BETTER, "", n, planned, mean, p_better)
        if p_worse < alpha and good.mean() < 0:
            return Compared(WORSE, "", n, planned, mean, p_worse)
        return Compared(NO_DIFFERENCE, "", n, planned, mean, min(p_better, p_worse))
    p = stats.signed_rank_p(good)
    if p < alpha:  # the side the signed ranks favour, as the report's Table IV
        return Compared(BETTER if p_better < p_worse else WORSE, "", n, planned, mean, p)
    return Compared(NO_DIFFERENCE, "", n, planned, mean, p)


def best_state(values: Mapping[str, float], solver: str, lower_is_better: bool,
               metric: str = "") -> str | None:
    """``best`` (strictly best mean beyond the practical margin), ``tie`` (best within the
    margin of another), ``below``, or None without a finite mean for ``solver`` or any rival."""
    mine = values.get(solver, math.nan)
    others = [v for k, v in values.items() if k != solver and np.isfinite(v)]
    if not np.isfinite(mine) or not others:
        return None
    rival = min(others) if lower_is_better else max(others)
    gap = (rival - mine) if lower_is_better else (mine - rival)  # > 0: solver ahead
    if abs(gap) <= margin_of(metric):
        return TIE
    return "best" if gap > 0 else "below"


@dataclass(frozen=True)
class PaperData:
    """The units a claim is about: the paper's datasets (our catalogue's names), or None for
    a claim about no named data, and the paper's planned repetitions per dataset.

    ``real_only`` (with ``datasets`` None) takes any real dataset and leaves generated ones
    (the catalogue's ``generated`` origin) as extra evidence; ``minimum`` is the fewest units
    a verdict needs (fewer keep it open: a question about real data is not settled on one).
    """

    datasets: tuple[str, ...] | None
    repetitions: int | Mapping[str, int] | None = None
    real_only: bool = False
    minimum: int = 0

    def named(self, dataset: str) -> bool:
        if self.datasets is not None:
            return _base(dataset) in self.datasets
        return not (self.real_only and generated(_base(dataset)))

    def canonical(self, dataset: str) -> str:
        return _base(dataset)

    def reps(self, dataset: str) -> int | None:
        if isinstance(self.repetitions, Mapping):
            return self.repetitions.get(_base(dataset))
        return self.repetitions

    @property
    def total(self) -> int | None:
        return None if self.datasets is None else len(self.datasets)


def generated(name: str) -> bool:
    """Whether catalogue dataset ``name`` is generated (seeded synthetic data, not a real set);
    a name the catalogue does not know counts as real (a user's own data)."""
    from ordauc.data.builtin import BUILTIN, GENERATED

    entry = BUILTIN.get(name)
    return entry is not None and entry.origin == GENERATED


def _base(dataset: str) -> str:
    """A study's dataset label without its size suffix (``covtype[n=2000]`` -> ``covtype``)."""
    return str(dataset).split("[", 1)[0].split("@", 1)[0].strip()


@dataclass(frozen=True)
class Judgment:
    """One unit's state under a claim's rule.

    ``state`` is None where a guard keeps the unit undecided (``guard`` says which);
    ``provisional`` is the state the unit would have without the guard (what the runs lean to,
    or None where nothing ran); ``named`` is False for a unit that is not the paper's (shown,
    never deciding).
    """

    unit: str
    state: str | None
    guard: str = ""
    text: str = ""
    named: bool = True
    provisional: str | None = None

    @property
    def lean(self) -> str | None:
        return self.state if self.state is not None else self.provisional

    def line(self) -> str:
        mark = "" if self.named else " [extra: not the paper's data]"
        state = self.state if self.state is not None else (
            f"undecided: {GUARD_TEXT.get(self.guard, self.guard)}"
            + (f"; leans {self.provisional}" if self.provisional else ""))
        return f"{self.unit}: {self.text + ' ' if self.text else ''}({state}){mark}"


def judge(unit: str, state: str | None, *, guards: Iterable[str] = (), text: str = "",
          named: bool = True) -> Judgment:
    """A :class:`Judgment` of ``unit`` whose computed ``state`` holds unless one of ``guards``
    (non-empty strings, first wins) applies; an extra (unnamed) unit keeps its state as
    provisional only."""
    guard = next((g for g in guards if g), "")
    if not named and not guard:
        guard = SUBSTITUTE
    if guard:
        return Judgment(unit, None, guard, text, named, state)
    return Judgment(unit, state, "", text, named, state)


@dataclass(frozen=True)
class Settled:
    """A settled count rule: the ``verdict``, the ``provisional`` one (every unit's lean, as
    if complete), how many of the ``total`` paper units were ``decided``, and the count of each
    decided state."""

    verdict: str
    provisional: str | None
    decided: int
    total: int
    counts: Counter[str]

    def still_needed(self, what: str = "datasets") -> str:
        return (f"undecided until {self.total - self.decided} more of the paper's {self.total} "
                f"{what} are decided")


def settle(rule: Callable[[Counter[str]], str], judgments: Iterable[Judgment], total: int | None,
           best: str, worst: str, minimum: int = 0) -> Settled:
    """The verdict of a monotone ``rule`` over the paper's units (see the module docstring).

    ``rule`` maps the count of each state to a verdict; ``best`` and ``worst`` are the states
    an undecided unit could take at the two extremes. ``total`` is the paper's number of units
    (None: the named units judged here are all there are, but at least ``minimum``).
    """
    judgments = list(judgments)
    named = [j for j in judgments if j.named]
    total = len(named) if total is None else total
    total = max(total, minimum)
    known = Counter(j.state for j in named if j.state is not None)
    decided = sum(known.values())
    missing = max(total - decided, 0)
    high = rule(known + Counter({best: missing}))
    low = rule(known + Counter({worst: missing}))
    verdict = high if high == low else UNDECIDABLE
    # the lean: every unit's state or lean, scaled to the paper's units (``proportional``)
    leans = [j.lean for j in judgments if j.lean is not None]
    provisional = rule(proportional(Counter(leans), total)) if leans else None
    if verdict != UNDECIDABLE or provisional == UNDECIDABLE:
        provisional = None
    return Settled(verdict, provisional, decided, total, known)


def proportional(counts: Counter[str], total: int) -> Counter[str]:
    """``counts`` scaled to ``total`` units (largest remainders), as if the units not at hand
    went as those at hand did: 2 leaning one way of 2 run lean 8 of the paper's 8, not 2 of 8.
    Counts already covering ``total`` are returned as they are."""
    have = sum(counts.values())
    if have == 0 or have >= total:
        return counts
    shares = {state: n * total / have for state, n in counts.items()}
    scaled = Counter({state: int(share) for state, share in shares.items()})
    order = sorted(shares, key=lambda s: shares[s] - int(shares[s]), reverse=True)
    for state in order[:total - sum(scaled.values())]:
        scaled[state] += 1
    return scaled


def lean_text(provisional: str | None) -> str:
    """``; on the runs at hand the rule leans CONFIRMED`` (empty without a lean)."""
    return f"; on the runs at hand the rule leans {provisional}" if provisional else ""
