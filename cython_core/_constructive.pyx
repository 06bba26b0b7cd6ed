"""Constructive-induction clustering kernels (seed 003, Pena, Lozano & Larranaga 1999): a naive Bayes whose hidden
root C (K states) is the only parent of R "nodes", each node a supernode (a block of attributes joined into one
variable) coded compactly as 0 .. u_j - 1 (its observed value combinations).

Spec: ``docs/decisions/seed002-003-abn-pena.md`` part B (B.2 score, B.4 EM, B.10 kernels). Natural logs throughout;
the wrappers convert to log10 at the API boundary. No randomness happens here.

Supernode layout (built by ``pgmpy_ext.stats.SupernodeLayout``)
----------------------------------------------------------------
* ``nodes`` : int32 ``(n, R)``. ``nodes[i, j]`` is the compact value (0 .. u_j - 1) of node j in distinct row i.
* ``mult`` : float64 ``(n,)``. Multiplicity (weight) of every distinct row.
* ``offsets`` : intp ``(R + 1,)``. Node j's table is ``flat[offsets[j]:offsets[j+1]]``, C-order over
  ``(c, v)`` with ``L`` class rows (``offsets[j+1] - offsets[j] = L * u_j``); ``L = K`` for parameters and
  expected counts, ``L = K + 1`` for the Bound-and-Collapse counts (row K = the unfixed cases).
* ``log_theta`` : float64 ``(T,)`` in that layout with ``L = K``: ``log theta_j(v | c)``; ``log_prior`` (K,).
"""
import numpy as np

from libc.math cimport exp, log, log1p, lgamma

from _mathutils cimport logsumexp_row
from _typedefs cimport code_t, float64_t, intp_t

# lgamma(n + r) - lgamma(r) loses precision for huge r (full product cardinalities); above this the rising
# factorial is summed term by term instead.
cdef double _BIG_R = 1073741824.0  # 2**30


cdef inline double log_rising(double r, double n) noexcept nogil:
    """log Gamma(n + r) - log Gamma(r) (= log of the rising factorial r (r+1) ... (r+n-1) for integer n)."""
    cdef double acc = 0.0
    cdef double t = 0.0
    if n <= 0.0:
        return 0.0
    if r < _BIG_R:
        return lgamma(n + r) - lgamma(r)
    acc = 0.0
    while t + 1.0 <= n:
        acc += log(r) + log1p(t / r)
        t += 1.0
    if n - t > 0.0:  # a fractional tail (only with non-integer multiplicities)
        acc += lgamma(n + r) - lgamma(t + r)
    return acc


def _check_layout(const code_t[:, ::1] nodes, const intp_t[::1] offsets, intp_t L, intp_t T):
    cdef intp_t R = nodes.shape[1]
    cdef intp_t j
    if offsets.shape[0] != R + 1:
        raise ValueError(f"offsets has length {offsets.shape[0]}, expected R + 1 = {R + 1} (R = nodes.shape[1]).")
    if offsets[0] != 0 or offsets[R] != T:
        raise ValueError(f"offsets must start at 0 and end at the table length {T}; got {offsets[R]}.")
    for j in range(R):
        if offsets[j + 1] - offsets[j] < L or (offsets[j + 1] - offsets[j]) % L != 0:
            raise ValueError(f"node {j}: block size {offsets[j + 1] - offsets[j]} is not a positive multiple of "
                             f"the {L} class rows.")


