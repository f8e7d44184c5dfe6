"""The registry of figure families: each kind of figure ``ordauc plot`` draws is one
:class:`FigureFamily`, registered by the module that draws it.

A family says whether it has anything to draw for a study (``applies_to``), computes what it
draws (``data``: every number and every check, before the figures folder is touched) and draws
it (``draw``: writes its files into the folder it is given, returns their paths).
:func:`ordauc.report.plots.plot_results` runs every registered family in ``order``; it knows
none of them by name. The families of the four papers register themselves in their modules
(:mod:`ordauc.report.plots`, :mod:`~ordauc.report.convergence`, :mod:`~ordauc.report.sweeps`,
...); a paper's own folder registers more with :func:`figure_family`::

    @figure_family("gap", order=900, applies_to=lambda s: "gap" in s.results.columns)
    def gap(study: PlotStudy) -> pd.DataFrame: ...   # the data

    @gap.drawer
    def draw_gap(frame: pd.DataFrame, study: PlotStudy, out: Path) -> list[Path]: ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ordauc.report.registry import Registry

if TYPE_CHECKING:
    from ordauc.report.figdata import AucPanel
    from ordauc.report.palette import Palette


@dataclass
class PlotStudy:
    """What every figure family reads of one results folder.

    ``results`` has every row; ``plain`` the rows other than a sweep's labels (a swept entry's
    labels get their sweep figure, not a box or line each) and ``shown`` its datasets;
    ``metrics`` the metrics asked for (default: the study's own); ``tuned`` the metrics its
    config tunes by; ``stems`` a file-name-safe stem per dataset; ``palette`` one style per
    solver label; ``quick`` whether some row comes from the quick profile. ``n_labeled``,
    ``n_unlabeled`` and ``complete`` are the sizes asked for on the command line.
    """

    directory: Path
    results: pd.DataFrame
    plain: pd.DataFrame
    shown: list[str]
    metrics: tuple[str, ...]
    tuned: tuple[str, ...]
    stems: dict[str, str]
    palette: Palette
    quick: bool
    n_labeled: int | None = None
    n_unlabeled: int | None = None
    complete: bool = False
    swept: dict[str, tuple[tuple[str, ...], list[str]]] = field(default_factory=dict)

    @cached_property
    def stem(self) -> str:
        """The study this folder serves: the file stem of the config it ran (the folder's
        name where it keeps no record), as the claims name studies; a paper's families
        apply to its own studies by it."""
        return study_stem(self.directory)

    @cached_property
    def auc_panels(self) -> list[AucPanel]:
        """The AUC boxplot of each shown dataset where some solver has an AUC (a study of
        label-only solvers has none); two families draw them, so they are computed once."""
        from ordauc.report.figdata import auc_panel
        from ordauc.report.load import has_values

        plain = self.plain
        return [auc_panel(plain, d, self.n_labeled, self.n_unlabeled, self.complete)
                for d in self.shown if has_values(plain[plain["dataset"] == d], "auc")]


@dataclass
class FigureFamily:
    """One kind of figure: its ``name``, where it stands among the others (``order``: the
    files are listed in it), whether it ``applies_to`` a study, the ``data`` it draws and
    how it draws them (``draw(data, study, folder) -> paths``)."""

    name: str
    order: int
    applies_to: Callable[[PlotStudy], bool]
    data: Callable[[PlotStudy], Any]
    draw: Callable[[Any, PlotStudy, Path], list[Path]] | None = None

    def drawer(self, draw: Callable[[Any, PlotStudy, Path], list[Path]]
               ) -> Callable[[Any, PlotStudy, Path], list[Path]]:
        """Decorator: ``draw`` draws this family's data."""
        self.draw = draw
        return draw


FIGURE_FAMILIES: Registry[FigureFamily] = Registry("figure family", "figure families", "draw",
                                                   "a drawing")


def study_stem(directory: Path) -> str:
    """The file stem of the config the results folder ``directory`` ran (its name where the
    folder keeps no record of it)."""
    from ordauc.results.record import read_study_record

    record = read_study_record(directory)
    return record.stem if record else Path(directory).name


# ``figure_family(name, *, order, applies_to=always)``: register the decorated function as the
# ``data`` of a figure family; the family it returns takes its drawing with
# :meth:`FigureFamily.drawer`.
figure_family = FIGURE_FAMILIES.decorator(FigureFamily)
# Every registered family, in ``order`` (then registration order).
families = FIGURE_FAMILIES.ordered
