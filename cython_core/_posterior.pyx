"""Posterior kernels on a *compiled network*: joint log-probabilities, posteriors over one hidden/class variable,
E-step expected counts and the conditional log-likelihood, vectorised over the rows of a code matrix.

Compiled network (flat layout; built by ``pgmpy_ext.stats.NetworkLayout``)
--------------------------------------------------------------------------
The network has ``V`` nodes (CPDs) and one distinguished variable ``H`` (the hidden variable of EM/CEM, or the
class of a classifier) with cardinality ``K``. ``H`` is **not** a column of ``X``; every other variable is.

* ``fam_offsets`` : intp ``(V + 1,)``. Node ``v``'s family occupies positions ``fam_offsets[v]:fam_offsets[v+1]``
  of the three arrays below: the node itself first, then its parents **in the CPD's table order**.
* ``fam_cols`` : intp ``(F,)``. Column of ``X`` holding each family member, or ``HIDDEN = -1`` for ``H``
  (at most once per family).
* ``fam_cards`` : intp ``(F,)``. Cardinality of each family member (``K`` at the ``HIDDEN`` position).
* ``fam_strides`` : intp ``(F,)``. C-order stride of each family member inside its node's block:
  the last member has stride 1 and ``fam_strides[j] = fam_strides[j + 1] * fam_cards[j + 1]``.
* ``tab_offsets`` : intp ``(V + 1,)``. Node ``v``'s table is ``log_cpt[tab_offsets[v]:tab_offsets[v+1]]``, a C-order
  block over its family (``prod`` of the family cards entries), so with the child first and the parents in
  the CPD's evidence order, ``block.reshape(card_child, -1)`` is ``TabularCPD.get_values()``.
* ``h_stride`` : intp ``(V,)``. Stride of ``H`` in node ``v``'s block, or 0 when ``H`` is not in the family.
  For row ``x``: ``idx0 = tab_offsets[v] + sum_{j observed} x[fam_cols[j]] * fam_strides[j]`` and the entry for
  ``H = h`` is ``idx0 + h * h_stride[v]``.
* ``log_cpt`` : float64 ``(T,)``, ``T = tab_offsets[V]``. Natural-log CPT entries (``-inf`` for zeros).
  Count buffers (``counts`` of the E-step, ``grad`` of the CLL) have the same layout.

Every layout array is checked against the others in the ``def`` body (``ValueError`` before ``nogil``), so the
loops may index without bounds checks. Codes are checked against ``fam_cards`` inside the loop; an
out-of-range code stops the kernel with :class:`KernelInputError` (a ``ValueError``).

Missing values (any negative code)
----------------------------------
``skip_missing=False`` (default): complete data is required; a negative code in any family raises.
``skip_missing=True``: a node whose *own* value is missing contributes no factor (it is summed out, and it gets
no expected counts). That is exact marginalisation when every child of a missing node is missing too (the
missing nodes are *barren*, e.g. the leaves of naive Bayes), and that is what the kernel enforces: a node that
is not summed out (its own value is observed, or it is ``H``) but has a missing parent raises
:class:`KernelInputError`.

Rows with probability zero
--------------------------
When ``log p(x) = -inf`` (every ``h`` impossible) the posterior is undefined: the kernels write NaN into that row
of ``resp``, add nothing to ``counts``/``grad``, count the row in the returned ``n_zero`` and add ``-inf`` to the
log-likelihood (unless the row weight is 0: zero-weight rows never change a total).
"""
import numpy as np

from cython.parallel cimport prange

include "_scratch.pxi"
from libc.math cimport exp, INFINITY, NAN
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t

from _mathutils cimport logsumexp_row
from _fcode cimport fcode_t
from _typedefs cimport code_t, float64_t, intp_t

cdef intp_t _HIDDEN = -1
HIDDEN = _HIDDEN  # the fam_cols entry that stands for the hidden/class variable H

cdef enum:
    _OK = 0
    _ERR_RANGE = 1
    _ERR_MISSING = 2
    _ERR_MISSING_PARENT = 3


class KernelInputError(ValueError):
    """A row of ``X`` the kernel cannot handle. Attributes: ``row``, ``node`` (index into the layout), ``column``
    (of ``X``), ``code`` and ``kind`` ("range" | "missing" | "missing_parent"). Wrappers re-raise it with labels."""

    def __init__(self, kind, row, node, column, code):
        self.kind, self.row, self.node, self.column, self.code = kind, row, node, column, code
        if kind == "range":
            msg = (f"row {row}: code {code} in column {column} (family of node {node}) is outside the "
                   f"cardinality of that variable.")
        elif kind == "missing":
            msg = (f"row {row}: column {column} (family of node {node}) is missing (-1) and the kernel was called "
                   f"with skip_missing=False; pass complete data or skip_missing=True.")
        else:
            msg = (f"row {row}: node {node} is not missing (observed, or the hidden variable) but its parent in "
                   f"column {column} is missing (-1); dropping factors marginalises only missing nodes whose "
                   f"children are missing too.")
        super().__init__(msg)


cdef inline int _row_log_joint(const fcode_t[:, ::1] X, intp_t r,
                               const intp_t[::1] fam_offsets, const intp_t[::1] fam_cols,
                               const intp_t[::1] fam_cards, const intp_t[::1] fam_strides,
                               const intp_t[::1] tab_offsets, const intp_t[::1] h_stride,
                               const float64_t[::1] log_cpt, intp_t K, bint skip_missing,
                               float64_t* lj, intp_t* idx, intp_t* bad) noexcept nogil:
    """lj[h] = log p(H=h, x_r) for h < K; idx[v] = idx0 of node v (-1 when v is skipped as missing).

    Returns _OK or an error kind; on error bad[0] = node, bad[1] = family position."""
    cdef intp_t V = h_stride.shape[0]
    cdef intp_t v, j, c, start, stop, base, hs, h
    cdef intp_t miss_own, miss_par
    cdef code_t x
    cdef double val
    for h in range(K):
        lj[h] = 0.0
    for v in range(V):
        start = fam_offsets[v]
        stop = fam_offsets[v + 1]
        base = tab_offsets[v]
        miss_own = -1
        miss_par = -1
        for j in range(start, stop):
            c = fam_cols[j]
            if c < 0:
                continue
            x = X[r, c]
            if x < 0:
                if j == start:
                    miss_own = j
                elif miss_par < 0:
                    miss_par = j
                continue
            if x >= fam_cards[j]:
                bad[0] = v
                bad[1] = j
                return _ERR_RANGE
            base += x * fam_strides[j]
        if miss_own >= 0 or miss_par >= 0:
            if not skip_missing:
                bad[0] = v
                bad[1] = miss_own if miss_own >= 0 else miss_par
                return _ERR_MISSING
            if miss_own < 0:
                bad[0] = v
                bad[1] = miss_par
                return _ERR_MISSING_PARENT
            idx[v] = -1
            continue
        idx[v] = base
        hs = h_stride[v]
        if hs == 0:
            val = log_cpt[base]
            for h in range(K):
                lj[h] += val
        else:
            for h in range(K):
                lj[h] += log_cpt[base + h * hs]
    return _OK


