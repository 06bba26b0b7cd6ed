"""Score and information kernels on count tables, plus a column-major family counter for the score objects.

Conventions (see STYLE.md section 3):
* Natural logarithms throughout; conversion to bits happens only at the Python API boundary.
* Count tables are float64 (weighted counts allowed); a zero cell contributes nothing (``0 * log 0 := 0``
  through ``xlogy`` from ``_mathutils.pxd``).
* A *family table* is a C-contiguous float64 ``(r, q)`` matrix: rows are the child's states, columns the parent
  configurations (C-order over the sorted parents, i.e. ``family_counts(...).reshape(r, -1)``). A table may list
  only some of the parent configurations (a *compact* table, e.g. the observed ones); ``q_total`` then says how many
  configurations exist in all (default ``q``), and the omitted ones are all-zero columns.
* ``observed_only`` selects pgmpy 1.1.2's semantics for the Bayesian-Dirichlet scores (K2, BDeu): pgmpy counts
  with ``get_state_counts(..., reindex=False)`` when the family has parents, so its sums run over the parent
  configurations that occur (``N_ij > 0``) and, for BDeu, over the child states that occur (row total ``> 0``);
  the unobserved configurations enter only through its analytic correction terms. The exact resulting formulas
  are written in each kernel's docstring. ``observed_only=False`` is the textbook score over every cell.
  (pgmpy reindexes the child states when the family has no parents, so its callers pass ``False`` then.)
* The pairwise buffer is the one of ``pgmpy_ext.stats.PairwiseCounts`` (built by ``_counting.pairwise_counts``):
  pair ``p = (i, j)``, ``i < j`` in lexicographic order ``(0,1), (0,2), ..., (1,2), ...``, occupies
  ``flat[offsets[p]:offsets[p+1]]``, a C-order table over ``(x_i, x_j, c)`` with flat index
  ``(x_i * cards[j] + x_j) * cond_card + c``.
"""
import numpy as np

from libc.math cimport lgamma, log

from _mathutils cimport xlogy
from _typedefs cimport code_t, float64_t, intp_t

# Unweighted counting goes through 4 interleaved int32 sub-histograms (row r into r & 3) up to this many cells
# per histogram (see family_counts_colmajor); larger tables are counted straight into the float64 output.
cdef enum:
    SUBHIST_MAX_CELLS = 65536
    N_SUBHIST = 4


# ----------------------------------------------------------------------------------------------- information
def cmi_from_counts(const float64_t[::1] flat,
                    const intp_t[::1] offsets,
                    const intp_t[::1] cards,
                    intp_t cond_card,
                    float64_t[:, ::1] out):
    """Conditional mutual information I(X_i; X_j | C) in nats of every feature pair, from pairwise counts.

    Parameters
    ----------
    flat : float64 (offsets[-1],), IN. Pairwise counts (weighted counts allowed, all >= 0); pair ``p = (i, j)``
        occupies ``flat[offsets[p]:offsets[p+1]]``, C-order over ``(x_i, x_j, c)``: flat index
        ``(x_i * cards[j] + x_j) * cond_card + c`` (the layout of ``pgmpy_ext.stats.PairwiseCounts``).
    offsets : intp (m*(m-1)/2 + 1,), IN. Start of each pair's table, pairs in lexicographic order.
    cards : intp (m,), IN. Feature cardinalities (>= 1).
    cond_card : intp, IN. Cardinality of C (>= 1; 1 means no conditioning variable).
    out : float64 (m, m), OUT. Overwritten: ``out[i, j] = out[j, i] = I(X_i; X_j | C)``, ``out[i, i] = 0``.

    Notes
    -----
    Plug-in estimate on each pair's own table (so with missing values every pair uses the rows where X_i, X_j
    and C are all observed), with ``N`` the pair table's total:

    ``I = sum_{a,b,c: N_abc > 0} (N_abc / N) * log(N_abc * N_c / (N_ac * N_bc))``

    The ratio form gives exactly 0 when the empirical table factorises exactly. A pair with ``N == 0`` gets 0.
    Rounding can make a sum of mixed-sign terms a few ulps below 0; results are clipped at 0 (as sklearn's
    ``mutual_info_score`` does).
    """
    cdef intp_t m = cards.shape[0]
    cdef intp_t t, max_card = 1
    _check_pairwise(flat, offsets, cards, cond_card, out)
    for t in range(m):
        if cards[t] > max_card:
            max_card = cards[t]
    # scratch for the marginals N_ac, N_bc and N_c, allocated once per call
    n_ac_np = np.empty(max_card * cond_card, dtype=np.float64)
    n_bc_np = np.empty(max_card * cond_card, dtype=np.float64)
    n_c_np = np.empty(cond_card, dtype=np.float64)
    cdef float64_t[::1] n_ac = n_ac_np
    cdef float64_t[::1] n_bc = n_bc_np
    cdef float64_t[::1] n_c = n_c_np
    cdef intp_t i, j, p = 0
    cdef double val
    with nogil:
        for i in range(m):
            out[i, i] = 0.0
            for j in range(i + 1, m):
                val = _pair_cmi(flat, offsets[p], cards[i], cards[j], cond_card, n_ac, n_bc, n_c)
                out[i, j] = val
                out[j, i] = val
                p += 1


