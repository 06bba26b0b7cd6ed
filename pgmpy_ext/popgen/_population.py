r"""``PopulationEMA``: population structure from genotypes with multi-start EMA (Santafé 2007, chapter 8), and
``choose_n_clusters`` (the F_ST criterion of the thesis's section 8.2.2).

The model is the latent-class naive Bayes over **allele copies**: given the cluster (population) ``C = j``, every
allele copy of every locus is drawn independently from the cluster's allele frequencies :math:`\theta_{ijk}`
(Hardy-Weinberg and linkage equilibrium within a population, STRUCTURE's no-admixture model). The engine is the
latent-class EMA of :mod:`pgmpy_ext.clustering` with ``ploidy`` code columns per locus sharing one parameter block
and the missing-copy E step of eq. (8.1); there is no second implementation.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.clustering import LATENT_POLICIES, latent_class_data
from pgmpy_ext.data import PARAMETER_VOCABULARY, check_unique_columns, refuse_dask
from pgmpy_ext.models import cpds_from_counts
from pgmpy_ext.popgen._engine import (
    CodesSource,
    DaskDosageSource,
    DosageSource,
    combine,
    finish,
    fit_start,
    fmodel_drift,
    ld_inflation,
    ld_prune_mask,
    predictive_log_joint,
    predictive_memberships,
    svd_start_scores,
)
from pgmpy_ext.popgen._fst import FST_VARIANTS, fst_from_counts, fst_from_model, fst_reynolds
from pgmpy_ext.popgen._genotypes import (
    Genotypes,
    _from_dosages,
    as_genotypes,
    check_individuals_observed,
    dosage_matrix,
)
from pgmpy_ext.stats import MISSING_POLICIES, LatentClassLayout, latent_class_log_joint
from pgmpy_ext.utils import (
    LOG_PROB_FLOOR,
    Interval,
    Options,
    check_generator,
    check_option,
    check_params,
    effective_n_threads,
    fill_doc,
    log_normalize_rows,
    logsumexp_rows,
    run_starts,
)

__all__ = ["NClustersResult", "PopulationEMA", "choose_n_clusters", "pca_kmeans_labels"]

INITS = ("svd", "random", "pca-kmeans")
STOPPING_RULES = ("loglik", "params")
MEMBERSHIPS = ("predictive", "plug-in")

#: The thesis's chapter-8 setting of ``PopulationEMA`` (with ``n_init=1000``; 500 for HGDP): random Dirichlet(1)
#: starts, the L-infinity parameter rule at 0.01, plain iterations, EMA's fixed point (no refinement), every SNP and
#: the plug-in posteriors. The reproductions pass it; ``PopulationEMA(**THESIS_SETTINGS, n_init=m)``.
THESIS_SETTINGS = {"init": "random", "stopping": "params", "tol": 0.01, "accelerate": None,
                   "memberships": "plug-in", "alpha": 1.0, "structure_prior": 0.5, "refine": None, "ld_r2": None}


def pca_kmeans_labels(genotypes, n_clusters: int, *, n_components: int | None = None, random_state=None,
                      n_init: int = 10) -> np.ndarray:
    """Hard labels from scikit-learn PCA + k-means on the allele-count matrix (the usual quick baseline).

    The allele counts (missing copies filled with the locus mean, see ``Genotypes.allele_counts``) are centred and
    scaled by :math:`\\sqrt{\\bar p(1-\\bar p)}` per allele column (Patterson, Price & Reich 2006), projected on
    ``n_components`` principal components (default ``n_clusters - 1``, at least 1) and clustered with ``KMeans``.

    Parameters
    ----------
    genotypes : any genotype input accepted by ``as_genotypes``
    n_clusters : int
    n_components : int, optional
    random_state : None, int or numpy Generator
    n_init : int, default 10
        k-means restarts.

    Returns
    -------
    ndarray of intp (n_individuals,)

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_balding_nichols
    >>> a, pop = make_balding_nichols(n_individuals=60, n_populations=2, n_loci=200, fst=0.1, random_state=0)
    >>> lab = pca_kmeans_labels(a, 2, random_state=0)
    >>> float(max((lab == pop).mean(), (lab != pop).mean()))
    1.0
    """
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    g = as_genotypes(genotypes, allow_empty_individuals=True)
    rng = check_generator(random_state)
    seed = int(rng.integers(2**31 - 1))
    # one thread: the SVD of an (N, alleles) matrix with N in the hundreds and the k-means of (N, K - 1) scores are
    # too small for threads, which only wait on each other on a loaded machine (8 s instead of 0.2 s measured)
    with threadpool_limits(1):
        scores = _pca_scores(g, int(n_clusters), seed, n_components)
        return KMeans(n_clusters=int(n_clusters), n_init=n_init, random_state=seed).fit_predict(scores).astype(np.intp)


@fill_doc
class PopulationEMA(ClusterMixin, BaseEstimator):
    r"""Population structure by EMA over allele copies (Santafé 2007, chapter 8), with an SVD start, SQUAREM and
    calibrated memberships by default (issue 28).

    The latent-class EMA of the thesis's section 7.3.1 applied to genotypes: loci are the variables, alleles their
    states, and the ``ploidy`` allele copies of a locus share one parameter block; a missing copy contributes its
    expected counts :math:`q_{dj}\theta_{ijk}` (eq. 8.1, ``missing="impute"``) or nothing
    (``"available_case"``). SNP data (every used locus biallelic, genotypes missing whole) run on int8 dosages with
    one table gather per genotype; other data on the allele-copy codes. Design decisions:
    ``docs/decisions/seed001-ema-popgen.md`` ("Chapter 8: population structure with genetic markers" and
    "Consolidated ambiguities and recommendations") and ``docs/decisions/issue28-population-structure.md``.

    **Defaults and the thesis's setting.** By default a fit starts from k-means on the leading singular vectors of
    the standardised genotypes (``init="svd"``), runs EMA under SQUAREM until the log-likelihood changes by at most
    ``tol`` relative (``stopping="loglik"``), continues from EMA's fixed point with EM's M step
    (``refine="em"``) and reports calibrated memberships (``memberships="predictive"``).
    The thesis's chapter-8 setting is ``PopulationEMA(init="random", n_init=1000, stopping="params", tol=0.01,
    accelerate=None, memberships="plug-in", refine=None, ld_r2=None)`` (``THESIS_SETTINGS`` without ``n_init``);
    the reproductions use it.

    Parameters
    ----------
    n_clusters : int, default 2
        Number of populations :math:`r_C`.
    ploidy : int, default 2
        Allele copies per locus; genotype inputs with another ploidy are rejected.
    missing : {"impute", "available_case"}, default "impute"
        Expected counts of a missing allele copy: ``q_dj theta_ijk`` (``"impute"``, eq. 8.1) or none
        (``"available_case"``); missing copies are summed out in the E step and at predict either way.
    init : {"svd", "random", "pca-kmeans"} or array-like (n_individuals,), default "svd"
        ``"svd"``: labels from k-means (10 restarts, a seed per start) on the ``max(K - 1, 1)`` leading singular
        vectors of the genotypes standardised per SNP (a randomized SVD drawn from ``random_state``; the same on a
        dask array). ``"random"``: Dirichlet(1) parameters per start (the thesis). ``"pca-kmeans"``: the
        labels of :func:`pca_kmeans_labels` (scikit-learn PCA + k-means). An array: the same labels for every start.
    n_init : int, default 1
        Starts (the thesis's ``m``: 1000 for the toy and SNP data, 500 for HGDP).
    policy : {"best", "uniform", "averaging"}, default "best"
        Multi-start policy (the thesis's section 7.4); chapter 8 uses ``"best"``.
    stopping : {"loglik", "params"}, default "loglik"
        What ``tol`` bounds between consecutive iterates: the relative change of the log-likelihood,
        :math:`|LL_t - LL_{t-1}| \le tol\,|LL_t|`, or the largest change of a parameter (an allele frequency or a
        cluster weight, L-infinity; the thesis's rule).
    tol : float, default 1e-7
        The threshold of ``stopping`` (the thesis: 0.01 on the parameters).
    accelerate : {"squarem", None}, default "squarem"
        SQUAREM extrapolation of the EMA map (``pgmpy_ext.utils.iterate``; what fastmixture does for ADMIXTURE's
        EM), or plain iterations (the thesis).
    memberships : {"predictive", "plug-in"}, default "predictive"
        What ``q_``, ``predict_proba`` and ``predict`` report (see Notes): the posterior with the allele
        frequencies integrated out under the F-model prior, each training individual left out of its cluster's
        frequencies; or the thesis's plug-in posterior under the fitted frequencies ``theta_``.
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``); must be > 0.
    structure_prior : float, default 0.5
        Prior probability of each arc ``C -> locus`` (0.5 = uniform over the selective structures, the thesis;
        1 = every locus depends on the cluster, i.e. EM with posterior-mean frequencies).
    refine : {"em", "fmodel", None}, default "em"
        A second run from EMA's fixed point (its expected counts) to convergence under the same ``stopping``
        rule, with every arc present: ``"em"``, EM's M step (``structure_prior=1``); ``"fmodel"``, the clusters'
        allele frequencies at their posterior means under the F-model prior around the pooled frequencies, each
        cluster's drift estimated by moments at every step (the prior of ``memberships="predictive"``); None, EMA's
        fixed point (the thesis). EMA's arc posteriors follow the current partition: on 100 unlinked SNPs (every
        SNP weakly differentiated) its iterations lost individuals that the start had right, and the refinement,
        which weighs every SNP, brought the accuracy from 1.5 to 0.3 points below PCA + k-means (10 held-out
        simulations); on linked data it kept EMA's gains (``docs/decisions/issue28-population-structure.md``).
        ``"fmodel"`` was as good on the tuning simulations but merges a cluster whose estimated drift is near 0 (a
        population in the middle of the others, e.g. the thesis's toy data) into the pooled frequencies.
        ``arc_posterior_`` stays EMA's.
    ld_r2 : float in (0, 1) or None, default 0.2
        Linkage pruning of SNP data before the fit (``None``: every polymorphic SNP, the thesis). Walking along the
        SNPs in the order of the columns (genome order, as PLINK and VCF files have them), a SNP is dropped when its
        squared correlation with a kept SNP among the ``ld_window`` before it exceeds ``max(ld_r2, 15.1 / N)``
        (PLINK's ``--indep-pairwise 50 _ 0.2``, which ADMIXTURE's manual asks for). The model multiplies the SNPs
        as if independent; a block of linked SNPs would count as many loci and pull the clusters towards shared
        haplotypes. On msprime island and stepping-stone data near the detection limit this raised the accuracy
        by 5-10 points (``docs/decisions/issue28-population-structure.md``); unlinked SNPs are kept. Loci with more
        than two alleles are never pruned. The dropped loci are in ``ld_pruned_``.
    ld_window : int, default 50
        How many preceding SNPs a SNP is compared with (``ld_r2``).
    max_iter : int, default 1000
        Most iterates per start (an accelerated cycle moves through three).
    random_state : None, int or numpy Generator
    %(n_jobs)s
    show_progress : bool, default False
        A progress bar over the starts.
    handle_unknown : {"ignore", "error"}, default "ignore"
        An allele at predict time that was not seen at fit (or a locus that was monomorphic at fit): ``"ignore"``
        treats the copy as missing and sums it out exactly; ``"error"`` raises a ValueError naming the locus, the
        allele and the individual.

    Attributes
    ----------
    q_ : ndarray (n_individuals, n_clusters)
        Membership :math:`P(C_d = j \mid \text{data})` of every training individual in every cluster (a cluster
        posterior, **not** an admixture proportion; see Notes).
    labels_ : ndarray of intp (n_individuals,)
        ``argmax`` of ``q_``.
    theta_ : ndarray of shape ``(sum(cards_), n_clusters)``
        Fitted allele frequencies per cluster (the refinement's, or EMA's averaged estimates with ``refine=None``),
        locus blocks stacked (rows ``offsets_[i] .. offsets_[i+1]-1``).
    weights_ : ndarray (n_clusters,)
        Cluster proportions :math:`\theta_{C-j}`.
    ld_inflation_ : float
        How much more the loci's summed log-likelihood ratios vary within a cluster than independent loci would
        (linkage, :math:`\kappa \ge 1`); the predictive memberships divide them by it (1 for unlinked loci and for
        ``memberships="plug-in"``).
    drift_ : ndarray (n_clusters,)
        Each cluster's drift :math:`F_j` from the pooled frequencies, estimated by moments (the F-model prior of
        ``memberships="predictive"``; STRUCTURE's :math:`F_k`).
    ld_pruned_ : ndarray of bool, shape ``(n_loci_in_,)``
        Input loci dropped by linkage pruning (``ld_r2``); they are not in ``loci_`` and carry NaN in
        ``arc_posterior_``.
    arc_posterior_ : ndarray of shape ``(n_loci_in_,)``
        Posterior of the arc ``C -> locus`` at EMA's fixed point (the implicit relevance of every input locus,
        before any ``refine``); NaN for monomorphic loci.
    loci_ : list
        Names of the loci used (polymorphic ones; loci with a single observed allele are dropped).
    loci_mask_ : ndarray of bool, shape ``(n_loci_in_,)``
    cards_, offsets_ : ndarray of intp
        Observed alleles per used locus and their row offsets in ``theta_``.
    allele_labels_ : list of list
        The allele labels of every used locus (the states of ``model_``).
    model_ : pgmpy DiscreteBayesianNetwork
        Latent cluster node ``"cluster"`` (states ``0..K-1``) over one variable per used locus, CPDs ``theta_`` and
        ``weights_``; built on first access (pgmpy's ``add_cpds`` is quadratic in the number of loci) and cached.
    log_likelihood_ : float
        Observed-data log-likelihood (natural log) of ``theta_`` and ``weights_``.
    ll_trace_ : ndarray
        Log-likelihood of every iterate of the kept start.
    start_scores_ : ndarray (n_init,)
    n_iter_ : int
        Iterates of the kept start (EMA's and the refinement's together).
    converged_ : bool
    degenerate_ : bool
        EMA's trivial fixed point (every arc posterior ~0, identical clusters).
    fst_ : float
        Reynolds' F_ST between the clusters re-estimated from the memberships ``q_`` on the training genotypes:
        :func:`fst_reynolds` ``(X, q_)`` (the same estimator, computed at fit).
    n_individuals_, n_loci_in_ : int
    populations_ : ndarray or None
        Population labels carried by the input (e.g. POPDATA of a STRUCTURE file).

    See Also
    --------
    pgmpy_ext.clustering.EMAClustering : the same engine on ordinary discrete data (ploidy 1).
    select_markers, fst_reynolds, choose_n_clusters

    Notes
    -----
    E step (8.1), with :math:`a_{dig}` the allele of copy ``g`` of locus ``i``:

    .. math::
        q_{dj} \propto \theta_{C-j} \prod_i \prod_{g\ \mathrm{observed}} \theta_{i j a_{dig}},\qquad
        E N_{ijk} = \sum_d \sum_g \begin{cases} q_{dj} 1[a_{dig} = k] & \text{observed} \\
        q_{dj}\theta_{ijk} & \text{missing} \end{cases}

    and EMA's model-averaging step (the thesis's eqs. 7.10-7.22) on these allele-copy counts. With ``refine="em"``
    the fit then continues from EMA's fixed point with EM's M step (every arc present, posterior-mean frequencies
    :math:`(\alpha + E N_{ijk}) / (r_i\alpha + E N_{ij})`); with ``refine="fmodel"`` with

    .. math::
        \theta_{ijk} = \frac{E N_{ijk} + \lambda_j \bar p_{ik}}{E N_{ij} + \lambda_j},\qquad
        \lambda_j = (1 - F_j) / F_j,

    the posterior mean under the F-model prior (below), :math:`F_j` re-estimated by moments at every step.

    **What q is.** The model has no admixture: an individual comes from one population, and ``q_[d, j]`` is the
    probability that it is population ``j`` (STRUCTURE's no-admixture model), not the share of its genome from
    ``j`` (ADMIXTURE's Q). An admixed individual therefore gets an uncertain ``q`` (or, with many loci, a confident
    one for the closest cluster) that says nothing about its ancestry proportions. The plug-in posterior (the E
    step under ``theta_``, ``memberships="plug-in"``) is overconfident: each individual's own alleles are in its
    cluster's frequencies (about (number of loci) / (cluster size) nats in favour of its own cluster, 130 for 10,000
    SNPs and 75 individuals) and the frequencies are treated as known. ``memberships="predictive"`` removes both:

    .. math::
        q_{dj} \propto (n_j - q^{*}_{dj} + \alpha) \prod_i
        \mathrm{Polya}\big(x_{di} \mid N_{ij\cdot} - q^{*}_{dj} x_{di} + \lambda_j \bar p_{i\cdot}\big),\quad
        \lambda_j = (1 - F_j) / F_j,

    the beta-binomial (Dirichlet-multinomial) probability of its copies given everybody else's expected counts
    :math:`N` (:math:`q^*` the plug-in posterior) and the F-model prior around the pooled frequencies
    :math:`\bar p` with each cluster's drift :math:`F_j` (``drift_``, estimated by moments, corrected for the
    sampling variance). On simulations with known populations the mean of ``max_j q_[d, j]`` is then close to the
    accuracy (``docs/decisions/issue28-population-structure.md``). ``q`` is uncertain when the clusters are barely
    differentiated (F_ST times the square root of individuals times loci near 1, where no method separates them)
    and for individuals between clusters. ``predict_proba`` of new individuals is the same predictive with nothing
    left out, so ``predict_proba(X_train)`` is slightly more confident than ``q_``.

    References
    ----------
    Santafé, G. (2007). Bayesian model averaging of naive Bayes for clustering, chapter 8 (population genetics).
    Falush, D., Stephens, M., Pritchard, J. K. (2003). Inference of population structure using multilocus genotype
    data: linked loci and correlated allele frequencies. Genetics 164, 1567-1587.
    Varadhan, R., Roland, C. (2008). Simple and globally convergent methods for accelerating the convergence of any
    EM algorithm. Scandinavian Journal of Statistics 35, 335-353.

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_balding_nichols
    >>> a, pop = make_balding_nichols(n_individuals=60, n_populations=2, n_loci=100, fst=0.1, missing_rate=0.05,
    ...                               random_state=0)
    >>> ema = PopulationEMA(n_clusters=2, random_state=0).fit(a)
    >>> ema.q_.shape, float(max((ema.labels_ == pop).mean(), (ema.labels_ != pop).mean()))
    ((60, 2), 1.0)
    """

    _parameter_constraints = {**PARAMETER_VOCABULARY, "ploidy": [Interval(numbers.Integral, 1, None)],
                              "missing": [Options(MISSING_POLICIES)], "init": [Options(INITS), "array-like"],
                              "policy": [Options(LATENT_POLICIES)], "stopping": [Options(STOPPING_RULES)],
                              "accelerate": [Options(("squarem",)), None],
                              "memberships": [Options(MEMBERSHIPS)],
                              "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
                              "structure_prior": [Interval(numbers.Real, 0, 1)],
                              "refine": [Options(("fmodel", "em")), None],
                              "ld_r2": [Interval(numbers.Real, 0, 1, closed="neither"), None],
                              "ld_window": [Interval(numbers.Integral, 1, None)]}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN (and -9) is a missing allele, summed out exactly
        tags.input_tags.positive_only = True  # a dosage counts alleles: 0..ploidy
        return tags

    def __init__(self, n_clusters=2, *, ploidy=2, missing="impute", init="svd", n_init=1, policy="best",
                 stopping="loglik", tol=1e-7, accelerate="squarem", memberships="predictive", alpha=1.0,
                 structure_prior=0.5, refine="em", ld_r2=0.2, ld_window=50, max_iter=1000, random_state=None,
                 n_jobs=None, show_progress=False, handle_unknown="ignore"):
        self.n_clusters = n_clusters
        self.ploidy = ploidy
        self.missing = missing
        self.init = init
        self.n_init = n_init
        self.policy = policy
        self.stopping = stopping
        self.tol = tol
        self.accelerate = accelerate
        self.memberships = memberships
        self.alpha = alpha
        self.structure_prior = structure_prior
        self.refine = refine
        self.ld_r2 = ld_r2
        self.ld_window = ld_window
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown

    def _check_params(self):
        check_params(self)

    # ------------------------------------------------------------------ fit
    def _single_start(self, source, init_fn, rng: np.random.Generator):
        return fit_start(source, int(self.n_clusters), rng, init=init_fn(rng), alpha=float(self.alpha),
                         structure_prior=float(self.structure_prior), missing=self.missing, tol=float(self.tol),
                         criterion="objective" if self.stopping == "loglik" else "params",
                         max_iter=int(self.max_iter), accelerate=self.accelerate,
                         refine={"em": 1.0, "fmodel": "fmodel"}.get(self.refine))

    def _svd_scores(self, source, K: int, rng: np.random.Generator) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(effective_n_threads(self.n_jobs)):  # BLAS threads of the SVD products: n_jobs
            return svd_scores_of(source, K, rng)

    def _prune(self, d, K: int, rng: np.random.Generator):
        """``(data, pruned mask of the input loci, SVD scores of the kept SNPs or None)``: linkage pruning
        (``ld_r2``) of SNP data, with the population structure (the SVD scores of every polymorphic SNP) projected
        out of the correlations. The start of ``init="svd"`` is then the SVD of the kept SNPs (computed again when
        SNPs were dropped: on linked data it separates the populations better than the SVD of all of them)."""
        if self.ld_r2 is None or not d.source.is_dosage:
            return d, np.zeros(len(d.mask), dtype=bool), None
        scores = self._svd_scores(d.source, K, rng)
        d, pruned = d.pruned(ld_prune_mask(d.source, float(self.ld_r2), int(self.ld_window), scores))
        return d, pruned, (scores if not pruned.any() else None)

    def _init_fn(self, source, gu_fn, K: int, rng: np.random.Generator, n_rows: int, scores=None):
        if isinstance(self.init, str) and self.init == "random":
            return _RandomInit()
        if isinstance(self.init, str) and self.init == "svd":
            return _ScoresKMeansInit(self._svd_scores(source, K, rng) if scores is None else scores, K)
        if isinstance(self.init, str):
            from threadpoolctl import threadpool_limits

            with threadpool_limits(1):
                return _PCAKMeansInit(_pca_scores(gu_fn(), K, int(rng.integers(2**31 - 1))), K)
        labels = np.asarray(self.init)
        if labels.shape != (n_rows,) or not np.issubdtype(labels.dtype, np.integer) \
                or labels.min() < 0 or labels.max() >= K:
            raise ValueError(f"init labels must be {n_rows} integers in 0..{K - 1}; got an array of "
                             f"shape {labels.shape}.")
        return _FixedInit(labels.astype(np.intp))

    def fit(self, X, y=None):
        """Cluster the individuals of ``X``.

        Parameters
        ----------
        X : genotypes
            A ``Genotypes``, a STRUCTURE file path, an (individuals, loci, ploidy) allele array or a 0..ploidy
            dosage matrix / DataFrame (see ``as_genotypes``), or a 2-d dask array of int8 dosages (chunks of
            individuals; see ``pgmpy_ext.dask.DaskDosages``). Missing alleles allowed.
        y : ignored

        Returns
        -------
        self
        """
        self._check_params()
        from pgmpy_ext.dask import is_dask_collection

        if is_dask_collection(X) and hasattr(X, "chunks") and not hasattr(X, "columns"):
            return self._fit_dask(X)  # a dask array of dosages; a dask DataFrame is refused
        refuse_dask(self, X, method="fit")
        check_unique_columns(X, "PopulationEMA (one column per locus)")
        d = _fit_data(X, int(self.ploidy))
        polymorphic_source = d.source  # F_ST is estimated on every polymorphic locus, pruned or not
        K = int(self.n_clusters)
        rng = check_generator(self.random_state)
        d, pruned, scores = self._prune(d, K, rng)
        source = d.source
        n_distinct = _n_distinct(source)
        if K > n_distinct:
            raise ValueError(f"n_clusters == {K} exceeds the {n_distinct} distinct genotypes of the "
                             f"{len(d.individuals)} individuals; use at most {n_distinct} clusters.")

        init_fn = self._init_fn(source, d.genotypes, K, rng, len(d.individuals), scores)
        starts = run_starts(partial(self._single_start, source, init_fn), int(self.n_init), rng, n_jobs=self.n_jobs,
                            show_progress=self.show_progress, desc="PopulationEMA starts")
        result = finish(source, combine(source, starts, self.policy, missing=self.missing), missing=self.missing,
                        with_resp=True)
        self._set_data(d, pruned)
        self._loci_in = list(d.loci_in)  # the fitted locus names, checked against a DataFrame's columns at predict
        self._set_result(result, starts, source, len(d.loci_in), d.mask, polymorphic_source)
        return self

    def _set_data(self, d, pruned) -> None:
        """The fitted attributes that describe the data (in memory or on dask data)."""
        self.n_individuals_ = len(d.individuals)
        self.n_loci_in_ = len(d.loci_in)
        self.loci_mask_ = d.mask
        self.loci_ = d.loci
        self.cards_ = d.cards
        self.allele_labels_ = [list(lab) for lab in d.labels]
        self.populations_ = d.populations
        self.individuals_ = d.individuals
        self.ld_pruned_ = pruned

    def _set_result(self, result, starts, source, n_loci_in: int, mask, polymorphic_source) -> None:
        """Everything ``fit`` sets from the kept start (in memory or on dask data); ``polymorphic_source`` holds
        every polymorphic locus (before linkage pruning), on which ``fst_`` is estimated."""
        K = int(self.n_clusters)
        self.offsets_ = np.concatenate([[0], np.cumsum(self.cards_)]).astype(np.intp)
        self.theta_ = result.theta
        self.weights_ = result.weights
        self._layout_ = LatentClassLayout.build(self.cards_, K, int(self.ploidy))
        self._dosage_ = bool(source.is_dosage)
        self._counts_ = result.counts
        self._cluster_counts_ = result.cluster_counts
        if self.memberships == "predictive":
            self.ld_inflation_ = ld_inflation(*source.ld_moments(result.theta, result.weights, result.resp),
                                              result.resp)
            self.q_, self._pseudo_ = predictive_memberships(source, result.counts, result.cluster_counts,
                                                            self._layout_, alpha=float(self.alpha), q=result.resp,
                                                            inflation=self.ld_inflation_)
        else:
            self.ld_inflation_ = 1.0
            self.q_, self._pseudo_ = result.resp, fmodel_drift(result.counts, self._layout_, result.cluster_counts)
        self.drift_ = self._pseudo_[0]
        self.labels_ = np.argmax(self.q_, axis=1).astype(np.intp)
        arc = np.full(n_loci_in, np.nan)
        arc[mask] = result.arc_posterior
        self.arc_posterior_ = arc
        self.log_likelihood_ = float(result.loglik)
        self.ll_trace_ = np.asarray(result.ll_trace)
        self.start_scores_ = np.array([s.loglik for s in starts], dtype=np.float64)
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.degenerate_ = bool(result.degenerate)
        with np.errstate(divide="ignore"):
            self._log_theta_ = np.maximum(np.log(self.theta_), LOG_PROB_FLOOR)
            self._log_prior_ = np.maximum(np.log(self.weights_), LOG_PROB_FLOOR)
        counts, _ = polymorphic_source.counts_from_resp(self.q_)
        sizes = self.q_.sum(axis=0)
        offsets = np.concatenate([[0], np.cumsum(polymorphic_source.cards)]).astype(np.intp)
        self.fst_ = (fst_from_counts(counts, offsets, sizes) if (sizes > 1e-8 * sizes.sum()).sum() >= 2
                     else float("nan"))
        if not self.converged_:
            warnings.warn(f"PopulationEMA did not converge in max_iter={self.max_iter} iterations; increase max_iter "
                          "or tol.", ConvergenceWarning, stacklevel=3)
        self.__dict__.pop("_model", None)  # model_ is built on first access (see the property)

    def _fit_dask(self, X):
        from pgmpy_ext.dask import DaskDosages

        if self.policy != "best":
            raise ValueError(f"policy == {self.policy!r}: on a dask array PopulationEMA keeps the best start only "
                             "(policy='best'); the averaging policies need every start's posteriors in memory.")
        if isinstance(self.init, str) and self.init == "pca-kmeans":
            raise ValueError("init='pca-kmeans' needs the genotypes in memory; use init='svd' (the same idea, computed "
                             "chunk by chunk) on a dask array.")
        K = int(self.n_clusters)
        dd = DaskDosages(X, int(self.ploidy))
        mask = dd.polymorphic
        if not mask.any():
            raise ValueError("every SNP is monomorphic (a single observed allele); there is nothing to cluster on.")
        source = polymorphic_source = DaskDosageSource(dd.subset(mask) if not mask.all() else dd)
        rng = check_generator(self.random_state)
        d = _FitData(source, mask, source.cards, [[0, 1]] * source.n_snps, [f"L{i}" for i in np.flatnonzero(mask)],
                     [f"L{i}" for i in range(len(mask))], np.arange(source.n_rows), None, None)
        d, pruned, scores = self._prune(d, K, rng)
        source, mask = d.source, d.mask
        init_fn = self._init_fn(source, None, K, rng, source.n_rows, scores)
        starts = run_starts(partial(self._single_start, source, init_fn), int(self.n_init), rng,
                            show_progress=self.show_progress, desc="PopulationEMA starts")
        result = finish(source, combine(source, starts, "best", missing=self.missing), missing=self.missing,
                        with_resp=True)
        self._set_data(d, pruned)
        self._set_result(result, starts, source, len(mask), mask, polymorphic_source)
        return self

    @property
    def model_(self) -> DiscreteBayesianNetwork:
        """The fitted pgmpy network, built on first access and cached.

        Built lazily because pgmpy's ``add_cpds`` is quadratic in the number of CPDs (about 1 s for 2,000 loci,
        20 s for 10,000); everything ``fit`` itself needs is in numpy arrays."""
        if "_model" not in self.__dict__:
            if "_layout_" not in self.__dict__:
                raise AttributeError("model_ is set by fit; this PopulationEMA is not fitted yet.")
            self._model = self._build_model()
        return self._model

    def _build_model(self) -> DiscreteBayesianNetwork:
        names = [str(x) for x in self.loci_]
        if len(set(names)) != len(names):
            names = [f"{x}_{i}" for i, x in enumerate(names)]
        C = "cluster"
        while C in names:
            C += "_"
        self.cluster_node_ = C
        lay = self._layout_
        states = {C: list(range(int(self.n_clusters))), **dict(zip(names, self.allele_labels_))}
        parents = {C: [], **{n: [C] for n in names}}
        tables = {C: self.weights_, **{n: lay.block_at(self.theta_.ravel(), v) for v, n in enumerate(names)}}
        model = DiscreteBayesianNetwork([(C, n) for n in names], latents={C})
        model.add_nodes_from([C])
        model.add_cpds(*cpds_from_counts(tables, parents, states, alpha=0.0))
        return model

    # ------------------------------------------------------------------ predict
    def _codes(self, X) -> np.ndarray:
        """Codes of new genotypes in the fitted loci and allele labels (unseen alleles -> missing)."""
        refuse_dask(self, X, method="predict")
        g = as_genotypes(X, ploidy=int(self.ploidy), allow_empty_individuals=True)
        fitted = self.__dict__.get("_loci_in")
        if isinstance(X, pd.DataFrame) and fitted is not None and list(X.columns) != fitted:
            new, gone = [c for c in X.columns if c not in fitted], [c for c in fitted if c not in set(X.columns)]
            what = f"unseen at fit {new!r}, missing {gone!r}" if new or gone else "the same loci in another order"
            raise ValueError(f"X's loci (columns) differ from those seen at fit ({what}); pass the fitted loci in "
                             "the fitted order.")
        if g.n_loci != self.n_loci_in_:
            raise ValueError(f"X has {g.n_loci} loci, the model was fitted on {self.n_loci_in_}.")
        used = np.flatnonzero(self.loci_mask_)
        out = np.full((g.n_individuals, len(used), g.ploidy), -1, dtype=np.int32)
        for t, i in enumerate(used):
            fitted = {lab: k for k, lab in enumerate(self.allele_labels_[t])}
            lookup = np.array([fitted.get(lab, -1) for lab in g.allele_labels[i]] + [-1], dtype=np.int32)
            out[:, t, :] = lookup[g.alleles[:, i, :]]
            if self.handle_unknown == "error":
                unseen = (out[:, t, :] < 0) & (g.alleles[:, i, :] >= 0)
                if unseen.any():
                    d, c = (int(v[0]) for v in np.nonzero(unseen))
                    raise ValueError(f"locus {g.loci[i]!r} has allele {g.allele_labels[i][g.alleles[d, i, c]]!r} at "
                                     f"individual {g.individuals[d]!r} that was not seen during fit (known: "
                                     f"{list(self.allele_labels_[t])}). Pass handle_unknown='ignore' to sum it out "
                                     "as a missing allele.")
        return out.reshape(g.n_individuals, len(used) * g.ploidy)

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """``log p(x_observed, C = j)`` per individual, (n_individuals, n_clusters): under the F-model predictive
        (``memberships="predictive"``; see Notes) or under ``theta_`` and ``weights_`` (``"plug-in"``)."""
        check_is_fitted(self)
        codes = self._codes(X)
        if self.memberships == "plug-in":
            return latent_class_log_joint(self._layout_, codes, self._log_theta_, self._log_prior_)
        dosage = _codes_to_dosages(codes, int(self.ploidy)) if self._dosage_ else None
        rows = dosage if dosage is not None else codes
        return predictive_log_joint(rows, self._layout_, self._counts_, self._cluster_counts_, self._pseudo_,
                                    alpha=float(self.alpha), dosage=dosage is not None,
                                    inflation=self.ld_inflation_)

    def predict_proba(self, X) -> np.ndarray:
        """Memberships of new individuals (missing and unseen alleles summed out)."""
        check_is_fitted(self)
        return np.exp(log_normalize_rows(self.predict_joint_log_proba(X)))

    def predict(self, X) -> np.ndarray:
        """Most probable cluster of each individual (ties: the smallest index)."""
        check_is_fitted(self)
        return np.argmax(self.predict_joint_log_proba(X), axis=1).astype(np.intp)

    def score(self, X, y=None) -> float:
        """Mean log-likelihood per individual (natural log): of the posterior predictive
        (``memberships="predictive"``, a held-out score) or of ``theta_``/``weights_`` (``"plug-in"``, so that
        ``score(X_train) * n == log_likelihood_``)."""
        check_is_fitted(self)
        return float(np.mean(logsumexp_rows(self.predict_joint_log_proba(X))))

    def fst(self, X=None, *, loci=None, variant: str = "reynolds1983") -> float:
        """Reynolds' F_ST of the clustering, re-estimated from the memberships ``q_`` on genotypes ``X``
        (:func:`fst_reynolds`; ``fst_`` is this on the training genotypes), or, with ``X`` None, the thesis's plug-in
        of the model's frequencies ``theta_`` (:func:`fst_from_model`).

        The two differ: Reynolds' estimator subtracts the sampling variance of frequencies estimated from ``n_j``
        individuals, which ``theta_`` do not have in the same amount (EMA averages each locus' frequencies with the
        pooled ones by its arc posterior, which shrinks the differences between clusters), so the plug-in is lower
        and can be negative on weakly differentiated data (``docs/decisions/seed001-ema-popgen.md``, "Number of clusters
        via the Reynolds F_ST genetic distance")."""
        check_is_fitted(self)
        check_option(variant, "variant", FST_VARIANTS)
        if X is None:
            return fst_from_model(self.theta_, self.weights_, self.cards_, self.n_individuals_, loci=loci,
                                  variant=variant)
        return fst_reynolds(X, self.q_, loci=loci, variant=variant)


@dataclass
class _FitData:
    """What ``fit`` needs of the user's genotypes: the EM's data source and the polymorphic loci's names, labels
    and cards; ``genotypes()`` the allele codes of those loci (built only for ``init="pca-kmeans"``)."""

    source: object
    mask: np.ndarray
    cards: np.ndarray
    labels: list
    loci: list
    loci_in: list
    individuals: np.ndarray
    populations: np.ndarray | None
    genotypes: object

    def pruned(self, keep: np.ndarray) -> tuple[_FitData, np.ndarray]:
        """The same data on the used loci that ``keep`` marks, and the input loci it drops (a mask of them)."""
        if keep.all():
            return self, np.zeros(len(self.mask), dtype=bool)
        used = np.flatnonzero(self.mask)
        dropped = np.zeros(len(self.mask), dtype=bool)
        dropped[used[~keep]] = True
        idx = np.flatnonzero(keep)

        def genotypes():
            return self.genotypes().subset(loci=keep)

        return _FitData(self.source.subset(keep), self.mask & ~dropped, self.cards[idx],
                        [self.labels[i] for i in idx], [self.loci[i] for i in idx], self.loci_in, self.individuals,
                        self.populations, genotypes), dropped


def _fit_data(X, ploidy: int) -> _FitData:
    """Read ``fit``'s input once. An integer dosage matrix (array or DataFrame) goes straight to int8 dosages
    (``dosage_matrix``; no allele codes, which cost ``ploidy`` int32 per genotype and a conversion back); any other
    input through ``as_genotypes``. Both give the same loci, labels, memberships and parameters (tested)."""
    dm = dosage_matrix(X, ploidy=ploidy)
    if dm is not None:
        dose, loci_in, individuals = dm
        obs = dose >= 0
        check_individuals_observed(obs.any(axis=1), individuals)
        n_obs = obs.sum(axis=0)
        ones = np.where(obs, dose, 0).sum(axis=0, dtype=np.int64)
        mask = (ones > 0) & (ones < ploidy * n_obs)  # both alleles observed
        _refuse_monomorphic(mask)
        used = np.flatnonzero(mask)
        G = dose if mask.all() else np.ascontiguousarray(dose[:, used])
        _refuse_empty((G >= 0).any(axis=1), individuals, "every polymorphic locus missing")
        loci = [loci_in[i] for i in used]

        def genotypes():
            return _from_dosages(G, G >= 0, ploidy, loci, individuals)

        return _FitData(DosageSource(G, ploidy), mask, np.full(len(used), 2, dtype=np.intp), [[0, 1]] * len(used),
                        loci, list(loci_in), individuals, None, genotypes)
    g = as_genotypes(X, ploidy=ploidy)
    if g.n_individuals == 0:
        raise ValueError("X has no individuals (0 rows); PopulationEMA needs genotypes to cluster.")
    mask = g.polymorphic
    _refuse_monomorphic(mask)
    used = np.flatnonzero(mask)
    alleles = np.ascontiguousarray(g.alleles[:, used, :]) if not mask.all() else g.alleles
    _refuse_empty((alleles >= 0).any(axis=(1, 2)), g.individuals, "every polymorphic locus missing")
    cards = g.cards[used]
    labels = [g.allele_labels[i] for i in used]
    loci = [g.loci[i] for i in used]

    def genotypes():
        return Genotypes(alleles, labels, loci, g.individuals, g.populations, g.locations)

    return _FitData(_source_of(alleles, cards, g.ploidy, list(g.individuals)), mask, cards, labels, loci,
                    list(g.loci), g.individuals, g.populations, genotypes)


def _refuse_monomorphic(mask: np.ndarray) -> None:
    if not mask.any():
        raise ValueError("every locus is monomorphic (a single observed allele); there is nothing to cluster on.")


def _refuse_empty(has_data: np.ndarray, individuals, what: str) -> None:
    if not has_data.all():
        d = int(np.flatnonzero(~has_data)[0])
        raise ValueError(f"individual {individuals[d]!r} has {what}; drop it before fitting.")


def _codes_to_dosages(codes: np.ndarray, ploidy: int) -> np.ndarray | None:
    """int8 dosages (copies of code 1) of biallelic allele-copy codes, or None when a genotype is missing in part."""
    c = codes.reshape(codes.shape[0], codes.shape[1] // ploidy, ploidy)  # explicit: 0 individuals is valid
    miss = c < 0
    n_miss = miss.sum(axis=2)
    if np.any((n_miss > 0) & (n_miss < ploidy)):
        return None
    dos = (c == 1).sum(axis=2).astype(np.int8)
    dos[n_miss == ploidy] = -1
    return dos


def _source_of(alleles: np.ndarray, cards: np.ndarray, ploidy: int, row_labels):
    """The fit's data: int8 dosages when every locus is biallelic and genotypes are missing whole, else the
    allele-copy codes (distinct rows)."""
    n, n_loci, _ = alleles.shape
    if np.all(cards == 2) and ploidy <= 127:
        dos = _codes_to_dosages(alleles.reshape(n, -1), ploidy)
        if dos is not None:
            return DosageSource(dos, ploidy)
    data = latent_class_data(alleles.reshape(n, -1), cards, ploidy=ploidy, row_labels=row_labels)
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
    counts = np.zeros((n, int(offsets[-1])))
    for k in range(int(cards.max())):
        hit = (alleles == k).sum(axis=2)  # (n, n_loci)
        has = cards > k
        counts[:, offsets[:-1][has] + k] = hit[:, has]
    return CodesSource(data, counts)


def _n_distinct(source) -> int:
    if source.is_dosage:
        G = source.G
        return len(np.unique(G.view(np.dtype((np.void, G.shape[1]))))) if G.shape[1] else 1
    return len(source.data.weights)


def svd_scores_of(source, K: int, rng: np.random.Generator) -> np.ndarray:
    """Scores of the SVD start (``svd_start_scores`` of the engine)."""
    return svd_start_scores(source, K, rng)


class _ScoresKMeansInit:
    """k-means (10 restarts, the start's own seed) on scores computed once per fit."""

    def __init__(self, scores, K):
        self.scores, self.K = scores, K

    def __call__(self, rng):
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits

        km = KMeans(n_clusters=self.K, n_init=10, random_state=int(rng.integers(2**31 - 1)))
        # (N, K - 1) scores are tiny: OpenMP threads would only wait on each other (10x slower on a loaded machine)
        with threadpool_limits(1):
            return km.fit_predict(self.scores).astype(np.intp)


class _RandomInit:
    def __call__(self, rng):
        return "random"


class _FixedInit:
    def __init__(self, labels):
        self.labels = labels

    def __call__(self, rng):
        return self.labels


def _pca_scores(g: Genotypes, K: int, seed: int, n_components: int | None = None) -> np.ndarray:
    from sklearn.decomposition import PCA

    X = g.allele_counts(impute=True)
    freq = X.mean(axis=0) / g.ploidy
    keep = (freq > 0) & (freq < 1)
    X = (X[:, keep] - X[:, keep].mean(axis=0)) / np.sqrt(freq[keep] * (1 - freq[keep]))
    k = max(K - 1, 1) if n_components is None else int(n_components)
    k = max(1, min(k, X.shape[0] - 1, X.shape[1]))
    return PCA(n_components=k, svd_solver="randomized" if min(X.shape) > 500 else "full",
               random_state=seed).fit_transform(X)


class _PCAKMeansInit:
    """One k-means run (its seed drawn from the start's generator) on PCA scores computed once per fit."""

    def __init__(self, scores, K):
        self.scores, self.K = scores, K

    def __call__(self, rng):
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits

        km = KMeans(n_clusters=self.K, n_init=1, random_state=int(rng.integers(2**31 - 1)))
        with threadpool_limits(1):
            return km.fit_predict(self.scores).astype(np.intp)


@dataclass
class NClustersResult:
    """Result of :func:`choose_n_clusters`.

    Attributes
    ----------
    candidates : list of int
    fst : dict
        ``{K: ndarray (n_runs,)}`` F_ST of every run.
    mean_fst : dict
        ``{K: float}``.
    p_values : dict
        ``{(K, K_next): float}`` two-sided Mann-Whitney U p-values between neighbouring candidates.
    n_nonempty : dict
        ``{K: ndarray (n_runs,)}`` clusters with at least one individual assigned (diagnostic).
    best : int
        Candidate of highest mean F_ST.
    models : dict
        ``{K: list of fitted PopulationEMA}`` when ``keep_models``.
    """

    candidates: list
    fst: dict
    mean_fst: dict
    p_values: dict
    n_nonempty: dict
    best: int
    models: dict


def choose_n_clusters(X, candidates=(2, 3, 4), *, n_runs: int = 10, fst_from: str = "model",
                      variant: str = "reynolds1983", fst_loci=None, keep_models: bool = False, random_state=None,
                      **params) -> NClustersResult:
    """Choose the number of populations by Reynolds' F_ST (Santafé 2007, section 8.2.2).

    For each candidate ``K``, ``n_runs`` independent multi-start ``PopulationEMA`` fits (each with ``n_init``
    starts); the F_ST of each fit; the mean per ``K`` (higher = more differentiated clusters) and two-sided
    Mann-Whitney U tests between neighbouring candidates.

    Parameters
    ----------
    X : genotypes (any input accepted by ``as_genotypes``)
    candidates : sequence of int, default (2, 3, 4)
    n_runs : int, default 10
    fst_from : {"model", "memberships"}, default "model"
        F_ST from the fitted allele frequencies (the thesis) or re-estimated from the memberships on the genotypes
        (needed for ``fst_loci``).
    variant : {"reynolds1983", "thesis_as_printed"}, default "reynolds1983"
    fst_loci : mask or index list, optional
        Loci for F_ST (``fst_from="memberships"`` only), e.g. the microsatellites of HGDP.
    keep_models : bool, default False
    random_state : None, int or numpy Generator
        Every run gets a spawned child generator.
    **params
        Passed to ``PopulationEMA`` (``n_init``, ``ploidy``, ``missing``, ``init``, ``n_jobs``, ...).

    Returns
    -------
    NClustersResult

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_balding_nichols
    >>> a, pop = make_balding_nichols(n_individuals=60, n_populations=2, n_loci=60, fst=0.1, random_state=0)
    >>> res = choose_n_clusters(a, [2, 3], n_runs=2, n_init=2, random_state=0)
    >>> sorted(res.mean_fst), (2, 3) in res.p_values
    ([2, 3], True)
    """
    from scipy.stats import mannwhitneyu

    check_option(fst_from, "fst_from", ("model", "memberships"))
    check_option(variant, "variant", FST_VARIANTS)
    if fst_loci is not None and fst_from != "memberships":
        raise ValueError("fst_loci needs fst_from='memberships' (the model only has the loci it was fitted on).")
    candidates = [int(k) for k in candidates]
    if not candidates or min(candidates) < 2:
        raise ValueError(f"candidates must be numbers of clusters >= 2, got {candidates}.")
    g = as_genotypes(X, ploidy=params.get("ploidy", 2))
    children = check_generator(random_state).spawn(len(candidates) * int(n_runs))
    fst, nonempty, models = {}, {}, {}
    for c, K in enumerate(candidates):
        vals, ne, ms = [], [], []
        for r in range(int(n_runs)):
            est = PopulationEMA(n_clusters=K, random_state=children[c * int(n_runs) + r], **params).fit(g)
            ne.append(len(np.unique(est.labels_)))
            if fst_from == "model":
                vals.append(est.fst(variant=variant) if ne[-1] >= 2 else float("nan"))
            else:
                vals.append(fst_reynolds(g, est.q_, loci=fst_loci, variant=variant))
            if keep_models:
                ms.append(est)
        fst[K], nonempty[K], models[K] = np.asarray(vals), np.asarray(ne), ms
    mean = {K: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for K, v in fst.items()}
    pvals = {}
    for a, b in zip(candidates[:-1], candidates[1:]):
        x, y = fst[a][np.isfinite(fst[a])], fst[b][np.isfinite(fst[b])]
        pvals[(a, b)] = float(mannwhitneyu(x, y, alternative="two-sided").pvalue) if len(x) and len(y) else np.nan
    finite = {K: m for K, m in mean.items() if np.isfinite(m)}
    best = max(finite, key=lambda K: (finite[K], -K)) if finite else candidates[0]
    return NClustersResult(candidates, fst, mean, pvals, nonempty, best, models if keep_models else {})
