# Latent-class (naive Bayes with a hidden class) E step kernels: posterior of the cluster given the observed cells,
# expected counts with missing cells summed out, observed-data log-likelihood. Ploidy-aware: several code columns
# may share one variable's parameter block (the P allele copies of a locus).
#
# Flat layout (R = sum of the variables' cardinalities, K = number of clusters):
#   log_theta, theta, counts : float64 (R, K), C order. Row offsets[v] + k holds variable v, state k; column j is
#                              cluster j. Variable v's block rows offsets[v] .. offsets[v+1]-1 reshaped (r_v, K) is
#                              TabularCPD.get_values() of P(X_v | C).
#   col_var : intp (M,)        the variable of each code column (ploidy P: P adjacent columns per variable).
#   codes   : int8, int16 or int32 (N, M) (fused fcode_t) state codes, -1 = missing cell (or missing allele copy).
# Seed 001 spec sections 2, 4.2 and 9.2 (docs/decisions/seed001-ema-popgen.md).
from cython.parallel cimport prange, threadid
from libc.math cimport exp, lgamma, log, INFINITY

from _fcode cimport fcode_t
from _mathutils cimport posterior_row
from _typedefs cimport code_t, float64_t, intp_t


cdef int _check(const fcode_t[:, ::1] X, const float64_t[::1] w, const intp_t[::1] col_var,
                const intp_t[::1] offsets, const float64_t[:, ::1] log_theta,
                const float64_t[::1] log_prior) except -1:
    cdef intp_t n = X.shape[0], m = X.shape[1], K = log_prior.shape[0], R = log_theta.shape[0]
    cdef intp_t n_vars = offsets.shape[0] - 1
    if w.shape[0] != n:
        raise ValueError(f"weights has {w.shape[0]} entries for {n} rows.")
    if col_var.shape[0] != m:
        raise ValueError(f"col_var has {col_var.shape[0]} entries for {m} code columns.")
    if n_vars < 0 or offsets[n_vars] != R:
        raise ValueError(f"offsets end at {offsets[n_vars] if n_vars >= 0 else None}, log_theta has {R} rows.")
    if log_theta.shape[1] != K:
        raise ValueError(f"log_theta has {log_theta.shape[1]} columns, log_prior {K} clusters.")
    for c in range(m):
        if col_var[c] < 0 or col_var[c] >= n_vars:
            raise ValueError(f"col_var[{c}] = {col_var[c]} is not a variable index in [0, {n_vars}).")
    return 0


cdef inline double _gather(const fcode_t* x, intp_t m, const intp_t* col_off,
                           const float64_t* log_theta, const float64_t* log_prior, intp_t K,
                           double* L) noexcept nogil:
    """L[j] = log_prior[j] + sum over observed columns c of log_theta[col_off[c] + x_c, j] (col_off[c] = the first
    row of column c's variable); returns log sum_j exp L[j]."""
    cdef intp_t c, j
    cdef code_t xc
    cdef const float64_t* row
    cdef double mx = -INFINITY, s = 0.0
    for j in range(K):
        L[j] = log_prior[j]
    for c in range(m):
        xc = x[c]
        if xc < 0:
            continue
        row = log_theta + (col_off[c] + xc) * K
        for j in range(K):
            L[j] += row[j]
    for j in range(K):
        if L[j] > mx:
            mx = L[j]
    if mx == -INFINITY:
        return -INFINITY
    for j in range(K):
        s += exp(L[j] - mx)
    return mx + log(s)


