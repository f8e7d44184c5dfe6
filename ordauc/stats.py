"""The statistics kernel: every p-value the report's tables and the claims' verdicts print comes
from here, so a table and a claim never disagree about the same comparison.

* :func:`signed_rank`: the Wilcoxon signed-rank test of paired differences, zero differences
  dropped (Wilcoxon's convention), **exact also with ties**: the null distribution of the sum of
  positive (average) ranks is enumerated over all 2^n sign flips by dynamic programming on the
  doubled ranks (which are integers), so four equal differences give the exact two-sided
  p = 0.125, not the normal approximation's 0.045. Above :data:`EXACT_MAX` non-zero differences
  the normal approximation with the tie correction is used (scipy's).
* :func:`min_p`: the smallest p a signed-rank comparison of n pairs can reach (1/2^n one-sided,
  2/2^n two-sided); :func:`can_reject` says whether it is below alpha. Five pairs can never
  reach a two-sided 0.05.
* :func:`pair_outcome`: win / draw / loss of one paired comparison, and whether it was
  *decidable* at all (a draw that could not have been anything else is not evidence of a tie).
* :func:`friedman_test` with the Iman-Davenport F, :func:`nemenyi_cd` and
  :func:`bonferroni_dunn_cd` (Demšar, JMLR 7, 2006, Sec. 3.2.2), and :func:`wilcoxon_holm`
  (pairwise signed-rank tests over the datasets, Holm's step-down adjustment, as Benavoli et
  al., JMLR 17, 2016, recommend).

Everything takes and returns plain arrays and numbers; nothing here knows a results table.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats as ss

ALPHA = 0.05
EXACT_MAX = 200  # exact null distribution up to this many non-zero differences
ALTERNATIVES = ("two-sided", "greater", "less")
WIN, DRAW, LOSS, NOT_COMPARED = "win", "draw", "loss", "not compared"


@dataclass(frozen=True)
class SignedRank:
    """One Wilcoxon signed-rank test of differences ``d`` (``greater``: d tends to be > 0).

    ``n`` counts the finite differences, ``n_nonzero`` those left after dropping zeros;
    ``statistic`` is the sum of the ranks of the positive differences (T+); ``exact`` says
    whether the p-value is the exact permutation one.
    """

    n: int
    n_nonzero: int
    statistic: float
    p_value: float
    alternative: str
    exact: bool


def _check_alternative(alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")


def min_p(n: int, alternative: str = "two-sided") -> float:
    """The smallest p-value a signed-rank test of ``n`` pairs can give: every difference of
    one sign, 1/2^n one-sided and 2/2^n two-sided (1 without pairs)."""
    _check_alternative(alternative)
    if n <= 0:
        return 1.0
    one = 0.5 ** n
    return min(1.0, 2.0 * one) if alternative == "two-sided" else one


def can_reject(n: int, alpha: float = ALPHA, alternative: str = "two-sided") -> bool:
    """Whether a signed-rank comparison of ``n`` pairs can reach p < ``alpha`` at all."""
    return min_p(n, alternative) < alpha


@functools.lru_cache(maxsize=1024)
def _null_tails(doubled: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(P(2 T+ >= s), P(2 T+ <= s)) for s = 0 .. sum(doubled), each sign +/- with probability
    1/2. Cached on the doubled ranks: without ties they are always 2, 4, ..., 2n, so a table of
    many comparisons of the same size enumerates its null once."""
    total = int(sum(doubled))
    prob = np.zeros(total + 1)
    prob[0] = 1.0
    reach = 0
    for step in doubled:
        shifted = np.zeros_like(prob)
        shifted[step:reach + step + 1] = prob[:reach + 1]
        prob[:reach + 1] *= 0.5
        prob = prob + 0.5 * shifted
        reach += int(step)
    upper = prob[::-1].cumsum()[::-1]
    lower = prob.cumsum()
    upper.flags.writeable = lower.flags.writeable = False
    return upper, lower


def signed_rank(d: np.ndarray | list[float], alternative: str = "two-sided") -> SignedRank:
    """The Wilcoxon signed-rank test of the differences ``d`` (see the module docstring).

    Non-finite differences are ignored, zeros dropped; every difference zero gives p = 1, no
    finite difference p = NaN.
    """
    _check_alternative(alternative)
    d = np.asarray(d, dtype=np.float64).ravel()
    d = d[np.isfinite(d)]
    nonzero = d[d != 0]
    if d.size == 0:
        return SignedRank(0, 0, math.nan, math.nan, alternative, True)
    if nonzero.size == 0:
        return SignedRank(int(d.size), 0, 0.0, 1.0, alternative, True)
    ranks = ss.rankdata(np.abs(nonzero))  # average ranks of tied magnitudes
    t_plus = float(ranks[nonzero > 0].sum())
    if nonzero.size > EXACT_MAX:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(ss.wilcoxon(nonzero, alternative=alternative, method="approx").pvalue)
        return SignedRank(int(d.size), int(nonzero.size), t_plus, p, alternative, False)
    doubled = tuple(sorted(int(v) for v in np.rint(2 * ranks)))
    observed = int(round(2 * t_plus))
    tails = _null_tails(doubled)
    upper = float(tails[0][observed])  # P(T+ >= observed): evidence for d > 0
    lower = float(tails[1][observed])  # P(T+ <= observed): evidence for d < 0
    p = {"greater": upper, "less": lower, "two-sided": min(1.0, 2.0 * min(upper, lower))}
    return SignedRank(int(d.size), int(nonzero.size), t_plus, min(1.0, p[alternative]),
                      alternative, True)


def signed_rank_p(d: np.ndarray | list[float], alternative: str = "two-sided") -> float:
    """The p-value of :func:`signed_rank`."""
    return signed_rank(d, alternative).p_value


