"""Doubly (here quadruply) stochastic gradients with random Fourier features: QSG-S2AUC and
QS3ORAO (one engine), the random-feature blocks, and the plain Algorithm 1 reference."""

from ordauc.solvers.dsg.qsg import QS3ORAO, QSGS2AUC

__all__ = ["QS3ORAO", "QSGS2AUC"]
