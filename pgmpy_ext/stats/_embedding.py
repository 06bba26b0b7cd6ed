"""Wrapper around the trustworthiness/continuity kernel (``pgmpy_ext._core._embedding``): validate, allocate, call.

The kernel's conventions (exact tie averaging, squared Euclidean distances, one row at a time) are documented in
``cython_core/_embedding.pyx``; the public measures are :func:`pgmpy_ext.evaluation.trustworthiness` and
:func:`pgmpy_ext.evaluation.continuity` (seed 000 section 6.4).
"""

from __future__ import annotations

import numpy as np

from pgmpy_ext._core import _embedding
from pgmpy_ext.utils import effective_n_threads

__all__ = ["neighbourhood_errors"]


def neighbourhood_errors(X, Y, ks, *, trust: bool = True, cont: bool = True,
                         n_jobs: int | None = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Summed expected rank errors over all points, one value per k: ``(trust_err, cont_err)``.

    ``trust_err[q] = sum_i sum_j P(j in map k-NN of i) E[(r_X(i, j) - k)^+]`` for ``k = ks[q]`` and ``cont_err`` the
    same with the spaces swapped (None for a measure not asked for). ``X`` (N, p) and ``Y`` (N, q) are float64,
    ``ks`` strictly increasing in 1..N-1. The per-row errors are summed in row order, so the result does not depend
    on ``n_jobs`` (threads over rows).

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> Y = np.array([[0.0], [3.0], [1.0], [2.0]])         # a map with ties: point 2 is as close to 0 as to 3
    >>> t, c = neighbourhood_errors(X, Y, [1])
    >>> t.tolist(), c.tolist()
    ([4.75], [5.25])
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    N = X.shape[0]
    ks = np.ascontiguousarray(ks, dtype=np.intp)
    err_t = np.zeros((N if trust else 0, ks.size))
    err_c = np.zeros((N if cont else 0, ks.size))
    _embedding.neighbourhood_errors(np.ascontiguousarray(X.T), np.ascontiguousarray(Y.T), ks, err_t, err_c,
                                    effective_n_threads(n_jobs))
    return (err_t.sum(axis=0) if trust else None), (err_c.sum(axis=0) if cont else None)
