"""The one iterative-fit driver (``iterate``), the restart runner (``run_starts``) and the random start
(``dirichlet_tables``) that every EM-type learner runs on."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext.utils import dirichlet_tables, iterate, relative_change, run_starts


class _Halve:
    """p -> (p + 1) / 2: the iterates approach 1; the objective -(p - 1)^2 rises towards 0. Counts the steps."""

    def __init__(self):
        self.n_e = self.n_m = 0

    def e_step(self, p):
        self.n_e += 1
        return p, -((p - 1.0) ** 2)

    def m_step(self, stats, p):
        self.n_m += 1
        return (stats + 1.0) / 2.0


def test_params_criterion_stops_at_the_first_small_step():
    steps = _Halve()
    fit = iterate(steps, 0.0, tol=0.1, max_iter=50, criterion="params")
    # steps 0.5, 0.25, 0.125, 0.0625: the fourth is the first <= 0.1
    assert (fit.n_iter, fit.converged) == (4, True)
    assert fit.params == pytest.approx(0.9375)
    assert_allclose(fit.trace, [-((p - 1) ** 2) for p in (0, 0.5, 0.75, 0.875, 0.9375)])
    assert fit.objective == fit.trace[-1]
    assert (steps.n_m, steps.n_e) == (4, 5)  # an E step per iterate, the start's included


class _Shifted(_Halve):
    """The same iterates with the objective -1 - (p - 1)^2: -2, -1.25, -1.0625, ... (relative changes 0.6, 0.18,
    0.047, 0.012, ...)."""

    def e_step(self, p):
        return p, -1.0 - (p - 1.0) ** 2


def test_objective_criterion_is_relative_to_the_new_value():
    fit = iterate(_Shifted(), 0.0, tol=0.05, max_iter=50, criterion="objective")
    t = fit.trace
    changes = [abs(t[i + 1] - t[i]) / abs(t[i + 1]) for i in range(len(t) - 1)]
    assert changes[-1] <= 0.05 < min(changes[:-1])
    assert (fit.n_iter, fit.converged) == (3, True)


def test_max_iter_caps_the_m_steps_and_reports_no_convergence():
    fit = iterate(_Halve(), 0.0, tol=1e-12, max_iter=3, criterion="params")
    assert (fit.n_iter, fit.converged, len(fit.trace)) == (3, False, 4)
    zero = iterate(_Halve(), 0.0, tol=1e-12, max_iter=0)
    assert (zero.n_iter, zero.converged, zero.trace.tolist()) == (0, False, [-1.0])


def test_tol_none_runs_exactly_max_iter_steps():
    fit = iterate(_Halve(), 0.0, tol=None, max_iter=7)
    assert (fit.n_iter, fit.converged) == (7, False)


def test_a_start_from_statistics_counts_its_first_m_step():
    steps = _Halve()
    fit = iterate(steps, None, stats=0.0, tol=None, max_iter=3)
    assert fit.n_iter == 3
    assert len(fit.trace) == 3  # no objective for the statistics themselves
    assert fit.trace[0] == pytest.approx(-0.25)


def test_any_of_several_rules_stops_the_run():
    one = iterate(_Halve(), 0.0, tol=0.1, max_iter=50, criterion="params")
    both = iterate(_Halve(), 0.0, tol=(1e-12, 0.1), max_iter=50, criterion=("objective", "params"))
    assert both.n_iter == one.n_iter
    none_active = iterate(_Halve(), 0.0, tol=(None, None), max_iter=5, criterion=("objective", "params"))
    assert none_active.n_iter == 5


class _FixedAfter:
    """An M step that returns its input (a fixed point) once ``k`` steps were taken."""

    def __init__(self, k):
        self.k = k

    def e_step(self, p):
        return p, float(p)

    def m_step(self, stats, p):
        return p if p >= self.k else p + 1


def test_an_m_step_returning_its_input_is_a_fixed_point():
    fit = iterate(_FixedAfter(3), 0, tol=None, max_iter=10)
    assert (fit.n_iter, fit.converged, fit.trace.tolist()) == (3, True, [0.0, 1.0, 2.0, 3.0])


def test_callback_sees_every_iterate():
    seen = []
    iterate(_Halve(), 0.0, tol=None, max_iter=3, callback=lambda it, p, s, obj: seen.append((it, p)))
    assert seen == [(0, 0.0), (1, 0.5), (2, 0.75), (3, 0.875)]


def test_flat_hook_chooses_what_the_params_criterion_measures():
    class Tuple(_Halve):
        def e_step(self, p):
            return p, 0.0

        def m_step(self, stats, p):
            return (p[0] / 2.0, p[1] + 1.0)  # the second entry moves by 1 every time

    assert iterate(Tuple(), (1.0, 0.0), tol=0.1, max_iter=20, criterion="params").n_iter == 20

    class OnlyFirst(Tuple):
        @staticmethod
        def flat(p):
            return np.array([p[0]])

    assert iterate(OnlyFirst(), (1.0, 0.0), tol=0.1, max_iter=20, criterion="params").n_iter == 4


def test_bad_criterion_is_refused():
    with pytest.raises(ValueError, match=r"criterion == 'loglike', must be one of \('objective', 'params'\)"):
        iterate(_Halve(), 0.0, tol=0.1, max_iter=5, criterion="loglike")


def test_relative_change():
    assert relative_change(-100.0, -101.0) == pytest.approx(0.01)
    assert relative_change(0.0, 0.0) == 0.0
    assert relative_change(0.0, 1.0) == np.inf


# ------------------------------------------------------------------------------------------------- run_starts
class _Draw:
    """A start that draws one uniform from its generator (picklable, for the process backend)."""

    def __call__(self, rng):
        return float(rng.random())


def _indexed(i, rng):
    return i, float(rng.random())


@pytest.mark.parametrize("prefer", ["processes", "threads"])
def test_run_starts_same_seed_same_result_for_n_jobs_1_and_2(prefer):
    serial = run_starts(_Draw(), 5, 3)
    assert serial == [float(c.random()) for c in np.random.default_rng(3).spawn(5)]
    assert run_starts(_Draw(), 5, 3, n_jobs=2, prefer=prefer) == serial
    assert run_starts(_Draw(), 8, 3)[:5] == serial  # adding starts does not change the others
    assert run_starts(_Draw(), 5, np.random.default_rng(3)) == serial  # a Generator seeds the same way


def test_run_starts_indexed_passes_the_run_index():
    out = run_starts(_indexed, 3, 0, indexed=True)
    assert [i for i, _ in out] == [0, 1, 2]
    assert [v for _, v in out] == run_starts(_Draw(), 3, 0)


# ------------------------------------------------------------------------------------------------- random start
def test_dirichlet_tables_per_table_is_numpys_dirichlet_column_by_column():
    got = dirichlet_tables(np.random.default_rng(7), [(3, 1), (4, 3)])
    rng = np.random.default_rng(7)
    assert_array_equal(got[0], rng.dirichlet(np.ones(3), size=1).T)
    assert_array_equal(got[1], rng.dirichlet(np.ones(4), size=3).T)


def test_dirichlet_tables_stacked_is_one_gamma_draw_per_column_width():
    got = dirichlet_tables(np.random.default_rng(8), [(2, 3), (4, 3), (3, 1)], stacked=True)
    rng = np.random.default_rng(8)
    g = rng.standard_gamma(1.0, size=(6, 3))
    c = rng.standard_gamma(1.0, size=3)
    assert_allclose(got[0], g[:2] / g[:2].sum(axis=0), rtol=1e-15)
    assert_allclose(got[1], g[2:] / g[2:].sum(axis=0), rtol=1e-15)
    assert_array_equal(got[2][:, 0], c / c.sum())
    for t in got:
        assert_allclose(t.sum(axis=0), 1.0, rtol=1e-14)


# ------------------------------------------------------------------------------------------------- SQUAREM
class _BinomialMixtureEM:
    """EM for a two-component binomial mixture (20 trials per row): parameters ``(p (2,), w (2,))``; objective the
    log-likelihood. Slow to converge when the components overlap, which is what SQUAREM is for."""

    def __init__(self, x, n=20):
        self.x, self.n = np.asarray(x, dtype=float), n
        self.n_e = self.n_m = 0
        self.projected = 0

    def e_step(self, params):
        self.n_e += 1
        p, w = params
        logj = (np.log(w)[None, :] + self.x[:, None] * np.log(p)[None, :]
                + (self.n - self.x[:, None]) * np.log1p(-p)[None, :])
        mx = logj.max(axis=1, keepdims=True)
        lse = mx[:, 0] + np.log(np.exp(logj - mx).sum(axis=1))
        return np.exp(logj - lse[:, None]), float(lse.sum())

    def m_step(self, resp, params):
        self.n_m += 1
        nk = resp.sum(axis=0)
        return (resp.T @ self.x) / (self.n * nk), nk / nk.sum()

    @staticmethod
    def flat(params):
        return np.concatenate(params)

    @staticmethod
    def unflat(x, params):
        return x[:2].copy(), x[2:].copy()

    def project(self, params):
        self.projected += 1
        p, w = params
        w = np.clip(w, 1e-6, None)
        return np.clip(p, 1e-6, 1 - 1e-6), w / w.sum()


def _binomial_data():
    rng = np.random.default_rng(0)
    z = rng.random(400) < 0.4
    return np.where(z, rng.binomial(20, 0.45, 400), rng.binomial(20, 0.55, 400))


def test_squarem_reaches_the_plain_fixed_point_in_fewer_m_steps():
    start = (np.array([0.3, 0.7]), np.array([0.5, 0.5]))
    plain_steps, fast_steps = _BinomialMixtureEM(_binomial_data()), _BinomialMixtureEM(_binomial_data())
    plain = iterate(plain_steps, start, tol=1e-12, max_iter=20000, criterion="params")
    fast = iterate(fast_steps, start, tol=1e-12, max_iter=20000, criterion="params", accelerate="squarem")
    assert plain.converged
    assert fast.converged
    assert_allclose(np.concatenate(fast.params), np.concatenate(plain.params), atol=1e-7)
    assert fast.objective >= plain.objective - 1e-8
    assert fast_steps.n_m < plain_steps.n_m / 5  # hundreds of plain M steps, tens accelerated
    assert fast_steps.projected > 0
    assert len(fast.trace) == fast.n_iter + 1
    assert np.all(np.diff(fast.trace) >= -1e-9)  # the safeguard keeps the log-likelihood from falling


class _Marked(tuple):
    """Parameters that come from an extrapolation (or from the M step that follows one)."""


class _RefuseExtrapolation(_BinomialMixtureEM):
    """The same EM whose objective drops by 1e6 at every point an extrapolation led to: each cycle must fall back
    to the plain iterate, so the run ends where plain EM ends, with a log-likelihood that never falls."""

    def e_step(self, params):
        resp, ll = super().e_step(params)
        return resp, ll - 1e6 * isinstance(params, _Marked)

    def m_step(self, resp, params):
        new = super().m_step(resp, params)
        return _Marked(new) if isinstance(params, _Marked) else new

    @staticmethod
    def unflat(x, params):
        return _Marked((x[:2].copy(), x[2:].copy()))

    def project(self, params):
        return _Marked(super().project(params))


def test_squarem_falls_back_to_the_plain_iterate_when_the_extrapolation_loses():
    start = (np.array([0.3, 0.7]), np.array([0.5, 0.5]))
    plain = iterate(_BinomialMixtureEM(_binomial_data()), start, tol=1e-10, max_iter=20000, criterion="params")
    fit = iterate(_RefuseExtrapolation(_binomial_data()), start, tol=1e-10, max_iter=20000, criterion="params",
                  accelerate="squarem")
    assert not isinstance(fit.params, _Marked)
    assert np.all(np.diff(fit.trace) >= -1e-9)
    assert_allclose(np.concatenate(fit.params), np.concatenate(plain.params), atol=1e-6)


def test_squarem_needs_unflat_and_a_known_accelerator():
    with pytest.raises(ValueError, match=r"accelerate='squarem' needs steps.unflat"):
        iterate(_Halve(), 0.0, tol=0.1, max_iter=5, accelerate="squarem")
    with pytest.raises(ValueError, match=r"accelerate == 'anderson', must be one of \(None, 'squarem'\)"):
        iterate(_Halve(), 0.0, tol=0.1, max_iter=5, accelerate="anderson")


def test_squarem_respects_max_iter():
    start = (np.array([0.3, 0.7]), np.array([0.5, 0.5]))
    for cap in (1, 2, 3, 7):
        fit = iterate(_BinomialMixtureEM(_binomial_data()), start, tol=None, max_iter=cap, accelerate="squarem")
        assert fit.n_iter <= cap
        assert not fit.converged
