"""The provenance columns of a run's rows: which ordauc, commit, Python, numpy and platform
made them, and the machine's memory (their names: :data:`ordauc.results.schema.PROVENANCE`)."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import numpy as np

from ordauc.results.schema import PROVENANCE


def provenance() -> dict[str, str]:
    """The provenance columns shared by every row of a run (``started_at`` is per cell);
    ``machine_memory_gb`` is the machine's physical memory, the fact the papers' memory
    claims are about (a config's ``memory_limit`` is only what the run allowed itself)."""
    import ordauc
    from ordauc.experiment.preflight import physical_memory

    memory = physical_memory()
    values = {"ordauc_version": ordauc.__version__, "git_sha": git_sha(),
              "python": platform.python_version(), "numpy": np.__version__,
              "platform": platform.platform(),
              "machine_memory_gb": f"{memory / 1e9:.1f}" if memory else ""}
    return {column: values[column] for column in PROVENANCE}  # the schema's names, no other


def git_sha(where: Path | None = None, length: int = 12) -> str:
    """The commit of ``where`` (default: the ordauc source tree), ``length`` hex digits,
    ``+dirty`` when tracked files have local edits; '' outside git."""
    where = where or Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", f"--short={length}", "HEAD"], cwd=where,
                             text=True, capture_output=True, timeout=10, check=True
                             ).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=where, text=True, capture_output=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return sha + ("+dirty" if dirty.strip() else "")
