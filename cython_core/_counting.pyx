"""Counting kernels on integer-coded data.

Conventions (see STYLE.md section 3):
* ``X`` is a C-contiguous ``(n_rows, n_cols)`` int32 matrix of state codes; ``-1`` marks a missing cell.
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

from _typedefs cimport code_t, float64_t, intp_t, int64


def family_counts(const code_t[:, ::1] X,
                  const intp_t[::1] columns,
                  const intp_t[::1] cards,
                  const float64_t[::1] weights,
                  float64_t[::1] out):
    """Add the (weighted) counts of one family into ``out``.

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes, -1 = missing.
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


def pairwise_counts(const code_t[:, ::1] X,
                    const intp_t[::1] features,
                    const intp_t[::1] cards,
                    intp_t cond,
                    intp_t cond_card,
                    const float64_t[::1] weights,
                    const intp_t[::1] offsets,
                    float64_t[::1] out,
                    int n_threads=1):
    """Joint counts N[i, j, x, y, c] of every feature pair i < j with a conditioning variable, in one pass.

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes, -1 = missing.
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

    Notes
    -----
    A row is skipped entirely when C is missing; a pair is skipped in a row where either feature is missing.
    Per row, ``u[j] = x_j * cond_card + c`` is computed once, so each pair costs one multiply-add:
    ``out[offsets[p] + x_i * stride[j] + u[j]]`` with ``stride[j] = cards[j] * cond_card``.
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
    for t in range(m):
        tab_start_np[t + 1] = tab_start_np[t] + cards[t] * (m - t - 1)
    tab_np = np.empty(max(1, tab_start_np[m]), dtype=np.intp)
    cdef intp_t i, j, xi, p = 0
    for i in range(m):
        for j in range(i + 1, m):
            for xi in range(cards[i]):
                tab_np[tab_start_np[i] + xi * (m - i - 1) + (j - i - 1)] = offsets[p] + xi * cards[j] * cond_card
            p += 1
    cdef const intp_t[::1] tab = tab_np
    cdef const intp_t[::1] tab_start = tab_start_np
    # Split the first-feature index i into blocks of roughly equal pair counts, one block per task.
    cdef intp_t n_blocks = max(1, min(n_threads, m - 1))
    bounds_np = _balanced_blocks(m, n_blocks)
    cdef const intp_t[::1] bounds = bounds_np
    # per-block scratch for u[j] = x_j * cond_card + c: (n_blocks, m)
    u_np = np.empty((n_blocks, m), dtype=np.intp)
    cdef intp_t[:, ::1] u = u_np
    cdef intp_t b
    # Unweighted counts go to an int32 scratch table first: half the memory traffic of float64 increments,
    # and exact (n_rows < 2**31 is checked above). Added into ``out`` at the end.
    cnt_np = np.zeros(out.shape[0] if not weighted else 0, dtype=np.int32)
    cdef int[::1] cnt = cnt_np
    with nogil:
        for b in prange(n_blocks, num_threads=n_blocks, schedule="static"):
            _pairwise_block(X, features, cond, cond_card, weights, weighted, tab, tab_start,
                            out, cnt, u[b], bounds[b], bounds[b + 1])
        if not weighted:
            for b in range(out.shape[0]):
                out[b] += cnt[b]


cdef void _pairwise_block(const code_t[:, ::1] X, const intp_t[::1] features,
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


def row_keys(const code_t[:, ::1] X, const intp_t[::1] cards, int64[::1] out):
    """Mixed-radix key of every row: ``key = key * (cards[k] + 1) + (x[k] + 1)`` (so -1 gets its own digit).

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes, -1 = missing.
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


def family_counts_multi(const code_t[:, ::1] X,
                        const intp_t[::1] fam_ptr,
                        const intp_t[::1] fam_cols,
                        const intp_t[::1] fam_cards,
                        const intp_t[::1] tab_offsets,
                        const float64_t[::1] weights,
                        float64_t[::1] out):
    """Counts of many families in one pass over the rows.

    Parameters
    ----------
    X : int32 (n_rows, n_cols), IN. Codes, -1 = missing.
    fam_ptr : intp (V+1,), IN. Family v's columns are ``fam_cols[fam_ptr[v]:fam_ptr[v+1]]`` (child first, then
        parents in table order); every family has at least one column.
    fam_cols : intp (F,), IN. Column indices into X.
    fam_cards : intp (F,), IN. Cardinality of each family column.
    tab_offsets : intp (V+1,), IN. Family v's table is ``out[tab_offsets[v]:tab_offsets[v+1]]``, C-order over its
        columns (mixed radix ``idx = idx * card + x``); ``tab_offsets[v+1] - tab_offsets[v]`` is the product of its
        cardinalities.
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    out : float64 (tab_offsets[V],), OUT. Added into.

    Notes
    -----
    Each family skips the rows where one of its columns is missing (available-case counting), exactly like
    ``family_counts`` called once per family, but the rows are read once (row-major, cache friendly).
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
