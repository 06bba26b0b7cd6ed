"""Module-level task functions run on Dask workers (or in threads): one partition in, a small table out.

They import only numpy, pandas and pgmpy-ext's lowest layers (``pgmpy_ext.data``, ``pgmpy_ext.stats``), never
pgmpy, scikit-learn or dask, so a worker that runs them loads the kernels in milliseconds (design note
scale-out.md §5.1). Any engine that can call a Python function on a pandas partition (Dask here; a Spark
``mapInArrow`` or Ray adapter later) can reuse them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pgmpy_ext.data import EncodedData, codes_dtype_for, column_kind, encode, int32_codes, state_key, to_python
from pgmpy_ext.stats import (
    family_counts_many,
    key_words,
    latent_class_estep,
    latent_class_mixture_log_joint,
    log_joint_batch,
    log_joint_marginal,
    merge_row_words,
    merge_unique_rows,
    pairwise_counts,
    rows_with_missing,
    unique_row_words,
    unique_rows,
)
from pgmpy_ext.utils import LOG_TINY, log_normalize_rows, logsumexp_rows

__all__ = ["EncodedPart", "SPLIT_EVERY", "add_tables", "count_families", "count_pairs", "distinct_rows",
           "distinct_words", "merge_words", "split_words", "word_bucket_lead", "word_bucket_divisor",
           "encode_partition", "log_joint_partition", "take_classes", "merge_distinct", "merge_scans",
           "scan_partition",
           "tree_order", "distinct_part", "part_rows", "merge_parts", "coalesce_plan",
           "estep_partition", "add_esteps", "gains_partition",
           "posterior_range_partition", "merge_posterior_ranges", "mixture_loglik_partition"]

#: Tables are summed in groups of this many consecutive partitions (``parts[i:i + 8]``), level by level.
SPLIT_EVERY = 8


class EncodedPart:
    """One encoded partition: codes (n_rows, n_cols) and optional float64 ``weights`` (n_rows,).

    The codes are stored narrow (int8 / int16, ``encode(..., codes_dtype="auto")``, the default of
    :func:`pgmpy_ext.dask.encode`) or int32. As in :class:`~pgmpy_ext.data.EncodedData`, ``codes`` is always int32
    (a copy when stored narrow) and ``kernel_codes`` is the stored array, for the fused kernels only."""

    __slots__ = ("kernel_codes", "weights")

    def __init__(self, codes: np.ndarray, weights: np.ndarray | None):
        self.kernel_codes = codes
        self.weights = weights

    @property
    def codes(self) -> np.ndarray:
        """The codes as int32 (the stored array when it is int32, else a read-only copy)."""
        return int32_codes(self.kernel_codes)

    def data(self, columns: Sequence, states: Sequence, missing: str) -> EncodedData:
        """An :class:`~pgmpy_ext.data.EncodedData` view of the part (same codes dtype, no copy)."""
        return EncodedData(self.kernel_codes, columns, states, weights=self.weights, missing=missing)


def scan_partition(pdf: pd.DataFrame, columns: Sequence) -> dict:
    """``{column: ({kind}, {state_key: value})}`` of one partition: its distinct non-missing values as Python
    scalars (for a categorical: the observed values, not unused categories)."""
    out = {}
    for col in columns:
        series = pdf[col]
        values = pd.unique(series.dropna().astype(object).to_numpy())
        seen: dict = {}
        for v in values:
            v = to_python(v)
            seen.setdefault(state_key(v), v)
        out[col] = ({column_kind(col, series)}, seen)
    return out


def merge_scans(*scans: dict) -> dict:
    """Union of scans, in the given (partition) order: among values that compare equal the first seen wins, as in
    ``encode``."""
    out: dict = {}
    for scan in scans:
        for col, (kinds, seen) in scan.items():
            kinds_out, seen_out = out.setdefault(col, (set(), {}))
            kinds_out.update(kinds)
            for key, v in seen.items():
                seen_out.setdefault(key, v)
    return out


def encode_partition(pdf: pd.DataFrame, columns: Sequence, states: dict, missing: str, partition: int,
                     weight_column=None, target=None, codes_dtype="int32") -> EncodedPart:
    """Encode one partition by value against the declared ``states`` (never trusting per-partition category
    codes). ``target`` is an optional Series (the class, same partition of the same frame) appended as the last
    column. ``codes_dtype`` as in :func:`pgmpy_ext.data.encode`; the states are global, so every partition gets
    the same dtype. Errors name the partition."""
    if target is not None:
        pdf = pd.concat([pdf, target.rename(columns[-1])], axis=1)
    weights = None
    if weight_column is not None:
        weights = pdf[weight_column].to_numpy(dtype=np.float64)
    if pdf.shape[0] == 0:
        dtype = codes_dtype_for([len(states[c]) for c in columns], codes_dtype)
        return EncodedPart(np.zeros((0, len(columns)), dtype=dtype), None if weights is None else weights)
    try:
        data = encode(pdf[list(columns)], states=states, weights=weights, missing=missing, max_numeric_states=None,
                      codes_dtype=codes_dtype)
    except (ValueError, TypeError) as err:
        msg = str(err).replace("that was not seen during fit", "that is not among the declared or scanned states")
        raise type(err)(f"In partition {partition} of the dask DataFrame: {msg}") from None
    return EncodedPart(data.kernel_codes, data.weights)


def count_families(part: EncodedPart, columns, states, missing, families) -> np.ndarray:
    """The family tables of one partition, concatenated flat (in ``families`` order)."""
    tables = family_counts_many(part.data(columns, states, missing), families)
    return np.concatenate([t.ravel() for t in tables]) if tables else np.zeros(0)


def count_pairs(part: EncodedPart, columns, states, missing, features, cond, n_jobs: int = 1) -> np.ndarray:
    """The flat pairwise table buffer of one partition (:class:`pgmpy_ext.stats.PairwiseCounts` layout)."""
    return pairwise_counts(part.data(columns, states, missing), features, cond=cond, n_jobs=n_jobs).flat


def add_tables(*tables: np.ndarray) -> np.ndarray:
    """Sum of equally shaped tables, left to right (the fixed order of the tree)."""
    out = tables[0].copy()
    for t in tables[1:]:
        out += t
    return out


def distinct_rows(part: EncodedPart, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows in lexicographic order, their summed weights) of one partition (codes keep their dtype)."""
    u = unique_rows(part.kernel_codes, cards, part.weights, keep_dtype=True, return_inverse=False)
    return u.codes, u.counts