def mi_from_counts(const float64_t[::1] flat,
                   const intp_t[::1] offsets,
                   const intp_t[::1] cards,
                   intp_t cond_card,
                   float64_t[:, ::1] out):
    """Unconditional mutual information I(X_i; X_j) in nats of every feature pair, marginalising C.

    Parameters
    ----------
    flat, offsets, cards, cond_card : as in :func:`cmi_from_counts` (IN). The tables are summed over ``c``
        first, so with a conditioning variable the MI is computed on the rows where C is observed (the rows the
        pairwise counts hold).
    out : float64 (m, m), OUT. Overwritten: ``out[i, j] = out[j, i] = I(X_i; X_j)``, ``out[i, i] = 0``.

    Notes
    -----
    ``I = sum_{a,b: N_ab > 0} (N_ab / N) * log(N_ab * N / (N_a * N_b))`` with ``N_ab = sum_c N_abc``; clipped at 0.
    With ``cond_card == 1`` this equals :func:`cmi_from_counts`.
    """
    cdef intp_t m = cards.shape[0]
    cdef intp_t t, max_card = 1
    _check_pairwise(flat, offsets, cards, cond_card, out)
    for t in range(m):
        if cards[t] > max_card:
            max_card = cards[t]
    n_a_np = np.empty(max_card, dtype=np.float64)
    n_b_np = np.empty(max_card, dtype=np.float64)
    n_ab_np = np.empty(max_card * max_card, dtype=np.float64)
    cdef float64_t[::1] n_a = n_a_np
    cdef float64_t[::1] n_b = n_b_np
    cdef float64_t[::1] n_ab = n_ab_np
    cdef intp_t i, j, p = 0
    cdef double val
    with nogil:
        for i in range(m):
            out[i, i] = 0.0
            for j in range(i + 1, m):
                val = _pair_mi(flat, offsets[p], cards[i], cards[j], cond_card, n_a, n_b, n_ab)
                out[i, j] = val
                out[j, i] = val
                p += 1


