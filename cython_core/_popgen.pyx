"""Population-genetics kernels: the pairwise model mutual information of marker selection (spec 9.3), and the E step
and leave-one-out posterior of the latent-class model on SNP dosages (issue 28).

Layout of the parameter table (the latent-class engine's): ``wtheta`` is ``(R, K)`` C-contiguous float64 with
``R = sum(cards)``; rows ``offsets[i] .. offsets[i+1]-1`` are the alleles of locus ``i``; entry ``[o_i + k, j]`` is
``P(C = j) * P(X_i = k | C = j)`` (the caller multiplies the cluster weights in) and ``theta`` is the same
table without the weights. ``pbar[o_i + k]`` is the model
marginal ``P(X_i = k) = sum_j wtheta[o_i + k, j]``.
"""
from cython.parallel cimport prange
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int8_t

from _mathutils cimport posterior_row
from _typedefs cimport float64_t, intp_t


def pairwise_model_mi(const float64_t[:, ::1] wtheta,
                      const float64_t[:, ::1] theta,
                      const float64_t[::1] pbar,
                      const intp_t[::1] offsets,
                      const intp_t[::1] loci,
                      float64_t[:, ::1] out,
                      int n_threads):
    """Model mutual information I(X_a; X_b) (nats) for every pair of the selected loci.

    .. math:: I(X_a; X_b) = \\sum_{k,k'} p(k,k') \\ln \\frac{p(k,k')}{\\bar p_{ak} \\bar p_{bk'}},\\quad
              p(k,k') = \\sum_j P(C=j)\\, \\theta_{ajk}\\, \\theta_{bjk'}

    Parameters
    ----------
    wtheta : float64 (R, K), IN. Cluster weight times allele frequency (layout in the module docstring).
    theta : float64 (R, K), IN. Allele frequencies ``P(X_i = k | C = j)`` (same layout).
    pbar : float64 (R,), IN. Model marginal allele frequencies.
    offsets : intp (n_loci + 1,), IN. Locus blocks of ``wtheta``.
    loci : intp (m,), IN. The loci to pair (indices into ``offsets``).
    out : float64 (m, m), OUT. ``out[a, b]`` for ``a < b`` is written (upper triangle); the rest is untouched.
    n_threads : int, IN. Threads over rows ``a`` (disjoint outputs; bit-identical for any value).

    Cost O(m^2 r^2 K). Terms with ``p(k,k') = 0`` add 0.
    """
    cdef intp_t m = loci.shape[0]
    cdef intp_t K = wtheta.shape[1]
    cdef intp_t n_loci = offsets.shape[0] - 1
    cdef intp_t a, b, i, i2, k, k2, j, oa, ob, ra, rb
    cdef double p, s
    if theta.shape[0] != wtheta.shape[0] or theta.shape[1] != K:
        raise ValueError(f"theta has shape ({theta.shape[0]}, {theta.shape[1]}), expected that of wtheta.")
    if pbar.shape[0] != wtheta.shape[0]:
        raise ValueError(f"pbar has length {pbar.shape[0]}, expected R = {wtheta.shape[0]}.")
    if offsets[n_loci] != wtheta.shape[0]:
        raise ValueError(f"offsets end at {offsets[n_loci]}, expected R = {wtheta.shape[0]}.")
    if out.shape[0] != m or out.shape[1] != m:
        raise ValueError(f"out has shape ({out.shape[0]}, {out.shape[1]}), expected ({m}, {m}).")
    for a in range(m):
        if loci[a] < 0 or loci[a] >= n_loci:
            raise ValueError(f"locus index {loci[a]} out of range for {n_loci} loci.")
    if n_threads < 1:
        n_threads = 1
    with nogil:
        for a in prange(m, num_threads=n_threads, schedule="dynamic"):
            i = loci[a]
            oa = offsets[i]
            ra = offsets[i + 1] - oa
            for b in range(a + 1, m):
                i2 = loci[b]
                ob = offsets[i2]
                rb = offsets[i2 + 1] - ob
                s = 0.0
                for k in range(ra):
                    for k2 in range(rb):
                        p = 0.0
                        for j in range(K):
                            p = p + wtheta[oa + k, j] * theta[ob + k2, j]
                        if p > 0.0:
                            s = s + p * log(p / (pbar[oa + k] * pbar[ob + k2]))
                out[a, b] = s


