"""EMA-TAN: kernels against loop references, the closed-form MA step against the explicit average over all
2^n n! structures, the naive-Bayes special case against EMA (spec 4.6), and the scikit-learn face."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.clustering import EMATANClustering, ematan_single_start, prepare_ematan
from pgmpy_ext.models import AveragedTANModel
from pgmpy_ext.stats import (
    TANMixtureLayout,
    TANMixtureParams,
    ematan_accumulate,
    ematan_estep,
    ematan_log_joint,
    ematan_ma_step,
    tan_mixture_constants,
)
from tests.clustering import reference_ematan as ref


def _random_params(lay: TANMixtureLayout, rng) -> TANMixtureParams:
    K = lay.n_clusters
    w = np.concatenate([rng.dirichlet(np.ones(2 * (i + 1))) for i in range(lay.n_vars)])

    def tables(n_cells, r_of_block, shape_blocks):
        return rng.random(n_cells) + 0.05

    return TANMixtureParams(rng.dirichlet(np.ones(K)), w, tables(lay.n_single, None, None),
                            tables(lay.n_pair_cells, None, None), tables(lay.n_single * K, None, None),
                            tables(lay.n_pair_cells * K, None, None))


def _data(cards, n_rows, rng):
    return np.stack([rng.integers(0, c, n_rows) for c in cards], axis=1).astype(np.int32)


@pytest.mark.parametrize(("cards", "K"), [([2, 3, 2], 2), ([3], 3), ([2, 2, 3, 2, 4], 3), ([1, 2], 1)],
                         ids=["n3", "n1", "n5K3", "card1"])
def test_estep_kernel_equals_loop_reference(cards, K):
    rng = np.random.default_rng(len(cards) * 10 + K)
    lay = TANMixtureLayout.build(cards, K)
    X = _data(cards, 40, rng)
    w = rng.random(40) * 3
    params = _random_params(lay, rng)
    tabs = ref.option_tables(cards, K, params.single_ind, params.pair_ind, params.single_dep, params.pair_dep)
    lj = ref.log_joint(cards, K, params.theta_c, params.weights, tabs, X)
    assert_allclose(ematan_log_joint(lay, X, params), lj, rtol=1e-12)
    e = ematan_estep(lay, X, w, params, return_resp=True)
    lse = np.logaddexp.reduce(lj, axis=1)
    assert_allclose(e.loglik, np.sum(w * lse), rtol=1e-12)
    q = np.exp(lj - lse[:, None])
    assert_allclose(e.resp, q, rtol=1e-11)
    single, pair, nc = ref.expected_counts(cards, K, X, w, q)
    cs, cp = ref.flatten_counts(cards, K, single, pair)
    assert_allclose(e.counts_single, cs, rtol=1e-11, atol=1e-13)
    assert_allclose(e.counts_pair, cp, rtol=1e-11, atol=1e-13)
    assert_allclose(e.cluster_counts, nc, rtol=1e-12)
    acc = ematan_accumulate(lay, X, w, q)
    assert_allclose(acc.counts_pair, cp, rtol=1e-11, atol=1e-13)
    # every pair table sums to the total weight
    for p in range(lay.n_pairs):
        lo, hi = lay.pair_off[p] * K, lay.pair_off[p + 1] * K
        assert_allclose(e.counts_pair[lo:hi].sum(), w.sum(), rtol=1e-12)


def test_hand_counts():
    # rows (0, 1) twice and (1, 1) once; K = 1: plain counts
    lay = TANMixtureLayout.build([2, 2], 1)
    res = ematan_accumulate(lay, np.array([[0, 1], [1, 1]]), [2.0, 1.0], np.ones((2, 1)))
    assert res.counts_single.tolist() == [2.0, 1.0, 0.0, 3.0]
    assert res.counts_pair.tolist() == [0.0, 2.0, 0.0, 1.0]  # N_10[a, k]: (0, 1) -> 2, (1, 1) -> 1


@pytest.mark.parametrize("cards", [[2, 2], [2, 3, 2], [3, 2, 2]], ids=["n2", "n3", "n3b"])
def test_ma_step_equals_average_over_all_structures(cards):
    rng = np.random.default_rng(sum(cards))
    K, alpha = 2, 1.0
    n = len(cards)
    lay = TANMixtureLayout.build(cards, K)
    X = _data(cards, 30, rng)
    w = rng.integers(1, 4, 30).astype(float)
    q = rng.dirichlet(np.ones(K), size=30)
    const = tan_mixture_constants(lay, X, w, alpha)
    params = ematan_ma_step(lay, const, ematan_accumulate(lay, X, w, q))
    n_struct, joint, option_post = ref.brute_force_average(cards, K, X, w, q, alpha)
    assert n_struct == 2**n * math.factorial(n)
    grid = np.array(list(itertools.product(*[range(r) for r in cards])), dtype=np.int32)
    ours = np.exp(ematan_log_joint(lay, grid, params))  # (configs, K)
    assert_allclose(ours.T.reshape(joint.shape), joint, rtol=1e-10)
    assert_allclose(ours.sum(), 1.0, rtol=1e-12)
    for i in range(n):
        assert_allclose(params.weights[lay.option_off[i]:lay.option_off[i + 1]], option_post[i], rtol=1e-9,
                        atol=1e-15)


def test_naive_bayes_options_equal_ema_nb():
    """With only the options {} and {C} allowed, EMA-TAN is EMA for (selective) naive Bayes, step by step."""
    rng = np.random.default_rng(3)
    cards, K, alpha = [2, 3, 2, 4], 3, 1.0
    z = rng.integers(0, K, 120)
    X = np.stack([np.where(rng.random(120) < 0.7, z % c, rng.integers(0, c, 120)) for c in cards], 1)
    lay = TANMixtureLayout.build(cards, K)
    allowed = ~np.zeros(lay.n_options, dtype=bool)
    allowed[lay.option_pred >= 0] = False
    data = prepare_ematan(X, cards, K, alpha=alpha, allowed=allowed)
    params = ematan_ma_step(data.layout, data.constants,
                            ematan_accumulate(data.layout, data.codes, data.weights,
                                              rng.dirichlet(np.ones(K), size=data.codes.shape[0])), allowed=allowed)
    model = AveragedTANModel(data.layout, params, list(range(4)), np.arange(4), {i: list(range(c)) for i, c in
                                                                                 enumerate(cards)})
    # (K, r_i): no dependence on X_<i
    theta = [model.complete_table(i)[(slice(None), slice(None)) + (0,) * i].T for i in range(4)]
    theta_c = params.theta_c
    for _ in range(6):
        ll_ref, theta_c_ref, theta_ref, arcs = ref.ema_nb_step(cards, K, data.codes, data.weights, theta_c, theta,
                                                               alpha)
        e = ematan_estep(data.layout, data.codes, data.weights, params)
        assert_allclose(e.loglik, ll_ref, rtol=1e-12)
        params = ematan_ma_step(data.layout, data.constants, e, allowed=allowed)
        model = AveragedTANModel(data.layout, params, list(range(4)), np.arange(4),
                                 {i: list(range(c)) for i, c in enumerate(cards)})
        theta = [model.complete_table(i)[(slice(None), slice(None)) + (0,) * i].T for i in range(4)]
        theta_c = params.theta_c
        assert_allclose(theta_c, theta_c_ref, rtol=1e-12)
        for i in range(4):
            assert_allclose(theta[i], theta_ref[i], rtol=1e-10)
        p_c = [params.weights[lay.option_off[i] + i + 1] for i in range(4)]
        assert_allclose(p_c, arcs, rtol=1e-9)


def test_naive_bayes_options_equal_the_engines_ema():
    """The same, against the latent-class engine's EMA (``latent_class_single_start(method="ema")``) from the same
    initial responsibilities: identical log-likelihood traces and final parameters."""
    from pgmpy_ext.clustering import latent_class_data, latent_class_single_start

    rng = np.random.default_rng(11)
    cards, K = [3, 2, 2, 3, 2], 2
    z = rng.integers(0, K, 200)
    X = np.stack([np.where(rng.random(200) < 0.75, z % c, rng.integers(0, c, 200)) for c in cards], 1)
    resp_rows = rng.dirichlet(np.ones(K), size=200)
    theirs = latent_class_single_start(latent_class_data(X, cards), K, rng, method="ema", init=resp_rows,
                                       max_iter=8, tol=None)
    lay = TANMixtureLayout.build(cards, K)
    allowed = lay.option_pred < 0
    data = prepare_ematan(X, cards, K, allowed=allowed)
    q = np.zeros((data.codes.shape[0], K))
    np.add.at(q, data.inverse, resp_rows)
    mine = ematan_single_start(data, rng, tol=None, max_iter=7, init=q / data.weights[:, None])
    assert_allclose(mine.ll_trace, theirs.ll_trace, rtol=1e-12)
    assert_allclose(mine.params.theta_c, theirs.weights, rtol=1e-12)
    model = AveragedTANModel(data.layout, mine.params, list(range(5)), np.arange(5),
                             {i: list(range(c)) for i, c in enumerate(cards)})
    theta = np.concatenate([model.complete_table(i)[(slice(None), slice(None)) + (0,) * i] for i in range(5)])
    assert_allclose(theta, theirs.theta, rtol=1e-11)
    assert_allclose([mine.params.weights[lay.option_off[i] + i + 1] for i in range(5)], theirs.arc_posterior,
                    rtol=1e-10)


def test_complete_table_is_a_cpd_and_matches_kernel():
    rng = np.random.default_rng(1)
    cards, K = [2, 2, 3], 2  # in the order pi = (c, a, b)
    lay = TANMixtureLayout.build(cards, K)
    X = _data(cards, 50, rng)
    const = tan_mixture_constants(lay, X, None, 1.0)
    params = ematan_ma_step(lay, const, ematan_accumulate(lay, X, None, rng.dirichlet(np.ones(K), size=50)))
    m = AveragedTANModel(lay, params, ["a", "b", "c"], [2, 0, 1], {"a": [0, 1], "b": ["x", "y", "z"], "c": [5, 6]})
    assert m.order_labels == ["c", "a", "b"]
    for f in ["a", "b", "c"]:
        t = m.complete_table(f)
        assert_allclose(t.sum(axis=0), 1.0, rtol=1e-12)
    net = m.to_network()
    net.check_model()
    assert set(net.get_parents("b")) == {"cluster", "c", "a"}
    with pytest.raises(ValueError, match="complete CPT of 'b' has 24 entries"):
        m.to_network(max_cpd_size=10)


# ---------------------------------------------------------------------------------------------- face
def _frame(n=300, seed=0):
    """Five attributes follow the cluster 85% of the time (``d`` has a third, noise-only state); ``b`` copies
    ``a`` 90% of the time."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)

    def follow(p):
        return np.where(rng.random(n) < p, z, 1 - z)

    a = follow(0.85)
    return pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.9, a, 1 - a), "c": follow(0.85),
                         "d": np.where(rng.random(n) < 0.85, z, rng.integers(0, 3, n)), "e": follow(0.85),
                         "f": follow(0.85)}), z


