"""Naive Bayes and TAN classifiers (scikit-learn face)."""

from __future__ import annotations

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.structure import fit_nb, fit_tan
from pgmpy_ext.utils import fill_doc

__all__ = ["NaiveBayesClassifier", "TANClassifier"]


@fill_doc
class NaiveBayesClassifier(BNClassifierBase):
    """Naive Bayes over discrete features, returning a pgmpy ``DiscreteBayesianNetwork`` (Santafé 2007, §4.1).

    ``p(c, x) = p(c) prod_i p(x_i | c)``; parameters are (smoothed) counts.

    Parameters
    ----------
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``, scikit-learn
        ``CategoricalNB``'s ``alpha``); 0 gives maximum likelihood (uniform columns for unseen parent
        configurations; zero probabilities are floored at 1e-300 when predicting).
    estimator : pgmpy DiscreteParameterEstimator, optional
        Used instead of the built-in counts when given (e.g. ``DiscreteBayesianEstimator(prior_type="BDeu")`` or
        pgmpy-ext's ``TMEstimator``); a fresh copy is fitted, ``alpha`` is then ignored.
    %(n_jobs)s
    show_progress : bool, default False
        Unused by naive Bayes.
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"outlook": ["sun", "rain", "sun", "rain"], "windy": [True, False, False, True]})
    >>> y = pd.Series(["no", "yes", "yes", "no"], name="play")
    >>> clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
    >>> sorted(clf.model_.edges())
    [('play', 'outlook'), ('play', 'windy')]
    >>> clf.predict(pd.DataFrame({"outlook": ["rain"], "windy": [False]})).tolist()
    ['yes']
    """

    _narrow_training_codes = True  # the counting kernels read int8 codes as they are

    def __init__(self, *, alpha=1.0, estimator=None, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def _fit_structure(self, data, class_node, rng):
        return fit_nb(data, class_node, n_jobs=self.n_jobs or 1)


@fill_doc
class TANClassifier(BNClassifierBase):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997; Santafé 2007, §4.3) for scikit-learn.

    The feature tree is the maximum spanning tree of I(Xi; Xj | C) (pairwise class-conditional counts and CMI in
    the Cython kernels, deterministic Kruskal), oriented away from ``root``.

    Parameters
    ----------
    root : label, optional
        Root of the feature tree (default: the first feature). It never changes the maximum-likelihood joint
        distribution, only the CPD layout.
    alpha, estimator, n_jobs, show_progress
        As in :class:`NaiveBayesClassifier`.
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, n_features_in_, feature_names_in_
        ``structure_.trace["cmi"]`` is the (n_features, n_features) CMI matrix in nats.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = y ^ (rng.random(400) < 0.2)
    >>> X = pd.DataFrame({"A": a, "B": a ^ (rng.random(400) < 0.1), "D": rng.integers(0, 3, 400)})
    >>> clf = TANClassifier().fit(X, y)
    >>> clf.structure_.augmenting_edges()
    [('A', 'B'), ('A', 'D')]
    >>> clf.predict_proba(X.iloc[:2]).round(3).tolist()
    [[0.22, 0.78], [0.821, 0.179]]
    """

    _narrow_training_codes = True  # the counting kernels read int8 codes as they are

    def __init__(self, *, root=None, alpha=1.0, estimator=None, n_jobs=None, show_progress=False,
                 handle_unknown="ignore", missing="available_case"):
        self.root = root
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def _fit_structure(self, data, class_node, rng):
        return fit_tan(data, class_node, root=self.root, n_jobs=self.n_jobs or 1)
