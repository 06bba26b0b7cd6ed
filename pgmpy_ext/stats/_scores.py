"""Local family scores from count tables, and a fast per-family counter (wrappers around the ``_scores`` kernels)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pgmpy_ext._core import _scores
from pgmpy_ext.data import EncodedData
from pgmpy_ext.stats import _counting as _counting_py
from pgmpy_ext.stats._counting import check_table_size
from pgmpy_ext.utils.validation import check_option

__all__ = ["SCORE_KINDS", "FamilyCounter", "local_score"]

SCORE_KINDS = ("ll", "bic", "aic", "k2", "bdeu")


def local_score(kind: str, counts, n_total: float | None = None, *, equivalent_sample_size: float = 10.0,
                q_total: int | None = None, observed_only: bool = False) -> float:
    r"""Local (family) score of one child given its parents, from the family's count table, in nats.

    Parameters
    ----------
    kind : {"ll", "bic", "aic", "k2", "bdeu"}
        Log-likelihood, BIC, AIC, K2 or BDeu, with the formulas of pgmpy 1.1.2's ``pgmpy.structure_score``
        (``LogLikelihood``, ``BIC``, ``AIC``, ``K2``, ``BDeu``).
    counts : array-like of float, shape ``(r,)``, ``(r, *parent_cards)`` or ``(r, q)``
        Counts with the child's states on the first axis; further axes (parent configurations) are flattened in
        C order, so :func:`pgmpy_ext.stats.family_counts` output can be passed as it is. Weighted counts allowed.
        The table may hold only some of the parent configurations (e.g. the observed ones), see ``q_total``.
    n_total : float, optional
        Sample size in the BIC penalty ``log(n_total) / 2``; default ``counts.sum()``. pgmpy uses ``len(data)``,
        which includes the rows where the family has a missing value: pass that to match it. Used by "bic" only.
    equivalent_sample_size : float, default 10.0
        BDeu's equivalent sample size (> 0), as in pgmpy's ``BDeu``. Used by "bdeu" only.
    q_total : int, optional
        Number of parent configurations in all (the product of the parents' cardinalities); default the number
        of columns of the table. Configurations beyond the listed ones have zero counts.
    observed_only : bool, default False
        Reproduce pgmpy's counting with ``reindex=False`` for K2 and BDeu, which pgmpy uses whenever the family
        has parents: only parent configurations that occur (and, for BDeu, child states that occur) enter the
        sums; see ``pgmpy_ext._core._scores.k2_from_counts`` / ``bdeu_from_counts`` for the exact formulas.
        False gives the textbook scores. No effect on "ll", "bic" and "aic".

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Unknown ``kind``, an empty table, ``q_total`` smaller than the number of columns, ``n_total <= 0`` or
        ``equivalent_sample_size <= 0``.

    See Also
    --------
    pgmpy_ext.scores.BICScore : the pgmpy score objects built on this.

    Notes
    -----
    With :math:`N_{jk}` the count of child state :math:`k` under parent configuration :math:`j`,
    :math:`N_j = \sum_k N_{jk}`, :math:`r` child states and :math:`q` parent configurations:

    .. math::

        \mathrm{LL} = \sum_{j,k} N_{jk} \log \frac{N_{jk}}{N_j}, \quad
        \mathrm{BIC} = \mathrm{LL} - \frac{\log n}{2} q (r - 1), \quad
        \mathrm{AIC} = \mathrm{LL} - q (r - 1)

    .. math::

        \mathrm{K2} = \sum_j \Big[\log\Gamma(r) - \log\Gamma(N_j + r) + \sum_k \log\Gamma(N_{jk} + 1)\Big], \quad
        \mathrm{BDeu} = \sum_j \Big[\log\Gamma(\alpha) - \log\Gamma(N_j + \alpha)
            + \sum_k \big(\log\Gamma(N_{jk} + \beta) - \log\Gamma(\beta)\big)\Big]

    with :math:`\alpha = \mathrm{ess}/q` and :math:`\beta = \mathrm{ess}/(rq)`. BIC is the negated MDL of
    ``docs/decisions/seed002-003-abn-pena.md`` ("MDL score and its decomposition") in nats.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[3.0, 0.0], [1.0, 4.0]])   # child (2 states) x parent (2 states)
    >>> round(local_score("ll", counts), 6)           # 3 log(3/4) + 1 log(1/4) + 4 log(4/4)
    -2.249341
    >>> round(local_score("bic", counts, n_total=8), 6)   # LL - log(8)/2 * 2 * 1
    -4.328782
    >>> round(local_score("k2", counts), 6)           # log(3! 1! / 5!) + log(4! / 5!) = log(1/100)
    -4.60517
    """
    if not (type(kind) is str and kind in SCORE_KINDS):  # the plain-string test first: this runs once a family
        check_option(kind, "kind", SCORE_KINDS)
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim == 0 or table.shape[0] == 0 or table.size == 0:
        raise ValueError(f"counts has shape {table.shape}; a family table needs at least one child state and one "
                         "parent configuration.")
    table = np.ascontiguousarray(table.reshape(table.shape[0], -1))
    if q_total is not None and q_total < table.shape[1]:
        raise ValueError(f"q_total == {q_total}, smaller than the {table.shape[1]} parent configurations (columns) "
                         "of counts; it must count all of them.")
    q = -1.0 if q_total is None else float(q_total)
    return _score_table(kind, table, q, n_total, float(equivalent_sample_size), bool(observed_only))


def _score_table(kind: str, table: np.ndarray, q_total: float, n_total: float | None, ess: float,
                 observed_only: bool) -> float:
    """Dispatch to the kernel; ``table`` is a C-contiguous float64 (r, q) array (no further checks here)."""
    if kind == "bic":
        return _scores.bic_from_counts(table, float(table.sum()) if n_total is None else float(n_total), q_total)
    if kind == "ll":
        return _scores.loglik_from_counts(table)
    if kind == "aic":
        return _scores.aic_from_counts(table, q_total)
    if kind == "k2":
        return _scores.k2_from_counts(table, q_total, observed_only)
    return _scores.bdeu_from_counts(table, ess, q_total, observed_only)


#: Families of at most one parent served one at a time before all pair tables are counted in one pass.
_PAIR_WARMUP = 24
#: Most float64 cells of all pair tables together for that pass (128 MiB).
_PAIR_MAX_CELLS = 1 << 24


class FamilyCounter:
    """Count tables of many families of one data set, from a column-major copy of its codes.

    Score-based structure search counts thousands of small families on the same rows. Reading the codes column
    by column (one contiguous run per family column) is several times faster than striding through the
    row-major ``EncodedData.codes``, so this keeps a transposed copy (``4 * n_rows * n_cols`` bytes).

    Parameters
    ----------
    data : EncodedData
        Encoded data; ``-1`` codes (``missing="skip"``) are skipped per family (available-case counting).
    weights : array-like of shape (n_rows,), optional
        Row weights; default ``data.weights`` (none: every row counts 1).
    dense_max_cells : int, optional
        Families whose full table (``prod`` of the cardinalities) exceeds this many cells are counted sparsely,
        over the parent configurations that occur only. Default ``max(65536, 2 * n_rows)``.

    Attributes
    ----------
    codes_t : numpy.ndarray of int32, shape (n_cols, n_rows)
        C-contiguous transposed codes.
    cards : numpy.ndarray of intp, shape (n_cols,)

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> counter = FamilyCounter(encode(pd.DataFrame({"A": [0, 1, 1, 1], "B": ["u", "u", "v", "v"]})))
    >>> table, q_total = counter.table(0, [1])   # child A, parent B
    >>> table.tolist(), q_total
    ([[1.0, 0.0], [1.0, 2.0]], 2)
    """

    def __init__(self, data: EncodedData, weights=None, dense_max_cells: int | None = None):
        if not isinstance(data, EncodedData):
            raise TypeError(f"FamilyCounter expects an EncodedData (pgmpy_ext.data.encode), got {type(data).__name__}.")
        self.codes_t = np.ascontiguousarray(data.codes.T)
        self.cards = np.ascontiguousarray(data.cards, dtype=np.intp)
        self._cards = [int(c) for c in self.cards]
        self._weights = data.kernel_weights(weights)
        self._labels = list(data.columns)
        n_rows = data.n_rows
        self.dense_max_cells = max(65536, 2 * n_rows) if dense_max_cells is None else int(dense_max_cells)
        # Searches score the families of one and two columns of every variable: after _PAIR_WARMUP of them, every
        # pair table is counted in one pass (pairwise_counts) and every one-column table in another
        # (family_counts_many; unweighted, columns without a missing value as margins of a pair table), when
        # they fit in _PAIR_MAX_CELLS, and served from there (the same integer, or row-order weighted, sums)
        self._data = data
        self._weights_arg = weights
        self._pair_requests = 0
        self._pairs = None
        self._pair_views = None
        self._singles = None

    @property
    def n_rows(self) -> int:
        return int(self.codes_t.shape[1])

    def table(self, child: int, parents: Sequence[int] = ()) -> tuple[np.ndarray, int]:
        """The family table of column ``child`` given columns ``parents`` (positions in the data).

        Returns
        -------
        table : numpy.ndarray of float64, shape (r, q)
            Child states x parent configurations, configurations in C order over ``parents`` as given. Dense
            (``q == q_total``, every configuration) unless the family exceeds ``dense_max_cells``; then only the
            configurations that occur, in the same order.
        q_total : int
            Number of parent configurations in all (product of the parents' cardinalities).
        """
        cards = self._cards
        if len(parents) <= 1:
            got = self._from_pairs(child, parents)
            if got is not None:
                return got
        k_cards = [cards[child], *(cards[p] for p in parents)]
        q_total = math.prod(k_cards[1:])
        size = k_cards[0] * q_total
        cols = np.array([child, *parents], dtype=np.intp)
        if size <= self.dense_max_cells:
            if size * 8 > _counting_py.MAX_TABLE_BYTES:  # (messages built only when needed: this is the hot path)
                check_table_size(size, self._what(cols), f"States: {k_cards!r}.")
            out = np.zeros(size, dtype=np.float64)
            _scores.family_counts_colmajor(self.codes_t, cols, np.array(k_cards, dtype=np.intp), self._weights, out)
            return out.reshape(k_cards[0], q_total), q_total
        return self._sparse_table(cols, k_cards), q_total

    def _from_pairs(self, child: int, parents) -> tuple[np.ndarray, int] | None:
        """The table of a family of one or two columns from the bulk tables (built at the _PAIR_WARMUP-th
        request when they fit), or None."""
        if self._pairs is None:
            self._pair_requests += 1
            if self._pair_requests != _PAIR_WARMUP:
                return None
            self._build_pairs()
            if self._pairs is None:
                return None
        if self._pairs is False:
            return None
        cards = self._cards
        if not parents:
            return self._singles[child].reshape(cards[child], 1).copy(), 1
        p = int(parents[0])
        if p == child:
            return None
        m = len(cards)
        if child < p:  # the (child, parent) view of the flat tables, C-contiguous already
            return self._pair_views[child * m - child * (child + 1) // 2 + (p - child - 1)], cards[p]
        t = self._pair_views[p * m - p * (p + 1) // 2 + (child - p - 1)]
        return np.ascontiguousarray(t.T), cards[p]

    def _build_pairs(self) -> None:
        from pgmpy_ext.stats._counting import family_counts_many, pair_offsets, pairwise_counts

        data = self._data
        if int(pair_offsets(self.cards)[-1]) > _PAIR_MAX_CELLS or data.n_cols < 2:
            self._pairs = False
            return
        pairs = self._pairs = pairwise_counts(data, list(data.columns), weights=self._weights_arg)
        m = data.n_cols
        # (card_i, card_j) views of every pair i < j, in pair order, so that serving a family costs no arithmetic
        # on numpy scalars
        off, cards, flat = pairs.offsets.tolist(), self._cards, pairs.flat
        self._pair_views = [flat[off[p]:off[p + 1]].reshape(cards[i], cards[j])
                            for p, (i, j) in enumerate((i, j) for i in range(m) for j in range(i + 1, m))]
        singles = [None] * m
        if not self._weights.shape[0]:
            # Unweighted: a pair table that holds every row has no missing value in either column, so its margins
            # are those columns' tables, the same integers as counting them (float64 sums of integers are exact).
            full = np.flatnonzero(np.add.reduceat(pairs.flat, pairs.offsets[:-1]) == data.n_rows)
            if full.size:
                iu, ju = np.triu_indices(m, k=1)
                left = m
                for p in full.tolist():
                    i, j = int(iu[p]), int(ju[p])
                    if singles[i] is not None and singles[j] is not None:
                        continue
                    t = pairs.flat[pairs.offsets[p]:pairs.offsets[p + 1]].reshape(self._cards[i], self._cards[j])
                    if singles[i] is None:
                        singles[i] = t.sum(axis=1)
                        left -= 1
                    if singles[j] is None:
                        singles[j] = t.sum(axis=0)
                        left -= 1
                    if not left:
                        break
        rest = [k for k in range(m) if singles[k] is None]
        if rest:
            counted = family_counts_many(data, [(data.columns[k], []) for k in rest], self._weights_arg)
            for k, t in zip(rest, counted):
                singles[k] = t
        self._singles = [np.asarray(t, dtype=np.float64) for t in singles]

    def _what(self, cols: np.ndarray) -> str:
        labels = self._labels
        return f"the family table of {labels[cols[0]]!r} given {[labels[c] for c in cols[1:]]!r}"

    def _sparse_table(self, cols: np.ndarray, k_cards: list) -> np.ndarray:
        """(r, q_obs) table over the parent configurations that occur, in C order (ascending mixed-radix key)."""
        for c in cols:
            if not 0 <= c < self.codes_t.shape[0]:
                raise ValueError(f"column index {c} out of range for data with {self.codes_t.shape[0]} columns.")
        sub = self.codes_t[cols]
        ok = (sub >= 0).all(axis=0)
        w = self._weights if self._weights.shape[0] else None
        if not ok.all():
            sub = sub[:, ok]
            w = None if w is None else w[ok]
        child, par = sub[0].astype(np.intp), sub[1:]
        if math.prod(k_cards[1:]) < 2**62:
            key = np.zeros(par.shape[1], dtype=np.int64)
            for t in range(par.shape[0]):
                key *= k_cards[1 + t]
                key += par[t]
            _, inverse = np.unique(key, return_inverse=True)
            n_cfg = int(inverse.max()) + 1 if inverse.size else 0
        else:  # keys would overflow int64: lexicographic unique of the code columns (same order)
            uniq, inverse = np.unique(par, axis=1, return_inverse=True)
            n_cfg = uniq.shape[1]
        if k_cards[0] * max(n_cfg, 1) * 8 > _counting_py.MAX_TABLE_BYTES:
            check_table_size(k_cards[0] * max(n_cfg, 1), self._what(cols),
                             f"{k_cards[0]} child states x {n_cfg} observed parent configurations.")
        table = np.zeros((k_cards[0], max(n_cfg, 1)), dtype=np.float64)
        np.add.at(table, (child, inverse.reshape(-1)), 1.0 if w is None else w)
        return table