cdef void _check_pairwise(const float64_t[::1] flat, const intp_t[::1] offsets, const intp_t[::1] cards,
                          intp_t cond_card, float64_t[:, ::1] out) except *:
    """Shape checks shared by the information kernels (raise ValueError; called before nogil)."""
    cdef intp_t m = cards.shape[0]
    cdef intp_t n_pairs = m * (m - 1) // 2
    cdef intp_t i, j, p = 0
    if cond_card < 1:
        raise ValueError(f"cond_card == {cond_card}, must be >= 1 (1 = no conditioning variable).")
    if out.shape[0] != m or out.shape[1] != m:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected (m, m) = ({m}, {m}).")
    if offsets.shape[0] != n_pairs + 1:
        raise ValueError(f"offsets has length {offsets.shape[0]}, expected m*(m-1)/2 + 1 = {n_pairs + 1}.")
    for i in range(m):
        if cards[i] < 1:
            raise ValueError(f"cards[{i}] == {cards[i]}, must be >= 1.")
    if offsets[0] != 0:
        raise ValueError(f"offsets[0] == {offsets[0]}, must be 0.")
    for i in range(m):
        for j in range(i + 1, m):
            if offsets[p + 1] - offsets[p] != cards[i] * cards[j] * cond_card:
                raise ValueError(f"offsets of pair ({i}, {j}) span {offsets[p + 1] - offsets[p]} cells, expected "
                                 f"cards[i] * cards[j] * cond_card = {cards[i] * cards[j] * cond_card}.")
            p += 1
    if flat.shape[0] != offsets[n_pairs]:
        raise ValueError(f"flat has length {flat.shape[0]}, expected offsets[-1] = {offsets[n_pairs]}.")


cdef double _pair_cmi(const float64_t[::1] flat, intp_t start, intp_t ci, intp_t cj, intp_t cc,
                      float64_t[::1] n_ac, float64_t[::1] n_bc, float64_t[::1] n_c) noexcept nogil:
    """I(X_i; X_j | C) of one (ci, cj, cc) table starting at flat[start]; scratch: n_ac (ci*cc), n_bc (cj*cc),
    n_c (cc)."""
    cdef intp_t a, b, c, k
    cdef double v, total = 0.0, s = 0.0
    for k in range(ci * cc):
        n_ac[k] = 0.0
    for k in range(cj * cc):
        n_bc[k] = 0.0
    for c in range(cc):
        n_c[c] = 0.0
    k = start
    for a in range(ci):
        for b in range(cj):
            for c in range(cc):
                v = flat[k]
                n_ac[a * cc + c] += v
                n_bc[b * cc + c] += v
                n_c[c] += v
                k += 1
    for c in range(cc):
        total += n_c[c]
    if total <= 0.0:
        return 0.0
    k = start
    for a in range(ci):
        for b in range(cj):
            for c in range(cc):
                v = flat[k]
                if v > 0.0:
                    s += xlogy(v, (v * n_c[c]) / (n_ac[a * cc + c] * n_bc[b * cc + c]))
                k += 1
    s /= total
    return s if s > 0.0 else 0.0


cdef double _pair_mi(const float64_t[::1] flat, intp_t start, intp_t ci, intp_t cj, intp_t cc,
                     float64_t[::1] n_a, float64_t[::1] n_b, float64_t[::1] n_ab) noexcept nogil:
    """I(X_i; X_j) of one (ci, cj, cc) table summed over c; scratch: n_a (ci), n_b (cj), n_ab (ci*cj)."""
    cdef intp_t a, b, c, k
    cdef double v, total = 0.0, s = 0.0
    for a in range(ci):
        n_a[a] = 0.0
    for b in range(cj):
        n_b[b] = 0.0
    k = start
    for a in range(ci):
        for b in range(cj):
            v = 0.0
            for c in range(cc):
                v += flat[k + c]
            k += cc
            n_ab[a * cj + b] = v
            n_a[a] += v
            n_b[b] += v
    for a in range(ci):
        total += n_a[a]
    if total <= 0.0:
        return 0.0
    for a in range(ci):
        for b in range(cj):
            v = n_ab[a * cj + b]
            if v > 0.0:
                s += xlogy(v, (v * total) / (n_a[a] * n_b[b]))
    s /= total
    return s if s > 0.0 else 0.0


# ----------------------------------------------------------------------------------------------- family scores
cdef double _check_family(const float64_t[:, ::1] counts, double q_total) except? -1.0:
    """Shape checks shared by the family-score kernels; returns the effective q_total (raise before nogil)."""
    if counts.shape[0] < 1:
        raise ValueError(f"counts has {counts.shape[0]} rows; a family table needs one row per child state (>= 1).")
    if q_total < 0.0:
        return <double> counts.shape[1]
    if q_total < counts.shape[1]:
        raise ValueError(f"q_total == {q_total}, smaller than the {counts.shape[1]} parent configurations "
                         "(columns) the table lists; it must count all of them.")
    return q_total


