"""New data encoded column by column with fitted states, for the predict path: one 1-D code array per column.

:meth:`EncodedData.column_codes` is what a fitted learner calls on the data it predicts: it gives the codes the
column kernel (``pgmpy_ext.stats.log_joint_columns``) reads, without building a code matrix. Where the dtype allows
it nothing is copied: a pandas Categorical whose categories are the fitted states in their order (a frame
from the same source as the training frame, a discretiser's output) gives its own codes, read-only, as they are.
Other categorical columns are recoded through a lookup table over their categories, plain integer columns through
a lookup table over their value range, and everything else (strings, objects, floats, booleans, nullable types)
through the general encoder. Missing cells and unseen values are found on the way (a reduction per column, no
n-row temporary where no value needs changing), and the share of unseen values of every column is counted, so
that a column that arrives in another type than at fit (an int column read as strings) is reported, not silently
summed out.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["ColumnCodes", "UnseenValuesWarning", "MissingValueError", "column_arrays", "category_codes",
           "frame_from_arrays", "UNSEEN_WARN_SHARE", "warn_mostly_unseen"]

#: A column whose share of values unseen at fit exceeds this (and that has at least one) gets an
#: :class:`UnseenValuesWarning` at predict time: most of that feature is then summed out of the model, which is the
#: typical sign of a type change (an int column at fit arriving as strings) or a misread file.
UNSEEN_WARN_SHARE = 0.5


class UnseenValuesWarning(UserWarning):
    """Most values of a column at predict time were not seen during fit (they are treated as missing)."""


class MissingValueError(ValueError):
    """A missing cell refused under ``missing="error"``; ``column`` and ``row`` (the row label) say where, so a
    learner can re-raise it naming its own options."""

    def __init__(self, message: str, column, row):
        super().__init__(message)
        self.column = column
        self.row = row


def category_codes(arr: pd.Categorical, *, readonly: bool = False) -> np.ndarray:
    """The codes of a Categorical, uncopied: its own array (``Categorical._codes``, 0.1 microseconds) where pandas
    has it, else the public ``codes`` (a read-only view, 2-3 microseconds: 20 ms over 7,000 columns). Callers only
    read them; ``readonly=True`` returns a read-only view (for arrays handed out)."""
    codes = getattr(arr, "_codes", None)
    if not isinstance(codes, np.ndarray):
        return arr.codes
    if readonly and codes.flags.writeable:
        codes = codes.view()
        codes.flags.writeable = False
    return codes


def column_arrays(df: pd.DataFrame, positions: Sequence[int] | None = None) -> list:
    """The 1-D arrays behind the columns of ``df`` at ``positions`` (default: all), without copies: an ndarray for a
    numpy dtype, the ExtensionArray (e.g. a ``pandas.Categorical``) otherwise.

    pandas' own column accessor (``DataFrame._get_column_array``, present since pandas 1.x) costs about a
    microsecond per column, where ``df.iloc[:, k]`` builds a Series (50-100 microseconds in pandas 3): on 7,000
    columns that is the difference between 5 ms and 0.4 s. When that accessor is absent or fails, the public route
    is taken (the same arrays)."""
    if positions is None or len(positions) * 4 >= df.shape[1] > 0:
        arrays = _block_column_arrays(df)
        if arrays is not None:
            return arrays if positions is None else [arrays[k] for k in np.asarray(positions).tolist()]
    positions = range(df.shape[1]) if positions is None else positions
    get = getattr(df, "_get_column_array", None)
    if get is not None:
        try:
            return [get(int(k)) for k in positions]
        except (AttributeError, IndexError, TypeError, ValueError):  # a pandas without the private accessor's contract
            pass
    return _public_column_arrays(df, positions)


def frame_from_arrays(arrays: list, columns: pd.Index, index: pd.Index) -> pd.DataFrame:
    """A new DataFrame whose columns are the 1-D ``arrays`` (numpy arrays or ExtensionArrays), labelled
    ``columns``, rows ``index``: the inverse of :func:`column_arrays`.

    The Categoricals are taken as they are (the frame owns them: the caller must not hand out arrays it shares
    with someone else) and the numpy columns are stacked into one block per dtype (a copy). When every array is a
    ``pandas.Categorical`` or a numeric / bool numpy array, the frame is assembled from pandas' blocks directly
    (one block per Categorical, about 0.4 microseconds each: 3 ms for 7,070 columns, where pandas' array
    constructor takes 11 ms checking and sorting them); otherwise, or with a pandas whose internals differ,
    through pandas' own constructors (the same frame)."""
    if all(type(a) is pd.Categorical or (isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "biuf")
           for a in arrays):
        try:
            return _frame_from_blocks(arrays, columns, index)
        except (ImportError, AttributeError, TypeError, ValueError, AssertionError):
            pass
    build = getattr(pd.DataFrame, "_from_arrays", None)
    if build is not None:
        try:
            return build(arrays, columns=columns, index=index, verify_integrity=False)
        except (TypeError, ValueError):  # another pandas: the public constructor below gives the same frame
            pass
    out = pd.DataFrame(dict(zip(range(len(arrays)), arrays)), index=index, copy=False)
    out.columns = columns
    return out


