"""CEM clustering with Bayesian-network mixtures (CEM-CL, CEM-TAN, CEM-SBN), scikit-learn face."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_scalar
from sklearn.utils.validation import check_is_fitted, validate_data

from pgmpy_ext._compat import DiscreteBayesianNetwork, show_progress_enabled
from pgmpy_ext.classifiers._base import LOG_PROB_FLOOR, as_frame
from pgmpy_ext.clustering._engine import (
    CEM_INITS,
    CEM_MODELS,
    EMPTY_CLUSTER_POLICIES,
    CEMParams,
    CEMResult,
    cem_single_start,
)
from pgmpy_ext.clustering._multinet import multinet_to_network
from pgmpy_ext.data import EncodedData, encode
from pgmpy_ext.models import cpds_from_counts, sorted_parents
from pgmpy_ext.stats import unique_rows
from pgmpy_ext.stats._cem import multinet_log_joint
from pgmpy_ext.structure._forest import SBN_STOPPING
from pgmpy_ext.utils import check_generator, check_option

__all__ = ["CEMClustering", "fit_cem"]


def fit_cem(data: EncodedData, n_clusters: int, *, model: str = "cl", n_init: int = 10, n_stochastic_steps: int = 200,
            max_classification_steps: int = 100, init="random_seeds", empty_cluster: str = "reseed",
            alpha: float = 0.0, stopping: str = "marginal", random_state=None, n_jobs: int | None = None,
            show_progress: bool = False) -> CEMResult:
    """CEM engine: ``n_init`` independent starts of the seed 000 section 4.4 schedule, the best final CML wins.

    Works on :class:`EncodedData` (complete data) and builds no pgmpy object. Each start gets its own child
    generator (``rng.spawn(n_init)``), so the result does not depend on ``n_jobs`` and adding starts does not
    change the others. Starts run in parallel with joblib when ``n_jobs`` is set (any joblib backend, chosen with
    ``joblib.parallel_config``; the default is processes). See :class:`CEMClustering` for the options.
    """
    if data.has_missing or (data.codes < 0).any():
        raise ValueError("CEM clustering needs complete data; drop or impute the rows with missing values.")
    unique = unique_rows(data.codes, data.cards)
    n_distinct = int(unique.codes.shape[0])
    init_points = None
    if not isinstance(init, str):  # coordinates for the random seeds (D13's option)
        points = _check_init_points(init, data.n_rows)
        _, ids = np.unique(points, axis=0, return_inverse=True)
        init_points = (points, np.asarray(ids, dtype=np.intp).reshape(-1))
        n_distinct = int(ids.max()) + 1
        init = "random_seeds"
    if n_distinct < n_clusters:
        raise ValueError(f"n_clusters == {n_clusters}, but X has only {n_distinct} distinct row(s); the initial "
                         f"partition needs n_clusters distinct seed rows.")
    rng = check_generator(random_state)
    children = rng.spawn(n_init)
    kwargs = {"model": model, "n_stochastic_steps": n_stochastic_steps,
              "max_classification_steps": max_classification_steps, "init": init, "empty_cluster": empty_cluster,
              "alpha": alpha, "stopping": stopping, "init_points": init_points}
    tasks = (delayed(cem_single_start)(data, unique, n_clusters, child, **kwargs) for child in children)
    if n_jobs is None or n_jobs == 1:
        results = (task[0](*task[1], **task[2]) for task in tasks)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    if show_progress_enabled(show_progress):
        from tqdm.auto import tqdm

        results = tqdm(results, total=n_init, desc=f"CEM-{model.upper()} starts")
    starts = list(results)
    cmls = np.array([s.cml for s in starts], dtype=np.float64)
    best = int(np.argmax(cmls))  # ties: the first start
    return CEMResult(starts[best], best, cmls)


def _check_init_points(init, n_rows: int) -> np.ndarray:
    try:
        points = np.asarray(init, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("init must be 'random_seeds', 'kmeans' or an array of seed coordinates of shape "
                        "(n_samples, n_dims).") from None
    if points.ndim != 2 or points.shape[0] != n_rows or points.shape[1] < 1:
        raise ValueError(f"init coordinates have shape {points.shape}, expected (n_samples, n_dims) with n_samples = "
                         f"{n_rows}.")
    if not np.isfinite(points).all():
        raise ValueError("init coordinates must be finite.")
    return np.ascontiguousarray(points)


class CEMClustering(ClusterMixin, BaseEstimator):
    r"""Clustering of discrete data with a mixture of Bayesian networks trained by classification EM.

    Pham & Ruz's unsupervised training of Bayesian-network classifiers (Ruz's thesis, chapter 4; spec
    ``../shared/specs/seed000-sbn-cem-nbm.md`` section 4): the cluster is the hidden class of a CL multinet
    (``model="cl"``: one Chow-Liu tree per cluster), a TAN (``"tan"``: one spanning tree shared by the clusters)
    or an SBN (``"sbn"``: a forest whose size is set by the Bayesian complexity monitor), and the partition and
    the model are fitted together by maximising the classification log-likelihood with Celeux & Govaert's
    stochastic (S) and classification (C) EM steps.

    Parameters
    ----------
    n_clusters : int >= 1, default 2
        K, the number of clusters (known in advance, as in the thesis).
    model : {"cl", "tan", "sbn"}, default "cl"
        The network family of the mixture components (CEM-CL trees, CEM-TAN, CEM-SBN).
    n_init : int >= 1, default 10
        Starts (the thesis's p = 10 initial partitions); the start with the highest final CML is kept.
    n_stochastic_steps : int >= 0, default 200
        Iterations of the S-stage (stochastic EM); the partition with the highest CML seen is where the C-stage
        starts.
    max_classification_steps : int >= 0, default 100
        Maximum iterations of the C-stage; it stops earlier when the partition no longer changes (usually within
        10 iterations, as the thesis reports).
    init : {"random_seeds", "kmeans"} or array-like of shape (n_samples, n_dims), default "random_seeds"
        Initial partition. ``"random_seeds"`` (section 4.5): K data points with distinct values drawn at random
        are seeds and every row goes to the nearest seed (Euclidean distance on the integer codes, D13; ties to
        the smallest seed index). ``"kmeans"``: scikit-learn's ``KMeans(n_init=1)`` on the codes. An array: the
        same random seeds, with distances measured on these coordinates of the training rows instead (D13's
        option, e.g. the standardised original continuous attributes before discretisation).
    empty_cluster : {"reseed", "drop", "reject"}, default "reseed"
        What happens when an S- or C-step empties a cluster (D11). ``"reseed"``: the row with the lowest
        posterior for its own cluster (among rows whose cluster keeps another member) moves into the empty
        cluster (in the C-stage, a partition that the C-step followed by this re-seeding leaves unchanged is
        converged). ``"drop"``: the cluster dies (mixing weight 0 from then on). ``"reject"``: an S-step is
        redrawn (up to 10 times, then the partition is kept for that iteration) and a C-step that would empty a
        cluster ends the C-stage.
    alpha : float >= 0, default 0.0
        Dirichlet pseudo-count per CPT cell of the attribute CPDs (bnclassify's ``smooth``, pgmpy's
        ``pseudo_counts``; 0 = the thesis's empirical frequencies, D26). The structure always uses the
        unsmoothed MI/CMI, and the mixing weights are always ``n_k / N``.
    stopping : {"marginal", "cumulative"}, default "marginal"
        SBN monitor rule (D2), used only with ``model="sbn"``.
    random_state : None, int or numpy.random.Generator, default None
        Seed of the initial partitions and of the S-step draws. One child generator per start, so the result is
        the same for every ``n_jobs``.
    n_jobs : int or None, default None
        Starts run in parallel with joblib (None or 1: serially). The result does not depend on it.
    show_progress : bool, default False
        Progress bar over the starts (also needs ``pgmpy.config.SHOW_PROGRESS``).

    Attributes
    ----------
    labels_ : ndarray of int, shape (n_samples,)
        Cluster of every training row (0 .. K-1): the final partition of the best start.
    cml_ : float
        Classification log-likelihood (eq. 4.11, natural log) of ``labels_`` under the fitted model.
    cml_trace_ : ndarray of float
        CML after every M-step of the best start: the initial partition, the ``n_stochastic_steps`` S-steps,
        then the C-steps (which continue from entry ``best_stochastic_iter_``).
    n_edges_trace_ : ndarray of int
        Augmenting (attribute-attribute) edges after every M-step of the best start (summed over the clusters
        for CL).
    best_stochastic_iter_ : int
        Index into ``cml_trace_`` of the S-stage partition the C-stage started from.
    n_iter_ : int
        Iterations of the best start: S-steps plus C-steps that changed the partition.
    converged_ : bool
        Whether the best start's C-stage reached a fixed point.
    n_empty_events_ : int
        Steps of the best start after which the empty-cluster policy acted.
    start_cmls_ : ndarray of shape (n_init,)
        Final CML of every start.
    weights_ : ndarray of shape (n_clusters,)
        Mixing weights :math:`\alpha_k = n_k / N`.
    model_ : DiscreteBayesianNetwork
        TAN and SBN only: the network with the cluster node (``cluster_node_``, states 0..K-1) as the parent of
        every attribute, marked latent in pgmpy (``model_.latents``).
    models_ : dict
        CL only: ``{k: DiscreteBayesianNetwork}``, the Chow-Liu tree of cluster ``k`` over the attributes with
        its CPDs. Together with ``weights_`` this is the multinet; :meth:`to_network` merges it into one network.
    cluster_node_ : str
        Name of the cluster node (``"cluster"``, with underscores appended if a feature has that name).
    encoder_ : EncodedData
        The encoded training data (its states are the ones ``predict`` accepts).
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.

    See Also
    --------
    pgmpy_ext.classifiers.CLMultinetClassifier, pgmpy_ext.classifiers.TANClassifier,
    pgmpy_ext.classifiers.SBNClassifier : the supervised counterparts.
    multinet_to_network : one pgmpy network equivalent to a CL multinet.
    sklearn.mixture.GaussianMixture : the soft (EM) counterpart for continuous data.

    Notes
    -----
    The mixture and the criterion (eqs. 4.10-4.11):

    .. math::

        P(x) = \sum_{k=1}^{K} \alpha_k f_k(x), \qquad
        CL(\theta, z) = \sum_{k=1}^{K} \sum_{x^r \in P_k} \log f_k(x^r) + \sum_{k=1}^{K} n_k \log \alpha_k .

    One iteration: E-step :math:`t_k(x^r) \propto \alpha_k f_k(x^r)`; S-step :math:`z^r \sim t(x^r)` or C-step
    :math:`z^r = \arg\max_k t_k(x^r)` (smallest k on ties, D7); M-step :math:`\alpha_k = n_k / N` and per model
    family the maximum spanning tree of :math:`\hat I_k(X_i; X_j)` on each cluster (CL), of
    :math:`\hat I(X_i; X_j \mid C)` on all rows with the labels as C (TAN), or its prefix accepted by the monitor
    :math:`2 \log_2(n + 1) - N \hat I_2 < 0` (SBN, marginal rule D2), then the frequencies. The CML is computed
    after every M-step from the CPTs the next E-step uses (D12, D26). With ``alpha = 0`` the C-steps never
    decrease the CML for CL and TAN; for SBN the M-step maximises the CML minus the structure's code length,
    which is what never decreases. Every pgmpy object is built after the iterations.

    Departures and choices (decision ids of the spec): empty clusters (D11) as ``empty_cluster``; distances for
    the seeds on the codes (D13); ``alpha`` smooths only attribute CPDs (D26). Prediction floors log-CPT
    entries at :math:`\log 10^{-300}` (D5), so rows unseen in training still get a posterior; ``model_`` itself
    holds the exact frequencies.

    References
    ----------
    .. [1] D. T. Pham and G. A. Ruz, "Unsupervised training of Bayesian networks for data clustering", Proc. R.
       Soc. A 465 (2009) 2927-2948.
    .. [2] G. Celeux and G. Govaert, "A classification EM algorithm for clustering and two stochastic versions",
       Computational Statistics & Data Analysis 14 (1992) 315-332.
    .. [3] G. A. Ruz, PhD thesis, Cardiff University (2008), chapter 4.

    Examples
    --------
    Two clusters, five attributes that follow the cluster 80% of the time, and a sixth that copies the fifth:

    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.evaluation import clustering_accuracy
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({f"x{j}": np.where(rng.random(300) < 0.8, z, rng.integers(0, 2, 300)) for j in range(5)})
    >>> X["x5"] = (X["x4"] ^ (rng.random(300) < 0.1)).astype(int)
    >>> cem = CEMClustering(2, model="sbn", n_init=3, n_stochastic_steps=20, random_state=0).fit(X)
    >>> round(clustering_accuracy(z, cem.labels_), 3), cem.weights_.round(2).tolist(), cem.converged_
    (0.993, [0.46, 0.54], True)
    >>> [e for e in cem.model_.edges() if e[0] != "cluster"], cem.model_.latents   # the monitor keeps one edge
    ([('x4', 'x5')], {'cluster'})
    >>> cem.predict_proba(pd.DataFrame({f"x{j}": [1, 0] for j in range(6)})).round(4).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """

    def __init__(self, n_clusters=2, *, model="cl", n_init=10, n_stochastic_steps=200, max_classification_steps=100,
                 init="random_seeds", empty_cluster="reseed", alpha=0.0, stopping="marginal", random_state=None,
                 n_jobs=None, show_progress=False):
        self.n_clusters = n_clusters
        self.model = model
        self.n_init = n_init
        self.n_stochastic_steps = n_stochastic_steps
        self.max_classification_steps = max_classification_steps
        self.init = init
        self.empty_cluster = empty_cluster
        self.alpha = alpha
        self.stopping = stopping
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress

    # ------------------------------------------------------------------ parameters
    def _check_params(self):
        check_scalar(self.n_clusters, "n_clusters", numbers.Integral, min_val=1)
        check_option(self.model, "model", CEM_MODELS)
        check_scalar(self.n_init, "n_init", numbers.Integral, min_val=1)
        check_scalar(self.n_stochastic_steps, "n_stochastic_steps", numbers.Integral, min_val=0)
        check_scalar(self.max_classification_steps, "max_classification_steps", numbers.Integral, min_val=0)
        if isinstance(self.init, str):
            check_option(self.init, "init", CEM_INITS)
        check_option(self.empty_cluster, "empty_cluster", EMPTY_CLUSTER_POLICIES)
        check_scalar(self.alpha, "alpha", numbers.Real, min_val=0.0)
        if not np.isfinite(self.alpha):
            raise ValueError(f"alpha == {self.alpha!r}, must be a finite number >= 0.")
        check_option(self.stopping, "stopping", SBN_STOPPING)
        if self.n_jobs is not None:
            check_scalar(self.n_jobs, "n_jobs", numbers.Integral)
        check_generator(self.random_state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Cluster the rows of ``X``.

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
        frame = as_frame(X)
        validate_data(self, X, skip_check_array=True)
        self.encoder_ = encode(frame)
        result = fit_cem(self.encoder_, int(self.n_clusters), model=self.model, n_init=int(self.n_init),
                         n_stochastic_steps=int(self.n_stochastic_steps),
                         max_classification_steps=int(self.max_classification_steps), init=self.init,
                         empty_cluster=self.empty_cluster, alpha=float(self.alpha), stopping=self.stopping,
                         random_state=self.random_state, n_jobs=self.n_jobs, show_progress=self.show_progress)
        best = result.best
        self.labels_ = best.labels.astype(np.intp)
        self.cml_ = float(best.cml)
        self.cml_trace_ = best.cml_trace
        self.n_edges_trace_ = best.n_edges_trace
        self.best_stochastic_iter_ = int(best.best_stochastic_iter)
        self.n_iter_ = int(self.n_stochastic_steps) + int(best.n_classification_iter)
        self.converged_ = bool(best.converged)
        self.n_empty_events_ = int(best.n_empty_events)
        self.start_cmls_ = result.start_cmls
        params = best.params
        self.weights_ = params.cluster_sizes / params.cluster_sizes.sum()
        if not self.converged_ and self.max_classification_steps > 0:
            warnings.warn(f"CEM's C-stage stopped at max_classification_steps={self.max_classification_steps} "
                          "before the partition stopped changing; increase max_classification_steps.",
                          ConvergenceWarning, stacklevel=2)
        self._params_ = params
        log_cpt = np.maximum(params.log_cpt, LOG_PROB_FLOOR)
        self._predict_args_ = (params.layout, log_cpt, params.log_prior)
        cluster = "cluster"
        while cluster in self.encoder_.columns:
            cluster += "_"
        self.cluster_node_ = cluster
        # pgmpy objects last
        if self.model == "cl":
            self.models_ = self._build_multinet(params)
        else:
            self.model_ = self._build_network(params)
        return self

    def _states(self) -> dict:
        states = self.encoder_.state_names
        states[self.cluster_node_] = list(range(int(self.n_clusters)))
        return states

    def _build_network(self, params: CEMParams) -> DiscreteBayesianNetwork:
        """TAN/SBN: one network, the cluster node a latent parent of every attribute."""
        features = list(self.encoder_.columns)
        lay, C = params.layout, self.cluster_node_
        K = lay.n_clusters
        parents = {C: []}
        counts = {}
        for i, f in enumerate(features):
            p = int(lay.parents[0, i])
            blocks = np.stack([lay.block(params.counts, k, i) for k in range(K)])  # (K, r_i, r_p)
            if p < 0:
                parents[f] = [C]
                counts[f] = blocks[:, :, 0].T  # (r_i, K)
            else:
                parents[f] = [C, features[p]]
                order = sorted_parents(parents[f])
                counts[f] = blocks.transpose(1, 0, 2) if order[0] == C else blocks.transpose(1, 2, 0)
        states = self._states()
        cpds = cpds_from_counts({C: params.cluster_sizes}, parents, states, alpha=0.0)
        cpds += cpds_from_counts(counts, parents, states, alpha=float(self.alpha))
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([C, *features])
        model.add_edges_from([(p, f) for f in features for p in parents[f]])
        model.latents = {C}
        model.add_cpds(*cpds)
        return model

    def _build_multinet(self, params: CEMParams) -> dict:
        """CL: ``{k: network over the attributes}`` with cluster k's tree and CPDs."""
        features = list(self.encoder_.columns)
        lay = params.layout
        states = self.encoder_.state_names
        out = {}
        for k in range(lay.n_clusters):
            parents, counts = {}, {}
            for i, f in enumerate(features):
                p = int(lay.parents[k, i])
                parents[f] = [] if p < 0 else [features[p]]
                counts[f] = lay.block(params.counts, k, i)
            model = DiscreteBayesianNetwork()
            model.add_nodes_from(features)
            model.add_edges_from([(p, f) for f in features for p in parents[f]])
            model.add_cpds(*cpds_from_counts(counts, parents, states, alpha=float(self.alpha)))
            out[k] = model
        return out

    def to_network(self, *, order=None) -> DiscreteBayesianNetwork:
        """One pgmpy network with the cluster node, for inference.

        TAN/SBN: ``model_`` itself. CL: :func:`multinet_to_network` of ``models_`` and ``weights_`` (exact: the
        joint distribution, hence every posterior, is the multinet's). ``order`` is passed on for CL.
        """
        check_is_fitted(self)
        if self.model != "cl":
            return self.model_
        return multinet_to_network(self.models_, self.weights_, cluster_node=self.cluster_node_, order=order)

    # ------------------------------------------------------------------ predict
    def _codes(self, X) -> np.ndarray:
        frame = as_frame(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        if not isinstance(X, pd.DataFrame):
            frame.columns = list(self.encoder_.columns)
        return self.encoder_.transform(frame).codes

    def _log_joint(self, X) -> np.ndarray:
        layout, log_cpt, log_prior = self._predict_args_
        return multinet_log_joint(layout, log_cpt, log_prior, self._codes(X), n_jobs=self.n_jobs or 1)

    def predict_log_proba(self, X) -> np.ndarray:
        """``log P(cluster = k | x)`` per row, shape (n_samples, n_clusters)."""
        check_is_fitted(self)
        lj = self._log_joint(X)
        return lj - _logsumexp(lj)[:, None]

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``P(cluster = k | x)`` per row (the E-step of the fitted model), shape (n_samples, n_clusters).
        Rows sum to 1; a cluster dropped during fitting has probability 0."""
        check_is_fitted(self)
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable cluster per row (the C-step; ties: the smallest cluster index)."""
        check_is_fitted(self)
        return np.argmax(self._log_joint(X), axis=1).astype(np.intp)

    def score_samples(self, X) -> np.ndarray:
        """``log P(x)`` of every row under the mixture (natural log)."""
        check_is_fitted(self)
        return _logsumexp(self._log_joint(X))

    def score(self, X, y=None) -> float:
        """Mean log-likelihood ``log P(x)`` per row under the mixture (like ``GaussianMixture.score``)."""
        check_is_fitted(self)
        return float(np.mean(self.score_samples(X)))


def _logsumexp(lj: np.ndarray) -> np.ndarray:
    m = lj.max(axis=1)
    with np.errstate(invalid="ignore"):
        return m + np.log(np.exp(lj - m[:, None]).sum(axis=1))
