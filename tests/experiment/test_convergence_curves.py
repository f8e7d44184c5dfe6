"""Curves that measure Theorem 1 of the QSG papers: checkpoints spaced on a log axis
(``curves.spacing: log``) and the pointwise error of each iterate against an exact solution
(``curves.reference``), from the config to ``curves.csv`` and the claims that read it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

from ordauc.config import parse_config
from ordauc.errors import UserError
from ordauc.experiment.cell import reference_fit
from ordauc.experiment.evaluate import CurveRecorder, on_log_grid
from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC
from ordauc.solvers.kernel.samult import SAMULT

CONFIGS = REPO / "configs"
Cli = Callable[..., tuple[int, str, str]]
BASE = {"datasets": ["breast_cancer"], "resampling": {"n_labeled": [50]},
        "solvers": {"qsg_s2auc": {}}}


def _problem(n: int = 160, k: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    score = X[:, 0] + np.sin(3 * X[:, 1])
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1])) + (k > 2)
    y[rng.permutation(n)[: n // 2]] = -1  # half unlabeled
    return X, y


def test_log_grid_keeps_about_twenty_checkpoints_per_decade() -> None:
    kept = [t for t in range(10, 100_001, 10) if on_log_grid(t, 10)]
    assert kept[0] == 10 and 100_000 in kept and 1000 in kept
    per_decade = [sum(10 ** e < t <= 10 ** (e + 1) for t in kept) for e in (2, 3, 4)]
    assert all(19 <= n <= 21 for n in per_decade), per_decade
    ratios = np.diff(np.log10(kept[20:]))  # even on a log axis beyond the first decade
    assert ratios.max() < 2.5 / 20


def test_recorder_records_the_pointwise_error_against_the_reference() -> None:
    X, y = _problem()
    seen = ~(y == -1)

    class Iterate:  # f_t(x) = t x_0 against f_ref(x) = x_1
        def __init__(self, t: int) -> None:
            self.t = t

        def decision_function(self, rows: np.ndarray) -> np.ndarray:
            return self.t * rows[:, 0]

    reference = X[seen, 1]
    recorder = CurveRecorder(5, [(X[seen], y[seen])], "binary", 2, spacing="log",
                             references=[reference])
    for t in range(5, 501, 5):
        recorder(t, Iterate(t))
    rows = pd.DataFrame(recorder.rows[0])
    error = rows[rows["metric"] == "reference_error"].set_index("iteration")["value"]
    assert list(error.index) == [t for t in range(5, 501, 5) if on_log_grid(t, 5)]
    expected = np.array([np.mean((t * X[seen, 0] - X[seen, 1]) ** 2) for t in error.index])
    np.testing.assert_allclose(error.to_numpy(), expected, rtol=1e-12)
    assert set(rows["metric"]) == {"auc", "reference_error"}


def test_reference_fit_is_samult_with_the_iterates_hyper_parameters() -> None:
    X, y = _problem(k=3)
    model = QS3ORAO(lam=0.3, sigma=0.7, gamma=0.2, n_iter=5)
    reference = SAMULT()
    exact = reference_fit(reference, model, X, y)
    assert not hasattr(reference, "dual_coef_")  # the task's unfitted solver stays unfitted
    assert isinstance(exact, SAMULT)
    assert (exact.lam, exact.sigma, exact.gamma) == (0.3, 0.7, 0.2)
    alone = SAMULT(lam=0.3, sigma=0.7, gamma=0.2).fit(X, y)
    np.testing.assert_allclose(exact.decision_function(X), alone.decision_function(X))


def test_theorem_step_approaches_samult_at_rate_one_over_t() -> None:
    """The property the claims measure, on a small problem: under Theorem 1's step the mean
    squared distance to SAMULT's exact solution falls about as 1/t, and it does not under a
    step with theta * lam = 0.1 (outside the theorem's condition)."""
    X, y = _problem(n=200)
    f_star = SAMULT(lam=0.125, sigma=0.5, gamma=0.5).fit(X, y).decision_function(X)

    def slope(theta: float | None) -> float:
        errors = []
        for seed in range(3):
            recorder = CurveRecorder(10, [(X, np.zeros(len(X)))], "binary", 2, spacing="log",
                                     references=[f_star])
            QSGS2AUC(lam=0.125, sigma=0.5, gamma=0.5, n_iter=1000, theta=theta,
                     batch_size=16, block_size=16, random_state=seed).fit(X, y, checkpoint=recorder)
            rows = pd.DataFrame(recorder.rows[0])
            errors.append(rows[rows["metric"] == "reference_error"]
                          .set_index("iteration")["value"])
        mean = pd.concat(errors, axis=1).mean(axis=1)
        window = mean[mean.index >= 10]
        return float(np.polyfit(np.log10(window.index), np.log10(window.to_numpy()), 1)[0])

    theorem, control = slope(None), slope(0.8)
    assert theorem <= -0.8, theorem
    assert control > theorem + 0.3, (theorem, control)


@pytest.mark.parametrize(("curves", "message"), [
    ({"every": 10, "reference": "no_such_solver"}, "curves.reference must name"),
    ({"every": 10, "reference": 3}, "curves.reference must name"),
    ({"every": 10, "spacing": "geometric"}, "curves.spacing"),
])
def test_config_refuses_a_bad_reference_or_spacing(curves: dict, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_config({**BASE, "curves": curves})


def test_config_reads_spacing_and_reference() -> None:
    config = parse_config({**BASE, "curves": {"every": 10, "spacing": "log",
                                              "reference": "samult"}})
    assert (config.curves_every, config.curves_spacing, config.curves_reference) == (
        10, "log", "samult")
    plain = parse_config({**BASE, "curves": {"every": 10}})
    assert (plain.curves_spacing, plain.curves_reference) == ("linear", None)


@pytest.mark.slow
@pytest.mark.parametrize(("stem", "claim", "solvers"), [
    ("qsg_s2auc_convergence", "QSG-8", {"qsg_s2auc", "qsg_s2auc_slow"}),
    ("qs3orao_convergence", "QS3-10", {"qs3orao", "qs3orao_slow"}),
])
def test_convergence_twin_decides_its_claim(cli: Cli, tmp_path: Path, stem: str, claim: str,
                                            solvers: set[str]) -> None:
    """The offline twin end to end: every run records reference_error on a log grid, and the
    report's claim reads a decided rate from them (the theorem arm), with the control's
    slower rate beside it."""
    from ordauc.claims import CLAIMS
    from ordauc.claims.study import Study

    out = tmp_path / stem
    code, _, stderr = cli("run", CONFIGS / "offline" / f"{stem}.yaml", "--out", out,
                          "--n-jobs", "2")
    assert code == 0, stderr
    results = pd.read_csv(out / "results.csv")
    assert (results["status"] == "ok").all() and set(results["solver"]) == solvers
    curves = pd.read_csv(out / "curves.csv")
    errors = curves[curves["metric"] == "reference_error"]
    assert set(errors["solver"]) == solvers
    per_run = errors.groupby(["solver", "repetition"])["iteration"].agg(["count", "max"])
    assert (per_run["max"] == results["p_n_iter"].max()).all()
    assert (per_run["count"] < 80).all()  # log spacing, not every 10th of 2,000 iterations
    study = Study.from_folder(out)
    assert stem in study.kinds
    outcome = CLAIMS[claim].check(study)
    assert outcome.verdict != "UNDECIDABLE" or outcome.provisional, outcome
    assert outcome.values["slope"] <= -0.8, outcome
    assert outcome.values["control_slope"] > outcome.values["slope"] + 0.3, outcome