def latent_class_estep(const fcode_t[:, ::1] X,            # IN  (N, M) codes, -1 = missing
                       const float64_t[::1] w,            # IN  (N,) row weights / multiplicities
                       const intp_t[::1] col_var,         # IN  (M,) variable of each column
                       const intp_t[::1] offsets,         # IN  (n_vars + 1,) row offsets of the variables
                       const float64_t[:, ::1] log_theta,  # IN  (R, K) log P(X_v = k | C = j)
                       const float64_t[::1] log_prior,    # IN  (K,) log P(C = j)
                       const float64_t[:, ::1] theta,     # IN  (R, K) P(X_v = k | C = j) (read when impute)
                       bint impute,                       # IN  missing cells: add q * theta (True) or nothing
                       float64_t[:, ::1] counts,          # OUT (R, K) expected counts, accumulated (+=)
                       float64_t[::1] cluster_counts,     # OUT (K,) sum_d w_d q_dj, accumulated (+=)
                       float64_t[:, ::1] resp,            # OUT (N, K) posteriors, or shape (0, K) to skip
                       bint do_counts):                   # IN  False: posteriors and log-likelihood only
    """E step of the latent-class model: returns ``(loglik, n_zero)``.

    ``loglik = sum_d w_d log sum_j P(C=j) prod_{c observed} P(X_{v(c)} = x_dc | C=j)`` (missing cells summed out)
    and ``n_zero`` counts rows of zero probability (they get a uniform posterior and contribute -inf). For every
    row with posterior ``q_d``: ``cluster_counts[j] += w_d q_dj``; an observed cell adds ``w_d q_dj`` to
    ``counts[offsets[v] + x, j]``; a missing cell adds ``w_d q_dj theta[offsets[v] + k, j]`` to every state k of
    its variable when ``impute`` (the exact expected count under missing-at-random, spec eq. 8.1), nothing
    otherwise.
    """
    _check(X, w, col_var, offsets, log_theta, log_prior)
    cdef intp_t n = X.shape[0], m = X.shape[1], K = log_prior.shape[0], R = log_theta.shape[0]
    cdef bint want_resp = resp.shape[0] == n and n > 0
    if resp.shape[0] not in (0, n) or (resp.shape[0] == n and n > 0 and resp.shape[1] != K):
        raise ValueError(f"resp must have shape ({n}, {K}) or (0, {K}).")
    if do_counts:
        if counts.shape[0] != R or counts.shape[1] != K or cluster_counts.shape[0] != K:
            raise ValueError(f"counts must be ({R}, {K}) and cluster_counts ({K},).")
        if impute and (theta.shape[0] != R or theta.shape[1] != K):
            raise ValueError(f"theta must be ({R}, {K}) to impute missing cells.")
    np = __import__("numpy")
    # Rows are processed in tiles of T, columns in blocks of B: while a block's parameter rows sit in cache, every row
    # of the tile gathers from (and later scatters into) them. One block when the whole table is small (alarm); 64
    # columns per block when it is large (thousands of loci). The sums per (row, cluster) still run over the columns
    # in order, so the posteriors and the log-likelihood do not depend on the tiling.
    cdef intp_t T = 64
    cdef intp_t B = m if R * K * 8 <= 65536 else 64
    L_buf = np.empty(max(T * K, 1), dtype="float64")
    cdef double[::1] Lt = L_buf
    cdef intp_t[::1] col_off = np.ascontiguousarray(np.asarray(offsets)[np.asarray(col_var)], dtype=np.intp)
    cdef intp_t d, d0, d1, b0, b1, c, j, k, v, r0, r1
    cdef code_t xc
    cdef double lse, total = 0.0, wd, a0, a1, a2, a3
    cdef intp_t n_zero = 0
    cdef double* Ld
    cdef float64_t* crow
    cdef const float64_t* trow
    cdef const float64_t* lrow
    with nogil:
        d0 = 0
        while d0 < n:
            d1 = min(n, d0 + T)
            for d in range(d0, d1):
                Ld = &Lt[(d - d0) * K]
                for j in range(K):
                    Ld[j] = log_prior[j]
            b0 = 0
            while b0 < m:  # gather: L[d, j] += log theta[col_off[c] + x_dc, j]
                b1 = min(m, b0 + B)
                for d in range(d0, d1):
                    Ld = &Lt[(d - d0) * K]
                    if K <= 4:  # accumulate in registers (the generic loop reloads Ld[j] for every cell)
                        a0 = Ld[0]
                        a1 = Ld[1] if K > 1 else 0.0
                        a2 = Ld[2] if K > 2 else 0.0
                        a3 = Ld[3] if K > 3 else 0.0
                        for c in range(b0, b1):
                            xc = X[d, c]
                            if xc < 0:
                                continue
                            lrow = &log_theta[0, 0] + (col_off[c] + xc) * K
                            a0 += lrow[0]
                            if K > 1:
                                a1 += lrow[1]
                                if K > 2:
                                    a2 += lrow[2]
                                    if K > 3:
                                        a3 += lrow[3]
                        Ld[0] = a0
                        if K > 1:
                            Ld[1] = a1
                        if K > 2:
                            Ld[2] = a2
                        if K > 3:
                            Ld[3] = a3
                        continue
                    for c in range(b0, b1):
                        xc = X[d, c]
                        if xc < 0:
                            continue
                        lrow = &log_theta[0, 0] + (col_off[c] + xc) * K
                        for j in range(K):
                            Ld[j] += lrow[j]
                b0 = b1
            for d in range(d0, d1):  # normalise: posteriors, log-likelihood; then w_d q_dj kept in L for the scatter
                Ld = &Lt[(d - d0) * K]
                wd = w[d]
                lse = posterior_row(Ld, K)
                if lse == -INFINITY:
                    n_zero += 1
                    total += -INFINITY if wd > 0 else 0.0
                else:
                    total += wd * lse
                if want_resp:
                    for j in range(K):
                        resp[d, j] = Ld[j]
                for j in range(K):
                    Ld[j] *= wd
                    if do_counts:
                        cluster_counts[j] += Ld[j]
            b0 = 0
            while do_counts and b0 < m:  # scatter: counts[col_off[c] + x_dc, j] += w_d q_dj (missing: x theta)
                b1 = min(m, b0 + B)
                for d in range(d0, d1):
                    if w[d] == 0.0:
                        continue
                    Ld = &Lt[(d - d0) * K]
                    a0 = Ld[0]
                    a1 = Ld[1] if K > 1 else 0.0
                    a2 = Ld[2] if K > 2 else 0.0
                    a3 = Ld[3] if K > 3 else 0.0
                    for c in range(b0, b1):
                        xc = X[d, c]
                        if xc >= 0:
                            crow = &counts[col_off[c] + xc, 0]
                            if K <= 4:  # the weights in registers (the generic loop reloads Ld[j] per cell)
                                crow[0] += a0
                                if K > 1:
                                    crow[1] += a1
                                    if K > 2:
                                        crow[2] += a2
                                        if K > 3:
                                            crow[3] += a3
                            else:
                                for j in range(K):
                                    crow[j] += Ld[j]
                        elif impute:
                            v = col_var[c]
                            r0 = offsets[v]
                            r1 = offsets[v + 1]
                            for k in range(r0, r1):
                                crow = &counts[k, 0]
                                trow = &theta[k, 0]
                                for j in range(K):
                                    crow[j] += Ld[j] * trow[j]
                b0 = b1
            d0 = d1
    return total, n_zero


