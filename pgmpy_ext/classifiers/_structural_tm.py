"""Structural-TM classifier: the scikit-learn face of the greedy search with TM parameters (Santafé 2007, section
5.3.2)."""

from __future__ import annotations

import numbers

from pgmpy_ext.classifiers._base import BNClassifierBase
from pgmpy_ext.parameters import LINE_SEARCHES, PRIOR_MEANS, SOLVERS, TMEstimator, check_tm_params, prior_strengths
from pgmpy_ext.structure import CRITERIA, MAX_CANDIDATES, fit_structural_tm
from pgmpy_ext.utils import ANY, Interval, Options, fill_doc

__all__ = ["StructuralTMClassifier"]


@fill_doc
class StructuralTMClassifier(BNClassifierBase):
    """Structural TM: greedy arc addition scored by conditional BIC with TM parameters (Santafé 2007,
    section 5.3.2).

    From the empty graph, every legal arc ("TAN complexity": ``C -> X_i``, or a first feature parent for a child
    of the class) is tried; each candidate gets TM parameters and a score, by default its held-out CLL in an inner
    cross-validation (``criterion="cv"``; the thesis's cBIC ``CLL - (log N / 2) dim_cond`` with
    ``criterion="cbic"``); the best arc is kept while it strictly improves the score. The final network carries
    the TM parameters of the selected structure; features never selected stay in ``model_`` as isolated nodes with
    smoothed marginals (they do not affect ``p(c | x)``). Defaults chosen by held-out log loss
    (``docs/decisions/tm-regularisation.md``).

    Parameters
    ----------
    alpha : float, default 1.0
        Dirichlet pseudo-count of the TM's starting counts and of the prior's generative mean (0 = the thesis's
        maximum-likelihood start).
    tol : float, default 1e-3
        TM stopping rule: the absolute change of the total training objective (the CLL, minus the prior's penalty
        when there is one) below which a candidate's fit stops (thesis: 0.001).
    max_iter : int, default 1000
        TM iterations per candidate fit.
    line_search : {"grid", "backtracking"}, default "grid"
        TM step-size rule (``solver="tm"`` only); see :class:`~pgmpy_ext.parameters.TMEstimator`.
    solver : {"lbfgs", "tm"}, default "lbfgs"
        ``"lbfgs"``: L-BFGS-B on the TM objective with the prior (not the thesis's iteration), which reaches the
        same or better optima in far fewer evaluations (``benchmarks/results/structural_tm.md``). ``"tm"``: the
        thesis's iteration (what the reproductions of Santafé's chapter 5 use, with ``alpha=0``, ``criterion="cbic"``).
    prior_strength : "auto" or float, default "auto"
        Gaussian prior of every TM fit (see :class:`~pgmpy_ext.parameters.TMEstimator`); one number here:
        ``"auto"`` is the fixed strength 30 with ``solver="lbfgs"`` (not ``TMEstimator``'s evidence rule, which
        would choose a strength per candidate), no prior with ``solver="tm"``.
    prior_mean : {"generative", "uniform"}, default "generative"
        Centre of that prior.
    criterion : {"cv", "cbic"}, default "cv"
        How candidates are scored: the summed held-out CLL over ``cv`` inner folds (``cv`` TM fits per candidate)
        or the thesis's cBIC of one fit on all rows.
    cv : int, default 3
        Inner folds of ``criterion="cv"`` (stratified, deterministic).
    warm_start : bool, default False
        ``criterion="cbic"`` only: start each candidate's TM from the current model's counts (our recommendation
        in ``docs/decisions/seed001-tm-classifiers.md``, "Structural TM"; off in the thesis).
    max_candidates : int or None, default 10,000
        Budget of candidate TM fits of the search (``pgmpy_ext.structure.MAX_CANDIDATES``); a step is scored whole
        or not at all. When the next step would exceed it, the search stops with the arcs accepted so far and a
        ``ConvergenceWarning``. Every step scores ``m + |Ch(C)| (m - 1)`` arcs for ``m`` features, so wide data
        need many: ~15,000 for 100 rows x 250 ternary features. None: no budget.
    %(n_jobs)s
    show_progress : bool, default False
        A progress bar over the greedy steps, in candidate fits out of ``max_candidates`` (shown only when
        pgmpy's ``config.SHOW_PROGRESS`` is on too).
    %(handle_unknown)s
    %(missing_complete)s

    Attributes
    ----------
    model_, structure_, classes_, class_node_, encoder_, estimator_, n_features_in_, feature_names_in_
        See :class:`pgmpy_ext.classifiers.BNClassifierBase`. ``structure_.trace["steps"]`` lists the accepted
        arcs with their cBIC, CLL and dimension; ``estimator_`` is the :class:`~pgmpy_ext.parameters.TMEstimator`
        fitted on the final structure (deterministic, so it equals the search's last run).
    n_iter_ : int
        TM iterations of the final structure's parameters (``estimator_.n_iter_``).

    Warns
    -----
    ConvergenceWarning
        Once per fit, with their count, when candidate TM fits stopped at ``max_iter``; and when
        ``max_candidates`` stopped the search (``structure_.trace["stop_reason"]``).

    See Also
    --------
    pgmpy_ext.structure.StructuralTMSearch : the pgmpy face (``estimate() -> DAG``).

    References
    ----------
    Santafé, G. (2007). PhD thesis, section 5.3.2.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 300)
    >>> X = pd.DataFrame({"A": c ^ (rng.random(300) < 0.1), "B": c ^ (rng.random(300) < 0.3),
    ...                   "D": rng.integers(0, 3, 300)})
    >>> clf = StructuralTMClassifier().fit(X, pd.Series(c, name="C"))
    >>> sorted(clf.model_.get_children("C"))  # D is irrelevant: not selected
    ['A', 'B']
    """

    _needs_complete_data = "the TM parameter fits of every candidate arc"

    def __init__(self, *, alpha=1.0, tol=1e-3, max_iter=1000, line_search="grid", solver="lbfgs",
                 prior_strength="auto", prior_mean="generative", criterion="cv", cv=3, warm_start=False,
                 max_candidates=MAX_CANDIDATES, n_jobs=None, show_progress=False, handle_unknown="ignore",
                 missing="error"):
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.line_search = line_search
        self.solver = solver
        self.prior_strength = prior_strength
        self.prior_mean = prior_mean
        self.criterion = criterion
        self.cv = cv
        self.warm_start = warm_start
        self.max_candidates = max_candidates
        self.n_jobs = n_jobs
        self.show_progress = show_progress
        self.handle_unknown = handle_unknown
        self.missing = missing

    # prior_strength: 'auto' or a number, checked with the solver by check_tm_params
    _parameter_constraints = {**BNClassifierBase._parameter_constraints,
                              "line_search": [Options(LINE_SEARCHES)], "solver": [Options(SOLVERS)],
                              "prior_strength": [ANY], "prior_mean": [Options(PRIOR_MEANS)],
                              "criterion": [Options(CRITERIA)], "cv": [Interval(numbers.Integral, 2, None)],
                              "warm_start": ["boolean"], "max_candidates": [None, Interval(numbers.Integral, 0, None)]}

    def _check_params(self):
        super()._check_params()
        check_tm_params(self.alpha, self.tol, self.max_iter, self.line_search, self.solver, self.prior_strength,
                        self.prior_mean, self.cv)
        evidence = isinstance(self.prior_strength, str) and self.prior_strength == "evidence"
        if evidence or len(prior_strengths(self.prior_strength, self.solver)) > 1:
            raise ValueError(f"prior_strength == {self.prior_strength!r}: structural TM scores every candidate with "
                             "one prior strength; give a number (or 'auto').")

    @property
    def estimator(self):
        """The parameter estimator of the final structure: a ``TMEstimator`` with this classifier's TM options."""
        # the strength the search scored the candidates with ("auto": the fixed 30, not the evidence rule)
        strength = prior_strengths(self.prior_strength, self.solver)[0]
        return TMEstimator(alpha=self.alpha, tol=self.tol, max_iter=self.max_iter, line_search=self.line_search,
                           solver=self.solver, prior_strength=strength, prior_mean=self.prior_mean)

    def _fit_model(self, structure, data) -> None:
        super()._fit_model(structure, data)
        self.n_iter_ = int(self.estimator_.n_iter_)

    def _fit_structure(self, data, class_node, rng):
        return fit_structural_tm(data, class_node, alpha=self.alpha, tol=self.tol, max_iter=self.max_iter,
                                 line_search=self.line_search, solver=self.solver, prior_strength=self.prior_strength,
                                 prior_mean=self.prior_mean, criterion=self.criterion, cv=self.cv,
                                 warm_start=self.warm_start,
                                 max_candidates=self.max_candidates, n_jobs=self.n_jobs or 1,
                                 show_progress=self.show_progress)
