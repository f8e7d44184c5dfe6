"""The ``ordauc`` command line: a typer app whose commands live in one module per area.

User errors (:class:`ordauc.errors.UserError`) print one sentence on stderr, no traceback, and
exit with code 2 (3 for a download that failed on every source,
:class:`ordauc.errors.NetworkError`; 1 for a full disk, :class:`ordauc.errors.DiskFull`, also
where a write the commands do not expect to fail finds no room). Heavy imports happen inside
the commands, so ``ordauc --help`` stays instant.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ordauc.errors import NO_SPACE, DiskFull, UserError


def _hide_flag_types() -> None:
    """Show no type beside a flag in ``--help``: typer labels every flag ``<bool>``, which
    reads as though ``--force`` took a value (click's own help shows flags bare)."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_ordauc_flags_bare", False):
        return

    def display_type_rich(self: TyperOption, ctx: object) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._ordauc_flags_bare = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_hide_flag_types()

app = typer.Typer(
    name="ordauc",
    help="Reproduce semi-supervised AUC optimisation and ordinal regression benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstrings wrap as paragraphs, `code` shows as code
)


@app.callback()
def _root() -> None:
    """Reproduce semi-supervised AUC optimisation and ordinal regression benchmarks."""


def _register() -> None:
    # Each module adds its commands to `app` on import.
    from ordauc.cli import data, experiment, report  # noqa: F401


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    _register()
    try:
        app(args=argv, prog_name="ordauc")
    except UserError as exc:
        print(f"ordauc: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:
        if exc.errno not in NO_SPACE:
            raise
        # a write no command names itself (a lock file, a data cache): still one sentence
        where = Path(str(exc.filename)) if exc.filename else None
        full = (DiskFull.at(where.parent, where.name) if where is not None else
                DiskFull("a disk ordauc writes to is full; free some space and run the same "
                         "command again"))
        print(f"ordauc: error: {full}", file=sys.stderr)
        sys.exit(full.exit_code)
