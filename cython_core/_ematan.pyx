"""EMA-TAN kernels (seed 001 section 7.3.2, spec ``docs/decisions/seed001-ema-popgen.md`` section 5): the E step of
the averaged model whose CPDs are mixtures of 2i small CPTs, the expected-count accumulation over every ordered pair
``(X_l, X_i), l < i``, and the log-likelihood. Distinct rows with multiplicities; complete data only.

The variables are already in the averaging order pi (the wrapper permutes the columns once), so "X_l precedes X_i"
is ``l < i``. Variable ``i`` has the parent-set options ``{}``, ``{X_l}`` (l < i), ``{C}``, ``{C, X_l}`` (l < i).

Flat layout (built by ``pgmpy_ext.stats.TANMixtureLayout``)
----------------------------------------------------------
``n`` variables with cardinalities ``cards`` (intp ``(n,)``), ``K`` clusters.

* ``single_off`` : intp ``(n + 1,)``, ``single_off[i] = sum_{i' < i} r_i'``.
* pair ``p(i, l) = i * (i - 1) / 2 + l`` for ``l < i`` (row-major over the strict lower triangle), ``P = n(n-1)/2``
  pairs; ``pair_off`` : intp ``(P + 1,)``, ``pair_off[p + 1] - pair_off[p] = r_l * r_i``.
* Options **without** C (the "independent" tables):
  ``single_ind[single_off[i] + k]`` belongs to option ``{}`` of X_i at ``x_i = k``;
  ``pair_ind[pair_off[p] + a * r_i + k]`` to option ``{X_l}`` at ``x_l = a, x_i = k`` (C order over ``(a, k)``).
* Options **with** C (the "dependent" tables), the cluster axis last so that the E step's inner loop over clusters
  is contiguous:
  ``single_dep[(single_off[i] + k) * K + j]`` is option ``{C}`` at ``x_i = k, c = j`` (C order over ``(k, j)``);
  ``pair_dep[(pair_off[p] + a * r_i + k) * K + j]`` is option ``{C, X_l}`` at ``x_l = a, x_i = k, c = j``
  (C order over ``(a, k, j)``).
  This departs from the house rule "child axis first" (``stats._layout.BlockLayout``) on purpose: with ``j``
  innermost, the O(N n^2 K) loops read and write K adjacent doubles per (row, pair).

The E step takes the *weighted* tables, ``w_i^v * theta~_i^v`` (the wrapper multiplies them), so the averaged CPD
is just their sum: ``p(x_i | c, x_<i) = single_ind[x_i] + sum_l pair_ind[x_l, x_i] + single_dep[x_i, c] + sum_l
pair_dep[x_l, x_i, c]``. Expected-count buffers have the dependent layout (``counts_single`` like ``single_dep``,
``counts_pair`` like ``pair_dep``); the independent counts are plain counts and are computed once by the wrapper.
"""
import numpy as np

from libc.math cimport exp, log, INFINITY

from _mathutils cimport logsumexp_row
from _typedefs cimport code_t, float64_t, intp_t


def _check_layout(const code_t[:, ::1] X, const intp_t[::1] cards, intp_t K, const intp_t[::1] single_off,
                  const intp_t[::1] pair_off):
    """Shapes of the layout against ``X`` and every code in range (complete data); ValueError naming the cell."""
    cdef intp_t n = cards.shape[0]
    cdef intp_t P = n * (n - 1) // 2
    cdef intp_t i, l, p, d, x
    if X.shape[1] != n:
        raise ValueError(f"X has {X.shape[1]} columns, expected n = {n} (one per variable, in the order pi).")
    if K < 1:
        raise ValueError(f"K == {K}, must be >= 1.")
    if single_off.shape[0] != n + 1 or pair_off.shape[0] != P + 1:
        raise ValueError(f"single_off must have length n + 1 = {n + 1} and pair_off n(n-1)/2 + 1 = {P + 1}.")
    for i in range(n):
        if cards[i] < 1:
            raise ValueError(f"variable {i}: cardinality {cards[i]} must be >= 1.")
        if single_off[i + 1] - single_off[i] != cards[i]:
            raise ValueError(f"single_off: variable {i} has {single_off[i + 1] - single_off[i]} cells, expected "
                             f"r_i = {cards[i]}.")
        for l in range(i):
            p = i * (i - 1) // 2 + l
            if pair_off[p + 1] - pair_off[p] != cards[l] * cards[i]:
                raise ValueError(f"pair_off: pair ({i}, {l}) has {pair_off[p + 1] - pair_off[p]} cells, expected "
                                 f"r_l * r_i = {cards[l] * cards[i]}.")
    if single_off[0] != 0 or pair_off[0] != 0:
        raise ValueError("single_off and pair_off must start at 0.")
    for d in range(X.shape[0]):
        for i in range(n):
            x = X[d, i]
            if x < 0 or x >= cards[i]:
                raise ValueError(f"row {d}, variable {i}: code {x} is outside 0..{cards[i] - 1} (EMA-TAN needs "
                                 "complete data: -1 means missing).")


