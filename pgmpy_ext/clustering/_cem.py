"""CEM clustering with Bayesian-network mixtures (CEM-CL, CEM-TAN, CEM-SBN), scikit-learn face."""

from __future__ import annotations

import networkx as nx
import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.clustering._base import BaseBNMixture, best_of_starts
from pgmpy_ext.clustering._cem_engine import (
    CEM_PARAMETER_CONSTRAINTS,
    CEMParams,
    CEMResult,
    CEMStart,
    CEMStarts,
    check_cem_params,
    prepare_cem_starts,
)
from pgmpy_ext.clustering._ematan import MODEL_MAX_CPD_SIZE
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import cpds_from_counts, multinet_to_network, sorted_parents
from pgmpy_ext.stats import multinet_log_joint_marginal
from pgmpy_ext.utils import LOG_PROB_FLOOR, fill_doc, logsumexp_rows

__all__ = ["CEMClustering", "fit_cem"]


def fit_cem(data: EncodedData, n_clusters: int, *, model: str = "cl", n_init: int = 10, n_stochastic_steps: int = 200,
            max_classification_steps: int = 100, init="random_seeds", empty_cluster: str = "reseed",
            alpha: float = 0.5, stopping: str = "marginal", random_state=None, n_jobs: int | None = None,
            show_progress: bool = False) -> CEMResult:
    """CEM engine: ``n_init`` independent starts of the training schedule of Ruz's thesis (section 4.5.1), the best
    final CML wins.

    Works on :class:`EncodedData` (complete data) and builds no pgmpy object. The options are validated as in
    :class:`CEMClustering` (same checks, same messages). Each start gets its own child generator
    (``rng.spawn(n_init)``), so the result does not depend on ``n_jobs`` and adding starts does not change the
    others. Starts run in parallel with joblib when ``n_jobs`` is set (any joblib backend, chosen with
    ``joblib.parallel_config``; the default is processes). See :class:`CEMClustering` for the options.
    """
    check_cem_params(n_clusters, model=model, n_init=n_init, n_stochastic_steps=n_stochastic_steps,
                     max_classification_steps=max_classification_steps, init=init, empty_cluster=empty_cluster,
                     alpha=alpha, stopping=stopping, n_jobs=n_jobs, random_state=random_state)
    single_start = prepare_cem_starts(data, int(n_clusters), model=model, n_stochastic_steps=int(n_stochastic_steps),
                                      max_classification_steps=int(max_classification_steps), init=init,
                                      empty_cluster=empty_cluster, alpha=float(alpha), stopping=stopping)
    starts, cmls, best = best_of_starts(single_start, int(n_init), random_state, _start_cml, n_jobs=n_jobs,
                                    show_progress=show_progress, desc=f"CEM-{model.upper()} starts")
    return CEMResult(starts[best], best, cmls)


def _start_cml(start: CEMStart) -> float:
    return start.cml


