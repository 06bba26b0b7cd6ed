"""Population-genetics kernels: the pairwise model mutual information of marker selection (spec 9.3).

Layout of the parameter table (the latent-class engine's): ``wtheta`` is ``(R, K)`` C-contiguous float64 with
``R = sum(cards)``; rows ``offsets[i] .. offsets[i+1]-1`` are the alleles of locus ``i``; entry ``[o_i + k, j]`` is
``P(C = j) * P(X_i = k | C = j)`` (the caller multiplies the cluster weights in) and ``theta`` is the same
table without the weights. ``pbar[o_i + k]`` is the model
marginal ``P(X_i = k) = sum_j wtheta[o_i + k, j]``.
"""
from cython.parallel cimport prange
from libc.math cimport log

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
