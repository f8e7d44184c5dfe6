"""LIBSVM / SVMlight text files: parsed by scikit-learn, located precisely when malformed.

``load_svmlight_file`` is fast but its errors name neither file nor line, so when it fails (or
accepts something a dataset must not hold: a non-finite value, a fractional class label) the
file is read again line by line with the same grammar to find the first offending line. The
catalogue's feature count is always passed: a file's largest index is often below it (test
files, and pendigits' copy, which never uses index 16).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ordauc.data.archive import CORRUPTION_ERRORS, open_stream
from ordauc.errors import UserError


def read_svmlight(path: Path, n_features: int, label: str,
                  integer_labels: bool = True) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(X, y)`` of one file: X float32 CSR with ``n_features`` columns, y float64.

    Indices are one-based, as in every LIBSVM data file. Raises UserError naming ``label`` and
    the first malformed line.
    """
    from sklearn.datasets import load_svmlight_file

    try:
        with open_stream(path) as stream:
            X, y = load_svmlight_file(stream, n_features=n_features, zero_based=False,
                                      dtype=np.float32)
    except CORRUPTION_ERRORS:
        raise
    except (ValueError, UnicodeDecodeError):
        line, reason = locate_problem(path, n_features, integer_labels)
        raise UserError(f"{label}, line {line}: {reason}, so nothing was stored") from None
    if not (np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))) or (
            integer_labels and not np.all(y == np.round(y))):
        line, reason = locate_problem(path, n_features, integer_labels)
        raise UserError(f"{label}, line {line}: {reason}, so nothing was stored")
    if X.shape[0] == 0:
        raise UserError(f"{label} holds no data lines, so nothing was stored")
    return sp.csr_matrix(X, dtype=np.float32), np.asarray(y, dtype=np.float64)


def locate_problem(path: Path, n_features: int, integer_labels: bool = True
                   ) -> tuple[int, str]:
    """The first line (1-based) that breaks the LIBSVM grammar, and what is wrong with it."""
    with open_stream(path) as stream:
        for number, raw in enumerate(stream, start=1):
            problem = _line_problem(raw, n_features, integer_labels)
            if problem:
                return number, problem
    return 0, "the file could not be parsed"


def _line_problem(raw: bytes, n_features: int, integer_labels: bool) -> str | None:
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return "it holds bytes that are not ASCII text"
    text = text.split("#", 1)[0].strip()
    if not text:
        return None
    tokens = text.split()
    label = _number(tokens[0])
    if label is None or not math.isfinite(label):
        return f"the label {tokens[0]!r} is not a number"
    if integer_labels and label != round(label):
        return f"the class label {tokens[0]!r} is not an integer"
    previous = 0
    for token in tokens[1:]:
        key, sep, value = token.partition(":")
        if not sep:
            return f"{token!r} is not of the form index:value"
        if key == "qid":
            continue
        if not key.isdigit():
            return f"the feature index {key!r} is not a positive integer"
        index = int(key)
        if index < 1 or index > n_features:
            return (f"the feature index {index} is outside 1..{n_features} (the dataset has "
                    f"{n_features} features)")
        if index <= previous:
            return f"the feature index {index} is not above the previous one ({previous})"
        previous = index
        number = _number(value)
        if number is None or not math.isfinite(number):
            return f"the value {value!r} of feature {index} is not a finite number"
    return None


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None
