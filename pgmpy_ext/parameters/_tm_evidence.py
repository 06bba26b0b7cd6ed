"""The prior strength of the TM's Gaussian prior by the evidence (MacKay) fixed point (issue 26).

For the log-linear coordinates of :class:`~pgmpy_ext.parameters._tm_solvers.LBFGSSolver` (NB, TAN, FAN, ...: every
block has a host) the conditional log-likelihood is ``sum_u n_u log softmax_c(sum_b beta[g_ub K + c])``: unique row
``u`` reads, for class ``c``, one cell ``g_ub K + c`` of every block ``b`` (``g`` = the cell's group without the
class, ``TMData.idx // K``). Its negative Hessian is

    H = sum_u n_u sum_{c, c'} S_u[c, c'] e_{g_u, c} e_{g_u, c'}^T,  S_u = diag(p_u) - p_u p_u^T

(``e_{g, c}`` the indicator of the cells ``g_ub K + c`` over the blocks), and with the prior of precision
``lambda Q`` (``Q`` = ``q_b`` per cell, 0 where a cell is unpenalised) the evidence of ``lambda`` is maximal where

    lambda = gamma / ((beta - beta_0)^T Q (beta - beta_0)),   gamma = sum_penalised (1 - lambda Q_jj (A^-1)_jj),
    A = H + lambda Q,

``gamma`` the number of parameters the data determine (MacKay 1992, "The evidence framework applied to
classification networks"; Bishop 2006, section 3.5.2 and 4.5). :func:`evidence_strength` iterates it with
warm-started refits.
"""

from __future__ import annotations

import time

import numpy as np

from pgmpy_ext.parameters._tm_solvers import _ONE_BLAS_THREAD, LBFGSSolver, Prior, SolverRun
from pgmpy_ext.stats import TMData

__all__ = ["cll_hessian", "effective_parameters", "evidence_strength"]

#: Smallest and largest strength the fixed point may reach (the generative limit and a nearly free fit).
_STRENGTH_RANGE = (1e-3, 1e4)
# The rule's settings (chosen on the 16 screening sets, docs/decisions/tm-regularisation.md section 7; the screening
# script benchmarks/tm_evidence_screen.py switches them): the quadratic-model fixed point (LOCAL; else MacKay's
# plain update), the Hessian dense up to DENSE_MAX free cells (else its per-group blocks), the scale of the
# generative mean's class contrasts fitted with the strength (FIT_SCALE), the first update taken at the generative
# starting point without a fit (FROM_START), the strength moving at most MAX_STEP_FIRST / MAX_STEP per update,
# warm starts in the solver's own coordinates (WARM_X), intermediate fits at INNER_TOL x tol, a refit only when the
# strength moves by more than a factor 1 + RTOL or the scale by more than RHO_TOL, no Hessian after the last fit
# (FINAL_HESSIAN: for the trace only).
LOCAL = True
MAX_STEP = 10.0
DENSE_MAX = 400
FIT_SCALE = True
INNER_TOL = 10.0
FINAL_HESSIAN = False
FROM_START = True
WARM_X = True
RTOL = 1.0
RHO_TOL = 0.1
MAX_STEP_FIRST = 100.0


