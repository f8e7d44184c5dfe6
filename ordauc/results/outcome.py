"""What one cell gives back: its results row and what goes beside it (curve points, tuning
scores, a failure's traceback), as typed fields rather than private keys of the row."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class CellOutcome:
    """The outcome of one cell, as the cell hands it to the runner and the runner hands it
    to the writer (:func:`ordauc.results.write.record`).

    Parameters
    ----------
    row : dict
        The results row's columns (:func:`ordauc.results.schema.columns`); a column left out is
        written empty.
    curves : list of dict
        The cell's curve points (``iteration``, ``time_s``, ``metric``, ``value``); the writer
        prefixes each with the cell's key fields.
    tuning : list of dict
        Every grid point's score behind the cell's choice (``point``, ``metric``, ``score``
        and the point's ``p_<name>`` columns), prefixed likewise.
    traceback : str or None
        The full traceback of a failed fit, kept in ``OUT/logs/<key>.log``.
    """

    row: dict[str, Any]
    curves: list[dict[str, Any]] = field(default_factory=list)
    tuning: list[dict[str, Any]] = field(default_factory=list)
    traceback: str | None = None

    def under(self, head: dict[str, Any], tail: dict[str, Any] | None = None) -> CellOutcome:
        """This outcome with ``head`` columns before its own and ``tail`` columns after
        (each overriding what comes before it), its side rows and traceback kept."""
        return CellOutcome({**head, **self.row, **(tail or {})}, self.curves, self.tuning,
                           self.traceback)

    @property
    def status(self) -> str:
        """The row's status (''  where it has none yet)."""
        return str(self.row.get("status", ""))
