"""Python wrappers around the counting kernels: validate, allocate, call. Only pgmpy_ext.stats imports _core."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _counting
from pgmpy_ext.data import EncodedData, kernel_codes
from pgmpy_ext.utils.validation import threads_for_rows

__all__ = ["family_counts", "family_counts_codes", "family_counts_many", "family_counts_shared", "pair_offsets",
           "pairwise_counts", "PairwiseCounts", "unique_rows", "UniqueRows", "key_words", "merge_unique_rows",
           "MAX_TABLE_BYTES", "check_table_size"]

#: The largest count buffer (in bytes, float64 cells) the counting wrappers allocate: 2 GiB. A family or a set of
#: pair tables above it is refused with a ``ValueError`` giving the sizes and the columns, before anything is
#: allocated (two identifier-like columns of 16,000 states each would otherwise ask TAN for 3.8 GiB and die with
#: ``MemoryError``, or swap). Raise it (``pgmpy_ext.stats._counting.MAX_TABLE_BYTES = ...``) on a machine that has
#: the memory.
MAX_TABLE_BYTES = 2 * 1024**3


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 1024**3:.2f} GiB"


def check_table_size(n_cells: int, what: str, detail: str = "") -> None:
    """Refuse a float64 count buffer of ``n_cells`` cells above :data:`MAX_TABLE_BYTES`, before allocating it.

    ``what`` names the table (e.g. "the family table of 'X' given ['A', 'B']"), ``detail`` the columns and states
    that make it large. Integer arithmetic: a product of cardinalities that overflows float or int64 is caught.

    Examples
    --------
    >>> check_table_size(10**12, "a test table")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a test table would need 7450.58 GiB (1000000000000 float64 cells), more than ...
    """
    n_bytes = int(n_cells) * 8
    if n_bytes > MAX_TABLE_BYTES:
        raise ValueError(f"{what} would need {_gib(n_bytes)} ({int(n_cells)} float64 cells), more than "
                         f"pgmpy_ext.stats._counting.MAX_TABLE_BYTES = {_gib(MAX_TABLE_BYTES)}; it is refused before "
                         f"allocation.{(' ' + detail) if detail else ''} Columns with that many states are usually "
                         "identifiers or numeric measurements: drop them, discretise them, or merge their states.")


def _family_detail(labels, cards) -> str:
    return "States per column: " + ", ".join(f"{c!r}: {int(k)}" for c, k in zip(labels, cards)) + "."


def family_counts_codes(codes: np.ndarray, columns: Sequence[int], cards: Sequence[int],
                        weights: np.ndarray | None = None) -> np.ndarray:
    """Counts of the family ``columns`` (child first) on a raw code matrix; returns an array shaped ``cards``."""
    cols = np.asarray(columns, dtype=np.intp)
    cds = np.asarray(cards, dtype=np.intp)
    size = math.prod(int(c) for c in cds)
    if size * 8 > MAX_TABLE_BYTES:
        check_table_size(size, f"the family table of columns {cols.tolist()!r}", _family_detail(cols.tolist(), cds))
    out = np.zeros(size, dtype=np.float64)
    w = np.empty(0, dtype=np.float64) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    _counting.family_counts(kernel_codes(codes), cols, cds, w, out)
    return out.reshape(tuple(cds))


def family_counts(data: EncodedData, child, parents: Sequence = (), weights=None, *,
                  sort_parents: bool = True) -> np.ndarray:
    """Counts ``N[child, *parents]`` of one family, C-order over ``(child, *sorted(parents))``.

    With sorted parents, ``counts.reshape(card_child, -1)`` is laid out like ``TabularCPD.get_values()`` with
    ``evidence=sorted(parents)`` (the order pgmpy's estimators use). Rows where the child or a parent is missing
    (-1) are skipped (available-case counting).

    Parameters
    ----------
    data : EncodedData
    child : column label
    parents : sequence of column labels
    weights : array-like of shape (n_rows,), optional
        Overrides ``data.weights``.
    sort_parents : bool, default True
        Sort parents as pgmpy does (by label); False keeps the given order.

    Returns
    -------
    numpy.ndarray of float64 with shape ``(card(child), *card(parents))``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> data = encode(pd.DataFrame({"A": [0, 1, 1, 1], "B": ["u", "u", "v", "v"]}))
    >>> family_counts(data, "A", ["B"]).tolist()
    [[1.0, 0.0], [1.0, 2.0]]
    """
    parents = list(parents)
    if child in parents:
        raise ValueError(f"Column {child!r} cannot be its own parent.")
    if sort_parents:
        parents = _sorted_labels(parents)
    cols = data.indices([child, *parents])
    size = math.prod(int(c) for c in data.cards[cols])
    if size * 8 > MAX_TABLE_BYTES:
        check_table_size(size, f"the family table of {child!r} given {parents!r}",
                         _family_detail([child, *parents], data.cards[cols]))
    out = np.zeros(size, dtype=np.float64)
    _counting.family_counts(data.kernel_codes, cols, data.cards[cols], data.kernel_weights(weights), out)
    return out.reshape(tuple(data.cards[cols]))


def family_counts_many(data: EncodedData, families: Sequence[tuple], weights=None, *, n_jobs: int = 1) -> list:
    """Counts of many families in one pass over the rows (same tables as :func:`family_counts` with
    ``sort_parents=False``, each shaped ``(card(child), *card(parents))`` in the given parent order).

    Parameters
    ----------
    data : EncodedData
    families : sequence of (child, parents)
        Column labels; ``parents`` is a sequence (possibly empty) in the order the table should use.
    weights : array-like of shape (n_rows,), optional
        Overrides ``data.weights``.
    n_jobs : int, default 1
        Threads over row ranges for unweighted counts (integer tables: the same counts for every value); weighted
        counts are summed on one thread, in row order.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> data = encode(pd.DataFrame({"A": [0, 1, 1, 1], "B": ["u", "u", "v", "v"]}))
    >>> [t.tolist() for t in family_counts_many(data, [("A", ["B"]), ("B", [])])]
    [[[1.0, 0.0], [1.0, 2.0]], [2.0, 2.0]]
    """
    fam_ptr = [0]
    cols: list[int] = []
    shapes = []
    labels = []
    cards_list = data.cards.tolist()
    for child, parents in families:  # plain Python per family (thousands of families on wide data)
        fam = [child, *parents]
        labels.append(fam)
        if child in fam[1:]:
            raise ValueError(f"Column {child!r} cannot be its own parent.")
        idx = [data.index(c) for c in fam]
        cols.extend(idx)
        fam_ptr.append(len(cols))
        shapes.append(tuple(cards_list[k] for k in idx))
    cols_np = np.asarray(cols, dtype=np.intp)
    cards_np = data.cards[cols_np] if cols else np.zeros(0, dtype=np.intp)
    sizes = [math.prod(s) for s in shapes]
    largest = int(np.argmax(sizes)) if sizes else 0
    if sum(sizes) * 8 > MAX_TABLE_BYTES:
        check_table_size(sum(sizes), f"the {len(shapes)} family tables",
                         f"The largest is the family of {labels[largest][0]!r} given {labels[largest][1:]!r}: "
                         + _family_detail(labels[largest], shapes[largest]))
    tab = np.zeros(len(shapes) + 1, dtype=np.intp)
    np.cumsum(sizes, out=tab[1:]) if shapes else None
    out = np.zeros(int(tab[-1]), dtype=np.float64)
    _counting.family_counts_multi(data.kernel_codes, np.asarray(fam_ptr, dtype=np.intp), cols_np,
                                  np.ascontiguousarray(cards_np, dtype=np.intp), tab, data.kernel_weights(weights), out,
                                  threads_for_rows(n_jobs, data.n_rows))
    return [out[tab[k]:tab[k + 1]].reshape(shape) for k, shape in enumerate(shapes)]


def family_counts_shared(data: EncodedData, children: Sequence, parents: Sequence, weights=None, *,
                         n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Counts of the families ``(child, *parents)`` of many children with one parent list, in one pass: the tables
    :func:`family_counts_many` gives for ``[(c, parents) for c in children]`` (the same kernel, the same counts),
    as one flat buffer, built without Python work per family (a naive Bayes on 7,070 genes has 7,070 such
    families).

    Returns
    -------
    flat : float64 (tab[-1],)
        The table of ``children[k]`` is ``flat[tab[k]:tab[k + 1]]``, C-order over ``(child, *parents)``.
    tab : intp (len(children) + 1,)

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> data = encode(pd.DataFrame({"A": [0, 1, 1, 1], "B": ["u", "u", "v", "v"], "C": [0, 0, 0, 1]}))
    >>> flat, tab = family_counts_shared(data, ["A", "C"], ["B"])
    >>> flat[tab[0]:tab[1]].reshape(2, 2).tolist(), tab.tolist()
    ([[1.0, 0.0], [1.0, 2.0]], [0, 4, 8])
    """
    ch = data.indices(children)
    pa = data.indices(parents)
    if np.isin(ch, pa).any():
        c = children[int(np.flatnonzero(np.isin(ch, pa))[0])]
        raise ValueError(f"Column {c!r} cannot be its own parent.")
    F, w = ch.shape[0], 1 + pa.shape[0]
    cols = np.empty((F, w), dtype=np.intp)
    cols[:, 0] = ch
    cols[:, 1:] = pa
    cards = data.cards[cols]
    sizes = cards.prod(axis=1, dtype=np.int64)
    total = int(sizes.sum())
    if total * 8 > MAX_TABLE_BYTES:
        big = int(np.argmax(sizes))
        check_table_size(total, f"the {F} family tables",
                         f"The largest is the family of {children[big]!r} given {list(parents)!r}: "
                         + _family_detail([children[big], *parents], cards[big]))
    tab = np.zeros(F + 1, dtype=np.intp)
    np.cumsum(sizes, out=tab[1:])
    out = np.zeros(total, dtype=np.float64)
    _counting.family_counts_multi(data.kernel_codes, np.arange(F + 1, dtype=np.intp) * w, cols.reshape(-1),
                                  np.ascontiguousarray(cards.reshape(-1), dtype=np.intp), tab,
                                  data.kernel_weights(weights), out, threads_for_rows(n_jobs, data.n_rows))
    return out, tab


def _sorted_labels(labels: list) -> list:
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=lambda v: (type(v).__name__, repr(v)))


