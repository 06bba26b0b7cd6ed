"""Plain-numpy references for the posterior kernels (slow, obviously correct).

A network is given *without* the flat layout: ``families[node] = (node, *parents)`` (table order),
``tables[node]`` an N-d probability array over that family, ``col_of[var]`` the column of X holding ``var``,
``hidden`` the variable H (not in X) with cardinality ``K``. Every quantity is computed by direct indexing
``tables[node][values...]`` row by row, so none of the offsets/strides logic is shared with the kernels.
"""

from __future__ import annotations

import itertools

import numpy as np


def _lse(a: np.ndarray) -> float:
    m = np.max(a)
    if m == -np.inf:
        return -np.inf
    return float(m + np.log(np.sum(np.exp(a - m))))


def _log(t):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(t, dtype=np.float64))


def log_joint_ref(codes, families, tables, col_of, hidden, K, skip_missing=False):
    """(n, K) log p(h, x_r); with ``skip_missing`` the factor of a node whose own value is missing is dropped."""
    codes = np.asarray(codes)
    out = np.zeros((codes.shape[0], K))
    logs = {n: _log(t) for n, t in tables.items()}
    for r in range(codes.shape[0]):
        for h in range(K):
            s = 0.0
            for node, fam in families.items():
                vals = [h if v == hidden else int(codes[r, col_of[v]]) for v in fam]
                if min(vals) < 0:
                    if not skip_missing or vals[0] >= 0:
                        raise ValueError("missing value the reference cannot skip")
                    continue
                s += logs[node][tuple(vals)]
            out[r, h] = s
    return out


def log_joint_brute_force_ref(codes, families, tables, col_of, hidden, K, cards):
    """(n, K) log p(h, x_r) summing the full joint over every completion of the missing cells (exact marginal)."""
    codes = np.asarray(codes)
    out = np.zeros((codes.shape[0], K))
    logs = {n: _log(t) for n, t in tables.items()}
    for r in range(codes.shape[0]):
        miss = [v for v in col_of if v in cards and codes[r, col_of[v]] < 0]
        for h in range(K):
            terms = []
            for combo in itertools.product(*[range(cards[v]) for v in miss]):
                fill = dict(zip(miss, combo))
                s = 0.0
                for node, fam in families.items():
                    vals = [h if v == hidden else fill.get(v, int(codes[r, col_of[v]])) for v in fam]
                    s += logs[node][tuple(vals)]
                terms.append(s)
            out[r, h] = _lse(np.array(terms))
    return out


def posterior_ref(codes, families, tables, col_of, hidden, K, skip_missing=False):
    """(resp (n, K), loglik (n,)); NaN rows / -inf where p(x) = 0."""
    lj = log_joint_ref(codes, families, tables, col_of, hidden, K, skip_missing)
    resp = np.full_like(lj, np.nan)
    ll = np.empty(lj.shape[0])
    for r in range(lj.shape[0]):
        ll[r] = _lse(lj[r])
        if ll[r] > -np.inf:
            resp[r] = np.exp(lj[r] - ll[r])
    return resp, ll


def estep_ref(codes, families, tables, col_of, hidden, K, weights=None, skip_missing=False):
    """(loglik, {node: expected counts shaped like the table}, resp, n_zero)."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    resp, ll = posterior_ref(codes, families, tables, col_of, hidden, K, skip_missing)
    counts = {node: np.zeros(np.shape(t)) for node, t in tables.items()}
    total = 0.0
    n_zero = 0
    for r in range(n):
        if ll[r] == -np.inf:
            n_zero += 1
            if w[r] > 0:
                total = -np.inf
            continue
        if w[r] > 0:
            total += w[r] * ll[r]
        for node, fam in families.items():
            for h in range(K):
                vals = [h if v == hidden else int(codes[r, col_of[v]]) for v in fam]
                if min(vals) < 0:
                    continue
                if hidden in fam:
                    counts[node][tuple(vals)] += w[r] * resp[r, h]
                elif h == 0:
                    counts[node][tuple(vals)] += w[r]
    return total, counts, resp, n_zero


def cll_ref(codes, y, families, tables, col_of, hidden, K, weights=None, skip_missing=False):
    """(cll, resp, {node: gradient w.r.t. the log table}, n_zero)."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    lj = log_joint_ref(codes, families, tables, col_of, hidden, K, skip_missing)
    resp, ll = posterior_ref(codes, families, tables, col_of, hidden, K, skip_missing)
    grad = {node: np.zeros(np.shape(t)) for node, t in tables.items()}
    cll = 0.0
    n_zero = 0
    for r in range(n):
        if ll[r] == -np.inf:
            n_zero += 1
            if w[r] > 0:
                cll = -np.inf
            continue
        if w[r] > 0:
            cll += w[r] * (lj[r, y[r]] - ll[r])
        for node, fam in families.items():
            if hidden not in fam:
                continue
            for h in range(K):
                vals = [h if v == hidden else int(codes[r, col_of[v]]) for v in fam]
                if min(vals) < 0:
                    continue
                grad[node][tuple(vals)] += w[r] * ((h == y[r]) - resp[r, h])
    return cll, resp, grad, n_zero
