"""EncodedData: a pandas DataFrame turned once into integer state codes plus the states they stand for.

Every learner encodes its input once, at the top of ``fit``; the kernels only ever see ``codes``. The codes are
stored as int32 by default, or in the narrowest signed type the cardinalities allow (int8 / int16) when asked
(``codes_dtype="auto"``): an alarm-sized frame of 1M rows then holds 37 MB instead of 148 MB. Narrow codes never
reach numpy arithmetic: :attr:`EncodedData.codes` always returns int32, and only the fused kernels of
``pgmpy_ext.stats`` read the stored array (:attr:`EncodedData.kernel_codes`). States keep the
user's own values and types (``0`` stays a Python ``int``, ``"yes"`` a ``str``, ``True`` a ``bool``), so learned
CPDs and predictions come back in the user's labels.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["EncodedData", "encode", "MISSING_POLICIES", "CODES_DTYPES", "CODES_DTYPE", "codes_dtype_for",
           "kernel_codes",
           "HANDLE_UNKNOWN", "MAX_NUMERIC_STATES", "MIN_NUMERIC_STATES", "ROWS_PER_NUMERIC_STATE",
           "numeric_state_limit",
           "check_numeric_columns", "numeric_columns_to_discretize", "pgmpy_state_names", "FIT_MISSING",
           "check_fit_frame", "check_no_missing", "state_key", "to_python"]

MISSING_POLICIES = ("error", "skip")

#: What :meth:`EncodedData.transform` (and :func:`encode` with declared states) does with a value outside the
#: known states: ``"error"`` raises, ``"ignore"`` codes it ``-1``, i.e. as a missing observation.
HANDLE_UNKNOWN = ("error", "ignore")

#: The ``codes_dtype`` options of :func:`encode`: ``"int32"``; ``"auto"`` (the narrowest of int8 / int16 / int32 that
#: holds every column's largest code); ``"int8"`` / ``"int16"`` (refused when a cardinality does not fit).
CODES_DTYPES = ("int32", "auto", "int8", "int16")

#: What ``encode(..., codes_dtype=None)`` uses: ``"int32"``. Set ``pgmpy_ext.data._encoded.CODES_DTYPE = "auto"``
#: to have every learner store narrow codes (the fused kernels read them directly; every other consumer gets an
#: int32 copy from :attr:`EncodedData.codes`, so results are identical, at the cost of those copies).
CODES_DTYPE = "int32"

_NARROW = (np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32))


def codes_dtype_for(cards, codes_dtype="auto") -> np.dtype:
    """The numpy dtype that stores codes ``-1`` to ``card - 1`` of every column of ``cards`` under ``codes_dtype``.

    ``"auto"`` is the narrowest signed type of int8 / int16 / int32 that holds ``max(cards) - 1`` (int8 up to 128
    states per column); ``"int8"`` / ``"int16"`` raise a ``ValueError`` naming the widest column when a
    cardinality does not fit; ``"int32"`` (and ``None`` = :data:`CODES_DTYPE`) as before.

    Examples
    --------
    >>> codes_dtype_for([2, 128]), codes_dtype_for([2, 129]), codes_dtype_for([3, 40000])
    (dtype('int8'), dtype('int16'), dtype('int32'))
    >>> codes_dtype_for([2, 200], "int8")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: codes_dtype='int8' holds codes up to 127 (128 states per column), but a column has 200 states; ...
    """
    if codes_dtype is None:
        codes_dtype = CODES_DTYPE
    if isinstance(codes_dtype, np.dtype) or isinstance(codes_dtype, type):
        codes_dtype = np.dtype(codes_dtype).name
    if codes_dtype not in CODES_DTYPES:
        raise ValueError(f"codes_dtype == {codes_dtype!r}, must be one of {CODES_DTYPES} (or None for "
                         f"CODES_DTYPE = {CODES_DTYPE!r}).")
    top = max((int(c) for c in np.asarray(cards).tolist()), default=1) - 1  # the largest code
    if codes_dtype == "auto":
        for dt in _NARROW:
            if top <= np.iinfo(dt).max:
                return dt
        raise ValueError(f"a column has {top + 1} states; codes are at most int32.")
    dt = np.dtype(codes_dtype)
    if top > np.iinfo(dt).max:
        raise ValueError(f"codes_dtype={codes_dtype!r} holds codes up to {np.iinfo(dt).max} "
                         f"({np.iinfo(dt).max + 1} states per column), but a column has {top + 1} states; use "
                         "codes_dtype='auto' (the narrowest type that fits) or 'int32'.")
    return dt


def int32_codes(stored: np.ndarray) -> np.ndarray:
    """Stored codes as int32: the array itself when it is int32, else a fresh read-only int32 copy (narrow codes
    never meet numpy arithmetic, where int8 would overflow silently). ``EncodedData.codes`` and the dask parts'
    ``codes`` are this.

    Examples
    --------
    >>> import numpy as np
    >>> c = int32_codes(np.array([[1, -1]], dtype=np.int8))
    >>> c.dtype, c.flags.writeable
    (dtype('int32'), False)
    """
    if stored.dtype == np.int32:
        return stored
    out = stored.astype(np.int32)
    out.flags.writeable = False
    return out


def column_kind(col, series: pd.Series) -> str:
    """How :func:`encode` reads a column: 'category' | 'bool' | 'int' | 'float' | 'object'; a TypeError naming
    ``col`` for complex and datetime/timedelta columns.

    Examples
    --------
    >>> import pandas as pd
    >>> column_kind("x", pd.Series([1.0, 2.0])), column_kind("s", pd.Series(["a"]))
    ('float', 'object')
    """
    return _column_kind(col, series)


def kernel_codes(codes) -> np.ndarray:
    """The code matrix a fused kernel of ``pgmpy_ext.stats`` reads: :attr:`EncodedData.kernel_codes` of an
    :class:`EncodedData`; an int8 / int16 / int32 array as it is (made C-contiguous); any other integer array as
    int32 (as before narrow codes existed). Only the wrappers of the fused kernels call it: the result may be
    narrow, so it must never meet numpy arithmetic.

    Examples
    --------
    >>> import numpy as np
    >>> kernel_codes(np.zeros((2, 3), dtype=np.int8)).dtype, kernel_codes(np.zeros((2, 3), dtype=np.int64)).dtype
    (dtype('int8'), dtype('int32'))
    """
    if isinstance(codes, EncodedData):
        return codes.kernel_codes
    arr = np.asarray(codes)
    return np.ascontiguousarray(arr, dtype=arr.dtype if arr.dtype in _NARROW else np.int32)


#: The most distinct values a numeric column (integer dtype, or float whose values are all whole numbers) may have
#: and still be taken as a categorical variable by :func:`encode` (so by every learner), on data of any size. Above
#: it the column is refused; see :func:`numeric_state_limit` for the whole rule (it also looks at the rows).
MAX_NUMERIC_STATES = 50
#: Rows per state: a numeric column may have at most one distinct value per this many rows ...
ROWS_PER_NUMERIC_STATE = 5
#: ... but up to this many values always (0/1 flags, scores, small integer codes on small data).
MIN_NUMERIC_STATES = 10


def numeric_state_limit(n_rows: int, max_numeric_states: int | None = MAX_NUMERIC_STATES) -> int | None:
    """The numeric-column rule: the most distinct values a numeric column of ``n_rows`` rows may have and still
    be taken as a categorical variable (one state per value); ``None`` when the rule is off.

    .. math:: \\mathrm{limit} = \\min\\big(\\mathtt{max\\_numeric\\_states},\\;
              \\max(10, \\lfloor n_{rows} / 5 \\rfloor)\\big)

    That is at most ``max_numeric_states`` (:data:`MAX_NUMERIC_STATES`, 50) values, and at most one value per
    :data:`ROWS_PER_NUMERIC_STATE` (5) rows, but up to :data:`MIN_NUMERIC_STATES` (10) values whatever the size. The
    rule is applied by :func:`encode` (so by every learner), listed by :func:`numeric_columns_to_discretize` (the
    discretisers' default columns, and the CLI's automatic discretisation), and checked by
    :func:`check_numeric_columns` (the pgmpy faces). A column above the limit is refused with a message naming the
    limit and the two fixes (discretise it, or declare it categorical).

    Why both parts (issue 11 and issue 24): an absolute limit keeps whole-number measurements (an amount, a weight,
    an age, a pixel intensity) out of large data, where a purely relative one would let them through (shuttle's
    58,000 rows would accept its 299-valued ``A6``); the relative part keeps them out of small data, where 50 values
    on 77 rows (a microarray's integer expression values) are one or two rows per state and a CPT learned from
    them is noise. Checked on the UCI sets of ``../shared/datasets``: the relative part changes 3 columns, all
    hepatitis measurements on 155 rows (``AGE`` 49 values, ``PROTIME`` 45, ``BILIRUBIN`` 35); integer-coded
    categorical variables (letter's 26 classes, soybean's 7 codes) are untouched
    (``benchmarks/results/quick.md`` has the held-out comparison).

    Examples
    --------
    >>> numeric_state_limit(77), numeric_state_limit(155), numeric_state_limit(10_000), numeric_state_limit(20)
    (15, 31, 50, 10)
    >>> numeric_state_limit(77, None) is None, numeric_state_limit(1000, 3)
    (True, 3)
    """
    if max_numeric_states is None:
        return None
    return int(min(max_numeric_states, max(MIN_NUMERIC_STATES, int(n_rows) // ROWS_PER_NUMERIC_STATE)))


def to_python(value):
    """numpy scalar -> the matching Python scalar; anything else unchanged."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _row_label(index: pd.Index, r: int):
    """The user's label of row position ``r`` (a Python scalar, so messages print ``5``, not ``np.int64(5)``)."""
    return to_python(index[r])


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _sort_states(values: list) -> list:
    """Sorted states; values of mixed, unorderable types are sorted by (type name, repr) for determinism."""
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, repr(v)))


