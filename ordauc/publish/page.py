"""The study's page (``DIR/report/index.html``) and the index page over a folder of studies.

A study's page is built from objects: the findings on each claim of the study's paper, the
report (:class:`~ordauc.report.document.ReportDocument`: the summary and every table, mean ±
std in the paper's layout, the published values beside ours, Wilcoxon win/draw/loss, Friedman,
and any registered section's), every figure ``ordauc plot`` drew, the config (the protocol and
profile the numbers come from) and the provenance at the foot. No file the report wrote is read
back: the page renders the same objects its files render.
"""

from __future__ import annotations

import datetime as dt
import platform
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ordauc.publish.claims_files import split_kinds
from ordauc.report import html
from ordauc.report.document import ReportDocument
from ordauc.report.files import write_atomic

PAGE = "index.html"


def claims_html(findings: pd.DataFrame) -> str:
    """One table per paper: claim, verdict, statistic, evidence, and the rule folded below
    (the papers' claims only: protocol statements are :func:`protocol_html`'s)."""
    claims = split_kinds(findings)[0] if len(findings) else findings
    if claims.empty:
        return "<p>No claim of the four papers is about this study.</p>"
    parts = []
    for paper, rows in claims.groupby("paper", sort=False):
        counts = rows["verdict"].value_counts()
        tally = " ".join(f"<span>{html.verdict(v)} {n}</span>" for v, n in counts.items())
        body = "".join(
            f"<tr><td>{html.esc(r.claim)}<details><summary>rule</summary>{html.esc(r.rule)}"
            f" ({html.esc(r.reading)})</details></td><td>{html.verdict(r.verdict)}</td>"
            f"<td>{html.esc(r.statistic)}</td><td>{html.esc(r.evidence)}</td></tr>"
            for r in rows.itertuples())
        parts.append(f"<h3>{html.esc(paper)}</h3><p class=\"counts\">{tally}</p>"
                     "<table><thead><tr><th>Claim</th><th>Verdict</th><th>Statistic</th>"
                     f"<th>Evidence</th></tr></thead><tbody>{body}</tbody></table>")
    return "\n".join(parts)


def protocol_html(findings: pd.DataFrame) -> str:
    """One table per paper: each statement of its protocol and whether our runs FOLLOWED it,
    DEVIATED from it (how, and why), did NOT RECORD what would tell, or a NOTE (a fact about
    the paper no run reproduces). Empty when there is none."""
    steps = split_kinds(findings)[1] if len(findings) else findings
    if steps.empty:
        return ""
    parts = ["<p>These are statements of how the papers ran their experiments. A deviation is "
             "a property of our runs (an offline twin, a profile, a machine), not a verdict on "
             "the paper.</p>"]
    for paper, rows in steps.groupby("paper", sort=False):
        body = "".join(
            f"<tr><td>{html.esc(r.claim)}<details><summary>check</summary>{html.esc(r.rule)}"
            f"</details></td><td>{html.verdict(r.verdict)}</td><td>{html.esc(r.evidence)}"
            "</td></tr>" for r in rows.itertuples())
        parts.append(f"<h3>{html.esc(paper)}</h3><table><thead><tr><th>Statement</th>"
                     f"<th>State</th><th>Evidence</th></tr></thead><tbody>{body}</tbody>"
                     "</table>")
    return "\n".join(parts)


def _tables_html(report: ReportDocument) -> str:
    return "\n".join(f'<h3 id="{html.esc(item.stem)}">{html.esc(item.stem)}</h3>{item.html()}'
                     for item in report.page_items())


def _figures_html(figures: Path) -> str:
    pngs = sorted(figures.glob("*.png")) if figures.is_dir() else []
    if not pngs:
        return "<p>No figures yet: <code>ordauc plot</code> of this folder draws them.</p>"
    return "\n".join(html.figure(p) for p in pngs)


def provenance(results: pd.DataFrame, study: object | None = None) -> str:
    """The foot of a page: which code made the rows, where and when, and the config's hash."""
    def values(column: str) -> str:
        if column not in results.columns:
            return "not recorded"
        found = [str(v) for v in pd.unique(results[column].dropna()) if str(v)]
        return ", ".join(found) or "not recorded"

    # a table without the column (written by hand, or before it existed) has no run times
    started = (pd.to_datetime(results["started_at"], errors="coerce", utc=True)
               if "started_at" in results.columns else None)
    when = (f"{started.min():%Y-%m-%d %H:%M} to {started.max():%Y-%m-%d %H:%M} UTC"
            if started is not None and started.notna().any() else "not recorded")
    config = (f"config {html.esc(study.config)} (sha256 {html.esc(study.sha256[:12])}); "
              if study is not None else "")
    now = dt.datetime.now(dt.timezone.utc)
    return (f"{config}ordauc {html.esc(values('ordauc_version'))}, commit "
            f"{html.esc(values('git_sha'))}; Python {html.esc(values('python'))}, numpy "
            f"{html.esc(values('numpy'))}; machine {html.esc(values('platform'))}; runs "
            f"{when}; page written {now:%Y-%m-%d %H:%M} UTC on {html.esc(platform.node())}.")


