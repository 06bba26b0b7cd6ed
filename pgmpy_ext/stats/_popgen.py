"""Model mutual information for marker selection (spec 9.3): I(X_i; C) in numpy and the pairwise I(X_i; X_i')
kernel (``cython_core/_popgen.pyx``), on the latent-class parameter layout (locus blocks of an (R, K) table)."""

from __future__ import annotations

import numpy as np

from pgmpy_ext._core import _popgen
from pgmpy_ext.utils.validation import effective_n_threads

__all__ = ["model_mi_with_cluster", "pairwise_model_mi"]


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
    r"""Model mutual information I(X_a; X_b) in nats between every pair of loci (spec 9.3, Cython target 3).

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