def _check_len(name, intp_t got, intp_t expected):
    if got != expected:
        raise ValueError(f"{name} has length {got}, expected {expected}.")


cdef inline void _row_log_joint(const code_t[:, ::1] X, intp_t d, const intp_t[::1] cards, intp_t K,
                                const intp_t[::1] single_off, const intp_t[::1] pair_off,
                                const float64_t[::1] single_ind, const float64_t[::1] single_dep,
                                const float64_t[::1] pair_ind, const float64_t[::1] pair_dep,
                                const float64_t[::1] log_prior, float64_t* lp, float64_t* sdep) noexcept nogil:
    """``lp[j] = log p(x_d, C = j)`` under the averaged model (weighted mixture tables)."""
    cdef intp_t n = cards.shape[0]
    cdef intp_t i, l, j, xi, ri, cell, base, p0
    cdef double s_ind
    for j in range(K):
        lp[j] = log_prior[j]
    for i in range(n):
        xi = X[d, i]
        ri = cards[i]
        s_ind = single_ind[single_off[i] + xi]
        base = (single_off[i] + xi) * K
        for j in range(K):
            sdep[j] = single_dep[base + j]
        p0 = i * (i - 1) // 2
        for l in range(i):
            cell = pair_off[p0 + l] + X[d, l] * ri + xi
            s_ind += pair_ind[cell]
            base = cell * K
            for j in range(K):
                sdep[j] += pair_dep[base + j]
        for j in range(K):
            lp[j] += log(s_ind + sdep[j])


cdef inline void _row_scatter(const code_t[:, ::1] X, intp_t d, const intp_t[::1] cards, intp_t K,
                              const intp_t[::1] single_off, const intp_t[::1] pair_off, const float64_t* wq,
                              float64_t[::1] counts_single, float64_t[::1] counts_pair,
                              float64_t[::1] cluster_counts) noexcept nogil:
    """Add ``wq[j]`` (row weight x responsibility) to every dependent cell row ``d`` touches."""
    cdef intp_t n = cards.shape[0]
    cdef intp_t i, l, j, xi, ri, base, p0
    for j in range(K):
        cluster_counts[j] += wq[j]
    for i in range(n):
        xi = X[d, i]
        ri = cards[i]
        base = (single_off[i] + xi) * K
        for j in range(K):
            counts_single[base + j] += wq[j]
        p0 = i * (i - 1) // 2
        for l in range(i):
            base = (pair_off[p0 + l] + X[d, l] * ri + xi) * K
            for j in range(K):
                counts_pair[base + j] += wq[j]


