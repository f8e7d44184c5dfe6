"""A paper beyond the four: one folder, loaded without an edit anywhere else.

The folder holds the paper's configs (``*.yaml``, run with ``ordauc run``: a config's file
stem names its study, which the paper's claims name) and Python modules that register, through
the public seams, its claims (:func:`ordauc.claims.register_paper`,
:func:`ordauc.claims.claim`), its figure families
(:func:`ordauc.report.figure_families.figure_family`) and its report sections
(:func:`ordauc.report.sections.report_section`). :func:`load_paper` imports those modules;
``ordauc plot`` and ``ordauc report`` load every folder named in the ``ORDAUC_PAPERS``
environment variable (paths separated as in ``PATH``) and every module of the
``ordauc.papers`` entry-point group of an installed package.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ordauc.errors import UserError

PAPERS_VARIABLE = "ORDAUC_PAPERS"
ENTRY_POINT_GROUP = "ordauc.papers"


@dataclass(frozen=True)
class PaperFolder:
    """A loaded paper folder: where it is, its configs and the modules it registered from."""

    folder: Path
    configs: tuple[Path, ...]
    modules: tuple[str, ...]


# Loaded once per process: a module registers its claims and families on import, and a second
# import would register them twice (an error of the registries).
_LOADED: dict[Path, PaperFolder] = {}


def _module_name(path: Path) -> str:
    """A module name of its own per file (two papers may both have a ``claims.py``)."""
    digest = hashlib.sha256(str(path.parent).encode()).hexdigest()[:10]
    return f"ordauc_paper_{digest}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"


def load_paper(folder: str | Path) -> PaperFolder:
    """Import every module of the paper folder ``folder`` (by file name), which registers the
    paper's claims, figure families and report sections; the folder's configs."""
    folder = Path(folder).resolve()
    if folder in _LOADED:
        return _LOADED[folder]
    if not folder.is_dir():
        raise UserError(f"the paper folder {str(folder)!r} does not exist")
    modules = []
    for path in sorted(folder.glob("*.py")):
        name = _module_name(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise UserError(f"cannot import {str(path)!r} of the paper folder {str(folder)!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # one sentence naming the file, not a bare traceback
            del sys.modules[name]
            raise UserError(f"the paper module {str(path)!r} could not be imported: "
                            f"{exc}") from exc
        modules.append(name)
    loaded = _LOADED[folder] = PaperFolder(folder, tuple(sorted(folder.glob("*.yaml"))),
                                           tuple(modules))
    return loaded


def load_papers(environ: Mapping[str, str] | None = None) -> list[PaperFolder]:
    """Load the paper folders named in ``ORDAUC_PAPERS`` and the modules of the
    ``ordauc.papers`` entry-point group; the folders loaded."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:
            raise UserError(f"the paper plugin {entry.name!r} ({entry.value}) could not be "
                            f"imported: {exc}") from exc
    named = (os.environ if environ is None else environ).get(PAPERS_VARIABLE, "")
    return [load_paper(part) for part in named.split(os.pathsep) if part.strip()]