# Rows per block of the complete-data fast path of ``log_joint_batch``: node-major inside a block (each row's
# sum still runs over nodes in layout order, so the result is bit-identical to ``_row_log_joint``), with the
# block's (rows, K) output in L1.
cdef intp_t _FAST_BLOCK = 256


cdef inline int _block_log_joint_complete(const fcode_t* X, intp_t n_cols, intp_t r0, intp_t r1,
                                          const intp_t* obs_ptr, const intp_t* obs_cols, const intp_t* obs_cards,
                                          const intp_t* obs_strides, const intp_t* tab_offsets,
                                          const intp_t* h_stride, intp_t V, const float64_t* log_cpt, intp_t K,
                                          float64_t* out) noexcept nogil:
    """Complete-data fast path: ``out[(r - r0) * K + h] = log p(H=h, x_r)`` for rows ``r0 <= r < r1``.

    ``obs_*`` list, per node ``v`` (positions ``obs_ptr[v]:obs_ptr[v+1]``), the observed family members only
    (column, cardinality, stride; ``H`` left out). No missing-value logic: returns 1 as soon as a code is
    negative or out of range (the caller then redoes the block with ``_row_log_joint``, which handles missing
    values and reports errors), else 0. Per row, nodes are added in layout order with the same operations as
    ``_row_log_joint``, so complete rows get bit-identical sums."""
    cdef intp_t v, j, r, h, a, e, base, t0, hs
    cdef code_t x
    cdef float64_t val
    cdef float64_t* o
    for j in range((r1 - r0) * K):
        out[j] = 0.0
    for v in range(V):
        a = obs_ptr[v]
        e = obs_ptr[v + 1]
        t0 = tab_offsets[v]
        hs = h_stride[v]
        for r in range(r0, r1):
            base = t0
            for j in range(a, e):
                x = X[r * n_cols + obs_cols[j]]
                if <size_t>x >= <size_t>obs_cards[j]:  # negative (missing) or out of range
                    return 1
                base += x * obs_strides[j]
            o = out + (r - r0) * K
            if hs == 0:
                val = log_cpt[base]
                for h in range(K):
                    o[h] += val
            else:
                for h in range(K):
                    o[h] += log_cpt[base + h * hs]
    return 0


def _observed_members(const intp_t[::1] fam_offsets, const intp_t[::1] fam_cols, const intp_t[::1] fam_cards,
                      const intp_t[::1] fam_strides):
    """(obs_ptr (V + 1,), obs_cols, obs_cards, obs_strides): the family members other than ``H``, per node."""
    cols = np.asarray(fam_cols)
    keep = cols != _HIDDEN
    node = np.repeat(np.arange(fam_offsets.shape[0] - 1), np.diff(np.asarray(fam_offsets)))
    ptr = np.zeros(fam_offsets.shape[0], dtype=np.intp)
    np.cumsum(np.bincount(node[keep], minlength=fam_offsets.shape[0] - 1), out=ptr[1:])
    return (ptr, np.ascontiguousarray(cols[keep]), np.ascontiguousarray(np.asarray(fam_cards)[keep]),
            np.ascontiguousarray(np.asarray(fam_strides)[keep]))


cdef int _check_layout(const fcode_t[:, ::1] X, const intp_t[::1] fam_offsets, const intp_t[::1] fam_cols,
                       const intp_t[::1] fam_cards, const intp_t[::1] fam_strides, const intp_t[::1] tab_offsets,
                  const intp_t[::1] h_stride, intp_t K, const float64_t[::1] log_cpt) except -1:
    """Validate the compiled-network arrays against each other and against X; raise ValueError."""
    cdef intp_t V = h_stride.shape[0]
    cdef intp_t F = fam_cols.shape[0]
    cdef intp_t n_cols = X.shape[1]
    cdef intp_t v, j, size, expect, n_hidden
    if K < 1:
        raise ValueError(f"K (cardinality of the hidden/class variable) == {K}, must be >= 1.")
    if fam_offsets.shape[0] != V + 1:
        raise ValueError(f"fam_offsets has length {fam_offsets.shape[0]}, expected V + 1 = {V + 1} "
                         f"(V = len(h_stride)).")
    if tab_offsets.shape[0] != V + 1:
        raise ValueError(f"tab_offsets has length {tab_offsets.shape[0]}, expected V + 1 = {V + 1}.")
    if fam_cards.shape[0] != F or fam_strides.shape[0] != F:
        raise ValueError(f"fam_cols, fam_cards and fam_strides must have the same length; got {F}, "
                         f"{fam_cards.shape[0]}, {fam_strides.shape[0]}.")
    if fam_offsets[0] != 0 or fam_offsets[V] != F:
        raise ValueError(f"fam_offsets must start at 0 and end at len(fam_cols) = {F}.")
    if tab_offsets[0] != 0 or tab_offsets[V] != log_cpt.shape[0]:
        raise ValueError(f"tab_offsets must start at 0 and end at len(log_cpt) = {log_cpt.shape[0]}; "
                         f"got tab_offsets[-1] = {tab_offsets[V]}.")
    for v in range(V):
        if fam_offsets[v + 1] <= fam_offsets[v]:
            raise ValueError(f"node {v} has an empty family; a family holds at least the node itself.")
        size = 1
        n_hidden = 0
        expect = 0
        for j in range(fam_offsets[v + 1] - 1, fam_offsets[v] - 1, -1):
            if fam_cards[j] < 1:
                raise ValueError(f"node {v}: family cardinality {fam_cards[j]} must be >= 1.")
            if fam_strides[j] != size:
                raise ValueError(f"node {v}: fam_strides[{j}] == {fam_strides[j]}, expected the C-order stride "
                                 f"{size}.")
            if fam_cols[j] == _HIDDEN:
                n_hidden += 1
                expect = size
                if fam_cards[j] != K:
                    raise ValueError(f"node {v}: the hidden variable has cardinality {fam_cards[j]} in the "
                                     f"family but K == {K}.")
            elif fam_cols[j] < 0 or fam_cols[j] >= n_cols:
                raise ValueError(f"node {v}: column index {fam_cols[j]} out of range for X with {n_cols} columns "
                                 f"(use {HIDDEN} for the hidden variable).")
            size *= fam_cards[j]
        if n_hidden > 1:
            raise ValueError(f"node {v}: the hidden variable appears {n_hidden} times in its family.")
        if h_stride[v] != expect:
            raise ValueError(f"h_stride[{v}] == {h_stride[v]}, expected {expect} (the stride of the hidden "
                             f"variable in the block, 0 when absent).")
        if tab_offsets[v + 1] - tab_offsets[v] != size:
            raise ValueError(f"node {v}: block length {tab_offsets[v + 1] - tab_offsets[v]} != product of the "
                             f"family cardinalities {size}.")
    return 0


