"""The list of every registered claim as Markdown, kept in ``docs/claims.md`` between the
``claims:begin`` and ``claims:end`` markers: ``python -m ordauc.claims.catalogue docs/claims.md``
rewrites it, and a test checks it is current."""

from __future__ import annotations

import sys
from pathlib import Path

BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"


def catalogue() -> str:
    """A table per paper: id, claim, the configs that decide it, the rule."""
    from ordauc.claims import CLAIMS, PAPERS
    from ordauc.claims.study import order_key

    lines: list[str] = []
    claims = sorted(CLAIMS.values(), key=order_key)
    for paper, title in PAPERS.items():
        mine = [c for c in claims if c.paper == paper]
        lines += ["", f"### {title}: {len(mine)} claims", "",
                  "| id | claim | decided by | rule |", "| --- | --- | --- | --- |"]
        for c in mine:
            configs = "composite" if c.composite else ", ".join(f"`{s}`" for s in c.studies)
            lines.append(f"| {c.id} | {_cell(c.text)} | {configs} | {_cell(c.rule)} |")
    return "\n".join(lines).strip() + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def with_catalogue(text: str) -> str:
    """``text`` with the part between the markers replaced by :func:`catalogue`."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{catalogue()}{END}{tail}"


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/claims.md")
    path.write_text(with_catalogue(path.read_text(encoding="utf-8")), encoding="utf-8")
