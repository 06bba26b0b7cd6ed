"""Exact marginalisation of missing cells (code ``-1``) on one-dependence networks, through ``_core._marginal``.

``log p(H=h, x_observed)`` with every missing cell summed out, equal to ``VariableElimination`` with the missing
features left out of the evidence. Rows without a missing cell (among the columns the network reads) go through the
complete-data kernels unchanged (:func:`pgmpy_ext.stats.log_joint_batch`, :func:`pgmpy_ext.stats.multinet_log_joint`),
so their values are bit-identical to those; only rows with a ``-1`` take the forest pass of
``cython_core/_marginal.pyx`` (documented there).

A *one-dependence* network is one where every feature node has at most one feature parent besides ``H``: naive
Bayes, TAN, FAN, SBN, ABN, and every class/cluster tree of a CL multinet. For other structures (kDB with
``k >= 2``, BAN with several feature parents) :func:`forest_plan` returns None and
:func:`pgmpy_ext.models.marginal_log_joint` runs exact variable elimination instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _marginal
from pgmpy_ext.stats._cem import MultinetLayout, multinet_log_joint
from pgmpy_ext.stats._posterior import HIDDEN, NetworkLayout, _check_log_cpt, log_joint_batch
from pgmpy_ext.utils.validation import effective_n_threads

__all__ = ["ForestPlan", "forest_plan", "multinet_forest_plan", "rows_with_missing", "log_joint_marginal",
           "multinet_log_joint_marginal"]


def _intp(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.intp))


def _children_first(par: np.ndarray) -> np.ndarray:
    """Node order with every child before its parent (deepest first; ties by node index). ``par``: (V,), -1 roots."""
    V = par.shape[0]
    depth = np.full(V, -1, dtype=np.intp)
    for v in range(V):
        path = []
        u = v
        while u >= 0 and depth[u] < 0:
            if u in path:
                raise ValueError(f"the feature parents form a cycle through node {u}.")
            path.append(u)
            u = int(par[u])
        d = -1 if u < 0 else int(depth[u])
        for w in reversed(path):
            d += 1
            depth[w] = d
    return np.lexsort((np.arange(V), -depth)).astype(np.intp)


@dataclass(frozen=True, eq=False)
class ForestPlan:
    """A one-dependence network in the flat plan of ``cython_core/_marginal.pyx`` (see its docstring).

    Attributes
    ----------
    node_col, node_card, msg_off : intp (V,), (V,), (V + 1,)
    order, par, off, xs, ps : intp (K, V)
    log_add : float64 (K,)
    columns_used : intp
        Sorted columns of ``X`` the network reads: a row with a ``-1`` in one of them needs the forest pass.
    """

    node_col: np.ndarray
    node_card: np.ndarray
    msg_off: np.ndarray
    order: np.ndarray
    par: np.ndarray
    off: np.ndarray
    xs: np.ndarray
    ps: np.ndarray
    log_add: np.ndarray
    columns_used: np.ndarray

    @classmethod
    def _make(cls, node_col, node_card, par, off, xs, ps, log_add) -> ForestPlan:
        node_col, node_card = _intp(node_col), _intp(node_card)
        par = np.ascontiguousarray(np.atleast_2d(np.asarray(par, dtype=np.intp)))
        msg_off = np.zeros(node_col.shape[0] + 1, dtype=np.intp)
        np.cumsum(node_card, out=msg_off[1:])
        order = np.ascontiguousarray(np.stack([_children_first(p) for p in par]) if par.shape[1] else
                                     np.zeros(par.shape, dtype=np.intp))
        used = np.unique(node_col[node_col >= 0])
        return cls(node_col, node_card, msg_off, order, par, np.ascontiguousarray(off, dtype=np.intp),
                   np.ascontiguousarray(xs, dtype=np.intp), np.ascontiguousarray(ps, dtype=np.intp),
                   np.ascontiguousarray(log_add, dtype=np.float64), _intp(used))

    @property
    def n_nodes(self) -> int:
        return int(self.node_col.shape[0])

    @property
    def hidden_card(self) -> int:
        return int(self.log_add.shape[0])

    def kernel_args(self) -> tuple:
        return (self.node_col, self.node_card, self.msg_off, self.order, self.par, self.off, self.xs, self.ps,
                self.log_add)


def forest_plan(layout: NetworkLayout) -> ForestPlan | None:
    """The :class:`ForestPlan` of a :class:`NetworkLayout`, or None when some node has two or more feature parents.

    Every block becomes a node of the plan: a feature node (its own column), or, for a block whose own variable is
    ``H`` (the class prior ``P(H)``, or ``P(H | p)``), a constant node. A feature parent must have a block itself
    (ValueError otherwise: its marginal would be undefined).

    Examples
    --------
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["C", "A"]}, {"C": 2, "A": 3, "B": 2}, ["A", "B"], "C")
    >>> plan = forest_plan(lay)
    >>> plan.node_col.tolist(), plan.par[0].tolist(), plan.order[0].tolist()
    ([-1, 0, 1], [-1, -1, 1], [2, 0, 1])
    >>> forest_plan(NetworkLayout.build({"C": [], "A": ["C", "B"], "B": ["C"], "D": ["C", "A", "B"]},
    ...                                 {"C": 2, "A": 2, "B": 2, "D": 2}, ["A", "B", "D"], "C")) is None
    True
    """
    if not isinstance(layout, NetworkLayout):
        raise TypeError(f"expected a NetworkLayout, got {type(layout).__name__}.")
    V, K = layout.n_nodes, layout.hidden_card
    node_of_col = {}
    node_col = np.empty(V, dtype=np.intp)
    node_card = np.empty(V, dtype=np.intp)
    for v in range(V):
        start = int(layout.fam_offsets[v])
        c = int(layout.fam_cols[start])
        node_col[v] = c if c != HIDDEN else -1
        node_card[v] = int(layout.fam_cards[start]) if c != HIDDEN else 1
        if c != HIDDEN:
            node_of_col[c] = v
    par = np.full(V, -1, dtype=np.intp)
    xs = np.zeros(V, dtype=np.intp)
    ps = np.zeros(V, dtype=np.intp)
    for v in range(V):
        start, stop = int(layout.fam_offsets[v]), int(layout.fam_offsets[v + 1])
        xs[v] = layout.fam_strides[start] if layout.fam_cols[start] != HIDDEN else 0
        feat = [j for j in range(start + 1, stop) if layout.fam_cols[j] != HIDDEN]
        if len(feat) > 1:
            return None
        if feat:
            j = feat[0]
            c = int(layout.fam_cols[j])
            if c not in node_of_col:
                raise ValueError(f"variable {layout.columns[c]!r} is a parent of {layout.nodes[v]!r} but has no block "
                                 "of its own; its marginal is undefined.")
            par[v] = node_of_col[c]
            ps[v] = layout.fam_strides[j]
    hs = np.asarray(layout.h_stride, dtype=np.intp)
    off = np.asarray(layout.tab_offsets[:-1], dtype=np.intp)[None, :] + np.arange(K, dtype=np.intp)[:, None] * hs
    return ForestPlan._make(node_col, node_card, np.tile(par, (K, 1)), off, np.tile(xs, (K, 1)),
                            np.tile(ps, (K, 1)), np.zeros(K))


def multinet_forest_plan(layout: MultinetLayout, log_prior, cols=None) -> ForestPlan:
    """The :class:`ForestPlan` of a :class:`MultinetLayout` (always one-dependence), with ``log_add = log_prior``.

    ``cols`` (m,): the column of ``X`` holding each attribute (default ``0..m-1``)."""
    if not isinstance(layout, MultinetLayout):
        raise TypeError(f"expected a MultinetLayout, got {type(layout).__name__}.")
    K, m = layout.n_clusters, layout.n_attributes
    cols = np.arange(m, dtype=np.intp) if cols is None else _intp(cols)
    if cols.shape != (m,):
        raise ValueError(f"cols has shape {cols.shape}, expected ({m},) (one column per attribute).")
    log_prior = np.ascontiguousarray(log_prior, dtype=np.float64)
    if log_prior.shape != (K,):
        raise ValueError(f"log_prior has shape {log_prior.shape}, expected ({K},).")
    par = layout.parents
    pc = np.where(par >= 0, layout.cards[np.maximum(par, 0)], 1)
    off = np.asarray(layout.blk_offsets[:-1], dtype=np.intp).reshape(K, m)
    return ForestPlan._make(cols, layout.cards, par, off, pc, np.ones((K, m), dtype=np.intp), log_prior)


def rows_with_missing(codes: np.ndarray, columns) -> np.ndarray:
    """Indices (intp) of the rows of ``codes`` with a negative code in one of ``columns``."""
    columns = _intp(columns)
    if codes.shape[0] == 0 or columns.size == 0:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero((codes[:, columns] < 0).any(axis=1)).astype(np.intp)


def _forest_rows(plan: ForestPlan, log_cpt: np.ndarray, codes: np.ndarray, rows: np.ndarray, n_jobs: int,
                 describe) -> np.ndarray:
    out = np.empty((rows.shape[0], plan.hidden_card), dtype=np.float64)
    bad = _marginal.forest_log_joint(codes, rows, *plan.kernel_args(), log_cpt, out, effective_n_threads(n_jobs))
    if bad is not None:
        r, v = bad
        c = int(plan.node_col[v])
        raise ValueError(f"row {r}: code {int(codes[r, c])} of {describe(c)} is outside "
                         f"0..{int(plan.node_card[v]) - 1}.")
    return out


def log_joint_marginal(layout: NetworkLayout, log_cpt, X, *, plan: ForestPlan | None = None,
                       n_jobs: int = 1) -> np.ndarray:
    """``log p(H=h, x_observed)`` for every row, missing cells (``-1``) summed out exactly.

    Parameters
    ----------
    layout : NetworkLayout
        A one-dependence network (:func:`forest_plan` is not None).
    log_cpt : float64 (layout.size,)
    X : int32 (n_rows, n_cols) or EncodedData
        Codes; ``-1`` = missing (or a state unseen at fit, treated as missing).
    plan : ForestPlan, optional
        ``forest_plan(layout)``, when the caller keeps it.
    n_jobs : int, default 1

    Returns
    -------
    float64 (n_rows, K). Rows without a missing cell are those of :func:`log_joint_batch` (bit-identical).

    Raises
    ------
    ValueError
        The layout is not one-dependence and some row has a missing cell (use
        :func:`pgmpy_ext.models.marginal_log_joint`), or a code is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> lay = NetworkLayout.build({"C": [], "A": ["C"], "B": ["A", "C"]}, {"C": 2, "A": 2, "B": 2}, ["A", "B"], "C")
    >>> log_cpt = lay.pack({"C": [0.5, 0.5], "A": [[0.9, 0.2], [0.1, 0.8]],
    ...                     "B": [[[0.7, 0.4], [0.5, 0.1]], [[0.3, 0.6], [0.5, 0.9]]]}, log=True)
    >>> np.exp(log_joint_marginal(lay, log_cpt, np.array([[-1, 0]]))).round(4).tolist()  # sum_a P(c) P(a|c) P(b=0|a,c)
    [[0.34, 0.08]]
    """
    codes = layout.codes_of(X)
    lc = _check_log_cpt(layout, log_cpt)
    used = np.unique(layout.fam_cols[layout.fam_cols != HIDDEN])
    rows = rows_with_missing(codes, used)
    if rows.size == 0:
        return log_joint_batch(layout, lc, codes, n_jobs=n_jobs)
    if plan is None:
        plan = forest_plan(layout)
    if plan is None:
        raise ValueError("this network has a node with two or more feature parents; the forest pass cannot sum out "
                         "its missing cells. Use pgmpy_ext.models.marginal_log_joint (exact variable elimination).")
    out = np.empty((codes.shape[0], layout.hidden_card), dtype=np.float64)
    complete = np.ones(codes.shape[0], dtype=bool)
    complete[rows] = False
    if complete.any():
        out[complete] = log_joint_batch(layout, lc, np.ascontiguousarray(codes[complete]), n_jobs=n_jobs)
    out[rows] = _forest_rows(plan, lc, codes, rows, n_jobs, lambda c: repr(layout.columns[c]))
    return out


def multinet_log_joint_marginal(layout: MultinetLayout, log_cpt, log_prior, codes, cols=None, *,
                                n_jobs: int = 1) -> np.ndarray:
    """:func:`multinet_log_joint` with missing cells (``-1``) summed out exactly: ``log P(k) + log p_k(x_observed)``.

    Rows without a missing cell are computed by :func:`multinet_log_joint` itself (bit-identical).

    Examples
    --------
    >>> import numpy as np
    >>> lay = MultinetLayout.build([[-1, 0], [-1, -1]], [2, 2])
    >>> log_cpt = np.log([.5, .5, .9, .2, .1, .8, .3, .7, .5, .5])
    >>> lj = multinet_log_joint_marginal(lay, log_cpt, np.log([.5, .5]), np.array([[-1, 1]], dtype=np.int32))
    >>> np.exp(lj).round(4).tolist()   # cluster 0: .5 * (.5 * .1 + .5 * .8); cluster 1: .5 * .5
    [[0.225, 0.25]]
    """
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    if codes.ndim != 2:
        raise ValueError(f"codes must be 2-D (n_rows, n_cols), got shape {codes.shape}.")
    cols_a = np.arange(layout.n_attributes, dtype=np.intp) if cols is None else _intp(cols)
    rows = rows_with_missing(codes, cols_a)
    if rows.size == 0:
        return multinet_log_joint(layout, log_cpt, log_prior, codes, cols_a, n_jobs=n_jobs)
    log_cpt = layout.check_flat(log_cpt, "log_cpt") if hasattr(layout, "check_flat") else \
        np.ascontiguousarray(log_cpt, dtype=np.float64)
    if log_cpt.shape != (layout.size,):
        raise ValueError(f"log_cpt has shape {log_cpt.shape}, expected ({layout.size},).")
    plan = multinet_forest_plan(layout, log_prior, cols_a)
    out = np.empty((codes.shape[0], layout.n_clusters), dtype=np.float64)
    complete = np.ones(codes.shape[0], dtype=bool)
    complete[rows] = False
    if complete.any():
        out[complete] = multinet_log_joint(layout, log_cpt, log_prior, np.ascontiguousarray(codes[complete]), cols_a,
                                           n_jobs=n_jobs)
    where = {int(c): i for i, c in enumerate(cols_a)}
    out[rows] = _forest_rows(plan, log_cpt, codes, rows, n_jobs, lambda c: f"attribute {where[c]} (column {c})")
    return out