def latent_class_log_joint(const fcode_t[:, ::1] X,            # IN  (N, M) codes, -1 = missing
                           const intp_t[::1] col_var,         # IN  (M,)
                           const intp_t[::1] offsets,         # IN  (n_vars + 1,)
                           const float64_t[:, ::1] log_theta,  # IN  (R, K)
                           const float64_t[::1] log_prior,    # IN  (K,)
                           float64_t[:, ::1] out):            # OUT (N, K) log p(x_observed, C = j)
    """``out[d, j] = log P(C=j) + sum over observed cells of log P(x_dc | C=j)`` (missing cells summed out)."""
    cdef intp_t n = X.shape[0], m = X.shape[1], K = log_prior.shape[0]
    if out.shape[0] != n or out.shape[1] != K:
        raise ValueError(f"out must have shape ({n}, {K}).")
    np = __import__("numpy")
    cdef const float64_t[::1] ones = np.ones(n)
    _check(X, ones, col_var, offsets, log_theta, log_prior)
    cdef intp_t[::1] col_off = np.ascontiguousarray(np.asarray(offsets)[np.asarray(col_var)], dtype=np.intp)
    cdef intp_t d, j
    if n == 0 or m == 0:
        for d in range(n):
            for j in range(K):
                out[d, j] = log_prior[j]
        return None
    with nogil:
        for d in range(n):
            _gather(&X[d, 0], m, &col_off[0], &log_theta[0, 0], &log_prior[0], K, &out[d, 0])
    return None


