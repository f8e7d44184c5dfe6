"""The registry of report sections: each part of a study's report (the tables and tests of a
metric, the cross-validation time, the published values beside ours, ...) is one
:class:`ReportSection`, registered by the module that makes it.

A section says whether it has anything to say of a study (``applies_to``), computes it
(``data``) and renders it (``render``: a :class:`~ordauc.report.document.Part`, its items and
its lines of the summary). :func:`ordauc.report.write.write_report` runs every registered
section in ``order`` and knows none of them by name; a paper's own folder registers more with
:func:`report_section`::

    @report_section("gap", order=900, applies_to=lambda s: "gap" in s.results.columns)
    def gap(study: ReportStudy) -> pd.DataFrame: ...   # the data

    @gap.renderer
    def render_gap(frame: pd.DataFrame, study: ReportStudy) -> Part: ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ordauc.report.registry import Registry

if TYPE_CHECKING:
    from ordauc.report.document import Part
    from ordauc.report.tables import Arranged


@dataclass(frozen=True)
class ReportStudy:
    """What every report section reads: the ``results`` (every row), them ``arranged`` into
    problems and methods, the ``groups`` per task (one ``(None, results)`` for a study of one
    task), the ``metrics`` asked for, the significance level ``alpha`` and the results folder
    (``directory``; None for a table handed over in memory)."""

    results: pd.DataFrame
    arranged: Arranged
    groups: list[tuple[str | None, pd.DataFrame]]
    metrics: tuple[str, ...]
    alpha: float
    directory: Path | None = None

    @property
    def stem(self) -> str:
        """The file stem of the config the study ran ('' for a table handed over in memory):
        a paper's sections apply to its own studies by it."""
        from ordauc.report.figure_families import study_stem

        return study_stem(self.directory) if self.directory is not None else ""

    def tasks(self) -> list[tuple[str | None, Arranged]]:
        """Each task's rows arranged (the whole study's when it is of one task)."""
        from ordauc.report.tables import arrange

        return [(task, self.arranged if task is None else arrange(rows))
                for task, rows in self.groups]


@dataclass
class ReportSection:
    """One part of the report: its ``name``, where it stands (``order``: the summary and the
    files follow it), whether it ``applies_to`` a study, its ``data`` and how it is rendered
    (``render(data, study) -> Part``)."""

    name: str
    order: int
    applies_to: Callable[[ReportStudy], bool]
    data: Callable[[ReportStudy], Any]
    render: Callable[[Any, ReportStudy], Part] | None = None

    def renderer(self, render: Callable[[Any, ReportStudy], Part]
                 ) -> Callable[[Any, ReportStudy], Part]:
        """Decorator: ``render`` renders this section's data."""
        self.render = render
        return render


REPORT_SECTIONS: Registry[ReportSection] = Registry("report section", "report sections", "render",
                                                    "a rendering")


# ``report_section(name, *, order, applies_to=always)``: register the decorated function as
# the ``data`` of a report section; the section it returns takes its rendering with
# :meth:`ReportSection.renderer`.
report_section = REPORT_SECTIONS.decorator(ReportSection)
# Every registered section, in ``order`` (then registration order).
sections = REPORT_SECTIONS.ordered
