"""Config parsing, and every kind of bad input: one sentence on stderr, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ordauc.config import CVSpec, DatasetSpec, load_config, parse_config
from ordauc.errors import UserError

GOOD = """\
seed: 7
seeds: 3
datasets: [breast_cancer, diabetes, {name: synthetic_binary, n: 300, d: 5}]
n_labeled: [50]
n_unlabeled: [100, null]
test_size: 0.2
evaluate: test
labeled_sampling: stratified
cv: {folds: 3, metric: mae}
timeout: 30
solvers:
  mean_ranker: {params: {lam: 2}, grid: {sigma: [1, 4], gamma: 0.5}}
  fast: {solver: mean_ranker}
"""

BASE = {"datasets": ["breast_cancer"], "n_labeled": [20], "n_unlabeled": [20],
        "cv": {"folds": 2}, "solvers": {"mean_ranker": {"grid": {"sigma": [1, 2]}}}}


def test_good_config_is_typed_and_defaults_fill_in(test_solvers, write_config) -> None:
    config = load_config(write_config(GOOD))
    assert config.seed == 7 and config.seeds == 3
    assert config.datasets[2] == DatasetSpec("synthetic_binary", {"n": 300, "d": 5})
    assert config.datasets[2].label == "synthetic_binary[d=5,n=300]"
    assert config.n_labeled == (50,) and config.n_unlabeled == (100, None)
    assert config.cv == CVSpec(folds=3, metric="mae")
    assert config.timeout == 30.0 and config.labeled_sampling == "stratified"
    first, second = config.solvers
    assert (first.label, first.name, first.params) == ("mean_ranker", "mean_ranker", {"lam": 2})
    assert first.grid == {"sigma": [1, 4], "gamma": [0.5]}  # a scalar is a one-point grid
    assert (second.label, second.name) == ("fast", "mean_ranker")

    minimal = parse_config({"datasets": "diabetes", "n_labeled": 10,
                            "solvers": {"mean_ranker": None}})
    assert minimal.n_unlabeled == (None,) and minimal.seeds == 1 and minimal.timeout is None
    assert minimal.cv == CVSpec(folds=5, metric="auc") and minimal.evaluate == "test"


def _with(**changes: object) -> dict:
    config = {**BASE, **changes}
    return {k: v for k, v in config.items() if v is not None}


BAD = [
    ("malformed yaml", "datasets: [breast_cancer\nn_labeled: 5\n", "line 2"),
    ("duplicate key", "seeds: 1\nseeds: 2\n", "duplicate key 'seeds'"),
    ("unknown top-level key", _with(label_budget=5), "'label_budget'"),
    ("missing key", _with(n_labeled=None), "'n_labeled'"),
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
     "parameter 'lam' must be a number, got 'fast'"),
    ("grid value of the wrong type",
     _with(solvers={"mean_ranker": {"grid": {"sigma": [1, "wide"]}}}),
     "parameter 'sigma' must be a number, got 'wide'"),
    ("list where a number is expected",
     _with(solvers={"mean_ranker": {"params": {"lam": [1, 2]}}}), "parameter 'lam'"),
    ("seeds: three", _with(seeds="three"), "seeds must be an integer >= 1, got 'three'"),
    ("n_labeled: -5", _with(n_labeled=-5), "n_labeled must be a list of integers >= 1, got -5"),
    ("n_unlabeled: 2.5", _with(n_unlabeled=[2.5]), "n_unlabeled"),
    ("repeated budget", _with(n_labeled=[20, 20]), "n_labeled lists 20 twice"),
    ("test_size: 1.5", _with(test_size=1.5), "test_size"),
    ("bad evaluate", _with(evaluate="train"), "evaluate must be one of test, unlabeled"),
    ("bad sampling", _with(labeled_sampling="random"), "labeled_sampling"),
    ("bad cv metric", _with(cv={"metric": "accuracy"}), "cv.metric"),
    ("cv.folds: 1", _with(cv={"folds": 1}), "cv.folds"),
    ("timeout: -1", _with(timeout=-1), "timeout"),
    ("budget larger than the data", _with(n_labeled=[400], n_unlabeled=[100]),
     "n_labeled 400 + n_unlabeled 100 exceeds the 427 rows"),
    ("class missing", _with(datasets=["diabetes"], n_labeled=[3], n_unlabeled=[10]),
     "dataset 'diabetes', seed 0, n_labeled 3, n_unlabeled 10: the labeled set has no row of "
     "class"),
    ("predict-free solver tuned on mze",
     _with(cv={"folds": 2, "metric": "mze"}, solvers={"rank_only": {"grid": {"lam": [1, 2]}}}),
     "rank_only"),
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
        assert ". " not in message.rstrip(".\n")  # one sentence
        assert not out.exists() and sorted(tmp_path.rglob("*")) == before


def test_class_missing_suggests_stratified_sampling(test_solvers, write_config, cli) -> None:
    path = write_config(_with(datasets=["diabetes"], n_labeled=[3], n_unlabeled=[10]))
    _, _, stderr = cli("run", path, "--out", path.parent / "out")
    assert "labeled_sampling: stratified" in stderr


def test_too_few_rows_for_inner_cv_folds(test_solvers, write_config, cli) -> None:
    # Stratified sampling gives every class a row, but 2 rows per class are needed so that
    # every inner CV training fold holds each class.
    path = write_config(_with(datasets=["diabetes"], n_labeled=[6], n_unlabeled=[10],
                              labeled_sampling="stratified"))
    code, _, stderr = cli("run", path, "--out", path.parent / "out")
    assert code == 2 and "needs at least 2" in stderr


def test_missing_config_file_and_bad_options(cli, tmp_path: Path, write_config,
                                             test_solvers) -> None:
    code, _, stderr = cli("run", tmp_path / "nope.yaml")
    assert code == 2 and "'" + str(tmp_path / "nope.yaml") + "'" in stderr
    path = write_config(BASE)
    for args, named in ((["--backend", "dask"], "not available yet"),
                        (["--backend", "ray"], "--backend must be loky"),
                        (["--scheduler", "tcp://x:8786"], "--scheduler"),
                        (["--n-jobs", "0"], "--n-jobs")):
        code, _, stderr = cli("run", path, "--out", tmp_path / "out", *args)
        assert code == 2 and named in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_parse_config_rejects_non_mapping() -> None:
    with pytest.raises(UserError, match="YAML mapping"):
        parse_config(["datasets"])
