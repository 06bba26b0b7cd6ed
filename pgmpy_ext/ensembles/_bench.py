"""BENCH: the biclustering-driven ensemble of Bayesian-network classifiers (Pansombut's thesis, chapter 4)."""

from __future__ import annotations

import logging
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import hypergeom
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from pgmpy_ext._compat import show_progress_enabled
from pgmpy_ext.biclustering import SAMBA, check_finite_matrix
from pgmpy_ext.classifiers import K2Classifier
from pgmpy_ext.data import PARAMETER_VOCABULARY, check_numeric_frame, refuse_dask
from pgmpy_ext.ensembles._weighting import WEIGHTINGS, weighted_vote
from pgmpy_ext.utils import ANY, Interval, Options, check_generator, check_params, fill_doc

__all__ = ["BENCHClassifier", "BenchDataset", "apply_cuts", "bench_datasets", "bicluster_labels", "equal_width_cuts"]

logger = logging.getLogger(__name__)



# ---------------------------------------------------------------------------------------------------- pieces
def equal_width_cuts(A: np.ndarray, n_bins: int = 3, strategy: str = "equal_width") -> np.ndarray:
    """Cut points ``(n_bins - 1, n_features)`` of the D-EW3 discretisation (Pansombut's thesis,
    sections 3.4.2 and 5.3; equal-width bins, see ``docs/decisions/seed004-bench-itdt.md``, "Discretisation").

    ``equal_width``: ``lo + k (hi - lo) / n_bins``; ``equal_frequency``: the ``k / n_bins`` quantiles. A value
    equal to a cut point goes to the lower bin (WEKA's ``Discretize``); bins are open-ended, and a constant
    feature has every value in bin 0.

    Examples
    --------
    >>> import numpy as np
    >>> cuts = equal_width_cuts(np.array([[0.0, 5.0], [3.0, 5.0]]))
    >>> cuts[:, 0].tolist(), apply_cuts(np.array([[1.0, 5.0], [1.5, 7.0], [9.0, 5.0]]), cuts).tolist()
    ([1.0, 2.0], [[0, 0], [1, 0], [2, 0]])
    """
    if strategy == "equal_width":
        lo, hi = A.min(axis=0), A.max(axis=0)
        k = np.arange(1, n_bins)[:, None]
        cuts = lo[None, :] + k * (hi - lo)[None, :] / n_bins
        cuts[:, hi == lo] = np.inf  # a constant feature: everything in bin 0
        return cuts
    if strategy == "equal_frequency":
        return np.quantile(A, np.arange(1, n_bins) / n_bins, axis=0)
    raise ValueError(f"strategy == {strategy!r}, must be one of ['equal_frequency', 'equal_width'].")


