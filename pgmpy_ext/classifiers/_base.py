"""The scikit-learn face shared by every Bayesian-network classifier.

A subclass supplies only ``_fit_structure(data, class_node, rng) -> ClassifierStructure`` (calling an engine from
:mod:`pgmpy_ext.structure`; ``rng`` is the Generator of ``random_state`` for a random learner, such as BAN's random
ordering, and None for a deterministic one, which has no ``random_state`` parameter) and its own ``__init__``
parameters; this base does input validation (through
:class:`pgmpy_ext.data.DiscreteInputMixin`), the one-time encoding, parameter fitting (built-in counts as plain
CPD tables, or any pgmpy ``DiscreteParameterEstimator``), the pgmpy model (``model_``, built from the tables when
first read), and fast prediction through the log-joint kernels.

Prediction is a template method, as in scikit-learn's ``naive_bayes._BaseNB``: a learner supplies one hook,
``_joint_log_likelihood(codes) -> (n_rows, n_classes)`` (``log p(c, x)`` in ``classes_`` order, from the feature
codes of :meth:`BNClassifierBase._encode_features`), and ``predict_joint_log_proba``, ``predict_log_proba``,
``predict_proba`` and ``predict`` are written once here. A learner that is not one network (the CL multinet)
replaces ``_fit_model`` and the hook, nothing else. A single network keeps the base hook, and its predictions go
one pass from the user's frame to the kernel (issue 25): the features are read as column codes
(:meth:`EncodedData.column_codes`, category codes uncopied) straight into the column kernel
(``pgmpy_ext.stats.log_joint_columns``), missing and unseen cells found on the way and only the rows holding one
summed out by the hook's exact marginalisation; the result has the hook's bits.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from pgmpy_ext._compat import DiscreteBayesianNetwork, DiscreteParameterEstimator
from pgmpy_ext.dask import is_dask_collection
from pgmpy_ext.data import (
    DiscreteInputMixin,
    EncodedData,
    MissingValueError,
    as_frame,  # noqa: F401  (compatibility only: clustering and evaluation still import it from here)
    encode,
)
from pgmpy_ext.models import NetworkTables, compile_network, compile_tables, marginal_log_joint, network_tables
from pgmpy_ext.stats import ColumnPlan, forest_plan, log_joint_columns, posterior_columns
from pgmpy_ext.structure import ClassifierStructure
from pgmpy_ext.utils import (
    LOG_PROB_FLOOR,
    LOG_TINY,
    check_generator,
    effective_n_threads,
    normalize_rows_in_threads,
    without_gc,
)
from pgmpy_ext.utils.validation import ANY

__all__ = ["BNClassifierBase"]

#: ``handle_unknown`` options: a state unseen at fit either raises or is summed out as a missing observation.
HANDLE_UNKNOWN = ("ignore", "error")
#: ``missing`` options: NaN/None cells are counted per family at fit and summed out at predict, or refused.
MISSING = ("available_case", "error")


def _check_targets(y, index=None) -> tuple[np.ndarray, np.ndarray]:
    """Validate class labels; return ``(classes, codes)``: the sorted distinct labels (``np.unique`` order and
    dtype) and the int32 code of every row.

    The labels are factorised once (hash based); every check after that runs on the distinct labels only.
    ``index`` (default: ``y``'s own when it is a Series) gives the row labels of messages.
    """
    if index is None and isinstance(y, (pd.Series, pd.DataFrame)):
        index = y.index
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one column of class labels, got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype) and y.shape[0]:
        # a categorical y carries its codes: the labels are checked and sorted on the categories that occur (the
        # generic path below, on one row per category, in the categories' own dtype, so integer categories are
        # integer labels as in a plain integer y), and the rows are recoded through a table: no object array of n
        # labels, no hashing of n labels
        cat_codes = y.array.codes
        if cat_codes.min() >= 0:
            present = np.flatnonzero(np.bincount(cat_codes, minlength=len(y.dtype.categories)))
            classes, ranks = _check_targets(pd.Series(np.asarray(pd.Categorical.from_codes(present, dtype=y.dtype))))
            lut = np.zeros(len(y.dtype.categories), dtype=np.int32)
            lut[present] = ranks
            return classes, lut[cat_codes]
    if isinstance(y, pd.Series):
        y = y.to_numpy(dtype=object) if not pd.api.types.is_numeric_dtype(y.dtype) else y.to_numpy()
    arr = column_or_1d(np.asarray(y), warn=True)
    try:
        codes, uniques = pd.factorize(arr, sort=True, use_na_sentinel=True)
    except TypeError as err:
        if "unhashable" in str(err):
            raise TypeError("argument must be a string or a number") from None
        raise TypeError(f"y mixes class labels of types that cannot be ordered ({err}); use labels of one type.") \
            from None
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        r = int(missing[0])
        label = _python(index[r]) if index is not None and len(index) == codes.shape[0] else r
        raise ValueError(f"y has a missing class label (NaN/None) at row {label!r}; remove or impute it.")
    uniques = np.asarray(uniques, dtype=arr.dtype)
    if uniques.dtype == object:
        for v in uniques:
            if not isinstance(v, (str, numbers.Number, bool, np.generic, tuple)):
                raise TypeError("argument must be a string or a number")
        _check_one_label_kind(uniques)
    check_classification_targets(uniques)
    return uniques, codes.astype(np.int32)


def _python(v):
    """A label as the user wrote it: numpy scalars become Python scalars (``0``, not ``np.int64(0)``)."""
    return v.item() if isinstance(v, np.generic) else v


def _check_one_label_kind(uniques: np.ndarray) -> None:
    """Refuse labels that mix strings with numbers (scikit-learn's metrics cannot compare them: its own message is
    "Unknown label type"), naming both types and the fix."""
    first = {}
    for v in uniques:
        v = _python(v)
        first.setdefault("str" if isinstance(v, str) else type(v).__name__, v)
    if "str" in first and len(first) > 1:
        other = next(k for k in first if k != "str")
        raise ValueError(f"y mixes class labels of types {other} and str (e.g. {first[other]!r} and "
                         f"{first['str']!r}); use labels of one type, e.g. y.astype(str).")


class BNClassifierBase(DiscreteInputMixin, ClassifierMixin, BaseEstimator):
    """Base of the scikit-learn Bayesian-network classifiers (not used directly).

    Subclasses define ``__init__`` with keyword-only arguments and no logic, ``_check_params`` for their own
    options (calling ``super()._check_params()``), and ``_fit_structure``. A learner that is not one network
    replaces ``_fit_model`` and ``_joint_log_likelihood`` (see :class:`~pgmpy_ext.classifiers.CLMultinetClassifier`).

    Every subclass has the fitted attributes below.

    Attributes
    ----------
    model_ : DiscreteBayesianNetwork
        The learned network, class node included, with CPDs in the user's labels.
    structure_ : ClassifierStructure
        Parent sets and the engine's diagnostics (``structure_.trace``).
    classes_ : ndarray
        Class labels in ``np.unique(y)`` order: the column order of ``predict_proba``.
    class_node_ : label
        Name of the class node in ``model_``: ``y.name`` when y is a named Series (and not a feature name), else
        ``"class"``.
    encoder_ : EncodedData
        The encoded training data (states learned at fit time; the class column last).
    estimator_ : DiscreteParameterEstimator or None
        The fitted copy of ``estimator`` (e.g. a ``TMEstimator`` with its ``cll_trace_`` and ``n_iter_``); None when
        the built-in counts were used.
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.
    """

    #: Why the structure search needs complete training data (falsy: available-case counting works).
    _needs_complete_data = ""
    #: True when the structure engine reads the training codes through the fused kernels only (never
    #: ``EncodedData.codes``): the codes are then stored in the narrowest type (int8 for up to 128 states per
    #: column; 1 byte per cell instead of 4), unless a pgmpy parameter estimator is given.
    _narrow_training_codes = False

    # ------------------------------------------------------------------ parameters
    #: The vocabulary's constraints plus ``estimator`` (any pgmpy ``DiscreteParameterEstimator``, e.g.
    #: ``pgmpy.parameter_estimator.DiscreteMLE()``); subclasses add their own options.
    _parameter_constraints = {**DiscreteInputMixin._parameter_constraints,
                              "estimator": [None, DiscreteParameterEstimator], "root": [ANY]}

    def _check_params(self):
        """Check the options against ``_parameter_constraints`` (:func:`pgmpy_ext.utils.check_params`); a subclass
        with cross-option rules calls this first."""
        self._check_common_params()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # NaN/None cells are accepted at fit (available-case counts) and predict (summed out) with
        # missing="available_case", unless the structure search needs complete training data
        tags.input_tags.allow_nan = getattr(self, "missing", "error") == "available_case" and \
            not self._complete_data_reason()
        return tags

    # ------------------------------------------------------------------ fit
    @without_gc  # wide data: thousands of columns create tens of thousands of short-lived objects (utils._gc)
    def fit(self, X, y):
        """Learn the structure and the parameters from discrete features ``X`` and class labels ``y``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Discrete features (category, str/object, bool, int, or whole-number floats). Real-valued columns are
            rejected: discretise them first (e.g. in a ``Pipeline``).
        y : array-like of shape (n_samples,)
            Class labels of any hashable type; at least two distinct classes.

        Returns
        -------
        self

        Notes
        -----
        ``X`` may be a dask DataFrame and ``y`` a dask Series from the same frame (``pgmpy-ext[dask]``): the data is
        compressed to its distinct rows with multiplicities in one pass over the partitions
        (:func:`pgmpy_ext.dask.compress`) and the learner runs in memory on that weighted data, giving the same
        model as on the computed frame. The fitted estimator holds nothing from dask.
        """
        if is_dask_collection(X) or is_dask_collection(y):
            return self._fit_dask(X, y)
        self._check_params()
        frame = self._fit_frame(X, y)
        if frame.shape[1] == 0:
            raise ValueError("X has no columns (0 features); a classifier needs at least one feature besides the "
                             "class.")
        if frame.shape[0] == 0:
            raise ValueError("X has no rows (0 samples); a classifier needs training rows of at least 2 classes.")
        classes, y_codes = _check_targets(y, None if isinstance(y, pd.Series) else frame.index)
        if y_codes.shape[0] != frame.shape[0]:
            raise ValueError(f"X has {frame.shape[0]} rows but y has {y_codes.shape[0]} labels.")
        if classes.shape[0] < 2:
            raise ValueError(f"the class has a single value {_python(classes[0])!r} (1 class); a classifier needs at "
                             "least 2 classes.")
        self.classes_ = classes
        class_node = getattr(y, "name", None)
        if class_node is None or isinstance(y, pd.DataFrame) or class_node in frame.columns:
            class_node = "class"
        if class_node in frame.columns:
            raise ValueError("a feature is named 'class'; name y (a pandas Series with another name) so that the "
                             "class node gets a distinct name.")
        self.class_node_ = class_node
        self._refuse_missing(frame)
        self.encoder_ = self._encode_training(frame, y_codes, class_node)
        # a random learner (BAN's ordering) draws from random_state; deterministic ones have no such parameter
        rng = check_generator(self.random_state) if "random_state" in self.get_params(deep=False) else None
        self.structure_ = self._fit_structure(self.encoder_, class_node, rng)
        self._fit_model(self.structure_, self.encoder_)
        return self

    #: Why ``fit`` refuses a dask DataFrame ("" when the compressed, weighted data gives the in-memory model).
    _dask_unsupported = ""

    def _fit_dask(self, X, y):
        """``fit`` on a dask DataFrame: states from one scan (or known categoricals), one compression pass, then
        the in-memory engines on the distinct rows weighted by their multiplicities (exact for these learners:
        every count they use is a sum of row weights)."""
        from pgmpy_ext import dask as pgmpy_dask

        self._check_params()
        if self._dask_unsupported:
            raise TypeError(f"{type(self).__name__} cannot fit a dask DataFrame: {self._dask_unsupported}. Compute the "
                            "frame (X.compute()) if it fits in memory.")
        if not (is_dask_collection(X) and is_dask_collection(y)) or getattr(X, "ndim", 0) != 2 \
                or getattr(y, "ndim", 0) != 1 or not hasattr(X, "to_delayed"):
            raise TypeError("fit on dask data needs X as a dask DataFrame and y as a dask Series from the same frame "
                            f"(got {type(X).__name__} and {type(y).__name__}).")
        columns = list(X.columns)
        if not columns:
            raise ValueError("X has no columns (0 features); a classifier needs at least one feature besides the "
                             "class.")
        values = pgmpy_dask.distinct_values(y)
        if not values:
            raise ValueError("y has no class label (0 samples or all missing); a classifier needs training rows of at "
                             "least 2 classes.")
        dtype = y.dtype if pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype) \
            else object
        classes, _ = _check_targets(pd.Series(values, dtype=dtype))
        if classes.shape[0] < 2:
            raise ValueError(f"the class has a single value {_python(classes[0])!r} (1 class); a classifier needs at "
                             "least 2 classes.")
        class_node = y.name
        if class_node is None or class_node in columns:
            class_node = "class"
        if class_node in columns:
            raise ValueError("a feature is named 'class'; name y (a dask Series with another name) so that the class "
                             "node gets a distinct name.")
        missing = "skip" if self.missing == "available_case" and not self._complete_data_reason() else "error"
        encoded = pgmpy_dask.encode(X, missing=missing, target=y.rename(class_node),
                                    target_states=[_python(c) for c in classes])
        data = pgmpy_dask.compress(encoded)
        if (data.codes[:, -1] < 0).any():
            raise ValueError("y has a missing class label (NaN/None); remove or impute it.")
        self.classes_ = classes
        self.class_node_ = class_node
        self.n_features_in_ = len(columns)
        if all(isinstance(c, str) for c in columns):
            self.feature_names_in_ = np.asarray(columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.encoder_ = data
        rng = check_generator(self.random_state) if "random_state" in self.get_params(deep=False) else None
        self.structure_ = self._fit_structure(self.encoder_, class_node, rng)
        self._fit_model(self.structure_, self.encoder_)
        return self

    def _predict_dask(self, X, normalize: bool):
        """Per-partition ``log p(c, x)`` (or ``log P(c | x)``) of a dask DataFrame as a dask Array with unknown
        chunk sizes (rows) and one column per class. The tasks get the compiled log-CPT arrays and the states, never
        the estimator, so workers do not import pgmpy."""
        from pgmpy_ext.dask import map_log_joint

        if type(self)._joint_log_likelihood is not BNClassifierBase._joint_log_likelihood:
            raise TypeError(f"{type(self).__name__} predicts with several networks; predict on a dask DataFrame is "
                            "available for single-network classifiers. Compute the frame, or call predict_proba "
                            "on each partition (X.map_partitions).")
        features = self._feature_names()
        missing_cols = [c for c in features if c not in X.columns]
        if missing_cols:
            raise ValueError(f"Columns {missing_cols!r} were present at fit time but are missing from the data.")
        net = self._network_
        plan = forest_plan(net.layout) if self.missing == "available_case" else None
        states = {c: self.encoder_.states[self.encoder_.index(c)] for c in features}
        return map_log_joint(X, features, states, net.layout, net.log_cpt, plan, self._class_order_,
                             missing=self.encoder_.missing, handle_unknown=self.handle_unknown, normalize=normalize)

    def _fit_model(self, structure, data: EncodedData) -> None:
        """Parameters and predictor from the structure: the CPD tables (or a pgmpy estimator's model), compiled
        for the kernels; ``model_`` is built from the tables when it is first read.

        The one step a learner that is not a single network (e.g. a multinet, with ``models_``) replaces."""
        fitted = self._fit_parameters(structure, data)
        if isinstance(fitted, NetworkTables):
            self.__dict__.pop("_model", None)
            self._model_tables_ = fitted
        else:
            self.model_ = fitted
        self._compile()

    @property
    def model_(self) -> DiscreteBayesianNetwork:
        """The learned ``DiscreteBayesianNetwork``, class node included, CPDs in the user's labels.

        Built on first access from the fitted CPD tables (then kept): the built-in parameters are fitted and
        compiled for prediction as arrays, so ``fit`` + ``predict`` never pay for the pgmpy objects (7,071
        ``TabularCPD`` objects for a naive Bayes on 7,070 genes) unless the model is asked for. Departs from
        STYLE.md section 5 ("build the pgmpy model last" in ``fit``) for that reason; the model is the same."""
        model = self.__dict__.get("_model")
        if model is None:
            tables = self.__dict__.get("_model_tables_")
            if tables is None:
                raise AttributeError(f"'{type(self).__name__}' object has no attribute 'model_' (not fitted).")
            model = self.__dict__["_model"] = tables.to_network()
        return model

    @model_.setter
    def model_(self, value) -> None:
        self.__dict__["_model"] = value
        self.__dict__.pop("_model_tables_", None)

    @model_.deleter
    def model_(self) -> None:
        if "_model" not in self.__dict__ and "_model_tables_" not in self.__dict__:
            raise AttributeError("model_")
        self.__dict__.pop("_model", None)
        self.__dict__.pop("_model_tables_", None)

    def _encode_training(self, frame: pd.DataFrame, y_codes: np.ndarray, class_node) -> EncodedData:
        """The features encoded once, with the class codes appended as the last column (states = ``classes_``)."""
        labels = [_python(v) for v in self.classes_]
        # one encoding pass over the features; the class codes are appended as they are (no frame is built)
        narrow = self._narrow_training_codes and getattr(self, "estimator", None) is None
        return encode(frame, missing="skip" if self.missing == "available_case" else "error",
                      codes_dtype="auto" if narrow else None, append=(class_node, y_codes, labels))

    def _complete_data_reason(self) -> str:
        """Why fit needs complete training data ("" when available-case counting works): the structure search's
        own reason, or a parameter estimator whose pgmpy tags say ``supports_missing_data: False`` (the TM)."""
        if self._needs_complete_data:
            return self._needs_complete_data
        est = getattr(self, "estimator", None)
        if est is not None and getattr(est, "_tags", {}).get("supports_missing_data", True) is False:
            return f"the {type(est).__name__} parameters"
        return ""

    def _refuse_missing(self, frame: pd.DataFrame) -> None:
        """With ``missing="error"``, or when the structure search needs complete data, a NaN/None training cell is
        refused here, naming this estimator's options (before the encoder could give its generic message)."""
        reason = self._complete_data_reason()
        if not (reason or self.missing == "error"):
            return
        na = frame.isna().to_numpy()
        if not na.any():
            return
        r, k = (int(v[0]) for v in np.nonzero(na))
        col, row = frame.columns[k], _python(frame.index[r])
        if reason:
            raise ValueError(f"{type(self).__name__} needs complete training data ({reason}), "
                             f"but column {col!r} is missing at row {row!r} (a NaN/None cell). Impute or drop the "
                             "rows with missing values before fit (or use a learner with available-case counting, "
                             "e.g. TANClassifier with estimator=None); missing cells at predict time are summed out.")
        raise ValueError(f"Column {col!r} has a missing value (NaN/None) at row {row!r}; missing='error' refuses it. "
                         "Use missing='available_case' (the default: available-case counts at fit, missing features "
                         "summed out at predict), or impute or drop it.")

    def _fit_structure(self, data: EncodedData, class_node, rng: np.random.Generator) -> ClassifierStructure:
        raise NotImplementedError

    def _fit_parameters(self, structure: ClassifierStructure, data: EncodedData) -> DiscreteBayesianNetwork:
        parents = structure.parent_sets()
        self.estimator_ = None
        if self.estimator is not None:
            structure.take_counts(None, parents)  # not used by a pgmpy estimator; dropped from structure_
        if self.estimator is None:
            # counts the structure engine already has on this data (e.g. TAN's pair tables) are not counted again
            return network_tables(parents, data, alpha=self.alpha, counts=structure.take_counts(data, parents),
                                  n_jobs=self.n_jobs or 1)
        # Any pgmpy parameter estimator: fit a fresh copy (the user's instance is left untouched) on the decoded
        # training frame with every state declared, then attach its CPDs.
        est = self.estimator.clone()
        params = est.get_params()
        if "state_names" in params:
            est.set_params(state_names=data.state_names)
        if "class_node" in params and params["class_node"] is None:
            # discriminative estimators (e.g. TMEstimator) maximise p(class | features): tell them the class
            est.set_params(class_node=structure.class_node)
        model = DiscreteBayesianNetwork()
        model.add_nodes_from(parents)
        model.add_edges_from([(p, c) for c, ps in parents.items() for p in ps])
        fit_encoded = getattr(est, "fit_encoded", None)
        if callable(fit_encoded):
            # pgmpy-ext estimators take the encoded data as it is (no decode / re-encode round trip)
            fit_encoded(model, data)
        elif data.weights is not None:
            # weighted training data (fit on a dask DataFrame: distinct rows with multiplicities)
            if not bool(est.get_tag("supports_weighted_data")):
                raise TypeError(f"{type(est).__name__} does not accept row weights (its pgmpy tag "
                                "supports_weighted_data is False), and fit on a dask DataFrame passes the data as "
                                "distinct rows with multiplicities. Use an estimator that does (e.g. DiscreteMLE, "
                                "DiscreteBayesianEstimator, TMEstimator) or compute the frame.")
            est.fit(model, data.to_frame(categorical=True), sample_weight=data.weights)
        else:
            est.fit(model, data.to_frame(categorical=True))
        model.add_cpds(*est.parameters_)
        model.check_model()
        self.estimator_ = est
        return model

    def _compile(self):
        """``model_`` compiled once for the log-joint kernel, its code columns in the encoder's feature order (so
        :meth:`_encode_features` feeds it directly); every log-CPT entry floored at ``LOG_PROB_FLOOR``."""
        tables = self.__dict__.get("_model_tables_")
        if tables is not None and "_model" not in self.__dict__:
            net = compile_tables(tables, self.class_node_, columns=self._feature_names())
        else:
            net = compile_network(self.model_, self.class_node_, columns=self._feature_names())
        np.maximum(net.log_cpt, LOG_PROB_FLOOR, out=net.log_cpt)
        self._network_ = net
        order = {(type(c), c): k for k, c in enumerate(net.states[self.class_node_])}
        self._class_order_ = np.array([order[(type(v), v)] for v in map(_python, self.classes_)])
        # the column kernel's plan, built here so that predict never changes the estimator's __dict__
        self._column_plan_ = (net, ColumnPlan.build(net.layout, net.log_cpt, class_order=self._class_order_))

    # ------------------------------------------------------------------ predict
    def _feature_names(self) -> list:
        return list(self.encoder_.columns[:-1])

    def _column_codes(self, X):
        """New ``X`` as one code array per feature (:meth:`EncodedData.column_codes`, states learned at fit, the
        encoder's feature order). ``-1`` marks a cell to sum out: a missing cell (NaN/None, with
        ``missing="available_case"``) or a value unseen at fit (with ``handle_unknown="ignore"``; with ``"error"`` it
        raises a ValueError naming the column, the value and the row by its index label). A column most of whose
        values were not seen at fit is reported with an ``UnseenValuesWarning``."""
        features = self._feature_names()
        frame = self._predict_frame(X, features)
        try:
            return self.encoder_.column_codes(frame, features, handle_unknown=self.handle_unknown)
        except MissingValueError as err:
            raise ValueError(f"Column {err.column!r} has a missing value (NaN/None) at row {err.row!r}; "
                             f"{type(self).__name__}(missing='error') refuses it. Use missing='available_case' "
                             "to sum missing features out exactly, or impute them.") from None

    def _encode_features(self, X) -> np.ndarray:
        """int32 codes ``(n_rows, n_features)`` of new ``X`` (see :meth:`_column_codes`), as one matrix."""
        return self._column_codes(X).matrix()

    def _column_plan(self) -> ColumnPlan:
        """The fitted network in the column kernel's layout, classes in ``classes_`` order (built once; also for
        estimators pickled before it existed)."""
        net = self._network_
        cached = self.__dict__.get("_column_plan_")
        if cached is None or cached[0] is not net:
            cached = self._column_plan_ = (net, ColumnPlan.build(net.layout, net.log_cpt,
                                                                 class_order=self._class_order_))
        return cached[1]

    def _forest(self):
        net = self._network_
        cached = self.__dict__.get("_forest_plan_")  # (layout, plan), computed at the first missing cell
        if cached is None or cached[0] is not net.layout:
            cached = self._forest_plan_ = (net.layout, forest_plan(net.layout))
        return cached[1]

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """The hook: ``log p(c, x)`` (natural log), shape (n_rows, n_classes), columns in ``classes_`` order.

        Cells coded ``-1`` are summed out exactly (:func:`pgmpy_ext.models.marginal_log_joint`: the forest kernel
        for one-dependence networks, variable elimination per missingness pattern otherwise); rows without one are
        bit-identical to the complete-data kernel."""
        net = self._network_
        plan = self._forest() if (codes < 0).any() else None
        return marginal_log_joint(net.layout, net.log_cpt, codes, plan=plan, n_jobs=self.n_jobs or 1)[
            :, self._class_order_]

    @without_gc
    def _joint_from_columns(self, X) -> np.ndarray:
        """``log p(c, x)`` of a single network read straight from the column codes of ``X`` (no code matrix): the
        column kernel for every row, then exact marginalisation (as :meth:`_joint_log_likelihood`) for the rows it
        marked as having a cell to sum out. Bit-identical to ``_joint_log_likelihood(_encode_features(X))``."""
        cc = self._column_codes(X)
        if cc.n_rows == 0:
            return np.zeros((0, len(self.classes_)), dtype=np.float64)
        out, n_marked = log_joint_columns(self._column_plan(), cc.arrays, n_jobs=self.n_jobs or 1)
        if n_marked:
            rows = np.flatnonzero(np.isnan(out[:, 0]))
            net = self._network_
            out[rows] = marginal_log_joint(net.layout, net.log_cpt, cc.matrix(rows), plan=self._forest(),
                                           n_jobs=self.n_jobs or 1)[:, self._class_order_]
        return out

    @without_gc
    def _posterior_from_columns(self, X, *, log: bool) -> np.ndarray:
        """``P(class | x)`` (or its log) of a single network read straight from the column codes of ``X``: the
        column kernel and the row normalisation fused per chunk of rows, in ``n_jobs`` threads
        (:func:`pgmpy_ext.stats.posterior_columns`); rows with a cell to sum out get their exact joint scores first
        (as in :meth:`_joint_from_columns`). The same numbers as normalising :meth:`_joint_from_columns`."""
        import threading

        cc = self._column_codes(X)
        if cc.n_rows == 0:
            return np.zeros((0, len(self.classes_)), dtype=np.float64)
        net = self._network_
        lock = threading.Lock()

        def fix_marked(start: int, part: np.ndarray) -> None:
            rows = np.flatnonzero(np.isnan(part[:, 0]))
            with lock:  # the forest plan is built once, by the first chunk that needs it
                plan = self._forest()
            part[rows] = marginal_log_joint(net.layout, net.log_cpt, cc.matrix(rows + start), plan=plan,
                                            n_jobs=1)[:, self._class_order_]

        return posterior_columns(self._column_plan(), cc.arrays, n_jobs=self.n_jobs or 1, log=log, floor=LOG_TINY,
                                 fix_marked=fix_marked)

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probability ``log p(class, x)`` per row (natural log), columns in ``classes_`` order.

        As scikit-learn's naive Bayes ``predict_joint_log_proba``: the unnormalised scores whose row-wise
        normalisation is :meth:`predict_log_proba`; log-CPT entries are floored at ``log(1e-300)``."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._predict_dask(X, normalize=False)
        if type(self)._joint_log_likelihood is BNClassifierBase._joint_log_likelihood:
            return self._joint_from_columns(X)
        return self._joint_log_likelihood(self._encode_features(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior ``log P(class | x)`` per row, columns in ``classes_`` order.

        Values below ``log(2.2e-308)`` (the smallest normal double; reachable with ``alpha=0`` models, whose zero
        probabilities are floored at 1e-300 per CPT entry) are reported as that value, so that
        ``predict_proba == exp(predict_log_proba)`` has no zeros where the log is finite."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._predict_dask(X, normalize=True)
        if type(self)._joint_log_likelihood is BNClassifierBase._joint_log_likelihood:
            return self._posterior_from_columns(X, log=True)
        joint = self.predict_joint_log_proba(X)  # a fresh array: normalised in place
        return normalize_rows_in_threads(joint, floor=LOG_TINY, n_threads=effective_n_threads(self.n_jobs))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(class | x)`` per row, shape (n_samples, n_classes), columns in ``classes_`` order (a dask
        Array, computed partition by partition on the workers, when ``X`` is a dask DataFrame)."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return np.exp(self.predict_log_proba(X))
        if type(self)._joint_log_likelihood is BNClassifierBase._joint_log_likelihood:
            return self._posterior_from_columns(X, log=False)
        joint = self.predict_joint_log_proba(X)  # a fresh array: normalised and exponentiated in place
        return normalize_rows_in_threads(joint, floor=LOG_TINY, exp=True, n_threads=effective_n_threads(self.n_jobs))

    def predict(self, X) -> np.ndarray:
        """Most probable class per row (ties: the first class in ``classes_``)."""
        check_is_fitted(self)
        if is_dask_collection(X):
            from pgmpy_ext.dask import labels_of

            return labels_of(self.predict_log_proba(X), self.classes_)
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]
