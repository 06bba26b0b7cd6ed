"""Bayesian-network classifiers with a scikit-learn face; each fitted one holds a pgmpy network in ``model_``
(a multinet holds one per class in ``models_``)."""

from pgmpy_ext.classifiers._augmented import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.classifiers._ban import BANClassifier
from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.classifiers._ctan import CTANClassifier
from pgmpy_ext.classifiers._forest import ABNClassifier, FANClassifier, SBNClassifier
from pgmpy_ext.classifiers._kdb import KDBClassifier
from pgmpy_ext.classifiers._multinet import CLMultinetClassifier
from pgmpy_ext.classifiers._selective import SelectiveNBClassifier
from pgmpy_ext.classifiers._structural_tm import StructuralTMClassifier

__all__ = ["BNClassifierBase", "NaiveBayesClassifier", "TANClassifier"]
__all__ += ["ABNClassifier", "FANClassifier", "SBNClassifier"]
__all__ += ["BANClassifier", "CLMultinetClassifier", "KDBClassifier", "SelectiveNBClassifier"]
__all__ += ["CTANClassifier", "StructuralTMClassifier"]
from pgmpy_ext.classifiers._k2 import K2Classifier  # noqa: E402

__all__ += ["K2Classifier"]
