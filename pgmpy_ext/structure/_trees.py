"""Tree and forest engines shared by Chow-Liu, TAN, FAN, SBN, ABN, the CL multinet and CEM (no pgmpy objects).

The one module of the spanning-tree helpers: Kruskal on a symmetric weight matrix, deterministic ties (sort on
``(-w, i, j)``); each tree oriented by breadth-first search from its root (:func:`orient_forest`), the root chosen
by :func:`root_index` (explicit; the default is the lowest feature index of each tree, so the class node can never
be a root of the feature tree -- pgmpy's TreeSearch may pick it, a known bug); one Chow-Liu tree per class state
from one pass of class-conditioned pair counts (:func:`chow_liu_trees_per_class`, the CL multinet and CEM-CL's
M-step); and the SBN Bayesian complexity monitor along the Kruskal walk (:func:`sbn_monitor`, :func:`sbn_walk`;
SBN and CEM-SBN's M-step).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import PairwiseCounts, cmi_matrix, mi_matrix, pair_offsets, pairwise_counts
from pgmpy_ext.utils import check_option

__all__ = ["maximum_spanning_forest", "orient_forest", "TreeResult", "fit_tan_tree", "fit_chow_liu_tree"]
__all__ += ["SBN_STOPPING", "SBNWalk", "chow_liu_trees_per_class", "root_index", "sbn_code_length", "sbn_monitor",
            "sbn_walk"]

_LN2 = math.log(2.0)

#: Valid ``stopping`` rules of SBN (seed 000 decision D2).
SBN_STOPPING = ("marginal", "cumulative")


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


def root_index(features: list, root) -> int | None:
    """Index of the preferred ``root`` in ``features`` for :func:`orient_forest` (None: every tree is rooted at its
    lowest index, as settled in ``docs/decisions/seed000-sbn-cem-nbm.md``); a ValueError naming the features when
    ``root`` is not one of them.

    >>> root_index(["A", "B", "D"], "B"), root_index(["A", "B"], None)
    (1, None)
    """
    if root is None:
        return None
    if root not in features:
        raise ValueError(f"root {root!r} is not one of the features {features!r}.")
    return features.index(root)


_root_index = root_index  # the old private name, still imported by structure/_ctan.py


def chow_liu_trees_per_class(pairwise: PairwiseCounts, *, root: int | None = None) -> list[TreeResult]:
    """One Chow-Liu tree per state of the conditioning variable, from one table of class-conditioned pair counts.

    For every state ``k`` of C, the maximum spanning tree (Kruskal, ties ``(-w, i, j)``) of the mutual
    information ``I_k(X_i; X_j)`` of the rows with ``C = k``, oriented away from ``root`` (a feature index; default:
    the lowest index of each tree). ``N[x_i, x_j, c]`` sliced at ``c = k`` is the pair table of those rows, so
    the counting kernel runs once for all classes (the CL multinet and the M-step of CEM-CL). A state without rows
    gets the all-zero MI matrix, hence the tie-broken star ``(0, 1), (0, 2), ...``.

    Parameters
    ----------
    pairwise : PairwiseCounts
        From :func:`pgmpy_ext.stats.pairwise_counts` with the class (cluster labels) as ``cond``; at least two
        features.
    root : int, optional
        Preferred root (see :func:`root_index`).

    Returns
    -------
    list of TreeResult
        ``[k]``: the tree of class state ``k`` (``weights`` its MI matrix in nats, ``class_node`` None), over
        ``pairwise.features``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> from pgmpy_ext.stats import pairwise_counts
    >>> c = np.repeat([0, 1], 8)
    >>> a = np.tile([0, 1], 8)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": np.where(c == 0, a, 0), "D": np.where(c == 1, a, np.arange(16) // 8)})
    >>> trees = chow_liu_trees_per_class(pairwise_counts(encode(df), ["A", "B", "D"], cond="C"))
    >>> [t.edges for t in trees]
    [[(0, 1), (0, 2)], [(0, 2), (0, 1)]]
    """
    if not isinstance(pairwise, PairwiseCounts):
        raise TypeError(f"expected a PairwiseCounts, got {type(pairwise).__name__}.")
    K, m = int(pairwise.cond_card), pairwise.n_features
    features = list(pairwise.features)
    per_class = pairwise.flat.reshape(-1, K)  # c is the fastest axis of every pair table, offsets are multiples of K
    offsets = pair_offsets(pairwise.cards, 1)
    trees = []
    for k in range(K):
        w = mi_matrix(PairwiseCounts(np.ascontiguousarray(per_class[:, k]), offsets, pairwise.cards, 1, features))
        edges = maximum_spanning_forest(w)
        trees.append(TreeResult(features, orient_forest(m, edges, root), edges, w, None))
    return trees


def sbn_code_length(n_features: int, integer_code_length: bool = False) -> float:
    """Bits per symbol of the SBN structure code, ``m = log2(n + 1)`` (Ruz's thesis, section 3.3.1, eq. 3.4; real by
    default, ``ceil`` when ``integer_code_length``)."""
    m = math.log2(n_features + 1)
    return float(math.ceil(m)) if integer_code_length else m


def sbn_monitor(cmi_bits, n_rows: float, penalty_bits: float, stopping: str = "marginal",
                max_edges: int | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    r"""The Bayesian complexity monitor of SBN along a Kruskal edge sequence (Ruz's thesis, eqs. 3.6-3.7).

    Parameters
    ----------
    cmi_bits : array-like of shape (L,)
        I_2(Xu; Xv | C) in bits of the candidate edges, in Kruskal order (non-increasing).
    n_rows : float
        N, the number of training rows (the total weight for weighted data).
    penalty_bits : float
        Cost of one edge in bits, ``2 m`` by default in the thesis; ``0`` or ``math.inf`` allowed.
    stopping : {"marginal", "cumulative"}
        ``"marginal"`` accepts edge e while ``k_e < 0`` (the MAP cut along the sequence); ``"cumulative"``
        accepts it while ``K_e < 0`` (the thesis's literal rule). Both are strict.
    max_edges : int, optional
        Accept at most this many edges.

    Returns
    -------
    n_accepted : int
        Length of the accepted prefix.
    k : ndarray of shape (L,)
        ``k_e = penalty_bits - N * cmi_bits[e]`` for every candidate.
    K : ndarray of shape (L,)
        ``K_e = k_1 + ... + k_e`` (cumulative, relative to naive Bayes).

    Examples
    --------
    >>> n, k, K = sbn_monitor([1.0, 0.5, 0.1], n_rows=10, penalty_bits=4.0)
    >>> n, k.tolist(), K.tolist()
    (2, [-6.0, -1.0, 3.0], [-6.0, -7.0, -4.0])
    >>> sbn_monitor([1.0, 0.5, 0.1], n_rows=10, penalty_bits=4.0, stopping="cumulative")[0]
    3
    """
    check_option(stopping, "stopping", SBN_STOPPING)
    i2 = np.asarray(cmi_bits, dtype=np.float64).reshape(-1)
    k = float(penalty_bits) - float(n_rows) * i2
    K = np.cumsum(k)
    test = k if stopping == "marginal" else K
    ok = test < 0.0  # D4: strict
    n_ok = int(ok.shape[0]) if ok.all() else int(np.argmin(ok))
    if max_edges is not None:
        n_ok = min(n_ok, int(max_edges))
    return n_ok, k, K


@dataclass(eq=False)
class SBNWalk:
    """Kruskal's whole walk on I(Xi; Xj | C) with the SBN monitor along it (see :func:`sbn_walk`).

    Attributes
    ----------
    sequence : list of (i, j)
        Every Kruskal edge (the TAN tree in acceptance order).
    n_accepted : int
        Length of the prefix the monitor accepts; ``edges`` is that prefix (the SBN forest).
    cmi_bits, k, K : float64 (len(sequence),)
        I_2 of every edge in bits, and the monitor's ``k_e`` and ``K_e`` (:func:`sbn_monitor`).
    """

    sequence: list
    n_accepted: int
    cmi_bits: np.ndarray
    k: np.ndarray
    K: np.ndarray

    @property
    def edges(self) -> list:
        return self.sequence[:self.n_accepted]


def sbn_walk(cmi: np.ndarray, n_rows: float, penalty_bits: float, stopping: str = "marginal",
             max_edges: int | None = None) -> SBNWalk:
    """The SBN forest (Ruz's thesis, chapter 3): Kruskal's walk on the (m, m) CMI matrix (nats), cut by
    :func:`sbn_monitor` (``penalty_bits`` per edge, ``n_rows`` = N). Shared by :func:`~pgmpy_ext.structure.fit_sbn`
    and the M-step of CEM-SBN.

    Examples
    --------
    >>> import numpy as np
    >>> cmi = np.array([[0, .5, .01], [.5, 0, .02], [.01, .02, 0]])
    >>> walk = sbn_walk(cmi, n_rows=100, penalty_bits=2 * sbn_code_length(3))
    >>> walk.sequence, walk.edges
    ([(0, 1), (1, 2)], [(0, 1)])
    """
    sequence = maximum_spanning_forest(cmi)
    cmi_bits = np.array([cmi[i, j] for i, j in sequence], dtype=np.float64) / _LN2
    n_acc, k, K = sbn_monitor(cmi_bits, n_rows, penalty_bits, stopping, max_edges)
    return SBNWalk(sequence, n_acc, cmi_bits, k, K)


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
    parents = orient_forest(len(features), edges, root_index(features, root))
    # the pair tables go along (extra["pair_counts"]) so that TAN's CPT counts can be read out of them
    return TreeResult(features, parents, edges, w, class_node, extra={"pair_counts": pc})


def fit_chow_liu_tree(data: EncodedData, columns: Sequence | None = None, *, root=None,
                      n_jobs: int = 1) -> TreeResult:
    """Chow-Liu tree: maximum spanning tree of the pairwise mutual information, oriented from ``root``."""
    columns = list(data.columns if columns is None else columns)
    pc = pairwise_counts(data, columns, cond=None, n_jobs=n_jobs)
    w = cmi_matrix(pc)
    edges = maximum_spanning_forest(w)
    parents = orient_forest(len(columns), edges, root_index(columns, root))
    return TreeResult(columns, parents, edges, w, None)
