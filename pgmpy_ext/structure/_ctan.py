"""construct-discriminative-TAN (cTAN; Santafé 2007, section 5.3.1): the TAN tree built on the
explaining-away residual ``EAR(Xi, Xj) = I(Xi; Xj | C) - I(Xi; Xj)`` instead of the conditional mutual information.

Both information matrices come from one pass of the pairwise class-conditional count kernel; Kruskal and the
orientation are the shared, deterministic tree engines of :mod:`pgmpy_ext.structure._trees`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import cmi_matrix, mi_matrix, pairwise_counts
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._trees import _root_index, maximum_spanning_forest, orient_forest

__all__ = ["CTANSearch", "ear_matrix", "fit_ctan"]


def ear_matrix(data: EncodedData, class_node, features: Sequence | None = None,
               n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Explaining-away residuals of every feature pair, with the two matrices they come from (nats).

    Parameters
    ----------
    data : EncodedData
    class_node : label
    features : sequence, optional
        Default: every column except the class.
    n_jobs : int, default 1
        Threads of the pairwise-count kernel (results do not depend on it).

    Returns
    -------
    ear, cmi, mi : numpy.ndarray of float64, shape (m, m)
        ``ear = cmi - mi`` with ``cmi = I(Xi; Xj | C)`` and ``mi = I(Xi; Xj)`` (plug-in estimates, zero diagonal).
        ``ear = -I(Xi; Xj; C)`` in the thesis's sign convention (Eq. 5.54) and can be negative.

    Examples
    --------
    Two copies of the class are redundant given each other (EAR < 0); two independent causes of an XOR class
    explain each other away (EAR > 0):

    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> a = np.array([0, 0, 1, 1] * 25)
    >>> b = np.array([0, 1, 0, 1] * 25)
    >>> df = pd.DataFrame({"C": a ^ b, "A": a, "B": b, "D": a ^ b})
    >>> ear, cmi, mi = ear_matrix(encode(df), "C")
    >>> (ear / np.log(2)).round(3).tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    features = check_class_node(data, class_node, features)
    pc = pairwise_counts(data, features, cond=class_node, n_jobs=n_jobs)
    cmi = cmi_matrix(pc)
    mi = mi_matrix(pc)
    return cmi - mi, cmi, mi


def fit_ctan(data: EncodedData, class_node, *, features: Sequence | None = None, root=None,
             drop_negative_edges: bool = False, n_jobs: int = 1) -> ClassifierStructure:
    """cTAN structure (Santafé 2007, section 5.3.1, Fig. 5.4; Pernkopf & Bilmes 2005, Perez et al. 2006).

    The maximum-weight spanning tree of the EAR weights (Kruskal, ties by ``(i, j)``), oriented away from
    ``root`` (default: the first feature of each tree), plus the class as a parent of every feature.

    Parameters
    ----------
    data : EncodedData
    class_node : label
    features : sequence, optional
        Default: every other column.
    root : label, optional
        Root of the feature tree.
    drop_negative_edges : bool, default False
        False keeps the whole spanning tree, negative-EAR edges included, as the thesis does;
        True keeps only edges with ``EAR > 0`` (a forest: the fix proposed in the literature).
    n_jobs : int, default 1

    Returns
    -------
    ClassifierStructure
        ``trace`` holds ``"ear"``, ``"cmi"`` and ``"mi"`` ((m, m), nats, ``features`` order), ``"edges"`` (label
        pairs in Kruskal order) and ``"n_negative_edges"`` (tree edges with ``EAR < 0``).
    """
    check_scalar(drop_negative_edges, "drop_negative_edges", (bool, np.bool_))
    features = check_class_node(data, class_node, features)
    ear, cmi, mi = ear_matrix(data, class_node, features, n_jobs)
    edges = maximum_spanning_forest(ear, min_weight=0.0 if drop_negative_edges else None)
    parents_idx = orient_forest(len(features), edges, _root_index(features, root))
    parents = {f: [class_node] for f in features}
    for k, p in enumerate(parents_idx):
        if p >= 0:
            parents[features[k]].append(features[p])
    trace = {"ear": ear, "cmi": cmi, "mi": mi, "edges": [(features[i], features[j]) for i, j in edges],
             "n_negative_edges": int(sum(ear[i, j] < 0 for i, j in edges))}
    return ClassifierStructure(class_node, features, parents, trace)


class CTANSearch(ClassifierSearchBase):
    """construct-discriminative-TAN structure, pgmpy face (Santafé 2007, section 5.3.1; Pernkopf &
    Bilmes 2005).

    Friedman's construct-TAN with the explaining-away residual ``I(Xi; Xj | C) - I(Xi; Xj)`` as the edge weight,
    motivated by ``CLL / N = -H(C) + I(C; X)`` and ``I(C; X) ~ sum_i I(Xi; C) + sum_edges EAR`` (Theorem 4). Use
    it with ML parameters ("cTAN") or with :class:`~pgmpy_ext.parameters.TMEstimator` ("cTAN-TM").

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included; no missing values.
    state_names : dict, optional
    n_jobs : int, default 1

    Attributes
    ----------
    result_ : ClassifierStructure
        After :meth:`estimate`; ``result_.trace`` holds the EAR, CMI and MI matrices.

    See Also
    --------
    pgmpy_ext.structure.TANSearch : the generative construct-TAN (CMI weights).

    Notes
    -----
    .. math:: w_{ij} = I(X_i; X_j \\mid C) - I(X_i; X_j) = -I(X_i; X_j; C)

    Unlike CMI, the weight can be negative; the thesis keeps such edges so that cTAN and TAN are both trees
    (``docs/decisions/seed001-tm-classifiers.md``, "Ambiguities, errata and decisions"),
    ``drop_negative_edges=True`` gives a forest instead.

    References
    ----------
    Pernkopf, F. & Bilmes, J. (2005). Discriminative versus generative parameter and structure learning of Bayesian
    network classifiers. ICML. Santafé, G. (2007). PhD thesis, section 5.3.1.

    Examples
    --------
    Two noisy copies of the class are redundant: dependent, but independent given the class (EAR < 0). The
    thesis keeps such an edge to complete the tree; ``drop_negative_edges=True`` removes it:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 400)
    >>> df = pd.DataFrame({"C": c, "F1": c ^ (rng.random(400) < 0.2), "F2": c ^ (rng.random(400) < 0.2)})
    >>> est = CTANSearch(df)
    >>> sorted(est.estimate(class_node="C").edges())
    [('C', 'F1'), ('C', 'F2'), ('F1', 'F2')]
    >>> est.result_.trace["n_negative_edges"]
    1
    >>> sorted(est.estimate(class_node="C", drop_negative_edges=True).edges())
    [('C', 'F1'), ('C', 'F2')]
    """

    def estimate(self, class_node=None, root=None, drop_negative_edges: bool = False,
                 show_progress: bool = False) -> DAG:
        """Return the cTAN DAG (class -> every feature, plus the EAR tree or forest)."""
        return self._estimate(fit_ctan, class_node, root=root, drop_negative_edges=drop_negative_edges)
