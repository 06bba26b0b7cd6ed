"""The scikit-learn input side shared by every estimator on discrete data: tags, frame conversion, validation.

Classifiers (:class:`pgmpy_ext.classifiers.BNClassifierBase`) and clusterers (``BaseBNMixture``) inherit
:class:`DiscreteInputMixin`; it holds the one copy of the input rules, so a new learner family cannot drift from
them.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd

from pgmpy_ext.utils.validation import Interval, Options, check_params

# scikit-learn is imported inside the functions that use it (only estimators do), so that ``pgmpy_ext.data`` and
# ``pgmpy_ext.stats`` load without it: a Dask worker running our kernels then imports neither scikit-learn nor
# pgmpy (design note scale-out.md §5.6).

__all__ = ["DASK_FIT", "DASK_PREDICT", "DiscreteInputMixin", "MISSING_OPTIONS", "PARAMETER_VOCABULARY", "as_frame",
           "check_numeric_frame", "check_pgmpy_data", "check_unique_columns", "refuse_dask"]

#: The one set of ``missing=`` values (decision D6 of ``docs/decisions/issue24-one-vocabulary.md``): ``"error"``
#: refuses NaN/None cells; ``"available_case"`` counts each family over the rows where it is observed and sums
#: missing cells out exactly at predict; ``"impute"`` (EM-type learners over a hidden cluster) adds the expected
#: counts of a missing cell (exact EM under missing at random) and sums it out in the E step and at predict. Each
#: estimator accepts the subset it implements (its ``_parameter_constraints``).
MISSING_OPTIONS = ("available_case", "error", "impute")

#: The constraints of the shared vocabulary (``docs/decisions/issue24-one-vocabulary.md``), one definition for
#: every estimator: an estimator's ``_parameter_constraints`` starts from these and overrides what differs.
PARAMETER_VOCABULARY = {
    "n_clusters": [Interval(Integral, 1, None)],
    "n_init": [Interval(Integral, 1, None)],
    "max_iter": [Interval(Integral, 0, None)],
    "tol": [Interval(Real, 0, None)],
    "alpha": [Interval(Real, 0, None)],
    "random_state": ["random_state"],
    "n_jobs": ["n_jobs"],
    "show_progress": ["boolean"],
    "handle_unknown": [Options("ignore", "error")],
    "missing": [Options("available_case", "error")],
}


def as_frame(X) -> pd.DataFrame:
    """A DataFrame passes through unchanged (never modified); anything else goes through ``check_array`` and gets
    columns ``x0, x1, ...``."""
    if isinstance(X, pd.DataFrame):
        return X
    from sklearn.utils.validation import check_array

    arr = check_array(X, dtype=None, accept_sparse=False, ensure_all_finite=False)
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])


#: From this many columns, :func:`validate_frame` takes its fast path (below it scikit-learn's check is cheap).
_FAST_VALIDATE_COLUMNS = 256


def validate_frame(est, X, y="no_validation", *, reset: bool) -> None:
    """``sklearn.utils.validation.validate_data(est, X, y, reset=reset, skip_check_array=True)``, with a fast path
    for wide DataFrames.

    With ``skip_check_array=True`` scikit-learn only records (``reset=True``) or checks the number of features and
    the feature names, and refuses a missing ``y`` when the estimator requires one. On a DataFrame of 7,070 string
    column labels its name handling takes 15-30 ms per call (it converts and type-checks every label), several
    times per Pipeline ``fit`` + ``predict``. For a DataFrame with at least ``_FAST_VALIDATE_COLUMNS`` columns this
    does the same: at fit, ``n_features_in_`` and ``feature_names_in_`` (when every label is a ``str``, as
    scikit-learn sets it) from ``X.columns.tolist()``; at predict, nothing more when ``X.columns`` is the very Index
    object seen at fit (the same labels, hence nothing to compare; a Pipeline passes that object from step to
    step); in every other case scikit-learn's own check."""
    from sklearn.utils import get_tags
    from sklearn.utils.validation import validate_data

    if not isinstance(X, pd.DataFrame) or X.shape[1] < _FAST_VALIDATE_COLUMNS:
        validate_data(est, X, y, reset=reset, skip_check_array=True)
        return
    if y is None and get_tags(est).target_tags.required:
        validate_data(est, X, y, reset=reset, skip_check_array=True)  # scikit-learn's own message
        return
    cols = X.columns
    if not reset:
        if est.__dict__.get("_validated_columns") is cols and getattr(est, "n_features_in_", None) == X.shape[1]:
            return
        validate_data(est, X, y, reset=False, skip_check_array=True)
        return
    names = cols.tolist()
    strings = isinstance(cols.dtype, pd.StringDtype) and not cols.hasnans  # (a pandas string Index: all str)
    if not (strings or all(type(n) is str for n in names)):  # mixed or non-string labels: scikit-learn decides
        est.__dict__.pop("_validated_columns", None)
        validate_data(est, X, y, reset=True, skip_check_array=True)
        return
    est.feature_names_in_ = np.asarray(names, dtype=object)
    est.n_features_in_ = X.shape[1]
    est._validated_columns = cols


