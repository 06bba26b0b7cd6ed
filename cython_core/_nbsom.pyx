"""Kernels of the naive Bayes map (NBM / NBSOM, seed 000 chapter 5, ``docs/decisions/seed000-sbn-cem-nbm.md``
sections 5.2-5.6, decisions D18-D23).

Model: K neurons on a 2-D grid, neuron k has a mean vector ``means[k]`` and a variance vector ``variances[k]``
(diagonal Gaussian naive Bayes, uniform prior 1/K). Two caches go with them and are kept consistent by the
kernels: ``inv_var[k, i] = 1 / variances[k, i]`` and ``logdet[k] = sum_i log variances[k, i]``, so the E/W-step
``log p(x | k) = -0.5 * (n log 2 pi + logdet[k] + sum_i (x_i - means[k, i])**2 * inv_var[k, i])`` needs no ``log``.
They are recomputed (exactly as :func:`refresh_cache` does) for every neuron an online step changes.
"""

from libc.math cimport exp, log, INFINITY

from _typedefs cimport float64_t, intp_t, int64

cdef double LOG_2PI = 1.8378770664093453


cdef inline void _refresh_one(const float64_t[:, ::1] variances, float64_t[:, ::1] inv_var,
                              float64_t[::1] logdet, intp_t k) noexcept nogil:
    cdef intp_t i
    cdef double s = 0.0
    for i in range(variances.shape[1]):
        inv_var[k, i] = 1.0 / variances[k, i]
        s += log(variances[k, i])
    logdet[k] = s


cdef inline void _refresh_one_floored(const float64_t[:, ::1] variances, float64_t[:, ::1] inv_var,
                                      float64_t[::1] logdet, intp_t k, double var_floor, double inv_floor,
                                      double log_floor) noexcept nogil:
    # _refresh_one with 1 / var_floor and log(var_floor) computed once: a variance held at the floor gets the same
    # bits, without a division and a log (with a high floor most variances sit on it).
    cdef intp_t i
    cdef double s = 0.0, v
    for i in range(variances.shape[1]):
        v = variances[k, i]
        if v == var_floor:
            inv_var[k, i] = inv_floor
            s += log_floor
        else:
            inv_var[k, i] = 1.0 / v
            s += log(v)
    logdet[k] = s


def refresh_cache(const float64_t[:, ::1] variances,   # IN  (K, n) variances, > 0
                  float64_t[:, ::1] inv_var,           # OUT (K, n) 1 / variances
                  float64_t[::1] logdet):              # OUT (K,) sum_i log variances[k, i]
    """Fill the two caches from ``variances`` (see the module docstring)."""
    cdef intp_t K = variances.shape[0], n = variances.shape[1], k
    if inv_var.shape[0] != K or inv_var.shape[1] != n or logdet.shape[0] != K:
        raise ValueError(f"inv_var must be ({K}, {n}) and logdet ({K},), got ({inv_var.shape[0]}, "
                         f"{inv_var.shape[1]}) and ({logdet.shape[0]},).")
    with nogil:
        for k in range(K):
            _refresh_one(variances, inv_var, logdet, k)


