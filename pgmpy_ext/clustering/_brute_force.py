r"""Brute-force Bayesian model averaging over every selective naive Bayes (seed 001 section 7.5.1; spec
``docs/decisions/seed001-ema-popgen.md`` section 7.5, decisions 10, 12 and 13).

The reference the thesis compares EMA with (Figs 7.2/7.3): for each of the :math:`2^n` structures S (each arc
:math:`C \to X_i` present or absent),

1. multi-start EM for the posterior-mean ("MAP") parameters :math:`\theta^*_S` with Dirichlet(``alpha``) priors,
   the engine's EM with the variables outside S fixed to their marginal (``fixed_independent``);
2. the marginal likelihood :math:`\log p(D|S)` by the Candidate method (Chickering & Heckerman 1997):
   :math:`\log p(D|\theta^*) + \log p(\theta^*) - \log \hat p(\theta^* | D)`, the last term a Rao-Blackwell average
   over Gibbs draws of the hidden labels, **symmetrised over the** :math:`r_C!` **label permutations** (Neal 1999;
   spec 7.5) so that it is consistent whether or not the chain switches labels;
3. :math:`p(S|D) \propto p(D|S)` (uniform structure prior) and the mixture of joints
   :math:`P_{BF}(c, x) = \sum_S p(S|D)\, p(c, x | \theta^*_S, S)` after aligning every structure's labels to the
   most probable structure's (Hungarian on the posteriors, decision 10).

Exact parts, used instead of sampling: the structure without arcs has
:math:`p(D|S) = \prod_i ML_i^{\emptyset}` (decision 12), and in every structure the variables outside S are
independent of C and of the other variables *a posteriori* too, so their factor of :math:`p(D|S)` is their exact
:math:`ML_i^{\emptyset}`; the Candidate estimate is needed only for the sub-model over C and the variables in S.
The Gibbs sampler works on distinct rows: given the parameters, the labels of the :math:`m_u` copies of a distinct
row are a multinomial draw, which is the same chain as sampling each row's label.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from scipy.special import expit, gammaln, logsumexp

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.clustering._base import BaseBNMixture
from pgmpy_ext.clustering._latent import (
    align_starts,
    combine_starts,
    latent_class_data,
    latent_class_single_start,
)
from pgmpy_ext.utils import Interval, fill_doc, run_starts

__all__ = ["BruteForceResult", "BruteForceSNBAveraging", "brute_force_snb", "candidate_log_evidence",
           "dirichlet_log_pdf", "log_ml_independent"]

MAX_BRUTE_FORCE_VARS = 14


def dirichlet_log_pdf(theta: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Log density of Dirichlet(``alpha``) at ``theta``, along axis 0 (shapes (r, ...) -> (...)).

    Examples
    --------
    >>> import numpy as np
    >>> float(dirichlet_log_pdf(np.array([0.3, 0.7]), np.ones(2)))   # uniform on the 1-simplex
    0.0
    """
    theta = np.asarray(theta, dtype=np.float64)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), theta.shape)
    return gammaln(alpha.sum(axis=0)) - gammaln(alpha).sum(axis=0) + ((alpha - 1.0) * np.log(theta)).sum(axis=0)


def log_ml_independent(codes: np.ndarray, weights: np.ndarray, cards, alpha: float = 1.0) -> np.ndarray:
    r"""Exact :math:`\log ML_i^{\emptyset}` of every variable (Bayesian-Dirichlet, spec 4.3), shape (n,)."""
    out = np.empty(len(cards))
    for i, r in enumerate(cards):
        n_k = np.bincount(codes[:, i], weights=weights, minlength=int(r))
        out[i] = gammaln(r * alpha) - gammaln(r * alpha + n_k.sum()) + np.sum(gammaln(alpha + n_k) - gammaln(alpha))
    return out


def _log_joint(codes, cols, log_prior, log_tables):
    """log p(x_S, c) of distinct rows over the variables ``cols``: (U, K)."""
    out = np.broadcast_to(log_prior, (codes.shape[0], log_prior.shape[0])).copy()
    for c, lt in zip(cols, log_tables, strict=True):
        out += lt[codes[:, c]]
    return out


