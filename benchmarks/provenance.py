"""When, at which commit and on what machine a benchmark ran: the keys every results JSON carries.

Every bench script stamps its ``benchmarks/results/<name>.json`` through :func:`provenance`, so
that the page (``benchmarks/report.py``) can say, section by section, where its figures came
from under the same keys.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def git_commit(where: Path = ROOT) -> str:
    """``git rev-parse --short HEAD`` of ``where``, ``+dirty`` when tracked files have local
    changes (the figures then come from code no commit holds); '' outside a git checkout."""
    from ordauc.experiment.provenance import git_sha

    return git_sha(where, length=7)


def _cpu_model() -> str | None:
    """The processor's model name (Linux), which ``platform`` does not give."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def provenance() -> dict[str, Any]:
    """When, at which commit and on what machine a benchmark runs: the keys every JSON carries.

    Taken at the start of a run; the load average is there because the machine may be shared,
    and other work slows the figures down."""
    try:
        import numpy

        numpy_version: str | None = numpy.__version__
    except ImportError:
        numpy_version = None
    return {"measured_at": time.strftime("%Y-%m-%d %H:%M"), "git_sha": git_commit(),
            "machine": platform.machine(), "cpu": _cpu_model(), "cpus": os.cpu_count(),
            "platform": platform.platform(), "python": platform.python_version(),
            "numpy": numpy_version, "load_average_start": list(os.getloadavg())}
