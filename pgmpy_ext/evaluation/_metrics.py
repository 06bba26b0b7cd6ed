"""Evaluation metrics: accuracy, conditional and joint log-likelihood, clustering accuracy.

Classification measures follow Santafé (2007), chapter 3 (``CLL = sum_d log p(c_d | x_d)``,
``LL = sum_d log p(c_d, x_d)``, ``LL = CLL + sum_d log p(x_d)``) and Ruz's thesis. Clustering accuracy follows Ruz's
thesis, chapter 4 ("by voting"): the many-to-one majority vote (default) and the one-to-one (Hungarian) matching.
All logs are natural. Accuracies are fractions in [0, 1]; :func:`pgmpy_ext.evaluation.summarize` reports them in
percentage points, as the theses do.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from pgmpy_ext.utils import check_option

__all__ = ["PROBA_FLOOR", "accuracy", "cluster_class_mapping", "clustering_accuracy",
           "conditional_log_likelihood_score", "joint_log_proba", "log_likelihood_score"]

logger = logging.getLogger(__name__)

#: Probabilities are clipped from below at this value before taking logs, so a classifier that gives the true class
#: probability 0 contributes ``log(1e-300) = -690.78`` instead of ``-inf``. It is the same floor the pgmpy-ext
#: classifiers apply to their CPT entries when predicting (``pgmpy_ext.utils.LOG_PROB_FLOOR``).
PROBA_FLOOR = 1e-300

_REDUCTIONS = ("sum", "mean", "none")


def _labels(values) -> np.ndarray:
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of labels, got shape {arr.shape}.")
    return arr


def _reduce(values: np.ndarray, reduce: str):
    check_option(reduce, "reduce", _REDUCTIONS)
    if reduce == "none":
        return values
    if values.size == 0:
        return 0.0 if reduce == "sum" else float("nan")
    return float(values.sum()) if reduce == "sum" else float(values.mean())


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _class_index(classes) -> dict:
    index = {}
    for k, c in enumerate(_labels(classes)):
        index.setdefault(_py(c), k)
    return index


def _class_positions_or_unknown(y_true: np.ndarray, classes) -> np.ndarray:
    """Column of each row's true class in ``classes``, -1 for a label that is not a class."""
    index = _class_index(classes)
    return np.array([index.get(_py(v), -1) for v in y_true], dtype=np.intp)


def _class_positions(y_true: np.ndarray, classes) -> np.ndarray:
    """Column of each row's true class in ``classes``; unknown labels raise a ValueError naming them."""
    classes = [_py(c) for c in _labels(classes)]
    index = _class_index(classes)
    pos = np.empty(y_true.shape[0], dtype=np.intp)
    for r, v in enumerate(y_true):
        p = index.get(_py(v))
        if p is None:
            raise ValueError(f"y_true has label {_py(v)!r} at row {r} that is not one of the classes {classes!r}; "
                             "pass the classes in the column order of the probabilities.")
        pos[r] = p
    return pos


def accuracy(y_true, y_pred) -> float:
    """Fraction of rows whose predicted class equals the true class (Ruz's thesis, chapter 3).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    float in [0, 1]; NaN for zero rows.

    Examples
    --------
    >>> accuracy(["a", "b", "b", "a"], ["a", "b", "a", "a"])
    0.75
    """
    t, p = _labels(y_true), _labels(y_pred)
    if t.shape != p.shape:
        raise ValueError(f"y_true has {t.shape[0]} labels but y_pred has {p.shape[0]}.")
    if t.size == 0:
        return float("nan")
    return float(np.mean(t == p))


