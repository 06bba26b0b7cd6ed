"""Counting kernels on integer-coded data.

Conventions (see STYLE.md section 3):
* ``X`` is a C-contiguous ``(n_rows, n_cols)`` int8, int16 or int32 matrix of state codes (``fcode_t``, see
  _fcode.pxd); ``-1`` marks a missing cell.
* A *family table* is C-order over ``(child, *parents)`` in the order given by ``columns`` (callers pass the
  parents sorted), so ``out.reshape(card_child, -1)`` is ``TabularCPD.get_values()`` with that evidence order.
  The flat index is the mixed radix ``idx = idx * cards[k] + x[k]``.
* ``weights`` is a float64 vector of row weights; an **empty** vector means "every row has weight 1"
  (the fast unweighted path, no allocation needed).
* Rows whose family contains a ``-1`` are skipped (available-case counting, as pgmpy does).
* Outputs are allocated and zeroed by the caller; the kernels only add into them.
"""
import numpy as np

from cython.parallel cimport prange

include "_scratch.pxi"

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

from _fcode cimport fcode_t
from _typedefs cimport code_t, float64_t, intp_t, int64


def family_counts(const fcode_t[:, ::1] X,
                  const intp_t[::1] columns,
                  const intp_t[::1] cards,
                  const float64_t[::1] weights,
                  float64_t[::1] out):
    """Add the (weighted) counts of one family into ``out``.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    columns : intp (k,), IN. Column indices of the family, child first then parents (k >= 1).
    cards : intp (k,), IN. Cardinality of each family column.
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    out : float64 (prod(cards),), OUT. C-order table over ``columns``; added into.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t k = columns.shape[0]
    cdef intp_t r, t, idx, size = 1
    cdef code_t v
    cdef bint weighted = weights.shape[0] > 0
    if k < 1:
        raise ValueError("columns must name at least one column (the child).")
    if cards.shape[0] != k:
        raise ValueError(f"cards has length {cards.shape[0]}, expected {k} (one per family column).")
    for t in range(k):
        if columns[t] < 0 or columns[t] >= X.shape[1]:
            raise ValueError(f"column index {columns[t]} out of range for X with {X.shape[1]} columns.")
        if cards[t] < 1:
            raise ValueError(f"cardinality {cards[t]} of column {columns[t]} must be >= 1.")
        size *= cards[t]
    if out.shape[0] != size:
        raise ValueError(f"out has length {out.shape[0]}, expected prod(cards) = {size}.")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    with nogil:
        for r in range(n):
            idx = 0
            for t in range(k):
                v = X[r, columns[t]]
                if v < 0:
                    idx = -1
                    break
                idx = idx * cards[t] + v
            if idx < 0:
                continue
            if weighted:
                out[idx] += weights[r]
            else:
                out[idx] += 1.0


def pairwise_counts(const fcode_t[:, ::1] X,
                    const intp_t[::1] features,
                    const intp_t[::1] cards,
                    intp_t cond,
                    intp_t cond_card,
                    const float64_t[::1] weights,
                    const intp_t[::1] offsets,
                    float64_t[::1] out,
                    int n_threads=1,
                    int grouping=-1):
    """Joint counts N[i, j, x, y, c] of every feature pair i < j with a conditioning variable, in one pass.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    features : intp (m,), IN. Column indices of the features X_0..X_{m-1} (positions in this array are the
        pair indices i, j below).
    cards : intp (m,), IN. Cardinality of each feature.
    cond : intp, IN. Column index of the conditioning variable C, or -1 for none (then ``cond_card`` must be 1).
    cond_card : intp, IN. Cardinality of C (>= 1).
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    offsets : intp (m*(m-1)/2 + 1,), IN. ``offsets[p]`` is where the table of the p-th pair starts, pairs in
        lexicographic order (0,1), (0,2), ..., (0,m-1), (1,2), ...; ``offsets[p+1] - offsets[p] ==
        cards[i] * cards[j] * cond_card``. Built by ``pgmpy_ext.stats.pair_offsets``.
    out : float64 (offsets[-1],), OUT. Pair p = (i, j) occupies ``out[offsets[p]:offsets[p+1]]``, a C-order
        table over ``(x_i, x_j, c)``: flat index ``(x_i * cards[j] + x_j) * cond_card + c``. Added into.
    n_threads : int, IN. OpenMP threads over blocks of first features i (disjoint outputs, so the result is
        bit-identical for every thread count). Ignored when built without OpenMP.
    grouping : int, IN. Unweighted counts only: -1 (default) uses the grouped path below when it pays off
        (many rows), 0 never, 1 whenever the cardinalities allow it. The counts are the same integers either way.

    Notes
    -----
    A row is skipped entirely when C is missing; a pair is skipped in a row where either feature is missing.
    Per row, ``u[j] = x_j * cond_card + c`` is computed once, so each pair costs one multiply-add:
    ``out[offsets[p] + x_i * stride[j] + u[j]]`` with ``stride[j] = cards[j] * cond_card``.

    Grouped path (unweighted): runs of up to 3 consecutive features whose cardinalities multiply to at most 64
    are packed into one *group* code ``g = (x_0 * card_1 + x_1) * card_2 + x_2`` per row; the rows are counted
    into the (g_a, g_b, c) tables of the G*(G-1)/2 group pairs (about 9x fewer increments than m*(m-1)/2
    feature pairs for m = 36; even and odd rows of a block into two copies, added up at the end), each group's
    own (g_a, c) table is taken as a margin of one of them, and every feature-pair table is then read off them
    (each group cell adds its count to the pairs it contains). A row with a missing feature is counted
    pair by pair as above. The result is the same integers as the ungrouped path, for every thread count
    (threads count disjoint row ranges into their own tables, added up at the end; the pair tables are then read
    off by threads owning disjoint ranges of first groups).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t m = features.shape[0]
    cdef intp_t n_pairs = m * (m - 1) // 2
    cdef intp_t t
    cdef bint weighted = weights.shape[0] > 0
    if cards.shape[0] != m:
        raise ValueError(f"cards has length {cards.shape[0]}, expected {m} (one per feature).")
    if offsets.shape[0] != n_pairs + 1:
        raise ValueError(f"offsets has length {offsets.shape[0]}, expected m*(m-1)/2 + 1 = {n_pairs + 1}.")
    if cond_card < 1 or (cond < 0 and cond_card != 1):
        raise ValueError("cond_card must be >= 1, and 1 when cond == -1 (no conditioning variable).")
    if cond >= X.shape[1]:
        raise ValueError(f"cond column {cond} out of range for X with {X.shape[1]} columns.")
    for t in range(m):
        if features[t] < 0 or features[t] >= X.shape[1]:
            raise ValueError(f"feature column {features[t]} out of range for X with {X.shape[1]} columns.")
    if out.shape[0] != offsets[n_pairs]:
        raise ValueError(f"out has length {out.shape[0]}, expected offsets[-1] = {offsets[n_pairs]}.")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    if n >= 2**31 - 1:
        raise ValueError(f"pairwise_counts handles at most 2**31 - 2 rows per call, got {n}; count in chunks.")
    if m < 2 or n == 0:
        return
    # tab[tab_start[i] + x_i * (m - i - 1) + (j - i - 1)] = offsets[p(i, j)] + x_i * cards[j] * cond_card:
    # the start of row x_i of pair (i, j)'s table, so the inner loop is one load, one add and the increment.
    tab_start_np = np.zeros(m + 1, dtype=np.intp)
    cdef intp_t[::1] ts_w = tab_start_np
    for t in range(m):
        ts_w[t + 1] = ts_w[t] + cards[t] * (m - t - 1)
    tab_np = np.empty(max(1, ts_w[m]), dtype=np.intp)
    cdef intp_t[::1] tab_w = tab_np
    cdef intp_t i, j, xi, p = 0
    for i in range(m):  # typed loops: this table has sum(cards) * m entries
        for j in range(i + 1, m):
            for xi in range(cards[i]):
                tab_w[ts_w[i] + xi * (m - i - 1) + (j - i - 1)] = offsets[p] + xi * cards[j] * cond_card
            p += 1
    cdef const intp_t[::1] tab = tab_np
    cdef const intp_t[::1] tab_start = tab_start_np
    # Split the first-feature index i into blocks of roughly equal pair counts, one block per task.
    cdef intp_t n_blocks = max(1, min(n_threads, m - 1))
    bounds_np = _balanced_blocks(m, n_blocks)
    cdef const intp_t[::1] bounds = bounds_np
    # per-block scratch for u[j] = x_j * cond_card + c: (n_blocks, m)
    u_np = _thread_rows(n_blocks, m, np.intp)
    cdef intp_t[:, ::1] u = u_np
    cdef intp_t b
    # Unweighted counts go to an int32 scratch table first: half the memory traffic of float64 increments,
    # and exact (n_rows < 2**31 is checked above). Added into ``out`` at the end.
    cnt_np = np.zeros(out.shape[0] if not weighted else 0, dtype=np.int32)
    cdef int[::1] cnt = cnt_np
    groups = None if weighted or grouping == 0 else _feature_groups(np.asarray(cards), cond_card, n, grouping == 1)
    cdef const intp_t[::1] gstart
    cdef const intp_t[::1] gcards
    if groups is not None:
        gstart = groups[0]
        gcards = groups[1]
        _pairwise_grouped(X, features, cards, cond, cond_card, offsets, tab, tab_start, cnt, n_threads, gstart,
                          gcards)
        with nogil:
            for b in range(out.shape[0]):
                out[b] += cnt[b]
        return
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            _pairwise_block(X, features, cond, cond_card, weights, weighted, tab, tab_start,
                            out, cnt, u[b], bounds[b], bounds[b + 1])
        if not weighted:
            for b in range(out.shape[0]):
                out[b] += cnt[b]