def loglik_from_counts(const float64_t[:, ::1] counts):
    """Log-likelihood (nats) of one family at its maximum-likelihood parameters.

    Parameters
    ----------
    counts : float64 (r, q), IN. Family table: child states x parent configurations (all, or only some of them:
        an omitted or all-zero configuration contributes 0). Weighted counts allowed.

    Returns
    -------
    float : ``LL = sum_{j,k: N_jk > 0} N_jk * log(N_jk / N_j)`` with ``N_j = sum_k N_jk``; 0 for an empty table.
    """
    _check_family(counts, -1.0)
    cdef double ll
    with nogil:
        ll = _loglik(counts)
    return ll


cdef double _loglik(const float64_t[:, ::1] counts) noexcept nogil:
    cdef intp_t r = counts.shape[0]
    cdef intp_t q = counts.shape[1]
    cdef intp_t j, k
    cdef double nj, s = 0.0
    for j in range(q):
        nj = 0.0
        for k in range(r):
            nj += counts[k, j]
        if nj <= 0.0:
            continue
        for k in range(r):
            s += xlogy(counts[k, j], counts[k, j] / nj)
    return s


def bic_from_counts(const float64_t[:, ::1] counts, double n_total, double q_total=-1.0):
    """BIC local score (nats): the log-likelihood minus ``log(n_total) / 2`` per free parameter.

    Parameters
    ----------
    counts : float64 (r, q), IN. Family table, as in :func:`loglik_from_counts`.
    n_total : float, IN. Sample size in the penalty (> 0). pgmpy uses ``len(data)``, rows with missing values
        included.
    q_total : float, IN. Number of parent configurations in all (>= q); -1 means ``q``.

    Returns
    -------
    float : ``LL - 0.5 * log(n_total) * q_total * (r - 1)`` (pgmpy's ``BIC``; the negated MDL in nats).
    """
    q_total = _check_family(counts, q_total)
    if not n_total > 0.0:
        raise ValueError(f"n_total == {n_total}, must be > 0 (the sample size in the BIC penalty log(n_total)).")
    cdef double ll
    with nogil:
        ll = _loglik(counts)
    return ll - 0.5 * log(n_total) * q_total * (counts.shape[0] - 1)


def aic_from_counts(const float64_t[:, ::1] counts, double q_total=-1.0):
    """AIC local score (nats): ``LL - q_total * (r - 1)`` (pgmpy's ``AIC``, one unit per free parameter).

    Parameters
    ----------
    counts : float64 (r, q), IN. Family table, as in :func:`loglik_from_counts`.
    q_total : float, IN. Number of parent configurations in all (>= q); -1 means ``q``.
    """
    q_total = _check_family(counts, q_total)
    cdef double ll
    with nogil:
        ll = _loglik(counts)
    return ll - q_total * (counts.shape[0] - 1)


