"""Build pgmpy ``DiscreteBayesianNetwork`` objects from parent sets and count tables.

Every pgmpy-ext learner ends here: the engines return parent sets and count tables on :class:`EncodedData`, and
these helpers turn them into ``TabularCPD`` objects whose evidence is ``sorted(parents)`` (pgmpy's estimators'
order) and whose ``state_names`` are the user's original labels with their Python types.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import family_counts_many, family_counts_shared
from pgmpy_ext.utils import normalize_columns

__all__ = ["build_network", "cpds_from_counts", "cpds_from_layout", "sorted_parents", "NetworkTables",
           "network_tables", "normalize_stacked_columns"]


def sorted_parents(parents: Sequence) -> list:
    """Parents in pgmpy's evidence order (``sorted``); mixed, unorderable labels sort by ``(type name, repr)``."""
    parents = list(parents)
    try:
        return sorted(parents)
    except TypeError:
        return sorted(parents, key=lambda v: (type(v).__name__, repr(v)))


def _check_alpha(alpha) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__}.") from None
    if not math.isfinite(a) or a < 0:
        raise ValueError(f"alpha == {alpha!r}, must be >= 0.")
    return a


def cpds_from_counts(counts: Mapping, parents: Mapping, states: Mapping, *, alpha: float = 0.0) -> list:
    """``TabularCPD`` objects from family count tables.

    Parameters
    ----------
    counts : mapping
        ``{node: array}``, the (weighted) counts of each family, C-order over ``(node, *sorted_parents(parents))``
        (what :func:`pgmpy_ext.stats.family_counts` returns), any shape with ``card(node) * prod(card(parents))``
        entries (e.g. ``(r, q)``).
    parents : mapping
        ``{node: sequence of parents}`` (any order: they are sorted). Every node of ``counts`` must be a key.
    states : mapping
        ``{variable: list of states}`` for every node and parent, in code order (e.g. ``EncodedData.state_names``).
    alpha : float, default 0.0
        Dirichlet pseudo-count added to every cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts`` with
        ``prior_type="dirichlet"``). 0 is maximum likelihood, where a parent configuration that was never seen
        gets a uniform column, as in pgmpy's ``DiscreteMLE``.

    Returns
    -------
    list of TabularCPD
        In the order of ``counts``; evidence = ``sorted_parents(parents[node])``.

    Examples
    --------
    >>> cpds = cpds_from_counts({"A": [3, 1], "B": [[2, 0], [1, 0]]}, {"A": [], "B": ["A"]},
    ...                         {"A": ["x", "y"], "B": [0, 1]})
    >>> cpds[1].get_values().tolist()
    [[0.6666666666666666, 0.5], [0.3333333333333333, 0.5]]
    >>> cpds[1].state_names
    {'B': [0, 1], 'A': ['x', 'y']}
    """
    a = _check_alpha(alpha)
    out = []
    for node, table in counts.items():
        if node not in parents:
            raise ValueError(f"parents has no entry for {node!r}; give [] for a root node.")
        pa = sorted_parents(parents[node])
        for var in (node, *pa):
            if var not in states:
                raise ValueError(f"states has no entry for {var!r} (family of {node!r}).")
        r = len(states[node])
        cards = [len(states[p]) for p in pa]
        q = int(np.prod(cards, dtype=np.int64))
        t = np.asarray(table, dtype=np.float64)
        if t.size != r * q:
            raise ValueError(f"counts of {node!r} have {t.size} entries, expected card({node!r}) * prod(card(parents))"
                             f" = {r} * {q} = {r * q} (C-order over ({node!r}, *{pa!r})).")
        if not np.all(np.isfinite(t)) or (t < 0).any():
            raise ValueError(f"counts of {node!r} must be finite and >= 0.")
        values = normalize_columns(t.reshape(r, q), a)
        sn = {node: list(states[node])}
        sn.update({p: list(states[p]) for p in pa})
        out.append(TabularCPD(node, r, values, evidence=pa or None, evidence_card=cards or None, state_names=sn))
    return out


