"""Files of the reports, each whole on disk: the output folder, texts, and figures.

Every file is written through :func:`write_atomic` (a temporary file renamed into place, the
runner's own way of writing results), so a table or figure on disk is always complete, and a
failed write leaves the previous file. A set of files (the figures of ``ordauc plot``, the
tables of ``ordauc report``) is written into a hidden folder first and moved in once all of it
is written (:func:`staged`), so a failure midway, a full disk say, leaves the previous set as
it was rather than part of a new one beside it. Figures are drawn on a
:class:`~matplotlib.figure.Figure` with its own Agg canvas rather than through pyplot, which
keeps global figure state and picks a GUI backend; matplotlib is imported inside the functions
so the command line starts fast.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ordauc.errors import NO_SPACE, DiskFull, UserError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "pdf")  # every figure is written in each
DPI = 150


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file renamed into place."""
    from ordauc.results.atomic import write_atomically

    write_atomically(Path(path), data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def prepare_folder(out_dir: Path, what: str = "tables", hint: str = "a writable folder"
                   ) -> bool:
    """Create the output folder for ``what`` (tables, figures); True when it did not exist
    before. A :class:`UserError` names the folder when it is a file or cannot be created."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"output {str(out_dir)!r} is a file; pass a folder for the {what}")
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the {what} folder {str(out_dir)!r} "
                        f"({exc.strerror or exc}); pass {hint}") from None
    return created


@contextlib.contextmanager
def staged(out_dir: Path, what: str) -> Iterator[Path]:
    """A hidden folder inside ``out_dir`` to write a set of ``what`` (figures, tables) into.

    When the block ends without error, every file is moved into ``out_dir`` (renames on one
    disk, which write no data), replacing files of the same name; when it fails, the folder
    and what it holds are removed, leaving ``out_dir`` as it was. A full disk is
    :class:`DiskFull` naming ``out_dir``."""
    stage = out_dir / f".{what}-{os.getpid()}.tmp"
    full = DiskFull.at(out_dir, f"the {what}", "the folder is left as it was")
    try:
        shutil.rmtree(stage, ignore_errors=True)  # a killed run's with our pid: no one's now
        stage.mkdir()
        yield stage
        for path in sorted(stage.iterdir()):
            os.replace(path, out_dir / path.name)
    except DiskFull:  # it named the hidden folder, which the user never sees
        raise full from None
    except OSError as exc:
        if exc.errno in NO_SPACE:
            raise full from None
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def write_texts(out_dir: Path, texts: dict[str, str]) -> list[Path]:
    """Write each ``{file name: text}`` into ``out_dir``, all of them or none (:func:`staged`);
    the written paths."""
    out_dir = Path(out_dir)
    prepare_folder(out_dir)
    try:
        with staged(out_dir, "tables") as stage:
            for name, text in texts.items():
                write_atomic(stage / name, text)
    except OSError as exc:
        raise UserError(f"cannot write tables to {str(out_dir)!r} ({exc.strerror or exc}); "
                        "pass a writable folder") from None
    return [out_dir / name for name in texts]


def new_figure(width: float, height: float, *, constrained: bool = True) -> Figure:
    """A figure of ``width`` x ``height`` inches on its own Agg canvas (constrained layout
    unless ``constrained`` is False, for figures that place their artists themselves)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, out_dir: Path, stem: str, *, tight: bool = False) -> list[Path]:
    """Write ``<out_dir>/<stem>.<format>`` for every format of :data:`FORMATS`; the paths.

    Each format is drawn in memory first, so a drawing that fails writes nothing. With
    ``tight``, the saved area is cropped to what is drawn (for text beyond the axes).
    ``OSError`` is left to the caller, which knows what the files are for.
    """
    extra = {"bbox_inches": "tight", "pad_inches": 0.1} if tight else {}
    paths = []
    for ext in FORMATS:
        drawn = io.BytesIO()
        fig.savefig(drawn, format=ext, dpi=DPI, **extra)
        paths.append(write_atomic(Path(out_dir) / f"{stem}.{ext}", drawn.getvalue()))
    return paths