# ------------------------------------------------------------------------------------------------ dosage E step
# Dosage layout (issue 28). ``G`` is (N, M) int8, C order: individual d's dosage at SNP i, the number of copies of
# allele 1 among its P copies (0..P), -1 = missing genotype. Every per-SNP table has a slot axis of length P + 2:
# slot g = 0..P is dosage g and slot P + 1 is "missing". ``table[i, g, j]`` is log P(dosage g | C = j) for ordered
# copies, g log theta_i1j + (P - g) log theta_i0j, and ``table[i, P + 1, j]`` is 0 (a missing genotype is summed out).
# ``sums[i, g, j]`` accumulates w_d q_dj over the individuals with slot g at SNP i (the expected counts follow in
# numpy: allele-1 copies sum_g g sums[i, g, j], plus P theta_i1j sums[i, P + 1, j] when missing genotypes are imputed).

cdef inline intp_t _slot(int8_t g, intp_t miss) noexcept nogil:
    return miss if g < 0 else <intp_t>g


def dosage_estep(const int8_t[:, ::1] G,                 # IN  (N, M) dosages 0..P, -1 = missing
                 const float64_t[::1] w,                 # IN  (N,) row weights
                 const float64_t[:, :, ::1] table,       # IN  (M, P + 2, K) log P(dosage | C = j), slot P + 1 = 0
                 const float64_t[::1] log_prior,         # IN  (K,) log P(C = j)
                 float64_t[:, :, ::1] sums,              # OUT (M, P + 2, K) += w_d q_dj per (SNP, slot), or (0, ., .)
                 float64_t[::1] cluster_counts,          # OUT (K,) += w_d q_dj
                 float64_t[:, ::1] resp,                 # OUT (N, K) posteriors, or shape (0, K) to skip
                 bint log_joint=False):                  # IN  resp receives log P(x_d, C = j) instead
    """E step of the latent-class model on dosages: returns ``(loglik, n_zero)``.

    With ``log_joint`` the rows of ``resp`` are the log joints ``L[d, j]`` before normalisation (their differences
    are the log-likelihood ratios between clusters, exact where the posteriors underflow).

    ``loglik = sum_d w_d log sum_j P(C=j) prod_{i observed} P(G_di | C=j)``; a row of zero probability (``n_zero``)
    gets a uniform posterior and adds -inf. The gather ``L[d, j] = log_prior[j] + sum_i table[i, slot(G_di), j]``
    and the scatter ``sums[i, slot(G_di), j] += w_d q_dj`` run over tiles of 64 rows and blocks of 256 SNPs, so a
    block of the tables stays in cache while the tile passes over it; the sums over SNPs run in SNP order, so the
    result does not depend on the tiling. ``sums`` with a first dimension of 0 skips the scatter. Serial (the
    scatter is a reduction over rows; workers split the rows instead, and their sums are added in a fixed order).
    """
    cdef intp_t n = G.shape[0], M = G.shape[1], S = table.shape[1], K = table.shape[2]
    cdef intp_t miss = S - 1
    cdef bint do_counts = sums.shape[0] > 0
    cdef bint want_resp = resp.shape[0] > 0
    if table.shape[0] != M:
        raise ValueError(f"table has {table.shape[0]} SNPs, G has {M} columns.")
    if S < 3:
        raise ValueError(f"table has {S} slots; dosages of ploidy P need P + 2 >= 3.")
    if log_prior.shape[0] != K or cluster_counts.shape[0] != K:
        raise ValueError(f"log_prior and cluster_counts need {K} clusters.")
    if w.shape[0] != n:
        raise ValueError(f"w has {w.shape[0]} entries for {n} rows.")
    if do_counts and (sums.shape[0] != M or sums.shape[1] != S or sums.shape[2] != K):
        raise ValueError(f"sums must be ({M}, {S}, {K}) or (0, {S}, {K}).")
    if want_resp and (resp.shape[0] != n or resp.shape[1] != K):
        raise ValueError(f"resp must be ({n}, {K}) or (0, {K}).")
    np = __import__("numpy")
    cdef intp_t T = 64, B = 256
    L_buf = np.empty(max(T * K, 1), dtype="float64")
    cdef double[::1] Lt = L_buf
    cdef intp_t d, d0, d1, b0, b1, i, j
    cdef double total = 0.0, wd, lse, a0, a1, a2, a3
    cdef intp_t n_zero = 0
    cdef double* Ld
    cdef const float64_t* trow
    cdef float64_t* srow
    with nogil:
        d0 = 0
        while d0 < n:
            d1 = min(n, d0 + T)
            for d in range(d0, d1):
                Ld = &Lt[(d - d0) * K]
                for j in range(K):
                    Ld[j] = log_prior[j]
            b0 = 0
            while b0 < M:  # gather
                b1 = min(M, b0 + B)
                for d in range(d0, d1):
                    Ld = &Lt[(d - d0) * K]
                    if K == 4:  # accumulate in registers (the generic loop reloads Ld[j] for every genotype)
                        a0, a1, a2, a3 = Ld[0], Ld[1], Ld[2], Ld[3]
                        for i in range(b0, b1):
                            trow = &table[i, _slot(G[d, i], miss), 0]
                            a0 += trow[0]
                            a1 += trow[1]
                            a2 += trow[2]
                            a3 += trow[3]
                        Ld[0], Ld[1], Ld[2], Ld[3] = a0, a1, a2, a3
                        continue
                    for i in range(b0, b1):
                        trow = &table[i, _slot(G[d, i], miss), 0]
                        for j in range(K):
                            Ld[j] += trow[j]
                b0 = b1
            for d in range(d0, d1):  # normalise; then w_d q_dj stays in L for the scatter
                Ld = &Lt[(d - d0) * K]
                wd = w[d]
                if want_resp and log_joint:
                    for j in range(K):
                        resp[d, j] = Ld[j]
                lse = posterior_row(Ld, K)
                if lse == -INFINITY:
                    n_zero += 1
                    total += -INFINITY if wd > 0 else 0.0
                else:
                    total += wd * lse
                if want_resp and not log_joint:
                    for j in range(K):
                        resp[d, j] = Ld[j]
                for j in range(K):
                    Ld[j] *= wd
                    cluster_counts[j] += Ld[j]
            b0 = 0
            while do_counts and b0 < M:  # scatter
                b1 = min(M, b0 + B)
                for d in range(d0, d1):
                    if w[d] == 0.0:
                        continue
                    Ld = &Lt[(d - d0) * K]
                    if K == 4:
                        a0, a1, a2, a3 = Ld[0], Ld[1], Ld[2], Ld[3]
                        for i in range(b0, b1):
                            srow = &sums[i, _slot(G[d, i], miss), 0]
                            srow[0] += a0
                            srow[1] += a1
                            srow[2] += a2
                            srow[3] += a3
                        continue
                    for i in range(b0, b1):
                        srow = &sums[i, _slot(G[d, i], miss), 0]
                        for j in range(K):
                            srow[j] += Ld[j]
                b0 = b1
            d0 = d1
    return total, n_zero


