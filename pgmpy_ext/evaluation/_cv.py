"""The evaluation harness: identical folds for every learner, per-fold metrics in a tidy table, thesis summaries.

Spec: seed 001 sections 3.2 (accuracy estimation methods and reporting conventions) and 3.4 (harness), decisions
7, 8 and 10; seed 000 section 6.1. :func:`make_splits` draws the folds once from the seed;
:func:`cross_validate_learners` fits a fresh clone of every learner on every training fold (a ``Pipeline`` refits
its discretiser on the training fold only) in parallel over (learner, fold) tasks, and :func:`summarize` gives
mean accuracy ± population std per learner (Table 5.3) or, for leave-one-out, accuracy ± standard error.
"""

from __future__ import annotations

import copy
import logging
import math
import numbers
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import (
    LeaveOneOut,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
)
from sklearn.utils import check_scalar

from pgmpy_ext._compat import show_progress_enabled
from pgmpy_ext.evaluation._metrics import (
    PROBA_FLOOR,
    _class_positions_or_unknown,
    _final_step,
    _labels,
    accuracy,
)
from pgmpy_ext.evaluation._metrics import (
    joint_log_proba as _default_joint_log_proba,
)
from pgmpy_ext.utils import check_generator, check_option

__all__ = ["CV_PROTOCOLS", "RESULT_COLUMNS", "Split", "cross_validate_learners", "make_splits", "summarize"]

logger = logging.getLogger(__name__)

#: Named protocols accepted by ``cv`` (besides any scikit-learn splitter or an iterable of (train, test) pairs).
CV_PROTOCOLS = ("kfold", "stratified", "repeated", "loo", "holdout", "resubstitution")

#: Columns of the table returned by :func:`cross_validate_learners`, in order (``train_indices``,
#: ``test_indices`` and ``estimator`` are appended on request).
RESULT_COLUMNS = ("learner", "repeat", "fold", "n_train", "n_test", "accuracy", "test_cll", "test_cll_sum",
                  "train_cll", "train_cll_sum", "train_ll", "train_ll_sum", "fit_time", "predict_time",
                  "structure_size", "n_iter")


@dataclass(frozen=True, eq=False)
class Split:
    """One train/test split: positions (not labels) of the rows of ``X``.

    Attributes
    ----------
    repeat : int
        Repetition number (0 for a single run).
    fold : int
        Fold number within the repetition.
    train, test : ndarray of intp
        Row positions.
    """

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray


# ---------------------------------------------------------------------------------------------- folds
def _seed(random_state) -> int:
    """An int seed for scikit-learn's splitters: an int is used as is, a Generator (or None) draws one."""
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return int(check_generator(random_state).integers(0, 2**32 - 1))


def _n_rows(X) -> int:
    if hasattr(X, "shape"):
        return int(X.shape[0])
    return len(X)


