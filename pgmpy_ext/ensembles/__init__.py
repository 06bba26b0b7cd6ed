"""Ensembles of Bayesian-network classifiers: tree-selected (BBN-DT) and knock-out (BBN-ITDT) networks, the
biclustering-driven BENCH, and the weighted votes that combine members (seed 004)."""

from pgmpy_ext.ensembles._bench import (
    BENCHClassifier,
    BenchDataset,
    apply_cuts,
    bench_datasets,
    bicluster_labels,
    equal_width_cuts,
)
from pgmpy_ext.ensembles._itdt import BBNDTClassifier, ITDTEnsembleClassifier
from pgmpy_ext.ensembles._weighting import WEIGHTINGS, member_weights, weighted_vote

__all__ = ["BBNDTClassifier", "ITDTEnsembleClassifier", "WEIGHTINGS", "member_weights", "weighted_vote"]
__all__ += ["BENCHClassifier", "BenchDataset", "apply_cuts", "bench_datasets", "bicluster_labels",
            "equal_width_cuts"]
