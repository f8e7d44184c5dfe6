"""Shared pieces of the data tests: the mirror fixture, running the CLI, patching entries."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fixtures_data.server import MirrorServer

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"


def shared_or_skip(*parts: str) -> Path:
    """A path under ``<repo>/../shared/data``, or skip: a fresh clone has no ../shared."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the shared real-data folder beside the repository), "
                    "which is absent here")
    return path


def serve(tmp_path: Path) -> Iterator[MirrorServer]:
    """Body of the test modules' ``mirror`` fixture: a local HTTP mirror of ``tmp_path/mirror``."""
    root = tmp_path / "mirror"
    root.mkdir()
    with MirrorServer(root) as server:
        yield server


def run_cli(*argv: str) -> tuple[int, str, str]:
    """Run ``ordauc`` in-process; return exit code, stdout and stderr."""
    from ordauc.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def fetch_ok(server: MirrorServer, data_dir: Path, *names: str) -> str:
    """``ordauc fetch NAMES --mirror <server>/good``; fail the test unless it succeeds."""
    code, out, err = run_cli("fetch", *names, "--mirror", f"{server.url}/good",
                             "--data-dir", str(data_dir), "--quiet")
    assert code == 0, err
    return out + err


def patch_entry(monkeypatch: pytest.MonkeyPatch, name: str, unpin: bool = True,
                **options: Any) -> None:
    """Replace a catalogue entry for one test: drop its checksum pins, override options.

    Fixtures are not the hosts' files, so a pinned hash can never match them; the pin checks
    themselves are tested separately.
    """
    from ordauc.data.catalog import CATALOG

    entry = CATALOG[name]
    sources = {role: replace(s, sha256=None, md5=None) if unpin else s
               for role, s in entry.sources.items()}
    monkeypatch.setitem(CATALOG, name, replace(entry, sources=sources,
                                               options={**entry.options, **options}))


def empty_of_data(data_dir: Path, name: str) -> bool:
    """True when the cache holds nothing of ``name``: no dataset, no staging or partial files."""
    leftovers = [p for p in (data_dir / name, data_dir / ".staging", data_dir / ".partial")
                 if p.exists()]
    return not leftovers


def mirror_builder() -> Any:
    """scripts/build_offline_mirror.py as a module (the scripts folder is no package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_offline_mirror", REPO / "scripts" / "build_offline_mirror.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
