"""Structural TM (Santafé 2007, section 5.3.2): greedy forward arc addition scored by cBIC with the dimension
of the conditional model (the thesis's Eq. 5.53), every candidate with TM parameters.

The search never builds a pgmpy object; every candidate is one run of the count-space TM engine
(:func:`pgmpy_ext.parameters.fit_tm`) on the encoded data.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_scalar

from pgmpy_ext._compat import DAG, show_progress_enabled
from pgmpy_ext.data import EncodedData
from pgmpy_ext.parameters import check_tm_params, class_children, cv_cll, fit_tm, prior_strengths
from pgmpy_ext.structure._base import ClassifierSearchBase, ClassifierStructure, check_class_node
from pgmpy_ext.utils import check_option

__all__ = ["CRITERIA", "MAX_CANDIDATES", "StructuralTMSearch", "cbic_score", "conditional_dimension",
           "fit_structural_tm"]

#: Valid ``criterion`` options of structural TM: the thesis's cBIC of the candidate's TM fit on all training rows,
#: or the held-out CLL of an inner cross-validation (:func:`pgmpy_ext.parameters.cv_cll`).
CRITERIA = ("cbic", "cv")

#: Default budget of candidate TM fits of one structural-TM search (``max_candidates``). A step scores every legal
#: arc, ``m + |Ch(C)| (m - 1)`` of them for ``m`` features, so the search costs ``O(steps x m x |Ch(C)|)`` fits: a few
#: hundred on the thesis's data sets (``benchmarks/results/structural_tm.md``: at most 1,134), ~15,000 on 100 rows x
#: 250 ternary features. 10,000 fits take ~30 s with ``solver="lbfgs"`` on one core.
MAX_CANDIDATES = 10_000


def conditional_dimension(parents: Mapping, cards: Mapping, class_node) -> int:
    """Number of free parameters of the conditional model ``p(c | x)`` of a classifier structure (Santafé 2007,
    Eq. 5.53; ``docs/decisions/seed001-tm-classifiers.md``, "cBIC and the conditional-model dimension").

    ``dim_cond = (K - 1) [1 + sum_{A in S} prod_{V in A} (r_V - 1)]`` where ``S`` is the set (each subset counted
    once) of the non-empty subsets of ``{X_i} + (Pa_i - {C})`` over the children ``X_i`` of the class: the number
    of the thesis's class-dependent statistics ``U`` for NB, FAN and BAN.

    Parameters
    ----------
    parents : mapping
        ``{node: parents}``; the class must be a root.
    cards : mapping
        ``{variable: cardinality}``.
    class_node : label

    Examples
    --------
    >>> cards = {"C": 3, "A": 2, "B": 4, "D": 2}
    >>> conditional_dimension({"C": [], "A": [], "B": [], "D": []}, cards, "C")  # class prior only
    2
    >>> conditional_dimension({"C": [], "A": ["C"], "B": ["C"], "D": []}, cards, "C")  # NB on A, B: 2 (1 + 1 + 3)
    10
    >>> conditional_dimension({"C": [], "A": ["C"], "B": ["C", "A"], "D": []}, cards, "C")  # + (2-1)(4-1)
    16
    >>> conditional_dimension({"C": [], "A": ["C", "D"], "B": [], "D": []}, cards, "C")  # D is not a child
    8
    """
    K = int(cards[class_node])
    subsets = set()
    for child in class_children(parents, class_node):
        fam = [child, *(p for p in parents[child] if p != class_node)]
        for k in range(1, len(fam) + 1):
            subsets.update(frozenset(a) for a in combinations(fam, k))
    total = 1 + sum(math.prod(int(cards[v]) - 1 for v in a) for a in subsets)
    return (K - 1) * total


def cbic_score(cll: float, dim: int, n: float) -> float:
    """cBIC (Eq. 5.53) with the conditional dimension: ``CLL - (log N / 2) dim`` (nats)."""
    return float(cll) - 0.5 * math.log(n) * dim


def _would_cycle(parents: Mapping, child, new_parent, class_node) -> bool:
    """True when the arc ``new_parent -> child`` closes a directed cycle among the features."""
    stack, seen = [new_parent], set()
    while stack:
        v = stack.pop()
        if v == child:
            return True
        if v in seen:
            continue
        seen.add(v)
        stack.extend(p for p in parents[v] if p != class_node)
    return False


def _candidates(parents: Mapping, features: list, class_node) -> list:
    """Legal arcs under TAN complexity (Santafé 2007, section 5.3.2): (a) C -> X_i for X_i outside Ch(C), in feature
    order; then (b) X_j -> X_i for X_i in Ch(C) without a feature parent, no cycle, ordered by (i, j)."""
    out = [(class_node, f) for f in features if class_node not in parents[f]]
    for i, fi in enumerate(features):
        if class_node not in parents[fi] or any(p != class_node for p in parents[fi]):
            continue
        for j, fj in enumerate(features):
            if j != i and not _would_cycle(parents, fi, fj, class_node):
                out.append((fj, fi))
    return out


def _score_candidate(data: EncodedData, class_node, parents: dict, init, n: float, cards: dict, tm_options: dict,
                     criterion: str, n_splits: int):
    """``(score, dim, TMResult or None)`` of one candidate structure: cBIC of the TM fit on all rows, or the
    held-out CLL of the inner cross-validation (then no fit on all rows is made)."""
    dim = conditional_dimension(parents, cards, class_node)
    if criterion == "cv":
        return cv_cll(data, class_node, parents, n_splits=n_splits, **tm_options), dim, None
    res = fit_tm(data, class_node, parents, init=init, warn=False, **tm_options)
    return cbic_score(res.cll, dim, n), dim, res


def fit_structural_tm(data: EncodedData, class_node, *, features: Sequence | None = None, alpha: float = 1.0,
                      tol: float = 1e-3, max_iter: int = 1000, line_search: str = "grid", solver: str = "lbfgs",
                      prior_strength="auto", prior_mean: str = "generative", criterion: str = "cv", cv: int = 3,
                      warm_start: bool = False, max_steps: int | None = None,
                      max_candidates: int | None = MAX_CANDIDATES, n_jobs: int = 1,
                      show_progress: bool = False) -> ClassifierStructure:
    """Structural TM (Santafé 2007, section 5.3.2, Fig. 5.5): greedy forward search from the empty graph.

    At every step each legal arc (see :func:`_candidates`; "TAN complexity": the class stays a root, a child of the
    class gets at most one feature parent) is added in turn, the candidate gets TM parameters and a score; the best
    arc is kept if it strictly improves the score (ties: the first candidate in the documented order), otherwise
    the search stops. The score (``criterion``) is the thesis's cBIC ``CLL - (log N / 2) dim_cond`` of the TM fit
    on all rows, or (the default) the held-out CLL of an inner ``cv``-fold cross-validation of the candidate's TM
    fit (:func:`pgmpy_ext.parameters.cv_cll`): a structure is kept only when it predicts rows it was not fitted on
    better (``docs/decisions/tm-regularisation.md``, section 4).

    Parameters
    ----------
    data : EncodedData
    class_node : label
    features : sequence, optional
        Default: every other column.
    alpha, tol, max_iter, line_search, solver, prior_strength, prior_mean
        TM options of every candidate fit (see :class:`~pgmpy_ext.parameters.TMEstimator`; ``max_iter`` is per
        fit; ``prior_strength`` must be one number or ``"auto"``). The default ``solver="lbfgs"`` reaches the same
        or better optima much faster than the thesis's iteration (``solver="tm"``, whose 0.01 grid can stall and
        under-score candidates; ``benchmarks/results/structural_tm.md``); the reproductions of the thesis pass
        ``solver="tm", alpha=0, criterion="cbic"``.
    criterion : {"cv", "cbic"}, default "cv"
        ``"cv"``: the summed held-out CLL of the candidate over ``cv`` inner folds (stratified, deterministic; the
        same folds for every candidate), each fold's TM fitted on the other rows; ``cv`` fits per candidate.
        ``"cbic"``: the thesis's conditional BIC of the TM fit on all rows (Eq. 5.53); one fit per
        candidate, but the training CLL it penalises grows with every arc of (nearly) separable data.
    cv : int, default 3
        Inner folds of ``criterion="cv"``.
    warm_start : bool, default False
        ``criterion="cbic"`` only: start each candidate's TM from the current model's counts, with
        maximum-likelihood counts for the new or changed family (our recommendation in
        ``docs/decisions/seed001-tm-classifiers.md``, "Structural TM"; off in the thesis). Fixed points
        of NB/TAN/FAN-like families are global CLL maxima, so this changes scores only within ``tol``.
    max_steps : int, optional
        Stop after this many added arcs.
    max_candidates : int or None, default MAX_CANDIDATES (10,000)
        Budget of scored candidates for the whole search (the start not counted). A step is scored whole
        or not at all: when the next step's candidates would exceed the budget, the search stops with the arcs
        accepted so far and a ``ConvergenceWarning`` saying so (``trace["stop_reason"] == "max_candidates"``).
        None: no budget.
    n_jobs : int, default 1
        Candidates scored in parallel with joblib (threads; the kernels release the GIL); results do not depend
        on it.
    show_progress : bool, default False
        A progress bar over the greedy steps, counted in candidates out of ``max_candidates`` (shown only when
        pgmpy's ``config.SHOW_PROGRESS`` is on too).

    Returns
    -------
    ClassifierStructure
        ``trace`` holds ``"criterion"``, ``"steps"`` (one record per accepted arc: ``step``, ``arc``, ``score``,
        ``dim``, ``n_candidates``, and for ``criterion="cbic"`` also ``cbic`` and ``cll``), ``"score"``,
        ``"cbic"``, ``"cll"`` and ``"dim"`` of the final structure (its TM fit on all rows), ``"tm"`` (that
        :class:`~pgmpy_ext.parameters.TMResult`), ``"n_tm_runs"``, ``"n_unconverged"`` (candidate TM runs on all
        rows that stopped at ``max_iter``) and ``"stop_reason"`` (``"converged"``: no arc improves the score;
        ``"no_candidates"``, ``"max_steps"`` or ``"max_candidates"``).

    Warns
    -----
    ConvergenceWarning
        Once per search, with the count, when candidate fits stopped at ``max_iter`` (their CLL, hence their
        cBIC, is a lower bound); and when ``max_candidates`` stopped the search.
    """
    check_tm_params(alpha, tol, max_iter, line_search, solver, prior_strength, prior_mean, cv)
    check_option(criterion, "criterion", CRITERIA)
    strengths = prior_strengths(prior_strength, solver)
    if (isinstance(prior_strength, str) and prior_strength == "evidence") or len(strengths) > 1:  # per candidate
        raise ValueError(f"prior_strength == {prior_strength!r}: structural TM scores every candidate with one prior "
                         "strength; give a number (or 'auto').")
    check_scalar(warm_start, "warm_start", (bool, np.bool_))
    if max_steps is not None:
        check_scalar(max_steps, "max_steps", numbers.Integral, min_val=0)
    if max_candidates is not None:
        check_scalar(max_candidates, "max_candidates", numbers.Integral, min_val=0)
    features = check_class_node(data, class_node, features)
    cards = {v: data.card(v) for v in [class_node, *features]}
    n = data.total_weight()
    tm_options = {"alpha": alpha, "tol": tol, "max_iter": max_iter, "line_search": line_search, "solver": solver,
                  "prior_strength": strengths[0], "prior_mean": prior_mean}
    parents = {class_node: [], **{f: [] for f in features}}
    score, dim, current = _score_candidate(data, class_node, parents, None, n, cards, tm_options, criterion, cv)
    fits_per_score = cv if criterion == "cv" else 1
    steps, n_runs, n_unconverged = [], fits_per_score, 0
    n_fits = 0  # candidate fits (the budget of max_candidates)
    stop_reason = "max_steps"
    bar = None
    if show_progress_enabled(show_progress):
        from tqdm.auto import tqdm

        bar = tqdm(desc="structural TM", unit="fit", total=max_candidates)
    # threads: the TM kernels release the GIL, and the candidates share the encoded data without copies
    parallel = Parallel(n_jobs=n_jobs, prefer="threads") if n_jobs not in (None, 1) else None
    try:
        while max_steps is None or len(steps) < max_steps:
            cands = _candidates(parents, features, class_node)
            if not cands:
                stop_reason = "no_candidates"
                break
            if max_candidates is not None and n_fits + len(cands) > max_candidates:
                stop_reason = "max_candidates"
                break
            jobs = []
            for parent, child in cands:
                new = {k: list(v) for k, v in parents.items()}
                new[child].append(parent)
                init = None
                if warm_start and current is not None:
                    init = {k: v for k, v in current.counts.items() if k != child}
                jobs.append((new, init))
            if parallel is None:
                results = [_score_candidate(data, class_node, p, i, n, cards, tm_options, criterion, cv)
                           for p, i in jobs]
            else:
                results = parallel(delayed(_score_candidate)(data, class_node, p, i, n, cards, tm_options, criterion,
                                                             cv) for p, i in jobs)
            n_runs += len(results) * fits_per_score
            n_fits += len(results)
            if criterion == "cbic":
                n_unconverged += sum(r[2].stop_reason == "max_iter" for r in results)
            if bar is not None:
                bar.update(len(results))
            best = int(np.argmax([r[0] for r in results]))  # first maximum: the lowest candidate index
            b_score, b_dim, b_res = results[best]
            if not b_score > score:
                stop_reason = "converged"
                break
            parents, score, dim, current = jobs[best][0], b_score, b_dim, b_res
            rec = {"step": len(steps) + 1, "arc": cands[best], "score": score, "dim": dim,
                   "n_candidates": len(cands)}
            if criterion == "cbic":
                rec.update(cbic=score, cll=current.cll)
            steps.append(rec)
            if bar is not None:
                bar.set_postfix(arcs=len(steps), score=f"{score:.3f}")
    finally:
        if bar is not None:
            bar.close()
    if n_unconverged:
        warnings.warn(f"structural TM: {n_unconverged} of {n_fits} candidate TM fits stopped at max_iter={max_iter} "
                      f"before the CLL change fell below tol={tol}; their cBIC is a lower bound, so the search may "
                      "have missed arcs. Increase max_iter or tol, or use solver='lbfgs'.", ConvergenceWarning,
                      stacklevel=2)
    if stop_reason == "max_candidates":
        warnings.warn(f"structural TM stopped at max_candidates={max_candidates} scored candidates after "
                      f"{len(steps)} added arcs: the next step needs {len(cands)} more. The structure is the greedy "
                      "search so far (every accepted arc was the best of its step); raise max_candidates (None: no "
                      "budget) or limit the arcs with max_steps.", ConvergenceWarning, stacklevel=2)
    if current is None:  # criterion="cv": the selected structure's TM on all the rows
        current = fit_tm(data, class_node, parents, warn=False, **tm_options)
        n_runs += 1
    trace = {"steps": steps, "criterion": criterion, "score": score, "cbic": cbic_score(current.cll, dim, n),
             "cll": current.cll, "dim": dim, "tm": current, "n_tm_runs": n_runs, "n_unconverged": n_unconverged,
             "stop_reason": stop_reason}
    return ClassifierStructure(class_node, features, {f: parents[f] for f in features}, trace)


class StructuralTMSearch(ClassifierSearchBase):
    """Structural TM: discriminative structure learning by greedy arc addition, pgmpy face (Santafé 2007,
    section 5.3.2).

    Starting from the graph with no arcs, repeatedly adds the arc that most increases the score of the candidate
    with TM parameters: by default the held-out CLL of an inner cross-validation (``criterion="cv"``), or the
    thesis's ``cBIC = CLL(theta_TM) - (log N / 2) dim_cond`` (Eq. 5.53, ``criterion="cbic"``), where ``dim_cond``
    counts the parameters of the conditional model ``p(c | x)``. Arcs are limited to "TAN
    complexity": the class stays a root and each of its children gets at most one feature parent. The thesis
    reports very sparse results (selective-NB-like models).

    Parameters
    ----------
    data : pandas.DataFrame
        Discrete data, the class column included; no missing values.
    state_names : dict, optional
    n_jobs : int, default 1
        Threads scoring the candidates of a step in parallel (joblib); the result does not depend on it.

    Attributes
    ----------
    result_ : ClassifierStructure
        After :meth:`estimate`: ``result_.trace["steps"]``, the final ``"cbic"``/``"cll"``/``"dim"`` and ``"tm"``,
        the TM result of the final structure (its counts are the fitted parameters).

    See Also
    --------
    pgmpy_ext.parameters.TMEstimator : TM parameters for a given structure.
    pgmpy_ext.structure.CTANSearch : the other discriminative structure learner of the thesis.

    Notes
    -----
    .. math::

        \\mathrm{cBIC}(S) = \\sum_d \\log p(c_d \\mid x_d, \\tilde\\theta_S) - \\frac{\\log N}{2}\\,
        (K - 1)\\Big[1 + \\sum_{A \\in \\mathcal{A}(S)} \\prod_{V \\in A} (r_V - 1)\\Big]

    The thesis's score (``criterion="cbic"``) is the cBIC above; the default (``criterion="cv"``) replaces it by the
    summed held-out CLL of the candidate over 3 inner folds, which tracks the log loss on new rows: on the 29 public
    UCI sets with at most 20 features and 1,500 rows it gave a mean 10-fold held-out log loss of 0.382 against 0.440
    for cBIC with the same TM and 3.54 for the search before issue 26 (``docs/decisions/tm-regularisation.md``,
    section 4). It keeps any arc with a positive held-out gain, so on small samples it can add an arc whose gain is
    noise (a one-standard-error rule against that lost 0.023 of log loss there); ``criterion="cbic"`` gives sparser
    models. The candidate set and the dimension formula are reconstructions
    (``docs/decisions/seed001-tm-classifiers.md``): the thesis states
    neither explicitly. Arcs into features that are not children of the class cannot change the CLL or the
    dimension, so they are never proposed. Cost: a full TM run per candidate (3 with ``criterion="cv"``),
    ``O(n^2)`` candidates per step; the whole search is bounded by ``max_candidates`` candidates
    (:data:`MAX_CANDIDATES`).

    References
    ----------
    Santafé, G. (2007). PhD thesis, section 5.3.2. Grossman, D. & Domingos, P. (2004). Learning Bayesian network
    classifiers by maximizing conditional likelihood. ICML.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 500)
    >>> df = pd.DataFrame({"C": c, "A": c ^ (rng.random(500) < 0.1), "B": c ^ (rng.random(500) < 0.3),
    ...                    "D": rng.integers(0, 3, 500)})
    >>> est = StructuralTMSearch(df)
    >>> sorted(est.estimate(class_node="C").edges())  # D is irrelevant: not selected
    [('C', 'A'), ('C', 'B')]
    >>> [s["arc"] for s in est.result_.trace["steps"]]
    [('C', 'A'), ('C', 'B')]
    """

    def estimate(self, class_node=None, alpha: float = 1.0, tol: float = 1e-3, max_iter: int = 1000,
                 line_search: str = "grid", solver: str = "lbfgs", prior_strength="auto",
                 prior_mean: str = "generative", criterion: str = "cv", cv: int = 3, warm_start: bool = False,
                 max_steps: int | None = None, max_candidates: int | None = MAX_CANDIDATES,
                 show_progress: bool = False) -> DAG:
        """Run the greedy search and return the DAG (unselected features stay as isolated nodes); options as
        :func:`fit_structural_tm`."""
        return self._estimate(fit_structural_tm, class_node, alpha=alpha, tol=tol, max_iter=max_iter,
                              line_search=line_search, solver=solver, prior_strength=prior_strength,
                              prior_mean=prior_mean, criterion=criterion, cv=cv, warm_start=warm_start,
                              max_steps=max_steps, max_candidates=max_candidates, show_progress=show_progress)

