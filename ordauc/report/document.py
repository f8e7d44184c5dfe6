"""A report as objects: the tables and statistical tests of a study, each with the renderers
that write it as Markdown, CSV and LaTeX (and HTML, for the page), and the summary.

:func:`ordauc.report.write.write_report` returns a :class:`ReportDocument`; its files are the
renderings of its items, and the study's page renders the same items to HTML. Nothing reads a
written file back to build another view of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The page sets the tables in the paper's order: the tables themselves, the published values
# beside ours, Wilcoxon win/draw/loss, Friedman. A section's own kinds come after them.
PAGE_ORDER = ("table", "published", "wdl", "friedman")


@dataclass(frozen=True)
class Renderer:
    """How one kind of value is written: ``files(value, stem)`` gives ``{file name: text}``
    (its Markdown, CSV, LaTeX and any side file), ``markdown(value)`` the Markdown the page
    shows. The page's HTML is rendered from that Markdown, so it holds the very numbers of the
    ``.md`` file."""

    files: Callable[[Any, str], dict[str, str]]
    markdown: Callable[[Any], str]


@dataclass(frozen=True)
class Item:
    """One table or test of a report: its file ``stem``, its ``kind`` (where the page sets it,
    :data:`PAGE_ORDER`), the ``value`` (a metric table, a test's result, a comparison) and its
    :class:`Renderer`."""

    stem: str
    kind: str
    value: Any = field(repr=False)
    renderer: Renderer = field(repr=False)

    def files(self) -> dict[str, str]:
        return self.renderer.files(self.value, self.stem)

    def markdown(self) -> str:
        return self.renderer.markdown(self.value)

    def html(self) -> str:
        from ordauc.report import html

        return html.markdown(self.markdown())


@dataclass(frozen=True)
class Part:
    """What a report section adds: its items, and its lines of the summary."""

    items: tuple[Item, ...] = ()
    summary: tuple[str, ...] = ()


@dataclass
class ReportDocument:
    """A study's report: the summary (Markdown, as the terminal prints it) and every item,
    in the order the sections gave them."""

    summary: str
    items: list[Item]

    def files(self) -> dict[str, str]:
        """``{file name: text}`` of every item, then ``summary.md``."""
        texts: dict[str, str] = {}
        for item in self.items:
            texts |= item.files()
        texts["summary.md"] = self.summary
        return texts

    def page_items(self) -> list[Item]:
        """The items in the page's order: by kind (:data:`PAGE_ORDER`, then the kinds of
        other sections in the order they first come), by file name within a kind."""
        kinds = list(dict.fromkeys([*PAGE_ORDER, *(i.kind for i in self.items)]))
        return sorted(self.items, key=lambda i: (kinds.index(i.kind), f"{i.stem}.md"))


class Report(list):
    """The files :func:`ordauc.report.write.write_report` wrote (a list of paths), its
    terminal ``summary`` and the ``document`` they render."""

    def __init__(self, paths: Iterable[Path], document: ReportDocument) -> None:
        super().__init__(paths)
        self.document = document
        self.summary = document.summary
