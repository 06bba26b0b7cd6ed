"""Ensembles of Bayesian-network classifiers: tree-selected (BBN-DT) and knock-out (BBN-ITDT) networks and the
weighted votes that combine members (seed 004)."""

from pgmpy_ext.ensembles._itdt import BBNDTClassifier, ITDTEnsembleClassifier
from pgmpy_ext.ensembles._weighting import WEIGHTINGS, member_weights, weighted_vote

__all__ = ["BBNDTClassifier", "ITDTEnsembleClassifier", "WEIGHTINGS", "member_weights", "weighted_vote"]
