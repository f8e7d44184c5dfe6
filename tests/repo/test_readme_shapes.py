"""The score shapes the README's examples state in a comment are the shapes the code returns.

A line such as ``scores = model.decision_function(X)  # (n,): ...`` is checked by running its
example and counting the dimensions of ``scores`` against those of the comment's tuple
(``(n,)``: one; ``(n, k-1)``: two).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import REPO

README = REPO / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
STATED = re.compile(r"^(\w+) = .*\.decision_function\(.*#\s*(\([^)]*\))", re.M)
SHAPED = [(code, name, shape) for code in BLOCKS for name, shape in STATED.findall(code)]


def dimensions(shape: str) -> int:
    """How many dimensions a shape written as a tuple has: ``(n,)`` 1, ``(n, k-1)`` 2."""
    return len([part for part in shape.strip("()").split(",") if part.strip()])


def test_the_readme_states_a_score_shape() -> None:
    assert SHAPED and dimensions("(n,)") == 1 and dimensions("(n, k-1)") == 2


@pytest.mark.parametrize(("code", "name", "shape"), SHAPED,
                         ids=[f"{name}{shape}" for _, name, shape in SHAPED])
def test_stated_score_shapes_hold(code: str, name: str, shape: str, capsys) -> None:
    space: dict = {"__name__": "readme_example"}
    exec(compile(code, str(README), "exec"), space)  # noqa: S102
    scores = np.asarray(space[name])
    assert scores.ndim == dimensions(shape), f"{name} is {scores.shape}, the README says {shape}"
