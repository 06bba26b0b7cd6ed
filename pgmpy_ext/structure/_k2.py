"""K2 structure search (Cooper & Herskovits 1992) as used by WEKA's BayesNet: the shared engine of BAN and K2."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG, show_progress_enabled
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import (
    K2_SCORE_KINDS,
    FamilyCounter,
    dirichlet_family_score,
    k2_parent_search,
    local_score,
)
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.utils import check_generator, check_option

__all__ = ["K2Search", "fit_k2", "k2_search", "check_order"]

#: Local scores within this relative distance are equal: a tie between candidates goes to the lowest index, and an
#: improvement must exceed it (ties in exact arithmetic must not depend on the rounding of the lgamma sums).
TIE_RTOL = 1e-12


def _beats(s: float, ref: float) -> bool:
    return s > ref + TIE_RTOL * max(1.0, abs(ref))


def check_order(order, features: list) -> list[int]:
    """Positions (into ``features``) of a user ordering, which must list every feature exactly once."""
    try:
        labels = list(order)
    except TypeError:
        raise TypeError(f"order must be a sequence of feature names, got {type(order).__name__}.") from None
    pos = {f: k for k, f in enumerate(features)}
    unknown = [f for f in labels if f not in pos]
    if unknown:
        raise ValueError(f"order names {unknown!r}, which are not features (features: {features!r}).")
    if len(labels) != len(features) or len(set(labels)) != len(labels):
        raise ValueError(f"order must list every feature exactly once (a permutation of {features!r}); got "
                         f"{labels!r}.")
    return [pos[f] for f in labels]


def k2_search(data: EncodedData, columns: Sequence, order: Sequence[int], *, max_parents: int = 4,
              scoring_method: str = "k2", equivalent_sample_size: float = 10.0, alpha: float = 0.5,
              fixed: Sequence = (), n_jobs: int | None = 1, show_progress: bool = False, size_prior: bool = False):
    """K2 greedy parent search (Cooper & Herskovits 1992; Santafé 2007, section 2.4; Pansombut's thesis,
    Appendix A) over ``columns``.

    Parameters
    ----------
    data : EncodedData
    columns : sequence of labels
        The variables searched over (positions in this list are the indices of ``order`` and of the result).
    order : sequence of int
        The ordering, as positions into ``columns``; a variable's parents are chosen among its predecessors.
    max_parents : int, default 4
        At most this many searched parents per variable (``fixed`` parents not counted).
    scoring_method : {"bayes", "k2", "bdeu", "bic", "aic", "ll"}, default "k2"
        Local score (nats). "k2" is the textbook K2 (every parent configuration, seen or not); "bayes" WEKA's
        BAYES score (pseudo-count ``alpha`` per cell); the others as :func:`pgmpy_ext.stats.local_score`.
    equivalent_sample_size : float, default 10.0
        BDeu only.
    alpha : float, default 0.5
        "bayes" only.
    fixed : sequence of labels, default ()
        Parents of every searched variable (e.g. the class, for WEKA's naive-Bayes initial structure).
    n_jobs : int, default 1
        Threads searching the variables, one variable per thread at a time (the result does not depend on it).
    show_progress : bool, default False
        A tqdm bar over the variables (when pgmpy's ``config.SHOW_PROGRESS`` is on too).
    size_prior : bool, default False
        Friedman & Koller's parent-set-size prior: a parent is added only when its score gain exceeds
        ``log((p - k) / (k + 1))`` (floored at 0; ``p`` candidates, ``k`` parents so far); see
        :func:`pgmpy_ext.stats.k2_parent_search`. False is the uniform prior over parent sets (WEKA).

    Returns
    -------
    parents : list of list of int
        Searched parents of each variable (positions), in the order they were added.
    local_scores : numpy.ndarray (m,)
        Final local score of each variable (``fixed`` parents included).

    Notes
    -----
    For each variable in ``order``: start from the ``fixed`` parents; repeatedly add the predecessor that
    maximises the local score, while the score strictly improves and there are fewer than ``max_parents``
    searched parents. Candidates are scanned in increasing position, and only a strictly higher score replaces the
    best, so ties go to the lowest position. Scores within a relative ``1e-12`` count as equal, both between
    candidates and for the improvement test. On unweighted data the ``_k2`` kernel searches the variables (in
    parallel with ``n_jobs``; they are independent given the order), scores every candidate of a step in one pass
    over the rows grouped by parent configuration (bit-parallel counts), and with the "bayes" and "k2" scores skips
    the candidates that an exact bound proves cannot be chosen (same result; see
    :func:`pgmpy_ext.stats.k2_parent_search`); weighted data go through
    per-family count tables (:class:`pgmpy_ext.stats.FamilyCounter`), with the same result. ``bic`` uses the total
    row weight as its sample size.
    """
    check_option(scoring_method, "scoring_method", K2_SCORE_KINDS)
    cols = [int(c) for c in data.indices(list(columns))]
    fix = [int(c) for c in data.indices(list(fixed))] if len(fixed) else []
    m = len(cols)
    bar = None
    if show_progress_enabled(show_progress):
        from tqdm.auto import tqdm

        bar = tqdm(total=m, desc="K2 search")
    try:
        if data.weights is None:
            return k2_parent_search(data, cols, list(order), fixed=fix, max_parents=max_parents,
                                    scoring_method=scoring_method, alpha=alpha,
                                    equivalent_sample_size=equivalent_sample_size, n_total=data.total_weight(),
                                    tie_rtol=TIE_RTOL, n_jobs=n_jobs, progress=None if bar is None else bar.update,
                                    size_prior=size_prior)
        return _k2_search_counted(data, cols, list(order), fix, max_parents, scoring_method, alpha,
                                  equivalent_sample_size, bar, size_prior)
    finally:
        if bar is not None:
            bar.close()


def _k2_search_counted(data, cols, order, fix, max_parents, scoring_method, alpha, ess, bar, size_prior=False):
    """The K2 search on per-family count tables (weighted data; also the reference of the kernel)."""
    counter = FamilyCounter(data)
    n_total = data.total_weight()

    def local(child: int, parents: list[int]) -> float:
        table, q_total = counter.table(cols[child], sorted([*fix, *(cols[p] for p in parents)]))
        if scoring_method == "bayes":
            return dirichlet_family_score(table, alpha)
        return local_score(scoring_method, table, n_total, equivalent_sample_size=ess, q_total=q_total)

    m = len(cols)
    parents: list[list[int]] = [[] for _ in range(m)]
    scores = np.zeros(m, dtype=np.float64)
    for pos, i in enumerate(order):
        preds = sorted(order[:pos])
        pa: list[int] = []
        best = local(i, pa)
        while len(pa) < max_parents:
            cand_best, cand_score = -1, -np.inf
            for z in preds:
                if z in pa:
                    continue
                s = local(i, [*pa, z])
                if cand_best < 0 or _beats(s, cand_score):
                    cand_best, cand_score = z, s
            if cand_best < 0:
                break
            cost = max(0.0, math.log((pos - len(pa)) / (len(pa) + 1.0))) if size_prior else 0.0
            if not _beats(cand_score - cost, best):
                break
            pa.append(cand_best)
            best = cand_score
        parents[i] = pa
        scores[i] = best
        if bar is not None:
            bar.update(1)
    return parents, scores


#: K2's priors over parent sets: "uniform" (WEKA, Cooper & Herskovits) and "size" (Friedman & Koller 2003).
PARENT_PRIORS = ("uniform", "size")


def _feature_order(order, features: list, random_state) -> list[int]:
    if order is None:
        return list(range(len(features)))
    if isinstance(order, str):
        check_option(order, "order", ("data", "random"))
        if order == "data":
            return list(range(len(features)))
        return [int(v) for v in check_generator(random_state).permutation(len(features))]
    return check_order(order, features)


def fit_k2(data: EncodedData, class_node, *, features: Sequence | None = None, max_parents: int = 5, order=None,
           scoring_method: str = "bayes", alpha: float = 0.5, equivalent_sample_size: float = 10.0,
           init_naive_bayes: bool = True, random_state=None, n_jobs: int = 1,
           show_progress: bool = False, parent_prior: str = "uniform") -> ClassifierStructure:
    """K2 over the features as WEKA's ``BayesNet -Q K2`` runs it (Pansombut's thesis, chapters 2-4 and Appendix A).

    With ``init_naive_bayes`` (WEKA's default) the class is a parent of every feature and counts toward
    ``max_parents``, so a feature gets at most ``max_parents - 1`` feature parents; otherwise the class is the
    first variable of the ordering and an ordinary candidate parent (a feature may then ignore it). ``order`` is
    None or "data" (the data column order, WEKA's default), "random" (drawn from ``random_state``) or a
    permutation of the feature labels. ``trace`` holds ``"order"`` (labels), ``"local_scores"`` (``{feature:
    final local score}``, nats, class parent included), ``"scoring_method"`` and ``"total_score"`` (their sum plus
    the class's own score: the network score). ``parent_prior`` is "uniform" (every parent set equally likely:
    WEKA, the thesis) or "size" (Friedman & Koller's prior, uniform over parent-set sizes: a parent is added only
    when its score gain exceeds the log of the ratio of the numbers of sets of the two sizes; see
    :func:`k2_search`). ``local_scores`` and ``total_score`` are the data scores either way.
    """
    features = check_class_node(data, class_node, features)
    check_scalar(max_parents, "max_parents", numbers.Integral, min_val=1 if init_naive_bayes else 0)
    check_option(scoring_method, "scoring_method", K2_SCORE_KINDS)
    check_scalar(alpha, "alpha", numbers.Real, min_val=0.0, include_boundaries="neither")
    check_option(parent_prior, "parent_prior", PARENT_PRIORS)
    size = parent_prior == "size"
    pos = _feature_order(order, features, random_state)
    if init_naive_bayes:
        fparents, scores = k2_search(data, features, pos, max_parents=max_parents - 1, scoring_method=scoring_method,
                                     equivalent_sample_size=equivalent_sample_size, alpha=alpha, fixed=[class_node],
                                     n_jobs=n_jobs, show_progress=show_progress, size_prior=size)
        parents = {f: [class_node, *(features[p] for p in fparents[k])] for k, f in enumerate(features)}
        class_score = k2_search(data, [class_node], [0], max_parents=0, scoring_method=scoring_method,
                                equivalent_sample_size=equivalent_sample_size, alpha=alpha)[1][0]
        local = dict(zip(features, scores.tolist()))
    else:
        nodes = [class_node, *features]
        fparents, scores = k2_search(data, nodes, [0, *(p + 1 for p in pos)], max_parents=max_parents,
                                     scoring_method=scoring_method, equivalent_sample_size=equivalent_sample_size,
                                     alpha=alpha, n_jobs=n_jobs, show_progress=show_progress, size_prior=size)
        # class first, then the feature parents in the order they were added
        parents = {f: sorted((nodes[p] for p in fparents[k + 1]), key=lambda v: v != class_node)
                   for k, f in enumerate(features)}
        class_score = float(scores[0])
        local = dict(zip(features, scores[1:].tolist()))
    trace = {"order": [features[p] for p in pos], "local_scores": local, "scoring_method": scoring_method,
             "total_score": float(sum(local.values()) + class_score), "max_parents": max_parents,
             "init_naive_bayes": bool(init_naive_bayes), "parent_prior": parent_prior}
    return ClassifierStructure(class_node, features, parents, trace)


class K2Search(ClassifierSearchBase):
    r"""K2 structure search over the features, WEKA style, pgmpy face:
    ``K2Search(df).estimate(class_node="C", max_parents=5)``.

    Specification: ``docs/decisions/seed004-bench-itdt.md`` ("BBN classifier", "Structure scores"). WEKA's BayesNet with
    the K2 search (``-Q weka.classifiers.bayes.net.search.local.K2``) starts from the naive-Bayes structure (the
    class a parent of every feature, counted toward the parent limit), visits the features in data order and gives
    each the predecessors that raise the BAYES score most, up to ``max_parents`` parents. The thesis's Ch. 3-4
    networks are this search with at most 5 parents (WEKA's default of 1 would give naive Bayes).

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention). Declared but unobserved states change the score (``r_i``).
    n_jobs : int, default 1
        Threads searching the variables (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        After ``estimate``: parent sets and ``trace`` (see :func:`fit_k2`).

    See Also
    --------
    pgmpy_ext.classifiers.K2Classifier : the scikit-learn face.
    pgmpy_ext.structure.BANSearch : K2 over the features without the class, then the class added (Santafé's BAN).

    Notes
    -----
    WEKA's BAYES local score of node :math:`X_i` with parents :math:`\Pi_i` (:math:`q_i` configurations,
    :math:`r_i` states, pseudo-count :math:`\alpha = 0.5` per cell):

    .. math::

        \sum_{j=1}^{q_i} \Big[\log\Gamma(r_i\alpha) - \log\Gamma(N_{ij} + r_i\alpha)
            + \sum_{k=1}^{r_i} \big(\log\Gamma(N_{ijk} + \alpha) - \log\Gamma(\alpha)\big)\Big]

    ``scoring_method="k2"`` is the :math:`\alpha = 1` case (Cooper & Herskovits); "bdeu", "bic", "aic" and "ll"
    are also available. Ties go to the lowest feature index. All candidate parents of one step are scored in a
    single pass of a Cython kernel over the rows grouped by parent configuration; with the Dirichlet scores
    ("bayes", "k2") the candidates that an exact upper bound rules out are skipped, and a feature's search stops
    as soon as every parent configuration is pure (the result is the same as scoring them all).

    References
    ----------
    .. [1] G. F. Cooper and E. Herskovits, "A Bayesian method for the induction of probabilistic networks from
       data", Machine Learning 9 (1992) 309-347.
    .. [2] R. R. Bouckaert, "Bayesian network classifiers in Weka for version 3-5-7" (2008), section 4.
    .. [3] T. Pansombut, PhD thesis (NC State, 2011), Appendix A.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> a = c ^ (rng.random(300) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(300) < 0.1), "D": rng.integers(0, 2, 300)})
    >>> sorted(K2Search(df).estimate(class_node="C", max_parents=2).edges())
    [('A', 'B'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    """

    def estimate(self, class_node=None, max_parents: int = 5, order=None, scoring_method: str = "bayes",
                 alpha: float = 0.5, equivalent_sample_size: float = 10.0, init_naive_bayes: bool = True,
                 random_state=None, show_progress: bool = False) -> DAG:
        """Return the K2 DAG (class a parent of every feature with ``init_naive_bayes``); see :func:`fit_k2`."""
        return self._estimate(fit_k2, class_node, max_parents=max_parents, order=order,
                              scoring_method=scoring_method, alpha=alpha,
                              equivalent_sample_size=equivalent_sample_size, init_naive_bayes=init_naive_bayes,
                              random_state=random_state, show_progress=show_progress)
