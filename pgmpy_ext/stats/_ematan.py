"""EMA-TAN (expectation model averaging over TAN/forest structures given an order): the layout of the mixture CPDs,
the E step, the pair accumulation and the log-likelihood (``pgmpy_ext._core._ematan``), and the closed-form MA
step (numpy, vectorised over the flat buffers).

Seed 001 section 7.3.2, spec ``docs/decisions/seed001-ema-popgen.md`` section 5. Variables are indexed in the
averaging order pi (position ``i``; the caller permutes its columns once). Variable ``i`` has ``2(i+1)`` parent-set
options, stored in this order (global option index ``i(i+1) + o``):

====================  ==============  ============================================
``o``                 parent set      table (``theta~``, posterior mean)
====================  ==============  ============================================
``0``                 ``{}``          ``single_ind`` block i, shape ``(r_i,)``
``1 + l`` (l < i)     ``{X_l}``       ``pair_ind`` block (i, l), ``(r_l, r_i)``
``i + 1``             ``{C}``         ``single_dep`` block i, ``(r_i, K)``
``i + 2 + l``         ``{C, X_l}``    ``pair_dep`` block (i, l), ``(r_l, r_i, K)``
====================  ==============  ============================================

The flat layouts are documented in ``cython_core/_ematan.pyx``. The options without C have plain counts (complete
data), so their tables and marginal likelihoods are computed once (:func:`tan_mixture_constants`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from pgmpy_ext._core import _ematan

__all__ = ["TANMixtureLayout", "TANMixtureParams", "TANMixtureConstants", "TANEStep", "tan_mixture_constants",
           "ematan_estep", "ematan_accumulate", "ematan_log_joint", "ematan_ma_step", "max_abs_change", "pair_cmi"]


def _intp(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.intp))


@dataclass(frozen=True, eq=False)
class TANMixtureLayout:
    """Offsets and index maps of the EMA-TAN mixture CPDs for ``n`` variables (in the order pi) and ``K`` clusters.

    Attributes
    ----------
    cards : intp (n,)
        Cardinalities in the order pi.
    n_clusters : int
        K.
    single_off : intp (n + 1,)
    pair_off : intp (n(n-1)/2 + 1,)
        Offsets of the flat tables (``cython_core/_ematan.pyx``); pair ``p(i, l) = i(i-1)/2 + l``.
    pair_child, pair_parent : intp (n(n-1)/2,)
        ``i`` and ``l`` of every pair.

    Examples
    --------
    >>> lay = TANMixtureLayout.build([2, 3, 2], 2)
    >>> lay.single_off.tolist(), lay.pair_off.tolist(), lay.n_options
    ([0, 2, 5, 7], [0, 6, 10, 16], 12)
    >>> lay.option_parents(2)      # (has C, predecessor or -1) for the 6 options of the third variable
    [(False, -1), (False, 0), (False, 1), (True, -1), (True, 0), (True, 1)]
    """

    cards: np.ndarray
    n_clusters: int
    single_off: np.ndarray
    pair_off: np.ndarray
    pair_child: np.ndarray
    pair_parent: np.ndarray

    @classmethod
    def build(cls, cards, n_clusters: int) -> TANMixtureLayout:
        cards = _intp(cards)
        if cards.ndim != 1 or (cards < 1).any():
            raise ValueError(f"cards must be a 1-D array of cardinalities >= 1, got {cards.tolist()}.")
        K = int(n_clusters)
        if K < 1:
            raise ValueError(f"n_clusters == {K}, must be >= 1.")
        n = cards.shape[0]
        single_off = np.concatenate([[0], np.cumsum(cards)]).astype(np.intp)
        child = np.array([i for i in range(n) for _ in range(i)], dtype=np.intp)
        parent = np.array([lp for i in range(n) for lp in range(i)], dtype=np.intp)
        sizes = cards[parent] * cards[child] if n > 1 else np.zeros(0, dtype=np.intp)
        pair_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        return cls(cards, K, _intp(single_off), _intp(pair_off), _intp(child), _intp(parent))

    # ------------------------------------------------------------------ sizes
    @property
    def n_vars(self) -> int:
        return int(self.cards.shape[0])

    @property
    def n_pairs(self) -> int:
        return int(self.pair_child.shape[0])

    @property
    def n_single(self) -> int:
        return int(self.single_off[-1])

    @property
    def n_pair_cells(self) -> int:
        return int(self.pair_off[-1])

    @property
    def n_options(self) -> int:
        """``sum_i 2(i+1) = n(n+1)``."""
        return self.n_vars * (self.n_vars + 1)

    @cached_property
    def option_off(self) -> np.ndarray:
        """intp (n + 1,): options of variable ``i`` are ``option_off[i]:option_off[i+1]`` (``i(i+1)``)."""
        i = np.arange(self.n_vars + 1, dtype=np.intp)
        return i * (i + 1)

    def option_parents(self, i: int) -> list:
        """``[(has_c, l)]`` for the options of variable ``i`` in storage order (``l = -1``: no predecessor)."""
        return ([(False, -1)] + [(False, lp) for lp in range(i)] + [(True, -1)] + [(True, lp) for lp in range(i)])

    @cached_property
    def option_var(self) -> np.ndarray:
        """intp (n_options,): the variable of every option."""
        return np.repeat(np.arange(self.n_vars, dtype=np.intp), 2 * (np.arange(self.n_vars) + 1))

    @cached_property
    def option_has_c(self) -> np.ndarray:
        return np.concatenate([np.repeat([False, True], i + 1) for i in range(self.n_vars)]).astype(bool)

    @cached_property
    def option_pred(self) -> np.ndarray:
        """intp (n_options,): the predecessor ``l`` of every option, -1 for ``{}`` and ``{C}``."""
        out = [np.concatenate([[-1], np.arange(i), [-1], np.arange(i)]) for i in range(self.n_vars)]
        return np.concatenate(out).astype(np.intp) if out else np.zeros(0, dtype=np.intp)

    # option index of every block
    @cached_property
    def _opt_single_ind(self) -> np.ndarray:
        return self.option_off[:-1].copy()

    @cached_property
    def _opt_single_dep(self) -> np.ndarray:
        return self.option_off[:-1] + np.arange(self.n_vars) + 1

    @cached_property
    def _opt_pair_ind(self) -> np.ndarray:
        return self.option_off[self.pair_child] + 1 + self.pair_parent

    @cached_property
    def _opt_pair_dep(self) -> np.ndarray:
        return self.option_off[self.pair_child] + self.pair_child + 2 + self.pair_parent

    # ------------------------------------------------------------------ cell -> (configuration, option) maps
    @cached_property
    def _maps(self) -> dict:
        """For each flat table: ``cfg`` (cell -> parent configuration), ``r`` (configuration -> child card),
        ``opt`` (cell -> option), ``cfg_opt`` (configuration -> option)."""
        K = self.n_clusters
        cards = self.cards
        out = {}
        # single_ind: one configuration per variable
        var_of_cell = np.repeat(np.arange(self.n_vars, dtype=np.intp), cards)
        out["single_ind"] = {"cfg": var_of_cell, "r": cards.copy(), "opt": self._opt_single_ind[var_of_cell],
                                 "cfg_opt": self._opt_single_ind}
        # single_dep: (k, j) cells, configuration (i, j)
        cells = np.arange(self.n_single * K, dtype=np.intp)
        base, j = np.divmod(cells, K)
        v = var_of_cell[base]
        out["single_dep"] = {"cfg": v * K + j, "r": np.repeat(cards, K), "opt": self._opt_single_dep[v],
                                 "cfg_opt": np.repeat(self._opt_single_dep, K)}
        # pair_ind: (a, k) cells, configuration (p, a)
        P = self.n_pairs
        rl, ri = cards[self.pair_parent], cards[self.pair_child]
        pair_of_cell = np.repeat(np.arange(P, dtype=np.intp), rl * ri)
        cfg_off = np.concatenate([[0], np.cumsum(rl)]).astype(np.intp)
        local = np.arange(self.n_pair_cells, dtype=np.intp) - self.pair_off[pair_of_cell]
        cfg = cfg_off[pair_of_cell] + local // ri[pair_of_cell]
        cfg_pair = np.repeat(np.arange(P, dtype=np.intp), rl)
        out["pair_ind"] = {"cfg": cfg, "r": ri[cfg_pair], "opt": self._opt_pair_ind[pair_of_cell],
                               "cfg_opt": self._opt_pair_ind[cfg_pair]}
        # pair_dep: (a, k, j) cells, configuration ((p, a), j)
        cells = np.arange(self.n_pair_cells * K, dtype=np.intp)
        base, j = np.divmod(cells, K)
        out["pair_dep"] = {"cfg": cfg[base] * K + j, "r": np.repeat(ri[cfg_pair], K),
                               "opt": self._opt_pair_dep[pair_of_cell[base]],
                               "cfg_opt": np.repeat(self._opt_pair_dep[cfg_pair], K)}
        return out

    @cached_property
    def _cmi_maps(self) -> tuple:
        """For every cell of ``pair_dep``: its pair, cluster ``j``, configuration ``(p, a, j)`` and ``(p, k, j)``."""
        K = self.n_clusters
        cells = np.arange(self.n_pair_cells * K, dtype=np.intp)
        base, j = np.divmod(cells, K)
        sizes = (self.pair_off[1:] - self.pair_off[:-1]) * K
        pair = np.repeat(np.arange(self.n_pairs, dtype=np.intp), sizes)
        ri = self.cards[self.pair_child][pair]
        k = (base - self.pair_off[pair]) % ri
        kj_off = np.concatenate([[0], np.cumsum(self.cards[self.pair_child] * K)]).astype(np.intp)
        kj = kj_off[pair] + k * K + j
        return pair, j, self._maps["pair_dep"]["cfg"], kj

    def check_codes(self, codes) -> np.ndarray:
        c = np.ascontiguousarray(codes, dtype=np.int32)
        if c.ndim != 2 or c.shape[1] != self.n_vars:
            raise ValueError(f"codes must have shape (n_rows, {self.n_vars}) (columns in the order pi), got "
                             f"{c.shape}.")
        return c


@dataclass
class TANMixtureParams:
    """Parameters of one averaged model (probabilities, not weighted).

    Attributes
    ----------
    theta_c : float64 (K,)
        ``P(C = j)``.
    weights : float64 (n_options,)
        ``w_i^v``, the posterior of every parent-set option; they sum to 1 over each variable's options.
    single_ind, pair_ind : float64
        ``theta~`` of the options without C (constant over iterations), layouts (k) and (a, k).
    single_dep, pair_dep : float64
        ``theta~`` of the options with C, layouts (k, j) and (a, k, j).
    """

    theta_c: np.ndarray
    weights: np.ndarray
    single_ind: np.ndarray
    pair_ind: np.ndarray
    single_dep: np.ndarray
    pair_dep: np.ndarray

    def weighted(self, layout: TANMixtureLayout) -> tuple:
        """The four tables times their option's weight (what the kernels sum), and ``log theta_c``."""
        m = layout._maps
        w = self.weights
        with np.errstate(divide="ignore"):
            log_c = np.log(self.theta_c)
        return (np.ascontiguousarray(self.single_ind * w[m["single_ind"]["opt"]]),
                np.ascontiguousarray(self.single_dep * w[m["single_dep"]["opt"]]),
                np.ascontiguousarray(self.pair_ind * w[m["pair_ind"]["opt"]]),
                np.ascontiguousarray(self.pair_dep * w[m["pair_dep"]["opt"]]),
                np.ascontiguousarray(log_c))

    def permute_clusters(self, perm, layout: TANMixtureLayout) -> TANMixtureParams:
        """New params whose cluster ``j`` is this model's cluster ``perm[j]``."""
        perm = np.asarray(perm, dtype=np.intp)
        K = layout.n_clusters
        sd = self.single_dep.reshape(-1, K)[:, perm].ravel()
        pd_ = self.pair_dep.reshape(-1, K)[:, perm].ravel()
        return TANMixtureParams(self.theta_c[perm].copy(), self.weights.copy(), self.single_ind, self.pair_ind,
                                np.ascontiguousarray(sd), np.ascontiguousarray(pd_))


