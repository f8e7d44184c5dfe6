"""The numbers of the convergence figure (AUC-DCD Figure 2) from a results folder's curves.csv.

The runner's curve hook (:class:`ordauc.experiment.evaluate.CurveRecorder`) writes, every
``curves.every`` iterations of an iterative solver's final fit, the ranking metric of the
evaluation rows (``metric`` = ``auc``) and, for solvers that have one, the primal objective
P(w) on the training rows (``objective``). Per dataset this module gives, for each solver and
iteration, the mean over the runs (repetitions) of

- ``one_minus_auc``: 1 - AUC, the paper's left column;
- ``relative_objective``: (P(w) - P*) / P*, the paper's right column, where P* is "the smallest
  objective value" (the paper, section 3.2): here the smallest P(w) recorded on the same
  training rows with the same lambda (the run's ``p_lam`` in results.csv), over every solver
  and iteration recorded; without a lambda in the results, the smallest of the run itself.

Curves whose cell has no row in results.csv (a run cut between the two writes) are left out,
as the runner drops them on its next run.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ordauc.errors import UserError
from ordauc.report.load import solver_order
from ordauc.results.frame import solver_names
from ordauc.results.read import read_table
from ordauc.results.schema import CURVE_COLUMNS, CURVES_CSV

ONE_MINUS_AUC, RELATIVE_OBJECTIVE = "one_minus_auc", "relative_objective"
# drawn as recorded, on a log scale: what a solver logs per iteration itself (an ADMM's
# residuals), and the distance to an exact solution measured at checkpoints (curves.reference)
LOGGED = {"primal_residual": "primal residual ||r_t||", "dual_residual": "dual residual ||s_t||",
          "reference_error": "mean (f_t(x) - f*(x))^2"}
QUANTITIES = {ONE_MINUS_AUC: "1 - AUC", RELATIVE_OBJECTIVE: "(P(w) - P*) / P*", **LOGGED}
LOG_SCALE = (RELATIVE_OBJECTIVE, *LOGGED)
RATE = "reference_error"  # drawn on log-log axes beside a C/t guide
_SAME_PROBLEM = ("dataset", "repetition", "n_labeled", "n_unlabeled")
TABLE_COLUMNS = ("solver", "quantity", "iteration", "mean", "std", "n_runs")


@dataclass(frozen=True)
class Convergence:
    """Mean convergence curves of one dataset.

    ``table`` has one row per (solver, quantity, iteration): ``mean`` and ``std`` over the
    ``n_runs`` runs that recorded that iteration. ``quantities`` are those with values, in
    :data:`QUANTITIES` order; ``reference`` says how P* was taken; ``last`` is the largest
    iteration recorded.
    """

    dataset: str
    solvers: list[str]
    quantities: list[str]
    table: pd.DataFrame
    reference: str
    last: int
    names: dict[str, str] = field(default_factory=dict)  # solver label -> registry name

    def curve(self, solver: str, quantity: str) -> pd.DataFrame:
        """``iteration``, ``mean``, ``std``, ``n_runs`` of one line, by iteration."""
        rows = self.table[(self.table["solver"] == solver) & (self.table["quantity"] == quantity)]
        return rows[["iteration", "mean", "std", "n_runs"]].sort_values("iteration")

    @property
    def n_runs(self) -> int:
        """The most runs behind any point (the figure's "mean over N runs")."""
        return int(self.table["n_runs"].max()) if len(self.table) else 0


def read_curves(directory: str | Path) -> pd.DataFrame | None:
    """The curves table of a results folder; None when it has none (or no rows)."""
    path = Path(directory) / CURVES_CSV
    if not path.is_file():
        return None
    try:
        header, rows = read_table(path)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UserError(f"{str(path)!r} is not a readable CSV table ({exc})") from None
    missing = [c for c in CURVE_COLUMNS if c not in header]
    if missing:
        raise UserError(f"{str(path)!r} lacks the column(s) {', '.join(missing)}; "
                        "it is not a curves table of `ordauc run`")
    if not rows:
        return None
    table = pd.DataFrame.from_records(rows, columns=header)
    for column in ("repetition", "n_labeled", "n_unlabeled", "iteration", "time_s", "value"):
        table[column] = pd.to_numeric(table[column], errors="coerce")
    return table.dropna(subset=["iteration", "value"])


def _with_lambda(curves: pd.DataFrame, results: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """The curves of cells that have a results row, with their lambda when the results hold
    one; True when every curve got a lambda."""
    if "key" not in results.columns:
        return curves.assign(lam=np.nan), False
    lam = (pd.to_numeric(results["p_lam"], errors="coerce") if "p_lam" in results.columns
           else pd.Series(np.nan, index=results.index))
    by_key = pd.Series(lam.to_numpy(), index=results["key"].astype(str))
    by_key = by_key[~by_key.index.duplicated(keep="last")]
    kept = curves[curves["key"].astype(str).isin(by_key.index)]
    kept = kept.assign(lam=kept["key"].astype(str).map(by_key).to_numpy(dtype=np.float64))
    return kept, bool(len(kept)) and bool(np.isfinite(kept["lam"]).all())


def _relative_objective(objective: pd.DataFrame, shared: bool) -> pd.DataFrame:
    """(P - P*) / P* per recorded point, P* the smallest P of the same problem."""
    problem = [*_SAME_PROBLEM, "lam"] if shared else ["key"]
    best = objective.groupby(problem, dropna=False)["value"].transform("min")
    relative = (objective["value"] - best) / best.where(best > 0)
    return objective.assign(value=relative)


def _mean_over_runs(points: pd.DataFrame, quantity: str) -> pd.DataFrame:
    grouped = points.groupby(["solver", "iteration"], sort=True)["value"]
    table = grouped.agg(mean="mean", std=lambda v: v.std(ddof=1) if len(v) > 1 else 0.0,
                        n_runs="count").reset_index()
    return table.assign(quantity=quantity)[list(TABLE_COLUMNS)]


def curve_datasets(curves: pd.DataFrame, results: pd.DataFrame) -> list[str]:
    """Datasets with curves, in the results' order."""
    held = set(curves["dataset"].astype(str))
    return [str(d) for d in pd.unique(results["dataset"]) if str(d) in held]


def convergence(curves: pd.DataFrame, results: pd.DataFrame, dataset: str) -> Convergence:
    """The mean convergence curves of ``dataset`` (see the module docstring)."""
    mine = curves[curves["dataset"].astype(str) == dataset]
    mine, shared = _with_lambda(mine, results)
    if mine.empty:
        raise UserError(f"curves.csv has no curve of dataset {dataset!r} whose run is in "
                        "results.csv; run `ordauc run` again to complete it")
    auc = mine[mine["metric"] == "auc"]
    parts = [_mean_over_runs(auc.assign(value=1.0 - auc["value"]), ONE_MINUS_AUC)]
    parts += [_mean_over_runs(mine[mine["metric"] == metric], metric) for metric in LOGGED
              if (mine["metric"] == metric).any()]
    objective = mine[mine["metric"] == "objective"]
    if len(objective):
        parts.append(_mean_over_runs(_relative_objective(objective, shared),
                                     RELATIVE_OBJECTIVE))
    table = pd.concat(parts, ignore_index=True)
    table = table[np.isfinite(table["mean"])]
    names = {label: name for label, name in solver_names(results).items()
             if label in set(table["solver"])}
    reference = ("P* = the smallest P(w) recorded on the same training fold with the same "
                 "lambda, over all solvers" if shared else
                 "P* = the smallest P(w) recorded in the same run")
    return Convergence(dataset=dataset, solvers=solver_order(table["solver"], names),
                       quantities=[q for q in QUANTITIES if (table["quantity"] == q).any()],
                       table=table.reset_index(drop=True), reference=reference,
                       last=int(mine["iteration"].max()), names=names)
