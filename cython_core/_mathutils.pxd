# Inline numeric helpers for the kernels (header-only). Natural logarithms throughout.
from libc.math cimport exp, log, lgamma, INFINITY


cdef inline double xlogx(double x) noexcept nogil:
    """x * log(x) with 0 * log(0) := 0."""
    if x <= 0.0:
        return 0.0
    return x * log(x)


cdef inline double xlogy(double x, double y) noexcept nogil:
    """x * log(y) with 0 * log(anything) := 0."""
    if x == 0.0:
        return 0.0
    return x * log(y)


cdef inline double logsumexp_row(const double* a, Py_ssize_t n) noexcept nogil:
    """log(sum(exp(a[0:n]))), max-subtracted; -inf when every entry is -inf."""
    cdef Py_ssize_t k
    cdef double m = -INFINITY
    cdef double s = 0.0
    for k in range(n):
        if a[k] > m:
            m = a[k]
    if m == -INFINITY:
        return -INFINITY
    for k in range(n):
        s += exp(a[k] - m)
    return m + log(s)


cdef inline double posterior_row(double* a, Py_ssize_t n) noexcept nogil:
    """``a[0:n]`` (one row's log-joint scores) normalised in place into posteriors; returns the row's
    log-likelihood ``log(sum(exp(a)))``, max-subtracted. A row whose every score is -inf becomes uniform and returns
    -inf (the E steps count it as a zero-probability row)."""
    cdef Py_ssize_t k
    cdef double m = -INFINITY
    cdef double s = 0.0
    cdef double lse
    for k in range(n):
        if a[k] > m:
            m = a[k]
    if m == -INFINITY:
        for k in range(n):
            a[k] = 1.0 / n
        return -INFINITY
    for k in range(n):
        s += exp(a[k] - m)
    lse = m + log(s)
    for k in range(n):
        a[k] = exp(a[k] - lse)
    return lse