def candidate_log_evidence(codes: np.ndarray, weights: np.ndarray, cols, prior: np.ndarray, tables, rng, *,
                           alpha: float = 1.0, n_burn: int = 1000, n_samples: int = 5000,
                           symmetrize: bool = True) -> tuple[float, dict]:
    r"""Candidate-method estimate of :math:`\log p(D_S)` for a latent-class model over the columns ``cols``.

    Parameters
    ----------
    codes : int array (U, n)
        Distinct rows (complete).
    weights : float array (U,)
        Multiplicities (whole numbers: the Gibbs sampler draws labels for every copy).
    cols : sequence of int
        The variables of the sub-model (the arcs :math:`C \to X_i` present).
    prior : float array (K,)
        :math:`\theta^*_C`.
    tables : list of float arrays (r_i, K)
        :math:`\theta^*_i` for ``cols``, columns summing to 1.
    rng : numpy Generator
    alpha : float
        Dirichlet hyperparameter of every cell.
    n_burn, n_samples : int
        Gibbs burn-in sweeps and retained sweeps (decision 12: 1,000 and 5,000).
    symmetrize : bool, default True
        Average :math:`p(\sigma(\theta^*) | D, c^{(g)})` over the :math:`K!` label permutations.

    Returns
    -------
    log_evidence : float
    info : dict
        ``loglik`` (:math:`\log p(D|\theta^*)`), ``log_prior``, ``log_posterior`` (the estimate of
        :math:`\log p(\theta^* | D)`), ``switches`` (Gibbs sweeps whose majority labelling changed).
    """
    K = prior.shape[0]
    m = np.asarray(weights)
    m_int = np.rint(m).astype(np.int64)
    if not np.allclose(m, m_int):
        raise ValueError("the Candidate method's Gibbs sampler needs whole-number row multiplicities.")
    cols = list(cols)
    cards = np.array([t.shape[0] for t in tables], dtype=np.int64)
    off = np.concatenate([[0], np.cumsum(cards)])
    R = int(off[-1])
    block = np.repeat(np.arange(len(cols)), cards)                      # cell -> variable of the sub-model
    gather = np.zeros((len(cols), R))
    gather[block, np.arange(R)] = 1.0
    onehot = np.zeros((codes.shape[0], R))                              # (U, R): the cell of every variable
    for b, c in enumerate(cols):
        onehot[np.arange(codes.shape[0]), off[b] + codes[:, c]] = 1.0
    log_w = np.log(prior)
    log_t = np.log(np.concatenate(tables, axis=0))                      # (R, K)
    lj = log_w + onehot @ log_t
    loglik = float(np.sum(m * logsumexp(lj, axis=1)))
    lp = float(dirichlet_log_pdf(prior, alpha) + sum(dirichlet_log_pdf(t, alpha).sum() for t in tables))
    n_uj = np.zeros((codes.shape[0], K), dtype=np.int64)               # labels of the copies, from theta*'s MAP
    n_uj[np.arange(codes.shape[0]), np.argmax(lj, axis=1)] = m_int
    keep_nc = np.empty((n_samples, K))
    keep_cells = np.empty((n_samples, R, K))
    switches = 0
    last_major = int(np.argmax(n_uj.sum(axis=0)))
    for sweep in range(n_burn + n_samples):
        nc = n_uj.sum(axis=0).astype(np.float64)
        cells = onehot.T @ n_uj                                         # (R, K)
        if sweep >= n_burn:
            keep_nc[sweep - n_burn] = nc
            keep_cells[sweep - n_burn] = cells
        g = np.maximum(rng.standard_gamma(alpha + nc), 1e-300)
        gc = np.maximum(rng.standard_gamma(alpha + cells), 1e-300)
        tot = (gather @ gc)[block]                                      # per-variable column sums
        lq = onehot @ (np.log(gc) - np.log(tot))
        lq += np.log(g)
        if K == 2:
            first = rng.binomial(m_int, expit(lq[:, 0] - lq[:, 1]))
            n_uj[:, 0] = first
            n_uj[:, 1] = m_int - first
        else:
            q = np.exp(lq - lq.max(axis=1, keepdims=True))
            q /= q.sum(axis=1, keepdims=True)
            n_uj = np.stack([rng.multinomial(mm, qq) for mm, qq in zip(m_int, q, strict=True)])
        major = int(np.argmax(n_uj.sum(axis=0)))
        switches += major != last_major
        last_major = major
    # log Dir(sigma(theta*) | alpha + counts) for every kept sweep, vectorised: the normalisers depend on the
    # counts only, and the kernel is linear in them
    N = float(m_int.sum())
    norm = (gammaln(K * alpha + N) - gammaln(alpha + keep_nc).sum(axis=1)
            + (gammaln(cards[None, :, None] * alpha + keep_nc[:, None, :]).sum(axis=(1, 2)))
            - gammaln(alpha + keep_cells).sum(axis=(1, 2)))
    perms = list(itertools.permutations(range(K))) if symmetrize else [tuple(range(K))]
    logs = []
    for p in perms:
        p = list(p)
        kern = (alpha - 1.0 + keep_nc) @ log_w[p] + np.einsum("grk,rk->g", alpha - 1.0 + keep_cells, log_t[:, p])
        logs.append(norm + kern)
    logs = np.concatenate(logs)
    log_post = float(logsumexp(logs) - np.log(logs.shape[0]))
    return loglik + lp - log_post, {"loglik": loglik, "log_prior": lp, "log_posterior": log_post,
                                     "switches": switches}


