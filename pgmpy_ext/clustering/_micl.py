r"""VarSelLCM's MICL for categorical data (Marbac & Sedki 2017): the integrated complete-data likelihood of a hard
partition and a relevance vector, and its maximisation by alternating exact steps (issue 30, design note
``docs/decisions/issue30-relevance.md``, decision D10).

With Jeffreys Dirichlet(1/2) priors on the cluster proportions and on every table (VarSelLCM's choice for
categorical variables), the integrated complete-data likelihood of the partition :math:`z` (of the distinct rows,
each carried with its multiplicity, as VarSelLCM's "profiles") and the relevance vector :math:`\omega` is closed form:

.. math::
    \log p(x, z \mid \omega) = \log \mathrm{DM}(n_1, \dots, n_K)
        + \sum_{j: \omega_j = 1} \sum_k \log \mathrm{DM}(n_{kj1}, \dots, n_{kjr_j})
        + \sum_{j: \omega_j = 0} \log \mathrm{DM}(n_{\cdot j1}, \dots, n_{\cdot jr_j}),

:math:`\log \mathrm{DM}(n_1..n_r) = \log\Gamma(r/2) - r\log\Gamma(1/2) + \sum_h \log\Gamma(n_h + 1/2)
- \log\Gamma(n + r/2)` the Dirichlet-multinomial marginal (missing cells are left out of the variable's counts).
MICL maximises it over :math:`z` for every :math:`\omega`; the algorithm (VarSelLCM's ``Algorithm::Run``) alternates
(a) for fixed :math:`\omega`, rows reassigned one at a time (in a random order from the start's generator) to the
cluster of largest ICL, until a sweep moves none; (b) for fixed :math:`z`, :math:`\omega_j = 1` exactly when the
variable's per-cluster marginal beats its pooled one (the criterion is separable in the variables); while the ICL
increases.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import betaln, expit, gammaln

from pgmpy_ext.clustering._latent import (
    DistinctInit,
    LatentClassData,
    LatentClassStart,
    latent_class_single_start,
    posteriors_constant,
)
from pgmpy_ext.stats import LatentClassLayout

__all__ = ["MICL_PRIOR", "MICLResult", "icl_variable_marginals", "integrated_complete_likelihood",
           "OMEGA_PRIORS", "log_omega_prior", "micl_optimize", "micl_partition_sweep",
           "micl_single_start", "relevance_step"]

#: Dirichlet pseudo-count of every cell in the integrated likelihoods: Jeffreys' 1/2, as VarSelLCM.
MICL_PRIOR = 0.5


def _log_dm(counts: np.ndarray, r, a: float = MICL_PRIOR, axis: int = -1) -> np.ndarray:
    """log Dirichlet-multinomial marginal of count vectors along ``axis`` (``r`` cells, pseudo-count ``a``)."""
    r = np.asarray(r, dtype=np.float64)
    return (gammaln(r * a) - r * gammaln(a) + gammaln(counts + a).sum(axis=axis)
            - gammaln(counts.sum(axis=axis) + r * a))


def _hard_counts(layout: LatentClassLayout, codes: np.ndarray, weights: np.ndarray, z: np.ndarray):
    """``(counts (R, K), cluster sizes (K,))`` of a hard partition of weighted rows; missing cells add nothing."""
    K = layout.n_clusters
    obs = codes >= 0
    cell = (np.asarray(layout.offsets[:-1])[None, :] + codes) * K + z[:, None]  # (U, n_vars) flat (state, cluster)
    w = np.broadcast_to(weights[:, None], codes.shape)
    counts = np.bincount(cell[obs], weights=w[obs], minlength=layout.n_states * K).reshape(layout.n_states, K)
    return counts, np.bincount(z, weights=weights, minlength=K).astype(np.float64)


def icl_variable_marginals(codes, weights, cards, z, n_clusters: int) -> tuple[float, np.ndarray, np.ndarray]:
    """The pieces of the integrated complete-data likelihood of the partition ``z`` (Jeffreys priors).

    Returns
    -------
    log_pz : float
        ``log DM(n_1, .., n_K)``, the integrated likelihood of the cluster labels.
    dependent : float64 (n_vars,)
        Per variable, the sum over clusters of its log Dirichlet-multinomial marginal in each cluster.
    pooled : float64 (n_vars,)
        Per variable, its log Dirichlet-multinomial marginal over all rows (independent of ``z``).

    ``dependent - pooled`` is the log Bayes factor of the arc ``cluster -> X_j`` given ``z``.
    """
    codes = np.asarray(codes)
    weights = np.asarray(weights, dtype=np.float64)
    z = np.asarray(z, dtype=np.intp)
    lay = LatentClassLayout.build(cards, int(n_clusters))
    counts, nk = _hard_counts(lay, codes, weights, z)
    cards = np.asarray(lay.cards, dtype=np.float64)
    a = MICL_PRIOR
    per_state_dep = lay.sum_by_variable(gammaln(counts + a))  # (n_vars, K)
    tot_dep = lay.sum_by_variable(counts)  # (n_vars, K)
    dependent = (int(n_clusters) * (gammaln(cards * a) - cards * gammaln(a))
                 + per_state_dep.sum(axis=1) - gammaln(tot_dep + cards[:, None] * a).sum(axis=1))
    ind = counts.sum(axis=1, keepdims=True)
    pooled = (gammaln(cards * a) - cards * gammaln(a) + lay.sum_by_variable(gammaln(ind + a))[:, 0]
              - gammaln(lay.sum_by_variable(ind)[:, 0] + cards * a))
    log_pz = float(_log_dm(nk, int(n_clusters)))
    return log_pz, dependent, pooled


def integrated_complete_likelihood(codes, weights, cards, z, omega, n_clusters: int) -> float:
    r"""``log p(x, z | omega)`` with Jeffreys Dirichlet(1/2) priors (the module's formula): the criterion MICL
    maximises over ``z``.

    Examples
    --------
    >>> import numpy as np
    >>> codes = np.array([[0, 1], [0, 0], [1, 1]])
    >>> round(integrated_complete_likelihood(codes, np.ones(3), [2, 2], np.array([0, 0, 1]), [True, False], 2), 4)
    -7.2192
    """
    return _criterion(*icl_variable_marginals(codes, weights, cards, z, n_clusters), omega)


def _criterion(log_pz: float, dependent: np.ndarray, pooled: np.ndarray, omega, omega_prior: str | None = None
               ) -> float:
    """``log p(x, z | omega)`` from the pieces of :func:`icl_variable_marginals`, plus ``log p(omega)`` when
    ``omega_prior`` is given."""
    omega = np.asarray(omega, dtype=bool)
    out = log_pz + np.where(omega, dependent, pooled).sum()
    if omega_prior is not None:
        out += log_omega_prior(omega.sum(), len(omega), omega_prior)
    return float(out)


def micl_partition_sweep(layout: LatentClassLayout, codes: np.ndarray, weights: np.ndarray, z: np.ndarray,
                         omega: np.ndarray, order: np.ndarray, counts: np.ndarray, nk: np.ndarray) -> int:
    """One pass over the rows in ``order``: each row (with its weight) moves to the cluster of largest integrated
    complete-data likelihood given the others (exact: only its own cluster's and the candidate's Dirichlet-
    multinomial terms of the relevant variables change). A row moves only on a strict gain (> 1e-10); among equal
    gains the smallest cluster index wins. ``z`` (rows' clusters), ``counts`` (R, K) and ``nk`` (K,) (the hard
    counts of the partition) are updated in place. Returns the number of rows moved."""
    a = MICL_PRIOR
    rel = np.flatnonzero(np.asarray(omega, dtype=bool))
    cards_rel = np.asarray(layout.cards, dtype=np.float64)[rel]
    tot = layout.sum_by_variable(counts)[rel] if rel.size else np.zeros((0, layout.n_clusters))  # (m, K)
    sub = codes[:, rel]
    offs = np.asarray(layout.offsets)[rel]
    moved = 0
    for u in order:
        w = weights[u]
        if w <= 0:
            continue
        obs = sub[u] >= 0
        s = offs[obs] + sub[u, obs]
        ca = cards_rel[obs][:, None] * a
        t_idx = np.flatnonzero(obs)
        k0 = z[u]
        counts[s, k0] -= w
        tot[t_idx, k0] -= w
        nk[k0] -= w
        c = counts[s]  # (m_u, K)
        t = tot[t_idx]
        if w == 1.0:  # Gamma(n + 1 + a) / Gamma(n + a) = n + a: a log instead of two lgammas (rows seen once)
            gain = np.log(c + a).sum(axis=0) - np.log(t + ca).sum(axis=0) + np.log(nk + a)
        else:
            gain = ((gammaln(c + w + a) - gammaln(c + a)).sum(axis=0)
                    - (gammaln(t + w + ca) - gammaln(t + ca)).sum(axis=0)
                    + gammaln(nk + w + a) - gammaln(nk + a))
        best = int(np.argmax(gain))
        k1 = best if gain[best] > gain[k0] + 1e-10 else k0
        counts[s, k1] += w
        tot[t_idx, k1] += w
        nk[k1] += w
        if k1 != k0:
            z[u] = k1
            moved += 1
    return moved


@dataclass
class MICLResult:
    """The outcome of :func:`micl_optimize`.

    Attributes
    ----------
    z : intp (U,)
        Cluster of every (distinct) row.
    omega : bool (n_vars,)
        Relevance vector (``True``: the variable depends on the cluster).
    micl : float
        ``log p(x, z | omega)`` at the end (the integrated complete-data likelihood MICL maximises).
    log_bayes_factor : float64 (n_vars,)
        Per variable, its per-cluster minus its pooled log marginal given ``z``.
    relevance : float64 (n_vars,)
        Posterior probability of relevance given ``z`` (:func:`relevance_step`; above 1/2 exactly where ``omega``).
    trace : float64 (n_iter + 1,)
        The criterion at the start and after every (partition, relevance) alternation.
    n_iter : int
    converged : bool
        The last alternation did not increase the criterion (False when ``max_iter`` stopped it).
    """

    z: np.ndarray
    omega: np.ndarray
    micl: float
    log_bayes_factor: np.ndarray
    relevance: np.ndarray
    trace: np.ndarray
    n_iter: int
    converged: bool


#: Priors on the relevance vector: "uniform" (every omega equally likely, VarSelLCM's and the paper's) or
#: "beta" (omega_j iid Bernoulli(pi), pi ~ Beta(1, 1) integrated out: a uniform prior on the number of relevant
#: variables, the multiplicity correction of Scott & Berger 2010).
OMEGA_PRIORS = ("uniform", "beta")


def log_omega_prior(n_relevant, n_vars: int, omega_prior: str = "uniform"):
    """``log p(omega)`` up to a constant of omega for ``n_relevant`` relevant variables of ``n_vars``."""
    if omega_prior == "uniform":
        return np.zeros_like(np.asarray(n_relevant, dtype=np.float64))
    s = np.asarray(n_relevant, dtype=np.float64)
    return betaln(s + 1.0, n_vars - s + 1.0)


def relevance_step(log_bf: np.ndarray, omega_prior: str = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """The exact relevance step given the partition: ``(omega, relevance)``. Uniform prior: ``omega_j = log BF_j > 0``
    (separable) and ``relevance = expit(log BF)``. Beta prior: the best omega keeping ``s`` variables keeps the ``s``
    largest log Bayes factors, so ``s`` is found by scanning 0..p; ``relevance_j`` is the conditional posterior
    ``expit(log BF_j + log((s_{-j} + 1) / (p - s_{-j})))`` given the other variables' relevance (above 1/2 exactly
    for the kept ones at the optimum)."""
    log_bf = np.asarray(log_bf, dtype=np.float64)
    if omega_prior == "uniform":
        return log_bf > 0, expit(log_bf)
    p = log_bf.size
    order = np.lexsort((np.arange(p), -log_bf))  # largest first, ties to the smaller index
    gains = np.r_[0.0, np.cumsum(log_bf[order])] + log_omega_prior(np.arange(p + 1), p, "beta")
    s = int(np.argmax(gains))
    omega = np.zeros(p, bool)
    omega[order[:s]] = True
    others = s - omega.astype(np.float64)
    return omega, expit(log_bf + np.log((others + 1.0) / (p - others)))


def micl_optimize(codes, weights, cards, z, omega, n_clusters: int, rng: np.random.Generator, *,
                  max_iter: int = 100, max_sweeps: int = 100, omega_prior: str = "uniform") -> MICLResult:
    """Maximise the integrated complete-data likelihood from ``(z, omega)`` by VarSelLCM's alternation: partition
    sweeps (:func:`micl_partition_sweep`, the row order a fresh ``rng.permutation`` per sweep) until no row moves,
    then the exact relevance step, while the criterion increases (at most ``max_iter`` alternations).

    Parameters
    ----------
    codes : int32 (U, n_vars)
        Rows (-1 = missing); ``weights`` (U,) their multiplicities.
    cards : int (n_vars,)
    z : int (U,)
        Initial cluster of every row (e.g. the MAP labels of an EM fit).
    omega : bool (n_vars,)
        Initial relevance vector.
    n_clusters : int
    rng : numpy.random.Generator
        The only randomness: the order of the rows in every sweep.
    """
    codes = np.ascontiguousarray(codes)
    weights = np.asarray(weights, dtype=np.float64)
    K = int(n_clusters)
    lay = LatentClassLayout.build(cards, K)
    z = np.array(z, dtype=np.intp, copy=True)
    omega = np.array(omega, dtype=bool, copy=True)
    U = len(z)
    log_pz, dep, pooled = icl_variable_marginals(codes, weights, cards, z, K)
    current = _criterion(log_pz, dep, pooled, omega, omega_prior)
    relevance = expit(dep - pooled)
    trace = [current]
    converged = False
    n_iter = 0
    for n_iter in range(1, int(max_iter) + 1):  # noqa: B007 (n_iter is reported)
        counts, nk = _hard_counts(lay, codes, weights, z)
        for _ in range(int(max_sweeps)):
            if micl_partition_sweep(lay, codes, weights, z, omega, rng.permutation(U), counts, nk) == 0:
                break
        log_pz, dep, pooled = icl_variable_marginals(codes, weights, cards, z, K)
        omega, relevance = relevance_step(dep - pooled, omega_prior)
        new = _criterion(log_pz, dep, pooled, omega, omega_prior)
        trace.append(new)
        if not new > current + 1e-9 * max(1.0, abs(current)):
            converged = True
            current = max(new, current)
            break
        current = new
    return MICLResult(z, omega, float(trace[-1]), dep - pooled, relevance, np.asarray(trace), n_iter, converged)


def micl_single_start(data: LatentClassData, start: LatentClassStart, n_clusters: int, rng: np.random.Generator, *,
                      alpha: float = 1.0, missing: str = "impute", max_iter: int = 1000,
                      omega_prior: str = "uniform") -> LatentClassStart:
    """One MICL start from a fitted start of the selective EM (``criterion="micl"``): its MAP partition of the
    distinct rows and its kept variables start :func:`micl_optimize`; the parameters are then EM's with the
    relevance vector fixed (VarSelLCM estimates the parameters of the selected model by EM), started from the MICL
    partition. The result's ``objective`` and ``ll_trace`` are the MICL criterion (what the starts are compared by),
    ``arc_posterior`` the posterior probability of relevance given the MICL partition (expit of the log Bayes
    factor), ``n_iter`` the alternations."""
    if data.ploidy != 1:
        raise ValueError(f"criterion='micl' needs one allele copy per variable; got ploidy {data.ploidy}.")
    if start.resp is None:
        raise ValueError("criterion='micl' needs the training rows in memory (a hard partition of them); with a dask "
                         "DataFrame use criterion='bic'.")
    K = int(n_clusters)
    arc = np.asarray(start.arc_posterior, dtype=np.float64)
    omega0 = np.ones(len(arc), bool) if np.isnan(arc).all() else arc > 0.5
    z0 = np.argmax(start.resp, axis=1)
    res = micl_optimize(data.codes, data.weights, data.cards, z0, omega0, K, rng, max_iter=max_iter,
                        omega_prior=omega_prior)
    onehot = np.zeros((len(res.z), K))
    onehot[np.arange(len(res.z)), res.z] = 1.0
    fit = latent_class_single_start(data, K, rng, method="em", alpha=alpha, init=DistinctInit(onehot),
                                    fixed_independent=~res.omega, missing=missing, max_iter=max_iter)
    degenerate = bool(not res.omega.any() or (fit.resp is not None and posteriors_constant(fit.resp)))
    return replace(fit, arc_posterior=res.relevance, ll_trace=res.trace, n_iter=res.n_iter,
                   converged=bool(res.converged and fit.converged), degenerate=degenerate, objective=res.micl)
