"""Wrappers around the latent-class E-step kernels (``pgmpy_ext._core._em``): validate, allocate, call.

The latent-class model is a naive Bayes whose class ``C`` (the cluster, K states) is never observed. Its
parameters are stored as one (R, K) table, R the total number of states of the variables: the rows of variable
``v`` (``offsets[v] .. offsets[v+1]-1``) hold ``P(X_v | C)`` as pgmpy's ``TabularCPD.get_values()`` with evidence
``C``. A variable may own several code columns (``ploidy`` allele copies of a genetic locus, all with the same
parameters), and a code of -1 is a missing cell (or allele copy), summed out exactly. Seed 001 sections 2, 4 and 9.2
(``docs/decisions/seed001-ema-popgen.md``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from pgmpy_ext._core import _em
from pgmpy_ext.data import kernel_codes
from pgmpy_ext.stats._layout import BlockLayout
from pgmpy_ext.utils import LOG_PROB_FLOOR

__all__ = ["MISSING_POLICIES", "LatentClassLayout", "LatentEStep", "latent_class_estep", "latent_class_log_joint",
           "latent_class_mixture_log_joint", "pairwise_dependence_topk"]

MISSING_POLICIES = ("impute", "available_case")


@dataclass(frozen=True, eq=False)
class LatentClassLayout(BlockLayout):
    """Parameter layout of a latent-class model over ``n_vars`` discrete variables with ``ploidy`` columns each.

    A :class:`~pgmpy_ext.stats._layout.BlockLayout` over the flat ``(R * K,)`` view of the (R, K) table: block
    ``v`` is ``P(X_v | C)`` shaped ``(r_v, K)``, so ``layout.normalize(counts.ravel(), alpha)`` is the MAP (posterior
    mean) M step of every variable.

    Attributes
    ----------
    cards : intp (n_vars,)
        Cardinality of each variable.
    n_clusters : int
        K.
    ploidy : int
        Code columns per variable (1 for ordinary data; 2 for diploid genotypes).
    col_var : intp (n_vars * ploidy,)
        Variable of each code column; variable ``v`` owns columns ``v * ploidy .. v * ploidy + ploidy - 1``.
    offsets : intp (n_vars + 1,)
        Variable ``v``'s states are rows ``offsets[v] .. offsets[v + 1] - 1`` of the (R, K) tables.

    Examples
    --------
    >>> lay = LatentClassLayout.build([2, 3], n_clusters=2, ploidy=2)
    >>> lay.offsets.tolist(), lay.col_var.tolist(), lay.n_states, lay.block_shapes
    ([0, 2, 5], [0, 0, 1, 1], 5, ((2, 2), (3, 2)))
    """

    cards: np.ndarray
    n_clusters: int
    ploidy: int
    col_var: np.ndarray
    offsets: np.ndarray

    @classmethod
    def build(cls, cards, n_clusters: int, ploidy: int = 1) -> LatentClassLayout:
        cards = np.ascontiguousarray(np.asarray(cards, dtype=np.intp).reshape(-1))
        if (cards < 1).any():
            raise ValueError(f"variable cardinalities must be >= 1, got {cards.tolist()}.")
        if int(n_clusters) < 1:
            raise ValueError(f"n_clusters == {n_clusters}, must be >= 1.")
        if int(ploidy) < 1:
            raise ValueError(f"ploidy == {ploidy}, must be >= 1.")
        K, P = int(n_clusters), int(ploidy)
        offsets = np.zeros(len(cards) + 1, dtype=np.intp)
        np.cumsum(cards, out=offsets[1:])
        col_var = np.ascontiguousarray(np.repeat(np.arange(len(cards), dtype=np.intp), P))
        return cls(cards=cards, n_clusters=K, ploidy=P, col_var=col_var, offsets=offsets)

    @property
    def block_offsets(self) -> np.ndarray:
        return self.offsets * self.n_clusters

    @property
    def block_shapes(self) -> tuple:
        return tuple((int(r), self.n_clusters) for r in self.cards)

    @property
    def n_vars(self) -> int:
        return int(len(self.cards))

    @property
    def n_states(self) -> int:
        """R, the number of rows of the parameter tables."""
        return int(self.offsets[-1])

    @property
    def n_columns(self) -> int:
        return int(len(self.col_var))

    @property
    def state_var(self) -> np.ndarray:
        """intp (R,): the variable of every table row."""
        return np.repeat(np.arange(self.n_vars, dtype=np.intp), self.cards)

    def normalize(self, counts, alpha: float = 0.0, *, log: bool = False) -> np.ndarray:
        """:meth:`BlockLayout.normalize` vectorised over the variables (every block is ``(r_v, K)``), in O(R K).

        The inherited loop over blocks reads ``block_shapes`` (a tuple rebuilt over all variables) per block, which
        is quadratic in ``n_vars`` (minutes per M step for the 7,129 leukemia probes). Same result: columns with a
        zero total get ``1 / r_v``."""
        counts = self.check_flat(counts, "counts")
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(f"alpha == {alpha!r}, must be >= 0.")
        t = counts.reshape(self.n_states, self.n_clusters) + alpha
        sv = self.state_var
        tot = self.sum_by_variable(t)[sv]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(tot > 0, t / tot, 1.0 / np.asarray(self.cards, dtype=np.float64)[sv][:, None])
        out = np.ascontiguousarray(out).reshape(-1)
        if log:
            with np.errstate(divide="ignore"):
                np.log(out, out=out)
        return out

    def sum_by_variable(self, table: np.ndarray) -> np.ndarray:
        """``(n_vars, ...)`` sums of the rows of ``table`` (R, ...) within each variable."""
        return np.add.reduceat(table, self.offsets[:-1], axis=0) if self.n_vars else table[:0]

    def check_codes(self, codes, *, narrow: bool = False) -> np.ndarray:
        """``codes`` as C-contiguous int32 (N, n_vars * ploidy) with every code in ``-1 .. card - 1``.

        ``narrow=True`` (only for the fused E-step kernels, never for arithmetic) keeps int8 / int16 codes as they
        are (:func:`pgmpy_ext.data.kernel_codes`)."""
        X = kernel_codes(codes) if narrow else np.ascontiguousarray(np.asarray(codes), dtype=np.int32)
        if X.ndim != 2 or X.shape[1] != self.n_columns:
            raise ValueError(f"codes must have shape (n_rows, {self.n_columns}) ({self.n_vars} variables x ploidy "
                             f"{self.ploidy}); got {X.shape}.")
        if X.size:
            hi = np.asarray(self.cards)[self.col_var]
            bad = (X < -1) | (X >= hi[None, :])
            if bad.any():
                r, c = (int(v[0]) for v in np.nonzero(bad))
                raise ValueError(f"code {int(X[r, c])} in row {r}, column {c} is out of range: variable "
                                 f"{int(self.col_var[c])} has {int(hi[c])} states (codes 0..{int(hi[c]) - 1}, "
                                 "-1 for missing).")
        return X

    def check_table(self, table, name: str) -> np.ndarray:
        t = np.ascontiguousarray(table, dtype=np.float64)
        if t.shape != (self.n_states, self.n_clusters):
            raise ValueError(f"{name} has shape {t.shape}, expected ({self.n_states}, {self.n_clusters}).")
        return t


@dataclass
class LatentEStep:
    """Result of :func:`latent_class_estep`.

    Attributes
    ----------
    loglik : float
        Observed-data log-likelihood ``sum_d w_d log p(x_d)`` (natural log; missing cells summed out).
    counts : float64 (R, K)
        Expected counts ``E[N(X_v = k, C = j)]``.
    cluster_counts : float64 (K,)
        ``E[N(C = j)] = sum_d w_d q_dj``.
    resp : float64 (N, K) or None
        Posteriors ``q_dj = P(C = j | x_d)`` when asked for.
    n_zero : int
        Rows of probability zero under the parameters (only possible with zero probabilities).
    """

    loglik: float
    counts: np.ndarray
    cluster_counts: np.ndarray
    resp: np.ndarray | None
    n_zero: int


def latent_class_estep(layout: LatentClassLayout, codes, weights, log_theta, log_prior, *, theta=None,
                       missing: str = "impute", return_resp: bool = False, counts: bool = True,
                       check: bool = True) -> LatentEStep:
    """E step of the latent-class model: posteriors, expected counts and the observed-data log-likelihood.

    Parameters
    ----------
    layout : LatentClassLayout
    codes : int8, int16 or int32 (N, n_vars * ploidy)
        State codes, -1 for a missing cell (or allele copy). Typically distinct rows with multiplicities.
    weights : float64 (N,) or None
        Row weights (multiplicities); ones when None.
    log_theta : float64 (R, K)
        ``log P(X_v = k | C = j)``.
    log_prior : float64 (K,)
        ``log P(C = j)``.
    theta : float64 (R, K), optional
        ``exp(log_theta)``; computed when needed (``missing="impute"``) and not given.
    missing : {"impute", "available_case"}, default "impute"
        What a missing cell adds to the expected counts: ``q_dj * theta`` over its states (the exact EM expectation
        under missing at random, Santafé 2007, eq. 8.1) or nothing (available-case counting). The posteriors and the
        log-likelihood are the same either way (missing cells are summed out).
    return_resp : bool, default False
    counts : bool, default True
        False skips the expected counts (posteriors and log-likelihood only).
    check : bool, default True
        Validate the codes' range (engines that validated once pass False inside their iterations).

    Examples
    --------
    One binary variable, two clusters, rows ``0``, ``1`` and a missing cell:

    >>> import numpy as np
    >>> lay = LatentClassLayout.build([2], n_clusters=2)
    >>> theta = np.array([[0.9, 0.2], [0.1, 0.8]])
    >>> res = latent_class_estep(lay, np.array([[0], [1], [-1]]), None, np.log(theta), np.log([0.5, 0.5]),
    ...                          return_resp=True)
    >>> res.resp.round(4).tolist()
    [[0.8182, 0.1818], [0.1111, 0.8889], [0.5, 0.5]]
    >>> res.counts.round(4).tolist(), res.cluster_counts.round(4).tolist()
    ([[1.2682, 0.2818], [0.1611, 1.2889]], [1.4293, 1.5707])
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing == {missing!r}, must be one of {MISSING_POLICIES}.")
    X = layout.check_codes(codes, narrow=True) if check else kernel_codes(codes)
    n, K = X.shape[0], layout.n_clusters
    w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    lt = layout.check_table(log_theta, "log_theta")
    lp = np.ascontiguousarray(log_prior, dtype=np.float64)
    if lp.shape != (K,):
        raise ValueError(f"log_prior has shape {lp.shape}, expected ({K},).")
    impute = missing == "impute"
    if counts:
        out = np.zeros((layout.n_states, K))
        nc = np.zeros(K)
        if impute:
            th = np.exp(lt) if theta is None else layout.check_table(theta, "theta")
        else:
            th = np.zeros((0, K))
    else:
        out, nc, th = np.zeros((0, K)), np.zeros(K), np.zeros((0, K))
    resp = np.empty((n, K) if return_resp else (0, K))
    ll, n_zero = _em.latent_class_estep(X, w, layout.col_var, layout.offsets, lt, lp, th, impute, out, nc, resp,
                                        bool(counts))
    return LatentEStep(float(ll), out, nc, resp if return_resp else None, int(n_zero))


