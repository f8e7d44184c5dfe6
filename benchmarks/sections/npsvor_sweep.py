"""NPSVOR's tolerance sweep as one task (``bench_npsvor_sweep.py``): one ADMM trajectory
snapshotted at each tolerance pair's stop, against one task per pair.

Its headline states its goal in words, without the met or missed verdict of a
:class:`~sections.Goal`."""

from __future__ import annotations

from sections import Row, Section, seconds


def body(r: Row) -> list[str]:
    return [
        f"One split of `npsvor_tolerance` ({r['points']} tolerance pairs, "
        f"{r['data']}, {r['n_train']:,} training and {r['n_test']:,} test rows): the "
        f"{r['points']} per-spec tasks against the one sweep task (one ADMM trajectory, each "
        "point snapshotted at its own stop; rows equal: "
        f"{'yes' if r['rows_equal'] else 'NO'}), CPU time, one BLAS thread.", "",
        "| item | sweep task | per-spec tasks | ratio | target |", "|---|---|---|---|---|",
        f"| the split, all rows written | {seconds(min(r['sweep_cpu_s']))} | "
        f"{seconds(r['per_spec_cpu_s'])} | {r['speedup_cpu']:.1f}x | >= 20x |",
        f"| the same without scoring the test rows | "
        f"{seconds(min(r['sweep_cpu_s']) - min(r['sweep_scoring_cpu_s']))} | "
        f"{seconds(r['per_spec_cpu_s'] - r['per_spec_scoring_cpu_s'])} | "
        f"{r['speedup_cpu_without_scoring']:.1f}x | |"]


def notes(r: Row) -> list[str]:
    return [f"the tolerance sweep's split {r['speedup_cpu']:.1f}x faster as one task "
            "(goal >= 20x)"]


def rerun(r: Row) -> str:
    return f"python benchmarks/bench_npsvor_sweep.py --train-size {r.get('n_train', 2000)}"


SECTION = Section("npsvor_sweep", "NPSVOR's tolerance sweep as one task", 120, body, rerun,
                  notes=notes)
