"""Linear pairwise AUC maximisation: AUC dual coordinate descent (SDCD, SDCDperm, MSGD) and
online AUC maximisation (OAM)."""
