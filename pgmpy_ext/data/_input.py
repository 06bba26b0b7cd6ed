"""The scikit-learn input side shared by every estimator on discrete data: tags, frame conversion, validation.

Classifiers (:class:`pgmpy_ext.classifiers.BNClassifierBase`) and clusterers (``BaseBNMixture``) inherit
:class:`DiscreteInputMixin`; it holds the one copy of the input rules, so a new learner family cannot drift from
them.
"""

from __future__ import annotations

import numbers

import pandas as pd

from pgmpy_ext.utils.validation import check_generator

# scikit-learn is imported inside the functions that use it (only estimators do), so that ``pgmpy_ext.data`` and
# ``pgmpy_ext.stats`` load without it: a Dask worker running our kernels then imports neither scikit-learn nor
# pgmpy (design note scale-out.md §5.6).

__all__ = ["DiscreteInputMixin", "as_frame"]


def as_frame(X) -> pd.DataFrame:
    """A DataFrame passes through unchanged (never modified); anything else goes through ``check_array`` and gets
    columns ``x0, x1, ...``."""
    if isinstance(X, pd.DataFrame):
        return X
    from sklearn.utils.validation import check_array

    arr = check_array(X, dtype=None, accept_sparse=False, ensure_all_finite=False)
    return pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])


class DiscreteInputMixin:
    """Input handling of a scikit-learn estimator whose features are discrete (mix in before ``BaseEstimator``).

    Provides the estimator tags (categorical and string input), :meth:`_check_common_params` for the options every
    learner shares (``n_jobs`` and, where the learner has one, ``random_state``), :meth:`_fit_frame` (the training
    ``X`` as a DataFrame, with ``n_features_in_`` / ``feature_names_in_`` set) and :meth:`_predict_frame` (new
    ``X`` checked against the fitted features, with the fitted column labels when it is not a DataFrame).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    def _check_common_params(self) -> None:
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is not None:
            from sklearn.utils import check_scalar

            check_scalar(n_jobs, "n_jobs", numbers.Integral)
        if "random_state" in self.get_params(deep=False):
            check_generator(self.random_state)

    def _fit_frame(self, X, y=None) -> pd.DataFrame:
        """Training ``X`` as a DataFrame (a DataFrame is returned as it is, never modified); sets
        ``n_features_in_`` and ``feature_names_in_``."""
        from sklearn.utils.validation import validate_data

        frame = as_frame(X)
        validate_data(self, X, y, skip_check_array=True)
        return frame

    def _predict_frame(self, X, columns) -> pd.DataFrame:
        """New ``X`` as a DataFrame whose columns are the fitted ``columns`` (checked by ``validate_data``: same
        number of features, same names when names were seen at fit)."""
        from sklearn.utils.validation import validate_data

        frame = as_frame(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        if not isinstance(X, pd.DataFrame):
            frame.columns = list(columns)
        return frame