cdef int _raise_row_error(int status, intp_t row, intp_t node, intp_t pos, const intp_t[::1] fam_cols,
                          const fcode_t[:, ::1] X) except -1:
    col = fam_cols[pos]
    code = X[row, col]
    kind = {_ERR_RANGE: "range", _ERR_MISSING: "missing", _ERR_MISSING_PARENT: "missing_parent"}[status]
    raise KernelInputError(kind, row, node, col, code)


def _row_blocks(intp_t n, intp_t n_threads):
    n_blocks = max(1, min(n_threads, n))
    return np.linspace(0, n, n_blocks + 1).round().astype(np.intp)


def log_joint_batch(const fcode_t[:, ::1] X,
                    const intp_t[::1] fam_offsets,
                    const intp_t[::1] fam_cols,
                    const intp_t[::1] fam_cards,
                    const intp_t[::1] fam_strides,
                    const intp_t[::1] tab_offsets,
                    const intp_t[::1] h_stride,
                    const float64_t[::1] log_cpt,
                    float64_t[:, ::1] out,
                    bint skip_missing=False,
                    int n_threads=1):
    """``out[r, h] = log p(H=h, x_r)``: the sum over nodes of the log-CPT entries, for every row.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes; negative = missing (see the module docstring).
    fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride : intp, IN. Compiled network (module
        docstring).
    log_cpt : float64 (T,), IN. Log-CPT blocks.
    out : float64 (n_rows, K), OUT. Overwritten; ``K = out.shape[1]``.
    skip_missing : bool, IN. Missing-value policy (module docstring).
    n_threads : int, IN. OpenMP threads over row blocks (disjoint outputs: bit-identical for every value).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = out.shape[1]
    cdef intp_t V = h_stride.shape[0]
    if out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} rows, expected n_rows = {n}.")
    _check_layout(X, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride, K, log_cpt)
    bounds_np = _row_blocks(n, n_threads)
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t n_blocks = bounds.shape[0] - 1
    idx_np = _thread_rows(n_blocks, V, np.intp)
    cdef intp_t[:, ::1] idx = idx_np
    err_np = _thread_rows(n_blocks, 4, np.intp, -1)  # status, row, node, family position
    cdef intp_t[:, ::1] err = err_np
    cdef intp_t b, r, r0, r1
    cdef int status
    obs_ptr_np, obs_cols_np, obs_cards_np, obs_strides_np = _observed_members(fam_offsets, fam_cols, fam_cards,
                                                                              fam_strides)
    cdef const intp_t[::1] obs_ptr = obs_ptr_np
    cdef const intp_t[::1] obs_cols = obs_cols_np
    cdef const intp_t[::1] obs_cards = obs_cards_np
    cdef const intp_t[::1] obs_strides = obs_strides_np
    cdef intp_t n_cols = X.shape[1]
    cdef const fcode_t* xp = &X[0, 0] if n > 0 and n_cols > 0 else NULL
    cdef const intp_t* obs_cols_p = &obs_cols[0] if obs_cols.shape[0] > 0 else NULL
    cdef const intp_t* obs_cards_p = &obs_cards[0] if obs_cards.shape[0] > 0 else NULL
    cdef const intp_t* obs_strides_p = &obs_strides[0] if obs_strides.shape[0] > 0 else NULL
    cdef const float64_t* cpt_p = &log_cpt[0] if log_cpt.shape[0] > 0 else NULL
    cdef bint fast = n > 0 and n_cols > 0 and V > 0
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            r0 = bounds[b]
            while r0 < bounds[b + 1]:
                r1 = min(r0 + _FAST_BLOCK, bounds[b + 1])
                # complete rows: node-major block; a block with any missing/out-of-range code takes the generic
                # row-by-row path (missing-value policy, errors), which recomputes all of its rows
                if not fast or _block_log_joint_complete(xp, n_cols, r0, r1, &obs_ptr[0], obs_cols_p, obs_cards_p,
                                                         obs_strides_p, &tab_offsets[0], &h_stride[0], V, cpt_p, K,
                                                         &out[r0, 0]) != 0:
                    for r in range(r0, r1):
                        status = _row_log_joint(X, r, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets,
                                                h_stride, log_cpt, K, skip_missing, &out[r, 0], &idx[b, 0],
                                                &err[b, 2])
                        if status != _OK:
                            err[b, 0] = status
                            err[b, 1] = r
                            break
                    if err[b, 0] > 0:
                        break
                r0 = r1
    for b in range(n_blocks):
        if err[b, 0] > 0:
            _raise_row_error(<int>err[b, 0], err[b, 1], err[b, 2], err[b, 3], fam_cols, X)


def posterior_batch(const fcode_t[:, ::1] X,
                    const intp_t[::1] fam_offsets,
                    const intp_t[::1] fam_cols,
                    const intp_t[::1] fam_cards,
                    const intp_t[::1] fam_strides,
                    const intp_t[::1] tab_offsets,
                    const intp_t[::1] h_stride,
                    const float64_t[::1] log_cpt,
                    float64_t[:, ::1] resp,
                    float64_t[::1] loglik,
                    bint skip_missing=False,
                    int n_threads=1):
    """Posterior ``resp[r, h] = p(H=h | x_r)`` and ``loglik[r] = log p(x_r)`` of every row (no reduction).

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes; negative = missing.
    fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride, log_cpt : IN. Compiled network.
    resp : float64 (n_rows, K), OUT. Overwritten; each row sums to 1 (NaN for rows with ``p(x) = 0``).
    loglik : float64 (n_rows,), OUT. ``log sum_h exp(log p(h, x_r))`` with the max subtracted; ``-inf`` for
        rows with ``p(x) = 0``.
    skip_missing : bool, IN. Missing-value policy.
    n_threads : int, IN. OpenMP threads over row blocks (bit-identical for every value).

    Returns
    -------
    n_zero : int. Number of rows with ``p(x) = 0``.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = resp.shape[1]
    cdef intp_t V = h_stride.shape[0]
    if resp.shape[0] != n or loglik.shape[0] != n:
        raise ValueError(f"resp has {resp.shape[0]} rows and loglik {loglik.shape[0]}, expected n_rows = {n}.")
    _check_layout(X, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride, K, log_cpt)
    bounds_np = _row_blocks(n, n_threads)
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t n_blocks = bounds.shape[0] - 1
    idx_np = _thread_rows(n_blocks, V, np.intp)
    cdef intp_t[:, ::1] idx = idx_np
    err_np = _thread_rows(n_blocks, 4, np.intp, -1)
    cdef intp_t[:, ::1] err = err_np
    zero_np = _thread_rows(n_blocks, 1, np.intp, 0)
    cdef intp_t[:, ::1] n_zero = zero_np
    cdef intp_t b, r, h
    cdef int status
    cdef double lse
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            for r in range(bounds[b], bounds[b + 1]):
                status = _row_log_joint(X, r, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets,
                                        h_stride, log_cpt, K, skip_missing, &resp[r, 0], &idx[b, 0], &err[b, 2])
                if status != _OK:
                    err[b, 0] = status
                    err[b, 1] = r
                    break
                lse = logsumexp_row(&resp[r, 0], K)
                loglik[r] = lse
                if lse == -INFINITY:
                    n_zero[b, 0] += 1
                    for h in range(K):
                        resp[r, h] = NAN
                else:
                    for h in range(K):
                        resp[r, h] = exp(resp[r, h] - lse)
    for b in range(n_blocks):
        if err[b, 0] > 0:
            _raise_row_error(<int>err[b, 0], err[b, 1], err[b, 2], err[b, 3], fam_cols, X)
    return int(zero_np[:, 0].sum())


