"""Backends (``bench_backends.py``): one CPU-bound study through ``ordauc run`` with 1 and 2
loky workers and a two-worker dask LocalCluster, wall time end to end, and whether the three
results tables hold the same metric values."""

from __future__ import annotations

from sections import Goal, Row, Section, faster

BACKEND_RUNS = {"loky_1": "1 loky worker", "loky_2": "2 loky workers",
                "dask": "LocalCluster, 2 workers"}
GOAL_SPEEDUP_2 = 1.8   # 2 loky workers against 1
GOAL_DASK = 1.10       # LocalCluster's time against 2 loky workers'

SPEEDUP_2 = Goal(lambda r: f"2 loky workers {faster(r['ratios']['loky_2_vs_1'])} than 1",
                 lambda r: r["ratios"]["loky_2_vs_1"], f">= {GOAL_SPEEDUP_2}x", GOAL_SPEEDUP_2,
                 part=("ratios", "loky_2_vs_1"))
DASK = Goal(lambda r: f"LocalCluster {r['ratios']['dask_vs_loky_2']:.2f}x the time of 2 loky "
                      "workers",
            lambda r: r["ratios"]["dask_vs_loky_2"], f"<= {GOAL_DASK:.2f}x", GOAL_DASK,
            at_most=True, part=("ratios", "dask_vs_loky_2"))


def body(r: Row) -> list[str]:
    """bench_backends: one CPU-bound study through `ordauc run`, 1 and 2 loky workers and a
    two-worker dask LocalCluster, wall time end to end."""
    lines = []
    if r.get("quick"):
        lines += [f"**Quick run** (`--quick`: {r['config_overrides']}): it checks the "
                  "machinery only; its cells are too short for the times to mean anything. "
                  "The benchmark is the full run.", ""]
    lines += [f"CFG = `{r['config']}`" + (" shrunk as above" if r.get("quick") else "")
              + f": {r['cells']} cells of about equal cost, each run into a fresh "
              "folder with `ORDAUC_ESTIMATE=0`; wall time of `ordauc run` from start to exit "
              f"(best of {r['reps']}), beside the sum of the cells' `wall_time_s` from its "
              "results table, so the time outside the cells (start-up, dispatch, the idle tail) "
              "shows as the overhead: wall - sum / workers.", "",
              "| run | command | wall (s) | sum of cell walls (s) | cells at once (sum / wall) "
              "| overhead (s) |", "|---|---|---|---|---|---|"]
    for key, label in BACKEND_RUNS.items():
        run = r["runs"].get(key)
        if run is None:
            continue
        lines.append(f"| {label} | `{run['command']}` | {run['wall_s']:.1f} | "
                     f"{run['cell_wall_sum_s']:.1f} | {run['cell_wall_sum_s'] / run['wall_s']:.2f} "
                     f"| {run['overhead_s']:.1f} |")
    ratios = r.get("ratios", {})

    def verdict(goal: Goal) -> str:
        met = goal.met(r)
        return "not judged (quick run)" if met is None else ("met" if met else "**missed**")

    lines += ["", "| ratio | measured | goal | |", "|---|---|---|---|"]
    if SPEEDUP_2.applies(r):
        lines.append(f"| 2 loky workers against 1 | {faster(ratios['loky_2_vs_1'])} | "
                     f"{SPEEDUP_2.target} | {verdict(SPEEDUP_2)} |")
    if DASK.applies(r):
        lines.append(f"| LocalCluster against 2 loky workers | {ratios['dask_vs_loky_2']:.2f}x "
                     f"the time | {DASK.target} (within 10%) | {verdict(DASK)} |")
    same = r.get("same_metrics", {})
    if same:
        verdict = ("the same" if same["identical"] else
                   f"**not the same**: {same['differing_values']} values differ (largest "
                   f"difference {same['max_abs_diff']:.3g}; e.g. {', '.join(same['examples'])})")
        lines += ["", f"Metric values of the three results tables ({same['cells']} cells x "
                  f"{', '.join(same['columns'])}): {verdict}."]
    cluster = r.get("cluster")
    if cluster:
        lines += ["", f"The LocalCluster ({cluster['n_workers']} worker processes, "
                  f"{cluster['threads_per_worker']} thread each, on 127.0.0.1) started in "
                  f"{cluster['start_s']:.1f} s, outside the timed run. Versions: "
                  + ", ".join(f"{k} {r[k]}" for k in ("distributed", "joblib") if r.get(k))
                  + "."]
    return lines


def notes(r: Row) -> list[str]:
    if not r.get("same_metrics"):
        return []
    return ["same metric values: " + ("yes" if r["same_metrics"]["identical"] else "**no**")]


def rerun(r: Row) -> str:
    args = " --quick" if r.get("quick") else ""
    args += "" if r.get("reps", 1) == 1 else f" --reps {r['reps']}"
    return "python benchmarks/bench_backends.py" + args


SECTION = Section("backends", "Backends", 70, body, rerun, (SPEEDUP_2, DASK), notes)