def _is_dask(obj) -> bool:
    """A dask collection, recognised without importing dask (``pgmpy_ext.dask`` is a higher layer)."""
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


#: The estimators whose ``fit`` takes a dask DataFrame (named in every refusal).
DASK_FIT = ("the NB, TAN, FAN, SBN, ABN, kDB, BAN, cTAN, CL-multinet, K2 and structural TM classifiers, "
            "LatentClassEM and EMAClustering")
#: The estimators whose ``predict*`` map over a dask DataFrame's partitions.
DASK_PREDICT = "the single-network classifiers of pgmpy_ext.classifiers (every one but CLMultinetClassifier)"


def refuse_dask(est, *arrays, method: str = "fit") -> None:
    """Refuse a dask collection among ``arrays`` with a TypeError naming the estimator, the method and the fix.

    Called at the entrance of every ``fit`` / ``predict*`` / ``transform`` that needs its rows in memory, before
    anything reads the data: converting a dask DataFrame with ``numpy.asarray`` would compute all of it, silently,
    and lose its column names (design note ``docs/decisions/issue24-one-vocabulary.md``, "One vocabulary")."""
    if not any(a is not None and _is_dask(a) for a in arrays):
        return
    name = type(est).__name__
    if method == "fit":
        raise TypeError(f"{name} does not fit on a dask DataFrame: its fit needs the rows in memory. Compute the frame "
                        f"(X.compute()) or a sample of it first; {DASK_FIT} fit on dask data directly.")
    raise TypeError(f"{name}.{method} does not take a dask DataFrame: it needs the rows in memory. Compute the rows "
                    f"first (X.compute(), or a partition at a time: X.partitions[i].compute()), or map it over the "
                    f"partitions (X.map_partitions(est.{method}) with meta); {DASK_PREDICT} {method} on dask data "
                    "directly.")


def check_numeric_frame(X, who: str) -> None:
    """For a real-valued estimator: a DataFrame ``X`` with unique column names, at least one column, and only
    numbers (NaN allowed here; finiteness is the caller's rule), else a clear error naming the column, the first
    value that is not a number and its row label. Arrays are left to ``check_array``."""
    if not isinstance(X, pd.DataFrame):
        return
    check_unique_columns(X, who)
    if X.shape[1] == 0:
        raise ValueError(f"X has no columns (0 features); {who} needs at least one numeric column.")
    for j, col in enumerate(X.columns):
        s = X.iloc[:, j]
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype) \
                and not isinstance(s.dtype, pd.CategoricalDtype):
            continue
        values = s.to_numpy(dtype=object)
        for r, v in enumerate(values):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                continue
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (Real, np.number)):
                label = X.index[r].item() if isinstance(X.index[r], np.generic) else X.index[r]
                text = (f"Column {col!r} has the value {v!r} ({type(v).__name__}) at row {label!r}; {who} needs "
                        "real-valued numeric columns. Convert the column to numbers (pandas.to_numeric(X[col], "
                        "errors='coerce') turns what is not a number into NaN) or drop it.")
                # a string or a bool is a wrong value; a list or a dict is not a cell value at all
                raise ValueError(text) if isinstance(v, (str, bytes, bool, np.bool_)) else TypeError(text)