def estep_accumulate(const fcode_t[:, ::1] X,
                     const float64_t[::1] weights,
                     const intp_t[::1] fam_offsets,
                     const intp_t[::1] fam_cols,
                     const intp_t[::1] fam_cards,
                     const intp_t[::1] fam_strides,
                     const intp_t[::1] tab_offsets,
                     const intp_t[::1] h_stride,
                     intp_t K,
                     const float64_t[::1] log_cpt,
                     float64_t[::1] counts,
                     float64_t[:, ::1] resp,
                     bint skip_missing=False):
    """E-step: posterior over ``H`` per row, total log-likelihood, posterior-weighted expected counts.

    Typically called on unique rows with their multiplicities as ``weights``.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes; negative = missing.
    weights : float64 (n_rows,) or (0,), IN. Row weights / multiplicities; empty = all ones.
    fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride : intp, IN. Compiled network.
    K : intp, IN. Cardinality of ``H``.
    log_cpt : float64 (T,), IN. Log-CPT blocks.
    counts : float64 (T,) or (0,), IN/OUT. Expected counts, **added into**, same layout as ``log_cpt``:
        ``counts[idx0_v(x_r) + h * h_stride[v]] += w_r * p(h | x_r)`` for every node ``v`` (``+= w_r`` once when
        ``H`` is not in the family). Empty = do not accumulate. The M-step normalises each block over its
        child axis. Unspecified if the kernel raises.
    resp : float64 (n_rows, K) or (0, *), OUT. Posteriors ``p(H=h | x_r)``, overwritten; 0 rows = not written.
    skip_missing : bool, IN. Missing-value policy (module docstring); skipped nodes get no counts.

    Returns
    -------
    (loglik, n_zero) : (float, int). ``loglik = sum_r w_r log p(x_r)`` (max-subtracted log-sum-exp per row),
    ``n_zero`` = number of rows with ``p(x_r) = 0``.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t V = h_stride.shape[0]
    cdef bint weighted = weights.shape[0] > 0
    cdef bint want_counts = counts.shape[0] > 0
    cdef bint want_resp = resp.shape[0] > 0
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    if want_counts and counts.shape[0] != log_cpt.shape[0]:
        raise ValueError(f"counts has length {counts.shape[0]}, expected len(log_cpt) = {log_cpt.shape[0]} "
                         f"(or 0 to skip).")
    if want_resp and (resp.shape[0] != n or resp.shape[1] != K):
        raise ValueError(f"resp has shape ({resp.shape[0]}, {resp.shape[1]}), expected ({n}, {K}) (or 0 rows to "
                         f"skip).")
    _check_layout(X, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride, K, log_cpt)
    lj_np = np.empty(K, dtype=np.float64)
    cdef float64_t[::1] lj = lj_np
    idx_np = np.empty(max(V, 1), dtype=np.intp)
    cdef intp_t[::1] idx = idx_np
    bad_np = np.zeros(2, dtype=np.intp)
    cdef intp_t[::1] bad = bad_np
    cdef intp_t r, h, v, hs, base, n_zero = 0, err_row = -1
    cdef int status = _OK
    cdef double w = 1.0, lse, ll = 0.0
    with nogil:
        for r in range(n):
            status = _row_log_joint(X, r, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets,
                                    h_stride, log_cpt, K, skip_missing, &lj[0], &idx[0], &bad[0])
            if status != _OK:
                err_row = r
                break
            if weighted:
                w = weights[r]
            lse = logsumexp_row(&lj[0], K)
            if lse == -INFINITY:
                n_zero += 1
                if w != 0.0:
                    ll = -INFINITY
                if want_resp:
                    for h in range(K):
                        resp[r, h] = NAN
                continue
            if w != 0.0:
                ll += w * lse
            for h in range(K):
                lj[h] = exp(lj[h] - lse)
            if want_resp:
                for h in range(K):
                    resp[r, h] = lj[h]
            if want_counts and w != 0.0:
                for v in range(V):
                    base = idx[v]
                    if base < 0:
                        continue
                    hs = h_stride[v]
                    if hs == 0:
                        counts[base] += w
                    else:
                        for h in range(K):
                            counts[base + h * hs] += w * lj[h]
    if status != _OK:
        _raise_row_error(status, err_row, bad[0], bad[1], fam_cols, X)
    return float(ll), int(n_zero)


def conditional_log_likelihood(const fcode_t[:, ::1] X,
                               const code_t[::1] y,
                               const float64_t[::1] weights,
                               const intp_t[::1] fam_offsets,
                               const intp_t[::1] fam_cols,
                               const intp_t[::1] fam_cards,
                               const intp_t[::1] fam_strides,
                               const intp_t[::1] tab_offsets,
                               const intp_t[::1] h_stride,
                               intp_t K,
                               const float64_t[::1] log_cpt,
                               float64_t[:, ::1] resp,
                               float64_t[::1] grad,
                               bint skip_missing=False):
    """Conditional log-likelihood ``sum_r w_r [log p(y_r, x_r) - log sum_h p(h, x_r)]`` with ``H`` the class.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Feature codes; negative = missing.
    y : int32 (n_rows,), IN. Class codes in ``0..K-1`` (checked before the loop).
    weights : float64 (n_rows,) or (0,), IN. Row weights / multiplicities; empty = all ones.
    fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride : intp, IN. Compiled network.
    K : intp, IN. Number of classes.
    log_cpt : float64 (T,), IN. Log-CPT blocks.
    resp : float64 (n_rows, K) or (0, *), OUT. Posteriors ``p(h | x_r)``, overwritten; 0 rows = not written.
    grad : float64 (T,) or (0,), IN/OUT. Added into: for every node whose family contains ``H``,
        ``grad[idx0_v(x_r) + h * h_stride[v]] += w_r * (1[h == y_r] - p(h | x_r))``; this is the gradient of the
        CLL with respect to the log-CPT entries, i.e. the "observed minus expected" conditional counts of
        discriminative (TM / CLL-gradient) parameter learning. Families without ``H`` get nothing (their terms
        cancel). Empty = not computed. Unspecified if the kernel raises.
    skip_missing : bool, IN. Missing-value policy.

    Returns
    -------
    (cll, n_zero) : (float, int). ``n_zero`` = rows with ``p(x_r) = 0`` (they add ``-inf`` when ``w_r > 0``).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t V = h_stride.shape[0]
    cdef bint weighted = weights.shape[0] > 0
    cdef bint want_grad = grad.shape[0] > 0
    cdef bint want_resp = resp.shape[0] > 0
    cdef intp_t r, h, v, hs, base, yr, n_zero = 0, err_row = -1
    if y.shape[0] != n:
        raise ValueError(f"y has length {y.shape[0]}, expected n_rows = {n}.")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    if want_grad and grad.shape[0] != log_cpt.shape[0]:
        raise ValueError(f"grad has length {grad.shape[0]}, expected len(log_cpt) = {log_cpt.shape[0]} "
                         f"(or 0 to skip).")
    if want_resp and (resp.shape[0] != n or resp.shape[1] != K):
        raise ValueError(f"resp has shape ({resp.shape[0]}, {resp.shape[1]}), expected ({n}, {K}) (or 0 rows to "
                         f"skip).")
    _check_layout(X, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets, h_stride, K, log_cpt)
    for r in range(n):
        if y[r] < 0 or y[r] >= K:
            raise ValueError(f"y[{r}] == {y[r]}, must be a class code in 0..{K - 1} (no missing labels).")
    lj_np = np.empty(K, dtype=np.float64)
    cdef float64_t[::1] lj = lj_np
    idx_np = np.empty(max(V, 1), dtype=np.intp)
    cdef intp_t[::1] idx = idx_np
    bad_np = np.zeros(2, dtype=np.intp)
    cdef intp_t[::1] bad = bad_np
    cdef int status = _OK
    cdef double w = 1.0, lse, cll = 0.0, g
    with nogil:
        for r in range(n):
            status = _row_log_joint(X, r, fam_offsets, fam_cols, fam_cards, fam_strides, tab_offsets,
                                    h_stride, log_cpt, K, skip_missing, &lj[0], &idx[0], &bad[0])
            if status != _OK:
                err_row = r
                break
            if weighted:
                w = weights[r]
            yr = y[r]
            lse = logsumexp_row(&lj[0], K)
            if lse == -INFINITY:
                n_zero += 1
                if w != 0.0:
                    cll = -INFINITY
                if want_resp:
                    for h in range(K):
                        resp[r, h] = NAN
                continue
            if w != 0.0:
                cll += w * (lj[yr] - lse)
            for h in range(K):
                lj[h] = exp(lj[h] - lse)
            if want_resp:
                for h in range(K):
                    resp[r, h] = lj[h]
            if want_grad and w != 0.0:
                for v in range(V):
                    hs = h_stride[v]
                    base = idx[v]
                    if hs == 0 or base < 0:
                        continue
                    for h in range(K):
                        g = -lj[h]
                        if h == yr:
                            g = g + 1.0
                        grad[base + h * hs] += w * g
    if status != _OK:
        _raise_row_error(status, err_row, bad[0], bad[1], fam_cols, X)
    return float(cll), int(n_zero)


