"""The README's cost table ("core-hours, paper" and "core-hours, quick" per study), computed
again: the dry run's estimate of every shipped study under both profiles, on this machine, with
the datasets taken as not fetched (sizes from the catalogue, calibrations on synthetic rows,
as the table states) and the memory guard of ``make reproduce`` on every core.

    python benchmarks/cost_table.py [--data-dir DIR] [--jobs N] [STEM ...]

Prints the table's rows and the ``CORE_HOURS`` entries of :mod:`ordauc.claims.costs` (which a
test keeps equal to the README); paste both. The two convergence studies keep their measured
figures (the dry run does not cost their reference fits and checkpoints) and are left out
unless named. Calibrations are kept in the machine's cache (``$ORDAUC_CACHE``) as by any dry
run: a second call times nothing again.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASURED = {"qsg_s2auc_convergence", "qs3orao_convergence"}  # not the dry run's figures


def core_hours(stem: str, profile: str, data_dir: str, jobs: int) -> float:
    """The dry run's total core-hours of ``configs/<stem>.yaml`` under ``profile``."""
    from ordauc.config import load_config
    from ordauc.experiment import RunOptions
    from ordauc.experiment.estimate import core_hours as total
    from ordauc.experiment.estimate import dry_run_costs
    from ordauc.experiment.preflight import default_memory_limit
    from ordauc.experiment.runner import dry_run

    study = load_config(REPO / "configs" / f"{stem}.yaml")
    with tempfile.TemporaryDirectory() as out:
        options = RunOptions(out=Path(out) / "out", data_dir=data_dir, n_jobs=jobs,
                             profile=profile)
        report = dry_run(study, options)
        limit = study.memory_limit or default_memory_limit()
        return total(dry_run_costs(report, study, data_dir, memory_share=limit // jobs))


def readme_rows() -> dict[str, str]:
    """The study column's description per stem, as the README has it."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \| [\d.,]+ \| [\d.,]+ \|$", text,
                           flags=re.MULTILINE))


def main() -> None:
    from ordauc.claims.costs import CORE_HOURS, _hours

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stems", nargs="*", default=[s for s in CORE_HOURS if s not in MEASURED])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    described = readme_rows()
    found = dict(CORE_HOURS)
    with tempfile.TemporaryDirectory() as empty:
        for stem in args.stems:
            start, cpu = time.perf_counter(), time.process_time()
            found[stem] = tuple(core_hours(stem, p, args.data_dir or empty, args.jobs)
                                for p in ("paper", "quick"))
            print(f"{stem}: {found[stem][0]:.4g} / {found[stem][1]:.4g} core-hours (dry runs: "
                  f"{time.process_time() - cpu:.0f} CPU s, {time.perf_counter() - start:.0f} s)",
                  file=sys.stderr)
    paper = sum(v[0] for v in found.values())
    quick = sum(v[1] for v in found.values())
    print("| study (config) | paper | core-hours, paper | core-hours, quick |")
    print("|---|---|---:|---:|")
    for stem, (p, q) in found.items():
        print(f"| `{stem}` | {described.get(stem, '').strip()} | {_hours(p)} | {_hours(q)} |")
    print(f"| **all** | | **{paper:,.0f}** | **{quick:,.0f}** |\n")
    for stem, (p, q) in found.items():
        print(f'    "{stem}": ({_hours(p).replace(",", "_")}, {_hours(q).replace(",", "_")}),')


if __name__ == "__main__":
    main()
