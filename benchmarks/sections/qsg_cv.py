"""QSG candidates scored inside their pass (``bench_qsg_cv.py``): one fold of a QSG CV with its
candidates' thresholds and validation scores tracked inside the pass, against evaluating every
candidate after it."""

from __future__ import annotations

from sections import Row, Section, seconds


def body(r: Row) -> list[str]:
    lines = ["One fold of a QSG CV: the pass of 77 models (one sigma) then, before, every "
             "candidate evaluated on the labeled rows (thresholds) and the validation rows "
             "(its score) through all its blocks; after, both tracked inside the pass (the "
             "features of a block computed once for every model). CPU time, one BLAS thread, "
             "alternated in one run; 2,000 iterations, blocks and batches of 64.", "",
             "| d | unlabeled | before (pass + evaluation) | after | ratio | tracked vs "
             "decision_function |", "|---|---|---|---|---|---|"]
    for run in r["runs"]:
        lines.append(
            f"| {run['d']:,} | {run['n_unlabeled']:,} | {seconds(run['before_cpu_s'])} "
            f"({seconds(run['pass_cpu_s'])} + {seconds(run['evaluation_cpu_s'])}) | "
            f"{seconds(run['after_cpu_s'])} | {run['speedup']:.2f}x | "
            f"{run['max_rel_gap_tracked']:.1e} |")
    return lines + ["", "The tracked values and `decision_function` are float32 sums of the "
                    "same terms in another order: both are as close to f in float64 (the JSON "
                    "has each's gap to it)."]


def notes(r: Row) -> list[str]:
    top = max(r["runs"], key=lambda run: (run["d"], -run["n_unlabeled"]))
    return [f"a fold's pass at d = {top['d']:,} {top['speedup']:.1f}x faster with its "
            "candidates scored inside it"]


def rerun(r: Row) -> str:
    return "python benchmarks/bench_qsg_cv.py --d 18 128 1000"


SECTION = Section("qsg_cv", "QSG candidates scored inside their pass", 100, body, rerun,
                  notes=notes)