def pair_offsets(cards: np.ndarray, cond_card: int = 1) -> np.ndarray:
    """Start of each pair's table in the flat pairwise buffer; pairs (i < j) in lexicographic order."""
    cards = np.asarray(cards, dtype=np.intp)
    m = cards.shape[0]
    iu, ju = np.triu_indices(m, k=1)
    sizes = cards[iu].astype(np.int64) * cards[ju] * int(cond_card)
    off = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
    np.cumsum(sizes, out=off[1:])
    return off


@dataclass
class PairwiseCounts:
    """All pairwise joint counts N[i, j, x_i, x_j, c] of m features with one conditioning variable C.

    Attributes
    ----------
    flat : float64 (offsets[-1],)
        Pair p = (i, j), i < j in lexicographic order, occupies ``flat[offsets[p]:offsets[p+1]]``, C-order over
        ``(x_i, x_j, c)``.
    offsets : intp (m*(m-1)/2 + 1,)
    cards : intp (m,)
        Feature cardinalities.
    cond_card : int
        Cardinality of C (1 when unconditioned).
    features : list
        Feature labels, in the order of ``cards``.
    """

    flat: np.ndarray
    offsets: np.ndarray
    cards: np.ndarray
    cond_card: int
    features: list

    @property
    def n_features(self) -> int:
        return int(self.cards.shape[0])

    def pair_index(self, i: int, j: int) -> int:
        """Index p of the pair (i, j), i != j (order-free)."""
        if i == j:
            raise ValueError("a pair needs two distinct features.")
        if i > j:
            i, j = j, i
        m = self.n_features
        return i * m - i * (i + 1) // 2 + (j - i - 1)

    def table(self, i: int, j: int) -> np.ndarray:
        """The (card_i, card_j, cond_card) table of features i and j (transposed if i > j)."""
        p = self.pair_index(i, j)
        a, b = min(i, j), max(i, j)
        t = self.flat[self.offsets[p]:self.offsets[p + 1]].reshape(self.cards[a], self.cards[b], self.cond_card)
        return t if i < j else t.transpose(1, 0, 2)


