"""The numbers of the AUC-DCD paper's Figure 2 (Jiang, Tao, Gao & Chu, Journal of Software
25(10), 2014, section 3.2) from a study's curves, at ONE lambda per dataset.

Figure 2 plots, on sonar, svmguide4 and vowel, the mean over the 20 runs of 1 - AUC (test)
and of the relative objective (P(w_t) - P*) / P* against the pair updates, a checkpoint every
100 up to 5,000, for the four methods at the same lambda per dataset; P* is "the smallest
objective value" (section 3.2). Here:

* every curve run (a key of curves.csv) is matched to the lambda of its results row
  (``p_lam``), whatever the label it ran under (``_paper``, ``_cv``, a ``sweep`` of lambda);
* per dataset, ONE lambda: SDCDperm's lambda under the paper's protocol (its Table 2 choice,
  the best mean test AUC) where the curves hold all four methods at it, else the lambda at
  which they hold all four on the most runs;
* per run (repetition) at that lambda, P* = the smallest P(w) over the four methods and every
  recorded checkpoint of that run, so the relative objectives of the four are comparable;
* per run and method, the area A = the mean of 1 - AUC (or of r_t) over the checkpoints up to
  5,000 that all four methods recorded in that run. A method is compared with another on the
  per-run areas, paired over the runs (:func:`area_compare`).

Relative objectives at different lambdas are different problems (P* of one lambda says nothing
of another), so curves of methods at their own lambdas never enter: they make the figure
undecidable, naming what the config must record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import (
    METHODS,
    PAPER_REPS,
    PERM,
    SHORT,
    UNTIL,
    cached,
    paper_protocol,
    paper_variant,
)
from ordauc.claims.study import Study
from ordauc.results.frame import solver_names

ONE_MINUS_AUC, RELATIVE_OBJECTIVE = "one_minus_auc", "relative_objective"
QUANTITY = {ONE_MINUS_AUC: "1-AUC", RELATIVE_OBJECTIVE: "r_t"}
AREA_MARGIN = algebra.TIME_MARGIN  # area ratios within 5 % of 1 are ties
FASTER, SLOWER = algebra.BETTER, algebra.WORSE
CONFIG_NEEDS = (
    "configs/auc_dcd.yaml must record curves of the four methods at one common lambda per "
    "dataset on the paper's 20 runs (curves.csv records each run at the lambda its final fit "
    "used; the `_cv` rows choose lambda per run and method, the `_paper` rows record none): "
    "e.g. entries `fig2_<method>: {solver: <method>, sweep: {lam: [1.0e-9, ..., 10.0]}, "
    "tuning: {kind: cv, folds: 5, metric: auc}}` for oam_inf, auc_sdcd, auc_sdcdperm and "
    "auc_msgd (no grid: each swept lambda is one final fit with curves)")


@dataclass
class Panel:
    """One dataset of Figure 2 at one lambda: ``area[(method, quantity)]`` the per-run areas
    (indexed by repetition), ``auc_at`` each run's test AUC at the last common checkpoint <=
    5,000, ``planned`` the runs planned on the dataset."""

    dataset: str
    lam: float
    how: str
    planned: int
    runs: int
    area: dict[tuple[str, str], pd.Series] = field(default_factory=dict)
    auc_at: pd.DataFrame | None = None
    checkpoint: int = 0

    def mean(self, method: str, quantity: str) -> float:
        values = self.area.get((method, quantity))
        return float(values.mean()) if values is not None and len(values) else math.nan


@dataclass
class Figure:
    """Figure 2's panels by dataset, and why a dataset with curves has none (``why``)."""

    panels: dict[str, Panel] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)

    def note(self, datasets: list[str] | tuple[str, ...]) -> str:
        parts = [f"{d} lambda={p.lam:g} ({p.how}; {p.runs} runs with all four)"
                 for d, p in self.panels.items() if d in datasets]
        return "curves at one lambda per dataset: " + ("; ".join(parts) or "none")


def figure(study: Study) -> Figure | str:
    """Figure 2's numbers, or why they cannot be had at all."""
    return cached("figure_one_lambda", study, _figure)


