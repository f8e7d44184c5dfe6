"""QSG folds in lockstep (``bench_qsg_folds.py``): the five folds of a QS3ORAO CV passing
together, the unlabeled pool's features computed once per block for all of them, against one
fold after the other."""

from __future__ import annotations

from sections import Row, Section, seconds


def body(r: Row) -> list[str]:
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
            f"| {run['d']:,} | {run['n_unlabeled']:,} | {seconds(run['per_fold_cpu_s'])} | "
            f"{seconds(run['lockstep_cpu_s'])} | {run['speedup']:.2f}x | "
            f"{run['pool_feature_blocks']:,} blocks (per fold: {run['folds']} x "
            f"{run['n_iter']:,}) | {'yes' if run['bitwise_equal'] else 'NO'} |")
    return lines + ["", "What is left per fold (each fold's labeled and validation rows against "
                    "the block, its 77 models' products on the pool, their gradients and "
                    "steps) is what the models of that fold own; at d = 18 it is most of the "
                    "pass, at d = 1,000 the pool's features are."]


def notes(r: Row) -> list[str]:
    top = max(r["runs"], key=lambda run: (run["d"], run["n_unlabeled"]))
    return [f"a QS3ORAO CV at d = {top['d']:,}, {top['n_unlabeled']:,} unlabeled rows "
            f"{top['speedup']:.2f}x faster with its folds in lockstep"]


def rerun(r: Row) -> str:
    return "python benchmarks/bench_qsg_folds.py --d 18 1000 --n-unlabeled 5000"


SECTION = Section("qsg_folds", "QSG folds in lockstep", 110, body, rerun, notes=notes)
