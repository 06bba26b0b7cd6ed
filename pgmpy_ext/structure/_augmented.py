"""Naive Bayes and TAN structure engines and their pgmpy faces."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import sorted_parents
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._trees import fit_tan_tree

__all__ = ["NBSearch", "TANSearch", "fit_nb", "fit_tan"]


def fit_nb(data: EncodedData, class_node, *, features: Sequence | None = None, n_jobs: int = 1) -> ClassifierStructure:
    """Naive Bayes: the class is the only parent of every feature (Santafé 2007, section 4.1)."""
    features = check_class_node(data, class_node, features)
    return ClassifierStructure(class_node, features, {f: [class_node] for f in features})


def fit_tan(data: EncodedData, class_node, *, features: Sequence | None = None, root=None,
            n_jobs: int = 1) -> ClassifierStructure:
    """TAN (Friedman, Geiger & Goldszmidt 1997; Santafé 2007, section 4.3): NB plus the maximum spanning tree of
    I(Xi; Xj | C), oriented away from ``root`` (default: the first feature; never the class).

    ``trace`` holds ``"cmi"`` (the (m, m) weight matrix in nats, features in ``features`` order) and ``"edges"``
    (the tree edges as label pairs, in Kruskal order).
    """
    features = check_class_node(data, class_node, features)
    tree = fit_tan_tree(data, class_node, features, root=root, n_jobs=n_jobs)
    parents = {f: [class_node] for f in features}
    for k, p in enumerate(tree.parents):
        if p >= 0:
            parents[features[k]].append(features[p])
    trace = {"cmi": tree.weights, "edges": [(features[i], features[j]) for i, j in tree.edges]}
    counts = _tan_family_counts(data, class_node, tree)
    return ClassifierStructure(class_node, features, parents, trace, family_counts=counts,
                               counted_on=data if counts else None)


def _tan_family_counts(data: EncodedData, class_node, tree) -> dict:
    """TAN's CPT counts read out of the class-conditional pair tables the tree search counted (no second pass).

    The (x_i, x_j, c) table of tree edge j -> i *is* the family count of child i with parents {j, C}: the pair
    kernel skips a row for a pair exactly when the family count skips it (C, x_i or x_j missing) and adds the
    same weights in the same row order, so the tables are identical. The root's (x_i, c) and the class's (c)
    counts are marginals of a pair table; they equal the direct counts exactly when the counts are integers and
    no row was skipped (unweighted data in which every pair table sums to n_rows, i.e. nothing is missing), and
    only then are they taken from the tables (otherwise ``build_network`` counts them)."""
    pc = tree.extra.get("pair_counts")
    features = tree.features
    if pc is None or len(features) < 2:
        return {}
    out = {}
    for k, p in enumerate(tree.parents):
        if p >= 0:
            pa = sorted_parents([class_node, features[p]])
            t = pc.table(k, int(p))  # (x_k, x_p, c)
            out[features[k]] = (pa, np.ascontiguousarray(t.transpose(0, 2, 1) if pa[0] == class_node else t))
    n_pairs = len(pc.offsets) - 1
    if data.weights is None and pc.flat.sum() == float(n_pairs) * data.n_rows:
        for k, p in enumerate(tree.parents):
            if p < 0:
                out[features[k]] = ([class_node], pc.table(k, 1 if k == 0 else 0).sum(axis=1))  # (x_k, c)
        out[class_node] = ([], pc.table(0, 1).sum(axis=(0, 1)))  # (c,)
    return out


class NBSearch(ClassifierSearchBase):
    """Naive Bayes structure, pgmpy face: ``NBSearch(df).estimate(class_node="C") -> DAG``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"C": [0, 1, 1, 0], "A": ["x", "y", "y", "x"], "B": [1, 1, 0, 0]})
    >>> sorted(NBSearch(df).estimate(class_node="C").edges())
    [('C', 'A'), ('C', 'B')]
    """

    def estimate(self, class_node=None, show_progress: bool = False) -> DAG:
        """Return the naive Bayes DAG: ``class_node`` -> every other column."""
        return self._estimate(fit_nb, class_node)


class TANSearch(ClassifierSearchBase):
    """Tree-augmented naive Bayes structure, pgmpy face (Santafé 2007, section 4.3; Friedman et al. 1997).

    Unlike pgmpy's ``TreeSearch(estimator_type="tan")``, the class can never become the root of the feature tree,
    the root is an explicit, deterministic parameter, and the class-conditional pair counts and CMI run in the
    Cython kernels.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> a = c ^ (rng.random(300) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(300) < 0.1), "D": rng.integers(0, 3, 300)})
    >>> est = TANSearch(df)
    >>> sorted(est.estimate(class_node="C", root="B").edges())
    [('B', 'A'), ('B', 'D'), ('C', 'A'), ('C', 'B'), ('C', 'D')]
    """

    def estimate(self, class_node=None, root=None, show_progress: bool = False) -> DAG:
        """Return the TAN DAG; ``root`` names the root of the feature tree (default: the first feature)."""
        return self._estimate(fit_tan, class_node, root=root)