cdef inline double _lg_cell(double t, double alpha, const float64_t* table, intp_t n_table,
                            bint integral) noexcept nogil:
    """lgamma(t + alpha) - lgamma(alpha): from the table when the count is a whole number in range."""
    cdef intp_t it
    if integral:
        it = <intp_t>(t + 0.5)
        if it < n_table:
            return table[it]
    return lgamma(t + alpha) - lgamma(alpha)


cdef double _pair_log_bf(const fcode_t* xi, const fcode_t* xj, intp_t n, intp_t ri, intp_t rj,
                         const float64_t* w, double alpha, const float64_t* table, intp_t n_table, bint integral,
                         double* tab) noexcept nogil:
    """BD log Bayes factor of dependence of one pair from its joint table (``tab``: ri * rj + ri + rj scratch):
    the pair as one variable with ``ri * rj`` states against two independent variables, Dirichlet ``alpha`` per
    cell, over the rows where both are observed."""
    cdef intp_t d, a, b, rr = ri * rj
    cdef double tot = 0.0, s_joint = 0.0, s_i = 0.0, s_j = 0.0, t
    cdef double* row_i = tab + rr
    cdef double* col_j = tab + rr + ri
    for a in range(rr + ri + rj):
        tab[a] = 0.0
    for d in range(n):
        if xi[d] < 0 or xj[d] < 0:
            continue
        tab[xi[d] * rj + xj[d]] += w[d]
    for a in range(ri):
        for b in range(rj):
            t = tab[a * rj + b]
            if t > 0.0:
                s_joint += _lg_cell(t, alpha, table, n_table, integral)
            row_i[a] += t
            col_j[b] += t
    for a in range(ri):
        tot += row_i[a]
        if row_i[a] > 0.0:
            s_i += _lg_cell(row_i[a], alpha, table, n_table, integral)
    for b in range(rj):
        if col_j[b] > 0.0:
            s_j += _lg_cell(col_j[b], alpha, table, n_table, integral)
    return ((lgamma(rr * alpha) - lgamma(tot + rr * alpha) + s_joint)
            - (lgamma(ri * alpha) - lgamma(tot + ri * alpha) + s_i)
            - (lgamma(rj * alpha) - lgamma(tot + rj * alpha) + s_j))


cdef inline void _offer(intp_t[:, ::1] top_idx, float64_t[:, ::1] top_val, intp_t i, intp_t j, double val,
                        intp_t k) noexcept nogil:
    """Insert partner ``j`` with ``val`` into row ``i``'s descending top-``k`` list (ties: the earlier offer)."""
    cdef intp_t m
    if top_idx[i, k - 1] >= 0 and val <= top_val[i, k - 1]:
        return
    m = k - 1
    while m > 0 and (top_idx[i, m - 1] < 0 or val > top_val[i, m - 1]):
        top_idx[i, m] = top_idx[i, m - 1]
        top_val[i, m] = top_val[i, m - 1]
        m = m - 1
    top_idx[i, m] = j
    top_val[i, m] = val


