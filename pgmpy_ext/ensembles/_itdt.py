"""BBN-DT (tree-selected features for one Bayesian network) and BBN-ITDT (iterative tree knock-out ensembles of
Bayesian networks), seed 004 chapters 2-3."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, show_progress_enabled
from pgmpy_ext.classifiers import K2Classifier
from pgmpy_ext.data import DiscreteInputMixin, check_no_missing, encode, warn_mostly_unseen
from pgmpy_ext.ensembles._weighting import WEIGHTINGS, weighted_vote
from pgmpy_ext.tree import C45Classifier, used_tree_features
from pgmpy_ext.utils import ANY, Interval, Options, fill_doc

__all__ = ["BBNDTClassifier", "ITDTEnsembleClassifier"]

ENSEMBLES = ("FN", "FC", "FN+FC")


def _python(v):
    return v.item() if isinstance(v, np.generic) else v


class _TreeBNBase(DiscreteInputMixin, ClassifierMixin, BaseEstimator):
    """Shared input handling: the features are encoded once (every state declared, so that every member knows
    every state of its features), members are fitted on column subsets, and the caller's data are never
    modified."""

    _parameter_constraints = {**DiscreteInputMixin._parameter_constraints, "tree": [ANY], "bbn": [ANY]}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False  # fit needs complete rows (the C4.5 tree); predict follows ``missing``
        return tags

    def _check_base_params(self):
        self._check_common_params()
        if self.tree is not None and not (hasattr(self.tree, "fit") and hasattr(self.tree, "get_params")):
            raise TypeError(f"tree must be a scikit-learn tree estimator (C45Classifier, DecisionTreeClassifier), "
                            f"got {type(self.tree).__name__}.")
        if self.bbn is not None and not (hasattr(self.bbn, "fit") and hasattr(self.bbn, "predict_proba")):
            raise TypeError(f"bbn must be a scikit-learn classifier with predict_proba (e.g. K2Classifier()), got "
                            f"{type(self.bbn).__name__}.")

    def _prepare(self, X, y):
        frame = self._fit_frame(X, y)
        if frame.shape[1] == 0:
            raise ValueError("X has no columns (0 features); a classifier needs at least one feature.")
        if frame.shape[0] == 0:
            raise ValueError("X has no rows (0 samples); a classifier needs training rows of at least 2 classes.")
        na = frame.isna().to_numpy()
        if na.any():
            r, k = (int(v[0]) for v in np.nonzero(na))
            name = type(self).__name__
            raise ValueError(f"Column {frame.columns[k]!r} has a missing value (NaN/None) at row "
                             f"{_python(frame.index[r])!r}; {name} needs complete training data (its C4.5 trees "
                             "select the features on complete rows), whatever missing= says. Impute first, e.g. "
                             f"make_pipeline(SimpleImputer(strategy='most_frequent'), {name}()); predict sums "
                             "missing cells out with missing='available_case'.")
        if isinstance(y, pd.DataFrame):
            y = y.iloc[:, 0]
        name = getattr(y, "name", None)
        self._y_name = name if name is not None and name not in frame.columns else None
        y_arr = column_or_1d(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y), warn=True)
        if y_arr.shape[0] != frame.shape[0]:
            raise ValueError(f"X has {frame.shape[0]} rows but y has {y_arr.shape[0]} labels.")
        y_na = pd.isna(pd.Series(y_arr, dtype=object)).to_numpy()
        if y_na.any():
            r = int(np.flatnonzero(y_na)[0])
            raise ValueError(f"y has a missing class label (NaN/None) at row {_python(frame.index[r])!r}; remove or "
                             "impute it.")
        check_classification_targets(y_arr)
        classes, y_codes = np.unique(y_arr, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(f"the class has a single value {_python(classes[0])!r} (1 class); a classifier needs at "
                             "least 2 classes.")
        self.classes_ = classes
        self.encoder_ = encode(frame, missing="error")
        self._y = y_arr
        self._y_codes = y_codes
        return frame

    def _member_frame(self, codes: np.ndarray, cols) -> pd.DataFrame:
        """Columns ``cols`` (positions) as Categoricals over every fitted state (-1 codes become missing)."""
        enc = self.encoder_
        return pd.DataFrame({enc.columns[j]: pd.Categorical.from_codes(
            codes[:, j], categories=pd.Index(enc.states[j], dtype=object)) for j in cols})

    def _select(self, codes: np.ndarray, cols: np.ndarray):
        """Fit a fresh tree on ``cols``; return (fitted tree, selected positions into the data)."""
        tree = clone(self.tree) if self.tree is not None else C45Classifier(nominal="all")
        tree.fit(np.ascontiguousarray(codes[:, cols]), self._y)
        used = used_tree_features(tree)
        return tree, cols[used]

    def _fit_member(self, codes: np.ndarray, cols) -> tuple[object, float]:
        """A fresh BN classifier on the columns ``cols``; (member, resubstitution error on its training rows)."""
        # default: the thesis's member, WEKA's K2 (pseudo-count 0.5 for the BAYES score and the CPTs)
        member = (clone(self.bbn) if self.bbn is not None
                  else K2Classifier(alpha=0.5, parent_prior="uniform", n_jobs=self.n_jobs))
        Xm = self._member_frame(codes, cols)
        member.fit(Xm, pd.Series(self._y, name=self._y_name) if self._y_name is not None else self._y)
        err = float(np.mean(member.predict(Xm) != self._y))
        return member, err

    def _codes_for_predict(self, X) -> np.ndarray:
        """Codes of new rows; ``-1`` for a missing cell (``missing="available_case"``: the members sum it out) and,
        with ``handle_unknown="ignore"``, for an unseen value."""
        columns = list(self.encoder_.columns)
        frame = self._predict_frame(X, columns)
        if frame.shape[0] == 0:
            return np.zeros((0, len(columns)), dtype=np.int32)
        if self.missing == "error":
            check_no_missing(frame[columns], f"{type(self).__name__}.predict")
        states = {c: self.encoder_.states[k] for k, c in enumerate(columns)}
        codes = encode(frame[columns], states=states, missing="skip", strict_states=True,
                       handle_unknown=self.handle_unknown).codes
        if self.handle_unknown == "ignore":  # a feature mostly unseen (e.g. its type changed) would vanish silently
            warn_mostly_unseen(frame, codes, columns, self.encoder_.states)
        return codes

    def _member_proba(self, member, cols, codes) -> np.ndarray:
        """Member posterior in this ensemble's ``classes_`` order."""
        if codes.shape[0] == 0:
            return np.zeros((0, self.classes_.shape[0]))
        p = member.predict_proba(self._member_frame(codes, cols))
        order = {(type(_python(c)), _python(c)): k for k, c in enumerate(member.classes_)}
        out = np.zeros((codes.shape[0], self.classes_.shape[0]))
        for k, c in enumerate(self.classes_):
            j = order.get((type(_python(c)), _python(c)))
            if j is not None:
                out[:, k] = p[:, j]
        return out

    def predict(self, X) -> np.ndarray:
        """Most probable class per row (see ``predict_proba``)."""
        check_is_fitted(self)
        return self.classes_[self._decide(X)[1]]

    def predict_proba(self, X) -> np.ndarray:
        """Class scores per row, columns in ``classes_`` order, rows summing to 1."""
        check_is_fitted(self)
        return self._decide(X)[0]


