"""Classification-EM kernels: the E-step of a *multinet* (one tree/forest per cluster), the S-step (sampling from
passed-in uniforms), the C-step (argmax, smallest index on ties), re-seeding of empty clusters, and the M-step's
gathering of per-cluster family counts out of the pairwise tables N[i, j, x_i, x_j, c] and their normalisation.

Seed 000 section 4 (``docs/decisions/seed000-sbn-cem-nbm.md``). No randomness happens here: the S-step takes one
uniform per row, drawn by the caller from the fit's Generator.

Multinet layout (built by ``pgmpy_ext.stats.MultinetLayout``)
--------------------------------------------------------------
``m`` attributes X_0..X_{m-1} and ``K`` clusters. Every attribute has at most one attribute parent *per cluster*
(CL multinet: a tree per cluster; TAN/SBN: the same forest in every cluster), and the cluster variable C is an
implicit parent of every attribute.

* ``cols`` : intp ``(m,)``. Column of the code matrix ``X`` holding attribute ``i``.
* ``cards`` : intp ``(m,)``. Cardinality ``r_i`` of attribute ``i``.
* ``parents`` : intp ``(K, m)``. ``parents[k, i]`` is the attribute index of X_i's parent in cluster ``k``, or
  ``-1`` for a root (then X_i has only C as a parent).
* ``blk_offsets`` : intp ``(K * m + 1,)``. Block ``b = k * m + i`` is ``log_cpt[blk_offsets[b]:blk_offsets[b+1]]``,
  the table of ``P_k(X_i | X_parent)``, C-order over ``(x_i, x_parent)`` (``r_i * r_parent`` entries; ``r_i`` for
  a root). So ``block.reshape(r_i, -1)`` has the child states in rows and the parent states in columns, the layout
  of ``TabularCPD.get_values()`` for that cluster.
* ``log_cpt`` : float64 ``(T,)``, ``T = blk_offsets[K * m]``: natural logs (``-inf`` for zeros). Count buffers
  have the same layout.
* ``log_prior`` : float64 ``(K,)``: ``log alpha_k`` (``-inf`` for a dropped cluster).

Pairwise tables (from ``pgmpy_ext.stats.pairwise_counts`` with the cluster labels as the conditioning variable)
--------------------------------------------------------------------------------------------------------------
``pair_flat[pair_offsets[p]:pair_offsets[p+1]]`` is the table of pair ``p = (i, j)``, ``i < j`` in lexicographic
order, C-order over ``(x_i, x_j, c)``; ``p = i*m - i*(i+1)/2 + (j - i - 1)``.
"""
import numpy as np

from cython.parallel cimport prange

include "_scratch.pxi"
from libc.math cimport exp, log, INFINITY

from _mathutils cimport logsumexp_row
from _typedefs cimport code_t, float64_t, intp_t


def _check_multinet(const intp_t[::1] cols, const intp_t[::1] cards, const intp_t[:, ::1] parents,
                    const intp_t[::1] blk_offsets, intp_t T, intp_t n_cols):
    """Validate a multinet layout against itself, ``len(log_cpt) == T`` and ``n_cols`` columns of X."""
    cdef intp_t m = cards.shape[0]
    cdef intp_t K = parents.shape[0]
    cdef intp_t k, i, p, size
    if cols.shape[0] != m:
        raise ValueError(f"cols has length {cols.shape[0]}, expected m = {m} (one per attribute).")
    if parents.shape[1] != m:
        raise ValueError(f"parents has {parents.shape[1]} columns, expected m = {m}.")
    if K < 1:
        raise ValueError("parents must have at least one row (one per cluster).")
    if blk_offsets.shape[0] != K * m + 1:
        raise ValueError(f"blk_offsets has length {blk_offsets.shape[0]}, expected K * m + 1 = {K * m + 1}.")
    if blk_offsets[0] != 0 or blk_offsets[K * m] != T:
        raise ValueError(f"blk_offsets must start at 0 and end at len(log_cpt) = {T}; got {blk_offsets[K * m]}.")
    for i in range(m):
        if cards[i] < 1:
            raise ValueError(f"attribute {i}: cardinality {cards[i]} must be >= 1.")
        if n_cols >= 0 and (cols[i] < 0 or cols[i] >= n_cols):
            raise ValueError(f"attribute {i}: column {cols[i]} out of range for X with {n_cols} columns.")
    for k in range(K):
        for i in range(m):
            p = parents[k, i]
            if p < -1 or p >= m or p == i:
                raise ValueError(f"parents[{k}, {i}] == {p}, must be -1 or another attribute index in 0..{m - 1}.")
            size = cards[i] * (cards[p] if p >= 0 else 1)
            if blk_offsets[k * m + i + 1] - blk_offsets[k * m + i] != size:
                raise ValueError(f"block ({k}, {i}) has length {blk_offsets[k * m + i + 1] - blk_offsets[k * m + i]}"
                                 f", expected r_i * r_parent = {size}.")


