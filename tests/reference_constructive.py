"""numpy references for the constructive-induction kernels (``cython_core/_constructive.pyx``)."""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, logsumexp


def log_ml_reference(member_codes: np.ndarray, full_card: float, labels: np.ndarray, mult: np.ndarray, K: int) -> float:
    """K2 family term of one node whose value is the tuple of ``member_codes`` (n, k), computed from scratch with
    ``np.unique`` over the tuples (natural log)."""
    _, v = np.unique(member_codes, axis=0, return_inverse=True)
    v = v.reshape(-1)
    u = int(v.max()) + 1 if v.size else 1
    counts = np.zeros((K, u))
    np.add.at(counts, (labels, v), mult)
    n_c = counts.sum(axis=1)
    total = gammaln(counts + 1).sum()
    total += sum(gammaln(full_card) - gammaln(n + full_card) for n in n_c if n > 0)
    return float(total)


def completed_score_reference(codes, cards, blocks, labels, mult, K) -> float:
    """Class family plus every block's family, from the raw attribute codes."""
    n_c = np.bincount(labels, weights=mult, minlength=K)
    total = gammaln(K) - gammaln(n_c.sum() + K) + gammaln(n_c + 1).sum()
    for b in blocks:
        total += log_ml_reference(codes[:, list(b)], float(np.prod([cards[i] for i in b])), labels, mult, K)
    return float(total)


def estep_reference(nodes, u, log_theta, log_prior, mult):
    """(labels, max_post, loglik, counts, class_counts) of the supernode E-step."""
    K = len(log_prior)
    off = np.concatenate([[0], np.cumsum(K * np.asarray(u))])
    L = np.tile(log_prior, (nodes.shape[0], 1))
    for j, uj in enumerate(u):
        L += log_theta[off[j]:off[j + 1]].reshape(K, uj)[:, nodes[:, j]].T
    lse = logsumexp(L, axis=1)
    post = np.exp(L - lse[:, None])
    counts = np.zeros(off[-1])
    for j, uj in enumerate(u):
        block = np.zeros((K, uj))
        for c in range(K):
            np.add.at(block[c], nodes[:, j], mult * post[:, c])
        counts[off[j]:off[j + 1]] = block.reshape(-1)
    return np.argmax(L, axis=1), post.max(axis=1), float((mult * lse).sum()), counts, (mult[:, None] * post).sum(0)
