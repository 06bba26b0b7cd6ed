"""Kernels of the discriminative TM algorithm in count space (seed 001 section 5.4, ``docs/decisions/
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


cdef inline double _log_normalise(const float64_t* src, float64_t* dst, intp_t n, intp_t stride) noexcept nogil:
    """``dst[i * stride] = src[i * stride] - logsumexp(src)`` over ``n`` strided entries (``src`` may be ``dst``);
    returns the log-normaliser, or ``-inf`` after writing a uniform column (``-log n``) when no entry is finite."""
    cdef intp_t i
    cdef double m = -INFINITY
    cdef double acc = 0.0
    for i in range(n):
        if src[i * stride] > m:
            m = src[i * stride]
    if m == -INFINITY:
        acc = -log(<double>n)
        for i in range(n):
            dst[i * stride] = acc
        return -INFINITY
    for i in range(n):
        acc += exp(src[i * stride] - m)
    m += log(acc)
    for i in range(n):
        dst[i * stride] = src[i * stride] - m
    return m


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
    cdef double tot, wc, s0, s1, cll = 0.0
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
    cdef double m, z
    cdef const intp_t* ip
    cdef const float64_t* wp
    cdef float64_t* sp = &s[0]
    cdef float64_t* rp
    with nogil:
        for u in range(n):
            ip = &idx[u, 0]
            wp = &W[u, 0]
            if K == 2:  # the common binary-class case, unrolled
                s0 = 0.0
                s1 = 0.0
                for b in range(F):
                    base = ip[b]
                    s0 += lt[base]
                    s1 += lt[base + 1]
                sp[0] = s0
                sp[1] = s1
            else:  # contiguous class runs: the inner loop vectorises
                base = ip[0]
                for c in range(K):
                    sp[c] = lt[base + c]
                for b in range(1, F):
                    base = ip[b]
                    for c in range(K):
                        sp[c] += lt[base + c]
            tot = 0.0
            for c in range(K):
                tot += wp[c]
            m = -INFINITY
            for c in range(K):
                if sp[c] > m:
                    m = sp[c]
            if m == -INFINITY:
                n_zero += 1
                if tot > 0.0:
                    cll = -INFINITY
                if want_resp:
                    for c in range(K):
                        resp[u, c] = NAN
                continue
            # one exp per class: p_c = exp(s_c - m) / z, log p_c = s_c - m - log z
            z = 0.0
            for c in range(K):
                wc = wp[c]
                if wc != 0.0:
                    cll += wc * (sp[c] - m)
                sp[c] = exp(sp[c] - m)
                z += sp[c]
            cll -= tot * log(z)
            z = 1.0 / z
            for c in range(K):
                sp[c] *= z
            if want_resp:
                rp = &resp[u, 0]
                for c in range(K):
                    rp[c] = sp[c]
            if want_e and tot != 0.0:
                if K == 2:
                    s0 = tot * sp[0]
                    s1 = tot * sp[1]
                    for b in range(F):
                        base = ip[b]
                        ex[base] += s0
                        ex[base + 1] += s1
                else:
                    for c in range(K):
                        sp[c] *= tot
                    for b in range(F):
                        base = ip[b]
                        for c in range(K):
                            ex[base + c] += sp[c]
    return float(cll), int(n_zero)


def tm_log_softmax(const float64_t[::1] log_counts,
                   const intp_t[::1] blk_offsets,
                   const intp_t[::1] blk_r,
                   const intp_t[::1] blk_q,
                   intp_t K,
                   float64_t[::1] log_theta):
    """Log-parameters from log-counts: ``log_theta = log_counts - logsumexp`` over every normalisation slice.

    The log-count form of :func:`tm_log_theta` (``tm_log_softmax(log T) == tm_log_theta(T)`` for legal ``T``),
    used by the quasi-Newton solver, which works on ``s = log T`` and never forms ``T`` (no overflow when the
    counts of a separable data set grow without bound).

    Parameters
    ----------
    log_counts : float64 (S,), IN. ``log T`` in the class-last layout; ``-inf`` for a zero count. ``+inf`` and NaN
        are illegal.
    blk_offsets, blk_r, blk_q, K : as in :func:`tm_log_theta`.
    log_theta : float64 (S,), OUT. ``-inf`` where ``log_counts`` is ``-inf`` in a slice with a finite entry; a
        uniform column (``-log r``) where the whole slice is ``-inf`` (no counts).

    Returns
    -------
    legal : bool. False when an entry is NaN or ``+inf``, or every class entry is ``-inf``.
    """
    cdef intp_t S = log_counts.shape[0]
    cdef intp_t B = blk_r.shape[0]
    if log_theta.shape[0] != S:
        raise ValueError(f"log_theta has length {log_theta.shape[0]}, expected len(log_counts) = {S}.")
    _check_blocks(blk_offsets, blk_r, blk_q, K, S)
    cdef intp_t b, p, c, q, base, j
    cdef double v
    cdef bint legal = True
    cdef const float64_t* src = &log_counts[0]
    cdef float64_t* dst = &log_theta[0]
    with nogil:
        for j in range(S):
            v = src[j]
            if v != v or v == INFINITY:
                legal = False
                break
        if legal:
            if _log_normalise(src, dst, K, 1) == -INFINITY:
                legal = False
            else:
                for b in range(1, B):
                    base = blk_offsets[b]
                    q = blk_q[b]
                    for p in range(q):
                        for c in range(K):  # slice (p, c): blk_r[b] entries, stride q * K
                            _log_normalise(src + base + p * K + c, dst + base + p * K + c, blk_r[b], q * K)
    return bool(legal)


def tm_log_count_gradient(const float64_t[::1] g,
                          const float64_t[::1] log_theta,
                          const intp_t[::1] blk_offsets,
                          const intp_t[::1] blk_r,
                          const intp_t[::1] blk_q,
                          intp_t K,
                          float64_t[::1] out):
    """Gradient of the CLL with respect to the log-counts ``s = log T`` from the TM direction ``g = O - E``.

    With ``theta = softmax(s)`` over every slice, ``dCLL/ds[x, pi, c] = g[x, pi, c] - theta[x, pi, c] *
    sum_x' g[x', pi, c]`` (and over the classes for the class prior): the TM direction ``O - E`` projected onto
    the slice's normalisation (``dCLL/dlog_theta = O - E``; spec 5.4.1 writes the same quantity in count space).

    Parameters
    ----------
    g : float64 (S,), IN. ``O - E`` in the class-last layout.
    log_theta : float64 (S,), IN. Current log-parameters (:func:`tm_log_softmax`).
    blk_offsets, blk_r, blk_q, K : as in :func:`tm_log_theta`.
    out : float64 (S,), OUT. The gradient (may not alias ``g``).
    """
    cdef intp_t S = g.shape[0]
    cdef intp_t B = blk_r.shape[0]
    if log_theta.shape[0] != S or out.shape[0] != S:
        raise ValueError(f"g, log_theta and out must have the same length; got {S}, {log_theta.shape[0]}, "
                         f"{out.shape[0]}.")
    _check_blocks(blk_offsets, blk_r, blk_q, K, S)
    cdef intp_t b, x, p, c, r, q, base, pos
    cdef double acc
    with nogil:
        acc = 0.0
        for c in range(K):
            acc += g[c]
        for c in range(K):
            out[c] = g[c] - exp(log_theta[c]) * acc
        for b in range(1, B):
            base = blk_offsets[b]
            r = blk_r[b]
            q = blk_q[b]
            for p in range(q):
                for c in range(K):
                    pos = base + p * K + c
                    acc = 0.0
                    for x in range(r):
                        acc += g[pos + x * q * K]
                    for x in range(r):
                        out[pos + x * q * K] = g[pos + x * q * K] - exp(log_theta[pos + x * q * K]) * acc


def tm_observed(const intp_t[:, ::1] idx, const float64_t[:, ::1] W, float64_t[::1] out):
    """Observed counts ``O``: **adds** ``W[u, c]`` to ``out[idx[u, b] + c]`` for every unique row, block and class.

    Parameters
    ----------
    idx : intp (n_rows, F), IN. Offsets as in :func:`tm_cll`; checked against ``len(out) - K``.
    W : float64 (n_rows, K), IN. Multiplicities.
    out : float64 (S,), IN/OUT. Accumulated into.
    """
    cdef intp_t n = idx.shape[0]
    cdef intp_t F = idx.shape[1]
    cdef intp_t K = W.shape[1]
    cdef intp_t S = out.shape[0]
    if W.shape[0] != n:
        raise ValueError(f"W has {W.shape[0]} rows, expected n_rows = {n} (the rows of idx).")
    if n == 0 or F == 0:
        return
    cdef intp_t u, b, c, base
    cdef intp_t lo_idx = idx[0, 0], hi_idx = idx[0, 0]
    with nogil:
        for u in range(n):
            for b in range(F):
                base = idx[u, b]
                if base < lo_idx:
                    lo_idx = base
                if base > hi_idx:
                    hi_idx = base
    if lo_idx < 0 or hi_idx > S - K:
        raise ValueError(f"idx has entries in {lo_idx}..{hi_idx}, outside 0..{S - K} (offsets into out).")
    cdef const float64_t* wp
    with nogil:
        for u in range(n):
            wp = &W[u, 0]
            for b in range(F):
                base = idx[u, b]
                for c in range(K):
                    out[base + c] += wp[c]


def tm_normalise_log_linear(const float64_t[::1] beta,
                            const intp_t[::1] blk_offsets,
                            const intp_t[::1] blk_r,
                            const intp_t[::1] blk_q,
                            intp_t K,
                            const intp_t[::1] order,
                            const intp_t[::1] hosts,
                            const intp_t[::1] src_offsets,
                            const intp_t[::1] src,
                            float64_t[::1] out):
    """Normalised log-parameters with the same ``p(c | x)`` as the log-linear weights ``beta`` (the kernel of
    ``pgmpy_ext.parameters._tm._normalise_log_linear``).

    Blocks are processed in ``order`` (each before its host): block ``b`` is normalised over its child in every
    slice ``(pi, c)`` (a slice of ``-inf`` becomes a uniform column and gives ``a = 0``), and its log-normaliser
    ``a[pi, c]`` is added to every cell ``t`` of block ``hosts[k]`` as ``a[src[src_offsets[k] + t]]`` (host 0 = the
    class prior, then ``src`` maps its K cells to ``c``). The class prior is normalised last.

    Parameters
    ----------
    beta : float64 (S,), IN. Log-linear weights (class-last layout); ``-inf`` allowed (structural zeros).
    blk_offsets, blk_r, blk_q, K : block layout as in :func:`tm_log_theta`.
    order, hosts : intp (P,), IN. Child blocks (>= 1) in processing order and their host blocks.
    src_offsets : intp (P + 1,), IN. Segment of ``src`` for each entry; its length is the host block's size.
    src : intp, IN. Index into the ``q_b * K`` normalisers of the entry's block, per host cell.
    out : float64 (S,), OUT.
    """
    cdef intp_t S = beta.shape[0]
    cdef intp_t P = order.shape[0]
    cdef intp_t B = blk_r.shape[0]
    if out.shape[0] != S:
        raise ValueError(f"out has length {out.shape[0]}, expected {S}.")
    _check_blocks(blk_offsets, blk_r, blk_q, K, S)
    if hosts.shape[0] != P or src_offsets.shape[0] != P + 1 or src_offsets[P] != src.shape[0]:
        raise ValueError("order, hosts, src_offsets and src are inconsistent.")
    cdef intp_t k, b, h, hsize, t, p, c, q, base, qmax = 1
    for k in range(P):
        b = order[k]
        h = hosts[k]
        if not (1 <= b < B) or not (0 <= h < B) or h == b:
            raise ValueError(f"entry {k}: block {b} with host {h} is out of range.")
        hsize = blk_offsets[h + 1] - blk_offsets[h]
        if src_offsets[k + 1] - src_offsets[k] != hsize:
            raise ValueError(f"entry {k}: {src_offsets[k + 1] - src_offsets[k]} src indices, expected {hsize}.")
        for t in range(src_offsets[k], src_offsets[k + 1]):
            if not (0 <= src[t] < blk_q[b] * K):
                raise ValueError(f"src[{t}] = {src[t]} is outside 0..{blk_q[b] * K - 1}.")
        if blk_q[b] > qmax:
            qmax = blk_q[b]
    a_np = np.empty(qmax * K, dtype=np.float64)
    cdef float64_t[::1] a = a_np
    cdef double lse
    cdef float64_t* o = &out[0]
    with nogil:
        for t in range(S):
            o[t] = beta[t]
        for k in range(P):
            b = order[k]
            base = blk_offsets[b]
            q = blk_q[b]
            for p in range(q):
                for c in range(K):  # nothing finite: a uniform column, nothing passed up
                    lse = _log_normalise(o + base + p * K + c, o + base + p * K + c, blk_r[b], q * K)
                    a[p * K + c] = 0.0 if lse == -INFINITY else lse
            base = blk_offsets[hosts[k]]
            for t in range(blk_offsets[hosts[k] + 1] - base):
                o[base + t] += a[src[src_offsets[k] + t]]
        _log_normalise(o, o, K, 1)
