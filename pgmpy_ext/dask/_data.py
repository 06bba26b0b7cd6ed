"""Encoding, counting and compression of a dask DataFrame against declared states (design note scale-out.md §5).

Every function here builds a graph of the module-level tasks in :mod:`pgmpy_ext.dask._tasks` (one per partition)
and sums their tables in a fixed tree over the partition index (:func:`~pgmpy_ext.dask._tasks.tree_order`,
``split_every=8``), never in completion order: integer counts are then bit-identical to the in-memory kernels on
the whole frame for any partitioning, and float (weighted) counts are bit-identical from run to run.

The graph runs on dask's default scheduler: the ``distributed`` client if one exists (``distributed.get_client``
would find it), else the scheduler configured in ``dask.config`` (threads by default). Nothing takes ``client=``.
dask is imported inside the functions, so ``import pgmpy_ext.dask`` works without it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pgmpy_ext.dask import _tasks
from pgmpy_ext.data import MAX_NUMERIC_STATES, MISSING_POLICIES, EncodedData, codes_dtype_for, to_python
from pgmpy_ext.stats import LatentEStep, PairwiseCounts, decode_row_words, pair_offsets

__all__ = ["DaskEncodedData", "compress", "encode", "family_counts_many", "infer_states", "is_dask_collection",
           "pairwise_counts", "require_dask", "distinct_values", "map_log_joint", "labels_of", "persist_distinct",
           "latent_class_estep"]


def require_dask():
    """``dask`` (and ``dask.dataframe``), or an ImportError saying how to install them."""
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError:
        raise ImportError("pgmpy_ext.dask needs dask: pip install 'pgmpy-ext[dask]' (dask[dataframe] and "
                          "distributed).") from None
    return dask


def is_dask_collection(obj) -> bool:
    """True for a dask DataFrame/Series/Array; never imports dask (False when dask was never imported)."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(obj))


def _compute(obj):
    dask = require_dask()
    return dask.compute(obj)[0]


def _tree(leaves: list, combine, *args):
    """Delayed sum of ``leaves`` in the fixed tree over their index; ``combine(*args, *group)``."""
    dask = require_dask()
    nodes = list(leaves)
    for level in _tasks.tree_order(len(nodes)):
        nodes = [nodes[g[0]] if len(g) == 1 else dask.delayed(combine, pure=True)(*args, *(nodes[i] for i in g))
                 for g in level]
    return nodes[0]


