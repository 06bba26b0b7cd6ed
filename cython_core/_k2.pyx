"""K2 greedy parent search on integer codes: every candidate parent of a node scored in one counting pass.

Conventions (see STYLE.md section 3): natural logs; codes are int32 with ``-1`` = missing (available-case: a row
enters a family's counts only when every variable of that family is observed); unweighted data only (integer
counts, so every lgamma / log term is read from a table indexed by the count).

Local scores (``kind``), all decomposable over the parent configurations ``j`` that occur, so unobserved
configurations contribute 0 and need not be enumerated:

* ``KIND_DIRICHLET`` (0): ``sum_j [lgamma(r a) - lgamma(N_j + r a) + sum_k (lgamma(N_jk + a) - lgamma(a))]`` with a
  constant pseudo-count ``a`` per cell (``a = 1``: Cooper & Herskovits' K2; ``a = 0.5``: WEKA's BAYES score).
* ``KIND_BDEU`` (1): the same with ``a = ess / (r q)``, ``q`` = number of parent configurations in all.
* ``KIND_LL`` (2): ``sum_jk N_jk log(N_jk / N_j) - penalty * q * (r - 1)`` (``penalty``: 0 = LL, 1 = AIC,
  ``log(n) / 2`` = BIC).
"""
import numpy as np

from libc.math cimport lgamma, log

from cython.parallel cimport prange, threadid
from libc.stdint cimport uint64_t

from _typedefs cimport code_t, float64_t, intp_t

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil

cdef enum:
    KIND_DIRICHLET = 0
    KIND_BDEU = 1
    KIND_LL = 2


cdef inline bint _beats(double s, double ref, double rtol) noexcept nogil:
    cdef double a = ref if ref >= 0 else -ref
    if a < 1.0:
        a = 1.0
    return s > ref + rtol * a


cdef void _fill_tables(int kind, double a_cell, double r_child, intp_t n_max,
                       float64_t* cell, float64_t* marg) noexcept nogil:
    """cell[N] and marg[N] for N = 0..n_max (cell[0] = marg[0] = 0)."""
    cdef intp_t n
    cdef double lga, lgra
    cell[0] = 0.0
    marg[0] = 0.0
    if kind == KIND_LL:
        for n in range(1, n_max + 1):
            cell[n] = n * log(<double> n)
            marg[n] = -cell[n]
    else:
        lga = lgamma(a_cell)
        lgra = lgamma(r_child * a_cell)
        for n in range(1, n_max + 1):
            cell[n] = lgamma(n + a_cell) - lga
            marg[n] = lgra - lgamma(n + r_child * a_cell)


cdef double _group_score(const code_t* z, intp_t rz, intp_t rc, const intp_t* rows, const code_t* xs,
                         const intp_t* gptr, intp_t n_groups, intp_t single_start, intp_t n_sorted,
                         const float64_t* cell, const float64_t* marg, intp_t* cnt, intp_t* mcnt) noexcept nogil:
    """Score of the family (child, parents, z) from rows grouped by the parents' configuration; ``z`` None-like
    (NULL) means no candidate (rz == 1). Groups ``0..n_groups-1`` hold >= 2 rows; rows
    ``single_start..n_sorted-1`` are alone in their configuration (each contributes cell[1] + marg[1])."""
    cdef double s = 0.0
    cdef intp_t g, t, v, k, zz, n_single = 0
    for g in range(n_groups):
        for t in range(gptr[g], gptr[g + 1]):
            if z != NULL:
                zz = z[rows[t]]
                if zz < 0:
                    continue
            else:
                zz = 0
            cnt[zz * rc + xs[t]] += 1
            mcnt[zz] += 1
        for v in range(rz):
            if mcnt[v]:
                s += marg[mcnt[v]]
                mcnt[v] = 0
                for k in range(rc):
                    s += cell[cnt[v * rc + k]]
                    cnt[v * rc + k] = 0
    for t in range(single_start, n_sorted):
        if z == NULL or z[rows[t]] >= 0:
            n_single += 1
    return s + n_single * (cell[1] + marg[1])


