"""The optimisers behind :func:`pgmpy_ext.parameters.fit_tm`, on a compiled :class:`~pgmpy_ext.stats.TMData`.

Both maximise the same training conditional log-likelihood over the same parameters and see only flat class-last
count buffers (no labels, no pgmpy objects, no warnings: :func:`~pgmpy_ext.parameters.fit_tm` turns their
:class:`SolverRun` into a :class:`~pgmpy_ext.parameters.TMResult` and reports to the user):

* :func:`run_tm_iteration`: the thesis's iteration ``T <- T + lambda (O - E(T))`` with the grid or backtracking
  line search (seed 001 spec 5.4-5.6);
* :class:`LBFGSSolver`: L-BFGS-B on the log-linear parameters (or the log-counts when the structure has no host
  plan, see :func:`host_plan`), not in the thesis, optionally with a Gaussian :class:`Prior` on them (issue 26).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pgmpy_ext.stats import TMData

__all__ = ["LBFGS_COORDINATES", "LBFGSSolver", "PRIOR_MEANS", "Prior", "SolverRun", "THESIS_GRID", "compile_host_plan",
           "host_plan", "line_search", "run_tm_iteration"]

#: The thesis's step-size grid {0.01, ..., 0.99}, searched when the full step is illegal or lowers the CLL.
THESIS_GRID = np.arange(1, 100) / 100.0
#: Valid ``coordinates`` of :class:`LBFGSSolver`.
LBFGS_COORDINATES = ("auto", "log_counts")
_MAX_HALVINGS = 60
_BACKTRACK_SHRINK = 0.999
_LBFGS_MEMORY = 10
# Diagonal scaling of the L-BFGS variables, z = T ** power * x (the generative Fisher information of a cell is ~T in
# log-linear coordinates); powers chosen on chess/splice/mushroom/letter (benchmarks/tm.py), where they cut the
# iterations up to 1.7x against no scaling. With a prior, z = sqrt(T ** (2 power) + precision) * x.
_SCALE_POWER = {"log_linear": 0.5, "log_counts": 0.25}
#: Smallest normalised log-parameter an lbfgs result may have (log 1e-300): on (nearly) separable data the optimum
#: is at infinity, and a parameter below ~1e-308 would be exported as an exact 0 (and break warm starts).
_LOG_THETA_MIN = float(np.log(1e-300))


class _OneBlasThread:
    """Context limiting BLAS to one thread while any L-BFGS run is active.

    L-BFGS-B calls BLAS/LAPACK on vectors of a few hundred entries, where OpenBLAS's threads only add
    synchronisation (17x slower per fit on a busy 2-core machine, and oversubscribed under ``n_jobs`` threads);
    sklearn limits BLAS threads the same way around small problems. threadpoolctl's limits are process-wide and its
    contexts do not nest across threads, so the first run in sets the limit and the last one out restores it.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._depth = 0
        self._controller = None
        self._limiter = None

    def __enter__(self):
        with self._lock:
            if self._depth == 0:
                if self._controller is None:  # made once scipy's BLAS is loaded (the caller imported scipy)
                    from threadpoolctl import ThreadpoolController

                    self._controller = ThreadpoolController()
                self._limiter = self._controller.limit(limits=1, user_api="blas")
            self._depth += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self._limiter.restore_original_limits()
                self._limiter = None
        return False


_ONE_BLAS_THREAD = _OneBlasThread()


@dataclass
class SolverRun:
    """What a solver returns: the final counts (flat, class-last) and the trace.

    ``stop_reason`` and ``converged`` have the meaning of :class:`~pgmpy_ext.parameters.TMResult`'s.
    """

    counts: np.ndarray
    cll_trace: list
    step_sizes: list
    elapsed: list
    n_evaluations: int
    stop_reason: str
    converged: bool
    objective_trace: list | None = None  # the penalised objective (None: no penalty, the same as cll_trace)


#: Valid ``prior_mean`` options (see :class:`Prior`).
PRIOR_MEANS = ("generative", "uniform")