def _frame_from_blocks(arrays: list, columns: pd.Index, index: pd.Index) -> pd.DataFrame:
    from pandas._libs.internals import BlockPlacement
    from pandas.core.internals.blocks import ExtensionBlock, new_block
    from pandas.core.internals.managers import BlockManager

    n = len(index)
    blocks = []
    groups: dict = {}
    place = _placements(len(arrays), BlockPlacement)
    for j, a in enumerate(arrays):
        if len(a) != n:
            raise ValueError("length mismatch")
        if isinstance(a, np.ndarray):
            groups.setdefault(a.dtype, []).append(j)
        else:
            blocks.append(ExtensionBlock(a, place[j], 2))  # (values, placement, ndim)
    for dtype, pos in groups.items():
        values = np.empty((len(pos), n), dtype=dtype)
        for i, j in enumerate(pos):
            values[i] = arrays[j]
        place = BlockPlacement(slice(pos[0], pos[-1] + 1)) if pos[-1] - pos[0] + 1 == len(pos) else \
            BlockPlacement(np.asarray(pos, dtype=np.intp))
        blocks.append(new_block(values, place, ndim=2))
    mgr = BlockManager(tuple(blocks), [columns, index], verify_integrity=False)
    return pd.DataFrame._from_mgr(mgr, axes=mgr.axes)


def _block_column_arrays(df: pd.DataFrame) -> list | None:
    """Every column's array read from pandas' blocks directly (what ``_get_column_array`` returns, about 0.3
    microseconds per column instead of 1.5: a row view of a 2-D numpy block, a 1-D extension array as it is); None
    when the frame's internals are not the expected ones (then the accessor is used)."""
    mgr = getattr(df, "_mgr", None)
    try:
        blocks = mgr.blocks
        values = [b.values for b in blocks]
        if not all(isinstance(v, np.ndarray) or v.ndim == 1 for v in values):
            return None  # 2-D extension blocks (e.g. datetimes with a time zone): pandas' accessor
        nos, locs = mgr.blknos, mgr.blklocs
        if len(nos) != df.shape[1]:
            return None
        return [v[loc] if isinstance(v, np.ndarray) else v for v, loc in
                zip(map(values.__getitem__, nos.tolist()), locs.tolist())]
    except (AttributeError, TypeError, IndexError):
        return None


_PLACEMENTS: list = []


def _placements(m: int, BlockPlacement) -> list:
    """``[BlockPlacement(slice(j, j + 1)) for j in range(m)]``, kept between calls (a placement is immutable, and
    pandas itself hands one block's placement to another): a wide frame's 7,070 single-column blocks then cost no
    placement objects."""
    global _PLACEMENTS
    if len(_PLACEMENTS) < m:
        _PLACEMENTS = [BlockPlacement(slice(j, j + 1)) for j in range(max(m, 2 * len(_PLACEMENTS)))]
    return _PLACEMENTS


def _public_column_arrays(df: pd.DataFrame, positions) -> list:
    out = []
    for k in positions:
        s = df.iloc[:, int(k)]
        out.append(s.array if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) else s.to_numpy())
    return out