#: Rows per thread at least for :func:`pairwise_counts` (its rows are far dearer than a column kernel's).
_PAIR_ROWS_PER_THREAD = 16384


def pairwise_counts(data: EncodedData, features: Sequence | None = None, cond=None, weights=None,
                    n_jobs: int = 1) -> PairwiseCounts:
    """All pairwise joint counts of ``features`` conditioned on ``cond`` (None: unconditioned), in one pass.

    Parameters
    ----------
    data : EncodedData
    features : sequence of labels, optional
        Default: every column except ``cond``.
    cond : label, optional
        Conditioning variable (e.g. the class).
    weights : array-like, optional
    n_jobs : int, default 1
        OpenMP threads over disjoint pair blocks; results are bit-identical for every value.

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> data = encode(pd.DataFrame({"A": [0, 1, 1], "B": [0, 0, 1], "C": [1, 1, 0]}))
    >>> pc = pairwise_counts(data, ["A", "B"], cond="C")
    >>> pc.table(0, 1)[:, :, 1].tolist()   # N[A, B | C=1]
    [[1.0, 0.0], [1.0, 0.0]]
    """
    if features is None:
        features = [c for c in data.columns if c != cond]
    features = list(features)
    if cond is not None and cond in features:
        raise ValueError(f"The conditioning variable {cond!r} cannot also be a feature.")
    fidx = data.indices(features)
    cards = data.cards[fidx].copy()
    if cond is None:
        cidx, ccard = -1, 1
    else:
        cidx = data.index(cond)
        ccard = int(data.cards[cidx])
    off = pair_offsets(cards, ccard)
    if int(off[-1]) * 8 > MAX_TABLE_BYTES:
        iu, ju = np.triu_indices(len(features), k=1)
        p = int(np.argmax(cards[iu] * cards[ju]))
        a, b = int(iu[p]), int(ju[p])
        check_table_size(int(off[-1]), f"the pairwise counts of {len(features)} features"
                         + ("" if cond is None else f" given {cond!r} ({ccard} states)"),
                         f"The largest pair is {features[a]!r} ({int(cards[a])} states) x {features[b]!r} "
                         f"({int(cards[b])} states): {_gib(int(cards[a]) * int(cards[b]) * ccard * 8)}.")
    out = np.zeros(int(off[-1]), dtype=np.float64)
    # a row costs this kernel tens of increments, not a few: a second thread paid from about 20,000 rows (alarm,
    # 36 features | 3 classes, quiet machine: 1.7x at 20,000 rows, 1.85x at 100,000; issue 25)
    _counting.pairwise_counts(data.kernel_codes, fidx, cards, cidx, ccard, data.kernel_weights(weights), off, out,
                              threads_for_rows(n_jobs, data.n_rows, _PAIR_ROWS_PER_THREAD))
    return PairwiseCounts(out, off, cards, ccard, features)