def pairwise_dependence_topk(const fcode_t[:, ::1] XT,      # IN  (n_vars, N) codes, transposed, -1 = missing
                             const intp_t[::1] cards,       # IN  (n_vars,) cardinalities
                             const float64_t[::1] w,        # IN  (N,) row weights (multiplicities)
                             double alpha,                  # IN  Dirichlet pseudo-count per cell, > 0
                             const float64_t[::1] lg_table,  # IN  (T,) lgamma(t + alpha) - lgamma(alpha), t = 0..T-1
                             bint integral,                 # IN  every weight is a whole number (table lookups)
                             intp_t n_threads,              # IN  OpenMP threads over the variables
                             intp_t[:, ::1] top_idx,        # OUT (n_vars, k) partners, best first (-1: none)
                             float64_t[:, ::1] top_val):    # OUT (n_vars, k) their log Bayes factors (-inf: none)
    """For every variable, the ``k`` partners of largest BD log Bayes factor of pairwise dependence.

    The factor of the pair ``(i, j)`` is ``log ML(X_i X_j as one variable with r_i r_j states) - log ML(X_i) -
    log ML(X_j)``, every marginal likelihood a Dirichlet-multinomial integral with ``alpha`` per cell over the rows
    where both cells are observed (weighted by ``w``); it is symmetric. Ties: the smaller partner index first.
    With one thread every pair is computed once (``i < j``) and offered to both rows; with more, rows are written by
    one thread each (``prange`` over ``i``, every pair computed in the ``i < j`` orientation), so the result is the
    same bits for any ``n_threads``. Cost O(n_vars^2 N) (half of it with one thread).
    """
    cdef intp_t p = XT.shape[0], n = XT.shape[1], k = top_idx.shape[1]
    if cards.shape[0] != p or w.shape[0] != n:
        raise ValueError(f"cards has {cards.shape[0]} entries and w {w.shape[0]} for ({p}, {n}) codes.")
    if top_idx.shape[0] != p or top_val.shape[0] != p or top_val.shape[1] != k:
        raise ValueError(f"top_idx and top_val must be ({p}, {k}).")
    if not alpha > 0:
        raise ValueError(f"alpha == {alpha}, must be > 0.")
    np = __import__("numpy")
    cdef intp_t rmax = 1, i
    for i in range(p):
        if cards[i] < 1:
            raise ValueError(f"cards[{i}] == {cards[i]}, must be >= 1.")
        rmax = max(rmax, cards[i])
    n_threads = max(1, n_threads)
    scratch = np.zeros((n_threads, rmax * rmax + 2 * rmax), dtype=np.float64)
    cdef float64_t[:, ::1] sc = scratch
    cdef intp_t j, m, t, q
    cdef double val
    cdef const float64_t* tbl = &lg_table[0] if lg_table.shape[0] > 0 else NULL
    cdef intp_t n_table = lg_table.shape[0]
    if p == 0 or k == 0:
        return None
    cdef const float64_t* wp = &w[0] if n > 0 else NULL
    for i in range(p):
        for m in range(k):
            top_idx[i, m] = -1
            top_val[i, m] = -INFINITY
    if n_threads == 1:  # every pair once (i < j), offered to both rows' lists in increasing partner order
        with nogil:
            for i in range(p):
                for j in range(i + 1, p):
                    val = _pair_log_bf(&XT[i, 0], &XT[j, 0], n, cards[i], cards[j], wp, alpha, tbl, n_table,
                                       integral, &sc[0, 0]) if n > 0 else 0.0
                    _offer(top_idx, top_val, i, j, val, k)
                    _offer(top_idx, top_val, j, i, val, k)
        return None
    for i in prange(p, nogil=True, num_threads=n_threads, schedule="dynamic", chunksize=8):
        t = threadid()
        for j in range(p):
            if j == i:
                continue
            if n == 0:
                val = 0.0
            elif i < j:  # the same orientation as the serial loop, so the same bits for any n_threads
                val = _pair_log_bf(&XT[i, 0], &XT[j, 0], n, cards[i], cards[j], wp, alpha, tbl, n_table,
                                   integral, &sc[t, 0])
            else:
                val = _pair_log_bf(&XT[j, 0], &XT[i, 0], n, cards[j], cards[i], wp, alpha, tbl, n_table,
                                   integral, &sc[t, 0])
            _offer(top_idx, top_val, i, j, val, k)
    return None
