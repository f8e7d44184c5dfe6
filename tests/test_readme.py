"""Every Python example of the README runs as printed (a reader copies them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_every_python_example_runs(code: str, capsys) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})  # noqa: S102