class ColumnCodes:
    """Codes of new data, one 1-D array per column, in a fitted :class:`EncodedData`'s states.

    Attributes
    ----------
    arrays : list of numpy.ndarray
        ``arrays[j]`` (int8, int16 or int32, length ``n_rows``) holds the codes of ``columns[j]``; ``-1`` marks a cell
        to sum out (a missing cell, or a value unseen at fit under ``handle_unknown="ignore"``). May be read-only
        views of the caller's data (pandas category codes): never write into them.
    columns : list
        The column labels.
    index : pandas.Index
        Row labels of the encoded frame (for messages).
    n_unknown : numpy.ndarray of intp, shape (n_columns,)
        Per column, the number of values unseen at fit (coded -1 under ``handle_unknown="ignore"``).
    """

    __slots__ = ("arrays", "columns", "index", "n_unknown")

    def __init__(self, arrays: list, columns: list, index: pd.Index, n_unknown: np.ndarray):
        self.arrays = arrays
        self.columns = columns
        self.index = index
        self.n_unknown = n_unknown

    @property
    def n_rows(self) -> int:
        return int(len(self.index))

    @property
    def n_columns(self) -> int:
        return len(self.arrays)

    def matrix(self, rows=None) -> np.ndarray:
        """The codes as a C-contiguous int32 matrix ``(n_rows, n_columns)``, or of the rows ``rows`` only."""
        n = self.n_rows if rows is None else len(rows)
        out = np.empty((n, len(self.arrays)), dtype=np.int32)
        for j, a in enumerate(self.arrays):
            out[:, j] = a if rows is None else a[rows]
        return out

    def __repr__(self) -> str:
        return f"ColumnCodes(n_rows={self.n_rows}, n_columns={self.n_columns}, unseen={int(self.n_unknown.sum())})"


def _narrowest(card: int) -> np.dtype:
    return np.dtype(np.int8) if card <= 128 else np.dtype(np.int16) if card <= 32768 else np.dtype(np.int32)


def _unseen_warning(col, n_unknown: int, n_rows: int, example, states: list) -> None:
    share = n_unknown / n_rows
    example = _py(example)
    kinds = {type(s).__name__ for s in states}
    hint = ""
    if type(example).__name__ not in kinds:
        was = " / ".join(sorted(kinds))
        hint = (f" At fit the column held {was} values and now it holds {type(example).__name__} values: convert it "
                f"back (e.g. X[{col!r}] = X[{col!r}].astype({was.split(' / ')[0]})) or check how the file was read.")
    known = "[" + ", ".join(repr(v) for v in states[:8]) + (f", ... ({len(states)} states)]" if len(states) > 8
                                                              else "]")
    warnings.warn(f"Column {col!r}: {n_unknown} of {n_rows} rows ({share:.0%}) have values not seen during fit "
                  f"(e.g. {example!r}; known: {known}); they are treated as missing (handle_unknown='ignore'), so "
                  f"this feature is summed out of those rows.{hint}", UnseenValuesWarning, stacklevel=4)


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def warn_mostly_unseen(frame: pd.DataFrame, codes: np.ndarray, columns: Sequence, states: Sequence) -> None:
    """The :class:`UnseenValuesWarning` of :meth:`EncodedData.column_codes` for learners that encode new rows into
    a code matrix (``codes``, ``-1`` for a missing or an ignored unseen cell, columns ``columns`` of ``frame``,
    fitted ``states`` per column): every column where more than ``UNSEEN_WARN_SHARE`` of the rows hold a value
    (not a missing cell) coded ``-1``."""
    n = codes.shape[0]
    if n == 0 or not (codes < 0).any():
        return
    unseen = (codes < 0) & frame[list(columns)].notna().to_numpy()
    counts = unseen.sum(axis=0)
    for j in np.flatnonzero(counts > UNSEEN_WARN_SHARE * n):
        r = int(np.flatnonzero(unseen[:, j])[0])
        _unseen_warning(columns[j], int(counts[j]), n, frame[columns[j]].iloc[r], list(states[j]))


class _Unseen:
    """The first unseen value of a column (for handle_unknown="error") and its count."""

    __slots__ = ("row", "value", "count")

    def __init__(self, row: int, value, count: int):
        self.row, self.value, self.count = row, value, count


