"""Config parsing, and every kind of bad input: one sentence on stderr, exit 2, nothing written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ordauc.config import (
    DatasetSpec,
    ResamplingSpec,
    TuningSpec,
    load_config,
    parse_config,
)
from ordauc.errors import UserError

GOOD = """\
seed: 7
datasets: [breast_cancer, diabetes, {name: synthetic_binary, n: 300, d: 5}]
resampling:
  repeats: 3
  n_labeled: [50]
  n_unlabeled: [100, null]
  test_size: 0.2
  sampling: stratified
evaluate: test
tuning: {folds: 3, metric: mae}
timeout: 30
solvers:
  mean_ranker: {params: {lam: 2}, grid: {sigma: [1, 4], gamma: 0.5}}
  fast: {solver: mean_ranker, tuning: {kind: test, metric: auc}}
"""

RESAMPLING = {"n_labeled": [20], "n_unlabeled": [20]}
BASE = {"datasets": ["breast_cancer"], "resampling": RESAMPLING, "tuning": {"folds": 2},
        "solvers": {"mean_ranker": {"grid": {"sigma": [1, 2]}}}}


def test_good_config_is_typed_and_defaults_fill_in(test_solvers, write_config) -> None:
    config = load_config(write_config(GOOD))
    r = config.resampling
    assert config.seed == 7 and r.repeats == 3 and r.kind == "budget"
    assert config.datasets[2] == DatasetSpec("synthetic_binary", {"n": 300, "d": 5})
    assert config.datasets[2].label == "synthetic_binary[d=5,n=300]"
    assert r.n_labeled == (50,) and r.n_unlabeled == (100, None) and r.test_size == 0.2
    assert config.tuning == TuningSpec(kind="cv", folds=3, metrics=("mae",))
    assert config.timeout == 30.0 and r.sampling == "stratified"
    first, second = config.solvers
    assert (first.label, first.name, first.params) == ("mean_ranker", "mean_ranker", {"lam": 2})
    assert first.grid == {"sigma": [1, 4], "gamma": [0.5]}  # a scalar is a one-point grid
    assert (second.label, second.name) == ("fast", "mean_ranker")
    assert config.tuning_of(first) == config.tuning  # the study's tuning
    assert config.tuning_of(second) == TuningSpec(kind="test", folds=5, metrics=("auc",))

    minimal = parse_config({"datasets": "diabetes", "resampling": {"n_labeled": 10},
                            "solvers": {"mean_ranker": None}})
    assert minimal.resampling == ResamplingSpec(n_labeled=(10,))
    assert minimal.resampling.n_unlabeled == (None,) and minimal.resampling.repeats == 1
    assert minimal.timeout is None and minimal.memory_limit is None
    assert minimal.tuning == TuningSpec(kind="cv", folds=5, metrics=("auc",))
    assert minimal.evaluate == "test" and minimal.preprocess == "none"
    assert minimal.curves_every is None


def _with(**changes: object) -> dict:
    config = {**BASE, **changes}
    return {k: v for k, v in config.items() if v is not None}


def _res(**changes: object) -> dict:
    """BASE with resampling keys changed (None drops a key)."""
    resampling = {**RESAMPLING, **changes}
    return _with(resampling={k: v for k, v in resampling.items() if v is not None})


BAD = [
    ("malformed yaml", "datasets: [breast_cancer\nresampling: 5\n", "line 2"),
    ("duplicate key", "seed: 1\nseed: 2\n", "duplicate key 'seed'"),
    ("unknown top-level key", _with(label_budget=5), "'label_budget'"),
    ("missing key", _with(resampling=None), "'resampling'"),
    ("budget without n_labeled", _res(n_labeled=None),
     "resampling of kind budget needs n_labeled"),
    ("old top-level n_labeled", {**_with(resampling=None), "n_labeled": [20]},
     "config key 'n_labeled' has moved: write it as resampling: {n_labeled: [...]}"),
    ("old top-level seeds", {**BASE, "seeds": 3}, "config key 'seeds' has moved"),
    ("old top-level cv", {**BASE, "cv": {"folds": 2}}, "config key 'cv' has moved"),
    ("unknown resampling key", _res(seeds=3), "unknown key 'seeds' in resampling"),
    ("unknown dataset", _with(datasets=["no_such_set"]), "'no_such_set'"),
    ("unknown dataset parameter", _with(datasets=[{"name": "diabetes", "bins": 3}]), "'bins'"),
    ("unknown solver", _with(solvers={"no_such_solver": None}), "'no_such_solver'"),
    ("unknown solver parameter", _with(solvers={"mean_ranker": {"params": {"lamda": 1}}}),
     "'lamda'"),
    ("unknown grid parameter", _with(solvers={"mean_ranker": {"grid": {"sigm": [1]}}}),
     "'sigm'"),
    ("solver label with a slash", _with(solvers={"a/b": {"solver": "mean_ranker"}}), "'a/b'"),
    ("random_state set", _with(solvers={"mean_ranker": {"params": {"random_state": 3}}}),
     "random_state"),
    ("parameter of the wrong type", _with(solvers={"mean_ranker": {"params": {"lam": "fast"}}}),
     "solvers.mean_ranker.params: solver 'mean_ranker' parameter lam = 'fast' is not allowed; "
     "it must be"),
    ("grid value of the wrong type",
     _with(solvers={"mean_ranker": {"grid": {"sigma": [1, "wide"]}}}),
     "solvers.mean_ranker.grid: solver 'mean_ranker' parameter sigma = 'wide' is not allowed"),
    ("list where a number is expected",
     _with(solvers={"mean_ranker": {"params": {"lam": [1, 2]}}}), "parameter lam = [1, 2]"),
    ("n_iter: 2.5", _with(solvers={"qsg_s2auc": {"params": {"n_iter": 2.5}}}),
     "solver 'qsg_s2auc' parameter n_iter = 2.5 is not allowed; it must be an int"),
    ("grid lam: [-1, 1]", _with(solvers={"mean_ranker": {"grid": {"lam": [-1, 1]}}}),
     "solvers.mean_ranker.grid: solver 'mean_ranker' parameter lam = -1 is not allowed; it "
     "must be a float in the range (0.0, inf)"),
    ("grid sigma: [0, 1]", _with(solvers={"mean_ranker": {"grid": {"sigma": [0, 1]}}}),
     "parameter sigma = 0 is not allowed"),
    ("sigma: .nan", _with(solvers={"mean_ranker": {"params": {"sigma": float("nan")}}}),
     "parameter sigma = nan is not allowed"),
    ("gamma: .inf", _with(solvers={"mean_ranker": {"params": {"gamma": float("inf")}}}),
     "parameter gamma = inf is not allowed"),
    ("lam: .inf", _with(solvers={"qsg_s2auc": {"params": {"lam": float("inf")}}}),
     "solvers.qsg_s2auc.params: solver 'qsg_s2auc' parameter lam = inf is not allowed"),
    ("gamma list of the wrong length",
     _with(datasets=["diabetes"], resampling={"n_labeled": [40], "n_unlabeled": [20],
                                              "sampling": "stratified"},
           solvers={"samult": {"params": {"gamma": [0.5, 0.5]}}}),
     "solvers.samult: gamma [0.5, 0.5] has 2 values, and dataset 'diabetes' has 5 classes, so "
     "k - 1 = 4 subproblems"),
    ("gamma list of the wrong length, split drawn for another solver",
     _with(datasets=["diabetes"], resampling={"n_labeled": [40], "n_unlabeled": [20],
                                              "sampling": "stratified"},
           solvers={"samult": None, "bad": {"solver": "samult", "params": {"gamma": [0.5]}},
                    "worse": {"solver": "samult", "params": {"gamma": [0.5, 0.5, 0.5]}}}),
     "solvers.worse: gamma [0.5, 0.5, 0.5] has 3 values, and dataset 'diabetes' has 5 classes"),
    ("repeats: three", _res(repeats="three"),
     "resampling.repeats must be an integer >= 1, got 'three'"),
    ("n_labeled: -5", _res(n_labeled=-5),
     "resampling.n_labeled must be a list of integers >= 1, got -5"),
    ("n_unlabeled: 2.5", _res(n_unlabeled=[2.5]), "resampling.n_unlabeled"),
    ("repeated budget", _res(n_labeled=[20, 20]), "resampling.n_labeled lists 20 twice"),
    ("test_size: 1.5", _res(test_size=1.5), "resampling.test_size"),
    ("bad resampling kind", _res(kind="bootstrap"), "resampling.kind must be one of"),
    ("bad evaluate", _with(evaluate="train"), "evaluate must be one of test, unlabeled"),
    ("bad sampling", _res(sampling="random"), "resampling.sampling"),
    ("bad preprocess", _with(preprocess="whiten"),
     "preprocess must be one of none, standardize, minmax"),
    ("bad tuning metric", _with(tuning={"metric": "accuracy"}), "tuning.metric"),
    ("bad tuning kind", _with(tuning={"kind": "bayes"}), "tuning.kind"),
    ("tuning.folds: 1", _with(tuning={"folds": 1}), "tuning.folds"),
    ("bad per-solver tuning",
     _with(solvers={"mean_ranker": {"grid": {"sigma": [1, 2]}, "tuning": {"folds": 0}}}),
     "solvers.mean_ranker.tuning.folds"),
    ("tuning.folds larger than every class", _with(tuning={"folds": 15}),
     "tuning.folds = 15 is larger than the labeled rows of every class"),
    ("timeout: -1", _with(timeout=-1), "timeout"),
    ("bad memory_limit", _with(memory_limit="lots"), "memory_limit must be a size"),
    ("bad curves", _with(curves={"every": 0}), "curves.every"),
    ("budget larger than the data", _res(n_labeled=[400], n_unlabeled=[100]),
     "n_labeled 400 + n_unlabeled 100 exceeds the 427 rows"),
    ("class missing", _res(n_labeled=[3], n_unlabeled=[10]) | {"datasets": ["diabetes"]},
     "dataset 'diabetes', repetition 0, n_labeled 3, n_unlabeled 10: the labeled set has no "
     "row of class"),
    ("predict-free solver tuned on mze",
     _with(tuning={"folds": 2, "metric": "mze"}, solvers={"rank_only": {"grid": {"lam": [1, 2]}}}),
     "rank_only"),
    ("predict-free solver tuned on mae",
     _with(solvers={"rank_only": {"grid": {"lam": [1, 2]},
                                  "tuning": {"folds": 2, "metric": "mae"}}}),
     "tuning metric mae needs labels (predict), and solver 'rank_only' has no predict"),
]


@pytest.mark.parametrize(("case", "content", "named"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_sentence_and_writes_nothing(
        case: str, content: object, named: str, test_solvers, write_config, cli,
        tmp_path: Path) -> None:
    path = write_config(content)
    before = sorted(tmp_path.rglob("*"))
    out = tmp_path / "out"
    for args in (["run", path, "--out", out], ["run", path, "--out", out, "--dry-run"]):
        code, stdout, stderr = cli(*args)
        assert code == 2, (case, stderr)
        assert stderr.startswith("ordauc: error: ") and named in stderr, stderr
        assert stderr.count("\n") == 1 and "Traceback" not in stderr
        message = stderr.removeprefix("ordauc: error: ")
        assert ". " not in message.replace("e.g. ", "").rstrip(".\n")  # one sentence
        assert not out.exists() and sorted(tmp_path.rglob("*")) == before


def test_class_missing_suggests_stratified_sampling(test_solvers, write_config, cli) -> None:
    path = write_config(_res(n_labeled=[3], n_unlabeled=[10]) | {"datasets": ["diabetes"]})
    _, _, stderr = cli("run", path, "--out", path.parent / "out")
    assert "use resampling sampling: stratified" in stderr


def test_too_few_rows_for_inner_cv_folds(test_solvers, write_config, cli) -> None:
    # Stratified sampling gives every class a row, but 2 rows per class are needed so that
    # every inner CV training fold holds each class.
    path = write_config(_res(n_labeled=[6], n_unlabeled=[10], sampling="stratified")
                        | {"datasets": ["diabetes"]})
    code, _, stderr = cli("run", path, "--out", path.parent / "out")
    assert code == 2 and "needs at least 2" in stderr


def test_missing_config_file_and_bad_options(cli, tmp_path: Path, write_config, test_solvers,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    code, _, stderr = cli("run", tmp_path / "nope.yaml")
    assert code == 2 and "'" + str(tmp_path / "nope.yaml") + "'" in stderr
    path = write_config(BASE)
    for args, named in ((["--backend", "dask"], "--backend dask needs --scheduler"),
                        (["--backend", "dask", "--scheduler", "tcp://x:8786"],
                         "--backend dask needs dask.distributed"),
                        (["--backend", "ray"],
                         "--backend must be one of loky, dask, slurm, pbs, got 'ray'"),
                        (["--scheduler", "tcp://x:8786"], "--scheduler needs --backend dask"),
                        (["--n-jobs", "0"], "--n-jobs"),
                        (["--n-jobs", "-5"], "--n-jobs must be a positive number"),
                        (["--memory-limit", "lots"], "--memory-limit must be a size"),
                        (["--memory-limit", "0GB"], "--memory-limit must be a positive")):
        code, _, stderr = cli("run", path, "--out", tmp_path / "out", *args)
        assert code == 2 and named in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_parse_config_rejects_non_mapping() -> None:
    with pytest.raises(UserError, match="YAML mapping"):
        parse_config(["datasets"])


def test_yaml_anchors_merge_and_may_be_overridden_but_a_key_twice_is_refused(test_solvers,
                                                                             write_config
                                                                             ) -> None:
    text = """\
datasets: [breast_cancer]
resampling: {kind: budget, n_labeled: [20]}
solvers:
  a: &base {solver: mean_ranker, grid: {sigma: [1, 2]}}
  b: {<<: *base, params: {lam: 2}}
  c: {<<: *base, grid: {sigma: [4]}}
"""
    from ordauc.config import load_config

    config = load_config(write_config(text))
    a, b, c = config.solvers
    assert (b.name, b.grid, b.params) == ("mean_ranker", {"sigma": [1, 2]}, {"lam": 2})
    assert c.grid == {"sigma": [4]}  # an explicit key overrides the merged one
    with pytest.raises(UserError, match="duplicate key 'grid'"):
        load_config(write_config(text.replace("params: {lam: 2}", "grid: {}, grid: {}"),
                                 name="twice.yaml"))