def supernode_counts(const code_t[:, ::1] nodes, const intp_t[::1] offsets, const code_t[::1] labels,
                     const float64_t[::1] mult, intp_t L, float64_t[::1] out):
    """Class-by-value counts of every node from hard labels.

    Parameters
    ----------
    nodes : int32 (n, R)               IN  compact node values (0 .. u_j - 1; no missing values).
    offsets : intp (R + 1,)            IN  block offsets, ``L`` class rows per block (module docstring).
    labels : int32 (n,)                IN  class of every row, 0 .. L - 1, or -1 to skip the row.
    mult : float64 (n,)                IN  row multiplicities.
    L : int                            IN  class rows per block.
    out : float64 (offsets[R],)        OUT ``out[offsets[j] + c * u_j + v] += mult[i]``; zeroed by the caller.
    """
    cdef intp_t n = nodes.shape[0]
    cdef intp_t R = nodes.shape[1]
    cdef intp_t i, j, c, u
    cdef double w
    if labels.shape[0] != n or mult.shape[0] != n:
        raise ValueError(f"labels and mult must have n = {n} entries, got {labels.shape[0]} and {mult.shape[0]}.")
    _check_layout(nodes, offsets, L, out.shape[0])
    with nogil:
        for i in range(n):
            c = labels[i]
            if c < 0 or c >= L:
                continue
            w = mult[i]
            for j in range(R):
                u = (offsets[j + 1] - offsets[j]) // L
                out[offsets[j] + c * u + nodes[i, j]] += w


def supernode_estep(const code_t[:, ::1] nodes, const intp_t[::1] offsets, const float64_t[::1] log_theta,
                    const float64_t[::1] log_prior, const float64_t[::1] mult, code_t[::1] labels,
                    float64_t[::1] max_post, float64_t[::1] counts, float64_t[::1] class_counts,
                    bint accumulate):
    """One E-step of the supernode naive Bayes, with the hard completion and the observed log-likelihood.

    For every row ``l_c = log_prior[c] + sum_j log_theta[offsets[j] + c * u_j + nodes[i, j]]``; the posterior is
    ``exp(l_c - logsumexp(l))`` (max subtracted).

    Parameters
    ----------
    nodes : int32 (n, R)               IN  compact node values.
    offsets : intp (R + 1,)            IN  block offsets with K = len(log_prior) class rows.
    log_theta : float64 (T,)           IN  natural-log CPT entries (finite; the caller floors zeros).
    log_prior : float64 (K,)           IN  natural-log class prior (finite).
    mult : float64 (n,)                IN  row multiplicities.
    labels : int32 (n,)                OUT argmax_c of the posterior (smallest c on ties): the hard completion.
    max_post : float64 (n,)            OUT the largest posterior probability of every row.
    counts : float64 (T,)              OUT (if ``accumulate``) expected counts ``+= mult[i] * post[i, c]``;
                                           zeroed by the caller.
    class_counts : float64 (K,)        OUT (if ``accumulate``) expected class counts; zeroed by the caller.
    accumulate : bool                  IN  whether to accumulate the expected counts (the M-step's input).

    Returns
    -------
    float
        The observed-data log-likelihood ``sum_i mult[i] * logsumexp_c l_c``.
    """
    cdef intp_t n = nodes.shape[0]
    cdef intp_t R = nodes.shape[1]
    cdef intp_t K = log_prior.shape[0]
    cdef intp_t i, j, c, u, best
    cdef double lse, p, bestv, w
    cdef double ll = 0.0
    if K < 1:
        raise ValueError("log_prior must have at least one class.")
    if labels.shape[0] != n or mult.shape[0] != n or max_post.shape[0] != n:
        raise ValueError(f"labels, mult and max_post must have n = {n} entries.")
    if counts.shape[0] != log_theta.shape[0] or class_counts.shape[0] != K:
        raise ValueError("counts must have the length of log_theta and class_counts K entries.")
    _check_layout(nodes, offsets, K, log_theta.shape[0])
    cdef double[::1] lrow = np.empty(K, dtype=np.float64)
    with nogil:
        for i in range(n):
            for c in range(K):
                lrow[c] = log_prior[c]
            for j in range(R):
                u = (offsets[j + 1] - offsets[j]) // K
                for c in range(K):
                    lrow[c] += log_theta[offsets[j] + c * u + nodes[i, j]]
            lse = logsumexp_row(&lrow[0], K)
            best = 0
            bestv = lrow[0]
            for c in range(1, K):
                if lrow[c] > bestv:
                    bestv = lrow[c]
                    best = c
            labels[i] = <code_t>best
            max_post[i] = exp(bestv - lse)
            w = mult[i]
            ll += w * lse
            if accumulate:
                for c in range(K):
                    p = w * exp(lrow[c] - lse)
                    class_counts[c] += p
                    for j in range(R):
                        u = (offsets[j + 1] - offsets[j]) // K
                        counts[offsets[j] + c * u + nodes[i, j]] += p
    return ll


