"""Population-genetics wrappers of ``cython_core/_popgen.pyx``.

* Model mutual information for marker selection (spec 9.3): I(X_i; C) in numpy and the pairwise I(X_i; X_i')
  kernel, on the latent-class parameter layout (locus blocks of an (R, K) table).
* The latent-class model on **SNP dosages** (issue 28): int8 ``(N, M)`` dosages ``0..P`` (copies of allele 1),
  ``-1`` = missing genotype. :func:`dosage_estep` is the E step (posteriors, log-likelihood, per-(SNP, dosage) sums
  of the posteriors) with one table gather and one scatter per genotype, :func:`dosage_allele_counts` turns its sums
  into the expected allele counts of the latent-class engine's layout (locus ``i`` = rows ``2i`` (allele 0) and
  ``2i + 1`` (allele 1)), and :func:`dosage_loo_log_posterior` is the leave-one-out posterior-predictive term of
  the calibrated memberships. The same functions run on every chunk of a dask array (``pgmpy_ext.dask``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _popgen
from pgmpy_ext.utils.validation import effective_n_threads

__all__ = ["DOSAGE_BLOCK", "DosageEStep", "check_dosages", "dosage_allele_counts", "dosage_allele_totals",
           "dosage_band_products", "dosage_counts_from_resp", "dosage_estep", "dosage_log_table",
           "dosage_loo_log_posterior", "dosage_slot_sums", "dosage_std_matmul", "dosage_std_rmatmul",
           "dosage_standardized", "model_mi_with_cluster", "pairwise_model_mi"]

#: SNPs per block when dosages are converted to floats (a block of 1,000 individuals is 64 MB in float64): the
#: conversions below work block by block, so their memory is bounded whatever the number of SNPs.
DOSAGE_BLOCK = 8192


def _check(theta, cluster_weights, cards):
    theta = np.ascontiguousarray(theta, dtype=np.float64)
    w = np.ascontiguousarray(cluster_weights, dtype=np.float64)
    cards = np.asarray(cards, dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    if theta.ndim != 2 or theta.shape[0] != offsets[-1]:
        raise ValueError(f"theta must be (sum(cards), n_clusters) = ({offsets[-1]}, K), got {theta.shape}.")
    if w.shape != (theta.shape[1],):
        raise ValueError(f"cluster_weights has shape {w.shape}, expected ({theta.shape[1]},).")
    if np.any(cards < 1):
        raise ValueError("every locus needs at least one allele (cards >= 1).")
    return theta, w, cards, offsets


def model_mi_with_cluster(theta, cluster_weights, cards) -> np.ndarray:
    r"""I(X_i; C) in nats for every locus, from the model.

    :math:`I(X_i; C) = \sum_j\sum_k P(j)\,\theta_{ijk}\ln(\theta_{ijk}/\bar p_{ik})`.

    Parameters
    ----------
    theta : array-like (sum(cards), K)
        Allele frequencies per cluster, locus blocks stacked.
    cluster_weights : array-like (K,)
    cards : array-like (n_loci,)

    Returns
    -------
    ndarray (n_loci,)

    Examples
    --------
    >>> import numpy as np
    >>> model_mi_with_cluster(np.array([[1.0, 0.0], [0.0, 1.0]]), [0.5, 0.5], [2]).round(4)
    array([0.6931])
    """
    theta, w, cards, offsets = _check(theta, cluster_weights, cards)
    pbar = theta @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(theta > 0, theta * np.log(theta / pbar[:, None]), 0.0) @ w
    return np.add.reduceat(terms, offsets[:-1])


def pairwise_model_mi(theta, cluster_weights, cards, *, loci=None, n_jobs: int | None = 1) -> np.ndarray:
    r"""Model mutual information I(X_a; X_b) in nats between every pair of loci (the redundancy step of Santafé
    2007, section 8.2.1).

    :math:`p(k, k') = \sum_j P(C=j)\,\theta_{ajk}\,\theta_{bjk'}` and
    :math:`I = \sum_{k,k'} p(k,k') \ln[p(k,k') / (\bar p_{ak} \bar p_{bk'})]`; O(m^2 r^2 K).

    Parameters
    ----------
    theta : array-like (sum(cards), K)
    cluster_weights : array-like (K,)
    cards : array-like (n_loci,)
    loci : sequence of int, optional
        Restrict to these loci (in this order); default all.
    n_jobs : int or None, default 1
        Threads (rows of the matrix are split; the result is identical for every value).

    Returns
    -------
    ndarray (m, m)
        Symmetric, zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([[0.9, 0.1], [0.1, 0.9], [0.8, 0.2], [0.2, 0.8]])   # two SNPs, 2 clusters
    >>> pairwise_model_mi(theta, [0.5, 0.5], [2, 2]).round(4)
    array([[0.    , 0.1201],
           [0.1201, 0.    ]])
    """
    theta, w, cards, offsets = _check(theta, cluster_weights, cards)
    loci = np.arange(len(cards), dtype=np.intp) if loci is None else np.ascontiguousarray(loci, dtype=np.intp)
    wtheta = np.ascontiguousarray(theta * w[None, :])
    pbar = np.ascontiguousarray(wtheta.sum(axis=1))
    out = np.zeros((len(loci), len(loci)))
    _popgen.pairwise_model_mi(wtheta, theta, pbar, offsets, loci, out, effective_n_threads(n_jobs))
    return out + out.T


# ------------------------------------------------------------------------------------------------ SNP dosages
def check_dosages(G, ploidy: int) -> np.ndarray:
    """``G`` as a C-contiguous int8 array of dosages ``0..ploidy`` (``-1`` = missing); a ValueError names the first
    cell out of range. Integer input only (the encoder in ``pgmpy_ext.popgen`` maps NaN and -9 to -1)."""
    G = np.asarray(G)
    if G.ndim != 2:
        raise ValueError(f"dosages must be a 2-d (individuals, SNPs) array, got shape {G.shape}.")
    if G.dtype.kind not in "iu":
        raise TypeError(f"dosages must be integers (int8), got dtype {G.dtype}.")
    if G.size and (G.min() < -1 or G.max() > ploidy):
        d, i = (int(v[0]) for v in np.nonzero((G < -1) | (G > ploidy)))
        raise ValueError(f"dosage {int(G[d, i])} at row {d}, SNP {i} is out of range: dosages count copies of "
                         f"allele 1, 0..{ploidy} for ploidy {ploidy}, and -1 marks a missing genotype.")
    return np.ascontiguousarray(G, dtype=np.int8)


def dosage_log_table(theta1: np.ndarray, ploidy: int, *, theta0: np.ndarray | None = None) -> np.ndarray:
    """``(M, P + 2, K)`` table of ``log P(dosage g | C = j) = g log theta1 + (P - g) log theta0`` for ``g = 0..P``
    (ordered copies, as the allele-copy model), and 0 in the last slot (a missing genotype).

    ``theta1`` (M, K) is the frequency of allele 1 in every cluster and ``theta0`` that of allele 0 (default
    ``1 - theta1``; the latent-class engine passes its own row, which sums with ``theta1`` to 1 up to rounding).
    Logs are floored at log 1e-300, as the latent-class engine's."""
    theta1 = np.asarray(theta1, dtype=np.float64)
    M, K = theta1.shape
    with np.errstate(divide="ignore"):
        l1 = np.maximum(np.log(theta1), -690.7755278982137)
        l0 = np.maximum(np.log1p(-theta1) if theta0 is None else np.log(np.asarray(theta0, dtype=np.float64)),
                        -690.7755278982137)
    g = np.arange(ploidy + 1, dtype=np.float64)[None, :, None]
    table = np.zeros((M, ploidy + 2, K))
    table[:, : ploidy + 1, :] = g * l1[:, None, :] + (ploidy - g) * l0[:, None, :]
    return table


