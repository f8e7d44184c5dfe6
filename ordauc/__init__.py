"""ordauc: reproduce semi-supervised AUC optimisation and ordinal regression benchmarks."""

__version__ = "0.1.0"