def latent_class_log_joint(layout: LatentClassLayout, codes, log_theta, log_prior) -> np.ndarray:
    """``log p(x_observed, C = j)`` of every row, shape (N, K) (missing cells summed out).

    Examples
    --------
    >>> import numpy as np
    >>> lay = LatentClassLayout.build([2], n_clusters=2)
    >>> latent_class_log_joint(lay, [[1], [-1]], np.log([[0.9, 0.2], [0.1, 0.8]]), np.log([0.5, 0.5])).round(4)
    array([[-2.9957, -0.9163],
           [-0.6931, -0.6931]])
    """
    X = layout.check_codes(codes, narrow=True)
    lt = layout.check_table(log_theta, "log_theta")
    lp = np.ascontiguousarray(log_prior, dtype=np.float64)
    out = np.empty((X.shape[0], layout.n_clusters))
    _em.latent_class_log_joint(X, layout.col_var, layout.offsets, lt, lp, out)
    return out


def latent_class_mixture_log_joint(layout: LatentClassLayout, codes, components) -> np.ndarray:
    """``log sum_m mix_m p_m(x, C = j)`` of every row, shape (N, K), for ``components = (mix (M,), thetas (M, R, K),
    weights (M, K))`` (a mixture of latent-class joints: the thesis's multi-start averaging, Santafé
    2007, section 7.4); missing cells summed out.
    Probabilities are floored at ``LOG_PROB_FLOOR`` in the log domain, as the engines' iterations do.

    Examples
    --------
    >>> import numpy as np
    >>> lay = LatentClassLayout.build([2], n_clusters=2)
    >>> th = np.array([[0.9, 0.2], [0.1, 0.8]])
    >>> one = latent_class_log_joint(lay, [[1]], np.log(th), np.log([0.5, 0.5]))
    >>> both = latent_class_mixture_log_joint(lay, [[1]], ([0.5, 0.5], np.stack([th, th]), np.full((2, 2), 0.5)))
    >>> bool(np.allclose(one, both))
    True
    """
    def log(a):
        with np.errstate(divide="ignore"):
            return np.maximum(np.log(a), LOG_PROB_FLOOR)

    mix, thetas, weights = components
    parts = [np.log(m) + latent_class_log_joint(layout, codes, log(t), log(w))
             for m, t, w in zip(mix, thetas, weights) if m > 0]
    stack = np.stack(parts)
    mx = stack.max(axis=0)
    with np.errstate(invalid="ignore"):
        out = mx + np.log(np.exp(stack - mx).sum(axis=0))
    return np.where(np.isfinite(mx), out, mx)