def max_abs_change(a: TANMixtureParams, b: TANMixtureParams) -> float:
    """L-infinity distance over ``theta_c``, the option weights and the tables with C (spec AMBIG-6)."""
    return float(max(np.max(np.abs(a.theta_c - b.theta_c)), np.max(np.abs(a.weights - b.weights), initial=0.0),
                     np.max(np.abs(a.single_dep - b.single_dep), initial=0.0),
                     np.max(np.abs(a.pair_dep - b.pair_dep), initial=0.0)))


@dataclass
class TANMixtureConstants:
    """What the options without C contribute, computed once from the data: their tables and log marginal
    likelihoods (``log_ml`` holds them at their option indices, NaN at the options with C)."""

    single_ind: np.ndarray
    pair_ind: np.ndarray
    log_ml: np.ndarray
    n_total: float
    alpha: float


def _posterior_mean_and_log_ml(counts: np.ndarray, maps: dict, alpha: float, n_options: int,
                               log_ml: np.ndarray) -> np.ndarray:
    """``theta~ = (N + a) / (N_cfg + r a)`` per cell and, added into ``log_ml`` at each option,
    ``sum_cfg [lgamma(r a) - lgamma(r a + N_cfg)] + sum_cells [lgamma(a + N) - lgamma(a)]`` (eq. 2.17)."""
    from scipy.special import gammaln  # lazily: scipy.special costs a Dask worker ~0.25 s and ~10 MB at import

    cfg, r = maps["cfg"], maps["r"]
    n_cfg = r.shape[0]
    totals = np.bincount(cfg, weights=counts, minlength=n_cfg)
    ra = r * alpha
    theta = (counts + alpha) / (totals[cfg] + ra[cfg])
    cell_terms = gammaln(counts + alpha) - gammaln(alpha)
    cfg_terms = gammaln(ra) - gammaln(ra + totals)
    log_ml += np.bincount(maps["opt"], weights=cell_terms, minlength=n_options)
    log_ml += np.bincount(maps["cfg_opt"], weights=cfg_terms, minlength=n_options)
    return theta