def ematan_estep(const code_t[:, ::1] X,
                 const float64_t[::1] weights,
                 const intp_t[::1] cards,
                 intp_t K,
                 const intp_t[::1] single_off,
                 const intp_t[::1] pair_off,
                 const float64_t[::1] single_ind,
                 const float64_t[::1] single_dep,
                 const float64_t[::1] pair_ind,
                 const float64_t[::1] pair_dep,
                 const float64_t[::1] log_prior,
                 float64_t[::1] counts_single,
                 float64_t[::1] counts_pair,
                 float64_t[::1] cluster_counts,
                 float64_t[:, ::1] resp):
    """E step of EMA-TAN: log-likelihood, responsibilities and expected counts of every option with C.

    Parameters
    ----------
    X : int32 (U, n), IN. Distinct rows, columns in the order pi, complete (codes ``0..r_i-1``; checked).
    weights : float64 (U,), IN. Multiplicities.
    cards : intp (n,), IN.  K : intp, IN. Number of clusters.
    single_off : intp (n + 1,), IN.  pair_off : intp (n(n-1)/2 + 1,), IN. Offsets (module docstring).
    single_ind : float64 (single_off[n],), IN. ``w_i^{} * theta~_i(k)``.
    single_dep : float64 (single_off[n] * K,), IN. ``w_i^{C} * theta~_i(k | c)``, layout (k, j).
    pair_ind : float64 (pair_off[P],), IN. ``w_i^{X_l} * theta~_i(k | a)``, layout (a, k).
    pair_dep : float64 (pair_off[P] * K,), IN. ``w_i^{C,X_l} * theta~_i(k | c, a)``, layout (a, k, j).
    log_prior : float64 (K,), IN. ``log theta_C``.
    counts_single : float64 (single_off[n] * K,), OUT. Zeroed here, then ``E N_i^{C}[k, j]``.
    counts_pair : float64 (pair_off[P] * K,), OUT. Zeroed here, then ``E N_il^{C}[a, k, j]`` for every l < i.
    cluster_counts : float64 (K,), OUT. Zeroed here, then ``E N_C[j] = sum_d w_d q_dj``.
    resp : float64 (U, K) or (0, K), OUT. Responsibilities ``q_dj`` when it has U rows (NaN for a row with
        ``p(x_d) = 0``); not written when it has 0 rows.

    Returns
    -------
    (loglik, n_zero) : ``sum_d w_d log p(x_d)`` (natural log; ``-inf`` if a weighted row has probability 0) and
        the number of rows with ``p(x_d) = 0`` (they add no counts).
    """
    cdef intp_t U = X.shape[0]
    cdef intp_t n = cards.shape[0]
    _check_layout(X, cards, K, single_off, pair_off)
    cdef intp_t S = single_off[n]
    cdef intp_t T = pair_off[n * (n - 1) // 2]
    _check_len("weights", weights.shape[0], U)
    _check_len("single_ind", single_ind.shape[0], S)
    _check_len("single_dep", single_dep.shape[0], S * K)
    _check_len("pair_ind", pair_ind.shape[0], T)
    _check_len("pair_dep", pair_dep.shape[0], T * K)
    _check_len("log_prior", log_prior.shape[0], K)
    _check_len("counts_single", counts_single.shape[0], S * K)
    _check_len("counts_pair", counts_pair.shape[0], T * K)
    _check_len("cluster_counts", cluster_counts.shape[0], K)
    if resp.shape[1] != K or (resp.shape[0] != U and resp.shape[0] != 0):
        raise ValueError(f"resp has shape ({resp.shape[0]}, {resp.shape[1]}), expected ({U}, {K}) or (0, {K}).")
    scratch_np = np.zeros(3 * K, dtype=np.float64)
    cdef float64_t[::1] scratch = scratch_np
    cdef float64_t* lp = &scratch[0]
    cdef float64_t* sdep = &scratch[K]
    cdef float64_t* wq = &scratch[2 * K]
    cdef bint want_resp = resp.shape[0] == U
    cdef intp_t d, j
    cdef double lse, ll = 0.0
    cdef intp_t n_zero = 0
    with nogil:
        counts_single[:] = 0.0
        counts_pair[:] = 0.0
        cluster_counts[:] = 0.0
        for d in range(U):
            _row_log_joint(X, d, cards, K, single_off, pair_off, single_ind, single_dep, pair_ind, pair_dep,
                           log_prior, lp, sdep)
            lse = logsumexp_row(lp, K)
            if lse == -INFINITY:
                n_zero += 1
                if weights[d] > 0.0:
                    ll = -INFINITY
                if want_resp:
                    for j in range(K):
                        resp[d, j] = 0.0 / 0.0
                continue
            ll += weights[d] * lse
            for j in range(K):
                lp[j] = exp(lp[j] - lse)
                wq[j] = weights[d] * lp[j]
                if want_resp:
                    resp[d, j] = lp[j]
            _row_scatter(X, d, cards, K, single_off, pair_off, wq, counts_single, counts_pair, cluster_counts)
    return ll, n_zero


def ematan_accumulate(const code_t[:, ::1] X,
                      const float64_t[::1] weights,
                      const intp_t[::1] cards,
                      const intp_t[::1] single_off,
                      const intp_t[::1] pair_off,
                      const float64_t[:, ::1] resp,
                      float64_t[::1] counts_single,
                      float64_t[::1] counts_pair,
                      float64_t[::1] cluster_counts):
    """Expected counts of every option with C from given responsibilities (the initial soft partition of EMA-TAN,
    and the E step of structural EM with TAN, mEM-TAN, whose posteriors come from its current tree).

    Parameters
    ----------
    X, weights, cards, single_off, pair_off : as :func:`ematan_estep`.
    resp : float64 (U, K), IN. ``q_dj`` (K is its number of columns).
    counts_single, counts_pair, cluster_counts : OUT, zeroed here, as :func:`ematan_estep`.
    """
    cdef intp_t U = X.shape[0]
    cdef intp_t n = cards.shape[0]
    cdef intp_t K = resp.shape[1]
    _check_layout(X, cards, K, single_off, pair_off)
    cdef intp_t S = single_off[n]
    cdef intp_t T = pair_off[n * (n - 1) // 2]
    _check_len("weights", weights.shape[0], U)
    _check_len("resp rows", resp.shape[0], U)
    _check_len("counts_single", counts_single.shape[0], S * K)
    _check_len("counts_pair", counts_pair.shape[0], T * K)
    _check_len("cluster_counts", cluster_counts.shape[0], K)
    scratch_np = np.zeros(K, dtype=np.float64)
    cdef float64_t[::1] scratch = scratch_np
    cdef float64_t* wq = &scratch[0]
    cdef intp_t d, j
    with nogil:
        counts_single[:] = 0.0
        counts_pair[:] = 0.0
        cluster_counts[:] = 0.0
        for d in range(U):
            for j in range(K):
                wq[j] = weights[d] * resp[d, j]
            _row_scatter(X, d, cards, K, single_off, pair_off, wq, counts_single, counts_pair, cluster_counts)


def ematan_log_joint(const code_t[:, ::1] X,
                     const intp_t[::1] cards,
                     intp_t K,
                     const intp_t[::1] single_off,
                     const intp_t[::1] pair_off,
                     const float64_t[::1] single_ind,
                     const float64_t[::1] single_dep,
                     const float64_t[::1] pair_ind,
                     const float64_t[::1] pair_dep,
                     const float64_t[::1] log_prior,
                     float64_t[:, ::1] out):
    """``out[d, j] = log p(x_d, C = j)`` under the averaged model (prediction). Arguments as :func:`ematan_estep`;
    ``out`` is float64 (U, K), overwritten."""
    cdef intp_t U = X.shape[0]
    cdef intp_t n = cards.shape[0]
    _check_layout(X, cards, K, single_off, pair_off)
    cdef intp_t S = single_off[n]
    cdef intp_t T = pair_off[n * (n - 1) // 2]
    _check_len("single_ind", single_ind.shape[0], S)
    _check_len("single_dep", single_dep.shape[0], S * K)
    _check_len("pair_ind", pair_ind.shape[0], T)
    _check_len("pair_dep", pair_dep.shape[0], T * K)
    _check_len("log_prior", log_prior.shape[0], K)
    if out.shape[0] != U or out.shape[1] != K:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected ({U}, {K}).")
    scratch_np = np.zeros(K, dtype=np.float64)
    cdef float64_t[::1] scratch = scratch_np
    cdef intp_t d, j
    with nogil:
        for d in range(U):
            _row_log_joint(X, d, cards, K, single_off, pair_off, single_ind, single_dep, pair_ind, pair_dep,
                           log_prior, &out[d, 0], &scratch[0])
