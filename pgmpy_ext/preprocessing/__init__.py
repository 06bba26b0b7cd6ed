"""Discretisers with categorical output, to put in front of the classifiers in a scikit-learn ``Pipeline``.

Each one is fitted on the training data only (so inside ``cross_val_score`` it is refitted per fold) and returns a
DataFrame whose discretised columns are pandas Categorical over the bin codes ``0 .. n_bins - 1``: every bin is a
declared state of the classifier even when a test fold has no value in it. Other columns pass through unchanged.
"""

from pgmpy_ext.preprocessing._binning import EqualFrequencyDiscretizer, EqualWidthDiscretizer
from pgmpy_ext.preprocessing._mdlp import MDLPDiscretizer, mdlp_cut_points

__all__ = ["EqualFrequencyDiscretizer", "EqualWidthDiscretizer", "MDLPDiscretizer", "mdlp_cut_points"]
