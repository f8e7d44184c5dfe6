"""The dry run costs a SAMULT cross-validation as the folds run it: the unlabeled rows'
eigendecomposition once for the search, not once per fold."""

from __future__ import annotations

import pytest

from ordauc.cost.costlaw import Calibration
from ordauc.cost.estimate import fit_seconds
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT

FOLDS, N_L, N_U, D = 5, 200, 20_000, 20
N_FOLD = N_L * (FOLDS - 1) // FOLDS + N_U  # the fitting rows of one fold


def _calibration() -> Calibration:
    # one second per 1e12 units, shared and per model alike, no fixed part
    return Calibration(a=0.0, b=1e-12, points=4, shared_b=1e-12, model_b=1e-12, passes=2)


def test_the_decomposition_is_paid_once_per_search() -> None:
    est = SAMULT()
    once, per_fold = est.cv_shared_cost(N_FOLD, D, N_U, FOLDS)
    shared, _ = est.pass_cost(N_FOLD, D, N_U)
    assert once >= 4 * N_U ** 3  # the eigendecomposition of K_UU
    assert per_fold < 0.01 * once  # a fold only takes rows of what the search shares
    calib = _calibration()
    folds = fit_seconds(calib, est, N_FOLD, D, N_U, count=FOLDS, models=77, folds=FOLDS)
    apart = fit_seconds(calib, est, N_FOLD, D, N_U, count=FOLDS, models=77)
    assert apart == pytest.approx(FOLDS * (shared + 77 * est.pass_cost(N_FOLD, D, N_U)[1])
                                  * 1e-12, rel=1e-9)
    assert apart / folds > 3  # five decompositions against one, at 20,000 unlabeled rows


def test_the_wrapper_shares_the_base_decomposition_across_subproblems() -> None:
    base, wrapper = SAMULT(), MSAMULT()
    once, per_fold = base.cv_shared_cost(N_FOLD, D, N_U, FOLDS)
    assert wrapper.cv_shared_cost(N_FOLD, D, N_U, FOLDS) == (once, 4 * per_fold)


def test_qsg_folds_pay_the_pool_features_once() -> None:
    """The folds in lockstep compute the pool's features against each block once: the search
    pays n_iter block d n_u once, and per fold the rest of its passes."""
    est = QS3ORAO(n_iter=2000, batch_size=64, block_size=64)
    d = 1000
    once, per_fold = est.cv_shared_cost(N_FOLD, d, N_U, FOLDS)
    shared, model = est.pass_cost(N_FOLD, d, N_U)
    assert once == 2000 * 64 * d * N_U
    assert once + per_fold == pytest.approx(shared, rel=1e-12)  # one fold: a pass as before
    calib = _calibration()
    folds = fit_seconds(calib, est, N_FOLD, d, N_U, count=FOLDS, models=77, folds=FOLDS)
    apart = fit_seconds(calib, est, N_FOLD, d, N_U, count=FOLDS, models=77)
    assert folds == pytest.approx((once + FOLDS * (per_fold + 77 * model)) * 1e-12, rel=1e-9)
    assert apart / folds > 2


def test_a_solver_that_shares_nothing_across_folds_pays_per_fold() -> None:
    """QSG without the pool (2 n_u > batch (n_iter - 1)): the folds' U batches differ, so
    nothing large is shared and the folds pay apart."""
    est = QSGS2AUC(n_iter=100, batch_size=64)
    assert est.cv_shared_cost(N_FOLD, D, N_U, FOLDS) is None
    calib = _calibration()
    folds = fit_seconds(calib, est, N_FOLD, D, N_U, count=FOLDS, models=77, folds=FOLDS)
    apart = fit_seconds(calib, est, N_FOLD, D, N_U, count=FOLDS, models=77)
    assert folds == apart
