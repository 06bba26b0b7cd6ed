r"""The one iterative-fit driver of every EM-type learner, its random start and its restart runner.

scikit-learn's ``mixture.BaseMixture`` is the model: one loop owns the iterations, the convergence test, the
iteration count and the trace, and the learner supplies the steps. Here the steps are an object with two hooks
(:class:`EMSteps`), so the same loop runs latent-class EM and EMA, EMA-TAN, mEM-TAN, mEM-BNET, the supernode EM and
BC+EM of constructive induction, :class:`~pgmpy_ext.parameters.LatentEM` and the stochastic and classification
stages of CEM. Design note: ``docs/decisions/issue24-one-vocabulary.md`` (D1-D4).

* :func:`iterate` runs ``e_step``/``m_step`` until ``tol`` is met or ``max_iter`` M steps were taken; it records the
  objective (the log-likelihood, or the learner's own criterion) of every iterate.
* :func:`run_starts` runs independent starts (or any independent seeded tasks) on spawned child generators, in
  parallel with joblib when asked; the result never depends on ``n_jobs``.
* :func:`dirichlet_tables` draws the random Dirichlet(1) start of every learner.

``iterate(..., accelerate="squarem")`` runs the same hooks under SQUAREM (Varadhan & Roland 2008), the
extrapolation ADMIXTURE-like programs (fastmixture) use to make EM converge in tens of iterations; the learner adds
two small hooks, ``unflat`` and optionally ``project`` (see :class:`EMSteps`).

Nothing here imports scikit-learn, pgmpy or joblib at module load (the low layers stay light for Dask workers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

__all__ = ["ACCELERATORS", "CONVERGENCE_CRITERIA", "EMSteps", "IterativeFit", "dirichlet_tables", "iterate",
           "relative_change", "run_starts"]

#: Accelerators of the fixed-point map ``params -> m_step(e_step(params))``: None (plain iterations) or SQUAREM.
ACCELERATORS = (None, "squarem")

#: What ``tol`` can measure: ``"objective"`` is the relative change of the objective between consecutive iterates
#: (the log-likelihood for EM), ``"params"`` the largest absolute change of a parameter (L-infinity).
CONVERGENCE_CRITERIA = ("objective", "params")


class EMSteps(Protocol):
    """The hooks of one iterative fit (scikit-learn's ``BaseMixture._e_step``/``_m_step`` as an object).

    ``e_step(params) -> (stats, objective)``
        Whatever the M step needs, computed at ``params`` (expected counts, responsibilities, a completion), and the
        objective of ``params`` (the observed-data log-likelihood for EM; the classification log-likelihood for
        CEM, whose "E step" is the M step on a partition followed by the posteriors of the rows).
    ``m_step(stats, params) -> params``
        The next parameters. Returning ``params`` itself (the same object) says "fixed point": the driver stops,
        converged, without another E step (CEM's C step that moves no row).
    ``flat(params) -> 1-D float array`` (optional)
        The numbers whose largest change ``criterion="params"`` measures; by default every array in ``params``
        (an array, or a tuple/list of arrays and scalars), raveled and concatenated.
    ``unflat(vector, params) -> params`` (needed by ``accelerate="squarem"`` only)
        The parameters whose ``flat`` is ``vector``, shaped like ``params`` (the extrapolated point).
    ``project(params) -> params`` (optional, ``accelerate="squarem"`` only)
        The nearest valid parameters (e.g. probabilities clipped into (0, 1) and renormalised): an extrapolation may
        leave the parameter space. By default the extrapolated point is used as it is.
    """

    def e_step(self, params) -> tuple[object, float]: ...

    def m_step(self, stats, params): ...


@dataclass
class IterativeFit:
    """The end of one :func:`iterate` run.

    Attributes
    ----------
    params : object
        The last parameters (the M step's output, or the start when no M step ran).
    stats : object
        ``e_step(params)``'s statistics at those parameters (posteriors, expected counts, ...).
    objective : float
        The objective of ``params``.
    trace : float64 (n_iter + 1,) or (n_iter,)
        The objective of every iterate: the start's first when the run started from parameters, then one per M step.
    n_iter : int
        M steps taken (the first M step of a run started from statistics counts).
    converged : bool
        ``tol`` was met, or an M step returned its input (a fixed point).
    """

    params: object
    stats: object
    objective: float
    trace: np.ndarray
    n_iter: int
    converged: bool


def relative_change(new: float, old: float) -> float:
    """``|new - old| / |new|`` (``inf`` when ``new`` is 0 and ``old`` is not): the objective criterion, so that
    ``relative_change(new, old) <= tol`` is EM's ``|LL_t - LL_{t-1}| <= tol |LL_t|`` (the rule chosen for the EM of
    Santafé 2007, which gives no threshold)."""
    diff = abs(float(new) - float(old))
    if diff == 0.0:
        return 0.0
    return diff / abs(float(new)) if new != 0 else float("inf")


def _flat(params) -> np.ndarray:
    if not isinstance(params, (tuple, list)):
        return np.asarray(params, dtype=np.float64).ravel()
    parts = [np.asarray(p, dtype=np.float64).ravel() for p in params if p is not None]
    return np.concatenate(parts) if parts else np.zeros(0)


def _rules(criterion, tol) -> list[tuple[str, float]]:
    """``[(criterion, tol)]`` from one criterion and threshold, or from equal-length sequences of both (the run
    stops when any rule holds); rules whose ``tol`` is None are dropped (no test: the run lasts ``max_iter``)."""
    if isinstance(criterion, str):
        criterion, tol = (criterion,), (tol,)
    rules = []
    for c, t in zip(criterion, tol, strict=True):
        if c not in CONVERGENCE_CRITERIA:
            raise ValueError(f"criterion == {c!r}, must be one of {CONVERGENCE_CRITERIA}.")
        if t is not None:
            rules.append((c, float(t)))
    return rules


def iterate(steps: EMSteps, params, *, tol: float | Sequence | None, max_iter: int, criterion="objective",
            stats=None, progress: str | None = None, callback: Callable | None = None,
            accelerate: str | None = None) -> IterativeFit:
    r"""Alternate ``steps.e_step`` and ``steps.m_step`` until convergence or ``max_iter`` M steps.

    Parameters
    ----------
    steps : EMSteps
        The learner's hooks.
    params : object
        The starting parameters (the random start, or given ones). With ``stats`` they are only the "previous"
        parameters the first M step may read (e.g. to keep a row of an empty cluster); may be None then.
    tol : float, sequence of float or None
        Convergence threshold of ``criterion`` (a sequence: one per criterion, the run stops when any holds);
        None: no test, the run takes exactly ``max_iter`` M steps unless an M step returns a fixed point.
    max_iter : int
        Most M steps.
    criterion : {"objective", "params"} or sequence of them, default "objective"
        What ``tol`` bounds between consecutive iterates: :func:`relative_change` of the objective, or the largest
        absolute change of ``steps.flat(params)``.
    stats : object, optional
        Start from statistics instead of parameters (e.g. the expected counts of random responsibilities, or a
        first E step): the run begins with an M step, which counts as iteration 1.
    progress : str, optional
        Show a tqdm bar over the iterations with this description (the caller decides, e.g. with
        ``show_progress and pgmpy.config.SHOW_PROGRESS``).
    callback : callable, optional
        ``callback(n_iter, params, stats, objective)`` after every E step (the start's included), e.g. to keep the
        best iterate of a stochastic run or to plug in an accelerator's bookkeeping. Under ``accelerate`` it is
        called after every accepted iterate.
    accelerate : {None, "squarem"}, default None
        None: plain iterations. ``"squarem"``: SQUAREM (Varadhan & Roland 2008, scheme S3, with the usual
        stabilising step): a cycle takes two M steps from ``x0`` (``x1 = F(x0)``, ``x2 = F(x1)``), extrapolates
        ``x' = x0 - 2 a r + a^2 v`` with ``r = x1 - x0``, ``v = x2 - 2 x1 + x0`` and the step
        ``a = -max(1, min(|r| / |v|, step_max))`` (``step_max`` starts at 4 and is multiplied by 4 whenever it was
        reached), projects ``x'`` with ``steps.project``, and takes one more M step from it, ``x3 = F(x')``. The
        cycle keeps ``x3`` unless its objective is below ``x2``'s (or not finite): then it keeps ``x2``, the plain
        iterate, and ``step_max`` goes back to 4. The objective must be **maximised** (EM's log-likelihood), and
        ``steps`` needs ``unflat``. ``n_iter`` (and ``max_iter``) count the iterates the run moves through:
        ``x1``, ``x2`` and ``x3`` when it is kept (a rejected extrapolation costs one M step and two E steps that
        are not counted); the trace and the convergence test see them in order. A cycle costs 3 M steps and 4 E
        steps, against 3 and 3 for three plain iterations.

    Returns
    -------
    IterativeFit

    Notes
    -----
    One iteration is ``params_{t+1} = m_step(e_step(params_t))`` followed by the E step at ``params_{t+1}``,
    whose objective is recorded; the test compares iterates ``t`` and ``t + 1``. A run started from statistics has
    no objective for its start, so its first test compares iterates 1 and 2.

    References
    ----------
    Varadhan, R., Roland, C. (2008). Simple and globally convergent methods for accelerating the convergence of any
    EM algorithm. Scandinavian Journal of Statistics 35, 335-353.

    Examples
    --------
    A one-parameter "EM" whose M step halves the distance to 1 (objective ``-(p - 1)^2``):

    >>> class Halve:
    ...     def e_step(self, p):
    ...         return p, -(p - 1.0) ** 2
    ...     def m_step(self, stats, p):
    ...         return (stats + 1.0) / 2.0
    >>> fit = iterate(Halve(), 0.0, tol=0.1, max_iter=50, criterion="params")
    >>> fit.n_iter, fit.converged, round(fit.params, 4)
    (4, True, 0.9375)

    The same map under SQUAREM (it needs ``unflat``): the extrapolation of a linear map lands on its fixed point.

    >>> class HalveSq(Halve):
    ...     def unflat(self, x, p):
    ...         return float(x[0])
    >>> fit = iterate(HalveSq(), 0.0, tol=1e-9, max_iter=50, criterion="params", accelerate="squarem")
    >>> fit.n_iter, fit.converged, round(fit.params, 12)
    (4, True, 1.0)
    """
    if accelerate not in ACCELERATORS:
        raise ValueError(f"accelerate == {accelerate!r}, must be one of {ACCELERATORS}.")
    if accelerate == "squarem" and not hasattr(steps, "unflat"):
        raise ValueError("accelerate='squarem' needs steps.unflat(vector, params) (the parameters of a flat "
                         "vector); add it to the learner's steps.")
    rules = _rules(criterion, tol)
    flat = getattr(steps, "flat", _flat)
    n_iter = 0
    if stats is not None:
        params = steps.m_step(stats, params)
        n_iter = 1
    stats, objective = steps.e_step(params)
    trace = [float(objective)]
    if callback is not None:
        callback(n_iter, params, stats, objective)
    bar = None
    if progress is not None:
        from tqdm.auto import tqdm

        bar = tqdm(total=int(max_iter), initial=n_iter, desc=progress)
    converged = False

    def met(new, new_objective, old, old_objective) -> bool:
        hit = False
        for c, t in rules:
            change = (relative_change(new_objective, old_objective) if c == "objective"
                      else float(np.max(np.abs(flat(new) - flat(old)), initial=0.0)))
            hit = hit or change <= t
        return hit

    try:
        if accelerate == "squarem":
            params, stats, objective, n_iter, converged = _squarem(steps, flat, met, params, stats, objective, n_iter,
                                                                   max_iter, trace, callback, bar)
        while not converged and n_iter < max_iter:
            new = steps.m_step(stats, params)
            if new is params:  # a fixed point: nothing moved, nothing to recompute
                converged = True
                break
            n_iter += 1
            new_stats, new_objective = steps.e_step(new)
            trace.append(float(new_objective))
            converged = met(new, new_objective, params, objective)
            params, stats, objective = new, new_stats, new_objective
            if callback is not None:
                callback(n_iter, params, stats, objective)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return IterativeFit(params, stats, float(objective), np.asarray(trace, dtype=np.float64), n_iter, converged)


#: SQUAREM's first largest step length and the factor it grows by when a step reaches it (Varadhan & Roland 2008,
#: the ``step.max0 = 1``, ``mstep = 4`` of their reference implementation, started at 4 as fastmixture does).
_SQUAREM_STEP_MAX, _SQUAREM_STEP_GROWTH = 4.0, 4.0


def _squarem(steps, flat, met, params, stats, objective, n_iter, max_iter, trace, callback, bar):
    """SQUAREM cycles until convergence or until fewer than 3 M steps are left (the plain loop then finishes)."""
    project = getattr(steps, "project", None)
    step_max = _SQUAREM_STEP_MAX

    def advance(new, new_stats, new_objective):
        nonlocal n_iter
        n_iter += 1
        trace.append(float(new_objective))
        if callback is not None:
            callback(n_iter, new, new_stats, new_objective)
        if bar is not None:
            bar.update(1)

    while n_iter + 3 <= max_iter:
        x0 = params
        p1 = steps.m_step(stats, x0)
        if p1 is x0:
            return params, stats, objective, n_iter, True
        s1, o1 = steps.e_step(p1)
        advance(p1, s1, o1)
        if met(p1, o1, x0, objective):
            return p1, s1, o1, n_iter, True
        p2 = steps.m_step(s1, p1)
        if p2 is p1:
            return p1, s1, o1, n_iter, True
        s2, o2 = steps.e_step(p2)
        advance(p2, s2, o2)
        if met(p2, o2, p1, o1):
            return p2, s2, o2, n_iter, True
        f0, f1, f2 = flat(x0), flat(p1), flat(p2)
        r, v = f1 - f0, f2 - 2.0 * f1 + f0
        nr, nv = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
        alpha = -max(1.0, min(nr / nv, step_max)) if nv > 0 else -1.0
        if -alpha >= step_max:
            step_max *= _SQUAREM_STEP_GROWTH
        xe = steps.unflat(f0 - 2.0 * alpha * r + alpha * alpha * v, x0)
        if project is not None:
            xe = project(xe)
        se, oe = steps.e_step(xe)
        p3 = steps.m_step(se, xe)
        s3, o3 = (se, oe) if p3 is xe else steps.e_step(p3)
        if np.isfinite(o3) and o3 >= o2:
            advance(p3, s3, o3)
            done = met(p3, o3, p2, o2)
            params, stats, objective = p3, s3, o3
        else:  # the extrapolation lost ground: keep the plain iterate, start small again
            step_max = _SQUAREM_STEP_MAX
            done = False
            params, stats, objective = p2, s2, o2
        if done:
            return params, stats, objective, n_iter, True
    return params, stats, objective, n_iter, False


def run_starts(single_start: Callable, n_starts: int, random_state, *, n_jobs: int | None = None,
               prefer: str = "processes", indexed: bool = False, show_progress: bool = False,
               desc: str = "starts") -> list:
    """``n_starts`` independent seeded runs of ``single_start(rng)``, each on its own child generator.

    The children are ``check_generator(random_state).spawn(n_starts)``, so the results do not depend on ``n_jobs``
    and adding starts does not change the others (the restarts of every learner, and any other independent seeded
    tasks, e.g. the 2^n structures of the brute-force average). With ``n_jobs`` other than None or 1 the runs go
    through joblib: ``prefer="processes"`` (the default; ``single_start`` must pickle) or ``"threads"`` for work
    that releases the GIL; ``joblib.parallel_config`` can change the backend. A tqdm bar over the runs is shown when
    ``show_progress`` and pgmpy's ``config.SHOW_PROGRESS`` are both on. ``indexed=True`` calls
    ``single_start(i, rng)`` with the run's index ``i`` (tasks that differ by more than their seed).

    Returns
    -------
    list
        ``single_start(child)`` of every child, in start order.

    Examples
    --------
    >>> draws = run_starts(lambda rng: float(rng.random()), 3, 0)
    >>> draws == run_starts(lambda rng: float(rng.random()), 3, 0) and len(set(draws)) == 3
    True
    """
    from pgmpy_ext.utils.validation import check_generator

    children = check_generator(random_state).spawn(int(n_starts))
    args = [(i, child) if indexed else (child,) for i, child in enumerate(children)]
    if n_jobs is None or n_jobs == 1:
        results = (single_start(*a) for a in args)
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")(
            delayed(single_start)(*a) for a in args)
    if show_progress:
        from pgmpy_ext._compat import show_progress_enabled

        if show_progress_enabled(show_progress):
            from tqdm.auto import tqdm

            results = tqdm(results, total=int(n_starts), desc=desc)
    return list(results)


def dirichlet_tables(rng: np.random.Generator, shapes, *, stacked: bool = False) -> list[np.ndarray]:
    """The random start: tables whose every column is drawn from a flat Dirichlet(1), one table per shape.

    ``shapes`` is a sequence of ``(r, n_columns)``: ``r`` states (rows) and ``n_columns`` parent configurations
    (clusters, for a mixture's ``P(X_i | C)``; 1 for the prior ``P(C)``). The draws come from ``rng`` only, table
    after table, in one of two stream orders:

    * ``stacked=False`` (default): per table, ``rng.dirichlet(ones(r), size=n_columns)``, i.e. column after
      column (CI, the chapter-7 baselines, LatentEM, EMA-TAN);
    * ``stacked=True``: consecutive tables with the same ``n_columns`` share one ``rng.standard_gamma`` draw of
      shape ``(sum r, n_columns)``, state row after state row, each block normalised by its column sums (the
      latent-class engine's order, kept so that its seeded results and reproductions do not move).

    Both are exact Dirichlet(1) draws; gamma draws are floored at 1e-300 in the stacked order.

    Returns
    -------
    list of float64 arrays of shape (r, n_columns), columns summing to 1

    Examples
    --------
    >>> prior, table = dirichlet_tables(np.random.default_rng(0), [(2, 1), (3, 2)])
    >>> prior.shape, table.shape, table.sum(axis=0).round(12).tolist()
    ((2, 1), (3, 2), [1.0, 1.0])
    """
    shapes = [(int(r), int(c)) for r, c in shapes]
    if not stacked:
        return [rng.dirichlet(np.ones(r), size=c).T for r, c in shapes]
    out, i = [], 0
    while i < len(shapes):
        j = i
        while j < len(shapes) and shapes[j][1] == shapes[i][1]:
            j += 1
        rows = [r for r, _ in shapes[i:j]]
        g = np.maximum(rng.standard_gamma(1.0, size=(sum(rows), shapes[i][1])), 1e-300)
        offsets = np.concatenate([[0], np.cumsum(rows)]).astype(np.intp)
        if g.shape[1] == 1:  # a prior: the 1-D sum (numpy's pairwise order, as the engine always summed it)
            sums = np.array([[g[a:b, 0].sum()] for a, b in zip(offsets[:-1], offsets[1:])])
        else:
            sums = np.add.reduceat(g, offsets[:-1], axis=0)
        g = g / np.repeat(sums, rows, axis=0)
        out += [g[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
        i = j
    return out