def conditional_log_likelihood_score(y_true, proba, classes, *, floor: float = PROBA_FLOOR, reduce: str = "sum",
                                     log: bool = False):
    r"""Conditional log-likelihood of the true classes, ``sum_d log p(c_d | x_d)`` (Santafé 2007, Eq. 3.8).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels; each must be one of ``classes``.
    proba : array-like of shape (n_samples, n_classes)
        Posterior probabilities (``predict_proba``), or log-probabilities when ``log=True``
        (``predict_log_proba``, more accurate for tiny posteriors), columns in ``classes`` order.
    classes : array-like of shape (n_classes,)
        The class label of each column (an estimator's ``classes_``).
    floor : float, default ``PROBA_FLOOR`` (1e-300)
        Probabilities below ``floor`` are raised to it before taking the log, so the CLL stays finite when a
        model gives a true class probability 0. Must be in (0, 1].
    reduce : {"sum", "mean", "none"}, default "sum"
        Sum over rows (the thesis's CLL), the mean per row, or the per-row values.
    log : bool, default False
        ``proba`` holds natural-log probabilities.

    Returns
    -------
    float, or ndarray of shape (n_samples,) when ``reduce="none"``.

    See Also
    --------
    pgmpy_ext.stats.conditional_log_likelihood : the kernel-level CLL of a compiled network on codes (with its
        gradient), used by the TM learners; this function scores any classifier's predicted probabilities.

    Notes
    -----
    .. math:: \mathrm{CLL} = \sum_{d=1}^{N} \log \max\big(p(c^{(d)} \mid x^{(d)}), \varepsilon\big),
              \qquad \varepsilon = \texttt{floor}.

    Examples
    --------
    >>> import numpy as np
    >>> round(conditional_log_likelihood_score(["a", "b"], [[0.5, 0.5], [0.2, 0.8]], ["a", "b"]), 6)
    -0.916291
    >>> round(conditional_log_likelihood_score(["a"], [[0.0, 1.0]], ["a", "b"]), 2)  # floored at 1e-300
    -690.78
    """
    if not (0.0 < floor <= 1.0):
        raise ValueError(f"floor == {floor!r}, must be in (0, 1].")
    t = _labels(y_true)
    P = np.asarray(proba, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != t.shape[0]:
        raise ValueError(f"proba must have shape (n_samples, n_classes) = ({t.shape[0]}, n_classes), got {P.shape}.")
    cls = _labels(classes)
    if P.shape[1] != cls.shape[0]:
        raise ValueError(f"proba has {P.shape[1]} columns but {cls.shape[0]} classes were given.")
    picked = P[np.arange(t.shape[0]), _class_positions(t, cls)]
    with np.errstate(divide="ignore"):
        values = np.maximum(picked if log else np.log(picked), np.log(floor))
    return _reduce(values, reduce)


def log_likelihood_score(y_true, joint_log_proba, classes, *, floor: float = PROBA_FLOOR, reduce: str = "sum"):
    r"""Joint log-likelihood of the data, ``sum_d log p(c_d, x_d)`` (Santafé 2007, Eq. 3.7).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    joint_log_proba : array-like of shape (n_samples, n_classes)
        ``log p(c = k, x_d)`` (natural log), columns in ``classes`` order: what :func:`joint_log_proba` returns,
        or scikit-learn's ``predict_joint_log_proba`` of its naive Bayes estimators.
    classes : array-like of shape (n_classes,)
    floor : float, default 1e-300
        Each row's ``log p(c_d, x_d)`` is raised to at least ``log(floor)``, keeping the sum finite.
    reduce : {"sum", "mean", "none"}, default "sum"

    Returns
    -------
    float, or ndarray of shape (n_samples,) when ``reduce="none"``.

    Notes
    -----
    ``LL = CLL + sum_d log p(x_d)`` (Santafé 2007, Eq. 5.1), with ``log p(x_d) = logsumexp_k joint_log_proba[d, k]``.

    Examples
    --------
    >>> import numpy as np
    >>> lj = np.log([[0.1, 0.3], [0.4, 0.2]])
    >>> round(log_likelihood_score(["b", "a"], lj, ["a", "b"]), 6), round(float(np.log(0.3) + np.log(0.4)), 6)
    (-2.120264, -2.120264)
    """
    if not (0.0 < floor <= 1.0):
        raise ValueError(f"floor == {floor!r}, must be in (0, 1].")
    t = _labels(y_true)
    L = np.asarray(joint_log_proba, dtype=np.float64)
    cls = _labels(classes)
    if L.ndim != 2 or L.shape != (t.shape[0], cls.shape[0]):
        raise ValueError(f"joint_log_proba must have shape (n_samples, n_classes) = ({t.shape[0]}, {cls.shape[0]}), "
                         f"got {L.shape}.")
    values = np.maximum(L[np.arange(t.shape[0]), _class_positions(t, cls)], np.log(floor))
    return _reduce(values, reduce)


def _final_step(estimator):
    """The last step of a Pipeline (the classifier), else the estimator itself."""
    steps = getattr(estimator, "steps", None)
    if steps:
        return steps[-1][1]
    return estimator


def _transform_to_final(estimator, X):
    steps = getattr(estimator, "steps", None)
    if steps and len(steps) > 1:
        return estimator[:-1].transform(X)
    return X


def joint_log_proba(estimator, X) -> np.ndarray:
    """``log p(c = k, x)`` for every row of ``X`` and class ``k`` of a fitted classifier (columns in ``classes_``).

    Looked up, in this order, on the estimator (the last step of a ``Pipeline``, after the earlier steps
    transform ``X``):

    1. ``predict_joint_log_proba(X)``: the scikit-learn naive Bayes API (``CategoricalNB`` and friends);
    2. ``model_`` (a pgmpy ``DiscreteBayesianNetwork``) plus ``class_node_``: every pgmpy-ext Bayesian-network
       classifier. The joint comes from the compiled network (``pgmpy_ext.models.BatchPosterior.log_joint``) with
       CPT entries floored at 1e-300, as the classifiers do when predicting, so
       ``joint - logsumexp(joint)`` equals ``predict_log_proba``.

    Anything else raises a TypeError; for such a model pass your own callable to
    :func:`pgmpy_ext.evaluation.cross_validate_learners` (``joint_log_proba=...``) or compute the array yourself
    and call :func:`log_likelihood_score`.

    Parameters
    ----------
    estimator : fitted classifier or Pipeline
    X : DataFrame or array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.classifiers import NaiveBayesClassifier
    >>> X = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    >>> y = pd.Series(["n", "y", "y", "n"], name="c")
    >>> clf = NaiveBayesClassifier().fit(X, y)
    >>> lj = joint_log_proba(clf, X)
    >>> lj.shape
    (4, 2)
    >>> bool(np.allclose(lj - np.logaddexp.reduce(lj, axis=1, keepdims=True), clf.predict_log_proba(X)))
    True
    """
    final = _final_step(estimator)
    Xf = _transform_to_final(estimator, X)
    if hasattr(final, "predict_joint_log_proba"):
        return np.asarray(final.predict_joint_log_proba(Xf), dtype=np.float64)
    model = getattr(final, "model_", None)
    class_node = getattr(final, "class_node_", None)
    if model is not None and class_node is not None:
        from pgmpy_ext._compat import DiscreteBayesianNetwork

        if isinstance(model, DiscreteBayesianNetwork):
            return _bn_joint_log_proba(final, model, class_node, Xf)
    raise TypeError(f"{type(final).__name__} exposes no joint probability: it needs predict_joint_log_proba(X) or a "
                    "fitted pgmpy model_ with class_node_. Pass a callable joint_log_proba(estimator, X) instead.")


def _bn_joint_log_proba(final, model, class_node, X) -> np.ndarray:
    from pgmpy_ext.data import as_frame
    from pgmpy_ext.models import BatchPosterior
    from pgmpy_ext.utils import LOG_PROB_FLOOR

    frame = as_frame(X)
    names = getattr(final, "feature_names_in_", None)
    if not isinstance(X, pd.DataFrame) and names is not None:
        frame.columns = list(names)
    elif not isinstance(X, pd.DataFrame):
        frame.columns = [n for n in model.nodes() if n != class_node][: frame.shape[1]]
    post = BatchPosterior(model, class_node, n_jobs=getattr(final, "n_jobs", 1) or 1)
    np.maximum(post.compiled.log_cpt, LOG_PROB_FLOOR, out=post.compiled.log_cpt)
    lj = post.log_joint(frame)
    classes = getattr(final, "classes_", None)
    if classes is None:
        return lj
    order = _class_positions(_labels(classes), np.array(post.classes, dtype=object))
    return lj[:, order]


# ---------------------------------------------------------------------------------------------- clustering
_MAPPINGS = ("vote", "one-to-one")


def _contingency(y_true, labels_pred):
    t, p = _labels(y_true), _labels(labels_pred)
    if t.shape != p.shape:
        raise ValueError(f"y_true has {t.shape[0]} labels but labels_pred has {p.shape[0]}.")
    classes, t_idx = np.unique(t, return_inverse=True)
    clusters, p_idx = np.unique(p, return_inverse=True)
    table = np.zeros((clusters.shape[0], classes.shape[0]), dtype=np.int64)
    np.add.at(table, (p_idx, t_idx), 1)
    return table, clusters, classes


def cluster_class_mapping(y_true, labels_pred, *, mapping: str = "vote") -> dict:
    """The class each cluster is labelled with by :func:`clustering_accuracy`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True classes.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels (any hashable, sortable values).
    mapping : {"vote", "one-to-one"}, default "vote"
        ``"vote"``: each cluster gets the majority class of its members (many-to-one; ties go to the first class
        in sorted order). ``"one-to-one"``: the matching of clusters to distinct classes that maximises the
        number of agreeing rows (Hungarian algorithm, ``scipy.optimize.linear_sum_assignment``); clusters left
        without a class (more clusters than classes) are absent from the dict and count as errors.

    Returns
    -------
    dict ``{cluster: class}``

    Examples
    --------
    >>> y = ["a", "a", "a", "b", "b", "b"]
    >>> c = [0, 0, 1, 1, 2, 2]
    >>> {int(k): str(v) for k, v in cluster_class_mapping(y, c).items()}
    {0: 'a', 1: 'a', 2: 'b'}
    >>> {int(k): str(v) for k, v in cluster_class_mapping(y, c, mapping="one-to-one").items()}
    {0: 'a', 2: 'b'}
    """
    check_option(mapping, "mapping", _MAPPINGS)
    table, clusters, classes = _contingency(y_true, labels_pred)
    if mapping == "vote":
        return {clusters[i]: classes[int(np.argmax(table[i]))] for i in range(clusters.shape[0])}
    rows, cols = linear_sum_assignment(table, maximize=True)
    return {clusters[i]: classes[j] for i, j in zip(rows, cols)}


def clustering_accuracy(y_true, labels_pred, *, mapping: str = "vote") -> float:
    r"""Clustering accuracy: the fraction of rows whose cluster is labelled with their true class (Ruz's thesis,
    chapter 4).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    labels_pred : array-like of shape (n_samples,)
    mapping : {"vote", "one-to-one"}, default "vote"
        See :func:`cluster_class_mapping`. ``"vote"`` is the thesis's "by voting" accuracy (several clusters may
        share a class); ``"one-to-one"`` is Weka's classes-to-clusters evaluation.

    Returns
    -------
    float in [0, 1]; NaN for zero rows.

    Notes
    -----
    With :math:`n_{kc}` the number of rows of class :math:`c` in cluster :math:`k`,

    .. math:: \mathrm{acc}_{vote} = \frac{1}{N}\sum_k \max_c n_{kc}, \qquad
              \mathrm{acc}_{1:1} = \frac{1}{N}\max_{\sigma\ \mathrm{injective}} \sum_k n_{k\sigma(k)} .

    Examples
    --------
    >>> y = ["a", "a", "a", "b", "b", "b"]
    >>> c = [0, 0, 1, 1, 2, 2]
    >>> round(clustering_accuracy(y, c), 4), round(clustering_accuracy(y, c, mapping="one-to-one"), 4)
    (0.8333, 0.6667)
    """
    check_option(mapping, "mapping", _MAPPINGS)
    table, _, _ = _contingency(y_true, labels_pred)
    n = int(table.sum())
    if n == 0:
        return float("nan")
    if mapping == "vote":
        return float(table.max(axis=1).sum() / n)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / n)
