"""The NPSVOR paper's per-dataset test claims (Wang et al., IEEE Trans. Cybernetics 2017,
Section V-C, Tables IV-V and Fig. 6): Wilcoxon wins, draws and losses against each baseline,
MAE against MZE, cross-validation time, and the tuning headroom the paper leaves untested.

The per-dataset test is the Wilcoxon signed-rank test of the claims' conventions
(:func:`ordauc.claims.evidence.wilcoxon_p`, two-sided, p < 0.05) on the splits where both
methods finished; a significant difference is a win or a loss by the sign of the mean
difference. (The report's Table IV, :func:`ordauc.report.stats.wilcoxon_pair`, takes the side
the signed ranks favour; the two differ only where the mean and the ranks point different
ways.) The paper's "Wilcoxon signed sum test" is read as signed-rank; with the five random
splits of its six larger datasets the exact two-sided signed-rank test cannot reach p < 0.05
(its smallest p is 0.0625), so those datasets give draws. The evidence says how many datasets
that concerns, and what a paired t-test there would change (not used for the verdict).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as ss

from ordauc.claims import evidence as ev
from ordauc.claims.npsvor_common import (
    BASELINES,
    PAPER_DATASETS,
    PROPOSED,
    TOL,
    cell_matrix,
    ranking,
    spearman,
    two_parts,
    yes_no,
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
from ordauc.report.tables import rank_rows

STUDY = ("npsvor",)
FEW = 5  # with this many pairs or fewer the exact two-sided signed-rank p is >= 0.0625


@dataclass(frozen=True)
class Tally:
    """NPSVOR's Wilcoxon wins / draws / losses against one baseline over the datasets.

    ``undecided`` counts the paper's datasets without enough paired splits (C2) or absent;
    ``few`` the decided ones with <= 5 pairs; ``t_net`` the wins minus losses when a paired
    t-test replaces the signed-rank test on those.
    """

    wins: int
    draws: int
    losses: int
    undecided: int
    few: int
    t_net: int

    @property
    def net(self) -> int:
        return self.wins - self.losses

    def holds(self) -> bool | None:
        """#wins >= #losses, whatever the undecided datasets give (None if they could flip)."""
        if self.wins >= self.losses + self.undecided:
            return True
        if self.wins + self.undecided < self.losses:
            return False
        return None


def tally(results: pd.DataFrame, metric: str, baseline: str,
          total: int = PAPER_DATASETS) -> Tally:
    """Wilcoxon signed-rank outcome of NPSVOR against ``baseline`` on every dataset."""
    return _tally(_by_dataset(results, metric), metric, baseline, total)


def _by_dataset(results: pd.DataFrame, metric: str
                ) -> dict[str, tuple[int, dict[str, np.ndarray]]]:
    """Per dataset, the planned repetitions and per solver the ok values of ``metric`` (rows
    selected by it) on a common repetition axis (NaN where not ok), from which every pair is
    read without another pass over the table."""
    rows = ev.rows_of(results, metric)
    rep = ev.repetition_column(rows)
    done = ev.ok(rows)
    done = done.assign(_v=pd.to_numeric(done[metric], errors="coerce"))
    wide = done[np.isfinite(done["_v"])].pivot_table(index=["dataset", rep], columns="solver",
                                                       values="_v", aggfunc="mean")
    parts = {}
    for dataset, mine in rows.groupby("dataset", sort=False):
        table = (wide.xs(dataset, level="dataset") if dataset in wide.index.get_level_values(0)
                 else pd.DataFrame())
        parts[str(dataset)] = (int(mine[rep].nunique()),
                               {str(c): table[c].to_numpy(float) for c in table.columns})
    return parts


def _tally(parts: dict[str, tuple[int, dict[str, np.ndarray]]], metric: str, baseline: str,
           total: int) -> Tally:
    counts = {"win": 0, "draw": 0, "loss": 0}
    few = t_net = 0
    for planned, values in parts.values():
        if PROPOSED not in values or baseline not in values:
            continue
        a, b = values[PROPOSED], values[baseline]
        both = np.isfinite(a) & np.isfinite(b)
        pair = ev.Paired(a[both], b[both], planned, metric)
        if not pair.enough:
            continue
        # two-sided signed-rank p (C3); a significant difference counts by its mean's sign
        significant = ev.wilcoxon_p(pair.d) < ev.ALPHA
        outcome = _by_sign(pair, metric) if significant else "draw"
        counts[outcome] += 1
        if pair.n <= FEW:
            few += 1
            p_t = ss.ttest_rel(pair.a, pair.b).pvalue if pair.n > 1 and pair.sd > 0 else 1.0
            outcome = _by_sign(pair, metric) if p_t < ev.ALPHA else "draw"
        t_net += {"win": 1, "loss": -1, "draw": 0}[outcome]
    decided = sum(counts.values())
    return Tally(counts["win"], counts["draw"], counts["loss"],
                 max(total, len(parts)) - decided, few, t_net)


