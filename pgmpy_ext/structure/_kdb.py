"""k-dependence Bayesian classifier (kDB, Sahami 1996) structure engine and its pgmpy face."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import cmi_matrix, family_counts, pairwise_counts
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node

__all__ = ["KDBSearch", "class_mutual_information", "fit_kdb"]

#: Values within this relative distance of the best are ties (won by the lowest index), so that ties in exact
#: arithmetic do not depend on the rounding of the MI/CMI sums.
TIE_RTOL = 1e-12


def _top(values: np.ndarray, candidates, count: int) -> list[int]:
    """The ``count`` candidates with the largest values, best first; near-ties (``TIE_RTOL``) go to the lowest
    index."""
    rest = sorted(int(j) for j in candidates)
    out = []
    while rest and len(out) < count:
        best = max(values[j] for j in rest)
        thr = best - TIE_RTOL * max(1.0, abs(best))
        j = next(j for j in rest if values[j] >= thr)
        out.append(j)
        rest.remove(j)
    return out


def class_mutual_information(data: EncodedData, features: Sequence, class_node) -> np.ndarray:
    r"""Plug-in mutual information :math:`I(X_i; C)` of every feature with the class, in nats.

    .. math:: I(X; C) = \sum_{x,c:\, N_{xc} > 0} \frac{N_{xc}}{N} \log \frac{N_{xc} N}{N_x N_c}

    computed on each feature's own ``(x, c)`` count table (one counting-kernel call per feature; weighted rows
    allowed; rows with a missing value in the pair are skipped). Clipped at 0 against rounding.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> df = pd.DataFrame({"A": [0, 0, 1, 1], "B": [0, 1, 0, 1], "C": [0, 0, 1, 1]})
    >>> class_mutual_information(encode(df), ["A", "B"], "C").round(6).tolist()   # A = C, B independent
    [0.693147, 0.0]
    """
    out = np.zeros(len(features), dtype=np.float64)
    for k, f in enumerate(features):
        t = family_counts(data, f, [class_node], sort_parents=False)
        n = t.sum()
        if n <= 0:
            continue
        nx = t.sum(axis=1, keepdims=True)
        nc = t.sum(axis=0, keepdims=True)
        pos = t > 0
        ratio = (t * n) / np.where(pos, nx * nc, 1.0)
        out[k] = max(0.0, float(np.sum(t[pos] * np.log(ratio[pos])) / n))
    return out


def fit_kdb(data: EncodedData, class_node, *, k: int = 1, features: Sequence | None = None,
            n_jobs: int = 1) -> ClassifierStructure:
    """kDB (Sahami 1996; Santafé 2007, section 4.5): every feature has the class and up to ``k`` features as parents.

    Features are placed in decreasing order of ``I(X; C)``; each newly placed feature takes as parents the class and
    the ``min(k, #placed)`` already placed features with the highest ``I(X; X_j | C)``. Ties (values within a relative
    ``1e-12`` of the best) go to the lowest feature index (position in ``features``), so the result is deterministic
    and does not depend on the rounding of the sums. ``k = 0`` is naive Bayes.

    ``trace`` holds ``"order"`` (labels in placement order), ``"mi"`` (``I(X_i; C)``, nats, ``features`` order) and
    ``"cmi"`` (the (m, m) matrix ``I(X_i; X_j | C)`` in nats; zeros when ``k == 0``).
    """
    features = check_class_node(data, class_node, features)
    check_scalar(k, "k", numbers.Integral, min_val=0)
    m = len(features)
    mi = class_mutual_information(data, features, class_node)
    if k > 0 and m > 1:
        cmi = cmi_matrix(pairwise_counts(data, features, cond=class_node, n_jobs=n_jobs))
    else:
        cmi = np.zeros((m, m), dtype=np.float64)
    order = _top(mi, range(m), m)  # argmax_{X not in S} I(X; C), repeated m times
    parents = {}
    placed: list[int] = []
    for i in order:
        chosen = _top(cmi[i], placed, min(k, len(placed)))
        parents[features[i]] = [class_node, *(features[j] for j in chosen)]
        placed.append(i)
    parents = {f: parents[f] for f in features}
    trace = {"order": [features[i] for i in order], "mi": mi, "cmi": cmi}
    return ClassifierStructure(class_node, features, parents, trace)


class KDBSearch(ClassifierSearchBase):
    r"""k-dependence Bayesian classifier structure (Sahami 1996), pgmpy face.

    ``KDBSearch(df).estimate(class_node="C", k=2) -> DAG``. Specification: ``docs/decisions/seed001-tm-classifiers.md``
    ("kDB"; Santafé 2007, section 4.5), with the figure's typos fixed: the placement order uses
    :math:`I(X; C)` (the figure prints :math:`I(X_{max} | C)`), and :math:`m = \min(k, |S|)` counts the features
    already placed only (the figure's :math:`|S|` includes the class and the new node).

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included.
    state_names : dict, optional
        ``{column: [states]}`` (pgmpy's convention).
    n_jobs : int, default 1
        Threads for the pairwise counting kernel (results do not depend on it).

    Attributes
    ----------
    result_ : ClassifierStructure
        After ``estimate``: parent sets and ``trace`` (``"order"``, ``"mi"``, ``"cmi"``, see :func:`fit_kdb`).

    See Also
    --------
    TANSearch : the maximum-spanning-tree 1-dependence structure.
    pgmpy_ext.classifiers.KDBClassifier : the scikit-learn face.

    Notes
    -----
    With :math:`S` the features placed so far (empty at first), repeat for every feature:

    .. math::

        X_{max} = \operatorname*{arg\,max}_{X \notin S} I(X; C), \qquad
        \Pi(X_{max}) = \{C\} \cup \operatorname*{top-}m_{X_j \in S}\, I(X_{max}; X_j \mid C)

    Both quantities are plug-in estimates in nats from the counting kernels; values within a relative
    :math:`10^{-12}` of the best are ties, won by the lowest feature index. Sahami's optional CMI threshold is not
    used (the thesis does not use it either). ``k = 0`` gives naive Bayes; ``k = 1`` gives a TAN-like structure that
    need not be the maximum spanning tree.

    References
    ----------
    .. [1] M. Sahami, "Learning limited dependence Bayesian classifiers", KDD 1996, pp. 335-338.
    .. [2] G. Santafé, "Advances on supervised and unsupervised learning of Bayesian network models", PhD thesis,
       University of the Basque Country, 2007, section 4 (Fig. 4.9).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 400)
    >>> a = c ^ (rng.random(400) < 0.1)
    >>> b = a ^ (rng.random(400) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": b, "D": b ^ (rng.random(400) < 0.1)})
    >>> search = KDBSearch(df)
    >>> sorted(search.estimate(class_node="C", k=1).edges())
    [('A', 'B'), ('B', 'D'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    >>> search.result_.trace["order"]
    ['A', 'B', 'D']
    """

    def estimate(self, class_node=None, k: int = 1, show_progress: bool = False) -> DAG:
        """Return the kDB DAG with at most ``k`` feature parents per feature (``k = 0``: naive Bayes)."""
        return self._estimate(fit_kdb, class_node, k=k)
