"""Weka's SimpleKMeans and EM clusterers with their default options, re-implemented from their documented algorithms
(Weka 3.8 ``weka.clusterers.SimpleKMeans`` and ``weka.clusterers.EM``), for the seed 000 Table 4.2 baselines
(issue 30: the thesis's k-means and EM columns are far below scikit-learn's on the same sets).

SimpleKMeans (defaults: Euclidean distance on attributes normalised to [0, 1] by the training minimum and maximum,
nominal attributes 0 if equal else 1, "Random" initialisation, 500 iterations, missing values replaced by means and
modes): the initial centroids are distinct instances drawn at random; every iteration assigns each instance to the
nearest centroid (ties: the first) and moves each centroid to the mean (numeric) or mode (nominal; ties: the first
value) of its members; a cluster that becomes empty is dropped (Weka reduces the number of clusters); it stops when
no assignment changes.

EM (defaults with ``numClusters`` set: 10 SimpleKMeans runs with random seeds, the one of smallest within-cluster
squared error initialises the model; numeric attributes Gaussian per cluster with the standard deviation floored at
``minStdDev = 1e-6``, nominal attributes a Laplace-corrected discrete distribution per cluster (counts + 1); the
cluster priors the normalised sums of the posteriors; 100 iterations at most, stopping when the log-likelihood
improves by less than 1e-6): each instance goes to the cluster of highest posterior.

Both take a DataFrame whose continuous columns are float and whose nominal columns are categorical (or any other
dtype, read as nominal), and return integer labels. Nothing here is part of the library API.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["weka_em", "weka_simple_kmeans"]


def _split(X: pd.DataFrame, cont) -> tuple[np.ndarray, list[np.ndarray], list[int]]:
    """Numeric matrix (missing -> mean) and nominal codes (missing -> mode), as Weka's ReplaceMissingValues."""
    cont = list(cont)
    num = X[cont].to_numpy(dtype=np.float64) if cont else np.empty((len(X), 0))
    if num.size and np.isnan(num).any():
        means = np.nanmean(num, axis=0)
        num = np.where(np.isnan(num), means, num)
    cats, cards = [], []
    for c in X.columns:
        if c in cont:
            continue
        codes, uniques = pd.factorize(X[c], sort=True)
        if (codes < 0).any():
            mode = np.bincount(codes[codes >= 0]).argmax()
            codes = np.where(codes < 0, mode, codes)
        cats.append(codes.astype(np.int64))
        cards.append(max(len(uniques), 1))
    return num, cats, cards


def _kmeans_once(num01: np.ndarray, cats: list, cards: list, K: int, rng: np.random.Generator,
                 max_iter: int = 500) -> tuple[np.ndarray, float]:
    """One SimpleKMeans run on normalised numbers and nominal codes: ``(labels, squared error)``."""
    n = num01.shape[0] if num01.size else len(cats[0])
    rows = np.hstack([num01, np.stack(cats, axis=1).astype(np.float64)]) if cats else num01
    # "Random" initialisation: distinct instances, drawn as Weka does (swap the drawn one to the end)
    order = np.arange(n)
    centroids, seen = [], set()
    for j in range(n - 1, -1, -1):
        i = int(rng.integers(j + 1))
        key = tuple(rows[order[i]].tolist())
        if key not in seen:
            seen.add(key)
            centroids.append(order[i])
        order[i], order[j] = order[j], order[i]
        if len(centroids) == K:
            break
    c_num = num01[centroids].copy() if num01.size else np.empty((len(centroids), 0))
    c_cat = [c[centroids].copy() for c in cats]
    labels = np.full(n, -1)
    for _ in range(max_iter):
        d = np.zeros((n, len(c_num) if num01.size else len(c_cat[0])))
        if num01.size:
            d += ((num01[:, None, :] - c_num[None]) ** 2).sum(axis=2)
        for c, cc in zip(cats, c_cat):
            d += (c[:, None] != cc[None, :])
        new = np.argmin(d, axis=1)  # ties: the first centroid
        if np.array_equal(new, labels):
            break
        labels = new
        keep = np.unique(labels)  # empty clusters are dropped
        labels = np.searchsorted(keep, labels)
        c_num = np.stack([num01[labels == k].mean(axis=0) for k in range(len(keep))]) if num01.size else \
            np.empty((len(keep), 0))
        c_cat = [np.array([np.bincount(c[labels == k], minlength=r).argmax() for k in range(len(keep))])
                 for c, r in zip(cats, cards)]
    sq = 0.0
    if num01.size:
        sq += float(((num01 - c_num[labels]) ** 2).sum())
    for c, cc in zip(cats, c_cat):
        sq += float((c != cc[labels]).sum())
    return labels, sq


def _normalise(num: np.ndarray) -> np.ndarray:
    if not num.size:
        return num
    lo, hi = num.min(axis=0), num.max(axis=0)
    return (num - lo) / np.where(hi > lo, hi - lo, 1.0)


def weka_simple_kmeans(X: pd.DataFrame, cont, K: int, seed, *, max_iter: int = 500) -> np.ndarray:
    """Weka SimpleKMeans with its defaults (``K`` clusters, seed ``seed``): labels of the rows."""
    num, cats, cards = _split(X, cont)
    labels, _ = _kmeans_once(_normalise(num), cats, cards, int(K), np.random.default_rng(seed), max_iter)
    return labels


def weka_em(X: pd.DataFrame, cont, K: int, seed, *, max_iter: int = 100, n_kmeans_runs: int = 10,
            min_std: float = 1e-6, tol: float = 1e-6) -> np.ndarray:
    """Weka EM with its defaults and ``K`` clusters (seed ``seed``): labels of the rows."""
    num, cats, cards = _split(X, cont)
    rng = np.random.default_rng(seed)
    num01 = _normalise(num)
    best = None
    for child in rng.spawn(n_kmeans_runs):
        labels, sq = _kmeans_once(num01, cats, cards, int(K), child)
        if best is None or sq < best[1]:
            best = (labels, sq)
    labels = best[0]
    k = int(labels.max()) + 1
    resp = np.eye(k)[labels]
    n = len(labels)
    prev = -np.inf
    for _ in range(max_iter + 1):
        nk = resp.sum(axis=0)
        logp = np.tile(np.log(np.maximum(nk, 1e-300) / n), (n, 1))
        if num.size:
            w = np.maximum(nk, 1e-300)[:, None]
            mu = resp.T @ num / w
            var = np.maximum(resp.T @ num**2 / w - mu**2, 0.0)
            sd = np.maximum(np.sqrt(var), min_std)
            logp += (-0.5 * ((num[:, None, :] - mu[None]) / sd[None]) ** 2 - np.log(sd[None] * np.sqrt(2 * np.pi))
                     ).sum(axis=2)
        for c, r in zip(cats, cards):
            cnt = np.stack([np.bincount(c, weights=resp[:, j], minlength=r) for j in range(k)]) + 1.0  # Laplace
            logp += np.log(cnt / cnt.sum(axis=1, keepdims=True))[:, c].T
        mx = logp.max(axis=1, keepdims=True)
        lse = mx + np.log(np.exp(logp - mx).sum(axis=1, keepdims=True))
        ll = float(lse.mean())  # Weka tests the mean log-likelihood per instance
        new_resp = np.exp(logp - lse)
        if ll - prev < tol:
            resp = new_resp
            break
        prev, resp = ll, new_resp
    return np.argmax(resp, axis=1)
