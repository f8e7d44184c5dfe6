"""The README's cost table ("core-hours, paper" and "core-hours, quick" per study), computed
again: the dry run's estimate of every shipped study under both profiles, on this machine, with
the datasets taken as not fetched (sizes from the catalogue, calibrations on synthetic rows,
as the table states) and the memory guard of ``make reproduce`` on every core.

    python benchmarks/cost_table.py [--data-dir DIR] [--jobs N] [--json FILE [--before REV]]
                                    [STEM ...]

Prints the table's rows and the ``CORE_HOURS`` entries of :mod:`ordauc.claims.costs` (which a
test keeps equal to the README); paste both. The two convergence studies keep their measured
figures (the dry run does not cost their reference fits and checkpoints) and are left out
unless named. ``--json`` also writes the paper profile's figures beside those of the table at
commit ``--before`` (the section "The reproduction" of ``benchmarks/RESULTS.md``). Calibrations
are kept in the machine's cache (``$ORDAUC_CACHE``) as by any dry
run: a second call times nothing again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEASURED = {"qsg_s2auc_convergence", "qs3orao_convergence"}  # not the dry run's figures


def core_hours(stem: str, profile: str, data_dir: str, jobs: int) -> float:
    """The dry run's total core-hours of ``configs/<stem>.yaml`` under ``profile``."""
    from ordauc.config import load_config
    from ordauc.cost.estimate import core_hours as total
    from ordauc.experiment import RunOptions
    from ordauc.experiment.costing import dry_run_costs
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
    parser.add_argument("--json", type=Path, default=None,
                        help="write the paper profile's figures, before and after, here")
    parser.add_argument("--before", default=BEFORE,
                        help="the commit whose table is 'before' (default: %(default)s)")
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
    if args.json:
        write_json(args.json, {s: v[0] for s, v in found.items()}, args.before,
                   [s for s in args.stems if s in found])


BEFORE = "d874aa4"  # the table before the folds, passes and sweeps shared their work
GOAL = 2500  # core-hours of the paper profile


def table_at(rev: str) -> dict[str, float]:
    """The paper profile's core-hours per study in ``ordauc/claims/costs.py`` at commit ``rev``."""
    text = subprocess.run(["git", "show", f"{rev}:ordauc/claims/costs.py"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout
    return {stem: float(p.replace("_", "")) for stem, p in
            re.findall(r'^    "(\w+)": \(([\d_.]+), [\d_.]+\),$', text, flags=re.MULTILINE)}


def write_json(path: Path, after: dict[str, float], rev: str, measured: list[str]) -> None:
    """The reproduction's core-hours per study before (the table at ``rev``) and after; the
    studies not in ``measured`` carry the figures of ``ordauc/claims/costs.py``, and a note says
    which."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from provenance import provenance

    before = table_at(rev)
    studies = [{"study": s, "before": before[s], "after": after[s]} for s in after
               if s in before]
    how = (f"The paper profile's core-hours per study: before, the README's table at commit "
           f"{rev} (the dry run's estimate then, in wall time on a loaded machine, a pass of m "
           "models costed from 2,000 rows); after, the dry run's estimate now (CPU time, a "
           "pass's shared and per-model parts timed at two sizes, the folds of a SAMULT CV "
           "sharing one eigendecomposition, the folds of a QSG CV the pool's features, a "
           "sweep of tolerances one task per split, "
           "gamma = 1 arms fitted once per labeled set, binary stand-ins with the catalogue's "
           "class ratio). The two convergence studies are "
           "measured, not estimated. The before column mixes the old estimate's errors with "
           "the work saved since: the sections below measure the savings alone, each against "
           "the path it replaces, in one run.")
    carried = [s["study"] for s in studies if s["study"] not in measured]
    notes = ([f"Estimated in this run: {', '.join(measured)}; the others carry the table of "
              f"`ordauc/claims/costs.py` (`git log -L` on it says when each was measured): "
              f"{', '.join(carried)}."] if carried else [])
    payload = {**provenance(), "before_commit": rev, "goal": GOAL, "how": how,
               "studies": studies, "notes": notes}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
