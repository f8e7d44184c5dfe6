"""Linear pairwise AUC maximisation: AUC dual coordinate descent (AUC-SDCD, AUC-SDCDperm,
AUC-MSGD; Jiang et al. 2014) and online AUC maximisation (OAMinf, OAMseq, OAMgra; Zhao et al.
2011), with compiled loops, a plain reference of each, and the pair orders they share
(docs/algorithms.md, section 6)."""

from ordauc.solvers.pairwise.dcd import AUCMSGD, AUCSDCD, AUCSDCDPerm
from ordauc.solvers.pairwise.oam import OAMGra, OAMInf, OAMSeq
from ordauc.solvers.pairwise.objective import pairwise_hinge_mean

__all__ = ["AUCMSGD", "AUCSDCD", "AUCSDCDPerm", "OAMGra", "OAMInf", "OAMSeq",
           "pairwise_hinge_mean"]
