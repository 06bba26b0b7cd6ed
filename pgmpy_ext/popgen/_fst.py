r"""Reynolds' (1983) F_ST genetic distance between clusters (Santafé 2007, section 8.2.2).

Two entry points share one formula:

* :func:`fst_reynolds` takes genotypes and **soft memberships** ``q`` (individuals x clusters) and re-estimates
  the allele frequencies of each cluster from them (``docs/decisions/seed001-ema-popgen.md``: this is what works for any
  clustering, e.g. STRUCTURE's, and for F_ST on loci other than those clustered on);
* :func:`fst_from_model` plugs in a fitted model's allele frequencies and cluster weights, as the thesis does.
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext.popgen._genotypes import as_genotypes
from pgmpy_ext.utils import check_option

__all__ = ["FST_VARIANTS", "fst_from_counts", "fst_from_model", "fst_reynolds"]

#: The two formulas: Reynolds, Weir & Cockerham (1983) weighted estimator, and eq. (8.2) as printed.
FST_VARIANTS = ("reynolds1983", "thesis_as_printed")


def _fst_core(freqs: np.ndarray, offsets: np.ndarray, n_j: np.ndarray, variant: str, return_components: bool):
    """F_ST from per-cluster allele frequencies.

    freqs : (R, K) float, block ``offsets[i]:offsets[i+1]`` = locus i's allele frequencies in each cluster.
    n_j : (K,) cluster sizes (individuals).
    """
    keep = n_j > 1e-8 * max(float(n_j.sum()), 1.0)  # empty clusters carry no population
    n_j, freqs = n_j[keep], freqs[:, keep]
    r = len(n_j)
    if r < 2:
        raise ValueError(f"F_ST needs at least 2 non-empty clusters; the memberships have {r}.")
    N = float(n_j.sum())
    w = n_j / N
    starts = offsets[:-1]
    pbar = freqs @ w                                         # (R,) weighted mean frequency per allele
    alpha = 1.0 - np.add.reduceat(freqs ** 2, starts, axis=0)  # (n_loci, K) within-cluster heterozygosity
    b = 2.0 * (alpha @ n_j) / (2.0 * N - r)
    dev = np.add.reduceat((freqs - pbar[:, None]) ** 2, starts, axis=0) @ n_j  # sum_j n_j sum_k (p - pbar)^2
    hom = 1.0 - float(np.sum(w ** 2))
    if variant == "reynolds1983":
        a = (2.0 * dev - (r - 1) * b) / (2.0 * N * hom)
    else:  # eq. (8.2) as printed: the factor 2 also multiplies the b-term, and an extra (r_C - 1) below
        a = 2.0 * (dev - b * (r - 1)) / (2.0 * N * (r - 1) * hom)
    theta_w = float(a.sum() / (a + b).sum())
    fst = float(-np.log1p(-theta_w))
    return (fst, a, b) if return_components else fst


def fst_reynolds(genotypes, q, *, loci=None, variant: str = "reynolds1983", return_components: bool = False):
    r"""Reynolds' F_ST between clusters given soft memberships (Santafé 2007, section 8.2.2; choices in
    ``docs/decisions/seed001-ema-popgen.md``, "Number of clusters via the Reynolds F_ST genetic distance").

    The allele frequencies of cluster ``j`` are re-estimated from the memberships,
    :math:`p_{jik} = \sum_d q_{dj}\,\#\{g: a_{dig} = k\} / \sum_d q_{dj}\,\#\{g: a_{dig}\ \mathrm{observed}\}`,
    with cluster sizes :math:`n_j = \sum_d q_{dj}` (individuals). Then, with :math:`N = \sum_j n_j`, :math:`r` the
    number of non-empty clusters and :math:`\bar p_{ik} = \sum_j n_j p_{jik} / N`,

    .. math::

        b_i = \frac{2 \sum_j n_j (1 - \sum_k p_{jik}^2)}{2N - r},\quad
        a_i = \frac{2 \sum_j n_j \sum_k (p_{jik} - \bar p_{ik})^2 - (r - 1) b_i}{2N(1 - \sum_j (n_j/N)^2)},\quad
        F_{ST} = -\ln\Big(1 - \frac{\sum_i a_i}{\sum_i (a_i + b_i)}\Big).

    Parameters
    ----------
    genotypes : any genotype input accepted by ``as_genotypes``
    q : array-like (n_individuals, n_clusters)
        Memberships (rows need not sum to 1; a hard labelling is a 0/1 matrix).
    loci : boolean mask or index list, optional
        Loci to compute F_ST on (the thesis uses the microsatellites only for HGDP). Default: every locus with at
        least one observed allele.
    variant : {"reynolds1983", "thesis_as_printed"}, default "reynolds1983"
        ``"thesis_as_printed"`` is eq. (8.2) of the thesis as printed (garbled in the extraction): it multiplies the
        b-term by
        2 and divides ``a_i`` by an extra :math:`r - 1`, which changes the comparison across numbers of clusters.
    return_components : bool, default False
        Also return the per-locus ``a`` and ``b`` arrays.

    Returns
    -------
    fst : float
        :math:`-\ln(1 - \theta_W)`, in :math:`[0, \infty)` (slightly negative in small samples is possible).

    Notes
    -----
    Clusters with (numerically) zero size are dropped before the formula, so ``r`` counts non-empty clusters.
    A locus where a cluster has no observed copy gets that cluster's frequencies from the pooled mean.

    References
    ----------
    Reynolds, J., Weir, B. S., Cockerham, C. C. (1983). Estimation of the coancestry coefficient: basis for a
    short-term genetic distance. Genetics 105, 767-779.

    Examples
    --------
    >>> import numpy as np
    >>> G = np.array([[0, 0], [0, 1], [2, 2], [2, 1]])          # 4 diploid individuals, 2 SNPs (dosages)
    >>> q = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> round(fst_reynolds(G, q), 4)
    1.1787
    """
    check_option(variant, "variant", FST_VARIANTS)
    g = as_genotypes(genotypes, allow_empty_individuals=True)
    q = np.asarray(q, dtype=float)
    if q.ndim != 2 or q.shape[0] != g.n_individuals:
        raise ValueError(f"q must be (n_individuals, n_clusters) = ({g.n_individuals}, K), got shape {q.shape}.")
    if np.any(q < 0) or not np.all(np.isfinite(q)):
        raise ValueError("q must hold finite non-negative memberships.")
    mask = np.ones(g.n_loci, dtype=bool) if loci is None else np.zeros(g.n_loci, dtype=bool)
    if loci is not None:
        mask[np.flatnonzero(np.asarray(loci)) if np.asarray(loci).dtype == bool else np.asarray(loci, int)] = True
    mask &= g.cards >= 1
    if not mask.any():
        raise ValueError("no locus with an observed allele was selected for F_ST.")
    a = g.alleles[:, mask, :]
    cards = g.cards[mask]
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    n, n_loci, ploidy = a.shape
    counts = np.zeros((n, int(offsets[-1])))
    obs = a >= 0
    rows = np.repeat(np.arange(n), n_loci * ploidy).reshape(a.shape)
    cols = offsets[:-1][None, :, None] + np.where(obs, a, 0)
    np.add.at(counts, (rows[obs], cols[obs]), 1.0)
    n_obs = obs.sum(axis=2).astype(float)                    # (n, n_loci)
    num = counts.T @ q                                       # (R, K)
    den = np.repeat(n_obs.T @ q, cards, axis=0)              # (R, K)
    pooled = counts.sum(axis=0) / np.repeat(np.maximum(n_obs.sum(axis=0), 1.0), cards)
    freqs = np.where(den > 0, num / np.where(den > 0, den, 1.0), pooled[:, None])
    return _fst_core(freqs, offsets, q.sum(axis=0), variant, return_components)


def fst_from_counts(counts: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, *,
                    variant: str = "reynolds1983") -> float:
    """:func:`fst_reynolds` from the memberships' allele counts ``counts[r, j] = sum_d q_dj #{copies of allele r}``
    (locus blocks ``offsets``; missing copies not counted) and cluster sizes ``sizes = q.sum(axis=0)``: the same
    estimator, without the genotypes (what ``PopulationEMA.fit`` computes ``fst_`` with)."""
    counts = np.asarray(counts, dtype=float)
    starts = np.asarray(offsets[:-1], dtype=np.intp)
    cards = np.diff(offsets)
    den = np.repeat(np.add.reduceat(counts, starts, axis=0), cards, axis=0)
    pooled_num = counts.sum(axis=1)
    pooled = pooled_num / np.maximum(np.repeat(np.add.reduceat(pooled_num, starts), cards), 1.0)
    freqs = np.where(den > 0, counts / np.where(den > 0, den, 1.0), pooled[:, None])
    return _fst_core(freqs, np.asarray(offsets, dtype=np.intp), np.asarray(sizes, dtype=float), variant, False)


def fst_from_model(theta, cluster_weights, cards, n_individuals: int, *, loci=None,
                   variant: str = "reynolds1983", return_components: bool = False):
    r"""Reynolds' F_ST from a model's allele frequencies (the thesis' plug-in, eq. 8.2).

    Parameters
    ----------
    theta : array-like (sum(cards), n_clusters)
        Allele frequencies, locus blocks stacked (rows ``offsets[i]..offsets[i+1]-1`` are locus ``i``'s alleles):
        the latent-class engine's parameter table.
    cluster_weights : array-like (n_clusters,)
        :math:`\theta_{C-j}`; cluster sizes are ``n_individuals * cluster_weights``.
    cards : array-like (n_loci,)
    n_individuals : int
    loci : boolean mask or index list, optional
    variant, return_components : see :func:`fst_reynolds`.

    Examples
    --------
    >>> import numpy as np
    >>> theta = np.array([[0.9, 0.2], [0.1, 0.8]])              # one SNP, 2 clusters
    >>> round(fst_from_model(theta, [0.5, 0.5], [2], 100), 4)
    1.0751
    """
    check_option(variant, "variant", FST_VARIANTS)
    theta = np.asarray(theta, dtype=float)
    cards = np.asarray(cards, dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    if theta.ndim != 2 or theta.shape[0] != offsets[-1]:
        raise ValueError(f"theta must be (sum(cards), n_clusters) = ({offsets[-1]}, K), got {theta.shape}.")
    w = np.asarray(cluster_weights, dtype=float)
    if w.shape != (theta.shape[1],):
        raise ValueError(f"cluster_weights has shape {w.shape}, expected ({theta.shape[1]},).")
    if loci is not None:
        sel = np.asarray(loci)
        idx = np.flatnonzero(sel) if sel.dtype == bool else sel.astype(np.intp)
        theta = np.concatenate([theta[offsets[i]:offsets[i + 1]] for i in idx])
        cards = cards[idx]
        offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    return _fst_core(theta, offsets, float(n_individuals) * w, variant, return_components)
