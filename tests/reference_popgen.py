"""Numpy references for the population-genetics kernels and learners (issue 28).

* :func:`dosage_estep_ref` and :func:`dosage_loo_ref`: the dosage E step and the leave-one-out posterior-predictive
  term, written out per individual (the kernels in ``cython_core/_popgen.pyx`` must agree);
* :func:`admixture_em`: an ADMIXTURE-style fit (Alexander, Novembre & Lange 2009; the EM of Tang et al. 2005 /
  fastmixture's EM step, Santander et al. 2024) of the **admixture** model, ``P(allele 1 | d, i) = sum_k Q_dk F_ik``,
  with an SVD-free random start, SQUAREM acceleration (as fastmixture) and the same log-likelihood stopping rule.
  It is the reference the benchmark and the notebook compare ``PopulationEMA`` against.
"""

from __future__ import annotations

import numpy as np


def dosage_estep_ref(G, theta1, prior, ploidy, weights=None, impute=True):
    """``(loglik, A1 (M, K), A0 (M, K), cluster_counts (K,), resp (N, K))`` by the definition."""
    G = np.asarray(G, dtype=np.int64)
    n, M = G.shape
    K = len(prior)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    A1, A0, nc = np.zeros((M, K)), np.zeros((M, K)), np.zeros(K)
    resp = np.zeros((n, K))
    ll = 0.0
    for d in range(n):
        logj = np.log(prior).astype(float).copy()
        for i in range(M):
            g = G[d, i]
            if g >= 0:
                logj += g * np.log(theta1[i]) + (ploidy - g) * np.log1p(-theta1[i])
        mx = logj.max()
        lse = mx + np.log(np.exp(logj - mx).sum())
        q = np.exp(logj - lse)
        resp[d] = q
        ll += w[d] * lse
        nc += w[d] * q
        for i in range(M):
            g = G[d, i]
            if g >= 0:
                A1[i] += w[d] * q * g
                A0[i] += w[d] * q * (ploidy - g)
            elif impute:
                A1[i] += w[d] * q * ploidy * theta1[i]
                A0[i] += w[d] * q * ploidy * (1 - theta1[i])
    return ll, A1, A0, nc, resp


def dosage_loo_ref(G, A1, A0, q, ploidy):
    """Polya-urn predictive of each individual's ordered copies with its own expected copies removed: (N, K)."""
    G = np.asarray(G, dtype=np.int64)
    n, M = G.shape
    K = A1.shape[1]
    out = np.zeros((n, K))
    for d in range(n):
        for j in range(K):
            for i in range(M):
                g = G[d, i]
                if g < 0:
                    continue
                a = max(A1[i, j] - q[d, j] * g, 1e-12)
                b = max(A0[i, j] - q[d, j] * (ploidy - g), 1e-12)
                p = 1.0
                for t in range(g):
                    p *= (a + t) / (a + b + t)
                for t in range(ploidy - g):
                    p *= (b + t) / (a + b + g + t)
                out[d, j] += np.log(p)
    return out


# ------------------------------------------------------------------------------------------------ ADMIXTURE-style EM
_EPS = 1e-5


def _admixture_loglik(G, obs, Q, F, ploidy):
    H = np.clip(Q @ F.T, 1e-10, 1 - 1e-10)
    return float(np.sum(obs * (G * np.log(H) + (ploidy - G) * np.log1p(-H))))


def _admixture_step(G, obs, Q, F, ploidy):
    """One EM update of (Q, F) for the admixture model (fastmixture's ``emStep``, dense numpy)."""
    H = np.clip(Q @ F.T, 1e-10, 1 - 1e-10)                 # (N, M)
    a = obs * G / H                                        # copies of allele 1 over their probability
    b = obs * (ploidy - G) / (1 - H)
    Fa = F * (a.T @ Q)                                     # (M, K)
    Fb = (1 - F) * (b.T @ Q)
    Qn = Q * (a @ F + b @ (1 - F))                         # (N, K)
    Fn = np.clip(Fa / (Fa + Fb), _EPS, 1 - _EPS)
    Qn = Qn / np.maximum(obs.sum(axis=1, keepdims=True) * ploidy, 1)
    Qn = np.clip(Qn, _EPS, 1 - _EPS)
    return Qn / Qn.sum(axis=1, keepdims=True), Fn


def admixture_em(G, K, *, ploidy=2, random_state=None, tol=1e-7, max_iter=2000, init_q=None):
    """Admixture proportions ``Q`` (N, K) and ancestral frequencies ``F`` (M, K) by EM with SQUAREM.

    ``G`` holds dosages (copies of allele 1), negative = missing. Start: ``init_q`` if given, else Dirichlet(1) rows
    for ``Q`` and uniform(0.2, 0.8) frequencies (ADMIXTURE's random start). Stops when the log-likelihood changes
    by at most ``tol`` relative (checked after every accelerated cycle). Returns ``(Q, F, loglik, n_cycles)``.
    """
    rng = np.random.default_rng(random_state)
    G = np.asarray(G, dtype=np.float64)
    obs = (G >= 0).astype(np.float64)
    G = np.where(G >= 0, G, 0.0)
    n, M = G.shape
    Q = rng.dirichlet(np.ones(K), size=n) if init_q is None else np.clip(np.asarray(init_q, float), _EPS, 1)
    Q = Q / Q.sum(axis=1, keepdims=True)
    if init_q is None:
        F = rng.uniform(0.2, 0.8, size=(M, K))
    else:  # the frequencies those proportions imply
        F = np.clip(((G * obs).T @ Q) / (ploidy * obs.T @ Q + 1e-12), _EPS, 1 - _EPS)
    ll = _admixture_loglik(G, obs, Q, F, ploidy)
    it = 0
    for it in range(1, max_iter + 1):
        Q1, F1 = _admixture_step(G, obs, Q, F, ploidy)
        Q2, F2 = _admixture_step(G, obs, Q1, F1, ploidy)
        rQ, rF = Q1 - Q, F1 - F
        vQ, vF = Q2 - Q1 - rQ, F2 - F1 - rF
        nr = np.sqrt((rQ ** 2).sum() + (rF ** 2).sum())
        nv = np.sqrt((vQ ** 2).sum() + (vF ** 2).sum())
        alpha = -max(1.0, nr / nv) if nv > 0 else -1.0
        Qe = np.clip(Q - 2 * alpha * rQ + alpha ** 2 * vQ, _EPS, 1 - _EPS)
        Qe = Qe / Qe.sum(axis=1, keepdims=True)
        Fe = np.clip(F - 2 * alpha * rF + alpha ** 2 * vF, _EPS, 1 - _EPS)
        Q3, F3 = _admixture_step(G, obs, Qe, Fe, ploidy)
        ll3 = _admixture_loglik(G, obs, Q3, F3, ploidy)
        ll2 = _admixture_loglik(G, obs, Q2, F2, ploidy)
        if not np.isfinite(ll3) or ll3 < ll2:
            Q3, F3, ll3 = Q2, F2, ll2
        done = abs(ll3 - ll) <= tol * abs(ll3)
        Q, F, ll = Q3, F3, ll3
        if done:
            break
    return Q, F, ll, it