def apply_cuts(A: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """int8 bin codes ``(n_rows, n_features)``: the number of cut points strictly below each value."""
    codes = np.zeros(A.shape, dtype=np.int8)
    for k in range(cuts.shape[0]):
        codes += A > cuts[k][None, :]
    return codes


def bicluster_labels(rows: np.ndarray, y_pos: np.ndarray, *, alpha: float = 0.05,
                     negative_rule: str = "complement") -> tuple[np.ndarray, np.ndarray]:
    """Hypergeometric homogeneity label of each bicluster (Pansombut's thesis, chapter 4;
    ``docs/decisions/seed004-bench-itdt.md``, "Step 2 — homogeneity by hypergeometric test").

    Parameters
    ----------
    rows : bool array (n_biclusters, n_rows)
        Sample membership.
    y_pos : bool array (n_rows,)
        True for a positive training row.
    alpha : float
        Significance threshold.
    negative_rule : {"complement", "lower_tail"}
        ``"complement"`` (the thesis): "-" when ``P(X >= k) > 1 - alpha``; ``"lower_tail"``: "-" when
        ``P(X <= k) < alpha``.

    Returns
    -------
    labels : array of str ("+", "-" or "mixed"), p_upper : float array (the upper-tail p-values)

    Examples
    --------
    >>> import numpy as np
    >>> y = np.r_[np.ones(42, bool), np.zeros(23, bool)]
    >>> rows = np.zeros((3, 65), bool); rows[0, :12] = True; rows[1, 37:49] = True; rows[2, 39:51] = True
    >>> lab, p = bicluster_labels(rows, y)
    >>> lab.tolist(), np.round(p, 5).tolist()
    (['+', '-', '-'], [0.00275, 0.98379, 0.99974])
    """
    N = y_pos.size
    K = int(y_pos.sum())
    n = rows.sum(axis=1)
    k = (rows & y_pos[None, :]).sum(axis=1)
    p_upper = hypergeom.sf(k - 1, N, K, n)
    if negative_rule == "complement":
        neg = p_upper > 1.0 - alpha
    elif negative_rule == "lower_tail":
        neg = hypergeom.cdf(k, N, K, n) < alpha
    else:
        raise ValueError(f"negative_rule == {negative_rule!r}, must be one of ['complement', 'lower_tail'].")
    labels = np.where(p_upper < alpha, "+", np.where(neg, "-", "mixed"))
    return labels, p_upper


@dataclass(frozen=True)
class BenchDataset:
    """One member's training view: rows and features (bool masks over the training fold), kind ``"FI"``/``"FE"``
    and the biclusters it came from (indices into the biclusterer's output)."""

    rows: np.ndarray
    features: np.ndarray
    kind: str
    pair: tuple[int, int]


def bench_datasets(rows: np.ndarray, cols: np.ndarray, labels: np.ndarray, *, min_shared_features=0,
                   include_fi: bool = True, include_fe: bool = True) -> list[BenchDataset]:
    """The Feature-Inclusion and Feature-Exclusion datasets of BENCH (spec sections 6.4 and 6.5), deduplicated.

    FI: for every ("+", "-") pair whose gene sets share more than ``min_shared_features`` genes (an int), or whose
    Jaccard overlap exceeds it (a float in (0, 1)): rows = union, features = intersection. FE: for every unordered
    pair of "mixed" biclusters sharing at least one gene: rows = union, features = all genes outside both. Exact
    duplicates (same rows and same features, decision 16) are dropped, keeping the first; FI come before FE, pairs
    in index order.

    Examples
    --------
    >>> import numpy as np
    >>> rows = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]], bool)
    >>> cols = np.array([[1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 1]], bool)
    >>> ds = bench_datasets(rows, cols, np.array(["+", "-", "mixed", "mixed"]))
    >>> [(d.kind, np.flatnonzero(d.rows).tolist(), np.flatnonzero(d.features).tolist()) for d in ds]
    [('FI', [0, 1, 2, 3], [1]), ('FE', [0, 1, 2, 3], [0, 1, 2])]
    """
    out: list[BenchDataset] = []
    seen: set = set()

    def add(r, f, kind, pair):
        key = (r.tobytes(), f.tobytes())
        if key not in seen:
            seen.add(key)
            out.append(BenchDataset(r, f, kind, pair))

    pos, neg, mixed = (np.flatnonzero(labels == lab) for lab in ("+", "-", "mixed"))
    if include_fi:
        for a in pos:
            for b in neg:
                shared = cols[a] & cols[b]
                n_shared = int(shared.sum())
                if isinstance(min_shared_features, numbers.Integral):
                    ok = n_shared > min_shared_features
                else:
                    ok = n_shared > 0 and n_shared / int((cols[a] | cols[b]).sum()) > min_shared_features
                if ok:
                    add(rows[a] | rows[b], shared, "FI", (int(a), int(b)))
    if include_fe:
        for i, a in enumerate(mixed):
            for b in mixed[i + 1:]:
                if (cols[a] & cols[b]).any():
                    add(rows[a] | rows[b], ~(cols[a] | cols[b]), "FE", (int(a), int(b)))
    return out


def _member_frame(codes: np.ndarray, names, n_bins: int) -> pd.DataFrame:
    """A DataFrame of Categorical bin codes: every bin is a declared state (decision on state names, section 1.4)."""
    # Categorical.from_codes per column with one shared dtype is ~15x faster than DataFrame.astype on thousands
    # of columns (no factorising)
    dtype = pd.CategoricalDtype(list(range(n_bins)))
    codes_t = np.ascontiguousarray(np.asarray(codes).T)
    return pd.DataFrame({name: pd.Categorical.from_codes(codes_t[j], dtype=dtype) for j, name in enumerate(names)})


def _fit_member(estimator, codes, y, names, n_bins, seed):
    est = clone(estimator)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=seed)
    est.fit(_member_frame(codes, names, n_bins), y)
    return est