def cll_hessian(tmd: TMData, log_theta: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The negative Hessian of the training CLL in the log-linear coordinates, on the cells ``free`` (dense,
    ``(free.size, free.size)``), at the normalised log-parameters ``log_theta``.

    With ``A`` the ``(n_unique, G)`` one-hot matrix of the cell groups every unique row reads (one per block) and
    ``P`` the posteriors: ``H = blockdiag_c(A^T diag(n p_c) A) - R^T R``, ``R[u, (g, c)] = sqrt(n_u) p_uc A[u, g]``
    (two dense products, ``O(n_unique size^2)``: meant for the few hundred cells of the dense rule)."""
    K = tmd.n_classes
    P = tmd.evaluate(None, posterior=True, log_theta=log_theta).posterior
    n = tmd.W.sum(axis=1)
    G = tmd.size // K
    groups = tmd.idx // K  # (n_unique, B): the group of the cell each row reads in each block
    n_u, B = groups.shape
    used = np.unique(free // K)  # only the groups with a free cell
    col = np.full(G, -1, dtype=np.intp)
    col[used] = np.arange(used.size)
    A = np.zeros((n_u, used.size))
    gc = col[groups]
    rows = np.broadcast_to(np.arange(n_u)[:, None], gc.shape)
    ok = gc >= 0
    A[rows[ok], gc[ok]] = 1.0
    R = (np.sqrt(n)[:, None, None] * A[:, :, None] * P[:, None, :]).reshape(n_u, used.size * K)
    H = -(R.T @ R)
    nP = n[:, None] * P
    Hv = H.reshape(used.size, K, used.size, K)
    for c in range(K):
        Hv[:, c, :, c] += A.T @ (A * nP[:, c:c + 1])
    sel = col[free // K] * K + free % K
    return H[np.ix_(sel, sel)]


def _whitened_spectrum(H: np.ndarray, prec: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, V)``: the eigen-decomposition of ``Q^-1/2 H_p Q^-1/2`` on the penalised cells (``Q = prec / lam``),
    ``H_p`` the Hessian with the unpenalised cells profiled out (its Schur complement)."""
    pen, unp = prec > 0, prec <= 0
    Hp = H[np.ix_(pen, pen)]
    if unp.any():
        Hpu = H[np.ix_(pen, unp)]
        Hp = Hp - Hpu @ np.linalg.pinv(H[np.ix_(unp, unp)], hermitian=True) @ Hpu.T
    s = 1.0 / np.sqrt(prec[pen] / lam)
    mu, V = np.linalg.eigh(s[:, None] * Hp * s[None, :])
    return np.maximum(mu, 0.0), V


def _group_spectrum(tmd: TMData, log_theta: np.ndarray, free: np.ndarray, prec: np.ndarray, diff: np.ndarray,
                    lam: float, vectors: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, a)`` of :func:`_whitened_spectrum` for the Hessian's ``K x K`` diagonal blocks only (one per cell group
    ``g``: a state of a child with one configuration of its feature parents, or the class prior): the coupling
    between the blocks (different features read by the same rows) is left out. Cells that are not free or not
    penalised are left out too."""
    K = tmd.n_classes
    P = tmd.evaluate(None, posterior=True, log_theta=log_theta).posterior
    n = tmd.W.sum(axis=1)
    G = tmd.size // K
    groups = (tmd.idx // K).ravel()
    rows = np.repeat(np.arange(P.shape[0]), tmd.idx.shape[1])
    Hg = np.zeros((G, K, K))
    for c in range(K):
        for c2 in range(c, K):
            s = n * ((P[:, c] if c == c2 else 0.0) - P[:, c] * P[:, c2])
            Hg[:, c, c2] = Hg[:, c2, c] = np.bincount(groups, weights=s[rows], minlength=G)
    q = np.zeros(tmd.size)
    d = np.zeros(tmd.size)
    q[free] = prec / lam
    d[free] = diff
    use = q > 0
    qg, dg, ug = q.reshape(G, K), d.reshape(G, K), use.reshape(G, K)
    keep = ug.any(axis=1)
    Hg, qg, dg, ug = Hg[keep], qg[keep], dg[keep], ug[keep]
    sg = np.where(ug, 1.0 / np.sqrt(np.where(ug, qg, 1.0)), 0.0)
    M = sg[:, :, None] * Hg * sg[:, None, :]
    mu, V = np.linalg.eigh(M)
    mu = np.maximum(mu, 0.0).ravel()

    def whiten(v, power=0.5):  # free-cell vector -> whitened eigen-coordinates (power -0.5: a gradient)
        full = np.zeros(tmd.size)
        full[free] = v
        w = np.where(ug, np.where(ug, qg, 1.0) ** power, 0.0)
        return np.einsum("gkj,gk->gj", V, w * full.reshape(G, K)[keep]).ravel()

    if vectors:  # ``(mu, whiten, whiten_grad)`` instead of ``(mu, a)``
        return mu, whiten, lambda g: whiten(g, -0.5)
    return mu, whiten(diff)


def effective_parameters(H: np.ndarray, prec: np.ndarray) -> float:
    """``gamma = sum_penalised (1 - prec_j (A^-1)_jj)`` with ``A = H + diag(prec)`` (a tiny ridge on the unpenalised
    cells, whose directions may be flat: the class prior under a uniform mean)."""
    from scipy.linalg import cho_factor, cho_solve

    A = H + np.diag(np.where(prec > 0, prec, 1e-8 * max(1.0, float(np.max(np.diag(H), initial=1.0)))))
    pen = np.flatnonzero(prec > 0)
    cf = cho_factor(A, lower=True, check_finite=False)
    E = np.zeros((A.shape[0], pen.size))
    E[pen, np.arange(pen.size)] = 1.0
    diag = np.einsum("ij,ij->j", E, cho_solve(cf, E, check_finite=False))
    return float(np.sum(1.0 - prec[pen] * diag))


def local_fixed_point(mu: np.ndarray, a: np.ndarray, lam: float, a_new: np.ndarray | None = None,
                      n_steps: int = 200) -> float:
    """The evidence fixed point of the quadratic model around the MAP at ``lam``: with whitened eigenvalues ``mu``
    and the whitened distance to the mean ``a`` (eigen-coordinates), the MAP at ``lp`` is at
    ``a_i (mu_i + lam) / (mu_i + lp)``, so ``gamma(lp) = sum mu / (mu + lp)`` and ``dist(lp) = sum a^2 ((mu + lam) /
    (mu + lp))^2``; ``l <- gamma(l) / dist(l)`` iterated from ``lam`` (in log space, clipped to the range).
    ``a_new``: the whitened distance of the current MAP to a new prior mean; the MAP at ``lp`` is then at
    ``(mu_i a_new_i + lam a_i) / (mu_i + lp)`` from it."""
    if a_new is None:
        a_new = a
    num2 = (mu * a_new + lam * a) ** 2
    lo, hi = _STRENGTH_RANGE
    lp = lam
    for _ in range(n_steps):
        g = float(np.sum(mu / (mu + lp)))
        d = float(np.sum(num2 / (mu + lp) ** 2))
        new = min(max(g / max(d, 1e-300), lo), hi)
        if abs(np.log(new / lp)) < 1e-4:
            return new
        lp = new
    return lp


def local_fixed_point_scaled(mu: np.ndarray, r: np.ndarray, b: np.ndarray, ct: np.ndarray, lam: float,
                             n_steps: int = 200) -> tuple[float, float]:
    """``(strength, scale)``: the joint evidence fixed point of the strength and of the scale ``rho`` of the mean's
    class contrasts in the quadratic model of the CLL around a point ``w`` (whitened eigen-coordinates: ``r`` the
    CLL's gradient at ``w`` (``lam a`` at the MAP of ``lam``, ``a`` its distance to the mean), ``b`` = ``w`` minus
    the mean's offset, ``ct`` the contrasts). The MAP at ``(l, rho)`` is ``D = (mu (b - rho ct) + r) / (mu + l)``
    away from its mean; the evidence is stationary in ``rho`` where ``ct . D = 0`` (linear in ``rho``) and in ``l``
    where ``l = gamma(l) / |D|^2``."""
    lo, hi = _STRENGTH_RANGE
    lp, rho = lam, 1.0
    fixed = mu * b + r
    for _ in range(n_steps):
        w = 1.0 / (mu + lp)
        den = float(np.sum(ct * ct * mu * w))
        rho = float(np.clip(np.sum(ct * fixed * w) / den, 0.0, 1.0)) if den > 0 else rho
        D = (fixed - mu * rho * ct) * w
        g = float(np.sum(mu * w))
        new = min(max(g / max(float(np.dot(D, D)), 1e-300), lo), hi)
        if abs(np.log(new / lp)) < 1e-4:
            return new, rho
        lp = new
    return lp, rho


def evidence_strength(tmd: TMData, T: np.ndarray, frozen: np.ndarray, cll0: float, *, alpha: float, mean: str,
                      start: float, n_iter: int, tol: float, max_iter: int, rtol: float | None = None,
                      callback=None) -> tuple[float, SolverRun, list, float]:
    """``(strength, run at it, trace, log evidence)``, the trace ``[(strength, gamma, weighted distance, log
    evidence, mean scale), ...]`` per fit: the evidence fixed point from ``start``, at most ``n_iter`` updates,
    each followed by a fit warm-started from the previous one; stops when the strength moves by less than ``rtol``
    (relative). Every update solves the fixed point of the quadratic model of the objective around the current MAP
    (:func:`local_fixed_point`; with ``FIT_SCALE`` and the generative mean, jointly with the scale of the mean's
    class contrasts, :func:`local_fixed_point_scaled`), limited to a factor ``MAX_STEP``; the Hessian is dense up
    to ``DENSE_MAX`` free cells, else its per-group blocks (:func:`_group_spectrum`). Without log-linear
    coordinates (no host plan) or without a prior: one fit at ``start``."""
    O = tmd.observed  # noqa: E741
    rtol = RTOL if rtol is None else rtol
    lam, rho, trace = float(start), 1.0, []
    cll = cll0
    run, log_z = None, np.nan
    from_start = FROM_START and mean == "generative" and FIT_SCALE
    x_prev = None
    for it in range(n_iter + 1):
        solver_prior = Prior(lam, O + float(alpha), mean, rho)
        solver = LBFGSSolver(tmd, T, frozen, prior=solver_prior)
        if x_prev is not None and WARM_X:  # start from the previous MAP itself, not its normalised form (whose
            solver._x[solver.free] = x_prev  # redundant directions the new prior would have to restore)
        last = it == n_iter
        if solver.plan is None or solver.prec is None:
            run = solver.run(cll, tol=tol, max_iter=max_iter, t_start=time.perf_counter(), callback=callback)
            break
        prec = solver.prec
        if it == 0 and from_start:  # the quadratic model around the starting (generative) point: no fit yet
            x = solver._x[solver.free].copy()
            lt = tmd.log_theta(T)[0]
            grad = (O - tmd.evaluate(None, expected=True, log_theta=lt).expected)[solver.free]
        else:
            run = solver.run(cll, tol=tol if last else tol * INNER_TOL, max_iter=max_iter,
                             t_start=time.perf_counter(), callback=callback)
            if last and not FINAL_HESSIAN:
                break
            x = solver.z / solver.d
            lt = solver.log_theta_of(solver.z).copy()
            grad = prec * (x - solver.centre)  # the CLL's gradient at the MAP balances the prior's
            x_prev = x
            T, cll = run.counts, float(run.cll_trace[-1])
        diff = x - solver.centre
        dist = float(np.dot(prec / lam, diff * diff))
        if solver.free.size <= DENSE_MAX:
            with _ONE_BLAS_THREAD:
                H = cll_hessian(tmd, lt, solver.free)
                mu, V = _whitened_spectrum(H, prec, lam)
            pen = prec > 0
            sq = np.sqrt(prec[pen] / lam)

            def whiten(v, V=V, pen=pen, sq=sq):
                return V.T @ (sq * v[pen])

            def whiten_grad(g, V=V, pen=pen, sq=sq):
                return V.T @ (g[pen] / sq)
        else:
            mu, whiten, whiten_grad = _group_spectrum(tmd, lt, solver.free, prec, diff, lam, vectors=True)
        a = whiten(diff)
        gamma = float(np.sum(mu / (mu + lam)))
        if run is not None and not (it == 0 and from_start):
            log_z = float(run.cll_trace[-1]) - 0.5 * lam * dist - 0.5 * float(np.sum(np.log1p(mu / lam)))
        trace.append((lam, gamma, dist, log_z, rho))
        if last:
            break
        new_rho = rho
        if FIT_SCALE and mean == "generative":
            off, con = solver_prior.parts(tmd)
            off, con = off[solver.free], con[solver.free]
            ok = np.isfinite(off) & np.isfinite(con) & (prec > 0)
            con, off = np.where(ok, con, 0.0), np.where(ok, off, 0.0)
            new, new_rho = local_fixed_point_scaled(mu, whiten_grad(grad), whiten(x - off), whiten(con), lam)
        elif LOCAL:
            new = local_fixed_point(mu, a, lam)
        else:
            new = float(np.clip(gamma / max(dist, 1e-300), *_STRENGTH_RANGE))
        step = MAX_STEP_FIRST if it == 0 and from_start else MAX_STEP
        new = float(np.clip(new, lam / step, lam * step))
        if run is not None and abs(np.log(new / lam)) < np.log1p(rtol) and abs(new_rho - rho) < min(rtol, RHO_TOL):
            if tol * INNER_TOL > tol:  # converged on a loose fit: finish it at tol
                solver = LBFGSSolver(tmd, T, frozen, prior=solver_prior)
                if WARM_X:
                    solver._x[solver.free] = x_prev
                run = solver.run(cll, tol=tol, max_iter=max_iter, t_start=time.perf_counter(), callback=callback)
            break
        lam, rho = new, new_rho
    return lam, run, trace, log_z

