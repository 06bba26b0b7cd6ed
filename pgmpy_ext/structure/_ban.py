"""Bayesian-network-augmented naive Bayes (BAN) with a K2 search over the features (the shared engine of
:mod:`pgmpy_ext.structure._k2`), and its pgmpy face."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import SCORE_KINDS
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._k2 import check_order, k2_search
from pgmpy_ext.utils import check_generator, check_option

__all__ = ["BANSearch", "fit_ban"]

def fit_ban(data: EncodedData, class_node, *, features: Sequence | None = None, max_parents: int = 4, order=None,
            random_state=None, scoring_method: str = "k2", equivalent_sample_size: float = 10.0, n_jobs: int = 1,
            show_progress: bool = False) -> ClassifierStructure:
    """BAN as in the thesis experiments (Santafé 2007, section 4.6): K2 over the features only, then C -> every
    feature.

    The feature DAG ignores the class (structure learning never counts it); ``order`` is a permutation of the
    feature labels, or None for a random ordering drawn from ``random_state`` (``rng.permutation``).
    ``trace`` holds ``"order"`` (labels), ``"local_scores"`` (``{feature: final local score}``, nats, without the
    class), ``"scoring_method"`` (the score kind) and ``"total_score"`` (their sum: the score of the feature DAG).
    The search is the shared K2 engine (:func:`pgmpy_ext.structure.k2_search`); ``n_jobs`` threads search
    the variables in parallel (the result does not depend on it).
    """
    features = check_class_node(data, class_node, features)
    check_scalar(max_parents, "max_parents", numbers.Integral, min_val=0)
    check_option(scoring_method, "scoring_method", SCORE_KINDS)
    m = len(features)
    if order is None:
        pos = [int(v) for v in check_generator(random_state).permutation(m)]
    else:
        pos = check_order(order, features)
    fparents, scores = k2_search(data, features, pos, max_parents=max_parents, scoring_method=scoring_method,
                                 equivalent_sample_size=equivalent_sample_size, n_jobs=n_jobs,
                                 show_progress=show_progress)
    parents = {f: [class_node, *(features[p] for p in fparents[k])] for k, f in enumerate(features)}
    trace = {"order": [features[p] for p in pos], "local_scores": dict(zip(features, scores.tolist())),
             "scoring_method": scoring_method, "total_score": float(scores.sum())}
    return ClassifierStructure(class_node, features, parents, trace)


class BANSearch(ClassifierSearchBase):
    """BAN structure (K2 over the features with a given or random ordering, then the class as parent of every
    feature), pgmpy face: ``BANSearch(df).estimate(class_node="C", max_parents=4, order=None, random_state=0)``.

    Specification: ``docs/decisions/seed001-tm-classifiers.md`` ("Structure scores", "K2 search algorithm" and
    "BAN"; Santafé 2007, section 4.6). This is the thesis's experimental protocol: the structure among the features is
    learned without
    looking at the class, with at most 4 parents and a random ordering, and the class is then added as a parent of
    every feature.

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention). Declared but unobserved states change the K2 score (``r_i``).
    n_jobs : int, default 1
        Kept for a uniform signature.

    Attributes
    ----------
    result_ : ClassifierStructure
        After ``estimate``: parent sets and ``trace`` (``"order"``, ``"local_scores"``, ``"scoring_method"``,
        ``"total_score"``; see :func:`fit_ban`).

    See Also
    --------
    pgmpy_ext.classifiers.BANClassifier : the scikit-learn face.
    pgmpy_ext.scores.K2Score : the K2 score object (pgmpy's semantics).

    Notes
    -----
    The local score of feature :math:`X_i` with feature parents :math:`\\Pi_i` is the textbook K2 (section 2.3):

    .. math::

        \\log K2(X_i, \\Pi_i) = \\sum_{j=1}^{q_i} \\Big[ \\log\\Gamma(r_i) - \\log\\Gamma(N_{ij} + r_i)
            + \\sum_{k=1}^{r_i} \\log\\Gamma(N_{ijk} + 1) \\Big]

    summed over every parent configuration (an unseen configuration contributes 0). pgmpy 1.1.2's ``K2`` departs
    from this when ``r_i > 2`` and some configuration is unseen (see :class:`pgmpy_ext.scores.K2Score`); the two
    agree on binary data. K2 search (section 2.4) adds, while the score strictly improves and fewer than
    ``max_parents`` parents are chosen, the predecessor (in the ordering) that maximises the local score; ties go to
    the lowest feature index. The result depends strongly on the ordering (so the thesis's BAN numbers cannot be
    reproduced exactly): expose and fix ``random_state`` to reproduce a run.

    References
    ----------
    .. [1] G. F. Cooper and E. Herskovits, "A Bayesian method for the induction of probabilistic networks from
       data", Machine Learning 9 (1992) 309-347.
    .. [2] G. Santafé, PhD thesis (2007), sections 2.3.2 and 4 (BAN), 5.2.3 (experimental protocol).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 300)
    >>> b = a ^ (rng.random(300) < 0.1)
    >>> df = pd.DataFrame({"C": rng.integers(0, 2, 300), "A": a, "B": b, "D": rng.integers(0, 2, 300)})
    >>> search = BANSearch(df)
    >>> sorted(search.estimate(class_node="C", order=["A", "B", "D"]).edges())
    [('A', 'B'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    >>> sorted(search.estimate(class_node="C", order=["B", "A", "D"]).edges())
    [('B', 'A'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    """

    def estimate(self, class_node=None, max_parents: int = 4, order=None, random_state=None, scoring_method: str = "k2",
                 equivalent_sample_size: float = 10.0, show_progress: bool = False) -> DAG:
        """Return the BAN DAG: K2 over the features in ``order`` (default: random from ``random_state``), plus the
        class as parent of every feature."""
        return self._estimate(fit_ban, class_node, max_parents=max_parents, order=order, random_state=random_state,
                              scoring_method=scoring_method, equivalent_sample_size=equivalent_sample_size,
                              show_progress=show_progress)
