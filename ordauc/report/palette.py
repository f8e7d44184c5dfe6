"""One look per solver label (colour, marker, line style, hatch), the same in every figure.

Every figure of a study (boxplots, time and metric curves, critical-difference diagrams,
cross-validation bars, tuning and convergence lines) draws a label in the :class:`Style` that
:func:`study_palette` gives it, built once from the study's whole results table. A reader who
learns in one figure that PNU-AUC is green finds it green in every other figure of the study,
and in the other studies of its paper.

How a label's style is decided:

- The colour comes from the label's *base* solver, read from the results (the ``solver_name``
  column says which registry solver a label ran; a wrapper M-X runs X): every built-in solver
  has a fixed colour and marker in :data:`BASE_STYLES`, chosen so that the methods of one
  paper never share a colour. The papers' own methods are red (QS3ORAO a darker red, so the
  quick-start study that runs both keeps them apart). A solver the registry does not know gets
  a colour from a stable hash of its name (CRC-32, not Python's salted ``hash``) into
  :data:`EXTRA_COLOURS`, moved on to the next free one if another unknown solver of the study
  took it.
- A label that is its base solver (``pnu_auc`` running ``pnu_auc``) is drawn solid in its
  base's marker. Any other label of that base is a *variant*: a wrapper (M-SAMULT beside
  SAMULT), an ablation (``qsg_s2auc_gamma1``), a protocol variant (``auc_sdcd_paper``,
  ``auc_sdcd_cv``) or one value of a sweep (``npsvor.eps=0.1``). A variant keeps its base's
  colour, so the family stays visible, and takes its own marker, dash and hatch from a slot:
  a wrapper always slot 0 (dashed, squares, ``///``), other variants the slot a stable hash
  of the label points to (the next free one on a clash within the base). The same label thus
  looks the same in every study it appears in. The slots give 30 different (marker, dash)
  pairs; a solver with more variants than that (a sweep over a grid of two parameters: 121
  labels) draws each further round of 29 in a lighter shade of its colour, so every label
  still looks different from every other.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import pandas as pd

from ordauc.report.load import Names, base_solver_of, is_wrapper, own_label, solver_meta
from ordauc.results.frame import solver_names

BASE_DASH = "-"

# Registry solver -> (colour, marker). Within each paper's set of methods the colours differ:
# NPSVOR (npsvor and its nine baselines: tab10's ten hues), QSG-S2AUC / QS3ORAO (the proposed
# method, svc_rbf, pnu_auc, samult and, for QS3ORAO, svorex and svorim) and AUC-DCD (six
# methods). A hue shared across papers comes with another marker, so no two built-ins share
# both.
BASE_STYLES: dict[str, tuple[str, str]] = {
    # NPSVOR paper
    "npsvor": ("#d62728", "P"),
    "svc1v1": ("#1f77b4", "v"),
    "svc1va": ("#ff7f0e", "^"),
    "svr": ("#2ca02c", "<"),
    "cssvc": ("#9467bd", ">"),
    "svmop": ("#e377c2", "p"),
    "svorex": ("#8c564b", "s"),
    "svorim": ("#17becf", "D"),
    "redsvm": ("#7f7f7f", "h"),
    "opbe": ("#bcbd22", "*"),
    # QSG-S2AUC and QS3ORAO papers (wrappers M-X take X's colour)
    "qsg_s2auc": ("#d62728", "o"),
    "qs3orao": ("#8b0000", "D"),
    "svc_rbf": ("#1f77b4", "o"),
    "pnu_auc": ("#2ca02c", "o"),
    "samult": ("#9467bd", "o"),
    # AUC-DCD paper
    "auc_sdcd": ("#d62728", "^"),
    "auc_sdcdperm": ("#ff7f0e", "v"),
    "auc_msgd": ("#9467bd", "H"),
    "oam_inf": ("#1f77b4", "s"),
    "oam_seq": ("#2ca02c", "X"),
    "oam_gra": ("#8c564b", "d"),
}

# Solvers outside the table: a qualitative list (tab20b's dark and mid shades and a few of
# tab20's), none equal to a colour of BASE_STYLES.
EXTRA_COLOURS = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252",
                 "#bd9e39", "#ad494a", "#a55194", "#6b6ecf", "#b5cf6b", "#e7ba52", "#d6616b",
                 "#ce6dbd", "#aec7e8", "#ffbb78", "#98df8a")
EXTRA_MARKER = "o"

# Variant slots: slot k draws marker VARIANT_MARKERS[k % 10] and dash VARIANT_DASHES[k % 3];
# 10 and 3 are coprime, so the first 30 slots are 30 different (marker, dash) pairs.
VARIANT_MARKERS = ("s", "^", "D", "v", "X", "P", "<", ">", "h", "*")
VARIANT_DASHES = ("--", ":", "-.")
VARIANT_HATCHES = ("///", "\\\\\\", "xxx", "...", "+++", "ooo", "---", "|||")
SLOTS = len(VARIANT_MARKERS) * len(VARIANT_DASHES)
LIGHTER = 0.25  # each further round of variant slots mixes in this much more white
WRAPPER_SLOT = 0  # a wrapper M-X beside X: dashed squares, as the QS3ORAO paper's figures


@dataclass(frozen=True)
class Style:
    """How one solver label is drawn.

    Parameters
    ----------
    colour : str
        Hex colour of its base solver.
    marker : str
        matplotlib marker of its points (and of its legend entry).
    dash : str
        matplotlib line style: ``"-"`` for a base solver, ``"--"``, ``":"`` or ``"-."`` for a
        variant.
    hatch : str or None
        Hatch of its boxes and bars (None for a base solver).
    family : str
        The colour of its base solver (equal to ``colour`` but for the lighter shades of a
        solver with more than 29 variants); empty means ``colour``.
    """

    colour: str
    marker: str
    dash: str
    hatch: str | None = None
    family: str = ""

    def line(self) -> dict[str, str]:
        """Keyword arguments of ``Axes.plot`` for a line in this style."""
        return {"color": self.colour, "marker": self.marker, "linestyle": self.dash}

    @property
    def key(self) -> tuple[str, str, str]:
        """What tells two labels apart in a figure: (colour, marker, dash)."""
        return (self.colour, self.marker, self.dash)


def _lighter(colour: str, level: int) -> str:
    """``colour`` mixed with white, a little more at each ``level`` (0: itself)."""
    from matplotlib.colors import to_hex, to_rgb

    white = 1.0 - (1.0 - LIGHTER) ** level
    return to_hex(tuple(c + (1.0 - c) * white for c in to_rgb(colour)))


def _stable(text: str) -> int:
    """A hash that is the same in every process (Python's ``hash`` of a str is salted)."""
    return zlib.crc32(text.encode("utf-8"))


class Palette(Mapping[str, Style]):
    """The :class:`Style` of every solver label of a study (a read-only mapping).

    A label the palette was not built with is drawn in a neutral grey style rather than
    failing; :func:`study_palette` builds it from every label of the results, so that does not
    happen for the study's own figures.
    """

    def __init__(self, styles: Mapping[str, Style]) -> None:
        self._styles = dict(styles)

    def __getitem__(self, label: str) -> Style:
        return self._styles[label]

    def __iter__(self) -> Iterator[str]:
        return iter(self._styles)

    def __len__(self) -> int:
        return len(self._styles)

    def style(self, label: str) -> Style:
        """The label's style, grey for a label the palette does not hold."""
        return self._styles.get(str(label), Style("#7f7f7f", "o", BASE_DASH))

    def colour(self, label: str) -> str:
        """The label's colour."""
        return self.style(label).colour

    def colours(self) -> dict[str, str]:
        """Label -> colour."""
        return {label: s.colour for label, s in self._styles.items()}


def _base_colours(bases: Iterable[str]) -> dict[str, tuple[str, str]]:
    """(colour, marker) per base solver: the table's, else a hashed free extra colour."""
    out: dict[str, tuple[str, str]] = {}
    unknown = sorted(b for b in set(bases) if b not in BASE_STYLES)
    for base in set(bases) - set(unknown):
        out[base] = BASE_STYLES[base]
    taken = {colour for colour, _ in out.values()}
    for base in unknown:
        start = _stable(base) % len(EXTRA_COLOURS)
        for step in range(len(EXTRA_COLOURS)):
            colour = EXTRA_COLOURS[(start + step) % len(EXTRA_COLOURS)]
            if colour not in taken:
                break
        taken.add(colour)
        out[base] = (colour, EXTRA_MARKER)
    return out


def solver_palette(labels: Iterable[str], names: Names | None = None) -> Palette:
    """The palette of ``labels`` (``names``: label -> registry name, see
    :func:`ordauc.results.frame.solver_names`; without it each label is its own solver)."""
    labels = sorted({str(label) for label in labels})
    names = dict(names or {})
    base_of = {label: base_solver_of(label, names) for label in labels}
    bases = _base_colours(base_of.values())
    styles: dict[str, Style] = {}
    used: dict[str, set[int]] = {}
    # wrappers take their reserved slot before any hashed variant can land on it
    wrappers = [lb for lb in labels if is_wrapper(lb, names) and own_label(lb, names)]
    others = [lb for lb in labels if lb not in wrappers]
    for label in [*wrappers, *others]:
        base = base_of[label]
        colour, marker = bases[base]
        meta = solver_meta(label, names)
        if own_label(label, names) and not (meta is not None and meta.wrapper_of):
            styles[label] = Style(colour, marker, BASE_DASH, family=colour)
            continue
        taken = used.setdefault(base, set())
        if label in wrappers and WRAPPER_SLOT not in taken:
            slot = WRAPPER_SLOT
        else:
            start = 1 + _stable(label) % (SLOTS - 1)
            # the hashed slot, else the next free one: first in the first round of slots,
            # then in further rounds (lighter shades)
            rounds = 1 + len(taken) // (SLOTS - 1)
            order = [r * (SLOTS - 1) + 1 + (start - 1 + i) % (SLOTS - 1)
                     for r in range(rounds + 1) for i in range(SLOTS - 1)]
            slot = next(s for s in order if s not in taken)
        taken.add(slot)
        level, k = divmod(slot - 1, SLOTS - 1) if slot else (0, -1)
        k += 1  # the slot within its round: 0 (wrappers) .. SLOTS - 1
        styles[label] = Style(_lighter(colour, level), VARIANT_MARKERS[k % len(VARIANT_MARKERS)],
                              VARIANT_DASHES[k % len(VARIANT_DASHES)],
                              VARIANT_HATCHES[k % len(VARIANT_HATCHES)], family=colour)
    return Palette(styles)


def study_palette(results: pd.DataFrame) -> Palette:
    """The palette of every solver label of a results table (built once per study, handed
    to every figure)."""
    return solver_palette(results["solver"].astype(str), solver_names(results))
