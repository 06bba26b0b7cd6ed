"""Closed-form leave-one-out (LOO) naive Bayes kernels for the selective naive Bayes wrapper (Langley & Sage 1994).

Spec: ``docs/decisions/seed001-tm-classifiers.md`` section 4.2 (A6), with the zero-count convention of seed 000
D5/D6 (``docs/decisions/seed000-sbn-cem-nbm.md``).

Held-out model
--------------
Row ``d`` (class ``y_d``, weight ``w_d``; ``w_d = 1`` when unweighted) is scored by the naive Bayes fitted on all
rows but ``d``. Its counts are the full-data counts with ``d``'s own contribution removed, so only the cells of
``d``'s own class change:

* prior: ``n = N_c - w_d [c = y_d]``, ``tot = N - w_d``, ``r = K``;
* feature ``X_j``: ``n = N_j[x_dj, c] - w_d [c = y_d]``, ``tot = N_c - w_d [c = y_d]``, ``r = r_j``.

Each factor is ``log((n + alpha) / (tot + r * alpha))``; a parent configuration with no data (``tot + r * alpha
== 0``) gets the uniform ``-log(r)`` (seed 000 D6, pgmpy's ``DiscreteMLE`` rule); ``n + alpha <= 0`` is
``log 0``; every factor is then floored at ``log_floor`` (seed 000 D5: maximum likelihood is ``alpha = 0``, the
floor keeps the argmax defined). The score of class ``c`` is the sum of the prior factor and one factor per
selected feature. This is exactly what a count-based naive Bayes refitted without row ``d`` (with the same states,
``alpha`` and floored log-CPT) computes for row ``d``.

Prediction and ties
-------------------
``pred_d`` is the lowest class index whose score is within ``tie_rtol * (1 + |max score|)`` of the maximum
score. A tie in exact arithmetic therefore goes to the lowest class whatever the rounding of the logs (the sums
are computed in a different order than a refitted network would use). Row ``d`` is correct when
``pred_d == y_d``; the weighted number of correct rows is ``sum_d w_d [pred_d == y_d]`` (rows in order).

Layouts
-------
* ``X`` : int32 ``(n_rows, n_cols)`` codes; complete data (codes ``0..card-1``; the kernels check).
* ``S`` : float64 ``(n_rows, K)``: the LOO score of every row and class for the features selected so far.
* ``counts`` (candidates) : float64, candidate ``t`` occupies ``counts[count_offsets[t]:count_offsets[t+1]]``, a
  C-order ``(cards[t], K)`` table ``N_t[x, c]`` (``family_counts(child, [class])``): flat index
  ``count_offsets[t] + x * K + c``.
* ``class_totals`` : float64 ``(K,)``: ``N_c``.
"""
import numpy as np

from cython.parallel cimport prange
from libc.math cimport fabs, log

from _typedefs cimport code_t, float64_t, intp_t


cdef inline double _loo_log(double n, double tot, double alpha, double r, double log_floor) noexcept nogil:
    """Floored ``log((n + alpha) / (tot + r alpha))``; uniform ``-log r`` when the denominator is 0."""
    cdef double den = tot + r * alpha
    cdef double num = n + alpha
    cdef double val
    if not den > 0.0:
        val = -log(r)
    elif not num > 0.0:
        return log_floor
    else:
        val = log(num / den)
    if val < log_floor:
        return log_floor
    return val


cdef inline intp_t _argmax_tie(const double* s, intp_t K, double tie_rtol) noexcept nogil:
    """Lowest index whose value is within ``tie_rtol * (1 + |max|)`` of the maximum."""
    cdef intp_t c
    cdef double m = s[0]
    for c in range(1, K):
        if s[c] > m:
            m = s[c]
    m -= tie_rtol * (1.0 + fabs(m))
    for c in range(K):
        if s[c] >= m:
            return c
    return 0


cdef int _check_codes(const code_t[:, ::1] X, intp_t col, intp_t card) except -1:
    """ValueError if column ``col`` has a code outside ``0..card-1`` (missing values included)."""
    cdef intp_t n = X.shape[0]
    cdef intp_t r, bad = -1
    cdef code_t v
    if col < 0 or col >= X.shape[1]:
        raise ValueError(f"column index {col} out of range for X with {X.shape[1]} columns.")
    if card < 1:
        raise ValueError(f"cardinality {card} of column {col} must be >= 1.")
    with nogil:
        for r in range(n):
            v = X[r, col]
            if v < 0 or v >= card:
                bad = r
                break
    if bad >= 0:
        raise ValueError(f"row {bad}: code {X[bad, col]} in column {col} is outside 0..{card - 1}; the LOO naive "
                         "Bayes kernels need complete data.")
    return 0