_EMPTY_WEIGHTS = np.zeros(0, dtype=np.float64)


@dataclass
class UniqueRows:
    """Unique-row compression: ``codes`` are the distinct rows, ``counts`` their (weighted) multiplicities and
    ``inverse`` maps every original row to its unique row (``codes[inverse]`` reproduces the data; ``None`` when
    :func:`unique_rows` was asked not to return it)."""

    codes: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray | None


def key_words(cards: np.ndarray) -> np.ndarray:
    """Split columns into consecutive groups whose mixed-radix key ``prod(cards + 1)`` fits in int64.

    Returns ``word_ptr`` (intp, ``(n_words + 1,)``): word ``w`` covers columns ``word_ptr[w]:word_ptr[w + 1]``.
    Greedy from the left with exact integer arithmetic; a single column always fits (cardinalities are far below
    2**62). Zero columns give one empty word.

    Examples
    --------
    >>> key_words(np.array([2, 3])).tolist()
    [0, 2]
    >>> key_words(np.full(40, 8)).tolist()   # 9**19 < 2**63 <= 9**20
    [0, 19, 38, 40]
    """
    bounds = [0]
    space = 1
    for k, c in enumerate(np.asarray(cards, dtype=np.int64).tolist()):
        if space * (c + 1) >= 2**63 and k > bounds[-1]:
            bounds.append(k)
            space = 1
        space *= c + 1
    bounds.append(len(cards))
    return np.asarray(bounds, dtype=np.intp)