_CACHE: list[tuple[pd.DataFrame, str, dict[str, Tally]]] = []


def tallies(results: pd.DataFrame, metric: str) -> dict[str, Tally]:
    """:func:`tally` against every baseline; the last few tables' tallies are kept, as NP-7
    and NP-8 both need them and scipy's signed-rank test with ties runs a permutation test
    (about 0.1 s each)."""
    for frame, name, found in _CACHE:
        if frame is results and name == metric:
            return found
    parts = _by_dataset(results, metric)
    found = {b: _tally(parts, metric, b, PAPER_DATASETS) for b in BASELINES}
    _CACHE.append((results, metric, found))
    del _CACHE[:-4]
    return found


def _by_sign(pair: ev.Paired, metric: str) -> str:
    """A significant difference is a win or a loss by the sign of the mean difference (by the
    side the signed ranks favour when the mean is exactly zero)."""
    mean = pair.mean
    if mean == 0:
        mean = ev.wilcoxon_p(pair.d, "greater") - ev.wilcoxon_p(pair.d, "less")
    good = mean < 0 if ev.lower_is_better(metric) else mean > 0
    return "win" if good else "loss"


def _tally_text(tallies: dict[str, Tally]) -> str:
    return ", ".join(f"{b} {t.wins}/{t.draws}/{t.losses}" for b, t in tallies.items())


@claim("NPSVOR", "NP-8", studies=STUDY,
       text="In the per-dataset Wilcoxon tests (23 x 9 = 207 comparisons), NPSVOR has at least "
            "as many significant wins as losses against every baseline on MAE",
       rule="Per dataset and baseline, the Wilcoxon signed-rank test of NPSVOR's per-split MAE "
            "against the baseline's on the same splits (both ok, >= 80 % of the splits "
            "paired), two-sided p < 0.05: a win or a loss by the sign of the mean difference, "
            "else a draw; totals over the 23 datasets, for MZE and for MAE. (our reading) "
            "CONFIRMED if #wins >= #losses on MAE against all 9 baselines, PARTIAL if against "
            ">= 6, otherwise NOT CONFIRMED; UNDECIDABLE while undecided datasets could change "
            "that. On the 5-split datasets the signed-rank test cannot reach p < 0.05 (draws).")
