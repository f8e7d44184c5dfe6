"""QS3ORAO's Lemma 1 (Shi et al., AAAI 2020, "Calculate the thresholds"): "the solution ... is
unique and b_1* < ... < b_(k-1)*" (QS3-12).

The runner records each ok run's fitted thresholds (``thresholds``: b_1;...;b_(k-1)) for every
model that has them; the claim is decided from that column. A finite MZE cannot stand in for
them (labels exist whatever the order of the thresholds), so a table without the column (rows
written before it existed) leaves the claim UNDECIDABLE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ordauc.claims import evidence as ev
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    UNDECIDABLE,
    Outcome,
    claim,
    undecidable,
)
from ordauc.results.schema import parse_thresholds

if TYPE_CHECKING:
    from ordauc.claims.study import Study

COLUMN = "thresholds"  # recorded by the runner for every model with fitted thresholds_
QS3_CONFIG = "configs/qs3orao.yaml"


@claim("QS3ORAO", "QS3-12", studies=("qs3orao", "qs3orao_time"),
       text="The threshold solution is unique and b_1 < ... < b_(k-1) (Lemma 1)",
       rule="from the recorded `thresholds` column (each ok qs3orao run's fitted b_1, ..., "
            "b_(k-1)): CONFIRMED if strictly increasing in every ok run, NOT CONFIRMED if "
            "not in one, UNDECIDABLE where they are not recorded or unreadable (a finite MZE "
            "is no evidence: labels exist whatever the order); the unit tests "
            "tests/solvers/test_thresholds.py check the order on fitted models too")
def qs3_12(study: Study) -> Outcome:
    """QS3ORAO (AAAI 2020), Lemma 1: the threshold problem's solution is unique and strictly
    increasing. Decided only from recorded thresholds; UNDECIDABLE otherwise, naming the test
    that checks them and the column that would let the table decide."""
    results = study.results
    column = "solver_name" if "solver_name" in results.columns else "solver"
    rows = ev.ok(results[results[column] == "qs3orao"]) if len(results) else results
    if not len(rows):
        return undecidable(f"no ok run of qs3orao: {QS3_CONFIG} runs it")
    if COLUMN not in rows.columns:
        return undecidable(
            "the thresholds are checked on fitted models by the unit tests "
            "tests/solvers/test_thresholds.py; the results table does not record them (a recorded "
            f"`{COLUMN}` column, each ok run's b_1;...;b_(k-1), would decide it)",
            "thresholds not recorded")
    parsed = [parse_thresholds(v) for v in rows[COLUMN]]
    read = [p for p in parsed if p is not None]
    unread = len(parsed) - len(read)
    increasing = sum(bool(np.all(np.diff(p) > 0)) for p in read)
    bad = len(read) - increasing
    values = {"runs": len(parsed), "increasing": increasing, "not_increasing": bad,
              "unread": unread}
    statistic = f"strictly increasing thresholds in {increasing} of {len(read)} ok runs"
    if bad:
        datasets = sorted({str(d) for d, p in zip(rows["dataset"], parsed, strict=True)
                           if p is not None and not np.all(np.diff(p) > 0)})
        return Outcome(NOT_CONFIRMED, statistic, f"not increasing on {', '.join(datasets)}",
                       "strict", values=values)
    if unread:
        return Outcome(UNDECIDABLE, statistic,
                       f"{unread} ok runs of qs3orao have no readable `{COLUMN}`",
                       "strict", values=values)
    return Outcome(CONFIRMED, statistic, f"{len(read)} ok runs of qs3orao", "strict",
                   values=values)