@dataclass(frozen=True, eq=False)
class Prior:
    """A Gaussian prior on the unnormalised log-parameters of the class's families (the L-BFGS solver's variables).

    The solver maximises ``CLL - sum_cells prec (x - mean)^2 / 2`` (the log-posterior up to a constant). Every cell
    of block ``b`` has the precision ``strength * q_b``, ``q_b`` the number of configurations of the family's
    parents other than the class (1 for naive Bayes and for the class prior): a cell whose rows are split over more
    parent configurations is held closer to the mean (chosen by held-out log loss, ``docs/decisions/
    tm-regularisation.md``).

    Attributes
    ----------
    strength : float
        ``lambda > 0``: the precision (inverse variance) per cell of a family with no feature parent.
    counts : numpy.ndarray of float64, shape (tmd.size,)
        The generative counts ``O + alpha`` (the mean of ``mean="generative"``).
    mean : {"generative", "uniform"}
        ``"generative"``: the generative log-parameters ``log theta(O + alpha)`` (in log-linear coordinates; the
        log-counts ``log(O + alpha)`` in log-count coordinates, the same distributions), the class prior included;
        ``lambda -> inf`` gives the generative classifier. ``"uniform"``: 0 (every slice uniform) and the class
        prior not penalised: for naive Bayes the objective of scikit-learn's L2 ``LogisticRegression`` on one-hot
        features with ``C = 1 / lambda`` (``2 / lambda`` for two classes, whose logistic regression has one weight
        vector instead of two).
    """

    strength: float
    counts: np.ndarray
    mean: str = "generative"
    scale: float = 1.0

    def parts(self, tmd: TMData, log_linear: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(offset, contrast)`` of the generative mean, shape ``(tmd.size,)`` each: per cell group (a state of a
        child with one configuration of its feature parents, or the class prior; ``K`` consecutive cells) the
        mean over the classes and the deviations from it; the mean is ``offset + scale * contrast``."""
        if log_linear:
            full = tmd.log_theta(self.counts)[0]
        else:
            with np.errstate(divide="ignore"):
                full = np.log(self.counts)
        g = full.reshape(-1, tmd.n_classes)
        with np.errstate(invalid="ignore"):
            off = np.repeat(g.mean(axis=1), tmd.n_classes)
        return off, full - off

    def _mean_full(self, tmd: TMData, log_linear: bool) -> np.ndarray:
        if self.mean == "uniform":
            return np.zeros(tmd.size)
        if self.scale == 1.0:
            if log_linear:
                return tmd.log_theta(self.counts)[0]
            with np.errstate(divide="ignore"):
                return np.log(self.counts)
        off, con = self.parts(tmd, log_linear)
        return off + self.scale * con

    def precision(self, tmd: TMData, log_linear: bool = True) -> np.ndarray:
        """Per-cell precision, shape ``(tmd.size,)``: ``strength * q_b``; 0 for the class prior when the mean is
        uniform (a logistic regression's intercepts) and where the mean is not finite (a structural zero)."""
        q = np.repeat(tmd.blk_q, np.diff(tmd.blk_offsets)).astype(np.float64)
        prec = float(self.strength) * q
        if self.mean == "uniform":
            prec[:tmd.n_classes] = 0.0
        prec[~np.isfinite(self._mean_full(tmd, log_linear))] = 0.0
        return prec

    def centre(self, tmd: TMData, *, log_linear: bool) -> np.ndarray:
        """The mean in the solver's coordinates, shape ``(tmd.size,)`` (0 where it is not finite)."""
        c = self._mean_full(tmd, log_linear)
        c[~np.isfinite(c)] = 0.0
        return c


# ------------------------------------------------------------------------------------------ the thesis's TM
def line_search(tmd: TMData, T: np.ndarray, delta: np.ndarray, cll: float, mode: str, grid: np.ndarray):
    """Step size that increases the CLL along ``delta``, or None when none is found; also the evaluation count."""
    buf = np.empty_like(T)
    n_eval = 0
    if mode == "grid":
        best_lam, best = None, cll
        for lam in grid:
            np.multiply(delta, lam, out=buf)
            buf += T
            c = tmd.evaluate(buf).cll
            n_eval += 1
            if c > best:
                best_lam, best = float(lam), c
        return best_lam, n_eval
    neg = delta < 0
    lam_max = float(np.min(-T[neg] / delta[neg])) if neg.any() else np.inf
    lam = 0.5 if lam_max >= 1.0 else _BACKTRACK_SHRINK * lam_max
    for _ in range(_MAX_HALVINGS):
        if lam <= 0.0:
            break
        np.multiply(delta, lam, out=buf)
        buf += T
        c = tmd.evaluate(buf).cll
        n_eval += 1
        if c > cll:
            return lam, n_eval
        lam *= 0.5
    return None, n_eval


def run_tm_iteration(tmd: TMData, T: np.ndarray, ev, frozen: np.ndarray, *, tol: float, max_iter: int,
                     line_search_mode: str, t_start: float, callback: Callable | None = None) -> SolverRun:
    """``solver="tm"``: the thesis's iteration from the counts ``T`` (whose evaluation with expected counts is
    ``ev``); cells in ``frozen`` never move. ``callback(iteration, flat_counts, cll)`` after every iteration."""
    O = tmd.observed  # noqa: E741  (the thesis's name for the observed counts)
    cll = ev.cll
    n_eval = 1
    trace, steps, elapsed = [cll], [], [time.perf_counter() - t_start]
    converged, reason = False, "max_iter"
    for it in range(1, int(max_iter) + 1):
        delta = O - ev.expected
        delta[frozen] = 0.0
        cand = T + delta
        ev1 = tmd.evaluate(cand, expected=True)
        n_eval += 1
        lam = 1.0
        if not ev1.cll >= cll:  # illegal (-inf) or lower: line search (Eq. 5.19)
            lam, n_ls = line_search(tmd, T, delta, cll, line_search_mode, THESIS_GRID)
            n_eval += n_ls
            if lam is None:
                converged, reason = True, "stalled"
                break
            cand = T + lam * delta
            ev1 = tmd.evaluate(cand, expected=True)
            n_eval += 1
        change = ev1.cll - cll
        T, ev, cll = cand, ev1, ev1.cll
        trace.append(cll)
        steps.append(lam)
        elapsed.append(time.perf_counter() - t_start)
        if callback is not None:
            callback(it, T, cll)
        if abs(change) < tol or change == 0.0:
            converged, reason = True, "tol"
            break
    return SolverRun(T, trace, steps, elapsed, n_eval, reason, converged)


# ------------------------------------------------------------------------------------------ L-BFGS
def host_plan(tmd: TMData):
    """How to turn log-linear weights into normalised log-parameters without changing ``p(c | x)``.

    In the log-linear coordinates ``beta`` (unnormalised log-parameters, where the CLL is the concave objective of
    the equivalent logistic regression), normalising block ``b`` over its child subtracts
    ``a_b(pi_b, c) = logsumexp_x beta_b[x, pi_b, c]``; adding ``a_b`` to a *host* block whose variables contain
    ``pi_b`` (the class prior when ``pi_b`` is empty) leaves every ``p(c | x)`` unchanged. Returns the blocks in
    processing order (each before its host) as ``(b, host, axes)``, where ``axes`` places ``a_b`` on the host's
    axes, or None when some block has no host (then the structure is not a "perfect" class-conditional
    structure and the solver works on the log-counts instead). NB, TAN and FAN whose feature parents are children
    of the class always have hosts (Roos et al. 2005).
    """
    fams = tmd.families
    block_of = {child: b for b, (child, _) in enumerate(fams, start=1)}
    host = {}
    for b, (child, pa) in enumerate(fams, start=1):
        if not pa:
            host[b] = 0
            continue
        cands = [block_of[v] for v in pa if v in block_of
                 and set(pa) <= {v, *fams[block_of[v] - 1][1]}]
        if not cands:
            return None
        host[b] = cands[0]
    order, done = [], set()

    def visit(b, stack):  # b must come before host[b]: emit all blocks hosted (transitively) by b first
        if b in done:
            return
        if b in stack:
            raise RuntimeError("cyclic host relation")  # cannot happen: a host's child is a parent of b's child
        stack.add(b)
        for c2, h in host.items():
            if h == b:
                visit(c2, stack)
        stack.discard(b)
        done.add(b)
        order.append(b)

    for b in host:
        visit(b, set())
    plan = []
    for b in order:
        pa = list(fams[b - 1][1])
        if host[b] == 0:
            plan.append((b, 0, None))
            continue
        hchild, hpa = fams[host[b] - 1]
        haxes = [hchild, *hpa]
        # a_b has axes (*pa, C); bring them into the host's order (hchild, *hpa, C) with singleton gaps
        perm = [pa.index(v) for v in haxes if v in pa] + [len(pa)]
        expand = [i for i, v in enumerate(haxes) if v not in pa]
        plan.append((b, host[b], (perm, expand)))
    return plan


def compile_host_plan(tmd: TMData, plan) -> tuple:
    """Arrays of :func:`host_plan` for :meth:`TMData.normalise_log_linear`: ``(order, hosts, src_offsets, src)``,
    where ``src`` maps every cell of an entry's host block to the child's normaliser ``a[pi_b, c]``."""
    K = tmd.n_classes
    order, hosts, srcs = [], [], []
    for b, h, axes in plan:
        order.append(b)
        hosts.append(h)
        if h == 0:
            srcs.append(np.arange(K, dtype=np.intp))
            continue
        perm, expand = axes
        pa_shape = tmd.cards[b - 1][1:]  # the child's other parents, in family order
        host_shape = (*tmd.cards[h - 1], K)
        coords = np.indices(host_shape, dtype=np.intp).reshape(len(host_shape), -1)
        kept = [ax for ax in range(len(host_shape) - 1) if ax not in expand]  # host axes that are parents of b
        # perm lists, in host order, the positions of b's parents within pa_b (then the class)
        pos_in_pa = perm[:-1]
        idx = [None] * len(pa_shape)
        for ax, j in zip(kept, pos_in_pa):
            idx[j] = coords[ax]
        flat = np.ravel_multi_index((*idx, coords[-1]), (*pa_shape, K)) if pa_shape else coords[-1]
        srcs.append(np.ascontiguousarray(flat, dtype=np.intp))
    offsets = np.zeros(len(srcs) + 1, dtype=np.intp)
    offsets[1:] = np.cumsum([len(x) for x in srcs])
    src = np.concatenate(srcs) if srcs else np.zeros(0, dtype=np.intp)
    return (np.asarray(order, dtype=np.intp), np.asarray(hosts, dtype=np.intp), offsets,
            np.ascontiguousarray(src, dtype=np.intp))


class LBFGSSolver:
    """``solver="lbfgs"``: L-BFGS-B on the free log-parameters of one starting point.

    Two coordinate systems, both starting from ``log theta(T)`` and both keeping structural zeros (``-inf``) and
    untouched slices (``frozen``) fixed; L-BFGS-B sees them scaled by ``T ** power`` (``_SCALE_POWER``; with a prior
    ``sqrt(T ** (2 power) + precision)``), a diagonal preconditioner:

    * log-linear (when :func:`host_plan` finds hosts: NB, TAN, FAN, ...): the free unnormalised log-parameters
      ``beta``; the CLL is concave in them (the equivalent logistic regression) and its gradient is exactly
      ``O - E``. Iterates are normalised with :meth:`TMData.normalise_log_linear`, which leaves ``p(c | x)``
      unchanged.
    * log-counts (any other structure): ``s = log T`` with ``theta = softmax(s)`` per slice; gradient
      ``(O - E) - theta * sum_slice(O - E)``.

    Parameters
    ----------
    tmd : TMData
    T : numpy.ndarray of float64, shape (tmd.size,)
        Legal starting counts.
    frozen : numpy.ndarray of bool, shape (tmd.size,)
        Cells that never move (slices without counts at the start).
    coordinates : {"auto", "log_counts"}, default "auto"
        ``"auto"``: log-linear when every block has a host, else log-counts; ``"log_counts"``: always the
        log-counts (same optimum, another path; for diagnostics and tests).
    prior : Prior, optional
        A Gaussian prior on the free variables (before the scaling): the solver then maximises the CLL minus
        ``sum prec (x - mean)^2 / 2`` (in the log-linear coordinates a concave objective whose maximum is finite even
        on separable data), and :meth:`run` returns the objective and the CLL traces.
    """

    def __init__(self, tmd: TMData, T: np.ndarray, frozen: np.ndarray, *, coordinates: str = "auto",
                 prior: Prior | None = None):
        self.tmd = tmd
        O = tmd.observed  # noqa: E741
        self.plan = host_plan(tmd) if coordinates != "log_counts" else None
        self.compiled = compile_host_plan(tmd, self.plan) if self.plan is not None else None
        self._lt = np.empty(tmd.size, dtype=np.float64)
        self._grad = np.empty(tmd.size, dtype=np.float64)
        if self.plan is not None:
            self._x = tmd.log_theta(T)[0]
        else:
            with np.errstate(divide="ignore"):
                self._x = np.log(T)  # legal T (checked by the caller): no NaN; zero counts -> -inf (kept)
        # a single-state child has theta = 1 whatever its counts: leaving its cells out keeps them from acting as
        # duplicate class biases in the log-linear coordinates (same optimum, but a different path)
        constant = np.zeros(tmd.size, dtype=bool)
        for blk in np.flatnonzero(tmd.blk_r == 1):
            if blk > 0:
                constant[tmd.blk_offsets[blk]:tmd.blk_offsets[blk + 1]] = True
        self.free = np.flatnonzero(np.isfinite(self._x) & ~frozen & ~constant)
        self.scale = tmd.slice_totals(T)[tmd.slice_ids]  # counts of the result: theta times the starting totals
        # the scale comes from the data (observed counts, at least the smallest positive one), not from the
        # starting point: a warm start with a near-zero count would otherwise get huge steps in that cell
        pos = O[O > 0]
        base = np.maximum(O[self.free], pos.min() if pos.size else 1.0)
        fisher = base ** (2 * _SCALE_POWER["log_linear" if self.plan is not None else "log_counts"])
        # the Gaussian prior on the free unnormalised log-parameters (both coordinate systems): its precision and
        # its centre, in this solver's coordinates
        self.prec = self.centre = None
        if prior is not None and prior.strength > 0:
            prec = prior.precision(tmd, self.plan is not None)[self.free]
            if np.any(prec > 0):
                self.prec = prec
                self.centre = prior.centre(tmd, log_linear=self.plan is not None)[self.free]
                # the prior adds its precision to the diagonal of the Hessian: scaling by it too cut the L-BFGS
                # iterations 2-6x (splice, soybean, chess, letter, australian, vehicle; NB and TAN)
                fisher = fisher + prec
        self.d = np.sqrt(fisher)
        self.n_evaluations = 0
        self._last = (None, 0.0)  # (z, CLL) of the last evaluation (the callback reports the CLL it reached)

    def _penalty_and_gradient(self, diff: np.ndarray) -> tuple[float, np.ndarray]:
        """``(sum prec diff^2 / 2, prec diff)`` at ``diff = x - mean`` on the free cells."""
        pg = self.prec * diff
        return 0.5 * float(np.dot(pg, diff)), pg

    def penalty(self, z: np.ndarray) -> float:
        """The prior's penalty at the scaled free variables ``z`` (0 without a prior)."""
        if self.prec is None:
            return 0.0
        return self._penalty_and_gradient(z / self.d - self.centre)[0]

    def negative_cll(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        """``(-objective, -gradient)`` at the scaled free variables ``z`` (``(inf, 0)`` when illegal); the objective
        is the CLL minus the prior's penalty."""
        tmd, x, free, d = self.tmd, self._x, self.free, self.d
        x[free] = z / d
        self.n_evaluations += 1
        if self.plan is not None:
            ev = tmd.evaluate(None, expected=True, log_theta=x)
        else:
            legal = tmd.log_theta_from_log_counts(x, out=self._lt)[1]
            ev = tmd.evaluate(None, expected=True, log_theta=self._lt) if legal else None
        if ev is None or not np.isfinite(ev.cll):
            return np.inf, np.zeros(free.size)
        if self.plan is not None:
            np.subtract(tmd.observed, ev.expected, out=self._grad)
        else:
            tmd.log_count_gradient(tmd.observed - ev.expected, self._lt, out=self._grad)
        self._last = (np.array(z, dtype=np.float64), ev.cll)  # a copy: scipy may reuse its buffer
        if self.prec is None:
            return -ev.cll, -self._grad[free] / d
        pen, pg = self._penalty_and_gradient(x[free] - self.centre)
        return -ev.cll + pen, (pg - self._grad[free]) / d

    def cll_of(self, z: np.ndarray) -> float:
        """Training CLL at ``z`` (from the last evaluation when it was at ``z``)."""
        last_z, cll = self._last
        if last_z is not None and np.array_equal(last_z, z):
            return float(cll)
        self._x[self.free] = z / self.d
        return float(self.tmd.evaluate(None, log_theta=self.log_theta_of(z).copy()).cll)

    def log_theta_of(self, z: np.ndarray) -> np.ndarray:
        """Normalised log-parameters of the iterate ``z`` (a view of an internal buffer)."""
        self._x[self.free] = z / self.d
        if self.plan is not None:
            return self.tmd.normalise_log_linear(self._x, self.compiled, self._lt)
        return self.tmd.log_theta_from_log_counts(self._x, out=self._lt)[0]

    def counts_of(self, z: np.ndarray) -> np.ndarray:
        """Counts of the iterate ``z``: ``theta`` times the starting slice totals."""
        return np.exp(self.log_theta_of(z)) * self.scale

    def in_range(self, z: np.ndarray) -> bool:
        """Whether every free parameter of ``z`` is at least ``exp(_LOG_THETA_MIN)``."""
        return bool(np.min(self.log_theta_of(z)[self.free], initial=0.0) >= _LOG_THETA_MIN)

    def run(self, cll0: float, *, tol: float, max_iter: int, t_start: float,
            callback: Callable | None = None) -> SolverRun:
        """Iterate from the start (CLL ``cll0``) until the ``tol`` rule, ``max_iter``, a stalled line search or the
        range guard; ``callback(iteration, flat_counts, cll)`` after every iteration."""
        from scipy.optimize import minimize

        z0 = self._x[self.free] * self.d
        trace, steps, elapsed = [cll0 - self.penalty(z0)], [], [time.perf_counter() - t_start]
        clls = [cll0]
        self.z, self.reason = z0, None

        def on_iteration(intermediate_result):
            z = np.array(intermediate_result.x, dtype=np.float64)
            c = -float(intermediate_result.fun)  # the objective (the CLL without a prior)
            if not c >= trace[-1]:  # never record a decrease (L-BFGS-B's line search ensures one; belt and braces)
                self.reason = "stalled"
                raise StopIteration
            if not self.in_range(z):  # keep only iterates every parameter of which a float64 CPT can hold
                self.reason = "range"
                raise StopIteration
            steps.append(float(np.linalg.norm(z - self.z)))
            change = c - trace[-1]
            trace.append(c)
            clls.append(c if self.prec is None else self.cll_of(z))
            elapsed.append(time.perf_counter() - t_start)
            self.z = z
            if callback is not None:
                callback(len(steps), self.counts_of(z), clls[-1])
            if abs(change) < tol or change == 0.0:
                self.reason = "tol"
                raise StopIteration
            if len(steps) >= max_iter:
                self.reason = "max_iter"
                raise StopIteration

        if max_iter > 0 and self.free.size:
            with _ONE_BLAS_THREAD:
                res = minimize(self.negative_cll, z0, jac=True, method="L-BFGS-B", callback=on_iteration,
                               options={"maxiter": int(max_iter) + 1, "maxfun": 50 * int(max_iter) + 100,
                                        "ftol": 0.0, "gtol": 0.0, "maxls": 50, "maxcor": _LBFGS_MEMORY})
            reason = self.reason
            if reason is None:  # L-BFGS-B stopped by itself: zero gradient (0), budget (1) or failed line search (2)
                reason = {0: "tol", 1: "max_iter"}.get(int(res.status), "stalled")
        else:
            reason = "max_iter" if max_iter == 0 and self.free.size else "tol"
        return SolverRun(self.counts_of(self.z), clls, steps, elapsed, self.n_evaluations + 1, reason,
                         reason in ("tol", "stalled", "range"), None if self.prec is None else trace)