# ---------------------------------------------------------------------------------------------------------------
# Column kernel: the log-joint read straight from per-column code arrays (issue 25)
# ---------------------------------------------------------------------------------------------------------------
# Class-minor compiled network (built by ``pgmpy_ext.stats.ColumnPlan`` from a NetworkLayout and its log_cpt):
#
# * ``node_ptr`` : intp ``(V + 1,)``. Node ``v``'s observed family members (every member except ``H``, in the
#   family's order) are positions ``node_ptr[v]:node_ptr[v+1]`` of the three arrays below.
# * ``obs_col`` : intp ``(F',)``. Which code array (index into ``columns``) holds the member.
# * ``obs_card`` : intp ``(F',)``. Its cardinality.
# * ``obs_stride`` : intp ``(F',)``. Its C-order stride in node ``v``'s table with the ``H`` axis removed.
# * ``tab_off`` : intp ``(V + 1,)``; ``tab`` : float64 ``(tab_off[V],)``. Node ``v``'s table is
#   ``tab[tab_off[v]:tab_off[v+1]]``, shaped ``(prod of observed cards, K)`` in C order: the node's log-CPT block with
#   the ``H`` axis moved last (``numpy.moveaxis``), or repeated ``K`` times along a new last axis when ``H`` is not in
#   the family. The entry of row ``x`` and class ``h`` is ``tab[tab_off[v] + (sum_j x[obs_col[j]] * obs_stride[j])
#   * K + h]``: the same number as ``log_cpt[idx0_v(x) + h * h_stride[v]]`` of the flat layout above.
#
# Per row the nodes are added in layout order to ``0.0``, exactly as ``_row_log_joint`` and
# ``_block_log_joint_complete`` add them, so a complete row gets the bits ``log_joint_batch`` gives it.

