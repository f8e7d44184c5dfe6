"""NPSVOR grid points that differ only in their ADMM tolerances and cap share one trajectory:
every point's model is bitwise its lone fit, and the iterations are run once, not once per
point (the NPSVOR paper's Fig. 4 sweep: 11 x 11 tolerances)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from test_npsvor import FITTED, _bitwise
from test_npsvor import _assert_is_lone_fit as _assert_lone

import ordauc.solvers.ordinal.npsvor as npsvor_module
from ordauc.solvers.ordinal.npsvor import NPSVOR, RankProblems, admm, admm_path, kernel_factor

TOLERANCES = [1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]


def _data(n: int = 70, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Four ranks along a noisy direction, a few unlabeled rows (ignored by NPSVOR)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.digitize(X @ np.array([1.0, -0.5, 0.2]) + 0.4 * rng.normal(size=n),
                    [-0.8, 0.0, 0.8]) + 1
    y[::9] = -1
    return X, y


def _count_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    steps: list[int] = []
    real = npsvor_module._Iterations.step

    def step(self: object) -> None:
        steps.append(1)
        real(self)

    monkeypatch.setattr(npsvor_module._Iterations, "step", step)
    return steps


def test_a_tolerance_grid_is_one_trajectory_and_every_point_its_lone_fit(monkeypatch) -> None:
    X, y = _data()
    X_new = np.random.default_rng(1).normal(size=(30, 3))
    base = NPSVOR(C=10.0, kappa=0.5, eps=0.2, max_iter=400)
    points = [dict(tol_abs=a, tol_rel=r) for a in TOLERANCES for r in TOLERANCES]
    points += [dict(tol_abs=1e-3, tol_rel=1e-3, max_iter=m) for m in (1, 7, 40)]
    steps = _count_steps(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        models = base.fit_grid(X, y, points)
    shared_steps = len(steps)
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lones = [clone(base).set_params(**p).fit(X, y) for p in points]
    for model, lone in zip(models, lones, strict=True):
        _assert_lone(model, lone, X_new)
    iters = [lone.n_iter_ for lone in lones]
    # one trajectory, as long as the longest point's: not the sum over the 67 points
    assert shared_steps == max(iters) == 400 and sum(iters) > 10 * shared_steps
    assert len(set(iters)) > 5 and min(iters) == 1  # the points really stop apart
    assert any(m.converged_ for m in models) and not all(m.converged_ for m in models)
    assert all(m.fit_seconds_ > 0 for m in models)


def test_points_of_another_c_or_eps_keep_their_own_trajectory(monkeypatch) -> None:
    X, y = _data(seed=8)
    X_new = np.random.default_rng(2).normal(size=(20, 3))
    points = [dict(C=C, eps=eps, tol_abs=t, tol_rel=t) for C in (1.0, 10.0)
              for eps in (0.0, 0.2) for t in (1e-6, 1e-2, 1.0)]
    points.append(dict(C=3.0, eps=0.1))  # alone with its (C, eps): its own ADMM
    steps = _count_steps(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        models = NPSVOR(kappa=0.7, max_iter=300).fit_grid(X, y, points)
    shared_steps = len(steps)
    monkeypatch.undo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lones = [NPSVOR(kappa=0.7, max_iter=300).set_params(**p).fit(X, y) for p in points]
    for model, lone in zip(models, lones, strict=True):
        _assert_lone(model, lone, X_new)
    # per (C, eps): the longest of its three points; plus the lone point's own run
    longest = sum(max(lones[i].n_iter_ for i in range(g, g + 3)) for g in range(0, 12, 3))
    assert shared_steps == longest + lones[-1].n_iter_


def test_admm_path_stops_each_rule_where_admm_stops_it() -> None:
    X, y = _data(seed=11)
    keep = y != -1
    z = y[keep]
    factor = kernel_factor(X[keep], 0.5, 2.0)
    problems = RankProblems.build(z, 4, 5.0, 0.1)
    rules = [(1e-4, 1e-4, 500), (0.0, 0.0, 25), (1e-2, 1e-3, 500), (1e-4, 1e-4, 500),
             (1.0, 1.0, 500)]
    got = dict(admm_path(factor, problems, 2.0, rules))
    assert sorted(got) == list(range(len(rules)))
    for i, rule in enumerate(rules):
        lone = admm(factor, problems, 2.0, *rule)
        for name in ("z", "beta", "primal", "dual"):
            _bitwise(getattr(got[i], name), getattr(lone, name), name)
        assert (got[i].n_iter, got[i].converged) == (lone.n_iter, lone.converged)
    assert got[1].n_iter == 25 and not got[1].converged


def test_each_model_of_a_shared_trajectory_warns_when_it_is_produced() -> None:
    """A caller that reads warnings model by model (the runner's sweep task) sees exactly the
    ConvergenceWarning each point's lone fit emits."""
    X, y = _data(seed=3)
    points = [dict(tol_abs=0.0, tol_rel=0.0), dict(tol_abs=1e-2, tol_rel=1e-2),
              dict(tol_abs=0.0, tol_rel=0.0, max_iter=30), dict(tol_abs=1.0, tol_rel=1.0)]
    base = NPSVOR(C=2.0, kappa=0.5, max_iter=200)
    seen = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = base.iter_fit_grid(X, y, points)
        while True:
            mark = len(caught)
            try:
                i, model = next(run)
            except StopIteration:
                break
            seen[i] = [str(w.message) for w in caught[mark:]]
    for i, point in enumerate(points):
        with warnings.catch_warnings(record=True) as lone:
            warnings.simplefilter("always")
            clone(base).set_params(**point).fit(X, y)
        assert seen[i] == [str(w.message) for w in lone], point
    assert [len(seen[i]) for i in range(4)] == [1, 0, 1, 0]


def test_models_stopped_at_one_iterate_score_rows_once_and_as_their_lone_fits(
        monkeypatch) -> None:
    """Points that stop at the same iterate (here every point capped at 60 iterations) are one
    function: the pass computes their biases once, and rows one of them scored are not scored
    again by the others; rows changed in place are scored anew."""
    X, y = _data(seed=4)
    X_new = np.random.default_rng(6).normal(size=(25, 3))
    base = NPSVOR(C=5.0, kappa=0.5, max_iter=60)
    points = [dict(tol_abs=a, tol_rel=r) for a in (0.0, 1e-12) for r in (0.0, 1e-12)]
    points.append(dict(tol_abs=1.0, tol_rel=1.0))  # stops at once: not a twin
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        models = base.fit_grid(X, y, points)
        lones = [clone(base).set_params(**p).fit(X, y) for p in points]
    assert [m.n_iter_ for m in models] == [60] * 4 + [1]
    kernels = []
    real = npsvor_module.gaussian_kernel
    monkeypatch.setattr(npsvor_module, "gaussian_kernel",
                        lambda *a: kernels.append(1) or real(*a))
    for model, lone in zip(models, lones, strict=True):
        _bitwise(model.rank_functions(X_new), lone.rank_functions(X_new), "rank_functions")
        _bitwise(model.predict(X_new), lone.predict(X_new), "predict")
    # the pass scores X_new once for its two functions (the four twins and the fifth point),
    # then the five lone fits score it twice each (rank_functions and predict)
    assert len(kernels) == 1 + 5 * 2
    X_new[3] += 1.0  # the same array, other rows: scored anew, still as the lone fits
    for model, lone in zip(models, lones, strict=True):
        _bitwise(model.rank_functions(X_new), lone.rank_functions(X_new), "changed rows")
    for model, lone in zip(models, lones, strict=True):
        _assert_lone(model, lone, X_new)
        assert model.fit_seconds_ > 0


def test_a_pass_scores_rows_for_all_its_models_with_one_kernel_per_chunk(monkeypatch) -> None:
    """The first model of a pass asked for its rank functions on some rows computes them for
    every function of the pass (the distinct stops of the shared trajectory): one kernel per
    chunk of rows against all the pass's training rows, then each function's own product on
    its support's columns; each model then gets its own values from the memo. They equal its
    lone fit's to 1e-12 relative (the house tolerance of float64 kernel solvers: the kernel's
    cross product X Y' is one BLAS call over all the training rows instead of one over the
    model's support, which BLAS may round differently in the last bit)."""
    X, y = _data(seed=9)
    n_train = int(np.sum(y != -1))
    X_new = np.random.default_rng(3).normal(size=(50, 3))
    base = NPSVOR(C=5.0, kappa=0.5, max_iter=120)
    points = [dict(tol_abs=a, tol_rel=r) for a in (1e-6, 1e-3, 1e-1) for r in (1e-6, 1e-2, 1.0)]
    points.append(dict(C=2.0))  # alone with its (C, eps): its own ADMM, scored on its own
    kernels: list[tuple[int, int]] = []
    real = npsvor_module.gaussian_kernel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        lones = [clone(base).set_params(**p).fit(X, y) for p in points]
        run = base.iter_fit_grid(X, y, points)
        _, first = next(run)
        monkeypatch.setattr(npsvor_module, "gaussian_kernel",
                            lambda A, B, k: kernels.append((len(A), len(B))) or real(A, B, k))
        monkeypatch.setattr(npsvor_module, "_CHUNK_ROWS", 16)
        models, scored = {0: first}, {0: first.rank_functions(X_new)}
        # every swept point scored at once: one kernel per chunk of 16 rows (50 rows: 4
        # chunks), its columns all the training rows
        assert kernels == [(16, n_train)] * 3 + [(2, n_train)]
        for i, model in run:
            models[i] = model
            scored[i] = model.rank_functions(X_new)
        monkeypatch.undo()
    # the other swept points took theirs from the memo; the lone C=2 point scored its own rows
    # on its support (4 chunks)
    assert kernels[4:] == [(16, models[9].support_.size)] * 3 + [(2, models[9].support_.size)]
    assert len({lone.n_iter_ for lone in lones[:-1]}) >= 4  # several functions shared it
    for i, lone in enumerate(lones):
        want = lone.rank_functions(X_new)
        np.testing.assert_allclose(scored[i], want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
        _bitwise(models[i].predict(X_new), lone.predict(X_new), "predict")
        for name in FITTED:
            _bitwise(getattr(models[i], name), getattr(lone, name), name)
