"""Wrappers around the TM kernels (``cython_core/_tm.pyx``): the training data of a Bayesian-network classifier
compressed once per structure into unique feature rows with per-class multiplicities, and the count-space
evaluations the TM algorithm repeats (log-parameters, conditional log-likelihood, expected counts).

The flat class-last layout of the count tables is documented in ``cython_core/_tm.pyx``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _tm
from pgmpy_ext.stats._counting import unique_rows
from pgmpy_ext.stats._layout import BlockLayout

__all__ = ["TMData", "TMEvaluation"]


def _intp(values) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(values, dtype=np.intp))


@dataclass
class TMEvaluation:
    """Result of :meth:`TMData.evaluate`.

    Attributes
    ----------
    cll : float
        ``sum_d w_d log p(c_d | x_d)`` (``-inf`` when a training row has probability 0 for its class).
    expected : numpy.ndarray of float64, shape (TMData.size,), or None
        Expected counts ``E`` of the T-step, class-last layout.
    posterior : numpy.ndarray of float64, shape (n_unique, K), or None
        ``p(c | x_u)`` per unique row.
    n_zero : int
        Unique rows with ``p(x_u) = 0``.
    """

    cll: float
    expected: np.ndarray | None
    posterior: np.ndarray | None
    n_zero: int


@dataclass(frozen=True, eq=False)
class TMData(BlockLayout):
    """Training rows of a classifier compiled for the count-space TM kernels of one structure.

    Build it with :meth:`TMData.build`. Block 0 is the class prior; block ``b >= 1`` is the class-dependent table
    ``T[x_child, pi, c]`` of the ``b``-th child of the class, where ``pi`` runs over the configurations of the child's
    other parents (mixed radix in the order given, last parent fastest) and the class is the last axis. The flat
    buffer follows :class:`~pgmpy_ext.stats.BlockLayout` (``block_offsets``, ``block_shapes``: ``(K,)`` for the
    prior, ``(r_child, *r_parents, K)`` for a child, so the child axis is first and ``normalize`` is the TM's
    maximum-likelihood start).

    Attributes
    ----------
    n_classes : int
        ``K``.
    families : tuple of (int, tuple of int)
        ``(child column, other parent columns)`` of each block ``b >= 1`` (columns of the code matrix).
    cards : tuple of tuple of int
        ``(r_child, *r_parents)`` of each block ``b >= 1``.
    blk_offsets, blk_r, blk_q : numpy.ndarray of intp
        Block boundaries (length ``B + 1``), child cardinalities and parent-configuration counts (length ``B``).
    idx : numpy.ndarray of intp, shape (n_unique, B)
        Offset of the ``K`` entries each unique row reads in each block.
    W : numpy.ndarray of float64, shape (n_unique, K)
        Multiplicity (summed weight) of each unique feature row with each class.
    observed : numpy.ndarray of float64, shape (size,)
        The observed counts ``O`` (maximum-likelihood statistics) in the class-last layout.
    n_total : float
        Total weight ``N``.
    slice_ids : numpy.ndarray of intp, shape (size,)
        The normalisation slice of every cell: 0 for the class prior, then one id per ``(block, pi, c)``; the
        parameters of a slice are its counts divided by their sum.
    n_slices : int
    inverse : numpy.ndarray of intp, shape (n_rows,)
        The unique row of every input row (``W`` and ``idx`` are indexed by unique row).

    Examples
    --------
    Naive Bayes with two binary features in columns 0 and 1, four rows:

    >>> import numpy as np
    >>> codes = np.array([[0, 1], [0, 1], [1, 0], [1, 1]], dtype=np.int32)
    >>> data = TMData.build(codes, [0, 0, 1, 1], [2, 2], 2, [(0, ()), (1, ())])
    >>> data.W.tolist(), data.size
    ([[2.0, 0.0], [0.0, 1.0], [0.0, 1.0]], 10)
    >>> data.block(data.observed, 2).tolist()  # N(x_1, c)
    [[0.0, 1.0], [2.0, 1.0]]
    >>> ev = data.evaluate(data.observed, posterior=True)  # at the maximum-likelihood parameters
    >>> ev.posterior.tolist(), ev.cll  # feature 0 separates the classes
    ([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]], 0.0)
    """

    n_classes: int
    families: tuple
    cards: tuple
    blk_offsets: np.ndarray
    blk_r: np.ndarray
    blk_q: np.ndarray
    idx: np.ndarray
    W: np.ndarray
    observed: np.ndarray
    n_total: float
    slice_ids: np.ndarray
    n_slices: int
    inverse: np.ndarray | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def build(cls, codes: np.ndarray, y, cards: Sequence[int], n_classes: int,
              families: Sequence[tuple[int, Sequence[int]]], weights=None) -> TMData:
        """Compress the rows and compile the blocks of one structure.

        Parameters
        ----------
        codes : ndarray of int32, shape (n_rows, n_cols)
            Feature codes (complete data: no -1 in a used column). Columns that no family uses are ignored.
        y : array of int, shape (n_rows,)
            Class codes in ``0..n_classes-1``.
        cards : sequence of int, length n_cols
            Cardinality of every column of ``codes``.
        n_classes : int
            ``K`` (the class's full domain, including classes absent from these rows).
        families : sequence of (int, sequence of int)
            For each child of the class, in block order: its column and the columns of its other parents (in
            table order).
        weights : array of float64, shape (n_rows,), optional
            Non-negative row weights.

        Raises
        ------
        ValueError
            Inconsistent shapes, a class code outside ``0..K-1``, a missing or out-of-range code in a used column,
            a column that is both child and parent, bad weights.
        """
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        if codes.ndim != 2:
            raise ValueError(f"codes must be 2-D (n_rows, n_cols), got shape {codes.shape}.")
        n = codes.shape[0]
        all_cards = np.asarray(cards, dtype=np.intp)
        if all_cards.shape != (codes.shape[1],):
            raise ValueError(f"cards has {all_cards.shape[0]} entries, expected one per column ({codes.shape[1]}).")
        K = int(n_classes)
        if K < 1:
            raise ValueError(f"n_classes == {K}, must be >= 1.")
        yy = np.asarray(y).astype(np.intp, copy=False).reshape(-1)
        if yy.shape[0] != n:
            raise ValueError(f"y has {yy.shape[0]} entries, expected one per row ({n}).")
        if n and (yy.min() < 0 or yy.max() >= K):
            raise ValueError(f"class codes must lie in 0..{K - 1}; got values in {yy.min()}..{yy.max()}.")
        if weights is None:
            w = np.ones(n, dtype=np.float64)
        else:
            w = np.asarray(weights, dtype=np.float64).reshape(-1)
            if w.shape[0] != n or not np.all(np.isfinite(w)) or (w < 0).any():
                raise ValueError(f"weights must be {n} finite values >= 0.")
        fams = []
        for child, pa in families:
            pa = tuple(int(p) for p in pa)
            child = int(child)
            if child in pa or len(set(pa)) != len(pa):
                raise ValueError(f"family of column {child} has repeated members: ({child}, {pa}).")
            for col in (child, *pa):
                if not 0 <= col < codes.shape[1]:
                    raise ValueError(f"column {col} is out of range for codes with {codes.shape[1]} columns.")
            fams.append((child, pa))
        used = sorted({c for child, pa in fams for c in (child, *pa)})
        if used:
            sub = codes[:, used]
            if (sub < 0).any() or (sub >= all_cards[used]).any():
                bad = np.argwhere((sub < 0) | (sub >= all_cards[used]))[0]
                raise ValueError(f"row {bad[0]}: code {sub[bad[0], bad[1]]} of column {used[bad[1]]} is missing or "
                                 f"outside 0..{all_cards[used[bad[1]]] - 1}; the TM needs complete data.")
            ur = unique_rows(sub, all_cards[used])
            ucodes, inverse = ur.codes, ur.inverse
        else:
            ucodes = np.zeros((1 if n else 0, 0), dtype=np.int32)
            inverse = np.zeros(n, dtype=np.intp)
        n_u = ucodes.shape[0]
        W = np.bincount(inverse * K + yy, weights=w, minlength=n_u * K).reshape(n_u, K).astype(np.float64)
        pos = {c: k for k, c in enumerate(used)}
        offsets, blk_r, blk_q, fam_cards = [0, K], [1], [1], []
        idx = np.zeros((n_u, len(fams) + 1), dtype=np.intp)
        for b, (child, pa) in enumerate(fams, start=1):
            r = int(all_cards[child])
            pc = [int(all_cards[p]) for p in pa]
            q = int(np.prod(pc, dtype=np.int64)) if pc else 1
            cfg = ucodes[:, pos[child]].astype(np.intp) * q
            stride = q
            for p, cp in zip(pa, pc):
                stride //= cp
                cfg += ucodes[:, pos[p]].astype(np.intp) * stride
            idx[:, b] = offsets[-1] + cfg * K
            blk_r.append(r)
            blk_q.append(q)
            fam_cards.append((r, *pc))
            offsets.append(offsets[-1] + r * q * K)
        size = offsets[-1]
        observed = np.zeros(size, dtype=np.float64)
        idx = np.ascontiguousarray(idx)
        W = np.ascontiguousarray(W)
        _tm.tm_observed(idx, W, observed)
        slice_ids = np.zeros(size, dtype=np.intp)
        n_slices = 1
        for b in range(1, len(blk_r)):
            r, q = blk_r[b], blk_q[b]
            ids = n_slices + np.arange(q * K, dtype=np.intp)
            slice_ids[offsets[b]:offsets[b + 1]] = np.tile(ids, r)
            n_slices += q * K
        return cls(K, tuple(fams), tuple(fam_cards), _intp(offsets), _intp(blk_r), _intp(blk_q),
                   np.ascontiguousarray(idx), np.ascontiguousarray(W), observed, float(w.sum()), slice_ids,
                   int(n_slices), _intp(inverse))

    # ------------------------------------------------------------------ facts
    @property
    def block_offsets(self) -> np.ndarray:
        """Block boundaries of the flat buffer (:class:`~pgmpy_ext.stats.BlockLayout`); ``blk_offsets``."""
        return self.blk_offsets

    @property
    def block_shapes(self) -> tuple:
        """``(K,)`` for the class prior, then ``(r_child, *r_parents, K)`` for every child of the class."""
        return ((self.n_classes,), *((*c, self.n_classes) for c in self.cards))

    @property
    def n_unique(self) -> int:
        return int(self.idx.shape[0])

    def block(self, flat: np.ndarray, b: int) -> np.ndarray:
        """View of block ``b`` of a flat buffer: shape ``(K,)`` for ``b = 0``, else ``(r_child, *r_parents, K)``
        (:meth:`~pgmpy_ext.stats.BlockLayout.block_at`)."""
        return self.block_at(flat, b)

    def slice_totals(self, counts) -> np.ndarray:
        """Sum of the counts of every normalisation slice (``n_slices``,): ``N`` for slice 0, ``M[pi, c]`` else."""
        counts = self.check_flat(counts, "counts")
        return np.bincount(self.slice_ids, weights=counts, minlength=self.n_slices)

    def nonempty_cells(self, counts) -> np.ndarray:
        """Boolean mask (size,): cells of the class prior and of every slice whose counts sum to more than 0."""
        tot = self.slice_totals(counts)
        mask = tot[self.slice_ids] > 0
        mask[:self.n_classes] = True
        return mask

    # ------------------------------------------------------------------ kernels
    def log_theta(self, counts, out: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
        """Log-parameters from count tables: ``(log_theta, legal)``.

        ``legal`` is False when a count is negative (or NaN) or the class counts sum to 0; ``log_theta`` is then
        unspecified. A zero count in a slice with counts gives ``-inf`` (theta = 0); a slice without counts gives a
        uniform column (pgmpy's maximum-likelihood convention).
        """
        counts = self.check_flat(counts, "counts")
        if out is None:
            out = np.empty(self.size, dtype=np.float64)
        legal = _tm.tm_log_theta(counts, self.blk_offsets, self.blk_r, self.blk_q, self.n_classes, out)
        return out, bool(legal)

    def log_theta_from_log_counts(self, log_counts, out: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
        """Log-parameters from log-counts ``s = log T`` (a log-softmax over every slice): ``(log_theta, legal)``.

        Equal to :meth:`log_theta` of ``exp(s)`` without forming the counts; ``-inf`` marks a zero count and a slice
        of ``-inf`` gets a uniform column. ``legal`` is False for NaN or ``+inf`` entries or an all ``-inf`` class
        prior.
        """
        s = self.check_flat(log_counts, "log_counts")
        if out is None:
            out = np.empty(self.size, dtype=np.float64)
        legal = _tm.tm_log_softmax(s, self.blk_offsets, self.blk_r, self.blk_q, self.n_classes, out)
        return out, bool(legal)

    def log_count_gradient(self, direction, log_theta, out: np.ndarray | None = None) -> np.ndarray:
        """Gradient of the CLL with respect to the log-counts, from the TM direction ``O - E`` and the current
        log-parameters: ``g - theta * (slice sum of g)`` in every slice."""
        g = self.check_flat(direction, "direction")
        lt = self.check_flat(log_theta, "log_theta")
        if out is None:
            out = np.empty(self.size, dtype=np.float64)
        _tm.tm_log_count_gradient(g, lt, self.blk_offsets, self.blk_r, self.blk_q, self.n_classes, out)
        return out

    def normalise_log_linear(self, beta, host_plan: tuple, out: np.ndarray | None = None) -> np.ndarray:
        """Normalised log-parameters with the same ``p(c | x)`` as the log-linear weights ``beta``.

        ``host_plan`` is ``(order, hosts, src_offsets, src)`` (intp arrays): the blocks in processing order, the
        block each one's normaliser is added to (0: the class prior), and for every cell of each host block the
        index of the child's normaliser ``a[pi_b, c]`` it receives (compiled by
        ``pgmpy_ext.parameters``' L-BFGS solver). Slices that are entirely ``-inf`` get a uniform column.
        """
        b = self.check_flat(beta, "beta")
        if out is None:
            out = np.empty(self.size, dtype=np.float64)
        _tm.tm_normalise_log_linear(b, self.blk_offsets, self.blk_r, self.blk_q, self.n_classes, *host_plan, out)
        return out

    def evaluate(self, counts, *, expected: bool = False, posterior: bool = False,
                 log_theta: np.ndarray | None = None) -> TMEvaluation:
        """CLL at the parameters of ``counts`` (and, optionally, the expected counts and posteriors).

        Illegal counts (see :meth:`log_theta`) give ``cll = -inf`` and nothing else. ``log_theta`` may pass
        precomputed log-parameters, in which case ``counts`` is not read.
        """
        if log_theta is None:
            lt, legal = self.log_theta(counts)
            if not legal:
                return TMEvaluation(-np.inf, None, None, 0)
        else:
            lt = self.check_flat(log_theta, "log_theta")
        e = np.zeros(self.size if expected else 0, dtype=np.float64)
        resp = np.empty((self.n_unique if posterior else 0, self.n_classes), dtype=np.float64)
        cll, n_zero = _tm.tm_cll(self.idx, self.W, lt, e, resp)
        return TMEvaluation(cll, e if expected else None, resp if posterior else None, n_zero)
