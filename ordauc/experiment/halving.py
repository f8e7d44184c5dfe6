"""Successive halving: the grid search of the ``quick`` profile (``ordauc run --profile quick``).

The schedule is scikit-learn's :class:`~sklearn.model_selection.HalvingGridSearchCV`, reimplemented
here because our search keeps its own folds, failure counting (a raising candidate scores NaN and
is counted), shared grid passes and several selection metrics, none of which scikit-learn's
search class can take:

- every grid point is a candidate of the first round (``n_candidates`` of the grid search);
- ``n_required`` = 1 + floor(log_factor(n_candidates)) rounds would leave fewer than ``factor``
  candidates; ``min_resources="exhaust"`` starts at max(smallest, max_resources //
  factor^(n_required - 1)), so that the last round uses as much as it can; ``n_possible`` = 1 +
  floor(log_factor(max_resources // min_resources)) rounds fit in the resources, and the search
  runs min(n_possible, n_required) of them (all n_required with ``aggressive_elimination``, the
  first ones then repeating min_resources);
- round i gives each of its candidates min_resources * factor^i resources (at most
  max_resources) and keeps the best ceil(n_i / factor) for the next round; the best of the last
  round wins (NaN ranks last, ties go to the first point in grid order, as in
  :func:`~ordauc.experiment.tuning.ranked`), and the caller refits it on all the training rows.

Logarithms are computed on integers (scikit-learn's floating-point ``log`` can miss an exact
power, e.g. log_3(243) < 5). Each selection metric runs its own halving (its own survivors) on
shared fits: a round fits the union of the metrics' survivors once, so each metric chooses what a
search by that metric alone would choose. A metric left with one candidate is done: scikit-learn
would score that one again on more resources, which cannot change its choice.

Two resources:

- **samples** (every solver): the labeled training rows the inner CV splits, ``smallest`` = 2 x
  folds x classes as scikit-learn sets it for a classifier. A round with r of the n labeled rows
  fits and validates each fold on the fraction r / n of its rows, drawn per stratum (each class,
  and the unlabeled rows, keep the fraction, at least one row each: scikit-learn draws without
  strata, which can leave a class out of a small validation part). The draws are seeded by the
  cell's inner seed and nested (a round's rows contain the previous round's); the last rounds'
  fraction 1 is the fold itself.
- **iterations** (a solver with shared grid passes that can be paused, ``grid_resource``: the
  QSG engine): each pass runs the inner folds in lockstep; at the iterations of the rounds but
  the last, every model still running is scored on its fold's validation rows, the folds' mean
  ranks them, and only the survivors go on; those of the last round run to ``n_iter``, so the
  chosen model is the model of a lone fit (:mod:`ordauc.solvers.gridfit`). ``smallest`` = 1.
  Rounds are per pass (the points that share a pass: the (lam, gamma) points of one sigma);
  the passes' finalists compete at ``n_iter``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ordauc.cost.fits import CellShape, PlannedFit
from ordauc.experiment.tuning import Scores, Tuned, _Search, _single, ranked, shared_passes

PROFILES = ("paper", "quick")
QUICK_REPEATS = 3  # the quick profile runs the first repetitions of each dataset's plan


@dataclass(frozen=True)
class Halving:
    """Successive halving's parameters, scikit-learn's names and defaults.

    Parameters
    ----------
    factor : float, default=3
        Each round keeps 1/factor of its candidates and gives them factor times the resources.
    min_resources : {"exhaust", "smallest"} or int, default="exhaust"
        The first round's resources.
    aggressive_elimination : bool, default=False
        Run every required round even when the resources run out (repeating the first).
    """

    factor: float = 3
    min_resources: int | str = "exhaust"
    aggressive_elimination: bool = False

    def rounds(self, n_candidates: int, max_resources: int, smallest: int
               ) -> list[tuple[int, int]]:
        """(resources, candidates) of each round, as ``HalvingGridSearchCV`` computes them;
        ``smallest`` is its ``min_resources="smallest"``. A smallest above max_resources is
        taken as max_resources (one round: the full search) where scikit-learn refuses."""
        factor, top = self.factor, max(1, int(max_resources))
        required = 1 + _log_floor(n_candidates, factor)
        low = int(self.min_resources) if isinstance(self.min_resources, int) else int(smallest)
        low = max(1, min(low, top))
        if self.min_resources == "exhaust":
            low = max(low, int(top // factor ** (required - 1)))
        possible = 1 + _log_floor(top // low, factor)
        count = required if self.aggressive_elimination else min(possible, required)
        out, n = [], n_candidates
        for i in range(count):
            power = max(0, i - required + possible) if self.aggressive_elimination else i
            out.append((min(int(factor ** power * low), top), n))
            n = math.ceil(n / factor)
        return out


QUICK = Halving()


def _log_floor(n: float, factor: float) -> int:
    """The largest p with factor**p <= n (0 for n < factor)."""
    p = 0
    while factor ** (p + 1) <= n:
        p += 1
    return p


def subsample(rows: np.ndarray, y: np.ndarray, fraction: float, seed: Sequence[int]
              ) -> np.ndarray:
    """The rows of a round: ``fraction`` of each stratum of ``rows`` (the label values of
    ``y[rows]``, -1 the unlabeled rows), at least one row each, in their order. Seeded draws
    that nest: a larger fraction keeps the rows of a smaller one."""
    if fraction >= 1.0:
        return rows
    rng = np.random.default_rng(list(seed))
    labels = y[rows]
    kept = []
    for value in np.unique(labels):
        members = np.flatnonzero(labels == value)
        order = rng.permutation(members)  # the same permutation for every fraction
        kept.append(order[: max(1, int(fraction * members.size))])
    return rows[np.sort(np.concatenate(kept))]


class _Rounds:
    """Each metric's surviving candidates, every candidate's last mean scores, and the
    finalists: the candidates scored in the last round (on the same resources)."""

    def __init__(self, search: _Search, n: int, factor: float) -> None:
        self.search, self.factor = search, factor
        self.alive = {name: list(range(n)) for name in search.names}
        self.scores: list[Scores] = [dict.fromkeys(search.names, math.nan) for _ in range(n)]
        self.finalists: set[int] = set()

    def running(self) -> list[int]:
        """The candidates some metric still runs, in grid order."""
        return sorted({i for alive in self.alive.values() for i in alive})

    def record(self, i: int, per_fold: list[Scores]) -> None:
        """Candidate i's mean over the folds that could be scored, per metric."""
        for name in self.search.names:
            finite = [s[name] for s in per_fold if math.isfinite(s[name])]
            self.scores[i][name] = float(np.mean(finite)) if finite else math.nan

    def keep(self, among: Collection[int]) -> set[int]:
        """Drop all but the best ceil(n / factor) of each metric's candidates in ``among``;
        the union of the survivors there."""
        out: set[int] = set()
        for name, alive in self.alive.items():
            mine = [i for i in alive if i in among]
            order = ranked([self.scores[i][name] for i in mine], name)
            best = {mine[j] for j in order[: math.ceil(len(mine) / self.factor)]}
            self.alive[name] = [i for i in alive if i not in among or i in best]
            out |= best
        return out

    def tuned(self, candidates: list[dict[str, Any]], elapsed: float) -> dict[str, Tuned]:
        """Each metric's best finalist: its own survivors and the other metrics', all scored
        in the last round (one metric: scikit-learn's choice)."""
        search, out = self.search, {}
        final = sorted(self.finalists)
        for name in search.names:
            best = final[search.best([self.scores[i][name] for i in final], name)]
            points = tuple((p, s[name]) for p, s in zip(candidates, self.scores, strict=True))
            out[name] = Tuned(candidates[best], self.scores[best][name], elapsed, search.failed,
                              search.first_failure, points=points, fits=search.fits,
                              work=search.work)
        return out


