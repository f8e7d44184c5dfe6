"""Profiles: ``paper`` (the full protocol, as before profiles existed) and ``quick`` (the first
three repetitions, grids searched by successive halving, in its own folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from runner_solvers import MeanRanker, read_fit_log
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from ordauc import solvers
from ordauc.config import parse_config
from ordauc.experiment.halving import Halving, HalvingCV, subsample
from ordauc.experiment.plan import make_plan
from ordauc.experiment.study import default_out
from ordauc.experiment.tuning import score_one
from ordauc.results import StudyRecord
from ordauc.solvers._base import nonnegative
from ordauc.solvers.dsg import engine
from ordauc.solvers.dsg.qsg import QSGS2AUC
from ordauc.splits import cv_folds


class BlurredRanker(MeanRanker):
    """MeanRanker (without its weight noise) whose scores are blurred by row noise: a share
    ``blur`` of each score is a pseudo-random function of the row alone, unrelated to its
    label, so blur 0 ranks best on any sample and the others rank near chance."""

    _parameter_constraints: dict = {**MeanRanker._parameter_constraints,
                                    "blur": [nonnegative()]}

    def __init__(self, lam: float = 1.0, sigma: float = 1e-6, gamma: float = 0.5,
                 delay: float = 0.0, random_state: int | None = None,
                 blur: float = 0.0) -> None:
        super().__init__(lam=lam, sigma=sigma, gamma=gamma, delay=delay,
                         random_state=random_state)
        self.blur = blur

    def fit(self, X: np.ndarray, y: np.ndarray) -> BlurredRanker:
        super().fit(X, y)
        self.spread_ = float(np.std(np.asarray(X)[np.asarray(y) >= 0] @ self.coef_)) or 1.0
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        noise = np.sin(X @ np.linspace(1e3, 2e3, X.shape[1]))  # in [-1, 1], per row
        return (1 - self.blur) * (X @ self.coef_) / self.spread_ + 3 * self.blur * noise


BLURS = [0.9, 0.92, 0.94, 0.96, 0.0, 0.97, 0.98, 0.99, 1.0]  # one clear winner: 0.0
STUDY = {"datasets": ["breast_cancer"], "tuning": {"folds": 3},
         "resampling": {"repeats": 4, "n_labeled": [300], "n_unlabeled": [20],
                        "sampling": "stratified"},
         "solvers": {"blurred_ranker": {"grid": {"blur": BLURS}}}}


@pytest.fixture
def blurred(test_solvers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(solvers._REGISTRY, "blurred_ranker", "test_profiles:BlurredRanker")


def _table(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv", keep_default_na=False).set_index("key")


def _run(cli, config: Path, out: Path, *extra: str) -> pd.DataFrame:
    code, _, stderr = cli("run", config, "--out", out, *extra)
    assert code == 0, stderr
    return _table(out)


def test_quick_fits_less_and_picks_the_clear_winner(blurred, write_config, cli,
                                                    fit_log: Path, tmp_path: Path) -> None:
    config = write_config(STUDY)
    paper = _run(cli, config, tmp_path / "paper")
    paper_fits = read_fit_log(fit_log)
    fit_log.write_text("")
    quick = _run(cli, config, tmp_path / "quick", "--profile", "quick")
    quick_fits = read_fit_log(fit_log)

    # the first three repetitions of paper's plan: the same keys, splits and seeds
    assert len(paper) == 4 and list(quick.index) == list(paper.index[:3])
    for column in ("split_seed", "solver_seed", "n_labeled", "n_test"):
        assert list(quick[column]) == list(paper[column][:3])
    assert (paper["profile"] == "paper").all() and (quick["profile"] == "quick").all()
    assert not set(quick["config_hash"]) & set(paper["config_hash"])
    # both keep the clean ranker
    assert (paper["p_blur"] == 0).all() and (quick["p_blur"] == 0).all(), quick["p_blur"]
    assert (quick["cv_score"] > 0.9).all()

    # paper: 9 points x 3 folds + the refit per repetition, every fit on a whole fold; quick:
    # rounds of (33 of the 300 labeled rows, 9 points), (99, 3), (297, 1): the last, left
    # with one candidate, is not run; no candidate is fitted on a whole fold
    assert len(paper_fits) == 4 * (9 * 3 + 1)
    assert len(quick_fits) == 3 * (9 * 3 + 3 * 3 + 1)
    fold_rows = min(f["n_rows"] for f in paper_fits)
    whole = [f for f in quick_fits if f["n_rows"] >= fold_rows]
    assert len(whole) == 3 and all(f["n_rows"] == 320 for f in whole)  # the refits alone
    per_rep = sum(f["n_rows"] for f in paper_fits) / 4
    assert sum(f["n_rows"] for f in quick_fits) / 3 < 0.5 * per_rep
    # each point's last score is kept; the winner's is from the last round
    scores = pd.read_csv(tmp_path / "quick" / "tuning_scores.csv")
    assert len(scores) == 3 * len(BLURS) and scores["score"].notna().all()


def test_failures_are_counted_and_never_win(test_solvers, write_config, cli,
                                            tmp_path: Path) -> None:
    # PickyRanker raises for lam > 2: those points score NaN, are counted, and drop out
    grid = {"lam": [3, 4, 1, 5, 6, 2, 7, 0.5, 9]}
    study = {**STUDY, "solvers": {"picky_ranker": {"grid": grid}}}
    table = _run(cli, write_config(study), tmp_path / "quick", "--profile", "quick")
    assert (table["status"] == "ok").all() and table["p_lam"].isin([1, 2, 0.5]).all()
    # round one: 6 failing points x 3 folds; none survives into round two
    assert (table["cv_failed"] == 18).all()
    assert table["cv_message"].str.contains("deliberate failure").all()


def test_quick_is_another_study_with_its_own_folder(blurred, write_config, cli,
                                                    tmp_path: Path) -> None:
    config = write_config(STUDY)
    out = tmp_path / "out"
    _run(cli, config, out)
    before = sorted(p.name for p in out.iterdir())
    for extra in ((), ("--dry-run",)):
        code, _, stderr = cli("run", config, "--out", out, "--profile", "quick", *extra)
        assert code == 2 and "paper-profile results" in stderr and "-quick" in stderr, stderr
    assert sorted(p.name for p in out.iterdir()) == before
    assert json.loads((out / "study.json").read_text())["profile"] == "paper"

    quick = tmp_path / "quick"
    code, stdout, _ = cli("run", config, "--out", quick, "--profile", "quick", "--dry-run")
    assert code == 0 and stdout.startswith("profile  quick")
    assert sum(line.startswith("missing") for line in stdout.splitlines()) == 3
    _run(cli, config, quick, "--profile", "quick")
    assert json.loads((quick / "study.json").read_text())["profile"] == "quick"
    code, _, stderr = cli("run", config, "--out", quick)  # and paper into quick's folder
    assert code == 2 and "quick-profile results" in stderr
    code, _, stderr = cli("run", config, "--out", out, "--profile", "fast")
    assert code == 2 and "--profile must be one of paper, quick" in stderr

    # a folder without a record is refused by the profile of its rows
    (out / "study.json").unlink()
    code, _, stderr = cli("run", config, "--out", out, "--profile", "quick")
    assert code == 2 and "paper-profile results" in stderr


@pytest.mark.parametrize(("path", "expected"), [
    ("configs/offline/qs3orao.yaml", "results/offline/qs3orao-quick"),
    ("configs/qs3orao.yaml", "results/qs3orao-quick"),
])
def test_quick_defaults_to_its_own_folder(path: str, expected: str) -> None:
    assert default_out(StudyRecord.of(Path(path), "seed: 1\n", "quick")) == Path(expected)
    assert default_out(StudyRecord.of(Path(path), "seed: 1\n")) == Path(expected[:-6])


def test_paper_settings_hashes_are_those_before_profiles() -> None:
    """Computed by the code before profiles existed: folders it filled stay done."""
    config = parse_config({
        "seed": 11, "datasets": ["breast_cancer", "diabetes"],
        "resampling": {"n_labeled": [40], "n_unlabeled": [20], "repeats": 2},
        "tuning": {"folds": 3, "metric": ["auc", "mze"]},
        "solvers": {"samult": {"grid": {"lam": [0.5, 1.0], "sigma": [1.0]}},
                    "qsg_s2auc": {"params": {"n_iter": 50}, "grid": {"lam": [1.0, 2.0]}}}})
    hashes = {(c.key.split("/")[0], c.solver.label, c.cv_metric): c.config_hash
              for c in make_plan(config).cells}
    assert hashes == {
        ("breast_cancer", "qsg_s2auc", "auc"): "00adf86a4ae7",
        ("breast_cancer", "qsg_s2auc", "mze"): "b3c1c79e54db",
        ("breast_cancer", "samult", "auc"): "65abdc41ee07",
        ("breast_cancer", "samult", "mze"): "a5eb34e2666a",
        ("diabetes", "samult", "auc"): "bfdd45281521",
        ("diabetes", "samult", "mze"): "7bf6468f4e9b"}
    quick = make_plan(config, profile="quick")
    assert not {c.config_hash for c in quick.cells} & set(hashes.values())


class _Constant(ClassifierMixin, BaseEstimator):
    """A classifier that predicts its class a: scikit-learn's halving search runs it fast."""

    def __init__(self, a: int = 0) -> None:
        self.a = a

    def fit(self, X: np.ndarray, y: np.ndarray) -> _Constant:
        self.classes_ = np.unique(y)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.classes_[self.a % len(self.classes_)])