# Rows per block of ``log_joint_columns`` and nodes per pass over a block: the block's (rows, K) output and the
# (nodes, rows) table indices stay in L1/L2 whatever the number of nodes.
cdef intp_t _COL_BLOCK = 256
cdef intp_t _NODE_CHUNK = 32
cdef enum:
    _NODE_CHUNK_MAX = 64  # size of the per-chunk table pointer array (>= _NODE_CHUNK)


cdef inline void _add_member(const fcode_t* c, intp_t step, intp_t nb, int32_t stride, int32_t card,
                             int32_t* idx, int32_t* flag) noexcept nogil:
    """``idx[r] += x_r * stride`` for ``nb`` rows of one code array (``step`` elements apart). A negative code adds
    0 and sets bit 0 of ``flag[r]`` (the row is marked), a code ``>= card`` sets bit 1.

    A first pass takes the largest code read as unsigned (a negative code is then huge), which compilers vectorise
    even for the baseline x86-64 instruction set; only a block where it reaches ``card`` goes through the per-row
    checks, so complete data pays one cheap pass and a plain multiply-add."""
    cdef intp_t r
    cdef int32_t x
    cdef uint8_t top8 = 0, u8
    cdef uint16_t top16 = 0, u16
    cdef uint32_t top32 = 0, u32
    cdef bint clean
    if step == 1:
        if fcode_t is int8_t:
            for r in range(nb):
                u8 = <uint8_t>c[r]
                top8 = u8 if u8 > top8 else top8
            clean = top8 < card
        elif fcode_t is int16_t:
            for r in range(nb):
                u16 = <uint16_t>c[r]
                top16 = u16 if u16 > top16 else top16
            clean = top16 < card
        else:
            for r in range(nb):
                u32 = <uint32_t>c[r]
                top32 = u32 if u32 > top32 else top32
            clean = top32 < <uint32_t>card
        if clean:
            if stride == 1:
                for r in range(nb):
                    idx[r] += c[r]
            else:
                for r in range(nb):
                    idx[r] += c[r] * stride
            return
    for r in range(nb):
        x = c[r * step]
        if x < 0:
            flag[r] |= 1
        elif x >= card:
            flag[r] |= 2
        else:
            idx[r] += x * stride


