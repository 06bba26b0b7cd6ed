"""K2 parent search on encoded data (wrapper around the ``_k2`` kernel) and the local scores it uses."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pgmpy_ext._core import _k2
from pgmpy_ext.data import EncodedData
from pgmpy_ext.utils.validation import check_option, effective_n_threads

__all__ = ["K2_SCORE_KINDS", "dirichlet_family_score", "k2_parent_search"]

#: Local scores of the K2 search: WEKA's BAYES score (a constant Dirichlet pseudo-count ``alpha`` per cell), the
#: Cooper-Herskovits K2 metric (``alpha = 1``), BDeu, BIC, AIC and the log-likelihood.
K2_SCORE_KINDS = ("bayes", "k2", "bdeu", "bic", "aic", "ll")


def dirichlet_family_score(counts, alpha: float) -> float:
    r"""WEKA's BAYES local score of one family from its count table (numpy reference of the kernel), in nats.

    Parameters
    ----------
    counts : array-like of float, shape ``(r,)`` or ``(r, *parent_cards)``
        Child states on the first axis, parent configurations on the others (any order).
    alpha : float
        Pseudo-count per cell (> 0); 1 gives the Cooper-Herskovits K2 metric.

    Returns
    -------
    float

    Notes
    -----
    .. math::

        \sum_j \Big[\log\Gamma(r\alpha) - \log\Gamma(N_j + r\alpha)
            + \sum_k \big(\log\Gamma(N_{jk} + \alpha) - \log\Gamma(\alpha)\big)\Big]

    WEKA 3.6 ``LocalScoreSearchAlgorithm.calcScoreOfCounts`` (score type BAYES, ``alpha = 0.5``); an unobserved
    parent configuration contributes 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(dirichlet_family_score(np.array([[3.0, 0.0], [1.0, 4.0]]), 1.0), 6)   # K2 = log(1/100)
    -4.60517
    """
    from scipy.special import gammaln  # lazily: scipy.special costs a Dask worker ~0.25 s and ~10 MB at import

    t = np.asarray(counts, dtype=np.float64)
    t = t.reshape(t.shape[0], -1)
    r = t.shape[0]
    n_j = t.sum(axis=0)
    return float(np.sum(gammaln(r * alpha) - gammaln(n_j + r * alpha))
                 + np.sum(gammaln(t + alpha) - gammaln(alpha)))


def k2_parent_search(data: EncodedData, columns: Sequence[int], order: Sequence[int], *,
                     fixed: Sequence[int] = (), max_parents: int = 4, scoring_method: str = "bayes",
                     alpha: float = 0.5, equivalent_sample_size: float = 10.0, n_total: float | None = None,
                     tie_rtol: float = 1e-12, n_jobs: int | None = 1, progress=None, prune: bool = True,
                     stats: dict | None = None, size_prior: bool = False) -> tuple[list[list[int]], np.ndarray]:
    """K2 greedy parent search on unweighted encoded data, all candidates of a step scored in one kernel pass.

    Parameters
    ----------
    data : EncodedData
        Unweighted (``data.weights is None``); ``-1`` codes are skipped per family (available-case counting).
    columns : sequence of int
        Data column of each searched variable (positions ``0..m-1`` index this list).
    order : sequence of int
        Permutation of ``0..m-1``: a variable's candidate parents are the variables before it.
    fixed : sequence of int, default ()
        Data columns that are parents of every searched variable (the class), not counted in ``max_parents``.
    max_parents : int, default 4
        Searched parents per variable at most.
    scoring_method : {"bayes", "k2", "bdeu", "bic", "aic", "ll"}, default "bayes"
        "bayes" is WEKA's BAYES score with pseudo-count ``alpha``; "k2" is the Cooper-Herskovits metric (every
        parent configuration, textbook); the others follow :func:`pgmpy_ext.stats.local_score` (textbook sums).
    alpha : float, default 0.5
        "bayes" only.
    equivalent_sample_size : float, default 10.0
        "bdeu" only.
    n_total : float, optional
        Sample size of the BIC penalty; default the number of rows.
    tie_rtol : float, default 1e-12
        Relative tolerance of score ties (see the kernel).
    n_jobs : int, default 1
        Threads searching the variables, one variable per thread at a time (the result does not depend on it).
    progress : callable, optional
        ``progress(n_done)`` is called after each block of variables (the kernel runs in about 20 blocks then);
        default one kernel call.
    prune : bool, default True
        Skip the candidates that an exact bound proves cannot be chosen, and stop a variable's search when no
        superset of its parents can score more (Dirichlet scores "bayes" and "k2" only; see the kernel's Notes).
        The result is the same either way; False scores every candidate (the reference of the bound).
    stats : dict, optional
        Filled with ``"candidates"`` (parent candidates considered), ``"pruned"`` (skipped by the bound) and
        ``"scored"`` (scored exactly), ``"groups_bounded"`` (parent configurations whose term the bound computed).
    size_prior : bool, default False
        The parent-set-size prior (Friedman & Koller 2003): a parent is added only when its score gain exceeds
        ``log((p - k) / (k + 1))`` (floored at 0), ``p`` the variable's number of candidate parents and ``k`` its
        current number of searched parents. False: every parent set equally likely (WEKA, the thesis).

    Returns
    -------
    parents : list of list of int
        Parents (positions) of each variable, in the order they were added.
    scores : numpy.ndarray (m,)
        Final local score of each variable (nats), fixed parents included.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 200)
    >>> data = encode(pd.DataFrame({"A": a, "B": a ^ (rng.random(200) < 0.1), "D": rng.integers(0, 2, 200)}))
    >>> k2_parent_search(data, [0, 1, 2], [0, 1, 2], max_parents=2)[0]
    [[], [0], []]
    """
    check_option(scoring_method, "scoring_method", K2_SCORE_KINDS)
    if data.weights is not None:
        raise ValueError("k2_parent_search counts unweighted rows only; use a FamilyCounter for weighted data.")
    cols = np.asarray(list(columns), dtype=np.intp)
    pos = np.asarray(list(order), dtype=np.intp)
    fix = np.asarray(list(fixed), dtype=np.intp)
    if sorted(pos.tolist()) != list(range(cols.shape[0])):
        raise ValueError(f"order must be a permutation of 0..{cols.shape[0] - 1}.")
    if set(fix.tolist()) & set(cols.tolist()):
        raise ValueError("a fixed parent cannot also be a searched variable.")
    kind, a, pen = 0, float(alpha), 0.0
    if scoring_method == "k2":
        a = 1.0
    elif scoring_method == "bdeu":
        kind = 1
    elif scoring_method in ("bic", "aic", "ll"):
        kind = 2
        n = float(data.n_rows if n_total is None else n_total)
        pen = {"ll": 0.0, "aic": 1.0, "bic": 0.5 * math.log(n) if n > 0 else 0.0}[scoring_method]
    if kind == 0 and not a > 0:
        raise ValueError(f"alpha == {alpha}, must be > 0 for the {scoring_method!r} score.")
    if kind == 1 and not equivalent_sample_size > 0:
        raise ValueError(f"equivalent_sample_size == {equivalent_sample_size}, must be > 0.")
    m = int(cols.shape[0])
    out_parents = np.full((m, int(max_parents)), -1, dtype=np.intp)
    out_scores = np.zeros(m, dtype=np.float64)
    codes_t = np.ascontiguousarray(data.codes.T)
    cards = np.ascontiguousarray(data.cards, dtype=np.intp)
    n_blocks = 1 if progress is None else max(1, min(m, 20))
    bounds = np.linspace(0, m, n_blocks + 1).astype(int)
    counts = np.zeros(4, dtype=np.intp)
    for b in range(n_blocks):
        _k2.k2_search(codes_t, cards, cols, pos, fix, int(max_parents), kind, a, float(equivalent_sample_size),
                      pen, float(tie_rtol), effective_n_threads(n_jobs), int(bounds[b]), int(bounds[b + 1]),
                      out_parents, out_scores, bool(prune), counts, bool(size_prior))
        if progress is not None:
            progress(int(bounds[b + 1] - bounds[b]))
    if stats is not None:
        stats.update(candidates=int(counts[0]), pruned=int(counts[1]), scored=int(counts[2]),
                     groups_bounded=int(counts[3]))
    parents = [[p for p in row if p >= 0] for row in out_parents.tolist()]
    return parents, out_scores
