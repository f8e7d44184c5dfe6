"""Supervised ordinal regression: NPSVOR (ADMM) and the NPSVOR paper's SVM baselines."""
