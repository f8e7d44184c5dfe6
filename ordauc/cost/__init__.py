"""What a run will cost before it starts: the cost model of the dry run's estimate.

``calibration`` times a solver's fits on this machine and fits the law of ``costlaw`` to
them; ``overhead`` measures what a cell pays besides its fits; ``sizes`` reads a cell's sizes
off the pre-flight or the catalogue; ``points`` picks the grid points a calibration times;
``estimate`` prices the fits every cell will make. Which fits those are, each tuner states
itself (``planned_fits``): the runner hands the estimate a :class:`~ordauc.cost.fits.Runtime`
that asks the tuners and runs what the estimate measures of the runner. This package imports
nothing of :mod:`ordauc.experiment` (a test checks its imports).
"""

from __future__ import annotations

from ordauc.cost.fits import CellShape, PlannedFit, Runtime

__all__ = ["CellShape", "PlannedFit", "Runtime"]