def online_steps(const float64_t[:, ::1] X,          # IN  (N, n) data
                 const intp_t[::1] order,            # IN  (T,) row of X presented at step s (0 <= order[s] < N)
                 const float64_t[::1] sigmas,        # IN  (T,) neighbourhood range sigma at step s (> 0)
                 const float64_t[::1] alphas,        # IN  (T,) factor alpha of the variance update at step s
                 const float64_t[:, ::1] grid_d2,    # IN  (K, K) squared output-grid distances ||y_k - y_l||^2
                 float64_t[:, ::1] means,            # IN/OUT (K, n)
                 float64_t[:, ::1] variances,        # IN/OUT (K, n)
                 float64_t[:, ::1] inv_var,          # IN/OUT (K, n) cache, consistent with variances on entry
                 float64_t[::1] logdet,              # IN/OUT (K,) cache, consistent with variances on entry
                 float64_t[::1] lp,                  # SCRATCH (K,)
                 int64 j0,                           # IN  samples presented before this call (the j counter)
                 double var_floor,                   # IN  variance floor (> 0)
                 bint exact):                        # IN  False: thesis eq. 5.16 (D18 "thesis"); True: "exact"
    """``T`` online NBM steps (spec section 5.4, pseudo-code 5.6), in order; returns ``j0 + T``.

    Step s presents ``x = X[order[s]]`` with ``j = j0 + s`` samples already presented:

    1. E/W-step: ``lp_k = log p(x | k)``; winner ``k* = argmax_k lp_k`` (ties: smallest k).
    2. ``L_k = exp(-grid_d2[k, k*] / (2 sigma^2))``, ``eta_k = L_k / (j / K + L_k)`` (eq. 5.17).
    3. For every k with ``L_k > 0`` (``eta_k = 0`` leaves a neuron unchanged, so skipping it is exact), per
       dimension i: ``d = x_i - means[k, i]`` (the old mean), ``means[k, i] += eta_k d`` (5.15), then
       ``thesis``: ``v += alpha eta_k (d**2 - (1 - eta_k) v)``; ``exact``: ``v += alpha eta_k ((1 - eta_k) d**2 - v)``
       (5.16 with the factor of 5.23, D18), and ``v = max(v, var_floor)`` (D19). The caches of k are refreshed.
    """
    cdef intp_t N = X.shape[0], n = X.shape[1], K = means.shape[0], T = order.shape[0]
    cdef intp_t s, k, i, r, win
    cdef double best, acc, d, v, lam, eta, sig, a, jk, xi, inv_floor, log_floor
    if means.shape[1] != n or variances.shape[0] != K or variances.shape[1] != n:
        raise ValueError(f"means and variances must be ({K}, {n}) (K neurons x {n} features of X), got "
                         f"({means.shape[0]}, {means.shape[1]}) and ({variances.shape[0]}, {variances.shape[1]}).")
    if inv_var.shape[0] != K or inv_var.shape[1] != n or logdet.shape[0] != K or lp.shape[0] != K:
        raise ValueError("inv_var, logdet and lp must be (K, n), (K,) and (K,).")
    if grid_d2.shape[0] != K or grid_d2.shape[1] != K:
        raise ValueError(f"grid_d2 must be ({K}, {K}), got ({grid_d2.shape[0]}, {grid_d2.shape[1]}).")
    if sigmas.shape[0] != T or alphas.shape[0] != T:
        raise ValueError(f"sigmas and alphas must have one entry per step ({T}), got {sigmas.shape[0]} and "
                         f"{alphas.shape[0]}.")
    if not var_floor > 0:
        raise ValueError(f"var_floor == {var_floor}, must be > 0.")
    if j0 < 0:
        raise ValueError(f"j0 == {j0}, must be >= 0.")
    for s in range(T):
        if order[s] < 0 or order[s] >= N:
            raise ValueError(f"order[{s}] == {order[s]} is not a row of X (0..{N - 1}).")
        if not sigmas[s] > 0:
            raise ValueError(f"sigmas[{s}] == {sigmas[s]}, must be > 0.")
    inv_floor = 1.0 / var_floor
    log_floor = log(var_floor)
    with nogil:
        for s in range(T):
            r = order[s]
            # E/W-step
            win = 0
            best = -INFINITY
            for k in range(K):
                acc = 0.0
                for i in range(n):
                    d = X[r, i] - means[k, i]
                    acc = acc + d * d * inv_var[k, i]
                lp[k] = -0.5 * (n * LOG_2PI + logdet[k] + acc)
                if lp[k] > best:
                    best = lp[k]
                    win = k
            # M-step with the neighbourhood function in place of the responsibilities
            sig = sigmas[s]
            a = alphas[s]
            jk = <double>(j0 + s) / K
            for k in range(K):
                lam = exp(-grid_d2[k, win] / (2.0 * sig * sig))
                if lam <= 0.0:
                    continue
                eta = lam / (jk + lam)
                for i in range(n):
                    xi = X[r, i]
                    d = xi - means[k, i]
                    means[k, i] = means[k, i] + eta * d
                    v = variances[k, i]
                    if exact:
                        v = v + a * eta * ((1.0 - eta) * d * d - v)
                    else:
                        v = v + a * eta * (d * d - (1.0 - eta) * v)
                    if not v >= var_floor:      # also catches NaN
                        v = var_floor
                    variances[k, i] = v
                _refresh_one_floored(variances, inv_var, logdet, k, var_floor, inv_floor, log_floor)
    return j0 + T


def log_density(const float64_t[:, ::1] X,          # IN  (N, n)
                const float64_t[:, ::1] means,      # IN  (K, n)
                const float64_t[:, ::1] inv_var,    # IN  (K, n) cache (see module docstring)
                const float64_t[::1] logdet,        # IN  (K,) cache
                float64_t[:, ::1] out):             # OUT (N, K) log p(x_r | k)
    """``out[r, k] = log p(X[r] | k)`` for every row and neuron (the E-step of eq. 5.2-5.3)."""
    cdef intp_t N = X.shape[0], n = X.shape[1], K = means.shape[0], r, k, i
    cdef double acc, d
    if means.shape[1] != n or inv_var.shape[0] != K or inv_var.shape[1] != n or logdet.shape[0] != K:
        raise ValueError(f"means and inv_var must be ({K}, {n}) and logdet ({K},).")
    if out.shape[0] != N or out.shape[1] != K:
        raise ValueError(f"out must be ({N}, {K}), got ({out.shape[0]}, {out.shape[1]}).")
    with nogil:
        for r in range(N):
            for k in range(K):
                acc = 0.0
                for i in range(n):
                    d = X[r, i] - means[k, i]
                    acc = acc + d * d * inv_var[k, i]
                out[r, k] = -0.5 * (n * LOG_2PI + logdet[k] + acc)
