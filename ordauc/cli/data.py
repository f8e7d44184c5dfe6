"""Commands `datasets` and `fetch`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

import typer

from ordauc.cli import app

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
    for name, (_, task, summary) in BUILTIN.items():
        size = re.search(r"(\d[\d,]*) x (\d+)", summary)
        n, d = (size.group(1), size.group(2)) if size else ("any", "any")
        rows.append((name, task, n, d, "2" if task == "binary" else "5", "built in",
                     "built in", "built in"))
    for name, e in CATALOG.items():
        n = f"{e.n:,}" + (f" +{e.n_test:,}" if e.n_test else "")
        cached = "no"
        if cache.is_prepared(name):
            m = cache.manifest(name)
            cached = "yes" + (f" ({len(m['warnings'])} warning)" if m.get("warnings") else "")
            n = f"{m['n']:,}" + (f" +{m['n_test']:,}" if m.get("n_test") else "")
        rows.append((name, e.task, n, f"{e.d:,}", str(e.n_classes), e.origin,
                     _short(e.licence), cached))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    typer.echo(f"\ndata folder: {cache.root}   (n: training rows, +test rows of the official "
               "split)")


@app.command("fetch")
def fetch_cmd(
    names: list[str] = typer.Argument(None, help="Dataset names (see `ordauc datasets`)."),  # noqa: B008
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
    chosen = list(CATALOG) if all_ else names
    fetch(chosen, resolve_data_dir(data_dir), mirror, force=force, progress=not quiet,
          echo=lambda text: typer.echo(text, err=text.startswith("warning")))


def _short(licence: str) -> str:
    head = licence.split(";")[0].split("(")[0].strip()
    return head if len(head) <= 40 else head[:37] + "..."
