"""What the time, memory and scaling claims of the two QSG papers share: a dataset's cells, their
median training times, failures, and the settling of a verdict over missing datasets.

A *cell* is (dataset, solver, n_unlabeled) at the dataset's n_labeled (the papers fix 500 and
200 labeled rows); its time is the median ``fit_time_s`` over its ok runs (C6), kept where at
least 80 % of the planned repetitions are ok (C2). Rows are those a table of AUC reads where a
study tunes by several metrics. A rule over the papers' 8 datasets is decided only when the
datasets missing from the study could not change it (:func:`settled`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import pandas as pd

from ordauc.claims import evidence as ev
from ordauc.claims.registry import CONFIRMED, NOT_CONFIRMED, PARTIAL, UNDECIDABLE

K = TypeVar("K")
TOTAL = 8  # both papers report 8 datasets
QS3, QS3_BASES = "qs3orao", ("m_samult", "m_pnu_auc")
QSG, QSG_BASES = "qsg_s2auc", ("samult", "pnu_auc")
QS3_STUDIES = ("qs3orao_time", "qs3orao")
QSG_STUDIES = ("qsg_s2auc_time", "qsg_s2auc")
TIME = "fit_time_s"
RANK = {NOT_CONFIRMED: 0, PARTIAL: 1, CONFIRMED: 2}


def datasets(results: pd.DataFrame) -> list[str]:
    """The datasets of a results table, in order of appearance."""
    return [str(d) for d in pd.unique(results["dataset"])] if len(results) else []


def dataset_rows(results: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """The rows of ``dataset`` (every status) at its most common ``n_labeled``."""
    rows = ev.rows_of(results, "auc", dataset=dataset)
    if rows.empty:
        return rows
    return rows[rows["n_labeled"] == rows["n_labeled"].mode().iloc[0]]


def sizes(rows: pd.DataFrame) -> list[int]:
    """The unlabeled sizes with a row of any solver, ascending."""
    return sorted(int(s) for s in pd.unique(rows["n_unlabeled"]))


def medians(rows: pd.DataFrame, solver: str, column: str = TIME,
            n_iter: object = None) -> dict[int, float]:
    """Per unlabeled size, the median of ``column`` over ``solver``'s ok runs, where enough of
    them are ok (C2); with ``n_iter``, only its runs at that ``p_n_iter``."""
    if column not in rows.columns or rows.empty:
        return {}
    mine = rows[(rows["solver"] == solver) & (rows["status"] == ev.OK)]
    if n_iter is not None and "p_n_iter" in mine.columns:
        mine = mine[mine["p_n_iter"] == n_iter]
    values = pd.to_numeric(mine[column], errors="coerce")
    found = values.groupby(mine["n_unlabeled"]).agg(["count", "median"])
    planned = rows.groupby("n_unlabeled")[ev.repetition_column(rows)].nunique()
    out = {int(size): float(median) for size, (count, median) in found.iterrows()
           if count and count >= math.ceil(ev.PAIRED_SHARE * planned[size] - 1e-9)}
    return dict(sorted(out.items()))


def failed(rows: pd.DataFrame, solver: str, size: int) -> pd.DataFrame:
    """``solver``'s runs at ``size`` that did not finish (timeout, error, skipped)."""
    at = rows[(rows["solver"] == solver) & (rows["n_unlabeled"] == size)]
    return at[at["status"] != ev.OK]


def infeasible(rows: pd.DataFrame, ours: str, base: str) -> list[int]:
    """The sizes where ``ours`` is ok and ``base`` failed (C6: "B infeasible")."""
    mine, theirs = medians(rows, ours), medians(rows, base)
    return [s for s in mine if s not in theirs and len(failed(rows, base, s))]


def pending(rows: pd.DataFrame, solver: str) -> list[int]:
    """The sizes where ``solver`` has neither enough ok runs nor a failure: runs not done."""
    done = medians(rows, solver)
    mine = rows[(rows["solver"] == solver) & (rows["status"] != ev.OK)]
    failing = {int(s) for s in pd.unique(mine["n_unlabeled"])}
    return [s for s in sizes(rows) if s not in done and s not in failing]


def settled(verdict_of: Callable[[list[K]], str], known: Sequence[K], missing: int,
            kinds: Sequence[K]) -> str:
    """The verdict of ``verdict_of`` over the per-dataset findings ``known``, if every finding
    the ``missing`` datasets could add (any mix of ``kinds``) leaves it unchanged; else
    UNDECIDABLE."""
    found = {verdict_of([*known, *extra])
             for extra in itertools.combinations_with_replacement(kinds, max(missing, 0))}
    return found.pop() if len(found) == 1 else UNDECIDABLE


def settle(rule: Callable[[tuple[str, ...]], str], verdicts: Sequence[str]) -> str:
    """``rule`` over parts' verdicts, each UNDECIDABLE part tried as every decided verdict:
    the common result where they agree, else UNDECIDABLE."""
    options = [(v,) if v != UNDECIDABLE else tuple(RANK) for v in verdicts]
    found = {rule(combo) for combo in itertools.product(*options)}
    return found.pop() if len(found) == 1 else UNDECIDABLE


def each_baseline(verdicts: tuple[str, ...]) -> str:
    """A claim about every baseline: CONFIRMED if it holds for all, NOT CONFIRMED if for none,
    PARTIAL if for some (or only partly)."""
    if all(v == CONFIRMED for v in verdicts):
        return CONFIRMED
    return NOT_CONFIRMED if all(v == NOT_CONFIRMED for v in verdicts) else PARTIAL


def per_baseline(verdicts: dict[str, str]) -> str:
    """:func:`each_baseline` over the baselines' verdicts, settled over the undecided ones."""
    return settle(each_baseline, list(verdicts.values()))


def part_text(parts: dict[str, str]) -> str:
    """``samult PARTIAL, pnu_auc NOT CONFIRMED``."""
    return ", ".join(f"{name} {verdict}" for name, verdict in parts.items())


def ratio_text(ratios: dict[int, float]) -> str:
    """``0.12 @20000 .. 0.03 @44800``: the first and last ratios of a dataset."""
    if not ratios:
        return "no comparable size"
    (s0, r0), (s1, r1) = next(iter(ratios.items())), list(ratios.items())[-1]
    return f"{r0:.3g} @{s0}" if s0 == s1 else f"{r0:.3g} @{s0} .. {r1:.3g} @{s1}"


def crossover(ratios: dict[int, float]) -> int | None:
    """The smallest size from which ``ours / base < 1`` at every larger comparable size
    (None where ours is not faster at the largest)."""
    found = None
    for size in sorted(ratios, reverse=True):
        if ratios[size] >= 1:
            break
        found = size
    return found