def default_fallback(n_bins: int = 3):
    """The guard's default single network: ``EqualFrequencyDiscretizer(n_bins)`` then ``K2Classifier()``."""
    from sklearn.pipeline import make_pipeline

    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    return make_pipeline(EqualFrequencyDiscretizer(n_bins), K2Classifier())


# ---------------------------------------------------------------------------------------------------- estimator
@fill_doc
class BENCHClassifier(ClassifierMixin, BaseEstimator):
    r"""BENCH: an ensemble of Bayesian-network classifiers, one per bicluster-derived dataset, with a weighted vote.

    Pansombut's thesis chapter 4 (``docs/decisions/seed004-bench-itdt.md``, "Algorithm 3 — BENCH"). Fitted directly on
    the continuous expression matrix of a training fold: the matrix is imputed (``imputer``), biclustered (SAMBA by
    default) on the continuous values, and each bicluster is labelled homogeneous positive, homogeneous negative
    or mixed by a hypergeometric test on its samples' classes (section 6.3). Every ("+", "-") pair sharing genes
    gives a Feature-Inclusion (FI) dataset (rows: union, genes: intersection), every overlapping pair of mixed
    biclusters a Feature-Exclusion (FE) dataset (rows: union, genes: all others). One member classifier is trained
    per dataset on the equal-width discretisation of the training fold (bins fitted on the training
    rows and kept for prediction), and members vote with one of the section 5 weightings.

    Parameters
    ----------
    biclusterer : estimator, list or tuple, optional
        ``None``: ``SAMBA()``. On a leukemia-sized microarray (~65 x 7000) the thesis's bicluster sizes (FI
        datasets of ~24 rows x ~226 genes, ~59 members) come from ``SAMBA(threshold=0.75, p_c=0.5, min_rows=4,
        max_overlap=0.65)``, the reproduction's calibration (see :class:`~pgmpy_ext.biclustering.SAMBA`, Notes);
        the defaults give only a handful of biclusters there. An estimator with the scikit-learn biclustering
        convention (``fit(X)`` then
        ``rows_`` and ``columns_``, e.g. ``SAMBA`` or ``sklearn.cluster.SpectralBiclustering``): cloned and fitted
        on each training matrix. Precomputed biclusters: a list of ``(row_indices, column_indices)`` pairs, or a
        ``(rows, columns)`` tuple of boolean arrays, positions in the ``X`` passed to ``fit``.
    estimator : classifier, optional
        The member (cloned per dataset; ``random_state`` set from this one's). Default ``K2Classifier(alpha=0.5,
        parent_prior="uniform")`` (WEKA K2, at most 5 parents, BAYES score and CPTs with alpha 0.5: the thesis's).
        Members see a DataFrame of Categorical bin codes.
    imputer : transformer, optional
        Fitted on the training fold and applied to every matrix (the thesis: column means, e.g.
        ``SimpleImputer(strategy="mean")``). Without one a missing value raises a ValueError.
    n_bins : int, default 3
        Bins per gene.
    binning : {"equal_width", "equal_frequency"}, default "equal_width"
        Equal-width bins (the thesis's section 5.3) or equal-frequency ones (the thesis says "equal-sized").
    min_shared_features : int or float, default 0
        FI rule: an int ``a`` needs more than ``a`` shared genes; a float in (0, 1) a Jaccard overlap above it
        (the thesis does not report its threshold).
    significance : float in (0, 0.5], default 0.05
        Significance level of the homogeneity test that labels a bicluster "+" or "-" (the thesis's alpha).
    negative_rule : {"complement", "lower_tail"}, default "complement"
        The thesis's "h > 0.95" or a proper lower-tail test.
    pos_label : label, optional
        The "+" class; default the minority class (the last in ``classes_`` on a tie).
    include_fi, include_fe : bool, default True
        Which datasets to build (the thesis's FI-only variant is the fast one).
    fe_max_features : int, optional
        Keep at most this many genes (a random sample) in an FE dataset.
    n_members : int, optional
        Train a random sample of this many datasets (the thesis's 5-member variant); default all.
    weighting : {"majority", "training_error", "confidence", "soft"} or callable, default "confidence"
        Section 5 (:func:`pgmpy_ext.ensembles.weighted_vote`): equal weights; ``1 - e_i``; the member's posterior
        of the class it votes for; the sum of posteriors; or a callable ``(probas, train_errors) -> weights``.
    error_scope : {"own", "fold"}, default "own"
        Rows of a member's training error: its own rows or the whole training fold (the thesis does not say).
    max_train_error : float in [0, 1], optional
        Drop members whose training error exceeds it (the thesis's ``te``; off, as the thesis does not say BENCH applies
        it).
    guard : bool, default True
        Guard against biclusters that carry no class signal (``docs/decisions/issue29-microarray-ensembles.md``,
        "BENCH: a guard against biclusters without class
        signal"; not in the thesis): after the members are
        fitted, the ensemble's out-of-member error on the training rows (each row voted on only by the members
        that did not train on it) is compared with the stratified 5-fold cross-validated error of ``fallback`` on
        all training rows and genes (the imputed continuous matrix); when the ensemble's is higher, ``fallback``
        fitted on the whole training fold makes the predictions. ``guard_`` reports both errors and the decision.
        False is the thesis's BENCH (the reproductions use it).
    fallback : classifier, optional
        The single classifier of the guard, fitted on the imputed continuous training matrix (a DataFrame with the
        gene names); default ``make_pipeline(EqualFrequencyDiscretizer(n_bins), K2Classifier())``
        (:func:`default_fallback`: the library's default single network behind equal-frequency bins).
    %(n_jobs)s
    random_state : None, int or numpy Generator
        Seeds the biclusterer (when it has ``random_state`` and none is set), FE caps, member sampling and members.
    show_progress : bool, default False
        A progress bar over members.

    Attributes
    ----------
    estimators_ : list of fitted classifiers
        The members; a Bayesian-network member keeps its pgmpy ``DiscreteBayesianNetwork`` in ``model_``.
    models_ : list
        ``[est.model_ for est in estimators_]`` (members without ``model_`` give None).
    estimators_features_ : list of int arrays
        Feature positions of each member.
    datasets_ : list of BenchDataset
        Every FI/FE dataset (rows and features as masks over the training fold); ``member_datasets_`` maps members
        to it (-1 for the fallback member) and ``member_kinds_`` gives each member's kind ("FI", "FE" or "all").
    training_errors_ : float array
        Each member's training error.
    guard_ : dict
        ``{"enabled", "ensemble_error" (out-of-member, on the rows some member did not train on), "rows_judged",
        "fallback_error" (5-fold CV), "used_fallback"}``; the errors are None when the guard is off or could not
        judge (no row outside every member, or a training class with fewer than 2 rows). ``fallback_`` is the
        fitted fallback when it is used, else None.
    biclusters_ : (rows, columns) bool arrays
        The biclusters of the training fold; ``bicluster_labels_`` and ``bicluster_pvalues_`` their labels.
    classes_, pos_label_, cuts_, imputer_, n_features_in_, feature_names_in_
        ``cuts_`` is the ``(n_bins - 1, n_features)`` array of cut points.

    See Also
    --------
    pgmpy_ext.biclustering.SAMBA : the default biclusterer.

    Notes
    -----
    For a bicluster of :math:`n` of the :math:`N` training rows, :math:`k` of them positive (:math:`K` in all),

    .. math::

        h = P(X \ge k) = \sum_{i=k}^{\min(n, K)} \binom{K}{i}\binom{N-K}{n-i} \Big/ \binom{N}{n}

    labels it "+" when :math:`h <` ``significance`` and "-" when :math:`h > 1 -` ``significance``. The vote is
    :math:`\hat y = \arg\max_c \sum_i w_i [\hat y_i = c]` (ties: the larger summed posterior, then the training
    majority); ``predict_proba`` is the normalised vote. When no FI/FE dataset has both classes, BENCH warns and
    falls back to one member on all rows and genes (the spec's fallback is BBN-DT; this one needs no tree).

    References
    ----------
    .. [1] A. Pansombut, PhD thesis, NC State (c. 2011), chapter 4; A. Pansombut et al., IJCAI 2011.

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_planted_biclusters
    >>> X, y, planted = make_planted_biclusters(n_genes=100, bicluster_cols=(10, 12), random_state=0)
    >>> clf = BENCHClassifier(biclusterer=SAMBA(n_seeds=50), random_state=0).fit(X, y)
    >>> clf.bicluster_labels_.tolist()
    ['mixed', '+', '-', '+', 'mixed', '-', '+', 'mixed']
    >>> [clf.datasets_[i].kind for i in clf.member_datasets_], clf.predict(X.iloc[:4]).tolist()
    (['FE'], [1, 1, 1, 1])
    """

    def __init__(self, *, biclusterer=None, estimator=None, imputer=None, n_bins=3, binning="equal_width",
                 min_shared_features=0, significance=0.05, negative_rule="complement", pos_label=None,
                 include_fi=True, include_fe=True, fe_max_features=None, n_members=None, weighting="confidence",
                 error_scope="own", max_train_error=None, guard=True, fallback=None, n_jobs=None, random_state=None,
                 show_progress=False):
        self.biclusterer = biclusterer
        self.estimator = estimator
        self.imputer = imputer
        self.n_bins = n_bins
        self.binning = binning
        self.min_shared_features = min_shared_features
        self.significance = significance
        self.negative_rule = negative_rule
        self.pos_label = pos_label
        self.include_fi = include_fi
        self.include_fe = include_fe
        self.fe_max_features = fe_max_features
        self.n_members = n_members
        self.weighting = weighting
        self.error_scope = error_scope
        self.max_train_error = max_train_error
        self.guard = guard
        self.fallback = fallback
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.imputer is not None
        tags.classifier_tags.multi_class = False
        return tags

    _parameter_constraints = {
        **PARAMETER_VOCABULARY, "biclusterer": [ANY], "estimator": [None, ClassifierMixin], "imputer": [ANY],
        "n_bins": [Interval(numbers.Integral, 2, None)], "binning": [Options("equal_width", "equal_frequency")],
        "min_shared_features": [Interval(numbers.Integral, 0, None), Interval(numbers.Real, 0, 1, closed="neither")],
        "significance": [Interval(numbers.Real, 0, 0.5, closed="right")],
        "negative_rule": [Options("complement", "lower_tail")], "pos_label": [ANY],
        "include_fi": ["boolean"], "include_fe": ["boolean"],
        "fe_max_features": [None, Interval(numbers.Integral, 1, None)],
        "n_members": [None, Interval(numbers.Integral, 1, None)],
        "weighting": [Options(WEIGHTINGS), "callable"], "error_scope": [Options("own", "fold")],
        "max_train_error": [None, Interval(numbers.Real, 0, 1)],
        "guard": ["boolean"], "fallback": [None, ANY],
    }

    def _check_params(self):
        check_params(self)
        if self.fallback is not None and not (isinstance(self.fallback, BaseEstimator) and is_classifier(self.fallback)
                                              and hasattr(self.fallback, "predict_proba")):
            raise TypeError(f"fallback must be a scikit-learn classifier with predict_proba (a Pipeline ending in one "
                            f"is fine), got {type(self.fallback).__name__}.")
        if not (self.include_fi or self.include_fe):
            raise ValueError("include_fi and include_fe are both False; BENCH needs at least one kind of dataset.")

    # ------------------------------------------------------------------ matrices
    def _matrix(self, X, *, fit: bool) -> np.ndarray:
        """float64 matrix of ``X``, imputed by ``imputer_`` (fitted here when ``fit``)."""
        arr = check_array(X, dtype=np.float64, ensure_all_finite=False)
        if self.imputer is None:
            return check_finite_matrix(X, "BENCHClassifier (without an imputer)")
        if fit:
            self.imputer_ = clone(self.imputer).fit(arr)
        out = np.asarray(self.imputer_.transform(arr), dtype=np.float64)
        if out.shape != arr.shape:
            raise ValueError(f"the imputer changed the matrix shape from {arr.shape} to {out.shape} (it dropped "
                             "columns with no observed value?); BENCH needs one output column per gene.")
        return check_finite_matrix(out, "BENCHClassifier (after the imputer)")

    def _biclusters(self, A: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
        m, n = A.shape
        bc = self.biclusterer
        if bc is None or hasattr(bc, "fit"):
            est = SAMBA() if bc is None else clone(bc)
            params = est.get_params(deep=False)
            if "random_state" in params and params["random_state"] is None:
                est.set_params(random_state=int(rng.integers(2**31 - 1)))
            est.fit(A)
            self.biclusterer_ = est
            return np.asarray(est.rows_, dtype=bool), np.asarray(est.columns_, dtype=bool)
        self.biclusterer_ = None
        if isinstance(bc, tuple) and len(bc) == 2 and np.ndim(bc[0]) == 2:
            rows, cols = np.asarray(bc[0], dtype=bool), np.asarray(bc[1], dtype=bool)
            if rows.shape[1] != m or cols.shape[1] != n or rows.shape[0] != cols.shape[0]:
                raise ValueError(f"precomputed biclusters have shapes {rows.shape} and {cols.shape}; expected "
                                 f"(k, {m}) and (k, {n}) for X of shape {(m, n)}.")
            return rows, cols
        rows = np.zeros((len(bc), m), dtype=bool)
        cols = np.zeros((len(bc), n), dtype=bool)
        for i, item in enumerate(bc):
            try:
                r, c = item
                rows[i, np.asarray(r, dtype=np.intp)] = True
                cols[i, np.asarray(c, dtype=np.intp)] = True
            except (TypeError, ValueError, IndexError) as err:
                raise ValueError(f"precomputed bicluster {i} is not a (row indices, column indices) pair of "
                                 f"positions below {(m, n)}: {err}") from err
        return rows, cols

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Bicluster the training matrix, build the FI/FE datasets and fit one member per dataset."""
        self._check_params()
        refuse_dask(self, X, y, method="fit")
        check_numeric_frame(X, "BENCHClassifier")
        if y is None:  # (scikit-learn's check_requires_y_none looks for these words)
            raise ValueError("BENCHClassifier requires y to be passed, but the target y is None; call fit(X, y) "
                             "with the class labels.")
        y_na = pd.isna(pd.Series(np.asarray(y, dtype=object).ravel() if not isinstance(y, pd.Series) else y,
                                 dtype=object)).to_numpy()
        if y_na.any():
            r = int(np.flatnonzero(y_na)[0])
            label = X.index[r] if isinstance(X, pd.DataFrame) and r < X.shape[0] else r
            label = label.item() if isinstance(label, np.generic) else label
            raise ValueError(f"y has a missing class label (NaN/None) at row {label!r}; remove or impute it.")
        _, y_arr = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=2)
        y_type = type_of_target(y_arr, input_name="y", raise_unknown=True)
        if y_type not in ("binary", "multiclass"):
            raise ValueError(f"y is {y_type}; BENCHClassifier needs one column of class labels.")
        rng = check_generator(self.random_state)
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else \
            [f"x{j}" for j in range(self.n_features_in_)]
        self.classes_, y_codes = np.unique(y_arr, return_inverse=True)
        if self.classes_.size != 2:
            raise ValueError(f"Only binary classification is supported. The type of the target is {y_type}: y has "
                             f"{self.classes_.size} class(es) {self.classes_.tolist()!r}; BENCH's hypergeometric "
                             "homogeneity test needs exactly 2 classes (thesis section 5.2).")
        A = self._matrix(X, fit=True)
        counts = np.bincount(y_codes, minlength=2)
        if self.pos_label is None:
            pos = 0 if counts[0] < counts[1] else 1
        else:
            hits = np.flatnonzero(self.classes_ == self.pos_label)
            if hits.size == 0:
                raise ValueError(f"pos_label == {self.pos_label!r} is not a class of y (classes: "
                                 f"{self.classes_.tolist()!r}).")
            pos = int(hits[0])
        self.pos_label_ = self.classes_[pos]
        self._majority = int(np.argmax(counts))  # lowest index on a tie
        y_pos = y_codes == pos

        rows, cols = self._biclusters(A, rng)
        if rows.shape[0] == 0:
            raise ValueError("the biclusterer found no bicluster in the training matrix "
                             f"({A.shape[0]} x {A.shape[1]}), so BENCH has no dataset to train on. Lower SAMBA's "
                             "threshold/min_cols, pass another biclusterer, or precomputed biclusters.")
        labels, pvals = bicluster_labels(rows, y_pos, alpha=float(self.significance),
                                         negative_rule=self.negative_rule)
        self.biclusters_ = (rows, cols)
        self.bicluster_labels_ = labels
        self.bicluster_pvalues_ = pvals
        datasets = bench_datasets(rows, cols, labels, min_shared_features=self.min_shared_features,
                                  include_fi=self.include_fi, include_fe=self.include_fe)
        self.datasets_ = datasets
        usable = [i for i, d in enumerate(datasets)
                  if d.features.any() and np.unique(y_codes[d.rows]).size == 2]  # decision 17
        if self.n_members is not None and len(usable) > self.n_members:
            usable = sorted(rng.choice(usable, size=self.n_members, replace=False).tolist())
        self.cuts_ = equal_width_cuts(A, int(self.n_bins), self.binning)
        codes = apply_cuts(A, self.cuts_)
        plans = []
        for i in usable:
            d = datasets[i]
            feats = np.flatnonzero(d.features)
            if d.kind == "FE" and self.fe_max_features is not None and feats.size > self.fe_max_features:
                feats = np.sort(rng.choice(feats, size=self.fe_max_features, replace=False))
            plans.append((i, np.flatnonzero(d.rows), feats))
        if not plans:
            warnings.warn(f"BENCH: none of the {len(datasets)} FI/FE datasets from {rows.shape[0]} biclusters "
                          f"(labels: {dict(zip(*np.unique(labels, return_counts=True)))}) has both classes and a "
                          "gene; falling back to one member on all training rows and genes.", stacklevel=2)
            plans = [(-1, np.arange(A.shape[0]), np.arange(A.shape[1]))]
        seeds = rng.integers(2**31 - 1, size=len(plans))
        # default: the thesis's WEKA K2
        est = self.estimator if self.estimator is not None else K2Classifier(alpha=0.5, parent_prior="uniform")
        y_lab = self.classes_[y_codes]
        it = plans
        if show_progress_enabled(self.show_progress):
            from tqdm.auto import tqdm

            it = tqdm(plans, desc="BENCH members")
        members = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(_fit_member)(est, codes[np.ix_(r, f)], y_lab[r], [names[j] for j in f], int(self.n_bins), s)
            for (_, r, f), s in zip(it, seeds))
        errors = np.empty(len(members))
        for k, (m, (_, r, f)) in enumerate(zip(members, plans)):
            rr = r if self.error_scope == "own" else np.arange(A.shape[0])
            pred = m.predict(_member_frame(codes[np.ix_(rr, f)], [names[j] for j in f], int(self.n_bins)))
            errors[k] = float(np.mean(np.asarray(pred) != y_lab[rr]))
        keep = (np.arange(len(members)) if self.max_train_error is None
                else np.flatnonzero(errors <= self.max_train_error))
        if keep.size == 0:
            raise ValueError(f"every member has a training error above max_train_error = {self.max_train_error} "
                             f"(errors: {np.round(errors, 3).tolist()}); raise max_train_error or set it to None.")
        self.estimators_ = [members[k] for k in keep]
        self.estimators_features_ = [plans[k][2] for k in keep]
        self.member_datasets_ = [plans[k][0] for k in keep]
        self.member_kinds_ = [datasets[i].kind if i >= 0 else "all" for i in self.member_datasets_]
        self.training_errors_ = errors[keep]
        self._names = names
        self.fallback_ = None
        self.guard_ = {"enabled": bool(self.guard), "ensemble_error": None, "rows_judged": 0, "fallback_error": None,
                       "used_fallback": False}
        if self.guard and plans[0][0] >= 0:
            self._guard(A, codes, y_codes, [plans[k][1] for k in keep], names, rng)
        return self

    def _guard(self, A, codes, y_codes, member_rows, names, rng) -> None:
        """The ensemble's out-of-member error against the cross-validated error of one fallback network."""
        from sklearn.model_selection import StratifiedKFold

        n = codes.shape[0]
        probas = np.empty((len(self.estimators_), n, 2))
        for k, (m, f) in enumerate(zip(self.estimators_, self.estimators_features_)):
            p = m.predict_proba(_member_frame(codes[:, f], [names[j] for j in f], int(self.n_bins)))
            probas[k] = np.asarray(p)[:, [int(np.flatnonzero(m.classes_ == c)[0]) for c in self.classes_]]
        outside = np.ones((len(self.estimators_), n), dtype=bool)
        for k, r in enumerate(member_rows):
            outside[k, r] = False
        wrong, judged = 0, 0
        for i in np.flatnonzero(outside.any(axis=0)):
            sel = outside[:, i]
            vote = weighted_vote(probas[sel, i:i + 1], self.training_errors_[sel], self.weighting, self._majority)[1]
            wrong += int(vote[0] != y_codes[i])
            judged += 1
        if judged == 0 or np.bincount(y_codes, minlength=2).min() < 2:
            return
        ens_err = wrong / judged
        fb = self.fallback if self.fallback is not None else default_fallback(int(self.n_bins))
        # the fallback sees the continuous matrix (the default bins it by equal frequency: equal-width bins, the
        # members' and the thesis's, leave most values of a gene with outliers in one bin; leukemia, 5-fold: a
        # single K2 network 83.4 % on them against 91.5 %)
        frame = pd.DataFrame(A, columns=names)
        y_lab = self.classes_[y_codes]
        n_splits = int(min(5, np.bincount(y_codes, minlength=2).min()))
        cv = StratifiedKFold(n_splits, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
        fb_wrong = 0
        for tr, te in cv.split(codes, y_codes):
            m = clone(fb).fit(frame.iloc[tr], y_lab[tr])
            fb_wrong += int(np.sum(np.asarray(m.predict(frame.iloc[te])) != y_lab[te]))
        fb_err = fb_wrong / n
        use = fb_err < ens_err
        self.guard_.update(ensemble_error=float(ens_err), rows_judged=int(judged), fallback_error=float(fb_err),
                           used_fallback=bool(use))
        if use:
            self.fallback_ = clone(fb).fit(frame, y_lab)

    @property
    def models_(self):
        """The members' pgmpy networks (``model_``; None for a member without one)."""
        check_is_fitted(self)
        return [getattr(m, "model_", None) for m in self.estimators_]

    # ------------------------------------------------------------------ predict
    def member_probas(self, X) -> np.ndarray:
        """Posteriors of every member, shape (n_members, n_samples, 2), columns in ``classes_`` order."""
        check_is_fitted(self)
        refuse_dask(self, X, method="predict")
        check_numeric_frame(X, "BENCHClassifier")
        validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        codes = apply_cuts(self._matrix(X, fit=False), self.cuts_)
        out = np.empty((len(self.estimators_), codes.shape[0], 2))
        for k, (m, f) in enumerate(zip(self.estimators_, self.estimators_features_)):
            p = m.predict_proba(_member_frame(codes[:, f], [self._names[j] for j in f], int(self.n_bins)))
            order = [int(np.flatnonzero(m.classes_ == c)[0]) for c in self.classes_]
            out[k] = np.asarray(p)[:, order]
        return out

    def _fallback_proba(self, X):
        validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=False)
        m = self.fallback_
        p = m.predict_proba(pd.DataFrame(self._matrix(X, fit=False), columns=self._names))
        return np.asarray(p)[:, [int(np.flatnonzero(m.classes_ == c)[0]) for c in self.classes_]]

    def predict_proba(self, X) -> np.ndarray:
        """Normalised vote scores, shape (n_samples, 2), columns in ``classes_`` order (the fallback's posterior
        when the guard chose it)."""
        check_is_fitted(self)
        if getattr(self, "fallback_", None) is not None:
            return self._fallback_proba(X)
        return weighted_vote(self.member_probas(X), self.training_errors_, self.weighting, self._majority)[0]

    def predict(self, X) -> np.ndarray:
        """The weighted vote (ties: the larger summed posterior, then the training majority class)."""
        check_is_fitted(self)
        if getattr(self, "fallback_", None) is not None:
            return self.classes_[np.argmax(self._fallback_proba(X), axis=1)]
        return self.classes_[weighted_vote(self.member_probas(X), self.training_errors_, self.weighting,
                                           self._majority)[1]]
