"""Exact marginalisation of missing cells on *one-dependence* networks: ``log p(H=h, x_observed)`` per row.

A one-dependence network has one distinguished variable ``H`` (class or cluster, never a column of ``X``) and
feature nodes each with **at most one feature parent** besides ``H`` (naive Bayes, TAN, FAN, SBN, ABN, and each
class's/cluster's tree of a Chow-Liu multinet). For a fixed ``h`` the feature nodes form a forest, so the sum over
the missing cells is one upward pass (leaves to roots) of the sum-product algorithm:

* a node ``u`` with children messages ``m_u(x) = sum_{c child of u} log lambda_c(x)`` sends to its parent ``p``
  ``log lambda_u(s) = log P(x_u | s, h) + m_u(x_u)`` when ``u`` is observed, and
  ``log lambda_u(s) = logsumexp_x [log P(x | s, h) + m_u(x)]`` when ``u`` is missing (code ``-1``);
* a root adds the same quantity without ``s`` to ``log p(h, x_observed)``.

Everything is in natural-log space (max-subtracted log-sum-exp), so 1,000 features do not underflow. When the
parent ``p`` is observed only the entry ``s = x_p`` is computed.

Plan (flat layout; built by ``pgmpy_ext.stats.ForestPlan``)
-----------------------------------------------------------
``V`` nodes and ``K`` values of ``H``. The structure may differ per ``h`` (a multinet), hence the ``(K, V)`` arrays.

* ``node_col`` : intp ``(V,)``. Column of ``X`` holding node ``v``, or ``-1`` for a *constant* node: a factor whose
  own variable is ``H`` (e.g. ``P(H | p)``) with cardinality 1 and code 0, always observed.
* ``node_card`` : intp ``(V,)``. Cardinality of node ``v`` (1 for a constant node).
* ``msg_off`` : intp ``(V + 1,)``. ``msg_off[v]:msg_off[v+1]`` is node ``v``'s slot in the message scratch
  (``msg_off[v+1] - msg_off[v] == node_card[v]``, ``msg_off[0] == 0``).
* ``order`` : intp ``(K, V)``. For each ``h``, a permutation of the nodes with every child before its parent.
* ``par`` : intp ``(K, V)``. Node index of the feature parent of node ``v`` under ``h``, ``-1`` for a root.
* ``off``, ``xs``, ``ps`` : intp ``(K, V)``. The factor of node ``v`` under ``h`` is
  ``log_cpt[off[h, v] + x * xs[h, v] + s * ps[h, v]]`` for own value ``x`` and parent value ``s``
  (``ps`` unused for a root).
* ``log_add`` : float64 ``(K,)``. Constant added per ``h`` (the multinet's ``log P(H = h)``; zeros when the prior is
  a node of the plan).
* ``log_cpt`` : float64 ``(T,)``. Natural-log factors (``-inf`` for zeros).

The ``def`` body checks the plan (shapes, that every factor entry lies inside ``log_cpt``, that ``order`` puts
children first) before ``nogil``; codes are checked in the loop (negative = missing; ``>= card`` stops the kernel
and is reported).
"""
import numpy as np

from cython.parallel cimport prange

include "_scratch.pxi"
from libc.math cimport exp, log, INFINITY

from _typedefs cimport code_t, float64_t, intp_t


cdef inline double _lse_add(double acc, double v) noexcept nogil:
    """log(exp(acc) + exp(v)), -inf safe."""
    if v == -INFINITY:
        return acc
    if acc == -INFINITY:
        return v
    if acc >= v:
        return acc + log(1.0 + exp(v - acc))
    return v + log(1.0 + exp(acc - v))


cdef inline double _lse_own(const float64_t* log_cpt, intp_t base, intp_t xs, const float64_t* m,
                            intp_t card) noexcept nogil:
    """logsumexp_x (log_cpt[base + x * xs] + m[x]) for x < card, max-subtracted; -inf when every term is."""
    cdef intp_t x
    cdef double t, mx = -INFINITY, s = 0.0
    for x in range(card):
        t = log_cpt[base + x * xs] + m[x]
        if t > mx:
            mx = t
    if mx == -INFINITY:
        return -INFINITY
    for x in range(card):
        s += exp(log_cpt[base + x * xs] + m[x] - mx)
    return mx + log(s)


