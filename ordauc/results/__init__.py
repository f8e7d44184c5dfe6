"""The study folder, owned in one place: what it holds (:mod:`~ordauc.results.schema`: file
names, columns, statuses, keys and labels with their one formatter and parser), the typed
folder (:class:`StudyFolder`), the one reader (:mod:`~ordauc.results.read`), the one writer
(:mod:`~ordauc.results.write`, crash-safe appends, :mod:`~ordauc.results.atomic`), a cell's
typed outcome (:class:`CellOutcome`) and the results as a typed frame
(:mod:`~ordauc.results.frame`, which imports pandas and so is not imported here).

The runner, the report and the claims read and write a folder only through this package; it
imports nothing of theirs.
"""

from ordauc.results.folder import StudyFolder
from ordauc.results.outcome import CellOutcome
from ordauc.results.record import StudyRecord

__all__ = ["CellOutcome", "StudyFolder", "StudyRecord"]
