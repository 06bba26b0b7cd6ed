r"""Engine of the latent-class clusterers: EM and EMA (expectation model averaging) for a naive Bayes with a hidden
cluster, on distinct rows with multiplicities, missing cells and ploidy (seed 001 ch. 6-8).

Everything here works on int32 codes and numpy arrays; no pandas or pgmpy object is touched inside an iteration.
The faces (:class:`~pgmpy_ext.clustering.LatentClassEM`, :class:`~pgmpy_ext.clustering.EMAClustering`, the
population-genetics ``PopulationEMA``) call :func:`latent_class_single_start` once per start (spawned generators)
and combine the starts with :func:`combine_starts`.

The E step is the Cython kernel :func:`pgmpy_ext.stats.latent_class_estep`. The two M steps:

* **EM** (spec section 2, decisions 1-3): the posterior mean :math:`\theta_{ijk} = (E N_{ijk} + \alpha) / (E N_{ij}
  + r_i \alpha)` (the thesis's "MAP"), maximum likelihood with ``alpha=0``.
* **EMA** (spec section 4.4, the closed form of the MA step): with :math:`w_i` the posterior of the arc
  :math:`C \to X_i`, :math:`\operatorname{logit} w_i = \operatorname{logit} p_S + \log ML_i^{C} - \log ML_i^{\emptyset}`
  (Bayesian-Dirichlet marginal likelihoods of the expected counts, ``gammaln``),
  :math:`\check\theta_{ijk} = w_i \tilde\theta_{ijk} + (1 - w_i) \tilde\theta_{i-k}`.

Ploidy (spec 9.2): a variable's ``P`` code columns share its parameters, the cluster counts are individuals and
the variable counts allele copies; a missing copy adds :math:`q_{dj} \theta_{ijk}` (``missing="impute"``, eq. 8.1)
or nothing (``"available_case"``). With ploidy 1 and complete data both reduce to plain EM / EMA.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import expit, gammaln, logit

from pgmpy_ext.stats import (
    LatentClassLayout,
    latent_class_estep,
    latent_class_mixture_log_joint,
    pairwise_dependence_topk,
    unique_rows,
)
from pgmpy_ext.utils import LOG_PROB_FLOOR, dirichlet_tables, iterate, logsumexp_rows

__all__ = ["LATENT_COMBINES", "LATENT_METHODS", "LATENT_POLICIES", "DistinctInit", "LatentClassData",
           "LatentClassStart", "align_starts", "combine_starts", "dependency_seeds", "em_m_step",
           "empirical_inclusion_prior", "latent_class_data", "latent_class_single_start", "ma_step",
           "mixture_log_joint", "n_free_parameters", "n_selective_parameters", "posteriors_constant",
           "relevance_log_odds", "seed_responsibilities", "select_m_step"]

#: "em": EM on the naive Bayes; "ema": expectation model averaging over the selective naive Bayes (seed 001);
#: "select": EM on one selective naive Bayes whose arcs are chosen in every M step by BIC (VarSelLCM's penalised EM,
#: Marbac & Sedki 2017; issue 30).
LATENT_METHODS = ("em", "ema", "select")
LATENT_POLICIES = ("best", "uniform", "averaging")
LATENT_COMBINES = ("parameters", "joints")


@dataclass
class LatentClassData:
    """Distinct rows of the training codes with their multiplicities, shared by every start.

    Attributes
    ----------
    codes : int32 (U, n_vars * ploidy)
        Distinct rows (-1 = missing cell / allele copy).
    weights : float64 (U,)
        Multiplicity (summed row weights) of each distinct row.
    inverse : intp (n_rows,)
        Distinct row of every training row.
    cards : intp (n_vars,)
    ploidy : int
    n_rows : int
        Training rows (individuals).
    row_weights : float64 (n_rows,)
        Weight of every training row (ones when unweighted).
    """

    codes: np.ndarray
    weights: np.ndarray
    inverse: np.ndarray
    cards: np.ndarray
    ploidy: int
    n_rows: int
    row_weights: np.ndarray

    def layout(self, n_clusters: int) -> LatentClassLayout:
        """The parameter layout for ``n_clusters`` clusters."""
        return LatentClassLayout.build(self.cards, int(n_clusters), self.ploidy)

    @property
    def n_samples(self) -> float:
        """Total weight of the rows."""
        return float(self.weights.sum())

    @property
    def n_vars(self) -> int:
        return int(len(self.cards))

    def rows_to_distinct(self, per_row: np.ndarray) -> np.ndarray:
        """Sum a per-training-row array (n_rows, ...) into the distinct rows (U, ...)."""
        out = np.zeros((len(self.weights), *per_row.shape[1:]))
        np.add.at(out, self.inverse, per_row)
        return out


def latent_class_data(codes, cards, *, weights=None, ploidy: int = 1, row_labels=None) -> LatentClassData:
    """Compress training codes to distinct rows with multiplicities.

    Parameters
    ----------
    codes : int array (n_rows, n_vars * ploidy)
        State codes, -1 for missing; variable ``v``'s ``ploidy`` copies are the adjacent columns
        ``v * ploidy ..``.
    cards : int array (n_vars,)
    weights : float array (n_rows,), optional
    ploidy : int, default 1
    row_labels : sequence, optional
        The user's row labels, used to name a row in errors.

    Raises
    ------
    ValueError
        When a row has every cell missing (it carries no information about its cluster).

    Examples
    --------
    >>> import numpy as np
    >>> d = latent_class_data(np.array([[0, 1], [0, 1], [1, -1]]), [2, 2])
    >>> d.codes.tolist(), d.weights.tolist(), d.inverse.tolist()
    ([[0, 1], [1, -1]], [2.0, 1.0], [0, 0, 1])
    """
    lay = LatentClassLayout.build(cards, 1, ploidy)
    X = lay.check_codes(codes)
    n = X.shape[0]
    if n == 0:
        raise ValueError("no training rows: a latent-class model needs at least one row.")
    all_missing = (X < 0).all(axis=1)
    if all_missing.any():
        r = int(np.flatnonzero(all_missing)[0])
        label = row_labels[r] if row_labels is not None else r
        raise ValueError(f"row {label!r} has every cell missing; it carries no information about its cluster. "
                         "Drop it before fit (e.g. X.dropna(how='all')).")
    w = None if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if w is not None and (w.shape != (n,) or (w < 0).any() or not np.isfinite(w).all()):
        raise ValueError(f"weights must be {n} finite non-negative numbers (one per row).")
    col_cards = np.asarray(lay.cards)[lay.col_var]
    if (X < 0).any():  # shift: -1 (missing) becomes its own code 0
        u = unique_rows(X + 1, col_cards + 1, weights=w)
        ucodes = np.ascontiguousarray(u.codes - 1, dtype=np.int32)
    else:
        u = unique_rows(X, col_cards, weights=w)
        ucodes = u.codes
    return LatentClassData(ucodes, np.ascontiguousarray(u.counts, dtype=np.float64), u.inverse, lay.cards.copy(),
                           int(ploidy), n, np.ones(n) if w is None else w)


@dataclass
class LatentClassStart:
    """One start of EM or EMA (or several starts combined).

    Attributes
    ----------
    theta : float64 (R, K)
        ``P(X_v = k | C = j)`` (rows per :class:`~pgmpy_ext.stats.LatentClassLayout`).
    weights : float64 (K,)
        ``P(C = j)``.
    arc_posterior : float64 (n_vars,)
        Posterior of the arc ``C -> X_v`` of the last MA step (EMA); ones for EM.
    loglik : float
        Observed-data log-likelihood of ``theta``/``weights`` on the training rows (natural log).
    ll_trace : float64 (n_iter + 1,)
        Log-likelihood before every M/MA step, then of the final parameters.
    n_iter : int
        M (or MA) steps taken.
    converged : bool
    resp : float64 (U, K)
        ``P(C = j | x)`` of every distinct row under the final parameters.
    degenerate : bool
        EMA's trivial fixed point (spec 4.8): every arc posterior below 1e-6 or constant posteriors.
    start_logliks : float64 (n_starts,)
        Log-likelihood of every start (combined results only).
    components : (mix (M,), thetas (M, R, K), weights (M, K)) or None
        A mixture of joints (:func:`combine_starts` with ``combine="joints"``): the aligned starts and their mixing
        weights; ``resp`` and ``loglik`` are then the mixture's, ``theta``/``weights`` their average.
    objective : float or None
        The driver's objective at the end: ``loglik`` for EM and EMA, the BIC-penalised log-likelihood for the
        selective EM (what its starts are compared by); None for combined starts.
    """

    theta: np.ndarray
    weights: np.ndarray
    arc_posterior: np.ndarray
    loglik: float
    ll_trace: np.ndarray
    n_iter: int
    converged: bool
    resp: np.ndarray
    degenerate: bool = False
    start_logliks: np.ndarray = field(default_factory=lambda: np.zeros(0))
    components: tuple | None = None
    objective: float | None = None


def n_free_parameters(cards, n_clusters: int) -> int:
    """Free parameters of a latent-class model: ``K - 1 + K * sum(r_v - 1)`` (for BIC and AIC)."""
    cards = np.asarray(cards, dtype=np.int64)
    return int(n_clusters - 1 + n_clusters * int(np.sum(cards - 1)))


def _log(a: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(a), LOG_PROB_FLOOR)


def em_m_step(layout: LatentClassLayout, counts: np.ndarray, cluster_counts: np.ndarray, alpha: float,
              min_prob: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """EM's M step from expected counts: ``(theta (R, K), weights (K,))``, the posterior mean with Dirichlet
    ``alpha`` (maximum likelihood for 0; an empty cluster gets uniform columns). ``min_prob > 0`` floors every
    probability there and renormalises (pgmpy's ``DiscreteEM`` uses 1e-10)."""
    theta = layout.normalize(counts.ravel(), alpha).reshape(layout.n_states, layout.n_clusters)
    K = layout.n_clusters
    tot = cluster_counts.sum() + K * alpha
    weights = (cluster_counts + alpha) / tot if tot > 0 else np.full(K, 1.0 / K)
    if min_prob > 0:
        theta = np.maximum(theta, min_prob)
        theta /= layout.sum_by_variable(theta)[layout.state_var]
        weights = np.maximum(weights, min_prob)
        weights /= weights.sum()
    return theta, weights


def _log_ml(counts: np.ndarray, totals: np.ndarray, cards_rows: np.ndarray, cards_var: np.ndarray,
            layout: LatentClassLayout, alpha: float) -> np.ndarray:
    """Per-variable log BD marginal likelihood with uniform Dirichlet ``alpha`` of count columns.

    ``counts`` (R, J) and ``totals`` (n_vars, J) (J columns = parent configurations), summed over the columns."""
    per_state = layout.sum_by_variable(gammaln(counts + alpha) - gammaln(alpha))  # (n_vars, J)
    ra = (cards_var * alpha)[:, None]
    return np.sum(gammaln(ra) - gammaln(ra + totals) + per_state, axis=1)


def relevance_log_odds(layout: LatentClassLayout, counts: np.ndarray, alpha: float) -> np.ndarray:
    r"""Per variable, :math:`\log ML_i^{C} - \log ML_i^{\emptyset}` of the expected counts (spec 4.4): the log Bayes
    factor of the arc :math:`C \to X_i` (Bayesian-Dirichlet marginal likelihoods with ``alpha`` per cell, the
    counts plugged in as if they were data), shape (n_vars,)."""
    if alpha <= 0:
        raise ValueError(f"alpha == {alpha}, EMA needs alpha > 0 (its marginal likelihoods are Dirichlet integrals).")
    sv = layout.state_var
    cards = np.asarray(layout.cards, dtype=np.float64)
    dep_tot = layout.sum_by_variable(counts)  # (n_vars, K)
    ind = counts.sum(axis=1, keepdims=True)  # (R, 1)
    ind_tot = layout.sum_by_variable(ind)  # (n_vars, 1)
    return (_log_ml(counts, dep_tot, cards[sv], cards, layout, alpha)
            - _log_ml(ind, ind_tot, cards[sv], cards, layout, alpha))


def empirical_inclusion_prior(log_bf: np.ndarray, *, max_iter: int = 500, tol: float = 1e-12) -> float:
    r"""Empirical-Bayes probability :math:`\pi` of an arc :math:`C \to X_i` given every variable's log Bayes factor
    (``structure_prior="auto"``, issue 30).

    The arcs are independent Bernoulli(:math:`\pi`) a priori and :math:`\pi \sim` Beta(1, 1); :math:`\pi` is the
    fixed point of :math:`\pi = (\sum_i w_i(\pi) + 1) / (n + 2)`, :math:`w_i(\pi) = \operatorname{expit}(
    \operatorname{logit}\pi + \log BF_i)` (the Beta posterior mean given the arc posteriors; the iteration is EM for
    the weight of a two-component mixture, so it converges monotonically). Many irrelevant variables give a small
    :math:`\pi`, which is the multiplicity correction a fixed :math:`p_S = 1/2` lacks.

    Examples
    --------
    >>> import numpy as np
    >>> round(empirical_inclusion_prior(np.r_[np.full(5, 30.0), np.full(995, -3.0)]), 4)
    0.006
    """
    log_bf = np.asarray(log_bf, dtype=np.float64)
    n = log_bf.size
    pi = 0.5
    for _ in range(max_iter):
        new = (float(np.sum(expit(logit(pi) + log_bf))) + 1.0) / (n + 2.0)
        if abs(new - pi) <= tol:
            return new
        pi = new
    return pi


def ma_step(layout: LatentClassLayout, counts: np.ndarray, cluster_counts: np.ndarray, alpha: float,
            structure_prior=0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""EMA's closed-form model-averaging step (spec 4.4): ``(theta (R, K), weights (K,), arc_posterior (n_vars,))``.

    With :math:`E N_{ijk}` = ``counts`` (allele copies under ploidy), :math:`E N_{i-k} = \sum_j E N_{ijk}`,
    ``structure_prior`` :math:`p_S` the prior probability of each arc :math:`C \to X_i` (0.5: uniform over the
    :math:`2^n` selective structures; 1: EM's naive Bayes; an array gives one per variable; ``"auto"``: the
    empirical-Bayes :math:`\pi` of :func:`empirical_inclusion_prior` given these counts):

    .. math::
        w_i = \operatorname{expit}\big(\operatorname{logit} p_S + \log ML_i^{C} - \log ML_i^{\emptyset}\big), \quad
        \check\theta_{ijk} = w_i \frac{\alpha + E N_{ijk}}{r_i\alpha + E N_{ij}}
            + (1 - w_i) \frac{\alpha + E N_{i-k}}{r_i\alpha + E N_i}

    This is the exact average over the :math:`2^n` structures of the posterior-mean parameters weighted by
    :math:`p(S)\,p(D^{(t)} | S)` (the structure prior is modular, so the average factorises over the variables;
    ``tests/clustering/test_latent.py`` checks it against the enumeration of every structure).

    Examples
    --------
    >>> import numpy as np
    >>> lay = LatentClassLayout.build([2], n_clusters=2)
    >>> theta, weights, w = ma_step(lay, np.array([[8.0, 1.0], [2.0, 9.0]]), np.array([10.0, 10.0]), 1.0)
    >>> w.round(4).tolist(), theta.round(4).tolist()
    ([0.9848], [[0.7455, 0.171], [0.2545, 0.829]])
    """
    if alpha <= 0:
        raise ValueError(f"alpha == {alpha}, EMA needs alpha > 0 (its marginal likelihoods are Dirichlet integrals).")
    sv = layout.state_var
    cards = np.asarray(layout.cards, dtype=np.float64)
    dep_tot = layout.sum_by_variable(counts)  # (n_vars, K)
    theta_dep = (counts + alpha) / (dep_tot[sv] + cards[sv][:, None] * alpha)
    ind = counts.sum(axis=1, keepdims=True)  # (R, 1)
    ind_tot = layout.sum_by_variable(ind)  # (n_vars, 1)
    theta_ind = (ind + alpha) / (ind_tot[sv] + cards[sv][:, None] * alpha)
    log_bf = relevance_log_odds(layout, counts, alpha)
    if isinstance(structure_prior, str):
        if structure_prior != "auto":
            raise ValueError(f"structure_prior == {structure_prior!r}, must be a probability, one per variable or "
                             "'auto'.")
        structure_prior = empirical_inclusion_prior(log_bf)
    prior = np.broadcast_to(np.asarray(structure_prior, dtype=np.float64), (layout.n_vars,))
    with np.errstate(divide="ignore"):
        w = expit(logit(prior) + log_bf)
    theta = w[sv][:, None] * theta_dep + (1.0 - w[sv])[:, None] * theta_ind
    K = layout.n_clusters
    weights = (cluster_counts + alpha) / (cluster_counts.sum() + K * alpha)
    return theta, weights, w


def _ml_loglik(counts: np.ndarray, layout: LatentClassLayout) -> np.ndarray:
    """Per variable, :math:`\\sum_{jk} N_{ijk} \\log(N_{ijk} / N_{ij})` of count columns (R, J): the maximised
    log-likelihood of the expected counts, shape (n_vars,)."""
    tot = layout.sum_by_variable(counts)[layout.state_var]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(counts > 0, counts * np.log(counts / tot), 0.0)
    return layout.sum_by_variable(t).sum(axis=1)


def select_m_step(layout: LatentClassLayout, counts: np.ndarray, cluster_counts: np.ndarray, alpha: float,
                  n_samples: float, min_prob: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The M step of the selective latent-class EM (``method="select"``): ``(theta, weights, relevance)``.

    VarSelLCM's penalised EM for categorical data (Marbac & Sedki 2017, BIC version): every variable's arc
    :math:`C \to X_i` is kept when the gain in maximised expected log-likelihood beats its BIC price,

    .. math::
        \Delta_i = \sum_{jk} E N_{ijk} \log\frac{E N_{ijk}}{E N_{ij}} - \sum_k E N_{i-k}\log\frac{E N_{i-k}}{N}
            - \tfrac{1}{2}(K - 1)(r_i - 1)\log N > 0,

    and ``relevance`` is :math:`\operatorname{expit}(\Delta_i)`, the Schwarz (BIC) approximation of the posterior
    probability of the arc with prior odds 1 (above 1/2 exactly when the arc is kept). A kept variable gets EM's
    posterior-mean columns, a dropped one its marginal ``(alpha + E N_{i-k}) / (r_i alpha + N)`` in every column
    (a root node, independent of the cluster).
    """
    theta, weights = em_m_step(layout, counts, cluster_counts, alpha, min_prob)
    ind = counts.sum(axis=1, keepdims=True)
    K = layout.n_clusters
    cards = np.asarray(layout.cards, dtype=np.float64)
    gain = _ml_loglik(counts, layout) - _ml_loglik(ind, layout)
    delta = gain - 0.5 * (K - 1) * (cards - 1) * np.log(max(float(n_samples), 1.0))
    keep = delta > 0
    sv = layout.state_var
    marg = (ind[:, 0] + alpha) / (layout.sum_by_variable(ind)[sv, 0] + cards[sv] * alpha)
    rows = ~keep[sv]
    theta[rows] = marg[rows][:, None]
    return theta, weights, expit(delta)


def n_selective_parameters(cards, n_clusters: int, relevant) -> int:
    """Free parameters of a selective latent-class model: ``K - 1 + sum_v (r_v - 1) (K if relevant else 1)``."""
    cards = np.asarray(cards, dtype=np.int64)
    rel = np.asarray(relevant, dtype=bool)
    return int(n_clusters - 1 + int(np.sum((cards - 1) * np.where(rel, n_clusters, 1))))


def _random_params(layout: LatentClassLayout, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Dirichlet(1) columns for every variable and cluster and Dirichlet(1) cluster weights (decisions 7, 13): the
    shared random start (:func:`pgmpy_ext.utils.dirichlet_tables`) in the engine's stacked stream order."""
    *tables, prior = dirichlet_tables(rng, [*((int(r), layout.n_clusters) for r in layout.cards),
                                            (layout.n_clusters, 1)], stacked=True)
    return np.concatenate(tables, axis=0) if tables else np.zeros((0, layout.n_clusters)), prior[:, 0]


def _counts_from_resp(layout: LatentClassLayout, data: LatentClassData, resp_u: np.ndarray):
    """Expected counts of given posteriors of the distinct rows (``resp_u`` (U, K) summed over each distinct
    row's training rows, i.e. already multiplied by the multiplicity); missing cells add nothing."""
    K = layout.n_clusters
    counts = np.zeros((layout.n_states, K))
    X = data.codes
    for c in range(X.shape[1]):
        obs = X[:, c] >= 0
        np.add.at(counts, layout.offsets[layout.col_var[c]] + X[obs, c], resp_u[obs])
    return counts, resp_u.sum(axis=0)


def _init_resp(init, data: LatentClassData, n_clusters: int) -> np.ndarray:
    """Per-row initial posteriors (labels or responsibilities), summed into the distinct rows."""
    a = np.asarray(init)
    n, K = data.n_rows, n_clusters
    if a.ndim == 1:
        if a.shape[0] != n:
            raise ValueError(f"init labels have {a.shape[0]} entries for {n} training rows.")
        if not np.issubdtype(a.dtype, np.integer) or a.min() < 0 or a.max() >= K:
            raise ValueError(f"init labels must be integers in 0..{K - 1}; got values from {a.min()} to {a.max()}.")
        resp = np.zeros((n, K))
        resp[np.arange(n), a] = 1.0
    elif a.ndim == 2:
        if a.shape != (n, K):
            raise ValueError(f"init responsibilities have shape {a.shape}, expected ({n}, {K}).")
        resp = np.asarray(a, dtype=np.float64)
        if (resp < 0).any() or not np.allclose(resp.sum(axis=1), 1.0):
            raise ValueError("init responsibilities must be non-negative with rows summing to 1.")
    else:
        raise ValueError(f"init must be 'random', labels (n_rows,) or responsibilities (n_rows, K); got {a.shape}.")
    return data.rows_to_distinct(resp * data.row_weights[:, None])


class _LatentClassSteps:
    """The E and M steps of EM / EMA / selective EM for :func:`pgmpy_ext.utils.iterate`; parameters are ``(theta,
    weights, arc)`` (``arc``: the arc posteriors of the last MA step, or the relevance of the last selective M step;
    not a parameter of the convergence test). The objective is the observed-data log-likelihood, or for ``"select"``
    its BIC-penalised value (what the penalised EM increases and its starts are compared by)."""

    def __init__(self, lay, data, *, method, alpha, structure_prior, missing, min_prob, fixed_independent, estep):
        self.lay, self.data, self.method, self.alpha = lay, data, method, alpha
        self.structure_prior, self.missing, self.min_prob, self.estep = structure_prior, missing, min_prob, estep
        self.fixed = None if fixed_independent is None else np.asarray(fixed_independent, dtype=bool)
        self.log_n = np.log(max(float(data.n_samples), 1.0)) if method == "select" else 0.0

    def e_step(self, params):
        theta, weights, arc = params
        log_theta, log_w = _log(theta), _log(weights)
        if self.estep is None:
            res = latent_class_estep(self.lay, self.data.codes, self.data.weights, log_theta, log_w, theta=theta,
                                     missing=self.missing, return_resp=True, check=False)
        else:
            res = self.estep(self.lay, log_theta, log_w, theta=theta, missing=self.missing)
        if self.method == "select":
            relevant = np.ones(self.lay.n_vars, bool) if np.isnan(arc).all() else arc > 0.5
            k = n_selective_parameters(self.lay.cards, self.lay.n_clusters, relevant)
            return res, res.loglik - 0.5 * k * self.log_n
        return res, res.loglik

    def m_step(self, res, params=None):
        return self.update(res.counts, res.cluster_counts)

    def update(self, counts, nc):
        lay, alpha = self.lay, self.alpha
        if self.method == "ema":
            return ma_step(lay, counts, nc, alpha, self.structure_prior)
        if self.method == "select":
            return select_m_step(lay, counts, nc, alpha, self.data.n_samples, self.min_prob)
        theta, weights = em_m_step(lay, counts, nc, alpha, self.min_prob)
        if self.fixed is None:
            return theta, weights, np.ones(lay.n_vars)
        sv = lay.state_var
        ind = counts.sum(axis=1)
        cards = np.asarray(lay.cards, dtype=np.float64)
        marg = (ind + alpha) / (lay.sum_by_variable(ind[:, None])[sv, 0] + cards[sv] * alpha)
        rows = self.fixed[sv]
        theta[rows] = marg[rows][:, None]
        return theta, weights, (~self.fixed).astype(np.float64)

    @staticmethod
    def flat(params):
        theta, weights, _ = params
        return np.concatenate([theta.ravel(), weights])


#: The stopping rule of each method when none is given: EM's relative log-likelihood change (decision 2), EMA's
#: L-infinity parameter change (decision 6; EMA is not monotone in the log-likelihood); the selective EM's relative
#: change of its penalised log-likelihood (as VarSelLCM).
DEFAULT_CONVERGENCE = {"em": ("objective", 1e-6), "ema": ("params", 0.01), "select": ("objective", 1e-6)}


@dataclass
class DistinctInit:
    """Initial posteriors of the *distinct* rows (``resp`` (U, K), rows summing to 1), e.g. from an EM on a few
    variables (:func:`dependency_seeds`); the first M step uses them, weighted by the rows' multiplicities."""

    resp: np.ndarray


def dependency_seeds(data: LatentClassData, n_seeds: int, *, n_partners: int = 4, alpha: float = 1.0,
                     n_jobs: int | None = 1) -> list[np.ndarray]:
    """The variable sets the ``init="dependency"`` starts cluster first: the most mutually dependent variables.

    Every variable's ``n_partners`` most dependent partners are found by the BD log Bayes factor of pairwise
    dependence (:func:`pgmpy_ext.stats.pairwise_dependence_topk`, weighted by the distinct rows' multiplicities,
    missing cells pairwise available-case); a variable's score is the sum of those ``n_partners`` factors, and
    seed ``s`` is the ``s``-th best variable with its partners (ties: the smaller index). Variables that all depend
    on a hidden cluster are dependent in pairs, irrelevant ones are not, so with many irrelevant variables the top
    seeds are sets of relevant ones, where a random start is dominated by noise (issue 30). With ploidy the
    allele copies are not used (the first copy stands for the variable). Returns ``n_seeds`` sorted index arrays
    (fewer when there are fewer variables).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 300)
    >>> rel = np.where(rng.random((300, 3)) < 0.9, z[:, None], 1 - z[:, None])
    >>> d = latent_class_data(np.c_[rng.integers(0, 3, (300, 5)), rel], [3] * 5 + [2] * 3)
    >>> [s.tolist() for s in dependency_seeds(d, 2, n_partners=2)]
    [[5, 6, 7], [5, 6, 7]]
    """
    p = data.n_vars
    if p == 0 or n_seeds <= 0:
        return []
    codes = data.codes[:, ::data.ploidy] if data.ploidy > 1 else data.codes
    k = min(int(n_partners), p - 1)
    idx, val = pairwise_dependence_topk(codes, data.cards, weights=data.weights, k=k, alpha=alpha, n_jobs=n_jobs)
    score = np.where(np.isfinite(val), val, 0.0).sum(axis=1) if k > 0 else np.zeros(p)
    order = np.lexsort((np.arange(p), -score))  # best first, ties to the smaller index
    return [np.sort(np.r_[i, idx[i][idx[i] >= 0]]).astype(np.intp) for i in order[:int(n_seeds)]]


def seed_responsibilities(data: LatentClassData, variables, n_clusters: int, rng: np.random.Generator, *,
                          alpha: float = 1.0, n_init: int = 5, missing: str = "impute") -> DistinctInit:
    """Posteriors of the distinct rows under the best of ``n_init`` EM starts on ``variables`` only (the start of
    one ``init="dependency"`` run); the draws come from ``rng``."""
    variables = np.asarray(variables, dtype=np.intp)
    P = data.ploidy
    cols = (variables[:, None] * P + np.arange(P)[None, :]).ravel()
    sub = LatentClassData(np.ascontiguousarray(data.codes[:, cols]), data.weights, np.arange(len(data.weights)),
                          data.cards[variables].copy(), P, len(data.weights), data.weights)
    best = None
    for child in rng.spawn(int(n_init)):
        s = latent_class_single_start(sub, n_clusters, child, method="em", alpha=alpha, missing=missing)
        if best is None or s.loglik > best.loglik:
            best = s
    return DistinctInit(best.resp)


def latent_class_single_start(data: LatentClassData, n_clusters: int, rng: np.random.Generator, *,
                              method: str = "em", alpha: float = 1.0, structure_prior=0.5, tol="auto",
                              criterion=None, max_iter: int = 1000, init="random", missing: str = "impute",
                              min_prob: float = 0.0, fixed_independent=None, estep=None,
                              callback=None) -> LatentClassStart:
    """One start of EM (``method="em"``) or EMA (``"ema"``) from its own generator, on the shared driver
    (:func:`pgmpy_ext.utils.iterate`).

    Parameters
    ----------
    data : LatentClassData
    n_clusters : int
    rng : numpy.random.Generator
        The only source of randomness (the random initial parameters).
    method : {"em", "ema", "select"}
        EM, EMA (spec 4), or the selective EM whose arcs are chosen by BIC in every M step (:func:`select_m_step`).
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell (0 = maximum likelihood, EM only).
    structure_prior : float, array (n_vars,) or "auto", default 0.5
        EMA's prior probability of each arc ``C -> X_v``; 0.5 is the thesis's uniform prior over structures,
        "auto" the empirical-Bayes probability of :func:`empirical_inclusion_prior` in every MA step.
    tol, criterion : float and {"objective", "params"}, or equal-length sequences of both; default by method
        The stopping rule (:func:`pgmpy_ext.utils.iterate`): EM stops when the log-likelihood changes by at most
        ``tol * |LL|`` (``("objective", 1e-6)``, decision 2), EMA when no parameter moves by more than ``tol``
        (``("params", 0.01)``, decision 6); ``tol="auto"`` is the method's threshold, ``criterion=None`` its
        criterion. Sequences combine rules (the run stops when any holds), e.g. the chapter-7 reproductions' EM
        ``criterion=("objective", "params"), tol=(1e-6, 0.01)``; ``tol=None`` runs ``max_iter`` iterations.
    max_iter : int, default 1000
    init : "random", labels (n_rows,), responsibilities (n_rows, K) or DistinctInit
        "random": Dirichlet(1) parameters (decision 7); labels/responsibilities of the training rows, or
        :class:`DistinctInit` posteriors of the distinct rows (e.g. :func:`seed_responsibilities`): the first M step
        uses them.
    missing : {"impute", "available_case"}
        Expected counts of missing cells (see :func:`pgmpy_ext.stats.latent_class_estep`).
    min_prob : float, default 0
        EM only: floor of every probability after the M step (pgmpy's ``DiscreteEM`` uses 1e-10).
    fixed_independent : bool array (n_vars,), optional
        EM only: variables whose arc ``C -> X_v`` is absent (a *selective* naive Bayes): their columns are set to
        the marginal ``(alpha + E N_{v-k}) / (r_v alpha + E N_v)`` in every M step.
    estep : callable, optional
        ``estep(layout, log_theta, log_prior, theta, missing) -> LatentEStep`` replacing the in-memory E step on
        ``data.codes``, e.g. one map-reduce over a dask DataFrame's persisted partitions
        (``functools.partial(pgmpy_ext.dask.latent_class_estep, dask_data)``); ``data`` then only supplies the
        cardinalities (and the rows of an ``init`` other than "random"). The start's ``resp`` is None (no
        per-row posteriors are gathered), and its ``degenerate`` flag only reflects the arc posteriors: the caller
        tests the posteriors with :func:`posteriors_constant` from a summary of the rows when it needs to.
    callback : callable, optional
        ``callback(n_iter, (theta, weights, arc), estep, objective)`` after every E step (the driver's hook), e.g.
        to follow the arc posteriors through the iterations.
    """
    if method not in LATENT_METHODS:
        raise ValueError(f"method == {method!r}, must be one of {LATENT_METHODS}.")
    default_criterion, default_tol = DEFAULT_CONVERGENCE[method]
    criterion = default_criterion if criterion is None else criterion
    tol = default_tol if isinstance(tol, str) and tol == "auto" else tol
    lay = data.layout(n_clusters)
    steps = _LatentClassSteps(lay, data, method=method, alpha=alpha, structure_prior=structure_prior,
                              missing=missing, min_prob=min_prob, fixed_independent=fixed_independent, estep=estep)
    if isinstance(init, DistinctInit):
        resp_u = np.asarray(init.resp, dtype=np.float64)
        if resp_u.shape != (len(data.weights), lay.n_clusters):
            raise ValueError(f"DistinctInit.resp has shape {resp_u.shape}, expected ({len(data.weights)}, "
                             f"{lay.n_clusters}).")
        counts, nc = _counts_from_resp(lay, data, resp_u * data.weights[:, None])
        fit = iterate(steps, None, stats=_Counts(counts, nc), tol=tol, max_iter=max_iter, criterion=criterion,
                      callback=callback)
    elif isinstance(init, str):
        if init != "random":
            raise ValueError(f"init == {init!r}, must be 'random', labels or responsibilities.")
        theta, weights = _random_params(lay, rng)
        fit = iterate(steps, (theta, weights, np.full(lay.n_vars, 1.0 if method == "em" else np.nan)), tol=tol,
                      max_iter=max_iter, criterion=criterion, callback=callback)
    else:
        counts, nc = _counts_from_resp(lay, data, _init_resp(init, data, lay.n_clusters))
        fit = iterate(steps, None, stats=_Counts(counts, nc), tol=tol, max_iter=max_iter, criterion=criterion,
                      callback=callback)
    theta, weights, arc = fit.params
    resp = fit.stats.resp
    no_arc = {"em": False, "ema": np.nanmax(arc, initial=0.0) < 1e-6, "select": np.nanmax(arc, initial=0.0) <= 0.5}
    degenerate = bool(method != "em" and (no_arc[method] or (resp is not None and posteriors_constant(resp))))
    loglik = float(fit.stats.loglik) if method == "select" else float(fit.objective)
    return LatentClassStart(theta, weights, arc, loglik, fit.trace, fit.n_iter, fit.converged, resp, degenerate,
                            objective=float(fit.objective))


@dataclass
class _Counts:
    """Expected counts given from outside (an ``init`` of labels or responsibilities), as an E step's output."""

    counts: np.ndarray
    cluster_counts: np.ndarray


def _assignment(gain: np.ndarray) -> np.ndarray:
    """The permutation maximising ``sum_j gain[j, perm[j]]`` (Hungarian)."""
    rows, cols = linear_sum_assignment(gain, maximize=True)
    perm = np.empty(len(rows), dtype=np.intp)
    perm[rows] = cols
    return perm


def align_starts(starts, reference: LatentClassStart, weights: np.ndarray) -> list[np.ndarray]:
    """Cluster permutations aligning every start to ``reference`` (decision 10): for each start the Hungarian
    assignment maximising :math:`\\sum_d w_d q^{ref}_{dj} q_{d\\sigma(j)}`; ``perm[j]`` is the start's cluster that
    matches the reference's cluster ``j`` (apply as ``theta[:, perm]``)."""
    return [_assignment((reference.resp * weights[:, None]).T @ s.resp) for s in starts]  # gains (K_ref, K)


def posteriors_constant(resp: np.ndarray | None = None, *, first=None, low=None, high=None) -> bool:
    """EMA's "constant posteriors" half of the degenerate test (spec 4.8): ``np.allclose(resp, resp[:1],
    atol=1e-9)`` of the distinct rows' posteriors, or the same test from a summary of rows that are not in memory:
    ``first`` the posteriors of the (lexicographically) first distinct row, ``low``/``high`` the smallest and
    largest posterior of every cluster over all rows (``max_d |resp_d - first| = max(high - first, first - low)``
    exactly, in floating point too)."""
    if resp is not None:
        return bool(np.allclose(resp, resp[:1], atol=1e-9))
    first = np.asarray(first)
    dev = np.maximum(np.asarray(high) - first, first - np.asarray(low))
    return bool(np.all(dev <= 1e-9 + 1e-5 * np.abs(first)))


#: ``log sum_m mix_m p_m(x, C = j)`` of every row for ``components = (mix, thetas, weights)`` (a mixture of joints,
#: spec decision 10); missing cells summed out. The function lives in :mod:`pgmpy_ext.stats` so that the Dask tasks
#: (which never import this layer) compute the same thing.
mixture_log_joint = latent_class_mixture_log_joint


def combine_starts(data: LatentClassData, starts, policy: str = "best", *, missing: str = "impute",
                   combine: str = "parameters", rows=None) -> LatentClassStart:
    """Combine the starts with a multi-start policy (spec section 6).

    ``"best"`` (BC) keeps the start of highest log-likelihood. ``"uniform"`` (UA) and ``"averaging"`` (Av, weights
    ``softmax(loglik)``, i.e. proportional to the likelihood) align every start to the best one with
    :func:`align_starts` (decision 10) and then either average the parameters (``combine="parameters"``: ``theta``,
    cluster weights, arc posteriors; a single naive Bayes, decision 10 option 3) or keep the **mixture of joints**
    ``sum_m w_m p_m(c, x)`` (``combine="joints"``, decision 10 option 2, whose posterior is
    ``sum_m w_m p_m(c, x) / sum_m w_m p_m(x)``; the result carries the aligned starts in ``components``). The
    log-likelihood and posteriors of the combination are recomputed. Every start's log-likelihood is kept in
    ``start_logliks``.

    ``rows`` replaces the passes over ``data.codes`` when the training rows are not in memory (a dask DataFrame's
    persisted partitions: :class:`pgmpy_ext.dask.LatentClassPasses`). It provides ``alignment_gains(layout,
    log_params)`` (for ``log_params = [(log_theta, log_prior)]`` of the reference and then of every start, the
    (K, K) matrices :math:`\\sum_d w_d q^{ref}_{dj} q_{dk}`), ``estep(layout, log_theta, log_prior, *, theta,
    missing)`` and ``mixture_loglik(layout, components)``; the result's ``resp`` is then None.
    """
    if policy not in LATENT_POLICIES:
        raise ValueError(f"policy == {policy!r}, must be one of {LATENT_POLICIES}.")
    if combine not in LATENT_COMBINES:
        raise ValueError(f"combine == {combine!r}, must be one of {LATENT_COMBINES}.")
    lls = np.array([s.loglik for s in starts])
    best = starts[int(np.argmax(lls))]
    if policy == "best" or len(starts) == 1:
        return replace(best, start_logliks=lls)
    if policy == "uniform":
        mix = np.full(len(starts), 1.0 / len(starts))
    else:
        z = lls - lls.max()
        mix = np.exp(z) / np.exp(z).sum()
    K = len(best.weights)
    lay = data.layout(K)
    if rows is None:
        perms = align_starts(starts, best, data.weights)
    else:
        gains = rows.alignment_gains(lay, [(_log(s.theta), _log(s.weights)) for s in [best, *starts]])
        perms = [_assignment(g) for g in gains]
    theta = sum(m * s.theta[:, p] for m, s, p in zip(mix, starts, perms))
    weights = sum(m * s.weights[p] for m, s, p in zip(mix, starts, perms))
    arc = sum(m * np.nan_to_num(s.arc_posterior) for m, s in zip(mix, starts))
    n_iter, converged = max(s.n_iter for s in starts), all(s.converged for s in starts)
    if combine == "joints":
        components = (mix, np.stack([s.theta[:, p] for s, p in zip(starts, perms)]),
                      np.stack([s.weights[p] for s, p in zip(starts, perms)]))
        if rows is not None:
            loglik = float(rows.mixture_loglik(lay, components))
            return LatentClassStart(theta, weights, arc, loglik, np.asarray([loglik]), n_iter, converged, None, False,
                                    lls, components)
        lj = mixture_log_joint(lay, data.codes, components)
        lse = logsumexp_rows(lj)
        loglik = float(data.weights @ lse)
        resp = np.exp(lj - lse[:, None])
        return LatentClassStart(theta, weights, arc, loglik, np.asarray([loglik]), n_iter, converged, resp, False,
                                lls, components)
    if rows is not None:
        res = rows.estep(lay, _log(theta), _log(weights), theta=theta, missing=missing)
    else:
        res = latent_class_estep(lay, data.codes, data.weights, _log(theta), _log(weights), theta=theta,
                                 missing=missing, return_resp=True, check=False)
    return LatentClassStart(theta, weights, arc, res.loglik, np.asarray([res.loglik]), n_iter, converged, res.resp,
                            False, lls)
