"""Discretisers with categorical output: the shared base and the unsupervised equal-width / equal-frequency ones.

Every discretiser returns a pandas DataFrame whose discretised columns are pandas Categorical with categories
``0 .. n_bins_[col] - 1``, so every bin is a declared state of the classifier that follows even when a test fold
misses it. The bin labels are integer codes, not intervals: integer states survive BIF/XMLBIF round trips, read
the same in every fold (a fold's interval labels would change with its cut points), and compare as numbers;
``cut_points_`` maps them back to intervals.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.validation import check_array, check_is_fitted

from pgmpy_ext.data import MAX_NUMERIC_STATES, numeric_columns_to_discretize, refuse_dask, validate_frame
from pgmpy_ext.utils import Interval, Options, check_params, without_gc

__all__ = ["EqualFrequencyDiscretizer", "EqualWidthDiscretizer"]

_COLUMN_MODES = (None, "numeric")


def _as_frame(X) -> pd.DataFrame:
    """A DataFrame passes through (never modified); anything else goes through ``check_array`` and gets columns
    ``x0, x1, ...`` (the names ``get_feature_names_out`` gives)."""
    if isinstance(X, pd.DataFrame):
        return X
    arr = check_array(X, dtype=None, accept_sparse=False, ensure_all_finite=False)
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])


def _is_numeric(col: pd.Series) -> bool:
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return False
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return True
    if pd.api.types.is_object_dtype(dtype):  # numpy object arrays: numeric when every non-missing cell is a real number
        vals = col.dropna()
        return len(vals) > 0 and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals)
    return False


def _values(col: pd.Series, name) -> np.ndarray:
    """float64 values of a column to discretise; a missing cell stays NaN (it is passed through as a missing
    category), an infinite value raises naming the column and the row label."""
    x = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isinf(x)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        label = col.index[r]
        label = label.item() if isinstance(label, np.generic) else label  # the user's index label, as Python
        raise ValueError(f"Column {name!r} has an infinite value ({x[r]}) at row {label!r}; a discretiser needs "
                         "finite values. Replace it (e.g. by NaN, a missing value) first.")
    return x


def _has_fraction(col: pd.Series) -> bool:
    """True for a float column with at least one finite value that is not a whole number."""
    if not pd.api.types.is_float_dtype(col.dtype):
        if not pd.api.types.is_object_dtype(col.dtype) or not _is_numeric(col):
            return False
    x = col.to_numpy(dtype=np.float64, na_value=np.nan)
    x = x[np.isfinite(x)]
    return bool(np.any(x != np.round(x)))


class _DiscretizerBase(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform plumbing; subclasses implement ``_fit_cuts(values, y) -> list of cut arrays`` and
    may override ``_select_numeric`` and ``_bin``."""

    _supervised = False
    #: ``_fit_cuts`` returns float64 arrays (nothing to convert)
    _float_cuts = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True  # a missing value is passed through (stays missing)
        tags.target_tags.required = self._supervised
        return tags

    # ------------------------------------------------------------------ column selection
    _parameter_constraints = {"columns": [None, Options("numeric"), "array-like"]}

    def _check_params(self):
        cols = self.columns
        if isinstance(cols, str) and cols not in _COLUMN_MODES:
            raise ValueError(f"columns == {cols!r}, must be None (the columns to discretise, see "
                             "pgmpy_ext.data.numeric_columns_to_discretize), 'numeric', or a list of column labels "
                             f"(write columns=[{cols!r}] for a single column).")
        check_params(self)

    def _select_numeric(self, frame: pd.DataFrame, name) -> bool:
        """Whether ``columns='numeric'`` discretises this numeric column (every one, by default)."""
        return True

    def _selected_columns(self, frame: pd.DataFrame, X) -> list:
        cols = self.columns
        if cols is None:
            # exactly the columns pgmpy_ext.data.encode refuses (floats with fractions, numeric columns with more
            # than MAX_NUMERIC_STATES values), plus object columns of real numbers with fractions (array input
            # of mixed type), so that Pipeline(discretiser, classifier) accepts the data as it is
            sorted_rows: list = []
            refused = set(numeric_columns_to_discretize(frame, MAX_NUMERIC_STATES, sorted_values=sorted_rows))
            # the profile sorted every column's values (one numpy dtype throughout): fit reuses them (below)
            self.__dict__["_profile_rows"] = sorted_rows[0] if sorted_rows else None
            labels = frame.columns.tolist()
            if not any(isinstance(d, np.dtype) and d.kind == "O" for d in _unique_dtypes(frame)):
                return [c for c in labels if c in refused]
            return [c for c, d in zip(labels, frame.dtypes.tolist())
                    if c in refused or (pd.api.types.is_object_dtype(d) and _is_numeric(frame[c])
                                        and _has_fraction(frame[c]))]
        if isinstance(cols, str):  # "numeric"
            return [c for c in frame.columns if _is_numeric(frame[c]) and self._select_numeric(frame, c)]
        if np.isscalar(cols):
            cols = [cols]
        out = []
        for c in cols:
            if c in frame.columns:
                label = c
            elif not isinstance(X, pd.DataFrame) and isinstance(c, numbers.Integral) and 0 <= c < frame.shape[1]:
                label = frame.columns[c]  # array input: integer positions are accepted too
            else:
                raise ValueError(f"columns names {c!r}, which is not a column of X (columns: {list(frame.columns)!r}).")
            if not _is_numeric(frame[label]):
                raise ValueError(f"Column {label!r} has dtype {frame[label].dtype}; only numeric columns can be "
                                 "discretised. Leave it out of columns= (it passes through unchanged).")
            if label in out:
                raise ValueError(f"columns lists {label!r} twice.")
            out.append(label)
        return [c for c in frame.columns if c in out]  # input order

    # ------------------------------------------------------------------ fit / transform
    @without_gc  # thousands of columns create tens of thousands of short-lived objects (pgmpy_ext.utils._gc)
    def fit(self, X, y=None):
        """Learn the cut points of the selected columns on ``X`` (a training fold)."""
        self._check_params()
        refuse_dask(self, X, y, method="fit")
        frame = _as_frame(X)
        if self._supervised and y is None:
            # (sklearn's check_requires_y_none looks for the words "requires y to be passed")
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None; it is "
                             "supervised: call fit(X, y) with the class labels.")
        validate_frame(self, X, reset=True)
        if frame.shape[0] == 0:
            raise ValueError("X has no rows (0 samples); a discretiser needs at least one row.")
        if self._supervised:
            self._check_targets(y, frame.shape[0])
        if frame.columns.has_duplicates:
            dup = frame.columns[frame.columns.duplicated()].tolist()
            raise ValueError(f"Column labels must be unique; duplicated: {dup!r}.")
        self.__dict__.pop("_kbins", None)  # a refit never keeps a previous fit's sklearn discretiser
        self.__dict__.pop("_bin_edges", None)
        try:
            self.columns_ = self._selected_columns(frame, X)
            pos = frame.columns.get_indexer(self.columns_) if self.columns_ else np.empty(0, dtype=np.intp)
            values = _values_block(frame, self.columns_, pos)
            if self.columns_ and np.isnan(values).all(axis=0).any():
                c = self.columns_[int(np.flatnonzero(np.isnan(values).all(axis=0))[0])]
                raise ValueError(f"Column {c!r} has no observed value (all missing); a discretiser cannot cut it.")
            profiled = self.__dict__.get("_profile_rows")
            if profiled is not None:  # these columns' values sorted, as float64 (a monotone conversion: the
                # same order), for _fit_cuts
                self._profile_rows = profiled[pos].astype(np.float64)
            cuts = self._fit_cuts(values, y) if self.columns_ else []
        finally:
            self.__dict__.pop("_profile_rows", None)
        if not self._float_cuts:
            cuts = [np.asarray(c, dtype=np.float64) for c in cuts]
        sizes = [c.size for c in cuts]
        self.cut_points_ = dict(zip(self.columns_, cuts))
        self.n_bins_ = dict(zip(self.columns_, [k + 1 for k in sizes]))
        self._input_columns = frame.columns.tolist()  # (list(Index) iterates an arrow Index label by label)
        for attr in ("_cut_table", "_bin_dtypes", "_n_bins_list", "_positions_of"):
            self.__dict__.pop(attr, None)
        # what every transform needs, prepared here (transform leaves __dict__ unchanged, as scikit-learn checks):
        # one CategoricalDtype object per number of bins, the same in every output (a learner fitted on an earlier
        # output then recognises the columns by identity), the positions of columns_ in the fitted frame's labels
        # and, for wide data, the table of every column's cut points
        self._n_bins_list = [k + 1 for k in sizes]
        self._bin_dtypes = {nb: pd.CategoricalDtype(pd.Index(np.arange(nb, dtype=np.int64)))
                            for nb in sorted(set(self._n_bins_list))}
        if isinstance(X, pd.DataFrame) and not frame.columns.has_duplicates:
            self._positions_of = (frame.columns, pos)
        if len(self.columns_) >= _WIDE_BIN_COLS:  # every column's cut points, a row each, padded with +inf
            size = np.asarray(sizes, dtype=np.intp)
            table = np.full((len(self.columns_), max(int(size.max()), 1)), np.inf)
            if size.sum():
                row = np.repeat(np.arange(size.shape[0]), size)
                start = np.cumsum(size) - size
                table[row, np.arange(row.shape[0]) - start[row]] = np.concatenate(cuts)
            self._cut_table = table
        return self

    def _check_targets(self, y, n_rows: int):
        """Supervised discretisers validate and store the class labels here (called before ``_fit_cuts``)."""
        raise NotImplementedError

    def _fit_cuts(self, values: np.ndarray, y) -> list:
        raise NotImplementedError

    def _bin(self, values: np.ndarray) -> np.ndarray:
        """(n, k) values of ``columns_`` -> (n, k) int bin codes: the number of cut points <= the value; -1 for a
        missing value (NaN). (The transpose of :meth:`_bin_rows`.)"""
        return self._bin_rows(values).T

    def _bin_rows(self, values: np.ndarray, may_be_missing: bool = True) -> np.ndarray:
        """(n, k) values of ``columns_`` -> (k, n) bin codes, one row per column (the layout of the Categoricals
        :func:`_replace_columns` builds): the number of cut points <= the value; -1 for a missing value (NaN).

        Few columns: one ``searchsorted`` per column. Many columns (wide data): all at once, counting, for each
        cut position, the columns whose cut point there is <= the value (one comparison and one add over the
        block per cut position; cut points padded with +inf): the same counts, since the cut points of a column
        increase."""
        n, k = values.shape
        vt = values.T
        if k < _WIDE_BIN_COLS:
            width = max((self.cut_points_[c].size for c in self.columns_), default=0)
            codes = np.empty((k, n), dtype=_code_dtype(width))
            for j, c in enumerate(self.columns_):
                codes[j] = np.searchsorted(self.cut_points_[c], vt[j], side="right")
        else:
            table = self.__dict__.get("_cut_table")
            if table is None:  # (an estimator fitted before fit prepared it)
                width = max((self.cut_points_[c].size for c in self.columns_), default=0)
                table = np.full((k, max(width, 1)), np.inf)
                for j, c in enumerate(self.columns_):
                    cut = self.cut_points_[c]
                    table[j, :cut.size] = cut
            codes = np.zeros((k, n), dtype=_code_dtype(table.shape[1]))
            step = max(1, _WIDE_BIN_CELLS // max(k, 1))  # rows per block: the comparison holds k * step bools
            hit = np.empty((k, min(step, n)), dtype=bool)
            live = np.flatnonzero(np.isfinite(table).any(axis=0))  # cut positions some column has
            for r0 in range(0, n, step):
                r1 = min(r0 + step, n)
                part, out = vt[:, r0:r1], codes[:, r0:r1]
                for c in live.tolist():
                    np.less_equal(table[:, c:c + 1], part, out=hit[:, :r1 - r0])
                    np.add(out, hit[:, :r1 - r0], out=out, casting="unsafe")
        if may_be_missing:
            codes[np.isnan(vt)] = -1
        return codes

    @without_gc
    def transform(self, X) -> pd.DataFrame:
        """Replace each column of ``columns_`` by its bin codes (Categorical over ``0 .. n_bins_[col] - 1``).

        Returns a new DataFrame (also for array input, with columns ``x0, x1, ...``); the caller's data is not
        modified and the other columns pass through unchanged. Values beyond the fitted range go to the first or
        the last bin; a missing value (NaN/None) stays missing (NaN in the Categorical), for the learner's own
        missing-value policy.
        """
        check_is_fitted(self)
        refuse_dask(self, X, method="transform")
        frame = _as_frame(X)
        validate_frame(self, X, reset=False)
        if not isinstance(X, pd.DataFrame):
            frame.columns = self._input_columns
        pos = self._column_positions(frame.columns)
        if (pos < 0).any():
            absent = [c for c, p in zip(self.columns_, pos.tolist()) if p < 0]
            raise ValueError(f"Columns {absent!r} were discretised at fit time but are missing from X.")
        if not self.columns_:
            return frame.copy(deep=False)  # new frame; never the caller's object
        rows = self._bin_rows(_values_block(frame, self.columns_, pos), may_be_missing=not _integer_frame(frame))
        dtypes = self.__dict__.get("_bin_dtypes")
        if dtypes is None:  # (an estimator fitted before fit prepared it: dtypes made for this output only)
            dtypes = {}
        n_bins = self.__dict__.get("_n_bins_list") or [self.n_bins_[c] for c in self.columns_]
        return _replace_columns(frame, pos, rows, n_bins, dtypes)

    def _column_positions(self, columns: pd.Index) -> np.ndarray:
        """Positions of ``columns_`` in ``columns`` (-1 where absent); those of fit when the labels are the fitted
        frame's (a Pipeline passes frames with the same labels at every call)."""
        seen = self.__dict__.get("_positions_of")
        if seen is not None and (seen[0] is columns or (len(seen[0]) == len(columns) and seen[0].equals(columns))):
            return seen[1]
        return columns.get_indexer(self.columns_) if self.columns_ else np.empty(0, dtype=np.intp)


def _code_dtype(n_cuts: int) -> np.dtype:
    """The narrowest signed type holding bin codes -1 .. n_cuts."""
    return np.dtype(np.int8 if n_cuts < 127 else np.int16 if n_cuts < 32767 else np.intp)


#: From this many columns to discretise, :meth:`_DiscretizerBase._bin` bins all columns at once.
_WIDE_BIN_COLS = 64
#: Most comparisons per block of rows of the all-columns binning (bool cells: 16 MiB).
_WIDE_BIN_CELLS = 1 << 24


def _values_block(frame: pd.DataFrame, columns: list, pos: np.ndarray | None = None) -> np.ndarray:
    """float64 values ``(n_rows, len(columns))`` of the columns to discretise, in one conversion; a missing cell is
    NaN (passed through as a missing category); an infinite value raises naming the column and the row label.
    ``pos``: the positions of ``columns`` in ``frame`` when the caller has them."""
    if not columns:
        return np.empty((frame.shape[0], 0))
    if pos is None:
        pos = frame.columns.get_indexer(columns)
    whole = len(pos) == frame.shape[1] and (len(pos) < 2 or bool((np.diff(pos) == 1).all())) and \
        (not len(pos) or pos[0] == 0)
    try:
        if _integer_frame(frame):
            # numpy integers only: nothing missing, nothing infinite. The frame's values as pandas holds them (a
            # row per column, for one block), the columns gathered as rows and converted: the result is the
            # transpose of a C-order (columns x rows) array, whose rows the binning and the sorts read
            held = frame.to_numpy().T
            return (held if whole else held[pos]).astype(np.float64).T
        x = (frame if whole else frame.iloc[:, pos]).to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):  # e.g. an object column of numbers with None: one column at a time
        x = np.column_stack([_values(frame[c], c) for c in columns])
    bad = np.isinf(x)
    if bad.any():
        r, j = (int(v[0]) for v in np.nonzero(bad))
        label = frame.index[r]
        label = label.item() if isinstance(label, np.generic) else label
        raise ValueError(f"Column {columns[j]!r} has an infinite value ({x[r, j]}) at row {label!r}; a discretiser "
                         "needs finite values. Replace it (e.g. by NaN, a missing value) first.")
    return x