def dosage_loo_log_posterior(const int8_t[:, ::1] G,      # IN  (N, M) dosages 0..P, -1 = missing
                             const float64_t[:, ::1] A,   # IN  (M, K) allele-1 copies per cluster, prior included
                             const float64_t[:, ::1] B,   # IN  (M, K) allele-0 copies per cluster, prior included
                             const float64_t[:, ::1] q,   # IN  (N, K) each individual's own membership in A, B
                             int ploidy,                  # IN  P
                             float64_t[:, ::1] out):      # OUT (N, K) += sum_i log predictive
    """Leave-one-out posterior-predictive log-likelihood of every individual under every cluster.

    With ``a = A[i, j] - q[d, j] g`` and ``b = B[i, j] - q[d, j] (P - g)`` (the cluster's allele counts without
    individual d's own expected copies, prior pseudo-counts included) the predictive probability of the ordered
    copies of dosage ``g`` is the Polya-urn (beta-binomial) term

    .. math:: \\frac{a (a + 1) \\cdots (a + g - 1)\\; b (b + 1) \\cdots (b + P - g - 1)}
              {(a + b) (a + b + 1) \\cdots (a + b + P - 1)},

    one log per (individual, SNP, cluster); missing genotypes add nothing. ``out[d, j] +=`` the sum over SNPs.
    Counts below 1e-12 (rounding) are floored there. Serial, rows independent.
    """
    cdef intp_t n = G.shape[0], M = G.shape[1], K = A.shape[1]
    cdef intp_t P = ploidy
    if A.shape[0] != M or B.shape[0] != M or B.shape[1] != K:
        raise ValueError(f"A and B must be ({M}, K) with the same K.")
    if q.shape[0] != n or q.shape[1] != K or out.shape[0] != n or out.shape[1] != K:
        raise ValueError(f"q and out must be ({n}, {K}).")
    if P < 1:
        raise ValueError(f"ploidy == {P}, must be >= 1.")
    cdef intp_t d, i, j, t, g
    cdef double a, b, num, den, qd, acc
    with nogil:
        for d in range(n):
            for j in range(K):
                qd = q[d, j]
                acc = 0.0
                for i in range(M):
                    g = G[d, i]
                    if g < 0:
                        continue
                    a = A[i, j] - qd * g
                    b = B[i, j] - qd * (P - g)
                    if a < 1e-12:
                        a = 1e-12
                    if b < 1e-12:
                        b = 1e-12
                    num = 1.0
                    den = 1.0
                    for t in range(g):
                        num = num * (a + t)
                    for t in range(P - g):
                        num = num * (b + t)
                    for t in range(P):
                        den = den * (a + b + t)
                    acc += log(num / den)
                out[d, j] += acc
