"""Naive Bayes maps (NBM, the NBSOM of Ruz & Pham 2012): a topographic map with a density model behind it.

Ruz's thesis, chapter 5; design record ``docs/decisions/seed000-sbn-cem-nbm.md`` ("NBM — naive Bayes mapping"
and the NBM entries of "Ambiguities, errors and gaps → decisions"). The engine
:func:`fit_nbm` runs one map from one generator; :class:`NaiveBayesMap` is the scikit-learn face (restarts,
projections, posteriors, scores). The online steps run in the Cython kernel behind
:class:`pgmpy_ext.stats.NBMState`.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from pgmpy_ext.data import PARAMETER_VOCABULARY, check_unique_columns, refuse_dask
from pgmpy_ext.stats import NBMState, grid_coordinates
from pgmpy_ext.utils import (
    Interval,
    Options,
    check_generator,
    check_option,
    check_params,
    fill_doc,
    log_normalize_rows,
    logsumexp_rows,
    run_starts,
)

__all__ = ["NBMResult", "THESIS_RULE", "NaiveBayesMap", "count_foldovers", "fit_nbm", "nbm_unit_square",
           "principal_plane", "sigma_schedule",
           "learning_rate_schedule"]

VARIANCE_UPDATES = ("thesis", "exact")
INITS = ("uniform", "data", "pca")
#: The thesis's rule (seed 000 chapter 5 as reconstructed in D18-D23): what the reproductions and the pinned traces
#: use. The estimator's defaults depart from it in ``init``, ``var_floor``, ``temperature`` and ``window`` (issue 27,
#: ``docs/decisions/issue27-maps.md``): ``NaiveBayesMap(**THESIS_RULE)`` is the thesis's map.
THESIS_RULE = {"init": "uniform", "var_floor": 1e-6, "variance_update": "thesis", "learning_rate": (0.1, 0.05),
               "sigma0": None, "temperature": 1.0, "window": None}


def principal_plane(X: np.ndarray, grid) -> tuple[np.ndarray, np.ndarray]:
    """Means on the data's principal plane (the start of GTM and of MiniSom's ``pca_weights_init``) and the
    per-feature variances of X.

    Neuron ``(row, col)`` starts at ``mean + a * sqrt(l1) * v1 + b * sqrt(l2) * v2`` with ``a`` running over
    ``linspace(-1, 1, L1)`` (rows along the first principal axis) and ``b`` over ``linspace(-1, 1, L2)``; the sign
    of each axis is fixed so that its largest-magnitude loading is positive (scikit-learn's ``svd_flip``), so the
    start is deterministic. Returns ``(means (K, n), variances (n,))``.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> m, v = principal_plane(X, (3, 2))
    >>> m.shape, bool(abs(m[0, 0] - m[-1, 0]) > 4), bool(abs(m[:, 2]).max() < 0.2)
    ((6, 3), True, True)
    """
    X = np.asarray(X, dtype=np.float64)
    L1, L2 = (int(g) for g in grid)
    mu = X.mean(axis=0)
    Xc = X - mu
    n = X.shape[1]
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    lam = s**2 / max(X.shape[0] - 1, 1)
    V = np.zeros((2, n))
    lam2 = np.zeros(2)
    m = min(2, Vt.shape[0])
    V[:m], lam2[:m] = Vt[:m], lam[:m]
    for i in range(m):
        if V[i, np.argmax(np.abs(V[i]))] < 0:
            V[i] = -V[i]
    a = np.linspace(-1.0, 1.0, L1)
    b = np.linspace(-1.0, 1.0, L2)
    rows, cols = np.divmod(np.arange(L1 * L2), L2)
    means = (mu + a[rows, None] * np.sqrt(lam2[0]) * V[0] + b[cols, None] * np.sqrt(lam2[1]) * V[1])
    return np.ascontiguousarray(means), X.var(axis=0)


def sigma_schedule(sigma0: float, t, t_max: float) -> np.ndarray:
    """Neighbourhood range of Ruz's eq. 5.19 (reconstructed): ``sigma0 * exp(-2 * sigma0 * t / t_max)``.

    Examples
    --------
    >>> sigma_schedule(5.0, [0, 25, 50], 50).round(4).tolist()
    [5.0, 0.0337, 0.0002]
    """
    return float(sigma0) * np.exp(-2.0 * float(sigma0) * np.asarray(t, dtype=np.float64) / float(t_max))


def learning_rate_schedule(learning_rate, e, e_max: float) -> np.ndarray:
    """Learning rate of the variance update (the thesis's alpha(e), eq. 5.22, reconstructed):
    ``a0 * (a1 / a0) ** (e / e_max)`` for ``learning_rate = (a0, a1)``; ones when ``learning_rate`` is None (the
    unit-square demo).

    Examples
    --------
    >>> learning_rate_schedule((0.1, 0.05), [0, 25, 50], 50).round(4).tolist()
    [0.1, 0.0707, 0.05]
    """
    e = np.asarray(e, dtype=np.float64)
    if learning_rate is None:
        return np.ones_like(e)
    a0, a1 = (float(a) for a in learning_rate)
    return a0 * (a1 / a0) ** (e / float(e_max))


@dataclass
class NBMResult:
    """One fitted map: ``means``/``variances`` (K, n), ``ll_trace`` (log-likelihood of the training data after each
    epoch, eq. 5.6), ``n_steps`` (samples presented) and ``snapshots`` {epoch: (means, variances)}."""

    means: np.ndarray
    variances: np.ndarray
    ll_trace: np.ndarray
    n_steps: int
    snapshots: dict = field(default_factory=dict)


def _log_likelihood(state: NBMState, X: np.ndarray) -> float:
    lp = state.log_density(X)
    return float(logsumexp_rows(lp).sum() - X.shape[0] * np.log(state.n_neurons))


def fit_nbm(X: np.ndarray, rng: np.random.Generator, *, grid=(10, 10), n_epochs: int = 50, sigma0=None,
            learning_rate=(0.1, 0.05), var_floor: float = 1e-6, init: str = "uniform", variance_update: str = "thesis",
            snapshot_epochs=()) -> NBMResult:
    """Train one naive Bayes map by the online rule of Ruz's thesis, eqs. 5.12-5.17.

    Random draws, in this order, all from ``rng``: the initial means (``init="uniform"``: ``U(0, 1)^(K x n)``;
    ``"data"``: K rows of X drawn without replacement, with replacement when K > N), the initial variances
    ``U(0, 1)^(K x n) + var_floor``, then (``init="pca"`` draws neither: means on the principal plane,
    :func:`principal_plane`, variances the data's per-feature variances, floored), then one permutation of the
    rows per epoch. Epoch e (0-based) uses
    ``sigma = sigma_schedule(sigma0, e, n_epochs)`` and the variance update's learning rate
    ``learning_rate_schedule(learning_rate, e, n_epochs)``; the j counter runs over all epochs, ``j = e * N +
    position`` (starting at 0).

    Parameters
    ----------
    X : float64 (N, n)
        Data (standardised in the thesis's experiments).
    rng : numpy.random.Generator
    snapshot_epochs : iterable of int
        Epoch counts (0 = the initial map) at which to keep a copy of the parameters.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> res = fit_nbm(X, np.random.default_rng(1), grid=(3, 3), n_epochs=5)
    >>> res.means.shape, res.ll_trace.shape, res.n_steps
    ((9, 2), (5,), 200)
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    N, n = X.shape
    L1, L2 = (int(g) for g in grid)
    K = L1 * L2
    sigma0 = max(L1, L2) / 2.0 if sigma0 is None else float(sigma0)
    if init == "pca":
        means, v = principal_plane(X, (L1, L2))
        variances = np.maximum(np.tile(v, (K, 1)), var_floor)
    else:
        if init == "uniform":
            means = rng.random((K, n))
        else:
            means = X[rng.choice(N, size=K, replace=K > N)].copy()
        variances = rng.random((K, n)) + var_floor
    state = NBMState(means, variances, grid_coordinates((L1, L2)))
    exact = variance_update == "exact"
    wanted = {int(e) for e in snapshot_epochs}
    snaps = {}
    if 0 in wanted:
        snaps[0] = (state.means.copy(), state.variances.copy())
    trace = np.empty(n_epochs)
    for e in range(n_epochs):
        order = rng.permutation(N)
        state.steps(X, order, sigma=float(sigma_schedule(sigma0, e, n_epochs)),
                    alpha=float(learning_rate_schedule(learning_rate, e, n_epochs)), var_floor=var_floor,
                    exact=exact)
        trace[e] = _log_likelihood(state, X)
        if e + 1 in wanted:
            snaps[e + 1] = (state.means.copy(), state.variances.copy())
    return NBMResult(state.means, state.variances, trace, state.j, snaps)


def nbm_unit_square(*, n_steps: int = 100_000, grid=(16, 16), snapshots=(0, 500, 1000, 5000, 10000, 100000),
                    t_max: float | None = None, sigma0=None, var_floor: float = 1e-6, variance_update: str = "thesis",
                    random_state=None) -> dict[int, np.ndarray]:
    """The map-formation demo of section 5.4.1 (Fig. 5.2): a stream of ``x ~ U([0, 1]^2)``, one new point per step.

    Step t (= j) uses ``sigma = sigma_schedule(sigma0, t, t_max)`` (``t_max = n_steps``) and no learning-rate
    factor; means and variances start uniform in [0, 1] (plus the floor). Draws from the generator, in this order:
    the initial means (K, 2), the initial variances (K, 2), the stream (n_steps, 2).

    Returns
    -------
    dict
        ``{t: means (K, 2)}`` for every requested ``t <= n_steps`` (t = number of steps done).

    Examples
    --------
    >>> snaps = nbm_unit_square(n_steps=200, grid=(4, 4), snapshots=(0, 200), random_state=0)
    >>> sorted(snaps), snaps[200].shape
    ([0, 200], (16, 2))
    """
    rng = check_generator(random_state)
    L1, L2 = (int(g) for g in grid)
    K = L1 * L2
    sigma0 = max(L1, L2) / 2.0 if sigma0 is None else float(sigma0)
    t_max = float(n_steps if t_max is None else t_max)
    state = NBMState(rng.random((K, 2)), rng.random((K, 2)) + var_floor, grid_coordinates((L1, L2)))
    stream = rng.random((n_steps, 2))
    exact = check_option(variance_update, "variance_update", VARIANCE_UPDATES) == "exact"
    out = {}
    marks = sorted({int(t) for t in snapshots if 0 <= int(t) <= n_steps})
    for t in marks:
        if t > state.j:
            steps = np.arange(state.j, t)
            state.steps(stream, steps, sigma=sigma_schedule(sigma0, steps, t_max), alpha=1.0, var_floor=var_floor,
                        exact=exact)
        out[t] = state.means.copy()
    return out


def count_foldovers(means: np.ndarray, grid) -> int:
    """Number of lattice cells whose orientation in input space disagrees with the majority (0: an ordered map).

    Cell ``(r, c)`` (corners ``(r, c)``, ``(r, c + 1)``, ``(r + 1, c)`` and ``(r + 1, c + 1)``) is oriented by the
    signs of the cross products of its two edge vectors at the corners ``(r, c)`` and ``(r + 1, c + 1)``; a cell
    whose two signs differ, or whose sign differs from the most common one, or is zero, is folded. Only the first
    two input dimensions are used.

    Examples
    --------
    >>> g = grid_coordinates((3, 3)) / 2.0           # the lattice itself: ordered
    >>> count_foldovers(g, (3, 3))
    0
    >>> g[4] = [1.2, 1.2]                            # pull the centre neuron across the corner: folds
    >>> count_foldovers(g, (3, 3)) > 0
    True
    """
    L1, L2 = (int(g) for g in grid)
    m = np.asarray(means, dtype=np.float64)[:, :2].reshape(L1, L2, 2)
    a, b, d, e = m[:-1, :-1], m[:-1, 1:], m[1:, :-1], m[1:, 1:]

    def cross(u, v):
        return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]

    s1 = np.sign(cross(b - a, d - a))
    s2 = np.sign(cross(e - d, e - b))
    major = 1.0 if (s1 > 0).sum() >= (s1 < 0).sum() else -1.0
    return int(((s1 != major) | (s2 != major)).sum())


def _fit_nbm_start(Z, kw, rng):
    return fit_nbm(Z, rng, **kw)


# ------------------------------------------------------------------------------------------- scikit-learn face
def _check_continuous(est, X, *, reset: bool) -> np.ndarray:
    """Continuous float64 array from X; a clear error for categorical/string columns and missing values."""
    refuse_dask(est, X, method="fit" if reset else "predict")
    if isinstance(X, pd.DataFrame):
        check_unique_columns(X, "NaiveBayesMap")
        if X.shape[1] == 0:
            raise ValueError("X has no columns (0 features); NaiveBayesMap needs at least one numeric column.")
        for col in X.columns:
            s = X[col]
            if isinstance(s.dtype, pd.CategoricalDtype) or not (pd.api.types.is_numeric_dtype(s.dtype)
                                                                and not pd.api.types.is_bool_dtype(s.dtype)):
                kind = "categorical" if isinstance(s.dtype, pd.CategoricalDtype) else f"of dtype {s.dtype}"
                example = s.dropna().iloc[0] if s.notna().any() else None
                raise TypeError(f"Column {col!r} is {kind} (e.g. {example!r}); NaiveBayesMap needs continuous "
                                "numeric columns. Drop it, or one-hot encode it (pandas.get_dummies) if a 0/1 "
                                "coding makes sense for a map.")
        index = X.index
        arr = X.to_numpy(dtype=np.float64, copy=True)
        X = validate_data(est, X, reset=reset, skip_check_array=True)
    else:
        arr = check_array(X, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=1, copy=True)
        index = None
        validate_data(est, arr, reset=reset, skip_check_array=True)
    names = list(getattr(est, "feature_names_in_", [])) or [f"x{i}" for i in range(arr.shape[1])]
    bad = ~np.isfinite(arr)
    if bad.any():
        r, c = (int(v[0]) for v in np.nonzero(bad))
        label = index[r] if index is not None else r
        raise ValueError(f"Column {names[c]!r} has value {float(arr[r, c])!r} at row {label!r}; NaiveBayesMap "
                         "needs finite values (Input X contains NaN or infinity). Drop or impute those rows first.")
    return np.ascontiguousarray(arr)


@fill_doc
class NaiveBayesMap(ClusterMixin, TransformerMixin, BaseEstimator):
    """Naive Bayes map (NBM / NBSOM): a 2-D topographic map that is also a density model.

    K = L1 x L2 neurons on a grid, each a diagonal-Gaussian naive Bayes component with its own means and
    variances and a fixed prior 1/K (thesis chapter 5; Ruz & Pham 2012). Training is online: each sample picks the
    winner by posterior and moves every neuron by the Robbins-Monro step of Titterington's online EM with the
    responsibility replaced by a Gaussian neighbourhood on the grid (Ruz's thesis, eqs. 5.12-5.17 and its schedules;
    ``docs/decisions/seed000-sbn-cem-nbm.md``, "NBM learning rule"). ``n_init`` maps are trained from spawned generators
    and the one with the highest final log-likelihood is kept.

    Parameters
    ----------
    grid : (int, int), default (10, 10)
        Rows and columns of the output grid, each >= 2.
    n_epochs : int, default 50
        Passes over the data (one random permutation each).
    sigma0 : float, optional
        Initial neighbourhood range; default ``max(grid) / 2``.
    learning_rate : (float, float) or None, default (0.1, 0.05)
        ``(a0, a1)``: the learning rate of the variance update decays from ``a0`` to ``a1`` over the epochs (the
        thesis's factor alpha(e), eq. 5.22; see :func:`learning_rate_schedule`); None: no factor.
    var_floor : float, default 1.0
        Variance floor in standardised units: no neuron's variance in any feature falls below it. The thesis's
        rule has ``1e-6``; the default 1.0 (the data's own variance after z-scoring) is issue 27's fix: with a tiny
        floor, neurons shrink their variances on near-constant features and a few broad neurons on the border win
        almost every sample of high-dimensional data (digits: 21 of 100 neurons used, T(10) 0.73).
    init : {"pca", "uniform", "data"}, default "pca"
        Initial means: on the data's principal plane, deterministic (:func:`principal_plane`, as GTM and MiniSom's
        ``pca_weights_init``; variances the data's, floored), ``U(0, 1)`` (the thesis's demo) or random data rows;
        for the last two the variances start at ``U(0, 1) + var_floor``.
    variance_update : {"thesis", "exact"}, default "thesis"
        The printed eq. 5.16 or the exact recursive weighted variance.
    standardize : bool, default True
        Z-score every column with the training mean and standard deviation before fitting (the thesis's
        preprocessing); ``means_`` and ``variances_`` are then in standardised units.
    projection : {"soft", "hard"}, default "soft"
        What :meth:`transform` returns: the posterior mean of the grid coordinates (eq. 5.18) or the winner's.
    temperature : float > 0, default 0.75
        Posterior temperature of the soft projection: the coordinates are the grid positions averaged with weights
        ``gamma_rk ** (1 / temperature)`` (normalised). 1 is eq. 5.18, the thesis's; smaller values move points
        towards their winner (towards ``projection="hard"``), larger ones towards the map's centre. With the
        variances floored at the data's, the plain posterior spreads a point over several neighbouring neurons and
        its mean pulls neighbours of different regions together, trading trustworthiness for continuity
        (docs/decisions/issue27-maps.md, sections 6-7). :meth:`predict_proba` is always the plain posterior.
    window : float > 0 or None, default 0.45
        Radius of the soft projection's window, as a fraction of the grid's longer side: the posterior mean is
        taken over the neurons within ``window * max(grid)`` grid units of the point's winner (0.45 on a 10 x 10
        grid: a disc of radius 4.5 grid units) and the rest get weight 0. None: every neuron (eq. 5.18, the thesis's).
        A point whose posterior also has mass on a distant part of the map (where the map folds) is otherwise
        pulled between the two places, next to points it is far from in the data; the window keeps it near its
        winner. With the temperature 0.75 it raised the mean T(10) over sixteen held-out sets from 0.934 to 0.940
        for a C(10) of 0.944 instead of 0.947 (docs/decisions/issue27-maps.md, section 7).
    n_init : int, default 1
        Restarts; the best by final log-likelihood is kept. With ``init="pca"`` restarts differ only in the order
        the rows are presented (the thesis's rule used 10 uniform starts).
    %(n_jobs)s
    random_state : None, int or numpy.random.Generator
    show_progress : bool, default False

    Attributes
    ----------
    means_, variances_ : ndarray (K, n_used)
        Neuron means and variances of the best restart (neuron ``k = row * L2 + col``), one column per feature of
        ``used_features_``.
    used_features_ : ndarray of int
        Indices of the input columns the map is trained on: every column that is not constant.
    constant_features_ : ndarray of str
        Names of the constant input columns (``x<i>`` for arrays): dropped at fit with one warning that lists them
        all, and ignored at transform/predict (whatever value they then hold).
    grid_ : ndarray (K, 2)
        Grid coordinates ``(row, col)`` of the neurons.
    ll_trace_ : ndarray (n_epochs,)
        Training log-likelihood (sum over rows, eq. 5.6) after each epoch, best restart.
    ll_traces_ : ndarray (n_init, n_epochs)
        The same for every restart.
    best_init_ : int
        Index of the restart kept.
    labels_ : ndarray (N,)
        Winner neuron of every training row.
    center_, scale_ : ndarray (n_features,)
        Standardisation (zeros and ones when ``standardize=False``).
    n_iter_ : int
        Epochs run.
    n_features_in_, feature_names_in_ :
        As in scikit-learn.

    See Also
    --------
    pgmpy_ext.evaluation.trustworthiness, pgmpy_ext.evaluation.continuity : map quality.
    pgmpy_ext.maps.plot_map : the map scatter.

    Notes
    -----
    **Input.** Continuous numeric columns without missing values (impute first). Constant columns are dropped
    (see ``constant_features_``). Categorical or string columns are refused with a message: a diagonal-Gaussian
    neuron has no model for a category. To map mixed data, one-hot encode the categorical columns first
    (``pandas.get_dummies(df, dtype=float)`` or ``sklearn.preprocessing.OneHotEncoder(sparse_output=False)`` in a
    ``Pipeline``); with ``standardize=True`` each 0/1 column is then z-scored like any other, so a rare category
    gets a large spread and weighs as much as a continuous feature. Binary 0/1 columns are used as they are. A
    column with many categories becomes many columns and can dominate the map: scale those columns down, or
    drop the ones you do not want the map to order by.

    One online step for the sample x, the j-th presented (j from 0 over all epochs), winner ``k*``:

    .. math::

        \\Lambda_k = \\exp(-\\|y_k - y_{k^*}\\|^2 / 2\\sigma^2), \\quad
        \\eta_k = \\Lambda_k / (j/K + \\Lambda_k), \\quad
        \\omega_k \\leftarrow \\omega_k + \\eta_k (x - \\omega_k), \\quad
        \\sigma^2_k \\leftarrow \\sigma^2_k + \\alpha(e)\\,\\eta_k [(x - \\omega_k^{old})^2 - (1 - \\eta_k)\\sigma^2_k]

    floored at ``var_floor``. The soft projection of x (eq. 5.18, with the temperature T and the window W of
    radius r around the winner ``k*``; the thesis's: T = 1, r infinite):

    .. math::

        y(x) = \\sum_{k \\in W} w_k y_k, \\quad w_k \\propto \\gamma_k(x)^{1/T}, \\quad
        W = \\{k : \\|y_k - y_{k^*}\\| \\le r\\}.

    **Defaults vs the thesis (issue 27, docs/decisions/issue27-maps.md).** The defaults
    start on the principal plane with one restart (the thesis: uniform means, 10 restarts), floor the variances at
    the data's variance (the thesis: 1e-6) and project at posterior temperature 0.75 within a window of radius
    0.45 of the grid's side around the winner (the thesis: temperature 1, every neuron). Chosen on digits and
    checked on sixteen held-out sets (mean T(10) / C(10) 0.940 / 0.944 vs 0.886 / 0.915 with the thesis's rule on
    the first eleven; ``benchmarks/results/maps_issue27_why_t.md``). ``NaiveBayesMap(**THESIS_RULE)``
    (``pgmpy_ext.maps.THESIS_RULE``) is the thesis's map exactly; the reproductions use it. Other departures: the
    schedules and the variance update are reconstructions of garbled equations
    (``docs/decisions/seed000-sbn-cem-nbm.md``, "Ambiguities, errors and gaps → decisions"); the floor is ours.
    Titterington's plain online EM (the thesis's eqs. 5.7-5.11, with a learned prior) is not implemented.

    **pgmpy export.** pgmpy 1.1.2 has no model class for a discrete latent parent with Gaussian children: its
    ``DiscreteBayesianNetwork`` takes only ``TabularCPD``, ``LinearGaussianBayesianNetwork`` only continuous
    nodes, and ``FunctionalBayesianNetwork`` needs pyro (torch) and samples rather than evaluates. So the map is
    not exported; ``means_``, ``variances_`` and the uniform prior 1/K are the whole model.

    References
    ----------
    G. A. Ruz, PhD thesis (Cardiff), chapter 5; Ruz & Pham, Neural Comput. & Applic. 21:1319-1330 (2012).

    Examples
    --------
    >>> import numpy as np
    >>> from pgmpy_ext.maps import NaiveBayesMap
    >>> X = np.random.default_rng(0).normal(size=(60, 3))
    >>> nbm = NaiveBayesMap(grid=(4, 4), n_epochs=5, n_init=2, random_state=0).fit(X)
    >>> nbm.transform(X).shape, nbm.predict_proba(X).shape, nbm.ll_trace_.shape
    ((60, 2), (60, 16), (5,))
    """

    def __init__(self, *, grid=(10, 10), n_epochs=50, sigma0=None, learning_rate=(0.1, 0.05), var_floor=1.0,
                 init="pca", variance_update="thesis", standardize=True, projection="soft", temperature=0.75,
                 window=0.45, n_init=1, n_jobs=None, random_state=None, show_progress=False):
        self.grid = grid
        self.n_epochs = n_epochs
        self.sigma0 = sigma0
        self.learning_rate = learning_rate
        self.var_floor = var_floor
        self.init = init
        self.variance_update = variance_update
        self.standardize = standardize
        self.projection = projection
        self.temperature = temperature
        self.window = window
        self.n_init = n_init
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.show_progress = show_progress

    _parameter_constraints = {
        **PARAMETER_VOCABULARY, "grid": ["array-like"], "n_epochs": [Interval(numbers.Integral, 1, None)],
        "sigma0": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "learning_rate": [None, "array-like"], "var_floor": [Interval(numbers.Real, 0, None, closed="neither")],
        "init": [Options(INITS)], "variance_update": [Options(VARIANCE_UPDATES)], "standardize": ["boolean"],
        "projection": [Options("soft", "hard")], "temperature": [Interval(numbers.Real, 0, None, closed="neither")],
        "window": [None, Interval(numbers.Real, 0, None, closed="neither")],
    }

    def _check_params(self):
        check_params(self)
        grid = tuple(self.grid)
        if len(grid) != 2 or not all(isinstance(g, numbers.Integral) and not isinstance(g, bool) for g in grid):
            raise ValueError(f"grid == {self.grid!r}, must be a pair of ints (rows, columns), e.g. (10, 10).")
        L1, L2 = (int(g) for g in grid)
        if L1 < 2 or L2 < 2:
            raise ValueError(f"grid == {grid!r}, must be at least (2, 2): a map needs two grid dimensions. Use e.g. "
                             "grid=(10, 10).")
        if self.learning_rate is not None:
            a = tuple(self.learning_rate)
            if len(a) != 2 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)
                                      and v > 0 for v in a):
                raise ValueError(f"learning_rate == {self.learning_rate!r}, must be None or a pair (a0, a1) of "
                                 "finite numbers > 0.")
        return L1, L2

    def fit(self, X, y=None):
        """Train ``n_init`` maps on X (continuous, no missing values) and keep the best by log-likelihood."""
        grid = self._check_params()
        Xa = _check_continuous(self, X, reset=True)
        if Xa.shape[0] < 2:
            raise ValueError(f"NaiveBayesMap needs at least 2 samples, got {Xa.shape[0]} sample.")
        names = list(getattr(self, "feature_names_in_", [])) or [f"x{i}" for i in range(Xa.shape[1])]
        sd = Xa.std(axis=0)
        const = ~(sd > 0)
        if const.all():
            raise ValueError(f"every column is constant ({names}); a map needs at least one column that varies.")
        self.constant_features_ = np.array([names[c] for c in np.flatnonzero(const)], dtype=object)
        self.used_features_ = np.flatnonzero(~const)
        if const.any():
            warnings.warn(f"NaiveBayesMap: {int(const.sum())} constant column(s) {list(self.constant_features_)} "
                          "carry nothing for a map to learn; they are ignored at fit and at transform. Drop them "
                          "yourself to silence this warning.", UserWarning, stacklevel=2)
            Xa, sd = Xa[:, self.used_features_], sd[self.used_features_]
        if self.standardize:
            self.center_, self.scale_ = Xa.mean(axis=0), sd
        else:
            self.center_, self.scale_ = np.zeros(Xa.shape[1]), np.ones(Xa.shape[1])
        Z = (Xa - self.center_) / self.scale_
        kw = {"grid": grid, "n_epochs": self.n_epochs, "sigma0": self.sigma0, "learning_rate": self.learning_rate,
              "var_floor": float(self.var_floor), "init": self.init, "variance_update": self.variance_update}
        # the online steps run in a kernel that releases the GIL: threads, no copies of Z
        runs = run_starts(partial(_fit_nbm_start, Z, kw), self.n_init, self.random_state, n_jobs=self.n_jobs,
                          prefer="threads", show_progress=self.show_progress, desc="NBM restarts")
        self.ll_traces_ = np.array([r.ll_trace for r in runs])
        self.best_init_ = int(np.argmax(self.ll_traces_[:, -1]))  # ties: the first restart
        best = runs[self.best_init_]
        self.means_, self.variances_ = best.means, best.variances
        self.ll_trace_ = best.ll_trace
        self.grid_ = grid_coordinates(grid)
        self.n_iter_ = self.n_epochs
        self._state = NBMState(self.means_, self.variances_, self.grid_)
        self.labels_ = self._state.log_density(Z).argmax(axis=1)
        return self

    def _log_density(self, X) -> np.ndarray:
        Xa = _check_continuous(self, X, reset=False)[:, self.used_features_]
        return self._state.log_density((Xa - self.center_) / self.scale_)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior ``gamma_rk`` of every neuron (N, K) (eq. 5.7 with the uniform prior)."""
        check_is_fitted(self)
        return np.exp(log_normalize_rows(self._log_density(X)))

    def predict(self, X) -> np.ndarray:
        """Winner neuron ``argmax_k gamma_rk`` (ties: the smallest k)."""
        check_is_fitted(self)
        return self._log_density(X).argmax(axis=1)

    def transform(self, X) -> np.ndarray:
        """Map coordinates (N, 2): mean of the grid positions under the posterior at ``temperature`` over the
        neurons within ``window`` of the winner (``projection="soft"``; eq. 5.18 at temperature 1 without a
        window) or the winner's position (``"hard"``)."""
        check_is_fitted(self)
        lp = self._log_density(X)
        if self.projection == "hard":
            return self.grid_[lp.argmax(axis=1)].copy()
        if self.window is not None:
            G = self.grid_
            radius = float(self.window) * (float(G.max()) + 1.0)   # the grid's longer side, in grid units
            d2 = ((G[:, None, :] - G[None, :, :]) ** 2).sum(-1)      # (K, K) squared grid distances
            lp = np.where(d2[lp.argmax(axis=1)] > radius * radius, -np.inf, lp)   # the winner is always inside
        if self.temperature != 1.0:
            lp = lp / self.temperature
        return np.exp(log_normalize_rows(lp)) @ self.grid_

    def score_samples(self, X) -> np.ndarray:
        """``log p(x)`` of every row, in the model's (standardised) units."""
        check_is_fitted(self)
        lp = self._log_density(X)
        return logsumexp_rows(lp) - np.log(lp.shape[1])

    def score(self, X, y=None) -> float:
        """Mean log-likelihood per row (as ``GaussianMixture.score``)."""
        check_is_fitted(self)
        return float(self.score_samples(X).mean())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.categorical = False
        tags.input_tags.string = False
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