@fill_doc
class BBNDTClassifier(_TreeBNBase):
    """BBN-DT (Algorithm 1): a pruned C4.5 tree picks the features, a Bayesian network is learned on them only.

    Pansombut's thesis, chapter 2 (``docs/decisions/seed004-bench-itdt.md``, "Algorithm 1 — BBN-DT"): fit the tree on
    all features, keep
    ``X'``, the features tested at its internal nodes, and run the structure learner on ``X'`` and the class. The
    selection happens inside ``fit``, so in cross-validation it sees the training fold only (the thesis selected
    once on all the data; section 3, protocol note).

    Parameters
    ----------
    tree : estimator, optional
        The feature selector: default ``C45Classifier(nominal="all")`` (J48 defaults); any scikit-learn tree
        (``DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2)``) works too (it sees the integer state
        codes). A fresh clone is fitted.
    bbn : classifier, optional
        The Bayesian-network classifier on ``X'``: default ``K2Classifier(alpha=0.5, parent_prior="uniform")``
        (WEKA K2, at most 5 parents, BAYES score and CPT pseudo-count 0.5, the thesis's member). A fresh clone is
        fitted.
    %(n_jobs)s
    handle_unknown : {"ignore", "error"}, default "ignore"
        A feature value unseen at fit: summed out (``"ignore"``) or refused with its column, value and row.
    missing : {"available_case", "error"}, default "available_case"
        Missing cells (NaN/None) at predict: summed out exactly by the network (``"available_case"``) or refused
        naming column and row (``"error"``). ``fit`` needs complete rows either way: the C4.5 tree selects the
        features on complete data (J48's fractional instances are not implemented), and the refusal says how to
        impute.

    Attributes
    ----------
    tree_ : the fitted selector.
    selected_features_ : ndarray of object
        ``X'`` (feature names, data order).
    estimator_ : fitted classifier or None
        The network classifier on ``X'`` (None when the tree is a single leaf: the class prior then predicts).
    model_ : DiscreteBayesianNetwork
        ``estimator_.model_``, or a network with the class node alone.
    classes_, encoder_, n_features_in_, feature_names_in_

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = pd.DataFrame({f"g{j}": rng.integers(0, 3, 200) for j in range(20)})
    >>> X["g3"] = y   # the tree needs g3 only
    >>> clf = BBNDTClassifier().fit(X, y)
    >>> clf.selected_features_.tolist()
    ['g3']
    >>> sorted(clf.model_.edges())
    [('class', 'g3')]
    """

    def __init__(self, *, tree=None, bbn=None, n_jobs=None, handle_unknown="ignore", missing="available_case"):
        self.tree = tree
        self.bbn = bbn
        self.n_jobs = n_jobs
        self.handle_unknown = handle_unknown
        self.missing = missing

    def fit(self, X, y):
        """Select ``X'`` with the tree and learn the network on it."""
        self._check_base_params()
        self._prepare(X, y)
        codes = self.encoder_.codes
        self.tree_, cols = self._select(codes, np.arange(codes.shape[1]))
        self._cols_ = cols
        self.selected_features_ = np.array([self.encoder_.columns[j] for j in cols], dtype=object)
        if cols.size:
            self.estimator_, self.train_error_ = self._fit_member(codes, cols)
            self.model_ = self.estimator_.model_
        else:
            self.estimator_ = None
            prior = np.bincount(self._y_codes, minlength=self.classes_.shape[0]) / self._y_codes.shape[0]
            self._prior_ = prior
            self.train_error_ = float(1 - prior.max())
            node = self._y_name if self._y_name is not None else "class"
            model = DiscreteBayesianNetwork()
            model.add_node(node)
            model.add_cpds(TabularCPD(node, prior.shape[0], prior.reshape(-1, 1),
                                      state_names={node: [_python(c) for c in self.classes_]}))
            self.model_ = model
        del self._y, self._y_codes
        return self

    def _decide(self, X):
        codes = self._codes_for_predict(X)
        if self.estimator_ is None:
            p = np.tile(self._prior_, (codes.shape[0], 1))
        else:
            p = self._member_proba(self.estimator_, self._cols_, codes)
        return p, p.argmax(axis=1)


