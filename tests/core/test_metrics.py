"""Metrics against scikit-learn's roc_auc_score and brute-force pair counts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from ordauc.metrics import auc, c_index, mae, mze, ordinal_auc, subproblem_aucs


@pytest.mark.parametrize("seed", range(5))
def test_ordinal_auc_agrees_with_roc_auc_score_per_subproblem(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(1, 6, 500)
    s = np.round(y + rng.normal(0, 2, 500))  # rounding makes ties
    per = subproblem_aucs(y, s, 5)
    expected = [roc_auc_score(y > j, s) for j in range(1, 5)]
    np.testing.assert_allclose(per, expected, rtol=1e-12)
    assert ordinal_auc(y, s) == pytest.approx(np.mean(expected))
    cols = np.column_stack([s + j for j in range(4)])  # per-subproblem score columns
    np.testing.assert_allclose(subproblem_aucs(y, cols, 5), expected)


def test_c_index_counts_concordant_pairs_with_ties_half():
    rng = np.random.default_rng(3)
    y = rng.integers(1, 4, 80)
    s = np.round(rng.normal(size=80) + y, 1)
    num = den = 0.0
    for i in range(80):
        for j in range(80):
            if y[i] < y[j]:
                den += 1
                num += (s[i] < s[j]) + 0.5 * (s[i] == s[j])
    assert c_index(y, s) == pytest.approx(num / den)


def test_auc_edge_cases():
    assert auc([0, 1], [0.0, 1.0]) == 1.0
    assert auc([0, 1], [1.0, 0.0]) == 0.0
    assert auc([0, 1, 0, 1], [1, 1, 1, 1]) == 0.5
    assert np.isnan(auc([1, 1], [0.2, 0.3]))


def test_mze_mae():
    assert mze([1, 2, 3, 4], [1, 2, 4, 4]) == 0.25
    assert mae([1, 2, 3, 4], [2, 2, 5, 4]) == 0.75
