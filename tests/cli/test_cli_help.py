"""What the command line shows of itself: flags without a type in ``--help``, and the dataset
catalogue's licences whole unless the terminal is too narrow for them."""

from __future__ import annotations

import os
import sys

import pytest


def test_help_shows_flags_bare_and_typed_options_with_their_type(cli) -> None:
    code, out, _ = cli("run", "--help")
    assert code == 0
    assert "<bool>" not in out
    assert "--dry-run" in out and "--force" in out
    assert "<int>" in out  # --n-jobs still says what it takes


def test_datasets_piped_lists_every_licence_whole(cli) -> None:
    from ordauc.data.catalog import CATALOG

    code, out, _ = cli("datasets")
    assert code == 0
    for entry in CATALOG.values():
        assert entry.licence in out, entry.name


def test_datasets_on_a_narrow_terminal_cut_the_licences_to_fit(cli, monkeypatch) -> None:
    import shutil

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((200, 40)))
    from ordauc.data.catalog import CATALOG

    code, out, _ = cli("datasets")
    table = out.split("\n\n")[0].splitlines()
    assert code == 0 and all(len(line) <= 200 for line in table)
    longest = max((e.licence for e in CATALOG.values()), key=len)
    assert longest not in out and any(line.rstrip().endswith(("no", "yes", "built in"))
                                      and "..." in line for line in table)


@pytest.mark.parametrize("width", [400])
def test_datasets_on_a_wide_terminal_keep_the_licences_whole(cli, monkeypatch, width) -> None:
    import shutil

    from ordauc.data.catalog import CATALOG

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((width, 40)))
    code, out, _ = cli("datasets")
    assert code == 0 and all(e.licence in out for e in CATALOG.values())