def k2_from_counts(const float64_t[:, ::1] counts, double q_total=-1.0, bint observed_only=False):
    """K2 (Cooper-Herskovits) log marginal likelihood (nats): Dirichlet prior with every pseudo-count 1.

    Parameters
    ----------
    counts : float64 (r, q), IN. Family table (weighted counts allowed).
    q_total : float, IN. Number of parent configurations in all (>= q); -1 means ``q``.
    observed_only : bool, IN. pgmpy 1.1.2's semantics for a family with parents (see the module notes).

    Returns
    -------
    float
        ``observed_only=False`` (textbook; an all-zero or omitted column contributes 0):
        ``sum_{j listed} [lgamma(r) - lgamma(N_j + r) + sum_k lgamma(N_jk + 1)]``.

        ``observed_only=True`` (pgmpy, with ``J_obs = {j : N_j > 0}``):
        ``q_total * lgamma(r) + sum_{j in J_obs} [sum_k lgamma(N_jk + 1) - lgamma(N_j + r)]``,
        i.e. the textbook value plus ``(q_total - |J_obs|) * lgamma(r)`` (pgmpy adds ``lgamma(r)`` for every
        configuration but subtracts ``lgamma(N_j + r)`` only for observed ones; the two agree when ``r <= 2``
        or every configuration occurs).
    """
    q_total = _check_family(counts, q_total)
    cdef intp_t r = counts.shape[0]
    cdef intp_t q = counts.shape[1]
    cdef intp_t j, k
    cdef double nj, col, s = 0.0, lg_r = lgamma(<double> r)
    cdef double n_obs = 0.0
    with nogil:
        for j in range(q):
            nj = 0.0
            col = 0.0
            for k in range(r):
                nj += counts[k, j]
                col += lgamma(counts[k, j] + 1.0)
            if observed_only and not nj > 0.0:
                continue
            n_obs += 1.0
            s += col - lgamma(nj + r)
    if observed_only:
        return s + q_total * lg_r
    return s + n_obs * lg_r


def bdeu_from_counts(const float64_t[:, ::1] counts, double equivalent_sample_size, double q_total=-1.0,
                     bint observed_only=False):
    """BDeu log marginal likelihood (nats) with equivalent sample size ``ess``.

    Parameters
    ----------
    counts : float64 (r, q), IN. Family table (weighted counts allowed).
    equivalent_sample_size : float, IN. ``ess > 0``; ``alpha = ess / q_total``, ``beta = ess / (r * q_total)``.
    q_total : float, IN. Number of parent configurations in all (>= q); -1 means ``q``.
    observed_only : bool, IN. pgmpy 1.1.2's semantics for a family with parents (see the module notes).

    Returns
    -------
    float
        ``observed_only=False`` (textbook; an all-zero or omitted column contributes 0):
        ``sum_{j listed} [lgamma(alpha) - lgamma(N_j + alpha) + sum_k (lgamma(N_jk + beta) - lgamma(beta))]``.

        ``observed_only=True`` (pgmpy, with ``J_obs = {j : N_j > 0}`` and ``K_obs = {k : sum_j N_jk > 0}``):
        ``sum_{j in J_obs} [lgamma(alpha) - lgamma(N_j + alpha) + sum_{k in K_obs} lgamma(N_jk + beta)
        - r * lgamma(beta)]``. This is what pgmpy's correction terms add up to: its table (``reindex=False``)
        lacks the unobserved child states, so it misses ``lgamma(beta)`` for those cells; the value equals the
        textbook one when every child state occurs.
    """
    q_total = _check_family(counts, q_total)
    if not equivalent_sample_size > 0.0:
        raise ValueError(f"equivalent_sample_size == {equivalent_sample_size}, must be > 0.")
    cdef intp_t r = counts.shape[0]
    cdef intp_t q = counts.shape[1]
    cdef intp_t j, k
    cdef double alpha = equivalent_sample_size / q_total
    cdef double beta = equivalent_sample_size / (r * q_total)
    cdef double lg_alpha = lgamma(alpha), lg_beta = lgamma(beta)
    cdef double nj, col, s = 0.0
    row_seen_np = np.ones(r, dtype=np.uint8)
    cdef unsigned char[::1] row_seen = row_seen_np
    cdef double rowsum
    with nogil:
        if observed_only:
            for k in range(r):
                rowsum = 0.0
                for j in range(q):
                    rowsum += counts[k, j]
                row_seen[k] = rowsum > 0.0
        for j in range(q):
            nj = 0.0
            col = 0.0
            for k in range(r):
                nj += counts[k, j]
                if row_seen[k]:
                    col += lgamma(counts[k, j] + beta)
            if observed_only and not nj > 0.0:
                continue
            s += lg_alpha - lgamma(nj + alpha) + col - r * lg_beta
    return s


