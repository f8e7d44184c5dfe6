"""SAMULT's folds share their eigendecomposition (``bench_samult_folds.py``): the inner CV with
one eigendecomposition of K_UU per sigma for its five folds, against one per fold.

Its headline states its goal in words, without the met or missed verdict of a
:class:`~sections.Goal`."""

from __future__ import annotations

from sections import Row, Section, seconds


def body(r: Row) -> list[str]:
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
        f"{seconds(min(cell['before_cpu_s']))} | {seconds(min(cell['after_cpu_s']))} | "
        f"{cell['ratio']:.2f}x | |",
        f"| one sigma ({one['points']} points; a cell is 7), {one['n_unlabeled']:,} unlabeled "
        f"rows | {seconds(min(one['before_cpu_s']))} | {seconds(min(one['after_cpu_s']))} | "
        f"{one['ratio']:.2f}x | |",
        f"| a cell at {p['n_unlabeled']:,} unlabeled rows, projected | "
        f"{seconds(p['cell_before_cpu_s'])} | {seconds(p['cell_after_cpu_s'])} | "
        f"{p['ratio']:.2f}x | >= 3x |", "",
        f"Projection from {p['from_n_unlabeled']:,} unlabeled rows, where one eigendecomposition "
        f"took {seconds(one['decomposition_cpu_s'])} ({p['decomposition_share_before']:.0%} of the "
        f"before time): {p['law']}."]


def notes(r: Row) -> list[str]:
    one, p = r["one_sigma"], r["projection"]
    return [f"{one['ratio']:.2f}x at {one['n_unlabeled']:,} unlabeled rows, {p['ratio']:.2f}x "
            f"projected at {p['n_unlabeled']:,} (goal >= 3x)"]


def rerun(r: Row) -> str:
    sizes = [(flag, r.get(part, {}).get("n_unlabeled"))
             for flag, part in (("--full", "cell"), ("--large", "one_sigma"))]
    return " ".join(["python benchmarks/bench_samult_folds.py",
                     *(f"{flag} {n}" for flag, n in sizes if n)])


SECTION = Section("samult_folds", "SAMULT's folds share their eigendecomposition", 90, body, rerun,
                  notes=notes)