def encode_columns(data, df: pd.DataFrame, columns: Sequence, handle_unknown: str, warn_unseen: bool) -> ColumnCodes:
    """See :meth:`EncodedData.column_codes`."""
    from pgmpy_ext.data._encoded import _encode_column, _missing_message, _row_label, state_key

    index = df.index
    n = df.shape[0]
    cache = data.__dict__.setdefault("_column_cache", {})
    columns = list(columns)
    known = cache.get("labels")  # (labels, their Index): the labels asked for last, as an Index
    if known is None or known[0] != columns:
        known = cache["labels"] = (columns, pd.Index(columns, tupleize_cols=False, dtype=object))
    if len(df.columns) == len(columns) and df.columns.equals(known[1]):
        pos = np.arange(len(columns), dtype=np.intp)  # the frame's labels are these labels, in this order
    else:
        pos = df.columns.get_indexer(known[1])
    absent = [c for c, p in zip(columns, pos) if p < 0]
    if absent:
        raise ValueError(f"Columns {absent!r} were present at fit time but are missing from the data.")
    if df.columns.has_duplicates:
        dup = df.columns[df.columns.duplicated()].tolist()
        raise ValueError(f"Column labels must be unique; duplicated: {dup!r}.")
    raw = column_arrays(df, pos)
    sources = data.__dict__.get("_category_dtypes")
    arrays, n_unknown, unseen_of, errors = [], np.zeros(len(columns), dtype=np.intp), {}, {}
    first_missing = None  # (row, j) of the first missing cell in row-major order, under missing="error"
    strict = data.missing == "error"
    ks = [data.index(col) for col in columns]
    # Categoricals carrying the very dtype object the fitted states were read from (the training frame, a
    # discretiser's outputs: thousands of columns) at once: their codes are the state codes, copied into one
    # read-only block (one copy instead of a read-only view per column), missing cells found by one reduction
    ready: dict = {}
    if sources is not None and len(columns) >= _BLOCK_MIN_COLUMNS:
        same = [j for j, (arr, k) in enumerate(zip(raw, ks)) if type(arr) is pd.Categorical and
                arr.dtype is sources[k]]
        try:
            own = [raw[j]._codes for j in same]
        except AttributeError:
            own = []
        by_type: dict = {}
        for j, c in zip(same, own):
            if isinstance(c, np.ndarray) and c.ndim == 1:
                by_type.setdefault(c.dtype, []).append((j, c))
        for members in by_type.values():
            # (numpy's array constructor copies a list of equal-length arrays twice as fast as stack)
            block = np.array([c for _, c in members]) if n else np.empty((len(members), 0), dtype=members[0][1].dtype)
            block.flags.writeable = False
            if strict and n:
                low = block.min(axis=1)
                for i in np.flatnonzero(low < 0).tolist():
                    cand = (int(np.argmax(block[i] < 0)), members[i][0])
                    if first_missing is None or cand < first_missing:
                        first_missing = cand
            ready.update(zip([j for j, _ in members], block))
    arrays = [ready.get(j) for j in range(len(columns))] if ready else [None] * len(columns)
    for j in [j for j, a in enumerate(arrays) if a is None]:
        col = columns[j]
        k = ks[j]
        states = data.states[k]
        arr = raw[j]
        codes, unseen, miss_row = None, None, -1
        if isinstance(arr, pd.Categorical):
            codes, unseen, miss_row = _categorical(arr, k, states, cache, strict, state_key,
                                                   sources[k] if sources is not None else None)
        elif isinstance(arr, np.ndarray) and arr.ndim == 1 and (arr.dtype.kind == "i" or (
                arr.dtype.kind == "u" and arr.dtype.itemsize < 8)):
            codes, unseen = _integers(arr, k, states, cache, state_key)
        if codes is None:  # the general (hash-based) encoder: strings, objects, floats, booleans, nullable types
            series = pd.Series(arr, index=index, copy=False)
            try:
                codes = np.asarray(_encode_column(col, series, states, "skip", index, None, "ignore")[0])
            except (ValueError, TypeError) as err:
                # raised after every column was read: a missing cell anywhere (missing="error") comes first
                errors.setdefault(j, err)
                if strict:
                    na = np.asarray(series.isna())
                    if na.any() and (first_missing is None or (int(np.flatnonzero(na)[0]), j) < first_missing):
                        first_missing = (int(np.flatnonzero(na)[0]), j)
                continue
            bad = codes < 0
            if bad.any():
                na = np.asarray(series.isna())
                if strict and na.any():
                    miss_row = int(np.flatnonzero(na)[0])
                unseen_rows = np.flatnonzero(bad & ~na)
                if unseen_rows.size:
                    r = int(unseen_rows[0])
                    unseen = _Unseen(r, series.iloc[r], int(unseen_rows.size))
            codes = codes.astype(_narrowest(len(states)), copy=False)
        if miss_row >= 0 and (first_missing is None or (miss_row, j) < first_missing):
            first_missing = (miss_row, j)
        if unseen is not None:
            n_unknown[j] = unseen.count
            unseen_of[j] = unseen
        arrays[j] = codes
    if first_missing is not None:
        r, j = first_missing
        label = _row_label(index, r)
        raise MissingValueError(_missing_message(columns[j], label, "NaN/None"), columns[j], label)
    if handle_unknown == "error" and unseen_of and (not errors or min(unseen_of) < min(errors)):
        j = min(unseen_of)
        u = unseen_of[j]
        st = data.states[data.index(columns[j])]
        raise ValueError(f"Column {columns[j]!r} has value {_py(u.value)!r} at row {_row_label(index, u.row)!r} that "
                         f"was not seen during fit (known: {st!r}). Pass handle_unknown='ignore' to treat such values "
                         "as missing observations.")
    if errors:
        raise errors[min(errors)]
    if warn_unseen and n:
        for j, u in unseen_of.items():
            if u.count > UNSEEN_WARN_SHARE * n:
                _unseen_warning(columns[j], u.count, n, u.value, data.states[data.index(columns[j])])
    return ColumnCodes(arrays, list(columns), index, n_unknown)