class HalvingCV:
    """The inner-CV search of :class:`~ordauc.experiment.tuning.InnerCV` by successive halving
    (module docstring): the same folds, scores, failures and metrics; fewer full fits.

    ``seed`` seeds the rounds' subsamples (the cell's inner seed). Each point's recorded score
    (``points``) is its mean in the last round it reached."""

    kind = "cv"

    def __init__(self, folds: list[tuple[np.ndarray, np.ndarray]], names: list[str],
                 task: str, n_classes: int, describe: Any = None, shared: bool = True,
                 max_bytes: int | None = None, seed: int = 0, halving: Halving = QUICK
                 ) -> None:
        self.folds, self.n_classes = folds, n_classes
        self.shared, self.max_bytes = shared, max_bytes
        self.seed, self.halving = int(seed), halving
        self.search = _Search(names, task, n_classes, describe)

    @staticmethod
    def planned_fits(estimator: Any, grid: dict[str, list[Any]], shape: CellShape,
                     folds: int, shared: bool = True, halving: Halving = QUICK
                     ) -> list[PlannedFit]:
        """The fits of the search (module docstring) and the refit, without fitting.

        By iterations (a solver whose shared passes can be paused, with a pass of two or more
        points): each pass once per fold, its models weighted by the share of ``n_iter`` each
        runs (``models`` is then that sum). Else by samples: each round's candidates, spread
        evenly over the passes, on the round's share of a fold's rows (every stratum keeps
        that share).

        By samples the statement is exact where a fold's labeled rows are (k - 1) / k of the
        labeled rows and the schedule of those and of all the labeled rows (the resource the
        search divides) give the same shares; it differs where they do not (the last round's
        share then reads below 1), and it counts every round of the schedule, also a last
        round left with one candidate, which the search skips."""
        models = shared_passes(estimator, grid, shared)
        n_fold = shape.fold_rows(folds)
        refit = PlannedFit(shape.n_train, 1, 1.0)
        resource = getattr(estimator, "grid_resource", None)
        if resource is not None and len(models) < sum(models):
            top = int(estimator.get_params()[resource])
            out = []
            for m in models:
                done, work = 0, 0.0
                for resources, alive in halving.rounds(m, top, 1):
                    work, done = work + alive * (resources - done) / top, resources
                out.append(PlannedFit(n_fold, folds, work))
            return [*out, refit]
        n_fit_labeled = shape.fold_labeled(folds)
        out = []
        for resources, alive in halving.rounds(sum(models), n_fit_labeled,
                                               2 * folds * shape.n_classes):
            share = min(1.0, resources / max(n_fit_labeled, 1))
            per_pass = alive / len(models)
            out += [PlannedFit(max(1, int(share * n_fold)), folds, per_pass)] * len(models)
        return [*out, refit]

    def tune(self, estimator: Any, X: Any, y: np.ndarray, grid: dict[str, list[Any]]
             ) -> dict[str, Tuned]:
        """The chosen point of each selection metric."""
        candidates, trivial = _single(grid, self.search.names)
        if trivial is not None:
            return trivial
        start = time.perf_counter()
        track = _Rounds(self.search, len(candidates), self.halving.factor)
        if (self.shared and getattr(estimator, "grid_resource", None)
                and hasattr(estimator, "iter_fit_grid_halving")):
            self._by_iterations(estimator, X, y, candidates, track)
        else:
            self._by_samples(estimator, X, y, candidates, track)
        return track.tuned(candidates, time.perf_counter() - start)

    def _by_samples(self, estimator: Any, X: Any, y: np.ndarray,
                    candidates: list[dict[str, Any]], track: _Rounds) -> None:
        n_labeled = int(np.count_nonzero(y != -1))
        smallest = 2 * len(self.folds) * self.n_classes
        rounds = self.halving.rounds(len(candidates), n_labeled, smallest)
        for r, (resources, _) in enumerate(rounds):
            running = track.running()
            if r and len(running) == 1:  # one candidate left: no round can change the choice
                break
            points, share = [candidates[i] for i in running], resources / n_labeled
            self.search.share = min(1.0, share)
            per_fold = []
            for f, (fit, val) in enumerate(self.folds):
                fit, val = (subsample(fit, y, share, (self.seed, f, 0)),
                            subsample(val, y, share, (self.seed, f, 1)))
                per_fold.append(self.search.fold_scores(estimator, points, X[fit], y[fit],
                                                        X[val], y[val], self.shared,
                                                        self.max_bytes))
            for j, i in enumerate(running):
                track.record(i, [scores[j] for scores in per_fold])
            track.finalists = set(running)
            if r < len(rounds) - 1:
                track.keep(running)

    def _by_iterations(self, estimator: Any, X: Any, y: np.ndarray,
                       candidates: list[dict[str, Any]], track: _Rounds) -> None:
        search, n_folds = self.search, len(self.folds)
        fits = [(X[fit], y[fit]) for fit, _ in self.folds]
        vals = [(X[val], y[val]) for _, val in self.folds]
        reached: dict[int, float] = {}  # candidate -> the share of n_iter it ran
        length = [1]  # n_iter of the pass running (passes run one after the other)

        def scores(i: int, per_fold: list[Any], share: float) -> list[Scores]:
            first = i not in reached
            search.fits += n_folds if first else 0  # one fit per fold, however often scored
            search.work += n_folds * (share - reached.get(i, 0.0))
            reached[i] = share
            out = []
            for f, model in enumerate(per_fold):
                if not isinstance(model, Exception):
                    out.append(search.score(model, candidates[i], *vals[f]))
                elif first:  # a diverged model is one failed fit, however often it is seen
                    out.append(search._failed(candidates[i], model))
                else:
                    out.append(dict.fromkeys(search.names, math.nan))
            return out

        def rungs(n_models: int, n_iter: int) -> list[int]:
            length[0] = max(1, n_iter)
            return [r for r, _ in self.halving.rounds(n_models, n_iter, 1)[:-1]]

        def judge(t: int, models: dict[int, list[Any]]) -> set[int]:
            for i, per_fold in models.items():
                track.record(i, scores(i, per_fold, t / length[0]))
            return track.keep(set(models))

        for i, per_fold in estimator.iter_fit_grid_halving(fits, candidates, rungs, judge,
                                                           self.max_bytes):
            track.record(i, scores(i, per_fold, 1.0))
            track.finalists.add(i)
