"""SAMBA biclustering (Tanay, Sharan & Shamir 2002) on scikit-learn's BiclusterMixin."""

from __future__ import annotations

import itertools
import logging
import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, BiclusterMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from pgmpy_ext.data import PARAMETER_VOCABULARY, check_numeric_frame, refuse_dask
from pgmpy_ext.stats import samba_improve
from pgmpy_ext.utils import Interval, check_generator, check_params

__all__ = ["SAMBA", "check_finite_matrix"]

logger = logging.getLogger(__name__)

#: Above this many hash cells (P ** kernel_size) kernels are counted by sorting instead of a dense table.
_DENSE_KEYS = 1 << 22
#: Kernels are hashed to one int64 key when ``kernel_size * log2(n_properties)`` is below this, else by their rows.
_INT_KEY_BITS = 62
#: Kernel cells (genes x subsets x kernel_size) hashed per chunk, which bounds the seeding step's memory.
_CHUNK = 1 << 22
#: A gene with at most this many times ``max_subsets_per_gene`` kernels has them listed and sampled without
#: replacement; above it they are drawn one by one (Floyd), so listing costs at most this factor of the draws.
_LIST_FACTOR = 4


def _best_per_gene(E: np.ndarray, kernels: np.ndarray, k: int, n_seeds: int, block: int = 512) -> np.ndarray:
    """The paper's ``best[v][1..k]``: of ``kernels`` (heaviest first), keep a kernel while at least one of the genes
    joined to all its properties has fewer than ``k`` heavier kernels kept; stop after ``n_seeds``.

    Scans the kernels in blocks (one boolean gene row per kernel), so the cost is the number of kernels looked at
    times ``n_genes``, not the size of the hash table.
    """
    used = np.zeros(E.shape[1], dtype=np.int64)
    keep: list[int] = []
    for b0 in range(0, kernels.shape[0], block):
        ker = kernels[b0:b0 + block]
        G = E[ker[:, 0]].copy()
        for j in range(1, ker.shape[1]):
            G &= E[ker[:, j]]
        for i in range(ker.shape[0]):
            g = G[i]
            if np.any(used[g] < k):
                used[g] += 1
                keep.append(b0 + i)
                if len(keep) >= n_seeds:
                    return kernels[np.asarray(keep, dtype=np.intp)]
    return kernels[np.asarray(keep, dtype=np.intp)]


def _draw_subsets(rng: np.random.Generator, d: int, s: int, shape: tuple) -> np.ndarray:
    """Uniform random ``s``-subsets of ``range(d)``, one per cell of ``shape``, each sorted ascending.

    Floyd's algorithm, vectorised: for ``j = d - s, ..., d - 1`` draw ``t`` uniform in ``0..j`` and take ``t``
    unless it is already in the subset, else ``j``. It costs ``O(s**2)`` per subset and never lists the
    ``C(d, s)`` subsets (the issue 29 blow-up at ``kernel_size=6``).
    """
    out = np.empty((*shape, s), dtype=np.intp)
    for i, j in enumerate(range(d - s, d)):
        t = rng.integers(0, j + 1, size=shape)
        dup = (out[..., :i] == t[..., None]).any(axis=-1)
        out[..., i] = np.where(dup, j, t)
    out.sort(axis=-1)
    return out


def check_finite_matrix(X, what: str, *, min_rows: int = 1):
    """A float64 (n_rows, n_cols) array of ``X`` (DataFrame or array); a NaN or infinite cell raises a
    ValueError naming its row label and column and the fix."""
    labels = getattr(X, "index", None)
    cols = getattr(X, "columns", None)
    arr = check_array(X, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=min_rows, ensure_min_features=1)
    bad = ~np.isfinite(arr)
    if bad.any():
        r, c = (int(i) for i in np.argwhere(bad)[0])
        row = labels[r] if labels is not None else r
        col = cols[c] if cols is not None else f"x{c}"
        row = row.item() if isinstance(row, np.generic) else row
        val = "NaN" if np.isnan(arr[r, c]) else "inf"
        raise ValueError(f"{what} needs finite values, but column {col!r} has {val} at row {row!r} "
                         f"({int(bad.sum())} non-finite cells in all). Impute them first (e.g. "
                         "sklearn.impute.SimpleImputer(strategy='mean'), as the thesis does), or pass an imputer.")
    return arr