cdef inline intp_t _row_forest(const code_t[:, ::1] X, intp_t r, const intp_t[::1] node_col,
                               const intp_t[::1] node_card, const intp_t[::1] msg_off,
                               const intp_t[:, ::1] order, const intp_t[:, ::1] par, const intp_t[:, ::1] off,
                               const intp_t[:, ::1] xs, const intp_t[:, ::1] ps, const float64_t[::1] log_add,
                               const float64_t[::1] log_cpt, intp_t K, float64_t* msg, intp_t S,
                               float64_t* out) noexcept nogil:
    """out[h] = log p(H=h, x_r observed) for h < K. Returns -1, or the node whose code is out of range."""
    cdef intp_t V = node_col.shape[0]
    cdef intp_t h, i, v, p, c, card, pcard, x, xp, s, base, q
    cdef double total, val
    cdef const float64_t* lc = &log_cpt[0]
    # codes are checked once per row, before any h
    for v in range(V):
        c = node_col[v]
        if c >= 0 and X[r, c] >= node_card[v]:
            return v
    for h in range(K):
        for i in range(S):
            msg[i] = 0.0
        total = log_add[h]
        for i in range(V):
            v = order[h, i]
            c = node_col[v]
            card = node_card[v]
            x = X[r, c] if c >= 0 else 0
            p = par[h, v]
            base = off[h, v]
            q = xs[h, v]
            if p < 0:
                if x >= 0:
                    total += lc[base + x * q] + msg[msg_off[v] + x]
                else:
                    total += _lse_own(lc, base, q, msg + msg_off[v], card)
                continue
            xp = X[r, node_col[p]]
            pcard = node_card[p]
            if xp >= 0:
                if x >= 0:
                    val = lc[base + x * q + xp * ps[h, v]] + msg[msg_off[v] + x]
                else:
                    val = _lse_own(lc, base + xp * ps[h, v], q, msg + msg_off[v], card)
                msg[msg_off[p] + xp] += val
            else:
                for s in range(pcard):
                    if x >= 0:
                        val = lc[base + x * q + s * ps[h, v]] + msg[msg_off[v] + x]
                    else:
                        val = _lse_own(lc, base + s * ps[h, v], q, msg + msg_off[v], card)
                    msg[msg_off[p] + s] += val
        out[h] = total
    return -1


def check_plan(intp_t n_cols, const intp_t[::1] node_col, const intp_t[::1] node_card, const intp_t[::1] msg_off,
               const intp_t[:, ::1] order, const intp_t[:, ::1] par, const intp_t[:, ::1] off,
               const intp_t[:, ::1] xs, const intp_t[:, ::1] ps, const float64_t[::1] log_add, intp_t T):
    """Validate a forest plan against itself, ``n_cols`` and the length ``T`` of ``log_cpt``; raise ValueError."""
    cdef intp_t V = node_col.shape[0]
    cdef intp_t K = log_add.shape[0]
    cdef intp_t h, i, v, p, hi
    if K < 1:
        raise ValueError(f"log_add has length {K}; K (cardinality of H) must be >= 1.")
    if node_card.shape[0] != V or msg_off.shape[0] != V + 1:
        raise ValueError(f"node_card has length {node_card.shape[0]} and msg_off {msg_off.shape[0]}; expected V = {V} "
                         f"and V + 1.")
    for name, a in (("order", order), ("par", par), ("off", off), ("xs", xs), ("ps", ps)):
        if a.shape[0] != K or a.shape[1] != V:
            raise ValueError(f"{name} has shape ({a.shape[0]}, {a.shape[1]}), expected (K, V) = ({K}, {V}).")
    if msg_off[0] != 0:
        raise ValueError("msg_off[0] must be 0.")
    for v in range(V):
        if node_card[v] < 1:
            raise ValueError(f"node {v}: cardinality {node_card[v]} must be >= 1.")
        if msg_off[v + 1] - msg_off[v] != node_card[v]:
            raise ValueError(f"node {v}: msg_off slot of length {msg_off[v + 1] - msg_off[v]} != its cardinality "
                             f"{node_card[v]}.")
        if node_col[v] < -1 or node_col[v] >= n_cols:
            raise ValueError(f"node {v}: column {node_col[v]} out of range for X with {n_cols} columns (-1 for a "
                             f"constant node).")
        if node_col[v] == -1 and node_card[v] != 1:
            raise ValueError(f"node {v}: a constant node (column -1) must have cardinality 1.")
    pos_np = np.empty(max(V, 1), dtype=np.intp)
    cdef intp_t[::1] pos = pos_np
    for h in range(K):
        pos_np.fill(-1)
        for i in range(V):
            v = order[h, i]
            if v < 0 or v >= V or pos[v] >= 0:
                raise ValueError(f"order[{h}] is not a permutation of 0..{V - 1}.")
            pos[v] = i
        for v in range(V):
            p = par[h, v]
            if p < -1 or p >= V or p == v:
                raise ValueError(f"par[{h}, {v}] == {p}, must be -1 or another node index in 0..{V - 1}.")
            if p >= 0 and node_col[p] < 0:
                raise ValueError(f"par[{h}, {v}] == {p} is a constant node; a parent must be a column of X.")
            if p >= 0 and pos[p] < pos[v]:
                raise ValueError(f"order[{h}] puts node {p} before its child {v}; children must come first.")
            hi = off[h, v] + (node_card[v] - 1) * xs[h, v]
            if p >= 0:
                hi += (node_card[p] - 1) * ps[h, v]
            if off[h, v] < 0 or xs[h, v] < 0 or (p >= 0 and ps[h, v] < 0) or hi >= T:
                raise ValueError(f"node {v} under h = {h}: factor entries reach index {hi}, outside log_cpt of "
                                 f"length {T}.")