cdef int _check_common(const float64_t[:, ::1] S, const code_t[:, ::1] X, intp_t y_col,
                       const float64_t[::1] weights, const float64_t[::1] class_totals) except -1:
    cdef intp_t n = X.shape[0]
    cdef intp_t K = class_totals.shape[0]
    if K < 1:
        raise ValueError("class_totals must have at least one class.")
    if S.shape[0] != n or S.shape[1] != K:
        raise ValueError(f"S has shape ({S.shape[0]}, {S.shape[1]}), expected (n_rows, K) = ({n}, {K}).")
    if weights.shape[0] != 0 and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    _check_codes(X, y_col, K)
    return 0


def loo_prior(float64_t[:, ::1] S,
              const code_t[:, ::1] X,
              intp_t y_col,
              const float64_t[::1] weights,
              const float64_t[::1] class_totals,
              double alpha,
              double log_floor):
    """Write the LOO log-prior of every row and class: ``S[d, c] = floor(log p_{-d}(c))``.

    Parameters
    ----------
    S : float64 (n_rows, K), OUT. Overwritten.
    X : int32 (n_rows, n_cols), IN. Codes; column ``y_col`` holds the class.
    y_col : intp, IN. Column of the class in ``X``.
    weights : float64 (n_rows,) or (0,), IN. Row weights; empty = all ones.
    class_totals : float64 (K,), IN. ``N_c`` on all rows (weighted).
    alpha : float, IN. Dirichlet pseudo-count per cell (>= 0).
    log_floor : float, IN. Floor of every log factor (finite).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = class_totals.shape[0]
    cdef intp_t d, c, yd
    cdef double wd, total = 0.0
    cdef bint weighted = weights.shape[0] > 0
    _check_common(S, X, y_col, weights, class_totals)
    for c in range(K):
        total += class_totals[c]
    with nogil:
        for d in range(n):
            yd = X[d, y_col]
            wd = weights[d] if weighted else 1.0
            for c in range(K):
                S[d, c] = _loo_log(class_totals[c] - (wd if c == yd else 0.0), total - wd, alpha, <double> K,
                                   log_floor)


def loo_add_feature(float64_t[:, ::1] S,
                    const code_t[:, ::1] X,
                    intp_t col,
                    intp_t card,
                    intp_t y_col,
                    const float64_t[::1] weights,
                    const float64_t[::1] counts,
                    const float64_t[::1] class_totals,
                    double alpha,
                    double log_floor):
    """Add feature ``col``'s LOO log factor to every row and class: ``S[d, c] += floor(log p_{-d}(x_d | c))``.

    Parameters
    ----------
    S : float64 (n_rows, K), IN/OUT.
    X : int32 (n_rows, n_cols), IN.
    col : intp, IN. Column of the feature in ``X``.
    card : intp, IN. Its cardinality ``r``.
    y_col : intp, IN. Column of the class.
    weights : float64 (n_rows,) or (0,), IN. Empty = all ones.
    counts : float64 (card * K,), IN. C-order ``(card, K)`` table ``N[x, c]`` on all rows.
    class_totals : float64 (K,), IN. ``N_c``.
    alpha, log_floor : float, IN. As in :func:`loo_prior`.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = class_totals.shape[0]
    cdef intp_t d, c, yd, base
    cdef double wd, dec
    cdef bint weighted = weights.shape[0] > 0
    _check_common(S, X, y_col, weights, class_totals)
    _check_codes(X, col, card)
    if counts.shape[0] != card * K:
        raise ValueError(f"counts has length {counts.shape[0]}, expected card * K = {card * K}.")
    with nogil:
        for d in range(n):
            yd = X[d, y_col]
            wd = weights[d] if weighted else 1.0
            base = X[d, col] * K
            for c in range(K):
                dec = wd if c == yd else 0.0
                S[d, c] += _loo_log(counts[base + c] - dec, class_totals[c] - dec, alpha, <double> card, log_floor)


