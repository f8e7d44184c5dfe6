"""The statistics kernel against plain references: the signed-rank p by enumerating every sign
flip, scipy's exact test where there are no ties, scipy's permutation test, and Demšar's
tabulated critical values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as ss
from stats_reference import brute_force_p

from ordauc import stats


def test_four_or_five_equal_differences_give_the_exact_minimum():
    assert stats.signed_rank_p([0.1] * 4) == 0.125
    assert stats.signed_rank_p([0.1] * 5) == 0.0625
    assert stats.signed_rank_p([0.1] * 5, "greater") == 0.03125
    assert stats.signed_rank_p([-0.1] * 5, "greater") == 1.0
    # the normal approximation scipy falls back to with ties goes below the exact minimum
    assert ss.wilcoxon([0.1] * 4, method="approx").pvalue < 0.05


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alternative", stats.ALTERNATIVES)
def test_exact_with_ties_equals_enumerating_every_sign_flip(seed: int, alternative: str):
    rng = np.random.default_rng(seed)
    d = rng.integers(-3, 4, size=int(rng.integers(3, 13))).astype(float)  # ties and zeros
    if not np.any(d):
        d[0] = 1.0
    assert stats.signed_rank_p(d, alternative) == pytest.approx(brute_force_p(d, alternative),
                                                               abs=1e-12)


@pytest.mark.parametrize("n", [6, 15, 25])
def test_without_ties_it_is_scipys_exact_test(n: int):
    d = np.random.default_rng(n).normal(size=n)
    for alternative in stats.ALTERNATIVES:
        assert stats.signed_rank_p(d, alternative) == pytest.approx(
            ss.wilcoxon(d, method="exact", alternative=alternative).pvalue, rel=1e-9)


def test_it_agrees_with_scipys_permutation_test_on_tied_data():
    d = np.array([0.02, 0.02, -0.01, 0.02, 0.03, 0.01, 0.02, -0.02, 0.01])
    ranks = ss.rankdata(np.abs(d))

    def t_plus(x: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.sum(ranks * (x > 0), axis=axis)

    ref = ss.permutation_test((d,), t_plus, permutation_type="samples", n_resamples=np.inf,
                              alternative="greater")
    assert stats.signed_rank_p(d, "greater") == pytest.approx(ref.pvalue, rel=1e-9)


def test_large_samples_use_the_normal_approximation():
    d = np.random.default_rng(0).normal(0.1, 1, size=stats.EXACT_MAX + 10)
    test = stats.signed_rank(d)
    assert not test.exact
    assert test.p_value == pytest.approx(ss.wilcoxon(d, method="approx").pvalue)
    assert stats.signed_rank(d[:50]).exact


def test_degenerate_inputs():
    assert stats.signed_rank_p([0.0, 0.0, 0.0]) == 1.0
    assert math.isnan(stats.signed_rank_p([]))
    assert math.isnan(stats.signed_rank_p([np.nan]))
    with pytest.raises(ValueError, match="alternative"):
        stats.signed_rank_p([1.0], "up")


def test_smallest_attainable_p_and_power():
    assert stats.min_p(4) == 0.125 and stats.min_p(5) == 0.0625
    assert stats.min_p(5, "greater") == 0.03125
    assert not stats.can_reject(5) and stats.can_reject(6)
    assert not stats.can_reject(4, alternative="less") and stats.can_reject(5, alternative="less")
    # the bound is attained: every difference of one sign
    for n in range(1, 9):
        assert stats.signed_rank_p(np.arange(1, n + 1)) == pytest.approx(stats.min_p(n))


def test_pair_outcome_marks_draws_that_could_not_be_anything_else():
    a, b = np.array([1.0, 2, 3, 4, 5]), np.zeros(5)
    five = stats.pair_outcome(a, b, lower_is_better=True)
    assert (five.outcome, five.decidable) == ("draw", False)
    six = stats.pair_outcome(np.arange(1.0, 7), np.zeros(6), lower_is_better=True)
    assert (six.outcome, six.decidable) == ("loss", True)
    assert stats.pair_outcome(np.arange(1.0, 7), np.zeros(6), lower_is_better=False).outcome == \
        "win"


def test_critical_differences_match_demsar_tables():
    # Demšar (2006) Table 5: q_0.05 = 3.164 (Nemenyi) and 2.773 (Bonferroni-Dunn) for k = 10
    assert stats.nemenyi_q(10) == pytest.approx(3.164, abs=5e-4)
    assert stats.bonferroni_dunn_cd(10, 23) == pytest.approx(2.773 * math.sqrt(110 / 138),
                                                             abs=1e-3)
    assert stats.bonferroni_dunn_cd(10, 23) == pytest.approx(2.476, abs=1e-3)
    assert stats.nemenyi_cd(10, 23) == pytest.approx(2.825, abs=1e-3)


def test_friedman_and_iman_davenport():
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(12, 4)) + np.array([0.0, 0.5, 1.0, 1.5])
    test = stats.friedman_test(matrix)
    ref = ss.friedmanchisquare(*matrix.T)
    assert test.statistic == pytest.approx(ref.statistic)
    n, k = matrix.shape
    f = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert test.f_statistic == pytest.approx(f)
    assert test.f_p_value == pytest.approx(ss.f.sf(f, k - 1, (k - 1) * (n - 1)))
    assert np.allclose(test.average_ranks, ss.rankdata(matrix, axis=1).mean(axis=0))
    assert math.isnan(stats.friedman_test(matrix[:, :2]).statistic)


def test_wilcoxon_holm_uses_the_exact_test_and_holms_steps():
    matrix = np.array([[0.1, 0.2, 0.3], [0.2, 0.3, 0.5], [0.1, 0.4, 0.2], [0.3, 0.5, 0.6],
                       [0.2, 0.3, 0.1], [0.1, 0.3, 0.4], [0.0, 0.2, 0.3], [0.2, 0.1, 0.5]])
    out = stats.wilcoxon_holm(matrix)
    raw = [brute_force_p(matrix[:, i] - matrix[:, j]) for i, j in [(0, 1), (0, 2), (1, 2)]]
    order = np.argsort(raw)
    expected = np.empty(3)
    running = 0.0
    for step, idx in enumerate(order):
        running = max(running, min(1.0, (3 - step) * raw[idx]))
        expected[idx] = running
    assert [out[0, 1], out[0, 2], out[1, 2]] == pytest.approx(list(expected))
    assert np.allclose(out, out.T) and np.all(np.diag(out) == 1)
