"""Plain-numpy references for the counting kernels (slow, obviously correct)."""

from __future__ import annotations

import numpy as np


def family_counts_ref(codes, columns, cards, weights=None):
    codes = np.asarray(codes)
    cards = [int(c) for c in cards]
    out = np.zeros(cards, dtype=np.float64)
    w = np.ones(codes.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    for r in range(codes.shape[0]):
        vals = tuple(int(codes[r, c]) for c in columns)
        if min(vals, default=0) < 0:
            continue
        out[vals] += w[r]
    return out


def pairwise_counts_ref(codes, features, cards, cond, cond_card, weights=None):
    """dict (i, j) -> (card_i, card_j, cond_card) table, i < j."""
    codes = np.asarray(codes)
    m = len(features)
    out = {}
    for i in range(m):
        for j in range(i + 1, m):
            if cond is None:
                cols, cds = [features[i], features[j]], [cards[i], cards[j]]
                t = family_counts_ref(codes, cols, cds, weights)[:, :, None]
            else:
                cols, cds = [features[i], features[j], cond], [cards[i], cards[j], cond_card]
                t = family_counts_ref(codes, cols, cds, weights)
            out[(i, j)] = t
    return out


def unique_rows_ref(codes, weights=None):
    """Sorted distinct rows (lexicographic) and their multiplicities."""
    codes = np.asarray(codes)
    w = np.ones(codes.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    acc = {}
    for r in range(codes.shape[0]):
        key = tuple(int(v) for v in codes[r])
        acc[key] = acc.get(key, 0.0) + w[r]
    keys = sorted(acc)
    return np.array(keys, dtype=np.int32).reshape(len(keys), codes.shape[1]), np.array([acc[k] for k in keys])


def pairwise_log_bf_ref(codes, cards, weights=None, alpha=1.0):
    """(p, p) BD log Bayes factor of dependence of every pair (the pair as one variable against two independent
    ones, Dirichlet ``alpha`` per cell, rows where both are observed); the diagonal is -inf."""
    from scipy.special import gammaln

    X = np.asarray(codes)
    n, p = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)

    def lml(counts):
        r = counts.size
        return gammaln(r * alpha) - gammaln(counts.sum() + r * alpha) + np.sum(gammaln(counts + alpha) - gammaln(alpha))

    out = np.full((p, p), -np.inf)
    for i in range(p):
        for j in range(p):
            if i == j:
                continue
            t = np.zeros((cards[i], cards[j]))
            ok = (X[:, i] >= 0) & (X[:, j] >= 0)
            np.add.at(t, (X[ok, i], X[ok, j]), w[ok])
            out[i, j] = lml(t.ravel()) - lml(t.sum(axis=1)) - lml(t.sum(axis=0))
    return out


def logsumexp_rows_ref(a):
    """numpy's row reductions, as ``pgmpy_ext.utils.logsumexp_rows`` computed them before issue 25."""
    m = a.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        return (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]


def log_normalize_rows_ref(a, floor=None):
    out = a - logsumexp_rows_ref(a)[:, None]
    if floor is not None:
        np.maximum(out, floor, out=out)
    return out


def log_joint_columns_ref(columns, layout, log_cpt):
    """``(out, n_marked)`` of ``pgmpy_ext.stats.log_joint_columns`` in plain numpy: per node, one gather of its
    log-CPT entries at every row (``H`` varied), added in layout order; rows with a negative code in a column some
    node reads get NaN in column 0."""
    n = next(len(c) for c in columns if c is not None)
    K = layout.hidden_card
    out = np.zeros((n, K))
    marked = np.zeros(n, dtype=bool)
    for v in range(layout.n_nodes):
        lo, hi = int(layout.fam_offsets[v]), int(layout.fam_offsets[v + 1])
        base = np.full(n, int(layout.tab_offsets[v]), dtype=np.int64)
        for j in range(lo, hi):
            c = int(layout.fam_cols[j])
            if c < 0:
                continue
            x = np.asarray(columns[c]).astype(np.int64)
            marked |= x < 0
            base += np.maximum(x, 0) * int(layout.fam_strides[j])
        hs = int(layout.h_stride[v])
        out += np.asarray(log_cpt)[base[:, None] + hs * np.arange(K)[None, :]]
    out[marked, 0] = np.nan
    return out, int(marked.sum())


def column_plan_ref(layout, log_cpt, class_order=None):
    """``(node_ptr, obs_col, obs_card, obs_stride, tab_off, tab)`` of ``pgmpy_ext.stats.ColumnPlan.build``, node by
    node: each log-CPT block with its H axis moved last (``numpy.moveaxis``), repeated K times without H."""
    K = layout.hidden_card
    node_ptr, obs_col, obs_card, obs_stride, tab_off, tabs = [0], [], [], [], [0], []
    for v in range(layout.n_nodes):
        lo, hi = int(layout.fam_offsets[v]), int(layout.fam_offsets[v + 1])
        cols, cards = layout.fam_cols[lo:hi], layout.fam_cards[lo:hi]
        block = np.asarray(log_cpt)[layout.tab_offsets[v]:layout.tab_offsets[v + 1]].reshape([int(c) for c in cards])
        hpos = np.flatnonzero(cols < 0)
        if hpos.size:
            t = np.moveaxis(block, int(hpos[0]), -1)
            if class_order is not None:
                t = t[..., np.asarray(class_order)]
        else:
            t = np.repeat(block[..., None], K, axis=-1)
        kc = cards[cols >= 0]
        stride = [int(np.prod(kc[j + 1:])) for j in range(kc.shape[0])]
        obs_col += cols[cols >= 0].tolist()
        obs_card += kc.tolist()
        obs_stride += stride
        node_ptr.append(len(obs_col))
        tabs.append(np.ascontiguousarray(t).reshape(-1))
        tab_off.append(tab_off[-1] + tabs[-1].shape[0])
    return (np.array(node_ptr), np.array(obs_col, dtype=np.intp), np.array(obs_card, dtype=np.intp),
            np.array(obs_stride, dtype=np.intp), np.array(tab_off), np.concatenate(tabs) if tabs else np.zeros(0))
