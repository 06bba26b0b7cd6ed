"""Numpy references for the TM kernels and independent implementations of the thesis's moment-space TM updates
(seed 001 sections 5.5.1, 5.5.2 and 5.5.4), used as test oracles for the count-space engine."""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

THESIS_GRID = np.arange(1, 100) / 100.0


# ---------------------------------------------------------------------------------------------- kernel references
def ref_log_theta(counts, blk_offsets, blk_r, blk_q, K):
    counts = np.asarray(counts, dtype=np.float64)
    if (counts < 0).any() or np.isnan(counts).any() or counts[:K].sum() <= 0:
        return None
    out = np.empty_like(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[:K] = np.log(counts[:K]) - np.log(counts[:K].sum())
        for b in range(1, len(blk_r)):
            t = counts[blk_offsets[b]:blk_offsets[b + 1]].reshape(blk_r[b], blk_q[b], K)
            m = t.sum(axis=0, keepdims=True)
            lt = np.where((t > 0) & (m > 0), np.log(np.where(t > 0, t, 1.0)) - np.log(np.where(m > 0, m, 1.0)),
                          -np.inf)
            lt = np.where(m > 0, lt, -np.log(blk_r[b]))  # a slice without counts: uniform column
            out[blk_offsets[b]:blk_offsets[b + 1]] = lt.reshape(-1)
    return out


def ref_cll(idx, W, log_theta):
    """(cll, expected, resp) of the unique rows (numpy reference of ``_tm.tm_cll``)."""
    n, F = idx.shape
    K = W.shape[1]
    s = np.zeros((n, K))
    for b in range(F):
        s += log_theta[idx[:, b][:, None] + np.arange(K)]
    lse = logsumexp(s, axis=1)
    zero = ~np.isfinite(lse)
    with np.errstate(invalid="ignore"):
        resp = np.exp(s - lse[:, None])
    resp[zero] = np.nan
    with np.errstate(invalid="ignore"):
        terms = np.where(W > 0, W * (s - lse[:, None]), 0.0)
    terms[zero] = np.where(W[zero] > 0, -np.inf, 0.0)
    cll = terms.sum()
    e = np.zeros(log_theta.shape[0])
    tot = W.sum(axis=1)
    for b in range(F):
        pos = idx[~zero, b][:, None] + np.arange(K)
        np.add.at(e, pos.reshape(-1), (tot[~zero, None] * resp[~zero]).reshape(-1))
    return cll, e, resp


# ---------------------------------------------------------------------------------------------- generic moment TM
def moment_tm(u0, theta_of, estats_of, n_iter):
    """The thesis's TM in moment coordinates (Eq. 5.18-5.19, Fig. 5.1) with the 0.01 grid line search.

    ``theta_of(u) -> logjoint (n, K) or None`` (None when the parameters are illegal); ``estats_of(resp) -> E[U|x]``.
    Returns the list of statistics u^(0), u^(1), ... (one per iteration) and the CLL trace."""
    y_onehot = None

    def cll_of(u):
        lj = theta_of(u)
        if lj is None:
            return -np.inf, None
        lse = logsumexp(lj, axis=1)
        with np.errstate(invalid="ignore"):
            val = np.where(y_onehot > 0, lj - lse[:, None], 0.0).sum()
        if not np.isfinite(val):
            return -np.inf, None
        return val, np.exp(lj - lse[:, None])

    def run(y):
        nonlocal y_onehot
        y_onehot = y
        u = u0.copy()
        cll, resp = cll_of(u)
        us, trace = [u.copy()], [cll]
        for _ in range(n_iter):
            d = u0 - estats_of(resp)
            c1, r1 = cll_of(u + d)
            lam = 1.0
            if not c1 >= cll:
                best, lam = cll, None
                for g in THESIS_GRID:
                    cg, _ = cll_of(u + g * d)
                    if cg > best:
                        best, lam = cg, g
                if lam is None:
                    break
                c1, r1 = cll_of(u + lam * d)
            u = u + lam * d
            cll, resp = c1, r1
            us.append(u.copy())
            trace.append(cll)
        return us, trace

    return run


def _safe_log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def nb_binary(X, y, n_iter):
    """Thesis NB with binary variables (Eq. 5.25-5.37): u = (N_0, N_01..N_0n), v = (N_1..N_n)."""
    X = np.asarray(X)
    y = np.asarray(y)
    N, n = X.shape
    v = X.sum(axis=0).astype(float)
    u0 = np.concatenate([[float((y == 1).sum())], (X[y == 1] == 1).sum(axis=0).astype(float)])

    def theta_of(u):
        N0, N0i = u[0], u[1:]
        p1 = N0 / N
        a = N0i / N0 if N0 > 0 else np.full(n, np.nan)       # p(X_i = 1 | C = 1)
        b = (v - N0i) / (N - N0) if N > N0 else np.full(n, np.nan)  # p(X_i = 1 | C = 0)
        if not (0 < p1 < 1) or np.any((a < 0) | (a > 1) | (b < 0) | (b > 1)) or np.isnan(a).any() or np.isnan(b).any():
            return None
        lj = np.zeros((N, 2))
        lj[:, 1] = _safe_log(p1) + np.sum(np.where(X == 1, _safe_log(a), _safe_log(1 - a)), axis=1)
        lj[:, 0] = _safe_log(1 - p1) + np.sum(np.where(X == 1, _safe_log(b), _safe_log(1 - b)), axis=1)
        return lj

    def estats_of(resp):
        p = resp[:, 1]
        return np.concatenate([[p.sum()], (p[:, None] * X).sum(axis=0)])

    us, trace = moment_tm(u0, theta_of, estats_of, n_iter)(np.eye(2)[y])
    return us, trace, v


def fan_binary(X, y, parent, n_iter):
    """Thesis FAN with binary variables (Eq. 5.38-5.40): ``parent[i]`` is X_i's feature parent or -1.

    u = (N_0; N_0i for all i; N_0ij for i with a parent), v = (N_i; N_ij)."""
    X = np.asarray(X)
    y = np.asarray(y)
    N, n = X.shape
    kids = [i for i in range(n) if parent[i] >= 0]
    Nij = np.array([float(((X[:, i] == 1) & (X[:, parent[i]] == 1)).sum()) for i in kids])
    Ni = X.sum(axis=0).astype(float)
    c1 = y == 1
    u0 = np.concatenate([[float(c1.sum())], (X[c1] == 1).sum(axis=0).astype(float),
                         [float(((X[c1, i] == 1) & (X[c1, parent[i]] == 1)).sum()) for i in kids]])

    def theta_of(u):
        N0, N0i, N0ij = u[0], u[1:1 + n], dict(zip(kids, u[1 + n:]))
        vij = dict(zip(kids, Nij))
        p1 = N0 / N
        if not 0 < p1 < 1:
            return None
        lj = np.zeros((N, 2))
        lj[:, 1] = np.log(p1)
        lj[:, 0] = np.log(1 - p1)
        for i in range(n):
            xi = X[:, i] == 1
            if parent[i] < 0:
                pr = {1: N0i[i] / N0, 0: (Ni[i] - N0i[i]) / (N - N0)}
                for c in (0, 1):
                    p = pr[c]
                    if not 0 <= p <= 1:
                        return None
                    lj[:, c] += np.where(xi, _safe_log(p), _safe_log(1 - p))
                continue
            j = parent[i]
            xj = X[:, j] == 1
            nums = {(1, 1): (N0ij[i], N0i[j]),  # p(X_i=1 | X_j=1, C=1) = N0ij / N0j
                    (1, 0): (vij[i] - N0ij[i], Ni[j] - N0i[j]),  # p(X_i=1 | X_j=1, C=0)
                    (0, 1): (N0i[i] - N0ij[i], N0 - N0i[j]),  # p(X_i=1 | X_j=0, C=1)
                    (0, 0): (Ni[i] - vij[i] - N0i[i] + N0ij[i], N - Ni[j] - N0 + N0i[j])}
            for (xjv, c), (num, den) in nums.items():
                rows = xj if xjv == 1 else ~xj
                if den < 0 or num < 0 or num > den:
                    return None
                p = num / den if den > 0 else 0.5  # no counts: uniform (pgmpy's ML convention)
                val = np.where(xi, _safe_log(p), _safe_log(1 - p))
                lj[rows, c] += val[rows]
        return lj

    def estats_of(resp):
        p = resp[:, 1]
        return np.concatenate([[p.sum()], (p[:, None] * X).sum(axis=0),
                               [float((p * X[:, i] * X[:, parent[i]]).sum()) for i in kids]])

    us, trace = moment_tm(u0, theta_of, estats_of, n_iter)(np.eye(2)[y])
    return us, trace


def nb_multinomial(X, y, cards, K, n_iter):
    """Thesis NB with multinomial variables through power moments and Vandermonde solves (Eq. 5.47-5.51), for small
    cardinalities only (the matrices are ill-conditioned beyond r = 4; spec 5.5.4)."""
    X = np.asarray(X)
    y = np.asarray(y)
    N, n = X.shape
    s_c = np.arange(1, K)  # powers of the class, s = 1..K-1
    Vc = np.array([[v ** s for v in range(1, K)] for s in s_c], dtype=float)  # [v^s]

    def pows(x, r):
        return np.stack([x.astype(float) ** m for m in range(1, r)], axis=1)  # (N, r-1)

    Pc = pows(y, K)  # (N, K-1)
    Px = [pows(X[:, i], cards[i]) for i in range(n)]
    V = [Px[i].sum(axis=0) for i in range(n)]  # M_{x_i}^m
    Vx = [np.array([[v ** m for v in range(1, cards[i])] for m in range(1, cards[i])], dtype=float)
          for i in range(n)]
    Ni = [np.concatenate([[0.0], np.linalg.solve(Vx[i], V[i])]) for i in range(n)]
    for i in range(n):
        Ni[i][0] = N - Ni[i][1:].sum()

    def unpack(u):
        M0 = u[:K - 1]
        off = K - 1
        M = []
        for i in range(n):
            size = (K - 1) * (cards[i] - 1)
            M.append(u[off:off + size].reshape(K - 1, cards[i] - 1))
            off += size
        return M0, M

    u0 = np.concatenate([Pc.sum(axis=0)] + [(Pc.T @ Px[i]).reshape(-1) for i in range(n)])

    def counts_of(u):
        M0, M = unpack(u)
        Nc = np.concatenate([[0.0], np.linalg.solve(Vc, M0)])
        Nc[0] = N - Nc[1:].sum()
        tabs = []
        for i in range(n):
            r = cards[i]
            big = np.kron(Vc, Vx[i])  # (V_0 kron V_i) vec(N^{cl}) = vec(M^{sm})
            inner = np.linalg.solve(big, M[i].reshape(-1)).reshape(K - 1, r - 1)
            t = np.zeros((K, r))
            t[1:, 1:] = inner
            t[1:, 0] = Nc[1:] - inner.sum(axis=1)
            t[0, 1:] = Ni[i][1:] - inner.sum(axis=0)
            t[0, 0] = N - t[1:, :].sum() - t[0, 1:].sum()
            tabs.append(t)
        return Nc, tabs

    def theta_of(u):
        Nc, tabs = counts_of(u)
        if (Nc <= 0).any() or any((t < -1e-9).any() for t in tabs):
            return None
        lj = np.tile(np.log(Nc / N), (N, 1))
        for i in range(n):
            t = np.clip(tabs[i], 0.0, None)
            th = t / t.sum(axis=1, keepdims=True)
            lj += _safe_log(th[:, X[:, i]].T)
        return lj

    def estats_of(resp):
        cp = np.stack([(resp * (np.arange(K, dtype=float) ** s)).sum(axis=1) for s in s_c], axis=1)  # E[c^s | x_d]
        return np.concatenate([cp.sum(axis=0)] + [(cp.T @ Px[i]).reshape(-1) for i in range(n)])

    us, trace = moment_tm(u0, theta_of, estats_of, n_iter)(np.eye(K)[y])
    return [counts_of(u) for u in us], trace


def moment_space_tm(X, y, cards, K, parents, n_iter):
    """The thesis's TM in power-moment coordinates for any NB/FAN/BAN-like structure over multinomial variables
    (spec 5.5.4-5.5.5, generalised): the class-dependent statistics are ``M_A[e] = sum_d prod_{v in A} x_v^{e_v}``
    (powers ``e_v = 1..r_v-1``, the class is variable ``"c"``) for every subset ``A`` of a family that contains the
    class; the class-free ones never change. Counts are recovered by Kronecker-Vandermonde solves (the all-nonzero
    cells of every subset) and inclusion-exclusion (cells with zeros). Small cardinalities only (r <= 4).

    ``parents[i]`` lists the feature parents of feature ``i`` (besides the class). Returns (counts per iteration:
    ``[(N_c, {i: table over (c, x_i, *parents[i])})]``, CLL trace)."""
    from itertools import combinations

    X = np.asarray(X)
    y = np.asarray(y)
    N, n = X.shape
    col = {("x", i): X[:, i] for i in range(n)}
    col["c"] = y
    card = {("x", i): cards[i] for i in range(n)}
    card["c"] = K
    fams = {i: ("c", ("x", i), *(("x", j) for j in parents[i])) for i in range(n)}
    subsets = set()
    for fam in fams.values():
        for k in range(1, len(fam) + 1):
            subsets.update(frozenset(a) for a in combinations(fam, k))
    order = {"c": -1, **{("x", i): i for i in range(n)}}

    def key(a):
        return tuple(sorted(a, key=lambda v: order[v]))

    subsets = [key(a) for a in subsets]
    vander = {v: np.array([[val ** e for val in range(1, card[v])] for e in range(1, card[v])], dtype=float)
              for v in card}
    pw = {v: np.stack([col[v].astype(float) ** e for e in range(1, card[v])], axis=1) for v in card}

    def moments(a, weights=None):
        """M_A as a flat vector (C-order over the power axes) for data rows (optionally weighted per class)."""
        if weights is None:
            prod = np.ones((N, 1))
            for v in a:
                prod = (prod[:, :, None] * pw[v][:, None, :]).reshape(N, -1)
            return prod.sum(axis=0)
        # weights: resp (N, K); the class column is integrated out: E[c^e | x] = sum_c resp c^e
        cp = np.stack([(weights * np.arange(K, dtype=float) ** e).sum(axis=1) for e in range(1, K)], axis=1)
        prod = np.ones((N, 1))
        for v in a:
            f = cp if v == "c" else pw[v]
            prod = (prod[:, :, None] * f[:, None, :]).reshape(N, -1)
        return prod.sum(axis=0)

    u_keys = [a for a in subsets if "c" in a]
    v_stats = {a: moments(a) for a in subsets if "c" not in a}
    u0 = np.concatenate([moments(a) for a in u_keys])
    sizes = [int(np.prod([card[v] - 1 for v in a])) for a in u_keys]

    def split(u):
        out, off = dict(v_stats), 0
        for a, s in zip(u_keys, sizes):
            out[a] = u[off:off + s]
            off += s
        return out

    def nonzero_tables(stats):
        out = {}
        for a, m in stats.items():
            big = np.ones((1, 1))
            for v in a:
                big = np.kron(big, vander[v])
            out[a] = np.linalg.solve(big, m).reshape([card[v] - 1 for v in a])
        return out

    def family_counts(fam, nz):
        """Full count table over ``fam`` by inclusion-exclusion from the all-nonzero tables of its subsets."""
        shape = [card[v] for v in fam]
        table = np.zeros(shape)
        for idx in np.ndindex(*shape):
            zero = [k for k, val in enumerate(idx) if val == 0]
            fixed = [k for k, val in enumerate(idx) if val != 0]
            total = 0.0
            for size in range(len(zero) + 1):
                for b in combinations(zero, size):
                    members = sorted(fixed + list(b))
                    if not members:
                        total += (-1) ** size * N
                        continue
                    a = key(fam[k] for k in members)
                    t = nz[a]
                    # axes of t follow key order; fixed members pick their value - 1, the others are summed
                    sel = []
                    for v in a:
                        k = fam.index(v)
                        sel.append(idx[k] - 1 if k in fixed else slice(None))
                    total += (-1) ** size * float(np.sum(t[tuple(sel)]))
            table[idx] = total
        return table

    def counts_of(u):
        nz = nonzero_tables(split(u))
        Nc = family_counts(("c",), nz)
        tabs = {i: family_counts(fam, nz) for i, fam in fams.items()}
        return Nc, tabs

    def theta_of(u):
        Nc, tabs = counts_of(u)
        if (Nc <= 0).any() or any((t < -1e-7).any() for t in tabs.values()):
            return None
        lj = np.tile(np.log(Nc / N), (N, 1))
        for i, fam in fams.items():
            t = np.clip(tabs[i], 0.0, None)  # axes (c, x_i, *parents)
            tot = t.sum(axis=1, keepdims=True)
            th = np.where(tot > 0, t / np.where(tot > 0, tot, 1.0), 1.0 / card[fam[1]])
            for c in range(K):
                idx = (np.full(N, c), X[:, i], *(X[:, j] for j in parents[i]))
                lj[:, c] += _safe_log(th[idx])
        return lj

    def estats_of(resp):
        return np.concatenate([moments(a, resp) for a in u_keys])

    us, trace = moment_tm(u0, theta_of, estats_of, n_iter)(np.eye(K)[y])
    return [counts_of(u) for u in us], trace


def normalise_log_linear(tmd, beta: np.ndarray, plan, out: np.ndarray) -> np.ndarray:
    """Normalised log-parameters with the same ``p(c | x)`` as the log-linear weights ``beta`` (see
    ``pgmpy_ext.parameters._tm_solvers.host_plan``); slices that are entirely ``-inf`` get a uniform column. numpy
    reference of the kernel ``_tm.tm_normalise_log_linear``."""
    out[...] = beta
    for b, h, axes in plan:
        blk = tmd.block(out, b)
        with np.errstate(invalid="ignore", divide="ignore"):
            a = logsumexp(blk, axis=0)  # (*pa, K)
        empty = ~np.isfinite(a)
        a = np.where(empty, 0.0, a)
        blk -= a
        if empty.any():
            blk[:, empty] = -np.log(blk.shape[0])
        if h == 0:
            tmd.block(out, 0)[...] += a
        else:
            perm, expand = axes
            tmd.block(out, h)[...] += np.expand_dims(a.transpose(perm), tuple(expand))
    prior = tmd.block(out, 0)
    prior -= logsumexp(prior)
    return out
