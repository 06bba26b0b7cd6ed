"""Plain numpy/Python references for the EMA-TAN kernels and MA step (slow loops, small inputs only).

Tables are read out of the flat buffers with the layout documented in ``cython_core/_ematan.pyx`` (nothing else of
the implementation is used): option tables per variable ``i`` as a list ``[(has_c, lp, table)]`` with shapes
``{}``: (r_i,), ``{X_l}``: (r_l, r_i), ``{C}``: (r_i, K), ``{C, X_l}``: (r_l, r_i, K).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import gammaln


def offsets(cards):
    n = len(cards)
    single = np.concatenate([[0], np.cumsum(cards)]).astype(int)
    sizes = [cards[lp] * cards[i] for i in range(n) for lp in range(i)]
    pair = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return single, pair


def option_tables(cards, K, single_ind, pair_ind, single_dep, pair_dep):
    """``[[(has_c, l, table)] per variable]`` in option storage order."""
    so, po = offsets(cards)
    out = []
    for i, ri in enumerate(cards):
        ind, dep = [(False, -1, single_ind[so[i]:so[i + 1]])], [(True, -1, single_dep[so[i] * K:so[i + 1] * K]
                                                                 .reshape(ri, K))]
        for lp in range(i):
            p = i * (i - 1) // 2 + lp
            ind.append((False, lp, pair_ind[po[p]:po[p + 1]].reshape(cards[lp], ri)))
            dep.append((True, lp, pair_dep[po[p] * K:po[p + 1] * K].reshape(cards[lp], ri, K)))
        out.append(ind + dep)
    return out


def option_value(has_c, lp, table, x, i, c):
    if not has_c:
        return table[x[i]] if lp < 0 else table[x[lp], x[i]]
    return table[x[i], c] if lp < 0 else table[x[lp], x[i], c]


def log_joint(cards, K, theta_c, weights, tables, X):
    """``log p(x_d, C = c)`` by explicit loops."""
    X = np.asarray(X)
    out = np.zeros((X.shape[0], K))
    off = [i * (i + 1) for i in range(len(cards) + 1)]
    for d, x in enumerate(X):
        for c in range(K):
            s = math.log(theta_c[c])
            for i in range(len(cards)):
                w = weights[off[i]:off[i + 1]]
                s += math.log(sum(w[v] * option_value(h, lp, t, x, i, c) for v, (h, lp, t) in enumerate(tables[i])))
            out[d, c] = s
    return out


def expected_counts(cards, K, X, w, resp):
    """``({i: (r_i, K)}, {(i, l): (r_l, r_i, K)}, (K,))`` expected counts of the options with C."""
    single = {i: np.zeros((r, K)) for i, r in enumerate(cards)}
    pair = {(i, lp): np.zeros((cards[lp], cards[i], K)) for i in range(len(cards)) for lp in range(i)}
    nc = np.zeros(K)
    for x, wd, q in zip(np.asarray(X), w, resp):
        nc += wd * q
        for i in range(len(cards)):
            single[i][x[i]] += wd * q
            for lp in range(i):
                pair[(i, lp)][x[lp], x[i]] += wd * q
    return single, pair, nc


def flatten_counts(cards, K, single, pair):
    return (np.concatenate([single[i].ravel() for i in range(len(cards))]),
            np.concatenate([pair[(i, lp)].ravel() for i in range(len(cards)) for lp in range(i)] or [np.zeros(0)]))


def log_ml(counts_by_config, alpha):
    """BD log marginal likelihood (eq. 2.17) of a table whose LAST axis is the child: one configuration per row."""
    t = np.asarray(counts_by_config, dtype=float)
    t = t.reshape(-1, t.shape[-1])
    r = t.shape[1]
    s = 0.0
    for row in t:
        s += gammaln(r * alpha) - gammaln(r * alpha + row.sum())
        s += sum(gammaln(alpha + v) - gammaln(alpha) for v in row)
    return s


def brute_force_average(cards, K, X, w, resp, alpha):
    """The explicit average over all 2^n n! structures of the class: returns (n_structures, joint over every
    (c, x) configuration as an array of shape (K, *cards), option posteriors per variable)."""
    X = np.asarray(X)
    n = len(cards)
    N = float(np.sum(w))
    single_c, pair_c, nc = expected_counts(cards, K, X, w, resp)
    plain_s, plain_p, _ = expected_counts(cards, 1, X, w, np.ones((X.shape[0], 1)))
    theta_c = (nc + alpha) / (N + K * alpha)
    # every option of every variable: (log ML, function (c, x) -> theta~)
    opts = []
    for i in range(n):
        mine = []
        # {}
        t = plain_s[i][:, 0]
        mine.append((log_ml(t[None, :], alpha), ("ind", -1, (t + alpha) / (t.sum() + cards[i] * alpha))))
        for lp in range(i):
            t = plain_p[(i, lp)][:, :, 0]  # (r_l, r_i)
            mine.append((log_ml(t, alpha), ("ind", lp, (t + alpha) / (t.sum(1, keepdims=True) + cards[i] * alpha))))
        t = single_c[i].T  # (K, r_i)
        mine.append((log_ml(t, alpha), ("dep", -1, (t + alpha) / (t.sum(1, keepdims=True) + cards[i] * alpha))))
        for lp in range(i):
            t = pair_c[(i, lp)].transpose(0, 2, 1)  # (r_l, K, r_i)
            mine.append((log_ml(t, alpha), ("dep", lp, (t + alpha) / (t.sum(2, keepdims=True) + cards[i] * alpha))))
        opts.append(mine)
    structures = list(itertools.product(*[range(len(o)) for o in opts]))
    log_post = np.array([sum(opts[i][v][0] for i, v in enumerate(S)) for S in structures])
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    joint = np.zeros((K, *cards))
    for (S, pS) in zip(structures, post):
        for cfg in itertools.product(range(K), *[range(r) for r in cards]):
            c, x = cfg[0], cfg[1:]
            p = theta_c[c]
            for i, v in enumerate(S):
                kind, lp, t = opts[i][v][1]
                if kind == "ind":
                    p *= t[x[i]] if lp < 0 else t[x[lp], x[i]]
                else:
                    p *= t[c, x[i]] if lp < 0 else t[x[lp], c, x[i]]
            joint[cfg] += pS * p
    option_post = [np.array([sum(p for S, p in zip(structures, post) if S[i] == v) for v in range(len(opts[i]))])
                   for i in range(n)]
    return len(structures), joint, option_post


def ema_nb_step(cards, K, X, w, theta_c, theta, alpha):
    """One iteration of EMA for naive Bayes (spec 4.6 pseudo-code): E step under (theta_c, theta[i] (K, r_i)),
    then the closed-form MA step. Returns (loglik, theta_c, theta, arc weights)."""
    X = np.asarray(X)
    N = float(np.sum(w))
    L = np.log(theta_c)[None, :] + sum(np.log(theta[i][:, X[:, i]]).T for i in range(len(cards)))
    m = L.max(1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(L - m).sum(1))
    q = np.exp(L - lse[:, None])
    ll = float(np.sum(w * lse))
    NC = (w[:, None] * q).sum(0)
    new_theta, arcs = [], []
    for i, r in enumerate(cards):
        ndep = np.zeros((K, r))
        for k in range(r):
            ndep[:, k] = (w[:, None] * q)[X[:, i] == k].sum(0)
        nind = ndep.sum(0)
        dep = (ndep + alpha) / (NC[:, None] + r * alpha)
        ind = (nind + alpha) / (N + r * alpha)
        lml_dep = sum(gammaln(r * alpha) - gammaln(r * alpha + NC[j])
                      + np.sum(gammaln(alpha + ndep[j]) - gammaln(alpha)) for j in range(K))
        lml_ind = gammaln(r * alpha) - gammaln(r * alpha + N) + np.sum(gammaln(alpha + nind) - gammaln(alpha))
        wi = 1.0 / (1.0 + np.exp(lml_ind - lml_dep))
        new_theta.append(wi * dep + (1 - wi) * ind[None, :])
        arcs.append(wi)
    return ll, (NC + alpha) / (N + K * alpha), new_theta, np.array(arcs)
