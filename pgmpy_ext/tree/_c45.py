"""C4.5 decision tree with WEKA J48 semantics (gain ratio, multiway nominal splits, numeric thresholds,
error-based pruning with subtree raising), used as a feature selector (BBN-DT, Pansombut's thesis, chapter 2)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from statistics import NormalDist

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from pgmpy_ext.data import as_frame, check_unique_columns, refuse_dask
from pgmpy_ext.utils import Interval, Options, check_params

__all__ = ["C45Classifier", "add_errs", "used_tree_features"]

_SMALL = 1e-6  # WEKA Utils.SMALL: gr(a, b) is a - b > 1e-6


def add_errs(n: float, e: float, cf: float = 0.25) -> float:
    """Extra errors C4.5 adds to a leaf that covers ``n`` cases with ``e`` errors (WEKA ``Stats.addErrs``).

    The upper limit of the binomial error rate at confidence ``cf``, times ``n``, minus ``e``: the pessimistic
    estimate of error-based pruning.

    Examples
    --------
    >>> round(add_errs(6, 0), 4), round(add_errs(16, 1), 4), round(add_errs(100, 10), 4)
    (1.2378, 1.4757, 2.7496)
    """
    if cf > 0.5:
        raise ValueError(f"cf == {cf}, must be <= 0.5 (WEKA's addErrs is defined for confidence <= 0.5).")
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        if e == 0:
            return base
        return base + e * (add_errs(n, 1, cf) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return r * n - e


def _xlog2x(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a, dtype=np.float64)
    pos = a > 0
    out[pos] = a[pos] * np.log2(a[pos])
    return out


def _info_gain(bags: np.ndarray) -> np.ndarray:
    """Information gain (bits) of splits given their (..., n_bags, n_classes) count tables (WEKA InfoGainSplitCrit:
    0 when the gain is within 1e-6 of 0)."""
    total = bags.sum(axis=(-2, -1))
    per_class = bags.sum(axis=-2)
    per_bag = bags.sum(axis=-1)
    old = _xlog2x(total) - _xlog2x(per_class).sum(-1)
    new = _xlog2x(per_bag).sum(-1) - _xlog2x(bags).sum(axis=(-2, -1))
    num = old - new
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where((np.abs(num) < _SMALL) | (total <= 0), 0.0, num / np.where(total > 0, total, 1.0))
    return gain


def _split_info(per_bag: np.ndarray) -> np.ndarray:
    total = per_bag.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = (_xlog2x(total) - _xlog2x(per_bag).sum(-1)) / np.where(total > 0, total, 1.0)
    return ent


class _Node:
    __slots__ = ("rows", "counts", "feature", "threshold", "children", "empty")

    def __init__(self, rows, counts):
        self.rows = rows
        self.counts = counts
        self.feature = -1
        self.threshold = np.nan
        self.children: list[_Node] = []
        self.empty = rows.shape[0] == 0

    @property
    def is_leaf(self) -> bool:
        return not self.children


class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5 decision tree with WEKA J48's defaults and semantics; ``used_features_`` lists the features it tests.

    Pansombut's thesis, chapter 2 (``docs/decisions/seed004-bench-itdt.md``, "The decision tree used as feature
    selector"; confidence 0.25 and M = 2, J48's defaults, as the thesis states none): the tree BBN-DT uses to select
    features for a Bayesian-network classifier. Growth by gain ratio among the attributes whose information gain is
    at least the average (J48's ``C45ModelSelection``); nominal attributes split multiway, numeric ones binary at a
    threshold with C4.5 Release 8's MDL correction; then collapsing and error-based pruning with subtree raising.
    scikit-learn's CART differs (binary splits, Gini or entropy, cost-complexity pruning), which is why this exists.

    Parameters
    ----------
    confidence : float, default 0.25
        Confidence factor ``CF`` of the pessimistic error estimate (J48 ``-C``; in (0, 0.5]). Smaller prunes more.
    min_samples_leaf : int, default 2
        J48 ``-M``: a split needs at least two branches with this many cases (numeric splits: both sides at least
        ``max(M, min(25, 0.1 n / n_classes))``).
    subtree_raising : bool, default True
        Consider replacing a node by its largest branch while pruning (J48 ``-S`` turns it off).
    prune : bool, default True
        Error-based pruning (J48 ``-U`` turns it off).
    collapse : bool, default True
        Before pruning, turn into a leaf every subtree whose training error is not below the node's (J48's
        ``collapseTree``).
    nominal : "auto", "all" or list of feature names/indices, default "auto"
        Which features are nominal (multiway splits): "auto" takes categorical, object, string and boolean
        columns (integer columns are numeric, as in WEKA's ARFF ``numeric``); "all" makes every feature nominal
        (with an integer numpy array, e.g. discretised codes, this is the fast path); the others are numeric.

    Attributes
    ----------
    used_features_ : ndarray of int
        Indices of the features tested at internal nodes of the pruned tree, ascending (BBN-DT's ``X'``).
    used_feature_names_ : ndarray of object
        Their names (``x0, x1, ...`` for arrays).
    classes_ : ndarray
        Class labels in ``np.unique`` order (the columns of ``predict_proba``).
    n_leaves_ : int
    depth_ : int
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.

    See Also
    --------
    pgmpy_ext.tree.used_tree_features : ``X'`` of any fitted tree (this one or scikit-learn's).

    Notes
    -----
    Gain ratio of a split of :math:`S` into bags :math:`S_a`:

    .. math::

        \\mathrm{GR} = \\frac{\\mathrm{Info}(S) - \\sum_a \\frac{|S_a|}{|S|}\\mathrm{Info}(S_a)}
            {-\\sum_a \\frac{|S_a|}{|S|}\\log_2\\frac{|S_a|}{|S|}}

    A leaf with ``N`` cases and ``E`` errors is charged ``E + add_errs(N, E, CF)`` predicted errors; a node becomes
    a leaf when that is within 0.1 of its subtree's and its largest branch's predicted errors, and is replaced by
    its largest branch when that branch is within 0.1 of the subtree. Departures from J48: no missing values at
    fit or predict (impute first: the seed imputes before discretising, section 1.2); at predict time an unseen
    nominal value stops the descent and the node's class distribution is returned (J48 spreads such a case over
    the branches);
    the numeric threshold is the midpoint of the two training values (J48 later moves it to the largest training
    value below it, which predicts the same on the training data).

    References
    ----------
    .. [1] J. R. Quinlan, C4.5: Programs for Machine Learning, Morgan Kaufmann, 1993.
    .. [2] WEKA 3.6 ``weka.classifiers.trees.J48`` (``C45ModelSelection``, ``C45Split``,
       ``C45PruneableClassifierTree``, ``Stats.addErrs``).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"outlook": ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast", "sunny",
    ...                               "sunny", "rain", "sunny", "overcast", "overcast", "rain"],
    ...                   "windy": [False, True, False, False, False, True, True, False, False, False, True, True,
    ...                             False, True]})
    >>> y = ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"]
    >>> tree = C45Classifier().fit(X, y)
    >>> tree.used_feature_names_.tolist()
    ['outlook', 'windy']
    """

    def __init__(self, *, confidence=0.25, min_samples_leaf=2, subtree_raising=True, prune=True, collapse=True,
                 nominal="auto"):
        self.confidence = confidence
        self.min_samples_leaf = min_samples_leaf
        self.subtree_raising = subtree_raising
        self.prune = prune
        self.collapse = collapse
        self.nominal = nominal

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    _parameter_constraints = {"confidence": [Interval(numbers.Real, 0, 0.5, closed="right")],
                              "min_samples_leaf": [Interval(numbers.Integral, 1, None)], "prune": ["boolean"],
                              "subtree_raising": ["boolean"], "collapse": ["boolean"],
                              "nominal": [Options("auto", "all"), "array-like"]}

    def _check_params(self):
        check_params(self)

    # ------------------------------------------------------------------ encoding
    def _nominal_mask(self, frame: pd.DataFrame) -> np.ndarray:
        if isinstance(self.nominal, str):
            if self.nominal not in ("auto", "all"):
                raise ValueError(f"nominal == {self.nominal!r}, must be 'auto', 'all' or a list of features.")
            if self.nominal == "all":
                return np.ones(frame.shape[1], dtype=bool)
            return np.array([not pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)
                             for dt in frame.dtypes], dtype=bool)
        cols = list(frame.columns)
        mask = np.zeros(len(cols), dtype=bool)
        for f in self.nominal:
            if f in cols:
                mask[cols.index(f)] = True
            elif isinstance(f, numbers.Integral) and 0 <= f < len(cols):
                mask[int(f)] = True
            else:
                raise ValueError(f"nominal names {f!r}, which is not a feature (features: {cols!r}).")
        return mask

    def _encode(self, frame: pd.DataFrame, fit: bool, raw=None):
        """(codes of the nominal features, values of the numeric ones); refuses missing and infinite cells."""
        if raw is not None and self._is_nominal_.all():
            # integer array, every feature nominal: vectorised (no per-column pandas work)
            arr = np.asarray(raw)
            if fit:
                self._states_ = [np.unique(arr[:, j]).tolist() for j in range(arr.shape[1])]
            codes = np.empty(arr.shape, dtype=np.int32)
            for j, states in enumerate(self._states_):
                st = np.asarray(states)
                pos = np.clip(np.searchsorted(st, arr[:, j]), 0, max(st.size - 1, 0))
                codes[:, j] = np.where(st[pos] == arr[:, j], pos, -1)
            return codes, np.zeros((arr.shape[0], 0))
        na = frame.isna().to_numpy()
        if na.any():
            self._refuse_nan(frame, int(np.flatnonzero(na.any(axis=0))[0]), na[:, na.any(axis=0)][:, 0])
        nom = np.flatnonzero(self._is_nominal_)
        num = np.flatnonzero(~self._is_nominal_)
        try:
            values = np.ascontiguousarray(frame.iloc[:, num].to_numpy(dtype=np.float64)) if num.size else \
                np.zeros((frame.shape[0], 0))
        except (TypeError, ValueError):
            raise self._non_numeric(frame, num, fit) from None
        if not np.isfinite(values).all():
            bad = ~np.isfinite(values)
            self._refuse_nan(frame, int(num[np.flatnonzero(bad.any(axis=0))[0]]), bad[:, bad.any(axis=0)][:, 0])
        codes = np.zeros((frame.shape[0], nom.size), dtype=np.int32)
        if fit:
            self._states_ = []
        for t, j in enumerate(nom):
            s = frame.iloc[:, j]
            if s.dtype == object:
                unhashable = [r for r, v in enumerate(s.tolist()) if not isinstance(v, Hashable)]
                if unhashable:
                    r = unhashable[0]
                    label = frame.index[r].item() if isinstance(frame.index[r], np.generic) else frame.index[r]
                    raise TypeError(f"argument must be a string or a number: column {frame.columns[j]!r} has "
                                    f"{s.iloc[r]!r} (a {type(s.iloc[r]).__name__}) at row {label!r}; a nominal cell "
                                    "holds one value. Convert such cells (e.g. to a string) or drop the column.")
            if fit:
                if isinstance(s.dtype, pd.CategoricalDtype):
                    states = [_loose(v)[1] for v in s.cat.categories]
                else:
                    states = sorted({_loose(v)[1] for v in s.to_numpy(dtype=object)},
                                    key=lambda v: (type(v).__name__, v))
                self._states_.append(states)
            states = self._states_[t]
            if isinstance(s.dtype, pd.CategoricalDtype) and fit:
                codes[:, t] = s.cat.codes.to_numpy()
            else:
                lookup = {_loose(v): k for k, v in enumerate(states)}
                codes[:, t] = [lookup.get(_loose(v), -1) for v in s.to_numpy(dtype=object)]
        return codes, values

    @staticmethod
    def _non_numeric(frame, num, fit: bool) -> ValueError:
        """The first cell of a numeric feature that is not a number: its column, value and row label."""
        for j in num:
            col = frame.iloc[:, j]
            conv = pd.to_numeric(col, errors="coerce")
            bad = np.flatnonzero(conv.isna().to_numpy() & col.notna().to_numpy())
            if bad.size:
                r = int(bad[0])
                v, label = col.iloc[r], frame.index[r]
                label = label.item() if isinstance(label, np.generic) else label
                when = "" if fit else ", a numeric feature at fit,"
                return ValueError(f"Column {frame.columns[j]!r}{when} has the non-numeric value {v!r} at row "
                                  f"{label!r}; C45Classifier splits a numeric feature on thresholds. Declare the "
                                  "column nominal (nominal=[...] or a category dtype) or correct the value.")
        return ValueError("a numeric feature of C45Classifier holds non-numeric values; declare it nominal "
                          "(nominal=[...]) or correct the values.")

    @staticmethod
    def _refuse_nan(frame, j, bad):
        r = int(np.flatnonzero(bad)[0])  # first bad row of column j
        raise ValueError(f"Column {frame.columns[j]!r} has a missing or infinite value at row {frame.index[r]!r}; "
                         "C45Classifier needs complete data. Impute first, e.g. "
                         "make_pipeline(SimpleImputer(strategy='most_frequent'), C45Classifier()).")

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Grow, collapse and prune the tree on ``X`` (nominal and numeric features) and class labels ``y``."""
        self._check_params()
        refuse_dask(self, X, y, method="fit")
        check_unique_columns(X, "C45Classifier")
        frame = as_frame(X)
        validate_data(self, X, y, skip_check_array=True)
        if frame.shape[1] == 0:
            raise ValueError("X has no columns (0 features); a classifier needs at least one feature.")
        if frame.shape[0] == 0:
            raise ValueError("X has no rows (0 samples); a classifier needs training rows of at least 2 classes.")
        y_arr = column_or_1d(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y), warn=True)
        if y_arr.shape[0] == frame.shape[0] and pd.isna(pd.Series(y_arr)).any():
            r = int(np.flatnonzero(pd.isna(pd.Series(y_arr)).to_numpy())[0])
            label = frame.index[r].item() if isinstance(frame.index[r], np.generic) else frame.index[r]
            raise ValueError(f"y has a missing class label (NaN/None) at row {label!r}; remove or impute it.")
        check_classification_targets(y_arr)
        classes, y_codes = np.unique(y_arr, return_inverse=True)
        if frame.shape[0] != y_codes.shape[0]:
            raise ValueError(f"X has {frame.shape[0]} rows but y has {y_codes.shape[0]} labels.")
        if classes.shape[0] < 2:
            raise ValueError(f"the class has a single value {classes[0]!r} (1 class); a classifier needs at least 2 "
                             "classes.")
        self.classes_ = classes
        self._is_nominal_ = self._nominal_mask(frame)
        codes, values = self._encode(frame, fit=True, raw=_int_array(X))
        self._y = y_codes.astype(np.intp)
        self._codes, self._values = codes, values
        self._cards = np.array([len(s) for s in self._states_], dtype=np.intp)
        self._col_of = np.cumsum(self._is_nominal_) - 1  # nominal feature j -> column of codes
        self._val_of = np.cumsum(~self._is_nominal_) - 1
        self._n_total = frame.shape[0]
        rows = np.arange(frame.shape[0])
        self.tree_ = self._grow(rows)
        if self.collapse:
            self._collapse(self.tree_)
        if self.prune:
            self._prune(self.tree_)
        self._strip(self.tree_)
        used = sorted(self._used(self.tree_, set()))
        self.used_features_ = np.array(used, dtype=np.intp)
        names = np.array(list(frame.columns), dtype=object)
        self.used_feature_names_ = names[self.used_features_] if used else np.array([], dtype=object)
        self.n_leaves_ = self._count_leaves(self.tree_)
        self.depth_ = self._depth(self.tree_)
        del self._codes, self._values, self._y
        return self

    def _counts(self, rows):
        return np.bincount(self._y[rows], minlength=self.classes_.shape[0]).astype(np.float64)

    def _grow(self, rows) -> _Node:
        node = _Node(rows, self._counts(rows))
        feature, threshold = self._select(rows, node.counts)
        if feature < 0:
            return node
        node.feature, node.threshold = feature, threshold
        for sub in self._route(node, rows):
            node.children.append(self._grow(sub))
        return node

    def _select(self, rows, counts) -> tuple[int, float]:
        """J48's C45ModelSelection on the rows of one node: (feature, threshold) or (-1, nan) for a leaf."""
        n = rows.shape[0]
        m_min = self.min_samples_leaf
        if n < 2 * m_min or counts.max() == n:
            return -1, np.nan
        k = self.classes_.shape[0]
        p = self._is_nominal_.shape[0]
        gain = np.zeros(p)
        ratio = np.zeros(p)
        valid = np.zeros(p, dtype=bool)
        thresholds = np.full(p, np.nan)
        y = self._y[rows]
        nom = np.flatnonzero(self._is_nominal_)
        if nom.size:
            codes = self._codes[rows]  # (n, p_nom)
            maxr = int(self._cards.max())
            idx = (np.arange(nom.size)[None, :] * maxr + codes) * k + y[:, None]
            bags = np.bincount(idx.ravel(), minlength=nom.size * maxr * k).reshape(nom.size, maxr, k).astype(float)
            per_bag = bags.sum(-1)
            ok = (per_bag >= m_min).sum(-1) >= 2
            g = _info_gain(bags)
            si = _split_info(per_bag)
            r = np.where(si > _SMALL, g / np.where(si > _SMALL, si, 1.0), 0.0)
            gain[nom], ratio[nom], valid[nom] = g, r, ok
        num = np.flatnonzero(~self._is_nominal_)
        if num.size:
            g, r, ok, t = self._numeric_splits(self._values[rows], y, k, counts)
            gain[num], ratio[num], valid[num], thresholds[num] = g, r, ok, t
        # attributes counted in the average gain: numeric, or nominal with fewer values than 0.3 of the data
        # (unless every attribute has that many: J48's multiVal)
        card = np.zeros(p)
        card[nom] = self._cards
        many = self._is_nominal_ & (card >= 0.3 * self._n_total)
        multi_val = not many.all()
        in_avg = valid & (~many if multi_val else True)
        if not in_avg.any():
            return -1, np.nan
        avg = gain[in_avg].mean()
        best, best_ratio = -1, 0.0
        for j in np.flatnonzero(valid & (gain >= avg - 1e-3)):
            if ratio[j] - best_ratio > _SMALL:
                best, best_ratio = int(j), ratio[j]
        if best < 0:
            return -1, np.nan
        return best, thresholds[best]

    def _numeric_splits(self, vals, y, k, counts):
        """J48's C45Split.handleNumericAttribute for every numeric column at once: (gain with the MDL correction,
        gain ratio, valid, threshold) per column."""
        n, q = vals.shape
        m_min = self.min_samples_leaf
        min_split = 0.1 * n / k
        min_split = m_min if min_split <= m_min else min(min_split, 25.0)
        gain = np.zeros(q)
        ratio = np.zeros(q)
        valid = np.zeros(q, dtype=bool)
        thr = np.full(q, np.nan)
        if n < 2 * min_split:
            return gain, ratio, valid, thr
        order = np.argsort(vals, axis=0, kind="stable")
        sv = np.take_along_axis(vals, order, axis=0)
        onehot = np.eye(k)[y]  # (n, k)
        left = np.cumsum(onehot[order], axis=0)[:-1]  # (n-1, q, k): rows 0..i on the left
        right = counts[None, None, :] - left
        cand = (sv[:-1] + 1e-5 < sv[1:])
        n_left = np.arange(1, n)[:, None]
        ok = cand & (n_left >= min_split) & (n - n_left >= min_split)
        bags = np.stack([left, right], axis=2)  # (n-1, q, 2, k)
        g = _info_gain(bags)
        g = np.where(ok, g, -np.inf)
        n_index = ok.sum(0)
        gmax = g.max(axis=0)
        # J48 scans the positions in order and keeps one only when it beats the best so far by more than 1e-6
        # (starting from 0): the first position within 1e-6 of the maximum, when the maximum exceeds 1e-6
        best_i = np.argmax(g >= (gmax - _SMALL)[None, :], axis=0)
        cols = np.flatnonzero((n_index > 0) & (gmax > _SMALL))
        for j in cols:
            i = int(best_i[j])
            corrected = g[i, j] - math.log2(n_index[j]) / n
            if corrected <= 0:
                continue
            si = float(_split_info(np.array([i + 1, n - i - 1], dtype=float)))
            gain[j], valid[j] = corrected, True
            ratio[j] = corrected / si if si > _SMALL else 0.0
            t = (sv[i, j] + sv[i + 1, j]) / 2
            thr[j] = sv[i, j] if t == sv[i + 1, j] else t
        return gain, ratio, valid, thr

    def _route(self, node: _Node, rows) -> list[np.ndarray]:
        j = node.feature
        if self._is_nominal_[j]:
            c = self._codes[rows, self._col_of[j]]
            return [rows[c == v] for v in range(int(self._cards[self._col_of[j]]))]
        v = self._values[rows, self._val_of[j]]
        return [rows[v <= node.threshold], rows[v > node.threshold]]

    # ------------------------------------------------------------------ collapse and prune (J48)
    def _training_errors(self, node: _Node) -> float:
        if node.is_leaf:
            return node.counts.sum() - node.counts.max() if node.counts.sum() > 0 else 0.0
        return sum(self._training_errors(c) for c in node.children)

    def _collapse(self, node: _Node) -> None:
        if node.is_leaf:
            return
        errors_tree = node.counts.sum() - node.counts.max()
        if self._training_errors(node) >= errors_tree - 1e-3:
            node.children = []
        else:
            for c in node.children:
                self._collapse(c)

    def _errors_for_counts(self, counts: np.ndarray) -> float:
        total = counts.sum()
        if total <= 0:
            return 0.0
        wrong = total - counts.max()
        return wrong + add_errs(total, wrong, self.confidence)

    def _estimated_errors(self, node: _Node) -> float:
        if node.is_leaf:
            return self._errors_for_counts(node.counts)
        return sum(self._estimated_errors(c) for c in node.children)

    def _errors_for_branch(self, node: _Node, rows) -> float:
        if node.is_leaf:
            return self._errors_for_counts(self._counts(rows))
        return sum(self._errors_for_branch(c, sub) for c, sub in zip(node.children, self._route(node, rows)))

    def _redistribute(self, node: _Node, rows) -> None:
        node.rows = rows
        node.counts = self._counts(rows)
        node.empty = rows.shape[0] == 0
        if not node.is_leaf:
            for c, sub in zip(node.children, self._route(node, rows)):
                self._redistribute(c, sub)

    def _prune(self, node: _Node) -> None:
        if node.is_leaf:
            return
        for c in node.children:
            self._prune(c)
        largest = int(np.argmax([c.rows.shape[0] for c in node.children]))
        err_branch = (self._errors_for_branch(node.children[largest], node.rows) if self.subtree_raising
                      else np.inf)
        err_leaf = self._errors_for_counts(node.counts)
        err_tree = self._estimated_errors(node)
        if err_leaf <= err_tree + 0.1 and err_leaf <= err_branch + 0.1:
            node.children = []
            return
        if err_branch <= err_tree + 0.1:
            big = node.children[largest]
            node.feature, node.threshold, node.children = big.feature, big.threshold, big.children
            self._redistribute(node, node.rows)
            self._prune(node)

    def _strip(self, node: _Node) -> None:
        """Drop the row indices (kept only while pruning)."""
        node.rows = None
        if node.is_leaf:
            node.feature = -1
        for c in node.children:
            self._strip(c)

    def _used(self, node, acc: set) -> set:
        if not node.is_leaf:
            acc.add(int(node.feature))
            for c in node.children:
                self._used(c, acc)
        return acc

    def _count_leaves(self, node) -> int:
        return 1 if node.is_leaf else sum(self._count_leaves(c) for c in node.children)

    def _depth(self, node) -> int:
        return 0 if node.is_leaf else 1 + max(self._depth(c) for c in node.children)

    # ------------------------------------------------------------------ predict
    def predict_proba(self, X) -> np.ndarray:
        """Class distribution of the leaf each row reaches (an empty leaf: its parent's; an unseen nominal value:
        the distribution of the node where the descent stops), columns in ``classes_`` order."""
        check_is_fitted(self)
        refuse_dask(self, X, method="predict_proba")
        frame = as_frame(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        if not isinstance(X, pd.DataFrame):
            frame.columns = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else \
                [f"x{i}" for i in range(frame.shape[1])]
        codes, values = self._encode(frame, fit=False, raw=_int_array(X))
        self._codes, self._values = codes, values
        try:
            out = np.zeros((frame.shape[0], self.classes_.shape[0]))
            self._descend(self.tree_, np.arange(frame.shape[0]), self.tree_.counts, out)
        finally:
            del self._codes, self._values
        return out

    def _descend(self, node, rows, parent_counts, out):
        counts = parent_counts if node.empty or node.counts.sum() == 0 else node.counts
        if node.is_leaf or rows.shape[0] == 0:
            out[rows] = counts / counts.sum()
            return
        j = node.feature
        if self._is_nominal_[j]:
            key = self._codes[rows, self._col_of[j]]
            stop = key < 0
            subs = [rows[key == v] for v in range(len(node.children))]
        else:
            v = self._values[rows, self._val_of[j]]
            stop = np.isnan(v)
            subs = [rows[v <= node.threshold], rows[v > node.threshold]]
        if stop.any():
            out[rows[stop]] = counts / counts.sum()
        for c, sub in zip(node.children, subs):
            self._descend(c, sub, counts, out)

    def predict(self, X) -> np.ndarray:
        """Most probable class per row (ties: the first class in ``classes_``)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _int_array(X):
    """X itself when it is an integer numpy array (the fast all-nominal path), else None."""
    return X if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "iu" else None


def _loose(v):
    """Lookup key of a value whose type differs from the fitted state's (e.g. numpy vs Python scalars)."""
    if isinstance(v, np.generic):
        v = v.item()
    return (type(v), v)


def used_tree_features(tree) -> np.ndarray:
    """Indices of the features tested at internal nodes of a fitted tree, ascending (BBN-DT's ``X'``).

    Accepts a fitted :class:`C45Classifier` (``used_features_``) or any fitted scikit-learn tree
    (``DecisionTreeClassifier``, ``ExtraTreeClassifier``: ``tree_.feature[tree_.feature >= 0]``), or a pipeline
    whose last step is one.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> tree = DecisionTreeClassifier(max_depth=1).fit([[0, 1], [0, 0], [1, 1], [1, 0]], [0, 0, 1, 1])
    >>> used_tree_features(tree).tolist()
    [0]
    """
    if hasattr(tree, "steps"):
        tree = tree.steps[-1][1]
    check_is_fitted(tree)
    if hasattr(tree, "used_features_"):
        return np.asarray(tree.used_features_, dtype=np.intp)
    inner = getattr(tree, "tree_", None)
    if inner is None or not hasattr(inner, "feature"):
        raise TypeError(f"{type(tree).__name__} is not a tree: pass a C45Classifier or a scikit-learn tree "
                        "(an estimator with tree_.feature).")
    f = np.asarray(inner.feature)
    return np.unique(f[f >= 0]).astype(np.intp)
