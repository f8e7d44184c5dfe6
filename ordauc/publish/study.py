"""``ordauc report``: a study's report (tables, claims, page), or the index over a folder of
studies. Publishing sits on top of the report and the claims, which know nothing of each
other: it hands the study's report (:func:`ordauc.report.write.write_report`) and the
claims' findings (:func:`ordauc.claims.check_claims`) to the page.

A folder holding ``results.csv`` is a study: its tables and statistics, the verdict on each
claim of its paper (``claims.csv``; the statements of its protocol, FOLLOWED or DEVIATED, in
``protocol.csv``; both in ``claims.md``, :mod:`ordauc.publish.claims_files`) and its page
(``index.html``, :mod:`ordauc.publish.page`) go to ``DIR/report``. A folder of
study folders (``results/``) gets each study's report and an index page over them, with every
claim decided by the first study that can decide it (``DIR/claims.csv``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ordauc.errors import UserError
from ordauc.publish.claims_files import CLAIM_COLUMNS, claims_texts, split_kinds
from ordauc.report.files import write_texts

if TYPE_CHECKING:
    from ordauc.claims import Study

def study_claims(studies: Iterable[Study]) -> pd.DataFrame:
    """The claims table of ``studies`` (see :func:`ordauc.claims.check_claims`)."""
    from ordauc.claims import check_claims, findings_table

    return findings_table(check_claims(list(studies)))


def report_study(directory: Path, out: Path | None, metrics: tuple[str, ...] | None,
                 alpha: float) -> tuple[str, list[Path], Study, str]:
    """Write a study's report; (the summary, the paths written, the study read, a one-line
    headline: where the page is, how many files were written, the claims' verdicts)."""
    from ordauc.claims import Study
    from ordauc.publish.page import write_study_page
    from ordauc.report.load import study_metrics
    from ordauc.report.write import write_report
    from ordauc.results.frame import load_results
    from ordauc.results.record import read_study_record

    results = load_results(directory)
    out = out if out is not None else directory / "report"
    written = write_report(results, out, metrics=metrics or study_metrics(directory, results),
                           alpha=alpha, directory=directory)
    study = Study.from_folder(directory, results)
    claims = study_claims([study])
    paths = [*written, *write_texts(out, claims_texts(claims))]
    record = read_study_record(directory)
    title = f"ordauc study: {record.stem if record else directory.resolve().name}"
    paths.append(write_study_page(directory, out, written.document, results, claims, title))
    results_, steps = split_kinds(claims)
    verdicts = results_["verdict"].value_counts()
    states = steps["verdict"].value_counts()
    tally = (f"claims: {', '.join(f'{n} {v}' for v, n in verdicts.items())}"
             + (f"; protocol: {', '.join(f'{n} {v}' for v, n in states.items())}"
                if len(states) else "") if len(claims) else "")
    line = f"\nClaims: {tally[len('claims: '):]} (report/claims.md)" if tally else ""
    headline = (f"Report of {directory}: {paths[-1]} ({len(paths)} files"
                + (f"; {tally}" if tally else "") + ")")
    return written.summary + line, paths, study, headline


def study_folders(folder: Path) -> list[Path]:
    """The study folders directly inside ``folder`` (each holds a results.csv)."""
    return sorted(p for p in folder.iterdir() if (p / "results.csv").is_file())


def report_folder(folder: Path, alpha: float) -> tuple[str, list[Path], str]:
    """Report every study in ``folder`` and write the index page over them; (the summary: a
    line per study, the paths written, a headline: the index page and the studies that could
    not be reported, one line each)."""
    from ordauc.publish.page import PAGE, write_index_page

    studies = study_folders(folder)
    others = sorted(p for p in folder.iterdir()
                    if p.is_dir() and p not in studies and study_folders(p))
    if not studies and not others:
        raise UserError(f"{str(folder)!r} holds no results.csv and no study folders; pass an "
                        "output folder of `ordauc run`, or a folder of them")
    paths: list[Path] = []
    lines = []
    failed = []
    reported: list[Study] = []
    for directory in studies:
        try:
            _, written, study, _ = report_study(directory, None, None, alpha)
        except UserError as exc:  # one unreadable study does not hide the others
            lines.append(f"{directory.name}: not reported ({exc})")
            failed.append(lines[-1])
            continue
        paths += written
        reported.append(study)
        lines.append(f"{directory.name}: {directory / 'report' / PAGE}")
    for sub in others:
        paths += report_folder(sub, alpha)[1]
    claims = study_claims(reported) if reported else pd.DataFrame(
        columns=[*CLAIM_COLUMNS, "reading", "study"])
    paths += write_texts(folder, claims_texts(claims)) if len(claims) else []
    tables = [(s.directory.name, s.directory, s.results) for s in reported]
    paths.append(write_index_page(folder, tables, claims, others))
    head = f"Index of {len(reported)} studies: {folder / PAGE} ({len(paths)} files)"
    return "\n".join([head, *lines]), paths, "\n".join([head, *failed])