cdef void _pairwise_block(const fcode_t[:, ::1] X, const intp_t[::1] features,
                          intp_t cond, intp_t cond_card, const float64_t[::1] weights, bint weighted,
                          const intp_t[::1] tab, const intp_t[::1] tab_start, float64_t[::1] out,
                          int[::1] cnt, intp_t[::1] u, intp_t i_lo, intp_t i_hi) noexcept nogil:
    """Rows x pairs (i, j) with i_lo <= i < i_hi, i < j < m; see pairwise_counts."""
    cdef intp_t n = X.shape[0]
    cdef intp_t m = features.shape[0]
    cdef intp_t r, i, j, c, q
    cdef code_t v
    cdef bint has_missing
    cdef double w = 1.0
    for r in range(n):
        if cond >= 0:
            c = X[r, cond]
            if c < 0:
                continue
        else:
            c = 0
        if weighted:
            w = weights[r]
        has_missing = False
        for j in range(i_lo, m):
            v = X[r, features[j]]
            if v < 0:
                has_missing = True
                u[j] = -1
            else:
                u[j] = v * cond_card + c
        for i in range(i_lo, i_hi):
            if u[i] < 0:
                continue
            q = tab_start[i] + (u[i] // cond_card) * (m - i - 1) - (i + 1)
            if not has_missing:
                if weighted:
                    for j in range(i + 1, m):
                        out[tab[q + j] + u[j]] += w
                else:
                    for j in range(i + 1, m):
                        cnt[tab[q + j] + u[j]] += 1
            elif weighted:
                for j in range(i + 1, m):
                    if u[j] >= 0:
                        out[tab[q + j] + u[j]] += w
            else:
                for j in range(i + 1, m):
                    if u[j] >= 0:
                        cnt[tab[q + j] + u[j]] += 1


cdef intp_t _GROUP_SIZE = 3         # features per group at most
cdef intp_t _GROUP_CARD = 64        # product of the cardinalities in a group at most
cdef intp_t _GROUP_CELLS = 1 << 19  # int32 cells of all group tables at most (2 MiB: about one core's L2)
cdef intp_t _GROUP_ROWS = 256       # rows per block of the grouped path (their group codes: G * 8 KiB)


def _feature_groups(cards, intp_t cond_card, intp_t n, bint force):
    """Consecutive feature groups for the grouped path of ``pairwise_counts``: ``(starts (G + 1,), gcards (G,))``
    with group ``a`` = features ``starts[a]:starts[a+1]``, or None when no group has two features, the group
    tables would not fit ``_GROUP_CELLS``, or (unless ``force``) the rows are too few to repay reading the pair
    tables off the group tables."""
    m = len(cards)
    # without a conditioning variable a group-pair table has a third of the cells: larger groups still fit L1
    max_card = _GROUP_CARD if cond_card > 1 else 3 * _GROUP_CARD
    for size in range(_GROUP_SIZE + (cond_card == 1), 1, -1):
        starts, gcards = [0], []
        t = 0
        while t < m:
            prod, k = int(cards[t]), 1
            while k < size and t + k < m and prod * int(cards[t + k]) <= max_card:
                prod *= int(cards[t + k])
                k += 1
            gcards.append(prod)
            t += k
            starts.append(t)
        G = len(gcards)
        if G == m:
            return None
        tot = sum(gcards)
        cells = ((tot * tot - sum(g * g for g in gcards)) // 2 + tot) * cond_card
        if cells > _GROUP_CELLS:
            continue
        saved = m * (m - 1) // 2 - G * (G - 1) // 2 - G  # increments saved per row
        # reading the pairs off touches each cell's size**2 pairs: on alarm (36 features | 3 classes, and 37
        # unconditioned) the grouped path was faster from about 1,000 and 4,500 rows, where n * saved is 0.55 and
        # 1.13 times cells * size**2 (issue 25); 1.25 keeps it on the safe side of both
        if force or 4 * n * saved > 5 * cells * size * size:
            return np.asarray(starts, dtype=np.intp), np.asarray(gcards, dtype=np.intp)
        return None
    return None


cdef int _pairwise_grouped(const fcode_t[:, ::1] X, const intp_t[::1] features, const intp_t[::1] cards,
                           intp_t cond, intp_t cond_card, const intp_t[::1] offsets, const intp_t[::1] tab,
                           const intp_t[::1] tab_start, int[::1] cnt, int n_threads,
                           const intp_t[::1] gstart, const intp_t[::1] gcards) except -1:
    """Grouped path of ``pairwise_counts`` (unweighted): adds every feature pair's counts into ``cnt``."""
    cdef intp_t G = gcards.shape[0]
    cdef intp_t a, b, p = 0
    # group pair tables (g_a, g_b, c) in lexicographic pair order, then one (g_a, c) table per group
    goff_np = np.zeros(G * (G - 1) // 2 + 1, dtype=np.intp)
    cdef intp_t[::1] goff_w = goff_np
    for a in range(G):
        for b in range(a + 1, G):
            goff_w[p + 1] = goff_w[p] + gcards[a] * gcards[b] * cond_card
            p += 1
    woff_np = goff_np[-1] + np.concatenate([[0], np.cumsum(np.asarray(gcards) * cond_card)]).astype(np.intp)
    gcnt_np = np.zeros(woff_np[G], dtype=np.int32)
    cdef const intp_t[::1] goff = goff_np
    cdef const intp_t[::1] woff = woff_np
    cdef int[::1] gcnt = gcnt_np
    # Counting: threads over row ranges, each into its own two copies of the group tables (rows 2b and 2b + 1 of
    # ``gall``: even and odd rows of a block go to different copies, so that two consecutive increments of one
    # cell, frequent on skewed data, do not wait for each other through memory) and its own pair tables for rows
    # with a missing feature (thread 0 into ``cnt``, the others into private copies); all added up at the end:
    # integer sums, the same counts for every thread count. Splitting the first groups instead made every thread
    # read every row and recompute the group codes of all the groups after its first (1.35x on 2 threads).
    cdef intp_t n = X.shape[0]
    cdef intp_t n_rows_blocks = max(1, min(n_threads, n))
    rbounds_np = np.linspace(0, n, n_rows_blocks + 1).round().astype(np.intp)
    cdef const intp_t[::1] rbounds = rbounds_np
    gall_np = _thread_rows(2 * n_rows_blocks, gcnt.shape[0], np.int32, 0)
    cx_np = _thread_rows(n_rows_blocks - 1, cnt.shape[0], np.int32, 0)
    cdef int[:, ::1] gall = gall_np
    cdef int[:, ::1] cx = cx_np
    ug_np = _thread_rows(n_rows_blocks, _GROUP_ROWS * 2 * G, np.int32)  # see _grouped_count
    u_np = _thread_rows(n_rows_blocks, features.shape[0], np.intp)
    cdef int[:, ::1] ug = ug_np
    cdef intp_t[:, ::1] u = u_np
    # Reading the feature pairs off the group tables: threads over ranges of first groups (disjoint outputs).
    cdef intp_t n_blocks = max(1, min(n_threads, G))
    bounds_np = _balanced_blocks(G, n_blocks) if G > 1 else np.array([0, 1], dtype=np.intp)
    bounds_np[-1] = G  # the last group has no later partner but owns its within-group pairs
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t t, k, ga, gb, c
    with nogil:
        for b in prange(n_rows_blocks, num_threads=n_rows_blocks, schedule="static"):
            if b == 0:
                _grouped_count(X, features, cards, cond, cond_card, tab, tab_start, cnt, gstart, gcards, woff,
                               goff, gall[0], gall[1], ug[b], u[b], rbounds[b], rbounds[b + 1])
            else:
                _grouped_count(X, features, cards, cond, cond_card, tab, tab_start, cx[b - 1], gstart, gcards,
                               woff, goff, gall[2 * b], gall[2 * b + 1], ug[b], u[b], rbounds[b], rbounds[b + 1])
        for k in prange(gcnt.shape[0], num_threads=n_rows_blocks, schedule="static"):
            for t in range(2 * n_rows_blocks):
                gcnt[k] += gall[t, k]
        if G > 1:  # each group's own (g_a, c) table: the margin of its pair with the last group (the last: with 0)
            for a in range(G):
                if a < G - 1:
                    k = goff[_pair_index(a, G - 1, G)]
                    for ga in range(gcards[a]):
                        for gb in range(gcards[G - 1]):
                            for c in range(cond_card):
                                gcnt[woff[a] + ga * cond_card + c] += gcnt[k + (ga * gcards[G - 1] + gb) * cond_card
                                                                           + c]
                else:
                    k = goff[_pair_index(0, G - 1, G)]
                    for gb in range(gcards[0]):
                        for ga in range(gcards[a]):
                            for c in range(cond_card):
                                gcnt[woff[a] + ga * cond_card + c] += gcnt[k + (gb * gcards[a] + ga) * cond_card + c]
        for t in range(n_rows_blocks - 1):
            for k in prange(cnt.shape[0], num_threads=n_rows_blocks, schedule="static"):
                cnt[k] += cx[t, k]
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            _grouped_readoff(features, cards, cond_card, offsets, cnt, gstart, gcards, goff, woff, gcnt,
                             bounds[b], bounds[b + 1])
    return 0


cdef inline intp_t _pair_index(intp_t i, intp_t j, intp_t m) noexcept nogil:
    return i * m - i * (i + 1) // 2 + (j - i - 1)


cdef void _grouped_count(const fcode_t[:, ::1] X, const intp_t[::1] features, const intp_t[::1] cards,
                         intp_t cond, intp_t K, const intp_t[::1] tab,
                         const intp_t[::1] tab_start, int[::1] cnt, const intp_t[::1] gstart,
                         const intp_t[::1] gcards, const intp_t[::1] woff, const intp_t[::1] goff,
                         int[::1] g0, int[::1] g1, int[::1] ug,
                         intp_t[::1] u, intp_t row_lo, intp_t row_hi) noexcept nogil:
    """Rows row_lo <= r < row_hi into every group-pair table (and every group's own table) of ``g0`` (even rows
    of a block) and ``g1`` (odd rows); rows with a missing feature counted pair by pair into ``cnt``."""
    cdef intp_t n = row_hi
    cdef intp_t m = features.shape[0]
    cdef intp_t G = gcards.shape[0]
    cdef intp_t r, a, b, t, i, j, c, g, q, s
    cdef code_t v
    cdef bint ok
    # Rows in blocks of _GROUP_ROWS: first every row's group codes into ``ug`` (column-major: for group a and the
    # block's rows, g * K + c at ug[a * _GROUP_ROWS + r] and g at ug[(G + a) * _GROUP_ROWS + r]); a row with a
    # missing feature is counted pair by pair at once and left out of the block. Then pair by pair: one
    # group-pair table (g_a, g_b, c), a few thousand cells, stays in L1 while every row of the block is added to
    # it at g_a * (card(g_b) * K) + g_b * K + c (row by row, each row touched all G * (G - 1) / 2 tables: L2
    # misses).
    cdef int* ua
    cdef int* ga
    cdef int* ub
    cdef int* t0
    cdef int* t1
    cdef int* gp0 = &g0[0]
    cdef int* gp1 = &g1[0]
    cdef int* ugp = &ug[0]
    cdef const intp_t* gsp = &gstart[0]
    cdef const intp_t* fp = &features[0]
    cdef const intp_t* cp = &cards[0]
    cdef const fcode_t* row
    cdef int neg
    cdef intp_t r0, r1, nb, RB = _GROUP_ROWS, p
    r0 = row_lo
    while r0 < n:
        r1 = min(r0 + RB, n)
        nb = 0
        for r in range(r0, r1):
            row = &X[r, 0]
            if cond >= 0:
                c = row[cond]
                if c < 0:
                    continue
            else:
                c = 0
            # codes of every group, a missing feature (a negative code) noticed once per row through the sign
            # bit of ``neg``; a skipped row's entries are overwritten by the next row's
            neg = 0
            for a in range(G):
                g = 0
                for t in range(gsp[a], gsp[a + 1]):
                    v = row[fp[t]]
                    neg = neg | v
                    g = g * cp[t] + v
                ugp[a * RB + nb] = <int>(g * K + c)
                ugp[(G + a) * RB + nb] = <int>g
            ok = neg >= 0
            if not ok:  # a missing feature: this row pair by pair
                for j in range(m):
                    v = X[r, features[j]]
                    u[j] = -1 if v < 0 else v * K + c
                for i in range(m):
                    if u[i] < 0:
                        continue
                    q = tab_start[i] + ((u[i] - c) // K) * (m - i - 1) - (i + 1)
                    for j in range(i + 1, m):
                        if u[j] >= 0:
                            cnt[tab[q + j] + u[j]] += 1
                continue
            nb += 1
        p = 0
        for a in range(G):
            ua = &ug[a * RB]
            ga = &ug[(G + a) * RB]
            t0 = gp0 + woff[a]
            t1 = gp1 + woff[a]
            if G == 1:  # otherwise the group's own table is a margin of a group-pair table (_pairwise_grouped)
                r = 0
                while r + 1 < nb:
                    t0[ua[r]] += 1
                    t1[ua[r + 1]] += 1
                    r += 2
                if r < nb:
                    t0[ua[r]] += 1
            for b in range(a + 1, G):
                ub = &ug[b * RB]
                s = gcards[b] * K
                t0 = gp0 + goff[p]
                t1 = gp1 + goff[p]
                p += 1
                r = 0
                while r + 1 < nb:
                    t0[ga[r] * s + ub[r]] += 1
                    t1[ga[r + 1] * s + ub[r + 1]] += 1
                    r += 2
                if r < nb:
                    t0[ga[r] * s + ub[r]] += 1
        r0 = r1


cdef void _grouped_readoff(const intp_t[::1] features, const intp_t[::1] cards, intp_t K,
                           const intp_t[::1] offsets, int[::1] cnt, const intp_t[::1] gstart,
                           const intp_t[::1] gcards, const intp_t[::1] goff, const intp_t[::1] woff,
                           const int[::1] gcnt, intp_t a_lo, intp_t a_hi) noexcept nogil:
    """The feature pairs whose first feature is in groups a_lo <= a < a_hi, read off the group tables into
    ``cnt`` (each group cell adds its count to the pairs it contains)."""
    cdef intp_t m = features.shape[0]
    cdef intp_t G = gcards.shape[0]
    cdef intp_t a, b, t, s, c, g, ga, gb, gp, cell, code_a, code_b
    cdef int val
    cdef intp_t xa[8]
    cdef intp_t xb[8]
    # digits: the last feature of a group varies fastest
    for a in range(a_lo, a_hi):
        for ga in range(gcards[a]):
            g = ga
            for t in range(gstart[a + 1] - 1, gstart[a] - 1, -1):
                xa[t - gstart[a]] = g % cards[t]
                g = g // cards[t]
            # within group a: pairs (s, t) of its features
            for c in range(K):
                val = gcnt[woff[a] + ga * K + c]
                if val == 0:
                    continue
                for s in range(gstart[a], gstart[a + 1]):
                    for t in range(s + 1, gstart[a + 1]):
                        cnt[offsets[_pair_index(s, t, m)] + (xa[s - gstart[a]] * cards[t] + xa[t - gstart[a]]) * K
                            + c] += val
            for b in range(a + 1, G):
                gp = _pair_index(a, b, G)
                for gb in range(gcards[b]):
                    g = gb
                    for t in range(gstart[b + 1] - 1, gstart[b] - 1, -1):
                        xb[t - gstart[b]] = g % cards[t]
                        g = g // cards[t]
                    cell = goff[gp] + (ga * gcards[b] + gb) * K
                    for c in range(K):
                        val = gcnt[cell + c]
                        if val == 0:
                            continue
                        for s in range(gstart[a], gstart[a + 1]):
                            code_a = xa[s - gstart[a]]
                            for t in range(gstart[b], gstart[b + 1]):
                                code_b = xb[t - gstart[b]]
                                cnt[offsets[_pair_index(s, t, m)] + (code_a * cards[t] + code_b) * K + c] += val


def _balanced_blocks(intp_t m, intp_t n_blocks):
    """Cut 0..m-1 (first-feature index) into n_blocks ranges with about equal numbers of pairs."""
    total = m * (m - 1) // 2
    bounds = [0]
    acc = 0
    for i in range(m - 1):
        acc += m - i - 1
        if len(bounds) < n_blocks and acc >= total * len(bounds) / n_blocks:
            bounds.append(i + 1)
    while len(bounds) < n_blocks:
        bounds.append(m - 1)
    bounds.append(m - 1)
    return np.asarray(bounds, dtype=np.intp)


def row_keys(const fcode_t[:, ::1] X, const intp_t[::1] cards, int64[::1] out):
    """Mixed-radix key of every row: ``key = key * (cards[k] + 1) + (x[k] + 1)`` (so -1 gets its own digit).

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    cards : intp (n_cols,), IN. Cardinality of each column.
    out : int64 (n_rows,), OUT. Overwritten. The caller checks that prod(cards + 1) < 2**63.

    Notes
    -----
    Equal rows get equal keys and distinct rows distinct keys, so ``np.unique(out)`` groups identical rows
    (unique-row compression with multiplicities, see ``pgmpy_ext.stats.unique_rows``).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t k = X.shape[1]
    cdef intp_t r, t
    cdef int64 key
    if cards.shape[0] != k:
        raise ValueError(f"cards has length {cards.shape[0]}, expected n_cols = {k}.")
    if out.shape[0] != n:
        raise ValueError(f"out has length {out.shape[0]}, expected n_rows = {n}.")
    with nogil:
        for r in range(n):
            key = 0
            for t in range(k):
                key = key * (cards[t] + 1) + (X[r, t] + 1)
            out[r] = key


cdef inline void _row_words(const fcode_t[:, ::1] X, intp_t r, const int64[::1] place,
                            const intp_t[::1] word_ptr, intp_t n_words, int64* out) noexcept nogil:
    """The ``row_keys_multi`` words of row ``r`` into ``out[0:n_words]``: ``sum (x + 1) * place`` over each word's
    columns (``place`` from ``_places``), the same integer as the Horner form ``key * (card + 1) + (x + 1)``
    (every partial sum is at most the word, which fits in int64), with four independent accumulators instead of
    one multiply-add chain per column."""
    cdef intp_t w, t, end
    cdef int64 a0, a1, a2, a3
    for w in range(n_words):
        a0 = 0
        a1 = 0
        a2 = 0
        a3 = 0
        t = word_ptr[w]
        end = word_ptr[w + 1]
        while t + 4 <= end:
            a0 += (<int64>X[r, t] + 1) * place[t]
            a1 += (<int64>X[r, t + 1] + 1) * place[t + 1]
            a2 += (<int64>X[r, t + 2] + 1) * place[t + 2]
            a3 += (<int64>X[r, t + 3] + 1) * place[t + 3]
            t += 4
        while t < end:
            a0 += (<int64>X[r, t] + 1) * place[t]
            t += 1
        out[w] = (a0 + a1) + (a2 + a3)


def _places(const intp_t[::1] cards, const intp_t[::1] word_ptr):
    """Place value of every column inside its key word: the product of ``card + 1`` of the word's later columns
    (int64, ``(n_cols,)``; the caller has checked that each word's ``prod(cards + 1)`` fits)."""
    out = np.zeros(cards.shape[0], dtype=np.int64)
    cdef int64[::1] place = out
    cdef intp_t w, t
    cdef int64 p
    for w in range(word_ptr.shape[0] - 1):
        p = 1
        for t in range(word_ptr[w + 1] - 1, word_ptr[w] - 1, -1):
            place[t] = p
            p *= cards[t] + 1
    return out


def row_keys_multi(const fcode_t[:, ::1] X, const intp_t[::1] cards, const intp_t[::1] word_ptr, int64[:, ::1] out):
    """Multi-word mixed-radix keys: word ``w`` is the ``row_keys`` key of columns ``word_ptr[w]:word_ptr[w+1]``.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    cards : intp (n_cols,), IN. Cardinality of each column.
    word_ptr : intp (n_words + 1,), IN. Column ranges of the words: ``0 = word_ptr[0] <= ... <= word_ptr[-1] =
        n_cols``. The caller checks that each word's ``prod(cards + 1)`` is below 2**63.
    out : int64 (n_rows, n_words), OUT. Overwritten.

    Notes
    -----
    Word ``w`` is ``key = key * (cards[k] + 1) + (x[k] + 1)`` over its columns, so the tuple of words orders rows
    exactly like the lexicographic order of their codes (-1 first): sorting rows by ``(out[:, 0], out[:, 1], ...)``
    sorts them like ``np.unique(X, axis=0)``.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t k = X.shape[1]
    cdef intp_t n_words = word_ptr.shape[0] - 1
    cdef intp_t r, t, w
    cdef int64 key
    if cards.shape[0] != k:
        raise ValueError(f"cards has length {cards.shape[0]}, expected n_cols = {k}.")
    if n_words < 0 or (n_words > 0 and (word_ptr[0] != 0 or word_ptr[n_words] != k)):
        raise ValueError(f"word_ptr must run from 0 to n_cols = {k}.")
    for w in range(n_words):
        if word_ptr[w + 1] < word_ptr[w]:
            raise ValueError("word_ptr must be non-decreasing.")
    if out.shape[0] != n or out.shape[1] != n_words:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected ({n}, {n_words}).")
    if n_words == 0:
        return
    cdef const int64[::1] place = _places(cards, word_ptr)
    with nogil:
        for r in range(n):
            _row_words(X, r, place, word_ptr, n_words, &out[r, 0])


cdef inline uint64_t _mix64(uint64_t h) noexcept nogil:
    """The splitmix64 finaliser: a bijection of 64-bit words that spreads every input bit over the output."""
    h ^= h >> 30
    h *= <uint64_t>0xbf58476d1ce4e5b9
    h ^= h >> 27
    h *= <uint64_t>0x94d049bb133111eb
    h ^= h >> 31
    return h


cdef struct _Slot:
    uint64_t hash
    intp_t group   # -1 = empty
    int64 w0       # the first two key words of the group, inline: a probe that finds its group reads one slot
    int64 w1


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define PGMPY_EXT_PREFETCH(p) __builtin_prefetch((p), 0, 1)
    #else
    #define PGMPY_EXT_PREFETCH(p) ((void)0)
    #endif
    """
    void PGMPY_EXT_PREFETCH(const void* p) noexcept nogil


cdef enum:
    _BLOCK = 16   # rows hashed (and their slots prefetched) before they are probed


cdef int _grow_table(_Slot** table, intp_t* size, intp_t new_size) noexcept nogil:
    """Rehash ``table`` into ``new_size`` (a power of two) slots; 0 on success, -1 when out of memory."""
    cdef _Slot* old = table[0]
    cdef intp_t old_size = size[0]
    cdef _Slot* tab = <_Slot*> malloc(new_size * sizeof(_Slot))
    cdef intp_t i, j
    cdef intp_t mask = new_size - 1
    if tab == NULL:
        return -1
    for i in range(new_size):
        tab[i].group = -1
    for i in range(old_size):
        if old[i].group >= 0:
            j = <intp_t>(old[i].hash & <uint64_t>mask)
            while tab[j].group >= 0:
                j = (j + 1) & mask
            tab[j] = old[i]
    free(old)
    table[0] = tab
    size[0] = new_size
    return 0


cdef void _check_key_words(const intp_t[::1] cards, const intp_t[::1] word_ptr, intp_t k) except *:
    """ValueError unless ``cards`` has one entry per column and ``word_ptr`` holds at least one word, runs from 0
    to ``k`` and does not decrease (the key words of ``group_rows`` and ``merge_sorted_runs``)."""
    cdef intp_t w
    cdef intp_t n_words = word_ptr.shape[0] - 1
    if cards.shape[0] != k:
        raise ValueError(f"cards has length {cards.shape[0]}, expected n_cols = {k}.")
    if n_words < 1 or word_ptr[0] != 0 or word_ptr[n_words] != k:
        raise ValueError(f"word_ptr must hold at least one word and run from 0 to n_cols = {k}.")
    for w in range(n_words):
        if word_ptr[w + 1] < word_ptr[w]:
            raise ValueError("word_ptr must be non-decreasing.")


def group_rows(const fcode_t[:, ::1] X, const intp_t[::1] cards, const intp_t[::1] word_ptr,
               const float64_t[::1] weights, intp_t[::1] inverse):
    """Group identical rows with a hash table, in one pass: the hash group-by behind ``unique_rows``.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    cards : intp (n_cols,), IN. Cardinality of each column.
    word_ptr : intp (n_words + 1,), IN. Column ranges of the key words, as in ``row_keys_multi`` (at least one
        word; the caller checks that each word's ``prod(cards + 1)`` is below 2**63).
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    inverse : intp (n_rows,) or (0,), OUT. Overwritten with each row's group; empty = not wanted.

    Returns
    -------
    first : intp (n_groups,). The first row of every group, groups in order of first appearance.
    counts : float64 (n_groups,). Summed weights of every group, added in row order (so equal, bit for bit, to
        ``np.bincount(inverse, weights)``).
    words : int64 (n_groups, n_words). The ``row_keys_multi`` words of every group: sorting the groups by this
        tuple sorts them in the lexicographic order of their codes (-1 first).

    Notes
    -----
    Open addressing with linear probing over a power-of-two table kept at most half full (doubled as groups
    appear). A slot holds the 64-bit hash of the row's words, its group and the group's first two words, so a
    probe compares inline (words past the second are compared against the group's stored words). Rows are
    hashed in blocks of 16 whose slots are prefetched before the block is probed, in row order. One pass and
    no sort, so it costs about one counting pass plus a probe per row; sorting only the distinct rows afterwards
    is the caller's.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t k = X.shape[1]
    cdef intp_t n_words = word_ptr.shape[0] - 1
    cdef bint weighted = weights.shape[0] > 0
    cdef bint want_inverse = inverse.shape[0] > 0
    cdef intp_t r, r0, r1, t, w, j, g, mask
    cdef intp_t n_groups = 0
    cdef intp_t cap = 1024
    cdef intp_t size = 2048
    cdef int64 key, k0, k1
    cdef uint64_t h
    cdef uint64_t hbuf[_BLOCK]
    cdef bint same
    cdef int failed = 0
    cdef int64* kbuf = NULL
    cdef int64* kr
    cdef int64* gwords = NULL
    cdef intp_t* gfirst = NULL
    cdef float64_t* gcount = NULL
    cdef _Slot* table = NULL
    cdef void* grown
    _check_key_words(cards, word_ptr, k)
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0).")
    if want_inverse and inverse.shape[0] != n:
        raise ValueError(f"inverse has length {inverse.shape[0]}, expected n_rows = {n} (or 0).")
    cdef const int64[::1] place = _places(cards, word_ptr)
    while cap > 16 and cap // 2 >= n:  # small inputs start small (the table is rebuilt as groups appear)
        cap //= 2
        size //= 2
    kbuf = <int64*> malloc(_BLOCK * n_words * sizeof(int64))
    gwords = <int64*> malloc(cap * n_words * sizeof(int64))
    gfirst = <intp_t*> malloc(cap * sizeof(intp_t))
    gcount = <float64_t*> malloc(cap * sizeof(float64_t))
    table = <_Slot*> malloc(size * sizeof(_Slot))
    try:
        if kbuf == NULL or gwords == NULL or gfirst == NULL or gcount == NULL or table == NULL:
            raise MemoryError("group_rows: out of memory for the hash table.")
        with nogil:
            for j in range(size):
                table[j].group = -1
            mask = size - 1
            r0 = 0
            while r0 < n:
                r1 = r0 + _BLOCK if r0 + _BLOCK < n else n
                for r in range(r0, r1):  # key words and hash of the block's rows; prefetch their home slots
                    kr = &kbuf[(r - r0) * n_words]
                    _row_words(X, r, place, word_ptr, n_words, kr)
                    h = 0
                    for w in range(n_words):
                        h = _mix64(h ^ <uint64_t>kr[w] ^ (<uint64_t>w << 58))
                    hbuf[r - r0] = h
                    PGMPY_EXT_PREFETCH(&table[<intp_t>(h & <uint64_t>mask)])
                for r in range(r0, r1):  # probe in row order (groups are numbered by first appearance)
                    kr = &kbuf[(r - r0) * n_words]
                    h = hbuf[r - r0]
                    k0 = kr[0]
                    k1 = kr[1] if n_words > 1 else 0
                    j = <intp_t>(h & <uint64_t>mask)
                    g = -1
                    while table[j].group >= 0:
                        if table[j].hash == h and table[j].w0 == k0 and table[j].w1 == k1:
                            g = table[j].group
                            same = True
                            for w in range(2, n_words):
                                if gwords[g * n_words + w] != kr[w]:
                                    same = False
                                    break
                            if same:
                                break
                            g = -1
                        j = (j + 1) & mask
                    if g < 0:
                        if n_groups == cap:
                            cap *= 2
                            grown = realloc(gwords, cap * n_words * sizeof(int64))
                            if grown == NULL:
                                failed = 1
                                break
                            gwords = <int64*> grown
                            grown = realloc(gfirst, cap * sizeof(intp_t))
                            if grown == NULL:
                                failed = 1
                                break
                            gfirst = <intp_t*> grown
                            grown = realloc(gcount, cap * sizeof(float64_t))
                            if grown == NULL:
                                failed = 1
                                break
                            gcount = <float64_t*> grown
                        g = n_groups
                        n_groups += 1
                        memcpy(&gwords[g * n_words], kr, n_words * sizeof(int64))
                        gfirst[g] = r
                        gcount[g] = 0.0
                        table[j].hash = h
                        table[j].group = g
                        table[j].w0 = k0
                        table[j].w1 = k1
                        if 2 * n_groups > size:
                            if _grow_table(&table, &size, 2 * size) != 0:
                                failed = 1
                                break
                            mask = size - 1
                    gcount[g] += weights[r] if weighted else 1.0
                    if want_inverse:
                        inverse[r] = g
                if failed:
                    break
                r0 = r1
        if failed:
            raise MemoryError("group_rows: out of memory growing the hash table.")
        first_np = np.empty(n_groups, dtype=np.intp)
        counts_np = np.empty(n_groups, dtype=np.float64)
        words_np = np.empty((n_groups, n_words), dtype=np.int64)
        if n_groups > 0:
            _copy_out(first_np, counts_np, words_np, gfirst, gcount, gwords, n_groups, n_words)
        return first_np, counts_np, words_np
    finally:
        free(kbuf)
        free(gwords)
        free(gfirst)
        free(gcount)
        free(table)


cdef _check_runs(const intp_t[::1] run_ptr, const float64_t[::1] counts, intp_t n):
    """The run boundaries and multiplicities of a k-way merge of ``n`` rows (raises ValueError)."""
    cdef intp_t i
    cdef intp_t n_runs = run_ptr.shape[0] - 1
    if n_runs < 0 or run_ptr[0] != 0 or run_ptr[n_runs] != n:
        raise ValueError(f"run_ptr must run from 0 to n_rows = {n}.")
    for i in range(n_runs):
        if run_ptr[i + 1] < run_ptr[i]:
            raise ValueError("run_ptr must be non-decreasing.")
    if counts.shape[0] != n:
        raise ValueError(f"counts has length {counts.shape[0]}, expected n_rows = {n}.")


cdef intp_t _kway_merge(const int64* words, intp_t n_words, const intp_t[::1] run_ptr,
                        const float64_t[::1] counts, intp_t* head, intp_t* take, float64_t* out) noexcept nogil:
    """k-way merge of runs of key words (rows ``run_ptr[i]:run_ptr[i + 1]`` of the row-major ``words``): for every
    distinct word tuple in increasing order, its first row (``take``) and its counts summed in run order (``out``).
    Returns the number of distinct tuples, or -1 when a run is not strictly increasing. ``head`` is scratch of
    ``n_runs`` entries."""
    cdef intp_t n_runs = run_ptr.shape[0] - 1
    cdef intp_t r, i, best, n_out = 0
    for i in range(n_runs):
        head[i] = run_ptr[i]
        for r in range(run_ptr[i] + 1, run_ptr[i + 1]):
            if _cmp_words(&words[(r - 1) * n_words], &words[r * n_words], n_words) >= 0:
                return -1
    while True:
        best = -1
        for i in range(n_runs):  # the smallest head (the first run holding it)
            if head[i] < run_ptr[i + 1]:
                if best < 0 or _cmp_words(&words[head[i] * n_words], &words[head[best] * n_words], n_words) < 0:
                    best = i
        if best < 0:
            return n_out
        take[n_out] = head[best]
        out[n_out] = counts[head[best]]
        head[best] += 1
        for i in range(best + 1, n_runs):  # equal heads of later runs, added in run order
            if head[i] < run_ptr[i + 1] and _cmp_words(&words[head[i] * n_words], &words[take[n_out] * n_words],
                                                       n_words) == 0:
                out[n_out] += counts[head[i]]
                head[i] += 1
        n_out += 1


def merge_sorted_runs(const fcode_t[:, ::1] X, const intp_t[::1] cards, const intp_t[::1] word_ptr,
                      const intp_t[::1] run_ptr, const float64_t[::1] counts):
    """Merge runs of distinct rows, each sorted in lexicographic order, into one such run (k-way merge).

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). The runs one after the other; run ``i`` is
        rows ``run_ptr[i]:run_ptr[i + 1]``, strictly increasing in the lexicographic order of the codes (-1
        first), as ``unique_rows`` returns them.
    cards : intp (n_cols,), IN. Cardinality of each column.
    word_ptr : intp (n_words + 1,), IN. Key words as in ``row_keys_multi`` (at least one).
    run_ptr : intp (n_runs + 1,), IN. Run boundaries, from 0 to n_rows, non-decreasing.
    counts : float64 (n_rows,), IN. Multiplicity of every row.

    Returns
    -------
    take : intp (n_out,). For every distinct row of the union, in lexicographic order, its first row in ``X``.
    out_counts : float64 (n_out,). Its multiplicities summed over the runs in run order (so equal, bit for bit, to
        grouping the concatenated runs with ``group_rows``, which adds in row order).

    Raises ValueError when a run is not strictly increasing. Costs one key computation per row plus ``n_runs``
    head comparisons per output row, with sequential memory access only (no hash table, no sort).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t k = X.shape[1]
    cdef intp_t n_words = word_ptr.shape[0] - 1
    cdef intp_t n_runs = run_ptr.shape[0] - 1
    cdef intp_t r, n_out = 0
    cdef int64* words = NULL
    cdef intp_t* head = NULL
    _check_key_words(cards, word_ptr, k)
    _check_runs(run_ptr, counts, n)
    cdef const int64[::1] place = _places(cards, word_ptr)
    take_np = np.empty(n, dtype=np.intp)
    out_np = np.empty(n, dtype=np.float64)
    cdef intp_t[::1] take = take_np
    cdef float64_t[::1] out = out_np
    words = <int64*> malloc((n if n > 0 else 1) * n_words * sizeof(int64))
    head = <intp_t*> malloc((n_runs if n_runs > 0 else 1) * sizeof(intp_t))
    try:
        if words == NULL or head == NULL:
            raise MemoryError("merge_sorted_runs: out of memory for the row keys.")
        with nogil:
            for r in range(n):
                _row_words(X, r, place, word_ptr, n_words, &words[r * n_words])
            n_out = _kway_merge(words, n_words, run_ptr, counts, head, &take[0] if n > 0 else NULL,
                                &out[0] if n > 0 else NULL)
    finally:
        free(words)
        free(head)
    if n_out < 0:
        raise ValueError("merge_sorted_runs: a run is not strictly increasing (its rows must be distinct and in "
                         "lexicographic order, as unique_rows returns them).")
    return take_np[:n_out].copy(), out_np[:n_out].copy()


def merge_sorted_words(const int64[:, ::1] W, const intp_t[::1] run_ptr, const float64_t[::1] counts):
    """Merge runs of distinct key words, each strictly increasing, into one such run (k-way merge on the words).

    The key-word form of ``merge_sorted_runs``: the runs hold ``row_keys_multi`` words instead of code rows, so a
    merge compares a few int64 words per head and moves ``n_words`` words per row, whatever the number of columns.

    Parameters
    ----------
    W : int64 (n_rows, n_words), IN. The runs one after the other; run ``i`` is rows ``run_ptr[i]:run_ptr[i + 1]``,
        strictly increasing in the order of the word tuples (the lexicographic order of the codes they key).
    run_ptr : intp (n_runs + 1,), IN. Run boundaries, from 0 to n_rows, non-decreasing.
    counts : float64 (n_rows,), IN. Multiplicity of every row.

    Returns
    -------
    words : int64 (n_out, n_words). The distinct word tuples of the union, increasing.
    out_counts : float64 (n_out,). Their multiplicities summed over the runs in run order (bit for bit what
        ``merge_sorted_runs`` adds).

    Raises ValueError when a run is not strictly increasing.
    """
    cdef intp_t n = W.shape[0]
    cdef intp_t n_words = W.shape[1]
    cdef intp_t n_runs = run_ptr.shape[0] - 1
    cdef intp_t n_out = 0
    cdef intp_t* head = NULL
    if n_words < 1:
        raise ValueError("W must have at least one key word per row.")
    _check_runs(run_ptr, counts, n)
    take_np = np.empty(n, dtype=np.intp)
    out_np = np.empty(n, dtype=np.float64)
    cdef intp_t[::1] take = take_np
    cdef float64_t[::1] out = out_np
    head = <intp_t*> malloc((n_runs if n_runs > 0 else 1) * sizeof(intp_t))
    try:
        if head == NULL:
            raise MemoryError("merge_sorted_words: out of memory.")
        if n > 0:
            with nogil:
                n_out = _kway_merge(&W[0, 0], n_words, run_ptr, counts, head, &take[0], &out[0])
    finally:
        free(head)
    if n_out < 0:
        raise ValueError("merge_sorted_words: a run is not strictly increasing (its rows must be distinct and in "
                         "increasing order of their key words).")
    return np.asarray(W)[take_np[:n_out]], out_np[:n_out].copy()


def words_to_codes(const int64[:, ::1] W, const intp_t[::1] chunk_word, const intp_t[::1] chunk_col,
                   const intp_t[::1] chunk_ncol, const int64[::1] chunk_radix, const intp_t[::1] table_ptr,
                   const int32_t[::1] table, fcode_t[:, ::1] out, int n_threads=1):
    """Decode ``row_keys_multi`` words back into code rows (the inverse of ``row_keys_multi``), a chunk of
    columns per division.

    Parameters
    ----------
    W : int64 (n_rows, n_words), IN. Key words.
    chunk_word, chunk_col, chunk_ncol : intp (n_chunks,), IN. Chunk ``c`` is columns ``chunk_col[c]:chunk_col[c] +
        chunk_ncol[c]`` of word ``chunk_word[c]``; the chunks of a word are consecutive and listed from its last
        columns to its first (the order in which division peels them off the word).
    chunk_radix : int64 (n_chunks,), IN. The product of ``card + 1`` over the chunk's columns.
    table_ptr : intp (n_chunks,), IN. Offset of each chunk's lookup table in ``table``.
    table : int32, IN. For chunk ``c`` and digit ``d < chunk_radix[c]``, the chunk's codes (-1 = missing) at
        ``table[table_ptr[c] + d * chunk_ncol[c] + j]``.
    out : int8, int16 or int32 (n_rows, n_cols), OUT (fused ``fcode_t``). Overwritten with the codes; the caller
        picks a dtype that holds every ``cards - 1``.

    n_threads : int. Threads over the rows (the result does not depend on it).

    Returns the number of missing cells written. One 64-bit division per chunk (a few columns) instead of one per
    column.
    """
    cdef intp_t n = W.shape[0]
    cdef intp_t n_chunks = chunk_word.shape[0]
    cdef intp_t r, c, j, w, base
    cdef intp_t n_missing = 0
    cdef int64 key = 0
    cdef int64 q, d
    cdef int32_t v
    for c in range(n_chunks):
        if chunk_word[c] < 0 or chunk_word[c] >= W.shape[1] or chunk_col[c] < 0 or \
                chunk_col[c] + chunk_ncol[c] > out.shape[1]:
            raise ValueError("words_to_codes: a chunk lies outside W's words or out's columns.")
    if out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} rows, expected {n}.")
    if n_threads < 1:
        n_threads = 1
    with nogil:
        for r in prange(n, num_threads=n_threads, schedule="static"):
            w = -1
            for c in range(n_chunks):
                if chunk_word[c] != w:
                    w = chunk_word[c]
                    key = W[r, w]
                q = key // chunk_radix[c]
                d = key - q * chunk_radix[c]
                key = q
                base = table_ptr[c] + d * chunk_ncol[c]
                for j in range(chunk_ncol[c]):
                    v = table[base + j]
                    out[r, chunk_col[c] + j] = <fcode_t>v
                    n_missing += v < 0
    return n_missing


cdef inline int _cmp_words(const int64* a, const int64* b, intp_t n_words) noexcept nogil:
    cdef intp_t w
    for w in range(n_words):
        if a[w] < b[w]:
            return -1
        if a[w] > b[w]:
            return 1
    return 0


cdef void _copy_out(intp_t[::1] first, float64_t[::1] counts, int64[:, ::1] words, const intp_t* gfirst,
                    const float64_t* gcount, const int64* gwords, intp_t n_groups, intp_t n_words):
    memcpy(&first[0], gfirst, n_groups * sizeof(intp_t))
    memcpy(&counts[0], gcount, n_groups * sizeof(float64_t))
    memcpy(&words[0, 0], gwords, n_groups * n_words * sizeof(int64))


def family_counts_multi(const fcode_t[:, ::1] X,
                        const intp_t[::1] fam_ptr,
                        const intp_t[::1] fam_cols,
                        const intp_t[::1] fam_cards,
                        const intp_t[::1] tab_offsets,
                        const float64_t[::1] weights,
                        float64_t[::1] out,
                        int n_threads=1):
    """Counts of many families in one pass over the rows.

    Parameters
    ----------
    X : int8, int16 or int32 (n_rows, n_cols), IN (fused ``fcode_t``). Codes, -1 = missing.
    fam_ptr : intp (V+1,), IN. Family v's columns are ``fam_cols[fam_ptr[v]:fam_ptr[v+1]]`` (child first, then
        parents in table order); every family has at least one column.
    fam_cols : intp (F,), IN. Column indices into X.
    fam_cards : intp (F,), IN. Cardinality of each family column.
    tab_offsets : intp (V+1,), IN. Family v's table is ``out[tab_offsets[v]:tab_offsets[v+1]]``, C-order over its
        columns (mixed radix ``idx = idx * card + x``); ``tab_offsets[v+1] - tab_offsets[v]`` is the product of its
        cardinalities.
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    out : float64 (tab_offsets[V],), OUT. Added into.
    n_threads : int, IN. Unweighted counts: OpenMP threads over row ranges, each into its own integer tables (the
        counts are integers: the result is the same for every value). Weighted counts run on one thread (their
        float sums keep the row order).

    Notes
    -----
    Each family skips the rows where one of its columns is missing (available-case counting), exactly like
    ``family_counts`` called once per family, but the rows are read once (row-major, cache friendly). Unweighted
    counts of at least ``_MULTI_MIN_ROWS`` rows take a blocked integer path (see ``_count_block``).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t V = fam_ptr.shape[0] - 1
    cdef intp_t r, v, t, idx, size
    cdef code_t x
    cdef bint weighted = weights.shape[0] > 0
    cdef double w = 1.0
    if V < 0 or tab_offsets.shape[0] != V + 1:
        raise ValueError("fam_ptr and tab_offsets must both have length V + 1.")
    if fam_cols.shape[0] != fam_cards.shape[0] or fam_ptr[V] != fam_cols.shape[0] or fam_ptr[0] != 0:
        raise ValueError("fam_cols and fam_cards must have length fam_ptr[-1], and fam_ptr[0] must be 0.")
    if out.shape[0] != tab_offsets[V] or (V > 0 and tab_offsets[0] != 0):
        raise ValueError(f"out has length {out.shape[0]}, expected tab_offsets[-1] = {tab_offsets[V]}.")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    for v in range(V):
        if fam_ptr[v + 1] <= fam_ptr[v]:
            raise ValueError(f"family {v} is empty; every family needs its child column.")
        size = 1
        for t in range(fam_ptr[v], fam_ptr[v + 1]):
            if fam_cols[t] < 0 or fam_cols[t] >= X.shape[1]:
                raise ValueError(f"column index {fam_cols[t]} out of range for X with {X.shape[1]} columns.")
            if fam_cards[t] < 1:
                raise ValueError(f"cardinality {fam_cards[t]} must be >= 1.")
            size *= fam_cards[t]
        if tab_offsets[v + 1] - tab_offsets[v] != size:
            raise ValueError(f"family {v}'s table has {tab_offsets[v + 1] - tab_offsets[v]} cells, expected {size}.")
    if V == 0:
        return
    if not weighted and n >= _MULTI_MIN_ROWS and n < 2**31 - 1 and tab_offsets[V] < 2**31 - 2:
        _family_counts_unweighted(X, fam_ptr, fam_cols, fam_cards, tab_offsets, out, n_threads)
        return
    with nogil:
        for r in range(n):
            if weighted:
                w = weights[r]
            for v in range(V):
                idx = 0
                for t in range(fam_ptr[v], fam_ptr[v + 1]):
                    x = X[r, fam_cols[t]]
                    if x < 0:
                        idx = -1
                        break
                    idx = idx * fam_cards[t] + x
                if idx >= 0:
                    out[tab_offsets[v] + idx] += w


# Unweighted path of ``family_counts_multi``: row by row into int32 tables, families of one and of two columns in
# their own straight loops (the common cases: a root, a feature given the class), _COUNT_COPIES interleaved copies
# when the tables are small (consecutive rows that hit the same cell then update different copies instead of
# waiting for each other's store), one set per thread. The counts are integers, so the result does not depend on
# the order of the increments: the same for every thread count.
cdef intp_t _MULTI_MIN_ROWS = 2048
cdef intp_t _COUNT_BLOCK = 256
cdef intp_t _COUNT_COPIES = 4
cdef intp_t _PAGE = 4096
cdef intp_t _COPY_CELLS = 1 << 15  # tables up to this many cells (128 KiB of int32) get _COUNT_COPIES copies


cdef void _count_block(const fcode_t[:, ::1] X, intp_t r0, intp_t r1, const intp_t* one_col, const intp_t* one_off,
                       intp_t n_one, const intp_t* two_a, const intp_t* two_b, const intp_t* two_kb,
                       const intp_t* two_off, intp_t n_two, const intp_t* gen, intp_t n_gen, const intp_t* fam_ptr,
                       const intp_t* fam_cols, const intp_t* fam_cards, const intp_t* tab_offsets, int* cnt,
                       intp_t T, intp_t copies) noexcept nogil:
    """Add the counts of rows r0 <= r < r1 into ``cnt`` (``copies`` tables of ``T`` cells, row ``r`` counting into
    copy ``r % copies``), row by row (each row's cells are read once, from L1): families of one column, families
    of two columns (``idx = a * card_b + b``), then the others (mixed radix over their columns)."""
    cdef intp_t v, t, t1, r, i, g
    cdef intp_t x, a, b
    cdef const fcode_t* row
    cdef int* c
    for r in range(r0, r1):
        row = &X[r, 0]
        c = cnt + (r % copies) * T
        for v in range(n_one):
            a = row[one_col[v]]
            if a >= 0:
                c[one_off[v] + a] += 1
        for v in range(n_two):
            a = row[two_a[v]]
            b = row[two_b[v]]
            if (a | b) >= 0:
                c[two_off[v] + a * two_kb[v] + b] += 1
        for g in range(n_gen):
            v = gen[g]
            i = 0
            for t in range(fam_ptr[v], fam_ptr[v + 1]):
                x = row[fam_cols[t]]
                if x < 0:
                    i = -1
                    break
                i = i * fam_cards[t] + x
            if i >= 0:
                c[tab_offsets[v] + i] += 1


def _family_groups(ptr, cols, cards, tab_offsets):
    """The families of ``family_counts_multi`` by size, for ``_count_block``: (columns and table offsets of the
    one-column families; first and second column, second cardinality and offset of the two-column families; the
    indices of the others; their three counts). Each array has one padding entry, so none is empty."""
    size = np.diff(ptr)
    offs = tab_offsets[:-1]
    one = np.flatnonzero(size == 1)
    two = np.flatnonzero(size == 2)
    gen = np.flatnonzero(size > 2)
    arrays = [cols[ptr[one]], offs[one], cols[ptr[two]], cols[ptr[two] + 1], cards[ptr[two] + 1], offs[two], gen]
    padded = [np.ascontiguousarray(np.append(a, 0), dtype=np.intp) for a in arrays]
    return (*padded, one.shape[0], two.shape[0], gen.shape[0])


cdef int _family_counts_unweighted(const fcode_t[:, ::1] X, const intp_t[::1] fam_ptr, const intp_t[::1] fam_cols,
                                   const intp_t[::1] fam_cards, const intp_t[::1] tab_offsets, float64_t[::1] out,
                                   int n_threads) except -1:
    cdef intp_t n = X.shape[0]
    cdef intp_t V = fam_ptr.shape[0] - 1
    cdef intp_t T = tab_offsets[V]
    cdef intp_t copies = _COUNT_COPIES if T <= _COPY_CELLS else 1
    cdef intp_t n_chunks = max(1, min(n_threads, n // _COUNT_BLOCK))
    cdef intp_t n_one, n_two, n_gen
    (one_col_np, one_off_np, two_a_np, two_b_np, two_kb_np, two_off_np, gen_np, n_one, n_two,
     n_gen) = _family_groups(np.asarray(fam_ptr), np.asarray(fam_cols), np.asarray(fam_cards),
                             np.asarray(tab_offsets))
    cdef const intp_t[::1] one_col = one_col_np
    cdef const intp_t[::1] one_off = one_off_np
    cdef const intp_t[::1] two_a = two_a_np
    cdef const intp_t[::1] two_b = two_b_np
    cdef const intp_t[::1] two_kb = two_kb_np
    cdef const intp_t[::1] two_off = two_off_np
    cdef const intp_t[::1] gen = gen_np
    bounds_np = np.linspace(0, n, n_chunks + 1).round().astype(np.intp)
    cdef const intp_t[::1] bounds = bounds_np
    cdef intp_t b, j, k
    # Each thread's family arrays and count tables in one region of whole pages, the arrays at its start and the
    # tables after them; with fewer table copies if that makes the region a single page. In one page no table
    # cell shares its page offset (address bits 0-11) with an array entry the row loop loads; otherwise a table
    # store and a later load of the arrays at the same page offset are treated as dependent by the CPU (4K
    # aliasing), and where numpy's per-call allocations landed made a call 43 or 60-80 ms on one thread
    # (benchmarks/results/quick.md).
    cdef intp_t n_desc[7]
    n_desc[:] = [one_col.shape[0], one_off.shape[0], two_a.shape[0], two_b.shape[0], two_kb.shape[0],
                 two_off.shape[0], gen.shape[0]]
    cdef const intp_t* srcs[7]
    srcs[:] = [&one_col[0], &one_off[0], &two_a[0], &two_b[0], &two_kb[0], &two_off[0], &gen[0]]
    cdef intp_t d_off[8]
    d_off[0] = 0
    for k in range(7):
        d_off[k + 1] = d_off[k] + n_desc[k] * <intp_t>sizeof(intp_t)
    cdef intp_t t_off = (d_off[7] + 63) // 64 * 64
    for k in range(copies, 0, -1):
        if t_off + k * T * <intp_t>sizeof(int) <= _PAGE:
            copies = k
            break
    cdef intp_t region = (t_off + copies * T * <intp_t>sizeof(int) + _PAGE - 1) // _PAGE * _PAGE
    buf_np = np.zeros(n_chunks * region + _PAGE, dtype=np.uint8)
    cdef unsigned char[::1] bufv = buf_np
    cdef char* mem = <char*> &bufv[0]
    mem += (_PAGE - (<intp_t> mem) % _PAGE) % _PAGE
    for b in range(n_chunks):
        for k in range(7):
            memcpy(mem + b * region + d_off[k], srcs[k], n_desc[k] * sizeof(intp_t))
    with nogil:
        for b in prange(n_chunks, num_threads=n_chunks, schedule="static"):
            _count_block(X, bounds[b], bounds[b + 1], <intp_t*>(mem + b * region + d_off[0]),
                         <intp_t*>(mem + b * region + d_off[1]), n_one, <intp_t*>(mem + b * region + d_off[2]),
                         <intp_t*>(mem + b * region + d_off[3]), <intp_t*>(mem + b * region + d_off[4]),
                         <intp_t*>(mem + b * region + d_off[5]), n_two, <intp_t*>(mem + b * region + d_off[6]),
                         n_gen, &fam_ptr[0], &fam_cols[0], &fam_cards[0], &tab_offsets[0],
                         <int*>(mem + b * region + t_off), T, copies)
        for b in range(n_chunks):
            for k in range(copies):
                for j in range(T):
                    out[j] += (<int*>(mem + b * region + t_off))[k * T + j]
    return 0