def merge_distinct(cards: np.ndarray, *parts: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of several partitions' distinct rows (each in lexicographic order), multiplicities summed in
    part order: a k-way merge (:func:`pgmpy_ext.stats.merge_unique_rows`; codes keep their dtype, parts of
    different dtypes are concatenated in the widest)."""
    return merge_unique_rows(parts, cards)


def bucket_plan(cards: np.ndarray, target: int) -> int:
    """How many leading columns key the buckets of a range-partitioned merge of distinct rows: the fewest whose
    product of ``card + 1`` (missing cells, -1, are a value too) reaches ``target`` buckets, capped at 4 * target
    buckets (0 when even one column has more, i.e. no bucketing)."""
    size, lead = 1, 0
    for c in cards:
        if size >= target or size * (int(c) + 1) > 4 * target:
            break
        size *= int(c) + 1
        lead += 1
    return lead if size > 1 else 0


def distinct_words(part: EncodedPart, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(key words of the distinct rows, increasing; their summed weights) of one partition
    (:func:`pgmpy_ext.stats.unique_row_words`): what :func:`pgmpy_ext.dask.compress` merges."""
    return unique_row_words(part.kernel_codes, cards, part.weights)


def merge_words(*parts: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of several partitions' :func:`distinct_words`, multiplicities summed in part order: a k-way
    merge of the sorted words (:func:`pgmpy_ext.stats.merge_row_words`)."""
    return merge_row_words(parts)


def word_bucket_divisor(cards: np.ndarray, lead: int) -> int:
    """What the first key word is divided by to give a row's bucket, the mixed-radix key of its ``lead`` leading
    codes + 1 (nondecreasing along the lexicographic order, so buckets are ranges of it): the product of ``card + 1``
    of the first word's columns after the ``lead`` leading ones (``lead`` must not exceed the first word's
    columns; see :func:`word_bucket_lead`)."""
    end = int(key_words(cards)[1])
    if lead > end:
        raise ValueError(f"lead = {lead} leading columns are not all in the first key word ({end} columns).")
    return int(np.prod(np.asarray(cards[lead:end], dtype=object) + 1)) if end > lead else 1


def word_bucket_lead(cards: np.ndarray, target: int) -> int:
    """:func:`bucket_plan`, capped at the columns of the first key word (the buckets are ranges of that word)."""
    return min(bucket_plan(cards, target), int(key_words(cards)[1]))


def split_words(part: tuple[np.ndarray, np.ndarray], cards: np.ndarray, lead: int) -> tuple:
    """One partition's distinct-row words (increasing) cut into the ranges of every bucket of the ``lead`` leading
    columns (see :func:`word_bucket_divisor`), as a tuple of ``(words, counts)`` pairs indexed by bucket (empty
    pairs for empty buckets)."""
    words, counts = part
    n_buckets = int(np.prod(np.asarray(cards[:lead], dtype=np.intp) + 1))
    ids = words[:, 0] // word_bucket_divisor(cards, lead)
    edges = np.searchsorted(ids, np.arange(n_buckets + 1), side="left")
    return tuple((words[a:b], counts[a:b]) for a, b in zip(edges[:-1], edges[1:]))


def log_joint_partition(pdf: pd.DataFrame, features: Sequence, states: dict, layout, log_cpt: np.ndarray,
                        plan, class_order: np.ndarray, missing: str, handle_unknown: str, normalize: bool,
                        partition_info: dict | None = None) -> np.ndarray:
    """``log p(c, x)`` (or ``log P(c | x)`` with ``normalize``) of one partition's rows, columns in the
    classifier's ``classes_`` order; missing cells (-1) summed out with the forest kernel (``plan``)."""
    n_classes = class_order.shape[0]
    partition = None if partition_info is None else partition_info.get("number")
    if pdf.shape[0] == 0:
        return np.zeros((0, n_classes))
    try:
        data = encode(pdf[list(features)], states=states, missing=missing, max_numeric_states=None,
                      handle_unknown=handle_unknown)
    except (ValueError, TypeError) as err:
        raise type(err)(f"In partition {partition} of the dask DataFrame: {err}") from None
    codes = data.codes
    if plan is not None and rows_with_missing(codes, np.arange(codes.shape[1])).size:
        lj = log_joint_marginal(layout, log_cpt, codes, plan=plan)
    else:
        lj = log_joint_batch(layout, log_cpt, codes)
    lj = lj[:, class_order]
    return log_normalize_rows(lj, floor=LOG_TINY) if normalize else lj


def take_classes(index: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``classes[index]`` (the labels of argmax indices, one block at a time)."""
    return classes[index]


def tree_order(n: int, split_every: int = SPLIT_EVERY) -> list[list[list[int]]]:
    """The fixed reduction tree over ``n`` leaves: per level, the groups of consecutive indices summed together.

    >>> tree_order(10, 4)
    [[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]], [[0, 1, 2]]]
    """
    levels = []
    while n > 1:
        groups = [list(range(i, min(i + split_every, n))) for i in range(0, n, split_every)]
        levels.append(groups)
        n = len(groups)
    return levels


def distinct_part(part: EncodedPart, cards: np.ndarray) -> EncodedPart:
    """One partition's distinct rows with their multiplicities as its weights (what EM iterates over); the codes
    keep their (narrow) dtype."""
    return EncodedPart(*distinct_rows(part, cards))


def part_rows(part: EncodedPart) -> int:
    """Number of rows of a part."""
    return int(part.kernel_codes.shape[0])


def merge_parts(cards: np.ndarray, *parts: EncodedPart) -> EncodedPart:
    """Consecutive :func:`distinct_part` parts merged into one (distinct rows of their union, weights summed in part
    order; a k-way merge, see :func:`merge_distinct`)."""
    codes, counts = merge_distinct(cards, *((p.kernel_codes, p.weights) for p in parts))
    return EncodedPart(codes, counts)


def coalesce_plan(sizes: Sequence[int], part_rows: int, multiple: int) -> list[list[int]]:
    """Groups of consecutive indices whose ``sizes`` sum to about equal shares: ``multiple * max(1,
    round(total / (multiple * part_rows)))`` groups (fewer when there are fewer items), each cut where the
    cumulative size is closest to a multiple of ``total / n_groups`` (a tie keeps the shorter group). Depends only
    on the sizes, never on the cluster.

    >>> coalesce_plan([5, 5, 5, 5, 0, 5, 5, 5], 10, 2)
    [[0, 1], [2], [3, 4, 5], [6, 7]]
    """
    n = len(sizes)
    if n == 0:
        return []
    total = float(sum(sizes))
    n_groups = min(n, multiple * max(1, round(total / (multiple * part_rows))))
    cum = np.cumsum(sizes, dtype=np.float64)
    cuts = [0]
    for j in range(1, n_groups):
        share = total * j / n_groups
        cut = int(np.searchsorted(cum, share, side="left"))  # cum[cut] >= share: end after item cut - 1 or cut
        if cut < n and (cut == 0 or cum[cut] - share < share - cum[cut - 1]):
            cut += 1
        cuts.append(min(max(cut, cuts[-1] + 1), n - (n_groups - j)))
    cuts.append(n)
    return [list(range(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]


def estep_partition(part: EncodedPart, layout, log_theta, log_prior, theta, missing: str) -> tuple:
    """Latent-class E step of one partition: ``(loglik, counts (R, K), cluster_counts (K,), n_zero)``."""
    res = latent_class_estep(layout, part.kernel_codes, part.weights, log_theta, log_prior, theta=theta,
                             missing=missing, check=False)
    return res.loglik, res.counts, res.cluster_counts, res.n_zero


def add_esteps(*parts: tuple) -> tuple:
    """Sum of E-step results, left to right."""
    ll, counts, nc, nz = parts[0][0], parts[0][1].copy(), parts[0][2].copy(), parts[0][3]
    for p in parts[1:]:
        ll += p[0]
        counts += p[1]
        nc += p[2]
        nz += p[3]
    return ll, counts, nc, nz


# ------------------------------------------------------------------ latent-class passes besides the E step
def _posteriors(part: EncodedPart, layout, log_theta, log_prior) -> np.ndarray:
    return latent_class_estep(layout, part.kernel_codes, part.weights, log_theta, log_prior, return_resp=True,
                              counts=False, check=False).resp


def gains_partition(part: EncodedPart, layout, log_params: Sequence) -> np.ndarray:
    """``sum_d w_d q^ref_dj q^m_dk`` of one partition, shape (M, K, K): the reference is ``log_params[0]``, the
    M others follow (the label-alignment gains of multi-start averaging)."""
    K = layout.n_clusters
    if part.kernel_codes.shape[0] == 0:
        return np.zeros((len(log_params) - 1, K, K))
    resps = [_posteriors(part, layout, lt, lp) for lt, lp in log_params]
    ref = (resps[0] * part.weights[:, None]).T
    return np.stack([ref @ r for r in resps[1:]])


def posterior_range_partition(part: EncodedPart, layout, log_theta, log_prior) -> tuple | None:
    """``(first row's codes, its posteriors, smallest and largest posterior of every cluster)`` of one partition
    of distinct rows (in lexicographic order); None for an empty partition."""
    if part.kernel_codes.shape[0] == 0:
        return None
    resp = _posteriors(part, layout, log_theta, log_prior)
    return part.kernel_codes[0].astype(np.int32), resp[0].copy(), resp.min(axis=0), resp.max(axis=0)


def merge_posterior_ranges(*ranges) -> tuple | None:
    """The lexicographically first row of all partitions with its posteriors; elementwise min and max."""
    ranges = [r for r in ranges if r is not None]
    if not ranges:
        return None
    first = min(ranges, key=lambda r: tuple(r[0].tolist()))
    return (first[0], first[1], np.min(np.stack([r[2] for r in ranges]), axis=0),
            np.max(np.stack([r[3] for r in ranges]), axis=0))


def mixture_loglik_partition(part: EncodedPart, layout, components) -> np.ndarray:
    """``sum_d w_d log sum_j sum_m mix_m p_m(x_d, j)`` of one partition, as a (1,) array (a mixture of joints)."""
    if part.kernel_codes.shape[0] == 0:
        return np.zeros(1)
    lj = latent_class_mixture_log_joint(layout, part.kernel_codes, components)
    return np.array([float(part.weights @ logsumexp_rows(lj))])
