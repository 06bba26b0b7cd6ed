"""Ensembles of Bayesian-network classifiers: tree-selected (BBN-DT) and knock-out (BBN-ITDT) networks, the
biclustering-driven BENCH, and the weighted votes that combine members (Pansombut, PhD thesis, North Carolina State
University, c. 2011).

The public API is ``__all__``; BENCH's dataset builders stay importable from here for the reproductions and tests.
"""

from pgmpy_ext.ensembles._bench import BENCHClassifier, apply_cuts, equal_width_cuts
from pgmpy_ext.ensembles._itdt import BBNDTClassifier, ITDTEnsembleClassifier
from pgmpy_ext.ensembles._weighting import weighted_vote

__all__ = ["BBNDTClassifier", "BENCHClassifier", "ITDTEnsembleClassifier", "apply_cuts", "equal_width_cuts",
           "weighted_vote"]

# Engines: importable for pgmpy-ext's reproductions, benchmarks and tests; not public (not in __all__).
from pgmpy_ext.ensembles._bench import BenchDataset, bench_datasets, bicluster_labels  # noqa: E402, F401
from pgmpy_ext.ensembles._weighting import WEIGHTINGS, member_weights  # noqa: E402, F401
