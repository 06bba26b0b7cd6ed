"""The classification-EM engine behind :class:`~pgmpy_ext.clustering.CEMClustering` (no pgmpy objects here).

Seed 000 section 4 (``docs/decisions/seed000-sbn-cem-nbm.md``): a mixture of K one-dependence Bayesian networks
(a Chow-Liu tree per cluster, "CL"; or one TAN / SBN forest shared by all clusters with the cluster as the class)
fitted by maximising the classification log-likelihood (CML) with Celeux & Govaert's stochastic (S) and
classification (C) EM steps.

Every iteration works on int32 codes: the E-step is one pass of the multinet kernel, the S/C-steps and the
re-seeding of empty clusters are kernels too, and the M-step is one pass of the pairwise counting kernel
conditioned on the current labels (which gives every per-cluster pair table at once), the MI/CMI kernels, and the
spanning-tree helpers of :mod:`pgmpy_ext.structure` (Kruskal and orientation, the per-class Chow-Liu trees the CL
multinet uses, the SBN monitor walk ``fit_sbn`` uses), then the family-count gathering and normalisation kernels.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils import check_scalar

from pgmpy_ext.data import PARAMETER_VOCABULARY, EncodedData
from pgmpy_ext.stats import (
    MultinetLayout,
    PairwiseCounts,
    UniqueRows,
    argmax_labels,
    cmi_matrix,
    family_counts,
    multinet_counts_from_pairs,
    multinet_log_joint,
    normalize_blocks,
    pairwise_counts,
    reseed_empty_clusters,
    sample_labels,
    unique_rows,
)
from pgmpy_ext.structure import (
    SBN_STOPPING,
    chow_liu_trees_per_class,
    maximum_spanning_forest,
    orient_forest,
    sbn_code_length,
    sbn_walk,
)
from pgmpy_ext.utils import Interval, Options, check_option, check_params, iterate

__all__ = ["CEM_MODELS", "CEM_INITS", "EMPTY_CLUSTER_POLICIES", "CEMParams", "CEMStart", "CEMStarts", "CEMResult",
           "MStep", "cem_single_start", "check_cem_params", "initial_partition", "prepare_cem_starts"]

#: Model families (seed 000 section 4.3): Chow-Liu multinet, TAN, SBN.
CEM_MODELS = ("cl", "tan", "sbn")
#: Initial partitions (section 4.5, D13).
CEM_INITS = ("random_seeds", "kmeans")
#: What to do when an S- or C-step empties a cluster (D11).
EMPTY_CLUSTER_POLICIES = ("reseed", "drop", "reject")
#: Redraws of an S-step under ``empty_cluster="reject"`` before the step is rejected (the partition is kept).
MAX_REDRAWS = 10

#: Run the E- and M-steps on the distinct rows when there are at most this fraction of N of them.
COMPRESS_BELOW = 0.7



#: CEM's constraints (:func:`pgmpy_ext.utils.check_params`): the table of
#: :class:`~pgmpy_ext.clustering.CEMClustering`, also checked by the engine functions.
CEM_PARAMETER_CONSTRAINTS = {
    **PARAMETER_VOCABULARY,
    "model": [Options(CEM_MODELS)], "n_stochastic_steps": [Interval(numbers.Integral, 0, None)],
    "max_classification_steps": [Interval(numbers.Integral, 0, None)],
    "init": [Options(CEM_INITS), "array-like"], "empty_cluster": [Options(EMPTY_CLUSTER_POLICIES)],
    "stopping": [Options(SBN_STOPPING)],
}


def _check_model_options(model, alpha, stopping) -> None:
    check_params(None, CEM_PARAMETER_CONSTRAINTS, {"model": model, "alpha": alpha, "stopping": stopping})


def check_cem_params(n_clusters, *, model="cl", n_init=10, n_stochastic_steps=200, max_classification_steps=100,
                     init="random_seeds", empty_cluster="reseed", alpha=0.0, stopping="marginal", n_jobs=None,
                     random_state=None) -> None:
    """Validate CEM's options against :data:`CEM_PARAMETER_CONSTRAINTS`: the one check shared by
    :class:`~pgmpy_ext.clustering.CEMClustering`, :func:`~pgmpy_ext.clustering.fit_cem` and
    :func:`cem_single_start`. Array-valued ``init`` (seed coordinates) is checked against the data later, by
    :func:`prepare_cem_starts`.

    Examples
    --------
    >>> check_cem_params(2, model="foo")
    Traceback (most recent call last):
    ...
    ValueError: model == 'foo', must be one of ('cl', 'tan', 'sbn').
    """
    check_params(None, CEM_PARAMETER_CONSTRAINTS, {
        "n_clusters": n_clusters, "model": model, "n_init": n_init, "n_stochastic_steps": n_stochastic_steps,
        "max_classification_steps": max_classification_steps, "init": init, "empty_cluster": empty_cluster,
        "alpha": alpha, "stopping": stopping, "n_jobs": n_jobs, "random_state": random_state})


@dataclass(eq=False)
class CEMParams:
    """The model fitted by one M-step to a partition (the theta of the thesis), in the multinet layout.

    Attributes
    ----------
    layout : MultinetLayout
        Parents per cluster ((K, m), attribute indices, -1 for none) and the block offsets.
    counts : float64 (layout.size,)
        Per-cluster family counts N_k[x_i, x_parent].
    log_cpt : float64 (layout.size,)
        ``log P_k(x_i | x_parent)`` from ``counts + alpha``.
    cluster_sizes : float64 (K,)
        n_k.
    log_prior : float64 (K,)
        ``log(n_k / N)`` (``-inf`` for an empty cluster; mixing weights are never smoothed, eqs. 4.14/4.20).
    cml : float
        Classification log-likelihood (eq. 4.11) of the partition under these parameters, natural log.
    n_edges : int
        Augmenting edges: of the shared forest (TAN/SBN) or summed over the per-cluster trees (CL).
    """

    layout: MultinetLayout
    counts: np.ndarray
    log_cpt: np.ndarray
    cluster_sizes: np.ndarray
    log_prior: np.ndarray
    cml: float
    n_edges: int


def _xlogx_total(n_k: np.ndarray, total: float) -> float:
    nz = n_k[n_k > 0]
    return float(np.sum(nz * np.log(nz / total)))


class MStep:
    """The M-step of one CEM run: structure and CPTs for a partition (seed 000 section 4.3, Figs. 4.8-4.10).

    Holds a work copy of the codes with one extra column for the labels, so that each M-step is a single pass of
    :func:`pgmpy_ext.stats.pairwise_counts` conditioned on that column: ``N[i, j, x_i, x_j, k]`` for every pair and
    cluster. CL reads per-cluster MI from the slices ``k``; TAN/SBN use the CMI given the labels; the family counts
    of every cluster are read from the same tables (:func:`pgmpy_ext.stats.multinet_counts_from_pairs`).

    Parameters
    ----------
    data : EncodedData
        The attributes (complete data).
    n_clusters : int
    model : {"cl", "tan", "sbn"}
    alpha : float
        Dirichlet pseudo-count per CPT cell (D26: structure always from the unsmoothed MI/CMI).
    stopping : {"marginal", "cumulative"}
        SBN monitor rule (D2).
    """

    def __init__(self, data: EncodedData, n_clusters: int, model: str, alpha: float = 0.0,
                 stopping: str = "marginal", unique: UniqueRows | None = None):
        check_params(None, CEM_PARAMETER_CONSTRAINTS, {"n_clusters": n_clusters, "model": model, "alpha": alpha,
                                                       "stopping": stopping})
        self.K = int(n_clusters)
        self.model = model
        self.alpha = float(alpha)
        self.stopping = stopping
        self.features = list(data.columns)
        self.m = data.n_cols
        self.N = data.n_rows
        self.cards = np.ascontiguousarray(data.cards, dtype=np.intp)
        label = "__cem_cluster__"
        while label in data.columns:
            label += "_"
        self.label = label
        self._columns = [*data.columns, label]
        self._states = [*data.states, list(range(self.K))]
        self.codes = data.codes
        # Rows with equal values get equal E-step values and add up in the counts, so both steps run on the
        # distinct rows when that saves work (the results are identical: integer counts are exact in float64).
        if unique is None:
            unique = unique_rows(data.codes, data.cards)
        self.compress = unique.codes.shape[0] <= COMPRESS_BELOW * self.N
        if self.compress:
            self.ucodes = np.ascontiguousarray(unique.codes, dtype=np.int32)
            self.inverse = np.ascontiguousarray(unique.inverse, dtype=np.intp)
        else:
            self.work = np.empty((self.N, self.m + 1), dtype=np.int32)
            self.work[:, :self.m] = data.codes
            self.work[:, self.m] = 0
            self.data = EncodedData(self.work, self._columns, self._states)
        # SBN: N I_2(Xu; Xv | C) must exceed 2 log2(n + 1) bits (section 2.3), N = all examples.
        self.penalty_bits = 2.0 * sbn_code_length(self.m)

    def _labelled(self, labels: np.ndarray) -> EncodedData:
        """The attributes plus the labels as one more column (weighted distinct (row, label) pairs if compressed)."""
        if not self.compress:
            self.work[:, self.m] = labels
            return self.data
        K = self.K
        cnt = np.bincount(self.inverse * K + labels, minlength=self.ucodes.shape[0] * K)
        nz = np.flatnonzero(cnt)
        work = np.empty((nz.shape[0], self.m + 1), dtype=np.int32)
        np.take(self.ucodes, nz // K, axis=0, out=work[:, :self.m])
        work[:, self.m] = nz % K
        return EncodedData(work, self._columns, self._states, weights=cnt[nz].astype(np.float64))

    def __call__(self, labels: np.ndarray) -> CEMParams:
        K, m = self.K, self.m
        data = self._labelled(labels)
        n_k = np.bincount(labels, minlength=K).astype(np.float64)
        if m >= 2:
            pc = pairwise_counts(data, self.features, cond=self.label)
            parents, n_edges = self._structure(pc)
            layout = MultinetLayout.build(parents, self.cards)
            counts = multinet_counts_from_pairs(layout, pc)
        else:  # one attribute: no pairs, no structure
            layout = MultinetLayout.build(np.full((K, 1), -1), self.cards)
            counts = np.ascontiguousarray(family_counts(data, self.features[0], [self.label]).T.reshape(-1))
            n_edges = 0
        log_cpt, ll = normalize_blocks(layout, counts, self.alpha)
        with np.errstate(divide="ignore"):
            log_prior = np.log(n_k / self.N)
        return CEMParams(layout, counts, log_cpt, n_k, log_prior, ll + _xlogx_total(n_k, self.N), n_edges)

    def _structure(self, pc: PairwiseCounts) -> tuple[np.ndarray, int]:
        K, m = self.K, self.m
        if self.model == "cl":  # a Chow-Liu tree per cluster, as the CL multinet (roots: lowest index, D10)
            trees = chow_liu_trees_per_class(pc)
            parents = np.ascontiguousarray(np.stack([t.parents for t in trees]), dtype=np.intp)
            return parents, sum(len(t.edges) for t in trees)
        w = cmi_matrix(pc)
        if self.model == "sbn":
            edges = sbn_walk(w, float(self.N), self.penalty_bits, self.stopping).edges
        else:
            edges = maximum_spanning_forest(w)
        par = orient_forest(m, edges)
        return np.ascontiguousarray(np.broadcast_to(par, (K, m))), len(edges)

    def log_joint(self, params: CEMParams) -> np.ndarray:
        """E-step: ``log alpha_k f_k(x_r)``, shape (N, K)."""
        if self.compress:
            lj = multinet_log_joint(params.layout, params.log_cpt, params.log_prior, self.ucodes)
            return np.take(lj, self.inverse, axis=0)
        return multinet_log_joint(params.layout, params.log_cpt, params.log_prior, self.codes)


def initial_partition(points: np.ndarray, row_ids: np.ndarray, K: int, rng: np.random.Generator,
                      init: str) -> np.ndarray:
    """The initial partition P^0 (seed 000 section 4.5, D13), int32 labels.

    ``points`` (n_rows, d) are where distances are measured: the integer codes by default, or any coordinates the
    caller passes (e.g. the standardised original attributes, D13's option); ``row_ids`` gives rows with equal
    points the same id.

    ``"random_seeds"``: K rows with pairwise different points (the first K distinct ones of a random permutation,
    i.e. data points drawn without replacement until K distinct values are found) are the seeds; every row goes
    to the nearest seed in Euclidean distance (ties: the smallest seed index). No centre updates.
    ``"kmeans"``: scikit-learn's ``KMeans(n_init=1)`` on the points, seeded from ``rng``.
    """
    check_option(init, "init", CEM_INITS)
    check_scalar(K, "K", numbers.Integral, min_val=1)
    if points.shape[0] != row_ids.shape[0]:
        raise ValueError(f"points has {points.shape[0]} rows and row_ids {row_ids.shape[0]}; expected one id per row.")
    if init == "kmeans":
        from sklearn.cluster import KMeans

        km = KMeans(n_clusters=K, n_init=1, random_state=int(rng.integers(2**31 - 1)))
        return np.ascontiguousarray(km.fit(points.astype(np.float64)).labels_, dtype=np.int32)
    perm = rng.permutation(points.shape[0])
    _, first = np.unique(row_ids[perm], return_index=True)
    seeds = perm[np.sort(first)[:K]]
    c = points.astype(np.int64) if np.issubdtype(points.dtype, np.integer) else points.astype(np.float64)
    dist = np.empty((points.shape[0], K), dtype=c.dtype)
    for k, s in enumerate(seeds):
        d = c - c[s]
        dist[:, k] = np.einsum("ij,ij->i", d, d)
    return np.ascontiguousarray(np.argmin(dist, axis=1), dtype=np.int32)


@dataclass(eq=False)
class CEMStart:
    """The outcome of one start (one initial partition, the S-stage, then the C-stage).

    Attributes
    ----------
    labels : int32 (N,)
        Final partition.
    params : CEMParams
        The M-step of the final partition.
    cml_trace : float64 (1 + n_stochastic + n_classification,)
        CML after every M-step: the initial partition, each S-step, then each C-step (which continues from the
        best S-step iterate, ``best_stochastic_iter``).
    n_edges_trace : intp, same length
        Augmenting edges after every M-step.
    best_stochastic_iter : int
        Index into ``cml_trace`` of the partition the C-stage started from (0 = the initial partition).
    n_classification_iter : int
        C-steps that changed the partition.
    converged : bool
        The C-stage reached a partition that the C-step leaves unchanged (under ``"reseed"``: the C-step followed
        by the re-seeding; under ``"reject"``: also when a C-step would empty a cluster).
    n_empty_events : int
        Steps after which the empty-cluster policy had to act.
    """

    labels: np.ndarray
    params: CEMParams
    cml_trace: np.ndarray
    n_edges_trace: np.ndarray
    best_stochastic_iter: int
    n_classification_iter: int
    converged: bool
    n_empty_events: int

    @property
    def cml(self) -> float:
        return self.params.cml


@dataclass(eq=False)
class CEMResult:
    """The best of ``n_init`` starts (highest final CML; ties: the first start), with every start's final CML."""

    best: CEMStart
    best_start: int
    start_cmls: np.ndarray
    extra: dict = field(default_factory=dict)


class _CEMSteps:
    """Classification EM on the shared driver (:func:`pgmpy_ext.utils.iterate`). The iterate is the partition
    (int32 labels); the driver's ``e_step`` evaluates it (the M step: structure and CPTs of the partition, and its
    classification log-likelihood, the objective) and its ``m_step`` moves it (the E step of the rows followed by
    the S step, which samples every row's cluster, or the C step, which takes the most probable one), with the
    empty-cluster policy (D11). A C step that moves no row returns the partition itself: a fixed point."""

    def __init__(self, mstep: MStep, rng: np.random.Generator, empty_cluster: str):
        self.mstep, self.rng, self.empty_cluster = mstep, rng, empty_cluster
        self.stage = "S"
        self.n_events = 0
        self._last = (None, None)  # (labels, CEMParams) of the last partition evaluated

    def e_step(self, labels):
        seen, params = self._last
        if seen is None or not np.array_equal(seen, labels):
            params = self.mstep(labels)
            self._last = (labels, params)
        return params, params.cml

    def m_step(self, params: CEMParams, labels):
        lj = self.mstep.log_joint(params)
        return self._s_step(lj, params) if self.stage == "S" else self._c_step(lj, params, labels)

    def _s_step(self, lj, params):
        N = self.mstep.N
        new, counts = sample_labels(lj, self.rng.random(N))
        if (counts == 0).any() and self.empty_cluster != "drop":
            if ((counts == 0) & (params.cluster_sizes > 0)).any():
                self.n_events += 1
                if self.empty_cluster == "reseed":
                    reseed_empty_clusters(lj, new, counts)
                else:  # reject: redraw; after MAX_REDRAWS failures keep the current partition
                    for _ in range(MAX_REDRAWS):
                        new, counts = sample_labels(lj, self.rng.random(N))
                        if not ((counts == 0) & (params.cluster_sizes > 0)).any():
                            break
                    else:
                        return self._last[0].copy()  # the same partition again (its M step is not recomputed)
        elif self.empty_cluster == "drop" and ((counts == 0) & (params.cluster_sizes > 0)).any():
            self.n_events += 1
        return new

    def _c_step(self, lj, params, labels):
        new, counts, n_changed = argmax_labels(lj, labels)
        if n_changed == 0:
            return labels
        if ((counts == 0) & (params.cluster_sizes > 0)).any():
            self.n_events += 1
            if self.empty_cluster == "reject":  # the constrained C-step cannot move: stop here
                return labels
            if self.empty_cluster == "reseed":
                reseed_empty_clusters(lj, new, counts)
                if np.array_equal(new, labels):  # a fixed point of the C-step followed by the re-seeding
                    return labels
        return new


def cem_single_start(data: EncodedData, unique: UniqueRows, n_clusters: int, rng: np.random.Generator, *,
                     model: str, n_stochastic_steps: int, max_classification_steps: int, init: str,
                     empty_cluster: str, alpha: float, stopping: str,
                     init_points: tuple[np.ndarray, np.ndarray] | None = None) -> CEMStart:
    """One start of the training schedule of seed 000 section 4.4 (``fit_cem`` for one of the p starts), both
    stages on the shared driver.

    S-stage: ``n_stochastic_steps`` iterations of E-step, S-step (one uniform per row from ``rng``), empty-cluster
    handling, M-step; the partition with the highest CML (the initial one included) is kept. C-stage: up to
    ``max_classification_steps`` iterations of E-step, C-step, M-step, stopping when the partition no longer
    changes. Randomness comes only from ``rng`` (initial partition, uniforms, redraws). ``init_points`` =
    ``(points, row_ids)`` measures the initial distances there instead of on the codes. The options are checked
    by :func:`check_cem_params`.
    """
    check_cem_params(n_clusters, model=model, n_stochastic_steps=n_stochastic_steps,
                     max_classification_steps=max_classification_steps, init=init, empty_cluster=empty_cluster,
                     alpha=alpha, stopping=stopping)
    K = int(n_clusters)
    mstep = MStep(data, K, model, alpha, stopping, unique)
    points, ids = (data.codes, unique.inverse) if init_points is None else init_points
    labels = initial_partition(points, ids, K, rng, init)
    steps = _CEMSteps(mstep, rng, empty_cluster)
    edges, best = [], [None]

    def record(it, labels, params, cml):
        if steps.stage == "C" and it == 0:
            return  # the C-stage's start is the S-stage's best partition, already recorded
        edges.append(params.n_edges)
        if steps.stage == "S" and (best[0] is None or cml > best[0][0]):
            best[0] = (cml, labels, params, it)

    s_fit = iterate(steps, labels, tol=None, max_iter=int(n_stochastic_steps), callback=record)
    _, labels, params, best_it = best[0]
    steps.stage, steps._last = "C", (labels, params)
    c_fit = iterate(steps, labels, tol=None, max_iter=int(max_classification_steps), callback=record)
    trace = np.concatenate([s_fit.trace, c_fit.trace[1:]])
    return CEMStart(c_fit.params, c_fit.stats, trace, np.asarray(edges, dtype=np.intp), best_it, c_fit.n_iter,
                    c_fit.converged, steps.n_events)


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


@dataclass(eq=False)
class CEMStarts:
    """Everything the starts of one CEM fit share, computed once; ``starts(rng)`` runs one start
    (:func:`cem_single_start`). Picklable, so the starts can run in worker processes."""

    data: EncodedData
    unique: UniqueRows
    n_clusters: int
    options: dict

    def __call__(self, rng: np.random.Generator) -> CEMStart:
        return cem_single_start(self.data, self.unique, self.n_clusters, rng, **self.options)


def prepare_cem_starts(data: EncodedData, n_clusters: int, *, model: str, n_stochastic_steps: int,
                       max_classification_steps: int, init, empty_cluster: str, alpha: float,
                       stopping: str) -> CEMStarts:
    """Check the data against the options and compute what every start shares: the distinct rows, and the seed
    coordinates when ``init`` is an array (D13's option). Raises ValueError on missing values or when there are
    fewer distinct rows (or distinct seed points) than clusters."""
    if not isinstance(data, EncodedData):
        raise TypeError(f"data must be an EncodedData (pgmpy_ext.data.encode(frame)), got {type(data).__name__}; "
                        "CEMClustering takes DataFrames and arrays.")
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
    options = {"model": model, "n_stochastic_steps": n_stochastic_steps,
               "max_classification_steps": max_classification_steps, "init": init, "empty_cluster": empty_cluster,
               "alpha": alpha, "stopping": stopping, "init_points": init_points}
    return CEMStarts(data, unique, int(n_clusters), options)