class ITDTEnsembleClassifier(_TreeBNBase):
    """BBN-ITDT (Algorithm 2): ensembles of Bayesian networks on disjoint tree-selected feature sets.

    Pansombut's thesis, chapter 3 (``docs/decisions/seed004-bench-itdt.md``, "Algorithm 2 — BBN-ITDT"): repeat BBN-DT
    ``n_rounds`` times,
    each time knocking out the features the previous trees used, giving disjoint sets ``F_1 .. F_K``. The FN
    ensemble has one network per ``F_i``, the FC ensemble one per ``F_1 u ... u F_i``; members whose training
    (resubstitution) error exceeds ``max_train_error`` are dropped; the rest vote with the chosen weighting.

    Parameters
    ----------
    n_rounds : int, default 15
        ``K``: at most this many knock-out rounds (thesis: 15).
    max_train_error : float or None, default 0.40
        ``te``: keep members with training error <= this (Algorithm 2's "at most 40%"); None keeps all.
    ensemble : {"FN", "FC", "FN+FC"}, default "FN"
        Which members vote.
    weighting : {"majority", "training_error", "confidence", "soft"} or callable, default "confidence"
        Vote weights (section 5; the thesis reports confidence weighting).
    faithful_stop : bool, default False
        The thesis's loop condition ``|X| > |X'|``: stop, without adding it, when a tree uses every remaining
        feature (it then drops the last tree's network). The default stops when a tree selects nothing or no feature is
        left, and keeps the last network.
    tree, bbn, n_jobs, handle_unknown, missing
        As in :class:`BBNDTClassifier` (``missing`` applies at predict; fit needs complete rows).
    show_progress : bool, default False
        A progress bar over the rounds (when pgmpy's ``config.SHOW_PROGRESS`` is on too).

    Attributes
    ----------
    estimators_ : list of fitted classifiers
        The voting members (each holds its pgmpy network in ``model_``).
    models_ : list of DiscreteBayesianNetwork
        ``[m.model_ for m in estimators_]``.
    feature_sets_ : list of ndarray of object
        The features of each voting member.
    kinds_ : list of str
        "FN" or "FC" per voting member ("DT" for the BBN-DT fallback of an empty knock-out loop).
    train_errors_ : ndarray
        Resubstitution error of each voting member.
    knockout_sets_ : list of ndarray of object
        ``F_1 .. F_K`` (disjoint), whatever the filter kept.
    fn_errors_, fc_errors_ : ndarray
        Training errors of every FN / FC network before the filter.
    classes_, encoder_, n_features_in_, feature_names_in_

    Notes
    -----
    When the filter removes every member, the first FN network (BBN-DT) votes alone and a warning says so
    (section 5). Ties between classes go to the larger summed posterior, then the training majority class.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 120)
    >>> X = pd.DataFrame({f"g{j}": np.where(rng.random(120) < 0.8, y, 1 - y) for j in range(6)})
    >>> clf = ITDTEnsembleClassifier(n_rounds=3).fit(X, y)
    >>> [f.tolist() for f in clf.knockout_sets_]
    [['g1', 'g2', 'g3', 'g4'], ['g5'], ['g0']]
    >>> clf.train_errors_.round(3).tolist()       # resubstitution error of each FN member
    [0.058, 0.225, 0.317]
    """

    _parameter_constraints = {**_TreeBNBase._parameter_constraints, "n_rounds": [Interval(numbers.Integral, 1, None)],
                              "max_train_error": [None, Interval(numbers.Real, 0, 1)],
                              "ensemble": [Options(ENSEMBLES)], "weighting": [Options(WEIGHTINGS), "callable"],
                              "faithful_stop": ["boolean"]}

    def __init__(self, *, n_rounds=15, max_train_error=0.40, ensemble="FN", weighting="confidence",
                 faithful_stop=False, tree=None, bbn=None, n_jobs=None, handle_unknown="ignore",
                 missing="available_case", show_progress=False):
        self.n_rounds = n_rounds
        self.max_train_error = max_train_error
        self.ensemble = ensemble
        self.weighting = weighting
        self.faithful_stop = faithful_stop
        self.tree = tree
        self.bbn = bbn
        self.n_jobs = n_jobs
        self.handle_unknown = handle_unknown
        self.missing = missing
        self.show_progress = show_progress

    def fit(self, X, y):
        """Run the knock-out rounds, fit the FN and FC networks, filter them and keep the voting members."""
        self._check_base_params()
        self._prepare(X, y)
        codes = self.encoder_.codes
        p = codes.shape[1]
        remaining = np.arange(p)
        excluded = np.zeros(0, dtype=np.intp)
        fn, fc, sets = [], [], []
        rounds = range(self.n_rounds)
        bar = None
        if show_progress_enabled(self.show_progress):
            from tqdm.auto import tqdm

            bar = tqdm(total=self.n_rounds, desc="ITDT rounds")
        for _ in rounds:
            _, chosen = self._select(codes, remaining)
            if chosen.size == 0:
                break
            if self.faithful_stop and chosen.size == remaining.size:
                break
            sets.append(chosen)
            fn.append((chosen, *self._fit_member(codes, chosen)))
            excluded = np.union1d(excluded, chosen)
            fc.append((excluded, *self._fit_member(codes, excluded)))
            remaining = np.setdiff1d(remaining, chosen)
            if bar is not None:
                bar.update(1)
            if remaining.size == 0:
                break
        if bar is not None:
            bar.close()
        names = self.encoder_.columns
        self.knockout_sets_ = [np.array([names[j] for j in s], dtype=object) for s in sets]
        self.fn_errors_ = np.array([e for _, _, e in fn])
        self.fc_errors_ = np.array([e for _, _, e in fc])
        pool = [("FN", *m) for m in fn] if self.ensemble in ("FN", "FN+FC") else []
        if self.ensemble in ("FC", "FN+FC"):
            pool += [("FC", *m) for m in fc]
        te = self.max_train_error
        kept = [m for m in pool if te is None or m[3] <= te]
        if not kept:
            if fn:
                warnings.warn(f"every {self.ensemble} member has a training error above max_train_error={te}; the "
                              "first BBN-DT network votes alone.", UserWarning, stacklevel=2)
                kept = [("FN", *fn[0])]
            else:
                warnings.warn("the knock-out loop produced no member (the first tree selected no feature, or "
                              "faithful_stop ended the loop at once): a BBNDTClassifier on all features votes alone "
                              "(the class prior when its tree is a single leaf).", UserWarning, stacklevel=2)
                cols = np.arange(p)
                prior = BBNDTClassifier(tree=self.tree, bbn=self.bbn, n_jobs=self.n_jobs,
                                        handle_unknown=self.handle_unknown, missing=self.missing)
                prior.fit(self._member_frame(codes, cols),
                          pd.Series(self._y, name=self._y_name) if self._y_name is not None else self._y)
                kept = [("DT", cols, prior, prior.train_error_)]
        self.kinds_ = [k for k, *_ in kept]
        self._member_cols_ = [c for _, c, _, _ in kept]
        self.estimators_ = [m for _, _, m, _ in kept]
        self.models_ = [m.model_ for m in self.estimators_]
        self.feature_sets_ = [np.array([names[j] for j in c], dtype=object) for c in self._member_cols_]
        self.train_errors_ = np.array([e for *_, e in kept])
        self._majority_ = int(np.bincount(self._y_codes).argmax())
        del self._y, self._y_codes
        return self

    def member_probas(self, X) -> np.ndarray:
        """Posterior of every voting member, shape (n_members, n_rows, n_classes), columns in ``classes_`` order."""
        check_is_fitted(self)
        codes = self._codes_for_predict(X)
        return np.stack([self._member_proba(m, c, codes) for m, c in zip(self.estimators_, self._member_cols_)])

    def _decide(self, X):
        probas = self.member_probas(X)
        return weighted_vote(probas, self.train_errors_, self.weighting, fallback_class=self._majority_)
