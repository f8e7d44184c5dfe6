"""The compiled cosine or numpy's: chosen per process by timing, or fixed by ORDAUC_COSINE."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ordauc.solvers.dsg import trig


@pytest.fixture
def args() -> np.ndarray:
    rng = np.random.default_rng(3)
    return (rng.standard_normal((2, 16, 700)) * 5.0).astype(np.float32)


def _outputs(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    feats = np.empty((z.shape[0], 2 * z.shape[1], z.shape[2]), np.float32)
    return trig.cos(z, np.empty_like(z)), trig.sincos_blocks(z, feats)


def _fresh(monkeypatch, value: str | None) -> None:
    monkeypatch.setattr(trig, "_CHOSEN", {})
    if value is None:
        monkeypatch.delenv(trig.ENVIRONMENT, raising=False)
    else:
        monkeypatch.setenv(trig.ENVIRONMENT, value)


def test_numpy_fixed_by_the_environment_is_numpy_bitwise(monkeypatch, args) -> None:
    _fresh(monkeypatch, "numpy")
    c, feats = _outputs(args)
    m = args.shape[1]
    assert np.array_equal(c, np.cos(args))
    assert np.array_equal(feats[:, :m], np.cos(args))
    assert np.array_equal(feats[:, m:], np.sin(args))


def test_compiled_fixed_by_the_environment_is_the_loop(monkeypatch, args) -> None:
    _fresh(monkeypatch, "compiled")
    c, feats = _outputs(args)
    m = args.shape[1]
    exact = args.astype(np.float64)
    assert np.abs(c - np.cos(exact)).max() < 1.2e-7
    # the loop's own rounding: it is not numpy's in every value
    assert not np.array_equal(c, np.cos(args))
    assert not np.array_equal(feats[:, m:], np.sin(args))


def test_auto_takes_numpy_only_where_it_is_clearly_faster(monkeypatch, args) -> None:
    _fresh(monkeypatch, None)
    calls = []

    def ratios() -> dict[str, float]:
        calls.append(1)
        return {"cos": 0.5, "sincos": 0.9}  # numpy's cos twice as fast; sincos within margin

    monkeypatch.setattr(trig, "timed_ratios", ratios)
    c, feats = _outputs(args)
    _outputs(args)
    assert calls == [1]  # timed once per process
    assert np.array_equal(c, np.cos(args))
    assert not np.array_equal(feats[:, args.shape[1]:], np.sin(args))


def test_the_timing_compares_both_at_the_engines_shapes() -> None:
    ratios = trig.timed_ratios(rows=256, m=16, blocks=2)
    assert set(ratios) == {"cos", "sincos"}
    assert all(math.isfinite(r) and r > 0 for r in ratios.values())
