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