@pytest.mark.parametrize("aggressive", [False, True])
@pytest.mark.parametrize(("n_candidates", "n_samples"), [
    (4, 90), (8, 200), (9, 75), (20, 1000), (49, 200), (81, 5000), (100, 150)])
def test_rounds_are_scikit_learns(n_candidates: int, n_samples: int, aggressive: bool) -> None:
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingGridSearchCV

    X = np.zeros((n_samples, 1))
    y = np.arange(n_samples) % 2
    search = HalvingGridSearchCV(_Constant(), {"a": list(range(n_candidates))}, cv=3,
                                 aggressive_elimination=aggressive, random_state=0).fit(X, y)
    ours = Halving(aggressive_elimination=aggressive).rounds(n_candidates, n_samples,
                                                             smallest=3 * 2 * 2)
    assert ours == list(zip(search.n_resources_, search.n_candidates_, strict=True))


def test_subsamples_nest_and_keep_every_stratum() -> None:
    rows = np.arange(100, 160)
    y = np.full(200, -1)
    y[100:140] = np.arange(40) % 4  # four classes of 10, then 20 unlabeled
    small, large = (subsample(rows, y, f, (5, 0)) for f in (0.2, 0.6))
    assert set(small) <= set(large) and list(small) == sorted(small)
    assert [int(np.sum(y[small] == c)) for c in (-1, 0, 1, 2, 3)] == [4, 2, 2, 2, 2]
    assert len(subsample(rows, y, 0.01, (5, 0))) == 5  # one row of each stratum
    assert subsample(rows, y, 1.0, (5, 0)) is rows