def _sort_states(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


def _scan_help(col) -> str:
    return (f"declare them with states={{{col!r}: [...]}}, or make the column a known categorical "
            f"(ddf[{col!r}] = ddf[{col!r}].astype(pd.CategoricalDtype([...]))), or let pgmpy-ext scan the data once "
            "(scan=True)")


def infer_states(ddf, columns: Sequence | None = None, states: Mapping | None = None, *, scan: bool = True,
                 max_numeric_states: int | None = MAX_NUMERIC_STATES) -> dict:
    """The states of every column of a dask DataFrame, ordered like :func:`pgmpy_ext.data.encode` orders them.

    In this order: ``states[col]`` if declared; the categories of a *known* categorical (its category order, as
    in memory); ``[False, True]`` for bool; else one pass over the data (``scan=True``) collecting the observed
    values, sorted as the in-memory encoder sorts them. Categoricals read from parquet are usually *unknown*
    (each partition may carry its own categories): they are scanned too, and their states are the observed values,
    sorted. The numeric-column rule (``max_numeric_states``) and the float checks of ``encode`` apply to scanned
    columns.

    Raises
    ------
    ValueError
        With ``scan=False``, for a column whose states cannot be known without a pass over the data (the message
        says how to declare them); for a numeric column above ``max_numeric_states``; for a column with no
        observed value.
    """
    dask = require_dask()
    columns = list(ddf.columns if columns is None else columns)
    states = dict(states or {})
    unknown = [c for c in states if c not in columns]
    if unknown:
        raise ValueError(f"states declares columns {unknown!r} that are not in the data (columns: {columns!r}).")
    out, to_scan = {}, []
    meta = ddf._meta
    for col in columns:
        dtype = meta[col].dtype
        if col in states:
            out[col] = [to_python(v) for v in states[col]]
        elif isinstance(dtype, pd.CategoricalDtype) and ddf[col].cat.known:
            out[col] = [to_python(v) for v in dtype.categories]
        elif pd.api.types.is_bool_dtype(dtype):
            out[col] = [False, True]
        else:
            to_scan.append(col)
    if to_scan and not scan:
        col = to_scan[0]
        what = "an unknown categorical" if isinstance(meta[col].dtype, pd.CategoricalDtype) else \
            f"dtype {meta[col].dtype}"
        raise ValueError(f"Column {col!r} has {what} in the dask DataFrame, so its states cannot be known without a "
                         f"pass over the data (scan=False); {_scan_help(col)}.")
    if to_scan:
        leaves = [dask.delayed(_tasks.scan_partition, pure=True)(p, to_scan) for p in ddf[to_scan].to_delayed()]
        merged = _compute(_tree(leaves, _tasks.merge_scans))
        for col in to_scan:
            kinds, seen = merged.get(col, (set(), {}))
            values = list(seen.values())
            if not values:
                raise ValueError(f"Column {col!r} has no observed value (all missing); cannot infer its states; "
                                 f"{_scan_help(col)}.")
            if len(kinds) == 1:
                kind = next(iter(kinds))
            elif kinds <= {"int", "float"}:  # a partition with NaN reads as float: the whole column is float
                kind = "float"
            else:
                kind = "object"
            if kind == "float":
                bad = [v for v in values if not (math.isfinite(v) and v == round(v))]
                if bad:
                    raise ValueError(f"Column {col!r} has float values (e.g. {bad[0]!r}); pgmpy-ext needs discrete "
                                     "columns. Pass a discretiser (e.g. pgmpy_ext.preprocessing), or cast it to "
                                     "category.")
            if kind in ("int", "float") and max_numeric_states is not None and len(values) > max_numeric_states:
                raise ValueError(f"Column {col!r} is numeric with {len(values)} distinct values, more than "
                                 f"max_numeric_states={max_numeric_states}, so pgmpy-ext does not take it as a "
                                 f"categorical variable; discretise it, or {_scan_help(col)}.")
            st = _sort_states(values)
            out[col] = [float(v) for v in st] if kind == "float" else st
    return {col: out[col] for col in columns}


def distinct_values(series) -> list:
    """Distinct non-missing values of a dask Series (one pass), as Python scalars, in no particular order."""
    dask = require_dask()
    name = "__value__"
    leaves = [dask.delayed(_tasks.scan_partition, pure=True)(p, [name]) for p in series.to_frame(name).to_delayed()]
    merged = _compute(_tree(leaves, _tasks.merge_scans))
    return list(merged.get(name, (set(), {}))[1].values())


class DaskEncodedData:
    """A dask DataFrame encoded lazily against known states: the columns, states and cards of
    :class:`~pgmpy_ext.data.EncodedData`, plus one delayed encoded partition per dask partition.

    Build it with :func:`encode`. Nothing is computed until a counting function, :meth:`compress` or
    :meth:`persist` runs.

    Attributes
    ----------
    columns, states, cards, missing : as in :class:`~pgmpy_ext.data.EncodedData`
    parts : list of dask.delayed.Delayed
        The encoded partitions (``_tasks.EncodedPart``: codes, narrow by default, and optional weights), in
        partition order.
    weighted : bool
    """

    def __init__(self, parts: list, columns: list, states: list, missing: str, weighted: bool):
        self.parts = parts
        self.columns = list(columns)
        self.states = [list(s) for s in states]
        self.cards = np.array([len(s) for s in self.states], dtype=np.intp)
        self.missing = missing
        self.weighted = weighted

    @property
    def n_partitions(self) -> int:
        return len(self.parts)

    @property
    def state_names(self) -> dict:
        return dict(zip(self.columns, self.states))

    def _task_args(self):
        return self.columns, self.states, self.missing

    def persist(self) -> DaskEncodedData:
        """The same data with its encoded partitions persisted (on the workers under ``distributed``)."""
        dask = require_dask()
        return DaskEncodedData(list(dask.persist(*self.parts)), self.columns, self.states, self.missing,
                               self.weighted)

    def compress(self, *, n_jobs: int | None = None) -> EncodedData:
        """See :func:`compress`."""
        return compress(self, n_jobs=n_jobs)

    def __repr__(self) -> str:
        return (f"DaskEncodedData(n_partitions={self.n_partitions}, n_cols={len(self.columns)}, "
                f"cards={self.cards.tolist()}, weighted={self.weighted}, missing={self.missing!r})")


def _partition_frames(ddf) -> list:
    return list(ddf.to_delayed())


def encode(ddf, *, states: Mapping | None = None, weights=None, missing: str = "error", scan: bool = True,
           max_numeric_states: int | None = MAX_NUMERIC_STATES, target=None,
           target_states: Sequence | None = None, codes_dtype="auto") -> DaskEncodedData:
    """Encode a dask DataFrame lazily, partition by partition, against states known up front.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    states : mapping, optional
        ``{column: [states...]}``, as in :func:`pgmpy_ext.data.encode`. The other columns' states come from
        :func:`infer_states` (known categoricals, bool, else one scan).
    weights : column label, optional
        A column of ``ddf`` holding non-negative row weights (it is not encoded).
    missing : {"error", "skip"}, default "error"
    scan : bool, default True
        Allow one pass over the data for columns whose states are not declared; False raises instead.
    max_numeric_states : int or None, default 50
    target : dask Series, optional
        A column from the same frame (e.g. a classifier's ``y``) appended last; its states are ``target_states``.
    target_states : sequence, optional
    codes_dtype : {"auto", "int32", "int8", "int16"}, default "auto"
        How each encoded partition stores its codes (:func:`pgmpy_ext.data.encode`). ``"auto"``: the narrowest
        signed type the (global) cardinalities allow, int8 up to 128 states per column: a 1M-row alarm partition
        holds 37 MB instead of 148 MB, on the workers and in :func:`persist_distinct`. Results do not depend on it
        (the kernels read every dtype; :func:`compress` returns int32 codes).

    Returns
    -------
    DaskEncodedData

    Notes
    -----
    Each partition is encoded *by value* (never through its own category codes, which may differ from partition
    to partition); an unseen value raises a ValueError naming the column, the value, the row and the partition.
    """
    dask = require_dask()
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing == {missing!r}, must be one of {MISSING_POLICIES}.")
    if weights is not None and weights not in ddf.columns:
        raise ValueError(f"weights must name a column of the dask DataFrame, got {weights!r}.")
    columns = [c for c in ddf.columns if c != weights]
    if not columns:
        raise ValueError("The data has no columns; pgmpy-ext needs at least one discrete column.")
    st = infer_states(ddf[columns], columns, states, scan=scan, max_numeric_states=max_numeric_states)
    all_columns, all_states = list(columns), [st[c] for c in columns]
    frames = _partition_frames(ddf)
    targets = [None] * len(frames)
    if target is not None:
        if target.npartitions != ddf.npartitions:
            raise ValueError(f"y has {target.npartitions} partitions but X has {ddf.npartitions}; pass y as a column "
                             "of the same dask DataFrame (e.g. X = ddf.drop(columns='y'), y = ddf['y']).")
        name = target.name if target.name is not None else "class"
        all_columns.append(name)
        all_states.append(list(target_states))
        targets = list(target.to_delayed())
    state_map = dict(zip(all_columns, all_states))
    codes_dtype = codes_dtype_for([len(s) for s in all_states], codes_dtype).name  # refuse a bad option here
    parts = [dask.delayed(_tasks.encode_partition, pure=True)(f, all_columns, state_map, missing, i, weights, t,
                                                              codes_dtype)
             for i, (f, t) in enumerate(zip(frames, targets))]
    return DaskEncodedData(parts, all_columns, all_states, missing, weights is not None)


def family_counts_many(data: DaskEncodedData, families: Sequence[tuple]) -> list:
    """The tables of :func:`pgmpy_ext.stats.family_counts_many` on the whole dask data: one pass, a per-partition
    kernel, a fixed-tree sum (bit-identical to the in-memory call for unweighted data)."""
    dask = require_dask()
    families = [(c, list(p)) for c, p in families]
    idx = {c: k for k, c in enumerate(data.columns)}
    shapes = [tuple(int(data.cards[idx[v]]) for v in [c, *p]) for c, p in families]
    leaves = [dask.delayed(_tasks.count_families, pure=True)(part, *data._task_args(), families) for part in data.parts]
    flat = _compute(_tree(leaves, _tasks.add_tables))
    out, start = [], 0
    for shape in shapes:
        size = math.prod(shape)
        out.append(flat[start:start + size].reshape(shape))
        start += size
    return out


def pairwise_counts(data: DaskEncodedData, features: Sequence | None = None, cond=None) -> PairwiseCounts:
    """:func:`pgmpy_ext.stats.pairwise_counts` on the whole dask data (one pass, fixed-tree sum)."""
    dask = require_dask()
    if features is None:
        features = [c for c in data.columns if c != cond]
    features = list(features)
    idx = {c: k for k, c in enumerate(data.columns)}
    cards = np.array([data.cards[idx[f]] for f in features], dtype=np.intp)
    ccard = 1 if cond is None else int(data.cards[idx[cond]])
    leaves = [dask.delayed(_tasks.count_pairs, pure=True)(part, *data._task_args(), features, cond)
              for part in data.parts]
    flat = _compute(_tree(leaves, _tasks.add_tables))
    return PairwiseCounts(flat, pair_offsets(cards, ccard), cards, ccard, features)


#: Buckets of the range-partitioned merge of :func:`compress` (about; see ``_tasks.bucket_plan``).
_COMPRESS_BUCKETS = 16


def compress(data: DaskEncodedData, *, n_jobs: int | None = None) -> EncodedData:
    """Distinct rows with their multiplicities, in one pass: a weighted in-memory :class:`EncodedData`.

    Rows come out in lexicographic order of their codes (as :func:`pgmpy_ext.stats.unique_rows`), weights are the
    summed row weights (the number of copies when unweighted). Every learner that accepts row weights then runs
    unchanged in memory: counts of the compressed data equal the counts of the full data exactly (unweighted).
    ``n_jobs``: threads of this process that decode the distinct rows at the end (None = 1; the result does not
    depend on it).
    """
    dask = require_dask()
    # The tasks carry each distinct row as its key words (two int64 on alarm's 37 columns, not 37 codes): a merge
    # compares and moves the words only, and the code rows are decoded once, here, into the int32 result. Moving
    # and re-keying code rows at every merge made compress() 1.44x a counting pass on alarm-50M (goal 1.3x).
    leaves = [dask.delayed(_tasks.distinct_words, pure=True)(part, data.cards) for part in data.parts]
    levels = _tasks.tree_order(len(leaves))
    lead = _tasks.word_bucket_lead(data.cards, _COMPRESS_BUCKETS) if levels else 0
    if lead == 0:
        words, counts = _compute(_tree(leaves, _tasks.merge_words))
    else:
        # The fixed tree over the partition index, with its root cut by key range: below the root, nodes merge
        # whole rows (k-way merges of sorted runs); the root's children are cut into buckets by the key of the
        # leading columns and every bucket gets its own root merge, so no worker holds all the distinct rows (one
        # root held alarm-50M's 4 M rows and a 1.5 GiB worker died). Buckets are ranges of the lexicographic
        # order and each row's multiplicity is summed over the same nodes in the same order as in the single
        # tree, so the result is identical. Only the root's children are split: splitting every partition made
        # partitions x buckets tiny tasks (2,400 for 50 partitions), whose scheduling cost more than the merges.
        n_buckets = int(np.prod(np.asarray(data.cards[:lead], dtype=np.intp) + 1))
        nodes = list(leaves)
        for level in levels[:-1]:
            nodes = [nodes[g[0]] if len(g) == 1 else
                     dask.delayed(_tasks.merge_words, pure=True)(*(nodes[i] for i in g))
                     for g in level]
        splits = [dask.delayed(_tasks.split_words, pure=True, nout=n_buckets)(node, data.cards, lead)
                  for node in nodes]
        buckets = _compute([dask.delayed(_tasks.merge_words, pure=True)(*(sp[b] for sp in splits))
                            for b in range(n_buckets)])
        words = np.concatenate([b[0] for b in buckets], axis=0)
        counts = np.concatenate([b[1] for b in buckets])
    # int32 (small: distinct rows): the in-memory learners read .codes many times, which would copy narrow codes
    codes, any_missing = decode_row_words(words, data.cards, np.int32, n_jobs=n_jobs)
    missing = "skip" if data.missing == "skip" or any_missing else "error"
    return EncodedData(codes, data.columns, data.states, weights=counts, missing=missing, codes_dtype="int32")


def map_log_joint(ddf, features: Sequence, states: Mapping, layout, log_cpt: np.ndarray, plan, class_order,
                  *, missing: str, handle_unknown: str, normalize: bool):
    """``log p(c, x)`` (``normalize=False``) or ``log P(c | x)`` of every row of a dask DataFrame, as a dask Array
    (n_rows, n_classes) computed partition by partition (``map_partitions``).

    The tasks receive the compiled network (a :class:`~pgmpy_ext.stats.NetworkLayout` and its log-CPT vector), the
    states and the class order, never an estimator, so workers do not import pgmpy. Missing cells (-1) are summed
    out with the forest kernel when ``plan`` (:func:`~pgmpy_ext.stats.forest_plan`) is given.
    """
    require_dask()
    return ddf[list(features)].map_partitions(
        _tasks.log_joint_partition, list(features), dict(states), layout, log_cpt, plan, np.asarray(class_order),
        missing, handle_unknown, normalize, meta=np.empty((0, len(class_order))))


def labels_of(log_proba, classes: np.ndarray):
    """The labels of the row-wise argmax of a dask Array of class scores (ties: the first class)."""
    return log_proba.argmax(axis=1).map_blocks(_tasks.take_classes, classes, dtype=classes.dtype)


#: Rows per persisted part of :func:`persist_distinct` (about; the parts come in multiples of _PART_MULTIPLE).
_PART_ROWS = 1_000_000
#: The number of persisted parts is a multiple of this, so 1, 2, 4 or 8 workers hold equal shares.
_PART_MULTIPLE = 8


def _distributed_client():
    """The ``distributed`` client dask's default scheduler runs on, or None (threads, sync or no distributed)."""
    dask = require_dask()
    scheduler = dask.base.get_scheduler()
    owner = getattr(scheduler, "__self__", None)
    distributed = sys.modules.get("distributed")
    if distributed is not None and isinstance(owner, distributed.Client):
        return owner
    return None


def persist_distinct(data: DaskEncodedData, *, part_rows: int | None = None) -> DaskEncodedData:
    """Distinct rows (weights = multiplicities) persisted in about ``part_rows``-row parts: on the workers under
    ``distributed``, in memory otherwise. Iterative learners (latent-class EM) then pass over these parts.

    Every partition is first reduced to its distinct rows; then runs of consecutive partitions are merged (distinct
    rows of their union, a k-way merge) into parts of about equal rows, their number a multiple of 8
    (:func:`~pgmpy_ext.dask._tasks.coalesce_plan`, from the row counts only, so the parts and every sum over them
    are the same on any cluster). Under ``distributed`` the parts are spread round-robin over the workers, as a
    preference the scheduler may override (``allow_other_workers``), never as a requirement that could leave a
    part without a worker. Fewer, bigger parts than
    partitions mean fewer tasks per pass and rows repeated across partitions counted once, and equal shares keep
    both workers of a pass busy to the end (alarm-50M, 50 partitions: the scheduler's own placement left 24 and
    26 parts on two workers).
    """
    dask = require_dask()
    part_rows = _PART_ROWS if part_rows is None else int(part_rows)
    if part_rows < 1:
        raise ValueError(f"part_rows must be a positive number of rows, got {part_rows}.")
    leaves = list(dask.persist(*[dask.delayed(_tasks.distinct_part, pure=True)(p, data.cards) for p in data.parts]))
    sizes = dask.compute(*[dask.delayed(_tasks.part_rows, pure=True)(leaf) for leaf in leaves])
    groups = _tasks.coalesce_plan(sizes, part_rows, _PART_MULTIPLE)
    client = _distributed_client()
    workers = sorted(client.nthreads()) if client is not None else []
    # a one-partition group is the persisted leaf itself, except on a cluster, where it is copied by a task too
    # (a task can be placed; a persisted leaf stays where it was computed)
    parts = [leaves[g[0]] if len(g) == 1 and len(workers) < 2 else
             dask.delayed(_tasks.merge_parts, pure=True)(data.cards, *(leaves[i] for i in g)) for g in groups]
    if len(workers) > 1:
        placed = [None] * len(parts)
        for w, addr in enumerate(workers):
            mine = list(range(w, len(parts), len(workers)))
            for j, part in zip(mine, client.persist([parts[j] for j in mine], workers=[addr],
                                                    allow_other_workers=True)):
                placed[j] = part
        parts = placed
    else:
        parts = list(dask.persist(*parts))
    return DaskEncodedData(parts, data.columns, data.states, data.missing, True)


def latent_class_estep(data: DaskEncodedData, layout, log_theta, log_prior, *, theta=None,
                       missing: str = "impute") -> LatentEStep:
    """:func:`pgmpy_ext.stats.latent_class_estep` over every partition (one map-reduce; fixed tree), without
    posteriors: the log-likelihood, expected counts and cluster counts of the whole data.

    The parameters (kB) travel inside the tasks. Use it on :func:`persist_distinct` data; the in-memory engine
    ``pgmpy_ext.clustering``'s ``latent_class_single_start(..., estep=...)`` runs its EM with it."""
    dask = require_dask()
    args = (layout, np.ascontiguousarray(log_theta), np.ascontiguousarray(log_prior),
            None if theta is None else np.ascontiguousarray(theta), missing)
    leaves = [dask.delayed(_tasks.estep_partition, pure=True)(p, *args) for p in data.parts]
    ll, counts, nc, n_zero = _compute(_tree(leaves, _tasks.add_esteps))
    return LatentEStep(float(ll), counts, nc, None, int(n_zero))
