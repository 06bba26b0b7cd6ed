"""Kernels of the discriminative TM algorithm in count space (seed 001 section 5.4, ``../shared/specs/
seed001-tm-classifiers.md``): log-parameters from class-dependent count tables, and the conditional
log-likelihood with the posterior-weighted expected counts, on unique feature rows with per-class multiplicities.

Class-last count layout (built by ``pgmpy_ext.stats.TMData``)
-------------------------------------------------------------
The state of the TM is a flat float64 buffer ``counts`` of length ``S`` holding one table per *family block*:

* block 0 is the class prior ``T_0``: ``K`` entries, ``counts[0:K]``;
* block ``b >= 1`` is the class-dependent table of one child of the class: C-order over
  ``(x_child, pi, c)`` with shape ``(blk_r[b], blk_q[b], K)``, where ``pi`` is the mixed-radix index of the
  child's *other* parents (``blk_q[b]`` configurations, 1 when the class is the only parent) and ``c`` the class,
  which is always the last (fastest) axis. It occupies ``counts[blk_offsets[b]:blk_offsets[b + 1]]``.

``log_theta`` has the same layout. For block 0, ``log_theta[c] = log T_0[c] - log sum_c T_0[c]``; for a block
``b >= 1``, ``log_theta[(x, pi, c)] = log T[x, pi, c] - log M[pi, c]`` with ``M[pi, c] = sum_x T[x, pi, c]``
(``-inf`` when ``T[x, pi, c] = 0 < M[pi, c]``), and ``-log r`` (a uniform column) when ``M[pi, c] = 0``: a parent
configuration without counts gets pgmpy's maximum-likelihood convention, so the kernels compute exactly the model
that is exported as ``TabularCPD`` objects (the TM keeps such slices fixed; see ``pgmpy_ext.parameters.fit_tm``).

Rows
----
``idx`` : intp ``(n_rows, F)``, one column per block (``F`` = number of blocks). ``idx[u, b]`` is the offset of
the ``K`` contiguous entries that unique row ``u`` reads in block ``b``: ``blk_offsets[b] + (x * blk_q[b] + pi)
* K`` (``idx[u, 0] = 0``). The log joint of row ``u`` and class ``c`` is ``sum_b log_theta[idx[u, b] + c]``.
``W`` : float64 ``(n_rows, K)``, the (weighted) multiplicity of unique feature row ``u`` with class ``c``.
"""
import numpy as np

from libc.math cimport exp, log, INFINITY, NAN

from _mathutils cimport logsumexp_row
from _typedefs cimport float64_t, intp_t


def _check_blocks(const intp_t[::1] blk_offsets, const intp_t[::1] blk_r, const intp_t[::1] blk_q, intp_t K,
                  intp_t size):
    cdef intp_t B = blk_r.shape[0]
    cdef intp_t b
    if K < 1:
        raise ValueError(f"K (number of classes) == {K}, must be >= 1.")
    if B < 1 or blk_offsets.shape[0] != B + 1 or blk_q.shape[0] != B:
        raise ValueError(f"blk_offsets must have length len(blk_r) + 1 and blk_q length len(blk_r) >= 1; got "
                         f"{blk_offsets.shape[0]}, {B}, {blk_q.shape[0]}.")
    if blk_offsets[0] != 0 or blk_offsets[1] != K or blk_r[0] != 1 or blk_q[0] != 1:
        raise ValueError("block 0 must be the class prior: offsets [0, K), blk_r[0] == blk_q[0] == 1.")
    if blk_offsets[B] != size:
        raise ValueError(f"blk_offsets[-1] == {blk_offsets[B]}, expected the buffer length {size}.")
    for b in range(1, B):
        if blk_r[b] < 1 or blk_q[b] < 1:
            raise ValueError(f"block {b}: blk_r and blk_q must be >= 1, got {blk_r[b]} and {blk_q[b]}.")
        if blk_offsets[b + 1] - blk_offsets[b] != blk_r[b] * blk_q[b] * K:
            raise ValueError(f"block {b}: length {blk_offsets[b + 1] - blk_offsets[b]} != blk_r * blk_q * K = "
                             f"{blk_r[b] * blk_q[b] * K}.")