def _data(n: int = 300, n_labeled: int = 90) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.7, size=n) > 0).astype(int)
    y[n_labeled:] = -1
    return X, y


def test_halving_inside_the_qsg_pass_drops_models_at_checkpoints(monkeypatch) -> None:
    X, y = _data()
    folds = cv_folds(y[:90], 210, 3, seed=4)
    est = QSGS2AUC(n_iter=90, batch_size=16, block_size=16, random_state=1)
    grid = {"lam": [0.25, 1.0, 4.0], "gamma": [0.2, 0.5, 0.8], "sigma": [0.5]}
    running: list[tuple[int, int]] = []  # (iteration reached, models in the pass)
    advance = engine.Pass.advance

    def counted(self: engine.Pass, stop: int, checkpoint=None) -> None:
        advance(self, stop, checkpoint)
        running.append((self.t, self.M))

    monkeypatch.setattr(engine.Pass, "advance", counted)
    tuner = HalvingCV(folds, ["auc"], "binary", 2, seed=4)
    [choice] = tuner.tune(est, X, y, grid).values()
    # rounds (10 iterations, 9 models), (30, 3), then the last one runs to n_iter; the folds'
    # passes go in lockstep (one iteration each in turn, sharing the pool's features), and are
    # asked once more at each rung and at the end, where they already are
    lockstep = [(t, m) for t0, t1, m in ((0, 10, 9), (10, 30, 3), (30, 90, 1))
                for t in range(t0 + 1, t1 + 1) for _ in range(3)]
    rungs = [(10, 9)] * 3, [(30, 3)] * 3, [(90, 1)] * 3
    assert running == (lockstep[:30] + rungs[0] + lockstep[30:90] + rungs[1] + lockstep[90:]
                       + rungs[2])
    assert choice.fits == 27 and choice.work == pytest.approx(3 * (9 * 10 + 3 * 20 + 60) / 90)
    # the finalist's score at n_iter is that of its lone fits, as paper scores it
    point = choice.params
    lone = []
    for fit, val in folds:
        model = clone(est).set_params(**point).fit(X[fit], y[fit])
        lone.append(score_one(model, X[val], y[val], "auc", "binary", 2))
    assert choice.score == pytest.approx(float(np.mean(lone)), abs=1e-6)
    scored = dict((repr(sorted(p.items())), s) for p, s in choice.points)
    assert len(scored) == 9 and all(np.isfinite(list(scored.values())))