@dataclass(frozen=True)
class Page:
    """A page before it is HTML: its title, the line below it, its sections (anchor, heading,
    body HTML) and the provenance at its foot."""

    title: str
    subtitle: str
    sections: list[tuple[str, str, str]]
    footer: str

    def html(self) -> str:
        return html.page(self.title, self.subtitle, self.sections, self.footer)


def study_page(directory: Path, report: ReportDocument, results: pd.DataFrame,
               claims: pd.DataFrame, title: str) -> Page:
    """The page of the results folder ``directory``: its ``claims`` (the findings table),
    its ``report``, the figures in ``directory/figures`` and its config."""
    from ordauc.results.record import read_study_record
    from ordauc.results.schema import CONFIG_COPY

    record = read_study_record(directory)
    counts = results["status"].value_counts()
    status = ", ".join(f"{n} {s}" for s, n in counts.items())
    subtitle = (f"{len(results)} runs ({html.esc(status)})"
                + (f"; config <code>{html.esc(record.config)}</code>" if record else "")
                + ("; an offline twin (reduced data: most claims cannot be decided)"
                   if record is not None and record.offline else "")
                + ("; quick profile (successive halving, at most 3 repetitions per dataset: "
                   "not the papers' protocol)" if _profile(results, record) == "quick"
                   else "; paper profile"))
    sections = [("claims", "Claims", claims_html(claims))]
    if steps := protocol_html(claims):
        sections.append(("protocol", "Protocol followed", steps))
    sections += [("summary", "Summary", html.markdown(report.summary)),
                 ("tables", "Tables", _tables_html(report)),
                 ("figures", "Figures", _figures_html(directory / "figures"))]
    config = directory / CONFIG_COPY
    if config.is_file():
        sections.append(("config", "The study's config",
                         f"<pre>{html.esc(config.read_text('utf-8'))}</pre>"))
    return Page(title, subtitle, sections, provenance(results, record))


def write_study_page(directory: Path, report_dir: Path, report: ReportDocument,
                     results: pd.DataFrame, claims: pd.DataFrame, title: str) -> Path:
    """Write ``report_dir/index.html`` for the results folder ``directory``
    (:func:`study_page`)."""
    return write_atomic(report_dir / PAGE,
                        study_page(directory, report, results, claims, title).html())


def _profile(results: pd.DataFrame, record: object | None) -> str:
    """The profile the rows were made under: quick when any row or the folder's record says
    so (rows made before profiles existed are paper's)."""
    rows = set(results["profile"].dropna().astype(str)) if "profile" in results else set()
    return "quick" if "quick" in rows or getattr(record, "profile", "") == "quick" else "paper"


def write_index_page(folder: Path, studies: list[tuple[str, Path, pd.DataFrame]],
                     claims: pd.DataFrame, others: list[Path]) -> Path:
    """Write ``folder/index.html``: a line per study (runs, link to its page), the claims of
    every paper the studies speak to, decided each by the first study that can, and links to
    index pages of sub-folders (``others``)."""
    rows = []
    for name, directory, results in studies:
        counts = results["status"].value_counts()
        link = (directory / "report" / PAGE).relative_to(folder).as_posix()
        rows.append(f'<tr><td><a href="{html.esc(link)}">{html.esc(name)}</a></td>'
                    f"<td>{len(results)}</td><td>{int(counts.get('ok', 0))}</td>"
                    f"<td>{html.esc(', '.join(f'{n} {s}' for s, n in counts.items() if s != 'ok'))}"
                    "</td></tr>")
    table = ("<table><thead><tr><th>Study</th><th>Runs</th><th>ok</th><th>Not finished</th>"
             f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    sub = "".join(f'<li><a href="{html.esc((p / PAGE).relative_to(folder).as_posix())}">'
                  f"{html.esc(p.name)}/</a></li>" for p in others)
    if sub:
        table += f"<p>Other folders of studies:</p><ul>{sub}</ul>"
    sections = [("studies", "Studies", table), ("claims", "Claims", claims_html(claims))]
    if steps := protocol_html(claims):
        sections.append(("protocol", "Protocol followed", steps))
    every = pd.concat([r for _, _, r in studies]) if studies else pd.DataFrame()
    page = Page(f"ordauc results: {folder.resolve().name}",
                f"{len(studies)} studies in <code>{html.esc(folder)}</code>", sections,
                provenance(every) if len(every) else "")
    return write_atomic(folder / PAGE, page.html())
