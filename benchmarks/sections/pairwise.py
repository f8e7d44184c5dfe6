"""Pairwise updates (``bench_pairwise.py``): AUC-SDCDperm's permuted epoch against the same
compiled loop in sequential order (its floor), on a dense and a sparse shape of the AUC-DCD
paper. ``bench_pairwise.py`` prints its table through :func:`pairwise_table`."""

from __future__ import annotations

from sections import Goal, Row, Section


def pairwise_table(results: Row) -> str:
    """Pair updates per second of AUC-SDCDperm and of its floor, per shape (Markdown)."""
    lines = ["| shape | pairs/epoch | SDCDperm (M updates/s) | floor (M updates/s) | ratio |",
             "|---|---|---|---|---|"]
    for key in ("dense", "sparse"):
        r = results.get(key)
        if r:
            lines.append(f"| {key} ({r['n_pos']} x {r['n_neg']}, d = {r['n_features']}) | "
                         f"{r['pairs_per_epoch']:,} | {r['updates_per_s'] / 1e6:.1f} | "
                         f"{r['floor_updates_per_s'] / 1e6:.1f} | {r['ratio_to_floor']:.2f}x |")
    return "\n".join(lines)


def body(r: Row) -> list[str]:
    """bench_pairwise: AUC-SDCDperm's permuted epoch against the sequential one (the floor)."""
    dense = r.get("dense", {})
    lines = [f"One epoch of every pair, best of {dense.get('reps', '?')} interleaved runs, "
             "process CPU time, one BLAS thread; the floor is the same compiled loop over the "
             "pairs in sequential order, so the ratio is the price of the permuted order alone. "
             "Shapes of the AUC-DCD paper's pendigits (dense) and sector (sparse, "
             f"{100 * r.get('sparse', {}).get('density', float('nan')):.1f}% dense), synthetic "
             "data.", "", pairwise_table(r), ""]
    changed = "; ".join(f"{k}: {100 * r[k]['changed_fraction_permuted']:.1f}% permuted, "
                        f"{100 * r[k]['changed_fraction_sequential']:.1f}% sequential"
                        for k in ("dense", "sparse") if k in r)
    target = dense.get("target", "")
    lines.append(f"Target (dense): {target}. Updates that changed w (both orders do the same "
                 f"arithmetic when all do): {changed}.")
    return lines


GOALS = (
    Goal(lambda r: f"dense {r['dense']['updates_per_s'] / 1e6:.1f}M updates/s",
         lambda r: r["dense"]["updates_per_s"], ">= 25M", 25e6, part=("dense",)),
    Goal(lambda r: f"{r['dense']['ratio_to_floor']:.2f}x its floor",
         lambda r: r["dense"]["ratio_to_floor"], "<= 1.5x", 1.5, at_most=True, part=("dense",)),
)


def rerun(r: Row) -> str:
    reps = r.get("dense", {}).get("reps", 7)
    return "python benchmarks/bench_pairwise.py" + ("" if reps == 7 else f" --reps {reps}")


SECTION = Section("pairwise", "Pairwise updates", 40, body, rerun, GOALS)
