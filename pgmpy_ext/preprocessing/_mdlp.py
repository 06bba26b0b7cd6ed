"""Supervised MDL entropy discretisation (Fayyad & Irani 1993): the engine ``mdlp_cut_points`` and the
scikit-learn face ``MDLPDiscretizer``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.special import xlogy
from sklearn.utils.validation import column_or_1d

from pgmpy_ext.preprocessing._binning import _DiscretizerBase

__all__ = ["MDLPDiscretizer", "mdlp_cut_points"]

#: Candidate cuts whose class-information entropies differ by less than this (bits) are ties; the lowest cut wins.
TIE_TOL_BITS = 1e-10


def _entropy_bits(counts: np.ndarray) -> np.ndarray:
    """Class entropy in bits of each row of a (..., n_classes) count array (rows must have a positive total).

    ``H = log2(n) - sum_c n_c log2(n_c) / n``, with ``0 log 0 = 0``.
    """
    n = counts.sum(axis=-1)
    return np.log2(n) - xlogy(counts, counts).sum(axis=-1) / (n * math.log(2.0))


def mdlp_cut_points(x: np.ndarray, y_codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Fayyad-Irani MDLP cut points of one attribute (the engine behind :class:`MDLPDiscretizer`).

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        Finite attribute values.
    y_codes : ndarray of int, shape (n,)
        Class codes in ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.

    Returns
    -------
    ndarray of float64
        The accepted cut points, increasing (midpoints between adjacent distinct values).

    Notes
    -----
    The column is sorted once. Rows with equal values form *groups*; ``G[j]`` holds the class counts of groups
    ``0 .. j-1`` (prefix sums over the sorted rows, taken at group starts), so the class counts on either side of
    any cut in any interval are differences of two rows of ``G``. Each interval examined by the recursion scores
    all its candidate cuts at once in numpy; only the recursion itself (one step per accepted cut plus one per
    rejected interval) is a Python loop.
    """
    n = x.shape[0]
    if n < 2:
        return np.empty(0, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y_codes[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])      # (m,) first sorted row of each value group
    m = starts.shape[0]
    if m < 2:
        return np.empty(0, dtype=np.float64)
    values = xs[starts]
    onehot = np.zeros((n, n_classes), dtype=np.float64)
    onehot[np.arange(n), ys] = 1.0
    cum = np.zeros((n + 1, n_classes), dtype=np.float64)
    np.cumsum(onehot, axis=0, out=cum[1:])
    G = cum[np.r_[starts, n]]                                     # (m + 1, K) class counts of groups 0 .. j-1
    group_counts = np.diff(G, axis=0)                             # (m, K)
    # A group is "pure" when all its rows have one class. The cut between groups j-1 and j is a boundary point
    # unless both groups are pure with the same class (Fayyad & Irani 1993, section 2.1).
    n_present = (group_counts > 0).sum(axis=1)
    pure = np.where(n_present == 1, group_counts.argmax(axis=1), -1)
    is_boundary = np.r_[False, ~((pure[:-1] >= 0) & (pure[:-1] == pure[1:]))]   # (m,): cut before group j
    log3 = {}

    cuts = []
    stack = [(0, m)]                                              # intervals of groups [a, b)
    while stack:
        a, b = stack.pop()
        cand = a + 1 + np.flatnonzero(is_boundary[a + 1:b])       # cut before group j, a < j < b
        if cand.size == 0:
            continue
        total = G[b] - G[a]
        n_s = total.sum()
        left = G[cand] - G[a]                                     # (n_cand, K)
        right = total - left
        n_left = left.sum(axis=1)
        ent_left = _entropy_bits(left)
        ent_right = _entropy_bits(right)
        e = (n_left * ent_left + (n_s - n_left) * ent_right) / n_s   # E(A, T; S), class information entropy
        best = int(np.flatnonzero(e <= e.min() + TIE_TOL_BITS)[0])   # ties: the lowest cut
        ent_s = float(_entropy_bits(total))
        gain = ent_s - float(e[best])
        k = int((total > 0).sum())
        k1 = int((left[best] > 0).sum())
        k2 = int((right[best] > 0).sum())
        if k not in log3:
            log3[k] = math.log2(3 ** k - 2)                      # exact integer power, no overflow
        delta = log3[k] - (k * ent_s - k1 * float(ent_left[best]) - k2 * float(ent_right[best]))
        if gain > (math.log2(n_s - 1) + delta) / n_s:            # the MDLP acceptance criterion
            j = int(cand[best])
            cuts.append((values[j - 1] + values[j]) / 2.0)
            stack.append((j, b))
            stack.append((a, j))
    return np.sort(np.asarray(cuts, dtype=np.float64))