def tm_log_theta(const float64_t[::1] counts,
                 const intp_t[::1] blk_offsets,
                 const intp_t[::1] blk_r,
                 const intp_t[::1] blk_q,
                 intp_t K,
                 float64_t[::1] log_theta):
    """Log-parameters of every block from the class-dependent counts; reports whether the counts are legal.

    Parameters
    ----------
    counts : float64 (S,), IN. Count tables in the class-last layout (module docstring).
    blk_offsets : intp (B + 1,), IN. Block boundaries; block 0 is the class prior ``[0, K)``.
    blk_r : intp (B,), IN. Child cardinality per block (1 for block 0).
    blk_q : intp (B,), IN. Number of non-class parent configurations per block (1 for block 0).
    K : intp, IN. Number of classes.
    log_theta : float64 (S,), OUT. Overwritten with the log-parameters (``-inf`` for theta = 0, ``-log r`` in a
        slice without counts).

    Returns
    -------
    legal : bool. False when some count is negative or NaN, or the class counts sum to 0 (then ``log_theta`` is
    unspecified).
    """
    cdef intp_t S = counts.shape[0]
    cdef intp_t B = blk_r.shape[0]
    if log_theta.shape[0] != S:
        raise ValueError(f"log_theta has length {log_theta.shape[0]}, expected len(counts) = {S}.")
    _check_blocks(blk_offsets, blk_r, blk_q, K, S)
    cdef intp_t b, x, p, c, r, q, base, j
    cdef double m, t, total
    cdef bint legal = True
    with nogil:
        for j in range(S):
            if not counts[j] >= 0.0:  # also catches NaN
                legal = False
                break
        if legal:
            total = 0.0
            for c in range(K):
                total += counts[c]
            if total <= 0.0:
                legal = False
            else:
                for c in range(K):
                    log_theta[c] = log(counts[c]) - log(total) if counts[c] > 0.0 else -INFINITY
                for b in range(1, B):
                    base = blk_offsets[b]
                    r = blk_r[b]
                    q = blk_q[b]
                    for p in range(q):
                        for c in range(K):
                            m = 0.0
                            for x in range(r):
                                m += counts[base + (x * q + p) * K + c]
                            if m > 0.0:
                                m = log(m)
                                for x in range(r):
                                    t = counts[base + (x * q + p) * K + c]
                                    log_theta[base + (x * q + p) * K + c] = log(t) - m if t > 0.0 else -INFINITY
                            else:  # no counts in this parent configuration: uniform column
                                m = -log(<double>r)
                                for x in range(r):
                                    log_theta[base + (x * q + p) * K + c] = m
    return bool(legal)