def _integer_frame(frame: pd.DataFrame) -> bool:
    """Every column a numpy integer or bool column (no missing value, no infinite value possible)."""
    return all(isinstance(d, np.dtype) and d.kind in "iub" for d in _unique_dtypes(frame))


def _unique_dtypes(frame: pd.DataFrame) -> list:
    """The distinct dtypes of ``frame``'s columns (one per block, without a Series of 7,000 dtypes where pandas'
    block manager is reachable)."""
    mgr = getattr(frame, "_mgr", None)
    blocks = getattr(mgr, "blocks", None)
    if blocks is not None:
        try:
            return list({b.dtype for b in blocks})
        except (AttributeError, TypeError):
            pass
    return list(set(frame.dtypes.tolist()))


def _replace_columns(frame: pd.DataFrame, pos: np.ndarray, rows: np.ndarray, n_bins: list,
                     dtypes: dict | None = None) -> pd.DataFrame:
    """A new DataFrame: ``frame`` with the columns at positions ``pos`` replaced by Categoricals over ``0 .. n_bins
    - 1`` whose codes are the rows of ``rows`` (``(len(pos), n_rows)``; one CategoricalDtype object per number of
    bins, shared by the columns), the other columns passed through.

    The Categoricals are made from row views of one narrow code block (no copy per column) and the frame is built
    from the column arrays in one step (:func:`pgmpy_ext.data.frame_from_arrays`; assigning thousands of columns
    one by one to a copy costs pandas a block split each: 2 s for 7,070 genes)."""
    from pgmpy_ext.data import column_arrays, frame_from_arrays

    dtypes = {} if dtypes is None else dtypes
    rows = np.asarray(rows)
    narrow = rows.astype(np.int8 if max(n_bins, default=1) <= 127 else np.int16, copy=False)
    narrow = np.ascontiguousarray(narrow)  # every column's codes are a row of it
    # pandas' own constructor from valid codes (2x faster than from_codes), when the codes have the int8 type
    # pandas gives categoricals of up to 127 categories; from_codes (which coerces the type) otherwise
    simple = getattr(pd.Categorical, "_simple_new", None) if narrow.dtype == np.int8 else None
    for nb in set(n_bins) - dtypes.keys():
        dtypes[nb] = pd.CategoricalDtype(pd.Index(np.arange(nb, dtype=np.int64)))
    if simple is not None and max(n_bins, default=1) < 127:
        # one Categorical per number of bins made by pandas' own constructor, the others as copies of it over
        # their own codes (NDArrayBacked._from_backing_data: the codes type pandas gives fewer than 127
        # categories is int8, which these codes have): 0.15 microseconds a column instead of 0.65
        first = {}
        for j, nb in enumerate(n_bins):
            if nb not in first:
                first[nb] = simple(narrow[j], dtypes[nb])
        try:
            make = {nb: c._from_backing_data for nb, c in first.items()}
            cats = [make[nb](row) for nb, row in zip(n_bins, narrow)]
        except AttributeError:
            cats = [simple(row, dtypes[nb]) for nb, row in zip(n_bins, narrow)]
    elif simple is not None:
        cats = [simple(row, dtypes[nb]) for nb, row in zip(n_bins, narrow)]
    else:
        cats = [pd.Categorical.from_codes(row, dtype=dtypes[nb], validate=False) for nb, row in zip(n_bins, narrow)]
    m = frame.shape[1]
    if len(pos) == m and (m < 2 or bool((np.diff(pos) == 1).all())) and (not m or pos[0] == 0):
        arrays = cats  # every column is replaced: nothing of the input is read
    else:  # the other columns' arrays (only theirs are read), the Categoricals in their places
        arrays = [None] * m
        for p, cat in zip(pos.tolist(), cats):
            arrays[p] = cat
        others = [k for k in range(m) if arrays[k] is None]
        for k, arr in zip(others, column_arrays(frame, others)):
            # a pandas extension array passed through is copied: the output never shares memory that a write into
            # it could change in the caller's frame (numpy columns are copied into the output's blocks anyway)
            arrays[k] = arr if isinstance(arr, np.ndarray) else arr.copy()
    return frame_from_arrays(arrays, frame.columns, frame.index)