@dataclass(frozen=True)
class PairOutcome:
    """One paired comparison of ``a`` against ``b`` (pairs with a NaN dropped).

    ``outcome`` is for ``a``: ``win`` (significantly better at ``alpha``, two-sided), ``draw``,
    ``loss``, or ``not compared`` without pairs. ``decidable`` is False where ``n_pairs`` is
    too small for any outcome but a draw (:func:`can_reject`): such a draw is no evidence of a
    tie. The direction of a significant difference is the side the signed ranks favour, so it is
    defined even when the median difference is zero.
    """

    n_pairs: int
    statistic: float
    p_value: float
    outcome: str
    median_difference: float
    decidable: bool


def pair_outcome(a: np.ndarray, b: np.ndarray, lower_is_better: bool,
                 alpha: float = ALPHA) -> PairOutcome:
    """Win, draw or loss of ``a`` against ``b`` by the two-sided exact signed-rank test."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    keep = np.isfinite(a) & np.isfinite(b)
    diff = a[keep] - b[keep]
    if diff.size == 0:
        return PairOutcome(0, math.nan, math.nan, NOT_COMPARED, math.nan, False)
    test = signed_rank(diff)
    decidable = can_reject(int(diff.size), alpha)
    median = float(np.median(diff))
    if not test.p_value < alpha:
        return PairOutcome(int(diff.size), test.statistic, test.p_value, DRAW, median, decidable)
    a_lower = signed_rank_p(diff, "less") < signed_rank_p(diff, "greater")
    outcome = WIN if a_lower == lower_is_better else LOSS
    return PairOutcome(int(diff.size), test.statistic, test.p_value, outcome, median, decidable)


# ---------------------------------------------------------------------------------------------
# Over datasets: Friedman, critical differences, Wilcoxon-Holm


@dataclass(frozen=True)
class Friedman:
    """The Friedman test of an N x k matrix (datasets x methods), lower = better.

    ``average_ranks`` (1 = best, ties averaged), ``statistic`` (chi-square), ``p_value`` and
    the Iman-Davenport correction ``f_statistic``, ``f_p_value`` (Demšar, Eq. 2); NaN where the
    test needs more (k >= 3, N >= 2) or every dataset ranks all methods equal.
    """

    average_ranks: np.ndarray
    statistic: float
    p_value: float
    f_statistic: float
    f_p_value: float


def ranks_of(matrix: np.ndarray) -> np.ndarray:
    """Per-row ranks of ``matrix`` (lower value = rank 1, ties averaged)."""
    matrix = np.asarray(matrix, dtype=np.float64).round(12)
    return np.vstack([ss.rankdata(row) for row in matrix]) if matrix.size else matrix


def friedman_test(matrix: np.ndarray) -> Friedman:
    """Friedman's test with the Iman-Davenport F on ``matrix`` (rows: datasets, lower better)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    n, k = matrix.shape if matrix.ndim == 2 else (0, 0)
    ranks = ranks_of(matrix)
    average = ranks.mean(axis=0) if n else np.full(k, math.nan)
    nan = Friedman(average, math.nan, math.nan, math.nan, math.nan)
    if k < 3 or n < 2:
        return nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = ss.friedmanchisquare(*matrix.round(12).T)
    chi2, p = float(test.statistic), float(test.pvalue)
    if not math.isfinite(chi2):
        return nan
    denom = n * (k - 1) - chi2
    f = (n - 1) * chi2 / denom if denom > 0 else math.inf
    f_p = float(ss.f.sf(f, k - 1, (k - 1) * (n - 1))) if math.isfinite(f) else 0.0
    return Friedman(average, chi2, p, float(f), f_p)


def nemenyi_q(k: int, alpha: float = ALPHA) -> float:
    """Demšar's q_alpha for k methods: studentised range quantile (df = inf) / sqrt(2)."""
    if k < 2:
        return math.nan
    return float(ss.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def _rank_se(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_cd(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi critical difference of average ranks (all pairs): q_alpha sqrt(k(k+1)/(6N))."""
    if k < 2 or n < 1:
        return math.nan
    return nemenyi_q(k, alpha) * _rank_se(k, n)


def bonferroni_dunn_cd(k: int, n: int, alpha: float = ALPHA) -> float:
    """Bonferroni-Dunn critical difference against one control: the two-sided normal quantile
    at alpha / (k - 1) times sqrt(k(k+1)/(6N)) (2.773 x 0.893 = 2.476 for k = 10, N = 23)."""
    if k < 2 or n < 1:
        return math.nan
    q = float(ss.norm.ppf(1.0 - alpha / (2.0 * (k - 1))))
    return q * _rank_se(k, n)


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a vector of p-values (statsmodels' ``multipletests``)."""
    from statsmodels.stats.multitest import multipletests

    pvalues = np.asarray(pvalues, dtype=np.float64)
    out = np.full(pvalues.shape, math.nan)
    finite = np.isfinite(pvalues)
    if finite.any():
        out[finite] = multipletests(pvalues[finite], method="holm")[1]
    return out


def wilcoxon_holm(matrix: np.ndarray) -> np.ndarray:
    """k x k Holm-adjusted two-sided p-values of the exact signed-rank test between every pair
    of columns of ``matrix`` (rows: datasets, paired); 1 on the diagonal."""
    matrix = np.asarray(matrix, dtype=np.float64)
    k = matrix.shape[1]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    raw = np.array([signed_rank_p(matrix[:, i] - matrix[:, j]) for i, j in pairs])
    adjusted = holm(raw) if pairs else raw
    out = np.ones((k, k))
    for (i, j), p in zip(pairs, adjusted, strict=True):
        out[i, j] = out[j, i] = p
    return out