@dataclass
class DosageEStep:
    """Output of :func:`dosage_estep`.

    Attributes
    ----------
    loglik : float
        Observed-data log-likelihood (natural log; missing genotypes summed out).
    sums : float64 (M, P + 2, K) or None
        ``sum_d w_d q_dj`` over the individuals with dosage ``g`` (slot ``g``) or a missing genotype (slot P + 1) at
        every SNP.
    cluster_counts : float64 (K,)
    resp : float64 (N, K) or None
    n_zero : int
        Rows of zero probability.
    """

    loglik: float
    sums: np.ndarray | None
    cluster_counts: np.ndarray
    resp: np.ndarray | None
    n_zero: int


def dosage_estep(G, log_table, log_prior, *, weights=None, return_resp: bool = False, counts: bool = True,
                 ploidy: int | None = None, check: bool = True, log_joint: bool = False) -> DosageEStep:
    """E step of the latent-class model on dosages (kernel ``dosage_estep``).

    Parameters
    ----------
    G : int8 (N, M)
        Dosages ``0..P``, ``-1`` = missing genotype.
    log_table : float64 (M, P + 2, K)
        :func:`dosage_log_table` of the allele-1 frequencies.
    log_prior : float64 (K,)
    weights : float64 (N,), optional
    return_resp, counts : bool
        Return the posteriors; accumulate the per-(SNP, dosage) sums (False: posteriors and log-likelihood only).
    ploidy : int, optional
        Checked against the table (``P + 2`` slots) and used to validate ``G`` when ``check``.
    check : bool, default True
        Validate ``G``'s range (an engine that validated once passes False inside its iterations).
    log_joint : bool, default False
        ``resp`` holds the log joints ``log P(x_d, C = j)`` instead of the posteriors (their differences are the
        log-likelihood ratios, exact where posteriors underflow).

    Examples
    --------
    Two SNPs, two clusters, one individual per cluster-typical genotype and one with a missing SNP:

    >>> theta1 = np.array([[0.9, 0.1], [0.8, 0.3]])
    >>> G = np.array([[2, 2], [0, 0], [2, -1]], dtype=np.int8)
    >>> res = dosage_estep(G, dosage_log_table(theta1, 2), np.log([0.5, 0.5]), return_resp=True)
    >>> res.resp.round(4).tolist()
    [[0.9983, 0.0017], [0.001, 0.999], [0.9878, 0.0122]]
    """
    table = np.ascontiguousarray(log_table, dtype=np.float64)
    if table.ndim != 3:
        raise ValueError(f"log_table must be (M, P + 2, K), got shape {table.shape}.")
    M, S, K = table.shape
    P = S - 2
    if ploidy is not None and int(ploidy) != P:
        raise ValueError(f"log_table has {S} slots (ploidy {P}), ploidy={ploidy} was given.")
    G = check_dosages(G, P) if check else np.ascontiguousarray(G, dtype=np.int8)
    n = G.shape[0]
    w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    lp = np.ascontiguousarray(log_prior, dtype=np.float64)
    sums = np.zeros((M, S, K)) if counts else np.zeros((0, S, K))
    nc = np.zeros(K)
    resp = np.empty((n, K)) if return_resp else np.empty((0, K))
    ll, n_zero = _popgen.dosage_estep(G, w, table, lp, sums, nc, resp, log_joint)
    return DosageEStep(float(ll), sums if counts else None, nc, resp if return_resp else None, int(n_zero))


