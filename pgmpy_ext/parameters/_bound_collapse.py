"""Parameters of a naive Bayes with a hidden root over supernodes: random starts, hard ML, EM, Bound and Collapse
(BC) for the hidden root, and the BC+EM hybrid of Pena, Lozano & Larranaga (1999).

Spec ``docs/decisions/seed002-003-abn-pena.md``: EM B.4, BC B.5 (Ramoni & Sebastiani's bound and collapse with the
missing variable the *parent*; reconstructed, the paper gives prose only), BC+EM B.6 (the paper's Fig. 2 is
missing; reconstructed from its section 3.2.1), decisions B.13-1/2/4/5/8.

Parameters are kept as probabilities: ``theta`` flat, K class rows per node over the node's compact values
(layout ``pgmpy_ext.stats.supernode_offsets(u, K)``) and ``prior`` (K,). The E-step floors log-probabilities at
``log(1e-300)`` (:data:`pgmpy_ext.utils.LOG_PROB_FLOOR`) so a row that every class gives probability 0 (possible
after BC with ``bc_prior = 0``) still gets a posterior.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pgmpy_ext.stats import SupernodeEStep, completed_log_ml, supernode_counts, supernode_estep, supernode_offsets
from pgmpy_ext.utils import LOG_PROB_FLOOR, dirichlet_tables, iterate

__all__ = ["ParamSearchResult", "SupernodeNB", "bound_collapse", "fit_bc_em", "fit_supernode_em", "ml_parameters",
           "random_parameters"]

STOPPING_RULES = ("score", "loglik")


@dataclass(frozen=True, eq=False)
class SupernodeNB:
    """The data of one structure: ``nodes`` int32 (n, R) compact codes of distinct rows, ``u`` (R,) compact sizes,
    ``r`` (R,) full cardinalities (float; the score's, decision 9), ``mult`` (n,) multiplicities, ``K`` classes."""

    nodes: np.ndarray
    u: np.ndarray
    r: np.ndarray
    mult: np.ndarray
    K: int

    @property
    def offsets(self) -> np.ndarray:
        return supernode_offsets(self.u, self.K)

    def estep(self, theta: np.ndarray, prior: np.ndarray, *, accumulate: bool = True) -> SupernodeEStep:
        """E-step (with the hard completion) at ``theta``, ``prior``."""
        with np.errstate(divide="ignore"):
            log_theta = np.maximum(np.log(theta), LOG_PROB_FLOOR)
            log_prior = np.maximum(np.log(prior), LOG_PROB_FLOOR)
        return supernode_estep(self.nodes, self.u, log_theta, log_prior, self.mult, accumulate=accumulate)

    def score(self, labels: np.ndarray) -> float:
        """Natural-log K2 score of the completion ``labels`` (spec B.2)."""
        return completed_log_ml(self.nodes, self.u, self.r, labels, self.mult, self.K)

    def normalize(self, counts: np.ndarray, class_counts: np.ndarray, previous=None):
        """M-step: rows of ``counts`` normalised per (node, class); a class with no mass keeps its ``previous``
        row (uniform without one). Returns ``(theta, prior)``."""
        theta = np.empty_like(counts)
        off = self.offsets
        for j, u in enumerate(self.u):
            block = counts[off[j]:off[j + 1]].reshape(self.K, int(u))
            tot = block.sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                rows = np.where(tot > 0, block / np.where(tot > 0, tot, 1.0), np.nan)
            empty = ~(tot[:, 0] > 0)
            if empty.any():
                fill = (previous[off[j]:off[j + 1]].reshape(self.K, int(u)) if previous is not None
                        else np.full((self.K, int(u)), 1.0 / int(u)))
                rows[empty] = fill[empty]
            theta[off[j]:off[j + 1]] = rows.reshape(-1)
        total = class_counts.sum()
        prior = class_counts / total if total > 0 else np.full(self.K, 1.0 / self.K)
        return theta, prior


def random_parameters(nb: SupernodeNB, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random start (decision B.13-6): the prior and every CPT row ~ Dirichlet(1, ..., 1), over the node's observed
    values (the compact codes; for singletons these are all the values that occur)."""
    prior, *tables = dirichlet_tables(rng, [(nb.K, 1), *((int(u), nb.K) for u in nb.u)])
    return np.concatenate([t.T.reshape(-1) for t in tables]), prior[:, 0]


def ml_parameters(nb: SupernodeNB, labels: np.ndarray, previous=None) -> tuple[np.ndarray, np.ndarray]:
    """Relative frequencies from a hard completion (Fig. 1 step 6): ``theta_c = n_c / N``,
    ``theta_j(v | c) = N_cv / n_c``; an empty class gets its ``previous`` row (uniform without one), B.3."""
    counts = supernode_counts(nb.nodes, nb.u, labels, nb.mult, nb.K)
    class_counts = np.bincount(np.asarray(labels, dtype=np.intp), weights=nb.mult, minlength=nb.K)
    return nb.normalize(counts, class_counts, previous)


def bound_collapse(nb: SupernodeNB, fixed: np.ndarray, *, bc_prior: float = 0.0, previous=None):
    """Bound and Collapse for a hidden root (spec B.5): parameters from a partially completed database.

    ``fixed`` (n,) holds the class of every case whose class was fixed and -1 for the unfixed ones. Every
    attribute is observed, so only the root is missing. With :math:`n_{jk}` the fixed cases of class j with node
    value k, :math:`m_k` the unfixed cases with value k (:math:`m = \\sum_k m_k`) and the MAR collapse weights
    :math:`\\lambda_{jl} = (a_{jl} + n_{jl}) / (a_j + n_j)`, the node estimate is

    .. math::

        \\hat p(x_k | c_j) = \\lambda_{jk} \\frac{a_{jk} + n_{jk} + m_k}{a_j + n_j + m_k}
            + (a_{jk} + n_{jk}) \\Big(S_j - \\frac{\\lambda_{jk}}{a_j + n_j + m_k}\\Big), \\qquad
        S_j = \\sum_l \\frac{\\lambda_{jl}}{a_j + n_j + m_l}

    (a convex combination of the extreme distributions, each proper, so every row sums to 1) and the class
    estimate :math:`\\hat p(c_k) = (a_k + n_k + \\lambda_k m) / (a + N)`. Hyperparameters BDeu-style (B.13-5):
    ``a = bc_prior``, :math:`a_k = a / K`, :math:`a_{jk} = a / (K r_j)` per cell of the FULL product, so with
    ``a > 0`` the values never observed keep part of the mass (not stored). Guards: a class with no fixed case
    (:math:`a_j + n_j = 0`) keeps its ``previous`` row (uniform without one); with no fixed case at all BC
    returns ``previous`` unchanged. With every case fixed and ``a = 0`` this is the ML estimate.

    Returns
    -------
    theta, prior : float64 arrays (flat K-row layout, and (K,))
    """
    K = nb.K
    fixed = np.asarray(fixed, dtype=np.int32)
    labels = np.where(fixed < 0, K, fixed).astype(np.int32)  # class row K = the unfixed cases
    n_fixed = float(nb.mult[fixed >= 0].sum())
    if n_fixed == 0:
        if previous is None:
            return ml_parameters(nb, np.zeros(nb.nodes.shape[0], dtype=np.int32))  # uniform rows
        return previous
    a = float(bc_prior)
    counts = supernode_counts(nb.nodes, nb.u, labels, nb.mult, K + 1)
    off1 = supernode_offsets(nb.u, K + 1)
    offK = nb.offsets
    prev_theta = previous[0] if previous is not None else None
    theta = np.empty(int(offK[-1]), dtype=np.float64)
    for j, u in enumerate(nb.u):
        u = int(u)
        block = counts[off1[j]:off1[j + 1]].reshape(K + 1, u)
        n_jk, m_k = block[:K], block[K]
        a_cell = a / (K * float(nb.r[j]))
        a_j = a / K
        n_j = n_jk.sum(axis=1, keepdims=True)                      # (K, 1)
        base = a_j + n_j
        ok = base[:, 0] > 0
        safe = np.where(base > 0, base, 1.0)
        lam = (a_cell + n_jk) / safe                               # (K, u)
        D = base + m_k[None, :]                                    # (K, u)
        D = np.where(D > 0, D, 1.0)
        unobserved = max(float(nb.r[j]) - u, 0.0) * (a_cell / safe) / safe   # lambda mass of unobserved values
        S = (lam / D).sum(axis=1, keepdims=True) + unobserved
        rows = lam * (a_cell + n_jk + m_k[None, :]) / D + (a_cell + n_jk) * (S - lam / D)
        if not ok.all():
            fill = (prev_theta[offK[j]:offK[j + 1]].reshape(K, u) if prev_theta is not None
                    else np.full((K, u), 1.0 / u))
            rows[~ok] = fill[~ok]
        theta[offK[j]:offK[j + 1]] = rows.reshape(-1)
    n_k = np.bincount(fixed[fixed >= 0].astype(np.intp), weights=nb.mult[fixed >= 0], minlength=K)
    m = float(nb.mult.sum()) - n_fixed
    lam_c = (a / K + n_k) / (a + n_fixed)
    prior = (a / K + n_k + lam_c * m) / (a + n_fixed + m)
    return theta, prior


@dataclass
class ParamSearchResult:
    """The end of a parameter search: ``theta``, ``prior``, the E-step at them (``estep.labels`` is the hard
    completion), its natural-log ``score``, ``n_iter``, ``converged``, and per iteration the completed-data score
    (``score_trace``, natural log) and the observed log-likelihood before each M-step (``loglik_trace``)."""

    theta: np.ndarray
    prior: np.ndarray
    estep: SupernodeEStep
    score: float
    n_iter: int
    converged: bool
    score_trace: list = field(default_factory=list)
    loglik_trace: list = field(default_factory=list)


class _SupernodeSteps:
    """The parameter searches' steps for :func:`pgmpy_ext.utils.iterate`: ``update(theta, prior, estep) -> (theta,
    prior)`` is EM's M step or a BC+EM round; the E step gives the hard completion, the observed log-likelihood and
    the next expected counts in one pass. The objective is the completed-data K2 score (``"score"``) or the observed
    log-likelihood (``"loglik"``); both traces are kept."""

    def __init__(self, nb: SupernodeNB, update, objective: str):
        self.nb, self.update, self.objective = nb, update, objective
        self.score_trace, self.loglik_trace = [], []

    def m_step(self, e, params):
        return self.update(*params, e)

    def e_step(self, params):
        e = self.nb.estep(*params)
        s = self.nb.score(e.labels)
        self.score_trace.append(s)
        self.loglik_trace.append(e.loglik)
        return e, (s if self.objective == "score" else e.loglik)


def fit_supernode_em(nb: SupernodeNB, theta: np.ndarray, prior: np.ndarray, *, max_iter: int = 150,
                     tol: float = 1e-6, stopping: str = "score", estep: SupernodeEStep | None = None
                     ) -> ParamSearchResult:
    """EM on the supernode naive Bayes (spec B.4), from ``theta``, ``prior``, on the shared driver.

    One iteration is an M-step from the expected counts followed by the E-step at the new parameters, which gives
    the hard completion, the observed log-likelihood and the next expected counts in one pass. Stopping (B.4,
    B.13-4): ``"score"`` (default, the paper's literal rule) stops when the relative change of the completed-data
    K2 score between successive iterations is at most ``tol``; ``"loglik"`` uses the observed log-likelihood
    instead. At most ``max_iter`` M-steps.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 200)
    >>> nodes = np.stack([np.where(rng.random(200) < 0.9, z, 1 - z) for _ in range(4)], axis=1).astype(np.int32)
    >>> nb = SupernodeNB(nodes, np.full(4, 2), np.full(4, 2.0), np.ones(200), 2)
    >>> res = fit_supernode_em(nb, *random_parameters(nb, rng))
    >>> res.converged, bool(np.all(np.diff(res.loglik_trace) >= -1e-9))
    (True, True)
    """
    def em_update(theta, prior, e):
        return nb.normalize(e.counts, e.class_counts, theta)

    return _search(nb, theta, prior, em_update, max_iter=max_iter, tol=tol, stopping=stopping, estep=estep)


def _search(nb: SupernodeNB, theta, prior, update, *, max_iter: int, tol: float, stopping: str,
            estep: SupernodeEStep | None) -> ParamSearchResult:
    """EM and BC+EM on the driver: from the E step at the start (given, or computed), ``update`` then the E step
    until the objective (the completed-data score or the log-likelihood) changes by at most ``tol`` relative, or
    ``max_iter`` updates. The start's own objective is not a test point (the paper compares successive updates)."""
    e = estep if estep is not None else nb.estep(theta, prior)
    steps = _SupernodeSteps(nb, update, stopping)
    fit = iterate(steps, (theta, prior), stats=e, tol=tol, max_iter=max_iter, criterion="objective")
    theta, prior = fit.params
    return ParamSearchResult(theta, prior, fit.stats, steps.score_trace[-1], fit.n_iter, fit.converged,
                             steps.score_trace, [e.loglik, *steps.loglik_trace])


def fit_bc_em(nb: SupernodeNB, theta: np.ndarray, prior: np.ndarray, *, fixing_threshold: float,
              max_iter: int = 150, tol: float = 1e-6, em_steps_per_round=1, bc_prior: float = 0.0,
              stopping: str = "score", estep: SupernodeEStep | None = None) -> ParamSearchResult:
    """The BC+EM hybrid (spec B.6, reconstructed): every round (1) fixes the class of each case whose largest
    posterior is strictly greater than ``fixing_threshold`` (re-decided from scratch every round), (2) runs Bound
    and Collapse on that partially completed database, (3) refines with ``em_steps_per_round`` EM iterations on
    the original database (every case unlabelled; ``"converge"``: EM until its own convergence), and (4) stops
    on the same rule as EM.
    """
    def bc_em_round(theta, prior, e):
        fixed = np.where(e.max_post > fixing_threshold, e.labels, -1).astype(np.int32)
        theta, prior = bound_collapse(nb, fixed, bc_prior=bc_prior, previous=(theta, prior))
        if em_steps_per_round == "converge":
            inner = fit_supernode_em(nb, theta, prior, max_iter=max_iter, tol=tol, stopping=stopping)
            return inner.theta, inner.prior
        for _ in range(int(em_steps_per_round)):
            e = nb.estep(theta, prior)
            theta, prior = nb.normalize(e.counts, e.class_counts, theta)
        return theta, prior

    return _search(nb, theta, prior, bc_em_round, max_iter=max_iter, tol=tol, stopping=stopping, estep=estep)
