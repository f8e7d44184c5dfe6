"""Commands `datasets` and `fetch`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ordauc.cli import app

if TYPE_CHECKING:
    from ordauc.data.cache import DataCache
    from ordauc.data.spec import Entry

_DATA_DIR_HELP = "Data folder (default: $ORDAUC_DATA, else ./datasets)."


@app.command("datasets")
def datasets_cmd(
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=_DATA_DIR_HELP),  # noqa: UP045, B008
) -> None:
    """List every dataset: name, task, size, classes, source, licence and whether it is cached."""
    from ordauc.data import resolve_data_dir
    from ordauc.data.builtin import BUILTIN
    from ordauc.data.cache import DataCache
    from ordauc.data.catalog import CATALOG

    cache = DataCache(resolve_data_dir(data_dir))
    rows = [("name", "task", "n", "d", "classes", "source", "licence", "cached")]
    rows += [_row(e, cache) for e in [*BUILTIN.values(), *CATALOG.values()]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rows = _fit_licences(rows, widths)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    typer.echo(f"\ndata folder: {cache.root}   (n: training rows, +test rows of the official "
               "split; 5 (p): 5 by default, set by the load parameter p)")


def _row(entry: Entry, cache: DataCache) -> tuple[str, ...]:
    """One line of `ordauc datasets`: the entry's fields, the size of a cached copy if any."""
    n, n_test, cached = entry.n, entry.n_test, "no"
    if entry.builtin:
        cached = "built in"
    elif cache.is_prepared(entry.name):
        m = cache.manifest(entry.name)
        cached = "yes" + (f" ({len(m['warnings'])} warning)" if m.get("warnings") else "")
        n, n_test = m["n"], m.get("n_test")
    return (entry.name, entry.task,
            _count(entry, "n", n) + (f" +{n_test:,}" if n_test else ""),
            _count(entry, "d", entry.d), _count(entry, "n_classes", entry.n_classes),
            entry.origin, entry.licence, cached)


def _count(entry: Entry, field: str, value: int) -> str:
    """A size with the load parameter that changes it, if one does: ``5 (n_bins)``."""
    param = entry.set_by.get(field)
    return f"{value:,}" + (f" ({param})" if param else "")


@app.command("fetch")
def fetch_cmd(
    names: list[str] = typer.Argument(None, help="Dataset names (see `ordauc datasets`), or "  # noqa: B008
                                      "config files (*.yaml): the datasets they name."),
    all_: bool = typer.Option(False, "--all", help="Fetch every dataset of the catalogue."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help=_DATA_DIR_HELP),  # noqa: UP045, B008
    mirror: list[str] = typer.Option(  # noqa: B008
        [], "--mirror", help="Look every file up under its original name at this URL or "
        "folder instead of its hosts (repeatable: tried in order)."),
    force: bool = typer.Option(False, "--force", help="Prepare again even if cached."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bars."),
) -> None:
    """Download, verify, decompress, parse and prepare datasets into the data folder."""
    from ordauc.data import resolve_data_dir
    from ordauc.data.catalog import CATALOG
    from ordauc.data.fetch import fetch
    from ordauc.errors import UserError

    if all_ and names:
        raise UserError("give dataset names or --all, not both")
    if not all_ and not names:
        raise UserError("name at least one dataset to fetch (or --all); `ordauc datasets` "
                        "lists them")
    chosen = list(CATALOG) if all_ else _expand_configs(names)
    if not chosen:
        typer.echo("nothing to fetch: every dataset of the given config(s) is built in")
        return
    fetch(chosen, resolve_data_dir(data_dir), mirror, force=force, progress=not quiet,
          echo=lambda text: typer.echo(text, err=text.startswith("warning")))


def _expand_configs(names: list[str]) -> list[str]:
    """Names as given, a config file (``*.yaml``) replaced by the datasets it names that are
    not built in (those need no fetch)."""
    from ordauc.config import load_config
    from ordauc.data.builtin import BUILTIN

    chosen: list[str] = []
    for name in names:
        if name.endswith((".yaml", ".yml")):
            chosen += [d.name for d in load_config(Path(name)).datasets
                       if d.name not in BUILTIN]
        else:
            chosen.append(name)
    return list(dict.fromkeys(chosen))


def _fit_licences(rows: list[tuple[str, ...]], widths: list[int]) -> list[tuple[str, ...]]:
    """The rows with the licence column (the one before last) cut to what the terminal leaves
    for it: whole where it fits or where the output is not a terminal (piped to a file)."""
    import shutil

    if not sys.stdout.isatty():
        return rows
    columns = shutil.get_terminal_size().columns
    room = columns - (sum(widths) - widths[-2] + 2 * (len(widths) - 1))
    room = max(room, 24)  # below this a licence says nothing: let the line wrap instead
    return [(*r[:-2], _cut(r[-2], room), r[-1]) for r in rows]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3].rstrip() + "..."