def _curves(study: Study) -> pd.DataFrame | str:
    """The curve points of the four methods with the method's registry name and the run's
    lambda, or why there are none."""
    curves, results = study.curves, study.results
    if curves is None or curves.empty or not {"solver", "metric", "value",
                                              "iteration"} <= set(curves):
        return ("no curves (curves.csv) of OAMinf, SDCD, SDCDperm and MSGD; " + CONFIG_NEEDS)
    if "key" not in curves.columns or "key" not in results.columns \
            or "p_lam" not in results.columns:
        return ("the curves cannot be matched to the lambda of their runs (curves.csv or "
                "results.csv lacks `key`, or results.csv lacks `p_lam`); " + CONFIG_NEEDS)
    names = solver_names(results)
    done = ev.ok(results)
    lam = pd.Series(pd.to_numeric(done["p_lam"], errors="coerce").to_numpy(),
                    index=done["key"].astype(str))
    lam = lam[~lam.index.duplicated(keep="last")]
    points = curves.assign(method=curves["solver"].astype(str).map(names),
                           lam=curves["key"].astype(str).map(lam))
    points = points[points["method"].isin(METHODS) & np.isfinite(points["lam"])]
    if points.empty:
        return ("no curves of OAMinf, SDCD, SDCDperm or MSGD from finished runs with a lambda; "
                + CONFIG_NEEDS)
    points = points.assign(iteration=pd.to_numeric(points["iteration"], errors="coerce"),
                           value=pd.to_numeric(points["value"], errors="coerce"),
                           repetition=pd.to_numeric(points["repetition"], errors="coerce"))
    return points.dropna(subset=["iteration", "value", "repetition"])


def _target(study: Study, dataset: str) -> tuple[float | None, str]:
    """SDCDperm's lambda under the paper's protocol on ``dataset``: its Table 2 choice (the
    best mean test AUC, from the tuning scores), else the lambda most of its runs chose."""
    proto = paper_protocol(study)
    if proto is not None and (dataset, PERM) in proto.lam:
        return proto.lam[(dataset, PERM)], "SDCDperm's paper lambda"
    variant = paper_variant(study.results)
    if variant is None or PERM not in variant.labels:
        return None, ""
    rows = ev.ok(ev.rows_of(study.results, dataset=dataset, solver=variant.labels[PERM]))
    lam = pd.to_numeric(rows["p_lam"], errors="coerce").dropna() if "p_lam" in rows else None
    if lam is None or lam.empty:
        return None, ""
    return float(lam.mode().iloc[0]), "the lambda most of SDCDperm's paper runs chose"


def _pick_lambda(points: pd.DataFrame, target: float | None, how: str
                 ) -> tuple[float, str, list[int]]:
    """(lambda, why, the repetitions holding all four methods at it)."""
    common: dict[float, list[int]] = {}
    for lam, at in points.groupby("lam"):
        held = at.groupby("repetition")["method"].nunique()
        common[float(lam)] = sorted(int(r) for r in held[held == len(METHODS)].index)
    common = {k: v for k, v in common.items() if v}
    if not common:
        return math.nan, "", []
    if target is not None:
        near = [k for k in common if math.isclose(k, target, rel_tol=1e-9)]
        if near:
            return near[0], how, common[near[0]]
    lam = max(common, key=lambda k: (len(common[k]), -k))
    why = "the lambda with all four methods on the most runs"
    if target is not None:
        why += f" (SDCDperm's paper lambda {target:g} has no run with all four)"
    return lam, why, common[lam]


def _panel(study: Study, points: pd.DataFrame, dataset: str) -> Panel | str:
    mine = points[points["dataset"].astype(str) == dataset]
    target, how = _target(study, dataset)
    lam, why, reps = _pick_lambda(mine, target, how)
    if not reps:
        return "no run with curves of all four methods at one lambda"
    at = mine[np.isclose(mine["lam"], lam, rtol=1e-9) & mine["repetition"].isin(reps)]
    panel = Panel(dataset, lam, why, ev.planned(study.results, dataset), len(reps))
    areas, last_auc, panel.checkpoint = panel_areas(at, dataset)
    panel.area = {k: pd.Series(v, dtype=np.float64).sort_index() for k, v in areas.items()}
    if last_auc:
        panel.auc_at = pd.DataFrame(last_auc)
    return panel