def _row_blocks(intp_t n, intp_t n_threads):
    n_blocks = max(1, min(n_threads, n))
    return np.linspace(0, n, n_blocks + 1).round().astype(np.intp)


def multinet_log_joint(const code_t[:, ::1] X,
                       const intp_t[::1] cols,
                       const intp_t[::1] cards,
                       const intp_t[:, ::1] parents,
                       const intp_t[::1] blk_offsets,
                       const float64_t[::1] log_cpt,
                       const float64_t[::1] log_prior,
                       float64_t[:, ::1] out,
                       int n_threads=1):
    """E-step: ``out[r, k] = log alpha_k + sum_i log P_k(x_ri | x_r,parent_k(i))`` for every row and cluster.

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes; complete data (every code in ``0..r_i-1``; checked in the loop).
    cols, cards, parents, blk_offsets : intp, IN. Multinet layout (module docstring).
    log_cpt : float64 (T,), IN. Log-CPT blocks.
    log_prior : float64 (K,), IN. ``log alpha_k``.
    out : float64 (n_rows, K), OUT. Overwritten.
    n_threads : int, IN. OpenMP threads over row blocks (disjoint outputs: bit-identical for every value).

    Returns
    -------
    bad : (row, attribute) of the first out-of-range or missing code, or None.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t m = cards.shape[0]
    cdef intp_t K = parents.shape[0]
    _check_multinet(cols, cards, parents, blk_offsets, log_cpt.shape[0], X.shape[1])
    if log_prior.shape[0] != K:
        raise ValueError(f"log_prior has length {log_prior.shape[0]}, expected K = {K}.")
    if out.shape[0] != n or out.shape[1] != K:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected ({n}, {K}).")
    bounds_np = _row_blocks(n, n_threads)
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t n_blocks = bounds.shape[0] - 1
    xv_np = _thread_rows(n_blocks, m, np.intp)
    cdef intp_t[:, ::1] xv = xv_np
    err_np = _thread_rows(n_blocks, 2, np.intp, -1)  # row, attribute
    cdef intp_t[:, ::1] err = err_np
    cdef intp_t b
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            _log_joint_rows(X, cols, cards, parents, blk_offsets, log_cpt, log_prior, out, xv[b], err[b],
                            bounds[b], bounds[b + 1])
    for b in range(n_blocks):
        if err[b, 0] >= 0:
            return int(err[b, 0]), int(err[b, 1])
    return None


cdef void _log_joint_rows(const code_t[:, ::1] X, const intp_t[::1] cols, const intp_t[::1] cards,
                          const intp_t[:, ::1] parents, const intp_t[::1] blk_offsets,
                          const float64_t[::1] log_cpt, const float64_t[::1] log_prior, float64_t[:, ::1] out,
                          intp_t[::1] xv, intp_t[::1] err, intp_t lo, intp_t hi) noexcept nogil:
    cdef intp_t m = cards.shape[0]
    cdef intp_t K = parents.shape[0]
    cdef intp_t r, i, k, p, x
    cdef double s
    for r in range(lo, hi):
        for i in range(m):
            x = X[r, cols[i]]
            if x < 0 or x >= cards[i]:
                err[0] = r
                err[1] = i
                return
            xv[i] = x
        for k in range(K):
            s = log_prior[k]
            for i in range(m):
                p = parents[k, i]
                if p < 0:
                    s += log_cpt[blk_offsets[k * m + i] + xv[i]]
                else:
                    s += log_cpt[blk_offsets[k * m + i] + xv[i] * cards[p] + xv[p]]
            out[r, k] = s


def family_counts_from_pairs(const float64_t[::1] pair_flat,
                             const intp_t[::1] pair_offsets,
                             const intp_t[::1] cards,
                             intp_t K,
                             const intp_t[:, ::1] parents,
                             const intp_t[::1] blk_offsets,
                             float64_t[::1] counts):
    """M-step counting: every per-cluster family table N_k[x_i, x_parent] (or N_k[x_i] for a root) read out of the
    pairwise tables conditioned on the cluster labels, so the data are passed over once per M-step.

    Parameters
    ----------
    pair_flat : float64 (pair_offsets[-1],), IN. Pairwise counts N[i, j, x_i, x_j, c] (module docstring).
    pair_offsets : intp (m*(m-1)/2 + 1,), IN.
    cards : intp (m,), IN. Attribute cardinalities.
    K : intp, IN. Number of clusters (the conditioning cardinality of the pairwise tables).
    parents, blk_offsets : intp, IN. Multinet layout.
    counts : float64 (T,), OUT. Overwritten, multinet layout. A root's table is the marginal of its pair with
        attribute 0 (attribute 1 for attribute 0). Needs m >= 2 (with one attribute there are no pairs).
    """
    cdef intp_t m = cards.shape[0]
    cdef intp_t n_pairs = m * (m - 1) // 2
    cdef intp_t k, i, j, p, a, c, xi, xo, ri, ro, pidx, base, off
    cdef double s
    if m < 2:
        raise ValueError("family_counts_from_pairs needs at least 2 attributes (there are no pairs otherwise).")
    if pair_offsets.shape[0] != n_pairs + 1 or pair_offsets[n_pairs] != pair_flat.shape[0]:
        raise ValueError(f"pair_offsets must have length m*(m-1)/2 + 1 = {n_pairs + 1} and end at len(pair_flat).")
    for a in range(m):
        for c in range(a + 1, m):
            pidx = a * m - a * (a + 1) // 2 + (c - a - 1)
            if pair_offsets[pidx + 1] - pair_offsets[pidx] != cards[a] * cards[c] * K:
                raise ValueError(f"pair ({a}, {c}) has a table of {pair_offsets[pidx + 1] - pair_offsets[pidx]} "
                                 f"entries, expected r_i * r_j * K = {cards[a] * cards[c] * K}.")
    _check_multinet(cards, cards, parents, blk_offsets, counts.shape[0], -1)
    if parents.shape[0] != K:
        raise ValueError(f"parents has {parents.shape[0]} rows, expected K = {K}.")
    with nogil:
        for k in range(K):
            for i in range(m):
                p = parents[k, i]
                off = blk_offsets[k * m + i]
                ri = cards[i]
                if p >= 0:
                    ro = cards[p]
                    if i < p:
                        pidx = i * m - i * (i + 1) // 2 + (p - i - 1)
                        base = pair_offsets[pidx]
                        for xi in range(ri):
                            for xo in range(ro):
                                counts[off + xi * ro + xo] = pair_flat[base + (xi * ro + xo) * K + k]
                    else:
                        pidx = p * m - p * (p + 1) // 2 + (i - p - 1)
                        base = pair_offsets[pidx]
                        for xi in range(ri):
                            for xo in range(ro):
                                counts[off + xi * ro + xo] = pair_flat[base + (xo * ri + xi) * K + k]
                else:
                    j = 1 if i == 0 else 0
                    ro = cards[j]
                    if i < j:
                        pidx = i * m - i * (i + 1) // 2 + (j - i - 1)
                        base = pair_offsets[pidx]
                        for xi in range(ri):
                            s = 0.0
                            for xo in range(ro):
                                s += pair_flat[base + (xi * ro + xo) * K + k]
                            counts[off + xi] = s
                    else:
                        pidx = j * m - j * (j + 1) // 2 + (i - j - 1)
                        base = pair_offsets[pidx]
                        for xi in range(ri):
                            s = 0.0
                            for xo in range(ro):
                                s += pair_flat[base + (xo * ri + xi) * K + k]
                            counts[off + xi] = s


def normalize_blocks(const float64_t[::1] counts,
                     const intp_t[::1] blk_offsets,
                     const intp_t[::1] rows,
                     double alpha,
                     float64_t[::1] log_cpt):
    """M-step normalisation: ``log_cpt = log((counts + alpha) / column sums)`` per block, and the log-likelihood of
    the counts under the result.

    Parameters
    ----------
    counts : float64 (T,), IN. Count blocks (any flat layout described by ``blk_offsets``).
    blk_offsets : intp (B + 1,), IN. Block ``b`` is ``[blk_offsets[b], blk_offsets[b+1])``.
    rows : intp (B,), IN. Number of child states of block ``b``; the block is C-order over ``(child, column)``
        with ``len / rows[b]`` columns.
    alpha : float, IN. Dirichlet pseudo-count per cell (>= 0). A column whose total (with alpha) is 0 becomes
        uniform, ``log(1 / rows[b])`` (pgmpy's ``DiscreteMLE`` rule for unseen parent configurations).
    log_cpt : float64 (T,), OUT. Overwritten; ``-inf`` where ``counts + alpha == 0`` in a non-empty column.

    Returns
    -------
    loglik : float. ``sum counts * log_cpt`` over the cells with ``counts > 0`` (the complete-data log-likelihood
    of the attribute factors).
    """
    cdef intp_t B = rows.shape[0]
    cdef intp_t b, x, col, q, r, off
    cdef double s, v, ll = 0.0, lr
    if blk_offsets.shape[0] != B + 1:
        raise ValueError(f"blk_offsets has length {blk_offsets.shape[0]}, expected len(rows) + 1 = {B + 1}.")
    if counts.shape[0] != log_cpt.shape[0] or blk_offsets[0] != 0 or blk_offsets[B] != counts.shape[0]:
        raise ValueError("counts and log_cpt must have the same length, blk_offsets[0] == 0 and blk_offsets[-1] == "
                         "len(counts).")
    if not alpha >= 0.0:
        raise ValueError(f"alpha == {alpha!r}, must be >= 0.")
    for b in range(B):
        if rows[b] < 1 or blk_offsets[b + 1] - blk_offsets[b] < rows[b] or \
                (blk_offsets[b + 1] - blk_offsets[b]) % rows[b] != 0:
            raise ValueError(f"block {b}: length {blk_offsets[b + 1] - blk_offsets[b]} is not a positive multiple "
                             f"of rows[{b}] = {rows[b]}.")
    with nogil:
        for b in range(B):
            off = blk_offsets[b]
            r = rows[b]
            q = (blk_offsets[b + 1] - off) // r
            lr = -log(<double>r)
            for col in range(q):
                s = 0.0
                for x in range(r):
                    s += counts[off + x * q + col]
                s += r * alpha
                if s <= 0.0:
                    for x in range(r):
                        log_cpt[off + x * q + col] = lr
                    continue
                for x in range(r):
                    v = counts[off + x * q + col]
                    if v + alpha > 0.0:
                        log_cpt[off + x * q + col] = log((v + alpha) / s)
                    else:
                        log_cpt[off + x * q + col] = -INFINITY
                    if v > 0.0:
                        ll += v * log_cpt[off + x * q + col]
    return float(ll)


def sample_labels(const float64_t[:, ::1] log_joint,
                  const float64_t[::1] u,
                  code_t[::1] labels,
                  intp_t[::1] counts):
    """S-step: draw ``labels[r] ~ Categorical(p(. | x_r))`` by inversion of the cumulative posterior with ``u[r]``.

    Parameters
    ----------
    log_joint : float64 (n_rows, K), IN. ``log alpha_k f_k(x_r)`` (any additive constant per row).
    u : float64 (n_rows,), IN. Uniforms in [0, 1), one per row, drawn by the caller.
    labels : int32 (n_rows,), OUT. The smallest ``k`` with ``sum_{h <= k} p(h | x_r) > u[r]``; a cluster with
        posterior 0 is never drawn.
    counts : intp (K,), OUT. Overwritten with the size of every cluster.

    Returns
    -------
    bad_row : int. -1, or the first row whose every cluster has probability 0 (its label is left unset).
    """
    cdef intp_t n = log_joint.shape[0]
    cdef intp_t K = log_joint.shape[1]
    cdef intp_t r, k, pick, last, bad = -1
    cdef double mx, total, t, acc
    if u.shape[0] != n or labels.shape[0] != n:
        raise ValueError(f"u has length {u.shape[0]} and labels {labels.shape[0]}, expected n_rows = {n}.")
    if counts.shape[0] != K:
        raise ValueError(f"counts has length {counts.shape[0]}, expected K = {K}.")
    if K < 1:
        raise ValueError("log_joint needs at least one column (cluster).")
    e_np = np.empty(K, dtype=np.float64)
    cdef float64_t[::1] e = e_np
    with nogil:
        for k in range(K):
            counts[k] = 0
        for r in range(n):
            mx = -INFINITY
            for k in range(K):
                if log_joint[r, k] > mx:
                    mx = log_joint[r, k]
            if mx == -INFINITY:
                bad = r
                break
            total = 0.0
            for k in range(K):
                e[k] = exp(log_joint[r, k] - mx)
                total += e[k]
            t = u[r] * total
            acc = 0.0
            pick = -1
            last = 0
            for k in range(K):
                if e[k] > 0.0:
                    last = k
                    acc += e[k]
                    if acc > t:
                        pick = k
                        break
            if pick < 0:  # t rounded up to the total: the last cluster with positive probability
                pick = last
            labels[r] = <code_t>pick
            counts[pick] += 1
    return int(bad)


def argmax_labels(const float64_t[:, ::1] log_joint,
                  code_t[::1] labels,
                  intp_t[::1] counts):
    """C-step: ``labels[r] = argmax_k log_joint[r, k]``, the smallest ``k`` on ties (seed 000 D7).

    Parameters
    ----------
    log_joint : float64 (n_rows, K), IN.
    labels : int32 (n_rows,), IN/OUT. The previous partition on entry, the new one on exit.
    counts : intp (K,), OUT. Overwritten with the size of every cluster.

    Returns
    -------
    (n_changed, bad_row) : number of rows whose label changed, and -1 or the first row whose every cluster has
    probability 0 (its label is left unchanged and not counted).
    """
    cdef intp_t n = log_joint.shape[0]
    cdef intp_t K = log_joint.shape[1]
    cdef intp_t r, k, best, n_changed = 0, bad = -1
    cdef double mx
    if labels.shape[0] != n:
        raise ValueError(f"labels has length {labels.shape[0]}, expected n_rows = {n}.")
    if counts.shape[0] != K:
        raise ValueError(f"counts has length {counts.shape[0]}, expected K = {K}.")
    with nogil:
        for k in range(K):
            counts[k] = 0
        for r in range(n):
            mx = log_joint[r, 0]
            best = 0
            for k in range(1, K):
                if log_joint[r, k] > mx:
                    mx = log_joint[r, k]
                    best = k
            if mx == -INFINITY:  # left unchanged and not counted; the caller raises
                if bad < 0:
                    bad = r
                continue
            if labels[r] != best:
                n_changed += 1
                labels[r] = <code_t>best
            counts[best] += 1
    return int(n_changed), int(bad)


def reseed_empty(const float64_t[:, ::1] log_joint,
                 code_t[::1] labels,
                 intp_t[::1] counts):
    """Fill every empty cluster (in increasing order) with the row that has the lowest posterior for its current
    cluster, among rows whose cluster keeps at least one other member (seed 000 D11). Ties: the lowest row index.

    Parameters
    ----------
    log_joint : float64 (n_rows, K), IN. The E-step values the labels were drawn from.
    labels : int32 (n_rows,), IN/OUT. Labels in ``0..K-1``; moved rows get their new cluster.
    counts : intp (K,), IN/OUT. Cluster sizes, consistent with ``labels``; updated.

    Returns
    -------
    n_moved : int. Number of rows moved (= number of clusters that were empty), or -1 if some empty cluster could
    not be filled (fewer rows than clusters).
    """
    cdef intp_t n = log_joint.shape[0]
    cdef intp_t K = log_joint.shape[1]
    cdef intp_t r, k, z, best, n_moved = 0
    cdef bint failed = False
    cdef double lse
    if labels.shape[0] != n:
        raise ValueError(f"labels has length {labels.shape[0]}, expected n_rows = {n}.")
    if counts.shape[0] != K:
        raise ValueError(f"counts has length {counts.shape[0]}, expected K = {K}.")
    for r in range(n):
        if labels[r] < 0 or labels[r] >= K:
            raise ValueError(f"labels[{r}] == {labels[r]}, must be in 0..{K - 1}.")
    lp_np = np.empty(n, dtype=np.float64)
    cdef float64_t[::1] lp = lp_np
    with nogil:
        for r in range(n):
            lse = logsumexp_row(&log_joint[r, 0], K)
            lp[r] = log_joint[r, labels[r]] - lse if lse > -INFINITY else INFINITY
        for k in range(K):
            if counts[k] != 0:
                continue
            best = -1
            for r in range(n):
                z = labels[r]
                if counts[z] >= 2 and (best < 0 or lp[r] < lp[best]):
                    best = r
            if best < 0:
                failed = True
                break
            counts[labels[best]] -= 1
            labels[best] = <code_t>k
            counts[k] += 1
            lp[best] = INFINITY
            n_moved += 1
    return -1 if failed else int(n_moved)
