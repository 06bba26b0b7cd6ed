"""Map-quality measures: trustworthiness and continuity (Venna & Kaski 2001; seed 000 eqs. 5.20-5.21, spec
``docs/decisions/seed000-sbn-cem-nbm.md`` section 6.4) with exact tie averaging and O(N) memory per thread."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_array

from pgmpy_ext.stats import neighbourhood_errors

__all__ = ["continuity", "trustworthiness", "trustworthiness_continuity"]

_TIES = """
    Ties (equal distances, e.g. many points on one neuron of a hard projection, or duplicate rows) follow Venna &
    Kaski: every rank order compatible with the distances is equally likely, independently in each space, and the
    measure is averaged over them. The average is computed exactly: a point in the tie group that straddles the
    k-neighbourhood boundary of the map counts with probability ``(k - #closer) / |group|``, and its error is
    ``E[(r - k)^+]`` with its input-space rank r uniform over its own tie group. Without ties this is exactly
    scikit-learn's ``sklearn.manifold.trustworthiness``. (``docs/decisions/seed000-sbn-cem-nbm.md``, "Trustworthiness
    and continuity", sketches ``P(j outside) * (mid-rank - k)``
    for an input-space tie group that straddles k; that product is not the average over orders, ``E[(r - k)^+]``
    is, and a test checks it against a brute-force average over every compatible order.)
"""


def _prepare(X, X_embedded, n_neighbors, metric):
    if metric != "euclidean":
        raise ValueError(f"metric == {metric!r}; only 'euclidean' is supported (pass the coordinates, not a "
                         "distance matrix).")
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = check_array(X_embedded, dtype=np.float64, input_name="X_embedded")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows and X_embedded {Y.shape[0]}; they must describe the same points.")
    N = X.shape[0]
    scalar = isinstance(n_neighbors, Integral)
    ks = np.atleast_1d(np.asarray(n_neighbors))
    if ks.ndim != 1 or ks.size == 0 or not np.issubdtype(ks.dtype, np.integer):
        raise ValueError(f"n_neighbors == {n_neighbors!r}, must be an int or a non-empty sequence of ints.")
    bad = ks[(ks < 1) | (ks >= N / 2)]
    if bad.size:
        raise ValueError(f"n_neighbors == {int(bad[0])}, must be >= 1 and less than n_samples / 2 = {N / 2} "
                         "(the normalisation A(k) needs k < N/2).")
    uniq, inverse = np.unique(ks, return_inverse=True)
    return X, Y, N, scalar, uniq.astype(np.intp), inverse


def _measure(err, N, uniq, inverse, scalar):
    k = uniq.astype(np.float64)
    m = 1.0 - err * (2.0 / (N * k * (2.0 * N - 3.0 * k - 1.0)))
    m = m[inverse]
    return float(m[0]) if scalar else m


def trustworthiness(X, X_embedded, *, n_neighbors=5, metric="euclidean", n_jobs=None):
    """Trustworthiness M1(k) of an embedding: are the map's neighbours also neighbours in the input space?

    .. math::

        M_1(k) = 1 - \\frac{2}{Nk(2N - 3k - 1)} \\sum_{i=1}^{N} \\sum_{j \\in U_k(i)} (r(i, j) - k)

    where ``U_k(i)`` are the map's k nearest neighbours of i that are not among its k nearest in the input space,
    and ``r(i, j)`` the input-space rank of j (nearest = 1). Same signature and result as scikit-learn's
    ``sklearn.manifold.trustworthiness`` on tie-free data, without its N x N rank matrices: memory is O(N) per
    thread, so N = 20,000 fits easily.
    {ties}
    Parameters
    ----------
    X : array (N, n_features)
        Input space (standardised data in the thesis).
    X_embedded : array (N, n_components)
        The map (e.g. :meth:`pgmpy_ext.maps.NaiveBayesMap.transform`).
    n_neighbors : int or sequence of int, default 5
        k, or several k computed in one pass (then an array in the same order is returned); each 1 <= k < N/2.
    metric : {"euclidean"}
        Only Euclidean distances.
    n_jobs : int, optional
        Threads over points; the result does not depend on it.

    Returns
    -------
    float or ndarray
        M1(k) in [0, 1] (1: no intrusions).

    See Also
    --------
    continuity : the same with the spaces swapped.

    References
    ----------
    J. Venna and S. Kaski, "Neighborhood preservation in nonlinear projection methods: an experimental study",
    ICANN 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.evaluation import trustworthiness
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> round(trustworthiness(X, X[:, :2], n_neighbors=5), 4) < 1.0
    True
    >>> trustworthiness(X, X * 2.0, n_neighbors=[5, 10]).tolist()   # a similarity keeps every neighbourhood
    [1.0, 1.0]
    """
    X, Y, N, scalar, uniq, inverse = _prepare(X, X_embedded, n_neighbors, metric)
    err, _ = neighbourhood_errors(X, Y, uniq, trust=True, cont=False, n_jobs=n_jobs)
    return _measure(err, N, uniq, inverse, scalar)


def continuity(X, X_embedded, *, n_neighbors=5, metric="euclidean", n_jobs=None):
    """Continuity M2(k) of an embedding: are the input-space neighbours kept together on the map?

    ``continuity(X, Y) == trustworthiness(Y, X)``: the neighbourhoods come from the input space and the ranks from
    the map (eq. 5.21 of the thesis; Venna & Kaski 2001).
    {ties}
    Parameters and return value as in :func:`trustworthiness`.

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.evaluation import continuity
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> 0.0 < continuity(X, X[:, :2], n_neighbors=5) < 1.0
    True
    """
    X, Y, N, scalar, uniq, inverse = _prepare(X, X_embedded, n_neighbors, metric)
    _, err = neighbourhood_errors(X, Y, uniq, trust=False, cont=True, n_jobs=n_jobs)
    return _measure(err, N, uniq, inverse, scalar)


def trustworthiness_continuity(X, X_embedded, *, n_neighbors=5, metric="euclidean", n_jobs=None):
    """Both measures in one pass over the points (the distances are computed once): ``(M1, M2)``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> t, c = trustworthiness_continuity(X, X[:, :2], n_neighbors=[5, 10])
    >>> t.shape, c.shape
    ((2,), (2,))
    """
    X, Y, N, scalar, uniq, inverse = _prepare(X, X_embedded, n_neighbors, metric)
    et, ec = neighbourhood_errors(X, Y, uniq, trust=True, cont=True, n_jobs=n_jobs)
    return _measure(et, N, uniq, inverse, scalar), _measure(ec, N, uniq, inverse, scalar)


trustworthiness.__doc__ = trustworthiness.__doc__.replace("{ties}", _TIES)
continuity.__doc__ = continuity.__doc__.replace("{ties}", _TIES)
