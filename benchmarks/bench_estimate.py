"""How good is the dry run's cost estimate? On the offline twins: the estimate per solver (a
fresh calibration), then the run (``--n-jobs 1``), then the measured time per solver (the wall
time of each fit group: a cell, or the cells that share one fit), side by side.

    python benchmarks/bench_estimate.py [--data-dir DIR] [--out FILE.md] [TWIN ...]

Twins whose datasets are not in the data folder are left out and named. Run on a quiet machine:
the calibration times fits, so other work inflates the estimate (the dry run says so).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
TWINS = ["qsg_s2auc", "qs3orao", "qsg_s2auc_time", "qs3orao_time", "npsvor", "npsvor_toy",
         "npsvor_eps", "npsvor_tolerance", "npsvor_scale", "npsvor_movielens", "auc_dcd"]
LIMITS = {"qs3orao_time": "80MB"}  # the twin that shows the exact methods stopping


def estimate(config: Path, out: Path, data_dir: str | None) -> dict[str, float]:
    """Seconds per solver label, as the dry run estimates them for an empty folder."""
    from ordauc.config import load_config
    from ordauc.experiment import RunOptions
    from ordauc.experiment.costing import dry_run_costs
    from ordauc.experiment.runner import dry_run

    options = RunOptions(out=out, data_dir=data_dir, memory_limit=_bytes(config.stem))
    study = load_config(config)
    report = dry_run(study, options)
    costs = dry_run_costs(report, study, data_dir)
    return {label: cost.seconds for label, cost in costs.items()}


def _bytes(stem: str) -> int | None:
    from ordauc.config_values import memory_bytes

    return memory_bytes(LIMITS[stem], "--memory-limit") if stem in LIMITS else None


def measured(out: Path) -> dict[str, float]:
    """Seconds per solver label: the wall time of each fit group, summed."""
    table = pd.read_csv(out / "results.csv")
    table = table[table["status"] == "ok"]
    groups = table.groupby(["solver", table["fit_key"].fillna(table["key"])])["wall_time_s"]
    return groups.max().groupby(level=0).sum().to_dict()


def run(config: Path, out: Path, data_dir: str | None) -> float:
    argv = [sys.executable, "-m", "ordauc", "run", str(config), "--out", str(out),
            "--n-jobs", "1"]
    argv += ["--data-dir", data_dir] if data_dir else []
    argv += ["--memory-limit", LIMITS[config.stem]] if config.stem in LIMITS else []
    start = dt.datetime.now()
    subprocess.run(argv, check=False, capture_output=True)
    return (dt.datetime.now() - start).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("twins", nargs="*", default=TWINS)
    parser.add_argument("--data-dir", default=os.environ.get("ORDAUC_DATA"))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    from ordauc import data

    lines = [f"Estimate against measured, per solver, on the offline twins "
             f"({dt.date.today()}, {platform.node()}, {os.cpu_count()} cores, `--n-jobs 1`; "
             "ratio = estimated / measured).", "",
             "| twin | solver | estimated (s) | measured (s) | ratio |",
             "| --- | --- | ---: | ---: | ---: |"]
    left_out = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ORDAUC_CACHE"] = str(Path(tmp) / "cache")  # a fresh calibration
        for twin in args.twins:
            config = REPO / "configs" / "offline" / f"{twin}.yaml"
            from ordauc.config import load_config

            names = {d.name for d in load_config(config).datasets}
            if not all(data.is_prepared(n, args.data_dir) for n in names):
                left_out.append(twin)
                continue
            out = Path(tmp) / twin
            guess = estimate(config, out, args.data_dir)
            wall = run(config, out, args.data_dir)
            found = measured(out)
            for label, seconds in guess.items():
                real = found.get(label, float("nan"))
                lines.append(f"| {twin} | {label} | {seconds:.1f} | {real:.1f} | "
                             f"{seconds / real:.2f} |")
            total_guess, total_real = sum(guess.values()), sum(found.values())
            lines.append(f"| {twin} | **all** ({wall:.0f} s wall) | {total_guess:.1f} | "
                         f"{total_real:.1f} | {total_guess / total_real:.2f} |")
    if left_out:
        lines += ["", f"Left out (data not in the data folder): {', '.join(left_out)}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
