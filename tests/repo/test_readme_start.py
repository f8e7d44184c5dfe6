"""The README's Start block works as typed on a fresh clone: each command is a target of the
Makefile or an executable that ``make install`` creates, with a subcommand ``ordauc`` has.

The block itself is not run here (the offline pipeline takes minutes); resolving each command is
what this checks, which is what failed for a new user (``ordauc`` is not on PATH after
``make install``).
"""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import REPO
from fixtures_data.helpers import run_cli

README = REPO / "README.md"
MAKEFILE = REPO / "Makefile"


def start_section() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"^## Start\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, "the README has no Start section"
    return match.group(1)


def start_commands() -> list[list[str]]:
    """The Start block's commands, split as a shell would (comments dropped)."""
    block = re.search(r"```bash\n(.*?)```", start_section(), re.S)
    assert block, "the Start section has no bash block"
    commands = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    return [c for c in commands if c]


def make_targets() -> tuple[set[str], list[str]]:
    """The Makefile's explicit targets and its pattern rules' prefixes (``reproduce-%``)."""
    targets, patterns = set(), []
    for line in MAKEFILE.read_text(encoding="utf-8").splitlines():
        rule = re.match(r"^([A-Za-z0-9_.%/$()-]+(?: [A-Za-z0-9_.%/$()-]+)*):(?!=)", line)
        if rule:
            for name in rule.group(1).split():
                if "%" in name:
                    patterns.append(name.split("%")[0])
                else:
                    targets.add(name)
    assert patterns == ["reproduce-"], patterns  # the one pattern rule the check knows
    return targets, patterns


def installed_executables() -> set[str]:
    """What ``make install`` puts in ``.venv/bin``: the venv's own programs and the console
    scripts of ordauc and of its ``dev`` tools that the README may name."""
    makefile = MAKEFILE.read_text(encoding="utf-8")
    assert re.search(r"^VENV\s*\?=\s*\.venv$", makefile, re.M)
    assert re.search(r'^\t\$\(BIN\)/pip install .*-e "\.\[dev\]"', makefile, re.M)
    # pyproject.toml read with a pattern: tomllib is not in Python 3.10, which ordauc supports
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    scripts = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", pyproject, re.S | re.M)
    assert scripts
    names = set(re.findall(r"^([A-Za-z0-9_-]+)\s*=", scripts.group(1), re.M))
    dev = re.search(r"^dev\s*=\s*\[(.*?)\]", pyproject, re.S | re.M)
    assert dev
    tools = {t for t in ("pytest", "ruff") if f'"{t}' in dev.group(1)}
    return {"python", "python3", "pip", "activate", *names, *tools}


def test_the_start_block_has_the_commands_a_new_user_types() -> None:
    commands = start_commands()
    assert commands[0][:2] == ["make", "install"]
    assert any(c[0].endswith("ordauc") for c in commands)


@pytest.mark.parametrize("command", start_commands(), ids=lambda c: " ".join(c))
def test_each_start_command_resolves_after_make_install(command: list[str]) -> None:
    word = command[0]
    if word in (".", "source"):
        word, command = command[1], command[1:]
    if word == "make":
        targets, patterns = make_targets()
        goals = [a for a in command[1:] if "=" not in a and not a.startswith("-")]
        assert goals, command
        for goal in goals:
            if goal in targets:
                continue
            # reproduce-% runs configs/<stem>.yaml: the stem must be a study
            assert any(goal.startswith(p) for p in patterns), (
                f"`make {goal}`: no such target in the Makefile")
            assert (REPO / "configs" / f"{goal.removeprefix('reproduce-')}.yaml").is_file(), goal
        return
    # Anything else must be a path that `make install` creates, typed as such: a bare program
    # name would need the venv on PATH, which `make install` does not do.
    assert word.startswith(".venv/bin/"), f"{word!r} is not on PATH after `make install`"
    assert word.removeprefix(".venv/bin/") in installed_executables(), word
    if word == ".venv/bin/ordauc":
        code, _, err = run_cli(command[1], "--help")
        assert code == 0, f"`ordauc {command[1]}` is not a subcommand: {err}"


def test_the_start_prose_names_no_bare_ordauc_command() -> None:
    """Commands quoted in the Start prose are typed as printed too."""
    prose = re.sub(r"```.*?```", "", start_section(), flags=re.S)
    bare = [span for span in re.findall(r"`([^`]+)`", prose) if span.startswith("ordauc ")]
    assert bare == []


def test_the_start_trial_runs_exactly_the_start_block() -> None:
    # `make start-trial` (scripts/start_trial.sh) runs the block on a fresh clone with no
    # network; what it runs must be what the README shows, line for line.
    import subprocess

    done = subprocess.run([str(REPO / "scripts" / "start_trial.sh"), "--commands"],
                          capture_output=True, text=True, check=True)
    assert [shlex.split(line) for line in done.stdout.splitlines()] == start_commands()
