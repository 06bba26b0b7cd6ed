"""Feature selection for Bayesian-network classifiers: a C4.5 (J48) tree whose tested features are kept."""

from pgmpy_ext.feature_selection._c45 import C45Classifier, add_errs, used_tree_features

__all__ = ["C45Classifier", "add_errs", "used_tree_features"]