def make_splits(X, y=None, *, cv="kfold", n_splits: int = 10, n_repeats: int | None = None,
                test_size: float = 1 / 3, random_state=None, groups=None) -> list[Split]:
    """The train/test splits of a protocol, drawn once from the seed (the accuracy estimation methods of
    Santafé 2007, chapter 3).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Needed by the stratified protocols.
    cv : str, scikit-learn splitter or iterable of (train, test), default "kfold"
        * ``"kfold"``: ``k``-fold CV on a random permutation (``KFold(n_splits, shuffle=True)``), repeated
          ``n_repeats`` times with fresh permutations (default once: plain, one run, seeded; the thesis states no
          stratification or repeats);
        * ``"stratified"``: the same with stratified folds (``StratifiedKFold``);
        * ``"repeated"``: repeated stratified ``k``-fold (Kohavi 1995), ``n_repeats`` defaults to 10;
        * ``"loo"``: leave-one-out, ``N`` folds of one row;
        * ``"holdout"``: a random ``1 - test_size`` / ``test_size`` split (2/3 vs 1/3 by default); with
          ``n_repeats > 1`` it is random subsampling (one split per repeat);
        * ``"resubstitution"``: train and test on all rows (the thesis's "whole-data" mode; optimistic);
        * a scikit-learn splitter (anything with ``split(X, y, groups)``): its splits in order. For
          ``RepeatedKFold``/``RepeatedStratifiedKFold`` the repeat and fold numbers are recovered; otherwise
          every split is fold ``i`` of repeat 0;
        * an iterable of ``(train, test)`` position arrays, used as given.
    n_splits : int, default 10
        ``k`` of the k-fold protocols (>= 2).
    n_repeats : int, optional
        Repetitions of ``"kfold"``, ``"stratified"``, ``"repeated"`` (default 10 there, 1 elsewhere) and
        ``"holdout"``; must be 1 (or None) for ``"loo"`` and ``"resubstitution"``.
    test_size : float, default 1/3
        Test fraction of ``"holdout"``.
    random_state : None, int or numpy Generator
        An int gives exactly scikit-learn's folds for that seed: ``cv="stratified", random_state=0`` is
        ``StratifiedKFold(n_splits, shuffle=True, random_state=0)``. A Generator (or None) draws the int seed.
    groups : array-like, optional
        Passed to a splitter's ``split``.

    Returns
    -------
    list of Split
        In (repeat, fold) order.

    Examples
    --------
    >>> import numpy as np
    >>> splits = make_splits(np.zeros((10, 1)), cv="kfold", n_splits=5, random_state=0)
    >>> len(splits), [len(s.test) for s in splits]
    (5, [2, 2, 2, 2, 2])
    >>> sorted(np.concatenate([s.test for s in splits]).tolist()) == list(range(10))
    True
    >>> [len(s.test) for s in make_splits(np.zeros((4, 1)), cv="loo")]
    [1, 1, 1, 1]
    """
    n = _n_rows(X)
    y_arr = None if y is None else _labels(y)
    if isinstance(cv, str):
        check_option(cv, "cv", CV_PROTOCOLS)
        default_repeats = 10 if cv == "repeated" else 1
        reps = default_repeats if n_repeats is None else n_repeats
        check_scalar(reps, "n_repeats", numbers.Integral, min_val=1)
        if cv in ("loo", "resubstitution") and reps != 1:
            raise ValueError(f"n_repeats == {reps}, but cv={cv!r} is deterministic; use n_repeats=1 (or None).")
        if cv in ("kfold", "stratified", "repeated"):
            check_scalar(n_splits, "n_splits", numbers.Integral, min_val=2)
            if n_splits > n:
                raise ValueError(f"n_splits == {n_splits} is larger than the number of rows ({n}); use n_splits <= "
                                 f"{n} or cv='loo'.")
            seed = _seed(random_state)
            if cv == "kfold":
                splitter = RepeatedKFold(n_splits=n_splits, n_repeats=reps, random_state=seed)
            else:
                if y_arr is None:
                    raise ValueError(f"cv={cv!r} stratifies on the classes: pass y.")
                splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=reps, random_state=seed)
            return [Split(i // n_splits, i % n_splits, np.asarray(tr, np.intp), np.asarray(te, np.intp))
                    for i, (tr, te) in enumerate(splitter.split(np.zeros((n, 1)), y_arr))]
        if cv == "loo":
            return [Split(0, i, np.asarray(tr, np.intp), np.asarray(te, np.intp))
                    for i, (tr, te) in enumerate(LeaveOneOut().split(np.zeros((n, 1))))]
        if cv == "resubstitution":
            idx = np.arange(n, dtype=np.intp)
            return [Split(0, 0, idx, idx.copy())]
        check_scalar(test_size, "test_size", numbers.Real, min_val=0.0, max_val=1.0, include_boundaries="neither")
        splitter = ShuffleSplit(n_splits=reps, test_size=test_size, random_state=_seed(random_state))
        return [Split(i, 0, np.asarray(tr, np.intp), np.asarray(te, np.intp))
                for i, (tr, te) in enumerate(splitter.split(np.zeros((n, 1))))]
    if hasattr(cv, "split"):
        pairs = list(cv.split(X, y_arr, groups))
        per = None
        cvargs = getattr(cv, "cvargs", None)
        if getattr(cv, "n_repeats", None) and isinstance(cvargs, Mapping) and "n_splits" in cvargs:
            per = int(cvargs["n_splits"])
        if per and len(pairs) == per * int(cv.n_repeats):
            return [Split(i // per, i % per, np.asarray(tr, np.intp), np.asarray(te, np.intp))
                    for i, (tr, te) in enumerate(pairs)]
        return [Split(0, i, np.asarray(tr, np.intp), np.asarray(te, np.intp)) for i, (tr, te) in enumerate(pairs)]
    if isinstance(cv, Iterable):
        out = []
        for i, pair in enumerate(cv):
            try:
                tr, te = pair
            except (TypeError, ValueError):
                raise TypeError(f"cv item {i} is not a (train, test) pair of index arrays.") from None
            out.append(Split(0, i, np.asarray(tr, np.intp), np.asarray(te, np.intp)))
        if not out:
            raise ValueError("cv is an empty iterable; give at least one (train, test) pair.")
        return out
    raise TypeError(f"cv must be one of {CV_PROTOCOLS!r}, a scikit-learn splitter or an iterable of (train, test) "
                    f"pairs, got {type(cv).__name__}.")


# ---------------------------------------------------------------------------------------------- per fold
def _take(data, idx):
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.iloc[idx]
    return np.asarray(data)[idx]


class _GivenStructure:
    """Stands in for a classifier's ``_fit_structure`` in fixed-structure mode: returns (a copy of) the structure
    learned once on all the data, after checking that the fold has the same class node and features."""

    def __init__(self, structure):
        self.structure = structure

    def __call__(self, data, class_node, rng):
        s = self.structure
        features = [c for c in data.columns if c != class_node]
        if class_node != s.class_node or list(features) != list(s.features):
            raise ValueError(f"fixed_structure: the structure was learned with class {s.class_node!r} and features "
                             f"{list(s.features)!r}, but this training fold has class {class_node!r} and features "
                             f"{features!r}; the preprocessing must keep the column names.")
        return copy.deepcopy(s)


def _supports_fixed_structure(estimator) -> bool:
    from pgmpy_ext.classifiers import BNClassifierBase

    return isinstance(_final_step(estimator), BNClassifierBase)


def _structure_size(final) -> float:
    """Augmenting arcs of ``structure_``; else the arcs of every network in ``models_`` (a multinet); else the arcs
    of ``model_``; else NaN."""
    s = getattr(final, "structure_", None)
    if s is not None and callable(getattr(s, "augmenting_edges", None)):
        return float(len(list(s.augmenting_edges())))
    models = getattr(final, "models_", None)
    if isinstance(models, Mapping) and models and all(hasattr(m, "edges") for m in models.values()):
        return float(sum(len(list(m.edges())) for m in models.values()))
    m = getattr(final, "model_", None)
    if m is not None and hasattr(m, "edges"):
        return float(len(list(m.edges())))
    return float("nan")


def _n_iter(final) -> float:
    it = getattr(final, "n_iter_", None)
    if it is None:  # a classifier with an iterative parameter estimator (e.g. TMEstimator) reports its iterations
        it = getattr(getattr(final, "estimator_", None), "n_iter_", None)
    if it is None:
        return float("nan")
    arr = np.asarray(it, dtype=np.float64)
    return float(arr.max()) if arr.size else float("nan")


def _true_class_log_proba(estimator, X, y, floor: float) -> np.ndarray:
    """log p(y_r | x_r) per row, floored; a row whose class is not in ``classes_`` (absent from the training fold)
    gets the floor."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        classes = getattr(_final_step(estimator), "classes_")
    with np.errstate(divide="ignore"):
        if hasattr(estimator, "predict_log_proba"):
            logp = np.asarray(estimator.predict_log_proba(X), dtype=np.float64)
        else:
            logp = np.log(np.asarray(estimator.predict_proba(X), dtype=np.float64))
    pos = _class_positions_or_unknown(_labels(y), classes)
    out = np.full(pos.shape[0], math.log(floor))
    known = pos >= 0
    out[known] = np.maximum(logp[np.flatnonzero(known), pos[known]], math.log(floor))
    return np.nan_to_num(out, nan=math.log(floor))


def _true_class_joint(estimator, X, y, floor: float, joint_fn) -> np.ndarray:
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        classes = getattr(_final_step(estimator), "classes_")
    lj = np.asarray(joint_fn(estimator, X), dtype=np.float64)
    pos = _class_positions_or_unknown(_labels(y), classes)
    out = np.full(pos.shape[0], math.log(floor))
    known = pos >= 0
    out[known] = np.maximum(lj[np.flatnonzero(known), pos[known]], math.log(floor))
    return out


def _has_joint(estimator) -> bool:
    final = _final_step(estimator)
    if hasattr(final, "predict_joint_log_proba"):
        return True
    return getattr(final, "model_", None) is not None and getattr(final, "class_node_", None) is not None


def _has_proba(estimator) -> bool:
    return hasattr(estimator, "predict_proba") or hasattr(estimator, "predict_log_proba")


def _mean_sum(values: np.ndarray) -> tuple[float, float]:
    if values.size == 0:
        return float("nan"), 0.0
    return float(values.mean()), float(values.sum())


def _run_task(name: str, learner, X, y, split: Split, structure, joint_fn, floor: float,
              return_indices: bool, return_estimator: bool) -> dict:
    est = clone(learner)
    X_tr, y_tr = _take(X, split.train), _take(y, split.train)
    X_te, y_te = _take(X, split.test), _take(y, split.test)
    final = _final_step(est)
    try:
        if structure is not None:
            final._fit_structure = _GivenStructure(structure)
        t0 = time.perf_counter()
        try:
            est.fit(X_tr, y_tr)
        finally:
            if structure is not None:
                del final._fit_structure
        fit_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        y_pred = est.predict(X_te)
        predict_time = time.perf_counter() - t0
        rec = {"learner": name, "repeat": split.repeat, "fold": split.fold, "n_train": int(split.train.shape[0]),
               "n_test": int(split.test.shape[0]), "accuracy": accuracy(_labels(y_te), _labels(y_pred))}
        if _has_proba(est):
            rec["test_cll"], rec["test_cll_sum"] = _mean_sum(_true_class_log_proba(est, X_te, y_te, floor))
            rec["train_cll"], rec["train_cll_sum"] = _mean_sum(_true_class_log_proba(est, X_tr, y_tr, floor))
        else:
            for c in ("test_cll", "test_cll_sum", "train_cll", "train_cll_sum"):
                rec[c] = float("nan")
        if joint_fn is not None or _has_joint(est):
            fn = joint_fn if joint_fn is not None else _default_joint_log_proba
            rec["train_ll"], rec["train_ll_sum"] = _mean_sum(_true_class_joint(est, X_tr, y_tr, floor, fn))
        else:
            rec["train_ll"] = rec["train_ll_sum"] = float("nan")
        rec["fit_time"], rec["predict_time"] = fit_time, predict_time
        rec["structure_size"], rec["n_iter"] = _structure_size(final), _n_iter(final)
    except Exception as err:  # name the learner and the fold, keep the original exception type and traceback
        if hasattr(err, "add_note"):
            err.add_note(f"(while evaluating learner {name!r} on repeat {split.repeat}, fold {split.fold})")
        raise
    if return_indices:
        rec["train_indices"], rec["test_indices"] = split.train, split.test
    if return_estimator:
        rec["estimator"] = est
    return rec


# ---------------------------------------------------------------------------------------------- runner
def cross_validate_learners(learners: Mapping, X, y, *, cv="kfold", n_splits: int = 10, n_repeats: int | None = None,
                            test_size: float = 1 / 3, random_state=None, groups=None, fixed_structure: bool = False,
                            n_jobs: int | None = None, show_progress: bool = False,
                            joint_log_proba: Callable | None = None, proba_floor: float = PROBA_FLOOR,
                            return_indices: bool = False, return_estimator: bool = False) -> pd.DataFrame:
    """Cross-validate several learners on identical folds; one row per (learner, repeat, fold).

    The folds are drawn once (:func:`make_splits`) and every learner is trained and tested on exactly the same
    rows, so paired tests (:func:`pairwise_tests`) are valid. Each (learner, fold) task fits a fresh
    ``sklearn.base.clone`` of the learner on the training rows only: a ``Pipeline`` refits its discretiser on every
    training fold, so nothing leaks from the test rows (the thesis does not state the discretisation scope; per training
    fold is the default chosen in ``docs/decisions/seed001-tm-classifiers.md``).

    Parameters
    ----------
    learners : dict
        ``{name: estimator}``; any scikit-learn classifier or ``Pipeline`` ending in one (with ``predict``; CLL
        needs ``predict_proba`` or ``predict_log_proba``).
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels. A named Series keeps its name (it names the class node of the pgmpy-ext classifiers).
    cv, n_splits, n_repeats, test_size, random_state, groups
        The protocol; see :func:`make_splits`. Default: plain 10-fold, one run.
    fixed_structure : bool, default False
        Learn each pgmpy-ext classifier's structure once on all the data and reuse it in every fold, refitting
        only the parameters (the thesis's leave-one-out experiment on binary variables, Santafé 2007, Tables 5.1-5.2).
        The structure then depends on the test rows too, by design. Learners that are not pgmpy-ext Bayesian-network
        classifiers with a single network structure (or Pipelines ending in one) are cross-validated as usual,
        with a warning naming them (a multinet's structure holds class counts, so it is not reused).
    n_jobs : int, optional
        Parallel (learner, fold) tasks (joblib; None means 1, -1 all cores). Results other than the timings do
        not depend on it. The joblib backend can be chosen with ``joblib.parallel_config``.
    show_progress : bool, default False
        A tqdm bar over the tasks, shown only when pgmpy's global ``pgmpy.config.SHOW_PROGRESS`` is on too.
    joint_log_proba : callable, optional
        ``f(fitted_estimator, X) -> ndarray (n_samples, n_classes)`` of ``log p(c, x)`` in ``classes_`` order, for
        the training LL of a learner :func:`pgmpy_ext.evaluation.joint_log_proba` cannot handle. By default the
        LL is computed for learners with ``predict_joint_log_proba`` or a pgmpy ``model_`` (every pgmpy-ext
        classifier) and is NaN for the others.
    proba_floor : float, default 1e-300
        Probabilities are clipped from below at this value before the log (CLL and LL stay finite; a zero
        probability of the true class contributes ``log(1e-300) = -690.8``). A test row whose class never
        occurs in the training fold gets the floor too.
    return_indices : bool, default False
        Add ``train_indices`` and ``test_indices`` (row positions) columns.
    return_estimator : bool, default False
        Add an ``estimator`` column with each fitted estimator.

    Returns
    -------
    DataFrame
        One row per (learner, repeat, fold), learners in the order given, with columns (:data:`RESULT_COLUMNS`):

        ``learner`` (str), ``repeat``, ``fold``, ``n_train``, ``n_test`` (int); ``accuracy`` (fraction of the
        test rows); ``test_cll`` / ``test_cll_sum``: the mean and the sum over the test rows of
        ``log p(y | x)`` (natural log); ``train_cll`` / ``train_cll_sum``: the same on the training rows;
        ``train_ll`` / ``train_ll_sum``: ``log p(y, x)`` on the training rows; ``fit_time``, ``predict_time``
        (seconds, wall clock); ``structure_size``: the number of augmenting (feature-to-feature) arcs when the
        classifier (or the last step of a Pipeline) has ``structure_``, else the number of edges of its
        ``model_``, else NaN; ``n_iter``: ``n_iter_`` (its maximum when it is an array), else the fitted parameter
        estimator's ``estimator_.n_iter_`` (TM iterations), or NaN. CLL and LL
        columns are NaN for a learner without probabilities or joint. ``results.attrs["protocol"]`` records
        the protocol and the int seed used.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(60, 3)), columns=["a", "b", "c"])
    >>> y = pd.Series(np.where(X["a"] == X["b"], "s", "d"), name="y")
    >>> res = cross_validate_learners({"NB": NaiveBayesClassifier(), "TAN": TANClassifier()}, X, y,
    ...                               cv="stratified", n_splits=3, random_state=0)
    >>> res.shape
    (6, 16)
    >>> res.groupby("learner", sort=False)["structure_size"].first().tolist()
    [0.0, 2.0]
    >>> summarize(res)[["learner", "accuracy", "accuracy_std"]].round(2).to_dict("list")
    {'learner': ['NB', 'TAN'], 'accuracy': [55.0, 100.0], 'accuracy_std': [24.83, 0.0]}
    """
    if not isinstance(learners, Mapping) or not learners:
        raise TypeError("learners must be a non-empty dict {name: estimator}, got "
                        f"{type(learners).__name__ if not isinstance(learners, Mapping) else 'an empty dict'}.")
    for name, est in learners.items():
        if not isinstance(name, str):
            raise TypeError(f"learner names must be strings, got {name!r} ({type(name).__name__}).")
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise TypeError(f"learner {name!r} is a {type(est).__name__}; it needs fit(X, y) and predict(X).")
    if not (0.0 < proba_floor <= 1.0):
        raise ValueError(f"proba_floor == {proba_floor!r}, must be in (0, 1].")
    if joint_log_proba is not None and not callable(joint_log_proba):
        raise TypeError(f"joint_log_proba must be a callable f(estimator, X), got {type(joint_log_proba).__name__}.")
    n = _n_rows(X)
    if _n_rows(y) != n:
        raise ValueError(f"X has {n} rows but y has {_n_rows(y)} labels.")
    seed = _seed(random_state) if (isinstance(cv, str) and cv not in ("loo", "resubstitution")) else None
    splits = make_splits(X, y, cv=cv, n_splits=n_splits, n_repeats=n_repeats, test_size=test_size,
                         random_state=seed, groups=groups)

    structures = dict.fromkeys(learners)
    if fixed_structure:
        unsupported = [nm for nm, est in learners.items() if not _supports_fixed_structure(est)]
        from pgmpy_ext.structure import ClassifierStructure

        for nm, est in learners.items():
            if nm in unsupported:
                continue
            structure = _final_step(clone(est).fit(X, y)).structure_
            if isinstance(structure, ClassifierStructure):
                structures[nm] = structure
            else:  # e.g. a multinet, whose structure also holds class counts: refitted per fold as usual
                unsupported.append(nm)
        if unsupported:
            warnings.warn(f"fixed_structure=True applies to pgmpy-ext Bayesian-network classifiers with a single "
                          f"network structure only; {unsupported!r} are cross-validated as usual.", UserWarning,
                          stacklevel=2)

    tasks = [(nm, est, sp) for nm, est in learners.items() for sp in splits]
    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    gen = parallel(delayed(_run_task)(nm, est, X, y, sp, structures[nm], joint_log_proba, proba_floor,
                                      return_indices, return_estimator) for nm, est, sp in tasks)
    from tqdm.auto import tqdm

    records = list(tqdm(gen, total=len(tasks), desc="cross-validation", unit="fold",
                        disable=not show_progress_enabled(show_progress)))
    columns = list(RESULT_COLUMNS)
    if return_indices:
        columns += ["train_indices", "test_indices"]
    if return_estimator:
        columns.append("estimator")
    out = pd.DataFrame.from_records(records, columns=columns)
    for c in ("repeat", "fold", "n_train", "n_test"):
        out[c] = out[c].astype(np.int64)
    out.attrs["protocol"] = {"cv": cv if isinstance(cv, str) else type(cv).__name__, "n_splits": n_splits,
                             "n_repeats": n_repeats, "test_size": test_size, "random_state": seed,
                             "fixed_structure": bool(fixed_structure)}
    return out


# ---------------------------------------------------------------------------------------------- summary
def summarize(results: pd.DataFrame, *, decimals: int = 2) -> pd.DataFrame:
    """Per learner: mean accuracy ± population std over folds (ddof = 0), or for LOO accuracy ± standard error.

    Follows the reporting conventions of Santafé (2007), chapter 3: the mean of the fold accuracies (not
    pooled) and their population standard deviation, both in percentage points (Table 5.3). A learner whose
    folds all have one test row (leave-one-out) is reported as the accuracy with its standard error
    ``100 sqrt(p (1 - p) / N)``, as the spec recommends for LOO. With repeats, the mean and std run over all
    (repeat, fold) rows.

    Parameters
    ----------
    results : DataFrame
        The output of :func:`cross_validate_learners`.
    decimals : int, default 2
        Decimals of the formatted ``report`` column.

    Returns
    -------
    DataFrame
        One row per learner (in order of appearance): ``learner``, ``n_folds``, ``loo`` (bool), ``accuracy``
        (mean, %), ``accuracy_std`` (ddof 0, %), ``accuracy_se`` (% ; LOO only, NaN otherwise), ``report``
        (``"94.67 ± 3.40"``: mean ± std, or for LOO accuracy ± se), and the means over folds of ``test_cll``,
        ``train_cll``, ``train_ll``, ``fit_time``, ``predict_time``, ``structure_size`` and ``n_iter``.

    Examples
    --------
    >>> import pandas as pd
    >>> folds = pd.DataFrame({"learner": "NB", "repeat": 0, "fold": range(5), "n_test": 30,
    ...                       "accuracy": [28 / 30, 28 / 30, 29 / 30, 27 / 30, 30 / 30]})
    >>> summarize(folds)["report"].tolist()  # Iris NB in the thesis's Table 5.3
    ['94.67 ± 3.40']
    """
    for col in ("learner", "accuracy", "n_test"):
        if col not in results.columns:
            raise ValueError(f"results lacks column {col!r}; pass the DataFrame returned by cross_validate_learners.")
    rows = []
    extra = [c for c in ("test_cll", "train_cll", "train_ll", "fit_time", "predict_time", "structure_size", "n_iter")
             if c in results.columns]
    for name, g in results.groupby("learner", sort=False):
        acc = g["accuracy"].to_numpy(dtype=np.float64)
        loo = bool(len(g) > 1 and (g["n_test"] == 1).all())
        mean = 100.0 * float(acc.mean())
        std = 100.0 * float(acc.std(ddof=0))
        se = 100.0 * math.sqrt(acc.mean() * (1.0 - acc.mean()) / acc.shape[0]) if loo else float("nan")
        pm = se if loo else std
        row = {"learner": name, "n_folds": int(len(g)), "loo": loo, "accuracy": mean, "accuracy_std": std,
               "accuracy_se": se, "report": f"{mean:.{decimals}f} ± {pm:.{decimals}f}"}
        for c in extra:
            vals = g[c].to_numpy(dtype=np.float64)
            row[c] = float(vals.mean())
        rows.append(row)
    return pd.DataFrame(rows, columns=["learner", "n_folds", "loo", "accuracy", "accuracy_std", "accuracy_se",
                                       "report", *extra])
