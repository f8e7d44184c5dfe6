"""The sizes the estimate prices a cell at: the pre-flight's, or for a dataset not fetched
the catalogue's, as its split will draw them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["catalogue_shape", "catalogue_sizes", "cell_sizes", "positive_share"]


def cell_sizes(cell: Any, sizes: dict, evaluate: str = "test"
               ) -> tuple[int, int, int, int, int]:
    """(n_labeled, n_unlabeled, n_evaluated, n_features, n_classes) of a cell's split:
    measured by the pre-flight (``sizes``, by split key), or read off the catalogue for a
    dataset not fetched yet (:func:`catalogue_sizes`)."""
    from ordauc.data.catalog import CATALOG

    entry = CATALOG.get(cell.dataset.name)
    k = _catalogue_value(entry, cell.dataset.params, "n_classes") or (
        2 if cell.task == "binary" else 5)
    found = sizes.get(cell.split_key)
    if found is not None:
        return found.n_labeled, found.n_unlabeled, found.n_test, found.n_features, k
    n_l, n_u, n_eval = catalogue_sizes(cell, entry, evaluate)
    return n_l, n_u, n_eval, _catalogue_value(entry, cell.dataset.params, "d") or 10, k


def catalogue_shape(cell: Any, evaluate: str = "test") -> tuple[int, int, int, int]:
    """(n_labeled, n_unlabeled, n_test, n_features) a cell of a dataset not fetched will
    have, read off the catalogue (what the rows of its skipped cells report)."""
    return cell_sizes(cell, {}, evaluate)[:4]


def _catalogue_value(entry: Any, params: dict[str, Any], field: str) -> int:
    """A catalogue size (``n``, ``d``, ``n_classes``) under the spec's load parameters: the
    parameter that sets it (``set_by``), ``n_rows`` (a seeded subset of the training rows) for
    ``n``; 0 when the catalogue does not know the dataset."""
    if entry is None:
        return 0
    value = int(getattr(entry, field, 0) or 0)
    key = (getattr(entry, "set_by", {}) or {}).get(field)
    if key and params.get(key) is not None:
        value = int(params[key])
    if field == "n" and params.get("n_rows") is not None:
        value = min(value or int(params["n_rows"]), int(params["n_rows"]))
    return value


def catalogue_sizes(cell: Any, entry: Any, evaluate: str = "test") -> tuple[int, int, int]:
    """(n_labeled, n_unlabeled, n_evaluated) of a cell whose dataset is not fetched, as its
    split will draw them (:func:`ordauc.splits.make_split`) from the catalogue's sizes: the
    evaluation rows are the unlabeled ones under ``evaluate: unlabeled``, else the official
    test file (``n_test``; a partition's published test part), a fold (``kfold``) or the
    held-out rows (``train_size`` or ``test_size``); the training pool is what is left."""
    r = cell.resampling
    n = _catalogue_value(entry, cell.dataset.params, "n") or 1000
    options = getattr(entry, "options", {}) or {}
    official = getattr(entry, "n_test", None)
    if r.kind == "partitions" and options.get("split"):
        pool, held = (int(v) for v in options["split"])
    elif r.kind == "partitions":  # published hold-outs of the survey: 75 / 25
        held = max(1, round(0.25 * n))
        pool = n - held
    elif r.kind == "kfold":
        held = max(1, n // max(r.folds, 1))
        pool = n - held
    elif official:
        pool, held = n, int(official)
    elif isinstance(r.train_size, int):
        pool, held = min(r.train_size, n - 1), n - min(r.train_size, n - 1)
    else:
        held = max(1, round(r.test_size * n))
        pool = n - held
    n_l = min(cell.n_labeled, pool) if cell.n_labeled is not None else pool
    n_u = cell.n_unlabeled if cell.n_unlabeled is not None else max(pool - n_l, 0)
    n_u = min(n_u, max(pool - n_l, 0))
    return n_l, n_u, (n_u if evaluate == "unlabeled" else held)


def positive_share(cell: Any) -> float | None:
    """The share of positive rows of a binary dataset whose catalogue entry states its class
    ratio n-/n+ (AUC-DCD's Table 1 sets; a pairwise solver's work is n+ n- pairs), else None:
    the synthetic stand-in of a dataset not fetched then has that share."""
    from ordauc.data.catalog import CATALOG

    entry = CATALOG.get(cell.dataset.name)
    ratio = entry.class_ratio if entry is not None else None
    return None if cell.task != "binary" or ratio is None else 1.0 / (1.0 + ratio)