@dataclass(eq=False)
class NetworkTables:
    """A fitted discrete network as plain arrays: what :func:`build_network` turns into pgmpy objects.

    Learners keep this and build the ``DiscreteBayesianNetwork`` only when it is asked for (7,071 ``TabularCPD``
    objects cost far more than fitting a naive Bayes on 7,070 genes); their predictors are compiled from it
    directly (:func:`pgmpy_ext.models.compile_tables`), with the same numbers the pgmpy model holds.

    Attributes
    ----------
    nodes : list
        In the model's node order (the parent mapping's order, then parent-only nodes).
    parents : dict
        ``{node: parents in pgmpy's evidence order}`` (``sorted_parents``).
    states : dict
        ``{node: list of states}`` (the user's labels, in code order).
    tables : dict
        ``{node: float64 (card(node), prod(card(parents)))}``: the CPD values (columns sum to 1).
    """

    nodes: list
    parents: dict
    states: dict
    tables: dict

    def cpds(self) -> list:
        """One ``TabularCPD`` per node, in node order."""
        out = []
        for node in self.nodes:
            pa = self.parents[node]
            sn = {node: list(self.states[node])}
            sn.update({p: list(self.states[p]) for p in pa})
            values = self.tables[node]
            out.append(TabularCPD(node, values.shape[0], values, evidence=pa or None,
                                  evidence_card=[len(self.states[p]) for p in pa] or None, state_names=sn))
        return out

    def to_network(self) -> DiscreteBayesianNetwork:
        """The fitted ``DiscreteBayesianNetwork`` (what :func:`build_network` returns)."""
        model = DiscreteBayesianNetwork()
        model.add_nodes_from(self.nodes)
        model.add_edges_from([(p, n) for n in self.nodes for p in self.parents[n]])
        add_cpds_fresh(model, self.cpds())
        return model


def network_tables(parents: Mapping, data: EncodedData, *, counts: Mapping | None = None, alpha: float = 0.0,
                   weights=None, n_jobs: int = 1) -> NetworkTables:
    """The CPD tables :func:`build_network` would put into its model (same arguments), without pgmpy objects.

    ``n_jobs``: threads of the counting pass (the counts are the same for every value)."""
    if not isinstance(data, EncodedData):
        raise TypeError(f"data must be an EncodedData (pgmpy_ext.data.encode(df)), got {type(data).__name__}.")
    a = _check_alpha(alpha)
    nodes = list(parents)
    known = set(nodes)  # a set: `p not in nodes` on the list was quadratic (0.5 s for a 7130-node K2 network)
    full = {}
    extra = []
    given_lists = list(parents.values())
    single = None  # at most one parent per node: each node's parent (_ROOT for none)
    if max(map(len, given_lists), default=0) < 2:
        # (a naive Bayes, a forest): the same checks and order, without a Python pass over the nodes beyond these
        # comprehensions (a 7,070-gene naive Bayes has 7,071 nodes)
        full = dict(zip(nodes, map(list, given_lists)))
        single = [pa[0] if pa else _ROOT for pa in given_lists]
        if any(map(operator.eq, single, nodes)):
            node = next(n for n, p in zip(nodes, single) if p == n)
            raise ValueError(f"node {node!r} cannot be its own parent.")
        extra = [p for p in dict.fromkeys(single) if p is not _ROOT and p not in known]
        nodes_iter = ()
    else:
        nodes_iter = nodes
    for node in nodes_iter:  # one lean pass per node
        given_pa = parents[node]
        if len(given_pa) > 1:
            pa = sorted_parents(given_pa)
            if node in pa:
                raise ValueError(f"node {node!r} cannot be its own parent.")
            if len(set(pa)) != len(pa):
                raise ValueError(f"node {node!r} has repeated parents: {pa!r}.")
        else:
            pa = list(given_pa)
            if pa and pa[0] == node:
                raise ValueError(f"node {node!r} cannot be its own parent.")
        full[node] = pa
        for p in given_pa:
            if p not in known:
                extra.append(p)
                known.add(p)
    for p in extra:  # parent-only nodes: roots, after the others
        nodes.append(p)
        full[p] = []
    try:
        idx = data.indices(nodes).tolist()
    except KeyError:
        n = next(n for n in nodes if n not in set(data.columns))
        raise ValueError(f"node {n!r} is not a column of the data (columns: {data.columns!r}).") from None
    cards_of = dict(zip(nodes, data.cards[idx].tolist()))
    states = dict(zip(nodes, map(data.states.__getitem__, idx)))
    given = dict(counts or {})
    unknown = [n for n in given if n not in full]
    if unknown:
        raise ValueError(f"counts given for {unknown!r}, which are not nodes of the network.")
    # the families to count, grouped by their parent list: a large group (a naive Bayes: every feature has the
    # class alone) in one kernel pass without Python work per family (family_counts_shared), the others together
    # in one pass (family_counts_many); the same kernel, the same counts
    by_parents: dict = {}
    keys = None if single is None else dict.fromkeys(single)
    if keys is not None and len(keys) <= 8 and not given:  # a few parent lists: one comprehension each
        for key in keys:
            children = [n for n, p in zip(nodes, single) if p is key or p == key]
            by_parents[() if key is _ROOT else (key,)] = children
        if extra:  # parent-only nodes (after the others in ``nodes``) have no parent
            by_parents.setdefault((), []).extend(extra)
    else:
        for n in nodes:
            if n not in given:
                by_parents.setdefault(tuple(full[n]), []).append(n)
    rest = [n for pa, children in by_parents.items() if len(children) < _SHARED_PARENTS_MIN for n in children]
    if rest:
        for n, t in zip(rest, family_counts_many(data, [(n, full[n]) for n in rest], weights, n_jobs=n_jobs)):
            given[n] = t
        by_parents = {pa: ch for pa, ch in by_parents.items() if len(ch) >= _SHARED_PARENTS_MIN}
    # the checks and the normalisation of cpds_from_counts, for all tables of one shape at once (a 7,070-gene
    # naive Bayes has 7,070 tables of a handful of shapes); given tables one by one, counted ones gathered from the
    # flat buffer of their group by child cardinality
    by_shape: dict = {}
    for node, table in given.items():
        r = cards_of[node]
        q = math.prod(cards_of[p] for p in full[node])
        t = np.asarray(table, dtype=np.float64)
        if t.size != r * q:
            raise ValueError(f"counts of {node!r} have {t.size} entries, expected card({node!r}) * prod(card(parents))"
                             f" = {r} * {q} = {r * q} (C-order over ({node!r}, *{full[node]!r})).")
        by_shape.setdefault((r, q), []).append(([node], t.reshape(1, r, q)))
    for pa, children in by_parents.items():
        flat, tab = family_counts_shared(data, children, list(pa), weights, n_jobs=n_jobs)
        q = math.prod(cards_of[p] for p in pa)
        r_of = np.diff(tab) // q
        for r in np.unique(r_of).tolist():
            members = np.flatnonzero(r_of == r)
            if members.size == len(children):
                stack = flat.reshape(len(children), r, q)
                names = children
            else:
                stack = flat[tab[members][:, None] + np.arange(r * q)].reshape(members.size, r, q)
                names = [children[k] for k in members.tolist()]
            by_shape.setdefault((r, q), []).append((names, stack))
    tables = {}
    for (r, q), parts in by_shape.items():
        names = [n for part in parts for n in part[0]]
        stack = parts[0][1] if len(parts) == 1 else np.concatenate([part[1] for part in parts])
        if not np.isfinite(stack).all() or (stack < 0).any():
            bad = next(n for n, t in zip(names, stack) if not np.all(np.isfinite(t)) or (t < 0).any())
            raise ValueError(f"counts of {bad!r} must be finite and >= 0.")
        probs = normalize_stacked_columns(stack, a)
        tables.update(zip(names, probs))
    return NetworkTables(nodes, full, states, {n: tables[n] for n in nodes})


