"""Figure 2's per-run areas computed for all runs at once (``panel_areas``) equal, value for
value, the plain loop over the runs that they replace, on curves with every irregularity a
study can have: a method missing checkpoints, a second label of one method, checkpoints past
5,000, a run without objective values, a method without its objective."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.auc_dcd_common import METHODS, UNTIL
from ordauc.claims.auc_dcd_figure import ONE_MINUS_AUC, RELATIVE_OBJECTIVE, panel_areas


def plain_areas(at: pd.DataFrame, dataset: str, reps: list[int]):  # noqa: ANN201
    """The loop over the runs, one filter at a time, as the figure was first computed."""
    areas: dict = {}
    last_auc: list = []
    checkpoint = 0
    for rep in reps:
        run = at[at["repetition"] == rep]
        first = run.groupby("method")["solver"].first()
        run = run[run["solver"].astype(str) == run["method"].map(first)]
        shared = set.intersection(*(set(g["iteration"]) for _, g in run.groupby("method")))
        shared = {i for i in shared if i <= UNTIL}
        if not shared:
            continue
        objective = run[run["metric"] == "objective"]
        p_star = float(objective["value"].min()) if len(objective) else math.nan
        kept = run[run["iteration"].isin(shared)]
        last = max(shared)
        for method, line in kept.groupby("method"):
            auc = line[line["metric"] == "auc"]
            if auc["iteration"].nunique() == len(shared):
                areas.setdefault((method, ONE_MINUS_AUC), {})[rep] = float(
                    (1.0 - auc.groupby("iteration")["value"].mean()).mean())
                end = auc[auc["iteration"] == last]["value"].mean()
                last_auc.append({"dataset": dataset, "solver": method, "repetition": rep,
                                 "status": ev.OK, "auc": float(end)})
            obj = line[line["metric"] == "objective"]
            if obj["iteration"].nunique() == len(shared) and p_star > 0 \
                    and objective["method"].nunique() == len(METHODS):
                rel = (obj.groupby("iteration")["value"].mean() - p_star) / p_star
                areas.setdefault((method, RELATIVE_OBJECTIVE), {})[rep] = float(rel.mean())
        checkpoint = max(checkpoint, last)
    return areas, last_auc, checkpoint


def _points(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for rep in range(12):
        for method in METHODS:
            labels = [f"{method}_paper"] + ([f"{method}_cv"] if rng.random() < 0.3 else [])
            for label in labels:
                its = np.arange(100, 5601, 100, dtype=float)
                its = its[rng.random(its.size) > (0.08 if rep % 4 == 1 else 0.0)]
                for metric in ("auc", "objective"):
                    if metric == "objective" and (rep == 5 or (rep == 7 and method == METHODS[2])):
                        continue
                    for it in its:
                        for _ in range(1 + (rng.random() < 0.05)):  # a checkpoint twice
                            rows.append({"dataset": "sonar", "solver": label, "method": method,
                                         "repetition": float(rep), "iteration": it,
                                         "metric": metric, "lam": 1e-3,
                                         "value": float(rng.uniform(0.05, 2.0))})
    return pd.DataFrame(rows)


def test_the_grouped_areas_equal_the_loop_over_the_runs() -> None:
    for seed in range(3):
        at = _points(seed)
        reps = sorted(int(r) for r in pd.unique(at["repetition"]))
        fast = panel_areas(at, "sonar")
        plain = plain_areas(at, "sonar", reps)
        assert fast[0] == plain[0]  # every area, bit for bit
        assert fast[1] == plain[1]  # the AUC at the last common checkpoint, in the same order
        assert fast[2] == plain[2] and fast[2] <= UNTIL
        assert len(fast[0][(METHODS[0], RELATIVE_OBJECTIVE)]) < len(reps)  # runs 5, 7 left out