def test_predict_proba_equals_variable_elimination():
    X, _ = _frame(200)
    est = EMATANClustering(2, n_init=2, random_state=1).fit(X)
    est.model_.check_model()
    ve = VariableElimination(est.model_)
    rows = X.drop_duplicates().head(6)
    proba = est.predict_proba(rows)
    for r, (_, row) in enumerate(rows.iterrows()):
        post = ve.query([est.cluster_node_], evidence=row.to_dict(), show_progress=False)
        assert_allclose(proba[r], post.values, rtol=1e-9)
    # one missing cell: summed out exactly (VE without that evidence)
    row = rows.iloc[0].to_dict()
    miss = pd.DataFrame([{**row, "b": None}])
    post = ve.query([est.cluster_node_], evidence={k: v for k, v in row.items() if k != "b"}, show_progress=False)
    assert_allclose(est.predict_proba(miss)[0], post.values, rtol=1e-9)


def test_fit_attributes_and_policies():
    X, z = _frame(300)
    for policy in ("best", "uniform", "averaging"):
        est = EMATANClustering(2, n_init=3, policy=policy, order="columns", random_state=0).fit(X)
        assert est.order_ == ["a", "b", "c", "d", "e", "f"]
        assert_allclose(est.weights_.sum(), 1.0)
        assert_allclose(est.start_weights_.sum(), 1.0)
        ap = est.arc_posterior_
        assert ap.shape == (7, 6)
        assert_allclose(ap.loc["b", "a"], 0.0)  # b does not precede a
        assert ap.loc["a", "b"] > 0.9  # b copies a
        for f, opts in est.option_posterior_.items():
            assert_allclose(sum(opts.values()), 1.0)
        acc = max(np.mean(est.labels_ == z), np.mean(est.labels_ != z))
        assert acc > 0.8
        assert np.isfinite(est.log_likelihood_)
        assert_allclose(est.score(X) * len(X), est.log_likelihood_, rtol=1e-10)


