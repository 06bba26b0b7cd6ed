"""Bayesian-network-augmented naive Bayes (BAN) with K2 over the features, scikit-learn face."""

from __future__ import annotations

import numbers

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.stats import SCORE_KINDS
from pgmpy_ext.structure import fit_ban
from pgmpy_ext.utils import Interval, Options, fill_doc

__all__ = ["BANClassifier"]


@fill_doc
class BANClassifier(BNClassifierBase):
    r"""BAN classifier: a K2-learned DAG over the features plus the class as parent of every feature.

    The thesis's protocol (Santafé 2007, section 4.6; ``docs/decisions/seed001-tm-classifiers.md``, "BAN"): the
    feature DAG is learned by the K2 search (Cooper & Herskovits 1992) on the features only, ignoring the class, with a
    random (seeded) or given ordering and at most ``max_parents`` parents; then the class becomes a parent of
    every feature. Local scores come from the Cython counting and score kernels.

    Parameters
    ----------
    max_parents : int, default 4
        Maximum number of feature parents per feature (>= 0; 4 in the thesis). 0 gives naive Bayes.
    order : sequence of feature names, optional
        The K2 ordering (a permutation of the feature names; ``x0, x1, ...`` for arrays). Default: a random
        permutation drawn from ``random_state``.
    scoring_method : {"k2", "bdeu", "bic", "aic", "ll"}, default "k2"
        Local score of the search; "k2" (textbook K2, section 2.3) is the thesis's.
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``, scikit-learn
        ``CategoricalNB``'s ``alpha``); 0 gives maximum likelihood.
    estimator : pgmpy DiscreteParameterEstimator, optional
        Used instead of the built-in counts when given; a fresh copy is fitted, ``alpha`` is then ignored.
    %(n_jobs)s
    random_state : None, int or numpy Generator
        Seeds the random ordering when ``order`` is None. The same seed gives the same model.
    show_progress : bool, default False
        A progress bar over the K2 steps (when pgmpy's ``config.SHOW_PROGRESS`` is on too).
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace`` holds ``"order"`` (the ordering
        used), ``"local_scores"`` (final local score per feature, nats, class excluded), ``"scoring_method"``
        and ``"total_score"``.

    See Also
    --------
    pgmpy_ext.structure.BANSearch : the pgmpy structure face.

    Notes
    -----
    K2 adds to each feature, in the ordering, the predecessor that most increases

    .. math::

        \log K2(X_i, \Pi_i) = \sum_{j=1}^{q_i} \Big[ \log\Gamma(r_i) - \log\Gamma(N_{ij} + r_i)
            + \sum_{k} \log\Gamma(N_{ijk} + 1) \Big]

    while it strictly increases and :math:`|\Pi_i| <` ``max_parents`` (ties: the lowest feature index). Results
    depend strongly on the ordering, so the thesis's BAN numbers are not reproducible exactly.

    References
    ----------
    .. [1] G. F. Cooper and E. Herskovits, "A Bayesian method for the induction of probabilistic networks from
       data", Machine Learning 9 (1992) 309-347.
    .. [2] G. Santafé, PhD thesis (2007), sections 2.3.2, 4 and 5.2.3.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = y ^ (rng.random(300) < 0.2)
    >>> X = pd.DataFrame({"A": a, "B": a ^ (rng.random(300) < 0.1), "D": rng.integers(0, 3, 300)})
    >>> clf = BANClassifier(order=["B", "A", "D"]).fit(X, y)
    >>> clf.structure_.augmenting_edges()
    [('B', 'A')]
    >>> clf.predict(X.iloc[:3]).tolist()
    [0, 1, 0]
    """

    def __init__(self, *, max_parents=4, order=None, scoring_method="k2", alpha=1.0, estimator=None, n_jobs=None,
                 random_state=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.max_parents = max_parents
        self.order = order
        self.scoring_method = scoring_method
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _parameter_constraints = {**BNClassifierBase._parameter_constraints,
                              "max_parents": [Interval(numbers.Integral, 0, None)],
                              "scoring_method": [Options(SCORE_KINDS)], "order": [None, "array-like"]}

    def _fit_structure(self, data, class_node, rng):
        return fit_ban(data, class_node, max_parents=self.max_parents, order=self.order, random_state=rng,
                       scoring_method=self.scoring_method, n_jobs=self.n_jobs or 1, show_progress=self.show_progress)