@fill_doc
class CEMClustering(BaseBNMixture):
    r"""Clustering of discrete data with a mixture of Bayesian networks trained by classification EM.

    Pham & Ruz's unsupervised training of Bayesian-network classifiers (Ruz's thesis, chapter 4; design record
    ``docs/decisions/seed000-sbn-cem-nbm.md``, "Unsupervised training via Classification EM"): the cluster is the hidden
    class of a CL multinet
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
        Initial partition. ``"random_seeds"`` (the thesis's section 4.5.3): K data points with distinct values drawn at
        random are seeds and every row goes to the nearest seed (Euclidean distance on the integer codes; ties to
        the smallest seed index). ``"kmeans"``: scikit-learn's ``KMeans(n_init=1)`` on the codes. An array: the
        same random seeds, with distances measured on these coordinates of the training rows instead (an
        option the thesis leaves open, e.g. the standardised original continuous attributes before discretisation).
    empty_cluster : {"reseed", "drop", "reject"}, default "reseed"
        What happens when an S- or C-step empties a cluster (the thesis does not say). ``"reseed"``: the row with the
        lowest posterior for its own cluster (among rows whose cluster keeps another member) moves into the empty
        cluster (in the C-stage, a partition that the C-step followed by this re-seeding leaves unchanged is
        converged). ``"drop"``: the cluster dies (mixing weight 0 from then on). ``"reject"``: an S-step is
        redrawn (up to 10 times, then the partition is kept for that iteration) and a C-step that would empty a
        cluster ends the C-stage.
    alpha : float >= 0, default 0.5
        Dirichlet pseudo-count per CPT cell of the attribute CPDs (bnclassify's ``smooth``, pgmpy's
        ``pseudo_counts``). 0 is the thesis's empirical frequencies, what the reproductions use: a test row
        with a value combination unseen in its cluster then gets a probability floored at 1e-300. The default 0.5
        was chosen on held-out data (5-fold CV on 20 UCI sets: held-out log-likelihood better than alpha = 0 on
        every set, accuracy unchanged; ``docs/decisions/issue24-one-vocabulary.md``, "Defaults chosen on held-out
        data"). The structure always uses the unsmoothed MI/CMI, and the mixing weights are always ``n_k / N``.
    stopping : {"marginal", "cumulative"}, default "marginal"
        SBN monitor rule (see :class:`pgmpy_ext.classifiers.SBNClassifier`), used only with ``model="sbn"``.
    random_state : None, int or numpy.random.Generator, default None
        Seed of the initial partitions and of the S-step draws. One child generator per start, so the result is
        the same for every ``n_jobs``.
    %(n_jobs)s
    show_progress : bool, default False
        Progress bar over the starts (also needs ``pgmpy.config.SHOW_PROGRESS``).
    %(handle_unknown)s
    %(missing_fit_complete)s

    Missing values: ``predict``, ``predict_proba`` and ``score`` accept NaN/None cells and sum them out exactly.
    ``fit`` refuses them with a ValueError naming the column and the row: the classification M step learns every
    cluster's tree from its member rows, and available-case trees (pairwise counts over different row sets) are
    not implemented; impute or drop incomplete training rows.

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
    ll_trace_ : ndarray of float
        The objective of every iterate (the driver's trace; for CEM the classification log-likelihood, the same
        numbers as ``cml_trace_``).
    log_likelihood_ : float
        Observed-data log-likelihood of the training rows under the fitted mixture (the cluster summed out,
        natural log; what ``score`` averages).
    start_scores_ : ndarray of shape (n_init,)
        Final CML of every start (the criterion that picks the best start).
    weights_ : ndarray of shape (n_clusters,)
        Mixing weights :math:`\alpha_k = n_k / N`.
    model_ : DiscreteBayesianNetwork
        One network with the cluster node (``cluster_node_``, states 0..K-1, in ``model_.latents``) as a parent of
        every attribute. TAN and SBN: the fitted network. CL: the multinet expanded exactly into one network
        (:func:`~pgmpy_ext.models.multinet_to_network`; every posterior equals the multinet's), tried in the
        topological order of each cluster's tree (largest weight first). A node's parents there are the union of
        what the clusters' trees need, so when the trees disagree much the expansion grows exponentially: it is
        built only when every CPD has at most :data:`~pgmpy_ext.clustering.MODEL_MAX_CPD_SIZE` (100,000) entries,
        otherwise ``model_`` is absent and :meth:`to_network` expands with a caller-chosen order.
    models_ : dict
        CL only: ``{k: DiscreteBayesianNetwork}``, the Chow-Liu tree of cluster ``k`` over the attributes with
        its CPDs. Together with ``weights_`` this is the multinet (``model_`` is its one-network form).
    cluster_node_ : str
        Name of the cluster node (``"cluster"``, with underscores appended if a feature has that name).
    encoder_ : EncodedData
        The encoded training data (its states are the ones ``predict`` accepts).
    n_features_in_, feature_names_in_ : set by scikit-learn's ``validate_data``.

    See Also
    --------
    pgmpy_ext.classifiers.CLMultinetClassifier, pgmpy_ext.classifiers.TANClassifier,
    pgmpy_ext.classifiers.SBNClassifier : the supervised counterparts.
    pgmpy_ext.models.multinet_to_network : one pgmpy network equivalent to a CL multinet.
    sklearn.mixture.GaussianMixture : the soft (EM) counterpart for continuous data.

    Notes
    -----
    The mixture and the criterion (eqs. 4.10-4.11):

    .. math::

        P(x) = \sum_{k=1}^{K} \alpha_k f_k(x), \qquad
        CL(\theta, z) = \sum_{k=1}^{K} \sum_{x^r \in P_k} \log f_k(x^r) + \sum_{k=1}^{K} n_k \log \alpha_k .

    One iteration: E-step :math:`t_k(x^r) \propto \alpha_k f_k(x^r)`; S-step :math:`z^r \sim t(x^r)` or C-step
    :math:`z^r = \arg\max_k t_k(x^r)` (smallest k on ties); M-step :math:`\alpha_k = n_k / N` and per model
    family the maximum spanning tree of :math:`\hat I_k(X_i; X_j)` on each cluster (CL), of
    :math:`\hat I(X_i; X_j \mid C)` on all rows with the labels as C (TAN), or its prefix accepted by the monitor
    :math:`2 \log_2(n + 1) - N \hat I_2 < 0` (SBN, marginal rule), then the frequencies. The CML is computed
    after every M-step from the CPTs the next E-step uses. With ``alpha = 0`` the C-steps never
    decrease the CML for CL and TAN; for SBN the M-step maximises the CML minus the structure's code length,
    which is what never decreases. Every pgmpy object is built after the iterations.

    Departures and choices (``docs/decisions/seed000-sbn-cem-nbm.md``, "Ambiguities, errors and gaps →
    decisions"): empty clusters as ``empty_cluster``; distances for the seeds on the codes; ``alpha`` smooths
    only attribute CPDs. Prediction floors log-CPT entries at :math:`\log 10^{-300}`, so rows unseen in training still
    get a posterior; ``model_`` itself holds the exact frequencies.

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
    (0.993, [0.54, 0.46], True)
    >>> [e for e in cem.model_.edges() if e[0] != "cluster"], cem.model_.latents   # the monitor keeps one edge
    ([('x4', 'x5')], {'cluster'})
    >>> cem.predict_proba(pd.DataFrame({f"x{j}": [1, 0] for j in range(6)})).round(4).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, n_clusters=2, *, model="cl", n_init=10, n_stochastic_steps=200, max_classification_steps=100,
                 init="random_seeds", empty_cluster="reseed", alpha=0.5, stopping="marginal", random_state=None,
                 n_jobs=None, show_progress=False, handle_unknown="ignore", missing="available_case"):
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
        self.handle_unknown = handle_unknown
        self.missing = missing

    _parameter_constraints = CEM_PARAMETER_CONSTRAINTS

    # ------------------------------------------------------------------ BaseBNMixture hooks
    def _progress_desc(self) -> str:
        return f"CEM-{self.model.upper()} starts"

    def _prepare_starts(self, data: EncodedData) -> CEMStarts:
        return prepare_cem_starts(data, int(self.n_clusters), model=self.model,
                                  n_stochastic_steps=int(self.n_stochastic_steps),
                                  max_classification_steps=int(self.max_classification_steps), init=self.init,
                                  empty_cluster=self.empty_cluster, alpha=float(self.alpha), stopping=self.stopping)

    def _single_start(self, prepared: CEMStarts, rng: np.random.Generator) -> CEMStart:
        return prepared(rng)

    def _start_score(self, result: CEMStart) -> float:
        return _start_cml(result)

    def _not_converged_message(self, result: CEMStart) -> str | None:
        if result.converged or self.max_classification_steps == 0:
            return None
        return (f"CEM's C-stage stopped at max_classification_steps={self.max_classification_steps} before the "
                "partition stopped changing; increase max_classification_steps.")

    def _set_fitted(self, best: CEMStart, scores: np.ndarray) -> None:
        self.labels_ = best.labels.astype(np.intp)
        self.cml_ = float(best.cml)
        self.cml_trace_ = best.cml_trace
        self.ll_trace_ = best.cml_trace
        self.n_edges_trace_ = best.n_edges_trace
        self.best_stochastic_iter_ = int(best.best_stochastic_iter)
        self.n_iter_ = int(self.n_stochastic_steps) + int(best.n_classification_iter)
        self.converged_ = bool(best.converged)
        self.n_empty_events_ = int(best.n_empty_events)
        self.start_scores_ = scores
        params = best.params
        self.weights_ = params.cluster_sizes / params.cluster_sizes.sum()
        self._params_ = params
        log_cpt = np.maximum(params.log_cpt, LOG_PROB_FLOOR)
        self._predict_args_ = (params.layout, log_cpt, params.log_prior)
        self.log_likelihood_ = float(logsumexp_rows(self._joint_log_likelihood(self.encoder_.codes)).sum())

    def _build_models(self) -> None:
        if self.model != "cl":
            self.model_ = self._build_network(self._params_)
            return
        self.models_ = self._build_multinet(self._params_)
        for k in np.argsort(-self.weights_, kind="stable"):  # the exact one-network form, when it is small enough
            tree = self.models_[int(k)]
            pos = {v: i for i, v in enumerate(tree.nodes())}
            order = list(nx.lexicographical_topological_sort(tree, key=lambda v: pos[v]))
            try:
                self.model_ = multinet_to_network(self.models_, self.weights_, cluster_node=self.cluster_node_,
                                                  order=order, max_cpd_size=MODEL_MAX_CPD_SIZE)
                return
            except ValueError:
                continue
        self._no_model_reason = (
            f"the exact one-network form of this CL multinet would need a CPD of more than MODEL_MAX_CPD_SIZE = "
            f"{MODEL_MAX_CPD_SIZE:,} entries in the topological order of every cluster's tree (the clusters' trees "
            "disagree, so a node's parents there are the union of what the trees need). Use models_ (one Chow-Liu "
            "network per cluster, with weights_; predict, predict_proba, score and plot_network use them), "
            "to_network(order=...) to expand it in another order, or model='tan' for one network.")

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        layout, log_cpt, log_prior = self._predict_args_
        # the E step of prediction: cells coded -1 (missing, or unseen with handle_unknown="ignore") are summed out
        # exactly by each cluster's forest pass; complete rows are bit-identical to multinet_log_joint
        return multinet_log_joint_marginal(layout, log_cpt, log_prior, codes, n_jobs=self.n_jobs or 1)

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
        states = self._cluster_states()
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