@dataclass
class BruteForceResult:
    """Every selective structure of :func:`brute_force_snb`.

    Attributes
    ----------
    masks : bool (S, n)
        ``masks[s, i]``: the arc ``C -> X_i`` is in structure ``s`` (S = 2^n, structure ``s`` has the bits of ``s``).
    log_evidence : float (S,)
        :math:`\\log p(D|S)` (natural log).
    posterior : float (S,)
        :math:`p(S|D)` with a uniform structure prior.
    theta : float (S, R, K)
        :math:`P(X_i = k | C = j)` of every structure (label-aligned to the most probable structure); rows per
        variable, variable ``i`` at ``offsets[i] .. offsets[i+1]-1``.
    weights : float (S, K)
        :math:`P(C)` of every structure (aligned).
    loglik : float (S,)
        :math:`\\log p(D|\\theta^*_S)`.
    offsets : int (n + 1,)
    arc_posterior : float (n,)
        :math:`P(C \\to X_i | D) = \\sum_S p(S|D) 1[C \\to X_i \\in S]`.
    switches : int (S,)
        Gibbs sweeps whose majority labelling changed, per structure.
    ll_traces : list of float arrays
        The log-likelihood trace of every structure's best EM start (the arc-free structure: its one value).
    n_iter : int (S,)
        EM iterations of every structure's best start.
    converged : bool (S,)
    """

    masks: np.ndarray
    log_evidence: np.ndarray
    posterior: np.ndarray
    theta: np.ndarray
    weights: np.ndarray
    loglik: np.ndarray
    offsets: np.ndarray
    arc_posterior: np.ndarray
    switches: np.ndarray
    ll_traces: list = field(default_factory=list)
    n_iter: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    converged: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    def tables(self, s: int) -> list[np.ndarray]:
        """Structure ``s``'s CPTs as a list of (r_i, K) arrays."""
        return [self.theta[s, self.offsets[i]:self.offsets[i + 1]] for i in range(len(self.offsets) - 1)]

    def log_joint(self, codes: np.ndarray) -> np.ndarray:
        """``log P_BF(x, c)`` of rows (codes (N, n), -1 = missing): the structure-posterior mixture of joints, (N, K).
        A missing cell is summed out exactly (in every naive Bayes its factor sums to 1)."""
        codes = np.asarray(codes)
        logt = np.log(self.theta)                                         # (S, R, K)
        logt = np.concatenate([logt, np.zeros((logt.shape[0], 1, logt.shape[2]))], axis=1)  # row R: log 1
        with np.errstate(divide="ignore"):
            lw = np.log(self.posterior)[:, None, None] + np.log(self.weights)[:, None, :]
        out = np.empty((codes.shape[0], self.weights.shape[1]))
        step = max(1, 2 ** 22 // max(1, self.theta.shape[0] * codes.shape[1]))   # bounded memory
        for a in range(0, codes.shape[0], step):
            block = codes[a:a + step]
            idx = np.where(block >= 0, self.offsets[:-1][None, :] + block, self.theta.shape[1])  # (B, n) rows
            per_s = lw + logt[:, idx, :].sum(axis=2)                          # (S, B, K)
            out[a:a + step] = logsumexp(per_s, axis=0)
        return out


def _structure_fit(s, child, *, data, masks, n_clusters, alpha, n_init, n_burn, n_gibbs, tol, max_iter, log_ml_ind):
    """EM (best of ``n_init``) and the Candidate log evidence of structure ``s`` (its own child generator)."""
    K = n_clusters
    mask = masks[s]
    offsets = np.concatenate([[0], np.cumsum(data.cards)]).astype(np.int64)
    if not mask.any():
        # arc-free: the exact evidence, and the posterior-mean parameters (uniform P(C): no data on C)
        theta = np.zeros((offsets[-1], K))
        for i in range(len(data.cards)):
            n_k = np.bincount(data.codes[:, i], weights=data.weights, minlength=int(data.cards[i]))
            theta[offsets[i]:offsets[i + 1]] = ((n_k + alpha) / (n_k.sum() + data.cards[i] * alpha))[:, None]
        w = np.full(K, 1.0 / K)
        resp = np.broadcast_to(w, (data.codes.shape[0], K)).copy()
        ll = float(np.sum(data.weights * np.log(theta[offsets[:-1][None, :] + data.codes, 0]).sum(axis=1)))
        return float(log_ml_ind.sum()), theta, w, ll, resp, 0, np.asarray([ll]), 0, True
    em_rng, gibbs_rng = child.spawn(2)
    starts = run_starts(partial(latent_class_single_start, data, K, method="em", alpha=alpha, tol=tol,
                                criterion="objective", max_iter=max_iter, fixed_independent=~mask), n_init, em_rng)
    best = combine_starts(data, starts, "best")
    cols = np.flatnonzero(mask)
    tabs = [best.theta[offsets[i]:offsets[i + 1]] for i in cols]
    log_ev, info = candidate_log_evidence(data.codes, data.weights, cols, best.weights, tabs, gibbs_rng,
                                          alpha=alpha, n_burn=n_burn, n_samples=n_gibbs)
    log_ev += float(log_ml_ind[~mask].sum())
    return (log_ev, best.theta, best.weights, best.loglik, best.resp, info["switches"], best.ll_trace, best.n_iter,
            best.converged)


def brute_force_snb(codes, cards, n_clusters: int = 2, *, random_state=None, n_init: int = 30, alpha: float = 1.0,
                    n_burn: int = 1000, n_gibbs: int = 5000, tol: float | None = 1e-6, max_iter: int = 1000,
                    n_jobs: int | None = None, show_progress: bool = False) -> BruteForceResult:
    """Fit every selective naive Bayes and weight it by its Candidate-method marginal likelihood (module docstring).

    Parameters
    ----------
    codes : int array (N, n)
        Complete codes, ``n <= 14`` (the thesis uses n <= 12).
    cards : int array (n,)
    n_clusters : int, default 2
    random_state : None, int or Generator
        Structure ``s`` uses the ``s``-th spawned child (EM starts, then the Gibbs chain), so the result does not
        depend on ``n_jobs``.
    n_init : int, default 30
        EM starts per structure (best log-likelihood kept; the thesis's m = 30).
    alpha : float, default 1.0
    n_burn, n_gibbs : int, default 1000, 5000
        Gibbs sweeps (decision 12).
    tol, max_iter
        EM's stopping rule: the log-likelihood changes by at most ``tol * |LL|`` (None: ``max_iter`` iterations).
    n_jobs : int, optional
        Structures in parallel (joblib processes; :func:`pgmpy_ext.utils.run_starts`).
    show_progress : bool, default False
    """
    codes = np.asarray(codes)
    cards = np.asarray(cards, dtype=np.int64)
    n = codes.shape[1]
    if n > MAX_BRUTE_FORCE_VARS:
        raise ValueError(f"brute force enumerates 2**n structures; n == {n} is above {MAX_BRUTE_FORCE_VARS}.")
    if (codes < 0).any():
        raise ValueError("brute_force_snb needs complete data (no -1 codes).")
    data = latent_class_data(codes, cards)
    log_ml_ind = log_ml_independent(data.codes, data.weights, data.cards, alpha)
    S = 2 ** n
    masks = ((np.arange(S)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    results = run_starts(partial(_structure_fit, data=data, masks=masks, n_clusters=int(n_clusters), alpha=alpha,
                                 n_init=int(n_init), n_burn=int(n_burn), n_gibbs=int(n_gibbs), tol=tol,
                                 max_iter=int(max_iter), log_ml_ind=log_ml_ind),
                         S, random_state, n_jobs=n_jobs, indexed=True, show_progress=show_progress, desc="structures")
    log_ev = np.array([r[0] for r in results])
    post = np.exp(log_ev - logsumexp(log_ev))
    ref = int(np.argmax(log_ev))

    class _S:  # the minimal interface align_starts reads
        def __init__(self, resp):
            self.resp = resp

    perms = align_starts([_S(r[4]) for r in results], _S(results[ref][4]), data.weights)
    theta = np.stack([r[1][:, p] for r, p in zip(results, perms, strict=True)])
    weights = np.stack([r[2][p] for r, p in zip(results, perms, strict=True)])
    offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
    return BruteForceResult(masks, log_ev, post, theta, weights, np.array([r[3] for r in results]), offsets,
                            post @ masks.astype(np.float64), np.array([r[5] for r in results]),
                            [r[6] for r in results], np.array([r[7] for r in results]),
                            np.array([r[8] for r in results], dtype=bool))


@fill_doc
class BruteForceSNBAveraging(BaseBNMixture):
    """Bayesian model average over all 2^n selective naive Bayes structures (Santafé 2007, section 7.5.1).

    The brute-force reference of Figs 7.2/7.3; see :func:`brute_force_snb` for the algorithm. Exponential in the
    number of features (``n <= 14``; the thesis uses up to 12 binary features, N = 300).

    Parameters
    ----------
    n_clusters : int, default 2
    n_init : int, default 30
        EM starts per structure (the thesis's m = 30).
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``); must be > 0.
    n_burn, n_gibbs : int, default 1000, 5000
        Gibbs sweeps of the Candidate method (the thesis gives none; see ``docs/decisions/seed001-ema-popgen.md``).
    tol : float, default 1e-6
        EM's stopping threshold: the observed-data log-likelihood changes by at most ``tol * |LL|`` between
        iterations (relative change).
    max_iter : int, default 1000
    random_state : None, int or Generator
    n_jobs : int, optional
        Structures in parallel; the result does not depend on it.
    show_progress : bool, default False
    %(handle_unknown)s
    %(missing_fit_complete)s

    Attributes
    ----------
    result_ : BruteForceResult
        Every structure's parameters, marginal likelihood and posterior.
    arc_posterior_ : ndarray (n_features,)
        :math:`P(C \\to X_i | D)`.
    structure_posterior_ : ndarray (2^n,)
    weights_ : ndarray (n_clusters,)
        Posterior-weighted P(C).
    labels_ : ndarray (n_samples,)
        MAP cluster of every training row under the mixture of joints.
    log_likelihood_ : float
        Observed-data log-likelihood of the training rows under the mixture of joints (natural log).
    ll_trace_ : ndarray
        Log-likelihood trace of the best EM start of the most probable structure.
    n_iter_ : int
        EM iterations of that start.
    converged_ : bool
        Whether the best EM start of every structure met ``tol``.
    model_ : DiscreteBayesianNetwork
        The posterior-weighted *parameter* average as one naive Bayes with a latent cluster node, for export
        (predictions use the exact mixture of joints, which is not a single naive Bayes).

    Examples
    --------
    >>> from pgmpy_ext.datasets import make_random_selective_nb
    >>> X, y, _ = make_random_selective_nb(60, 3, 2, states=2, random_state=0)
    >>> bf = BruteForceSNBAveraging(n_init=2, n_burn=20, n_gibbs=50, random_state=0).fit(X)
    >>> bf.structure_posterior_.shape, round(float(bf.structure_posterior_.sum()), 6)
    ((8,), 1.0)
    """

    _parameter_constraints = {**BaseBNMixture._parameter_constraints,
                              "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
                              "n_burn": [Interval(numbers.Integral, 0, None)],
                              "n_gibbs": [Interval(numbers.Integral, 1, None)],
                              "max_iter": [Interval(numbers.Integral, 1, None)]}

    def __init__(self, *, n_clusters: int = 2, n_init: int = 30, alpha: float = 1.0, n_burn: int = 1000,
                 n_gibbs: int = 5000, tol: float = 1e-6, max_iter: int = 1000, random_state=None, n_jobs=None,
                 show_progress: bool = False, handle_unknown: str = "ignore", missing: str = "available_case"):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.alpha = alpha
        self.n_burn = n_burn
        self.n_gibbs = n_gibbs
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    def fit(self, X, y=None):
        """Fit every selective structure on the rows of ``X`` (complete discrete data) and average them."""
        self._check_params()
        frame = self._fit_frame(X)
        self._check_no_missing(frame)
        from pgmpy_ext.data import encode

        self.encoder_ = encode(frame)
        codes = self.encoder_.codes
        if len(np.unique(codes, axis=0)) < self.n_clusters:
            raise ValueError(f"n_clusters == {self.n_clusters} is above the {len(np.unique(codes, axis=0))} "
                             "distinct rows of X.")
        res = brute_force_snb(codes, self.encoder_.cards, self.n_clusters, random_state=self.random_state,
                              n_init=self.n_init, alpha=float(self.alpha), n_burn=self.n_burn, n_gibbs=self.n_gibbs,
                              tol=self.tol, max_iter=self.max_iter, n_jobs=self.n_jobs,
                              show_progress=self.show_progress)
        self.result_ = res
        self.arc_posterior_ = res.arc_posterior
        self.structure_posterior_ = res.posterior
        self.weights_ = res.posterior @ res.weights
        joint = res.log_joint(codes)
        self.labels_ = np.argmax(joint, axis=1).astype(np.intp)
        self.log_likelihood_ = float(logsumexp(joint, axis=1).sum())
        best = int(np.argmax(res.posterior))
        self.ll_trace_ = np.asarray(res.ll_traces[best], dtype=np.float64)
        self.n_iter_ = int(res.n_iter[best])
        self.converged_ = bool(res.converged.all())
        self._name_cluster_node()
        self._build_models()
        return self

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        return self.result_.log_joint(codes)

    def _build_models(self) -> None:
        res = self.result_
        theta = np.tensordot(res.posterior, res.theta, axes=1)
        states = self._cluster_states()
        c = self.cluster_node_
        cols = list(self.encoder_.columns)
        net = DiscreteBayesianNetwork([(c, v) for v in cols], latents={c})
        cpds = [TabularCPD(c, len(self.weights_), self.weights_.reshape(-1, 1), state_names={c: states[c]})]
        for i, v in enumerate(cols):
            t = theta[res.offsets[i]:res.offsets[i + 1]]
            cpds.append(TabularCPD(v, t.shape[0], t, evidence=[c], evidence_card=[t.shape[1]],
                                   state_names={v: states[v], c: states[c]}))
        net.add_cpds(*cpds)
        self.model_ = net