def np_8(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C and Table IV ("each pair of methods is
    compared for each dataset and the total number of statistically significant wins, draws or
    losses are reported", ordered by wins minus losses). The published counts are not in the
    text we have, so only the implied ordering is checked."""
    results = study.results
    mae, mze = tallies(results, "mae"), tallies(results, "mze")
    holds = {b: t.holds() for b, t in mae.items()}
    hits = sum(v is True for v in holds.values())
    decided = sum(v is not None for v in holds.values())
    verdict = ev.count_rule(hits, decided, len(BASELINES), confirm_at=9, partial_at=6)
    few = max(t.few for t in mae.values())
    t_hits = sum(t.t_net >= 0 for t in mae.values())
    statistic = f"MAE wins >= losses against {hits} of 9 baselines ({decided} decided)"
    evidence = (f"signed-rank, MAE w/d/l: {_tally_text(mae)}; MZE: {_tally_text(mze)}; "
                f"undecided datasets per baseline (MAE): "
                f"{max(t.undecided for t in mae.values())}; {few} decided datasets had <= 5 "
                f"pairs (draws by construction); with a paired t-test there: wins >= losses "
                f"against {t_hits} of 9")
    return Outcome(verdict, statistic, evidence, "interpretation")


@claim("NPSVOR", "NP-7", studies=STUDY,
       text="NPSVOR's advantage is more obvious on MAE than on MZE",
       rule="margin_M = (best baseline's average rank) - (NPSVOR's average rank) and net_M = "
            "sum over the 9 baselines of (#wins - #losses) from NP-8, for M in {MZE, MAE}. "
            "CONFIRMED if margin_MAE > margin_MZE and net_MAE > net_MZE; PARTIAL if only one "
            "of the two holds; otherwise NOT CONFIRMED; UNDECIDABLE while unranked datasets or "
            "undecided comparisons could change either.")
def np_7(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "the advantage of our model is more obvious on
    MAE than MZE" (Tables II-IV)."""
    results = study.results
    margins, nets = {}, {}
    for metric in ("mze", "mae"):
        r = ranking(results, metric)
        # margin = min over baselines of (avg(b) - avg(N)) = -max over b of gap(N, b)
        gaps = [r.gap([PROPOSED], [b]) for b in BASELINES]
        margins[metric] = (-max(hi for _, hi in gaps), -max(lo for lo, _ in gaps))
        found = tallies(results, metric).values()
        net, undecided = sum(t.net for t in found), sum(t.undecided for t in found)
        nets[metric] = (net - undecided, net + undecided)
    (mze_lo, mze_hi), (mae_lo, mae_hi) = margins["mze"], margins["mae"]
    margin_ok = True if mze_hi < mae_lo - TOL else False if mae_hi <= mze_lo + TOL else None
    net_ok = (True if nets["mae"][0] > nets["mze"][1] else
              False if nets["mae"][1] <= nets["mze"][0] else None)
    verdict = two_parts(margin_ok, net_ok)

    def span(pair: tuple[float, float], digits: int) -> str:
        lo, hi = pair
        if math.isclose(lo, hi):
            return f"{lo:+.{digits}f}"
        return f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"

    statistic = (f"margin MAE {span(margins['mae'], 2)} vs MZE {span(margins['mze'], 2)}; "
                 f"net MAE {span(nets['mae'], 0)} vs MZE {span(nets['mze'], 0)}")
    evidence = (f"margin larger on MAE: {yes_no(margin_ok)}; net wins larger on MAE: "
                f"{yes_no(net_ok)}; wins and losses from the per-dataset Wilcoxon signed-rank "
                f"test as NP-8; intervals bound what unranked datasets and undecided "
                f"comparisons could add")
    return Outcome(verdict, statistic, evidence, "interpretation")


BINARY_DECOMPOSITIONS = ("svc1v1", "svc1va", "cssvc", "svmop")
SMALL = 500  # Fig. 6 shows the datasets with more than 500 training rows


@claim("NPSVOR", "NP-10", studies=STUDY,
       text="NPSVOR's cross-validation is slower than binary decomposition methods on small "
            "problems but quite efficient on larger ones",
       rule="(our reading) Per dataset the median cv_time_s; binary decompositions BD = "
            "{SVC1V1, SVC1VA, CSSVC, SVMOP}; small = <= 500 training rows, large = > 500. (a) "
            "On small datasets the median over datasets of cv_time(NPSVOR)/cv_time(m) > 1 for "
            ">= 3 of the 4 BD methods; (b) on large datasets NPSVOR's average cv_time rank "
            "among the 10 methods <= 3; (c) Spearman rho between n_train and log(cv_time(NPSVOR)"
            " / median cv_time(BD)) over the 23 datasets < 0. CONFIRMED if (a), (b), (c); "
            "PARTIAL if (a) and (c); otherwise NOT CONFIRMED. Needs all 23 datasets timed.")
def np_10(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C, Table V and Fig. 6: "although NPSVOR is slower
    than binary decomposition methods on small problems, it is quite efficient on larger
    problems". Times are this machine's, compared only as ratios and ranks."""
    results = study.results
    times, short = cell_matrix(results, "cv_time_s", (PROPOSED, *BASELINES), stat="median")
    times = times.where(times > 0)
    sizes = (ev.rows_of(results, None, solver=PROPOSED).groupby("dataset")["n_labeled"]
             .median().reindex(times.index))
    needed = [PROPOSED, *BINARY_DECOMPOSITIONS]
    timed = times.dropna(subset=needed)
    missing = max(PAPER_DATASETS, len(times)) - len(timed)
    if missing:
        lacking = "; ".join(f"{d}: {why}" for d, why in list(short.items())[:3])
        return undecidable(f"{missing} of the {max(PAPER_DATASETS, len(times))} datasets lack "
                           f"a CV time of NPSVOR and the four binary decompositions"
                           + (f" ({lacking})" if lacking else "")
                           + "; every dataset needs tuned runs (cv_time_s > 0)",
                           f"{len(timed)} datasets timed")
    small = timed[sizes[timed.index] <= SMALL]
    ratios = {m: float((small[PROPOSED] / small[m]).median()) for m in BINARY_DECOMPOSITIONS}
    with_opbe = sum(v > 1 for v in ratios.values()) + (
        bool((small[PROPOSED] / small["opbe"]).median() > 1) if small["opbe"].notna().all()
        else 0)
    a = sum(v > 1 for v in ratios.values()) >= 3 if len(small) else None
    large = times[sizes[times.index] > SMALL]
    if len(large) and large.notna().all(axis=None):
        b_rank = float(rank_rows(large, True)[PROPOSED].mean())
        b = b_rank <= 3
    else:  # a large dataset where some method has no CV time: its rank is unknown
        b_rank, b = math.nan, None
    trend = np.log(timed[PROPOSED] / timed[list(BINARY_DECOMPOSITIONS)].median(axis=1))
    rho = spearman(sizes[timed.index].to_numpy(float), trend.to_numpy(float))
    c = bool(rho < 0) if np.isfinite(rho) else None
    if a is False or c is False:
        verdict = NOT_CONFIRMED
    elif a is None or c is None or b is None:
        verdict = UNDECIDABLE
    else:
        verdict = CONFIRMED if b else PARTIAL
    statistic = (f"(a) slower than {sum(v > 1 for v in ratios.values())}/4 BD on small; "
                 f"(b) rank on large {ev.fmt(b_rank, 3)}; (c) rho {ev.fmt(rho, 3)}")
    evidence = (f"{len(small)} small, {len(large)} large datasets; median time ratio "
                f"NPSVOR/m on small: "
                + ", ".join(f"{m} {ev.fmt(v, 3)}" for m, v in ratios.items())
                + f" (with OPBE: slower than {with_opbe}/5); (a) {yes_no(a)}, (b) {yes_no(b)}, "
                f"(c) {yes_no(c)}")
    return Outcome(verdict, statistic, evidence, "interpretation")


def tuned_variant(results: pd.DataFrame) -> str | None:
    """A second NPSVOR entry of the study (a label other than ``npsvor`` running the npsvor
    solver), the run that would tune eps; None without one."""
    names = results.get("solver_name", results["solver"]).astype(str)
    labels = pd.unique(results.loc[names == PROPOSED, "solver"].astype(str))
    others = [label for label in labels if label != PROPOSED]
    return others[0] if others else None


@claim("NPSVOR", "NP-15", studies=STUDY,
       text="Tuning eps on an interval and allowing C1 != C2 could further improve NPSVOR",
       rule="Needs an extra run: NPSVOR with eps tuned over {0.1, 0.15, ..., 0.3} (and "
            "separate C1, C2 grids) against npsvor (eps = 0.2, C1 = C2). One-sided Wilcoxon "
            "signed-rank test over the per-dataset means (>= 80 % of the 23 datasets), for MAE "
            "and for MZE. CONFIRMED if the tuned variant is better with p < 0.05 on at least one "
            "metric and not significantly worse on the other; otherwise NOT CONFIRMED; "
            "UNDECIDABLE without the variant's runs.")
def np_15(study: Study) -> Outcome:
    """Wang et al., IEEE T-Cyb 2017, Sec. V-C: "if more computational efforts can be paid for
    the selection of parameters C1, C2, and eps, such as tuning eps on a certain interval or
    allowing C1 != C2, [the] generalization performance could be further improved". The paper
    runs no such experiment; ordauc's npsvor takes one C (C1 = C2 = C), so only the eps half
    can be run."""
    results = study.results
    variant = tuned_variant(results)
    if variant is None:
        return undecidable(
            "no tuned-eps NPSVOR variant in the runs: add to configs/npsvor.yaml a second entry "
            "running the npsvor solver (e.g. `npsvor_tuned: {solver: npsvor, grid: {C: ..., "
            "kappa: ..., eps: [0.1, 0.15, 0.2, 0.25, 0.3]}}`); allowing C1 != C2 also needs "
            "separate C1, C2 parameters, which ordauc's npsvor does not have (one C)",
            "no variant")
    found, texts = {}, []
    need = math.ceil(ev.PAIRED_SHARE * PAPER_DATASETS)
    for metric in ("mae", "mze"):
        values, _ = cell_matrix(results, metric, (variant, PROPOSED))
        both = values.dropna()
        pair = ev.Paired(both[variant].to_numpy(float), both[PROPOSED].to_numpy(float),
                         PAPER_DATASETS, metric)
        if pair.n < need:
            return undecidable(f"{variant} and npsvor both have means on {pair.n} datasets; "
                               f"the test over datasets needs >= {need} of the paper's "
                               f"{PAPER_DATASETS}", f"{pair.n} datasets paired")
        found[metric] = (pair.better(), pair.worse())
        texts.append(f"{metric.upper()} {variant} - npsvor: {pair.text()}")
    better = [m for m, (b, _) in found.items() if b]
    worse = [m for m, (_, w) in found.items() if w]
    verdict = CONFIRMED if better and not worse else NOT_CONFIRMED
    statistic = (f"{variant} better on {', '.join(better) or 'neither'}, worse on "
                 f"{', '.join(worse) or 'neither'}")
    return Outcome(verdict, statistic, "; ".join(texts) + "; C1 = C2 in both (one C)",
                   "interpretation")