def dosage_allele_counts(sums: np.ndarray, theta1: np.ndarray | None = None, *,
                         impute: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Expected copies of allele 1 and of allele 0 per SNP and cluster, ``(A1 (M, K), A0 (M, K))``, from the
    :func:`dosage_estep` sums: ``A1 = sum_g g sums[:, g]`` and ``A0 = sum_g (P - g) sums[:, g]``, plus, when
    ``impute``, a missing genotype's expected copies ``P theta1 sums[:, P + 1]`` and ``P (1 - theta1) sums[:, P + 1]``
    (the exact EM expectation under missing at random, Santafé 2007, eq. 8.1)."""
    S = sums.shape[1]
    P = S - 2
    g = np.arange(P + 1, dtype=np.float64)[None, :, None]
    a1 = (g * sums[:, : P + 1]).sum(axis=1)
    a0 = ((P - g) * sums[:, : P + 1]).sum(axis=1)
    if impute:
        if theta1 is None:
            raise ValueError("impute=True needs theta1 (the expected copies of a missing genotype).")
        a1 = a1 + P * theta1 * sums[:, P + 1]
        a0 = a0 + P * (1.0 - theta1) * sums[:, P + 1]
    return a1, a0


def dosage_loo_log_posterior(G, A1, A0, q, ploidy: int, *, check: bool = True) -> np.ndarray:
    r"""Leave-one-out posterior-predictive log-likelihood ``(N, K)`` of every individual under every cluster.

    ``A1``/``A0`` (M, K) are the clusters' allele-1/allele-0 copies **including** the prior pseudo-counts and every
    individual's own expected copies ``q_dj g`` / ``q_dj (P - g)``, which are removed for that individual: the
    Polya-urn (beta-binomial) probability of its ordered copies given everybody else (kernel
    ``dosage_loo_log_posterior``).

    Examples
    --------
    >>> G = np.array([[2], [0]], dtype=np.int8)
    >>> q = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> A1 = np.array([[2.0 + 1, 0.0 + 1]]); A0 = np.array([[0.0 + 1, 2.0 + 1]])   # own copies + Beta(1, 1)
    >>> np.exp(dosage_loo_log_posterior(G, A1, A0, q, 2)).round(4).tolist()   # (1 * 2) / (2 * 3) under both
    [[0.3333, 0.1], [0.1, 0.3333]]
    """
    G = check_dosages(G, ploidy) if check else np.ascontiguousarray(G, dtype=np.int8)
    out = np.zeros((G.shape[0], np.shape(A1)[1]))
    _popgen.dosage_loo_log_posterior(G, np.ascontiguousarray(A1, dtype=np.float64),
                                     np.ascontiguousarray(A0, dtype=np.float64),
                                     np.ascontiguousarray(q, dtype=np.float64), int(ploidy), out)
    return out


def dosage_allele_totals(G, ploidy: int) -> tuple[np.ndarray, np.ndarray]:
    """Copies of allele 1 and observed copies per SNP, ``(M,)`` float64 each (exact integers)."""
    obs = G >= 0
    ones = np.where(obs, G, 0).sum(axis=0, dtype=np.int64)
    return ones.astype(np.float64), ploidy * obs.sum(axis=0, dtype=np.int64).astype(np.float64)


def dosage_counts_from_resp(G, resp: np.ndarray, ploidy: int) -> np.ndarray:
    """Expected allele counts ``(2M, K)`` of given memberships in the latent-class layout (row ``2i`` allele 0,
    ``2i + 1`` allele 1); missing genotypes add nothing."""
    M = G.shape[1]
    counts = np.zeros((2 * M, resp.shape[1]))
    for b0 in range(0, M, DOSAGE_BLOCK):
        g = G[:, b0:b0 + DOSAGE_BLOCK].astype(np.float64)
        obs = g >= 0
        g[~obs] = 0.0
        b1 = b0 + g.shape[1]
        counts[2 * b0 + 1:2 * b1:2] = g.T @ resp
        counts[2 * b0:2 * b1:2] = (ploidy * obs - g).T @ resp
    return counts


def dosage_standardized(G, mean: np.ndarray, scale: np.ndarray, b0: int = 0, b1: int | None = None) -> np.ndarray:
    """``(G - mean) / scale`` of SNPs ``b0:b1`` as float64, 0 where the genotype is missing (the PCA input)."""
    b1 = G.shape[1] if b1 is None else b1
    g = G[:, b0:b1].astype(np.float64)
    x = (g - mean[b0:b1]) / scale[b0:b1]
    x[g < 0] = 0.0
    return x


def dosage_std_matmul(G, mean, scale, B: np.ndarray) -> np.ndarray:
    """``X @ B`` for the standardised ``X`` (:func:`dosage_standardized`), block by block."""
    out = np.zeros((G.shape[0], B.shape[1]))
    for b0 in range(0, G.shape[1], DOSAGE_BLOCK):
        out += dosage_standardized(G, mean, scale, b0, b0 + DOSAGE_BLOCK) @ B[b0:b0 + DOSAGE_BLOCK]
    return out


def dosage_std_rmatmul(G, mean, scale, Y: np.ndarray) -> np.ndarray:
    """``X.T @ Y`` for the standardised ``X`` (:func:`dosage_standardized`), block by block."""
    out = np.empty((G.shape[1], Y.shape[1]))
    for b0 in range(0, G.shape[1], DOSAGE_BLOCK):
        x = dosage_standardized(G, mean, scale, b0, b0 + DOSAGE_BLOCK)
        out[b0:b0 + x.shape[1]] = x.T @ Y
    return out


def dosage_band_products(G, mean, scale, window: int) -> np.ndarray:
    """``out[j, L] = sum_d x_dj x_d,j+L`` for lags ``L = 0..window`` (0 past the last SNP), ``(M, window + 1)``:
    the products of every SNP with itself and its ``window`` right-hand neighbours in the standardised ``X``
    (:func:`dosage_standardized`, 0 where missing), the sums behind linkage pruning. Tiles of ``window`` SNPs, each
    multiplied with itself and the next tile (one matrix product), so memory stays at a few tiles; the sums of
    chunks of individuals add up to the sum over all of them."""
    w = int(window)
    n, M = G.shape
    out = np.zeros((M, w + 1))
    r = np.arange(w)[:, None]
    c = r + np.arange(w + 1)[None, :]  # tile-local column of (SNP r, lag L)
    step = max(w, DOSAGE_BLOCK // (2 * w) * w)  # SNPs whose bands one block of floats covers (a multiple of w)
    for b0 in range(0, M, step):
        b1 = min(b0 + step, M)
        x = dosage_standardized(G, mean, scale, b0, min(b1 + w, M))
        for t0 in range(0, b1 - b0, w):
            t1 = min(t0 + 2 * w, x.shape[1])
            C = np.zeros((2 * w, 2 * w))
            C[:t1 - t0, :t1 - t0] = x[:, t0:t1].T @ x[:, t0:t1]
            rows = min(w, b1 - b0 - t0)
            out[b0 + t0:b0 + t0 + rows] = C[r, c][:rows]
    return out


def dosage_slot_sums(G, q: np.ndarray, ploidy: int) -> np.ndarray:
    """``sums[i, g, k] = sum_d q_dk 1[G_di = g]`` (slot ``P + 1``: missing), ``(M, P + 2, K)``: the scatter of the E
    step for given memberships."""
    sums = np.zeros((G.shape[1], ploidy + 2, q.shape[1]))
    for b0 in range(0, G.shape[1], DOSAGE_BLOCK):
        g = G[:, b0:b0 + DOSAGE_BLOCK]
        for v in range(ploidy + 1):
            sums[b0:b0 + g.shape[1], v, :] = (g == v).T.astype(np.float64) @ q
        sums[b0:b0 + g.shape[1], ploidy + 1, :] = (g < 0).T.astype(np.float64) @ q
    return sums