def _kbins_kwargs(strategy: str) -> dict:
    kwargs = {"encode": "ordinal", "strategy": strategy, "subsample": None}
    # quantile_method appeared in scikit-learn 1.7; older versions use numpy's "linear" percentiles.
    if strategy == "quantile" and "quantile_method" in KBinsDiscretizer().get_params():
        kwargs["quantile_method"] = "averaged_inverted_cdf"
    return kwargs


class _KBinsDiscretizer(_DiscretizerBase):
    _strategy = "uniform"
    _own_bin_per_value = False
    _float_cuts = True  # scikit-learn's edges, numpy percentiles and midpoints: float64 arrays

    # n_bins may be positional (STYLE 5 says keyword-only) because scikit-learn's KBinsDiscretizer(n_bins=5, *, ...)
    # takes it that way and the house examples write EqualFrequencyDiscretizer(5).
    def __init__(self, n_bins=5, *, columns=None):
        self.n_bins = n_bins
        self.columns = columns

    _parameter_constraints = {**_DiscretizerBase._parameter_constraints,
                              "n_bins": [Interval(numbers.Integral, 2, None)]}

    def _select_numeric(self, frame, name) -> bool:
        # seed 000 D14: a whole-number column with <= n_bins distinct values is kept as it is (categorical).
        col = frame[name]
        return _has_fraction(col) or col.nunique(dropna=True) > self.n_bins

    def _fit_cuts(self, values, y):
        """Cut points per column: scikit-learn ``KBinsDiscretizer``'s bin edges (percentiles with
        ``averaged_inverted_cdf``, or equal widths; constant columns one bin; bins narrower than 1e-8 removed),
        computed for all complete columns at once (:func:`_kbins_edges`, the same numbers as its per-column loop);
        a column with missing cells is cut on its observed values by scikit-learn itself."""
        observed = ~np.isnan(values)
        complete = observed.all(axis=0)
        edges = [None] * values.shape[1]
        # one row per column (a transposing copy), sorted once: the percentiles, the extremes and the number of
        # distinct values of every column are read from it along contiguous memory (values is row-major: along
        # a column, numpy's partition and sort stride across the whole row; 3x slower on 77 x 7,070)
        rows = self.__dict__.get("_profile_rows")  # sorted already by the column selection (same values)
        if rows is None or rows.shape != values.T.shape:
            rows = np.array(values.T, order="C")
            rows.sort(axis=1)  # NaN last
        if complete.any():
            idx = np.flatnonzero(complete)
            sub = rows if complete.all() else rows[idx]
            for j, e in zip(idx.tolist(), _kbins_edges(values[:, idx], self.n_bins, self._strategy, rows=sub)):
                edges[j] = e
        for j in np.flatnonzero(~complete).tolist():
            edges[j] = self._fit_kbins(values[observed[:, j], j:j + 1]).bin_edges_[0]
        if complete.all():  # the scikit-learn discretiser of these edges, built when kbins_ is read
            self._bin_edges = edges
        cuts = [e[1:-1] for e in edges]
        if self._own_bin_per_value:
            for j in _few_valued_columns(values, self.n_bins, sorted_rows=rows):
                uniq = np.unique(values[observed[:, j], j])
                if 1 < uniq.size <= self.n_bins:  # one bin per distinct value (see EqualFrequencyDiscretizer Notes)
                    cuts[j] = (uniq[:-1] + uniq[1:]) / 2.0
        return cuts

    @property
    def kbins_(self) -> KBinsDiscretizer:
        """The scikit-learn ``KBinsDiscretizer`` over ``columns_`` fitted to the same edges (only when
        ``columns_`` is not empty and no selected column had a missing cell). Built on first access from the
        edges of ``fit`` (which are the ones its own ``fit`` computes: tests/preprocessing check it)."""
        kb = self.__dict__.get("_kbins")
        if kb is None:
            edges = self.__dict__.get("_bin_edges")
            if edges is None:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute 'kbins_' (not fitted, no "
                                     "column to discretise, or a column with missing values).")
            kb = KBinsDiscretizer(n_bins=self.n_bins, **_kbins_kwargs(self._strategy))
            be = np.empty(len(edges), dtype=object)
            be[:] = [np.asarray(e, dtype=np.float64) for e in edges]
            kb.bin_edges_ = be
            kb.n_bins_ = np.array([len(e) - 1 for e in edges], dtype=int)
            kb.n_features_in_ = len(edges)
            self._kbins = kb
        return kb

    def _fit_kbins(self, values: np.ndarray) -> KBinsDiscretizer:
        # sklearn warns for constant features and for collapsed quantile bins; both are reported through n_bins_
        # (1 bin, fewer bins), and inside cross-validation a warning per fold is only noise.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"Feature \d+ is constant", category=UserWarning)
            warnings.filterwarnings("ignore", message=r"Bins whose width are too small", category=UserWarning)
            return KBinsDiscretizer(n_bins=self.n_bins, **_kbins_kwargs(self._strategy)).fit(values)


