"""Grid fits (``bench_grid.py``): a grid's shared passes (``fit_grid``) against one fit per
point, for one QSG-S2AUC fit, a QSG-S2AUC cell and a SAMULT cell, and the QSG papers' protocol
projected."""

from __future__ import annotations

from sections import Goal, Row, Section, duration, faster


def body(r: Row) -> list[str]:
    """bench_grid: a grid's shared passes (``fit_grid``) against one fit per point."""
    lines = [f"{'Quick run (300 iterations: a look only)' if r.get('quick') else 'Full run'}, "
             "one BLAS thread; repeated fits give their median (min and every run are in the "
             "JSON).", "",
             "| item | measured | reference (same run) | ratio | target |",
             "|---|---|---|---|---|"]
    if "c" in r:
        c = r["c"]
        new, old = c["new_fit"]["median_s"], c["today_fit"]["median_s"]
        score = c["today_score_unlabeled"]["median_s"]
        lines += [
            f"| (c) one QSG-S2AUC fit, {c['n_iter']:,} iterations, 200 labeled + 20,000 "
            f"unlabeled rows | {new:.2f} s | the engine without the pool and the compiled "
            f"cosine {old:.2f} s | {c['fit_ratio']:.2f}x | {ONE_FIT.target} |",
            f"| (c) the same fit + transductive scores of the unlabeled rows | {new:.2f} s | "
            f"{old:.2f} s + scoring {score:.2f} s | {c['fit_and_score_ratio']:.2f}x | >= 5x |",
            f"| (c) the pool alone | {c['pool_only_fit']['median_s']:.2f} s | {old:.2f} s | "
            f"{c['pool_alone_ratio']:.2f}x | |",
            f"| (c) the compiled cosine alone | {c['cosine_only_fit']['median_s']:.2f} s | "
            f"{old:.2f} s | {c['cosine_alone_ratio']:.2f}x | |"]
    if "a" in r:
        a = r["a"]
        lines += [
            f"| (a) one cell of the QSG-S2AUC protocol (539 points, 5 folds, {a['n_iter']:,} "
            f"iterations) | {duration(a['cell_shared_s'])} | point by point "
            f"{duration(a['cell_point_by_point_s'])} | {a['ratio']:.1f}x | {QSG_CELL.target} |",
            f"| (a) the same against point by point without the engine's savings | | "
            f"{duration(a['cell_point_by_point_today_engine_s'])} | "
            f"{a['ratio_vs_today_engine']:.1f}x | |"]
    if "b" in r:
        b = r["b"]
        lines.append(f"| (b) one SAMULT cell ({b['n_train']:,} training rows, 539 points, 5 "
                     f"folds) | {duration(b['cell_shared_s'])} | point by point "
                     f"{duration(b['cell_point_by_point_s'])} | {b['ratio']:.1f}x | "
                     f"{SAMULT_CELL.target} |")
    if "p" in r:
        p = r["p"]
        lines.append(f"| (p) the QSG papers' CV protocol ({p['cells']} cells x 10 trials, "
                     f"projected, one core) | {p['after_h']:,.0f} h | point by point without "
                     f"the savings {p['before_h']:,.0f} h | {p['ratio']:.0f}x | |")
    notes = []
    if "c" in r:
        gap = r["c"]["max_rel_gap_unlabeled_scores_vs_today_decision"]
        notes.append(f"(c) the decision values agree with the engine without its savings to "
                     f"{r['c']['max_rel_gap_decision_vs_today']:.1e} (relative)"
                     + ("" if gap is None else f", the pool's transductive scores to {gap:.1e}")
                     + ".")
    for key, field in (("a", "extrapolation"), ("b", "extrapolation"), ("p", "model")):
        if key in r and r[key].get(field):
            notes.append(f"({key}) {r[key][field]}.")
    return lines + (["", " ".join(notes)] if notes else [])


ONE_FIT = Goal(lambda r: f"one fit {faster(r['c']['fit_ratio'])}",
               lambda r: r["c"]["fit_ratio"], ">= 2.5x", 2.5, part=("c",))
QSG_CELL = Goal(lambda r: f"a QSG-S2AUC cell {r['a']['ratio']:.1f}x faster than point by point",
                lambda r: r["a"]["ratio"], ">= 15x", 15, part=("a",))
SAMULT_CELL = Goal(lambda r: f"a SAMULT cell {r['b']['ratio']:.1f}x", lambda r: r["b"]["ratio"],
                   ">= 5x", 5, part=("b",))


def rerun(r: Row) -> str:
    return "python benchmarks/bench_grid.py" + (" --quick" if r.get("quick") else "")


SECTION = Section("grid", "Grid fits", 20, body, rerun, (ONE_FIT, QSG_CELL, SAMULT_CELL))