# ----------------------------------------------------------------------------------------------- counting
# Kept here, not in _counting.pyx (owned by the counting kernels' maintainer): this variant exists for the score
# objects, which count thousands of small families on the same data and keep a column-major copy for it.
def family_counts_colmajor(const code_t[:, ::1] codes_t,
                           const intp_t[::1] columns,
                           const intp_t[::1] cards,
                           const float64_t[::1] weights,
                           float64_t[::1] out):
    """Add the (weighted) counts of one family into ``out``, reading column-major codes.

    Same result as ``_counting.family_counts`` on ``codes_t.T``, but every family column is a contiguous run of
    memory, so a 2-column family over 100k rows reads 800 kB instead of striding through the whole matrix.

    Parameters
    ----------
    codes_t : int32 (n_cols, n_rows), IN. The *transposed* code matrix (``np.ascontiguousarray(codes.T)``);
        -1 = missing.
    columns : intp (k,), IN. Column indices of the family, child first then parents (k >= 1).
    cards : intp (k,), IN. Cardinality of each family column.
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    out : float64 (prod(cards),), OUT. C-order table over ``columns`` (flat index
        ``idx = idx * cards[t] + x[t]``); added into.

    Notes
    -----
    Rows whose family contains a -1 are skipped (available-case counting, as pgmpy does). Unweighted counts of
    tables up to 65,536 cells go to four interleaved int32 sub-histograms (row ``r`` into ``r % 4``), which breaks
    the store-to-load dependency of consecutive increments of the same cell; they are added into ``out`` at the
    end, so the result is exact.
    """
    cdef intp_t n = codes_t.shape[1]
    cdef intp_t k = columns.shape[0]
    cdef intp_t t, size = 1
    cdef bint weighted = weights.shape[0] > 0
    if k < 1:
        raise ValueError("columns must name at least one column (the child).")
    if cards.shape[0] != k:
        raise ValueError(f"cards has length {cards.shape[0]}, expected {k} (one per family column).")
    for t in range(k):
        if columns[t] < 0 or columns[t] >= codes_t.shape[0]:
            raise ValueError(f"column index {columns[t]} out of range for codes_t with {codes_t.shape[0]} "
                             "columns (rows of the transposed matrix).")
        if cards[t] < 1:
            raise ValueError(f"cardinality {cards[t]} of column {columns[t]} must be >= 1.")
        size *= cards[t]
    if out.shape[0] != size:
        raise ValueError(f"out has length {out.shape[0]}, expected prod(cards) = {size}.")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    if n == 0:
        return
    cdef bint subhist = (not weighted) and size <= SUBHIST_MAX_CELLS and n < 2**31 - 1
    cnt_np = np.zeros(N_SUBHIST * size if subhist else 0, dtype=np.int32)
    cdef int[::1] cnt = cnt_np
    cdef intp_t r, idx
    cdef intp_t c0 = columns[0], c1 = columns[1] if k > 1 else 0, card1 = cards[1] if k > 1 else 1
    cdef code_t v0, v1
    with nogil:
        if subhist and k == 1:
            for r in range(n):
                v0 = codes_t[c0, r]
                if v0 >= 0:
                    cnt[(r & 3) * size + v0] += 1
        elif subhist and k == 2:
            for r in range(n):
                v0 = codes_t[c0, r]
                v1 = codes_t[c1, r]
                if (v0 | v1) >= 0:
                    cnt[(r & 3) * size + v0 * card1 + v1] += 1
        else:
            for r in range(n):
                idx = 0
                for t in range(k):
                    v0 = codes_t[columns[t], r]
                    if v0 < 0:
                        idx = -1
                        break
                    idx = idx * cards[t] + v0
                if idx < 0:
                    continue
                if weighted:
                    out[idx] += weights[r]
                elif subhist:
                    cnt[(r & 3) * size + idx] += 1
                else:
                    out[idx] += 1.0
        if subhist:
            for idx in range(size):
                out[idx] += (<double> cnt[idx] + cnt[size + idx]) + (<double> cnt[2 * size + idx]
                                                                     + cnt[3 * size + idx])