def test_same_seed_same_result_any_n_jobs():
    X, _ = _frame(150)
    a = EMATANClustering(2, n_init=4, random_state=7, n_jobs=1).fit(X)
    b = EMATANClustering(2, n_init=4, random_state=7, n_jobs=2).fit(X)
    assert a.order_ == b.order_
    assert_array_equal(a.start_scores_, b.start_scores_)
    assert_array_equal(a.averaged_model_.params.weights, b.averaged_model_.params.weights)
    assert_array_equal(a.labels_, b.labels_)
    c = clone(a).fit(X)
    assert_array_equal(a.averaged_model_.params.pair_dep, c.averaged_model_.params.pair_dep)


def test_bad_inputs_and_data_unchanged():
    X, _ = _frame(60)
    X0 = X.copy()
    with pytest.raises(ValueError, match="n_clusters == 0"):
        EMATANClustering(0).fit(X)
    with pytest.raises(ValueError, match="alpha == 0"):
        EMATANClustering(2, alpha=0.0).fit(X)
    with pytest.raises(ValueError, match="policy"):
        EMATANClustering(2, policy="vote").fit(X)
    with pytest.raises(ValueError, match="order must list every column once"):
        EMATANClustering(2, order=["a", "b"]).fit(X)
    with pytest.raises(ValueError, match="more than the 2 distinct rows"):
        EMATANClustering(3).fit(pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 0, 1, 0]}))
    bad = X.astype(object)
    bad.loc[bad.index[5], "c"] = None
    bad.index = [f"r{i}" for i in range(len(bad))]
    with pytest.raises(ValueError, match="column 'c' is missing at row 'r5'"):
        EMATANClustering(2).fit(bad)
    real = X.assign(e=np.linspace(0, 1, len(X)))
    with pytest.raises(ValueError, match="'e'"):
        EMATANClustering(2).fit(real)
    pd.testing.assert_frame_equal(X, X0)
    est = EMATANClustering(2, n_init=1, max_iter=1, tol=1e-12, random_state=0)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.fit(X)
    assert any("max_iter=1" in str(r.message) for r in rec)
    pd.testing.assert_frame_equal(X, X0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_large_model_has_no_model_but_exports_on_request():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{i}": rng.integers(0, 4, 80) for i in range(10)})
    est = EMATANClustering(2, n_init=1, max_iter=3, order="columns", random_state=0).fit(X)
    assert not hasattr(est, "model_")  # 4 * 2 * 4**9 = 2M entries for x9
    with pytest.raises(ValueError, match="complete CPT of 'x9' has 2097152 entries"):
        est.to_network()
    assert est.averaged_model_.complete_cpd_size("x9") == 2097152
    assert est.predict_proba(X).shape == (80, 2)


def test_single_start_engine_deterministic():
    X, _ = _frame(100)
    data = prepare_ematan(X.to_numpy(), [2, 2, 2, 3, 2, 2], 2, order=[3, 1, 0, 2, 5, 4])
    a = ematan_single_start(data, np.random.default_rng(5))
    b = ematan_single_start(data, np.random.default_rng(5))
    assert_array_equal(a.resp, b.resp)
    assert a.ll_trace.shape == (a.n_iter + 1,)


def test_pair_cmi_equals_loop_reference():
    from pgmpy_ext.stats import pair_cmi

    rng = np.random.default_rng(2)
    cards, K = [2, 3, 2, 4], 3
    lay = TANMixtureLayout.build(cards, K)
    X = _data(cards, 120, rng)
    q = rng.dirichlet(np.ones(K), size=120)
    e = ematan_accumulate(lay, X, None, q)
    ours = pair_cmi(lay, e.counts_pair, e.cluster_counts)
    _, pair, _ = ref.expected_counts(cards, K, X, np.ones(120), q)
    expected = []
    for i in range(len(cards)):
        for lp in range(i):
            P = pair[(i, lp)] / 120.0
            pa, pk, pc = P.sum(1, keepdims=True), P.sum(0, keepdims=True), P.sum((0, 1), keepdims=True)
            expected.append(np.sum(np.where(P > 0, P * np.log(P * pc / (pa * pk)), 0.0)))
    assert_allclose(ours, expected, rtol=1e-11, atol=1e-15)
    assert (ours >= -1e-15).all()
