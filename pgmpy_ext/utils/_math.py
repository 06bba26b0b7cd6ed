"""Numerical helpers shared by every learner: log floors, log-sum-exp over rows, column normalisation.

One definition each, so that classifiers, clusterers, parameter estimators and the model builders round and floor
the same way (the kernels' own inline twins live in ``cython_core/_mathutils.pxd``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["LOG_PROB_FLOOR", "LOG_TINY", "logsumexp_rows", "log_normalize_rows", "normalize_columns",
           "normalize_rows_in_threads", "parallel_row_ranges"]

#: Log-probabilities are floored here at prediction time (seed 000 decision D5), so a zero maximum-likelihood
#: estimate cannot make every class impossible and argmax stays defined. exp(-690.8) = 1e-300.
LOG_PROB_FLOOR = float(np.log(1e-300))
#: Smallest log posterior reported by ``predict_log_proba``: log of the smallest normal double, so that
#: ``predict_proba == exp(predict_log_proba)`` has no zeros where the log is finite.
LOG_TINY = float(np.log(np.finfo(np.float64).tiny))


#: Below this many columns a row sum is added column by column, left to right: numpy's own ``sum(axis=1)`` of
#: such rows gives the same bits (``tests/core/test_math.py`` checks it), at a tenth of its cost on tall arrays
#: (numpy reduces each short row in a separate inner loop). From 8 columns on numpy adds with 8 partial sums.
_SEQUENTIAL_SUM_COLS = 8


def _row_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=1)`` (NaN propagates, as there) as elementwise maxima over the columns: exact, and 30-60x
    faster than numpy's reduction over a short last axis of a tall array."""
    if a.shape[1] == 1:
        return a[:, 0].copy()
    m = np.maximum(a[:, 0], a[:, 1])
    for k in range(2, a.shape[1]):
        np.maximum(m, a[:, k], out=m)
    return m


def _row_sum(e: np.ndarray) -> np.ndarray:
    """``e.sum(axis=1)``, bit for bit (see :data:`_SEQUENTIAL_SUM_COLS`)."""
    if e.shape[1] >= _SEQUENTIAL_SUM_COLS or e.shape[1] == 0:
        return e.sum(axis=1)
    if e.shape[1] == 1:
        return e[:, 0].copy()
    s = e[:, 0] + e[:, 1]
    for k in range(2, e.shape[1]):
        s += e[:, k]
    return s


def _subtract_rows(a: np.ndarray, v: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = a - v[:, None]``, column by column (numpy's broadcast runs one short inner loop per row)."""
    if a.shape[1] >= 16:
        return np.subtract(a, v[:, None], out=out)
    for k in range(a.shape[1]):
        np.subtract(a[:, k], v, out=out[:, k])
    return out


def logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """``log(sum_k exp(a[r, k]))`` for every row of a 2-D array, shape (n_rows,).

    The row maximum is subtracted before ``exp``; a row of ``-inf`` gives NaN (``-inf - -inf``; the warning is
    silenced), as does a row holding NaN or ``+inf``. Same operations, hence the same bits, as
    ``m + log(exp(a - m).sum(axis=1))`` with ``m = a.max(axis=1)``, computed column by column (tall arrays with a
    few columns, the classifiers' and clusterers' ``(n_rows, K)``, are 4-5x faster this way)."""
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[1] == 0 or a.shape[0] == 0:
        m = a.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            return (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]
    m = _row_max(a)
    with np.errstate(invalid="ignore"):
        d = _subtract_rows(a, m, np.empty_like(a, dtype=np.result_type(a.dtype, m.dtype)))
        np.exp(d, out=d)
        s = _row_sum(d)
        np.log(s, out=s)
        s += m
    return s


def log_normalize_rows(a: np.ndarray, *, floor: float | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """``a - logsumexp_rows(a)[:, None]``: joint log-probabilities -> log posteriors.

    ``floor`` (e.g. :data:`LOG_TINY`) raises every entry to at least that value. ``out``: where to write the result
    (may be ``a`` itself, which the caller then gives up); default a new array."""
    a = np.asarray(a)
    lse = logsumexp_rows(a)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        out = np.subtract(a, lse[:, None], out=out)
    else:
        out = _subtract_rows(a, lse, np.empty_like(a, dtype=np.result_type(a.dtype, lse.dtype)) if out is None
                             else out)
    if floor is not None:
        np.maximum(out, floor, out=out)
    return out


def normalize_columns(table: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """A (r, q) count table -> columns ``(counts + alpha) / sum``; all-zero columns become uniform ``1 / r``.

    This is pgmpy ``DiscreteMLE``'s rule for parent configurations never seen in the data. Returns a new float64
    array; the input is not modified.

    >>> normalize_columns(np.array([[2.0, 0.0], [6.0, 0.0]])).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    >>> normalize_columns(np.array([[0.0], [2.0]]), alpha=1.0).tolist()
    [[0.25], [0.75]]
    """
    t = table + alpha if alpha > 0 else np.asarray(table, dtype=np.float64).copy()
    s = t.sum(axis=0, keepdims=True)
    zero = s == 0
    if zero.any():
        t[:, zero[0]] = 1.0
        s = t.sum(axis=0, keepdims=True)
    return t / s


#: Rows per chunk below which :func:`normalize_rows_in_threads` stays on the calling thread.
_MIN_THREAD_ROWS = 1 << 16
_POOL = None


def _pool():
    global _POOL
    if _POOL is None:
        import os
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1), thread_name_prefix="pgmpy_ext")
    return _POOL


def normalize_rows_in_threads(a: np.ndarray, *, floor: float | None = None, exp: bool = False,
                              n_threads: int = 1) -> np.ndarray:
    """:func:`log_normalize_rows` of ``a`` in place (``a`` is given up), then ``exp`` in place when ``exp``: the
    posteriors of joint log-probabilities. With ``n_threads > 1`` and enough rows, row blocks are normalised by
    a thread pool (numpy's loops release the GIL): every row gets the same operations, so the same bits, whatever
    the number of threads."""
    n = a.shape[0]
    blocks = max(1, min(int(n_threads), n // max(_MIN_THREAD_ROWS, 1)))

    def work(r0: int, r1: int) -> None:
        part = a[r0:r1]
        log_normalize_rows(part, floor=floor, out=part)
        if exp:
            np.exp(part, out=part)

    parallel_row_ranges(work, n, blocks)
    return a


def parallel_row_ranges(work, n: int, n_threads: int, *, align: int = 1) -> None:
    """``work(r0, r1)`` over ``n`` rows split into ``n_threads`` contiguous ranges (boundaries multiples of
    ``align``), the first on the calling thread and the others on the shared thread pool; returns when all are done
    and re-raises the first error. ``work`` must release the GIL for the ranges to run at the same time (numpy
    loops and the nogil kernels do)."""
    n_threads = max(1, min(int(n_threads), -(-n // max(align, 1)) if n else 1))
    if n_threads == 1:
        work(0, n)
        return
    units = -(-n // align)
    bounds = [min(n, round(units * b / n_threads) * align) for b in range(n_threads + 1)]
    futures = [_pool().submit(work, bounds[b], bounds[b + 1]) for b in range(1, n_threads)]
    try:
        work(bounds[0], bounds[1])
    finally:
        errors = []
        for f in futures:
            try:
                f.result()
            except BaseException as err:  # noqa: BLE001 - re-raised below, after every range has finished
                errors.append(err)
    if errors:
        raise errors[0]
