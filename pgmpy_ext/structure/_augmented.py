"""Naive Bayes and TAN structure engines and their pgmpy faces."""

from __future__ import annotations

from collections.abc import Sequence

from pgmpy_ext._compat import DAG
from pgmpy_ext.data import EncodedData
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.structure._trees import fit_tan_tree

__all__ = ["NBSearch", "TANSearch", "fit_nb", "fit_tan"]


def fit_nb(data: EncodedData, class_node, *, features: Sequence | None = None, n_jobs: int = 1) -> ClassifierStructure:
    """Naive Bayes: the class is the only parent of every feature (seed 001 A5)."""
    features = check_class_node(data, class_node, features)
    return ClassifierStructure(class_node, features, {f: [class_node] for f in features})


def fit_tan(data: EncodedData, class_node, *, features: Sequence | None = None, root=None,
            n_jobs: int = 1) -> ClassifierStructure:
    """TAN (Friedman, Geiger & Goldszmidt 1997; seed 001 A7): NB plus the maximum spanning tree of
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
    return ClassifierStructure(class_node, features, parents, trace)


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
    """Tree-augmented naive Bayes structure, pgmpy face (seed 001 A7; Friedman et al. 1997).

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