cdef intp_t _columns_block(const intp_t* ptrs, const intp_t* steps, const intp_t* widths, intp_t r0, intp_t r1,
                           const intp_t* node_ptr, const intp_t* obs_col, const intp_t* obs_card,
                           const intp_t* obs_stride, const intp_t* tab_off, intp_t V, const float64_t* tab,
                           intp_t K, float64_t* out, int32_t* idx, int32_t* flag, intp_t* err) noexcept nogil:
    """Rows ``r0 <= r < r1`` of ``log_joint_columns`` into ``out`` (row ``r0`` first). Nodes are taken
    ``_NODE_CHUNK`` at a time: first their table rows for every row of the block (``idx``, node-major: one
    streaming pass per member column), then the row sums, row by row in registers, nodes in layout order (the
    running sum of a row continues across chunks through ``out``, so the additions are those of
    ``_row_log_joint``). Returns the number of rows marked (NaN written into their column 0), or -1 on an
    out-of-range code (``err`` = row, member position)."""
    cdef intp_t nb = r1 - r0
    cdef intp_t v, v0, v1, j, r, h, a, col, w, n_marked = 0
    cdef const float64_t* t
    cdef const float64_t* t2
    cdef int32_t* iv
    cdef const int32_t* ir
    cdef float64_t* o
    cdef float64_t s0, s1, s2, s3
    cdef const float64_t* base[_NODE_CHUNK_MAX]
    cdef intp_t nv
    for j in range(nb * K):
        out[j] = 0.0
    for r in range(nb):
        flag[r] = 0
    v0 = 0
    while v0 < V:
        v1 = min(v0 + _NODE_CHUNK, V)
        nv = v1 - v0
        for v in range(v0, v1):
            base[v - v0] = tab + tab_off[v]
            iv = idx + (v - v0) * nb
            for r in range(nb):
                iv[r] = 0
            for j in range(node_ptr[v], node_ptr[v + 1]):
                col = obs_col[j]
                w = widths[col]
                if w == 1:
                    _add_member(<const int8_t*><void*>ptrs[col] + r0 * steps[col], steps[col], nb,
                                <int32_t>obs_stride[j], <int32_t>obs_card[j], iv, flag)
                elif w == 2:
                    _add_member(<const int16_t*><void*>ptrs[col] + r0 * steps[col], steps[col], nb,
                                <int32_t>obs_stride[j], <int32_t>obs_card[j], iv, flag)
                else:
                    _add_member(<const int32_t*><void*>ptrs[col] + r0 * steps[col], steps[col], nb,
                                <int32_t>obs_stride[j], <int32_t>obs_card[j], iv, flag)
        for r in range(nb):
            if flag[r] & 2:  # an out-of-range code: find the member for the message
                for v in range(v0, v1):
                    for j in range(node_ptr[v], node_ptr[v + 1]):
                        col = obs_col[j]
                        w = widths[col]
                        if w == 1:
                            a = (<const int8_t*><void*>ptrs[col])[(r0 + r) * steps[col]]
                        elif w == 2:
                            a = (<const int16_t*><void*>ptrs[col])[(r0 + r) * steps[col]]
                        else:
                            a = (<const int32_t*><void*>ptrs[col])[(r0 + r) * steps[col]]
                        if a >= obs_card[j]:
                            err[0] = r0 + r
                            err[1] = j
                            return -1
        if K == 2:
            for r in range(nb):
                o = out + r * 2
                s0 = o[0]
                s1 = o[1]
                ir = idx + r
                v = 0
                while v + 1 < nv:
                    t = base[v] + 2 * <intp_t>ir[v * nb]
                    t2 = base[v + 1] + 2 * <intp_t>ir[(v + 1) * nb]
                    s0 += t[0]
                    s1 += t[1]
                    s0 += t2[0]
                    s1 += t2[1]
                    v += 2
                if v < nv:
                    t = base[v] + 2 * <intp_t>ir[v * nb]
                    s0 += t[0]
                    s1 += t[1]
                o[0] = s0
                o[1] = s1
        elif K == 3:
            for r in range(nb):
                o = out + r * 3
                s0 = o[0]
                s1 = o[1]
                s2 = o[2]
                ir = idx + r
                v = 0
                while v + 1 < nv:  # two nodes per step (same additions, in the same order)
                    t = base[v] + 3 * <intp_t>ir[v * nb]
                    t2 = base[v + 1] + 3 * <intp_t>ir[(v + 1) * nb]
                    s0 += t[0]
                    s1 += t[1]
                    s2 += t[2]
                    s0 += t2[0]
                    s1 += t2[1]
                    s2 += t2[2]
                    v += 2
                if v < nv:
                    t = base[v] + 3 * <intp_t>ir[v * nb]
                    s0 += t[0]
                    s1 += t[1]
                    s2 += t[2]
                o[0] = s0
                o[1] = s1
                o[2] = s2
        elif K == 4:
            for r in range(nb):
                o = out + r * 4
                s0 = o[0]
                s1 = o[1]
                s2 = o[2]
                s3 = o[3]
                ir = idx + r
                for v in range(nv):
                    t = base[v] + 4 * <intp_t>ir[v * nb]
                    s0 += t[0]
                    s1 += t[1]
                    s2 += t[2]
                    s3 += t[3]
                o[0] = s0
                o[1] = s1
                o[2] = s2
                o[3] = s3
        else:
            for r in range(nb):
                o = out + r * K
                ir = idx + r
                for v in range(nv):
                    t = base[v] + K * <intp_t>ir[v * nb]
                    for h in range(K):
                        o[h] += t[h]
        v0 = v1
    for r in range(nb):
        if flag[r]:
            out[r * K] = NAN
            n_marked += 1
    return n_marked


def column_pointers(columns, intp_t n):
    """``(ptrs, steps, widths)`` (intp, one entry per array) of a sequence of 1-D code arrays of length ``n``.

    Each array is taken as a typed memoryview of int8, int16 or int32 (any other dtype, or another length, raises
    ``ValueError``), so the addresses handed to the kernel always point at codes of the recorded width; ``None``
    entries (columns the network does not read) get a null pointer. ``steps`` is the distance between consecutive
    rows in elements (1 for a contiguous array, ``n_cols`` for a column of a C-order matrix). The caller must keep
    ``columns`` alive while the addresses are used."""
    cdef intp_t m = len(columns)
    ptrs_np = np.zeros(m, dtype=np.intp)
    steps_np = np.ones(m, dtype=np.intp)
    widths_np = np.zeros(m, dtype=np.intp)
    cdef intp_t[::1] ptrs = ptrs_np
    cdef intp_t[::1] steps = steps_np
    cdef intp_t[::1] widths = widths_np
    cdef const int8_t[:] m8
    cdef const int16_t[:] m16
    cdef const int32_t[:] m32
    cdef intp_t k
    for k in range(m):
        arr = columns[k]
        if arr is None:
            continue
        dt = getattr(arr, "dtype", None)
        if getattr(arr, "ndim", 0) != 1 or arr.shape[0] != n:
            raise ValueError(f"code array {k} must be 1-D with n_rows = {n} entries, got shape "
                             f"{getattr(arr, 'shape', None)}.")
        if dt == np.int8:
            m8 = arr
            widths[k] = 1
            steps[k] = m8.strides[0]
            if n > 0:
                ptrs[k] = <intp_t><const void*>&m8[0]
        elif dt == np.int16:
            m16 = arr
            widths[k] = 2
            steps[k] = m16.strides[0] // 2
            if n > 0:
                ptrs[k] = <intp_t><const void*>&m16[0]
        elif dt == np.int32:
            m32 = arr
            widths[k] = 4
            steps[k] = m32.strides[0] // 4
            if n > 0:
                ptrs[k] = <intp_t><const void*>&m32[0]
        else:
            raise ValueError(f"code array {k} has dtype {dt}; the column kernel reads int8, int16 or int32 codes.")
    return ptrs_np, steps_np, widths_np