#: From this many columns, :func:`encode_columns` reads the Categoricals of the fitted dtypes as one block.
_BLOCK_MIN_COLUMNS = 64


def _categorical(arr: pd.Categorical, k: int, states: list, cache: dict, strict: bool, state_key, source=None):
    """(codes, unseen or None, first missing row or -1) of a Categorical column. ``source``: the dtype the fitted
    states were read from (the same object: the categories are the states, nothing to compare)."""
    dtype = arr.dtype
    key = (k, id(dtype))
    hit = cache.get(key)
    if dtype is source:
        hit = (dtype, None)
    elif hit is None or hit[0] is not dtype:
        lookup = {state_key(s): i for i, s in enumerate(states)}
        lut = np.array([lookup.get(state_key(_py(c)), -1) for c in dtype.categories.tolist()], dtype=np.intp)
        identity = bool(np.array_equal(lut, np.arange(lut.shape[0])))
        hit = (dtype, None if identity else lut)
        if len(cache) > 4096:
            cache.clear()
        cache[key] = hit
    lut = hit[1]
    cat_codes = category_codes(arr, readonly=True)  # the Categorical's codes (int8 up to 127 categories), uncopied
    miss_row = -1
    if lut is None:  # categories are the fitted states in their order: the codes are the state codes
        if strict and cat_codes.shape[0] and cat_codes.min() < 0:
            miss_row = int(np.flatnonzero(cat_codes < 0)[0])
        return cat_codes, None, miss_row
    card = len(states)
    ext = np.empty(lut.shape[0] + 1, dtype=_narrowest(card))
    ext[0] = -1  # a missing cell (category code -1)
    ext[1:] = lut
    codes = ext[cat_codes.astype(np.intp) + 1] if cat_codes.shape[0] else ext[:0]
    unseen = None
    unknown_cats = np.flatnonzero(lut < 0)
    if unknown_cats.size or strict:
        counts = np.bincount(cat_codes.astype(np.intp) + 1, minlength=lut.shape[0] + 1)
        if strict and counts[0]:
            miss_row = int(np.flatnonzero(cat_codes < 0)[0])
        n_unseen = int(counts[unknown_cats + 1].sum())
        if n_unseen:
            r = int(np.flatnonzero(np.isin(cat_codes, unknown_cats))[0])
            unseen = _Unseen(r, dtype.categories[cat_codes[r]], n_unseen)
    return codes, unseen, miss_row


def _integers(values: np.ndarray, k: int, states: list, cache: dict, state_key):
    """(codes, unseen or None) of a plain integer column through a lookup table over the states' integer range;
    (None, None) when the states hold no integer or their range is too wide for a table."""
    key = (k, "int")
    hit = cache.get(key)
    if hit is None:
        ints = {}
        for i, s in enumerate(states):
            sk = state_key(s)
            if sk[0] == "num" and isinstance(sk[1], int):
                ints.setdefault(sk[1], i)
        if not ints:
            hit = (None,)
        else:
            lo, hi = min(ints), max(ints)
            if hi - lo + 1 > max(4 * len(states), 1 << 16):
                hit = (None,)
            else:
                lut = np.full(hi - lo + 3, -1, dtype=_narrowest(len(states)))  # sentinels below lo and above hi
                for v, i in ints.items():
                    lut[v - lo + 1] = i
                hit = (lut, lo, hi, bool((lut[1:-1] >= 0).all()))
        cache[key] = hit
    if hit[0] is None:
        return None, None
    lut, lo, hi, dense = hit
    n = values.shape[0]
    if n == 0:
        return lut[:0], None
    vmin, vmax = int(values.min()), int(values.max())
    inside = lo <= vmin and vmax <= hi
    wide = values if values.dtype == np.int64 else values.astype(np.int64)  # offsets never overflow a narrow type
    if inside:
        codes = lut[wide - (lo - 1) if lo != 1 else wide]
    else:
        codes = lut[np.clip(wide, lo - 1, hi + 1) - (lo - 1)]
    if dense and inside:
        return codes, None
    bad = np.flatnonzero(codes < 0)
    if not bad.size:
        return codes, None
    return codes, _Unseen(int(bad[0]), values[int(bad[0])], int(bad.size))