def check_pgmpy_data(est, data, *, complete=None, reason: str = "") -> None:
    """The data of a pgmpy-face estimator's ``fit(model, data)``: an in-memory DataFrame with unique column names
    and at least one row, else a clear error naming the estimator and the fix; with ``complete`` (columns), no
    missing cell (NaN, None or pd.NA) in those columns, else an error naming the column, the row label and
    ``reason``."""
    refuse_dask(est, data, method="fit")
    name = type(est).__name__
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{name}.fit(model, data) takes data as a pandas DataFrame (one column per node), got "
                        f"{type(data).__name__}.")
    check_unique_columns(data, name)
    if data.shape[0] == 0:
        raise ValueError(f"data has no rows (0 samples); {name} needs at least one row.")
    for j, col in enumerate(data.columns):  # pgmpy turns object columns into categories: unhashable cells fail there
        if pd.api.types.is_object_dtype(data.dtypes.iloc[j]):
            try:
                pd.factorize(data.iloc[:, j])
            except TypeError:
                from pgmpy_ext.data._encoded import _unhashable_error

                raise _unhashable_error(col, data.iloc[:, j]) from None
    if complete:
        cols = [c for c in complete if c in data.columns]
        na = data[cols].isna().to_numpy()
        if na.any():
            r, k = (int(v[0]) for v in np.nonzero(na))
            label = data.index[r].item() if isinstance(data.index[r], np.generic) else data.index[r]
            cell = data[cols[k]].iloc[r]
            what = "NaN" if isinstance(cell, float) else "None" if cell is None else repr(cell)
            raise ValueError(f"Column {cols[k]!r} has a missing value ({what}) at row {label!r}; {name} needs "
                             f"complete data{' (' + reason + ')' if reason else ''}. Impute or drop the incomplete "
                             "rows first.")


def check_unique_columns(X, who: str) -> None:
    """A ValueError naming the duplicated column labels of a DataFrame ``X`` (nothing for arrays): every column is
    a variable with its own name (a node of the network, a feature of the model)."""
    cols = getattr(X, "columns", None)
    if cols is None or not isinstance(cols, pd.Index) or not cols.has_duplicates:
        return
    dup = cols[cols.duplicated()].unique().tolist()
    raise ValueError(f"X has duplicated column names {dup!r}; {who} needs one column per name. Rename or drop the "
                     "duplicates first, e.g. X.loc[:, ~X.columns.duplicated()].")


class DiscreteInputMixin:
    """Input handling of a scikit-learn estimator whose features are discrete (mix in before ``BaseEstimator``).

    Provides the estimator tags (categorical and string input), :meth:`_check_common_params` (the one parameter check,
    :func:`pgmpy_ext.utils.check_params`, against the class's ``_parameter_constraints`` table, which starts from
    :data:`PARAMETER_VOCABULARY`), :meth:`_fit_frame` (the training
    ``X`` as a DataFrame, with ``n_features_in_`` / ``feature_names_in_`` set) and :meth:`_predict_frame` (new
    ``X`` checked against the fitted features, with the fitted column labels when it is not a DataFrame).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    #: ``{parameter: [constraint, ...]}`` (see :func:`pgmpy_ext.utils.check_params`); subclasses extend it.
    _parameter_constraints: dict = dict(PARAMETER_VOCABULARY)

    def _check_common_params(self) -> None:
        check_params(self)

    #: The estimators whose ``fit`` takes a dask DataFrame (named in the refusal of every other one).
    _DASK_FIT = DASK_FIT

    def _fit_frame(self, X, y=None) -> pd.DataFrame:
        """Training ``X`` as a DataFrame (a DataFrame is returned as it is, never modified); sets
        ``n_features_in_`` and ``feature_names_in_``. A dask collection reaching here is refused (its rows would
        be computed into memory and its column names lost), and so are duplicated column names."""
        refuse_dask(self, X, y, method="fit")
        check_unique_columns(X, type(self).__name__)
        frame = as_frame(X)
        validate_frame(self, X, y, reset=True)
        return frame

    def _predict_frame(self, X, columns, method: str = "predict") -> pd.DataFrame:
        """New ``X`` as a DataFrame whose columns are the fitted ``columns`` (checked by ``validate_data``: same
        number of features, same names when names were seen at fit). A dask collection is refused (the estimators
        that predict on dask data handle it before this)."""
        refuse_dask(self, X, method=method)
        frame = as_frame(X)
        validate_frame(self, X, reset=False)
        if not isinstance(X, pd.DataFrame):
            frame.columns = list(columns)
        return frame
