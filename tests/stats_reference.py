"""A plain reference for the statistics tests of tests/core and tests/report: the exact
signed-rank p found by listing every sign flip, slow but beyond doubt."""

from __future__ import annotations

import itertools

import numpy as np
from scipy import stats as ss


def brute_force_p(d: np.ndarray, alternative: str = "two-sided") -> float:
    """The signed-rank p by listing all 2^n sign flips of the average ranks (zeros dropped)."""
    d = np.asarray(d, dtype=np.float64)
    d = d[d != 0]
    ranks = ss.rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    sums = np.array([ranks[np.array(signs, dtype=bool)].sum()
                     for signs in itertools.product([0, 1], repeat=d.size)])
    upper = np.mean(sums >= observed - 1e-9)
    lower = np.mean(sums <= observed + 1e-9)
    return {"greater": upper, "less": lower,
            "two-sided": min(1.0, 2 * min(upper, lower))}[alternative]
