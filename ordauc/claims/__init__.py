"""The papers' claims as checks over results tables, each returning a verdict
(CONFIRMED, PARTIAL, NOT CONFIRMED or UNDECIDABLE), the statistic, the evidence and the rule it
applied; docs/claims.md explains the conventions every check shares.

Importing the package registers every claim (one module per family of claims).
"""

from __future__ import annotations

from ordauc.claims import (  # noqa: F401  (each module registers its claims on import)
    auc_dcd,
    npsvor,
    qsg_accuracy,
    qsg_scaling,
)
from ordauc.claims.registry import CLAIMS, PAPERS, VERDICTS, Claim, Outcome
from ordauc.claims.study import Finding, Study, check_claims, findings_table

__all__ = ["CLAIMS", "PAPERS", "VERDICTS", "Claim", "Finding", "Outcome", "Study",
           "check_claims", "findings_table"]