def tm_cll(const intp_t[:, ::1] idx,
           const float64_t[:, ::1] W,
           const float64_t[::1] log_theta,
           float64_t[::1] expected,
           float64_t[:, ::1] resp):
    """Conditional log-likelihood of the unique rows and, optionally, the expected counts of the T-step.

    Parameters
    ----------
    idx : intp (n_rows, F), IN. Per unique row and block, the offset of its ``K`` class entries (module
        docstring); every entry must satisfy ``0 <= idx[u, b] <= S - K`` (checked in one pass before the loop).
    W : float64 (n_rows, K), IN. Multiplicity of unique row ``u`` with class ``c`` (>= 0).
    log_theta : float64 (S,), IN. Log-parameters (:func:`tm_log_theta`).
    expected : float64 (S,) or (0,), IN/OUT. When non-empty, **added into**:
        ``expected[idx[u, b] + c] += n_u * p(c | x_u)`` for every block ``b``, with ``n_u = sum_c W[u, c]``.
    resp : float64 (n_rows, K) or (0, *), OUT. Posteriors ``p(c | x_u)`` when it has ``n_rows`` rows (NaN for a
        row with ``p(x_u) = 0``); not written when it has 0 rows.

    Returns
    -------
    (cll, n_zero) : (float, int). ``cll = sum_u sum_c W[u, c] log p(c | x_u)`` (``-inf`` when a row with positive
    multiplicity has probability 0 for its class); ``n_zero`` = unique rows with ``p(x_u) = 0`` (they add nothing
    to ``expected``).
    """
    cdef intp_t n = idx.shape[0]
    cdef intp_t F = idx.shape[1]
    cdef intp_t K = W.shape[1]
    cdef intp_t S = log_theta.shape[0]
    cdef bint want_e = expected.shape[0] > 0
    cdef bint want_resp = resp.shape[0] > 0
    if W.shape[0] != n:
        raise ValueError(f"W has {W.shape[0]} rows, expected n_rows = {n} (the rows of idx).")
    if F < 1:
        raise ValueError("idx needs at least one column (block 0, the class prior).")
    if K < 1 or S < K:
        raise ValueError(f"K == {K} classes and len(log_theta) == {S}: need K >= 1 and len(log_theta) >= K.")
    if want_e and expected.shape[0] != S:
        raise ValueError(f"expected has length {expected.shape[0]}, expected len(log_theta) = {S} (or 0 to skip).")
    if want_resp and (resp.shape[0] != n or resp.shape[1] != K):
        raise ValueError(f"resp has shape ({resp.shape[0]}, {resp.shape[1]}), expected ({n}, {K}) (or 0 rows).")
    s_np = np.empty(K, dtype=np.float64)
    cdef float64_t[::1] s = s_np
    cdef intp_t u, b, c, base, n_zero = 0, lo_idx = 0, hi_idx = 0
    cdef double lse, tot, wc, s0, s1, cll = 0.0
    cdef intp_t hi = S - K
    cdef const float64_t* lt = &log_theta[0]
    cdef float64_t* ex = &expected[0] if want_e else NULL
    with nogil:
        # validate every offset once (a branch-free min/max pass), so that the main loop only indexes
        if n > 0:
            lo_idx = idx[0, 0]
            hi_idx = idx[0, 0]
        for u in range(n):
            for b in range(F):
                base = idx[u, b]
                if base < lo_idx:
                    lo_idx = base
                if base > hi_idx:
                    hi_idx = base
    if lo_idx < 0 or hi_idx > hi:
        raise ValueError(f"idx has entries in {lo_idx}..{hi_idx}, outside 0..{hi} (offsets into log_theta).")
    with nogil:
        for u in range(n):
            if K == 2:  # the common binary-class case, unrolled
                s0 = 0.0
                s1 = 0.0
                for b in range(F):
                    base = idx[u, b]
                    s0 += lt[base]
                    s1 += lt[base + 1]
                s[0] = s0
                s[1] = s1
            else:
                for c in range(K):
                    s[c] = 0.0
                for b in range(F):
                    base = idx[u, b]
                    for c in range(K):
                        s[c] += lt[base + c]
            lse = logsumexp_row(&s[0], K)
            tot = 0.0
            for c in range(K):
                tot += W[u, c]
            if lse == -INFINITY:
                n_zero += 1
                if tot > 0.0:
                    cll = -INFINITY
                if want_resp:
                    for c in range(K):
                        resp[u, c] = NAN
                continue
            for c in range(K):
                wc = W[u, c]
                if wc != 0.0:
                    cll += wc * (s[c] - lse)
                s[c] = exp(s[c] - lse)
            if want_resp:
                for c in range(K):
                    resp[u, c] = s[c]
            if want_e and tot != 0.0:
                if K == 2:
                    s0 = tot * s[0]
                    s1 = tot * s[1]
                    for b in range(F):
                        base = idx[u, b]
                        ex[base] += s0
                        ex[base + 1] += s1
                else:
                    for c in range(K):
                        s[c] *= tot
                    for b in range(F):
                        base = idx[u, b]
                        for c in range(K):
                            ex[base + c] += s[c]
    return float(cll), int(n_zero)