def panel_areas(at: pd.DataFrame, dataset: str
                ) -> tuple[dict[tuple[str, str], dict[int, float]], list[dict[str, object]], float]:
    """Per run (repetition) of ``at`` (the curve points of the runs holding all four methods
    at the panel's lambda): the areas of each method's 1 - AUC and relative objective over the
    checkpoints <= 5,000 that all four recorded in that run, each run's test AUC at the last of
    them, and the largest such checkpoint.

    Computed for all runs at once by grouping (a loop over the runs, filtering each, made the
    claims the slowest part of a report): one label per method and run (the first that ran
    it); P* of a run is the smallest objective of the four over every checkpoint it recorded;
    an area needs the method's values at every shared checkpoint, the relative objective also
    P* > 0 and the objective of all four methods."""
    first = at.groupby(["repetition", "method"], sort=False)["solver"].transform("first")
    run = at[at["solver"].astype(str) == first]
    runs = sorted(int(r) for r in pd.unique(run["repetition"]))
    # the checkpoints every method of a run recorded (all four: the runs are chosen so)
    seen = run[["repetition", "method", "iteration"]].drop_duplicates()
    methods = seen.groupby("repetition")["method"].nunique()
    cover = seen.groupby(["repetition", "iteration"])["method"].nunique()
    shared = cover[(cover.to_numpy() == methods.reindex(
        cover.index.get_level_values(0)).to_numpy())
        & (cover.index.get_level_values(1) <= UNTIL)]
    n_shared = shared.groupby(level=0).size()
    last = shared.index.to_frame(index=False).groupby("repetition")["iteration"].max()
    objective = run[run["metric"] == "objective"]
    p_star = objective.groupby("repetition")["value"].min()
    obj_methods = objective.groupby("repetition")["method"].nunique()
    kept = run.set_index(["repetition", "iteration"])
    kept = kept[kept.index.isin(shared.index)].reset_index()
    means = kept.groupby(["repetition", "method", "metric", "iteration"])["value"].mean()
    areas: dict[tuple[str, str], dict[int, float]] = {}
    last_auc: list[dict[str, object]] = []
    checkpoint = 0
    for rep in runs:
        if rep not in n_shared.index:
            continue
        count, end_at = int(n_shared[rep]), last[rep]
        star = float(p_star[rep]) if rep in p_star.index else math.nan
        full = int(obj_methods.get(rep, 0)) == len(METHODS)
        mine = means.loc[rep]
        for method in sorted(pd.unique(mine.index.get_level_values(0))):
            line = mine.loc[method]
            if "auc" in line.index.get_level_values(0):
                auc = line.loc["auc"]
                if len(auc) == count:
                    areas.setdefault((method, ONE_MINUS_AUC), {})[rep] = float(
                        (1.0 - auc).mean())
                    last_auc.append({"dataset": dataset, "solver": method, "repetition": rep,
                                     "status": ev.OK, "auc": float(auc.loc[end_at])})
            if "objective" in line.index.get_level_values(0):
                obj = line.loc["objective"]
                if len(obj) == count and star > 0 and full:
                    areas.setdefault((method, RELATIVE_OBJECTIVE), {})[rep] = float(
                        ((obj - star) / star).mean())
        checkpoint = max(checkpoint, end_at)
    return areas, last_auc, checkpoint


def _figure(study: Study) -> Figure | str:
    points = _curves(study)
    if isinstance(points, str):
        return points
    out = Figure()
    for dataset in (str(d) for d in pd.unique(points["dataset"])):
        found = _panel(study, points, dataset)
        if isinstance(found, str):
            out.why[dataset] = found
        else:
            out.panels[dataset] = found
    return out


def area_compare(panel: Panel, a: str, b: str, quantity: str) -> algebra.Compared:
    """Whether ``a`` converges faster than ``b`` in ``quantity`` on ``panel``: the per-run
    areas paired over the runs, a one-sided exact signed-rank test each way (the paper's 20
    runs; guards as :func:`ordauc.claims.algebra.compare`), and the ratio of the mean areas
    outside 5 % of 1 (:data:`AREA_MARGIN`): within it the two are tied. ``better`` = faster
    (a smaller area)."""
    mine, theirs = panel.area.get((a, quantity)), panel.area.get((b, quantity))
    if mine is None or theirs is None:
        return algebra.Compared(None, algebra.MISSING, 0, panel.planned, math.nan, math.nan)
    both = mine.index.intersection(theirs.index)
    d = (mine.loc[both] - theirs.loc[both]).to_numpy(np.float64)
    comp = algebra.compare(d, panel.planned, lower_is_better=True,
                           paper_repetitions=PAPER_REPS, one_sided=True)
    if comp.state is None:
        return comp
    base = float(theirs.loc[both].mean())
    ratio = float(mine.loc[both].mean()) / base if base > 0 else math.nan
    if np.isfinite(ratio) and abs(ratio - 1.0) <= AREA_MARGIN:
        return algebra.Compared(algebra.TIE, "", comp.n, comp.planned, comp.mean, comp.p)
    return comp


def ratio(panel: Panel, a: str, b: str, quantity: str) -> float:
    """A(a) / A(b) over the runs both have (NaN without)."""
    mine, theirs = panel.area.get((a, quantity)), panel.area.get((b, quantity))
    if mine is None or theirs is None:
        return math.nan
    both = mine.index.intersection(theirs.index)
    base = float(theirs.loc[both].mean()) if len(both) else math.nan
    return float(mine.loc[both].mean()) / base if base > 0 else math.nan


def compare_text(comp: algebra.Compared, r: float, a: str, b: str) -> str:
    """``SDCD/OAMinf ratio 0.62: better (n=20/20, p=1e-06)``."""
    head = f"{SHORT[a]}/{SHORT[b]} ratio {r:.3g}" if np.isfinite(r) else \
        f"{SHORT[a]}/{SHORT[b]} no areas"
    return f"{head}: {comp.text()}"
