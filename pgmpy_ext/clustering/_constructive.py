"""Bayesian-network clustering by constructive induction (Pena, Lozano & Larranaga 1999): a naive Bayes with a
hidden cluster over supernodes (Cartesian products of attributes), whose structure is searched by joining and
splitting blocks on hard completions of the data; parameters by EM or BC+EM. Engine and scikit-learn face.

Peña, Lozano & Larrañaga (1999); design record ``docs/decisions/seed002-003-abn-pena.md`` (part B).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD
from pgmpy_ext.clustering._base import BaseBNMixture
from pgmpy_ext.data import CompoundColumn, EncodedData, compound_column, join_compound, split_compound, to_python
from pgmpy_ext.parameters import (
    STOPPING_RULES,
    SupernodeNB,
    fit_bc_em,
    fit_supernode_em,
    ml_parameters,
    random_parameters,
)
from pgmpy_ext.stats import join_log_ml, node_log_ml, supernode_counts
from pgmpy_ext.utils import Interval, Options, fill_doc, logsumexp_rows

__all__ = ["CI_PARAM_SEARCHES", "CI_SEARCHES", "CIStart", "ConstructiveInductionClustering", "ci_single_start"]

CI_PARAM_SEARCHES = ("em", "bc+em")
CI_SEARCHES = ("forward", "backward", "sa")
_EPS = 1e-9  # a move must improve the natural-log score by more than this (B.7)
_SA_MAX_PROPOSALS = 1_000_000


# ---------------------------------------------------------------------------------------------------- engine
@dataclass(frozen=True)
class CIOptions:
    """Validated options of one run (see :class:`ConstructiveInductionClustering`)."""

    n_clusters: int
    param_search: str = "em"
    fixing_threshold: float = 0.51
    interleave: bool = False
    search: str = "forward"
    max_iter: int = 150
    tol: float = 1e-6
    em_steps_per_round: object = 1
    bc_prior: float = 0.0
    stopping: str = "score"
    sa_T0: float = 25.0
    sa_cooling: float = 0.95
    sa_moves_per_temp: int = 50
    sa_stop_unchanged: int = 100
    score_base: float = 10.0


@dataclass
class CIStart:
    """One run: ``blocks`` (tuples of column indices), ``labels`` (cluster of every *distinct* row), the final
    ``counts`` (flat, K class rows per node) and ``class_counts``, the compound ``columns`` of the final
    structure, scores in natural log (``score_initial``: random parameters + hard completion, before any
    parameter search; ``score_final``: the completion in which no improving move was found), ``history`` (one
    dict per structure pass / SA acceptance), ``n_param_iter`` (parameter-search iterations summed),
    ``converged`` (every parameter search met its tolerance), ``n_proposals`` (SA), ``ll_trace`` (the observed
    log-likelihood of every parameter-search iterate, the searches of the run one after the other)."""

    blocks: list
    labels: np.ndarray
    counts: np.ndarray
    class_counts: np.ndarray
    columns: list
    score_initial: float
    score_final: float
    history: list = field(default_factory=list)
    n_param_iter: int = 0
    converged: bool = True
    n_proposals: int = 0
    ll_trace: list = field(default_factory=list)


class _Structure:
    """Current partition: one :class:`CompoundColumn` per node, with family terms cached for one completion."""

    def __init__(self, columns: list, mult: np.ndarray, K: int):
        self.columns = list(columns)
        self.mult = mult
        self.K = K
        self._fs: dict = {}
        self._labels_id = None

    def nb(self) -> SupernodeNB:
        nodes = np.ascontiguousarray(np.stack([c.codes for c in self.columns], axis=1), dtype=np.int32)
        u = np.array([c.u for c in self.columns], dtype=np.intp)
        r = np.array([float(c.full_card) for c in self.columns], dtype=np.float64)
        return SupernodeNB(nodes, u, r, self.mult, self.K)

    def blocks(self) -> list:
        return [c.members for c in self.columns]

    def _fresh(self, labels):
        if self._labels_id is not labels:
            self._fs = {}
            self._labels_id = labels

    def fs(self, col: CompoundColumn, labels) -> float:
        self._fresh(labels)
        key = col.members
        if key not in self._fs:
            self._fs[key] = node_log_ml(col.codes, col.u, float(col.full_card), labels, self.mult, self.K)
        return self._fs[key]

    def moves(self, search: str) -> list:
        R = len(self.columns)
        out = []
        if search in ("forward", "sa"):
            out += [("join", a, b) for a in range(R) for b in range(a + 1, R)]
        if search in ("backward", "sa"):
            out += [("split", j, p) for j in range(R) for p in range(1, len(self.columns[j].members))]
        return out

    def delta(self, move, labels) -> float:
        kind, x, y = move
        if kind == "join":
            a, b = self.columns[x], self.columns[y]
            joined = join_log_ml(a.codes, a.u, b.codes, b.u, float(a.full_card * b.full_card), labels, self.mult,
                                 self.K)
            return joined - self.fs(a, labels) - self.fs(b, labels)
        col = self.columns[x]
        pre, suf = split_compound(col, y)
        return self.fs(pre, labels) + self.fs(suf, labels) - self.fs(col, labels)

    def apply(self, move) -> None:
        kind, x, y = move
        if kind == "join":
            joined = join_compound(self.columns[x], self.columns[y])
            self.columns[x] = joined
            del self.columns[y]
        else:
            pre, suf = split_compound(self.columns[x], y)
            self.columns[x:x + 1] = [pre, suf]

    def best_move(self, search: str, labels):
        best, best_delta = None, _EPS
        for move in self.moves(search):
            d = self.delta(move, labels)
            if d > best_delta:  # strict: ties keep the earliest move (lowest pair / node, cut point)
                best, best_delta = move, d
        return best, (best_delta if best is not None else 0.0)


def _param_search(nb: SupernodeNB, theta, prior, opts: CIOptions, estep=None):
    if opts.param_search == "em":
        return fit_supernode_em(nb, theta, prior, max_iter=opts.max_iter, tol=opts.tol, stopping=opts.stopping,
                                estep=estep)
    return fit_bc_em(nb, theta, prior, fixing_threshold=opts.fixing_threshold, max_iter=opts.max_iter, tol=opts.tol,
                     em_steps_per_round=opts.em_steps_per_round, bc_prior=opts.bc_prior, stopping=opts.stopping,
                     estep=estep)


def _units(value: float, opts: CIOptions) -> float:
    return float(value) / math.log(opts.score_base)


def ci_single_start(codes: np.ndarray, cards, mult: np.ndarray, opts: CIOptions, rng: np.random.Generator) -> CIStart:
    """One run of LEARN_CI_CLUSTERING (spec B.3 / B.8) on distinct rows ``codes`` (int32, complete) with
    multiplicities ``mult``. All randomness (the initial parameters, SA's proposals and acceptances) comes from
    ``rng``."""
    K = int(opts.n_clusters)
    m = codes.shape[1]
    if opts.search == "backward":
        columns = [compound_column(codes, cards, range(m))]
    else:
        columns = [compound_column(codes, cards, [j]) for j in range(m)]
    st = _Structure(columns, mult, K)
    nb = st.nb()
    theta, prior = random_parameters(nb, rng)
    e = nb.estep(theta, prior)
    score_initial = nb.score(e.labels)
    res = _param_search(nb, theta, prior, opts, estep=e)
    n_param_iter, converged = res.n_iter, res.converged
    ll_trace = list(res.loglik_trace)
    labels = res.estep.labels
    history = [{"step": 0, "move": None, "delta": None, "blocks": st.blocks(), "param_iter": res.n_iter,
                "score": _units(nb.score(labels), opts)}]
    if opts.search == "sa":
        out = _anneal(st, labels, opts, rng, score_initial, history, n_param_iter, converged)
        out.ll_trace = ll_trace
        return out
    step = 0
    while True:
        move, delta = st.best_move(opts.search, labels)
        if move is None:
            break
        st.apply(move)
        step += 1
        nb = st.nb()
        theta, prior = ml_parameters(nb, labels)
        if opts.interleave:
            res = _param_search(nb, theta, prior, opts)
            n_param_iter += res.n_iter
            converged = converged and res.converged
            ll_trace += res.loglik_trace
            labels, it = res.estep.labels, res.n_iter
        else:
            labels, it = nb.estep(theta, prior, accumulate=False).labels, 0
        history.append({"step": step, "move": move, "delta": _units(delta, opts), "blocks": st.blocks(),
                        "param_iter": it, "score": _units(nb.score(labels), opts)})
    out = _finish(st, labels, score_initial, history, n_param_iter, converged, 0)
    out.ll_trace = ll_trace
    return out


def _finish(st: _Structure, labels, score_initial, history, n_param_iter, converged, n_proposals) -> CIStart:
    nb = st.nb()
    counts = supernode_counts(nb.nodes, nb.u, labels, nb.mult, nb.K)
    class_counts = np.bincount(labels.astype(np.intp), weights=nb.mult, minlength=nb.K)
    return CIStart(st.blocks(), labels, counts, class_counts, list(st.columns), score_initial, nb.score(labels),
                   history, n_param_iter, converged, n_proposals)


def _anneal(st: _Structure, labels, opts: CIOptions, rng, score_initial, history, n_param_iter, converged) -> CIStart:
    """Simulated annealing over joins and splits (spec B.8): Metropolis acceptance in ``score_base`` units,
    ``sa_moves_per_temp`` proposals per temperature, geometric cooling, stop after ``sa_stop_unchanged``
    consecutive rejections; after an accepted move the parameters are re-estimated by ML from the current
    completion and the data re-completed. Returns the best structure seen, with its completion."""
    nb = st.nb()
    current = nb.score(labels)
    best = (current, list(st.columns), labels)
    T = float(opts.sa_T0)
    unchanged = n_prop = 0
    while unchanged < opts.sa_stop_unchanged and n_prop < _SA_MAX_PROPOSALS:
        moves = st.moves("sa")
        if not moves:
            break
        move = moves[int(rng.integers(len(moves)))]
        u = float(rng.random())
        d = _units(st.delta(move, labels), opts)
        n_prop += 1
        if d >= 0 or u < math.exp(d / T):
            st.apply(move)
            nb = st.nb()
            theta, prior = ml_parameters(nb, labels)
            labels = nb.estep(theta, prior, accumulate=False).labels
            current = nb.score(labels)
            unchanged = 0
            history.append({"step": n_prop, "move": move, "delta": d, "blocks": st.blocks(), "param_iter": 0,
                            "score": _units(current, opts), "T": T})
            if current > best[0]:
                best = (current, list(st.columns), labels)
        else:
            unchanged += 1
        if n_prop % opts.sa_moves_per_temp == 0:
            T *= opts.sa_cooling
    st.columns = best[1]
    return _finish(st, best[2], score_initial, history, n_param_iter, converged, n_prop)


def unique_rows_with_counts(codes: np.ndarray):
    """(distinct rows (int32, lexicographic), multiplicities (float64), inverse (n,))."""
    if codes.shape[0] == 0:
        return codes, np.zeros(0), np.zeros(0, dtype=np.intp)
    uniq, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    return np.ascontiguousarray(uniq, dtype=np.int32), counts.astype(np.float64), inverse.reshape(-1)


@dataclass(frozen=True)
class _Prepared:
    codes: np.ndarray
    cards: list
    mult: np.ndarray
    inverse: np.ndarray
    opts: CIOptions

    def __call__(self, rng):
        return ci_single_start(self.codes, self.cards, self.mult, self.opts, rng)


# ---------------------------------------------------------------------------------------------------- face
@fill_doc
class ConstructiveInductionClustering(BaseBNMixture):
    r"""Clustering with a naive Bayes over supernodes, learned by constructive induction (Pena et al. 1999).

    The cluster C is a hidden root whose children are "nodes": blocks of attributes joined into one variable whose
    values are the tuples of their members' values (Pazzani's Cartesian-product attributes). Starting from the
    naive Bayes (``search="forward"``, all singletons) or from one block of every attribute (``"backward"``), a
    parameter search (EM or BC+EM) fits the random initial parameters, the data are completed with each case's
    most probable cluster, and the best single join (or split) by the completed-data K2 score is applied; the
    parameters are re-estimated by ML from the completion (or searched again, ``interleave=True``) and the loop
    repeats until no move improves the score. ``search="sa"`` is simulated annealing over joins and splits.
    Design record: ``docs/decisions/seed002-003-abn-pena.md`` (part B, Peña et al. 1999).

    Parameters
    ----------
    n_clusters : int >= 1, default 2
        K, known in advance (the paper does not search over K).
    param_search : {"em", "bc+em"}, default "em"
        EM or the Bound-and-Collapse + EM hybrid (the paper's section 3.2.1, after Ramoni & Sebastiani 1997).
    fixing_threshold : float in [0, 1) or None, default None
        BC+EM: a case's cluster is fixed when its largest posterior is strictly greater than this. None means
        ``1 / n_clusters + 0.01`` (the paper's 0.51 for K = 2 and 0.21 for K = 5; it also used 0.51 and 0.75 with
        K = 4).
    interleave : bool, default False
        Rerun the parameter search after every structural change (the paper's "_int" variants); otherwise the
        parameters after a change are the ML estimate from the current completion. Ignored by ``"sa"``.
    search : {"forward", "backward", "sa"}, default "forward"
        Greedy joins from the naive Bayes, greedy splits (at ordered cut points) from the fully joined
        model, or simulated annealing from the naive Bayes (the parameter search then runs once; the paper's section
        3.2.2).
    max_iter : int >= 1, default 150
        Iterations of EM, or rounds of BC+EM, per parameter search.
    tol : float >= 0, default 1e-6
        Relative change of the stopping criterion below which a parameter search stops.
    em_steps_per_round : int >= 0 or "converge", default 1
        BC+EM: EM iterations after each BC step (the paper does not say).
    bc_prior : float >= 0, default 0.0
        BC's Dirichlet hyperparameter a (BDeu-style cells ``a / (K r_j)``); 0 is ML-consistent (the paper gives none).
    stopping : {"score", "loglik"}, default "score"
        Parameter-search criterion: the completed-data K2 score (the paper's literal rule) or the observed
        log-likelihood.
    sa_T0, sa_cooling, sa_moves_per_temp, sa_stop_unchanged : default 25.0, 0.95, 50, 100
        Simulated annealing: initial temperature in ``score_base`` units, geometric cooling factor, proposals per
        temperature, consecutive rejections that stop the search.
    score_base : float > 1, default 10
        Units of the reported scores (10: the paper's log10; ``math.e``: natural log). SA's temperature is in
        these units too.
    predict_smoothing : float >= 0, default 1e-3
        Pseudo-count per cell of a node's FULL product added at predict time only (not in the paper), so an unseen
        value combination gets a small probability instead of 0. ``model_`` keeps the ML estimate.
    n_init : int >= 1, default 1
        Independent runs (random initial parameters); the run with the highest final score is kept.
    random_state : None, int or numpy.random.Generator, default None
        Seed of the initial parameters and of the SA draws; one child generator per run, so the result does not
        depend on ``n_jobs``.
    %(n_jobs)s
    show_progress : bool, default False
        Progress bar over the runs (also needs ``pgmpy.config.SHOW_PROGRESS``).
    %(handle_unknown)s
    %(missing_fit_complete)s

    Attributes
    ----------
    blocks_ : list of tuple
        The final nodes, each a tuple of feature names in block order (a singleton tuple for a plain attribute).
    node_names_ : list of str
        The variable name of every node in ``model_`` (a singleton keeps the feature's name; a supernode is its
        members' names joined with ``"__"``).
    decode_ : dict
        ``{node name: {state name: tuple of the members' original values}}`` for every supernode.
    labels_ : ndarray of int, shape (n_samples,)
        The final completion: the most probable cluster of every training row.
    score_initial_, score_final_ : float
        Completed-data K2 log marginal likelihood (``score_base`` units) of the random start and of the final
        completion.
    history_ : list of dict
        One entry per structure pass (SA: per accepted move): ``step``, ``move`` (``("join", a, b)`` /
        ``("split", node, cut)`` in node positions), ``delta`` and ``score`` (``score_base`` units), ``blocks``
        (column indices), ``param_iter``.
    cluster_sizes_ : ndarray of float, shape (n_clusters,)
        Rows per cluster in ``labels_``.
    n_nonempty_clusters_ : int
        Clusters with at least one row (the completed-data score can empty clusters).
    weights_ : ndarray of shape (n_clusters,)
        Mixing weights ``cluster_sizes_ / n``.
    params_ : dict
        ``{node name: ndarray (n_clusters, u)}``: ML ``P(node = value | cluster)`` over the node's observed values
        (state order of ``model_``); an empty cluster has a uniform row.
    n_iter_ : int
        Parameter-search iterations of the kept run, summed over its searches.
    ll_trace_ : ndarray of float
        Observed-data log-likelihood (natural log) of every parameter-search iterate of the kept run, its searches
        one after the other (each search's start first).
    log_likelihood_ : float
        Observed-data log-likelihood of the training rows under ``model_``'s parameters as ``predict`` uses them
        (with ``predict_smoothing``; natural log, the cluster summed out).
    converged_ : bool
        Whether every parameter search of the kept run met ``tol`` before ``max_iter``.
    start_scores_ : ndarray of shape (n_init,)
        ``score_final_`` of every run.
    model_ : DiscreteBayesianNetwork
        The cluster node (``cluster_node_``, latent, states 0..K-1) as the parent of one variable per node;
        a supernode's states are the observed combinations, named so that BIF/XMLBIF export works (see
        ``decode_``).
    cluster_node_, encoder_, n_features_in_, feature_names_in_ : see :class:`BaseBNMixture`.

    See Also
    --------
    pgmpy_ext.clustering.CEMClustering : mixtures of trees trained by classification EM.
    pgmpy_ext.parameters.fit_bc_em, pgmpy_ext.parameters.bound_collapse : the parameter searches.
    pgmpy_ext.evaluation.right_final : the paper's Right / Final structure metrics.

    Notes
    -----
    The model and the score (log marginal likelihood of the completed data, all Dirichlet hyperparameters 1,
    the class family included; :math:`r_j` is the full product cardinality of node j, never the number of observed
    combinations; the choices the paper leaves open are in ``docs/decisions/seed002-003-abn-pena.md``, "Ambiguities,
    errors and recommendations" of part B):

    .. math::

        p(c, y) = \theta_c \prod_j \theta_j(y^{B_j} \mid c), \qquad
        \log p(d \mid b) = \sum_{\text{families}} \sum_{j} \Big[\log\Gamma(r_i) - \log\Gamma(N_{ij} + r_i)
            + \sum_k \log\Gamma(N_{ijk} + 1)\Big].

    A join of nodes a and b changes only their families; its gain is scored from the two nodes' codes without
    building the joined column. Rows are deduplicated once (distinct rows with multiplicities). The training
    completion ``labels_`` comes from the parameters before the last ML re-estimate, so ``predict`` on the
    training rows may differ from it on a few rows.

    References
    ----------
    .. [1] J. M. Pena, J. A. Lozano and P. Larranaga, "Learning Bayesian networks for clustering by means of
       constructive induction", Pattern Recognition Letters 20 (1999) 1219-1230.
    .. [2] M. Ramoni and P. Sebastiani, "Learning Bayesian networks from incomplete databases", UAI 1997.

    Examples
    --------
    Two clusters; x1 copies x0 (both depend on the cluster), so the pair should become one supernode, and the
    other attributes stay singletons. Five runs, the best final score kept:

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(5)
    >>> z = rng.integers(0, 2, 1000)
    >>> x0 = np.where(rng.random(1000) < 0.6, z, rng.integers(0, 3, 1000))
    >>> X = pd.DataFrame({"x0": x0, "x1": (x0 + (rng.random(1000) < 0.05)) % 3})
    >>> for j in range(2, 6):
    ...     X[f"x{j}"] = np.where(rng.random(1000) < 0.85, z, 1 - z)
    >>> ci = ConstructiveInductionClustering(2, param_search="bc+em", n_init=5, random_state=0).fit(X)
    >>> ci.blocks_
    [('x0', 'x1'), ('x2',), ('x3',), ('x4',), ('x5',)]
    >>> ci.n_nonempty_clusters_, round(ci.score_final_, 1) > round(ci.score_initial_, 1)
    (2, True)
    >>> sorted(ci.model_.nodes()), ci.model_.latents
    (['cluster', 'x0__x1', 'x2', 'x3', 'x4', 'x5'], {'cluster'})
    """

    def __init__(self, n_clusters=2, *, param_search="em", fixing_threshold=None, interleave=False, search="forward",
                 max_iter=150, tol=1e-6, em_steps_per_round=1, bc_prior=0.0, stopping="score", sa_T0=25.0,
                 sa_cooling=0.95, sa_moves_per_temp=50, sa_stop_unchanged=100, score_base=10,
                 predict_smoothing=1e-3, n_init=1, random_state=None, n_jobs=None, show_progress=False,
                 handle_unknown="ignore", missing="available_case"):
        self.n_clusters = n_clusters
        self.param_search = param_search
        self.fixing_threshold = fixing_threshold
        self.interleave = interleave
        self.search = search
        self.max_iter = max_iter
        self.tol = tol
        self.em_steps_per_round = em_steps_per_round
        self.bc_prior = bc_prior
        self.stopping = stopping
        self.sa_T0 = sa_T0
        self.sa_cooling = sa_cooling
        self.sa_moves_per_temp = sa_moves_per_temp
        self.sa_stop_unchanged = sa_stop_unchanged
        self.score_base = score_base
        self.predict_smoothing = predict_smoothing
        self.n_init = n_init
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    # ------------------------------------------------------------------ options
    def _options(self) -> CIOptions:
        K = self.n_clusters
        tau = 1.0 / K + 0.01 if self.fixing_threshold is None else float(self.fixing_threshold)
        return CIOptions(int(K), self.param_search, tau, bool(self.interleave), self.search, int(self.max_iter),
                         float(self.tol), self.em_steps_per_round, float(self.bc_prior), self.stopping,
                         float(self.sa_T0), float(self.sa_cooling), int(self.sa_moves_per_temp),
                         int(self.sa_stop_unchanged), float(self.score_base))

    _parameter_constraints = {
        **BaseBNMixture._parameter_constraints,
        "param_search": [Options(CI_PARAM_SEARCHES)], "search": [Options(CI_SEARCHES)],
        "stopping": [Options(STOPPING_RULES)], "interleave": ["boolean"],
        "fixing_threshold": [None, Interval(numbers.Real, 0, 1, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "em_steps_per_round": [Options("converge"), Interval(numbers.Integral, 0, None)],
        "bc_prior": [Interval(numbers.Real, 0, None)], "sa_T0": [Interval(numbers.Real, 0, None, closed="neither")],
        "sa_cooling": [Interval(numbers.Real, 0, 1, closed="right")],
        "sa_moves_per_temp": [Interval(numbers.Integral, 1, None)],
        "sa_stop_unchanged": [Interval(numbers.Integral, 1, None)],
        "score_base": [Interval(numbers.Real, 1, None, closed="neither")],
        "predict_smoothing": [Interval(numbers.Real, 0, None)],
    }

    def _check_no_missing(self, frame) -> None:
        na = frame.isna().to_numpy()
        if na.any():
            r, k = (int(v[0]) for v in np.nonzero(na))
            label = to_python(frame.index[r])
            raise ValueError(f"{type(self).__name__} cannot fit on missing values (NaN/None): column "
                             f"{frame.columns[k]!r} is missing at row {label!r}. The completed-data score and the "
                             "supernode codes need every attribute observed; impute or drop the incomplete rows "
                             "before fit. predict, predict_proba and score sum missing cells out exactly.")

    # ------------------------------------------------------------------ BaseBNMixture hooks
    def _progress_desc(self) -> str:
        return f"CI-{self.param_search.upper()} runs"

    def _prepare_starts(self, data: EncodedData) -> _Prepared:
        codes, mult, inverse = unique_rows_with_counts(data.codes)
        return _Prepared(codes, [int(c) for c in data.cards], mult, inverse, self._options())

    def _single_start(self, prepared: _Prepared, rng: np.random.Generator) -> CIStart:
        return prepared(rng)

    def _start_score(self, result: CIStart) -> float:
        return float(result.score_final)

    def _not_converged_message(self, result: CIStart) -> str | None:
        if result.converged:
            return None
        return (f"A parameter search ({self.param_search}) stopped at max_iter={self.max_iter} before the relative "
                f"change of its criterion fell below tol={self.tol}; increase max_iter.")

    def _set_fitted(self, best: CIStart, scores: np.ndarray) -> None:
        names = list(self.encoder_.columns)
        inverse = np.unique(self.encoder_.codes, axis=0, return_inverse=True)[1].reshape(-1)
        base = float(self.score_base)
        K = int(self.n_clusters)
        self.labels_ = best.labels[inverse].astype(np.intp)
        self.blocks_ = [tuple(names[i] for i in b) for b in best.blocks]
        self.score_initial_ = float(best.score_initial) / math.log(base)
        self.score_final_ = float(best.score_final) / math.log(base)
        self.history_ = best.history
        self.cluster_sizes_ = np.bincount(self.labels_, minlength=K).astype(np.float64)
        self.n_nonempty_clusters_ = int((self.cluster_sizes_ > 0).sum())
        self.weights_ = self.cluster_sizes_ / max(self.cluster_sizes_.sum(), 1.0)
        self.n_iter_ = int(best.n_param_iter)
        self.converged_ = bool(best.converged)
        self.ll_trace_ = np.asarray(best.ll_trace, dtype=np.float64)
        self.start_scores_ = scores / math.log(base)
        self._columns_ = best.columns
        offsets = np.concatenate([[0], np.cumsum([K * c.u for c in best.columns])]).astype(np.intp)
        self._node_counts_ = [best.counts[offsets[j]:offsets[j + 1]].reshape(K, c.u)
                              for j, c in enumerate(best.columns)]
        taken = set(names)
        self.node_names_, self.decode_, self._state_names_ = [], {}, []
        for col, block in zip(best.columns, self.blocks_, strict=True):
            if len(block) == 1:
                self.node_names_.append(block[0])
                self._state_names_.append([to_python(v) for v in self.encoder_.states[col.members[0]]]
                                          if col.u == len(self.encoder_.states[col.members[0]])
                                          else [to_python(self.encoder_.states[col.members[0]][v])
                                                for v in col.values[:, 0]])
                continue
            name = "__".join(str(b) for b in block)
            while name in taken:
                name += "_"
            taken.add(name)
            tuples = [tuple(to_python(self.encoder_.states[m][v]) for m, v in zip(col.members, row, strict=True))
                      for row in col.values.tolist()]
            states = ["__".join(str(v) for v in t) for t in tuples]
            if len(set(states)) < len(states):
                states = [f"v{k}" for k in range(len(tuples))]
            self.node_names_.append(name)
            self._state_names_.append(states)
            self.decode_[name] = dict(zip(states, tuples, strict=True))
        self.params_ = {}
        for name, counts in zip(self.node_names_, self._node_counts_, strict=True):
            tot = counts.sum(axis=1, keepdims=True)
            self.params_[name] = np.where(tot > 0, counts / np.where(tot > 0, tot, 1.0), 1.0 / counts.shape[1])
        self.log_likelihood_ = float(logsumexp_rows(self._joint_log_likelihood(self.encoder_.codes)).sum())

    def _build_models(self) -> None:
        C = self.cluster_node_
        K = int(self.n_clusters)
        model = DiscreteBayesianNetwork()
        model.add_nodes_from([C, *self.node_names_])
        model.add_edges_from([(C, v) for v in self.node_names_])
        model.latents = {C}
        cpds = [TabularCPD(C, K, self.weights_.reshape(K, 1), state_names={C: list(range(K))})]
        for name, states in zip(self.node_names_, self._state_names_, strict=True):
            table = self.params_[name]
            cpds.append(TabularCPD(name, table.shape[1], table.T, evidence=[C], evidence_card=[K],
                                   state_names={name: states, C: list(range(K))}))
        model.add_cpds(*cpds)
        self.model_ = model

    def _joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """``log p(x, k)`` with the decision-15 smoothing: ``(N_kv + s) / (n_k + s r_j)``; a node with missing
        members is summed out exactly over the combinations consistent with its observed members."""
        s = float(self.predict_smoothing)
        n = codes.shape[0]
        with np.errstate(divide="ignore"):
            out = np.tile(np.log(self.weights_), (n, 1))
        for col, counts in zip(self._columns_, self._node_counts_, strict=True):
            r = float(col.full_card)
            n_k = counts.sum(axis=1)                                        # (K,)
            denom = n_k + s * r
            member_codes = codes[:, list(col.members)]
            v = col.lookup(member_codes)
            with np.errstate(divide="ignore", invalid="ignore"):
                log_seen = np.log((counts + s) / denom[:, None])            # (K, u)
                log_unseen = np.log(s / denom)                              # (K,)
            complete = (member_codes >= 0).all(axis=1)
            seen = complete & (v >= 0)
            out[seen] += log_seen[:, v[seen]].T
            out[complete & (v < 0)] += log_unseen
            for i in np.nonzero(~complete)[0]:
                obs = member_codes[i] >= 0
                match = (col.values[:, obs] == member_codes[i][obs]).all(axis=1)
                n_full = math.prod(c for c, o in zip(col.member_cards, obs, strict=True) if not o)
                with np.errstate(divide="ignore", invalid="ignore"):
                    out[i] += np.log((counts[:, match].sum(axis=1) + s * n_full) / denom)
        return np.nan_to_num(out, nan=-np.inf)
