"""The claims of the NPSVOR paper (Wang, Shi, Niu & Tian, "Nonparallel support vector ordinal
regression", IEEE Trans. Cybernetics 2017): NP-1 ... NP-17 and the protocol statements NP-P1 ...
NP-P5, one module per family; importing this module registers them all.

- :mod:`ordauc.claims.npsvor_ranks`: average ranks, Friedman test, overall and cited claims
  (NP-1, NP-5, NP-6, NP-9, NP-16);
- :mod:`ordauc.claims.npsvor_tests`: per-dataset Wilcoxon tallies, CV time, tuning headroom
  (NP-7, NP-8, NP-10, NP-15);
- :mod:`ordauc.claims.npsvor_sweeps`: toy example, eps, ADMM tolerances and rate (NP-2, NP-3,
  NP-4, NP-17);
- :mod:`ordauc.claims.npsvor_wilcoxon`: the per-dataset Wilcoxon comparisons, the paper's
  Wilcoxon-grouped ranking and the win / draw / loss tallies (no claims of its own);
- :mod:`ordauc.claims.npsvor_scale`: scalability on california (NP-11 ... NP-13);
- :mod:`ordauc.claims.npsvor_movielens`: collaborative filtering on MovieLens (NP-14);
- :mod:`ordauc.claims.npsvor_protocol`: the protocol statements (NP-P1 ... NP-P5).
"""

from __future__ import annotations

from ordauc.claims import (  # noqa: F401  (each module registers its claims on import)
    npsvor_movielens,
    npsvor_protocol,
    npsvor_ranks,
    npsvor_scale,
    npsvor_sweeps,
    npsvor_tests,
)