def _check_alpha(alpha) -> float:
    a = float(alpha)
    if not np.isfinite(a) or a <= 0:
        raise ValueError(f"alpha == {alpha!r}, must be > 0 (the Dirichlet marginal likelihood of EMA-TAN's "
                         "averaging needs a proper prior).")
    return a


@dataclass
class TANEStep:
    """Result of :func:`ematan_estep` / :func:`ematan_accumulate`.

    Attributes
    ----------
    loglik : float
        ``sum_d w_d log p(x_d)`` (NaN for :func:`ematan_accumulate`).
    counts_single, counts_pair : float64
        Expected counts of the options with C, layouts (k, j) and (a, k, j).
    cluster_counts : float64 (K,)
    resp : float64 (U, K) or None
    n_zero : int
    """

    loglik: float
    counts_single: np.ndarray
    counts_pair: np.ndarray
    cluster_counts: np.ndarray
    resp: np.ndarray | None = None
    n_zero: int = 0
    extra: dict = field(default_factory=dict)


def _weights(weights, U: int) -> np.ndarray:
    if weights is None:
        return np.ones(U, dtype=np.float64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (U,):
        raise ValueError(f"weights must have shape ({U},), got {w.shape}.")
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise ValueError("weights must be finite and >= 0.")
    return w


def ematan_accumulate(layout: TANMixtureLayout, codes, weights, resp) -> TANEStep:
    """Expected counts of every option with C from given responsibilities ``resp`` (U, K').

    ``K'`` may differ from ``layout.n_clusters`` (e.g. ``resp = ones((U, 1))`` gives the plain counts of the
    options without C, in the (k) and (a, k) layouts).

    Examples
    --------
    >>> import numpy as np
    >>> lay = TANMixtureLayout.build([2, 2], 1)
    >>> res = ematan_accumulate(lay, np.array([[0, 1], [1, 1]]), [2.0, 1.0], np.ones((2, 1)))
    >>> res.counts_single.tolist(), res.counts_pair.tolist()     # N_0[k], N_1[k]; N_10[a, k]
    ([2.0, 1.0, 0.0, 3.0], [0.0, 2.0, 0.0, 1.0])
    """
    X = layout.check_codes(codes)
    q = np.ascontiguousarray(resp, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != X.shape[0]:
        raise ValueError(f"resp must have shape ({X.shape[0]}, K), got {q.shape}.")
    K = q.shape[1]
    cs = np.empty(layout.n_single * K)
    cp = np.empty(layout.n_pair_cells * K)
    cc = np.empty(K)
    _ematan.ematan_accumulate(X, _weights(weights, X.shape[0]), layout.cards, layout.single_off, layout.pair_off, q,
                              cs, cp, cc)
    return TANEStep(float("nan"), cs, cp, cc)


def ematan_estep(layout: TANMixtureLayout, codes, weights, params: TANMixtureParams, *,
                 return_resp: bool = False) -> TANEStep:
    """One E step of EMA-TAN under ``params``: log-likelihood and the expected counts of every option with C.

    Parameters
    ----------
    layout : TANMixtureLayout
    codes : int32 (U, n)
        Distinct rows, columns in the order pi, complete.
    weights : float64 (U,) or None
        Multiplicities (None: ones).
    params : TANMixtureParams
    return_resp : bool, default False

    Returns
    -------
    TANEStep
    """
    X = layout.check_codes(codes)
    U, K = X.shape[0], layout.n_clusters
    si, sd, pi, pd_, log_c = params.weighted(layout)
    cs = np.empty(layout.n_single * K)
    cp = np.empty(layout.n_pair_cells * K)
    cc = np.empty(K)
    resp = np.empty((U if return_resp else 0, K))
    ll, n_zero = _ematan.ematan_estep(X, _weights(weights, U), layout.cards, K, layout.single_off, layout.pair_off,
                                      si, sd, pi, pd_, log_c, cs, cp, cc, resp)
    return TANEStep(float(ll), cs, cp, cc, resp if return_resp else None, int(n_zero))


def ematan_log_joint(layout: TANMixtureLayout, codes, params: TANMixtureParams) -> np.ndarray:
    """``log p(x_d, C = j)`` of complete rows (columns in the order pi), shape (U, K)."""
    X = layout.check_codes(codes)
    out = np.empty((X.shape[0], layout.n_clusters))
    si, sd, pi, pd_, log_c = params.weighted(layout)
    _ematan.ematan_log_joint(X, layout.cards, layout.n_clusters, layout.single_off, layout.pair_off, si, sd, pi,
                             pd_, log_c, out)
    return out


def tan_mixture_constants(layout: TANMixtureLayout, codes, weights, alpha: float = 1.0) -> TANMixtureConstants:
    """Tables and log marginal likelihoods of the options without C (``{}`` and ``{X_l}``), from plain counts."""
    a = _check_alpha(alpha)
    X = layout.check_codes(codes)
    w = _weights(weights, X.shape[0])
    plain = ematan_accumulate(layout, X, w, np.ones((X.shape[0], 1)))
    log_ml = np.zeros(layout.n_options)
    m = layout._maps
    si = _posterior_mean_and_log_ml(plain.counts_single, m["single_ind"], a, layout.n_options, log_ml)
    pi = _posterior_mean_and_log_ml(plain.counts_pair, m["pair_ind"], a, layout.n_options, log_ml)
    log_ml[layout.option_has_c] = np.nan
    return TANMixtureConstants(si, pi, log_ml, float(w.sum()), a)


def ematan_ma_step(layout: TANMixtureLayout, constants: TANMixtureConstants, estep: TANEStep, *,
                   log_structure_prior=None, allowed=None) -> TANMixtureParams:
    r"""Closed-form MA step (Santafé 2007, eqs. 7.25-7.32, in the closed form derived in
    ``docs/decisions/seed001-ema-popgen.md``, "EMA-TAN").

    .. math::

        w_i^v = \mathrm{softmax}_v\big(\log p_S(X_i, Pa_i^v) + \log ML_i^v\big), \qquad
        \check\theta_{C-j} = \frac{\alpha + E N_{C-j}}{K\alpha + N}

    with :math:`\log ML_i^v` the BD marginal likelihood (eq. 2.17) of option ``v`` on the expected counts, and the
    new CPD of ``X_i`` the mixture :math:`\sum_v w_i^v \tilde\theta_i^v(x_i \mid pa^v)`.

    Parameters
    ----------
    layout, constants : from :class:`TANMixtureLayout` and :func:`tan_mixture_constants`.
    estep : TANEStep
        Expected counts of the options with C.
    log_structure_prior : float64 (n_options,), optional
        ``log p_S(X_i, Pa_i^v)`` (default 0: uniform over structures, the thesis's choice).
    allowed : bool (n_options,), optional
        Options that take part (default all); the others get weight 0 (e.g. only ``{}`` and ``{C}``: EMA for
        selective naive Bayes). Every variable needs at least one allowed option.
    """
    a = constants.alpha
    K = layout.n_clusters
    log_ml = constants.log_ml.copy()
    log_ml[layout.option_has_c] = 0.0
    m = layout._maps
    sd = _posterior_mean_and_log_ml(estep.counts_single, m["single_dep"], a, layout.n_options, log_ml)
    pd_ = _posterior_mean_and_log_ml(estep.counts_pair, m["pair_dep"], a, layout.n_options, log_ml)
    score = log_ml
    if log_structure_prior is not None:
        score = score + np.asarray(log_structure_prior, dtype=np.float64)
    if allowed is not None:
        allowed = np.asarray(allowed, dtype=bool)
        score = np.where(allowed, score, -np.inf)
    off = layout.option_off[:-1]
    mx = np.maximum.reduceat(score, off)
    if not np.all(np.isfinite(mx)):
        raise ValueError("every variable needs at least one allowed parent-set option with a finite score.")
    e = np.exp(score - mx[layout.option_var])
    w = e / np.add.reduceat(e, off)[layout.option_var]
    theta_c = (estep.cluster_counts + a) / (constants.n_total + K * a)
    return TANMixtureParams(theta_c, w, constants.single_ind, constants.pair_ind, sd, pd_)


def pair_cmi(layout: TANMixtureLayout, counts_pair: np.ndarray, cluster_counts: np.ndarray) -> np.ndarray:
    r"""Conditional mutual information :math:`I(X_i; X_l \mid C)` (natural log) of every pair ``p(i, l)`` from its
    (expected) counts ``N[a, k, j]`` (layout (a, k, j)), shape (n(n-1)/2,).

    .. math:: I = \sum_{a,k,j} \frac{N_{akj}}{N} \log \frac{N_{akj} N_j}{N_{aj} N_{kj}}

    Vectorised over every pair (what structural EM with TAN, mEM-TAN, re-learns its tree from).

    Examples
    --------
    >>> import numpy as np
    >>> lay = TANMixtureLayout.build([2, 2], 1)
    >>> round(float(pair_cmi(lay, np.array([5.0, 0.0, 0.0, 5.0]), np.array([10.0]))[0]), 6)   # log 2
    0.693147
    """
    cp = np.asarray(counts_pair, dtype=np.float64)
    pair, j, aj, kj = layout._cmi_maps
    n_aj = np.bincount(aj, weights=cp)
    n_kj = np.bincount(kj, weights=cp)
    nc = np.asarray(cluster_counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(cp > 0, cp * np.log(cp * nc[j] / (n_aj[aj] * n_kj[kj])), 0.0)
    return np.bincount(pair, weights=terms, minlength=layout.n_pairs) / nc.sum()