class SAMBA(BiclusterMixin, BaseEstimator):
    r"""SAMBA biclustering: heavy subgraphs of a likelihood-weighted bipartite sample-gene graph.

    The reconstruction of SAMBA (Tanay, Sharan & Shamir 2002) in ``docs/decisions/seed004-bench-itdt.md``
    ("SAMBA"), the biclusterer of BENCH (Pansombut's thesis, chapter 4, which ran SAMBA inside the closed EXPANDER
    tool with unreported settings). Genes are standardised; a signed property vertex ``u+`` (``u-``) of sample
    ``u`` is joined to gene ``v`` when its z-score is at least ``threshold`` (at most ``-threshold``). Each
    (property, gene) pair gets the log-likelihood-ratio weight of "inside a bicluster" against a random graph with
    the same degrees; seeds are the heaviest ``kernel_size``-subsets of properties shared by many genes (found by
    hashing every gene's neighbourhood), each seed is improved by greedy single-vertex moves (Cython kernel
    :func:`pgmpy_ext.stats.samba_improve`), and the best-scoring biclusters that overlap accepted ones by at most
    ``max_overlap`` of their cells are kept.

    Parameters
    ----------
    threshold : float, default 0.75
        z-score (τ) above which a sample responds "up" (below minus it, "down").
    p_c : float, default 0.8
        Probability of an edge inside a bicluster (in (0, 1)).
    kernel_size : int, default 3
        Properties per seed kernel (s).
    max_subsets_per_gene : int, default 2000
        A gene whose neighbourhood has more ``kernel_size``-subsets contributes a random sample of this many
        (drawn without listing the subsets, so the work is bounded by the draws for any ``kernel_size``).
    min_rows : int, default 2
        Fewest samples of a bicluster.
    min_cols : int, default 5
        Fewest genes of a bicluster (also the fewest genes a seed kernel must be shared by).
    max_gene_degree : int, optional
        Genes with more edges take no part in seeding (default: no limit).
    n_seeds : int, default 500
        Seeds improved.
    seeds_per_gene : int, optional
        The paper's ``best[v][1..k]``: walking the kernels heaviest first, a kernel becomes a seed only while one of
        the genes joined to all its properties has fewer than this many seeds (default: no limit, the
        ``n_seeds`` heaviest kernels).
    n_biclusters : int, default 100
        Most biclusters reported (k_out); fewer are returned when the overlap filter rejects the rest.
    max_overlap : float, default 0.2
        A bicluster is rejected when more than this fraction of its cells lies in an accepted one (overlap_L).
    signed : bool, default True
        Separate up and down properties; False joins a sample to a gene when ``|z| >= threshold``.
    max_iter : int, default 10000
        Most greedy moves per seed.
    random_state : None, int or numpy Generator
        Draws the subsets of high-degree genes (the only random step).
    show_progress : bool, default False
        Unused by the single-pass algorithm; kept for the house signature.

    Attributes
    ----------
    rows_ : ndarray of bool, shape (n_biclusters_found, n_samples)
        Sample membership of each bicluster (scikit-learn convention); ``biclusters_`` is ``(rows_, columns_)``
        and ``get_indices(i)`` the index arrays.
    columns_ : ndarray of bool, shape (n_biclusters_found, n_features)
    scores_ : ndarray of float64
        Weight of each bicluster (sum of its pair weights over its properties and genes, nats), best first.
    row_signs_ : ndarray of int8, shape (n_biclusters_found, n_samples)
        +1 for an "up" sample, -1 for a "down" sample, 0 outside (all +1 when ``signed=False``).
    n_seeds_ : int
        Seeds actually improved (fewer than ``n_seeds`` when few kernels are shared by ``min_cols`` genes).
    n_features_in_, feature_names_in_

    See Also
    --------
    sklearn.cluster.SpectralBiclustering, sklearn.cluster.SpectralCoclustering : other estimators that
        :class:`pgmpy_ext.ensembles.BENCHClassifier` accepts.

    Notes
    -----
    With ``d(p)`` and ``d(v)`` the degrees and ``|E|`` the number of edges, the edge probability under the random
    model is the Chung-Lu approximation :math:`p_{pv} = \min(d(p) d(v) / |E|, p_c - 0.01)` (spec ``p_model=
    "analytic"``; the Monte Carlo degree-preserving estimate of the paper is not implemented) and

    .. math::

        W_{pv} = \log\frac{p_c}{p_{pv}} \text{ (edge)}, \qquad
        W_{pv} = \log\frac{1 - p_c}{1 - p_{pv}} \text{ (non-edge)}, \qquad
        \mathrm{score}(U, V) = \sum_{p \in U, v \in V} W_{pv}.

    Seeding is bounded by what it draws (issue 29): a gene with at most ``max_subsets_per_gene`` kernels hashes
    all of them, one with up to four times more hashes a sample of that many without replacement, and one with
    more hashes ``max_subsets_per_gene`` uniform draws (Floyd's algorithm); the subsets of a gene are never all
    listed first, and the hash table is built in chunks. Sampled large kernels are hashed by few genes each, so
    with ``kernel_size`` above 3 raise ``max_subsets_per_gene`` or bound ``max_gene_degree`` as the paper does.

    A seed's gene set is every gene joined to all its kernel's properties (a superset of the hashed genes when a
    gene's subsets were sampled). Genes are standardised with the population standard deviation; a constant gene
    has no edge. Numeric defaults are the spec's (section 7; EXPANDER's are not published) except ``threshold`` and
    ``p_c``: the spec's 1.0 and 0.9 missed planted 2-sigma biclusters of 13-15 samples (Jaccard 0.12-0.5 on the
    section 10 generator: standardising a gene that carries a block lowers the block's z-scores, so only ~60% of
    its cells are edges, under ``p_c``), while 0.75 and 0.8 recovered every planted block with Jaccard >= 0.83 on
    two seeds (a calibration: the thesis reports no settings).

    **Settings for BENCH on microarrays** (issue 14; ``benchmarks/samba_calibration.py``, report
    ``docs/reproductions/seed004-bench.md``). The defaults above find planted blocks; on a real 65 x 7129
    leukemia training fold they give few biclusters (6-12 pass the 0.2 overlap filter) and so few BENCH members.
    Two things set bicluster size there. (1) ``threshold``: a gene that is high by the same amount in a fraction
    ``q`` of the samples has z-score ``sqrt((1 - q) / q)`` in them, so an "up" block can cover at most
    ``1 / (1 + threshold**2)`` of the samples even without noise (31% at 1.5, 64% at 0.75); with noise,
    ``threshold=1.5`` left biclusters at the ``min_rows`` floor (4 samples x ~570 genes). (2) ``p_c``: a vertex
    joins when more than ``log((1-p)/(1-p_c)) / log(p_c (1-p) / (p (1-p_c)))`` of its pairs are edges, so a
    lower ``p_c`` admits noisier rows and genes. The edge probability model is not the cause: the bipartite
    maximum-entropy model with the same expected degrees (the limit of the degree-preserving Monte Carlo
    estimate) differs from the Chung-Lu value by at most ~4% on these graphs and gives the same biclusters.
    Chosen from training-fold statistics only (no accuracy), for the thesis's FI datasets of ~24 rows x ~226
    genes and ~59 members: ``SAMBA(threshold=0.75, p_c=0.5, min_rows=4, max_overlap=0.65)`` (mean over four
    folds: 22 x 199, 64 members; biclusters of ~16 samples x ~1,500 genes). These are not the defaults: with
    ``p_c=0.5`` the planted blocks of the section 10 generator are overgrown (Jaccard 0.31-0.51).

    References
    ----------
    .. [1] A. Tanay, R. Sharan and R. Shamir, "Discovering statistically significant biclusters in gene expression
       data", Bioinformatics 18 Suppl. 1 (2002) S136-S144.

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_planted_biclusters
    >>> X, y, planted = make_planted_biclusters(n_genes=200, n_biclusters=(1, 1, 0), bicluster_cols=(30, 30),
    ...                                         shift=3.0, random_state=0)
    >>> samba = SAMBA(n_seeds=50, n_biclusters=5).fit(X)
    >>> rows, cols = samba.get_indices(0)
    >>> bool(set(cols) <= set(planted[0]["cols"]) | set(planted[1]["cols"]))
    True
    """

    def __init__(self, *, threshold=0.75, p_c=0.8, kernel_size=3, max_subsets_per_gene=2000, min_rows=2, min_cols=5,
                 max_gene_degree=None, n_seeds=500, seeds_per_gene=None, n_biclusters=100, max_overlap=0.2,
                 signed=True, max_iter=10000, random_state=None, show_progress=False):
        self.threshold = threshold
        self.p_c = p_c
        self.kernel_size = kernel_size
        self.max_subsets_per_gene = max_subsets_per_gene
        self.min_rows = min_rows
        self.min_cols = min_cols
        self.max_gene_degree = max_gene_degree
        self.n_seeds = n_seeds
        self.seeds_per_gene = seeds_per_gene
        self.n_biclusters = n_biclusters
        self.max_overlap = max_overlap
        self.signed = signed
        self.max_iter = max_iter
        self.random_state = random_state
        self.show_progress = show_progress

    _parameter_constraints = {
        **PARAMETER_VOCABULARY, "threshold": [Interval(numbers.Real, 0, None, closed="neither")],
        "p_c": [Interval(numbers.Real, 0, 1, closed="neither")],
        "kernel_size": [Interval(numbers.Integral, 1, None)],
        "max_subsets_per_gene": [Interval(numbers.Integral, 1, None)],
        "min_rows": [Interval(numbers.Integral, 1, None)], "min_cols": [Interval(numbers.Integral, 1, None)],
        "max_gene_degree": [None, Interval(numbers.Integral, 1, None)],
        "n_seeds": [Interval(numbers.Integral, 1, None)], "seeds_per_gene": [None, Interval(numbers.Integral, 1, None)],
        "n_biclusters": [Interval(numbers.Integral, 1, None)],
        "max_overlap": [Interval(numbers.Real, 0, 1)], "signed": ["boolean"],
    }

    def _check_params(self):
        check_params(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------------ steps 1-3: the weighted graph
    def _centre(self, A: np.ndarray) -> np.ndarray:
        """Each gene's centre for the z-scores: its mean (a hook for experiments, e.g. issue 29's split centre)."""
        return A.mean(axis=0)

    def _graph(self, A: np.ndarray):
        m, n = A.shape
        sd = A.std(axis=0)
        ok = sd > 0
        z = np.zeros_like(A)
        z[:, ok] = (A[:, ok] - self._centre(A)[ok]) / sd[ok]
        tau = float(self.threshold)
        if self.signed:
            E = np.vstack([z >= tau, z <= -tau])
            twin = np.r_[np.arange(m, 2 * m), np.arange(m)].astype(np.intp)
        else:
            E = np.abs(z) >= tau
            twin = np.full(m, -1, dtype=np.intp)
        E[:, ~ok] = False
        d_p = E.sum(axis=1).astype(np.float64)
        d_v = E.sum(axis=0).astype(np.float64)
        n_edges = max(float(d_p.sum()), 1.0)
        p_c = float(self.p_c)
        prob = np.minimum(np.outer(d_p, d_v) / n_edges, p_c - 0.01)
        prob = np.maximum(prob, 1e-300)  # an edge always has p > 0; this only keeps log finite for non-edges
        W = np.where(E, np.log(p_c / prob), np.log((1.0 - p_c) / (1.0 - prob)))
        return E, W, twin, d_v

    # ------------------------------------------------------------------ step 4: seeds by hashing kernels
    def _seeds(self, E: np.ndarray, W: np.ndarray, d_v: np.ndarray, rng: np.random.Generator):
        """The heaviest kernels: ``kernel_size``-subsets of a gene's neighbour properties, hashed over all genes.

        A gene with at most ``max_subsets_per_gene`` subsets contributes every one of them; a gene with up to
        ``_LIST_FACTOR`` times more contributes a sample of that many without replacement; a gene with even more
        contributes ``max_subsets_per_gene`` uniform draws (Floyd's algorithm on the positions of its neighbours,
        repeats within the gene counted once). The work is thus bounded by ``_LIST_FACTOR * n_genes *
        max_subsets_per_gene * kernel_size**2`` whatever the kernel size and the degrees: the subsets of a gene
        are never all listed before sampling. A kernel's weight is the sum of ``W`` over the (property, gene)
        pairs that hashed it.
        """
        P, n = E.shape
        s = int(self.kernel_size)
        cap = int(self.max_subsets_per_gene)
        eligible = d_v >= s
        if self.max_gene_degree is not None:
            eligible &= d_v <= self.max_gene_degree
        # kernels are hashed to one int64 key when P ** s fits (exact), else to their rows (np.unique axis=0)
        int_keys = s * np.log2(max(P, 2)) < _INT_KEY_BITS
        radix = P ** np.arange(s - 1, -1, -1, dtype=np.int64) if int_keys else None
        dense = int_keys and P ** s <= _DENSE_KEYS
        if dense:
            count = np.zeros(P ** s, dtype=np.int64)
            weight = np.zeros(P ** s, dtype=np.float64)
        parts_k, parts_c, parts_w = [], [], []
        for d in np.unique(d_v[eligible]).astype(int):
            genes_d = np.flatnonzero(eligible & (d_v == d))
            n_sub = math.comb(d, s)
            exhaustive = n_sub <= cap
            # up to _LIST_FACTOR * cap subsets: list them and draw cap without replacement; beyond that, cap draws
            # with replacement (repeats, at most 1 / (2 * _LIST_FACTOR) of the draws, are counted once)
            listed = n_sub <= _LIST_FACTOR * cap
            per_gene = n_sub if listed else cap
            combos = np.array(list(itertools.combinations(range(d), s)), dtype=np.intp) if listed else None
            step = max(1, _CHUNK // max(per_gene * s, 1))
            for c0 in range(0, genes_d.size, step):
                genes = genes_d[c0:c0 + step]
                g = genes.size
                # neighbours of each gene, ascending (so every kernel has one canonical key)
                nb = np.argsort(~E[:, genes].T, axis=1, kind="stable")[:, :d]
                nb.sort(axis=1)
                if exhaustive:
                    idx = np.broadcast_to(combos, (g, *combos.shape))
                elif listed:
                    idx = combos[np.argsort(rng.random((g, n_sub)), axis=1)[:, :cap]]
                else:
                    idx = _draw_subsets(rng, d, s, (g, cap))
                props = np.take_along_axis(nb[:, None, :], idx, axis=2)  # (g, c, s), each row ascending
                w = W[props, genes[:, None, None]].sum(axis=2)  # (g, c)
                if int_keys:
                    keys = props.astype(np.int64) @ radix  # (g, c)
                    if not listed:  # a subset drawn twice for one gene counts once
                        order = np.argsort(keys, axis=1, kind="stable")
                        keys = np.take_along_axis(keys, order, axis=1)
                        w = np.take_along_axis(w, order, axis=1)
                        first = np.ones(keys.shape, dtype=bool)
                        first[:, 1:] = keys[:, 1:] != keys[:, :-1]
                        keys, w = keys[first], w[first]
                    keys, w = keys.ravel(), w.ravel()
                    if dense:
                        count += np.bincount(keys, minlength=P ** s)
                        weight += np.bincount(keys, weights=w, minlength=P ** s)
                        continue
                    uk, inv = np.unique(keys, return_inverse=True)
                    parts_k.append(uk)
                else:
                    gene_of = np.repeat(genes, props.shape[1])[:, None]
                    rows = np.concatenate([gene_of, props.reshape(-1, s)], axis=1)
                    rows, first = np.unique(rows, axis=0, return_index=True)
                    w = w.ravel()[first]
                    uk, inv = np.unique(rows[:, 1:], axis=0, return_inverse=True)
                    parts_k.append(uk)
                parts_c.append(np.bincount(inv.ravel(), minlength=len(uk)))
                parts_w.append(np.bincount(inv.ravel(), weights=w, minlength=len(uk)))
        if dense:
            uniq = np.flatnonzero(count)
            count, weight = count[uniq], weight[uniq]
        elif not parts_k:
            return np.empty((0, s), dtype=np.intp)
        else:  # merge the chunks' tables
            allk = np.concatenate(parts_k)
            uniq, inv = np.unique(allk, axis=0 if allk.ndim == 2 else None, return_inverse=True)
            inv = inv.ravel()
            count = np.bincount(inv, weights=np.concatenate(parts_c), minlength=len(uniq))
            weight = np.bincount(inv, weights=np.concatenate(parts_w), minlength=len(uniq))
        keep = count >= self.min_cols
        uniq, weight = uniq[keep], weight[keep]
        k_gene = self.seeds_per_gene
        n_take = int(self.n_seeds) if k_gene is None else uniq.shape[0]
        if int_keys:
            order = np.lexsort((uniq, -weight))[:n_take]  # heaviest first, ties: lowest key
            kernels = (uniq[order][:, None] // radix[None, :]) % P
        else:
            order = np.lexsort((*uniq.T[::-1], -weight))[:n_take]  # ties: lexicographically lowest
            kernels = uniq[order]
        kernels = kernels.astype(np.intp)
        if k_gene is not None:
            kernels = _best_per_gene(E, kernels, int(k_gene), int(self.n_seeds))
        return kernels

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Find biclusters of ``X`` (samples x genes, continuous, no missing values); ``y`` is ignored."""
        self._check_params()
        refuse_dask(self, X, method="fit")
        check_numeric_frame(X, "SAMBA")
        A = check_finite_matrix(X, "SAMBA", min_rows=2)
        validate_data(self, X, skip_check_array=True)
        rng = check_generator(self.random_state)
        m, n = A.shape
        E, W, twin, d_v = self._graph(A)
        kernels = self._seeds(E, W, d_v, rng)
        P = E.shape[0]
        U = np.zeros((kernels.shape[0], P), dtype=bool)
        V = np.zeros((kernels.shape[0], n), dtype=bool)
        for i, ker in enumerate(kernels):
            U[i, ker] = True
            V[i] = E[ker].all(axis=0)
        self.n_seeds_ = int(kernels.shape[0])
        min_props = int(self.min_rows)
        res = samba_improve(W, twin, U, V, min_props=min_props, min_cols=int(self.min_cols),
                            max_iter=int(self.max_iter))
        logger.debug("SAMBA: %d seeds improved, %d moves in all", self.n_seeds_, int(res.n_moves.sum()))
        # step 6: best first, reject a bicluster mostly covered by an accepted one (and exact duplicates)
        sizes_u = res.props.sum(axis=1)
        sizes_v = res.genes.sum(axis=1)
        order = np.lexsort((np.arange(res.scores.size), -res.scores))
        acc: list[int] = []
        for i in order:
            if len(acc) >= self.n_biclusters:
                break
            if sizes_u[i] < self.min_rows or sizes_v[i] < self.min_cols or res.scores[i] <= 0:
                continue
            cells = float(sizes_u[i] * sizes_v[i])
            if acc:
                a = np.asarray(acc)
                inter = (res.props[a] & res.props[i]).sum(axis=1) * (res.genes[a] & res.genes[i]).sum(axis=1)
                if np.any(inter / cells > self.max_overlap) or np.any(inter == cells):
                    continue
            acc.append(int(i))
        a = np.asarray(acc, dtype=np.intp)
        props = res.props[a]
        if self.signed:
            up, down = props[:, :m], props[:, m:]
            self.rows_ = up | down
            self.row_signs_ = (up.astype(np.int8) - down.astype(np.int8))
        else:
            self.rows_ = props
            self.row_signs_ = props.astype(np.int8)
        self.columns_ = res.genes[a]
        self.scores_ = res.scores[a]
        return self

    @property
    def biclusters_(self):
        """``(rows_, columns_)``, scikit-learn's bicluster convention."""
        check_is_fitted(self, "rows_")
        return self.rows_, self.columns_