def _kbins_edges(values: np.ndarray, n_bins: int, strategy: str, *, rows: np.ndarray | None = None) -> list:
    """``KBinsDiscretizer(n_bins, strategy=strategy, encode="ordinal", subsample=None).fit(values).bin_edges_`` for
    complete data, with every column computed at once: the same operations column by column (``np.percentile``
    with the same method, ``np.linspace`` with array end points), hence the same numbers.

    ``rows``: the columns of ``values`` as the rows of a C-contiguous array (``values.T``, in any order within a row,
    e.g. sorted) that may be reordered in place; a copy is made when it is not given. The percentiles are order
    statistics (the same values whatever the order and the layout), taken along contiguous rows."""
    presorted = rows is not None
    if rows is None:
        rows = np.array(values.T, order="C")
    lo = rows.min(axis=1)
    hi = rows.max(axis=1)
    if strategy == "quantile":
        levels = np.linspace(0, 100, n_bins + 1)
        kwargs = _kbins_kwargs("quantile")
        method = kwargs.get("quantile_method") or "linear"
        table = _sorted_percentiles(rows, levels, method) if presorted else None
        if table is None:
            table = np.asarray(np.percentile(rows, levels, axis=1, overwrite_input=True,
                                             **({"method": method} if method != "linear" else {})),
                               dtype=np.float64)
    else:
        # np.linspace with array end points takes another (as exact) path for every column when one step is 0
        # (a constant column, or a denormal width): only the others go through it together, as scikit-learn's
        # loop only calls it for them
        table = np.zeros((n_bins + 1, values.shape[1]))
        live = np.flatnonzero(lo != hi)
        if live.size:
            if ((hi[live] - lo[live]) / n_bins == 0).any():
                for j in live.tolist():
                    table[:, j] = np.linspace(lo[j], hi[j], n_bins + 1)
            else:
                table[:, live] = np.linspace(lo[live], hi[live], n_bins + 1, axis=0)
    # scikit-learn removes bins narrower than 1e-8: ediff1d(e, to_begin=inf) > 1e-8, for all columns at once
    keep = np.ones(table.shape, dtype=bool)
    if strategy == "quantile":
        keep[1:] = np.diff(table, axis=0) > 1e-8
    full = keep.all(axis=0)
    constant = lo == hi
    by_column = np.ascontiguousarray(table.T)  # every column's edges, a row each (no copy per column)
    out = list(by_column)
    for j in np.flatnonzero(constant | ~full).tolist():
        out[j] = np.array([-np.inf, np.inf]) if constant[j] else table[keep[:, j], j]
    return out


