"""Plain-numpy references for the CEM kernels (slow, obviously correct; no offsets logic shared with the kernels).

A multinet is given as ``parents`` (K, m) attribute indices (-1 = none) and ``tables[k][i]``: an array of shape
``(r_i, r_parent)`` (``(r_i,)`` for a root) with probabilities (or counts).
"""

from __future__ import annotations

import numpy as np


def _log(a):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(a, dtype=np.float64))


def log_joint_ref(codes, parents, tables, prior) -> np.ndarray:
    """(n, K) log prior_k + sum_i log tables[k][i][x_i, x_parent]."""
    codes = np.asarray(codes)
    parents = np.asarray(parents)
    K, m = parents.shape
    out = np.zeros((codes.shape[0], K))
    for r in range(codes.shape[0]):
        for k in range(K):
            s = float(_log(prior[k]))
            for i in range(m):
                p = parents[k, i]
                t = np.asarray(tables[k][i])
                v = t[codes[r, i]] if p < 0 else t[codes[r, i], codes[r, p]]
                s += float(_log(v))
            out[r, k] = s
    return out


def family_counts_ref(codes, labels, parents, cards, K) -> list:
    """tables[k][i]: counts of (x_i, x_parent) (or x_i) over the rows with label k."""
    codes = np.asarray(codes)
    parents = np.asarray(parents)
    m = parents.shape[1]
    out = []
    for k in range(K):
        rows = codes[np.asarray(labels) == k]
        per = []
        for i in range(m):
            p = parents[k, i]
            if p < 0:
                t = np.zeros(cards[i])
                for x in rows[:, i]:
                    t[x] += 1
            else:
                t = np.zeros((cards[i], cards[p]))
                for a, b in zip(rows[:, i], rows[:, p]):
                    t[a, b] += 1
            per.append(t)
        out.append(per)
    return out


def normalize_ref(table: np.ndarray, alpha: float) -> np.ndarray:
    """Columns of (table + alpha) normalised; zero columns uniform. A 1-D table is one column."""
    t = np.asarray(table, dtype=np.float64)
    flat = t.reshape(t.shape[0], -1) + alpha
    s = flat.sum(axis=0)
    out = np.where(s > 0, flat / np.where(s > 0, s, 1), 1.0 / t.shape[0])
    return out.reshape(t.shape)


def sample_ref(log_joint, u) -> np.ndarray:
    """Inverse-CDF sampling, row by row."""
    lj = np.asarray(log_joint)
    out = np.empty(lj.shape[0], dtype=np.int32)
    for r in range(lj.shape[0]):
        p = np.exp(lj[r] - lj[r].max())
        c = np.cumsum(p)
        ks = np.flatnonzero(c > u[r] * c[-1])
        out[r] = ks[0] if ks.size else np.flatnonzero(p > 0)[-1]
    return out


def reseed_ref(log_joint, labels, K) -> np.ndarray:
    labels = np.array(labels, dtype=np.int32)
    lj = np.asarray(log_joint)
    lse = np.array([np.log(np.exp(row - row.max()).sum()) + row.max() for row in lj])
    lp = lj[np.arange(lj.shape[0]), labels] - lse
    counts = np.bincount(labels, minlength=K)
    for k in range(K):
        if counts[k]:
            continue
        eligible = [r for r in range(len(labels)) if counts[labels[r]] >= 2]
        best = min(eligible, key=lambda r: (lp[r], r))
        counts[labels[best]] -= 1
        labels[best] = k
        counts[k] += 1
        lp[best] = np.inf
    return labels
