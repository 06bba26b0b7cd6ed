"""Bayesian-network classifiers with a scikit-learn face; each fitted one holds a pgmpy network in ``model_``."""

from pgmpy_ext.classifiers._augmented import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.classifiers._base import BNClassifierBase

__all__ = ["BNClassifierBase", "NaiveBayesClassifier", "TANClassifier"]
