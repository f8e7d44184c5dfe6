"""The NPSVOR paper's collaborative-filtering claim (Wang et al., IEEE Trans. Cybernetics 2017,
Section V-E, Fig. 8): MAE on MovieLens at 100, 150, ..., 400 training movies, 20 random
selections each. Decided only on the dataset ``movielens`` at those 7 sizes with >= 16 of the 20
draws; a stand-in (the offline twin's seeded ``synthetic_ordinal``) gives UNDECIDABLE with the
lean of the runs at hand. Mean gaps within 1e-3 are ties.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from ordauc.claims import algebra
from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import PROPOSED, spearman, yes_no
from ordauc.claims.npsvor_scale import (
    ABOVE,
    BELOW,
    BEST,
    FAILS,
    HOLDS,
    ML_SIZES,
    MOVIELENS,
    TIE,
    size_judgments,
)
from ordauc.claims.registry import (
    CONFIRMED,
    NOT_CONFIRMED,
    PARTIAL,
    UNDECIDABLE,
    Outcome,
    claim,
    undecidable,
)
from ordauc.claims.study import Study

ML_ABOVE = tuple(s for s in ML_SIZES if s > ABOVE)  # 300, 350, 400
STEADY = -0.9


def _best_everywhere(counts: Counter[str]) -> str:
    if counts[BELOW]:
        return NOT_CONFIRMED
    return CONFIRMED if counts[BEST] >= len(ML_ABOVE) else PARTIAL  # PARTIAL: a tie


def _opbe_first(values: pd.DataFrame) -> str | None:
    """(a) at 100 movies: ``holds`` if OPBE's mean MAE is below NPSVOR's by more than 1e-3,
    ``fails`` if above by more, ``tie`` within; None without both."""
    if ML_SIZES[0] not in values.index:
        return None
    row = values.loc[ML_SIZES[0]]
    if not np.isfinite(row[["opbe", PROPOSED]]).all():
        return None
    gap = row[PROPOSED] - row["opbe"]
    if abs(gap) <= algebra.margin_of("mae"):
        return TIE
    return HOLDS if gap > 0 else FAILS


def _steady(values: pd.DataFrame) -> tuple[bool | None, float]:
    """(b) Spearman rho(size, NPSVOR's mean MAE) <= -0.9 over the paper's 7 sizes (all needed)."""
    mine = values[PROPOSED].reindex(ML_SIZES)
    if mine.isna().any():
        return None, spearman(mine.dropna().index.to_numpy(float), mine.dropna().to_numpy(float))
    rho = spearman(np.asarray(ML_SIZES, float), mine.to_numpy(float))
    return (bool(rho <= STEADY) if np.isfinite(rho) else False), rho


def _verdict(a: str | None, b: bool | None, c: str) -> str:
    if c in (UNDECIDABLE, NOT_CONFIRMED):
        return c
    if c == PARTIAL:  # a tie beyond 250: not best, not refuted
        return PARTIAL
    if a in (FAILS, TIE) or b is False:
        return PARTIAL
    if a is None or b is None:
        return UNDECIDABLE
    return CONFIRMED


@claim("NPSVOR", "NP-14", studies=("npsvor_movielens",),
       text="On MovieLens, OPBE beats NPSVOR on small training sets, NPSVOR's MAE decreases "
            "steadily with size, and NPSVOR is best beyond 250 training movies",
       rule="(our reading) On the dataset movielens only, at the paper's 7 sizes (100, 150, "
            "..., 400 movies) with >= 16 of its 20 draws (others shown, never deciding); mean "
            "MAE per size (models selected by MAE), gaps within 1e-3 ties. (a) At 100 movies "
            "mean MAE(OPBE) < mean MAE(NPSVOR); (b) Spearman rho(size, NPSVOR's mean MAE) <= "
            "-0.9 over the 7 sizes; (c) at every size > 250 (300, 350, 400) NPSVOR has the "
            "lowest mean MAE of the ten. CONFIRMED if (a), (b) and (c) hold; NOT CONFIRMED if "
            "(c) fails (another method lower by more than 1e-3 at a size > 250); PARTIAL "
            "otherwise ((c) holds or ties); UNDECIDABLE while missing sizes could change that.")
def np_14(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-E and Fig. 8: "when the size of training dataset is
    small, OPBE outperforms NPSVOR. With the increasing of #training data, the MAE obtained from
    NPSVOR decreases steadily. When the number of training data is larger than 250, NPSVOR
    achieves the best performance"."""
    judgments, guarded, raw = size_judgments(study.results, "mae", MOVIELENS, ML_ABOVE)
    if raw.empty or raw[PROPOSED].isna().all():
        return undecidable("no MAE of npsvor at any training size; configs/npsvor_movielens.yaml "
                           "runs the ten methods on movielens at 100, 150, ..., 400 movies")
    judgments = [j for j in judgments if int(j.unit) > ABOVE]
    settled = algebra.settle(_best_everywhere, judgments, len(ML_ABOVE), best=BEST, worst=BELOW)
    paper = guarded[guarded.index.isin(ML_SIZES)]
    a, (b, rho) = _opbe_first(paper), _steady(paper)
    verdict = _verdict(a, b, settled.verdict)
    lean = None
    if verdict == UNDECIDABLE:
        raw_b, _ = _steady(raw) if set(ML_SIZES) <= set(raw.index) else (None, np.nan)
        if raw_b is None and len(raw[PROPOSED].dropna()) >= 3:
            rho_raw = spearman(raw.index.to_numpy(float), raw[PROPOSED].to_numpy(float))
            raw_b = bool(rho_raw <= STEADY) if np.isfinite(rho_raw) else None
        lean_a = _opbe_first(raw) if ML_SIZES[0] in raw.index else _opbe_first(
            raw.rename(index={raw.index.min(): ML_SIZES[0]}))
        lean = _verdict(lean_a, raw_b, settled.provisional or settled.verdict)
        lean = None if lean == UNDECIDABLE else lean
    statistic = (f"(a) OPBE better at 100: {a or 'undecided'}; (b) rho {ev.fmt(rho, 3)} "
                 f"({yes_no(b)}); (c) NPSVOR lowest at {settled.counts[BEST]} of "
                 f"{len(ML_ABOVE)} sizes > 250 (tied at {settled.counts[TIE]}, "
                 f"{settled.decided} decided)" + algebra.lean_text(lean))
    evidence = "; ".join(j.line() for j in judgments)
    mine = raw[PROPOSED].dropna()
    evidence += "; NPSVOR mean MAE by size (all runs): " + ", ".join(
        f"{int(s)}: {v:.3f}" for s, v in mine.items())
    if verdict == UNDECIDABLE:
        evidence = ("decided only on movielens at the paper's 7 sizes with >= 16 of 20 draws "
                    "per size, every method ok (run configs/npsvor_movielens.yaml); "
                    + evidence)
    return Outcome(verdict, statistic, evidence, "interpretation",
                   values={"a": a, "b": b, "rho": rho, "best": settled.counts[BEST],
                           "tie": settled.counts[TIE], "decided": settled.decided},
                   judgments=tuple(judgments), provisional=lean)
