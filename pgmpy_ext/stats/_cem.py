"""Wrappers around the classification-EM kernels (``pgmpy_ext._core._cem``): validate, allocate, call.

A *multinet layout* (:class:`MultinetLayout`) describes K per-cluster networks over the same m attributes where
every attribute has at most one attribute parent per cluster and the cluster is an implicit parent of every
attribute: the CL multinet (a tree per cluster) and, with the same forest in every cluster, TAN and SBN. The flat
layout is documented in ``cython_core/_cem.pyx``; it is a :class:`~pgmpy_ext.stats._layout.BlockLayout` (one
block per (cluster, attribute), child axis first). Ruz's thesis, chapter 4 (``docs/decisions/seed000-sbn-cem-nbm.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pgmpy_ext._core import _cem
from pgmpy_ext.stats._counting import PairwiseCounts
from pgmpy_ext.stats._layout import BlockLayout
from pgmpy_ext.utils.validation import effective_n_threads

__all__ = ["MultinetLayout", "argmax_labels", "multinet_counts_from_pairs", "multinet_log_joint",
           "normalize_blocks", "reseed_empty_clusters", "sample_labels"]


def _intp(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.intp))


@dataclass(frozen=True, eq=False)
class MultinetLayout(BlockLayout):
    """Flat layout of K per-cluster one-dependence networks over m attributes.

    A :class:`~pgmpy_ext.stats._layout.BlockLayout`: block ``b = k * m + i`` is ``P_k(X_i | X_parent)`` shaped
    ``(r_i, r_parent)`` (``(r_i, 1)`` for a root), so ``size``, ``block_at``, ``pack_blocks``, ``unpack_blocks`` and
    ``normalize`` are the shared protocol's. The M-step with the log-likelihood is the kernel
    :func:`normalize_blocks` (equal, up to rounding, to ``normalize(counts, alpha, log=True)``; it also returns
    ``sum counts * log_cpt``).

    Attributes
    ----------
    cards : intp (m,)
        Attribute cardinalities.
    parents : intp (K, m)
        ``parents[k, i]``: index of attribute i's parent in cluster k, -1 for a root.
    blk_offsets : intp (K * m + 1,)
        Block ``k * m + i`` holds ``P_k(X_i | X_parent)``, C-order over ``(x_i, x_parent)``.
    rows : intp (K * m,)
        Child cardinality of every block (for :func:`normalize_blocks`).

    Examples
    --------
    Two clusters over A (2 states) and B (3 states); B's parent is A in cluster 0, and B is a root in cluster 1:

    >>> lay = MultinetLayout.build([[-1, 0], [-1, -1]], [2, 3])
    >>> lay.blk_offsets.tolist(), lay.size
    ([0, 2, 8, 10, 13], 13)
    >>> lay.block_shapes
    ((2, 1), (3, 2), (2, 1), (3, 1))
    """

    cards: np.ndarray
    parents: np.ndarray
    blk_offsets: np.ndarray
    rows: np.ndarray

    @classmethod
    def build(cls, parents, cards) -> MultinetLayout:
        """Layout from ``parents`` (K, m) (attribute indices, -1 for none) and the cardinalities (m,)."""
        cards = _intp(cards)
        parents = np.ascontiguousarray(np.atleast_2d(np.asarray(parents, dtype=np.intp)))
        K, m = parents.shape
        if cards.shape != (m,):
            raise ValueError(f"cards has shape {cards.shape}, expected ({m},) (one per attribute, as parents).")
        if (cards < 1).any():
            raise ValueError(f"attribute cardinalities must be >= 1, got {cards.tolist()}.")
        bad = (parents < -1) | (parents >= m) | (parents == np.arange(m)[None, :])
        if bad.any():
            k, i = (int(v[0]) for v in np.nonzero(bad))
            raise ValueError(f"parents[{k}, {i}] == {int(parents[k, i])}, must be -1 or another attribute index in "
                             f"0..{m - 1}.")
        pc = np.where(parents >= 0, cards[np.maximum(parents, 0)], 1)
        sizes = (cards[None, :] * pc).reshape(-1)
        off = np.zeros(K * m + 1, dtype=np.intp)
        np.cumsum(sizes, out=off[1:])
        return cls(cards, parents, off, np.ascontiguousarray(np.tile(cards, K)))

    @property
    def n_clusters(self) -> int:
        return int(self.parents.shape[0])

    @property
    def n_attributes(self) -> int:
        return int(self.parents.shape[1])

    @property
    def block_offsets(self) -> np.ndarray:
        """The :class:`BlockLayout` name of ``blk_offsets`` (``T = size`` is its last entry)."""
        return self.blk_offsets

    @cached_property
    def block_shapes(self) -> tuple:
        """``(r_i, r_parent)`` of block ``k * m + i`` (``(r_i, 1)`` for a root)."""
        pc = np.where(self.parents >= 0, self.cards[np.maximum(self.parents, 0)], 1).reshape(-1)
        return tuple((int(r), int(q)) for r, q in zip(self.rows, pc))

    def block(self, flat: np.ndarray, k: int, i: int) -> np.ndarray:
        """View of block (k, i) of ``flat`` shaped ``(r_i, r_parent)`` (``(r_i, 1)`` for a root)."""
        return self.block_at(flat, k * self.n_attributes + i)


def _check_log_joint(log_joint) -> np.ndarray:
    lj = np.ascontiguousarray(log_joint, dtype=np.float64)
    if lj.ndim != 2 or lj.shape[1] < 1:
        raise ValueError(f"log_joint must be (n_rows, K) with K >= 1, got shape {lj.shape}.")
    return lj


def _raise_impossible(row: int):
    raise ValueError(f"row {row} has probability 0 under every cluster; the posterior is undefined. Use alpha > 0 "
                     "(a Dirichlet pseudo-count) so that every cluster gives every row a positive probability.")


def multinet_log_joint(layout: MultinetLayout, log_cpt, log_prior, codes, cols=None, *,
                       n_jobs: int = 1) -> np.ndarray:
    """E-step of a multinet: ``log alpha_k + sum_i log P_k(x_ri | x_r,parent_k(i))``, shape (n_rows, K).

    Parameters
    ----------
    layout : MultinetLayout
    log_cpt : float64 (layout.size,)
        Natural-log CPT blocks.
    log_prior : float64 (K,)
        ``log alpha_k`` (``-inf`` for an empty cluster).
    codes : int32 (n_rows, n_cols)
        Complete codes.
    cols : intp (m,), optional
        Column of ``codes`` holding each attribute; default ``0..m-1``.
    n_jobs : int, default 1
        Threads over row blocks (bit-identical results for every value).

    Examples
    --------
    >>> import numpy as np
    >>> lay = MultinetLayout.build([[-1, 0], [-1, -1]], [2, 2])
    >>> # cluster 0: P(A) = (.5, .5), P(B | A) = [[.9, .2], [.1, .8]]; cluster 1: P(A) = (.3, .7), P(B) = (.5, .5)
    >>> log_cpt = np.log([.5, .5, .9, .2, .1, .8, .3, .7, .5, .5])
    >>> lj = multinet_log_joint(lay, log_cpt, np.log([.5, .5]), np.array([[1, 1]], dtype=np.int32))
    >>> np.exp(lj).round(4).tolist()
    [[0.2, 0.175]]
    """
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    if codes.ndim != 2:
        raise ValueError(f"codes must be 2-D (n_rows, n_cols), got shape {codes.shape}.")
    cols = np.arange(layout.n_attributes, dtype=np.intp) if cols is None else _intp(cols)
    log_cpt = np.ascontiguousarray(log_cpt, dtype=np.float64)
    log_prior = np.ascontiguousarray(log_prior, dtype=np.float64)
    out = np.empty((codes.shape[0], layout.n_clusters), dtype=np.float64)
    bad = _cem.multinet_log_joint(codes, cols, layout.cards, layout.parents, layout.blk_offsets, log_cpt, log_prior,
                                  out, effective_n_threads(n_jobs))
    if bad is not None:
        r, i = bad
        raise ValueError(f"row {r}: code {int(codes[r, cols[i]])} of attribute {i} (column {int(cols[i])}) is missing "
                         f"or outside 0..{int(layout.cards[i]) - 1}; complete, encoded data is required.")
    return out


def multinet_counts_from_pairs(layout: MultinetLayout, pairwise: PairwiseCounts) -> np.ndarray:
    """Per-cluster family counts in the layout, read from pairwise counts conditioned on the cluster labels.

    ``pairwise`` must come from :func:`pgmpy_ext.stats.pairwise_counts` over the layout's attributes (in order)
    with the cluster labels as ``cond`` (``cond_card == K``). With a single attribute there are no pairs; use
    :func:`pgmpy_ext.stats.family_counts` instead.

    Returns
    -------
    float64 (layout.size,)
    """
    if not isinstance(pairwise, PairwiseCounts):
        raise TypeError(f"expected a PairwiseCounts, got {type(pairwise).__name__}.")
    if pairwise.cond_card != layout.n_clusters or not np.array_equal(pairwise.cards, layout.cards):
        raise ValueError(f"the pairwise counts have cond_card {pairwise.cond_card} and cards "
                         f"{np.asarray(pairwise.cards).tolist()}, the layout K = {layout.n_clusters} and cards "
                         f"{layout.cards.tolist()}; count the layout's attributes conditioned on the cluster labels.")
    out = np.empty(layout.size, dtype=np.float64)
    _cem.family_counts_from_pairs(np.ascontiguousarray(pairwise.flat, dtype=np.float64), _intp(pairwise.offsets),
                                  layout.cards, layout.n_clusters, layout.parents, layout.blk_offsets, out)
    return out


def normalize_blocks(layout: MultinetLayout, counts, alpha: float = 0.0) -> tuple[np.ndarray, float]:
    """The layout's normalise-with-log-likelihood (M-step): ``log_cpt`` from ``(counts + alpha)`` normalised per
    parent configuration, and the log-likelihood ``sum counts * log_cpt`` of the attribute factors.

    One kernel pass (the CEM iterations call it at every M-step). It is
    ``layout.normalize(counts, alpha, log=True)`` of the :class:`BlockLayout` protocol (equal to rounding) plus the
    log-likelihood. A parent configuration whose total is 0 gets a uniform column (pgmpy's ``DiscreteMLE`` rule).

    Examples
    --------
    >>> import numpy as np
    >>> lay = MultinetLayout.build([[-1]], [2])
    >>> log_cpt, ll = normalize_blocks(lay, np.array([3.0, 1.0]))
    >>> np.exp(log_cpt).tolist(), round(ll, 6)   # 3 log(3/4) + log(1/4)
    ([0.75, 0.25], -2.249341)
    """
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    if counts.shape != (layout.size,):
        raise ValueError(f"counts has shape {counts.shape}, expected ({layout.size},).")
    out = np.empty(layout.size, dtype=np.float64)
    ll = _cem.normalize_blocks(counts, layout.blk_offsets, layout.rows, float(alpha), out)
    return out, ll


def sample_labels(log_joint, u) -> tuple[np.ndarray, np.ndarray]:
    """S-step: ``labels[r] ~ Categorical(p(-|x_r))``, drawn by inversion with the uniforms ``u`` (drawn by the caller).

    Returns
    -------
    labels : int32 (n_rows,)
    counts : intp (K,)
        Cluster sizes.

    Examples
    --------
    >>> import numpy as np
    >>> lj = np.log([[0.2, 0.8], [0.5, 0.5]])
    >>> labels, counts = sample_labels(lj, np.array([0.1, 0.9]))
    >>> labels.tolist(), counts.tolist()
    ([0, 1], [1, 1])
    """
    lj = _check_log_joint(log_joint)
    u = np.ascontiguousarray(u, dtype=np.float64)
    if u.shape != (lj.shape[0],):
        raise ValueError(f"u has shape {u.shape}, expected ({lj.shape[0]},) (one uniform per row).")
    labels = np.empty(lj.shape[0], dtype=np.int32)
    counts = np.empty(lj.shape[1], dtype=np.intp)
    bad = _cem.sample_labels(lj, u, labels, counts)
    if bad >= 0:
        _raise_impossible(bad)
    return labels, counts


def argmax_labels(log_joint, previous=None) -> tuple[np.ndarray, np.ndarray, int]:
    """C-step: the most probable cluster of every row, the smallest index on ties (Ruz's thesis).

    Parameters
    ----------
    log_joint : float64 (n_rows, K)
    previous : int array (n_rows,), optional
        The current partition; only used to count the rows that change (not modified).

    Returns
    -------
    labels : int32 (n_rows,)
    counts : intp (K,)
    n_changed : int
        Rows whose label differs from ``previous`` (all rows when ``previous`` is None).

    Examples
    --------
    >>> import numpy as np
    >>> labels, counts, n = argmax_labels(np.log([[0.5, 0.5], [0.1, 0.9]]), previous=[1, 1])
    >>> labels.tolist(), counts.tolist(), n
    ([0, 1], [1, 1], 1)
    """
    lj = _check_log_joint(log_joint)
    n = lj.shape[0]
    if previous is None:
        labels = np.full(n, -1, dtype=np.int32)
    else:
        labels = np.array(previous, dtype=np.int32, copy=True).reshape(-1)
        if labels.shape != (n,):
            raise ValueError(f"previous has shape {labels.shape}, expected ({n},).")
    counts = np.empty(lj.shape[1], dtype=np.intp)
    n_changed, bad = _cem.argmax_labels(lj, labels, counts)
    if bad >= 0:
        _raise_impossible(bad)
    return labels, counts, n_changed


def reseed_empty_clusters(log_joint, labels: np.ndarray, counts: np.ndarray) -> int:
    """Fill every empty cluster, in increasing order, with the row of lowest posterior for its own cluster among
    rows whose cluster keeps another member (the thesis does not treat empty clusters; ties: the
    lowest row). ``labels`` (int32) and
    ``counts`` (intp) are updated in place.

    Returns
    -------
    int
        Number of rows moved.

    Examples
    --------
    >>> import numpy as np
    >>> labels, counts = np.array([0, 0, 0], dtype=np.int32), np.array([3, 0], dtype=np.intp)
    >>> reseed_empty_clusters(np.log([[0.9, 0.1], [0.6, 0.4], [0.8, 0.2]]), labels, counts)
    1
    >>> labels.tolist(), counts.tolist()
    ([0, 1, 0], [2, 1])
    """
    lj = _check_log_joint(log_joint)
    if not (isinstance(labels, np.ndarray) and labels.dtype == np.int32 and labels.flags.c_contiguous):
        raise TypeError("labels must be a C-contiguous int32 numpy array (it is updated in place).")
    if not (isinstance(counts, np.ndarray) and counts.dtype == np.intp):
        raise TypeError("counts must be an intp numpy array (it is updated in place).")
    if not np.array_equal(np.bincount(labels, minlength=lj.shape[1])[:lj.shape[1]], counts) or \
            labels.shape[0] and labels.max() >= lj.shape[1]:
        raise ValueError("counts must hold the size of every cluster of labels (labels in 0..K-1).")
    moved = _cem.reseed_empty(lj, labels, counts)
    if moved < 0:
        raise ValueError(f"cannot fill every empty cluster: {lj.shape[0]} rows for {lj.shape[1]} clusters.")
    return moved
