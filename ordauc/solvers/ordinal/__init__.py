"""Supervised ordinal regression: NPSVOR (ADMM) and the NPSVOR paper's SVM baselines
(docs/algorithms.md, sections 4 and 5)."""