def log_joint_columns(columns,
                      const intp_t[::1] node_ptr,
                      const intp_t[::1] obs_col,
                      const intp_t[::1] obs_card,
                      const intp_t[::1] obs_stride,
                      const intp_t[::1] tab_off,
                      const float64_t[::1] tab,
                      float64_t[:, ::1] out,
                      int n_threads=1):
    """``out[r, h] = log p(H=h, x_r)`` read straight from one code array per column (no code matrix).

    Parameters
    ----------
    columns : sequence of 1-D int8 / int16 / int32 arrays of length n_rows (or None for a column no node reads),
        IN. ``columns[k]`` holds the codes of column ``k``; negative = missing. Arrays may be strided (a column of a
        C-order matrix) and read-only (pandas' category codes are read as they are).
    node_ptr, obs_col, obs_card, obs_stride, tab_off : intp, IN. Class-minor compiled network (see above).
    tab : float64 (tab_off[V],), IN. Class-minor log-CPT tables.
    out : float64 (n_rows, K), OUT. Overwritten. A row with a negative code in a column some node reads gets NaN in
        ``out[r, 0]`` (the other entries are unspecified): the caller sums such rows out exactly (or refuses them).
    n_threads : int, IN. OpenMP threads over row ranges (disjoint outputs: bit-identical for every value).

    Returns
    -------
    n_marked : int. Rows marked with NaN (0 on complete data: nothing else to do).

    Raises
    ------
    KernelInputError
        kind "range" for a code ``>= `` its cardinality (``node`` = the member position in ``obs_col``).
    """
    cdef intp_t n = out.shape[0]
    cdef intp_t K = out.shape[1]
    cdef intp_t V = node_ptr.shape[0] - 1
    cdef intp_t F = obs_col.shape[0]
    cdef intp_t m = len(columns)
    cdef intp_t v, j, size
    if V < 0 or tab_off.shape[0] != V + 1:
        raise ValueError("node_ptr and tab_off must both have length V + 1.")
    if K < 1:
        raise ValueError(f"out has {K} columns; K (the class cardinality) must be >= 1.")
    if obs_card.shape[0] != F or obs_stride.shape[0] != F or node_ptr[0] != 0 or node_ptr[V] != F:
        raise ValueError("obs_col, obs_card and obs_stride must have length node_ptr[-1]; node_ptr[0] must be 0.")
    if tab_off[0] != 0 or tab_off[V] != tab.shape[0]:
        raise ValueError(f"tab_off must run from 0 to len(tab) = {tab.shape[0]}.")
    ptrs_np, steps_np, widths_np = column_pointers(columns, n)
    cdef const intp_t[::1] ptrs = ptrs_np
    cdef const intp_t[::1] steps = steps_np
    cdef const intp_t[::1] widths = widths_np
    for v in range(V):
        if node_ptr[v + 1] < node_ptr[v]:
            raise ValueError(f"node_ptr must be non-decreasing (node {v}).")
        size = 1
        for j in range(node_ptr[v + 1] - 1, node_ptr[v] - 1, -1):
            if obs_col[j] < 0 or obs_col[j] >= m or widths[obs_col[j]] == 0:
                raise ValueError(f"node {v} reads code array {obs_col[j]}, which is not given (len(columns) = {m}).")
            if obs_card[j] < 1 or obs_stride[j] != size:
                raise ValueError(f"node {v}: member {j} has cardinality {obs_card[j]} and stride {obs_stride[j]}; "
                                 f"expected a cardinality >= 1 and the C-order stride {size}.")
            size *= obs_card[j]
        if size >= 2**31:
            raise ValueError(f"node {v}: its table has {size} rows per class; the column kernel indexes at most "
                             f"2**31 - 1.")
        if tab_off[v + 1] - tab_off[v] != size * K:
            raise ValueError(f"node {v}: table length {tab_off[v + 1] - tab_off[v]} != {size} * K = {size * K}.")
    bounds_np = _row_blocks(n, n_threads)
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t n_blocks = bounds.shape[0] - 1
    idx_np = _thread_rows(n_blocks, _NODE_CHUNK * _COL_BLOCK, np.int32)
    flag_np = _thread_rows(n_blocks, _COL_BLOCK, np.int32)
    err_np = _thread_rows(n_blocks, 2, np.intp, -1)
    marked_np = _thread_rows(n_blocks, 1, np.intp, 0)
    cdef int32_t[:, ::1] idx = idx_np
    cdef int32_t[:, ::1] flag = flag_np
    cdef intp_t[:, ::1] err = err_np
    cdef intp_t[:, ::1] marked = marked_np
    cdef intp_t b, r0, r1, got
    cdef const intp_t* np_p = &node_ptr[0]
    cdef const intp_t* oc_p = &obs_col[0] if F > 0 else NULL
    cdef const intp_t* ok_p = &obs_card[0] if F > 0 else NULL
    cdef const intp_t* os_p = &obs_stride[0] if F > 0 else NULL
    cdef const float64_t* tab_p = &tab[0] if tab.shape[0] > 0 else NULL
    cdef const intp_t* ptrs_p = &ptrs[0] if m > 0 else NULL
    cdef const intp_t* steps_p = &steps[0] if m > 0 else NULL
    cdef const intp_t* widths_p = &widths[0] if m > 0 else NULL
    if n == 0:
        return 0
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            r0 = bounds[b]
            while r0 < bounds[b + 1]:
                r1 = min(r0 + _COL_BLOCK, bounds[b + 1])
                got = _columns_block(ptrs_p, steps_p, widths_p, r0, r1, np_p, oc_p, ok_p, os_p, &tab_off[0], V,
                                     tab_p, K, &out[r0, 0], &idx[b, 0], &flag[b, 0], &err[b, 0])
                if got < 0:
                    break
                marked[b, 0] += got
                r0 = r1
    for b in range(n_blocks):
        if err[b, 0] >= 0:
            j = err[b, 1]
            col = columns[obs_col[j]]
            raise KernelInputError("range", int(err[b, 0]), int(j), int(obs_col[j]), int(col[err[b, 0]]))
    return int(marked_np[:, 0].sum())
