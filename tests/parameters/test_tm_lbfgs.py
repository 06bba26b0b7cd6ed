"""``solver="lbfgs"`` of the TM engine (without the default prior): same objective, model, zeros and optima as the
thesis's iteration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import pgmpy_ext.parameters._tm_solvers as solvers_mod
from pgmpy_ext._compat import DiscreteBayesianNetwork
from pgmpy_ext._core import _tm
from pgmpy_ext.classifiers import StructuralTMClassifier, TANClassifier
from pgmpy_ext.data import encode
from pgmpy_ext.models import BatchPosterior
from pgmpy_ext.parameters import TMEstimator, fit_tm
from pgmpy_ext.parameters._tm import _TMTables
from pgmpy_ext.parameters._tm_solvers import compile_host_plan, host_plan
from pgmpy_ext.stats import TMData
from pgmpy_ext.structure import fit_structural_tm, fit_tan
from tests.parameters.test_tm import (
    corral_like,
    lr_optimum,
    mofn_cube,
    nb_parents,
    noisy_multinomial,
    onehot,
    pair_onehot,
)

FEATS = ["X0", "X1", "X2", "X3"]
#: The objective these tests check: the thesis's CLL from maximum likelihood, without the default prior.
NOPRIOR = {"alpha": 0.0, "prior_strength": 0.0}
BAN = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X0", "X1"], "X3": ["C", "X2", "X1", "X0"],
       "X4": ["C"], "X5": ["C", "X4", "X3"]}


def corral_frame(n=128, seed=2):
    X, y = corral_like(n=n, seed=seed)
    return pd.DataFrame({"C": y, **{f"X{i}": X[:, i] for i in range(6)}})


@pytest.fixture(params=["log_linear", "log_counts"])
def coords(request):
    """Both coordinate systems of the solver (log-counts is the fallback for structures without hosts): the
    ``coordinates`` option of ``fit_tm``."""
    return "log_counts" if request.param == "log_counts" else "auto"


# ---------------------------------------------------------------------------------------------- kernels
def _random_tmdata(seed, K=3):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, (150, 4)).astype(np.int32)
    y = rng.integers(0, K, 150)
    return TMData.build(codes, y, [3, 3, 3, 3], K, [(0, ()), (1, (0,)), (2, (0, 1)), (3, ())]), rng


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_log_softmax_equals_log_theta_of_counts(seed):
    d, rng = _random_tmdata(seed)
    T = d.observed * rng.uniform(0.5, 2.0, d.size)
    lt, legal = d.log_theta(T)
    with np.errstate(divide="ignore"):
        ls, legal2 = d.log_theta_from_log_counts(np.log(T) + 3.7)  # a common shift cancels
    assert legal
    assert legal2
    assert np.array_equal(np.isfinite(lt), np.isfinite(ls))
    fin = np.isfinite(lt)
    assert_allclose(ls[fin], lt[fin], rtol=0, atol=1e-12)
    assert np.all(ls[~fin] == -np.inf)


def test_log_softmax_empty_slice_is_uniform_and_illegal_values():
    d, _ = _random_tmdata(0)
    s = np.zeros(d.size)
    b = d.block(s, 3)  # (x2, x0, x1, c)
    b[:, 1, 2, 0] = -np.inf
    lt, legal = d.log_theta_from_log_counts(s)
    assert legal
    assert_allclose(d.block(lt, 3)[:, 1, 2, 0], -np.log(3))
    for bad in (np.nan, np.inf):
        s2 = s.copy()
        s2[5] = bad
        assert not d.log_theta_from_log_counts(s2)[1]
    s3 = s.copy()
    s3[:3] = -np.inf  # every class impossible
    assert not d.log_theta_from_log_counts(s3)[1]


def test_tm_observed_kernel_checks_offsets():
    d, _ = _random_tmdata(1)
    out = np.zeros(d.size)
    _tm.tm_observed(d.idx, d.W, out)
    assert_allclose(out, d.observed)
    with pytest.raises(ValueError, match="outside"):
        _tm.tm_observed(d.idx, d.W, np.zeros(d.size - 3))
    with pytest.raises(ValueError, match="rows"):
        _tm.tm_observed(d.idx, d.W[:5].copy(), out)


@pytest.mark.parametrize("seed", [0, 3])
def test_log_count_gradient_matches_finite_differences(seed):
    d, rng = _random_tmdata(seed)
    s = np.log(d.observed + 0.5) + rng.normal(0, 0.3, d.size)

    def cll(v):
        return d.evaluate(None, log_theta=d.log_theta_from_log_counts(v)[0]).cll

    lt = d.log_theta_from_log_counts(s)[0]
    ev = d.evaluate(None, expected=True, log_theta=lt)
    g = d.log_count_gradient(d.observed - ev.expected, lt)
    h = 1e-6
    for j in rng.choice(d.size, 25, replace=False):
        e = np.zeros(d.size)
        e[j] = h
        assert_allclose(g[j], (cll(s + e) - cll(s - e)) / (2 * h), rtol=1e-5, atol=1e-6)


def test_log_linear_gradient_is_observed_minus_expected():
    d, rng = _random_tmdata(4)
    beta = rng.normal(0, 1, d.size)
    ev = d.evaluate(None, expected=True, log_theta=beta)
    h = 1e-6
    for j in rng.choice(d.size, 20, replace=False):
        e = np.zeros(d.size)
        e[j] = h
        fd = (d.evaluate(None, log_theta=beta + e).cll - d.evaluate(None, log_theta=beta - e).cll) / (2 * h)
        assert_allclose(d.observed[j] - ev.expected[j], fd, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------- log-linear -> BN
@pytest.mark.parametrize("structure", ["nb", "tan", "fan", "kdb2_hosted"])
def test_normalising_log_linear_weights_keeps_every_posterior(structure):
    df = noisy_multinomial(seed=6)
    data = encode(df)
    pa = {"nb": nb_parents(FEATS),
          "tan": {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X1"]},
          "fan": {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C"], "X3": ["C", "X2"]},
          # X3 has parents {X1, X2} and X2's family {X2, X1} contains both: hosted
          "kdb2_hosted": {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X1", "X2"]},
          }[structure]
    tmd = _TMTables(data, "C", pa, None).tmd
    plan = host_plan(tmd)
    assert plan is not None
    rng = np.random.default_rng(0)
    beta = rng.normal(0, 2, tmd.size)
    out = np.empty(tmd.size)
    tmd.normalise_log_linear(beta, compile_host_plan(tmd, plan), out)
    p_beta = tmd.evaluate(None, posterior=True, log_theta=beta).posterior
    p_norm = tmd.evaluate(None, posterior=True, log_theta=out).posterior
    assert_allclose(p_norm, p_beta, rtol=0, atol=1e-12)
    sums = np.bincount(tmd.slice_ids, weights=np.exp(out), minlength=tmd.n_slices)
    assert_allclose(sums, 1.0, atol=1e-12)


def test_structure_without_hosts_uses_log_counts():
    data = encode(corral_frame())
    # X5 | C, X4, X3: no family contains both X4 and X3
    assert host_plan(_TMTables(data, "C", BAN, None).tmd) is None
    assert host_plan(_TMTables(data, "C", nb_parents([f"X{i}" for i in range(6)]), None).tmd) is not None


# ---------------------------------------------------------------------------------------------- solver
@pytest.mark.parametrize("case", ["nb_multinomial", "tan_multinomial", "nb_mofn", "ban_corral", "alpha"])
def test_lbfgs_cll_never_decreases_and_beats_ml(case):
    alpha = 0.0
    if case == "nb_multinomial":
        df, pa = noisy_multinomial(), nb_parents(FEATS)
    elif case == "tan_multinomial":
        df = noisy_multinomial(seed=3)
        pa = {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X1"]}
    elif case == "nb_mofn":
        df, pa = mofn_cube(), nb_parents([f"X{i}" for i in range(10)])
    elif case == "ban_corral":
        df, pa = corral_frame(), BAN
    else:
        df, pa, alpha = noisy_multinomial(seed=5), nb_parents(FEATS), 1.0
    res = fit_tm(encode(df), "C", pa, solver="lbfgs", max_iter=300, alpha=alpha, prior_strength=0.0, warn=False)
    assert res.solver == "lbfgs"
    assert np.all(np.diff(res.cll_trace) >= 0.0)
    assert res.cll > res.cll_ml
    assert res.n_iter == len(res.step_sizes) == len(res.cll_trace) - 1 > 0
    assert np.all(res.step_sizes > 0)
    if case == "nb_mofn":
        assert res.cll > res.cll_ml + 200
    # the reported CLL is the CLL of the returned counts
    lay = _TMTables(encode(df), "C", pa, None)
    flat = lay.from_tables(res.tables(), lay.tmd.observed)
    assert_allclose(lay.tmd.evaluate(flat).cll, res.cll, rtol=1e-10, atol=1e-10)


def test_lbfgs_reaches_logistic_regression_optimum_nb(coords):
    data = encode(noisy_multinomial())
    res = fit_tm(data, "C", nb_parents(FEATS), solver="lbfgs", **NOPRIOR, tol=1e-10, max_iter=5000, coordinates=coords)
    opt = lr_optimum(onehot(data, FEATS), data.codes[:, data.index("C")])
    assert res.converged
    assert abs(res.cll - opt) <= 1e-6 * abs(opt)
    assert res.cll <= opt + 1e-6


def test_lbfgs_reaches_logistic_regression_optimum_tan(coords):
    data = encode(noisy_multinomial(seed=3))
    tan = fit_tan(data, "C")
    res = fit_tm(data, "C", tan.parent_sets(), solver="lbfgs", **NOPRIOR, tol=1e-10, max_iter=5000, coordinates=coords)
    F = np.hstack([onehot(data, FEATS)] + [pair_onehot(data, p, c) for p, c in tan.augmenting_edges()])
    opt = lr_optimum(F, data.codes[:, data.index("C")])
    assert abs(res.cll - opt) <= 1e-6 * abs(opt)


def test_lbfgs_and_tm_agree_and_lbfgs_needs_fewer_evaluations():
    data = encode(noisy_multinomial(seed=7))
    tm = fit_tm(data, "C", nb_parents(FEATS), line_search="backtracking", tol=1e-9, max_iter=20_000, solver="tm",
                alpha=0.0)
    lb = fit_tm(data, "C", nb_parents(FEATS), solver="lbfgs", **NOPRIOR, tol=1e-9, max_iter=20_000)
    assert_allclose(lb.cll, tm.cll, rtol=1e-6)
    # the fitted posteriors of a (non-separable) logistic-regression optimum are unique: both solvers give them
    lay = _TMTables(data, "C", nb_parents(FEATS), None)
    post = [lay.tmd.evaluate(lay.from_tables(r.tables(), lay.tmd.observed), posterior=True).posterior
            for r in (tm, lb)]
    assert_allclose(post[1], post[0], atol=1e-4)
    assert lb.n_evaluations < tm.n_evaluations


def test_lbfgs_keeps_zero_cells_and_empty_slices(coords):
    df = corral_frame(n=40, seed=2)
    pa = dict(BAN, X4=[])  # X4 not a child of the class: empty parent configurations elsewhere
    seen = []
    res = fit_tm(encode(df), "C", pa, solver="lbfgs", **NOPRIOR, max_iter=200, warn=False, coordinates=coords,
                 callback=lambda it, T, cll: seen.append(T))
    assert seen
    zeros = {k: o == 0 for k, o in res.observed.items()}
    assert sum(int(z.sum()) for z in zeros.values()) > 0
    for T in [*seen, res.counts]:
        for k, z in zeros.items():
            assert np.all(T[k][z] == 0.0)
            assert np.all(T[k] >= 0.0)
    empty = {k: (o.sum(axis=0) == 0) for k, o in res.observed.items() if k != "C"}
    assert any(e.any() for e in empty.values())
    for k, e in empty.items():
        assert_allclose(res.tables()[k][:, e], 1.0 / res.counts[k].shape[0])


def test_lbfgs_class_without_data_stays_at_zero():
    df = noisy_multinomial(K=3)
    df = df[df["C"] != 1]
    res = fit_tm(encode(df, states={"C": [0, 1, 2]}), "C", nb_parents(["X0", "X1"]), solver="lbfgs", **NOPRIOR,
                 tol=1e-6)
    assert res.counts["C"][1] == 0.0
    assert np.all(res.counts["X0"][:, 1] == 0.0)
    assert res.cll > res.cll_ml


def test_lbfgs_max_iter_zero_and_warning():
    data = encode(noisy_multinomial())
    res = fit_tm(data, "C", nb_parents(FEATS), solver="lbfgs", **NOPRIOR, max_iter=0)
    assert res.n_iter == 0
    assert res.stop_reason == "max_iter"
    assert res.cll == res.cll_ml
    with pytest.warns(Warning, match="max_iter=3"):
        res = fit_tm(data, "C", nb_parents(FEATS), solver="lbfgs", **NOPRIOR, max_iter=3, tol=0.0)
    assert res.n_iter == 3
    assert not res.converged
    with pytest.raises(ValueError, match="solver"):
        fit_tm(data, "C", nb_parents(FEATS), solver="newton")


def test_lbfgs_already_optimal_stops_at_once():
    rng = np.random.default_rng(0)
    c = rng.integers(0, 2, 200)
    df = pd.DataFrame({"C": c, "A": c, "B": rng.integers(0, 2, 200)})  # A separates: ML CLL is 0
    res = fit_tm(encode(df), "C", nb_parents(["A", "B"]), solver="lbfgs", **NOPRIOR)
    assert res.cll == 0.0
    assert res.n_iter == 0
    assert res.converged


def test_lbfgs_warm_start_from_its_own_result_stops_quickly():
    data = encode(noisy_multinomial(seed=8))
    pa = nb_parents(FEATS)
    first = fit_tm(data, "C", pa, solver="lbfgs", **NOPRIOR, tol=1e-8, max_iter=5000)
    again = fit_tm(data, "C", pa, solver="lbfgs", **NOPRIOR, tol=1e-8, init=first.counts)
    assert_allclose(again.cll_ml, first.cll, rtol=1e-12)
    assert again.n_iter <= 5


def test_tm_estimator_lbfgs_in_pgmpy_matches_predict_proba():
    df = noisy_multinomial(seed=9)
    bn = DiscreteBayesianNetwork([("C", f) for f in FEATS] + [("X0", "X1")])
    est = TMEstimator(class_node="C", solver="lbfgs", **NOPRIOR)
    fitted = bn.copy().fit(df, estimator=est)
    assert est.get_params()["solver"] == "lbfgs"
    p = BatchPosterior(fitted, "C").predict_proba(df)
    cls = BatchPosterior(fitted, "C").classes
    cll = np.log(p[np.arange(len(df)), [cls.index(v) for v in df["C"]]]).sum()
    assert_allclose(cll, est.cll_trace_[-1], rtol=1e-9)
    tan = TANClassifier(estimator=TMEstimator(solver="lbfgs", **NOPRIOR)).fit(df[FEATS], df["C"])
    assert tan.estimator_.result_.solver == "lbfgs"
    assert tan.estimator_.cll_trace_[-1] > tan.estimator_.cll_trace_[0]


def test_structural_tm_with_lbfgs_selects_the_same_structure():
    df = noisy_multinomial(seed=10)
    data = encode(df)
    a = fit_structural_tm(data, "C", line_search="backtracking", tol=1e-6, solver="tm", alpha=0.0)
    b = fit_structural_tm(data, "C", solver="lbfgs", **NOPRIOR, tol=1e-6)
    assert a.parents == b.parents
    assert_allclose(b.trace["cll"], a.trace["cll"], rtol=1e-4)
    clf = StructuralTMClassifier(solver="lbfgs", **NOPRIOR, tol=1e-6).fit(df[FEATS], df["C"])
    assert clf.structure_.parents == b.parents
    assert clf.n_iter_ == clf.estimator_.n_iter_


def test_single_state_feature_changes_nothing():
    """A one-state child has theta = 1: with or without it the solver takes the same path (structural TM relies on
    it: such an arc must not look like a strict improvement)."""
    df = noisy_multinomial(seed=11)
    data = encode(df.assign(K=0))
    a = fit_tm(data, "C", nb_parents(FEATS), solver="lbfgs", **NOPRIOR, tol=1e-9, max_iter=500)
    b = fit_tm(data, "C", nb_parents([*FEATS, "K"]), solver="lbfgs", **NOPRIOR, tol=1e-9, max_iter=500)
    assert a.n_iter == b.n_iter
    assert_allclose(b.cll_trace, a.cll_trace, rtol=1e-12)
    assert_allclose(b.tables()["K"], 1.0)


def test_lbfgs_range_guard_stops_before_a_parameter_underflows(monkeypatch):
    """On separable data the optimum is at infinity: lbfgs stops ("range", with a ConvergenceWarning) before any
    parameter leaves what a float64 CPT carries through inference, so no observed cell is exported as 0 and a warm
    start from the result is legal. The guard threshold is raised here so that the test reaches it quickly."""
    monkeypatch.setattr(solvers_mod, "_LOG_THETA_MIN", -8.0)
    data = encode(mofn_cube())
    pa = nb_parents([f"X{i}" for i in range(10)])
    lay = _TMTables(data, "C", pa, None)
    with pytest.warns(Warning, match="separable"):
        res = fit_tm(data, "C", pa, solver="lbfgs", **NOPRIOR, tol=0.0, max_iter=5000)
    assert res.stop_reason == "range"
    assert res.converged
    assert res.n_iter > 0
    assert res.n_iter == len(res.step_sizes) == len(res.cll_trace) - 1
    assert np.all(np.diff(res.cll_trace) >= 0)
    assert res.cll > res.cll_ml
    for k, o in res.observed.items():
        assert np.all(res.tables()[k][o > 0] >= np.exp(-8.0) * (1 - 1e-12))
    flat = lay.from_tables(res.tables(), lay.tmd.observed)
    assert_allclose(lay.tmd.evaluate(flat).cll, res.cll, atol=1e-9)
    again = fit_tm(data, "C", pa, solver="lbfgs", **NOPRIOR, init=res.counts, max_iter=5, warn=False)
    assert again.cll_ml == pytest.approx(res.cll, abs=1e-9)


def test_structural_tm_lbfgs_warm_start_on_separable_data():
    """Regression: warm starts from a near-zero count used to get huge steps in that cell (the scaling came from
    the starting counts), which underflowed an observed cell to 0 and made the next warm start illegal."""
    from pgmpy_ext.datasets import make_corral

    X, y = make_corral()
    cold = StructuralTMClassifier(solver="lbfgs", **NOPRIOR).fit(X, y)
    warm = StructuralTMClassifier(solver="lbfgs", **NOPRIOR, warm_start=True).fit(X, y)
    # same optimum up to the tol rule (on separable data a zero-dimension arc can win by optimisation noise)
    assert warm.structure_.trace["cbic"] == pytest.approx(cold.structure_.trace["cbic"], abs=1e-2)
    for res in (warm.estimator_.result_, cold.estimator_.result_):
        for k, o in res.observed.items():
            assert np.all(res.counts[k][o > 0] > 0)


@pytest.mark.parametrize("structure", ["nb", "tan", "kdb2"])
def test_normalisation_kernel_equals_numpy_reference(structure):
    from tests.parameters.reference_tm import normalise_log_linear

    data = encode(noisy_multinomial(seed=12))
    pa = {"nb": nb_parents(FEATS),
          "tan": {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X1"]},
          "kdb2": {"C": [], "X0": ["C"], "X1": ["C", "X0"], "X2": ["C", "X1"], "X3": ["C", "X2", "X1"]}}[structure]
    tmd = _TMTables(data, "C", pa, None).tmd
    plan = host_plan(tmd)
    rng = np.random.default_rng(3)
    beta = rng.normal(0, 3, tmd.size)
    beta[rng.random(tmd.size) < 0.15] = -np.inf
    blk = tmd.block(beta, tmd.n_blocks - 1)
    blk[:, 0, ...] = -np.inf  # whole slices without a finite entry: uniform columns
    ref = normalise_log_linear(tmd, beta, plan, np.empty(tmd.size))
    got = tmd.normalise_log_linear(beta, compile_host_plan(tmd, plan), np.empty(tmd.size))
    assert np.array_equal(np.isfinite(ref), np.isfinite(got))
    fin = np.isfinite(ref)
    assert_allclose(got[fin], ref[fin], rtol=0, atol=1e-12)


def test_lbfgs_blas_limit_is_restored_after_parallel_runs():
    """L-BFGS runs with one BLAS thread; the process-wide limit is restored once the last concurrent run ends (the
    candidates of a structural TM step run in threads)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import scipy.optimize  # noqa: F401  (load scipy's BLAS before reading the limits)

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]

    before = blas_threads()
    data = encode(corral_frame())
    par = fit_structural_tm(data, "C", solver="lbfgs", **NOPRIOR, n_jobs=2)
    assert blas_threads() == before
    seq = fit_structural_tm(data, "C", solver="lbfgs", **NOPRIOR)
    assert par.parents == seq.parents
    assert par.trace["cbic"] == seq.trace["cbic"]
