"""What running a shipped study costs, so that an UNDECIDABLE verdict can say what deciding it
would take: the config that decides it and its core-hours.

The figures are the README's table (``ordauc run CONFIG --dry-run`` on a 2-core machine, paper
and quick profiles; the convergence studies, which the dry run underestimates because it does
not cost the reference fits and the checkpoints, as measured); a test keeps the two equal.
"""

from __future__ import annotations

import re

# study stem -> (core-hours under the paper profile, under --profile quick)
CORE_HOURS: dict[str, tuple[float, float]] = {
    "qsg_s2auc": (545, 51),
    "qsg_s2auc_time": (96, 26),
    "qsg_s2auc_convergence": (0.5, 0.5),
    "qs3orao": (1_392, 201),
    "qs3orao_time": (142, 35),
    "qs3orao_convergence": (0.6, 0.6),
    "npsvor": (70, 3.2),
    "npsvor_toy": (0.015, 0.0023),
    "npsvor_eps": (18, 0.98),
    "npsvor_tolerance": (2.1, 1),
    "npsvor_scale": (1.7, 1.7),
    "npsvor_movielens": (34, 0.97),
    "auc_dcd": (19, 1.7),
}
_CONFIG = re.compile(r"configs/(\w+)\.yaml")


def _hours(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 else f"{value:.2g}"


def cost_text(stem: str) -> str:
    """'about N core-hours (M under --profile quick)' for a shipped study; '' for another."""
    if stem not in CORE_HOURS:
        return ""
    paper, quick = CORE_HOURS[stem]
    text = f"about {_hours(paper)} core-hours"
    return text if quick == paper else f"{text} ({_hours(quick)} under --profile quick)"


def with_costs(evidence: str) -> str:
    """``evidence`` with the cost of each shipped config it names (``configs/<stem>.yaml``)
    appended once: what running it to decide the claim would take."""
    stems = [s for s in dict.fromkeys(_CONFIG.findall(evidence)) if s in CORE_HOURS]
    if not stems or "core-hours" in evidence:
        return evidence
    costs = "; ".join(f"configs/{s}.yaml: {cost_text(s)}" for s in stems)
    return f"{evidence} [to run: {costs}]"
