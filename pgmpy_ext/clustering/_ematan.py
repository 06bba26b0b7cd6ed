r"""EMA-TAN: expectation model averaging over TAN/forest structures given an order, for clustering (engine and
scikit-learn face).

Seed 001 section 7.3.2 (Santafé, Lozano & Larrañaga, PGM 2006); spec ``docs/decisions/seed001-ema-popgen.md``
sections 5 and 6. The engine works on distinct rows with multiplicities and builds no pgmpy object; the kernels are
``pgmpy_ext.stats.ematan_estep`` (E step with the mixture CPDs and the pair accumulation, O(N n^2 K)) and
``ematan_ma_step`` (closed form).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext.clustering._base import BaseBNMixture, check_clusters_fit_rows
from pgmpy_ext.clustering._latent import align_starts
from pgmpy_ext.data import EncodedData
from pgmpy_ext.models import MAX_COMPLETE_CPD_SIZE, AveragedTANModel
from pgmpy_ext.stats import (
    TANMixtureLayout,
    TANMixtureParams,
    ematan_accumulate,
    ematan_estep,
    ematan_ma_step,
    tan_mixture_constants,
    unique_rows,
)
from pgmpy_ext.utils import Interval, Options, check_generator, check_option, dirichlet_tables, fill_doc, iterate

__all__ = ["EMATANClustering", "EMATANData", "EMATANStart", "MODEL_MAX_CPD_SIZE", "POLICIES",
           "combine_ematan_starts", "random_nb_resp", "ematan_single_start", "prepare_ematan"]

#: Multi-start policies (spec section 6): Best Choice, Uniform Averaging, Averaging (weights softmax of the LL).
POLICIES = ("best", "uniform", "averaging")
#: ``model_`` (complete CPTs) is built only when every complete CPT has at most this many entries.
MODEL_MAX_CPD_SIZE = 100_000


@dataclass(eq=False)
class EMATANData:
    """What every start shares: distinct rows in the order pi, their multiplicities, the layout and the constant
    tables and marginal likelihoods of the options without C."""

    layout: TANMixtureLayout
    codes: np.ndarray  # (U, n) int32, columns in the order pi
    weights: np.ndarray  # (U,)
    inverse: np.ndarray  # (n_rows,) row -> distinct row
    order: np.ndarray  # (n,) order[p] = column of the variable at position p
    constants: object
    allowed: np.ndarray | None = None

    @property
    def n_samples(self) -> float:
        return float(self.weights.sum())


def prepare_ematan(codes, cards, n_clusters: int, *, order=None, alpha: float = 1.0, allowed=None) -> EMATANData:
    """Distinct rows (in the order ``order``; default the column order) and the constants of one EMA-TAN fit.

    Parameters
    ----------
    codes : int (n_rows, n)
        Complete codes.
    cards : int (n,)
    n_clusters : int
    order : sequence of int, optional
        ``order[p]`` is the column at position ``p`` of pi.
    alpha : float > 0
    allowed : bool (n(n+1),), optional
        Options that take part in the averaging (see :func:`pgmpy_ext.stats.ematan_ma_step`).
    """
    codes = np.ascontiguousarray(codes, dtype=np.int32)
    cards = np.asarray(cards, dtype=np.intp)
    n = codes.shape[1]
    order = np.arange(n, dtype=np.intp) if order is None else np.asarray(order, dtype=np.intp)
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError(f"order must be a permutation of 0..{n - 1}, got {order.tolist()}.")
    u = unique_rows(np.ascontiguousarray(codes[:, order]), cards[order])
    if (u.codes < 0).any():
        raise ValueError("EMA-TAN needs complete data (a code is -1).")
    layout = TANMixtureLayout.build(cards[order], n_clusters)
    constants = tan_mixture_constants(layout, u.codes, u.counts, alpha)
    return EMATANData(layout, u.codes, u.counts, u.inverse, order, constants,
                      None if allowed is None else np.asarray(allowed, dtype=bool))


@dataclass(eq=False)
class EMATANStart:
    """One EMA-TAN run (or a combination of runs).

    Attributes
    ----------
    params : TANMixtureParams
    loglik : float
        Observed-data log-likelihood of ``params`` (natural log).
    resp : float64 (U, K)
        Responsibilities of the distinct rows under ``params``.
    ll_trace : float64 (n_iter + 1,)
        Log-likelihood of the parameters after the initial MA step and after every MA step.
    n_iter : int
    converged : bool
    degenerate : bool
        Every ``P(C -> X_i) < 1e-6`` or every distinct row has the same responsibilities (spec section 4.8).
    """

    params: TANMixtureParams
    loglik: float
    resp: np.ndarray
    ll_trace: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n_iter: int = 0
    converged: bool = True
    degenerate: bool = False


def _degenerate(data: EMATANData, params: TANMixtureParams, resp: np.ndarray) -> bool:
    lay = data.layout
    p_c = np.bincount(lay.option_var, weights=np.where(lay.option_has_c, params.weights, 0.0), minlength=lay.n_vars)
    flat = resp.shape[0] <= 1 or bool(np.all(np.ptp(resp, axis=0) < 1e-9))
    return bool(p_c.max(initial=0.0) < 1e-6 or flat)


def _finish(data: EMATANData, params: TANMixtureParams, trace, n_iter: int, converged: bool) -> EMATANStart:
    e = ematan_estep(data.layout, data.codes, data.weights, params, return_resp=True)
    return EMATANStart(params, e.loglik, e.resp, np.asarray(trace, dtype=np.float64), n_iter, converged,
                       _degenerate(data, params, e.resp))


def random_nb_resp(codes: np.ndarray, cards, n_clusters: int, rng: np.random.Generator) -> np.ndarray:
    """Responsibilities (U, K) of the rows under a random naive Bayes: ``P(C)`` and every ``P(X_i | C = j)``
    drawn from Dirichlet(1) (spec AMBIG-7 and AMBIG-13, the thesis's "random initial parameters"), through the
    shared random start :func:`pgmpy_ext.utils.dirichlet_tables`.

    The starting point of every chapter-7 learner here (EMA-TAN, mEM-TAN, mEM-BNET), as the latent-class engine's
    EMA starts from random Dirichlet(1) parameters. Random responsibilities per row (the other reading of AMBIG-7)
    start EMA-TAN next to the symmetric point where every cluster is alike: the parameters then move by less than
    ``tol = 0.01`` per iteration long before a fixed point, and the runs stop after 2-3 iterations with a markedly
    lower log-likelihood (measured on random TAN models; see the Tables 7.4-7.6 report).
    """
    K = int(n_clusters)
    cards = [int(c) for c in np.asarray(cards)]
    prior, *tables = dirichlet_tables(rng, [(K, 1), *((c, K) for c in cards)])
    lp = np.tile(np.log(prior[:, 0]), (codes.shape[0], 1))
    for i, theta in enumerate(tables):  # theta (r_i, K)
        lp += np.log(theta[codes[:, i], :])
    lp -= lp.max(axis=1, keepdims=True)
    q = np.exp(lp)
    return q / q.sum(axis=1, keepdims=True)


class _EMATANSteps:
    """E step under the averaged model and the closed-form MA step, for :func:`pgmpy_ext.utils.iterate`."""

    def __init__(self, data: EMATANData):
        self.data = data

    def e_step(self, params: TANMixtureParams):
        d = self.data
        e = ematan_estep(d.layout, d.codes, d.weights, params, return_resp=True)
        return e, e.loglik

    def m_step(self, e, params=None) -> TANMixtureParams:
        d = self.data
        return ematan_ma_step(d.layout, d.constants, e, allowed=d.allowed)

    @staticmethod
    def flat(params: TANMixtureParams) -> np.ndarray:
        """``P(C)``, the option weights and the tables with C (AMBIG-6; the tables without C never change)."""
        return np.concatenate([params.theta_c, params.weights, params.single_dep, params.pair_dep])


def ematan_single_start(data: EMATANData, rng: np.random.Generator, *, tol: float = 0.01, max_iter: int = 1000,
                        init=None) -> EMATANStart:
    """One EMA-TAN run (spec section 5.5) on the shared driver (:func:`pgmpy_ext.utils.iterate`).

    Initialisation (AMBIG-7): the responsibilities of the distinct rows under a random Dirichlet(1) naive Bayes
    (:func:`random_nb_resp`; or ``init``, (U, K)), then one MA step. Each iteration is an E step under the
    current averaged model followed by the closed-form MA step; the run stops when the L-infinity change of
    ``P(C)``, the option weights and the tables with C is at most ``tol`` (AMBIG-6) or after ``max_iter`` MA
    steps. ``loglik`` and ``resp`` belong to the final parameters.
    """
    lay = data.layout
    q = random_nb_resp(data.codes, lay.cards, lay.n_clusters, rng) if init is None else np.asarray(init, float)
    params = ematan_ma_step(lay, data.constants, ematan_accumulate(lay, data.codes, data.weights, q),
                            allowed=data.allowed)
    fit = iterate(_EMATANSteps(data), params, tol=tol, max_iter=max_iter, criterion="params")
    return EMATANStart(fit.params, fit.objective, fit.stats.resp, fit.trace, fit.n_iter, fit.converged,
                       _degenerate(data, fit.params, fit.stats.resp))


def combine_ematan_starts(starts: list, data: EMATANData, policy: str = "best") -> tuple[EMATANStart, np.ndarray]:
    """Combine the runs of a multi-start EMA-TAN (spec section 6).

    ``"best"`` keeps the run with the highest log-likelihood (ties: the first). ``"uniform"`` and ``"averaging"``
    align every run to the best one (:func:`~pgmpy_ext.clustering.align_starts`, Hungarian) and average the
    parameters with weights ``1/m`` or ``softmax(loglik)``. Averaging mixture CPDs is again a mixture CPD of the
    same form: option weights :math:`\\bar w^v = \\sum_m \\pi_m w_m^v` and, for the options with C, tables
    :math:`\\sum_m \\pi_m w_m^v \\tilde\\theta_m^v / \\bar w^v` (the options without C are the same in every run), so
    the combination equals the average of the averaged CPDs exactly. Its log-likelihood and responsibilities are
    recomputed. Returns ``(combined, start_weights)``.
    """
    check_option(policy, "policy", POLICIES)
    ll = np.array([s.loglik for s in starts], dtype=np.float64)
    best = int(np.argmax(ll))
    m = len(starts)
    if policy == "best" or m == 1:
        pi = np.zeros(m)
        pi[best] = 1.0
        return starts[best], pi
    if policy == "uniform":
        pi = np.full(m, 1.0 / m)
    else:
        z = ll - ll.max()
        pi = np.exp(z) / np.exp(z).sum()
    lay = data.layout
    K = lay.n_clusters
    ref = starts[best]
    theta_c = np.zeros(K)
    w_bar = np.zeros(lay.n_options)
    sd = np.zeros(lay.n_single * K)
    pd_ = np.zeros(lay.n_pair_cells * K)
    maps = lay._maps
    perms = align_starts(starts, ref, data.weights)  # the latent-class engine's Hungarian alignment (AMBIG-10)
    for s, p, perm in zip(starts, pi, perms):
        if p == 0.0:
            continue
        par = s.params.permute_clusters(perm, lay)
        theta_c += p * par.theta_c
        w_bar += p * par.weights
        sd += p * par.weights[maps["single_dep"]["opt"]] * par.single_dep
        pd_ += p * par.weights[maps["pair_dep"]["opt"]] * par.pair_dep
    ws, wp = w_bar[maps["single_dep"]["opt"]], w_bar[maps["pair_dep"]["opt"]]
    # an option with weight 0 in every run keeps the reference run's table (it does not contribute anyway)
    sd = np.where(ws > 0, sd / np.where(ws > 0, ws, 1.0), ref.params.single_dep)
    pd_ = np.where(wp > 0, pd_ / np.where(wp > 0, wp, 1.0), ref.params.pair_dep)
    params = TANMixtureParams(theta_c, w_bar, ref.params.single_ind, ref.params.pair_ind, sd, pd_)
    out = _finish(data, params, [], 0, all(s.converged for s in starts))
    return out, pi


def _check_order(order, columns: list) -> np.ndarray | None:
    if order is None:
        return None
    if isinstance(order, str):
        if order == "columns":
            return np.arange(len(columns), dtype=np.intp)
        raise ValueError(f"order == {order!r}: must be None (a seeded random order), 'columns' (the column order) or "
                         "a sequence of the column labels.")
    labels = list(order)
    if sorted(map(str, labels)) != sorted(map(str, columns)) or len(labels) != len(columns):
        raise ValueError(f"order must list every column once (columns: {columns!r}), got {labels!r}.")
    try:
        return np.array([columns.index(c) for c in labels], dtype=np.intp)
    except ValueError:
        raise ValueError(f"order must list every column once (columns: {columns!r}), got {labels!r}.") from None


@fill_doc
class EMATANClustering(BaseBNMixture):
    r"""Clustering by expectation model averaging over TAN/forest structures (EMA-TAN).

    Santafé (2007), section 7.3.2 (``docs/decisions/seed001-ema-popgen.md``, "EMA-TAN"). For a fixed order
    pi of the attributes, the class averaged over holds every structure in which each ``X_i`` has the cluster
    ``C`` and/or one predecessor ``X_l`` in pi as parents (naive Bayes, selective naive Bayes, pi-consistent TANs
    and forests: :math:`2^n n!` structures). EMA-TAN alternates an E step under the current averaged model with a
    closed-form model-averaging (MA) step that treats the expected counts as data; the result is one network
    whose CPDs are mixtures of :math:`2i` small CPTs, with the posterior of every local parent set as a
    by-product. Several starts are combined by one of the three multi-start policies of section 7.4.

    Parameters
    ----------
    n_clusters : int >= 1, default 2
        ``K`` (fixed in advance).
    alpha : float > 0, default 1.0
        Dirichlet pseudo-count per cell of every option's CPT and of ``P(C)`` (bnclassify's ``smooth``, pgmpy's
        ``pseudo_counts``); the thesis uses 1. It must be positive: the marginal likelihoods that weight the
        options need a proper prior.
    tol : float > 0, default 0.01
        Stop when no parameter (``P(C)``, an option weight, an entry of a table with C) moves by more than ``tol``
        in an iteration (L-infinity; AMBIG-6, the thesis's rule and its value in chapter 8; EMA-TAN is not
        monotone in the log-likelihood).
    max_iter : int >= 1, default 1000
        Maximum MA steps per start.
    n_init : int >= 1, default 10
        Starts (m), each from the responsibilities under a random Dirichlet(1) naive Bayes followed by one MA step
        (AMBIG-7).
    policy : {"best", "uniform", "averaging"}, default "best"
        Multi-start policy: Best Choice (the start with the highest log-likelihood), Uniform Averaging or
        Averaging (weights softmax of the log-likelihoods, i.e. proportional to the likelihood), both after
        Hungarian label alignment to the best start (AMBIG-9, AMBIG-10).
    order : None, "columns" or sequence of column labels, default None
        The order pi. None draws a random permutation from ``random_state`` (the thesis's protocol, one order per
        model, shared by its starts); "columns" uses the column order.
    random_state : None, int or numpy.random.Generator, default None
        Seeds the order and the starts (one spawned child generator per start).
    %(n_jobs)s
    show_progress : bool, default False
        Progress bar over the starts (also needs ``pgmpy.config.SHOW_PROGRESS``).
    %(handle_unknown)s
    %(missing_fit_complete)s

    Attributes
    ----------
    labels_ : ndarray of int (n_samples,)
        MAP cluster of every training row under the final model.
    weights_ : ndarray (n_clusters,)
        ``P(C)``.
    order_ : list
        The attributes in the order pi.
    averaged_model_ : pgmpy_ext.models.AveragedTANModel
        The compact model (mixture CPDs): ``log_joint``, ``option_posterior``, ``complete_table``,
        ``to_network(max_cpd_size=...)``.
    model_ : DiscreteBayesianNetwork
        The complete network (cluster node latent, a parent of every attribute; ``X_l -> X_i`` for ``l`` before
        ``i``) with the expanded CPTs. Set only when every complete CPT has at most
        :data:`MODEL_MAX_CPD_SIZE` (100,000) entries; otherwise absent, and :meth:`to_network` expands it with a
        caller-chosen cap.
    option_posterior_ : dict
        ``{attribute: {parent set: posterior}}``, the weights ``w_i^v`` (parent sets as tuples, cluster first).
    arc_posterior_ : pandas.DataFrame (n + 1, n)
        ``P(parent -> child)``: row ``cluster_node_`` is ``P(C -> X_i)``, row ``X_l`` is ``P(X_l -> X_i)`` (0 when
        ``X_l`` does not precede ``X_i``); columns are the children.
    log_likelihood_ : float
        Observed-data log-likelihood of the final model on the training data (natural log).
    ll_trace_ : ndarray
        Log-likelihood after every MA step of the best start.
    n_iter_ : int
        MA steps of the best start.
    converged_ : bool
        Whether the best start (every start, for the averaging policies) met ``tol``.
    degenerate_ : bool
        The final model ignores the cluster (every arc posterior ~0).
    start_scores_ : ndarray (n_init,)
    start_weights_ : ndarray (n_init,)
        Weight of every start in the final model (one-hot for "best").
    cluster_node_, encoder_, n_features_in_, feature_names_in_ : as in every pgmpy-ext clusterer.

    See Also
    --------
    EMTANClustering : structural EM with TAN re-learned every iteration (mEM-TAN).
    EMCompleteBNClustering : EM for the complete network given the order (mEM-BNET).

    Notes
    -----
    Option ``v`` of ``X_i`` has the posterior-mean CPT :math:`\tilde\theta^v_i` and the BD marginal likelihood
    :math:`ML_i^v` of the expected counts; the MA step is (the thesis's eqs. 7.25-7.32 in closed form,
    derived in ``docs/decisions/seed001-ema-popgen.md``)

    .. math::

        w_i^v = \frac{ML_i^v}{\sum_{v'} ML_i^{v'}}, \qquad
        \check\theta_i(x_i \mid c, x_{<i}) = \sum_v w_i^v \tilde\theta_i^v(x_i \mid pa_i^v(c, x_{<i})), \qquad
        \check\theta_{C-j} = \frac{\alpha + E N_{C-j}}{K\alpha + N}

    with a uniform structure prior. EMA-TAN does not maximise the likelihood and is not monotone in it.
    Training needs complete data (the thesis's assumption 2): a missing cell raises, naming its column and row.
    Prediction sums missing cells out exactly by enumerating their completions (up to
    ``pgmpy_ext.models.MAX_MISSING_COMPLETIONS`` per row).

    References
    ----------
    .. [1] V. Santafé, J. A. Lozano, P. Larrañaga, "Bayesian model averaging of TAN models for clustering",
       PGM 2006, 271-278.
    .. [2] V. Santafé, PhD thesis, University of the Basque Country (2007), sections 7.3.2, 7.4 and 7.6.

    Examples
    --------
    Six attributes follow the cluster 85% of the time; ``copy`` copies ``x0`` 95% of the time. The arc
    posteriors find both kinds of dependence:

    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.evaluation import matched_accuracy
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 400)
    >>> X = pd.DataFrame({f"x{j}": np.where(rng.random(400) < 0.85, z, 1 - z) for j in range(6)})
    >>> X["copy"] = np.where(rng.random(400) < 0.95, X["x0"], 1 - X["x0"])
    >>> est = EMATANClustering(2, n_init=3, order="columns", random_state=0).fit(X)
    >>> est.arc_posterior_.round(2).loc[["cluster", "x0"], ["x1", "copy"]].to_numpy().tolist()
    [[1.0, 0.01], [0.08, 1.0]]
    >>> round(matched_accuracy(z, est.labels_), 3), est.model_.latents
    (0.978, {'cluster'})
    >>> est.predict_proba(X.head(2)).round(2).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(self, n_clusters=2, *, alpha=1.0, tol=0.01, max_iter=1000, n_init=10, policy="best", order=None,
                 random_state=None, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="available_case"):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.policy = policy
        self.order = order
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    # ------------------------------------------------------------------ options and data
    _parameter_constraints = {**BaseBNMixture._parameter_constraints,
                              "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
                              "tol": [Interval(numbers.Real, 0, None, closed="neither")],
                              "max_iter": [Interval(numbers.Integral, 1, None)], "policy": [Options(POLICIES)],
                              "order": [None, Options("columns"), "array-like"]}

    def _check_no_missing(self, frame) -> None:
        na = frame.isna().to_numpy()
        if na.any():
            r, k = (int(v[0]) for v in np.nonzero(na))
            raise ValueError(f"{type(self).__name__} cannot fit on missing values (NaN/None): column "
                             f"{frame.columns[k]!r} is missing at row {frame.index[r]!r}. Its averaging over parent "
                             "sets assumes complete data (the thesis's assumption 2); impute or drop the incomplete "
                             "rows before fit. predict, predict_proba and score sum missing cells out exactly.")

    def _prepare_starts(self, data: EncodedData) -> EMATANData:
        K = int(self.n_clusters)
        columns = list(data.columns)
        order = _check_order(self.order, columns)
        if order is None:
            # the order comes from random_state's own stream; the starts use spawned children (run_starts), which
            # do not depend on this draw
            order = check_generator(self.random_state).permutation(len(columns)).astype(np.intp)
        prepared = prepare_ematan(data.codes, data.cards, K, order=order, alpha=float(self.alpha))
        check_clusters_fit_rows(K, prepared.codes.shape[0])
        return prepared

    def _single_start(self, prepared: EMATANData, rng: np.random.Generator) -> EMATANStart:
        return ematan_single_start(prepared, rng, tol=float(self.tol), max_iter=int(self.max_iter))

    def _start_score(self, result: EMATANStart) -> float:
        return result.loglik

    def _progress_desc(self) -> str:
        return "EMA-TAN starts"

    def _combine_starts(self, prepared: EMATANData, starts: list, scores, best: int) -> EMATANStart:
        combined, pi = combine_ematan_starts(starts, prepared, self.policy)
        self._fit_aux_ = (prepared, starts[best], pi)
        return combined

    def _not_converged_message(self, result: EMATANStart) -> str | None:
        if self.converged_:
            return None
        return (f"EMA-TAN stopped at max_iter={self.max_iter} before the parameters changed by at most "
                f"tol={self.tol}; increase max_iter.")

    def _set_fitted(self, combined: EMATANStart, scores) -> None:
        prepared, best, pi = self._fit_aux_
        del self._fit_aux_
        self._prepared_ = prepared
        self._combined_ = combined
        self.weights_ = combined.params.theta_c.copy()
        self.labels_ = np.argmax(combined.resp, axis=1).astype(np.intp)[prepared.inverse]
        self.log_likelihood_ = float(combined.loglik)
        self.ll_trace_ = best.ll_trace
        self.n_iter_ = int(best.n_iter)
        self.converged_ = bool(combined.converged if self.policy != "best" else best.converged)
        self.degenerate_ = bool(combined.degenerate)
        self.start_scores_ = np.asarray(scores, dtype=np.float64)
        self.start_weights_ = pi

    def _build_models(self) -> None:
        prepared, combined = self._prepared_, self._combined_
        del self._prepared_, self._combined_
        features = list(self.encoder_.columns)
        self.averaged_model_ = AveragedTANModel(prepared.layout, combined.params, features, prepared.order,
                                                self.encoder_.state_names, self.cluster_node_)
        self.order_ = self.averaged_model_.order_labels
        self.option_posterior_ = self.averaged_model_.option_posterior()
        self.arc_posterior_ = pd.DataFrame(self.averaged_model_.arc_posterior(),
                                           index=[self.cluster_node_, *features], columns=features)
        model = self.averaged_model_
        if max(model.complete_cpd_size(f) for f in model.features) <= MODEL_MAX_CPD_SIZE:
            self.model_ = model.to_network(max_cpd_size=MODEL_MAX_CPD_SIZE)
        else:
            self._no_model_reason = (
                f"the complete network of the averaged TAN mixture would have a CPD of more than MODEL_MAX_CPD_SIZE = "
                f"{MODEL_MAX_CPD_SIZE:,} entries. Use averaged_model_ (the compact mixture; predict, predict_proba "
                "and score use it) or to_network(max_cpd_size=...) to expand it anyway.")

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        return self.averaged_model_.log_joint(codes)

    def to_network(self, *, max_cpd_size: int = MAX_COMPLETE_CPD_SIZE) -> DiscreteBayesianNetwork:
        """The complete pgmpy network with expanded CPTs (``model_`` when it was built). Raises a ValueError naming
        the first attribute whose complete CPT has more than ``max_cpd_size`` entries; use ``averaged_model_``
        (the compact mixture) then."""
        check_is_fitted(self)
        if hasattr(self, "model_"):
            return self.model_
        return self.averaged_model_.to_network(max_cpd_size=max_cpd_size)
