"""Published result tables of the papers, keyed by paper, dataset, solver and metric.

Each :class:`PublishedTable` holds one table of a paper as printed: mean and standard deviation
per (dataset, solver) of one metric of the registry (:data:`ordauc.metrics.METRICS`), with the
solvers named by their registry names, so a results table is matched through its
``solver_name`` column (:func:`ordauc.results.frame.label_variants` groups a study's labels by
the protocol variant they run). They are facts of the papers, read by the report
(:mod:`ordauc.report.compare` sets them beside a study's own numbers) and by the claims alike,
which is why they live in neither.

Values are transcribed from the papers' text, digit by digit; a value that the text garbles is
kept as printed with a ``note`` saying so (none is, in the tables below). Add a paper's table by
adding a :class:`PublishedTable` to :data:`TABLES`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd

COLUMNS = ("paper", "table", "dataset", "solver", "metric", "mean", "std", "n_runs", "note")


@dataclass(frozen=True)
class PublishedTable:
    """One published table: ``values`` has a row per (dataset, solver), in the paper's order.

    ``key`` names the table in file names (``published_<key>``); ``title`` cites it; ``metric``
    is a registry metric; ``solvers`` are registry names in the paper's column order;
    ``n_runs`` is the number of values behind each mean and std; ``std_note`` says how the
    paper computed its spread.
    """

    key: str
    paper: str
    title: str
    metric: str
    n_runs: int
    std_note: str
    values: pd.DataFrame

    @property
    def solvers(self) -> list[str]:
        return [str(s) for s in pd.unique(self.values["solver"])]

    @property
    def datasets(self) -> list[str]:
        return [str(d) for d in pd.unique(self.values["dataset"])]

    def value(self, dataset: str, solver: str) -> pd.Series | None:
        """The published row of (dataset, solver), or None when the paper has none."""
        rows = self.values[(self.values["dataset"] == dataset) & (self.values["solver"] == solver)]
        return None if rows.empty else rows.iloc[0]


def _table(key: str, paper: str, title: str, metric: str, n_runs: int, std_note: str,
           solvers: tuple[str, ...], text: str) -> PublishedTable:
    """A table from ``dataset mean±std ...`` lines, one column per solver of ``solvers``; a
    trailing ``# note`` on a line is that dataset's note."""
    rows = []
    for line in io.StringIO(text.strip()):
        line, _, note = line.partition("#")
        dataset, *cells = line.split()
        if len(cells) != len(solvers):
            raise ValueError(f"published table {key}: {dataset} has {len(cells)} values for "
                             f"{len(solvers)} solvers")
        for solver, cell in zip(solvers, cells, strict=True):
            mean, std = (float(x) for x in cell.split("±"))
            rows.append({"paper": paper, "table": key, "dataset": dataset, "solver": solver,
                         "metric": metric, "mean": mean, "std": std, "n_runs": n_runs,
                         "note": note.strip()})
    return PublishedTable(key=key, paper=paper, title=title, metric=metric, n_runs=n_runs,
                          std_note=std_note, values=pd.DataFrame(rows, columns=list(COLUMNS)))


# Jiang, Tao, Gao & Chu, Journal of Software 25(10):2282-2292, 2014, Table 2 (section 3.2):
# AUC on the test fold, 5 random equal folds x 4 fold assignments = 20 values per cell, lambda
# chosen in 10^-9..10^1 ("the best parameter in the experiment"). Columns in the paper's
# order: OAMinf, SDCD, SDCDperm, MSGD. Every value below was read against the paper's text
# twice; none is garbled there.
AUC_DCD_TABLE2 = _table(
    "auc_dcd_table2", "AUC-DCD (Jiang et al., J. Software 2014)",
    "AUC-DCD (Jiang et al., J. Software 2014), Table 2", "auc", 20,
    "the sample standard deviation over the 20 AUC values, n - 1 in the denominator (the "
    "formula of the paper's section 3.2), as ours",
    ("oam_inf", "auc_sdcd", "auc_sdcdperm", "auc_msgd"),
    """
    sonar      0.8611±0.0632 0.8652±0.0583 0.8650±0.0590 0.8653±0.0609
    fourclass  0.8298±0.0266 0.8310±0.0314 0.8309±0.0314 0.8337±0.0260
    german     0.7134±0.0475 0.7797±0.0284 0.7912±0.0325 0.7805±0.0271
    svmguide3  0.7689±0.0364 0.7545±0.0408 0.7905±0.0345 0.7527±0.0375
    dna        0.9890±0.0041 0.9569±0.0119 0.9894±0.0041 0.9584±0.0114
    svmguide4  0.8065±0.0837 0.8354±0.0775 0.8389±0.0753 0.8294±0.0742
    pendigits  0.9825±0.0058 0.9603±0.0160 0.9846±0.0041 0.9617±0.0131
    vowel      0.8965±0.0382 0.9072±0.0360 0.9081±0.0363 0.9081±0.0382
    letter     0.9882±0.0026 0.9643±0.0129 0.9888±0.0025 0.9618±0.0129
    sector     0.9964±0.0058 0.8436±0.1042 0.9989±0.0012 0.8681±0.0769
    """)

TABLES: dict[str, PublishedTable] = {t.key: t for t in (AUC_DCD_TABLE2,)}


def published_values() -> pd.DataFrame:
    """Every published value of :data:`TABLES` in one long table (columns :data:`COLUMNS`)."""
    return pd.concat([t.values for t in TABLES.values()], ignore_index=True)
