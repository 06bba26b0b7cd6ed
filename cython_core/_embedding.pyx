"""Kernel of trustworthiness and continuity (Venna & Kaski 2001; seed 000 section 6.4, ``docs/decisions/
seed000-sbn-cem-nbm.md``) with exact tie averaging, row by row: O(N) memory per thread, no N x N matrix.

For a point i, the *neighbour space* B gives the neighbourhoods and the *rank space* A the ranks. Trustworthiness
is (A, B) = (input, map); continuity is (A, B) = (map, input). Distances are squared Euclidean (same ranks), point
i itself excluded. With ties, every rank order compatible with the distances is taken as equally likely, separately
in each space, and the error is averaged over them. Because the error is linear, the average is exact:

* in B, ``j`` is one of i's k nearest neighbours with probability ``P = 1`` if ``sB + gB <= k``, ``(k - sB) / gB``
  if ``sB < k < sB + gB``, else 0 (``sB`` = points strictly closer than j, ``gB`` = size of j's tie group, j
  included);
* in A, j's rank r is uniform on ``sA + 1 .. sA + gA``, and j contributes ``E[(r - k)^+]`` (zero exactly when j is
  also one of the k nearest in A);
* the row's error for k is ``sum_j P * E[(r - k)^+]``. Without ties this is sklearn's ``sum_{j in U_k(i)} (r - k)``.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY
from libc.stdlib cimport qsort

from _typedefs cimport float64_t, intp_t


cdef struct Cand:
    double v
    intp_t j


cdef int _cmp_cand(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const Cand*> a).v
    cdef double y = (<const Cand*> b).v
    cdef intp_t ja = (<const Cand*> a).j
    cdef intp_t jb = (<const Cand*> b).j
    if x < y:
        return -1
    if x > y:
        return 1
    return (ja > jb) - (ja < jb)


cdef void _dist_row(const float64_t* AT, intp_t p, intp_t N, intp_t i, float64_t* d) noexcept nogil:
    """``d[l] = ||A[l] - A[i]||^2`` from the transposed data ``AT`` (p, N); ``d[i] = inf``. Every ``d[l]`` is summed
    over the features in the same order, so identical points give identical distances (exact ties)."""
    cdef intp_t f, l
    cdef double a, t
    cdef const float64_t* row
    for l in range(N):
        d[l] = 0.0
    for f in range(p):
        row = AT + f * N
        a = row[i]
        for l in range(N):
            t = row[l] - a
            d[l] += t * t
    d[i] = INFINITY


cdef double _kth_smallest(const float64_t* d, intp_t N, intp_t kmax, float64_t* heap) noexcept nogil:
    """The kmax-th smallest of ``d`` (with multiplicity; 1 <= kmax <= number of finite values), by a max-heap."""
    cdef intp_t size = 0, l, c, parent, child
    cdef double v, tmp
    for l in range(N):
        v = d[l]
        if size < kmax:
            c = size
            heap[c] = v
            size += 1
            while c > 0:
                parent = (c - 1) // 2
                if heap[parent] < heap[c]:
                    tmp = heap[parent]
                    heap[parent] = heap[c]
                    heap[c] = tmp
                    c = parent
                else:
                    break
        elif v < heap[0]:
            heap[0] = v
            c = 0
            while True:
                child = 2 * c + 1
                if child >= size:
                    break
                if child + 1 < size and heap[child + 1] > heap[child]:
                    child = child + 1
                if heap[child] > heap[c]:
                    tmp = heap[child]
                    heap[child] = heap[c]
                    heap[c] = tmp
                    c = child
                else:
                    break
    return heap[0]


cdef intp_t _candidates(const float64_t* d, intp_t N, intp_t kmax, float64_t* heap, Cand* out) noexcept nogil:
    """All l with ``d[l] <= t`` (t = the kmax-th smallest), sorted by distance; returns how many (>= kmax).

    Only the points strictly closer than t (fewer than kmax) are sorted; the tie group at t (which can hold
    thousands of points on integer-valued data) follows them unsorted, since its members share one distance."""
    cdef double t = _kth_smallest(d, N, kmax, heap)
    cdef intp_t l, ci = 0, cb = 0
    for l in range(N):
        if d[l] < t:
            out[ci].v = d[l]
            out[ci].j = l
            ci += 1
        elif d[l] == t:
            out[N - 1 - cb].v = d[l]        # the boundary group fills the buffer from the back
            out[N - 1 - cb].j = l
            cb += 1
    qsort(out, ci, sizeof(Cand), _cmp_cand)
    # move the boundary group next to the sorted part: the back slots that already lie inside
    # [ci, ci + cb) stay where they are (the group's order does not matter), the others fill the gap
    cdef intp_t dst = ci, p
    cdef intp_t first = N - cb if N - cb > ci + cb else ci + cb
    for p in range(first, N):
        out[dst] = out[p]
        dst += 1
    return ci + cb


cdef intp_t _lower(const Cand* c, intp_t n, double v) noexcept nogil:
    cdef intp_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if c[mid].v < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef intp_t _upper(const Cand* c, intp_t n, double v) noexcept nogil:
    cdef intp_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if c[mid].v <= v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef struct Scratch:
    intp_t* sA          # (N,) per candidate: points strictly closer in A
    intp_t* gA          # (N,) per candidate: size of its tie group in A
    intp_t* qu          # (N,) candidates whose A-rank needs a count over the whole row
    intp_t* hist        # (NB + 1,) histogram, then bin starts (prefix sums)
    intp_t* fill        # (NB,) elements stored so far in each flagged bin
    unsigned char* flag  # (NB,) bins that hold a query
    float64_t* store    # (N,) the distances of the flagged bins, grouped by bin


cdef intp_t NB = 2048


cdef inline Scratch _scratch(intp_t* ia, unsigned char* fl, float64_t* st, intp_t N) noexcept nogil:
    """The scratch of one thread, carved from its rows of the buffers (``ia`` holds 3 N + 2 NB + 1 intp)."""
    cdef Scratch S
    S.sA = ia
    S.gA = ia + N
    S.qu = ia + 2 * N
    S.hist = ia + 3 * N
    S.fill = ia + 3 * N + NB + 1
    S.flag = fl
    S.store = st
    return S


cdef void _count_far(const float64_t* dA, intp_t N, const Cand* cb, intp_t nq, Scratch* S) noexcept nogil:
    """For the ``nq`` candidates ``cb[S.qu[u]]``: ``S.sA`` = #{l: dA[l] < v}, ``S.gA`` = #{l: dA[l] == v} with
    ``v = dA[j]``. One histogram pass over the row (NB linear bins on [0, max v]), then a second pass that keeps
    only the distances falling in a bin that holds a query, and an exact count inside those bins."""
    cdef intp_t u, l, b, c, less, eq, pos
    cdef double vmax = 0.0, scale, x, v
    if nq == 0:
        return
    if nq <= 4:     # a direct count is cheaper than two passes
        for u in range(nq):
            v = dA[cb[S.qu[u]].j]
            less = 0
            eq = 0
            for l in range(N):
                less += dA[l] < v
                eq += dA[l] == v
            S.sA[S.qu[u]] = less
            S.gA[S.qu[u]] = eq
        return
    for u in range(nq):
        v = dA[cb[S.qu[u]].j]
        if v > vmax:
            vmax = v
    scale = NB / vmax
    for b in range(NB + 1):
        S.hist[b] = 0
    for b in range(NB):
        S.flag[b] = 0
        S.fill[b] = 0
    for u in range(nq):
        b = <intp_t> (dA[cb[S.qu[u]].j] * scale)
        if b >= NB:
            b = NB - 1
        S.flag[b] = 1
    for l in range(N):
        x = dA[l]
        if x <= vmax:
            b = <intp_t> (x * scale)
            if b >= NB:
                b = NB - 1
            S.hist[b + 1] += 1
    # hist[b] -> number of distances in bins < b (prefix sums); the flagged bins' elements go to store
    for b in range(NB):
        S.hist[b + 1] += S.hist[b]
    # positions in store: only flagged bins use it, at offsets hist[b] .. hist[b + 1]
    for l in range(N):
        x = dA[l]
        if x <= vmax:
            b = <intp_t> (x * scale)
            if b >= NB:
                b = NB - 1
            if S.flag[b]:
                S.store[S.hist[b] + S.fill[b]] = x
                S.fill[b] += 1
    for u in range(nq):
        v = dA[cb[S.qu[u]].j]
        b = <intp_t> (v * scale)
        if b >= NB:
            b = NB - 1
        pos = S.hist[b]
        less = pos
        eq = 0
        for c in range(pos, pos + S.fill[b]):
            less += S.store[c] < v
            eq += S.store[c] == v
        S.sA[S.qu[u]] = less
        S.gA[S.qu[u]] = eq


cdef void _row_errors(const Cand* cb, intp_t nb, const float64_t* dA, intp_t N, const Cand* ca, intp_t na,
                      const intp_t* ks, intp_t nk, float64_t* err, Scratch* S) noexcept nogil:
    """``err[q] = sum_j P_B(j in NN_k) * E_A[(r(j) - k)^+]`` for ``k = ks[q]`` (see the module docstring)."""
    cdef intp_t p = 0, p_end, q, u, sB, gB, sA, gA, k, lo, hi, nq = 0
    cdef double v, tA = ca[na - 1].v, P, E
    for q in range(nk):
        err[q] = 0.0
    # A-side tie groups: from the sorted A candidates when within them, else counted over the row
    for u in range(nb):
        v = dA[cb[u].j]
        if v <= tA:
            S.sA[u] = _lower(ca, na, v)
            S.gA[u] = _upper(ca, na, v) - S.sA[u]
        else:
            S.qu[nq] = u
            nq += 1
    _count_far(dA, N, cb, nq, S)
    while p < nb:
        # B tie group [p, p_end)
        p_end = p + 1
        while p_end < nb and cb[p_end].v == cb[p].v:
            p_end += 1
        sB = p
        gB = p_end - p
        for u in range(p, p_end):
            sA = S.sA[u]
            gA = S.gA[u]
            # only sB < k < sA + gA contribute (P > 0 and E > 0); ks is increasing
            for q in range(nk):
                k = ks[q]
                if sB >= k:
                    continue
                if k >= sA + gA:
                    break
                if sB + gB <= k:
                    P = 1.0
                else:
                    P = <double>(k - sB) / gB
                lo = sA + 1 if sA + 1 > k + 1 else k + 1
                hi = sA + gA
                if lo > hi:
                    continue
                E = (hi - lo + 1) * (<double>(lo - k) + <double>(hi - k)) / 2.0 / gA
                err[q] += P * E
        p = p_end


def neighbourhood_errors(const float64_t[:, ::1] XT,    # IN  (p, N) input space, transposed
                         const float64_t[:, ::1] YT,    # IN  (q, N) map space, transposed
                         const intp_t[::1] ks,          # IN  (nk,) neighbourhood sizes, ascending, 1 <= k < N
                         float64_t[:, ::1] err_t,       # OUT (N, nk) trustworthiness error of every row (or (0, nk))
                         float64_t[:, ::1] err_c,       # OUT (N, nk) continuity error of every row (or (0, nk))
                         int n_threads):
    """Per-row expected rank errors: ``err_t[i, q]`` (neighbours in Y, ranks in X) and ``err_c[i, q]`` (neighbours
    in X, ranks in Y) for ``k = ks[q]``. Pass an ``err_*`` with 0 rows to skip that measure. Rows are independent
    and write their own outputs, so the result is the same for every ``n_threads``."""
    cdef intp_t N = XT.shape[1], px = XT.shape[0], py = YT.shape[0], nk = ks.shape[0], i, q, kmax, t
    cdef intp_t nx, ny
    cdef bint do_t = err_t.shape[0] > 0, do_c = err_c.shape[0] > 0
    if YT.shape[1] != N:
        raise ValueError(f"X and Y must have the same number of rows, got {N} and {YT.shape[1]}.")
    if nk < 1:
        raise ValueError("ks must hold at least one neighbourhood size.")
    for q in range(nk):
        if ks[q] < 1 or ks[q] >= N or (q > 0 and ks[q] <= ks[q - 1]):
            raise ValueError(f"ks must be strictly increasing values in 1..N-1 = 1..{N - 1}, got ks[{q}] == {ks[q]}.")
    if (err_t.shape[0] != 0 and err_t.shape[0] != N) or err_t.shape[1] != nk or \
            (err_c.shape[0] != 0 and err_c.shape[0] != N) or err_c.shape[1] != nk:
        raise ValueError(f"err_t and err_c must be ({N}, {nk}) or (0, {nk}), got ({err_t.shape[0]}, "
                         f"{err_t.shape[1]}) and ({err_c.shape[0]}, {err_c.shape[1]}).")
    kmax = ks[nk - 1]
    n_threads = max(1, n_threads)
    dx_buf = np.empty((n_threads, N), dtype=np.float64)
    dy_buf = np.empty((n_threads, N), dtype=np.float64)
    heap_buf = np.empty((n_threads, kmax), dtype=np.float64)
    cx_buf = np.empty((n_threads, N * sizeof(Cand)), dtype=np.uint8)
    cy_buf = np.empty((n_threads, N * sizeof(Cand)), dtype=np.uint8)
    cdef float64_t[:, ::1] dx = dx_buf, dy = dy_buf, heap = heap_buf
    cdef unsigned char[:, ::1] cxm = cx_buf, cym = cy_buf
    ia_buf = np.empty((n_threads, 3 * N + 2 * NB + 1), dtype=np.intp)
    fl_buf = np.empty((n_threads, NB), dtype=np.uint8)
    st_buf = np.empty((n_threads, N), dtype=np.float64)
    cdef intp_t[:, ::1] ia = ia_buf
    cdef unsigned char[:, ::1] fl = fl_buf
    cdef float64_t[:, ::1] st = st_buf
    cdef Cand* cx
    cdef Cand* cy
    cdef Scratch S
    for i in prange(N, nogil=True, num_threads=n_threads, schedule="dynamic", chunksize=16):
        t = threadid()
        # assigned in the loop body, so every thread has its own copy (a prange private variable)
        S = _scratch(&ia[t, 0], &fl[t, 0], &st[t, 0], N)
        cx = <Cand*> &cxm[t, 0]
        cy = <Cand*> &cym[t, 0]
        _dist_row(&XT[0, 0], px, N, i, &dx[t, 0])
        _dist_row(&YT[0, 0], py, N, i, &dy[t, 0])
        nx = _candidates(&dx[t, 0], N, kmax, &heap[t, 0], cx)
        ny = _candidates(&dy[t, 0], N, kmax, &heap[t, 0], cy)
        if do_t:
            _row_errors(cy, ny, &dx[t, 0], N, cx, nx, &ks[0], nk, &err_t[i, 0], &S)
        if do_c:
            _row_errors(cx, nx, &dy[t, 0], N, cy, ny, &ks[0], nk, &err_c[i, 0], &S)
