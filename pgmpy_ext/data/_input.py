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

__all__ = ["DiscreteInputMixin", "MISSING_OPTIONS", "PARAMETER_VOCABULARY", "as_frame"]

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
    if not all(type(n) is str for n in names):  # mixed or non-string labels: scikit-learn decides
        est.__dict__.pop("_validated_columns", None)
        validate_data(est, X, y, reset=True, skip_check_array=True)
        return
    est.feature_names_in_ = np.asarray(names, dtype=object)
    est.n_features_in_ = X.shape[1]
    est._validated_columns = cols


def _is_dask(obj) -> bool:
    """A dask collection, recognised without importing dask (``pgmpy_ext.dask`` is a higher layer)."""
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


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
    _DASK_FIT = ("the NB, TAN, FAN, SBN, ABN, kDB, BAN, cTAN, CL-multinet, K2 and structural TM classifiers, "
                 "LatentClassEM and EMAClustering")

    def _fit_frame(self, X, y=None) -> pd.DataFrame:
        """Training ``X`` as a DataFrame (a DataFrame is returned as it is, never modified); sets
        ``n_features_in_`` and ``feature_names_in_``. A dask collection reaching here is refused (its rows would
        be computed into memory and its column names lost)."""
        if _is_dask(X) or _is_dask(y):
            raise TypeError(f"{type(self).__name__} does not fit on a dask DataFrame: its fit needs the rows in "
                            "memory. Compute the frame (X.compute()) or a sample of it first; "
                            f"{self._DASK_FIT} fit on dask data directly.")
        frame = as_frame(X)
        validate_frame(self, X, y, reset=True)
        return frame

    def _predict_frame(self, X, columns) -> pd.DataFrame:
        """New ``X`` as a DataFrame whose columns are the fitted ``columns`` (checked by ``validate_data``: same
        number of features, same names when names were seen at fit)."""
        frame = as_frame(X)
        validate_frame(self, X, reset=False)
        if not isinstance(X, pd.DataFrame):
            frame.columns = list(columns)
        return frame