def _sorted_percentiles(rows: np.ndarray, levels: np.ndarray, method: str) -> np.ndarray | None:
    """``np.percentile(rows, levels, axis=1, method=method)`` of rows that are already sorted and hold no NaN, as
    a ``(len(levels), k)`` table, with numpy's own steps after its partition (virtual indexes, neighbours, gamma,
    ``_lerp``), so the same numbers: the partition is what sorting made unnecessary (7,070 rows of 77 values:
    numpy partitions each row again, 5 ms). None when numpy's helpers are not the expected ones (the caller then
    calls ``np.percentile``)."""
    try:
        from numpy.lib import _function_base_impl as fb

        props = fb._QuantileMethods[method]
        n = rows.shape[1]
        q = np.true_divide(levels, 100)
        virtual = np.asanyarray(props["get_virtual_index"](n, q))
        if props["fix_gamma"] is None or np.issubdtype(virtual.dtype, np.integer) or n == 0:
            return None  # methods without interpolation: np.percentile takes another path
        prev, nxt = fb._get_indexes(rows, virtual, n)
        gamma = fb._get_gamma(virtual, prev, props).reshape(virtual.shape + (1,))
        return np.asarray(fb._lerp(rows[:, prev].T, rows[:, nxt].T, gamma), dtype=np.float64)
    except (ImportError, AttributeError, KeyError, TypeError):
        return None


