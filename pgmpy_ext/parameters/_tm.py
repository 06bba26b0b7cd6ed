"""Discriminative parameter learning of Bayesian-network classifiers with the TM algorithm, in count space.

Seed 001 (Santafé 2007), spec ``docs/decisions/seed001-tm-classifiers.md`` sections 5.2-5.7. The thesis derives
the TM separately for naive Bayes, FAN and BAN with binary variables and for NB/FAN with multinomial variables; all
five are the same update written in different linear coordinates of the class-dependent counts (spec 5.4), so
this module implements it once, on the count tables of every family that contains the class:

    T <- T + lambda (O - E(T))

with ``O`` the observed counts and ``E`` the expected counts under ``p(c | x, theta(T))``. The engine
:func:`fit_tm` works on :class:`~pgmpy_ext.data.EncodedData` and builds no pgmpy object: it validates, compiles the
structure into a :class:`~pgmpy_ext.stats.TMData`, runs one of the optimisers of
:mod:`pgmpy_ext.parameters._tm_solvers` (the thesis's iteration or L-BFGS) and reports; :class:`TMEstimator` is its
pgmpy face (a ``DiscreteParameterEstimator``).
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG, DiscreteBayesianNetwork, DiscreteParameterEstimator
from pgmpy_ext.data import PARAMETER_VOCABULARY, EncodedData, check_pgmpy_data, encode, pgmpy_state_names
from pgmpy_ext.models import cpds_from_counts, sorted_parents
from pgmpy_ext.parameters._tm_evidence import evidence_strength
from pgmpy_ext.parameters._tm_solvers import (
    LBFGS_COORDINATES,
    PRIOR_MEANS,
    THESIS_GRID,
    LBFGSSolver,
    Prior,
    SolverRun,
    run_tm_iteration,
)
from pgmpy_ext.stats import TMData, family_counts
from pgmpy_ext.utils import ANY, Interval, Options, check_option, check_params, normalize_columns

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_PRIOR_STRENGTH", "LINE_SEARCHES", "PRIOR_MEANS", "SOLVERS", "THESIS_GRID", "TMEstimator",
           "TMResult", "check_tm_params", "class_children", "cv_cll", "cv_log_proba", "fit_tm", "inner_folds",
           "prior_strengths", "uses_evidence"]

#: Valid ``line_search`` options: the thesis's 0.01 grid (spec 5.6, decision 2) and backtracking (REC).
LINE_SEARCHES = ("grid", "backtracking")
#: Valid ``solver`` options: the thesis's TM iteration, and L-BFGS on the log-counts (same objective and model).
SOLVERS = ("tm", "lbfgs")
#: The fixed prior strength of the lbfgs TM where one number is needed: the precision per cell of the Gaussian prior
#: around the generative parameters (times the number of feature-parent configurations of the family). It was the
#: default before the evidence rule (``prior_strength="auto"`` now chooses the strength per fit, starting here) and
#: is what structural TM scores its candidates with and what structures without log-linear coordinates (BAN, kDB
#: with k >= 2) get; chosen by held-out log loss over the public UCI sets, ``docs/decisions/tm-regularisation.md``.
DEFAULT_PRIOR_STRENGTH = 30.0
#: The evidence rule (``prior_strength="auto"`` / ``"evidence"``): the strength its fixed point starts from (per
#: ``prior_mean``) and the number of its updates (each followed by a warm-started refit when the strength moves);
#: ``docs/decisions/tm-regularisation.md`` section 7.
EVIDENCE_START = {"generative": DEFAULT_PRIOR_STRENGTH, "uniform": 1.0}
EVIDENCE_ITER = 2


def uses_evidence(prior_strength, solver: str = "lbfgs") -> bool:
    """Whether ``prior_strength`` asks for the evidence rule: ``"evidence"``, or ``"auto"`` (the default), with
    ``solver="lbfgs"``."""
    return solver == "lbfgs" and isinstance(prior_strength, str) and prior_strength in ("auto", "evidence")


@dataclass
class TMResult:
    """Result of :func:`fit_tm`: the final count tables and the optimisation trace.

    Attributes
    ----------
    class_node : label
    children : list
        ``Ch(C)``: the nodes whose parents include the class, in the order of the ``parents`` mapping.
    parents : dict
        ``{node: sorted parents}`` for the class (``[]``) and every child (pgmpy's evidence order).
    counts : dict
        ``{node: T}``: the final class-dependent counts. The class gets shape ``(K,)``; a child gets
        ``(r_child, *r_parents)`` in the order ``(child, *parents[child])`` (the class among them), i.e. the layout
        of ``TabularCPD.values``. ``theta`` is ``T`` normalised over axis 0 (over the class for the class node).
        For ``solver="lbfgs"``, ``T`` is ``theta`` times the starting total of each parent configuration (the TM's
        invariant ``sum_c T = N(x, pi)`` holds only for ``solver="tm"``).
    observed : dict
        ``{node: O}``, the maximum-likelihood counts, in the same layouts.
    cll_trace : numpy.ndarray of float64, shape (n_iter + 1,)
        Training conditional log-likelihood (nats, summed over rows) at the start and after every iteration;
        non-decreasing without a prior (see ``objective_trace``).
    step_sizes : numpy.ndarray of float64, shape (n_iter,)
        ``lambda`` of every iteration (1.0 when the full step was taken); for ``solver="lbfgs"`` the Euclidean
        length of every step in log-count space.
    n_iter : int
    converged : bool
        True when the CLL changed by less than ``tol`` (or not at all) in the last iteration.
    stop_reason : {"tol", "stalled", "max_iter", "range"}
        ``"stalled"``: no step size of the line search increased the CLL (see spec 5.4.1 for why the thesis's grid
        can stall; for ``solver="lbfgs"``: the line search failed, i.e. the CLL is at its numerical maximum).
        ``"range"`` (``solver="lbfgs"`` only): the next iterate would have had a parameter below 1e-250, which a
        float64 CPT cannot carry through inference (separable data, whose optimum is at infinity); the last
        iterate within range is returned.
    n_evaluations : int
        Number of CLL evaluations, line searches included.
    elapsed : numpy.ndarray of float64, shape (n_iter + 1,)
        Wall-clock seconds since the call started, when each entry of ``cll_trace`` was reached (the first one
        includes compressing the data); for benchmarks.
    solver : {"lbfgs", "tm"}
        The optimiser that produced the result.
    objective_trace : numpy.ndarray of float64, shape (n_iter + 1,)
        The maximised objective at every entry of ``cll_trace``: the CLL minus the prior's penalty (the CLL itself
        without a prior); non-decreasing.
    prior_strength : float
        The prior strength used (0: no prior).
    cv_scores : numpy.ndarray of float64 or None
        When the strength was chosen by inner cross-validation: the summed held-out CLL of every candidate, from
        the strongest to the weakest (NaN for those the search did not reach).
    evidence_trace : numpy.ndarray of float64, shape (n_fits, 5), or None
        When the strength was chosen by the evidence rule (``prior_strength="evidence"``): per fit, the strength,
        the effective number of parameters ``gamma``, the prior-weighted squared distance of the MAP from the prior
        mean, the Laplace log-evidence (up to a constant) and the scale of the mean's class contrasts; see
        :mod:`pgmpy_ext.parameters._tm_evidence`.
    """

    class_node: object
    children: list
    parents: dict
    counts: dict
    observed: dict
    cll_trace: np.ndarray
    step_sizes: np.ndarray
    n_iter: int
    converged: bool
    stop_reason: str
    n_evaluations: int = 0
    elapsed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    solver: str = "tm"
    objective_trace: np.ndarray = field(default_factory=lambda: np.zeros(0))
    prior_strength: float = 0.0
    cv_scores: np.ndarray | None = None
    evidence_trace: np.ndarray | None = None

    @property
    def cll(self) -> float:
        """Final training CLL."""
        return float(self.cll_trace[-1])

    @property
    def cll_ml(self) -> float:
        """CLL at the starting point (maximum likelihood when ``alpha = 0``)."""
        return float(self.cll_trace[0])

    def tables(self) -> dict:
        """``{node: theta}``: the counts normalised over the node's own axis (the class for the class node), with
        a uniform column where a parent configuration has zero counts (pgmpy's ``DiscreteMLE`` convention, also
        the TM's)."""
        return {node: normalize_columns(t.reshape(t.shape[0], -1)).reshape(t.shape) for node, t in self.counts.items()}


def check_tm_params(alpha, tol, max_iter, line_search, solver="lbfgs", prior_strength=0.0,
                    prior_mean="generative", cv=3):
    """Validate the TM options (shared by :func:`fit_tm`, :class:`TMEstimator` and structural TM)."""
    check_scalar(alpha, "alpha", numbers.Real, min_val=0.0)
    if not math.isfinite(alpha):
        raise ValueError(f"alpha == {alpha!r}, must be a finite number >= 0.")
    check_scalar(tol, "tol", numbers.Real, min_val=0.0)
    if math.isnan(tol):
        raise ValueError("tol == nan, must be >= 0.")
    check_scalar(max_iter, "max_iter", numbers.Integral, min_val=0)
    check_option(line_search, "line_search", LINE_SEARCHES)
    check_option(solver, "solver", SOLVERS)
    check_option(prior_mean, "prior_mean", PRIOR_MEANS)
    check_scalar(cv, "cv", numbers.Integral, min_val=2)
    grid = prior_strengths(prior_strength, solver)
    if solver == "tm" and any(v > 0 for v in grid):
        raise ValueError(f"prior_strength == {prior_strength!r} with solver='tm': the thesis's TM iteration "
                         "maximises the conditional log-likelihood without a prior. Use solver='lbfgs' for a "
                         "prior, or prior_strength=0 (or 'auto') for the thesis's objective.")


def prior_strengths(prior_strength, solver: str = "lbfgs") -> tuple:
    """The prior strengths ``prior_strength`` stands for, as a tuple of floats (more than one: chosen by inner
    cross-validation): ``"auto"`` is :data:`DEFAULT_PRIOR_STRENGTH` for ``solver="lbfgs"`` and 0 (no prior, the
    thesis's objective) for ``solver="tm"``; a number is itself; a sequence is its values."""
    if isinstance(prior_strength, str):
        if prior_strength == "evidence":  # chosen during the fit; its starting value here
            if solver != "lbfgs":
                raise ValueError("prior_strength='evidence' needs solver='lbfgs' (the thesis's TM iteration has no "
                                 "prior).")
            return (DEFAULT_PRIOR_STRENGTH,)
        if prior_strength != "auto":
            raise ValueError(f"prior_strength == {prior_strength!r}, must be 'auto', 'evidence', a number >= 0 or a "
                             "sequence of numbers >= 0 (chosen by inner cross-validation).")
        return (DEFAULT_PRIOR_STRENGTH,) if solver == "lbfgs" else (0.0,)
    if isinstance(prior_strength, (numbers.Real, np.number)) and not isinstance(prior_strength, bool):
        values = (float(prior_strength),)
    else:
        try:
            values = tuple(float(v) for v in prior_strength)
        except (TypeError, ValueError):
            raise TypeError(f"prior_strength must be 'auto', a number >= 0 or a sequence of numbers >= 0, got "
                            f"{prior_strength!r}.") from None
        if not values:
            raise ValueError("prior_strength is an empty sequence; give at least one strength (or 'auto').")
    bad = [v for v in values if not (math.isfinite(v) and v >= 0)]
    if bad:
        raise ValueError(f"prior_strength == {bad[0]!r}, must be a finite number >= 0.")
    return values


def class_children(parents: Mapping, class_node) -> list:
    """``Ch(C)``: nodes of ``parents`` that have ``class_node`` among their parents, in mapping order."""
    return [n for n, pa in parents.items() if n != class_node and class_node in list(pa)]


class _TMTables:
    """One structure's :class:`~pgmpy_ext.stats.TMData` and the adapter between its class-last blocks and the
    pgmpy-ordered tables of :class:`TMResult` (``(child, *sorted parents)``, the class among the parents).

    Built on the :class:`~pgmpy_ext.stats.BlockLayout` protocol of ``TMData`` (``unpack_blocks`` /
    ``pack_blocks``); the only thing added here is moving the class axis.
    """

    def __init__(self, data: EncodedData, class_node, parents: Mapping, weights):
        if class_node not in data.columns:
            raise ValueError(f"class_node {class_node!r} is not a column of the data (columns: {data.columns!r}).")
        cpa = list(parents.get(class_node, ()))
        if cpa:
            raise ValueError(f"class_node {class_node!r} has parents {cpa!r}; the TM algorithm needs the class as a "
                             "root (seed 001 section 5.4). Reverse those arcs.")
        self.class_node = class_node
        self.children = class_children(parents, class_node)
        self.parents = {class_node: []}
        fams, self.class_axis = [], []
        for child in self.children:
            pa = sorted_parents(parents[child])
            if child in pa or len(set(pa)) != len(pa):
                raise ValueError(f"node {child!r} has invalid parents {pa!r} (itself, or repeated).")
            self.parents[child] = pa
            others = [p for p in pa if p != class_node]
            self.class_axis.append(1 + pa.index(class_node))
            fams.append((data.index(child), tuple(data.index(p) for p in others)))
        cidx = data.index(class_node)
        y = data.codes[:, cidx]
        if (y < 0).any():
            r = int(np.flatnonzero(y < 0)[0])
            raise ValueError(f"class column {class_node!r} has a missing value at row {r}; the TM needs complete "
                             "data.")
        self.K = data.card(class_node)
        w = data.weights if weights is None else weights
        self.tmd = TMData.build(data.codes, y, data.cards, self.K, fams, weights=w)
        self._build = (data.codes, y, data.cards, fams, w)

    def rows(self, rows: np.ndarray) -> TMData:
        """The same structure's :class:`~pgmpy_ext.stats.TMData` on a subset of the rows (same block layout)."""
        codes, y, cards, fams, w = self._build
        return TMData.build(codes[rows], y[rows], cards, self.K, fams, weights=None if w is None else w[rows])

    def class_codes(self) -> np.ndarray:
        return self._build[1]

    def to_tables(self, flat: np.ndarray) -> dict:
        """Class-last flat buffer -> ``{node: table}`` in pgmpy order (copies)."""
        blocks = self.tmd.unpack_blocks(flat)
        out = {self.class_node: blocks[0]}
        for child, ax, t in zip(self.children, self.class_axis, blocks[1:]):
            out[child] = np.ascontiguousarray(np.moveaxis(t, -1, ax))
        return out

    def from_tables(self, tables: Mapping, default: np.ndarray) -> np.ndarray:
        """``{node: table}`` (pgmpy order; any subset of the blocks) -> flat buffer; other blocks from ``default``."""
        blocks = self.tmd.unpack_blocks(default)
        if self.class_node in tables:
            blocks[0] = tables[self.class_node]
        for b, (child, ax) in enumerate(zip(self.children, self.class_axis), start=1):
            if child in tables:
                t = np.asarray(tables[child], dtype=np.float64)
                shape = np.moveaxis(np.empty(blocks[b].shape, dtype=np.int8), -1, ax).shape
                if t.size != blocks[b].size:
                    raise ValueError(f"init table of {child!r} has {t.size} entries, expected {blocks[b].size} "
                                     f"(shape {shape} over {(child, *self.parents[child])!r}).")
                blocks[b] = np.moveaxis(t.reshape(shape), ax, -1)
        return self.tmd.pack_blocks(blocks, names=[self.class_node, *self.children])


def fit_tm(data: EncodedData, class_node, parents: Mapping, *, alpha: float = 1.0, tol: float = 1e-3,
           max_iter: int = 1000, line_search: str = "grid", solver: str = "lbfgs", prior_strength="auto",
           prior_mean: str = "generative", cv: int = 3, weights=None, init: Mapping | None = None,
           callback: Callable | None = None, warn: bool = True, coordinates: str = "auto") -> TMResult:
    """Run the count-space TM algorithm (Santafé 2007, chapter 5) for one classifier structure.

    Parameters
    ----------
    data : EncodedData
        Complete discrete data including the class column.
    class_node : label
        The class ``C``; it must be a root of the structure.
    parents : mapping
        ``{node: parents}`` of the structure (any superset of the class's children; nodes whose parents do not
        include the class are ignored, they cancel from ``p(c | x)``).
    alpha : float, default 1.0
        Dirichlet pseudo-count added to every cell of the starting counts ``T = O + alpha`` (bnclassify's
        ``smooth``, pgmpy's ``pseudo_counts``); also the generative parameters the prior is centred on. 0 starts at
        maximum likelihood, as the thesis does (then a state never seen with a class keeps probability 0 with it).
    tol : float, default 1e-3
        Stop when the total training objective (the CLL, minus the prior's penalty when there is one) changes by
        less than ``tol`` between iterations (thesis: 0.001).
    max_iter : int, default 1000
        Maximum number of iterations (not given in the thesis). A ``ConvergenceWarning`` is issued
        when it is reached (if ``warn``).
    line_search : {"grid", "backtracking"}, default "grid"
        Used only when the full step is illegal or lowers the CLL. ``"grid"``: the thesis's search over
        ``lambda in {0.01, ..., 0.99}`` keeping the best CLL. ``"backtracking"``: start from ``0.999 lambda_max``
        (the largest step keeping every count >= 0, at most 1) and halve until the CLL does not decrease.
        Ignored by ``solver="lbfgs"``.
    solver : {"lbfgs", "tm"}, default "lbfgs"
        ``"tm"``: the thesis's iteration ``T <- T + lambda (O - E)`` on the plain CLL (pass it, with ``alpha=0``, to
        reproduce the thesis). ``"lbfgs"``: not in the thesis -- a quasi-Newton method (scipy's L-BFGS-B, the
        optimiser of scikit-learn's ``LogisticRegression``) on the log-linear parameters (or the log-counts
        ``s = log T``), maximising the CLL plus the log-density of the prior (``prior_strength``). Without a prior
        it has the TM's objective, model and fixed points (``O = E``, the logistic-regression optimum for
        NB/TAN/FAN); it keeps the TM's structural zeros and untouched slices, every iterate is a normalised network,
        the objective increases at every iteration, and the same ``tol`` rule stops it. Typically 5-100x fewer
        kernel evaluations than the TM iteration to the same CLL (``benchmarks/tm.py``).
    prior_strength : "auto", "evidence", float or sequence of float, default "auto"
        Strength ``lambda`` of a Gaussian prior on the unnormalised log-parameters (``solver="lbfgs"`` only): the
        objective is ``CLL - sum_cells lambda q_b (x - mean)^2 / 2``, ``q_b`` the number of configurations of the
        family's feature parents (1 for naive Bayes), see :class:`~pgmpy_ext.parameters._tm_solvers.Prior`.
        ``"auto"`` (= ``"evidence"``) with ``solver="lbfgs"``: the strength, and the scale of the generative mean's
        class contrasts, that maximise the Laplace approximation of the marginal likelihood of the training classes
        (MacKay's evidence fixed point ``lambda = gamma / |beta - mean|^2_Q``, ``gamma`` the effective number of
        parameters from the exact Hessian of the CLL: dense up to 400 free cells, its per-group blocks above;
        :mod:`pgmpy_ext.parameters._tm_evidence`): two updates, the first from the quadratic model at the
        generative parameters, each followed by a warm-started fit when the strength moves, about 2x the time of
        one fit; chosen by held-out log loss over the public UCI sets (``docs/decisions/tm-regularisation.md``
        section 7: without a prior the CLL of separable training rows is driven to 0 and the held-out log loss
        explodes). Structures without log-linear coordinates (BAN, kDB with k >= 2) get the fixed
        :data:`DEFAULT_PRIOR_STRENGTH` (30). ``"auto"`` with ``solver="tm"``: no prior (the thesis's objective).
        A number: that strength (0: no prior, the pre-0.2 default; 30: the fixed default before the evidence
        rule). A sequence: the strength with the best held-out CLL in an inner ``cv``-fold cross-validation on the
        training rows (:func:`inner_folds`; about ``cv x len(grid)`` fits, warm-started along the grid), then one fit
        on all rows with it. :attr:`TMResult.prior_strength` says which strength was used.
    prior_mean : {"generative", "uniform"}, default "generative"
        Where the prior is centred: the generative parameters (``lambda -> inf`` gives the generative classifier
        with pseudo-count ``alpha``) or uniform tables (the class prior then unpenalised: for naive Bayes exactly
        scikit-learn's L2 ``LogisticRegression`` on one-hot features, ``C = 1 / lambda``, ``2 / lambda`` for two
        classes).
    cv : int, default 3
        Inner folds when ``prior_strength`` is a sequence.
    weights : array of float64, shape (n_rows,), optional
        Row weights (default ``data.weights``).
    init : mapping, optional
        Starting counts ``{node: table}`` for some of the blocks (the class node and/or children), in the layouts
        of :attr:`TMResult.counts` (a warm start); the other blocks start at ``O + alpha``.
    callback : callable, optional
        ``callback(iteration, counts, cll)`` after every iteration, ``counts`` as in :attr:`TMResult.counts`.
    warn : bool, default True
        Issue a ``ConvergenceWarning`` when ``max_iter`` is reached (and, for ``solver="lbfgs"``, when the range
        guard stopped it, see :attr:`TMResult.stop_reason`).
    coordinates : {"auto", "log_counts"}, default "auto"
        ``solver="lbfgs"`` only: the variables L-BFGS-B works on. ``"auto"``: the log-linear parameters when every
        block has a host (NB, TAN, FAN, ...; the CLL is concave there), else the log-counts; ``"log_counts"``:
        always the log-counts (same objective and optima, another path; for diagnostics).

    Returns
    -------
    TMResult

    Notes
    -----
    Legality (the thesis does not define it): every count ``>= 0`` and a finite training CLL. Parameters are ``theta = T
    / sum_x T``;
    a zero count in a parent configuration with counts gives ``theta = 0`` and stays exactly zero (structural
    zeros). A parent configuration ``(pi, c)`` without any count at the start is given a uniform column
    and is left out of the update. This departs from ``docs/decisions/seed001-tm-classifiers.md`` (``theta := 0`` for
    ``0/0``) so that
    the model the TM optimises is exactly the one exported as pgmpy CPDs (pgmpy's ML convention). For NB, TAN and
    FAN whose feature parents are children of the class it changes nothing (such a configuration already has
    probability 0 through the parent's own table, and its counts never move); for families with parents outside
    ``Ch(C)`` or with two or more feature parents (BAN, kDB) theta = 0 would make the class impossible for every
    row with that parent configuration, which the exported model could not represent.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext.data import encode
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> a = c ^ (rng.random(300) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(300) < 0.1)})  # B is a noisy copy of A
    >>> res = fit_tm(encode(df), "C", {"C": [], "A": ["C"], "B": ["C"]})
    >>> bool(res.cll > res.cll_ml), bool(np.all(np.diff(res.objective_trace) >= 0)), res.prior_strength > 0
    (True, True, True)
    """
    t_start = time.perf_counter()
    check_tm_params(alpha, tol, max_iter, line_search, solver, prior_strength, prior_mean, cv)
    check_option(coordinates, "coordinates", LBFGS_COORDINATES)
    if not isinstance(data, EncodedData):
        raise TypeError(f"data must be an EncodedData (pgmpy_ext.data.encode(df)), got {type(data).__name__}.")
    lay = _TMTables(data, class_node, parents, weights)
    tmd = lay.tmd
    O = tmd.observed  # noqa: E741  (the thesis's name for the observed counts)
    T = O + float(alpha) if alpha else O.copy()
    if init:
        unknown = [n for n in init if n not in lay.parents]
        if unknown:
            raise ValueError(f"init has tables for {unknown!r}, which are neither the class nor its children.")
        T = lay.from_tables(init, T)
    # Slices (parent configuration x class) without counts keep a uniform column and are never updated: their
    # observed counts are 0 while the posterior-weighted ones need not be (see the Notes).
    frozen = ~tmd.nonempty_cells(T)
    ev = tmd.evaluate(T, expected=True)
    if not np.isfinite(ev.cll):
        raise ValueError("the starting counts are illegal (a negative count, or a training row whose class has "
                         "probability 0); start from the observed counts (init=None) or use alpha > 0.")
    on_iteration = None
    if callback is not None:
        def on_iteration(it, flat, cll):
            callback(it, lay.to_tables(flat), cll)
    grid = prior_strengths(prior_strength, solver)
    strength, cv_scores = grid[0], None
    if len(grid) > 1:
        strength, cv_scores = cv_prior_strength(lay, grid, alpha=alpha, cv=cv, tol=tol, max_iter=max_iter,
                                                coordinates=coordinates, mean=prior_mean)
    evidence_trace = None
    if uses_evidence(prior_strength, solver):
        strength, run, trace, _ = evidence_strength(tmd, T, frozen, ev.cll, alpha=alpha, mean=prior_mean,
                                                    start=EVIDENCE_START[prior_mean], n_iter=EVIDENCE_ITER,
                                                    tol=tol, max_iter=max_iter, callback=on_iteration)
        evidence_trace = np.asarray(trace, dtype=np.float64).reshape(-1, 5)
    elif solver == "lbfgs":
        prior = None
        if strength > 0:
            prior = Prior(float(strength), O + float(alpha), prior_mean)
        run = LBFGSSolver(tmd, T, frozen, coordinates=coordinates, prior=prior).run(
            ev.cll, tol=tol, max_iter=max_iter, t_start=t_start, callback=on_iteration)
    else:
        run = run_tm_iteration(tmd, T, ev, frozen, tol=tol, max_iter=max_iter, line_search_mode=line_search,
                               t_start=t_start, callback=on_iteration)
    if warn:
        _warn_unconverged(run, solver, tol, max_iter)
    logger.debug("TM (%s): %d iterations, CLL %.6g -> %.6g (%s)", solver, len(run.step_sizes), run.cll_trace[0],
                 run.cll_trace[-1], run.stop_reason)
    return TMResult(class_node, list(lay.children), dict(lay.parents), lay.to_tables(run.counts), lay.to_tables(O),
                    np.asarray(run.cll_trace, dtype=np.float64), np.asarray(run.step_sizes, dtype=np.float64),
                    len(run.step_sizes), run.converged, run.stop_reason, run.n_evaluations,
                    np.asarray(run.elapsed, dtype=np.float64), solver,
                    np.asarray(run.cll_trace if run.objective_trace is None else run.objective_trace,
                               dtype=np.float64), float(strength), cv_scores, evidence_trace)


def inner_folds(y: np.ndarray, n_splits: int) -> np.ndarray:
    """Fold number of every row for the inner cross-validation: stratified and deterministic, the rows of each class
    dealt to the folds in turn in data order (no random choice, so no ``random_state``)."""
    y = np.asarray(y)
    fold = np.empty(y.shape[0], dtype=np.intp)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        fold[idx] = np.arange(idx.size) % n_splits
    return fold


def cv_prior_strength(lay: _TMTables, grid, *, alpha: float, cv: int, tol: float, max_iter: int, coordinates: str,
                      mean: str, patience: int = 2) -> tuple[float, np.ndarray]:
    """``(chosen strength, held-out CLL per grid value)``: inner ``cv``-fold cross-validation of the prior strengths
    ``grid`` on the rows of ``lay``.

    The strengths are tried from the strongest to the weakest, every inner fit warm-started from the same fold's
    previous one; the score of a strength is the summed CLL of the held-out rows over the folds. The path stops
    after ``patience`` strengths in a row that do not beat the best so far (NaN scores for the untried ones); ties go
    to the stronger prior.
    """
    strengths = np.asarray(sorted((float(v) for v in grid), reverse=True))
    y = lay.class_codes()
    k = int(min(cv, y.shape[0]))
    scores = np.full(strengths.size, np.nan)
    if k < 2:
        return float(strengths[0]), scores
    fold = inner_folds(y, k)
    state = []
    for f in range(k):
        tmd_tr, tmd_te = lay.rows(np.flatnonzero(fold != f)), lay.rows(np.flatnonzero(fold == f))
        O = tmd_tr.observed  # noqa: E741
        T = O + float(alpha)
        state.append([tmd_tr, tmd_te, T, tmd_tr.evaluate(T).cll, ~tmd_tr.nonempty_cells(T)])
    best, since = -np.inf, 0
    for j, lam in enumerate(strengths):
        total = 0.0
        for st in state:
            tmd_tr, tmd_te, T, cll, frozen = st
            if not np.isfinite(cll):  # alpha = 0 and a class absent from this training fold: not learnable
                total = -np.inf
                continue
            O = tmd_tr.observed  # noqa: E741
            prior = Prior(float(lam), O + float(alpha), mean) if lam > 0 else None
            run = LBFGSSolver(tmd_tr, T, frozen, coordinates=coordinates, prior=prior).run(
                cll, tol=tol, max_iter=max_iter, t_start=time.perf_counter())
            st[2], st[3] = run.counts, float(run.cll_trace[-1])
            total += tmd_te.evaluate(None, log_theta=tmd_tr.log_theta(run.counts)[0]).cll
        scores[j] = total
        if total > best:
            best, since = total, 0
        else:
            since += 1
            if since >= patience:
                break
    pick = int(np.argmax(np.where(np.isnan(scores), -np.inf, scores)))  # the first maximum: the strongest prior
    return float(strengths[pick]), scores


def cv_log_proba(data: EncodedData, class_node, parents: Mapping, *, n_splits: int = 3, alpha: float = 1.0,
                 tol: float = 1e-3, max_iter: int = 1000, line_search: str = "grid", solver: str = "lbfgs",
                 prior_strength: float = 0.0, prior_mean: str = "generative", coordinates: str = "auto") -> np.ndarray:
    """Held-out ``log p(c_d | x_d)`` of every row (data order; floored at ``log(1e-300)``): the TM (with these
    options) fitted on the other ``n_splits - 1`` inner folds of the row's fold.

    The folds are :func:`inner_folds` of the class column (stratified, deterministic), so every structure of one
    data set is scored on the same folds and two structures can be compared row by row. ``prior_strength`` must be
    one number here.
    """
    lay = _TMTables(data, class_node, parents, None)
    y = lay.class_codes()
    k = int(min(n_splits, y.shape[0]))
    if k < 2:
        raise ValueError(f"held-out scores need at least 2 rows for 2 folds, got {y.shape[0]}.")
    fold = inner_folds(y, k)
    floor = math.log(1e-300)
    out = np.full(y.shape[0], floor)
    for f in range(k):
        test = np.flatnonzero(fold == f)
        tmd_tr, tmd_te = lay.rows(np.flatnonzero(fold != f)), lay.rows(test)
        O = tmd_tr.observed  # noqa: E741
        T = O + float(alpha)
        frozen = ~tmd_tr.nonempty_cells(T)
        ev = tmd_tr.evaluate(T, expected=True)
        if np.isfinite(ev.cll):
            if solver == "lbfgs":
                prior = Prior(float(prior_strength), T.copy(), prior_mean) if prior_strength > 0 else None
                run = LBFGSSolver(tmd_tr, T, frozen, coordinates=coordinates, prior=prior).run(
                    ev.cll, tol=tol, max_iter=max_iter, t_start=time.perf_counter())
            else:
                run = run_tm_iteration(tmd_tr, T, ev, frozen, tol=tol, max_iter=max_iter,
                                       line_search_mode=line_search, t_start=time.perf_counter())
            T = run.counts
        # a class absent from the training fold with alpha = 0 leaves T illegal: its held-out rows get the floor
        lt, legal = tmd_tr.log_theta(T)
        if not legal:
            continue
        resp = tmd_te.evaluate(None, posterior=True, log_theta=lt).posterior
        with np.errstate(divide="ignore", invalid="ignore"):
            logp = np.where(np.isnan(resp), floor, np.maximum(np.log(resp), floor))
        out[test] = logp[tmd_te.inverse, y[test]]
    return out


def cv_cll(data: EncodedData, class_node, parents: Mapping, *, n_splits: int = 3, **options) -> float:
    """Held-out CLL of a structure: the (weighted) sum of :func:`cv_log_proba` (nats); options as there."""
    logp = cv_log_proba(data, class_node, parents, n_splits=n_splits, **options)
    return float(logp.sum() if data.weights is None else np.dot(data.weights, logp))


def _warn_unconverged(run: SolverRun, solver: str, tol: float, max_iter: int) -> None:
    """The ``ConvergenceWarning`` of :func:`fit_tm` (``max_iter`` reached; for lbfgs also the range guard)."""
    trace = run.cll_trace
    if solver == "lbfgs":
        if run.stop_reason == "range":  # the last iterate within range is the result
            warnings.warn("L-BFGS stopped where a further step would push a parameter below 1e-300 (the data are "
                          "(nearly) separable: the conditional-likelihood optimum is at infinity); the last "
                          f"iterate within range is kept (CLL {trace[-1]:.6g}).", ConvergenceWarning, stacklevel=3)
        elif run.stop_reason == "max_iter" and max_iter > 0:
            warnings.warn(f"L-BFGS stopped at max_iter={max_iter} before the CLL change fell below tol={tol}; "
                          "increase max_iter or tol.", ConvergenceWarning, stacklevel=3)
    elif run.stop_reason == "max_iter" and max_iter > 0:
        warnings.warn(f"TM stopped at max_iter={max_iter} before the CLL change fell below tol={tol} (last change "
                      f"{trace[-1] - trace[-2] if len(trace) > 1 else float('nan'):.3g}); increase max_iter or tol.",
                      ConvergenceWarning, stacklevel=3)


# ------------------------------------------------------------------------------------------------ pgmpy face
class TMEstimator(DiscreteParameterEstimator):
    """Discriminative parameters for a Bayesian-network classifier with the TM algorithm (pgmpy face).

    Santafé (2007), chapter 5; design record ``docs/decisions/seed001-tm-classifiers.md`` ("Chapter 5 —
    discriminative learning"). Maximises the
    conditional log-likelihood ``sum_d log p(c_d | x_d)`` of the class given the features over the CPTs of the
    class and of its children, for any structure with the class as a root (NB, TAN, FAN, BAN, kDB, selective NB,
    ...). It runs the unified count-space form of the algorithm: starting at the (smoothed) maximum-likelihood
    counts, every iteration adds the difference between the observed counts and the counts expected under the
    current posterior ``p(c | x)``. Nodes that are not children of the class (and have no effect on
    ``p(c | x)``) keep generative parameters.

    Parameters
    ----------
    class_node : label, optional
        The class variable. Required when fitting through pgmpy
        (``DiscreteBayesianNetwork.fit(df, estimator=TMEstimator(class_node="C"))``); the pgmpy-ext classifiers
        fill it in.
    state_names : dict, optional
        ``{variable: [states]}`` (pgmpy's convention); unspecified variables take their observed values.
    alpha : float, default 1.0
        Dirichlet pseudo-count per cell of the starting counts and of the generative parameters the prior is centred
        on (bnclassify's ``smooth``, pgmpy's ``pseudo_counts``; the classifiers' default). 0 starts at maximum
        likelihood, as the thesis does (a state never seen with a class then keeps probability 0 with it). Nodes
        outside the class's children get ``(counts + alpha)`` normalised.
    tol : float, default 1e-3
        Absolute change of the total training objective (nats; the CLL without a prior) below which the iteration
        stops (thesis: 0.001).
    max_iter : int, default 1000
        Maximum number of TM iterations; a ``ConvergenceWarning`` is issued when it is reached.
    line_search : {"grid", "backtracking"}, default "grid"
        Step-size rule used when the full step is illegal or lowers the CLL: the thesis's grid
        ``{0.01, ..., 0.99}`` (best CLL) or backtracking from the largest legal step (halving). Only for
        ``solver="tm"``.
    solver : {"lbfgs", "tm"}, default "lbfgs"
        ``"lbfgs"`` (not in the thesis): L-BFGS-B on the log-parameters, maximising the CLL plus the prior's
        log-density; without a prior the thesis's objective, model, starting point, structural zeros and ``tol``
        rule, reaching the logistic-regression optimum of NB/TAN/FAN in 5-100x fewer evaluations than the TM
        iteration (``benchmarks/results/tm.md``). ``"tm"``: the thesis's TM iteration on the plain CLL (what the
        reproductions of Santafé's chapter 5 use, with ``alpha=0``). See :func:`fit_tm`.
    prior_strength : "auto", "evidence", float or sequence of float, default "auto"
        Strength ``lambda`` of the Gaussian prior on the log-parameters (``solver="lbfgs"``): the objective is
        ``CLL - sum_cells lambda q_b (x - mean)^2 / 2`` with ``q_b`` the number of configurations of the family's
        feature parents (1 for naive Bayes). ``"auto"`` (= ``"evidence"``) with ``solver="lbfgs"``: chosen per fit
        by the evidence (type-II maximum likelihood, Laplace approximation) fixed point, with the scale of the
        generative mean's class contrasts (about 2x the time of one fit; BAN and kDB with k >= 2 get the fixed
        strength 30); no prior with ``solver="tm"``. A number is used as it is (0: no prior, the thesis's
        objective, which overfits: see Notes; 30: the fixed default before the evidence rule); a sequence is
        searched by inner ``cv``-fold cross-validation on the training rows (about ``cv x len(sequence)`` fits).
        The strength is never chosen by the training CLL alone.
    prior_mean : {"generative", "uniform"}, default "generative"
        Centre of the prior: the generative parameters with pseudo-count ``alpha`` (a very strong prior gives the
        generative classifier) or uniform tables (for naive Bayes, scikit-learn's L2 logistic regression on one-hot
        features with ``C = 1 / prior_strength``; ``2 / prior_strength`` for two classes).
    cv : int, default 3
        Inner folds when ``prior_strength`` is a sequence (stratified and deterministic: no ``random_state``).

    Attributes
    ----------
    parameters_ : list of TabularCPD
        One CPD per node of the model, in ``model.nodes()`` order; evidence ``sorted(parents)``.
    state_names_ : dict
        The states used for every variable.
    result_ : TMResult
        Final counts and the whole trace.
    cll_trace_ : numpy.ndarray
        Training CLL (nats) at the start (maximum likelihood when ``alpha = 0``) and after every iteration (with a
        prior it need not increase: ``result_.objective_trace`` does).
    prior_strength_ : float
        The prior strength used (chosen by the evidence rule or by cross-validation, or the number given; 0: no
        prior). ``result_.evidence_trace`` has the evidence rule's steps.
    cv_scores_ : numpy.ndarray or None
        With a sequence of strengths: the summed held-out CLL of each, from the strongest to the weakest (NaN
        where the search stopped early); else None.
    step_sizes_ : numpy.ndarray
        Step size ``lambda`` of every iteration (``solver="lbfgs"``: the length of every step).
    n_iter_ : int
        Number of iterations.
    converged_ : bool
        Whether the stopping rule was met (``result_.stop_reason`` says how).

    See Also
    --------
    pgmpy.parameter_estimator.DiscreteMLE : the generative (maximum-likelihood) counterpart.
    pgmpy_ext.parameters.fit_tm : the engine, on encoded data.

    Notes
    -----
    With ``O`` the observed and ``E`` the expected class-dependent counts of every family containing the class,

    .. math::

        T^{(t+1)} = T^{(t)} + \\lambda \\left(O - E^{(t)}\\right), \\qquad
        E^{(t)}[c, x_i, \\pi_i] = \\sum_d p(c \\mid x^{(d)}, \\theta^{(t)})\\, 1[x_i^{(d)} = x_i, \\pi_i^{(d)} = \\pi_i]

    and ``theta = T / sum_{x_i} T`` (``solver="tm"``). With ``solver="lbfgs"`` the same stationary condition is
    reached by a quasi-Newton method, and with a prior (the default) the objective is the log-posterior

    .. math::

        \\sum_d \\log p(c^{(d)} \\mid x^{(d)}, \\beta) - \\frac{\\lambda}{2} \\sum_{b} q_b \\sum_{j \\in b}
        (\\beta_j - \\beta^{gen}_j)^2

    over the unnormalised log-parameters ``beta`` (the weights of the equivalent logistic regression for
    NB/TAN/FAN), ``beta_gen`` the generative log-parameters (``prior_mean="generative"``). Without it (the thesis's
    objective, ``prior_strength=0``) the training CLL of (nearly) separable data is driven to 0 with parameters
    near 0 or 1, and the held-out log loss explodes (issue 26: australian NB-TM 19 nats per row);
    ``docs/decisions/tm-regularisation.md`` has the held-out comparison that set the default. The thesis's
    iteration itself stops early because its 0.01 grid stalls, an implicit regulariser.

    The count-space update equals the thesis's per-case updates in moment coordinates (Eq. 5.18,
    5.37) for binary NB/FAN/BAN and multinomial NB/FAN (the count-space formulation of
    ``docs/decisions/seed001-tm-classifiers.md``,
    "TM for BN classifiers"); BAN/kDB with multinomial variables are an extension, not in the thesis. For NB, TAN and
    FAN a converged fixed point is the optimum of the matching
    unregularised multinomial logistic regression (derived in the same note, "Why the direction is always an
    ascent direction"). The exported CPDs put a uniform column where a
    parent configuration has zero counts (pgmpy's ML convention); the TM keeps those columns fixed, so the
    exported model is exactly the one it optimised (a departure from the design record's ``theta := 0`` for ``0/0``, see
    :func:`fit_tm`).
    ``sample_weight`` is supported (weighted counts); missing values are not.

    References
    ----------
    Santafé, G. (2007). Advances on supervised and unsupervised learning of Bayesian network models. PhD thesis,
    University of the Basque Country, ch. 5. Edwards, D. & Lauritzen, S. L. (2001). The TM algorithm for
    maximising a conditional likelihood function. Biometrika 88, 961-972.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pgmpy_ext._compat import DiscreteBayesianNetwork
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> a = c ^ (rng.random(300) < 0.2)
    >>> df = pd.DataFrame({"C": c, "A": a, "B": a ^ (rng.random(300) < 0.1)})
    >>> est = TMEstimator(class_node="C")
    >>> bn = DiscreteBayesianNetwork([("C", "A"), ("C", "B")]).fit(df, estimator=est)
    >>> bool(bn.check_model()), bool(est.cll_trace_[-1] > est.cll_trace_[0])
    (True, True)
    """

    #: ``supports_missing_data`` is False: the conditional log-likelihood is a sum over whole training rows, so the
    #: TM needs complete data (the pgmpy-ext classifiers read this tag and refuse missing training cells up front,
    #: naming the row by its index label)
    _tags = {"supports_weighted_data": True, "supports_latent_variables": False, "supports_missing_data": False}

    def __init__(self, class_node=None, state_names: dict | None = None, alpha: float = 1.0, tol: float = 1e-3,
                 max_iter: int = 1000, line_search: str = "grid", solver: str = "lbfgs", prior_strength="auto",
                 prior_mean: str = "generative", cv: int = 3):
        self.class_node = class_node
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.line_search = line_search
        self.solver = solver
        self.prior_strength = prior_strength
        self.prior_mean = prior_mean
        self.cv = cv
        super().__init__(state_names=state_names)

    # prior_strength is 'auto', a number or a sequence: check_tm_params (via prior_strengths) checks its values and
    # its combination with the solver
    _parameter_constraints = {**PARAMETER_VOCABULARY, "class_node": [ANY], "state_names": [None, dict],
                              "line_search": [Options(LINE_SEARCHES)], "solver": [Options(SOLVERS)],
                              "prior_strength": [ANY], "prior_mean": [Options(PRIOR_MEANS)],
                              "cv": [Interval(numbers.Integral, 2, None)]}

    def _check_params(self):
        check_params(self)
        check_tm_params(self.alpha, self.tol, self.max_iter, self.line_search, self.solver, self.prior_strength,
                        self.prior_mean, self.cv)
        if self.class_node is None:
            raise ValueError("class_node is required: TMEstimator(class_node=...) names the class variable whose "
                             "conditional likelihood is maximised.")

    def fit(self, model, data, sample_weight=None):
        """Learn TM parameters for ``model``'s structure from a DataFrame.

        Parameters
        ----------
        model : pgmpy.base.DAG or DiscreteBayesianNetwork
            The structure; ``class_node`` must be one of its nodes and a root.
        data : pandas.DataFrame
            One column per node, discrete values, no missing values.
        sample_weight : array-like of shape (n_rows,), optional
            Row weights.

        Returns
        -------
        self
        """
        self._check_params()
        # dask, duplicated columns, no rows, missing cells: one clear message each, before pgmpy reads the data
        check_pgmpy_data(self, data, complete=list(getattr(model, "nodes", list)()),
                         reason="the conditional log-likelihood is a sum over whole training rows")
        self._initialize_fit(model, data, sample_weight=sample_weight)
        nodes = list(self._model.nodes())
        states = {v: self.state_names_[v] for v in nodes}
        encoded = encode(self._data[nodes], states=states, missing="error")
        if self.class_node in encoded.columns:
            k = list(encoded.columns).index(self.class_node)
            seen = np.unique(encoded.codes[:, k])
            if seen.size < 2:
                raise ValueError(f"class_node {self.class_node!r} has a single value "
                                 f"{encoded.states[k][int(seen[0])]!r} in the data (1 class); the TM maximises the "
                                 "conditional likelihood of the class and needs at least 2 classes.")
        return self._fit_encoded(encoded, self._sample_weight)

    def _build_fitted_state_names(self, model, data) -> dict:
        """pgmpy's state names (declared ones kept, else the sorted observed values), total for columns that mix
        types (``1`` and ``"1"``), whose sort fails in pgmpy: those get the classifiers' order
        (:func:`pgmpy_ext.data.pgmpy_state_names`); an unhashable cell gets the encoder's message."""
        columns = [v for v in data.columns if v in model.nodes()]
        declared = self.state_names if isinstance(self.state_names, dict) else None
        out = pgmpy_state_names(data[columns], declared)
        for v in model.nodes():
            if v not in out and declared is not None and v in declared:
                out[v] = list(declared[v])
        return out

    def fit_encoded(self, model, data: EncodedData, sample_weight=None):
        """Like :meth:`fit` on already encoded data (what the pgmpy-ext classifiers call; the states of ``data``
        become ``state_names_``)."""
        self._check_params()
        if isinstance(model, DAG) and not isinstance(model, DiscreteBayesianNetwork):
            bn = DiscreteBayesianNetwork(model.edges())
            bn.add_nodes_from(model.nodes())
            model = bn
        if not isinstance(model, DiscreteBayesianNetwork):
            raise NotImplementedError(f"TMEstimator is only implemented for DAG and DiscreteBayesianNetwork, got "
                                      f"{type(model).__name__}.")
        if model.latents:
            raise ValueError(f"Found latent variables: {model.latents}. TMEstimator doesn't support latent variables.")
        absent = [v for v in model.nodes() if v not in data.columns]
        if absent:
            raise ValueError(f"Nodes detected in the model that are not present in the dataset: {absent!r}.")
        self._model = model
        self.state_names_ = {v: list(data.states[data.index(v)]) for v in model.nodes()}
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        return self._fit_encoded(data, w)

    def _fit_encoded(self, data: EncodedData, weights):
        model = self._model
        if self.class_node not in model.nodes():
            raise ValueError(f"class_node {self.class_node!r} is not a node of the model (nodes: "
                             f"{list(model.nodes())!r}).")
        nodes = list(model.nodes())
        sub = data.codes[:, data.indices(nodes)]
        if (sub < 0).any():
            r, k = (int(v[0]) for v in np.nonzero(sub < 0))
            raise ValueError(f"TMEstimator needs complete data (its conditional log-likelihood is a sum over whole "
                             f"training rows), but column {nodes[k]!r} is missing at row {r} (position). Impute or "
                             "drop the rows with missing values first, or use maximum-likelihood parameters (e.g. "
                             "estimator=None in the classifiers), which count available cases.")
        parents = {v: list(model.get_parents(v)) for v in model.nodes()}
        res = fit_tm(data, self.class_node, parents, alpha=self.alpha, tol=self.tol, max_iter=self.max_iter,
                     line_search=self.line_search, solver=self.solver, weights=weights,
                     prior_strength=self.prior_strength, prior_mean=self.prior_mean, cv=self.cv)
        states = {v: self.state_names_[v] for v in model.nodes()}
        cpds = cpds_from_counts(res.counts, res.parents, states, alpha=0.0)
        others = [v for v in model.nodes() if v not in res.counts]
        if others:
            tables = {v: family_counts(data, v, sorted_parents(parents[v]), weights, sort_parents=False)
                      for v in others}
            cpds += cpds_from_counts(tables, {v: sorted_parents(parents[v]) for v in others}, states,
                                     alpha=self.alpha)
        self.parameters_ = self._sort_parameters(cpds)
        self.result_ = res
        self.cll_trace_ = res.cll_trace
        self.step_sizes_ = res.step_sizes
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.prior_strength_ = res.prior_strength
        self.cv_scores_ = res.cv_scores
        return self
