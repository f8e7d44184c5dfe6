"""Crossover of QSG-S2AUC and the exact methods (``bench_crossover.py``): fit time against the
unlabeled size, as ratios to QSG-S2AUC's, and where QSG-S2AUC overtakes each."""

from __future__ import annotations

from sections import LABELS, Row, Section


def body(r: Row) -> list[str]:
    """bench_crossover: fit time against the unlabeled size, as ratios to QSG-S2AUC's."""
    rows = r["rows"]
    others = [name for name in rows if name != "qsg_s2auc"]
    fit = {name: {x["n_unlabeled"]: x["fit_s"] for x in rows[name]} for name in rows}
    qsg = fit.get("qsg_s2auc", {})
    sizes = sorted({n for table in fit.values() for n in table})
    head = "| unlabeled rows | QSG-S2AUC (s) | " + " | ".join(
        f"{LABELS.get(n, n)} (s) | {LABELS.get(n, n)} / QSG-S2AUC" for n in others) + " |"
    lines = [f"{r['n_labeled']} labeled rows, d = {r['d']}, one fit per size and solver, one "
             f"BLAS thread, wall time of `fit`; memory limit {r['memory_limit_gb']:.1f} GB. A "
             "ratio above 1 means QSG-S2AUC was the faster.", "", head,
             "|" + "---|" * (2 + 2 * len(others))]
    for n in sizes:
        cells = [f"{n:,}", f"{qsg[n]:.2f}" if n in qsg else "-"]
        for name in others:
            t = fit[name].get(n)
            cells += ["-", "-"] if t is None else [
                f"{t:.2f}", f"{t / qsg[n]:.2f}x" if n in qsg else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    notes = []
    for name, c in r.get("crossover", {}).items():
        label = LABELS.get(name, name)
        if c.get("first_faster") is not None:
            at = (f" (log-log interpolated crossing at {c['interpolated']:,})"
                  if c.get("interpolated") else "")
            notes.append(f"QSG-S2AUC is faster than {label} from {c['first_faster']:,} "
                         f"unlabeled rows{at}.")
        else:
            notes.append(f"Against {label}: {c.get('note') or 'no crossing measured'}.")
    for name, why in r.get("stopped", {}).items():
        notes.append(f"{LABELS.get(name, name)} stopped: {why}.")
    return lines + ["", " ".join(notes)] + [
        "", "Hyper-parameters: " + "; ".join(
            f"{LABELS.get(name, name)} " + ", ".join(f"{k} = {v}" for k, v in p.items())
            for name, p in r.get("params", {}).items()) + "."]


def notes(r: Row) -> list[str]:
    out = []
    for name, c in r.get("crossover", {}).items():
        label = LABELS.get(name, name)
        if c.get("first_faster") is not None:
            at = c.get("interpolated") or c["first_faster"]
            out.append(f"QSG-S2AUC overtakes {label} at ~{at:,} unlabeled rows")
        else:
            out.append(f"{label}: {c.get('note') or 'no crossing'}")
    return out


def rerun(r: Row) -> str:
    args = "" if r.get("max_n", 1_000_000) == 1_000_000 else f" --max-n {r['max_n']}"
    args += "" if r.get("budget_s", 600.0) == 600.0 else f" --budget {r['budget_s']:g}"
    return "python benchmarks/bench_crossover.py" + args


SECTION = Section("crossover", "Crossover of QSG-S2AUC and the exact methods", 30, body, rerun,
                  notes=notes)