def _few_valued_columns(values: np.ndarray, n_bins: int, *, sorted_rows: np.ndarray | None = None) -> list:
    """Indices of the columns with at most ``n_bins`` distinct observed values (candidates for one bin per
    value), found with one sort of all columns (``sorted_rows``: ``values.T`` with every row sorted, when the
    caller has it)."""
    if values.shape[0] == 0 or values.shape[1] == 0:
        return []
    srt = np.sort(np.array(values.T, order="C"), axis=1) if sorted_rows is None else sorted_rows  # NaN last
    valid = ~np.isnan(srt)
    distinct = valid[:, 0].astype(np.int64) + ((srt[:, 1:] != srt[:, :-1]) & valid[:, 1:]).sum(axis=1)
    return np.flatnonzero(distinct <= n_bins).tolist()


class EqualWidthDiscretizer(_KBinsDiscretizer):
    """Equal-width binning with categorical output (unsupervised), e.g. the 5 bins of Ruz's thesis, chapter 4.

    Each selected column is cut into ``n_bins`` intervals of equal width between its minimum and maximum on the
    training data (scikit-learn's ``KBinsDiscretizer(strategy="uniform", encode="ordinal")`` inside). See
    ``docs/decisions/seed000-sbn-cem-nbm.md`` ("UCI/benchmark datasets" and the discretisation entry of "Ambiguities,
    errors and gaps → decisions").

    Parameters
    ----------
    n_bins : int >= 2, default 5
        Number of bins per column. (It may be passed positionally, as in scikit-learn's ``KBinsDiscretizer``.)
    columns : None, "numeric" or list of labels, default None
        Which columns to discretise; all others pass through unchanged.
        ``None``: the columns the classifiers cannot take as categorical
        (:func:`pgmpy_ext.data.numeric_columns_to_discretize`): float columns with a value that is not a whole
        number, and integer or whole-number float columns with more than
        :data:`pgmpy_ext.data.MAX_NUMERIC_STATES` (50) distinct values (an amount, an age in years); integer-coded
        categorical columns with at most 50 values pass through. ``"numeric"``: every numeric (not bool, not
        categorical) column, except whole-number columns with at most ``n_bins`` distinct values, which are kept
        as they are (e.g. Zoo "legs"; the classifiers treat them as categorical). A list: exactly these
        columns (integer positions are accepted for array input).

    Attributes
    ----------
    columns_ : list
        The discretised columns, in input order (``x0, x1, ...`` for array input).
    cut_points_ : dict
        ``{column: ndarray}``: the inner bin edges, increasing. A value ``v`` goes to bin
        ``numpy.searchsorted(cut_points_[col], v, side="right")``, i.e. bin ``k`` is ``[cut[k-1], cut[k])``.
    n_bins_ : dict
        ``{column: int}``: number of bins (1 for a constant column).
    kbins_ : sklearn.preprocessing.KBinsDiscretizer
        The fitted scikit-learn discretiser over ``columns_`` (only when ``columns_`` is not empty). Its
        ``bin_edges_[j][1:-1]`` are ``cut_points_`` here, and ``transform`` bins exactly as its ``transform`` does
        (``searchsorted(..., side="right")``).
    n_features_in_, feature_names_in_
        Set by scikit-learn's ``validate_data``.

    See Also
    --------
    EqualFrequencyDiscretizer : bins with (about) the same number of training rows.
    MDLPDiscretizer : supervised Fayyad-Irani discretisation.

    Notes
    -----
    Output: a new DataFrame (also for array input); each discretised column becomes a pandas Categorical with
    categories ``0 .. n_bins_[col] - 1`` (integer bin codes, declared even when unused), the rest is unchanged.
    Values outside the training range go to the first or last bin. A missing value (NaN) is left out of the cut
    points and stays missing in the output; inf in a column to discretise raises ``ValueError``. A constant
    column becomes a single bin (scikit-learn's warning is silenced; see ``n_bins_``).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [0.0, 1.5, 4.0, 10.0], "k": [1, 2, 1, 2]})
    >>> disc = EqualWidthDiscretizer(n_bins=5).fit(X)
    >>> disc.cut_points_["x"].tolist()
    [2.0, 4.0, 6.0, 8.0]
    >>> out = disc.transform(X)
    >>> out["x"].tolist(), out["x"].cat.categories.tolist(), out["k"].tolist()
    ([0, 0, 2, 4], [0, 1, 2, 3, 4], [1, 2, 1, 2])
    """

    _strategy = "uniform"


