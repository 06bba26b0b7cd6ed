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

from libc.math cimport fabs, lgamma, log
from libc.stdlib cimport free, malloc

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
                          const intp_t* gcount, const intp_t* wlo, const intp_t* whi, intp_t n_groups,
                          const uint64_t* single, const uint64_t* obs, const float64_t* cell, const float64_t* marg,
                          intp_t* acc) noexcept nogil:
    """Score of the family (child, parents, z) from bit masks: ``gbits[(g * rc + k) * W + w]`` holds the rows of
    group g with child state k for k < rc - 1, and ``k = rc - 1`` holds every row of group g; ``zbits[v * W + w]``
    the rows where the candidate has state v. Counts are popcounts of their intersections (words
    ``wlo[g]..whi[g]`` only). ``single`` masks the rows alone in their group; ``obs`` (or NULL when the candidate
    has no missing value) the rows where the candidate is observed. Without missing values the last state's counts
    are the group's counts (``gcount[g * rc + k]``: child state k for k < rc - 1, the group size at rc - 1) minus
    the other states' (``acc``: rc scratch integers)."""
    cdef double s = 0.0
    cdef intp_t g, v, k, w, n_v, n_vk, rest, n_single = 0, v_direct
    cdef const uint64_t* gb
    cdef uint64_t zm
    v_direct = rz if obs != NULL else rz - 1
    for g in range(n_groups):
        gb = gbits + g * rc * W
        for k in range(rc):
            acc[k] = 0
        for v in range(v_direct):
            n_v = 0
            for w in range(wlo[g], whi[g] + 1):
                n_v += __builtin_popcountll(gb[(rc - 1) * W + w] & zbits[v * W + w])
            if n_v == 0:
                continue
            acc[rc - 1] += n_v
            s += marg[n_v]
            rest = n_v
            for k in range(rc - 1):
                n_vk = 0
                for w in range(wlo[g], whi[g] + 1):
                    n_vk += __builtin_popcountll(gb[k * W + w] & zbits[v * W + w])
                s += cell[n_vk]
                acc[k] += n_vk
                rest -= n_vk
            s += cell[rest]
        if v_direct < rz:  # the last state by subtraction
            n_v = gcount[g * rc + rc - 1] - acc[rc - 1]
            if n_v > 0:
                s += marg[n_v]
                rest = n_v
                for k in range(rc - 1):
                    n_vk = gcount[g * rc + k] - acc[k]
                    s += cell[n_vk]
                    rest -= n_vk
                s += cell[rest]
    for k in range(rc):  # the scratch is shared with the row path, which expects zeros
        acc[k] = 0
    for w in range(W):
        zm = single[w]
        if obs != NULL:
            zm = zm & obs[w]
        n_single += __builtin_popcountll(zm)
    return s + n_single * (cell[1] + marg[1])


cdef struct Problem:
    const code_t* codes_t      # (n_cols, n_rows)
    intp_t n_rows
    const intp_t* cards
    const intp_t* cols
    intp_t m
    const intp_t* fixed
    intp_t nf
    const intp_t* pos_of       # (m,) position of each variable in the order
    const intp_t* k_end        # (m + 1,) 1 + the largest variable index before position p
    const intp_t* pred_missing  # (m + 1,) 1 if a variable before position p has a missing value
    intp_t max_parents
    int kind
    double alpha
    double ess
    double penalty
    double tie_rtol
    bint size_prior             # Friedman-Koller parent-set-size prior (see k2_search)
    intp_t max_card
    const intp_t* present      # (max_card + 1,) cardinalities of the searched variables
    const uint64_t* zbits      # (n_cols, max_card, W)
    const uint64_t* obs        # (n_cols, W)
    const intp_t* has_missing  # (n_cols,)
    intp_t W
    bint bits_ok               # bit masks allocated (small enough)
    bint prune
    intp_t* out_parents        # (m, max_parents)
    float64_t* out_scores      # (m,)