def node_family_loglik(const code_t[::1] node, const code_t[::1] labels, const float64_t[::1] mult, intp_t u,
                       intp_t K, double r, float64_t[::1] scratch, float64_t[::1] class_scratch):
    """K2 log marginal likelihood (natural log) of one node family given hard labels (spec B.2).

    ``sum_c [lgamma(r) - lgamma(n_c + r)] + sum_{c, v} lgamma(N_cv + 1)``; only observed cells are visited, so the
    cost is O(n) whatever ``r`` is.

    Parameters
    ----------
    node : int32 (n,)                  IN  compact node values 0 .. u - 1.
    labels : int32 (n,)                IN  class of every row, 0 .. K - 1 (no -1).
    mult : float64 (n,)                IN  row multiplicities (integers for the paper's score).
    u, K : int                         IN  number of compact values and of classes.
    r : float                          IN  the node's FULL cardinality (product of the member cardinalities).
    scratch : float64 (>= K * u,)      IN/OUT all zeros on entry and on exit (cells are cleared as they are read).
    class_scratch : float64 (>= K,)    IN/OUT all zeros on entry and on exit.
    """
    cdef intp_t n = node.shape[0]
    cdef intp_t i, idx, c
    cdef double acc = 0.0
    if labels.shape[0] != n or mult.shape[0] != n:
        raise ValueError(f"labels and mult must have n = {n} entries.")
    if scratch.shape[0] < K * u or class_scratch.shape[0] < K:
        raise ValueError(f"scratch needs K * u = {K * u} and class_scratch K = {K} entries.")
    with nogil:
        for i in range(n):
            scratch[labels[i] * u + node[i]] += mult[i]
            class_scratch[labels[i]] += mult[i]
        for i in range(n):
            idx = labels[i] * u + node[i]
            if scratch[idx] != 0.0:
                acc += lgamma(scratch[idx] + 1.0)
                scratch[idx] = 0.0
        for c in range(K):
            if class_scratch[c] != 0.0:
                acc -= log_rising(r, class_scratch[c])
                class_scratch[c] = 0.0
    return acc


def pair_family_loglik(const code_t[::1] node_a, const code_t[::1] node_b, intp_t u_a, intp_t u_b,
                       const code_t[::1] labels, const float64_t[::1] mult, intp_t K, double r,
                       float64_t[::1] scratch, float64_t[::1] class_scratch):
    """K2 log marginal likelihood of the family of the JOIN of nodes a and b, without building the joined codes.

    The joined value is ``v_a * u_b + v_b`` (a dense index of size ``u_a * u_b``); ``r`` is ``r_a * r_b``. Same
    contract as :func:`node_family_loglik`, with ``scratch`` of at least ``K * u_a * u_b`` zeros.
    """
    cdef intp_t n = node_a.shape[0]
    cdef intp_t i, idx, c
    cdef intp_t ub = u_a * u_b
    cdef double acc = 0.0
    if node_b.shape[0] != n or labels.shape[0] != n or mult.shape[0] != n:
        raise ValueError(f"node_b, labels and mult must have n = {n} entries.")
    if scratch.shape[0] < K * ub or class_scratch.shape[0] < K:
        raise ValueError(f"scratch needs K * u_a * u_b = {K * ub} and class_scratch K = {K} entries.")
    with nogil:
        for i in range(n):
            scratch[labels[i] * ub + node_a[i] * u_b + node_b[i]] += mult[i]
            class_scratch[labels[i]] += mult[i]
        for i in range(n):
            idx = labels[i] * ub + node_a[i] * u_b + node_b[i]
            if scratch[idx] != 0.0:
                acc += lgamma(scratch[idx] + 1.0)
                scratch[idx] = 0.0
        for c in range(K):
            if class_scratch[c] != 0.0:
                acc -= log_rising(r, class_scratch[c])
                class_scratch[c] = 0.0
    return acc
