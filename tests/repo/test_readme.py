"""Every Python example of the README runs as printed (a reader copies them)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

README = REPO / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 3


def test_the_readme_claim_is_confirmed_and_fails_without_its_gain(registries, capsys) -> None:
    """The README's own claim decides from its data: CONFIRMED as printed, and NOT CONFIRMED
    once my_method loses its gain (the example is a check that can fail)."""
    code = next(b for b in BLOCKS if "register_paper" in b)
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})  # noqa: S102
    assert capsys.readouterr().out.startswith("CONFIRMED")
    flat = code.replace('("my_method", 0.03)', '("my_method", 0.0)')
    assert flat != code
    from ordauc.claims import CLAIMS

    CLAIMS.pop("MINE-1")
    exec(compile(flat, str(README), "exec"), {"__name__": "readme_example"})  # noqa: S102
    assert capsys.readouterr().out.startswith("NOT CONFIRMED")


@pytest.fixture
def registries():
    """A README example may register a paper and a claim: put the registries back after it."""
    from ordauc.claims import CLAIMS, PAPERS

    claims, papers = dict(CLAIMS), dict(PAPERS)
    yield
    CLAIMS.clear()
    CLAIMS.update(claims)
    PAPERS.clear()
    PAPERS.update(papers)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_every_python_example_runs(code: str, capsys, registries) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})  # noqa: S102