def pairwise_dependence_topk(codes, cards, *, weights=None, k: int = 4, alpha: float = 1.0,
                             n_jobs: int | None = 1) -> tuple[np.ndarray, np.ndarray]:
    r"""For every variable, its ``k`` most dependent partners by the BD log Bayes factor of pairwise dependence.

    The factor of a pair is :math:`\log ML(X_i X_j) - \log ML(X_i) - \log ML(X_j)`: the pair as one variable with
    :math:`r_i r_j` states against two independent variables, each marginal likelihood a Dirichlet-multinomial
    integral with ``alpha`` per cell, over the rows where both cells are observed (row ``weights``, e.g. the
    multiplicities of distinct rows). Positive values favour dependence. It is what the ``init="dependency"`` starts
    of the latent-class clusterers rank variables by (issue 30). Cost :math:`O(n_{vars}^2 N)` in the Cython kernel
    ``pgmpy_ext._core._em.pairwise_dependence_topk`` (OpenMP over the variables when ``n_jobs`` > 1; the result
    does not depend on it).

    Parameters
    ----------
    codes : int array (N, n_vars)
        State codes, -1 for missing.
    cards : int array (n_vars,)
    weights : float array (N,), optional
    k : int, default 4
        Partners kept per variable (at most ``n_vars - 1``).
    alpha : float, default 1.0
    n_jobs : int or None, default 1

    Returns
    -------
    top_idx : intp (n_vars, k)
        Partners, the most dependent first (ties: the smaller index first).
    top_val : float64 (n_vars, k)
        Their log Bayes factors (natural log).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 200)
    >>> X = np.c_[a, a ^ (rng.random(200) < 0.1), rng.integers(0, 3, 200)]
    >>> idx, val = pairwise_dependence_topk(X, [2, 2, 3], k=1)
    >>> idx.ravel().tolist(), bool(val[0, 0] > 50 > 0 > val[2, 0])
    ([1, 0, 1], True)
    """
    X = np.asarray(codes)
    if X.ndim != 2:
        raise ValueError(f"codes must be 2-D (N, n_vars); got shape {X.shape}.")
    n, p = X.shape
    cards = np.ascontiguousarray(cards, dtype=np.intp)
    if cards.shape != (p,):
        raise ValueError(f"cards has {cards.shape[0]} entries for {p} variables.")
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha == {alpha!r}, must be > 0.")
    k = int(max(0, min(int(k), p - 1)))
    w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (n,) or (w < 0).any() or not np.isfinite(w).all():
        raise ValueError(f"weights must be {n} finite non-negative numbers (one per row).")
    XT = kernel_codes(np.ascontiguousarray(X.T))
    integral = bool(np.all(w == np.round(w)))
    from scipy.special import gammaln

    total = int(round(w.sum())) if integral else 0
    table = (gammaln(np.arange(total + 1) + alpha) - gammaln(alpha)) if integral else np.zeros(0)
    top_idx = np.empty((p, k), dtype=np.intp)
    top_val = np.empty((p, k), dtype=np.float64)
    n_threads = 1 if n_jobs is None else (os.cpu_count() or 1) if n_jobs < 0 else int(n_jobs)
    _em.pairwise_dependence_topk(XT, cards, w, float(alpha), np.ascontiguousarray(table), integral, n_threads,
                                 top_idx, top_val)
    return top_idx, top_val