def loo_correct(const float64_t[:, ::1] S,
                const code_t[:, ::1] X,
                intp_t y_col,
                const float64_t[::1] weights,
                double tie_rtol,
                unsigned char[::1] correct):
    """Which rows the scores ``S`` classify correctly, and their weighted number.

    Parameters
    ----------
    S : float64 (n_rows, K), IN. LOO scores.
    X : int32 (n_rows, n_cols), IN. Column ``y_col`` holds the class.
    y_col : intp, IN.
    weights : float64 (n_rows,) or (0,), IN. Empty = all ones.
    tie_rtol : float, IN. Relative tie tolerance (module docstring).
    correct : uint8 (n_rows,), OUT. 1 where ``pred_d == y_d``.

    Returns
    -------
    float
        ``sum_d w_d correct[d]``.
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = S.shape[1]
    cdef intp_t d
    cdef double acc = 0.0
    cdef bint weighted = weights.shape[0] > 0
    if K < 1 or S.shape[0] != n:
        raise ValueError(f"S has shape ({S.shape[0]}, {K}), expected (n_rows = {n}, K >= 1).")
    if correct.shape[0] != n:
        raise ValueError(f"correct has length {correct.shape[0]}, expected n_rows = {n}.")
    if weights.shape[0] != 0 and weights.shape[0] != n:
        raise ValueError(f"weights has length {weights.shape[0]}, expected n_rows = {n} (or 0 for unweighted).")
    _check_codes(X, y_col, K)
    with nogil:
        for d in range(n):
            if _argmax_tie(&S[d, 0], K, tie_rtol) == X[d, y_col]:
                correct[d] = 1
                acc += weights[d] if weighted else 1.0
            else:
                correct[d] = 0
    return acc


def loo_candidates(const float64_t[:, ::1] S,
                   const code_t[:, ::1] X,
                   const intp_t[::1] cand_cols,
                   const intp_t[::1] cand_cards,
                   intp_t y_col,
                   const float64_t[::1] weights,
                   const float64_t[::1] counts,
                   const intp_t[::1] count_offsets,
                   const float64_t[::1] class_totals,
                   double alpha,
                   double log_floor,
                   double tie_rtol,
                   float64_t[::1] out,
                   int n_threads=1):
    """Weighted number of LOO-correct rows after adding each candidate feature to the scores ``S``.

    ``out[t] = sum_d w_d [argmax_tie(S[d, :] + floor(log p_{-d}(x_{d, cand_cols[t]} | :))) == y_d]``. One
    candidate costs ``O(n_rows * K)``; ``S`` is not modified.

    Parameters
    ----------
    S : float64 (n_rows, K), IN. LOO scores of the selected features (prior included).
    X : int32 (n_rows, n_cols), IN.
    cand_cols : intp (m,), IN. Columns of the candidate features.
    cand_cards : intp (m,), IN. Their cardinalities.
    y_col : intp, IN. Column of the class.
    weights : float64 (n_rows,) or (0,), IN. Empty = all ones.
    counts : float64 (count_offsets[m],), IN. Candidate ``t``'s ``(cand_cards[t], K)`` table ``N[x, c]`` at
        ``count_offsets[t]`` (module docstring).
    count_offsets : intp (m + 1,), IN. ``count_offsets[t+1] - count_offsets[t] == cand_cards[t] * K``.
    class_totals : float64 (K,), IN. ``N_c``.
    alpha, log_floor, tie_rtol : float, IN. As in :func:`loo_prior` and :func:`loo_correct`.
    out : float64 (m,), OUT. Overwritten.
    n_threads : int, IN. OpenMP threads over candidates (disjoint outputs; each candidate sums its rows in
        order, so results are bit-identical for every value).
    """
    cdef intp_t n = X.shape[0]
    cdef intp_t K = class_totals.shape[0]
    cdef intp_t m = cand_cols.shape[0]
    cdef intp_t t, d, c, yd, base, col, card
    cdef double wd, acc
    cdef bint weighted = weights.shape[0] > 0
    _check_common(S, X, y_col, weights, class_totals)
    if cand_cards.shape[0] != m or count_offsets.shape[0] != m + 1 or out.shape[0] != m:
        raise ValueError(f"cand_cards, count_offsets and out must have lengths m, m + 1 and m (m = {m}); got "
                         f"{cand_cards.shape[0]}, {count_offsets.shape[0]} and {out.shape[0]}.")
    if count_offsets[0] != 0 or count_offsets[m] != counts.shape[0]:
        raise ValueError(f"count_offsets must start at 0 and end at len(counts) = {counts.shape[0]}.")
    for t in range(m):
        _check_codes(X, cand_cols[t], cand_cards[t])
        if count_offsets[t + 1] - count_offsets[t] != cand_cards[t] * K:
            raise ValueError(f"candidate {t}: its counts block has {count_offsets[t + 1] - count_offsets[t]} "
                             f"entries, expected card * K = {cand_cards[t] * K}.")
    scratch_np = np.empty((max(m, 1), K), dtype=np.float64)
    cdef float64_t[:, ::1] s = scratch_np
    # the factors of the classes a row does not belong to are not decremented: one table per candidate, in the
    # layout of ``counts`` (same _loo_log arguments, hence the same values as computing them row by row)
    logtab_np = np.empty(counts.shape[0], dtype=np.float64)
    cdef float64_t[::1] logtab = logtab_np
    cdef intp_t cell
    if n_threads < 1:
        n_threads = 1
    with nogil:
        for t in prange(m, num_threads=n_threads, schedule="dynamic"):
            col = cand_cols[t]
            card = cand_cards[t]
            for cell in range(count_offsets[t], count_offsets[t + 1]):
                logtab[cell] = _loo_log(counts[cell], class_totals[(cell - count_offsets[t]) % K], alpha,
                                        <double> card, log_floor)
            acc = 0.0
            for d in range(n):
                yd = X[d, y_col]
                wd = weights[d] if weighted else 1.0
                base = count_offsets[t] + X[d, col] * K
                for c in range(K):
                    s[t, c] = S[d, c] + logtab[base + c]
                s[t, yd] = S[d, yd] + _loo_log(counts[base + yd] - wd, class_totals[yd] - wd, alpha, <double> card,
                                               log_floor)
                if _argmax_tie(&s[t, 0], K, tie_rtol) == yd:
                    acc = acc + wd
            out[t] = acc