def unique_rows(codes: np.ndarray, cards: np.ndarray, weights: np.ndarray | None = None, *,
                keep_dtype: bool = False, return_inverse: bool = True) -> UniqueRows:
    """Distinct rows of a code matrix with their multiplicities (summed weights when ``weights`` is given).

    One pass of the hash group-by kernel ``group_rows`` groups identical rows (keyed by their mixed-radix words,
    see :func:`key_words`); then only the distinct rows are sorted, by their words. The distinct rows come out in
    lexicographic order of their codes (-1 first), the order of ``np.unique(codes, axis=0)``, and the counts are
    summed in row order (bit-identical to ``np.bincount(inverse, weights)``). The cost is about one counting pass
    plus a sort of the distinct rows: the earlier sort of all rows (``np.lexsort`` of the words) was 3x slower on
    alarm-1M, and ``np.unique(axis=0)``, which sorts rows as opaque byte strings, 10-50x (benchmarks/unique_rows.py).

    ``codes`` may be int8, int16 or int32 (narrow codes are keyed without an int32 copy; any other integer dtype is
    converted to int32). The distinct rows come back as int32 unless ``keep_dtype=True``, which keeps the input's
    dtype (int8 / int16 / int32): for callers that pass the rows only to fused kernels (the persisted partitions
    of ``pgmpy_ext.dask``); everything else wants int32 rows it may do arithmetic on. ``return_inverse=False``
    skips the row-to-distinct-row map (``inverse`` is then ``None``): merges of distinct rows do not need it.

    Examples
    --------
    >>> import numpy as np
    >>> u = unique_rows(np.array([[1, 0], [0, 1], [1, 0]], dtype=np.int32), np.array([2, 2]))
    >>> u.codes.tolist(), u.counts.tolist(), u.inverse.tolist()
    ([[0, 1], [1, 0]], [1.0, 2.0], [1, 0, 1])
    """
    codes = kernel_codes(codes)
    cards = np.asarray(cards, dtype=np.intp)
    n = codes.shape[0]
    if codes.ndim != 2 or cards.shape[0] != codes.shape[1]:
        raise ValueError(f"codes must be (n_rows, n_cols) with one cardinality per column; got {codes.shape} "
                         f"and {cards.shape[0]} cardinalities.")
    if n == 0:
        return UniqueRows(codes.copy() if keep_dtype else codes.astype(np.int32), np.zeros(0),
                          np.zeros(0, dtype=np.intp) if return_inverse else None)
    w = _EMPTY_WEIGHTS if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape[0] not in (0, n):
        raise ValueError(f"weights has {w.shape[0]} entries for {n} rows.")
    inverse = np.empty(n if return_inverse else 0, dtype=np.intp)
    first, counts, words = _counting.group_rows(codes, cards, key_words(cards), w, inverse)
    if words.shape[1] == 1:
        order = np.argsort(words[:, 0])  # the keys are distinct: any sort gives the same order
    else:
        order = np.lexsort(words.T[::-1])  # lexsort's last key is the primary one: word 0
    first = first[order]
    counts = counts[order]
    if return_inverse:
        rank = np.empty(order.shape[0], dtype=np.intp)
        rank[order] = np.arange(order.shape[0], dtype=np.intp)
        inverse = rank[inverse]
    else:
        inverse = None
    ucodes = codes[first] if keep_dtype else codes[first].astype(np.int32, copy=False)
    return UniqueRows(ucodes, counts, inverse)