class MDLPDiscretizer(_DiscretizerBase):
    r"""Supervised entropy discretisation with the MDL stopping rule of Fayyad & Irani (1993).

    Each selected column is split recursively: the binary cut with the lowest class-information entropy (among the
    class-boundary points) is kept when the MDL principle accepts it, and both halves are split again. This is
    the discretisation of Ruz's thesis, chapter 3, and of Santafé (2007), chapter 5, fitted on
    the training fold only (``docs/decisions/seed000-sbn-cem-nbm.md``, ``seed001-tm-classifiers.md``).

    Parameters
    ----------
    columns : None, "numeric" or list of labels, default None
        Which columns to discretise; all others pass through unchanged.
        ``None``: the columns the classifiers cannot take as categorical
        (:func:`pgmpy_ext.data.numeric_columns_to_discretize`): float columns with a value that is not a whole
        number, and integer or whole-number float columns with more than
        :data:`pgmpy_ext.data.MAX_NUMERIC_STATES` (50) distinct values; integer-coded categorical columns with
        at most 50 values pass through, so ``Pipeline([("disc", MDLPDiscretizer()), ("clf", TANClassifier())])``
        takes data such as credit_g as it is. ``"numeric"``: every numeric (not bool, not categorical) column
        (this also merges the states of int-coded categorical columns, which is rarely wanted). A list: exactly
        these columns (integer positions are accepted for array input).

    Attributes
    ----------
    columns_ : list
        The discretised columns, in input order (``x0, x1, ...`` for array input).
    cut_points_ : dict
        ``{column: ndarray}``: the accepted cut points, increasing (midpoints between adjacent training values).
        A value ``v`` goes to bin ``numpy.searchsorted(cut_points_[col], v, side="right")``.
    n_bins_ : dict
        ``{column: int}``: ``len(cut_points_[col]) + 1``; 1 when no cut was accepted.
    classes_ : ndarray
        The class labels seen in ``fit``, sorted (first-appearance order when they cannot be sorted).
    n_features_in_, feature_names_in_
        Set by scikit-learn's ``validate_data``.

    See Also
    --------
    EqualWidthDiscretizer, EqualFrequencyDiscretizer : unsupervised binning.
    mdlp_cut_points : the engine for one column.

    Notes
    -----
    For a set :math:`S` of :math:`N` training rows and a cut :math:`T` splitting it into :math:`S_1, S_2`, the class
    information entropy is
    :math:`E(A, T; S) = \frac{|S_1|}{N} \mathrm{Ent}(S_1) + \frac{|S_2|}{N} \mathrm{Ent}(S_2)`. The candidate cuts
    are the boundary points: midpoints between adjacent distinct values unless the rows at both values all have
    one and the same class (the entropy minimum is always at one of them). The best cut (lowest :math:`E`; ties
    within 1e-10 bits go to the lowest cut) is accepted iff

    .. math::

        \mathrm{Gain}(A, T; S) > \frac{\log_2(N - 1)}{N} + \frac{\Delta(A, T; S)}{N}, \qquad
        \Delta = \log_2(3^k - 2) - [k\,\mathrm{Ent}(S) - k_1 \mathrm{Ent}(S_1) - k_2 \mathrm{Ent}(S_2)],

    where :math:`\mathrm{Gain} = \mathrm{Ent}(S) - E(A, T; S)` and :math:`k, k_1, k_2` are the numbers of classes
    present in :math:`S, S_1, S_2`. Entropies are in bits, as in the paper. A column with no accepted cut becomes a
    single bin (its node then carries no information for the classifier that follows).

    Output: a new DataFrame (also for array input); each discretised column becomes a pandas Categorical with
    categories ``0 .. n_bins_[col] - 1`` (integer bin codes, all declared), the rest is unchanged. A missing value
    (NaN) is left out of the cut search and stays missing in the output; inf in a column to discretise raises
    ``ValueError``.

    References
    ----------
    .. [1] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued attributes for
       classification learning", Proc. IJCAI 1993, pp. 1022-1027.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5], "k": [0, 1, 0, 1, 0, 1, 0, 1]})
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> disc = MDLPDiscretizer().fit(X, y)
    >>> disc.columns_, disc.cut_points_["x"].tolist()
    (['x'], [4.0])
    >>> out = disc.transform(X)
    >>> out["x"].tolist(), out["x"].cat.categories.tolist(), out["k"].tolist()
    ([0, 0, 0, 0, 1, 1, 1, 1], [0, 1], [0, 1, 0, 1, 0, 1, 0, 1])
    """

    _supervised = True

    def __init__(self, *, columns=None):
        self.columns = columns

    def fit(self, X, y=None):
        """Learn the cut points of the selected columns from ``X`` (a training fold) and class labels ``y``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels of any hashable type (no missing labels).

        Returns
        -------
        self
        """
        try:
            return super().fit(X, y)
        finally:
            self.__dict__.pop("_y_codes", None)

    def _check_targets(self, y, n_rows: int):
        labels = pd.Series(column_or_1d(y if isinstance(y, (pd.Series, np.ndarray)) else
                                        np.asarray(y, dtype=object), warn=True))
        if labels.shape[0] != n_rows:
            raise ValueError(f"X has {n_rows} rows but y has {labels.shape[0]} labels.")
        try:
            codes, classes = pd.factorize(labels, sort=True, use_na_sentinel=True)
        except TypeError:  # labels of mixed, unorderable types: first-appearance order
            codes, classes = pd.factorize(labels, use_na_sentinel=True)
        if (codes < 0).any():
            r = int(np.flatnonzero(codes < 0)[0])
            label = labels.index[r] if not isinstance(y, pd.Series) else y.index[r]
            label = label.item() if isinstance(label, np.generic) else label
            raise ValueError(f"y has a missing class label (NaN/None) at row {label!r}; remove or impute it.")
        self._y_codes = codes.astype(np.intp)
        self.classes_ = np.asarray(classes)

    def _fit_cuts(self, values: np.ndarray, y) -> list:
        n_classes = int(self.classes_.shape[0])
        observed = ~np.isnan(values)  # missing cells are left out of each column's cut search
        return [mdlp_cut_points(values[observed[:, j], j], self._y_codes[observed[:, j]], n_classes)
                for j in range(values.shape[1])]
