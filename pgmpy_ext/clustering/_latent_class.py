"""Latent-class clustering faces: multi-start EM (:class:`LatentClassEM`) and expectation model averaging
(:class:`EMAClustering`), Santafé (2007), chapters 6-7 (``docs/decisions/seed001-ema-popgen.md``)."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.clustering._base import BaseBNMixture, best_of_starts, check_clusters_fit_rows
from pgmpy_ext.clustering._latent import (
    LATENT_COMBINES,
    LATENT_POLICIES,
    LatentClassData,
    LatentClassStart,
    combine_starts,
    dependency_seeds,
    latent_class_data,
    latent_class_single_start,
    mixture_log_joint,
    n_free_parameters,
    n_selective_parameters,
    posteriors_constant,
    seed_responsibilities,
)
from pgmpy_ext.clustering._micl import OMEGA_PRIORS, micl_single_start
from pgmpy_ext.dask import is_dask_collection
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import cpds_from_counts, sorted_parents
from pgmpy_ext.stats import MISSING_POLICIES, latent_class_log_joint
from pgmpy_ext.utils import LOG_PROB_FLOOR, Interval, Options, fill_doc

__all__ = ["EMAClustering", "LatentClassEM", "SelectiveLatentClassClustering"]

#: The starts of the latent-class clusterers: random parameters (the thesis's, decision 7) or EM on the most
#: mutually dependent variables first (issue 30).
LATENT_INITS = ("random", "dependency")

#: How :class:`SelectiveLatentClassClustering` chooses the relevant variables and compares its starts: VarSelLCM's
#: BIC-penalised EM (decision D5) or its MICL, the exact integrated complete-data likelihood (decision D10).
SELECTIVE_CRITERIA = ("bic", "micl")


class _LatentClassBase(BaseBNMixture):
    """What LatentClassEM and EMAClustering share: encoding with missing cells, distinct rows, the export."""

    _fit_allows_missing = True
    _indexed_starts = True
    _method = "em"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    _parameter_constraints = {**BaseBNMixture._parameter_constraints, "missing": [Options(MISSING_POLICIES)],
                              "init": [Options(LATENT_INITS), "array-like"]}

    def _check_params(self):
        super()._check_params()
        if not isinstance(self.init, str):
            a = np.asarray(self.init)
            if a.ndim not in (1, 2):
                raise ValueError(f"init must be 'random', labels (n_samples,) or responsibilities "
                                 f"(n_samples, n_clusters); got an array of shape {a.shape}.")

    def _prepare_starts(self, data) -> LatentClassData:
        prepared = latent_class_data(data.codes, data.cards, row_labels=self._fit_index_)
        check_clusters_fit_rows(self.n_clusters, len(prepared.weights))
        self._seeds_ = self._dependency_seeds(prepared)
        return prepared

    def _dependency_seeds(self, prepared: LatentClassData) -> list | None:
        """With ``init="dependency"``, the variable set every start clusters first (:func:`dependency_seeds`: the
        ``n_init`` most mutually dependent variables, each with its ``max(4, n_clusters + 2)`` most dependent
        partners; pairwise Bayes factors with a Dirichlet(1) per cell)."""
        if not (isinstance(self.init, str) and self.init == "dependency"):
            return None
        n_jobs = self.n_jobs if self.n_jobs is not None else 1
        return dependency_seeds(prepared, int(self.n_init), n_partners=max(4, int(self.n_clusters) + 2),
                                n_jobs=n_jobs)

    def _start_options(self) -> dict:
        """Options of every start: the relative log-likelihood rule at ``tol`` (EMA overrides it)."""
        return {"tol": float(self.tol), "criterion": "objective"}

    def _single_start(self, prepared: LatentClassData, index: int, rng: np.random.Generator) -> LatentClassStart:
        init = self.init if isinstance(self.init, str) else np.asarray(self.init)
        seeds = self.__dict__.get("_seeds_")
        if seeds is not None:  # init="dependency": EM on the start's seed variables gives the first M step
            init = (seed_responsibilities(prepared, seeds[index], int(self.n_clusters), rng, alpha=float(self.alpha),
                                          missing=self.missing) if index < len(seeds) else "random")
        return latent_class_single_start(prepared, int(self.n_clusters), rng, method=self._method,
                                         alpha=float(self.alpha), max_iter=int(self.max_iter), init=init,
                                         missing=self.missing, estep=self._dask_estep(),
                                         **self._start_options())

    def _dask_estep(self):
        """The E step over a dask DataFrame's persisted partitions while ``_fit_dask`` runs, else None."""
        rows = self.__dict__.get("_dask_rows_")
        return None if rows is None else rows.estep

    def _check_n_vars(self, n_vars: int) -> None:
        """Checks of options against the number of features (hook; EMA's per-feature ``structure_prior``)."""

    def _start_score(self, result: LatentClassStart) -> float:
        return result.loglik

    def _not_converged_message(self, result: LatentClassStart) -> str | None:
        if result.converged:
            return None
        return (f"{type(self).__name__} did not converge in max_iter={self.max_iter} iterations; increase max_iter "
                "or loosen the stopping rule.")

    def _set_fitted(self, result: LatentClassStart, scores: np.ndarray) -> None:
        data = self._prepared_
        self.theta_ = result.theta
        self.weights_ = result.weights
        self.log_likelihood_ = float(result.loglik)
        self.ll_trace_ = np.asarray(result.ll_trace)
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.start_scores_ = np.asarray(scores)
        if result.resp is not None:  # None after a fit on a dask DataFrame: no per-row posteriors were gathered
            self.labels_ = np.argmax(result.resp, axis=1).astype(np.intp)[data.inverse]
        else:
            self.__dict__.pop("labels_", None)
        self._layout_ = data.layout(int(self.n_clusters))
        self._components_ = result.components
        with np.errstate(divide="ignore"):
            self._log_theta_ = np.maximum(np.log(result.theta), LOG_PROB_FLOOR)
            self._log_prior_ = np.maximum(np.log(result.weights), LOG_PROB_FLOOR)

    def _combine_starts(self, prepared, starts, scores, best):
        self._prepared_ = prepared
        return starts[best]

    def fit(self, X, y=None):
        """Cluster the rows of ``X`` (missing cells allowed): ``n_init`` starts on spawned generators.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Discrete attributes (category, str/object, bool, int or whole-number floats); NaN/None cells are missing
            at random and summed out exactly. A row with every cell missing raises.
        y : ignored

        Returns
        -------
        self
        """
        if is_dask_collection(X):
            return self._fit_dask(X)
        try:
            return super().fit(X, y)
        finally:
            self.__dict__.pop("_prepared_", None)
            self.__dict__.pop("_seeds_", None)

    def _fit_dask(self, X):
        """``fit`` on a dask DataFrame (``pgmpy-ext[dask]``): every partition is reduced to its distinct rows and
        persisted (on the workers under ``distributed``), then each EM (or EMA) iteration is one map-reduce of the E
        step over those parts (:class:`pgmpy_ext.dask.LatentClassPasses`, fixed tree), with the M step (EMA's
        model-averaging step), the restarts and the convergence test on the client. EMA's multi-start policies
        ("uniform", "averaging") take one more map-reduce for the label alignment of the starts and one for the
        log-likelihood of their combination; its degenerate test one for the posteriors' range. Log-likelihoods and
        parameters equal the in-memory fit's to float round-off.

        Differences from an in-memory fit: ``labels_`` is not set (the training rows stay on the workers; use
        ``predict`` on the partitions you need), and ``encoder_`` holds the columns and states but no rows.
        A row with every cell missing is not refused here (it adds nothing to the log-likelihood or the counts),
        nor are more clusters than distinct rows."""
        from functools import partial

        from pgmpy_ext import dask as pgmpy_dask

        self._check_params()
        if not (isinstance(self.init, str) and self.init == "random"):
            raise ValueError(f"init={self.init if isinstance(self.init, str) else 'labels'!r} needs the training rows "
                             "in memory; with a dask DataFrame use init='random'.")
        data = pgmpy_dask.encode(X, missing="skip")
        self._check_n_vars(len(data.columns))
        self.n_features_in_ = len(data.columns)
        if all(isinstance(c, str) for c in data.columns):
            self.feature_names_in_ = np.asarray(data.columns, dtype=object)
        self.encoder_ = EncodedData(np.zeros((0, len(data.columns)), dtype=np.int32), data.columns, data.states,
                                    missing="skip")
        parts = pgmpy_dask.persist_distinct(data)
        prepared = LatentClassData(np.zeros((0, len(data.columns)), dtype=np.int32), np.zeros(0),
                                   np.zeros(0, dtype=np.intp), data.cards.copy(), 1, 0, np.zeros(0))
        self._dask_rows_ = pgmpy_dask.LatentClassPasses(parts)
        try:
            starts, scores, best = best_of_starts(partial(self._single_start, prepared), int(self.n_init),
                                                  self.random_state, self._start_score, n_jobs=1,
                                                  show_progress=self.show_progress, desc=self._progress_desc(),
                                                  indexed=True)
            result = self._combine_starts(prepared, starts, scores, best)
            self._set_fitted(result, scores)
        finally:
            self.__dict__.pop("_dask_rows_", None)
            self.__dict__.pop("_prepared_", None)
        message = self._not_converged_message(result)
        if message is not None:
            warnings.warn(message, ConvergenceWarning, stacklevel=2)
        self._name_cluster_node()
        self.__dict__.pop("model_", None)
        self._build_models()
        return self

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        if self._components_ is not None:
            return mixture_log_joint(self._layout_, codes, self._components_)
        return latent_class_log_joint(self._layout_, codes, self._log_theta_, self._log_prior_)

    def _relevance(self) -> np.ndarray | None:
        """Per feature, the probability that it depends on the cluster (EMA's arc posteriors, the selective EM's
        relevance); None for EM (every arc present). Stored on ``model_``'s feature nodes as ``"relevance"``."""
        return None

    def _child_features(self, features) -> list:
        """The features that are children of the cluster node in ``model_`` (all but the selective EM's dropped
        ones)."""
        return list(features)

    def _build_models(self) -> None:
        C = self.cluster_node_
        features = list(self.encoder_.columns)
        lay = self._layout_
        if self._components_ is not None:
            self.model_ = self._build_mixture_network(C, features, lay)
        else:
            children = set(self._child_features(features))
            parents = {C: [], **{f: ([C] if f in children else []) for f in features}}
            tables = {C: self.weights_}
            for v, f in enumerate(features):
                block = lay.block_at(self.theta_.ravel(), v)
                tables[f] = block if f in children else block[:, :1]  # a root node: its (identical) columns once
            model = DiscreteBayesianNetwork()
            model.add_nodes_from([C, *features])  # with no child, the cluster node exists before it is declared
            model.add_edges_from([(C, f) for f in features if f in children])
            model.latents = {C}
            model.add_cpds(*cpds_from_counts(tables, parents, self._cluster_states(), alpha=0.0))
            self.model_ = model
        relevance = self._relevance()
        if relevance is not None:
            for f, r in zip(features, relevance):
                self.model_.nodes[f]["relevance"] = float(r)

    def _build_mixture_network(self, C, features, lay) -> DiscreteBayesianNetwork:
        """The mixture of joints as one network: a latent ``start`` root (P(start = m) = the mixing weights) is a
        parent of the cluster and of every feature, so ``P(cluster | x)`` is exactly the mixture's posterior."""
        mix, thetas, weights = self._components_
        S = "start"
        while S in features or S == C:
            S += "_"
        self.start_node_ = S
        states = {**self._cluster_states(), S: list(range(len(mix)))}
        parents = {S: [], C: [S], **{f: [C, S] for f in features}}
        tables = {S: np.asarray(mix), C: np.asarray(weights).T}  # (K, M)
        for v, f in enumerate(features):
            t = np.stack([lay.block_at(th.ravel(), v) for th in thetas], axis=-1)  # (r, K, M): (f, C, S)
            tables[f] = t if sorted_parents([C, S]) == [C, S] else t.transpose(0, 2, 1)
        model = DiscreteBayesianNetwork([(S, C), *[(C, f) for f in features], *[(S, f) for f in features]],
                                        latents={C, S})
        model.add_cpds(*cpds_from_counts(tables, parents, states, alpha=0.0))
        return model

    # ------------------------------------------------------------------ model selection
    def _n_parameters(self) -> int:
        return n_free_parameters(self.encoder_.cards, int(self.n_clusters))

    def bic(self, X) -> float:
        """Bayesian information criterion on ``X``: ``-2 * sum log p(x) + n_parameters * log(n_samples)`` (lower is
        better, as ``GaussianMixture.bic``)."""
        check_is_fitted(self)
        ll = self.score_samples(X)
        return float(-2.0 * ll.sum() + self._n_parameters() * np.log(len(ll)))

    def aic(self, X) -> float:
        """Akaike information criterion on ``X``: ``-2 * sum log p(x) + 2 * n_parameters`` (lower is better)."""
        check_is_fitted(self)
        return float(-2.0 * self.score_samples(X).sum() + 2 * self._n_parameters())