class EqualFrequencyDiscretizer(_KBinsDiscretizer):
    """Equal-frequency (quantile) binning with categorical output (unsupervised).

    Each selected column is cut at the ``k / n_bins`` quantiles of its training values (scikit-learn's
    ``KBinsDiscretizer(strategy="quantile", encode="ordinal", quantile_method="averaged_inverted_cdf",
    subsample=None)`` inside), so every bin holds about the same number of training rows. Used by the benchmarks
    (``benchmarks/cv_accuracy.py``) as the default for continuous UCI attributes.

    Parameters
    ----------
    n_bins : int >= 2, default 5
        Number of bins per column (fewer when quantiles coincide, see Notes). May be passed positionally.
    columns : None, "numeric" or list of labels, default None
        As in :class:`EqualWidthDiscretizer`.

    Attributes
    ----------
    columns_, cut_points_, n_bins_, kbins_, n_features_in_, feature_names_in_
        As in :class:`EqualWidthDiscretizer`.

    See Also
    --------
    EqualWidthDiscretizer, MDLPDiscretizer

    Notes
    -----
    Quantiles that coincide (heavy ties) give bins narrower than 1e-8; scikit-learn removes them, so
    ``n_bins_[col]`` may be smaller than ``n_bins`` (1 for a constant column); its warning is silenced.
    One departure from plain ``KBinsDiscretizer``: a column with at most ``n_bins`` distinct training values
    gets one bin per value (cuts at the midpoints between them). The finest partition then already has at most
    ``n_bins`` bins, whereas quantile edges placed on tied values merge values, e.g. the top two of
    ``[0.5, 1.5, 2.5] * 4`` share a bin and, with 10 copies of 0.5, all three do. ``kbins_.bin_edges_`` keeps
    scikit-learn's edges for such columns; ``cut_points_`` is what ``transform`` uses.
    All data are used (``subsample=None``), so the result is deterministic. With scikit-learn < 1.7 the quantiles
    use numpy's default "linear" method. Output as in :class:`EqualWidthDiscretizer`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(10.0).reshape(-1, 1) + 0.5
    >>> disc = EqualFrequencyDiscretizer(n_bins=2).fit(X)
    >>> disc.cut_points_
    {'x0': array([5.])}
    >>> disc.transform(X)["x0"].tolist()
    [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    """

    _strategy = "quantile"
    _own_bin_per_value = True