def merge_unique_rows(parts: Sequence[tuple[np.ndarray, np.ndarray]],
                      cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of several :func:`unique_rows` results, multiplicities summed: a k-way merge of sorted runs.

    ``parts`` is a sequence of ``(codes, counts)``, each ``codes`` distinct rows in lexicographic order (-1 first)
    as :func:`unique_rows` returns them (int8 / int16 / int32; parts of different dtypes are concatenated in the
    widest, which the result keeps). Returns ``(codes, counts)`` in the same order: what ``unique_rows`` of the
    concatenated parts with ``weights`` = the concatenated counts returns, bit for bit (a row's counts are added in
    part order), without a hash table or a sort (the kernel ``merge_sorted_runs``). A part that is not strictly
    increasing raises ValueError.

    Examples
    --------
    >>> import numpy as np
    >>> a = (np.array([[0, 1], [1, 0]], dtype=np.int8), np.array([1.0, 2.0]))
    >>> b = (np.array([[0, 0], [1, 0]], dtype=np.int8), np.array([5.0, 1.0]))
    >>> codes, counts = merge_unique_rows([a, b], np.array([2, 2]))
    >>> codes.tolist(), counts.tolist()
    ([[0, 0], [0, 1], [1, 0]], [5.0, 1.0, 3.0])
    """
    cards = np.asarray(cards, dtype=np.intp)
    codes = np.concatenate([p[0] for p in parts], axis=0)
    codes = kernel_codes(codes)
    counts = np.ascontiguousarray(np.concatenate([p[1] for p in parts]), dtype=np.float64)
    run_ptr = np.zeros(len(parts) + 1, dtype=np.intp)
    np.cumsum([p[0].shape[0] for p in parts], out=run_ptr[1:])
    if codes.ndim != 2 or cards.shape[0] != codes.shape[1]:
        raise ValueError(f"codes must be (n_rows, n_cols) with one cardinality per column; got {codes.shape} "
                         f"and {cards.shape[0]} cardinalities.")
    take, out = _counting.merge_sorted_runs(codes, cards, key_words(cards), run_ptr, counts)
    return codes[take], out


def unique_row_words(codes: np.ndarray, cards: np.ndarray,
                     weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows as their key words: ``(words, counts)``, the :func:`unique_rows` of ``codes`` without the
    code rows.

    ``words`` is int64 ``(n_distinct, n_words)``, the ``row_keys_multi`` words of every distinct row (see
    :func:`key_words`), increasing in the order of the word tuples, which is the lexicographic order of the codes
    (-1 first); ``counts`` are the summed weights, as :func:`unique_rows` returns them, bit for bit. A few words
    per row instead of one code per column: merges of distinct rows (:func:`merge_row_words`) compare and move
    only the words, and the code rows are decoded once at the end (:func:`decode_row_words`).
    """
    codes = kernel_codes(codes)
    cards = np.asarray(cards, dtype=np.intp)
    if codes.ndim != 2 or cards.shape[0] != codes.shape[1]:
        raise ValueError(f"codes must be (n_rows, n_cols) with one cardinality per column; got {codes.shape} "
                         f"and {cards.shape[0]} cardinalities.")
    n = codes.shape[0]
    w = _EMPTY_WEIGHTS if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape[0] not in (0, n):
        raise ValueError(f"weights has {w.shape[0]} entries for {n} rows.")
    word_ptr = key_words(cards)
    if n == 0:
        return np.zeros((0, word_ptr.shape[0] - 1), dtype=np.int64), np.zeros(0)
    _, counts, words = _counting.group_rows(codes, cards, word_ptr, w, np.empty(0, dtype=np.intp))
    order = np.argsort(words[:, 0]) if words.shape[1] == 1 else np.lexsort(words.T[::-1])
    return words[order], counts[order]


def merge_row_words(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of several :func:`unique_row_words` results, multiplicities summed in part order: a k-way
    merge of the sorted word runs (kernel ``merge_sorted_words``), the word form of :func:`merge_unique_rows`
    (same rows, same counts, bit for bit). A part that is not strictly increasing raises ValueError."""
    if not parts:
        raise ValueError("merge_row_words needs at least one part.")
    words = np.ascontiguousarray(np.concatenate([p[0] for p in parts], axis=0), dtype=np.int64)
    counts = np.ascontiguousarray(np.concatenate([p[1] for p in parts]), dtype=np.float64)
    run_ptr = np.zeros(len(parts) + 1, dtype=np.intp)
    np.cumsum([p[0].shape[0] for p in parts], out=run_ptr[1:])
    return _counting.merge_sorted_words(words, run_ptr, counts)


#: Largest lookup table of a decoding chunk (digits of a few columns, see :func:`decode_row_words`).
_DECODE_CHUNK = 4096


def _decode_plan(cards: np.ndarray) -> tuple:
    """Chunks of :func:`decode_row_words`: per key word, runs of its columns from the last to the first whose
    product of ``card + 1`` stays within ``_DECODE_CHUNK`` (at least one column each), with their lookup tables."""
    word_ptr = key_words(cards)
    words, cols, ncols, radix, tptr, tables = [], [], [], [], [], []
    offset = 0
    for w in range(word_ptr.shape[0] - 1):
        end = int(word_ptr[w + 1])
        while end > int(word_ptr[w]):
            start, size = end - 1, int(cards[end - 1]) + 1
            while start > int(word_ptr[w]) and size * (int(cards[start - 1]) + 1) <= _DECODE_CHUNK:
                start -= 1
                size *= int(cards[start]) + 1
            sub = np.asarray(cards[start:end], dtype=np.intp) + 1
            digits = np.stack(np.unravel_index(np.arange(size), tuple(sub)), axis=1) - 1  # C order: first column major
            words.append(w)
            cols.append(start)
            ncols.append(end - start)
            radix.append(size)
            tptr.append(offset)
            tables.append(digits.astype(np.int32).ravel())
            offset += digits.size
            end = start
    ip = np.intp
    table = np.concatenate(tables) if tables else np.zeros(0, dtype=np.int32)
    return (np.asarray(words, dtype=ip), np.asarray(cols, dtype=ip), np.asarray(ncols, dtype=ip),
            np.asarray(radix, dtype=np.int64), np.asarray(tptr, dtype=ip), np.ascontiguousarray(table, dtype=np.int32))


def decode_row_words(words: np.ndarray, cards: np.ndarray, dtype=np.int32, *,
                     n_jobs: int | None = 1) -> tuple[np.ndarray, bool]:
    """The code rows of :func:`unique_row_words` words (the inverse of the keying), as ``dtype`` (int8, int16 or
    int32; it must hold every ``cards - 1``), and whether any cell is missing (-1). One division per chunk of
    columns whose digits fit a small lookup table, not one per column; ``n_jobs`` threads over the rows."""
    cards = np.asarray(cards, dtype=np.intp)
    words = np.ascontiguousarray(words, dtype=np.int64)
    out = np.empty((words.shape[0], cards.shape[0]), dtype=dtype)
    n_missing = _counting.words_to_codes(words, *_decode_plan(cards), out,
                                         threads_for_rows(n_jobs, words.shape[0]))
    return out, bool(n_missing)
