"""k-dependence Bayesian classifier (kDB, Sahami 1996), scikit-learn face."""

from __future__ import annotations

import numbers

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.structure import fit_kdb
from pgmpy_ext.utils import Interval, fill_doc

__all__ = ["KDBClassifier"]


@fill_doc
class KDBClassifier(BNClassifierBase):
    r"""k-dependence Bayesian classifier (Sahami 1996), as a scikit-learn classifier returning a pgmpy network.

    Every feature has the class and at most ``k`` other features as parents; the structure is Sahami's greedy kDB
    as specified in section 4.5 of ``docs/decisions/seed001-tm-classifiers.md`` (algorithm A9, with the figure's
    typos fixed). Mutual information and class-conditional mutual information come from the Cython
    counting kernels.

    Parameters
    ----------
    k : int, default 1
        Maximum number of feature parents per feature, >= 0. ``k = 0`` is naive Bayes; CPT sizes grow as
        :math:`K r^{k+1}`.
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``, scikit-learn
        ``CategoricalNB``'s ``alpha``); 0 gives maximum likelihood (uniform columns for unseen parent
        configurations; zero probabilities are floored at 1e-300 when predicting).
    estimator : pgmpy DiscreteParameterEstimator, optional
        Used instead of the built-in counts when given; a fresh copy is fitted, ``alpha`` is then ignored.
    %(n_jobs)s
    show_progress : bool, default False
        Unused.
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace`` holds ``"order"`` (features in
        placement order), ``"mi"`` (``I(X_i; C)``) and ``"cmi"`` (``I(X_i; X_j | C)``), in nats.

    See Also
    --------
    TANClassifier : the maximum-spanning-tree 1-dependence classifier.
    pgmpy_ext.structure.KDBSearch : the pgmpy structure face.

    Notes
    -----
    Features are placed in decreasing :math:`I(X; C)`; the feature placed at step :math:`t` takes as parents the
    class and the :math:`\min(k, t)` already placed features with the highest :math:`I(X; X_j \mid C)`. Ties go to
    the lowest feature index. Prediction: :math:`\arg\max_c \log P(c) + \sum_i \log P(x_i \mid c, \pi_i)` from
    the batch kernel.

    References
    ----------
    .. [1] M. Sahami, "Learning limited dependence Bayesian classifiers", KDD 1996, pp. 335-338.
    .. [2] G. Santafé, PhD thesis (2007), section 4 (Fig. 4.9).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = y ^ (rng.random(400) < 0.1)
    >>> b = a ^ (rng.random(400) < 0.2)
    >>> X = pd.DataFrame({"A": a, "B": b, "D": b ^ (rng.random(400) < 0.1)})
    >>> clf = KDBClassifier(k=2).fit(X, y)
    >>> sorted(clf.structure_.augmenting_edges())
    [('A', 'B'), ('A', 'D'), ('B', 'D')]
    >>> KDBClassifier(k=0).fit(X, y).structure_.augmenting_edges()   # naive Bayes
    []
    """

    def __init__(self, *, k=1, alpha=1.0, estimator=None, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.k = k
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _parameter_constraints = {**BNClassifierBase._parameter_constraints, "k": [Interval(numbers.Integral, 0, None)]}

    def _fit_structure(self, data, class_node, rng):
        return fit_kdb(data, class_node, k=self.k, n_jobs=self.n_jobs or 1)