cdef struct Scratch:           # one per thread
    intp_t* gid
    intp_t* gid_new
    intp_t* remap
    intp_t remap_size
    intp_t* gsize
    intp_t* gpos
    intp_t* gptr
    intp_t* rows
    intp_t* used
    code_t* xs
    intp_t* cnt
    intp_t* mcnt
    float64_t* cell            # (max_card + 1, n_rows + 1)
    float64_t* marg
    float64_t* cell0           # (n_rows + 1,)
    float64_t* marg0
    float64_t* phi             # (n_rows + 1,) pure-configuration term marg0[n] + cell0[n]
    intp_t* in_pa              # (m,)
    intp_t* pa
    uint64_t* gbits
    intp_t* gcount
    uint64_t* single
    intp_t* wlo
    intp_t* whi
    intp_t* gorder             # multi groups, mixed ones first
    intp_t* gpure
    float64_t* gbound          # bound of each multi group's term over every refinement
    float64_t* gslack          # gbound minus the group's current term
    intp_t* stats              # (4,) candidates, pruned, scored exactly, groups read by the bounds
    intp_t* restk              # (max_card,)


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
              float64_t[::1] out_scores,
              bint prune=True,
              intp_t[::1] out_stats=None,
              bint size_prior=False):
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
    tie_rtol : float, IN. A candidate replaces the best only if its score exceeds it by more than
        ``tie_rtol * max(1, |best|)`` (ties: the lowest position), and a parent is added only if it improves the
        current score by more than that.
    n_threads : intp, IN. Threads searching the variables (each variable's search is serial and independent of
        the others given the order, and writes only its own rows of the outputs: the result does not depend on it).
    p_start, p_end : intp, IN. Search the variables ``order[p_start:p_end]`` only (so that a caller can show
        progress between calls); their rows of the outputs are written, the others are left as they are.
    out_parents : intp (m, max_parents), OUT. Rows of the searched variables filled with the chosen parents
        (positions, in the order added), the rest ``-1``.
    out_scores : float64 (m,), OUT. Final local score of each variable (fixed parents included).
    prune : bool, IN. Use the exact bounds below (Dirichlet kind only); False scores every candidate.
    out_stats : intp (4,), optional, OUT (added to). Candidates considered, candidates pruned by the bound,
        candidates scored exactly, groups whose exact term the bound computed.
    size_prior : bool, IN. Add a parent only if its score gain exceeds ``log((p - k) / (k + 1))`` (floored at 0),
        where ``p`` is the number of candidate parents (the variable's predecessors) and ``k`` its current number
        of searched parents: the log prior ratio of the parent-set prior uniform over sizes and, within a size,
        over the sets of that size (Friedman & Koller 2003), which grows with the number of candidates and so
        keeps chance parents out when variables are many and rows few. False (WEKA, the thesis) is a uniform
        prior over parent sets. Candidates within a step are ranked by their score alone either way.

    Notes
    -----
    For each variable, the rows where it and its current parents are observed are grouped by parent
    configuration (a counting sort of dense configuration ids, refined by one column per added parent); every
    candidate is then scored by one pass over the grouped rows, counting ``(z, x)`` within each group into a
    ``r_z x r`` scratch table that is read (table lookups) and cleared before the next group, or by popcounts of
    bit masks when that is cheaper. Singleton groups contribute a constant and are only counted. Every score is
    summed in the same order whatever the path, so the scores are bit-identical between paths.

    Bounds (Dirichlet kind: constant pseudo-count ``a`` per cell). Write ``phi(n) = lgamma(r a) - lgamma(n + r a)
    + lgamma(n + a) - lgamma(a) = sum_{t<n} log((t + a) / (t + r a))``, the term of a configuration whose ``n``
    rows all have the same child state. Its factors grow with ``t``, so ``phi(n1 + n2) >= phi(n1) + phi(n2)``, and
    the term of a configuration with child counts ``N_k`` is at most ``sum_k phi(N_k)`` (the denominator
    ``prod_{t<N} (t + r a)`` dominates ``prod_k prod_{t<N_k} (t + r a)`` factor by factor). Hence adding parents
    (refining a configuration) can at most reach ``B_g = sum_k phi(N_gk)`` on each current configuration ``g``;
    for a configuration whose rows share one child state, ``B_g`` is its current term. Two exact uses, both only
    for candidates without missing values (dropping rows could raise a score):

    * stop: when every configuration with two or more rows is pure, no superset scores more than the current set
      (in exact arithmetic; within the tie tolerance in floating point, which the search treats as no
      improvement), so the variable's search stops;
    * prune: candidates are scanned in increasing position; a candidate ``z`` is skipped when
      ``current bound - sum_{g done} (B_g - term_g(z))`` (configurations taken by decreasing slack ``B_g -``
      current term, the pure ones last) falls below the highest exact
      score of an earlier candidate by more than ``1e-9 * (1 + |scores|)`` (far above the rounding error). Such a
      ``z`` scores below an earlier candidate, which the sequential scan already holds or beat, so ``z`` could not
      have replaced the running best: the chosen parent, its score and the stop decision are unchanged, and the
      scores of the candidates that are scored are summed exactly as without pruning.

    Pruning needs the bit masks, which take ``(n_rows // 2 + 1) * max_card * ceil(n_rows / 64)`` words per thread;
    past 2**24 words the row path alone is used and nothing is pruned (same result, slower).
    """
    cdef intp_t n_cols = codes_t.shape[0]
    cdef intp_t n_rows = codes_t.shape[1]
    cdef intp_t m = cols.shape[0]
    cdef intp_t nf = fixed.shape[0]
    cdef intp_t t, i, p
    if cards.shape[0] != n_cols:
        raise ValueError(f"cards has {cards.shape[0]} entries for {n_cols} columns.")
    if order.shape[0] != m:
        raise ValueError(f"order has {order.shape[0]} entries for {m} variables.")
    if out_parents.shape[0] != m or out_parents.shape[1] != max_parents or out_scores.shape[0] != m:
        raise ValueError("out_parents must be (m, max_parents) and out_scores (m,).")
    if kind < 0 or kind > 2:
        raise ValueError(f"kind == {kind}, must be 0, 1 or 2.")
    if out_stats is not None and out_stats.shape[0] != 4:
        raise ValueError("out_stats must have 4 entries.")
    for t in range(m):
        if cols[t] < 0 or cols[t] >= n_cols or order[t] < 0 or order[t] >= m:
            raise ValueError("cols and order must index the data columns and the variables.")
    for t in range(nf):
        if fixed[t] < 0 or fixed[t] >= n_cols:
            raise ValueError("fixed must index the data columns.")
    if p_start < 0 or p_end > m or p_start > p_end:
        raise ValueError(f"need 0 <= p_start <= p_end <= {m}, got {p_start}, {p_end}.")
    if n_threads < 1:
        n_threads = 1
    if n_threads > p_end - p_start:
        n_threads = max(1, p_end - p_start)
    cdef intp_t max_card = 1
    for t in range(n_cols):
        if cards[t] > max_card:
            max_card = cards[t]
    cdef intp_t W = (n_rows + 63) // 64 if n_rows > 0 else 1
    cdef intp_t n_half = n_rows // 2 + 1
    # the masks of the groups take n_half * max_card * W words per thread: past 2**24 words (128 MiB) the row
    # path alone is used (and no pruning)
    cdef bint bits_ok = n_half * max_card * W <= (1 << 24)
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
    order_np = np.asarray(order)
    pos_of_np = np.empty(m, dtype=np.intp)
    pos_of_np[order_np] = np.arange(m)
    miss_in_order = has_missing_np[np.asarray(cols)[order_np]] if m else np.zeros(0, dtype=np.intp)
    pred_missing_np = np.zeros(m + 1, dtype=np.intp)
    pred_missing_np[1:] = np.cumsum(miss_in_order) > 0
    present_np = np.zeros(max_card + 1, dtype=np.intp)
    present_np[np.asarray(cards)[np.asarray(cols)]] = 1
    k_end_np = np.zeros(m + 1, dtype=np.intp)
    k_end_np[1:] = np.maximum.accumulate(order_np) + 1 if m else 0
    cdef intp_t[::1] pos_of = pos_of_np
    cdef intp_t[::1] k_end = k_end_np
    cdef intp_t[::1] pred_missing = pred_missing_np
    cdef intp_t[::1] present = present_np
    # per-thread scratch, allocated once per call; each thread's rows padded by PAD entries (128 bytes) so that
    # two threads never write to one cache line
    cdef intp_t PAD = 16
    cdef intp_t T = n_threads
    cdef intp_t nb = max(n_rows, 1)
    cdef intp_t[:, ::1] gid = np.zeros((T, nb + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] gid_new = np.zeros((T, nb + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] remap = np.full((T, nb * max_card + 1 + PAD), -1, dtype=np.intp)
    cdef intp_t[:, ::1] gsize = np.zeros((T, n_rows + 1 + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] gpos = np.zeros((T, n_rows + 1 + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] gptr = np.zeros((T, n_rows + 2 + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] rows = np.zeros((T, nb + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] used = np.zeros((T, nb + PAD), dtype=np.intp)
    cdef code_t[:, ::1] xs = np.zeros((T, nb + PAD), dtype=np.int32)
    cdef intp_t[:, ::1] cnt = np.zeros((T, max_card * max_card + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] mcnt = np.zeros((T, max_card + PAD), dtype=np.intp)
    cdef float64_t[:, :, ::1] cell = np.zeros((T, max_card + 1, n_rows + 1), dtype=np.float64)  # row stride n_rows + 1
    cdef float64_t[:, :, ::1] marg = np.zeros((T, max_card + 1, n_rows + 1), dtype=np.float64)  # read-mostly
    cdef float64_t[:, ::1] cell0 = np.zeros((T, n_rows + 1 + PAD), dtype=np.float64)
    cdef float64_t[:, ::1] marg0 = np.zeros((T, n_rows + 1 + PAD), dtype=np.float64)
    cdef float64_t[:, ::1] phi = np.zeros((T, n_rows + 1 + PAD), dtype=np.float64)
    cdef intp_t[:, ::1] in_pa = np.zeros((T, m + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] pa = np.zeros((T, max_parents + PAD), dtype=np.intp)
    cdef intp_t nbits = n_half * max_card * W if bits_ok else 1
    cdef uint64_t[:, ::1] gbits = np.zeros((T, nbits + PAD), dtype=np.uint64)
    cdef intp_t[:, ::1] gcount = np.zeros((T, n_half * max_card + PAD), dtype=np.intp)
    cdef uint64_t[:, ::1] single = np.zeros((T, W + PAD), dtype=np.uint64)
    cdef intp_t[:, ::1] wlo = np.zeros((T, n_half + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] whi = np.zeros((T, n_half + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] gorder = np.zeros((T, n_half + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] gpure = np.zeros((T, n_half + PAD), dtype=np.intp)
    cdef float64_t[:, ::1] gbound = np.zeros((T, n_half + PAD), dtype=np.float64)
    cdef float64_t[:, ::1] gslack = np.zeros((T, n_half + PAD), dtype=np.float64)
    cdef intp_t[:, ::1] stats = np.zeros((T, 4 + PAD), dtype=np.intp)
    cdef intp_t[:, ::1] restk = np.zeros((T, max_card + PAD), dtype=np.intp)

    cdef Problem P
    P.codes_t = &codes_t[0, 0] if n_cols > 0 and n_rows > 0 else NULL
    P.n_rows = n_rows
    P.cards = &cards[0] if n_cols > 0 else NULL
    P.cols = &cols[0] if m > 0 else NULL
    P.m = m
    P.fixed = &fixed[0] if nf > 0 else NULL
    P.nf = nf
    P.pos_of = &pos_of[0] if m > 0 else NULL
    P.k_end = &k_end[0]
    P.pred_missing = &pred_missing[0]
    P.max_parents = max_parents
    P.kind = kind
    P.alpha = alpha
    P.ess = ess
    P.penalty = penalty
    P.tie_rtol = tie_rtol
    P.size_prior = size_prior
    P.max_card = max_card
    P.present = &present[0]
    P.zbits = &zbits[0, 0, 0] if n_cols > 0 else NULL
    P.obs = &obs[0, 0] if n_cols > 0 else NULL
    P.has_missing = &has_missing[0] if n_cols > 0 else NULL
    P.W = W
    P.bits_ok = bits_ok
    P.prune = prune and bits_ok and kind == KIND_DIRICHLET
    P.out_parents = &out_parents[0, 0] if m > 0 and max_parents > 0 else NULL
    P.out_scores = &out_scores[0] if m > 0 else NULL

    cdef Scratch* S = <Scratch*> malloc(T * sizeof(Scratch))
    if S == NULL:
        raise MemoryError()
    try:
        for i in range(T):
            S[i].gid = &gid[i, 0]
            S[i].gid_new = &gid_new[i, 0]
            S[i].remap = &remap[i, 0]
            S[i].remap_size = remap.shape[1]
            S[i].gsize = &gsize[i, 0]
            S[i].gpos = &gpos[i, 0]
            S[i].gptr = &gptr[i, 0]
            S[i].rows = &rows[i, 0]
            S[i].used = &used[i, 0]
            S[i].xs = &xs[i, 0]
            S[i].cnt = &cnt[i, 0]
            S[i].mcnt = &mcnt[i, 0]
            S[i].cell = &cell[i, 0, 0]
            S[i].marg = &marg[i, 0, 0]
            S[i].cell0 = &cell0[i, 0]
            S[i].marg0 = &marg0[i, 0]
            S[i].phi = &phi[i, 0]
            S[i].in_pa = &in_pa[i, 0]
            S[i].pa = &pa[i, 0]
            S[i].gbits = &gbits[i, 0]
            S[i].gcount = &gcount[i, 0]
            S[i].single = &single[i, 0]
            S[i].wlo = &wlo[i, 0]
            S[i].whi = &whi[i, 0]
            S[i].gorder = &gorder[i, 0]
            S[i].gpure = &gpure[i, 0]
            S[i].gbound = &gbound[i, 0]
            S[i].gslack = &gslack[i, 0]
            S[i].stats = &stats[i, 0]
            S[i].restk = &restk[i, 0]
        with nogil:
            for p in prange(p_start, p_end, num_threads=n_threads, schedule="dynamic", chunksize=1):
                _search_node(&P, &S[threadid()], p, order[p])
    finally:
        free(S)
    if out_stats is not None:
        for t in range(4):
            out_stats[t] += np.asarray(stats)[:, t].sum()


cdef void _search_node(const Problem* P, Scratch* S, intp_t p, intp_t node) noexcept nogil:
    """K2 search of one variable (position ``p`` of the order): writes its row of the outputs."""
    cdef intp_t n_rows = P.n_rows
    cdef intp_t stride = n_rows + 1
    cdef intp_t xcol = P.cols[node]
    cdef intp_t rc = P.cards[xcol]
    cdef const code_t* x = P.codes_t + xcol * n_rows
    cdef const code_t* zp
    cdef intp_t n_used = 0, row, key, t, c, n_groups, n_multi = 0, single_start, n_pa = 0, k, zc, rz, best_z
    cdef intp_t n_new, g, n_mixed, n_cand = 0, n_pruned = 0, n_scored = 0, n_read = 0
    cdef double q_pa = 1.0, a_cell, best, cand, s, prior_cost, tmax = 0.0, bound_total = 0.0, bound_abs = 0.0, margin
    cdef bint ok, use_bits, dirichlet = P.kind == KIND_DIRICHLET
    cdef const float64_t* cl
    cdef const float64_t* mg
    # rows where the child and the fixed parents are observed; dense group ids over the fixed parents
    for row in range(n_rows):
        if x[row] < 0:
            continue
        ok = True
        key = 0
        for t in range(P.nf):
            c = P.codes_t[P.fixed[t] * n_rows + row]
            if c < 0:
                ok = False
                break
            key = key * P.cards[P.fixed[t]] + c
        if ok:
            S.used[n_used] = row
            S.gid[n_used] = key
            n_used += 1
    for t in range(P.nf):
        q_pa *= P.cards[P.fixed[t]]
    # compress the fixed-parent keys (may exceed n_rows) to dense ids in order of first appearance
    n_groups = _compress(S.gid, n_used, S.remap, S.remap_size, S.gid_new)
    # tables for the candidate-free family (rz == 1); for the Dirichlet kind they serve every candidate
    a_cell = P.alpha if dirichlet else P.ess / (rc * q_pa)
    _fill_tables(P.kind, a_cell, rc, n_used, S.cell0, S.marg0)
    for t in range(n_used + 1):
        S.phi[t] = S.marg0[t] + S.cell0[t]
    single_start = _sort_groups(S.gid, n_used, n_groups, S.used, x, S.gsize, S.gpos, S.gptr, S.rows, S.xs,
                                &n_multi)
    use_bits = P.bits_ok and _prepare_bits(S.rows, S.xs, S.gptr, n_multi, single_start, n_used, rc, P.W,
                                           P.max_card, S.gbits, S.gcount, S.wlo, S.whi, S.single, P.prune)
    best = _group_score(NULL, 1, rc, S.rows, S.xs, S.gptr, n_multi, single_start, n_used,
                        S.cell0, S.marg0, S.cnt, S.mcnt) - P.penalty * q_pa * (rc - 1)
    while n_pa < P.max_parents:
        if not dirichlet:
            for t in range(1, P.max_card + 1):
                if P.present[t]:
                    a_cell = P.ess / (rc * q_pa * t)
                    _fill_tables(P.kind, a_cell, rc, n_used, S.cell + t * stride, S.marg + t * stride)
        if P.prune:
            n_mixed = _group_bounds(S.gcount, n_multi, rc, S.phi, S.cell0, S.marg0, S.gorder, S.gpure, S.gbound,
                                    S.gslack)
            if n_mixed == 0 and not P.pred_missing[p]:
                break  # every configuration is pure: no superset improves (see Notes)
            bound_total = (n_used - single_start) * S.phi[1]
            bound_abs = fabs(bound_total)
            for g in range(n_multi):
                bound_total += S.gbound[g]
                bound_abs += fabs(S.gbound[g])
        best_z = -1
        cand = 0.0
        for k in range(P.k_end[p]):
            if P.pos_of[k] >= p or S.in_pa[k]:
                continue
            zc = P.cols[k]
            rz = P.cards[zc]
            n_cand += 1
            if P.prune and best_z >= 0 and not P.has_missing[zc]:
                margin = 1e-9 * (1.0 + fabs(tmax) + bound_abs)
                if _bound_below(P.zbits + zc * P.max_card * P.W, rz, rc, P.W, S.gbits, S.gcount, S.wlo, S.whi,
                                S.gorder, S.gpure, S.gbound, n_multi, bound_total, tmax - margin, S.phi, S.cell0,
                                S.marg0, S.restk, &n_read):
                    n_pruned += 1
                    continue
            n_scored += 1
            if dirichlet:
                cl = S.cell0
                mg = S.marg0
            else:
                cl = S.cell + rz * stride
                mg = S.marg + rz * stride
            if use_bits:
                s = _bitset_score(P.zbits + zc * P.max_card * P.W, rz, rc, P.W, S.gbits, S.gcount, S.wlo, S.whi,
                                  n_multi, S.single, P.obs + zc * P.W if P.has_missing[zc] else NULL, cl, mg,
                                  S.cnt)
            else:
                zp = P.codes_t + zc * n_rows
                s = _group_score(zp, rz, rc, S.rows, S.xs, S.gptr, n_multi, single_start, n_used, cl, mg,
                                 S.cnt, S.mcnt)
            s = s - P.penalty * q_pa * rz * (rc - 1)
            if best_z < 0:
                tmax = s
            elif s > tmax:
                tmax = s
            if best_z < 0 or _beats(s, cand, P.tie_rtol):
                best_z = k
                cand = s
        if best_z < 0:
            break
        prior_cost = 0.0
        if P.size_prior:
            prior_cost = log((<double>(p - n_pa)) / (n_pa + 1.0))
            if prior_cost < 0.0:
                prior_cost = 0.0
        if not _beats(cand - prior_cost, best, P.tie_rtol):
            break
        best = cand
        S.pa[n_pa] = best_z
        n_pa += 1
        S.in_pa[best_z] = 1
        # refine: drop rows where the new parent is missing, group id <- (gid, z)
        zc = P.cols[best_z]
        rz = P.cards[zc]
        q_pa *= rz
        zp = P.codes_t + zc * n_rows
        n_new = 0
        for t in range(n_used):
            row = S.used[t]
            if zp[row] < 0:
                continue
            S.used[n_new] = row
            S.gid[n_new] = S.gid[t] * rz + zp[row]
            n_new += 1
        n_used = n_new
        n_groups = _compress(S.gid, n_used, S.remap, S.remap_size, S.gid_new)
        single_start = _sort_groups(S.gid, n_used, n_groups, S.used, x, S.gsize, S.gpos, S.gptr, S.rows, S.xs,
                                    &n_multi)
        use_bits = P.bits_ok and _prepare_bits(S.rows, S.xs, S.gptr, n_multi, single_start, n_used, rc, P.W,
                                               P.max_card, S.gbits, S.gcount, S.wlo, S.whi, S.single, P.prune)
    P.out_scores[node] = best
    for t in range(P.max_parents):
        P.out_parents[node * P.max_parents + t] = S.pa[t] if t < n_pa else -1
    for t in range(n_pa):
        S.in_pa[S.pa[t]] = 0
    S.stats[0] += n_cand
    S.stats[1] += n_pruned
    S.stats[2] += n_scored
    S.stats[3] += n_read


cdef intp_t _group_bounds(const intp_t* gcount, intp_t n_multi, intp_t rc, const float64_t* phi,
                          const float64_t* cell, const float64_t* marg, intp_t* gorder, intp_t* gpure,
                          float64_t* gbound, float64_t* gslack) noexcept nogil:
    """For each group of >= 2 rows: whether its rows share one child state (``gpure``), the bound
    ``gbound[g] = sum_k phi(N_gk)`` of its term over every refinement, and the slack ``gslack[g]`` = bound minus
    its current term. ``gorder`` lists the groups by decreasing slack, then decreasing size (a candidate that does
    not separate the child states loses about the slack of each group, so the largest slacks prune soonest).
    Returns the number of mixed groups."""
    cdef intp_t g, k, n, rest, n_nonzero, n_mixed = 0, u
    cdef double b, cur
    for g in range(n_multi):
        rest = gcount[g * rc + rc - 1]
        n_nonzero = 0
        b = 0.0
        cur = marg[rest]
        for k in range(rc - 1):
            n = gcount[g * rc + k]
            rest -= n
            cur += cell[n]
            if n > 0:
                n_nonzero += 1
                b += phi[n]
        cur += cell[rest]
        if rest > 0:
            n_nonzero += 1
            b += phi[rest]
        gbound[g] = b
        gpure[g] = n_nonzero <= 1
        gslack[g] = 0.0 if gpure[g] else b - cur
        if not gpure[g]:
            n_mixed += 1
        u = g
        while u > 0 and _group_before(g, gorder[u - 1], gslack, gcount, rc):
            gorder[u] = gorder[u - 1]
            u -= 1
        gorder[u] = g
    return n_mixed


cdef inline bint _group_before(intp_t g, intp_t h, const float64_t* gslack, const intp_t* gcount,
                               intp_t rc) noexcept nogil:
    if gslack[g] != gslack[h]:
        return gslack[g] > gslack[h]
    return gcount[g * rc + rc - 1] > gcount[h * rc + rc - 1]


cdef inline double _term3(intp_t n, intp_t c0, intp_t c1, const float64_t* cell,
                          const float64_t* marg) noexcept nogil:
    """The term of one configuration of a 3-state child with ``n`` rows, ``c0`` and ``c1`` of them in states 0
    and 1: ``marg[n]`` plus the three cell terms (summed in this fixed order, so every caller gets the same bits)."""
    return (marg[n] + cell[c0]) + (cell[c1] + cell[n - c0 - c1])


cdef inline double _mixed3_one_word(uint64_t m0, uint64_t m1, uint64_t mall, const uint64_t* z, intp_t W,
                                    intp_t rz, intp_t r0, intp_t r1, intp_t rall, const float64_t* cell,
                                    const float64_t* marg) noexcept nogil:
    """Term of a group of a 3-state child under candidate ``z`` (``z[v * W]``: its rows of state v), all the
    group's rows in one word: ``m0``, ``m1`` its rows of child states 0 and 1, ``mall`` all of them, ``r0``,
    ``r1``, ``rall`` their counts."""
    cdef intp_t v, n, c0, c1
    cdef uint64_t zw
    cdef double f = 0.0
    for v in range(rz - 1):
        zw = z[v * W]
        n = __builtin_popcountll(mall & zw)
        if n == 0:
            continue
        c0 = __builtin_popcountll(m0 & zw)
        c1 = __builtin_popcountll(m1 & zw)
        f += _term3(n, c0, c1, cell, marg)
        r0 -= c0
        r1 -= c1
        rall -= n
    if rall > 0:
        f += _term3(rall, r0, r1, cell, marg)
    return f


cdef inline double _mixed3_two_words(const uint64_t* m0, const uint64_t* m1, const uint64_t* mall,
                                     const uint64_t* z, intp_t W, intp_t rz, intp_t r0, intp_t r1, intp_t rall,
                                     const float64_t* cell, const float64_t* marg) noexcept nogil:
    """:func:`_mixed3_one_word` for a group whose rows span two consecutive words."""
    cdef intp_t v, n, c0, c1
    cdef const uint64_t* zw
    cdef double f = 0.0
    for v in range(rz - 1):
        zw = z + v * W
        n = __builtin_popcountll(mall[0] & zw[0]) + __builtin_popcountll(mall[1] & zw[1])
        if n == 0:
            continue
        c0 = __builtin_popcountll(m0[0] & zw[0]) + __builtin_popcountll(m0[1] & zw[1])
        c1 = __builtin_popcountll(m1[0] & zw[0]) + __builtin_popcountll(m1[1] & zw[1])
        f += _term3(n, c0, c1, cell, marg)
        r0 -= c0
        r1 -= c1
        rall -= n
    if rall > 0:
        f += _term3(rall, r0, r1, cell, marg)
    return f


cdef bint _bound_below(const uint64_t* zbits, intp_t rz, intp_t rc, intp_t W, const uint64_t* gbits,
                       const intp_t* gcount, const intp_t* wlo, const intp_t* whi, const intp_t* gorder,
                       const intp_t* gpure, const float64_t* gbound, intp_t n_multi, double ub, double thr,
                       const float64_t* phi, const float64_t* cell, const float64_t* marg,
                       intp_t* restk, intp_t* n_read) noexcept nogil:
    """Whether the score of the family with candidate ``z`` (no missing value) is provably below ``thr``: start
    from the bound ``ub`` of every refinement and replace, group by group in ``gorder``, a group's bound by its
    exact term under ``z``; True as soon as the running value falls below ``thr``. Masks as in
    :func:`_bitset_score`; ``restk``: rc scratch integers. (The terms are summed in any order here: this is a
    bound with a margin, not a score.)"""
    cdef intp_t idx, g, v, k, w, n_v, n_vk, r, rest_all, lo, hi
    cdef const uint64_t* gb
    cdef uint64_t zw
    cdef double f, tv, tw
    for idx in range(n_multi):
        g = gorder[idx]
        gb = gbits + g * rc * W
        rest_all = gcount[g * rc + rc - 1]
        lo = wlo[g]
        hi = whi[g]
        f = 0.0
        if gpure[g]:
            for v in range(rz - 1):
                if lo == hi:
                    n_v = __builtin_popcountll(gb[(rc - 1) * W + lo] & zbits[v * W + lo])
                else:
                    n_v = 0
                    for w in range(lo, hi + 1):
                        n_v += __builtin_popcountll(gb[(rc - 1) * W + w] & zbits[v * W + w])
                f += phi[n_v]
                rest_all -= n_v
            f += phi[rest_all]
        elif rc == 3 and lo == hi:  # the common case (three bins, groups within one or two words), unrolled
            f = _mixed3_one_word(gb[lo], gb[W + lo], gb[2 * W + lo], zbits + lo, W, rz, gcount[g * 3],
                                 gcount[g * 3 + 1], rest_all, cell, marg)
        elif rc == 3 and lo + 1 == hi:
            f = _mixed3_two_words(gb + lo, gb + W + lo, gb + 2 * W + lo, zbits + lo, W, rz, gcount[g * 3],
                                  gcount[g * 3 + 1], rest_all, cell, marg)
        else:
            restk[rc - 1] = rest_all
            for k in range(rc - 1):
                restk[k] = gcount[g * rc + k]
                restk[rc - 1] -= restk[k]
            for v in range(rz - 1):
                if lo == hi:
                    zw = zbits[v * W + lo]
                    n_v = __builtin_popcountll(gb[(rc - 1) * W + lo] & zw)
                    if n_v == 0:
                        continue
                    tv = marg[n_v]
                    tw = 0.0
                    r = n_v
                    for k in range(rc - 1):
                        n_vk = __builtin_popcountll(gb[k * W + lo] & zw)
                        tw += cell[n_vk]
                        restk[k] -= n_vk
                        r -= n_vk
                else:
                    n_v = 0
                    for w in range(lo, hi + 1):
                        n_v += __builtin_popcountll(gb[(rc - 1) * W + w] & zbits[v * W + w])
                    if n_v == 0:
                        continue
                    tv = marg[n_v]
                    tw = 0.0
                    r = n_v
                    for k in range(rc - 1):
                        n_vk = 0
                        for w in range(lo, hi + 1):
                            n_vk += __builtin_popcountll(gb[k * W + w] & zbits[v * W + w])
                        tw += cell[n_vk]
                        restk[k] -= n_vk
                        r -= n_vk
                rest_all -= n_v
                restk[rc - 1] -= r
                f += (tv + cell[r]) + tw
            if rest_all > 0:
                tv = marg[rest_all]
                tw = 0.0
                for k in range(rc):
                    tw += cell[restk[k]]
                f += tv + tw
        ub += f - gbound[g]
        n_read[0] += 1
        if ub < thr:
            return True
    return False


cdef bint _prepare_bits(const intp_t* rows, const code_t* xs, const intp_t* gptr, intp_t n_multi,
                        intp_t single_start, intp_t n_used, intp_t rc, intp_t W, intp_t max_rz, uint64_t* gbits,
                        intp_t* gcount, intp_t* wlo, intp_t* whi, uint64_t* single, bint force) noexcept nogil:
    """Fill the group masks of :func:`_bitset_score` and return whether the bitset path is cheaper than the row
    path (estimated operations per candidate: popcounts over the spanned words vs. one pass over the rows); the
    masks are filled only then, or always with ``force`` (the bounds of the pruning read them)."""
    cdef bint cheaper
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
    cheaper = cost_bits <= cost_rows
    if not cheaper and not force:
        return False
    for g in range(n_multi):
        for k in range(rc):
            gcount[g * rc + k] = 0
            for w in range(wlo[g], whi[g] + 1):
                gbits[(g * rc + k) * W + w] = 0
        gcount[g * rc + rc - 1] = gptr[g + 1] - gptr[g]
        for t in range(gptr[g], gptr[g + 1]):
            row = rows[t]
            w = row >> 6
            gbits[(g * rc + rc - 1) * W + w] |= (<uint64_t> 1) << (row & 63)
            if xs[t] < rc - 1:
                gbits[(g * rc + xs[t]) * W + w] |= (<uint64_t> 1) << (row & 63)
                gcount[g * rc + xs[t]] += 1
    for w in range(W):
        single[w] = 0
    for t in range(single_start, n_used):
        row = rows[t]
        single[row >> 6] |= (<uint64_t> 1) << (row & 63)
    return cheaper


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
