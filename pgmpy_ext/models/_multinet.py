"""One pgmpy network equivalent to a Bayesian multinet (a mixture of per-cluster networks over the same nodes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import networkx as nx
import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, VariableElimination
from pgmpy_ext.models._build import sorted_parents

__all__ = ["multinet_to_network", "minimal_parents"]


def minimal_parents(model: DiscreteBayesianNetwork, node, predecessors) -> list:
    """The smallest set S of ``predecessors`` with ``node`` independent of the other predecessors given S in every
    distribution that factorises over ``model`` (the parents of ``node`` in the minimal I-map for an order in which
    ``predecessors`` come first).

    S is the set of predecessors reachable from ``node`` in the moral graph of the ancestral set of
    ``{node} | predecessors`` along paths whose inner nodes are not predecessors (graph separation in the moral
    ancestral graph is d-separation).

    Examples
    --------
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork
    >>> chain = DiscreteBayesianNetwork([("A", "B"), ("B", "D")])
    >>> minimal_parents(chain, "D", ["A", "B"]), minimal_parents(chain, "B", ["D"]), minimal_parents(chain, "A", ["D"])
    (['B'], ['D'], ['D'])
    """
    pred = set(predecessors)
    anc = set(pred) | {node}
    for v in list(anc):
        anc |= nx.ancestors(model, v)
    moral = nx.Graph()
    moral.add_nodes_from(anc)
    for v in anc:
        pa = list(model.predecessors(v))
        moral.add_edges_from((p, v) for p in pa)
        moral.add_edges_from((pa[a], pa[b]) for a in range(len(pa)) for b in range(a + 1, len(pa)))
    found, seen, stack = set(), {node}, [node]
    while stack:
        u = stack.pop()
        for w in moral.neighbors(u):
            if w in seen:
                continue
            seen.add(w)
            if w in pred:
                found.add(w)
            else:
                stack.append(w)
    return [v for v in predecessors if v in found]


def _conditional(model: DiscreteBayesianNetwork, node, given: list, infer) -> np.ndarray:
    """``P(node | given)`` of ``model`` as an array over ``(node, *given)`` (zero-probability configurations of
    ``given`` get a uniform column). Uses the CPD when ``given`` are exactly the node's parents, else VE."""
    cpd = model.get_cpds(node)
    if set(given) == set(cpd.variables[1:]):
        vals = np.asarray(cpd.values, dtype=np.float64).reshape([int(c) for c in cpd.cardinality])
        return np.transpose(vals, [0, *[cpd.variables.index(g) for g in given]])
    factor = infer.query([node, *given], joint=True, show_progress=False)
    vals = np.transpose(factor.values, [factor.variables.index(v) for v in [node, *given]])
    total = vals.sum(axis=0, keepdims=True)
    r = vals.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, vals / np.where(total > 0, total, 1.0), 1.0 / r)


