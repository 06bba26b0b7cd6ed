"""The synthetic databases of Pena, Lozano & Larranaga (1999): naive Bayes over random supernodes with a hidden
cluster (spec ``docs/decisions/seed002-003-abn-pena.md`` B.11.1, the recommended recipe)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pgmpy_ext.utils import check_generator

__all__ = ["make_ci_synthetic"]


def make_ci_synthetic(n_attrs: int = 20, n_clusters: int = 4, n_nodes: int = 20, n_samples: int = 8000, *,
                      random_state=None, return_labels: bool = False):
    """Sample a database from a random supernode naive Bayes with a hidden cluster (Peña et al. 1999, section 4;
    ``docs/decisions/seed002-003-abn-pena.md``, "Synthetic databases").

    Start from ``n_attrs`` binary singletons and join two blocks drawn uniformly at random (without replacement)
    until ``n_nodes`` blocks remain (a joined block is the concatenation of the two). The cluster prior and every
    node's distribution given each cluster are Dirichlet(1, ..., 1) (uniform on the simplex; over the
    ``2 ** len(block)`` joint states). Each case draws a cluster, then every node's joint state given it, decoded
    into its member bits. The cluster column is not returned (the paper deletes it) unless ``return_labels``.

    Parameters
    ----------
    n_attrs : int >= 1, default 20
        Binary attributes ``Y0 .. Y{n_attrs-1}``.
    n_clusters : int >= 1, default 4
        States of the hidden cluster.
    n_nodes : int in 1 .. n_attrs, default 20
        Blocks of the generating model (the paper: 20, 14, 10, 5).
    n_samples : int >= 0, default 8000
        Cases.
    random_state : None, int or numpy Generator
        Seed of the joins, the parameters and the sample.
    return_labels : bool, default False
        Also return the cluster of every case.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_attrs)
        int columns ``Y0 ..`` with values 0/1.
    blocks : list of tuple of str
        The true blocks (member names in block order).
    labels : ndarray of int, shape (n_samples,)
        Only with ``return_labels``.

    Examples
    --------
    >>> X, blocks = make_ci_synthetic(6, 2, 3, 100, random_state=0)
    >>> X.shape, len(blocks), sorted(c for b in blocks for c in b) == sorted(X.columns)
    ((100, 6), 3, True)
    """
    n_attrs, n_nodes, n_samples, n_clusters = int(n_attrs), int(n_nodes), int(n_samples), int(n_clusters)
    if n_attrs < 1 or not 1 <= n_nodes <= n_attrs:
        raise ValueError(f"n_nodes == {n_nodes} must be in 1 .. n_attrs = {n_attrs} (and n_attrs >= 1).")
    if n_clusters < 1 or n_samples < 0:
        raise ValueError(f"n_clusters == {n_clusters} must be >= 1 and n_samples == {n_samples} >= 0.")
    rng = check_generator(random_state)
    blocks = [[j] for j in range(n_attrs)]
    while len(blocks) > n_nodes:
        a, b = sorted(int(v) for v in rng.choice(len(blocks), size=2, replace=False))
        joined = blocks[a] + blocks[b]
        blocks[a] = joined
        del blocks[b]
    prior = rng.dirichlet(np.ones(n_clusters))
    cpts = [rng.dirichlet(np.ones(2 ** len(b)), size=n_clusters) for b in blocks]
    z = rng.choice(n_clusters, size=n_samples, p=prior)
    data = np.zeros((n_samples, n_attrs), dtype=np.int64)
    for b, cpt in zip(blocks, cpts, strict=True):
        cum = np.cumsum(cpt[z], axis=1)
        state = np.minimum((rng.random(n_samples)[:, None] > cum).sum(axis=1), 2 ** len(b) - 1)
        for pos, j in enumerate(b):  # first member = most significant bit
            data[:, j] = (state >> (len(b) - 1 - pos)) & 1
    X = pd.DataFrame(data, columns=[f"Y{j}" for j in range(n_attrs)])
    true_blocks = [tuple(f"Y{j}" for j in b) for b in blocks]
    if return_labels:
        return X, true_blocks, z.astype(np.intp)
    return X, true_blocks
