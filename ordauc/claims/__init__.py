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
from ordauc.claims.registry import (
    CLAIMS,
    ENTRY_POINT_GROUP,
    PAPERS,
    VERDICTS,
    Claim,
    Outcome,
    claim,
    register_paper,
)
from ordauc.claims.study import Finding, Study, check_claims, findings_table


def _load_plugins() -> None:
    """Import every module of the ``ordauc.claims`` entry-point group: each registers its
    claims (and papers) as the built-in modules do."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry.load()
        except Exception as exc:  # one sentence naming the plugin, not a bare traceback
            raise ImportError(f"the claims plugin {entry.name!r} ({entry.value}) could not be "
                              f"imported: {exc}") from exc


_load_plugins()

__all__ = ["CLAIMS", "PAPERS", "VERDICTS", "Claim", "Finding", "Outcome", "Study",
           "check_claims", "claim", "findings_table", "register_paper"]
