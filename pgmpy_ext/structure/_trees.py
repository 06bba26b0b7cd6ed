"""Tree and forest engines shared by Chow-Liu, TAN, FAN and ABN (no pgmpy objects built here).

Kruskal on a symmetric weight matrix, deterministic ties (sort on ``(-w, i, j)``), then each tree is oriented by
breadth-first search from its root. Roots are explicit; the default is the lowest feature index of each tree, so
the class node can never be a root of the feature tree (pgmpy's TreeSearch may pick it, a known bug).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import cmi_matrix, pairwise_counts

__all__ = ["maximum_spanning_forest", "orient_forest", "TreeResult", "fit_tan_tree", "fit_chow_liu_tree"]


def maximum_spanning_forest(weights: np.ndarray, *, min_weight: float | None = None,
                            max_edges: int | None = None) -> list[tuple[int, int]]:
    """Kruskal's maximum-weight spanning forest of a symmetric (m, m) weight matrix.

    Parameters
    ----------
    weights : ndarray (m, m)
        Symmetric edge weights; the diagonal is ignored.
    min_weight : float, optional
        Keep only edges with ``w > min_weight`` (e.g. 0 for the MDL-gain forest of ABN). None keeps every edge,
        so the result is a spanning tree of the complete graph (TAN, Chow-Liu).
    max_edges : int, optional
        Stop after this many edges (FAN with a fixed number of augmenting arcs).

    Returns
    -------
    list of (i, j) with i < j, in the order Kruskal accepted them. Ties are broken by (-w, i, j).

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0, 3, 1], [3, 0, 2], [1, 2, 0]], dtype=float)
    >>> maximum_spanning_forest(w)
    [(0, 1), (1, 2)]
    >>> maximum_spanning_forest(w, min_weight=2.5)
    [(0, 1)]
    """
    w = np.asarray(weights, dtype=np.float64)
    m = w.shape[0]
    if w.shape != (m, m):
        raise ValueError(f"weights must be a square matrix, got shape {w.shape}.")
    iu, ju = np.triu_indices(m, k=1)
    vals = w[iu, ju]
    if min_weight is not None:
        keep = vals > min_weight
        iu, ju, vals = iu[keep], ju[keep], vals[keep]
    order = np.lexsort((ju, iu, -vals))  # primary -w, then i, then j
    parent = list(range(m))
    rank = [0] * m

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    edges = []
    limit = m - 1 if max_edges is None else min(max_edges, m - 1)
    for k in order:
        if len(edges) >= limit:
            break
        a, b = find(int(iu[k])), find(int(ju[k]))
        if a == b:
            continue
        if rank[a] < rank[b]:
            a, b = b, a
        parent[b] = a
        if rank[a] == rank[b]:
            rank[a] += 1
        edges.append((int(iu[k]), int(ju[k])))
    return edges


def orient_forest(m: int, edges: Sequence[tuple[int, int]], roots: Sequence[int] | int | None = None) -> np.ndarray:
    """Direct every tree of a forest away from its root by BFS.

    Parameters
    ----------
    m : int
        Number of nodes (0..m-1).
    edges : sequence of (i, j)
        Undirected forest edges.
    roots : int or sequence of int, optional
        Preferred roots. A tree containing one of them is rooted there (the first listed wins); any other tree is
        rooted at its lowest index.

    Returns
    -------
    ndarray of intp (m,): the parent of each node, -1 for roots.

    Examples
    --------
    >>> orient_forest(4, [(0, 1), (1, 2)], roots=2).tolist()
    [1, 2, -1, -1]
    """
    adj = [[] for _ in range(m)]
    for i, j in edges:
        adj[i].append(j)
        adj[j].append(i)
    for a in adj:
        a.sort()
    if roots is None:
        roots = []
    elif isinstance(roots, (int, np.integer)):
        roots = [int(roots)]
    parents = np.full(m, -1, dtype=np.intp)
    seen = np.zeros(m, dtype=bool)
    for r in [*roots, *range(m)]:
        if seen[r]:
            continue
        seen[r] = True
        queue = deque([r])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    parents[v] = u
                    queue.append(v)
    if len(edges) != int((parents >= 0).sum()):
        raise ValueError("edges do not form a forest (a cycle or a repeated edge).")
    return parents


@dataclass
class TreeResult:
    """Result of a tree/forest structure engine.

    Attributes
    ----------
    features : list
        Feature labels (positions are the indices used below).
    parents : ndarray of intp (m,)
        Augmenting parent of each feature (index into ``features``), -1 for none.
    edges : list of (i, j)
        Undirected forest edges in acceptance order.
    weights : ndarray (m, m)
        The edge weights used (e.g. I(Xi; Xj | C) in nats).
    class_node : label or None
        The class, parent of every feature (None for Chow-Liu).
    """

    features: list
    parents: np.ndarray
    edges: list
    weights: np.ndarray
    class_node: object = None
    extra: dict = field(default_factory=dict)

    def parent_sets(self) -> dict:
        """``{node: [parents]}`` for every node, class included (the form ``build_network`` takes)."""
        out = {}
        if self.class_node is not None:
            out[self.class_node] = []
        for k, f in enumerate(self.features):
            ps = [] if self.class_node is None else [self.class_node]
            if self.parents[k] >= 0:
                ps.append(self.features[self.parents[k]])
            out[f] = ps
        return out

    def edge_list(self) -> list:
        """Directed edges (parent, child), class arcs first."""
        arcs = [] if self.class_node is None else [(self.class_node, f) for f in self.features]
        arcs += [(self.features[p], self.features[k]) for k, p in enumerate(self.parents) if p >= 0]
        return arcs


def _root_index(features: list, root) -> int | None:
    if root is None:
        return None
    if root not in features:
        raise ValueError(f"root {root!r} is not one of the features {features!r}.")
    return features.index(root)


def fit_tan_tree(data: EncodedData, class_node, features: Sequence | None = None, *, root=None,
                 n_jobs: int = 1) -> TreeResult:
    """TAN structure (Friedman, Geiger & Goldszmidt 1997): maximum spanning tree of I(Xi; Xj | C) over the
    features, oriented from ``root`` (default: the first feature), plus C -> every feature.

    Examples
    --------
    A chain C -> A -> B -> D with noise: the tree over the features is A - B - D, rooted at the first feature.

    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> rng = np.random.default_rng(1)
    >>> c = rng.integers(0, 2, 500)
    >>> a = c ^ (rng.random(500) < 0.3)
    >>> b = a ^ (rng.random(500) < 0.2)
    >>> d = b ^ (rng.random(500) < 0.1)
    >>> res = fit_tan_tree(encode(pd.DataFrame({"C": c, "A": a, "B": b, "D": d})), "C")
    >>> res.edge_list()
    [('C', 'A'), ('C', 'B'), ('C', 'D'), ('A', 'B'), ('B', 'D')]
    """
    if features is None:
        features = [c for c in data.columns if c != class_node]
    features = list(features)
    pc = pairwise_counts(data, features, cond=class_node, n_jobs=n_jobs)
    w = cmi_matrix(pc)
    edges = maximum_spanning_forest(w)
    parents = orient_forest(len(features), edges, _root_index(features, root))
    # the pair tables go along (extra["pair_counts"]) so that TAN's CPT counts can be read out of them
    return TreeResult(features, parents, edges, w, class_node, extra={"pair_counts": pc})


def fit_chow_liu_tree(data: EncodedData, columns: Sequence | None = None, *, root=None,
                      n_jobs: int = 1) -> TreeResult:
    """Chow-Liu tree: maximum spanning tree of the pairwise mutual information, oriented from ``root``."""
    columns = list(data.columns if columns is None else columns)
    pc = pairwise_counts(data, columns, cond=None, n_jobs=n_jobs)
    w = cmi_matrix(pc)
    edges = maximum_spanning_forest(w)
    parents = orient_forest(len(columns), edges, _root_index(columns, root))
    return TreeResult(columns, parents, edges, w, None)