#: The parent of a root in :func:`network_tables`' at-most-one-parent path (no label is this object).
_ROOT = object()

#: From this many families with one parent list, :func:`network_tables` counts them as a group (one kernel pass
#: without Python work per family); smaller groups share one pass with the other families.
_SHARED_PARENTS_MIN = 16


def normalize_stacked_columns(stack: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """:func:`pgmpy_ext.utils.normalize_columns` of every ``(r, q)`` table of a ``(g, r, q)`` stack at once, with
    the same operations (hence the same numbers): ``(counts + alpha)`` over the column sums, all-zero columns
    uniform.

    >>> normalize_stacked_columns(np.array([[[2.0, 0.0], [6.0, 0.0]]])).tolist()
    [[[0.25, 0.5], [0.75, 0.5]]]
    """
    t = stack + alpha if alpha > 0 else np.array(stack, dtype=np.float64)
    s = t.sum(axis=1, keepdims=True)
    zero = s == 0
    if zero.any():
        g, _, c = np.nonzero(zero)
        t[g, :, c] = 1.0
        s = t.sum(axis=1, keepdims=True)
    return t / s


def build_network(parents: Mapping, data: EncodedData, *, counts: Mapping | None = None, alpha: float = 0.0,
                  weights=None) -> DiscreteBayesianNetwork:
    """A fitted ``DiscreteBayesianNetwork`` from parent sets and data.

    Parameters
    ----------
    parents : mapping
        ``{node: sequence of parents}``. Nodes that occur only as parents are added as root nodes; nodes with no
        edges are kept. The model's nodes follow the mapping's order, then parent-only nodes.
    data : EncodedData
        Supplies the states (original labels and types, in code order) and, unless ``counts`` covers a node, the
        counts. Rows with a missing value in a family are skipped for that family (available-case counting).
    counts : mapping, optional
        ``{node: counts}`` laid out as in :func:`cpds_from_counts`; nodes not in it are counted from ``data`` with
        :func:`pgmpy_ext.stats.family_counts`.
    alpha : float, default 0.0
        Dirichlet pseudo-count per cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``); 0 = maximum
        likelihood with a uniform column for unseen parent configurations.
    weights : array-like of shape (n_rows,), optional
        Row weights for the counts (default ``data.weights``).

    Returns
    -------
    DiscreteBayesianNetwork
        With one ``TabularCPD`` per node, evidence ``sorted(parents)``; ``check_model()`` holds.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> data = encode(pd.DataFrame({"C": ["a", "a", "b", "b"], "X": [0, 1, 1, 1], "Z": [True] * 4}))
    >>> bn = build_network({"C": [], "X": ["C"], "Z": []}, data, alpha=1.0)
    >>> bn.get_cpds("X").get_values().tolist()
    [[0.5, 0.25], [0.5, 0.75]]
    >>> sorted(bn.nodes()), bn.check_model()
    (['C', 'X', 'Z'], True)
    """
    return network_tables(parents, data, counts=counts, alpha=alpha, weights=weights).to_network()


def add_cpds_fresh(model: DiscreteBayesianNetwork, cpds: Sequence) -> None:
    """``model.add_cpds(*cpds)`` for a model without CPDs, in linear time.

    pgmpy's ``add_cpds`` rebuilds ``set(model.nodes())`` and scans every CPD already added for each new one, which
    is quadratic: 35 s for the 7130 CPDs of a K2 network on the 7129 leukemia genes (issue 14). The same checks
    (a TabularCPD, scope inside the model, one CPD per variable) are done once here, then the list is filled.
    """
    if model.cpds:
        model.add_cpds(*cpds)
        return
    nodes = set(model.nodes())
    seen = set()
    for cpd in cpds:
        if not isinstance(cpd, TabularCPD):
            raise ValueError("Only TabularCPD can be added.")
        if not set(cpd.scope()) <= nodes:
            raise ValueError("CPD defined on variable not in the model", cpd)
        if cpd.variable in seen:
            raise ValueError(f"two CPDs for {cpd.variable!r}.")
        seen.add(cpd.variable)
    model.cpds.extend(cpds)


def cpds_from_layout(layout, probs, states: Mapping, *, log: bool = False) -> list:
    """``TabularCPD`` objects from a flat probability buffer in a :class:`~pgmpy_ext.stats.NetworkLayout`.

    The inverse of packing CPDs into the kernels' layout, e.g. after an EM M-step
    (``layout.normalize(expected_counts, alpha)``). Evidence order is each family's order in the layout (build the
    layout with ``sorted_parents`` to get pgmpy's order); values are used as they are (no renormalisation).

    Parameters
    ----------
    layout : NetworkLayout
    probs : array of float64, shape (layout.size,)
        Probabilities, or natural logs of them with ``log=True`` (e.g. ``CompiledNetwork.log_cpt``).
    states : mapping
        ``{variable: list of states}`` for every family member, the hidden/class variable included.

    Returns
    -------
    list of TabularCPD
        One per ``layout.nodes``, in that order.

    Examples
    --------
    >>> from pgmpy_ext.stats import NetworkLayout
    >>> lay = NetworkLayout.build({"H": [], "A": ["H"]}, {"H": 2, "A": 2}, ["A"], "H")
    >>> cpds = cpds_from_layout(lay, [0.3, 0.7, 0.9, 0.2, 0.1, 0.8], {"H": [0, 1], "A": ["a", "b"]})
    >>> cpds[1].variables, cpds[1].get_values().tolist()
    (['A', 'H'], [[0.9, 0.2], [0.1, 0.8]])
    """
    flat = np.asarray(probs, dtype=np.float64)
    tables = layout.unpack(flat, exp=log)
    out = []
    for node, fam in zip(layout.nodes, layout.families):
        for var in fam:
            if var not in states:
                raise ValueError(f"states has no entry for {var!r} (family of {node!r}).")
            if len(states[var]) != layout.cards[var]:
                raise ValueError(f"states of {var!r} has {len(states[var])} entries, but the layout gives it "
                                 f"cardinality {layout.cards[var]}.")
        t = tables[node]
        r = t.shape[0]
        pa = list(fam[1:])
        out.append(TabularCPD(node, r, t.reshape(r, -1), evidence=pa or None,
                              evidence_card=[int(c) for c in t.shape[1:]] or None,
                              state_names={v: list(states[v]) for v in fam}))
    return out
