"""Renderers of the benchmarks of work shared across a cell's fits (for :mod:`report`): the
folds of SAMULT's cross-validation, the QSG candidates scored inside their pass, the QSG folds
in lockstep, NPSVOR's
tolerance sweep as one task, the estimate's stability under load, and the reproduction's
core-hours before and after. Each renderer reads one ``benchmarks/results/<name>.json``."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]


def _s(seconds: float) -> str:
    return f"{seconds:,.1f} s" if seconds < 600 else f"{seconds / 3600:,.2f} h"


# -- SAMULT: the folds share one eigendecomposition per sigma ------------------------------------

def samult_folds_body(r: Row) -> list[str]:
    cell, one, p = r["cell"], r["one_sigma"], r["projection"]
    gap = max(cell["max_cv_score_gap"], one["max_cv_score_gap"])
    return [
        "SAMULT's inner 5-fold CV (`InnerCV.tune`, AUC, the papers' grid: 7 lam x 11 gamma per "
        "sigma) before (every fold decomposes K_UU again) and after (one eigendecomposition per "
        "sigma serves the 5 folds), process CPU time, one BLAS thread, the two alternated in one "
        f"run; {cell['n_labeled']} labeled rows, d = {cell['d']}. The chosen point and every CV "
        f"score are the same (largest score gap {gap:.1e}).",
        "", "| case | before | after | ratio | target |", "|---|---|---|---|---|",
        f"| one cell ({cell['points']} points), {cell['n_unlabeled']:,} unlabeled rows | "
        f"{_s(min(cell['before_cpu_s']))} | {_s(min(cell['after_cpu_s']))} | "
        f"{cell['ratio']:.2f}x | |",
        f"| one sigma ({one['points']} points; a cell is 7), {one['n_unlabeled']:,} unlabeled "
        f"rows | {_s(min(one['before_cpu_s']))} | {_s(min(one['after_cpu_s']))} | "
        f"{one['ratio']:.2f}x | |",
        f"| a cell at {p['n_unlabeled']:,} unlabeled rows, projected | "
        f"{_s(p['cell_before_cpu_s'])} | {_s(p['cell_after_cpu_s'])} | {p['ratio']:.2f}x | "
        ">= 3x |", "",
        f"Projection from {p['from_n_unlabeled']:,} unlabeled rows, where one eigendecomposition "
        f"took {_s(one['decomposition_cpu_s'])} ({p['decomposition_share_before']:.0%} of the "
        f"before time): {p['law']}."]


def samult_folds_headline(r: Row) -> list[str]:
    one, p = r["one_sigma"], r["projection"]
    return [f"{one['ratio']:.2f}x at {one['n_unlabeled']:,} unlabeled rows, {p['ratio']:.2f}x "
            f"projected at {p['n_unlabeled']:,} (goal >= 3x)"]


def samult_folds_rerun(r: Row) -> str:
    sizes = [(flag, r.get(part, {}).get("n_unlabeled"))
             for flag, part in (("--full", "cell"), ("--large", "one_sigma"))]
    return " ".join(["python benchmarks/bench_samult_folds.py",
                     *(f"{flag} {n}" for flag, n in sizes if n)])


# -- QSG: candidates scored inside their pass ---------------------------------------------------

def qsg_cv_body(r: Row) -> list[str]:
    lines = ["One fold of a QSG CV: the pass of 77 models (one sigma) then, before, every "
             "candidate evaluated on the labeled rows (thresholds) and the validation rows "
             "(its score) through all its blocks; after, both tracked inside the pass (the "
             "features of a block computed once for every model). CPU time, one BLAS thread, "
             "alternated in one run; 2,000 iterations, blocks and batches of 64.", "",
             "| d | unlabeled | before (pass + evaluation) | after | ratio | tracked vs "
             "decision_function |", "|---|---|---|---|---|---|"]
    for run in r["runs"]:
        lines.append(
            f"| {run['d']:,} | {run['n_unlabeled']:,} | {_s(run['before_cpu_s'])} "
            f"({_s(run['pass_cpu_s'])} + {_s(run['evaluation_cpu_s'])}) | "
            f"{_s(run['after_cpu_s'])} | {run['speedup']:.2f}x | "
            f"{run['max_rel_gap_tracked']:.1e} |")
    return lines + ["", "The tracked values and `decision_function` are float32 sums of the "
                    "same terms in another order: both are as close to f in float64 (the JSON "
                    "has each's gap to it)."]


def qsg_cv_headline(r: Row) -> list[str]:
    top = max(r["runs"], key=lambda run: (run["d"], -run["n_unlabeled"]))
    return [f"a fold's pass at d = {top['d']:,} {top['speedup']:.1f}x faster with its "
            "candidates scored inside it"]


def qsg_cv_rerun(r: Row) -> str:
    return "python benchmarks/bench_qsg_cv.py --d 18 128 1000"


# -- QSG: the folds of a CV in lockstep ---------------------------------------------------------

def qsg_folds_body(r: Row) -> list[str]:
    lines = ["The five folds of a QS3ORAO CV, one sigma (77 models, the validation rows "
             "tracked): one fold's pass after the other, before; after, the five passes in "
             "lockstep, the blocks drawn and the unlabeled pool's features against each block "
             "computed once for all of them. Every fold's models bitwise equal between the two. "
             "CPU time, one BLAS thread, alternated in one run; 2,000 iterations, blocks and "
             "batches of 64, 500 labeled rows.", "",
             "| d | unlabeled | per fold | lockstep | ratio | pool features computed | bitwise "
             "equal |", "|---|---|---|---|---|---|---|"]
    for run in r["runs"]:
        lines.append(
            f"| {run['d']:,} | {run['n_unlabeled']:,} | {_s(run['per_fold_cpu_s'])} | "
            f"{_s(run['lockstep_cpu_s'])} | {run['speedup']:.2f}x | "
            f"{run['pool_feature_blocks']:,} blocks (per fold: {run['folds']} x "
            f"{run['n_iter']:,}) | {'yes' if run['bitwise_equal'] else 'NO'} |")
    return lines + ["", "What is left per fold (each fold's labeled and validation rows against "
                    "the block, its 77 models' products on the pool, their gradients and "
                    "steps) is what the models of that fold own; at d = 18 it is most of the "
                    "pass, at d = 1,000 the pool's features are."]


def qsg_folds_headline(r: Row) -> list[str]:
    top = max(r["runs"], key=lambda run: (run["d"], run["n_unlabeled"]))
    return [f"a QS3ORAO CV at d = {top['d']:,}, {top['n_unlabeled']:,} unlabeled rows "
            f"{top['speedup']:.2f}x faster with its folds in lockstep"]


def qsg_folds_rerun(r: Row) -> str:
    return "python benchmarks/bench_qsg_folds.py --d 18 1000 --n-unlabeled 5000"


# -- NPSVOR: a tolerance sweep as one task ------------------------------------------------------

def npsvor_sweep_body(r: Row) -> list[str]:
    return [
        f"One split of `npsvor_tolerance` ({r['points']} tolerance pairs, "
        f"{r['data']}, {r['n_train']:,} training and {r['n_test']:,} test rows): the "
        f"{r['points']} per-spec tasks against the one sweep task (one ADMM trajectory, each "
        "point snapshotted at its own stop; rows equal: "
        f"{'yes' if r['rows_equal'] else 'NO'}), CPU time, one BLAS thread.", "",
        "| item | sweep task | per-spec tasks | ratio | target |", "|---|---|---|---|---|",
        f"| the split, all rows written | {_s(min(r['sweep_cpu_s']))} | "
        f"{_s(r['per_spec_cpu_s'])} | {r['speedup_cpu']:.1f}x | >= 20x |",
        f"| the same without scoring the test rows | "
        f"{_s(min(r['sweep_cpu_s']) - min(r['sweep_scoring_cpu_s']))} | "
        f"{_s(r['per_spec_cpu_s'] - r['per_spec_scoring_cpu_s'])} | "
        f"{r['speedup_cpu_without_scoring']:.1f}x | |"]


def npsvor_sweep_headline(r: Row) -> list[str]:
    return [f"the tolerance sweep's split {r['speedup_cpu']:.1f}x faster as one task "
            "(goal >= 20x)"]


def npsvor_sweep_rerun(r: Row) -> str:
    return f"python benchmarks/bench_npsvor_sweep.py --train-size {r.get('n_train', 2000)}"


# -- the estimate under load --------------------------------------------------------------------

def estimate_stability_body(r: Row) -> list[str]:
    lines = ["Two dry runs of each config with a fresh calibration cache, one as the machine "
             "was and one beside a busy loop on every core (the order alternating), datasets "
             f"not fetched (sizes from the catalogue); the goal: totals within {r['within']}x.",
             "", "| config | as is | under load | ratio | per solver | dry run CPU | measured |",
             "|---|---|---|---|---|---|---|"]
    for x in r["results"]:
        when = " ".join(str(x[k]) for k in ("measured_at", "git_sha") if x.get(k))
        lines.append(
            f"| `{x['config']}` | {x['as_is']['core_hours']:,.1f} core-h | "
            f"{x['under_load']['core_hours']:,.1f} core-h | {x['ratio']:.2f}x | "
            f"{x['solver_ratio_min']:.2f}x to {x['solver_ratio_max']:.2f}x | "
            f"{x['as_is']['dry_run_cpu_s']:.0f} s / {x['under_load']['dry_run_cpu_s']:.0f} s | "
            f"{when or r.get('date', '')} |")
    return lines


def estimate_stability_headline(r: Row) -> list[str]:
    worst = max(max(x["ratio"], 1 / x["ratio"]) for x in r["results"])
    return [f"two dry runs, one under load, agree within {worst:.2f}x (goal <= {r['within']}x)"]


def estimate_stability_rerun(r: Row) -> str:
    return "python benchmarks/bench_estimate_stability.py"


# -- the reproduction --------------------------------------------------------------------------

def reproduction_body(r: Row) -> list[str]:
    lines = [r["how"], "", "| study | core-hours before | core-hours after | ratio |",
             "|---|---:|---:|---:|"]
    for x in r["studies"]:
        ratio = x["before"] / x["after"] if x["after"] else float("nan")
        lines.append(f"| `{x['study']}` | {x['before']:,.4g} | {x['after']:,.4g} | "
                     f"{ratio:.1f}x |")
    before = sum(x["before"] for x in r["studies"])
    after = sum(x["after"] for x in r["studies"])
    lines.append(f"| **all** | **{before:,.0f}** | **{after:,.0f}** | "
                 f"**{before / after:.1f}x** |")
    return lines + ["", *r.get("notes", [])]


def reproduction_headline(r: Row) -> list[str]:
    after = sum(x["after"] for x in r["studies"])
    return [f"the paper profile {after:,.0f} core-hours (goal <= {r['goal']:,})"]


def reproduction_rerun(r: Row) -> str:
    return "python benchmarks/cost_table.py --json benchmarks/results/reproduction.json"
