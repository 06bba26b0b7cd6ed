"""Plain-numpy references for the score and information kernels (slow, obviously correct).

Two kinds of reference for the family scores:
* ``*_ref``: the textbook formulas over every cell of a full ``(r, q)`` table (scipy ``gammaln``).
* ``pgmpy_style_ref``: a line-by-line transcription of pgmpy 1.1.2's ``structure_score`` code applied to the table
  pgmpy would build with ``get_state_counts(..., reindex=False)`` (observed parent configurations and, with
  parents, observed child states only). It checks ``observed_only=True`` without calling pgmpy.
"""

from __future__ import annotations

from math import lgamma, log

import numpy as np
from scipy.special import gammaln


def loglik_ref(counts):
    c = np.asarray(counts, dtype=np.float64)
    nj = c.sum(axis=0, keepdims=True)
    pos = c > 0
    return float(np.sum(c[pos] * np.log(c[pos] / np.broadcast_to(nj, c.shape)[pos])))


def bic_ref(counts, n_total, q_total=None):
    c = np.asarray(counts, dtype=np.float64)
    q = c.shape[1] if q_total is None else q_total
    return loglik_ref(c) - 0.5 * np.log(n_total) * q * (c.shape[0] - 1)


def aic_ref(counts, q_total=None):
    c = np.asarray(counts, dtype=np.float64)
    q = c.shape[1] if q_total is None else q_total
    return loglik_ref(c) - q * (c.shape[0] - 1)


def k2_ref(counts):
    """Textbook K2 over every column of the full table."""
    c = np.asarray(counts, dtype=np.float64)
    r = c.shape[0]
    nj = c.sum(axis=0)
    return float(np.sum(gammaln(r) - gammaln(nj + r)) + np.sum(gammaln(c + 1.0)))


def bdeu_ref(counts, ess):
    """Textbook BDeu over every cell of the full table."""
    c = np.asarray(counts, dtype=np.float64)
    r, q = c.shape
    alpha, beta = ess / q, ess / (r * q)
    nj = c.sum(axis=0)
    return float(np.sum(gammaln(alpha) - gammaln(nj + alpha)) + np.sum(gammaln(c + beta) - gammaln(beta)))


def pgmpy_table(counts, has_parents: bool):
    """The table pgmpy's get_state_counts(reindex=False) yields: with parents, drop all-zero rows and columns."""
    c = np.asarray(counts, dtype=np.float64)
    if not has_parents:
        return c
    return c[c.sum(axis=1) > 0][:, c.sum(axis=0) > 0]


def pgmpy_style_ref(kind, counts, *, has_parents, n_total=None, ess=10.0):
    """pgmpy 1.1.2's _local_score bodies (LogLikelihood/BIC/AIC/K2/BDeu), transcribed, on a full (r, q) table."""
    full = np.asarray(counts, dtype=np.float64)
    var_cardinality = full.shape[0]
    num_parents_states = full.shape[1]
    counts = pgmpy_table(full, has_parents)
    if counts.size == 0:  # pandas gives an empty (0, 0) frame when no row has the whole family observed
        counts = np.zeros((0, 0))
    if kind in ("ll", "bic", "aic"):
        log_likelihoods = np.zeros_like(counts, dtype=float)
        np.log(counts, out=log_likelihoods, where=counts > 0)
        log_conditionals = np.sum(counts, axis=0, dtype=float)
        np.log(log_conditionals, out=log_conditionals, where=log_conditionals > 0)
        log_likelihoods -= log_conditionals
        log_likelihoods *= counts
        ll = np.sum(log_likelihoods)
        if kind == "ll":
            return float(ll)
        if kind == "bic":
            return float(ll - 0.5 * log(n_total) * num_parents_states * (var_cardinality - 1))
        return float(ll - num_parents_states * (var_cardinality - 1))
    if kind == "k2":
        log_gamma_counts = gammaln(counts + 1)
        log_gamma_conds = gammaln(np.sum(counts, axis=0, dtype=float) + var_cardinality)
        return float(np.sum(log_gamma_counts) - np.sum(log_gamma_conds)
                     + num_parents_states * lgamma(var_cardinality))
    if kind == "bdeu":
        counts_size = num_parents_states * var_cardinality
        alpha = ess / num_parents_states
        beta = ess / counts_size
        log_gamma_counts = gammaln(counts + beta)
        log_gamma_conds = gammaln(np.sum(counts, axis=0, dtype=float) + alpha)
        n_cols = counts.shape[1]
        gamma_counts_adj = (num_parents_states - n_cols) * var_cardinality * gammaln(beta)
        gamma_conds_adj = (num_parents_states - n_cols) * gammaln(alpha)
        return float((np.sum(log_gamma_counts) + gamma_counts_adj) - (np.sum(log_gamma_conds) + gamma_conds_adj)
                     + num_parents_states * lgamma(alpha) - counts_size * lgamma(beta))
    raise ValueError(kind)


def joint_table_ref(codes, columns, cards, weights=None):
    """Weighted joint counts over ``columns``; rows with a -1 in those columns are skipped."""
    codes = np.asarray(codes)
    out = np.zeros([int(c) for c in cards], dtype=np.float64)
    w = np.ones(codes.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    for r in range(codes.shape[0]):
        vals = tuple(int(codes[r, c]) for c in columns)
        if min(vals, default=0) < 0:
            continue
        out[vals] += w[r]
    return out


def cmi_table_ref(t):
    """I(A; B | C) in nats from a (ca, cb, cc) table, plug-in, clipped at 0."""
    t = np.asarray(t, dtype=np.float64)
    n = t.sum()
    if n <= 0:
        return 0.0
    n_ac = t.sum(axis=1, keepdims=True)
    n_bc = t.sum(axis=0, keepdims=True)
    n_c = t.sum(axis=(0, 1), keepdims=True)
    pos = t > 0
    num = (t * n_c)[pos]
    den = (n_ac * n_bc)[pos]
    return max(0.0, float(np.sum(t[pos] * np.log(num / den)) / n))


def cmi_matrix_ref(codes, features, cards, cond=None, cond_card=1, weights=None):
    """(m, m) matrix of I(X_i; X_j | C) computed pair by pair from the raw codes."""
    m = len(features)
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            if cond is None:
                t = joint_table_ref(codes, [features[i], features[j]], [cards[i], cards[j]], weights)[:, :, None]
            else:
                t = joint_table_ref(codes, [features[i], features[j], cond], [cards[i], cards[j], cond_card],
                                    weights)
            out[i, j] = out[j, i] = cmi_table_ref(t)
    return out


def mi_matrix_ref(codes, features, cards, cond=None, cond_card=1, weights=None):
    """(m, m) matrix of I(X_i; X_j) on the rows where ``cond`` (if any) is observed."""
    m = len(features)
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            cols, cds = [features[i], features[j]], [cards[i], cards[j]]
            if cond is not None:
                cols, cds = [*cols, cond], [*cds, cond_card]
            t = joint_table_ref(codes, cols, cds, weights)
            t2 = t.sum(axis=2) if cond is not None else t
            out[i, j] = out[j, i] = cmi_table_ref(t2[:, :, None])
    return out
