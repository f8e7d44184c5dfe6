"""Built-in datasets are catalogue entries: their fields say what loading them gives, and
`ordauc datasets` prints those fields."""

from __future__ import annotations

import re

import numpy as np
import pytest
from fixtures_data.helpers import run_cli

from ordauc import data
from ordauc.data.builtin import BUILTIN, builtin_entry
from ordauc.data.catalog import CATALOG
from ordauc.data.dataset import Dataset
from ordauc.data.spec import Entry
from ordauc.errors import UserError

# Sizes that load fast, for the sets whose size is a parameter.
SMALL = {"n": 60, "d": 4}
SIZE_OF = {"n": "n_samples", "d": "n_features", "n_classes": "n_classes"}


def _load(name: str, **params: object) -> Dataset:
    entry = BUILTIN[name]
    small = {entry.set_by[f]: v for f, v in SMALL.items() if f in entry.set_by}
    return data.load(name, **small, **params)


@pytest.mark.parametrize("name", list(BUILTIN))
def test_a_built_in_entry_says_what_loading_it_gives(name: str) -> None:
    entry = BUILTIN[name]
    assert isinstance(entry, Entry) and entry.builtin and not entry.sources
    assert entry.origin and entry.licence and entry.name == name
    dataset = _load(name)
    assert (dataset.name, dataset.task) == (name, entry.task)
    for field, attribute in SIZE_OF.items():
        expected = SMALL[field] if field in SMALL and field in entry.set_by else getattr(entry,
                                                                                        field)
        assert getattr(dataset, attribute) == expected, field
    assert np.unique(dataset.y).size == entry.n_classes
    assert data.task_of(name) == entry.task and data.is_prepared(name)
    assert data.dataset_params(name) == list(entry.params)


@pytest.mark.parametrize("name", [n for n, e in BUILTIN.items() if "n_classes" in e.set_by])
def test_the_parameter_named_for_the_classes_sets_them(name: str) -> None:
    param = BUILTIN[name].set_by["n_classes"]
    dataset = _load(name, **{param: 3})
    assert dataset.n_classes == 3 and np.unique(dataset.y).tolist() == [1, 2, 3]


def test_datasets_prints_each_built_in_sets_fields(tmp_path) -> None:
    code, out, _ = run_cli("datasets", "--data-dir", str(tmp_path / "d"))
    assert code == 0
    rows = {cells[0]: cells for cells in (re.split(r"\s{2,}", line.strip())
                                          for line in out.splitlines() if line.strip())}
    assert rows["name"][:5] == ["name", "task", "n", "d", "classes"]
    for name in BUILTIN:
        dataset = data.load(name)
        sizes = {"n": dataset.n_samples, "d": dataset.n_features, "n_classes": dataset.n_classes}
        shown = [f"{sizes[f]:,}" + (f" ({BUILTIN[name].set_by[f]})" if f in BUILTIN[name].set_by
                                    else "") for f in ("n", "d", "n_classes")]
        assert rows[name][1:5] == [dataset.task, *shown], name
        assert rows[name][5] == BUILTIN[name].origin and rows[name][-1] == "built in"
    assert rows["diabetes"][4] == "5 (n_bins)" and rows["synthetic_ordinal"][4] == "5 (n_classes)"
    assert rows["breast_cancer"][2:5] == ["569", "30", "2"]
    assert rows["boston"][4] == "5 (n_bins)" and rows["tae"][4] == "3"


def test_binned_catalogue_sets_name_the_parameter_of_their_classes() -> None:
    for entry in CATALOG.values():
        assert not entry.builtin
        assert (entry.set_by.get("n_classes") == "n_bins") == ("n_bins" in entry.params), entry.name


def test_an_entry_refuses_a_size_set_by_a_parameter_it_does_not_take() -> None:
    def make(n: int = 20) -> Dataset:
        return Dataset("made", np.zeros((n, 2), np.float32), np.arange(n) % 2, "binary", 2)

    entry = builtin_entry("made", make, task="binary", n=20, d=2, n_classes=2, origin="test",
                          licence="none", set_by={"n": "n"})
    assert entry.params == {"n": 20} and entry.loader is make
    with pytest.raises(ValueError, match="set_by"):
        builtin_entry("made", make, task="binary", n=20, d=2, n_classes=2, origin="test",
                      licence="none", set_by={"n": "rows"})
    with pytest.raises(ValueError, match="loader"):
        Entry(name="made", task="binary", paper="", recipe="builtin", sources={}, n=20, d=2,
              n_classes=2, origin="test", licence="none", citation="")


def test_a_built_in_set_refuses_a_parameter_it_does_not_take() -> None:
    with pytest.raises(UserError, match="has no parameter 'n_bins'; allowed: none"):
        data.load("breast_cancer", n_bins=3)
    with pytest.raises(UserError, match="unknown dataset 'nope'"):
        data.task_of("nope")
