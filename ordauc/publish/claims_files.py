"""The claims' files of a study or a folder of studies: ``claims.csv`` (the papers' claims and
their verdicts), ``protocol.csv`` (the statements of their protocols, FOLLOWED or DEVIATED) and
``claims.md`` with both, from the findings table of :func:`ordauc.claims.findings_table`."""

from __future__ import annotations

import pandas as pd

CLAIM_COLUMNS = ["paper", "claim", "verdict", "statistic", "evidence", "rule"]
PROTOCOL_COLUMNS = ["paper", "statement", "state", "evidence", "check"]


def split_kinds(findings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the papers' claims, the statements of their protocols) of a findings table."""
    kind = findings["kind"] if "kind" in findings.columns else pd.Series(
        "claim", index=findings.index)
    return findings[kind != "protocol"], findings[kind == "protocol"]


def claims_texts(findings: pd.DataFrame) -> dict[str, str]:
    """``claims.csv`` (the columns of :data:`CLAIM_COLUMNS`; the rule says which reading it
    is), ``protocol.csv`` (:data:`PROTOCOL_COLUMNS`: each statement of the papers' protocols
    as FOLLOWED, DEVIATED, NOT RECORDED or a NOTE) and ``claims.md`` with both."""
    claims, protocol = split_kinds(findings)
    table = claims.assign(rule=claims["rule"] + " [" + claims["reading"] + "]")
    steps = pd.DataFrame({"paper": protocol["paper"], "statement": protocol["claim"],
                          "state": protocol["verdict"], "evidence": protocol["evidence"],
                          "check": protocol["rule"]}, columns=PROTOCOL_COLUMNS)
    lines = ["# Claims of the papers", ""]
    for paper, rows in claims.groupby("paper", sort=False):
        lines += [f"## {paper}", "", "| Claim | Verdict | Statistic | Evidence |",
                  "| --- | --- | --- | --- |"]
        lines += [f"| {_cell(r.claim)} | {r.verdict} | {_cell(r.statistic)} | "
                  f"{_cell(r.evidence)} |" for r in rows.itertuples()]
        lines.append("")
    if len(steps):
        lines += ["# How our runs follow the papers' protocols", ""]
        for paper, rows in steps.groupby("paper", sort=False):
            lines += [f"## {paper}", "", "| Statement | State | Evidence |", "| --- | --- | --- |"]
            lines += [f"| {_cell(r.statement)} | {r.state} | {_cell(r.evidence)} |"
                      for r in rows.itertuples()]
            lines.append("")
    return {"claims.csv": table[CLAIM_COLUMNS].to_csv(index=False),
            "protocol.csv": steps.to_csv(index=False), "claims.md": "\n".join(lines)}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
