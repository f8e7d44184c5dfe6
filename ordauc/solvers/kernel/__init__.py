"""Exact kernel baselines of the QSG papers: SAMULT, PNU-AUC, and the one M-* wrapper of k-1
binary models that turns either into its ordinal version (M-SAMULT, M-PNU-AUC)."""

from ordauc.solvers.kernel.multi import OneModelPerSubproblem
from ordauc.solvers.kernel.pnu_auc import MPNUAUC, PNUAUC
from ordauc.solvers.kernel.samult import MSAMULT, SAMULT, gaussian_kernel

__all__ = ["MPNUAUC", "MSAMULT", "PNUAUC", "SAMULT", "OneModelPerSubproblem", "gaussian_kernel"]
