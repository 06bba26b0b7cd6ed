r"""The EM baselines of chapter 7 (Tables 7.4 and 7.5): structural EM with TAN re-learned every iteration
(mEM-TAN) and EM for the complete network given an order (mEM-BNET), engines and scikit-learn faces.

Spec ``docs/decisions/seed001-ema-popgen.md`` sections 3.2 and 3.3. Both work on distinct rows with multiplicities
and build no pgmpy object inside the iterations.

* **mEM-TAN** (AMBIG-4: the tree is re-learned every iteration): E step under the current TAN (the posterior kernel
  of :class:`~pgmpy_ext.stats.NetworkLayout`), expected pair counts ``N[x_l, x_i, c]`` of every pair (the EMA-TAN
  pair accumulation kernel), :math:`I(X_i; X_l \mid C)` from them, Kruskal's maximum spanning tree
  (:func:`~pgmpy_ext.structure.maximum_spanning_forest`), oriented from the start's root (drawn once per start and
  kept, so the orientation does not change the fit from one iteration to the next), then MAP parameters
  (posterior mean, ``alpha``) of the new structure from the same expected counts. Stops when the log-likelihood
  changes by at most ``tol * |LL|`` (AMBIG-2) or after ``max_iter`` iterations.
* **mEM-BNET**: ``X_i`` has the parents ``C, X_1..X_{i-1}`` (pi order). The parameters are kept only for the
  parent configurations observed in the data (a hash map over prefixes, here sorted keys): under a Dirichlet
  ``alpha > 0`` an unobserved configuration has the uniform ``1/r_i``, so it needs no storage.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field

import numpy as np
from sklearn.utils.validation import check_is_fitted

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.clustering._base import BaseBNMixture, check_clusters_fit_rows
from pgmpy_ext.clustering._ematan import MODEL_MAX_CPD_SIZE, _check_order, random_nb_resp
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import (
    MAX_COMPLETE_CPD_SIZE,
    MAX_MISSING_COMPLETIONS,
    cpds_from_counts,
    marginal_log_joint,
    sorted_parents,
)
from pgmpy_ext.stats import NetworkLayout, TANMixtureLayout, ematan_accumulate, pair_cmi, posterior_batch, unique_rows
from pgmpy_ext.structure import maximum_spanning_forest, orient_forest
from pgmpy_ext.utils import Interval, Options, check_generator, fill_doc, iterate, logsumexp_rows

__all__ = ["EMCompleteBNClustering", "EMTANClustering", "EMTANStart", "CompleteBNStart", "CompleteBNData",
           "emtan_single_start", "complete_bn_single_start", "prepare_complete_bn", "prepare_emtan"]

_HIDDEN = "__cluster__"


def _missing_message(name: str, frame) -> str | None:
    na = frame.isna().to_numpy()
    if not na.any():
        return None
    r, k = (int(v[0]) for v in np.nonzero(na))
    return (f"{name} cannot fit on missing values (NaN/None): column {frame.columns[k]!r} is missing at row "
            f"{frame.index[r]!r}. Its EM is implemented for complete data (the thesis's setting); impute or drop "
            "the incomplete rows before fit. predict, predict_proba and score sum missing cells out exactly.")


# ============================================================================================== mEM-TAN
@dataclass(eq=False)
class EMTANData:
    codes: np.ndarray  # (U, n) distinct rows, column order
    weights: np.ndarray
    inverse: np.ndarray
    cards: np.ndarray
    pairs: TANMixtureLayout  # pair-count layout over the column order (all pairs l < i)
    alpha: float


@dataclass(eq=False)
class EMTANStart:
    """One mEM-TAN run: ``parents`` (n,) the tree parent of every attribute (-1 for the root; the cluster is a
    parent of every attribute), ``log_cpt`` in ``layout``, ``loglik`` of the final parameters, ``resp``
    (distinct rows), ``ll_trace``, ``n_iter``, ``converged``, ``n_structure_changes``."""

    parents: np.ndarray
    layout: NetworkLayout
    log_cpt: np.ndarray
    loglik: float
    resp: np.ndarray
    ll_trace: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n_iter: int = 0
    converged: bool = True
    n_structure_changes: int = 0


def prepare_emtan(codes, cards, n_clusters: int, alpha: float = 1.0) -> EMTANData:
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    cards = np.asarray(cards, dtype=np.intp)
    u = unique_rows(codes, cards)
    return EMTANData(u.codes, u.counts, u.inverse, cards, TANMixtureLayout.build(cards, n_clusters), float(alpha))


def _tan_layout(parents: np.ndarray, cards: np.ndarray, K: int) -> NetworkLayout:
    n = len(cards)
    fam = {_HIDDEN: []}
    for i in range(n):
        fam[i] = [_HIDDEN] if parents[i] < 0 else [_HIDDEN, int(parents[i])]
    card_of = {_HIDDEN: K, **{i: int(c) for i, c in enumerate(cards)}}
    return NetworkLayout.build(fam, card_of, list(range(n)), _HIDDEN)


def _tan_m_step(data: EMTANData, acc, parents: np.ndarray) -> tuple[NetworkLayout, np.ndarray]:
    """MAP (posterior-mean) log-CPTs of the TAN ``parents`` from the expected counts ``acc``."""
    lay_p = data.pairs
    K, a, cards = lay_p.n_clusters, data.alpha, data.cards
    tables = {_HIDDEN: (acc.cluster_counts + a) / (acc.cluster_counts.sum() + K * a)}
    for i, p in enumerate(parents):
        ri = int(cards[i])
        if p < 0:
            n = acc.counts_single[lay_p.single_off[i] * K:lay_p.single_off[i + 1] * K].reshape(ri, K)
        else:
            hi, lo = (i, int(p)) if p < i else (int(p), i)
            pidx = hi * (hi - 1) // 2 + lo
            blk = acc.counts_pair[lay_p.pair_off[pidx] * K:lay_p.pair_off[pidx + 1] * K]
            blk = blk.reshape(int(cards[lo]), int(cards[hi]), K)  # (x_lo, x_hi, c)
            n = blk.transpose(1, 2, 0) if p < i else blk.transpose(0, 2, 1)  # (x_i, c, x_p)
        tables[i] = (n + a) / (n.sum(axis=0, keepdims=True) + ri * a)
    layout = _tan_layout(parents, cards, K)
    return layout, layout.pack(tables, log=True)


def _tree(data: EMTANData, acc, root: int) -> np.ndarray:
    n = len(data.cards)
    if n == 1:
        return np.array([-1], dtype=np.intp)
    cmi = pair_cmi(data.pairs, acc.counts_pair, acc.cluster_counts)
    w = np.zeros((n, n))
    w[data.pairs.pair_child, data.pairs.pair_parent] = cmi
    w = w + w.T
    return orient_forest(n, maximum_spanning_forest(w), roots=root)


class _EMTANSteps:
    """mEM-TAN's steps for :func:`pgmpy_ext.utils.iterate`: the statistics are the responsibilities of the distinct
    rows; the M step accumulates their pair counts, re-learns the tree (rooted at ``root``) and the parameters."""

    def __init__(self, data: EMTANData, root: int):
        self.data, self.root = data, root
        self.prev_parents, self.changes = None, 0

    def m_step(self, resp, params=None):
        d = self.data
        acc = ematan_accumulate(d.pairs, d.codes, d.weights, resp)
        parents = _tree(d, acc, self.root)
        if self.prev_parents is not None and not np.array_equal(parents, self.prev_parents):
            self.changes += 1
        self.prev_parents = parents
        layout, log_cpt = _tan_m_step(d, acc, parents)
        return parents, layout, log_cpt

    def e_step(self, params):
        _, layout, log_cpt = params
        resp, ll_rows = posterior_batch(layout, log_cpt, self.data.codes)
        return resp, float(np.dot(self.data.weights, ll_rows))


def emtan_single_start(data: EMTANData, rng: np.random.Generator, *, tol: float = 1e-6, max_iter: int = 100,
                       init=None) -> EMTANStart:
    """One mEM-TAN run: the responsibilities under a random Dirichlet(1) naive Bayes
    (:func:`~pgmpy_ext.clustering.random_nb_resp`, or ``init``) give the first expected counts; then M step (tree
    + parameters) and E step alternate on the shared driver (spec 3.2, AMBIG-4) until the log-likelihood changes
    by at most ``tol * |LL|``."""
    root = int(rng.integers(len(data.cards)))
    q = random_nb_resp(data.codes, data.cards, data.pairs.n_clusters, rng) if init is None else np.asarray(init, float)
    steps = _EMTANSteps(data, root)
    fit = iterate(steps, None, stats=q, tol=tol, max_iter=max_iter, criterion="objective")
    parents, layout, log_cpt = fit.params
    return EMTANStart(parents, layout, log_cpt, fit.objective, fit.stats, fit.trace, fit.n_iter, fit.converged,
                      steps.changes)


class _EMBaseline(BaseBNMixture):
    """The hooks mEM-TAN and mEM-BNET share: option checks, complete training data, the log-likelihood as the start
    criterion and the convergence message (``_label`` names the method)."""

    _label = "EM"
    _parameter_constraints = {**BaseBNMixture._parameter_constraints,
                              "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
                              "max_iter": [Interval(numbers.Integral, 1, None)]}

    def _check_no_missing(self, frame) -> None:
        msg = _missing_message(type(self).__name__, frame)
        if msg:
            raise ValueError(msg)

    def _progress_desc(self) -> str:
        return f"{self._label} starts"

    def _start_score(self, result) -> float:
        return result.loglik

    def _not_converged_message(self, result) -> str | None:
        if result.converged:
            return None
        return (f"{self._label} stopped at max_iter={self.max_iter} before the log-likelihood changed by at most "
                f"tol={self.tol} (relative); increase max_iter.")


@fill_doc
class EMTANClustering(_EMBaseline):
    r"""Multi-start structural EM with a TAN re-learned at every iteration (mEM-TAN, the baseline of Table 7.4).

    Santafé's thesis section 7.6 (Friedman et al.'s construct-TAN inside EM); spec
    ``docs/decisions/seed001-ema-popgen.md`` section 3.2 (AMBIG-4: re-learned every iteration). Every iteration
    computes the posteriors of the clusters under the current TAN, the expected counts of every attribute pair with
    the cluster, the conditional mutual informations :math:`I(X_i; X_l \mid C)` from them, a maximum spanning tree
    (oriented from the start's random root), and the posterior-mean parameters of that TAN. The start with the
    highest log-likelihood is kept.

    Parameters
    ----------
    n_clusters : int >= 1, default 2
    alpha : float > 0, default 1.0
        Dirichlet pseudo-count per CPT cell (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``; AMBIG-3: MAP
        with 1, the thesis's priors).
    tol : float >= 0, default 1e-6
        Stop when the observed-data log-likelihood changes by at most ``tol * |LL|`` between iterations (relative
        change, AMBIG-2).
    max_iter : int >= 1, default 100
    n_init : int >= 1, default 10
    random_state, n_jobs, show_progress : as in every pgmpy-ext clusterer.
    %(handle_unknown)s
    %(missing_fit_complete)s

    Attributes
    ----------
    labels_, weights_, log_likelihood_, ll_trace_, n_iter_, converged_, start_scores_ : as in
        :class:`EMATANClustering`.
    tree_ : dict
        ``{attribute: tree parent or None}`` of the final TAN.
    n_structure_changes_ : int
        Iterations of the best start whose tree differed from the previous one.
    model_ : DiscreteBayesianNetwork
        The TAN with the latent cluster node.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> from pgmpy_ext.evaluation import matched_accuracy
    >>> z = rng.integers(0, 2, 400)
    >>> X = pd.DataFrame({f"x{j}": np.where(rng.random(400) < 0.85, z, 1 - z) for j in range(6)})
    >>> X["copy"] = np.where(rng.random(400) < 0.95, X["x0"], 1 - X["x0"])
    >>> est = EMTANClustering(2, n_init=3, random_state=0).fit(X)
    >>> est.tree_["copy"], est.tree_["x0"], sorted(est.model_.get_parents("x0"))
    ('x1', 'copy', ['cluster', 'copy'])
    >>> round(matched_accuracy(z, est.labels_), 2)
    0.97
    """

    def __init__(self, n_clusters=2, *, alpha=1.0, tol=1e-6, max_iter=100, n_init=10, random_state=None,
                 n_jobs=None, show_progress=False, handle_unknown="ignore", missing="available_case"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _label = "mEM-TAN"

    def _prepare_starts(self, data: EncodedData) -> EMTANData:
        prepared = prepare_emtan(data.codes, data.cards, int(self.n_clusters), float(self.alpha))
        check_clusters_fit_rows(self.n_clusters, prepared.codes.shape[0])
        self._prepared_ = prepared
        return prepared

    def _single_start(self, prepared: EMTANData, rng: np.random.Generator) -> EMTANStart:
        return emtan_single_start(prepared, rng, tol=float(self.tol), max_iter=int(self.max_iter))

    def _set_fitted(self, result: EMTANStart, scores) -> None:
        prepared = self._prepared_
        del self._prepared_
        features = list(self.encoder_.columns)
        self._result_ = result
        self.labels_ = np.argmax(result.resp, axis=1).astype(np.intp)[prepared.inverse]
        tables = result.layout.unpack(result.log_cpt, exp=True)
        self.weights_ = np.asarray(tables[_HIDDEN], dtype=np.float64)
        self.log_likelihood_ = float(result.loglik)
        self.ll_trace_ = result.ll_trace
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.n_structure_changes_ = int(result.n_structure_changes)
        self.start_scores_ = np.asarray(scores, dtype=np.float64)
        self.tree_ = {f: (None if p < 0 else features[p]) for f, p in zip(features, result.parents)}

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        r = self._result_
        return marginal_log_joint(r.layout, r.log_cpt, codes)

    def _build_models(self) -> None:
        r = self._result_
        C = self.cluster_node_
        features = list(self.encoder_.columns)
        tables = r.layout.unpack(r.log_cpt, exp=True)
        parents = {C: []}
        counts = {C: tables[_HIDDEN]}
        for i, f in enumerate(features):
            p = int(r.parents[i])
            if p < 0:
                parents[f] = [C]
                counts[f] = tables[i]
            else:  # the block is (x_i, c, x_p); cpds_from_counts wants (x_i, *sorted_parents)
                parents[f] = [C, features[p]]
                counts[f] = tables[i] if sorted_parents(parents[f])[0] == C else tables[i].transpose(0, 2, 1)
        cpds = cpds_from_counts(counts, parents, self._cluster_states(), alpha=0.0)
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([C, *features])
        model.add_edges_from([(p, f) for f in features for p in parents[f]])
        model.latents = {C}
        model.add_cpds(*cpds)
        self.model_ = model


# ============================================================================================== mEM-BNET
@dataclass(eq=False)
class CompleteBNData:
    """Distinct rows in the order pi and, for every variable ``i``, the index of each row's cell
    ``(prefix x_<i, x_i)`` in that variable's table (``cell[i]``, (U,)) and the sorted prefix keys (``keys[i]``)
    used to look up new rows (the hash map over observed parent configurations)."""

    codes: np.ndarray
    weights: np.ndarray
    inverse: np.ndarray
    cards: np.ndarray  # in the order pi
    order: np.ndarray
    cell: list
    n_prefix: list
    keys: list
    n_clusters: int
    alpha: float


def prepare_complete_bn(codes, cards, n_clusters: int, *, order=None, alpha: float = 1.0) -> CompleteBNData:
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    cards = np.asarray(cards, dtype=np.intp)
    n = codes.shape[1]
    order = np.arange(n, dtype=np.intp) if order is None else np.asarray(order, dtype=np.intp)
    u = unique_rows(np.ascontiguousarray(codes[:, order]), cards[order])
    X, pc = u.codes, cards[order]
    pid = np.zeros(X.shape[0], dtype=np.int64)
    cell, n_prefix, keys = [], [], []
    for i in range(n):
        n_prefix.append(int(pid.max(initial=-1)) + 1)
        cell.append((pid * pc[i] + X[:, i]).astype(np.intp))
        key = pid * pc[i] + X[:, i]
        uniq, nxt = np.unique(key, return_inverse=True)
        keys.append(uniq)
        pid = nxt.astype(np.int64)
    return CompleteBNData(X, u.counts, u.inverse, pc, order, cell, n_prefix, keys, int(n_clusters), float(alpha))


@dataclass(eq=False)
class CompleteBNStart:
    """One mEM-BNET run: ``log_theta[i]`` (n_prefix_i * r_i, K) log-CPT rows of the observed prefixes,
    ``log_prior`` (K,), ``loglik``, ``resp`` (distinct rows), ``ll_trace``, ``n_iter``, ``converged``."""

    log_theta: list
    log_prior: np.ndarray
    loglik: float
    resp: np.ndarray
    ll_trace: np.ndarray
    n_iter: int
    converged: bool


def _bnet_m_step(data: CompleteBNData, wq: np.ndarray) -> tuple[list, np.ndarray]:
    a, K = data.alpha, data.n_clusters
    out = []
    for i in range(len(data.cards)):
        ri, P = int(data.cards[i]), data.n_prefix[i]
        cnt = np.stack([np.bincount(data.cell[i], weights=wq[:, j], minlength=P * ri) for j in range(K)], axis=1)
        cnt = cnt.reshape(P, ri, K)
        out.append(np.log((cnt + a) / (cnt.sum(axis=1, keepdims=True) + ri * a)).reshape(P * ri, K))
    nc = wq.sum(axis=0)
    return out, np.log((nc + a) / (nc.sum() + K * a))


def _bnet_log_joint(log_theta: list, log_prior: np.ndarray, cells: list) -> np.ndarray:
    lj = np.tile(log_prior, (len(cells[0]) if cells else 0, 1))
    for lt, c in zip(log_theta, cells):
        lj += lt[c]
    return lj


class _CompleteBNSteps:
    """mEM-BNET's steps for :func:`pgmpy_ext.utils.iterate` (the statistics are the responsibilities)."""

    def __init__(self, data: CompleteBNData):
        self.data = data

    def m_step(self, q, params=None):
        return _bnet_m_step(self.data, self.data.weights[:, None] * q)

    def e_step(self, params):
        log_theta, log_prior = params
        lj = _bnet_log_joint(log_theta, log_prior, self.data.cell)
        lse = logsumexp_rows(lj)
        return np.exp(lj - lse[:, None]), float(np.dot(self.data.weights, lse))


def complete_bn_single_start(data: CompleteBNData, rng: np.random.Generator, *, tol: float = 1e-6,
                             max_iter: int = 100, init=None) -> CompleteBNStart:
    """One mEM-BNET run: the responsibilities under a random Dirichlet(1) naive Bayes (or ``init``), then M and E
    steps alternate on the shared driver until the log-likelihood changes by at most ``tol * |LL|``."""
    q = random_nb_resp(data.codes, data.cards, data.n_clusters, rng) if init is None else np.asarray(init, float)
    fit = iterate(_CompleteBNSteps(data), None, stats=q, tol=tol, max_iter=max_iter, criterion="objective")
    log_theta, log_prior = fit.params
    return CompleteBNStart(log_theta, log_prior, fit.objective, fit.stats, fit.trace, fit.n_iter, fit.converged)


def _lookup_cells(data: CompleteBNData, X: np.ndarray) -> list:
    """Cells of complete rows ``X`` (order pi; its first ``X.shape[1]`` variables) in each variable's table; -1
    where the prefix was never observed."""
    pid = np.zeros(X.shape[0], dtype=np.int64)
    seen = np.ones(X.shape[0], dtype=bool)
    out = []
    for i in range(X.shape[1]):
        key = pid * data.cards[i] + X[:, i]
        out.append(np.where(seen, key, -1).astype(np.intp))
        pos = np.searchsorted(data.keys[i], key)
        pos_c = np.minimum(pos, len(data.keys[i]) - 1)
        seen &= data.keys[i][pos_c] == key
        pid = np.where(seen, pos_c, 0)
    return out


def complete_bn_log_joint(data: CompleteBNData, start: CompleteBNStart, X: np.ndarray) -> np.ndarray:
    """``log p(x, C = j)`` of complete rows in the order pi; unobserved parent configurations are uniform."""
    lj = np.tile(start.log_prior, (X.shape[0], 1))
    for i, c in enumerate(_lookup_cells(data, X)):
        ok = c >= 0
        lj[ok] += start.log_theta[i][c[ok]]
        lj[~ok] -= np.log(data.cards[i])
    return lj


@fill_doc
class EMCompleteBNClustering(_EMBaseline):
    r"""Multi-start EM for the complete Bayesian network given an order (mEM-BNET, the baseline of Table 7.5).

    Santafé's thesis section 7.6; spec ``docs/decisions/seed001-ema-popgen.md`` section 3.3. ``X_i`` has the
    parents ``C, X_1..X_{i-1}`` (order pi), the same structure as the model EMA-TAN averages into. The parameters
    are stored only for the parent configurations seen in the training data (a hash map over the observed
    prefixes); with a Dirichlet ``alpha > 0`` every other configuration has the uniform ``1/r_i``. The start with
    the highest log-likelihood is kept.

    Parameters
    ----------
    n_clusters : int >= 1, default 2
    alpha : float > 0, default 1.0
        Dirichlet pseudo-count per CPT cell (posterior mean, AMBIG-3).
    order : None, "columns" or sequence of column labels, default None
        The order pi (None: a seeded random permutation, as in :class:`EMATANClustering`; pass the same order to
        compare the two, as the thesis does).
    tol : float >= 0, default 1e-6
        Stop when the observed-data log-likelihood changes by at most ``tol * |LL|`` between iterations (relative
        change, AMBIG-2).
    max_iter : int >= 1, default 100
    n_init : int >= 1, default 10
    random_state, n_jobs, show_progress : as in every pgmpy-ext clusterer.
    %(handle_unknown)s
    %(missing_fit_complete)s

    Attributes
    ----------
    labels_, weights_, log_likelihood_, ll_trace_, n_iter_, converged_, start_scores_, order_ : as in
        :class:`EMATANClustering`.
    n_parameters_stored_ : int
        CPT rows kept (observed prefixes times ``r_i`` times K) against the full table's size.
    model_ : DiscreteBayesianNetwork
        Only when every complete CPT has at most :data:`~pgmpy_ext.clustering.MODEL_MAX_CPD_SIZE` entries;
        :meth:`to_network` expands it with a caller-chosen cap.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({f"x{j}": np.where(rng.random(300) < 0.85, z, 1 - z) for j in range(4)})
    >>> est = EMCompleteBNClustering(2, order="columns", n_init=3, random_state=0).fit(X)
    >>> est.order_, sorted(est.model_.get_parents("x2"))
    (['x0', 'x1', 'x2', 'x3'], ['cluster', 'x0', 'x1'])
    """

    _parameter_constraints = {**_EMBaseline._parameter_constraints, "order": [None, Options("columns"), "array-like"]}

    def __init__(self, n_clusters=2, *, alpha=1.0, order=None, tol=1e-6, max_iter=100, n_init=10,
                 random_state=None, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.order = order
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    _label = "mEM-BNET"

    def _prepare_starts(self, data: EncodedData) -> CompleteBNData:
        columns = list(data.columns)
        order = _check_order(self.order, columns)
        if order is None:
            order = check_generator(self.random_state).permutation(len(columns)).astype(np.intp)
        prepared = prepare_complete_bn(data.codes, data.cards, int(self.n_clusters), order=order,
                                       alpha=float(self.alpha))
        check_clusters_fit_rows(self.n_clusters, prepared.codes.shape[0])
        self._prepared_ = prepared
        return prepared

    def _single_start(self, prepared: CompleteBNData, rng: np.random.Generator) -> CompleteBNStart:
        return complete_bn_single_start(prepared, rng, tol=float(self.tol), max_iter=int(self.max_iter))

    def _set_fitted(self, result: CompleteBNStart, scores) -> None:
        prepared = self._prepared_
        del self._prepared_
        self._data_, self._result_ = prepared, result
        features = list(self.encoder_.columns)
        self.order_ = [features[k] for k in prepared.order]
        self.labels_ = np.argmax(result.resp, axis=1).astype(np.intp)[prepared.inverse]
        self.weights_ = np.exp(result.log_prior)
        self.log_likelihood_ = float(result.loglik)
        self.ll_trace_ = result.ll_trace
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.start_scores_ = np.asarray(scores, dtype=np.float64)
        self.n_parameters_stored_ = int(sum(t.size for t in result.log_theta))

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        data, res = self._data_, self._result_
        X = np.ascontiguousarray(codes[:, data.order])
        missing = (X < 0).any(axis=1)
        out = np.empty((X.shape[0], data.n_clusters))
        out[~missing] = complete_bn_log_joint(data, res, X[~missing])
        for r in np.flatnonzero(missing):  # exact: enumerate the completions of the missing cells
            holes = np.flatnonzero(X[r] < 0)
            n_comp = int(np.prod(data.cards[holes], dtype=np.float64))
            if n_comp > MAX_MISSING_COMPLETIONS:
                raise ValueError(f"row {r} has {holes.size} missing cells with {n_comp} joint completions (more than "
                                 f"{MAX_MISSING_COMPLETIONS}); impute the row.")
            grid = np.array(list(itertools.product(*[range(int(data.cards[h])) for h in holes])), dtype=np.int32)
            rows = np.repeat(X[r:r + 1], grid.shape[0], axis=0)
            rows[:, holes] = grid
            out[r] = logsumexp_rows(complete_bn_log_joint(data, res, rows).T)
        return out

    def to_network(self, *, max_cpd_size: int = MAX_COMPLETE_CPD_SIZE) -> DiscreteBayesianNetwork:
        """The complete network with expanded CPTs (unobserved parent configurations uniform). Raises a ValueError
        naming the first attribute whose CPT has more than ``max_cpd_size`` entries."""
        check_is_fitted(self)
        data, res = self._data_, self._result_
        C, K = self.cluster_node_, data.n_clusters
        labels = self.order_
        cpds = [TabularCPD(C, K, self.weights_.reshape(-1, 1), state_names={C: list(range(K))})]
        states = self.encoder_.state_names
        for i, f in enumerate(labels):
            ri = int(data.cards[i])
            size = ri * K * int(np.prod(data.cards[:i], dtype=np.int64))
            if size > max_cpd_size:
                raise ValueError(f"the complete CPT of {f!r} has {size} entries, more than max_cpd_size="
                                 f"{max_cpd_size}; the fitted model keeps only the observed parent configurations "
                                 "(use predict_proba / score, or raise max_cpd_size).")
            grid = np.array(list(itertools.product(*[range(int(c)) for c in data.cards[:i + 1]])), dtype=np.int32)
            grid = grid.reshape(-1, i + 1)
            cells = _lookup_cells(data, np.ascontiguousarray(grid))[i]
            ok = cells >= 0
            vals = np.full((grid.shape[0], K), 1.0 / ri)
            vals[ok] = np.exp(res.log_theta[i][cells[ok]])
            # vals rows: C order over (x_0..x_{i-1}, x_i); -> (x_i, c, x_0..x_{i-1})
            t = vals.reshape(*[int(c) for c in data.cards[:i]], ri, K)
            t = np.moveaxis(t, [i, i + 1], [0, 1])
            parents = [C, *labels[:i]]
            ev = sorted_parents(parents)
            t = t.transpose([0] + [1 + parents.index(v) for v in ev]).reshape(ri, -1)
            sn = {f: list(states[f]), C: list(range(K)), **{v: list(states[v]) for v in labels[:i]}}
            cpds.append(TabularCPD(f, ri, t, evidence=ev, evidence_card=[len(sn[v]) for v in ev], state_names=sn))
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([C, *labels])
        model.add_edges_from([(p, f) for i, f in enumerate(labels) for p in [C, *labels[:i]]])
        model.latents = {C}
        model.add_cpds(*cpds)
        return model

    def _build_models(self) -> None:
        data = self._data_
        sizes = [int(c) * data.n_clusters * int(np.prod(data.cards[:i], dtype=np.int64))
                 for i, c in enumerate(data.cards)]
        if max(sizes) <= MODEL_MAX_CPD_SIZE:
            self.model_ = self.to_network(max_cpd_size=MODEL_MAX_CPD_SIZE)
        else:
            self._no_model_reason = (
                f"its complete network would have a CPT of {max(sizes):,} entries, more than MODEL_MAX_CPD_SIZE = "
                f"{MODEL_MAX_CPD_SIZE:,} (the fitted model keeps only the observed parent configurations). predict, "
                "predict_proba and score work without it; to_network(max_cpd_size=...) expands it anyway.")