def test_a_model_continued_to_the_end_is_its_lone_fit() -> None:
    X, y = _data()
    est = QSGS2AUC(n_iter=60, batch_size=16, block_size=16, random_state=2)
    points = [{"lam": lam, "gamma": g} for lam in (0.5, 2.0) for g in (0.3, 0.9)]
    keep = {1, 2}
    seen: list[int] = []

    def judge(t: int, models: dict[int, list]) -> set[int]:
        seen.append(len(models))
        return keep

    out = dict(est.iter_fit_grid_halving([(X, y)], points, lambda n, T: [20], judge))
    assert seen == [4] and set(out) == keep
    for i in keep:
        lone = clone(est).set_params(**points[i]).fit(X, y)
        f, g = out[i][0].decision_function(X), lone.decision_function(X)
        assert out[i][0].n_iter_ == 60
        np.testing.assert_allclose(f, g, rtol=0, atol=5e-6 * np.abs(g).max())


class _TwoMetrics(ClassifierMixin, BaseEstimator):
    """Point k = 0 ranks perfectly (the first feature is the label), k = 1 labels perfectly;
    every other point, and each of those two at what it does not do well, is row noise."""

    def __init__(self, k: int = 0) -> None:
        self.k = k

    def fit(self, X: np.ndarray, y: np.ndarray) -> _TwoMetrics:
        self.classes_ = np.array([0, 1])
        return self

    def _noise(self, X: np.ndarray) -> np.ndarray:
        return np.sin(X[:, 1] * (1e3 + 37 * self.k))

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return X[:, 0] if self.k == 0 else self._noise(X)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return (X[:, 0] if self.k == 1 else self._noise(X) > 0).astype(int)


def test_each_metric_halves_by_its_own_scores_on_shared_fits() -> None:
    rng = np.random.default_rng(3)
    y = np.r_[np.arange(300) % 2, np.full(50, -1)]
    X = np.c_[np.maximum(y, 0), rng.random(350)]
    folds = cv_folds(y[:300], 50, 3, seed=1)
    grid = {"k": [5, 4, 3, 2, 1, 0, 6, 7, 8]}
    tuned = HalvingCV(folds, ["auc", "mze"], "binary", 2, seed=1).tune(_TwoMetrics(), X, y,
                                                                      grid)
    assert tuned["auc"].params == {"k": 0} and tuned["auc"].score == 1.0
    assert tuned["mze"].params == {"k": 1} and tuned["mze"].score == 0.0
    # rounds (33 rows, 9 points), (99, 3 per metric): one fit serves both metrics, so the
    # second round fits the union of their survivors, at most 6, at least 3 points per fold
    assert 3 * (9 + 3) <= tuned["auc"].fits <= 3 * (9 + 6)
    assert tuned["auc"].fits == tuned["mze"].fits


def test_the_page_and_the_figures_name_the_profile(write_config, cli, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from ordauc.report import plots

    notes: dict[str, list[str]] = {}
    save = plots.save_figure

    def noted(fig: Any, folder: Path, stem: str) -> Any:  # keeps the figure's texts
        notes[stem] = [t.get_text() for t in fig.texts]
        return save(fig, folder, stem)

    monkeypatch.setattr(plots, "save_figure", noted)
    study = {"datasets": ["breast_cancer"], "tuning": {"folds": 2},
             "resampling": {"repeats": 2, "n_labeled": [40], "n_unlabeled": [60]},
             "solvers": {"samult": {"grid": {"lam": [0.5, 1.0, 2.0], "sigma": [1.0]}}}}
    config = write_config(study)
    for profile in ("paper", "quick"):
        out = tmp_path / profile
        _run(cli, config, out, "--profile", profile)
        notes.clear()
        for command in ("plot", "report"):
            code, _, stderr = cli(command, out)
            assert code == 0, stderr
        page = (out / "report" / "index.html").read_text(encoding="utf-8")
        assert f"; {profile} profile" in page
        # one unlabeled size: no time figure (nothing to draw time against)
        assert {"auc_breast_cancer", "auc_all"} <= set(notes)
        assert "time_breast_cancer" not in notes
        for stem in ("auc_breast_cancer", "auc_all"):
            assert ("(quick profile)" in notes[stem]) == (profile == "quick")
