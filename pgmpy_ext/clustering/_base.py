"""The shared base of the Bayesian-network mixture clusterers: restarts, convergence warning, prediction surface,
export to pgmpy (scikit-learn's ``mixture.BaseMixture`` pattern).

:class:`BaseBNMixture` owns everything that is the same for every mixture of discrete Bayesian networks, so that a
new clusterer (CEM today; latent-class EM, EMA, constructive induction next) writes only its own start, its own
E-step and its own export. The restarts run through :func:`pgmpy_ext.utils.run_starts` (:func:`best_of_starts`),
shared with the engines (e.g. :func:`~pgmpy_ext.clustering.fit_cem`) and every other learner with restarts.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.data import DiscreteInputMixin, EncodedData, check_no_missing, encode, warn_mostly_unseen
from pgmpy_ext.models import multinet_to_network
from pgmpy_ext.utils import log_normalize_rows, logsumexp_rows, run_starts

__all__ = ["BaseBNMixture", "best_of_starts", "check_clusters_fit_rows"]


def check_clusters_fit_rows(n_clusters: int, n_distinct: int, what: str = "distinct rows of X") -> None:
    """Refuse more clusters than distinct rows (a mixture cannot give each cluster its own row pattern)."""
    if int(n_clusters) > int(n_distinct):
        raise ValueError(f"n_clusters == {n_clusters} is more than the {n_distinct} {what}; use at most that many "
                         "clusters.")


def best_of_starts(single_start: Callable, n_init: int, random_state, score: Callable, *, n_jobs: int | None = None,
                   show_progress: bool = False, desc: str = "starts",
                   indexed: bool = False) -> tuple[list, np.ndarray, int]:
    """``n_init`` starts through :func:`pgmpy_ext.utils.run_starts` and the best one by ``score``
    (``indexed=True``: ``single_start(i, rng)``, for starts that differ by more than their seed).

    Returns
    -------
    starts : list
        The result of every start, in start order.
    scores : float64 (n_init,)
        ``score(start)`` of every start (higher is better).
    best : int
        Index of the best start (ties: the first).
    """
    starts = run_starts(single_start, int(n_init), random_state, n_jobs=n_jobs, show_progress=show_progress,
                        desc=desc, indexed=indexed)
    scores = np.array([score(s) for s in starts], dtype=np.float64)
    return starts, scores, int(np.argmax(scores))  # ties: the first start


class BaseBNMixture(DiscreteInputMixin, ClusterMixin, BaseEstimator):
    r"""Base class of the clusterers that fit a mixture of discrete Bayesian networks (the cluster is a hidden class).

    It owns the restarts (``n_init`` starts on spawned child generators, optionally in parallel, the best start
    kept), the :class:`~sklearn.exceptions.ConvergenceWarning`, :meth:`fit`, :meth:`fit_predict`, :meth:`predict`,
    :meth:`predict_proba`, :meth:`predict_log_proba`, :meth:`score_samples`, :meth:`score`, the encoding of ``X``
    (through :class:`~pgmpy_ext.data.DiscreteInputMixin`) and the export to pgmpy (:meth:`to_network`). Not meant
    to be instantiated directly.

    A subclass's ``__init__`` stores its options, among them ``n_init``, ``random_state``, ``n_jobs`` and
    ``show_progress`` (read by :meth:`fit`), and implements these hooks:

    ``_check_params()``
        Validate the subclass's own options (``n_jobs`` and ``random_state`` are checked by the base).
    ``_prepare_starts(data: EncodedData) -> object``
        Anything computed once from the encoded training data and shared by every start (default: ``data``);
        data-dependent errors are raised here.
    ``_single_start(prepared, rng: numpy.random.Generator) -> start result``
        One start from its own generator (the only source of randomness). Must pickle for process parallelism.
        With ``_indexed_starts = True`` the hook is ``_single_start(prepared, index, rng)`` (starts that differ by
        more than their seed, e.g. the latent-class clusterers' ``init="dependency"``).
    ``_start_score(result) -> float``
        The criterion the best start maximises (e.g. the classification or the observed log-likelihood).
    ``_combine_starts(prepared, starts, scores, best) -> result``
        The fitted result from every start (default: the best start, ``starts[best]``); multi-start policies that
        average the starts (EMA) override it.
    ``_not_converged_message(result) -> str or None``
        The ConvergenceWarning text when the best start stopped before converging, None otherwise.
    ``_set_fitted(result, scores)``
        Store the fitted attributes of the best start (``scores``: every start's criterion); must set
        ``labels_`` and ``weights_`` (the mixing weights, shape (n_clusters,)).
    ``_joint_log_likelihood(codes) -> ndarray (n_rows, K)``
        ``log p(x, cluster = k)`` of encoded rows (int32 codes in ``encoder_``'s columns and states).
    ``_build_models()``
        Build the pgmpy objects last: ``model_`` (one network, ``cluster_node_`` a latent parent) or ``models_``
        (``{k: network over the attributes}``, a multinet with ``weights_``).

    Attributes
    ----------
    The base sets these; the subclass documents its own (``labels_``, ``weights_``, ``model_`` or ``models_``, ...).

    encoder_ : EncodedData
        The encoded training data (its states are the ones ``predict`` accepts).
    cluster_node_ : str
        Name of the cluster node (``"cluster"``, with underscores appended while a feature has that name).
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.

    Notes
    -----
    With :math:`\ell_k(x) = \log p(x, k)` from ``_joint_log_likelihood``: ``predict`` is
    :math:`\arg\max_k \ell_k(x)` (smallest k on ties), ``predict_log_proba`` is
    :math:`\ell_k(x) - \log\sum_j e^{\ell_j(x)}`, ``score_samples`` is :math:`\log\sum_k e^{\ell_k(x)} = \log p(x)`
    and ``score`` its mean (as ``sklearn.mixture.GaussianMixture``).
    """

    #: The vocabulary's constraints (:data:`pgmpy_ext.data.PARAMETER_VOCABULARY`); ``missing`` and
    #: ``handle_unknown`` are what ``predict*``/``score`` do with NaN/None and unseen values (``fit`` needs complete
    #: rows unless ``_fit_allows_missing``). Subclasses add their options.
    _parameter_constraints = dict(DiscreteInputMixin._parameter_constraints)

    # ------------------------------------------------------------------ hooks
    def _check_params(self) -> None:
        """Check the options against ``_parameter_constraints``; a subclass with cross-option rules calls this
        first (:func:`pgmpy_ext.utils.check_params`)."""
        self._check_common_params()

    def _prepare_starts(self, data: EncodedData):
        return data

    def _single_start(self, prepared, rng: np.random.Generator):
        raise NotImplementedError

    def _start_score(self, result) -> float:
        raise NotImplementedError

    def _not_converged_message(self, result) -> str | None:
        return None

    def _combine_starts(self, prepared, starts: list, scores: np.ndarray, best: int):
        return starts[best]

    #: True when ``fit`` accepts missing cells (NaN/None), which reach ``_prepare_starts`` coded -1.
    _fit_allows_missing = False

    #: True when ``_single_start`` takes the start's index before its generator.
    _indexed_starts = False

    def _set_fitted(self, result, scores: np.ndarray) -> None:
        raise NotImplementedError

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _build_models(self) -> None:
        raise NotImplementedError

    def _progress_desc(self) -> str:
        return f"{type(self).__name__} starts"

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Cluster the rows of ``X``: ``n_init`` starts, the best one kept.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Discrete attributes (category, str/object, bool, int, or whole-number floats), no missing values.
            Discretise real-valued columns first (e.g. ``pgmpy_ext.preprocessing.EqualWidthDiscretizer(5)``).
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        frame = self._fit_frame(X)
        if self._fit_allows_missing:
            self.encoder_ = encode(frame, missing="skip")
        else:
            self._check_no_missing(frame)
            self.encoder_ = encode(frame)
        self._fit_index_ = frame.index  # the user's row labels, for errors raised while preparing
        try:
            prepared = self._prepare_starts(self.encoder_)
        finally:
            del self._fit_index_
        starts, scores, best = best_of_starts(partial(self._single_start, prepared), int(self.n_init),
                                              self.random_state, self._start_score, n_jobs=self.n_jobs,
                                              show_progress=self.show_progress, desc=self._progress_desc(),
                                              indexed=self._indexed_starts)
        result = self._combine_starts(prepared, starts, scores, best)
        self._set_fitted(result, scores)
        message = self._not_converged_message(result)
        if message is not None:
            warnings.warn(message, ConvergenceWarning, stacklevel=2)
        self._name_cluster_node()
        for stale in ("model_", "models_", "_no_model_reason"):  # a refit may switch between network and multinet
            self.__dict__.pop(stale, None)
        self._build_models()  # pgmpy objects last
        return self

    def __getattr__(self, name):
        """Called only when ``name`` is not found: a ``model_`` that this fit did not build (a one-network form
        above ``MODEL_MAX_CPD_SIZE``) gets an AttributeError that says why and what to use instead."""
        if name == "model_":
            reason = self.__dict__.get("_no_model_reason")
            if reason is not None:
                raise AttributeError(f"This {type(self).__name__} has no model_: {reason}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _name_cluster_node(self) -> None:
        """``cluster_node_``: ``"cluster"``, with underscores appended while a feature has that name."""
        cluster = "cluster"
        while cluster in self.encoder_.columns:
            cluster += "_"
        self.cluster_node_ = cluster

    def fit_predict(self, X, y=None) -> np.ndarray:
        """Fit, then return ``labels_`` (the training partition of the best start)."""
        return self.fit(X, y).labels_

    def _cluster_states(self) -> dict:
        """``{column: states}`` of the attributes plus the cluster node (states ``0 .. K-1``)."""
        states = self.encoder_.state_names
        states[self.cluster_node_] = list(range(len(self.weights_)))
        return states

    def to_network(self, *, order=None) -> DiscreteBayesianNetwork:
        """One pgmpy network with the cluster node, for inference.

        ``model_`` itself when the mixture is one network; for a multinet (``models_``),
        :func:`~pgmpy_ext.models.multinet_to_network` of ``models_`` and ``weights_`` (exact: the joint
        distribution, hence every posterior, is the multinet's), with ``order`` passed on.
        """
        check_is_fitted(self)
        if "models_" in self.__dict__:
            return multinet_to_network(self.models_, self.weights_, cluster_node=self.cluster_node_, order=order)
        return self.model_

    def _check_no_missing(self, frame) -> None:
        """Refuse missing training cells, naming the first one (column, row index label) and the reason."""
        na = frame.isna().to_numpy()
        if na.any():
            r, k = (int(v[0]) for v in np.nonzero(na))
            raise ValueError(f"{type(self).__name__} cannot fit on missing values (NaN/None): column "
                             f"{frame.columns[k]!r} is missing at row {frame.index[r]!r}. Its classification M step "
                             "learns each cluster's network from the member rows and needs them complete; impute or "
                             "drop the incomplete rows before fit. predict, predict_proba and score sum missing "
                             "cells out exactly.")

    # ------------------------------------------------------------------ predict
    def _codes(self, X) -> np.ndarray:
        """int32 codes of new ``X`` in ``encoder_``'s columns and states; ``-1`` for a missing cell (NaN/None) and,
        with ``handle_unknown="ignore"``, for a value unseen at fit (``"error"`` raises naming the row label)."""
        columns = list(self.encoder_.columns)
        frame = self._predict_frame(X, columns)
        if frame.shape[0] == 0:
            return np.zeros((0, len(columns)), dtype=np.int32)
        if getattr(self, "missing", "available_case") == "error":
            check_no_missing(frame[columns], f"{type(self).__name__}.predict")
        states = {c: self.encoder_.states[k] for k, c in enumerate(columns)}
        handle_unknown = getattr(self, "handle_unknown", "error")
        codes = encode(frame[columns], states=states, missing="skip", strict_states=True,
                       handle_unknown=handle_unknown).codes
        if handle_unknown == "ignore":  # a feature mostly unseen (e.g. its type changed) would vanish silently
            warn_mostly_unseen(frame, codes, columns, self.encoder_.states)
        return codes

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """``log p(x, cluster = k)`` per row, shape (n_samples, n_clusters)."""
        check_is_fitted(self)
        return self._joint_log_likelihood(self._codes(X))

    def predict_log_proba(self, X) -> np.ndarray:
        """``log P(cluster = k | x)`` per row, shape (n_samples, n_clusters)."""
        check_is_fitted(self)
        return log_normalize_rows(self.predict_joint_log_proba(X))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(cluster = k | x)`` per row (the E-step of the fitted model), shape (n_samples, n_clusters).
        Rows sum to 1; a cluster dropped during fitting has probability 0."""
        check_is_fitted(self)
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable cluster per row (ties: the smallest cluster index)."""
        check_is_fitted(self)
        return np.argmax(self.predict_joint_log_proba(X), axis=1).astype(np.intp)

    def score_samples(self, X) -> np.ndarray:
        """``log p(x)`` of every row under the mixture (natural log)."""
        check_is_fitted(self)
        return logsumexp_rows(self.predict_joint_log_proba(X))

    def score(self, X, y=None) -> float:
        """Mean log-likelihood ``log p(x)`` per row under the mixture (like ``GaussianMixture.score``)."""
        check_is_fitted(self)
        return float(np.mean(self.score_samples(X)))