cdef double _bitset_score(const uint64_t* zbits, intp_t rz, intp_t rc, intp_t W, const uint64_t* gbits,
                          const intp_t* wlo, const intp_t* whi, intp_t n_groups, const uint64_t* single,
                          const uint64_t* obs, const float64_t* cell, const float64_t* marg) noexcept nogil:
    """Score of the family (child, parents, z) from bit masks: ``gbits[(g * rc + k) * W + w]`` holds the rows of
    group g with child state k for k < rc - 1, and ``k = rc - 1`` holds every row of group g; ``zbits[v * W + w]``
    the rows where the candidate has state v. Counts are popcounts of their intersections (words
    ``wlo[g]..whi[g]`` only). ``single`` masks the rows alone in their group; ``obs`` (or NULL when the candidate
    has no missing value) the rows where the candidate is observed."""
    cdef double s = 0.0
    cdef intp_t g, v, k, w, n_v, n_vk, rest, n_single = 0
    cdef const uint64_t* gb
    cdef uint64_t zm
    for g in range(n_groups):
        gb = gbits + g * rc * W
        for v in range(rz):
            n_v = 0
            for w in range(wlo[g], whi[g] + 1):
                n_v += __builtin_popcountll(gb[(rc - 1) * W + w] & zbits[v * W + w])
            if n_v == 0:
                continue
            s += marg[n_v]
            rest = n_v
            for k in range(rc - 1):
                n_vk = 0
                for w in range(wlo[g], whi[g] + 1):
                    n_vk += __builtin_popcountll(gb[k * W + w] & zbits[v * W + w])
                s += cell[n_vk]
                rest -= n_vk
            s += cell[rest]
    for w in range(W):
        zm = single[w]
        if obs != NULL:
            zm = zm & obs[w]
        n_single += __builtin_popcountll(zm)
    return s + n_single * (cell[1] + marg[1])


