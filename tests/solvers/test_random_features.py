"""Random Fourier feature blocks: pure functions of (seed, index), unbiased for the kernel."""

from __future__ import annotations

import numpy as np
import pytest

from ordauc.solvers.dsg.random_features import FeatureBlocks
from ordauc.solvers.kernel.samult import gaussian_kernel


def test_block_is_a_pure_function_of_seed_and_index():
    a = FeatureBlocks(seed=9, n_features_in=5, block_size=8, sigma=1.0)
    b = FeatureBlocks(seed=9, n_features_in=5, block_size=8, sigma=1.0, cache_bytes=0)
    for i in (3, 0, 7, 3):  # any order, cached or not
        assert np.array_equal(a.block(i)[0], b.block(i)[0])
    assert not np.array_equal(a.draw(1)[0], a.draw(2)[0])
    assert not np.array_equal(a.draw(1)[0], FeatureBlocks(10, 5, 8, 1.0).draw(1)[0])


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
def test_features_are_unbiased_for_the_gaussian_kernel(feature_map):
    rng = np.random.default_rng(0)
    X = rng.random((6, 4)).astype(np.float32)
    sigma = 2.0
    blocks = FeatureBlocks(seed=1, n_features_in=4, block_size=64, sigma=sigma,
                           feature_map=feature_map)
    n_blocks = 400
    per_block = np.empty((n_blocks, 6, 6))
    for i in range(n_blocks):
        F = blocks.features(X, i).astype(np.float64) * blocks.norm
        per_block[i] = F @ F.T
    # Each block's estimate is unbiased; their mean must sit within 5 standard errors of k.
    # A wrong frequency scale (e.g. N(0, sigma I)) misses by dozens of standard errors.
    mean = per_block.mean(axis=0)
    stderr = per_block.std(axis=0, ddof=1) / np.sqrt(n_blocks) + 1e-12
    z = np.abs(mean - gaussian_kernel(X, X, sigma)) / stderr
    assert z.max() < 5.0


def test_a_wrong_kernel_width_is_detected():
    rng = np.random.default_rng(0)
    X = rng.random((6, 4)).astype(np.float32)
    blocks = FeatureBlocks(seed=1, n_features_in=4, block_size=64, sigma=2.0)
    per_block = np.stack([(blocks.features(X, i).astype(np.float64) * blocks.norm)
                          @ (blocks.features(X, i).astype(np.float64) * blocks.norm).T
                          for i in range(400)])
    stderr = per_block.std(axis=0, ddof=1) / np.sqrt(400) + 1e-12
    z = np.abs(per_block.mean(axis=0) - gaussian_kernel(X, X, 1.0)) / stderr
    assert z.max() > 5.0


@pytest.mark.parametrize("feature_map", ["cos_sin", "cos_phase"])
def test_evaluate_matches_the_sum_over_blocks(feature_map):
    rng = np.random.default_rng(1)
    X = rng.random((300, 5)).astype(np.float32)
    blocks = FeatureBlocks(seed=2, n_features_in=5, block_size=32, sigma=0.7,
                           feature_map=feature_map)
    coef = rng.normal(size=(40, blocks.width))
    expected = sum(blocks.features(X, i).astype(np.float64) @ coef[i] for i in range(40))
    got = blocks.evaluate(X, coef, scale=0.5)
    np.testing.assert_allclose(got, 0.5 * blocks.norm * expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(blocks.evaluate(X, coef, n_blocks=10),
                               blocks.norm * sum(blocks.features(X, i).astype(np.float64)
                                                 @ coef[i] for i in range(10)),
                               rtol=1e-4, atol=1e-4)