def _column_kind(col, series: pd.Series) -> str:
    """'category' | 'bool' | 'int' | 'float' | 'object'; raises for unsupported dtypes."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_complex_dtype(dtype):
        raise TypeError(f"Column {col!r} has complex values; pgmpy-ext needs discrete columns.")
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        raise TypeError(f"Column {col!r} has datetime/timedelta values; convert it to discrete labels first.")
    return "object"


def _float_is_discrete(values: np.ndarray) -> bool:
    finite = values[~np.isnan(values)]
    return bool(np.all(np.isfinite(finite)) and np.all(finite == np.round(finite)))


class EncodedData:
    """Integer-coded discrete data: the one input every pgmpy-ext kernel and engine sees.

    Build it with :func:`encode` (or :meth:`EncodedData.from_frame`); encode new data with the fitted states
    through :meth:`transform`.

    Attributes
    ----------
    codes : numpy.ndarray of int32, shape (n_rows, n_cols)
        C-contiguous state codes; ``codes[r, k]`` indexes ``states[k]``; ``-1`` marks a missing cell (only
        with ``missing="skip"``). Always int32: when the codes are stored narrow (int8 / int16) this is a fresh
        read-only int32 copy on every access, so every consumer may do int32 arithmetic on it safely.
    kernel_codes : numpy.ndarray of int8, int16 or int32, shape (n_rows, n_cols)
        The stored codes, for the fused kernels of ``pgmpy_ext.stats`` only (counting, ``unique_rows``, the
        latent-class E step, the classifier posteriors); anything else uses ``codes``.
    codes_dtype : numpy.dtype
        The dtype of the stored codes.
    columns : list
        Column labels, in order.
    states : list of list
        Per column, the ordered original states as Python scalars: category order if the column is categorical,
        otherwise sorted (booleans ``[False, True]``).
    cards : numpy.ndarray of intp, shape (n_cols,)
        Number of states per column.
    weights : numpy.ndarray of float64, shape (n_rows,), or None
        Optional non-negative row weights.
    missing : {"error", "skip"}
        Missing-value policy: ``"error"`` rejects missing cells, ``"skip"`` codes them as -1 (kernels then do
        available-case counting, as pgmpy does).

    Examples
    --------
    >>> import pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> df = pd.DataFrame({"smoke": ["yes", "no", "yes"], "n": [2, 0, 2]})
    >>> data = encode(df)
    >>> data.codes.tolist()
    [[1, 1], [0, 0], [1, 1]]
    >>> data.state_names
    {'smoke': ['no', 'yes'], 'n': [0, 2]}
    >>> data.transform(pd.DataFrame({"smoke": ["no"], "n": [2]})).codes.tolist()
    [[0, 1]]
    """

    def __init__(self, codes, columns, states, weights=None, missing: str = "error", *, codes_dtype=None):
        """``codes`` of dtype int8 / int16 / int32 keep their dtype when ``codes_dtype`` is None (so ``take``,
        ``select`` and ``with_weights`` keep narrow codes narrow); other integer codes become int32. An explicit
        ``codes_dtype`` (as in :func:`encode`) converts them."""
        arr = np.asarray(codes)
        if codes_dtype is not None:
            dt = codes_dtype_for([len(s) for s in states], codes_dtype)
        elif arr.dtype in _NARROW:
            dt = arr.dtype
        else:
            dt = np.dtype(np.int32)
        self._codes = np.ascontiguousarray(arr, dtype=dt)
        self.weights = weights
        self.missing = missing
        if self._codes.ndim != 2:
            raise ValueError(f"codes must be 2-D (n_rows, n_cols), got shape {self._codes.shape}.")
        self.columns = list(columns)
        self.states = [list(s) for s in states]
        if len(self.columns) != self._codes.shape[1] or len(self.states) != self._codes.shape[1]:
            raise ValueError("columns, states and codes must describe the same number of columns.")
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"column labels must be unique, got {self.columns!r}.")
        self.cards = np.array([len(s) for s in self.states], dtype=np.intp)
        if self.cards.size and int(self.cards.max()) - 1 > np.iinfo(self._codes.dtype).max:
            raise ValueError(f"codes of dtype {self._codes.dtype} cannot hold {int(self.cards.max())} states; pass "
                             "codes_dtype='auto' or int32 codes.")
        self._index = {c: k for k, c in enumerate(self.columns)}
        if self.missing not in MISSING_POLICIES:
            raise ValueError(f"missing == {self.missing!r}, must be one of {MISSING_POLICIES}.")
        if self.weights is not None:
            self.weights = _check_weights(self.weights, self._codes.shape[0])

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_column_cache", None)  # lookup tables of :meth:`column_codes`, rebuilt on demand
        state.pop("_category_dtypes", None)  # identities only meaningful in this process
        return state

    def __setstate__(self, state):
        if "codes" in state and "_codes" not in state:  # pickled when EncodedData was a dataclass with int32 codes
            state["_codes"] = state.pop("codes")
        self.__dict__.update(state)

    # ------------------------------------------------------------------ the codes
    @property
    def codes(self) -> np.ndarray:
        """The codes as C-contiguous int32 ``(n_rows, n_cols)``: the stored array when it is int32, else a fresh
        read-only int32 copy (so int8 codes never meet numpy arithmetic such as ``codes[:, a] * r + codes[:, b]``,
        which would overflow silently). The fused kernels read :attr:`kernel_codes` instead."""
        return int32_codes(self._codes)

    @property
    def kernel_codes(self) -> np.ndarray:
        """The stored codes (int8, int16 or int32, C-contiguous) for the fused kernels of ``pgmpy_ext.stats``."""
        return self._codes

    @property
    def codes_dtype(self) -> np.dtype:
        return self._codes.dtype

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, states: Mapping | None = None, weights=None,
                   missing: str = "error", codes_dtype=None) -> EncodedData:
        """Encode a DataFrame; see :func:`encode`."""
        return encode(df, states=states, weights=weights, missing=missing, codes_dtype=codes_dtype)

    # ------------------------------------------------------------------ basic facts
    @property
    def n_rows(self) -> int:
        return int(self._codes.shape[0])

    @property
    def n_cols(self) -> int:
        return int(self._codes.shape[1])

    @property
    def state_names(self) -> dict:
        """``{column: [states]}``, the form pgmpy's ``state_names`` arguments take."""
        return {c: list(s) for c, s in zip(self.columns, self.states)}

    @property
    def has_missing(self) -> bool:
        return bool(self.missing == "skip" and (self._codes < 0).any())

    def index(self, column) -> int:
        """Position of ``column``; a clear KeyError if it is unknown."""
        try:
            return self._index[column]
        except (KeyError, TypeError):
            raise KeyError(f"Column {column!r} is not in the data (columns: {self.columns!r}).") from None

    def indices(self, columns: Sequence) -> np.ndarray:
        """Positions of ``columns`` (intp array); a clear KeyError for an unknown one."""
        columns = columns if hasattr(columns, "__len__") else list(columns)
        try:
            return np.fromiter(map(self._index.__getitem__, columns), dtype=np.intp, count=len(columns))
        except (KeyError, TypeError):
            return np.array([self.index(c) for c in columns], dtype=np.intp)

    def card(self, column) -> int:
        return int(self.cards[self.index(column)])

    def total_weight(self) -> float:
        return float(self.n_rows if self.weights is None else self.weights.sum())

    def kernel_weights(self, weights=None) -> np.ndarray:
        """Row weights for a kernel: ``weights`` if given, else ``self.weights``, else an empty array (= all ones)."""
        if weights is not None:
            return _check_weights(weights, self.n_rows)
        if self.weights is not None:
            return self.weights
        return np.empty(0, dtype=np.float64)

    def weights_or_ones(self, weights=None) -> np.ndarray:
        """Like :meth:`kernel_weights` but always a full (n_rows,) vector."""
        w = self.kernel_weights(weights)
        return w if w.shape[0] else np.ones(self.n_rows, dtype=np.float64)

    def decode(self, column, codes) -> list:
        """State labels of ``codes`` (-1 -> None) in column ``column``."""
        st = self.states[self.index(column)]
        return [None if c < 0 else st[c] for c in np.asarray(codes).tolist()]

    # ------------------------------------------------------------------ derived data
    def select(self, columns: Sequence) -> EncodedData:
        """The same rows restricted to ``columns`` (in that order); codes are copied (same dtype)."""
        idx = self.indices(columns)
        return EncodedData(self._codes[:, idx], [self.columns[k] for k in idx], [self.states[k] for k in idx],
                           weights=self.weights, missing=self.missing)

    def take(self, rows) -> EncodedData:
        """The rows ``rows`` (indices or a boolean mask) with the same states (same codes dtype)."""
        rows = np.asarray(rows)
        return EncodedData(self._codes[rows], self.columns, self.states,
                           weights=None if self.weights is None else self.weights[rows], missing=self.missing)

    def with_weights(self, weights) -> EncodedData:
        return EncodedData(self._codes, self.columns, self.states, weights=weights, missing=self.missing)

    def to_frame(self, categorical: bool = True) -> pd.DataFrame:
        """Decode back to a DataFrame in the original labels (categorical dtype with the fitted state order)."""
        out = {}
        for k, c in enumerate(self.columns):
            cat = pd.Categorical.from_codes(self._codes[:, k], categories=pd.Index(self.states[k], dtype=object))
            out[c] = cat if categorical else np.asarray(cat.astype(object))
        return pd.DataFrame(out)

    def transform(self, df: pd.DataFrame, *, columns: Sequence | None = None, weights=None,
                  handle_unknown: str = "error") -> EncodedData:
        """Encode new data with the states learned here.

        Parameters
        ----------
        df : DataFrame
            Must contain ``columns`` (default: all fitted columns).
        columns : sequence, optional
            Subset of fitted columns to encode (e.g. the features without the class).
        weights : array-like, optional
            Row weights of the new data.
        handle_unknown : {"error", "ignore"}, default "error"
            A value not seen at fit time: ``"error"`` raises (naming the column, the value, the row by its index
            label in ``df`` and the known states); ``"ignore"`` codes it ``-1``, the code of a missing observation,
            so a learner that sums missing features out treats the cell as unobserved.

        Returns
        -------
        EncodedData
            With this object's missing policy; when ``handle_unknown="ignore"`` turned a value into ``-1`` the
            result has ``missing="skip"`` (its ``-1`` codes are missing observations). Missing cells of ``df``
            (NaN/None) become ``-1`` under ``missing="skip"`` and raise under ``missing="error"``.

        Raises
        ------
        ValueError
            For a missing column, an unseen value under ``handle_unknown="error"``, or a missing cell under
            ``missing="error"``.

        Examples
        --------
        >>> import pandas as pd
        >>> data = encode(pd.DataFrame({"c": ["a", "b"]}))
        >>> data.transform(pd.DataFrame({"c": ["b", "z"]}), handle_unknown="ignore").codes.ravel().tolist()
        [1, -1]
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"transform expects a pandas DataFrame, got {type(df).__name__}.")
        cols = self.columns if columns is None else list(columns)
        present = set(df.columns.tolist())
        absent = [c for c in cols if c not in present]
        if absent:
            raise ValueError(f"Columns {absent!r} were present at fit time but are missing from the data.")
        st = {c: self.states[self.index(c)] for c in cols}
        return encode(df[cols], states=st, weights=weights, missing=self.missing, strict_states=True,
                      handle_unknown=handle_unknown, codes_dtype=self._codes.dtype.name)

    def column_codes(self, df: pd.DataFrame, columns: Sequence | None = None, *, handle_unknown: str = "error",
                     warn_unseen: bool = True):
        """Encode new data with the states learned here, as one 1-D code array per column (no code matrix).

        The predict path of the learners (:class:`~pgmpy_ext.data._columns.ColumnCodes` feeds the column kernel
        ``pgmpy_ext.stats.log_joint_columns`` directly). A pandas Categorical whose categories are this column's
        states in their order gives its own codes, read-only and uncopied; other categorical and plain integer
        columns are recoded through lookup tables; the rest goes through the general encoder (as
        :meth:`transform`).

        Parameters
        ----------
        df : DataFrame
            Must contain ``columns`` (default: all fitted columns); other columns are ignored.
        columns : sequence, optional
        handle_unknown : {"error", "ignore"}, default "error"
            As in :meth:`transform`: a value not seen at fit raises (the first column holding one, at its first
            row), or is coded ``-1``.
        warn_unseen : bool, default True
            With ``handle_unknown="ignore"``, warn (:class:`~pgmpy_ext.data._columns.UnseenValuesWarning`, naming
            the column and the share of rows) about every column where more than half of the values were not seen
            at fit: the whole feature would otherwise vanish silently, typically because its type changed.

        Returns
        -------
        ColumnCodes
            ``-1`` marks a missing cell (under this object's ``missing="skip"``) or an ignored unseen value.

        Raises
        ------
        MissingValueError
            A ``ValueError`` for the first missing cell in row order under ``missing="error"``.
        ValueError
            A missing column, or an unseen value under ``handle_unknown="error"``.

        Examples
        --------
        >>> import pandas as pd
        >>> data = encode(pd.DataFrame({"c": ["a", "b"], "k": [0, 1]}))
        >>> new = pd.DataFrame({"c": pd.Categorical(["b", "a"], categories=["a", "b"]), "k": [1, 5]})
        >>> cc = data.column_codes(new, handle_unknown="ignore")
        >>> [a.tolist() for a in cc.arrays], cc.n_unknown.tolist()
        ([[1, 0], [1, -1]], [0, 1])
        """
        from pgmpy_ext.data._columns import encode_columns

        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"column_codes expects a pandas DataFrame, got {type(df).__name__}.")
        if handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(f"handle_unknown == {handle_unknown!r}, must be one of {HANDLE_UNKNOWN}.")
        cols = self.columns if columns is None else list(columns)
        return encode_columns(self, df, cols, handle_unknown, warn_unseen)

    def __repr__(self) -> str:
        narrow = "" if self._codes.dtype == np.int32 else f", codes_dtype={self._codes.dtype.name!r}"
        return (f"EncodedData(n_rows={self.n_rows}, n_cols={self.n_cols}, cards={self.cards.tolist()}, "
                f"weighted={self.weights is not None}, missing={self.missing!r}{narrow})")


def _check_weights(weights, n_rows: int) -> np.ndarray:
    w = np.ascontiguousarray(np.asarray(weights, dtype=np.float64))
    if w.ndim != 1 or w.shape[0] != n_rows:
        raise ValueError(f"weights must be a 1-D array of length n_rows = {n_rows}, got shape {w.shape}.")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("weights must be finite and >= 0.")
    return w


def encode(df: pd.DataFrame, *, states: Mapping | None = None, weights=None, missing: str = "error",
           strict_states: bool = True, max_numeric_states: int | None = MAX_NUMERIC_STATES,
           handle_unknown: str = "error", codes_dtype=None, append: tuple | None = None) -> EncodedData:
    """Encode a DataFrame of discrete columns into :class:`EncodedData`. The DataFrame is not modified.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns of dtype category, object/str, bool or integer. Float columns are accepted only when every
        non-missing value is a whole number (e.g. integer codes read as float); real-valued columns raise.
    states : mapping, optional
        ``{column: [states, ...]}`` declaring the states (and their order) of some columns; declared states
        may include values that do not occur in ``df``. A value outside the declared list raises (or is coded
        ``-1`` with ``handle_unknown="ignore"``). Declaring a column's states also declares it categorical: the
        ``max_numeric_states`` rule does not apply to it.
    weights : array-like of shape (n_rows,), optional
        Non-negative row weights.
    missing : {"error", "skip"}, default "error"
        ``"error"`` raises on NaN/None; ``"skip"`` codes missing cells as -1.
    strict_states : bool, default True
        Kept for symmetry with :meth:`EncodedData.transform`; see ``handle_unknown``.
    max_numeric_states : int or None, default :data:`MAX_NUMERIC_STATES` (50)
        The numeric-column rule (:func:`numeric_state_limit`). A numeric column (integer dtype, or float dtype whose
        values are all whole numbers; not bool, not category, not object/str) is taken as categorical, one state per
        value, when it has at most ``min(max_numeric_states, max(10, n_rows // 5))`` distinct non-missing values:
        at most 50, and at most one value per 5 rows (but always up to 10). Above that it is refused with a
        ``ValueError`` naming the column, its number of distinct values, the limit and the two fixes: discretise it
        (``pgmpy_ext.preprocessing.MDLPDiscretizer`` in a ``Pipeline``; its default ``columns=None`` picks exactly
        these columns, see :func:`numeric_columns_to_discretize`) or declare it categorical
        (``df[col] = df[col].astype("category")``, or ``states={col: [...]}``). ``None`` switches the rule off.
        Int-coded categories such as car's or soybean's codes and 0/1 flags pass.
    handle_unknown : {"error", "ignore"}, default "error"
        A value outside the declared ``states``: ``"error"`` raises, ``"ignore"`` codes it ``-1`` (a missing
        observation; the result then has ``missing="skip"``).
    codes_dtype : {"int32", "auto", "int8", "int16"} or None, default None (= :data:`CODES_DTYPE`, "int32")
        How the codes are stored. ``"auto"``: the narrowest signed type of int8 / int16 / int32 that holds every
        column's codes (int8 when every column has at most 128 states): 1 byte per cell instead of 4. ``"int8"`` /
        ``"int16"`` raise when a column has too many states. Results never depend on it: :attr:`EncodedData.codes`
        is always int32; only the fused kernels read the narrow array.
    append : tuple (label, codes, states), optional
        One more column whose codes are already known (e.g. a classifier's class: ``codes`` in ``0 .. len(states) -
        1``, one per row), added after the columns of ``df`` without building a new frame.

    Returns
    -------
    EncodedData

    Raises
    ------
    ValueError
        Empty data, duplicated column labels, a real-valued float column, a numeric column above
        ``max_numeric_states``, a missing cell with ``missing="error"``, a value outside declared states. Rows
        are named by their label in ``df.index``.
    TypeError
        Not a DataFrame, or unhashable cells.

    Notes
    -----
    Why the limit has an absolute and a relative part: see :func:`numeric_state_limit` (a whole-number measurement
    taken as categorical gives one parameter per value and silently wrong models: issue 11's credit_g
    ``credit_amount``, 921 values on 1,000 rows; issue 24's microarray, 50 integer values on 77 rows).

    Mixed-type object columns (e.g. ``1``, ``"1"`` and ``"two"`` in one column) are accepted: values that compare
    equal in Python (``1``, ``1.0``, ``True``) are one state (the first one seen), unequal values of different
    types stay distinct states (``1`` and ``"1"``), and states that cannot be sorted together are ordered by
    ``(type name, repr)``, so ``[1, "1", "two"]`` always gives the states ``[1, "1", "two"]``.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}.")
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing == {missing!r}, must be one of {MISSING_POLICIES}.")
    if handle_unknown not in HANDLE_UNKNOWN:
        raise ValueError(f"handle_unknown == {handle_unknown!r}, must be one of {HANDLE_UNKNOWN}.")
    max_numeric_states = _check_max_numeric_states(max_numeric_states)
    limit = _Limit(numeric_state_limit(df.shape[0], max_numeric_states), df.shape[0], max_numeric_states)
    if df.shape[1] == 0:
        raise ValueError("The data has no columns; pgmpy-ext needs at least one discrete column.")
    if df.shape[0] == 0:
        raise ValueError("The data has no rows (0 samples); pgmpy-ext needs at least one row.")
    if df.columns.has_duplicates:
        dup = df.columns[df.columns.duplicated()].tolist()
        raise ValueError(f"Column labels must be unique; duplicated: {dup!r}.")
    states = dict(states or {})
    unknown = [c for c in states if c not in df.columns]
    if unknown:
        raise ValueError(f"states declares columns {unknown!r} that are not in the data (columns: "
                         f"{list(df.columns)!r}).")
    n, m = df.shape
    # Every column is read through pandas' column accessor (no Series per column) and coded into a narrow 1-D
    # array: a Categorical's own codes (uncopied), a block of plain integer columns at once (one pandas call and
    # one vectorised pass per block, the path of wide integer data such as 7,129 genes), or the general hash-based
    # encoder. The C-order matrix is then filled in row blocks: the columns are stacked into a narrow staging block
    # (a transposing copy of 1-byte codes, 3x cheaper than writing int32 codes with a stride) that is widened into
    # the matrix. Encoding holds the result, the codes of the columns that needed new codes (at most one byte per
    # cell for up to 128 states) and one staging block.
    from pgmpy_ext.data._columns import category_codes, column_arrays

    arrays = column_arrays(df)
    dtypes = [a.dtype for a in arrays]  # (df.dtypes builds a Series of them)
    labels = df.columns.tolist()  # iterating a pandas (arrow) string Index costs microseconds per label
    plain_of = {i: _plain_int_dtype(d) for i, d in dict(zip(map(id, dtypes), dtypes)).items()}  # per dtype object
    plain = [plain_of[i] for i in map(id, dtypes)]
    if states:
        plain = [p and states.get(col) is None for p, col in zip(plain, labels)]
    block_cols = max(1, min(_INT_BLOCK_COLS, _BLOCK_CELLS // max(n, 1)))
    results: list = [None] * m
    by_dtype: dict = {}  # the plain integer columns of each dtype, coded in blocks (consecutive or not)
    for k in [k for k, p in enumerate(plain) if p]:
        by_dtype.setdefault(dtypes[k], []).append(k)
    for ks in by_dtype.values():
        for b0 in range(0, len(ks), block_cols):
            part = ks[b0:b0 + block_cols]
            if len(part) < 2:
                continue  # a single column is coded alone below
            block = np.stack([arrays[k] for k in part], axis=1)
            for k, res in zip(part, _int_block_codes([labels[k] for k in part], block, limit)):
                results[k] = res
    cat_cache = {}  # {id(CategoricalDtype): (dtype, states)} of the undeclared category columns seen so far
    cat_dtypes: list = [None] * m  # the CategoricalDtype each undeclared category column's states were read from
    # Undeclared pandas Categoricals (a discretiser's output: thousands of them, a few dtype objects) at once: their
    # own codes, the states of each distinct dtype object once, a missing cell found by one reduction over the
    # stacked codes (under missing="error"; raised below in column order, as the loop would)
    cat_ks = [k for k, a in enumerate(arrays) if type(a) is pd.Categorical and (not states or
                                                                                 states.get(labels[k]) is None)]
    missing_at, missing_row = -1, -1
    if cat_ks:
        cat_arrays = [arrays[k] for k in cat_ks]
        dts = [dtypes[k] for k in cat_ks]
        ids = list(map(id, dts))
        st_of = {}
        for i, dt in dict(zip(ids, dts)).items():
            st_of[i] = [to_python(v) for v in dt.categories.tolist()]
            cat_cache[i] = (dt, st_of[i])
        try:
            cat_codes = [a._codes for a in cat_arrays]  # the Categoricals' own codes, uncopied (only read)
            if not all(isinstance(c, np.ndarray) for c in cat_codes[:1]):
                raise AttributeError
        except AttributeError:  # a pandas without the private attribute: the public (read-only view) codes
            cat_codes = [category_codes(a) for a in cat_arrays]
        if missing == "error" and n:
            lows = np.array(cat_codes).min(axis=1) if len(cat_codes) > 1 else np.array([cat_codes[0].min()])
            if (lows < 0).any():
                j = int(np.flatnonzero(lows < 0)[0])
                missing_at, missing_row = cat_ks[j], int(np.flatnonzero(cat_codes[j] < 0)[0])
        for k, c, i, dt in zip(cat_ks, cat_codes, ids, dts):
            results[k] = (c, st_of[i], False)
            cat_dtypes[k] = dt
    ignored = False
    # the columns left to code, and those holding an error to raise (in column order)
    empty_cat = [k for k in cat_ks if not results[k][1]]
    todo = [k for k, res in enumerate(results) if res is None or isinstance(res, Exception)]
    if missing_at >= 0 or empty_cat:
        todo = sorted({*todo, *empty_cat, *([missing_at] if missing_at >= 0 else [])})
    for k in todo:
        col = labels[k]
        res = results[k]
        if res is not None:
            if isinstance(res, Exception):  # the block path found a numeric-rule violation here
                raise res
            if k == missing_at or (not res[1] and cat_dtypes[k] is not None):
                if not res[1]:
                    raise ValueError(_all_missing_message(col))
                raise ValueError(_missing_message(col, _row_label(df.index, missing_row), "NaN/None"))
            continue
        declared = states.get(col)
        arr = arrays[k]
        res = None
        if plain[k]:
            res = _int_codes(col, arr, limit)
        elif declared is None and isinstance(arr, pd.Categorical):  # (a subclass of pandas' Categorical)
            cat_codes_k = category_codes(arr)  # the Categorical's codes, uncopied (only read)
            st = _cached_category_states(cat_cache, arr.dtype)
            if st is None:
                st = [to_python(v) for v in arr.dtype.categories.tolist()]
                cat_cache[id(arr.dtype)] = (arr.dtype, st)
            if not st:
                raise ValueError(_all_missing_message(col))
            if missing == "error" and cat_codes_k.min(initial=0) < 0:
                r = int(np.flatnonzero(cat_codes_k < 0)[0])
                raise ValueError(_missing_message(col, _row_label(df.index, r), "NaN/None"))
            res = cat_codes_k, st, False
            cat_dtypes[k] = arr.dtype
        if res is None:
            res = _encode_column(col, pd.Series(arr, index=df.index, copy=False, name=col), declared, missing,
                                 df.index, limit, handle_unknown)
        col_codes, st, ign = res
        if col_codes.dtype.itemsize > 1 or col_codes.dtype.kind != "i":  # new codes: held narrow until the fill
            col_codes = col_codes.astype(_narrow_for(len(st)), copy=False)
        results[k] = (col_codes, st, ign)
        ignored |= ign
    if append is not None:
        label, extra_codes, extra_states = append
        if label in set(labels):
            raise ValueError(f"append names column {label!r}, which is already in the data.")
        extra_codes = np.asarray(extra_codes)
        if extra_codes.shape != (n,):
            raise ValueError(f"append gives {extra_codes.shape} codes for {n} rows.")
        extra_states = [to_python(v) for v in extra_states]
        if extra_codes.size and (extra_codes.min() < -1 or extra_codes.max() >= len(extra_states)):
            raise ValueError(f"append's codes must lie in -1 .. {len(extra_states) - 1}.")
        results.append((extra_codes.astype(codes_dtype_for([len(extra_states)], "auto"), copy=False), extra_states,
                        False))
        labels = [*labels, label]
        arrays = [*arrays, None]
        cat_dtypes.append(None)
    all_states = [r[1] for r in results]
    widest = [max(map(len, all_states), default=1)]  # (the code type depends on the largest cardinality only)
    codes = np.empty((n, len(labels)), dtype=codes_dtype_for(widest, codes_dtype))  # raises for an explicit int8 /
    # int16 that cannot hold a column
    _fill_rows(codes, [r[0] for r in results], codes_dtype_for(widest, "auto"))
    out = EncodedData(codes, labels, all_states, weights=weights, missing="skip" if ignored else missing)
    # the CategoricalDtype each undeclared category column's states were read from: new data carrying that very
    # dtype object (the training frame, its slices) has state codes as its codes (EncodedData.column_codes)
    out._category_dtypes = cat_dtypes
    return out


def _narrow_for(card: int) -> np.dtype:
    """The narrowest of int8 / int16 / int32 holding codes -1 .. card - 1."""
    return _NARROW[0] if card <= 128 else _NARROW[1] if card <= 32768 else _NARROW[2]


def _fill_rows(codes: np.ndarray, columns: list, stage_dtype: np.dtype) -> None:
    """Write the 1-D code arrays ``columns`` into the C-order matrix ``codes``, ``_FILL_ROWS`` rows at a time:
    stacked into a staging block of ``stage_dtype`` (the narrowest type that holds every code), widened into
    ``codes`` (directly when they share the type)."""
    n = codes.shape[0]
    if not columns or n == 0:
        return
    stage = None if stage_dtype == codes.dtype else np.empty((min(n, _FILL_ROWS), codes.shape[1]),
                                                                  dtype=stage_dtype)
    if n <= _FILL_ROWS and len(columns) >= _FILL_WIDE_COLUMNS:
        # wide data, few rows: the columns as the rows of one array (numpy's array constructor copies a list of
        # equal-length arrays twice as fast as stack), transposed into the matrix
        np.copyto(codes, np.array(columns).T, casting="unsafe")
        return
    for r0 in range(0, n, _FILL_ROWS):
        r1 = min(r0 + _FILL_ROWS, n)
        parts = columns if r1 - r0 == n else [c[r0:r1] for c in columns]
        if stage is None:
            np.stack(parts, axis=1, out=codes[r0:r1], casting="unsafe")
        else:
            np.stack(parts, axis=1, out=stage[:r1 - r0], casting="unsafe")
            codes[r0:r1] = stage[:r1 - r0]


#: From this many columns (and at most ``_FILL_ROWS`` rows), :func:`_fill_rows` copies through one array.
_FILL_WIDE_COLUMNS = 256

#: Rows per staging block of :func:`encode`'s fill (1 MiB of int8 codes for 16 columns).
_FILL_ROWS = 1 << 16

#: Most plain integer columns of one block read at once by :func:`encode` (its vectorised integer path).
_INT_BLOCK_COLS = 4096


#: Most cells of one block of plain integer columns read at once by :func:`encode` (int64: 32 MiB).
_BLOCK_CELLS = 1 << 22


def _plain_int_dtype(dtype) -> bool:
    """A numpy (not pandas nullable) signed or unsigned integer dtype whose values fit int64."""
    return isinstance(dtype, np.dtype) and (dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8))


def _int_codes(col, values: np.ndarray, max_numeric_states):
    """(codes, states, False) of a plain integer column: states are its distinct values in increasing order (as
    Python ints), exactly what the general path gives; None when the value range is too wide for a presence table
    (the general, hash-based path then handles it)."""
    n = values.shape[0]
    lo, hi = int(values.min()), int(values.max())
    span = hi - lo + 1
    if span > max(4 * n, 1 << 16):
        return None
    off = values.astype(np.intp, copy=False) - lo
    present = np.zeros(span, dtype=bool)
    present[off] = True
    vals = np.flatnonzero(present)
    if _refused(max_numeric_states, vals.size):
        raise ValueError(_numeric_rule_message(col, int(vals.size), max_numeric_states))
    lut = np.empty(span, dtype=np.int32)
    lut[vals] = np.arange(vals.size, dtype=np.int32)
    return lut[off], [int(v) + lo for v in vals], False


def _int_block_codes(labels: list, block: np.ndarray, max_numeric_states) -> list:
    """:func:`_int_codes` of every column of an ``(n, k)`` integer block at once: one presence table over the
    concatenated value ranges of all columns, ranks by one cumulative sum. Returns, per column, ``(codes, states,
    False)`` exactly as :func:`_int_codes` gives it, a ``ValueError`` (not raised: :func:`encode` raises it in
    column order) for a column above ``max_numeric_states``, or None for a column whose value range is too wide
    for a table (the caller codes it alone)."""
    n, k = block.shape
    if n == 0 or k == 0:
        return [None] * k
    lo = block.min(axis=0).astype(np.int64)
    hi = block.max(axis=0).astype(np.int64)
    span = hi - lo + 1
    ok = span <= max(4 * n, 1 << 16)
    out: list = [None] * k
    if not ok.any():
        return out
    # the presence tables of the columns taken together stay under _BLOCK_CELLS cells (a 77-row block of 4,096
    # columns with values up to 16,000 would otherwise ask for 65M-cell tables): columns in chunks
    cols_all = np.flatnonzero(ok)
    budget = max(int(_BLOCK_CELLS), int(span[cols_all].max()))
    start = 0
    cum = np.cumsum(span[cols_all])
    while start < cols_all.size:
        base = cum[start - 1] if start else 0
        stop = int(np.searchsorted(cum, base + budget, side="right"))
        stop = max(stop, start + 1)
        _int_block_part(labels, block, lo, hi, span, cols_all[start:stop], max_numeric_states, out)
        start = stop
    return out


def _int_block_part(labels, block, lo, hi, span, cols, max_numeric_states, out) -> None:
    """:func:`_int_block_codes` of the columns ``cols`` of ``block`` into ``out``."""
    sub = block[:, cols] if cols.size < block.shape[1] else block
    sp = span[cols]
    start = np.zeros(cols.size + 1, dtype=np.int64)
    np.cumsum(sp, out=start[1:])
    pos = (sub - lo[cols]) + start[:-1]  # (n, k') positions in the concatenated table
    present = np.zeros(int(start[-1]), dtype=bool)
    present[pos] = True
    rank = np.cumsum(present, dtype=np.int64)
    before = np.concatenate(([0], rank[start[1:-1] - 1]))  # distinct values of the earlier columns
    n_distinct = rank[start[1:] - 1] - before
    lut = (rank - 1 - np.repeat(before, sp)).astype(np.int32)
    codes = lut[pos]
    values = np.flatnonzero(present)  # table positions of the present values, column after column
    flat = (values - np.repeat(start[:-1], n_distinct) + np.repeat(lo[cols], n_distinct)).tolist()
    ends = np.cumsum(n_distinct).tolist()
    b = 0
    for j, c in enumerate(cols.tolist()):
        e = ends[j]
        if _refused(max_numeric_states, e - b):
            out[c] = ValueError(_numeric_rule_message(labels[c], e - b, max_numeric_states))
        else:
            out[c] = (codes[:, j], flat[b:e], False)
        b = e


def _cached_category_states(cache: dict, dtype: pd.CategoricalDtype):
    """The states of an earlier category column with this very dtype object (the columns of one frame built with
    one dtype, a discretiser's output), or None. ``cache`` maps ``id(dtype)`` to ``(dtype, states)``."""
    hit = cache.get(id(dtype))
    return hit[1] if hit is not None and hit[0] is dtype else None


def _check_max_numeric_states(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"max_numeric_states must be an int or None, got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"max_numeric_states == {value}, must be >= 1 (or None to switch the rule off).")
    return int(value)


class _Limit:
    """The numeric-column rule of one :func:`encode` call: ``limit`` (or None: off), the rows and the parameter it
    came from (for the message)."""

    __slots__ = ("limit", "n_rows", "max_numeric_states")

    def __init__(self, limit, n_rows: int, max_numeric_states):
        self.limit, self.n_rows, self.max_numeric_states = limit, int(n_rows), max_numeric_states


def _refused(rule, n_distinct: int) -> bool:
    """Whether ``n_distinct`` values break ``rule`` (a :class:`_Limit`, a plain int limit, or None)."""
    limit = rule.limit if isinstance(rule, _Limit) else rule
    return limit is not None and n_distinct > limit


def _numeric_rule_message(col, n_distinct: int, rule) -> str:
    if isinstance(rule, _Limit):
        limit = rule.limit
        why = (f"max_numeric_states={rule.max_numeric_states}" if limit == rule.max_numeric_states else
               f"the limit of {limit} states for {rule.n_rows} rows (at most one value per "
               f"{ROWS_PER_NUMERIC_STATE} rows, never fewer than {MIN_NUMERIC_STATES}, at most "
               f"max_numeric_states={rule.max_numeric_states}; pgmpy_ext.data.numeric_state_limit)")
    else:
        why = f"max_numeric_states={rule}"
    return (f"Column {col!r} is numeric with {n_distinct} distinct values, more than {why}, "
            "so pgmpy-ext does not take it as a categorical variable (one state per value). Discretise it, e.g. "
            "Pipeline([('disc', pgmpy_ext.preprocessing.MDLPDiscretizer()), ('clf', ...)]) for a classifier, "
            "EqualFrequencyDiscretizer(5) for a clusterer (their default columns=None picks such columns), or, if it "
            "really is categorical, declare it: "
            f"df[{col!r}] = df[{col!r}].astype('category').")


def _whole_number_float(series: pd.Series) -> bool:
    raw = series.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = raw[np.isfinite(raw)]
    return finite.size == raw[~np.isnan(raw)].size and bool(np.all(finite == np.round(finite)))


def _numeric_profile(df: pd.DataFrame, sorted_out: list | None = None) -> list:
    """Per column of ``df``: None (not numeric: category, bool, object/str, ...), ``"fraction"`` (a float column
    with a value that is not a whole number, or an infinite value), or the number of distinct non-missing values of
    an integer or whole-number float column.

    Numpy integer and float columns of many columns are profiled together (one sort of a block of columns, no
    pandas call per column): a 77 x 7,070 matrix takes milliseconds instead of a second."""
    from pgmpy_ext.data._columns import column_arrays

    n, m = df.shape
    if m >= 8 and n * m <= _PROFILE_CELLS:
        # one numpy dtype throughout (a matrix read into a frame, seen from pandas' blocks): one conversion, a row
        # per column, sorted along contiguous rows
        try:
            kinds = {b.dtype for b in df._mgr.blocks}
        except AttributeError:
            kinds = set()
        d = next(iter(kinds)) if len(kinds) == 1 else None
        if isinstance(d, np.dtype) and d.kind in "iuf" and not (d.kind == "u" and d.itemsize == 8):
            rows = np.array(df.to_numpy().T, order="C")
            out = _profile_rows(rows, d)
            if sorted_out is not None:  # every column's values, sorted, a row each (a caller that sorts them too)
                sorted_out.append(rows)
            return out
    dtypes = list(df.dtypes)
    out: list = [None] * m
    numpy_num = [isinstance(d, np.dtype) and d.kind in "iuf" and not (d.kind == "u" and d.itemsize == 8)
                 for d in dtypes]
    arrays = column_arrays(df)
    by_dtype: dict = {}
    for k in range(m):
        if numpy_num[k]:
            by_dtype.setdefault(dtypes[k], []).append(k)
        else:
            dtype = dtypes[k]
            if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
                continue
            series = pd.Series(arrays[k], index=df.index, copy=False)
            if pd.api.types.is_float_dtype(dtype):
                out[k] = int(series.nunique(dropna=True)) if _whole_number_float(series) else "fraction"
            elif pd.api.types.is_integer_dtype(dtype):
                out[k] = int(series.nunique(dropna=True))
    for dtype, cols in by_dtype.items():
        for b0 in range(0, len(cols), _PROFILE_COLS):
            part = cols[b0:b0 + _PROFILE_COLS]
            if n * len(part) > _PROFILE_CELLS or len(part) < 8:  # tall data: a hash count per column
                for k in part:
                    series = pd.Series(arrays[k], index=df.index, copy=False)
                    if dtype.kind == "f" and not _whole_number_float(series):
                        out[k] = "fraction"
                    else:
                        out[k] = int(series.nunique(dropna=True))
                continue
            rows = np.stack([arrays[k] for k in part]) if n else np.empty((len(part), 0), dtype=dtype)
            for k, v in zip(part, _profile_rows(rows, dtype)):
                out[k] = v
    return out


def _profile_rows(rows: np.ndarray, dtype: np.dtype) -> list:
    """:func:`_numeric_profile` of the numpy numeric columns that are the rows of ``rows`` (``(k, n)``, C order,
    sorted in place)."""
    k, n = rows.shape
    if dtype.kind == "f":
        finite = np.isfinite(rows)
        nan = np.isnan(rows)
        frac = ((rows != np.round(rows)) & finite).any(axis=1) | (~finite & ~nan).any(axis=1)
    else:
        frac = np.zeros(k, dtype=bool)
    rows.sort(axis=1)  # NaN last
    if n == 0:
        distinct = np.zeros(k, dtype=np.int64)
    elif dtype.kind != "f":
        distinct = 1 + (rows[:, 1:] != rows[:, :-1]).sum(axis=1)
    else:
        valid = ~np.isnan(rows)
        distinct = valid[:, 0].astype(np.int64) + ((rows[:, 1:] != rows[:, :-1]) & valid[:, 1:]).sum(axis=1)
    return ["fraction" if f else d for f, d in zip(frac.tolist(), distinct.tolist())]


#: Columns profiled per block by :func:`_numeric_profile`, and the most cells of a block it sorts at once.
_PROFILE_COLS = 4096
_PROFILE_CELLS = 1 << 22


def numeric_columns_to_discretize(df: pd.DataFrame, max_numeric_states: int | None = MAX_NUMERIC_STATES, *,
                                  sorted_values: list | None = None) -> list:
    """The columns of ``df`` that :func:`encode` would refuse as numeric: the ones to discretise.

    That is, in column order: every float column with a value that is not a whole number (or an infinite value),
    and every integer or whole-number float column with more distinct non-missing values than
    :func:`numeric_state_limit` allows for ``len(df)`` rows (the rule of :func:`encode`). Bool, category and
    object/str columns are never listed. The discretisers of :mod:`pgmpy_ext.preprocessing` select exactly these
    columns by default (``columns=None``), and so does the CLI.

    Parameters
    ----------
    df : pandas.DataFrame
    max_numeric_states : int or None, default :data:`MAX_NUMERIC_STATES`
        As in :func:`encode`; ``None`` lists only the float columns with fractions.
    sorted_values : list, optional
        When given and every column has one numpy numeric dtype (a matrix read into a frame), the values of every
        column, sorted (NaN last), are appended to it as one ``(n_columns, n_rows)`` array, a row per column in
        frame order: what the profile sorted anyway (the discretisers reuse it for their cut points).

    Returns
    -------
    list of column labels

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> df = pd.DataFrame({"amount": np.arange(100) * 10, "code": np.arange(100) % 4,
    ...                    "height": np.linspace(1.5, 2.0, 100), "s": ["a"] * 100})
    >>> numeric_columns_to_discretize(df)
    ['amount', 'height']
    >>> numeric_columns_to_discretize(pd.DataFrame({"k": np.arange(77) % 16}))  # 16 values on 77 rows: limit 15
    ['k']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}.")
    max_numeric_states = _check_max_numeric_states(max_numeric_states)
    limit = numeric_state_limit(df.shape[0], max_numeric_states)
    return [col for col, prof in zip(df.columns.tolist(), _numeric_profile(df, sorted_values))
            if prof == "fraction" or (prof is not None and limit is not None and prof > limit)]


def _missing_message(col, label, what: str) -> str:
    return (f"Column {col!r} has a missing value ({what}) at row {label!r}; missing values are refused here. "
            "Impute or drop that row first, or use an estimator option missing='available_case' where it exists "
            "(each family counted over the rows where it is observed, missing cells summed out at predict).")


def _all_missing_message(col) -> str:
    return (f"Column {col!r} has no observed value (all missing), so its states cannot be inferred. Drop the column, "
            "or declare its states with a categorical dtype (X[col].astype(pandas.CategoricalDtype([...]))).")


def _unhashable_error(col, series: pd.Series) -> TypeError:
    """scikit-learn's and pgmpy's wording for an unhashable cell, with the column, the value and the row label."""
    for r, v in enumerate(series.tolist()):
        if not isinstance(v, Hashable):
            return TypeError(f"argument must be a string or a number: column {col!r} has {v!r} (a "
                             f"{type(v).__name__}) at row {_row_label(series.index, r)!r}; a discrete cell holds "
                             "one value. Convert such cells (e.g. to a string or a tuple) or drop the column.")
    return TypeError(f"argument must be a string or a number: column {col!r} has a value that is neither.")


def _encode_column(col, series: pd.Series, declared, missing: str, index: pd.Index, max_numeric_states,
                   handle_unknown: str):
    """(codes, states, ignored): ``ignored`` is True when an unknown value was coded -1 (handle_unknown="ignore")."""
    kind = _column_kind(col, series)
    if kind == "float":
        raw = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if missing == "error" and np.isnan(raw).any():
            raise ValueError(_missing_message(col, _row_label(index, int(np.flatnonzero(np.isnan(raw))[0])), "NaN"))
        if np.isinf(raw).any():
            label = _row_label(index, int(np.flatnonzero(np.isinf(raw))[0]))
            raise ValueError(f"Column {col!r} has an infinite value (inf) at row {label!r}; pgmpy-ext needs discrete "
                             "columns.")
        if not _float_is_discrete(raw):
            finite = raw[~np.isnan(raw)]
            bad = finite[~np.isfinite(finite) | (finite != np.round(finite))]
            raise ValueError(
                f"Column {col!r} has float values (e.g. {float(bad[0])!r}); pgmpy-ext needs discrete columns. "
                "Pass a discretiser (e.g. pgmpy_ext.preprocessing), or cast it to category.")
    # Categorical columns already carry codes; anything else goes through factorize (hash based, vectorised).
    # Either way only the (few) distinct values go through Python.
    if kind == "category":
        fcodes = series.cat.codes.to_numpy()
        uniques = [to_python(v) for v in series.cat.categories]
    else:
        try:
            fcodes, uniques = pd.factorize(series, use_na_sentinel=True)
        except TypeError:
            raise _unhashable_error(col, series) from None
        uniques = [to_python(v) for v in np.asarray(uniques, dtype=object)]
    if kind == "object":
        for v in uniques:
            if not isinstance(v, Hashable):
                raise _unhashable_error(col, series)
    if missing == "error" and fcodes.min(initial=0) < 0:  # a reduction: no n-row temporary
        raise ValueError(_missing_message(col, _row_label(index, int(np.flatnonzero(fcodes < 0)[0])), "NaN/None"))
    if declared is None and kind in ("int", "float") and _refused(max_numeric_states, len(uniques)):
        raise ValueError(_numeric_rule_message(col, len(uniques), max_numeric_states))
    if declared is not None:
        st = [to_python(v) for v in declared]
        if len({state_key(v) for v in st}) != len(st):
            raise ValueError(f"Declared states of column {col!r} contain duplicates: {st!r}.")
    elif kind == "category":
        st = [to_python(v) for v in series.cat.categories]
    elif kind == "bool":
        st = [False, True]
    else:
        st = _sort_states(uniques)
        if kind == "float":
            st = [float(v) for v in st]
    if not st:
        raise ValueError(_all_missing_message(col))
    lookup = {state_key(v): i for i, v in enumerate(st)}
    remap = np.array([lookup.get(state_key(v), -1) for v in uniques], dtype=np.int32)
    if remap.shape[0] <= len(st) and np.array_equal(remap, np.arange(remap.shape[0])):
        return fcodes, st, False  # codes already are state indices (e.g. categories == states); -1 stays missing
    unknown = np.flatnonzero(remap < 0)  # e.g. unused categories outside the declared states are harmless
    rows = np.flatnonzero(np.isin(fcodes, unknown)) if unknown.size else unknown
    if rows.size and handle_unknown == "error":
        r = int(rows[0])
        raise ValueError(f"Column {col!r} has value {uniques[fcodes[r]]!r} at row {_row_label(index, r)!r} that was "
                         f"not seen during fit (known: {st!r}). Pass handle_unknown='ignore' to treat such values as "
                         "missing observations.")
    return np.append(remap, -1)[fcodes], st, bool(rows.size)  # fcodes == -1 picks the trailing -1


def state_key(v):
    """Key under which states are matched: numpy scalars compare as Python scalars; bool stays distinct from int."""
    v = to_python(v)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, numbers.Integral):
        return ("num", int(v))
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return ("num", int(v))
    return ("other", v)


def check_numeric_columns(df: pd.DataFrame, max_numeric_states: int | None = MAX_NUMERIC_STATES,
                          declared: Sequence = ()) -> None:
    """Apply :func:`encode`'s numeric-column rule to ``df`` without encoding it.

    Raises the same ``ValueError`` as :func:`encode` for the first integer or whole-number float column with more
    distinct non-missing values than :func:`numeric_state_limit` allows for ``len(df)`` rows, skipping the columns
    in ``declared`` (whose states the user declared, e.g. through pgmpy's ``state_names``). Faces that encode with
    states computed elsewhere (the pgmpy scores and searches take pgmpy's state names) call this on the user's data
    first.

    Examples
    --------
    >>> import pandas as pd
    >>> check_numeric_columns(pd.DataFrame({"k": [0, 1, 2]}), max_numeric_states=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Column 'k' is numeric with 3 distinct values, more than max_numeric_states=2, ...
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}.")
    max_numeric_states = _check_max_numeric_states(max_numeric_states)
    if max_numeric_states is None:
        return
    rule = _Limit(numeric_state_limit(df.shape[0], max_numeric_states), df.shape[0], max_numeric_states)
    declared = set(declared)
    for col, prof in zip(df.columns.tolist(), _numeric_profile(df)):
        if col in declared or prof is None or prof == "fraction":
            continue
        if _refused(rule, prof):
            raise ValueError(_numeric_rule_message(col, prof, rule))


def pgmpy_state_names(df: pd.DataFrame, state_names: Mapping | None = None) -> dict:
    """State names for every column of ``df`` by pgmpy's rule, made total for mixed-type columns.

    pgmpy names the states of an undeclared column ``sorted(observed values)``; for a column mixing types that
    cannot be compared (``1``, ``"1"``, ``"two"``) that sort raises ``TypeError``. Here such a column gets the
    states :func:`encode` gives it (the classifiers' order: ``(type name, repr)``), so the pgmpy faces (scores,
    searches) accept the same data as the classifiers, with the same states. Declared ``state_names`` are kept.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"m": pd.Series(["two", 1, "1"], dtype=object), "k": [2, 0, 2]})
    >>> pgmpy_state_names(df)
    {'m': [1, '1', 'two'], 'k': [0, 2]}
    """
    declared = dict(state_names or {})
    out = {}
    for k, col in enumerate(df.columns):
        if col in declared:
            out[col] = list(declared[col])
            continue
        series = df.iloc[:, k]
        try:
            out[col] = sorted(series.dropna().unique().tolist())
        except TypeError:
            out[col] = encode(df.iloc[:, [k]], missing="skip", max_numeric_states=None).states[0]
    return out


#: The ``missing=`` options of the pgmpy faces that fit on data (scores, classifier structure searches).
FIT_MISSING = ("available_case", "error")


def check_fit_frame(data, owner: str) -> None:
    """The checks every pgmpy face runs on its data before pgmpy's own preprocessing: a DataFrame with at least one
    row and one column (pgmpy's messages for those cases are an ``IndexError`` or a ``TypeError`` deep inside)."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{owner} expects a pandas DataFrame, got {type(data).__name__}.")
    if data.shape[1] == 0:
        raise ValueError(f"{owner}: the data has no columns; it needs at least one discrete column.")
    if data.shape[0] == 0:
        raise ValueError(f"{owner}: the data has no rows (0 samples); it needs at least one row.")


def check_no_missing(data: pd.DataFrame, owner: str) -> None:
    """``missing="error"``: refuse the first missing cell, naming its column and its row label."""
    isna = data.isna().to_numpy()
    if isna.any():
        r, k = (int(v[0]) for v in np.nonzero(isna))
        label = data.index[r]
        label = label.item() if isinstance(label, np.generic) else label
        raise ValueError(f"Column {data.columns[k]!r} has a missing value (NaN/None) at row {label!r}; {owner} was "
                         "given missing='error'. Pass missing='available_case' to count each family over the rows "
                         "where it is observed (as pgmpy does), or impute or drop the missing values.")