def forest_log_joint(const code_t[:, ::1] X,
                     const intp_t[::1] rows,
                     const intp_t[::1] node_col,
                     const intp_t[::1] node_card,
                     const intp_t[::1] msg_off,
                     const intp_t[:, ::1] order,
                     const intp_t[:, ::1] par,
                     const intp_t[:, ::1] off,
                     const intp_t[:, ::1] xs,
                     const intp_t[:, ::1] ps,
                     const float64_t[::1] log_add,
                     const float64_t[::1] log_cpt,
                     float64_t[:, ::1] out,
                     int n_threads=1):
    """``out[i, h] = log p(H=h, x_observed)`` of row ``rows[i]`` of ``X``, missing cells (negative codes) summed out.

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes; negative = missing.
    rows : intp (n,), IN. Rows of ``X`` to evaluate (e.g. those with a missing cell), each in ``0..n_rows-1``.
    node_col, node_card, msg_off, order, par, off, xs, ps, log_add, log_cpt : IN. The plan (module docstring).
    out : float64 (n, K), OUT. Overwritten.
    n_threads : int, IN. OpenMP threads over blocks of ``rows`` (disjoint outputs: bit-identical for every value).

    Returns
    -------
    None, or ``(row, node)``: the first row (of ``X``) found with a code outside its node's cardinality (``out`` is
    then undefined).
    """
    cdef intp_t n = rows.shape[0]
    cdef intp_t K = log_add.shape[0]
    cdef intp_t V = node_col.shape[0]
    cdef intp_t n_rows = X.shape[0]
    cdef intp_t i, b
    check_plan(X.shape[1], node_col, node_card, msg_off, order, par, off, xs, ps, log_add, log_cpt.shape[0])
    if out.shape[0] != n or out.shape[1] != K:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected (len(rows), K) = ({n}, {K}).")
    for i in range(n):
        if rows[i] < 0 or rows[i] >= n_rows:
            raise ValueError(f"rows[{i}] == {rows[i]} is outside 0..{n_rows - 1}.")
    if n == 0:
        return None
    if log_cpt.shape[0] == 0:
        raise ValueError("log_cpt is empty but the plan has factors.")
    cdef intp_t S = msg_off[V]
    cdef intp_t n_blocks = max(1, min(n_threads, n))
    bounds_np = np.linspace(0, n, n_blocks + 1).round().astype(np.intp)
    cdef const intp_t[::1] bounds = bounds_np
    msg_np = _thread_rows(n_blocks, S, np.float64)
    cdef float64_t[:, ::1] msg = msg_np
    err_np = _thread_rows(n_blocks, 2, np.intp, -1)
    cdef intp_t[:, ::1] err = err_np
    cdef intp_t bad
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            for i in range(bounds[b], bounds[b + 1]):
                bad = _row_forest(X, rows[i], node_col, node_card, msg_off, order, par, off, xs, ps, log_add,
                                  log_cpt, K, &msg[b, 0], S, &out[i, 0])
                if bad >= 0:
                    err[b, 0] = rows[i]
                    err[b, 1] = bad
                    break
    for b in range(n_blocks):
        if err[b, 0] >= 0:
            return int(err[b, 0]), int(err[b, 1])
    return None
