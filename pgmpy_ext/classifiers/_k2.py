"""K2 Bayesian-network classifier (WEKA's BayesNet with the K2 search), scikit-learn face."""

from __future__ import annotations

import numbers

from sklearn.utils import check_scalar

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.stats import K2_SCORE_KINDS
from pgmpy_ext.structure import PARENT_PRIORS, fit_k2
from pgmpy_ext.utils import Interval, Options, fill_doc

__all__ = ["K2Classifier"]


@fill_doc
class K2Classifier(BNClassifierBase):
    r"""Bayesian-network classifier learned by K2 from the naive-Bayes structure (WEKA ``BayesNet -Q K2``).

    Pansombut (PhD thesis, c. 2011), chapter 2 and Appendix A (``docs/decisions/seed004-bench-itdt.md``, "BBN
    classifier" and "Structure scores"): the class is a parent of
    every feature and counts toward ``max_parents``; the features are visited in data order and each receives the
    predecessors that raise WEKA's BAYES score most; the CPTs are WEKA's ``SimpleEstimator``. WEKA uses a
    pseudo-count of 0.5 per cell for both; here one ``alpha`` (default 1, the library's pseudo-count) is the prior of
    the score and of the CPTs alike, a default chosen on held-out data (10-fold CV over 31 UCI sets:
    ``docs/decisions/issue24-one-vocabulary.md``, "Defaults chosen on held-out data").
    ``K2Classifier(alpha=0.5)`` is WEKA's setting, the base
    learner of BBN-DT, BBN-ITDT and BENCH and what the reproductions use. WEKA's search is
    ``parent_prior="uniform"``; the default ``"size"`` (see below) keeps chance parents out on microarrays.

    Parameters
    ----------
    max_parents : int, default 5
        Maximum number of parents per feature, the class included (WEKA counts it); 1 gives naive Bayes. The
        thesis states 5 (Table 2.2; WEKA's default of 1 would make K2 naive Bayes).
    order : None, "data", "random" or sequence of feature names, default None
        The K2 ordering of the features: data order (None or "data", WEKA's default), a random permutation drawn
        from ``random_state``, or a permutation of the feature names (``x0, x1, ...`` for arrays).
    scoring_method : {"bayes", "k2", "bdeu", "bic", "aic", "ll"}, default "bayes"
        Local score of the search: "bayes" is WEKA's BAYES score (pseudo-count ``score_alpha`` per cell), "k2" the
        Cooper-Herskovits metric, the others the usual decomposable scores.
    score_alpha : float > 0 or None, default None
        Pseudo-count of the "bayes" score; None uses ``alpha`` (one Dirichlet prior for the structure score and the
        parameters). Set it to search with another prior than the CPTs'.
    parent_prior : {"size", "uniform"}, default "size"
        Prior over each feature's parent set in the search. "uniform" (WEKA, the thesis, the ensembles' members
        and the reproductions of Pansombut's thesis) scores parent sets by the data alone; "size" is Friedman & Koller's
        prior, uniform over parent-set sizes and then over the sets of each size, which charges the ``j``-th searched
        parent of a feature with ``p`` candidate predecessors ``log((p - j + 1) / j)`` nats (floored at 0), so
        chance parents are kept out when genes are many and samples few. The default was chosen on held-out data
        (``docs/decisions/issue29-microarray-ensembles.md``, "K2: a prior over parent-set sizes";
        ``benchmarks/results/k2_microarray.md``): 5-fold
        x 2 accuracy on the microarrays, "uniform" -> "size" at ``max_parents=5``: leukemia 53.4 -> 93.7 %
        (naive Bayes 84.8), colon 75.1 -> 79.9 (69.6), lymphoma 93.2 (92.2); 10-fold on 31 UCI sets: mean
        accuracy 0.862 -> 0.859, 10 better, 11 equal, 10 worse (naive Bayes 0.809).
    init_naive_bayes : bool, default True
        Start from the naive-Bayes structure (WEKA's ``initAsNaiveBayes``). False puts the class first in the
        ordering as an ordinary candidate parent.
    alpha : float, default 1.0
        Dirichlet pseudo-count per CPT cell (WEKA ``SimpleEstimator -A``, 0.5 there; bnclassify's ``smooth``,
        pgmpy's ``pseudo_counts``); 0 gives maximum likelihood (then the "bayes" score needs ``score_alpha > 0``).
        Also the score's pseudo-count when ``score_alpha`` is None.
    estimator : pgmpy DiscreteParameterEstimator, optional
        Used instead of the built-in counts when given; a fresh copy is fitted, ``alpha`` is then ignored.
    %(n_jobs)s
    random_state : None, int or numpy Generator
        Seeds ``order="random"``.
    show_progress : bool, default False
        A progress bar over the K2 search (when pgmpy's ``config.SHOW_PROGRESS`` is on too).
    %(handle_unknown)s
    %(missing)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace`` holds ``"order"``,
        ``"local_scores"``, ``"scoring_method"`` and ``"total_score"`` (see :func:`pgmpy_ext.structure.fit_k2`).

    See Also
    --------
    pgmpy_ext.structure.K2Search : the pgmpy structure face.
    pgmpy_ext.classifiers.BANClassifier : K2 over the features without the class (Santafé's protocol).

    Notes
    -----
    The search maximises, node by node,

    .. math::

        \sum_{j=1}^{q_i} \Big[\log\Gamma(r_i\alpha) - \log\Gamma(N_{ij} + r_i\alpha)
            + \sum_{k=1}^{r_i} \big(\log\Gamma(N_{ijk} + \alpha) - \log\Gamma(\alpha)\big)\Big]

    over parent sets made of the class and at most ``max_parents - 1`` preceding features, greedily (one parent
    per step, while the score strictly improves; ties: the lowest feature index).

    References
    ----------
    .. [1] G. F. Cooper and E. Herskovits, "A Bayesian method for the induction of probabilistic networks from
       data", Machine Learning 9 (1992) 309-347.
    .. [2] T. Pansombut, PhD thesis (NC State, 2011), chapters 3-4.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = y ^ (rng.random(300) < 0.2)
    >>> X = pd.DataFrame({"A": a, "B": a ^ (rng.random(300) < 0.1), "D": rng.integers(0, 3, 300)})
    >>> clf = K2Classifier(max_parents=2).fit(X, y)
    >>> clf.structure_.augmenting_edges()
    [('A', 'B')]
    >>> clf.predict(X.iloc[:3]).tolist()
    [0, 1, 0]
    """

    def __init__(self, *, max_parents=5, order=None, scoring_method="bayes", score_alpha=None, init_naive_bayes=True,
                 parent_prior="size", alpha=1.0, estimator=None, n_jobs=None, random_state=None,
                 show_progress=False, handle_unknown="ignore", missing="available_case"):
        self.max_parents = max_parents
        self.parent_prior = parent_prior
        self.order = order
        self.scoring_method = scoring_method
        self.score_alpha = score_alpha
        self.init_naive_bayes = init_naive_bayes
        self.alpha = alpha
        self.estimator = estimator
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _parameter_constraints = {**BNClassifierBase._parameter_constraints,
                              "max_parents": [Interval(numbers.Integral, 0, None)],
                              "order": [None, Options("data", "random"), "array-like"],
                              "scoring_method": [Options(K2_SCORE_KINDS)],
                              "score_alpha": [None, Interval(numbers.Real, 0, None, closed="neither")],
                              "init_naive_bayes": ["boolean"],
                              "parent_prior": [Options(PARENT_PRIORS)]}

    def _check_params(self):
        super()._check_params()
        if self.init_naive_bayes:  # the class counts among the parents (WEKA)
            check_scalar(self.max_parents, "max_parents", numbers.Integral, min_val=1)
        if self.score_alpha is None and self.scoring_method == "bayes" and not self.alpha > 0:
            raise ValueError(f"alpha == {self.alpha!r} is the BAYES score's pseudo-count too (score_alpha=None), "
                             "which must be > 0; pass score_alpha > 0 to fit maximum-likelihood CPTs.")

    def _fit_structure(self, data, class_node, rng):
        return fit_k2(data, class_node, max_parents=self.max_parents, order=self.order,
                      scoring_method=self.scoring_method,
                      alpha=float(self.alpha if self.score_alpha is None else self.score_alpha),
                      init_naive_bayes=self.init_naive_bayes, random_state=rng, n_jobs=self.n_jobs or 1,
                      show_progress=self.show_progress, parent_prior=self.parent_prior)
