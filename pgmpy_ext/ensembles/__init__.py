"""Ensembles of Bayesian-network classifiers; each fitted one holds its members in ``estimators_``."""

from pgmpy_ext.ensembles._bench import (
    BENCHClassifier,
    BenchDataset,
    apply_cuts,
    bench_datasets,
    bicluster_labels,
    equal_width_cuts,
)

__all__ = ["BENCHClassifier", "BenchDataset", "apply_cuts", "bench_datasets", "bicluster_labels",
           "equal_width_cuts"]
