"""CPU time of a resumed run's reads of a 20,000-row results table: the old sequence (read
before the lock, read again for the survey, read again by open plus its byte check, read again
for the kept rows) against the new one (read once, reused), alternated in one process.

Run: PYTHONPATH=. python benchmarks/bench_resume_reads.py
"""

import tempfile
import time
from pathlib import Path

from ordauc.results.schema import columns
from ordauc.results.write import ResultsTable, Tables

folder = Path(tempfile.mkdtemp(prefix="ordauc-reads-"))
wanted = columns(["lam", "sigma"])
t = ResultsTable(folder)
t.open(wanted)
for i in range(20000):
    t.append({"key": f"d/s/r{i}/l30/u20", "dataset": "d", "solver": "s", "solver_name": "s",
              "task": "binary", "resampling": "budget", "repetition": i, "n_labeled": 30,
              "n_unlabeled": 20, "n_test": 70, "eval_set": "test", "status": "ok",
              "auc": 0.1 * (i % 7), "fit_time_s": 0.001 * i, "p_lam": 0.5, "p_sigma": 2.0})
t.close()
Tables(folder).open(wanted, set(), ["lam", "sigma"])  # the side tables, as a run leaves them


def old() -> None:
    """The reads a resumed run made before the rows were read once."""
    tables = Tables(folder)
    tables.existing()
    tables.results.rows()  # the survey's read under the lock
    tables._read = {}  # open() read the table again, and its bytes
    tables.results.path.read_bytes()
    tables.open(wanted, set(), ["lam", "sigma"])
    tables.results.rows()  # the kept rows read back
    tables.close()


def new() -> None:
    """The reads it makes now: once before the lock, reused under it."""
    tables = Tables(folder)
    tables.existing()
    tables.current()
    tables.open(wanted, set(), ["lam", "sigma"])
    tables.close()


totals = {"old": 0.0, "new": 0.0}
for _ in range(5):
    for name, fn in (("old", old), ("new", new)):
        start = time.process_time()
        fn()
        totals[name] += time.process_time() - start
print({k: round(v / 5, 3) for k, v in totals.items()}, "CPU s per resume (mean of 5)")