@fill_doc
class LatentClassEM(_LatentClassBase):
    r"""Latent-class clustering by multi-start EM: a naive Bayes whose class is a hidden cluster variable.

    The baseline of Santafé (2007), section 6.2.1 (``docs/decisions/seed001-ema-popgen.md``, "Baseline A"): EM from
    ``n_init`` random starts (Dirichlet(1) parameters), the start of highest observed-data log-likelihood kept
    (Best Choice). The M step is the posterior mean with a Dirichlet ``alpha`` per cell (the thesis's "MAP"; the
    note's "Consolidated ambiguities and recommendations" recommends ``alpha=1`` for the baseline), maximum
    likelihood with ``alpha=0``. The E step
    runs in Cython on the distinct rows with their multiplicities; missing cells are summed out exactly in the E
    step and their expected counts added in the M step (missing at random).

    Parameters
    ----------
    n_clusters : int, default 2
        Number of clusters K (>= 1, at most the number of distinct rows).
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``); 0 is maximum
        likelihood.
    n_init : int, default 10
        Random starts; the best by log-likelihood is kept.
    tol : float, default 1e-6
        Stop when the observed-data log-likelihood changes by at most ``tol * |LL|`` between iterations (relative
        change; the thesis gives no threshold, see ``docs/decisions/seed001-ema-popgen.md``).
    max_iter : int, default 1000
    init : "random", "dependency", labels (n_samples,) or responsibilities (n_samples, n_clusters), default "random"
        "random": Dirichlet(1) parameters (the thesis's random start). "dependency": start ``s`` first fits EM (5 random
        starts) on
        the ``s``-th most mutually dependent variable and its most dependent partners (pairwise Bayes factors) and
        continues on every variable from those posteriors; with many irrelevant variables a random start is
        dominated by them (issue 30, ``docs/decisions/issue30-relevance.md``). Given labels or responsibilities give
        the first M step (every start then starts there).
    missing : {"impute", "available_case"}, default "impute"
        NaN/None cells, summed out exactly in the E step and at predict either way. What a missing cell adds to
        the M step's counts: ``P(C=j | x) P(X=k | C=j)`` (``"impute"``, exact EM under missing at random) or
        nothing (``"available_case"``: each count over the rows where the cell is observed; not exact EM).
    random_state : None, int or numpy.random.Generator
    %(n_jobs)s
    show_progress : bool, default False
    handle_unknown : {"ignore", "error"}, default "ignore"
        A value unseen at fit in ``predict*``/``score``: summed out like a missing cell, or an error.

    Attributes
    ----------
    labels_ : intp (n_samples,)
        Most probable cluster of every training row.
    weights_ : float64 (n_clusters,)
        ``P(cluster)``.
    theta_ : float64 (n_states_total, n_clusters)
        ``P(X_v = k | cluster)``, variable blocks in column order, states in ``encoder_``'s order.
    log_likelihood_ : float
        Observed-data log-likelihood of the training data (natural log, the cluster summed out).
    ll_trace_ : float64 array of shape ``(n_iter_ + 1,)``
        Log-likelihood of every iterate of the best start (never decreasing).
    n_iter_ : int
    converged_ : bool
    start_scores_ : float64 (n_init,)
    model_ : DiscreteBayesianNetwork
        The naive Bayes with the cluster node ``cluster_node_`` in ``model_.latents``.

    See Also
    --------
    EMAClustering : the same model with the M step replaced by Bayesian model averaging over selective structures.
    pgmpy_ext.parameters.LatentEM : the pgmpy face for any network with one latent node.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({f"x{i}": np.where(rng.random(300) < 0.85, z, 1 - z) for i in range(5)})
    >>> em = LatentClassEM(2, n_init=3, random_state=0).fit(X)
    >>> float(max(np.mean(em.labels_ == z), np.mean(em.labels_ != z))) > 0.9
    True
    >>> sorted(em.model_.latents)
    ['cluster']
    """

    _method = "em"

    def __init__(self, n_clusters=2, *, alpha=1.0, n_init=10, tol=1e-6, max_iter=1000, init="random",
                 missing="impute", random_state=None, n_jobs=None, show_progress=False, handle_unknown="ignore"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.n_init = n_init
        self.tol = tol
        self.max_iter = max_iter
        self.init = init
        self.missing = missing
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown


class EMAClustering(_LatentClassBase):
    r"""Clustering by Expectation Model Averaging (EMA): EM whose M step averages over all selective naive Bayes.

    Santafé (2007), sections 7.3.1 and 7.4 (``docs/decisions/seed001-ema-popgen.md``). Each iteration is an E step
    (expected counts of the current averaged naive Bayes) and the closed-form model-averaging step (the note's
    "Closed form", derived from the thesis's eqs. 7.10-7.22):
    every variable's CPD becomes the mixture :math:`w_i \tilde\theta(X_i | C) + (1 - w_i) \tilde\theta(X_i)` of its
    "depends on the cluster" and "independent" estimates, :math:`w_i` the posterior of the arc
    :math:`C \to X_i` from Bayesian-Dirichlet marginal likelihoods of the expected counts (``arc_posterior_``, the
    thesis's implicit feature selection: irrelevant variables get :math:`w_i \to 0` and stop shaping the clusters).
    Iterations stop when no parameter moves by more than ``tol`` (L-infinity). Multi-start with the
    policies of the thesis's section 7.4: Best Choice (the start of highest log-likelihood), Uniform Averaging and
    (likelihood) Averaging of the parameters after Hungarian label alignment to the best start (the label switching
    the thesis leaves open, settled in the note's "Consolidated ambiguities and recommendations").

    Parameters
    ----------
    n_clusters : int, default 2
    alpha : float, default 1.0
        Dirichlet pseudo-count of every cell of both options and of the cluster (> 0).
    structure_prior : float in [0, 1], array (n_features,) or "auto", default 0.5
        Prior probability of each arc ``C -> X_i``; 0.5 is the thesis's uniform prior over the 2^n structures
        (``structure_prior=0.5`` is the thesis's :math:`p_S \equiv 1`); 1 forces every arc and gives EM. "auto": the
        arcs share an unknown inclusion probability :math:`\pi \sim` Beta(1, 1), estimated in every MA step by
        empirical Bayes (``inclusion_prior_``); with many irrelevant variables :math:`\pi` is small, which a fixed
        0.5 ignores (issue 30).
    tol : float, default 0.01
        Stop when no parameter (a conditional probability or a cluster weight) moves by more than ``tol`` in an
        iteration (L-infinity; the thesis's rule and value: EMA is not monotone in the log-likelihood,
        so its change is not the test).
    max_iter : int, default 1000
    n_init : int, default 10
    policy : {"best", "uniform", "averaging"}, default "best"
    combine : {"parameters", "joints"}, default "parameters"
        How "uniform" and "averaging" combine the aligned starts: average their parameters (one naive Bayes) or
        keep the mixture of their joint distributions (``predict_proba`` is then the mixture's posterior
        and ``model_`` has a second latent root, ``start_node_``, whose states are the starts).
    init, missing, random_state, n_jobs, show_progress, handle_unknown
        As in :class:`LatentClassEM`.

    Attributes
    ----------
    arc_posterior_ : float64 (n_features,)
        Posterior probability of the arc ``cluster -> feature`` (the relevance of each feature to the clustering);
        also the ``relevance`` attribute of every feature node of ``model_`` (``model_.nodes[f]["relevance"]``,
        written as a BIF property).
    inclusion_prior_ : float
        The arcs' prior probability in the last MA step (``structure_prior``, or its empirical-Bayes value with
        "auto"; the mean over features when one per feature is given).
    degenerate_ : bool
        The best start sits on the trivial fixed point (every arc posterior ~0, identical clusters; see "Relationship to
        the thesis' implicit feature selection" in ``docs/decisions/seed001-ema-popgen.md``).
    labels_, weights_, theta_, log_likelihood_, ll_trace_, n_iter_, converged_, start_scores_, model_
        As in :class:`LatentClassEM` (``ll_trace_`` may decrease: EMA does not maximise the likelihood).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({f"x{i}": np.where(rng.random(300) < 0.85, z, 1 - z) for i in range(4)})
    >>> X["noise"] = rng.integers(0, 3, 300)
    >>> ema = EMAClustering(2, n_init=3, random_state=0).fit(X)
    >>> ema.arc_posterior_.round(1).tolist()
    [1.0, 1.0, 1.0, 1.0, 0.1]
    """

    _method = "ema"

    def __init__(self, n_clusters=2, *, alpha=1.0, structure_prior=0.5, tol=0.01, max_iter=1000, n_init=10,
                 policy="best", combine="parameters", init="random", missing="impute", random_state=None, n_jobs=None,
                 show_progress=False, handle_unknown="ignore"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.structure_prior = structure_prior
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.policy = policy
        self.combine = combine
        self.init = init
        self.missing = missing
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown

    #: ``alpha > 0``: EMA's marginal likelihoods are Dirichlet integrals (use LatentClassEM for maximum
    #: likelihood).
    _parameter_constraints = {**_LatentClassBase._parameter_constraints,
                              "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
                              "structure_prior": [Interval(numbers.Real, 0, 1), Options("auto"), "array-like"],
                              "policy": [Options(LATENT_POLICIES)], "combine": [Options(LATENT_COMBINES)]}

    def _auto_prior(self) -> bool:
        return isinstance(self.structure_prior, str) and self.structure_prior == "auto"

    def _check_params(self):
        super()._check_params()
        if self._auto_prior():
            return
        p = np.asarray(self.structure_prior, dtype=np.float64)
        if p.ndim > 1 or not np.all((p >= 0) & (p <= 1)):
            raise ValueError(f"structure_prior must be a probability in [0, 1], one per feature or 'auto'; got {p}.")

    def _prepare_starts(self, data) -> LatentClassData:
        prepared = super()._prepare_starts(data)
        self._check_n_vars(prepared.n_vars)
        return prepared

    def _check_n_vars(self, n_vars: int) -> None:
        if self._auto_prior():
            return
        p = np.asarray(self.structure_prior, dtype=np.float64)
        if p.ndim == 1 and p.shape[0] != n_vars:
            raise ValueError(f"structure_prior has {p.shape[0]} entries for {n_vars} features.")

    def _start_options(self) -> dict:
        prior = "auto" if self._auto_prior() else np.asarray(self.structure_prior, float)
        return {"tol": float(self.tol), "criterion": "params", "structure_prior": prior}

    def _combine_starts(self, prepared, starts, scores, best):
        self._prepared_ = prepared
        rows = self.__dict__.get("_dask_rows_")
        result = combine_starts(prepared, starts, self.policy, missing=self.missing, combine=self.combine, rows=rows)
        if rows is not None and (self.policy == "best" or len(starts) == 1) and not result.degenerate:
            # the kept start's "constant posteriors" test, from the range of the posteriors over the dask rows
            lay = prepared.layout(int(self.n_clusters))
            with np.errstate(divide="ignore"):
                log_theta = np.maximum(np.log(result.theta), LOG_PROB_FLOOR)
                log_prior = np.maximum(np.log(result.weights), LOG_PROB_FLOOR)
            first, low, high = rows.posterior_range(lay, log_theta, log_prior)
            result = replace(result, degenerate=posteriors_constant(first=first, low=low, high=high))
        return result

    def _set_fitted(self, result: LatentClassStart, scores: np.ndarray) -> None:
        super()._set_fitted(result, scores)
        self.arc_posterior_ = np.asarray(result.arc_posterior, dtype=np.float64)
        self.degenerate_ = bool(result.degenerate)
        if self._auto_prior():  # the fixed point pi = (sum_i w_i + 1) / (n + 2) of the last MA step
            self.inclusion_prior_ = float((np.nansum(self.arc_posterior_) + 1.0) / (self.arc_posterior_.size + 2.0))
        else:
            self.inclusion_prior_ = float(np.mean(np.asarray(self.structure_prior, dtype=np.float64)))

    def _relevance(self) -> np.ndarray:
        return self.arc_posterior_


@fill_doc
class SelectiveLatentClassClustering(_LatentClassBase):
    r"""Latent-class clustering that selects the variables the clusters depend on (a selective naive Bayes).

    Each feature is either a child of the hidden cluster (``P(X_i | C)``) or independent of it (a root node with
    ``P(X_i)``), the model class EMA averages over (Santafé 2007, section 7.3.1). Here one structure is chosen with the
    clusters, by the penalised EM of VarSelLCM for categorical data (Marbac & Sedki 2017, BIC version): every M
    step keeps the arc ``C -> X_i`` when its gain in expected log-likelihood beats its BIC price
    :math:`\tfrac12 (K - 1)(r_i - 1) \log N`, so irrelevant features stop shaping the clusters instead of
    drowning them; the starts are compared by the BIC-penalised log-likelihood (the selective model's parameters
    counted), which a fit to noise does not win. The default starts cluster the most mutually dependent features
    first (``init="dependency"``): with most features irrelevant, a random start is dominated by them and no M
    step can recover (issue 30; design note ``docs/decisions/issue30-relevance.md``).

    ``criterion="micl"`` is VarSelLCM's other criterion: the exact integrated complete-data likelihood of a hard
    partition and a relevance vector (Jeffreys Dirichlet(1/2) priors, closed form), maximised from every start's
    penalised-EM fit by alternating exact steps (rows reassigned one at a time to the cluster of largest integrated
    likelihood; each feature's relevance by its per-cluster against its pooled marginal), with no asymptotic price.
    It keeps many more features; on the held-out comparisons of the design note it wins the lymphoma microarray
    (K = 9, where the BIC price grows with K) by far, and loses the synthetic family and the ALLAML leukemia, so the
    default stays "bic": use "micl" when there are many clusters.

    Parameters
    ----------
    n_clusters : int, default 2
    criterion : {"bic", "micl"}, default "bic"
        How the relevant features are chosen and the starts compared: "bic", the BIC-penalised EM; "micl", the
        maximum integrated complete-data likelihood (the labels are then the MAP labels of EM with the chosen
        features, started from the MICL partition, as VarSelLCM estimates its parameters).
    relevance_prior : {"uniform", "beta"}, default "uniform"
        ``criterion="micl"`` only: the prior of the relevance vector. "uniform" (every subset equally likely, prior
        odds 1 per feature) is VarSelLCM's; "beta" puts a uniform prior on the *number* of relevant features
        (Bernoulli(:math:`\pi`) relevances, :math:`\pi \sim` Beta(1, 1) integrated out), a multiplicity
        correction when there are many features (not in VarSelLCM; ``docs/decisions/issue30-relevance.md``).
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell of the fitted tables (0 = maximum likelihood); the arc decisions use the
        maximised expected log-likelihood ("bic") or Jeffreys' 1/2 ("micl").
    n_init : int, default 20
        Starts; the best by the criterion (the BIC-penalised log-likelihood or MICL) is kept.
    init : "dependency", "random", labels (n_samples,) or responsibilities (n_samples, n_clusters), default "dependency"
        As in :class:`LatentClassEM`.
    tol : float, default 1e-6
        Stop when the penalised log-likelihood changes by at most ``tol * |value|``.
    max_iter : int, default 1000
    missing : {"impute", "available_case"}, default "impute"
        As in :class:`LatentClassEM`.
    random_state : None, int or numpy.random.Generator
    %(n_jobs)s
    show_progress : bool, default False
    handle_unknown : {"ignore", "error"}, default "ignore"

    Attributes
    ----------
    relevance_ : float64 (n_features,)
        Per feature, :math:`\operatorname{expit}(\Delta_i)` with :math:`\Delta_i` the BIC gain of the arc
        ``cluster -> feature`` at the final posteriors: the Schwarz approximation of the posterior probability that
        the feature depends on the cluster (prior odds 1); above 1/2 exactly for the kept features. With
        ``criterion="micl"``: the exact posterior probability of relevance given the MICL partition (expit of the
        log Bayes factor of the per-cluster against the pooled Dirichlet-multinomial marginal; with
        ``relevance_prior="beta"``, given the other features' relevance too). Also the
        ``relevance`` attribute of every feature node of ``model_`` (written as a BIF property).
    relevant_features_ : ndarray of str
        The features that are children of the cluster node.
    labels_, weights_, theta_, log_likelihood_, n_iter_, converged_, model_
        As in :class:`LatentClassEM`; in ``model_`` the dropped features are root nodes (no arc from the cluster).
    ll_trace_ : float64 array of shape ``(n_iter_ + 1,)``
        The penalised log-likelihood of every iterate of the best start (``criterion="micl"``: the MICL criterion
        at the start and after every partition/relevance alternation, ``n_iter_`` alternations).
    start_scores_ : float64 (n_init,)
        Every start's penalised log-likelihood (``log_likelihood_ - n_parameters / 2 * log(n_samples)``), or its
        MICL criterion (natural log of the integrated complete-data likelihood, plus the log prior of the
        relevance vector with ``relevance_prior="beta"``).
    degenerate_ : bool
        No feature was kept (the clusters are identical).

    See Also
    --------
    EMAClustering : averages over the same structures instead of choosing one.
    LatentClassEM : every feature a child of the cluster.

    References
    ----------
    Marbac, M. and Sedki, M. (2017). Variable selection for model-based clustering using the integrated
    complete-data likelihood. Statistics and Computing 27(4), 1049-1063 (and the VarSelLCM package).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 200)
    >>> X = pd.DataFrame({f"x{i}": np.where(rng.random(200) < 0.85, z, 1 - z) for i in range(4)})
    >>> for i in range(40):
    ...     X[f"noise{i}"] = rng.integers(0, 3, 200)
    >>> sel = SelectiveLatentClassClustering(2, n_init=5, random_state=0).fit(X)
    >>> sel.relevant_features_.tolist()  # one noise column happens to follow the clusters
    ['x0', 'x1', 'x2', 'x3', 'noise25']
    >>> sel.model_.get_parents("noise0"), round(sel.model_.nodes["noise0"]["relevance"], 3)
    ([], 0.005)
    >>> float(max(np.mean(sel.labels_ == z), np.mean(sel.labels_ != z)))
    0.94
    >>> micl = SelectiveLatentClassClustering(2, criterion="micl", n_init=5, random_state=0).fit(X)
    >>> micl.relevant_features_.tolist()  # no asymptotic price: one more noise column
    ['x0', 'x1', 'x2', 'x3', 'noise25', 'noise32']
    >>> round(float(micl.relevance_[0]), 3), round(float(micl.relevance_[4]), 3)
    (1.0, 0.023)
    """

    _method = "select"

    def __init__(self, n_clusters=2, *, criterion="bic", relevance_prior="uniform", alpha=1.0, n_init=20,
                 init="dependency", tol=1e-6, max_iter=1000, missing="impute", random_state=None, n_jobs=None,
                 show_progress=False, handle_unknown="ignore"):
        self.n_clusters = n_clusters
        self.criterion = criterion
        self.relevance_prior = relevance_prior
        self.alpha = alpha
        self.n_init = n_init
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.missing = missing
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown

    _parameter_constraints = {**_LatentClassBase._parameter_constraints,
                              "criterion": [Options(SELECTIVE_CRITERIA)], "relevance_prior": [Options(OMEGA_PRIORS)]}

    def _check_params(self):
        super()._check_params()
        if self.relevance_prior != "uniform" and self.criterion != "micl":
            raise ValueError(f"relevance_prior == {self.relevance_prior!r} needs criterion='micl' (the BIC criterion "
                             "uses prior odds 1 per feature); set criterion='micl' or relevance_prior='uniform'.")

    def _single_start(self, prepared: LatentClassData, index: int, rng: np.random.Generator) -> LatentClassStart:
        start = super()._single_start(prepared, index, rng)
        if self.criterion != "micl":
            return start
        return micl_single_start(prepared, start, int(self.n_clusters), rng, alpha=float(self.alpha),
                                 missing=self.missing, max_iter=int(self.max_iter),
                                 omega_prior=self.relevance_prior)

    def _start_score(self, result: LatentClassStart) -> float:
        return float(result.objective)

    def _set_fitted(self, result: LatentClassStart, scores: np.ndarray) -> None:
        super()._set_fitted(result, scores)
        self.relevance_ = np.asarray(result.arc_posterior, dtype=np.float64)
        self.relevant_features_ = np.asarray([f for f, r in zip(self.encoder_.columns, self.relevance_) if r > 0.5],
                                             dtype=object)
        self.degenerate_ = bool(result.degenerate)

    def _relevance(self) -> np.ndarray:
        return self.relevance_

    def _child_features(self, features) -> list:
        return [f for f, r in zip(features, self.relevance_) if r > 0.5]

    def _n_parameters(self) -> int:
        return n_selective_parameters(self.encoder_.cards, int(self.n_clusters), self.relevance_ > 0.5)