def k2_search(const code_t[:, ::1] codes_t,
              const intp_t[::1] cards,
              const intp_t[::1] cols,
              const intp_t[::1] order,
              const intp_t[::1] fixed,
              intp_t max_parents,
              int kind,
              double alpha,
              double ess,
              double penalty,
              double tie_rtol,
              intp_t n_threads,
              intp_t p_start,
              intp_t p_end,
              intp_t[:, ::1] out_parents,
              float64_t[::1] out_scores):
    """K2 search (Cooper & Herskovits 1992) over the variables ``cols`` in ``order``, with ``fixed`` parents.

    Parameters
    ----------
    codes_t : int32 (n_cols, n_rows), IN. Column-major codes (``EncodedData.codes.T``), ``-1`` = missing.
    cards : intp (n_cols,), IN. Cardinality of each data column (>= 1).
    cols : intp (m,), IN. Data column of each searched variable (positions ``0..m-1``).
    order : intp (m,), IN. A permutation of ``0..m-1``: a variable's candidate parents are the variables before it.
    fixed : intp (f,), IN. Data columns that are parents of every searched variable (e.g. the class), not
        counted in ``max_parents``, never among ``cols``.
    max_parents : intp, IN. At most this many searched parents per variable (>= 0).
    kind : int, IN. 0 Dirichlet (pseudo-count ``alpha`` per cell), 1 BDeu (``ess``), 2 log-likelihood with
        ``penalty`` per free parameter.
    n_threads : intp, IN. Threads scoring the candidates of one step (each writes its own candidates' scores;
        the best is then picked serially, so the result does not depend on it).
    tie_rtol : float, IN. A candidate replaces the best only if its score exceeds it by more than
        ``tie_rtol * max(1, |best|)`` (ties: the lowest position), and a parent is added only if it improves the
        current score by more than that.
    p_start, p_end : intp, IN. Search the variables ``order[p_start:p_end]`` only (so that a caller can show
        progress between calls); their rows of the outputs are written, the others are left as they are.
    out_parents : intp (m, max_parents), OUT. Rows of the searched variables filled with the chosen parents (positions, in the order added), the
        rest ``-1``.
    out_scores : float64 (m,), OUT. Final local score of each variable (fixed parents included).

    Notes
    -----
    For each variable, the rows where it and its current parents are observed are grouped by parent
    configuration (a counting sort of dense configuration ids, refined by one column per added parent); every
    candidate is then scored by one pass over the grouped rows, counting ``(z, x)`` within each group into a
    ``r_z x r`` scratch table that is read (table lookups) and cleared before the next group. Singleton groups
    contribute a constant and are only counted. Cost per candidate: O(n_rows + n_groups * r_z * r).
    """
    cdef intp_t n_cols = codes_t.shape[0]
    cdef intp_t n_rows = codes_t.shape[1]
    cdef intp_t m = cols.shape[0]
    cdef intp_t nf = fixed.shape[0]
    cdef intp_t t, i
    if cards.shape[0] != n_cols:
        raise ValueError(f"cards has {cards.shape[0]} entries for {n_cols} columns.")
    if order.shape[0] != m:
        raise ValueError(f"order has {order.shape[0]} entries for {m} variables.")
    if out_parents.shape[0] != m or out_parents.shape[1] != max_parents or out_scores.shape[0] != m:
        raise ValueError("out_parents must be (m, max_parents) and out_scores (m,).")
    if kind < 0 or kind > 2:
        raise ValueError(f"kind == {kind}, must be 0, 1 or 2.")
    for t in range(m):
        if cols[t] < 0 or cols[t] >= n_cols or order[t] < 0 or order[t] >= m:
            raise ValueError("cols and order must index the data columns and the variables.")
    for t in range(nf):
        if fixed[t] < 0 or fixed[t] >= n_cols:
            raise ValueError("fixed must index the data columns.")
    cdef intp_t max_card = 1
    for t in range(n_cols):
        if cards[t] > max_card:
            max_card = cards[t]
    # scratch, allocated once per call
    cdef intp_t[::1] gid = np.zeros(n_rows, dtype=np.intp)
    cdef intp_t[::1] gid_new = np.zeros(n_rows, dtype=np.intp)
    cdef intp_t[::1] remap = np.full(max(n_rows, 1) * max_card + 1, -1, dtype=np.intp)
    cdef intp_t[::1] gsize = np.zeros(n_rows + 1, dtype=np.intp)
    cdef intp_t[::1] gpos = np.zeros(n_rows + 1, dtype=np.intp)
    cdef intp_t[::1] gptr = np.zeros(n_rows + 2, dtype=np.intp)
    cdef intp_t[::1] rows = np.zeros(max(n_rows, 1), dtype=np.intp)
    cdef intp_t[::1] used = np.zeros(max(n_rows, 1), dtype=np.intp)
    cdef code_t[::1] xs = np.zeros(max(n_rows, 1), dtype=np.int32)
    if n_threads < 1:
        n_threads = 1
    cdef intp_t[:, ::1] cnt = np.zeros((n_threads, max_card * max_card), dtype=np.intp)
    cdef intp_t[:, ::1] mcnt = np.zeros((n_threads, max_card), dtype=np.intp)
    cdef float64_t[::1] cand_score = np.zeros(max(m, 1), dtype=np.float64)
    cdef intp_t[::1] present = np.zeros(max_card + 1, dtype=np.intp)
    cdef intp_t tid
    cdef float64_t[:, ::1] cell = np.zeros((max_card + 1, n_rows + 1), dtype=np.float64)
    cdef float64_t[:, ::1] marg = np.zeros((max_card + 1, n_rows + 1), dtype=np.float64)
    cdef float64_t[::1] cell0 = np.zeros(n_rows + 1, dtype=np.float64)
    cdef float64_t[::1] marg0 = np.zeros(n_rows + 1, dtype=np.float64)
    cdef intp_t[::1] placed = np.zeros(m, dtype=np.intp)
    cdef intp_t[::1] in_pa = np.zeros(m, dtype=np.intp)
    cdef intp_t[::1] pa = np.zeros(max(max_parents, 1), dtype=np.intp)
    # bit masks: zbits[col, v, w] rows where column col has state v; obs[col, w] rows where it is observed
    cdef intp_t W = (n_rows + 63) // 64 if n_rows > 0 else 1
    codes_np = np.asarray(codes_t)
    zbits_np = np.zeros((n_cols, max_card, W), dtype=np.uint64)
    obs_np = np.zeros((n_cols, W), dtype=np.uint64)
    has_missing_np = np.zeros(n_cols, dtype=np.intp)
    if n_rows > 0:
        pad = W * 64 - n_rows
        for v in range(max_card):
            hit = np.pad(codes_np == v, ((0, 0), (0, pad)))
            zbits_np[:, v, :] = np.packbits(hit.reshape(n_cols, W, 64)[:, :, ::-1], axis=2,
                                            bitorder="big").view(">u8").reshape(n_cols, W).astype(np.uint64)
        seen = np.pad(codes_np >= 0, ((0, 0), (0, pad)))
        obs_np[:, :] = np.packbits(seen.reshape(n_cols, W, 64)[:, :, ::-1], axis=2,
                                   bitorder="big").view(">u8").reshape(n_cols, W).astype(np.uint64)
        has_missing_np[:] = (codes_np < 0).any(axis=1)
    cdef uint64_t[:, :, ::1] zbits = zbits_np
    cdef uint64_t[:, ::1] obs = obs_np
    cdef intp_t[::1] has_missing = has_missing_np
    cdef uint64_t[::1] gbits = np.zeros((n_rows // 2 + 1) * max_card * W, dtype=np.uint64)
    cdef uint64_t[::1] single = np.zeros(W, dtype=np.uint64)
    cdef intp_t[::1] wlo = np.zeros(n_rows // 2 + 1, dtype=np.intp)
    cdef intp_t[::1] whi = np.zeros(n_rows // 2 + 1, dtype=np.intp)
    cdef bint use_bits
    cdef intp_t p, node, xcol, rc, n_used, n_groups, n_multi, single_start, n_pa, g, c, zc, rz, best_z, k, row, key
    cdef intp_t n_new
    cdef double q_pa, a_cell, best, cand, s
    cdef const code_t* x
    cdef const code_t* zp
    cdef bint ok
    if p_start < 0 or p_end > m or p_start > p_end:
        raise ValueError(f"need 0 <= p_start <= p_end <= {m}, got {p_start}, {p_end}.")
    for t in range(m):
        present[cards[cols[t]]] = 1
    for t in range(p_start):
        placed[order[t]] = 1
    with nogil:
        for p in range(p_start, p_end):
            node = order[p]
            xcol = cols[node]
            rc = cards[xcol]
            x = &codes_t[xcol, 0]
            # rows where the child and the fixed parents are observed; dense group ids over the fixed parents
            n_used = 0
            for row in range(n_rows):
                if x[row] < 0:
                    continue
                ok = True
                key = 0
                for t in range(nf):
                    c = codes_t[fixed[t], row]
                    if c < 0:
                        ok = False
                        break
                    key = key * cards[fixed[t]] + c
                if ok:
                    used[n_used] = row
                    gid[n_used] = key
                    n_used += 1
            q_pa = 1.0
            for t in range(nf):
                q_pa *= cards[fixed[t]]
            # compress the fixed-parent keys (may exceed n_rows) to dense ids in order of first appearance
            n_groups = _compress(&gid[0], n_used, &remap[0], remap.shape[0], &gid_new[0])
            n_pa = 0
            for t in range(m):
                in_pa[t] = 0
            # tables for the candidate-free family (rz == 1)
            a_cell = alpha if kind == KIND_DIRICHLET else ess / (rc * q_pa)
            _fill_tables(kind, a_cell, rc, n_used, &cell0[0], &marg0[0])
            single_start = _sort_groups(&gid[0], n_used, n_groups, &used[0], x, &gsize[0], &gpos[0], &gptr[0],
                                        &rows[0], &xs[0], &n_multi)
            use_bits = _prepare_bits(&rows[0], &xs[0], &gptr[0], n_multi, single_start, n_used, rc, W, max_card,
                                     &gbits[0], &wlo[0], &whi[0], &single[0])
            best = _group_score(NULL, 1, rc, &rows[0], &xs[0], &gptr[0], n_multi, single_start, n_used,
                                &cell0[0], &marg0[0], &cnt[0, 0], &mcnt[0, 0]) - penalty * q_pa * (rc - 1)
            while n_pa < max_parents:
                for t in range(1, max_card + 1):
                    if present[t]:
                        a_cell = alpha if kind == KIND_DIRICHLET else ess / (rc * q_pa * t)
                        _fill_tables(kind, a_cell, rc, n_used, &cell[t, 0], &marg[t, 0])
                for k in prange(m, num_threads=n_threads, schedule="dynamic", chunksize=64):
                    if placed[k] and not in_pa[k]:
                        tid = threadid()
                        zc = cols[k]
                        rz = cards[zc]
                        if use_bits:
                            s = _bitset_score(&zbits[zc, 0, 0], rz, rc, W, &gbits[0], &wlo[0], &whi[0], n_multi,
                                              &single[0], &obs[zc, 0] if has_missing[zc] else NULL,
                                              &cell[rz, 0], &marg[rz, 0])
                        else:
                            zp = &codes_t[zc, 0]
                            s = _group_score(zp, rz, rc, &rows[0], &xs[0], &gptr[0], n_multi, single_start,
                                             n_used, &cell[rz, 0], &marg[rz, 0], &cnt[tid, 0], &mcnt[tid, 0])
                        cand_score[k] = s - penalty * q_pa * rz * (rc - 1)
                best_z = -1
                cand = 0.0
                for k in range(m):
                    if placed[k] and not in_pa[k]:
                        if best_z < 0 or _beats(cand_score[k], cand, tie_rtol):
                            best_z = k
                            cand = cand_score[k]
                if best_z < 0 or not _beats(cand, best, tie_rtol):
                    break
                best = cand
                pa[n_pa] = best_z
                n_pa += 1
                in_pa[best_z] = 1
                # refine: drop rows where the new parent is missing, group id <- (gid, z)
                zc = cols[best_z]
                rz = cards[zc]
                q_pa *= rz
                zp = &codes_t[zc, 0]
                n_new = 0
                for t in range(n_used):
                    row = used[t]
                    if zp[row] < 0:
                        continue
                    used[n_new] = row
                    gid[n_new] = gid[t] * rz + zp[row]
                    n_new += 1
                n_used = n_new
                n_groups = _compress(&gid[0], n_used, &remap[0], remap.shape[0], &gid_new[0])
                single_start = _sort_groups(&gid[0], n_used, n_groups, &used[0], x, &gsize[0], &gpos[0],
                                            &gptr[0], &rows[0], &xs[0], &n_multi)
                use_bits = _prepare_bits(&rows[0], &xs[0], &gptr[0], n_multi, single_start, n_used, rc, W,
                                         max_card, &gbits[0], &wlo[0], &whi[0], &single[0])
            out_scores[node] = best
            for t in range(max_parents):
                out_parents[node, t] = pa[t] if t < n_pa else -1
            placed[node] = 1


cdef bint _prepare_bits(const intp_t* rows, const code_t* xs, const intp_t* gptr, intp_t n_multi,
                        intp_t single_start, intp_t n_used, intp_t rc, intp_t W, intp_t max_rz, uint64_t* gbits,
                        intp_t* wlo, intp_t* whi, uint64_t* single) noexcept nogil:
    """Fill the group masks of :func:`_bitset_score` and return whether the bitset path is cheaper than the row
    path (estimated operations per candidate: popcounts over the spanned words vs. one pass over the rows)."""
    cdef intp_t g, t, w, k, row, span = 0
    cdef double cost_bits, cost_rows
    for g in range(n_multi):
        wlo[g] = rows[gptr[g]] >> 6
        whi[g] = wlo[g]
        for t in range(gptr[g], gptr[g + 1]):
            w = rows[t] >> 6
            if w < wlo[g]:
                wlo[g] = w
            if w > whi[g]:
                whi[g] = w
        span += whi[g] - wlo[g] + 1
    cost_bits = <double> span * max_rz * rc
    cost_rows = 4.0 * single_start + <double> n_multi * max_rz * (rc + 1) * 2
    if cost_bits > cost_rows:
        return False
    for g in range(n_multi):
        for k in range(rc):
            for w in range(wlo[g], whi[g] + 1):
                gbits[(g * rc + k) * W + w] = 0
        for t in range(gptr[g], gptr[g + 1]):
            row = rows[t]
            w = row >> 6
            gbits[(g * rc + rc - 1) * W + w] |= (<uint64_t> 1) << (row & 63)
            if xs[t] < rc - 1:
                gbits[(g * rc + xs[t]) * W + w] |= (<uint64_t> 1) << (row & 63)
    for w in range(W):
        single[w] = 0
    for t in range(single_start, n_used):
        row = rows[t]
        single[row >> 6] |= (<uint64_t> 1) << (row & 63)
    return True


cdef intp_t _compress(intp_t* gid, intp_t n, intp_t* remap, intp_t remap_size, intp_t* tmp) noexcept nogil:
    """Relabel ``gid[0..n)`` to dense ids ``0..G-1`` in order of first appearance; return G. Keys below
    ``remap_size`` use the remap table (reset afterwards); larger keys (fixed parents with many configurations)
    fall back to a quadratic search over the ids seen so far."""
    cdef intp_t t, u, g = 0, key
    cdef bint big = False
    for t in range(n):
        if gid[t] >= remap_size or gid[t] < 0:
            big = True
            break
    if not big:
        for t in range(n):
            key = gid[t]
            if remap[key] < 0:
                remap[key] = g
                g += 1
            tmp[t] = remap[key]
        for t in range(n):
            remap[gid[t]] = -1
            gid[t] = tmp[t]
        return g
    # rare path: distinct keys by linear search (n distinct keys at most)
    for t in range(n):
        key = gid[t]
        tmp[t] = -1
        for u in range(t):
            if gid[u] == key:
                tmp[t] = tmp[u]
                break
        if tmp[t] < 0:
            tmp[t] = g
            g += 1
    for t in range(n):
        gid[t] = tmp[t]
    return g


cdef intp_t _sort_groups(const intp_t* gid, intp_t n, intp_t n_groups, const intp_t* used, const code_t* x,
                         intp_t* gsize, intp_t* gpos, intp_t* gptr, intp_t* rows, code_t* xs,
                         intp_t* n_multi) noexcept nogil:
    """Counting sort of the used rows by group: groups with >= 2 rows first (``gptr[0..n_multi]``), then the rows
    alone in their group from the returned position on. ``xs`` gets the child code of each sorted row."""
    cdef intp_t g, t, pos = 0, m_groups = 0, single_pos
    for g in range(n_groups):
        gsize[g] = 0
    for t in range(n):
        gsize[gid[t]] += 1
    for g in range(n_groups):
        if gsize[g] >= 2:
            gptr[m_groups] = pos
            gpos[g] = pos
            pos += gsize[g]
            m_groups += 1
    gptr[m_groups] = pos
    single_pos = pos
    for g in range(n_groups):
        if gsize[g] < 2:
            gpos[g] = pos
            pos += gsize[g]
    for t in range(n):
        g = gid[t]
        rows[gpos[g]] = used[t]
        xs[gpos[g]] = x[used[t]]
        gpos[g] += 1
    n_multi[0] = m_groups
    return single_pos