def multinet_to_network(models: Mapping, weights: Sequence[float], *, cluster_node="cluster",
                        order: Sequence | None = None, max_cpd_size: int | None = None) -> DiscreteBayesianNetwork:
    r"""Merge a Bayesian multinet into one ``DiscreteBayesianNetwork`` with a cluster (class) node.

    A multinet :math:`P(x) = \sum_k w_k P_k(x)` has its own network per cluster, so it is not one Bayesian network
    (Ruz's thesis, section 4.2). This builds an exactly equivalent one: the cluster node ``C`` (states ``list(models)``,
    prior ``weights``, marked latent) is a parent of every node, and, for a node order ``order``, node ``X`` gets as
    further parents the union over clusters of its minimal I-map parents :math:`S_k(X)` in cluster k's network
    (:func:`minimal_parents`), with :math:`P(X \mid C = k, \mathrm{pa}) = P_k(X \mid S_k(X))`. Every parent
    precedes its child in ``order``, so the result is a DAG, and :math:`P(x, C = k) = w_k P_k(x)` holds exactly, so
    pgmpy inference on it (e.g. ``VariableElimination(net).query([C], evidence=...)``) gives the multinet's
    posteriors.

    Parameters
    ----------
    models : mapping
        ``{cluster state: DiscreteBayesianNetwork}``, all over the same nodes and states, with CPDs.
    weights : sequence of float
        Mixing weights, in the order of ``models``.
    cluster_node : hashable, default "cluster"
        Name of the cluster node (must not be a node of the models).
    order : sequence, optional
        A node order. Default: a topological order of the network of the largest weight (ties between nodes by
        their position in that network's node list), which keeps that cluster's parents as they are.
    max_cpd_size : int, optional
        Refuse (ValueError naming the node, its parents and the size, before anything is allocated) when a CPD of
        the merged network would have more entries; None: no limit.

    Returns
    -------
    DiscreteBayesianNetwork
        ``check_model()`` holds; ``latents == {cluster_node}``.

    Notes
    -----
    For Chow-Liu trees whose orientations agree with ``order`` the parent sets stay single; where clusters orient
    a tree differently, a node can get several parents (the conditional given them is computed exactly by
    variable elimination on that cluster's network), so the CPDs can be larger than the multinet's.

    Examples
    --------
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
    >>> def tree(edge, p):
    ...     m = DiscreteBayesianNetwork([edge])
    ...     a, b = edge
    ...     m.add_cpds(TabularCPD(a, 2, [[.5], [.5]]),
    ...                TabularCPD(b, 2, [[p, 1 - p], [1 - p, p]], evidence=[a], evidence_card=[2]))
    ...     return m
    >>> net = multinet_to_network({0: tree(("A", "B"), .9), 1: tree(("B", "A"), .2)}, [.6, .4])
    >>> sorted(net.edges()), net.latents
    ([('A', 'B'), ('cluster', 'A'), ('cluster', 'B')], {'cluster'})
    >>> round(float(net.get_state_probability({"cluster": 1, "A": 0, "B": 0})), 4)   # 0.4 * 0.5 * 0.2
    0.04
    """
    keys = list(models)
    if not keys:
        raise ValueError("models is empty; a multinet needs at least one cluster network.")
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape[0] != len(keys):
        raise ValueError(f"got {w.shape[0]} weights for {len(keys)} cluster networks.")
    if (w < 0).any() or not np.isclose(w.sum(), 1.0):
        raise ValueError(f"weights must be >= 0 and sum to 1, got {w.tolist()}.")
    nets = [models[k] for k in keys]
    nodes = list(nets[0].nodes())
    for k, net in zip(keys, nets):
        if set(net.nodes()) != set(nodes):
            raise ValueError(f"the network of cluster {k!r} has nodes {sorted(map(str, net.nodes()))}, expected the "
                             f"same nodes as the first one.")
    if cluster_node in nodes:
        raise ValueError(f"cluster_node {cluster_node!r} is already a node of the cluster networks.")
    if order is None:
        ref = nets[int(np.argmax(w))]
        pos = {v: i for i, v in enumerate(ref.nodes())}
        order = list(nx.lexicographical_topological_sort(ref, key=lambda v: pos[v]))
    order = list(order)
    if sorted(map(repr, order)) != sorted(map(repr, nodes)):
        raise ValueError("order must list every node of the cluster networks exactly once.")
    states = {v: list(nets[0].get_cpds(v).state_names[v]) for v in nodes}
    states[cluster_node] = keys
    infers = [VariableElimination(net) for net in nets]
    K = len(keys)
    cpds = [TabularCPD(cluster_node, K, w.reshape(K, 1), state_names={cluster_node: keys})]
    edges = []
    for t, v in enumerate(order):
        pre = order[:t]
        per_k = [minimal_parents(net, v, pre) for net in nets]
        union = [u for u in pre if any(u in s for s in per_k)]
        full = [v, cluster_node, *union]  # axes of the table built below
        shape = [len(states[x]) for x in full]
        size = int(np.prod(shape, dtype=np.float64))
        if max_cpd_size is not None and size > max_cpd_size:
            raise ValueError(f"the merged network's CPD of {v!r} would have {size} entries (parents: the cluster "
                             f"node and {union!r}), more than max_cpd_size={max_cpd_size}: the clusters' networks "
                             "disagree too much for one network of this size. Keep the multinet (models_, weights_) "
                             "or pass another order.")
        table = np.empty(shape, dtype=np.float64)
        for k, (net, s) in enumerate(zip(nets, per_k)):
            cond = _conditional(net, v, s, infers[k])  # (r_v, *S)
            # S and union are both subsequences of `pre`, in its order: insert length-1 axes for union \ S
            expanded = cond.reshape([shape[0]] + [len(states[u]) if u in s else 1 for u in union])
            table[:, k] = np.broadcast_to(expanded, [shape[0], *shape[2:]])
        evidence = sorted_parents([cluster_node, *union])
        perm = [0] + [full.index(e) for e in evidence]
        values = np.transpose(table, perm).reshape(shape[0], -1)
        cpds.append(TabularCPD(v, shape[0], values, evidence=evidence,
                               evidence_card=[len(states[e]) for e in evidence],
                               state_names={x: states[x] for x in full}))
        edges += [(e, v) for e in evidence]
    net = DiscreteBayesianNetwork()
    net.add_nodes_from([cluster_node, *order])
    net.add_edges_from(edges)
    net.latents = {cluster_node}
    net.add_cpds(*cpds)
    return net
