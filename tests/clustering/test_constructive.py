"""Constructive-induction clustering (seed 003): the B.11.9 score targets, kernels against numpy references, join
scores from counts, EM monotonicity, Bound and Collapse, the scikit-learn face and its contracts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from joblib import parallel_config
from pgmpy.readwrite import BIFReader, BIFWriter
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

import pgmpy_ext.stats._constructive as stats_ci
from pgmpy_ext.clustering import ConstructiveInductionClustering
from pgmpy_ext.data import compound_column, encode, join_compound, split_compound
from pgmpy_ext.datasets import make_ci_synthetic, make_nursery_grid, make_tic_tac_toe
from pgmpy_ext.evaluation import right_final
from pgmpy_ext.parameters import (
    SupernodeNB,
    bound_collapse,
    fit_bc_em,
    fit_supernode_em,
    ml_parameters,
    random_parameters,
)
from pgmpy_ext.stats import completed_log_ml, join_log_ml, node_log_ml, supernode_counts, supernode_estep
from tests.reference_constructive import completed_score_reference, estep_reference, log_ml_reference

LN10 = math.log(10)


def _ones(d):
    return np.ones(d.n_rows)


# ---------------------------------------------------------------------------------------------- B.11.9 targets
def test_nursery_one_cluster_score():
    d = encode(make_nursery_grid())
    labels = np.zeros(d.n_rows, dtype=np.int32)
    s = completed_log_ml(d.codes, d.cards, d.cards, labels, _ones(d), 5)
    assert s / LN10 == pytest.approx(-53349.098, abs=5e-4)
    assert s == pytest.approx(-122840.838, abs=5e-4)
    assert completed_log_ml(d.codes, d.cards, d.cards, labels, _ones(d), 5, base=10) == pytest.approx(-53349.098,
                                                                                                      abs=5e-4)


def test_tic_tac_toe_scores():
    X, y = make_tic_tac_toe()
    d = encode(X)
    one = completed_log_ml(d.codes, d.cards, d.cards, np.zeros(958, dtype=np.int32), _ones(d), 2, base=10)
    true = completed_log_ml(d.codes, d.cards, d.cards, y.to_numpy().astype(np.int32), _ones(d), 2, base=10)
    assert one == pytest.approx(-4018.521, abs=5e-4)
    assert true == pytest.approx(-4254.557, abs=5e-4)


# ---------------------------------------------------------------------------------------------- kernels
def _random_problem(seed, n=120, cards=(2, 3, 2, 4), K=3):
    rng = np.random.default_rng(seed)
    codes = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int32)
    labels = rng.integers(0, K, n).astype(np.int32)
    mult = rng.integers(1, 4, n).astype(np.float64)
    return codes, list(cards), labels, mult


@given(seed=st.integers(0, 10_000), K=st.integers(1, 4), n=st.integers(1, 200))
def test_node_and_join_score_match_reference(seed, K, n):
    codes, cards, labels, mult = _random_problem(seed, n=n, K=K)
    a = compound_column(codes, cards, [0, 2])
    b = compound_column(codes, cards, [3])
    got = node_log_ml(a.codes, a.u, a.full_card, labels, mult, K)
    assert got == pytest.approx(log_ml_reference(codes[:, [0, 2]], 4.0, labels, mult, K), rel=1e-12, abs=1e-9)
    joined = join_log_ml(a.codes, a.u, b.codes, b.u, a.full_card * b.full_card, labels, mult, K)
    ref = log_ml_reference(codes[:, [0, 2, 3]], 16.0, labels, mult, K)
    assert joined == pytest.approx(ref, rel=1e-12, abs=1e-9)


def test_join_score_from_counts_equals_full_recomputation(monkeypatch):
    codes, cards, labels, mult = _random_problem(1, n=300, cards=(2, 3, 2, 4, 3))
    K = 3
    cols = [compound_column(codes, cards, [j]) for j in range(5)]
    cols[0] = join_compound(cols[0], cols[1])
    del cols[1]                                               # structure: (0, 1), 2, 3, 4

    def full(blocks):
        return completed_score_reference(codes, cards, blocks, labels, mult, K)

    before = full([(0, 1), (2,), (3,), (4,)])
    for dense_cap in (stats_ci._DENSE_CAP, 0):               # dense scratch, and the compacting fallback
        monkeypatch.setattr(stats_ci, "_DENSE_CAP", dense_cap)
        a, b = cols[0], cols[2]
        delta = (join_log_ml(a.codes, a.u, b.codes, b.u, a.full_card * b.full_card, labels, mult, K)
                 - node_log_ml(a.codes, a.u, a.full_card, labels, mult, K)
                 - node_log_ml(b.codes, b.u, b.full_card, labels, mult, K))
        assert delta == pytest.approx(full([(0, 1, 3), (2,), (4,)]) - before, rel=1e-10, abs=1e-9)
    # and the kernel score of a structure equals the reference
    nodes = np.stack([c.codes for c in cols], axis=1)
    got = completed_log_ml(nodes, [c.u for c in cols], [c.full_card for c in cols], labels, mult, K)
    assert got == pytest.approx(before, rel=1e-12)


def test_huge_cardinality_rising_factorial():
    node = np.zeros(50, dtype=np.int32)
    labels = np.zeros(50, dtype=np.int32)
    r = 2.0 ** 45
    got = node_log_ml(node, 1, r, labels, np.ones(50), 1)
    exact = math.lgamma(51) - sum(math.log(r + t) for t in range(50))
    assert got == pytest.approx(exact, rel=1e-12)


def test_supernode_counts_and_estep_match_reference():
    codes, cards, labels, mult = _random_problem(3, n=90)
    K = 3
    u = np.array(cards)
    counts = supernode_counts(codes, u, labels, mult, K)
    ref = np.concatenate([np.bincount(labels * c + codes[:, j], weights=mult, minlength=K * c)
                          for j, c in enumerate(cards)])
    np.testing.assert_array_equal(counts, ref)
    skip = labels.copy()
    skip[:10] = -1                                            # -1 rows are skipped
    assert supernode_counts(codes, u, skip, mult, K).sum() == pytest.approx(len(cards) * mult[10:].sum())
    rng = np.random.default_rng(0)
    log_theta = np.log(np.concatenate([rng.dirichlet(np.ones(c), size=K).reshape(-1) for c in cards]))
    log_prior = np.log(rng.dirichlet(np.ones(K)))
    e = supernode_estep(codes, u, log_theta, log_prior, mult)
    lab, mp, ll, cnt, cls = estep_reference(codes, u, log_theta, log_prior, mult)
    np.testing.assert_array_equal(e.labels, lab)
    np.testing.assert_allclose(e.max_post, mp, rtol=1e-12)
    assert e.loglik == pytest.approx(ll, rel=1e-12)
    np.testing.assert_allclose(e.counts, cnt, rtol=1e-12)
    np.testing.assert_allclose(e.class_counts, cls, rtol=1e-12)


def test_compound_columns_join_split_lookup():
    codes, cards, _, _ = _random_problem(4, n=200)
    c = compound_column(codes, cards, [1, 3, 0])
    assert c.full_card == 3 * 4 * 2
    np.testing.assert_array_equal(c.values[c.codes], codes[:, [1, 3, 0]])        # decode map round trip
    np.testing.assert_array_equal(c.lookup(codes[:, [1, 3, 0]]), c.codes)
    assert c.lookup(np.array([[-1, 0, 0]])).tolist() == [-1]
    pre, suf = split_compound(c, 1)
    np.testing.assert_array_equal(pre.values[pre.codes], codes[:, [1]])
    np.testing.assert_array_equal(suf.values[suf.codes], codes[:, [3, 0]])
    with pytest.raises(ValueError, match="split point 3 must be in 1 .. 2"):
        split_compound(c, 3)


# ---------------------------------------------------------------------------------------------- parameters
def _nb(seed=0, n=400):
    X, _ = make_ci_synthetic(8, 3, 5, n, random_state=seed)
    d = encode(X)
    cols = [compound_column(d.codes, d.cards, [j]) for j in range(4)]
    cols.append(compound_column(d.codes, d.cards, [4, 5, 6, 7]))
    nodes = np.stack([c.codes for c in cols], axis=1)
    return SupernodeNB(nodes, np.array([c.u for c in cols]), np.array([float(c.full_card) for c in cols]),
                       np.ones(n), 3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_em_never_decreases_observed_loglik(seed):
    nb = _nb(seed)
    res = fit_supernode_em(nb, *random_parameters(nb, np.random.default_rng(seed)), max_iter=60, tol=0.0,
                           stopping="loglik")
    ll = np.array(res.loglik_trace)
    assert len(ll) == 61
    assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[:-1]))
    assert ll[-1] > ll[0]


def test_bc_with_every_case_observed_equals_ml():
    nb = _nb(5)
    labels = np.random.default_rng(0).integers(0, 3, nb.nodes.shape[0]).astype(np.int32)
    theta_bc, prior_bc = bound_collapse(nb, labels)
    theta_ml, prior_ml = ml_parameters(nb, labels)
    np.testing.assert_allclose(theta_bc, theta_ml, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(prior_bc, prior_ml, rtol=1e-12)


def test_bc_rows_are_distributions_between_the_bounds():
    nb = _nb(6)
    rng = np.random.default_rng(1)
    fixed = rng.integers(0, 3, nb.nodes.shape[0]).astype(np.int32)
    fixed[rng.random(fixed.size) < 0.4] = -1
    theta, prior = bound_collapse(nb, fixed)
    assert prior.sum() == pytest.approx(1.0)
    counts = supernode_counts(nb.nodes, nb.u, np.where(fixed < 0, 3, fixed), nb.mult, 4)
    off4 = np.concatenate([[0], np.cumsum(4 * nb.u)])
    off3 = nb.offsets
    for j, u in enumerate(nb.u):
        rows = theta[off3[j]:off3[j + 1]].reshape(3, u)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0, rtol=1e-12)
        block = counts[off4[j]:off4[j + 1]].reshape(4, u)
        n_jk, m_k = block[:3], block[3]
        n_j, m = n_jk.sum(axis=1, keepdims=True), m_k.sum()
        p_max = (n_jk + m_k) / (n_j + m_k)
        p_min = n_jk / (n_j + m - m_k)
        assert np.all(rows <= p_max + 1e-12)
        assert np.all(rows >= p_min - 1e-12)
    # with a prior the observed values keep less than the whole mass (the rest is on unobserved combinations)
    theta_a, _ = bound_collapse(nb, fixed, bc_prior=2.0)
    j = len(nb.u) - 1
    assert np.all(theta_a[off3[j]:off3[j + 1]].reshape(3, -1).sum(axis=1) <= 1.0 + 1e-12)


def test_bc_em_runs_and_reports():
    nb = _nb(7)
    res = fit_bc_em(nb, *random_parameters(nb, np.random.default_rng(0)), fixing_threshold=0.5)
    assert res.converged
    assert res.score == pytest.approx(nb.score(res.estep.labels))
    res2 = fit_bc_em(nb, *random_parameters(nb, np.random.default_rng(0)), fixing_threshold=0.5,
                     em_steps_per_round="converge")
    assert np.isfinite(res2.score)


# ---------------------------------------------------------------------------------------------- the estimator
@pytest.fixture(scope="module")
def ttt():
    return make_tic_tac_toe()[0]


def test_fit_tic_tac_toe_attributes(ttt):
    ci = ConstructiveInductionClustering(2, random_state=0).fit(ttt)
    assert sorted(c for b in ci.blocks_ for c in b) == sorted(ttt.columns)
    assert ci.labels_.shape == (958,)
    assert ci.cluster_sizes_.sum() == 958
    assert ci.n_nonempty_clusters_ == int((np.bincount(ci.labels_, minlength=2) > 0).sum())
    assert ci.score_final_ > ci.score_initial_
    assert ci.history_[0]["move"] is None
    assert ci.history_[-1]["score"] == pytest.approx(ci.score_final_, rel=1e-12)   # no move after the last pass
    # the reported final score is the completed-data score of labels_ with blocks_
    d = encode(ttt)
    blocks = [tuple(list(ttt.columns).index(c) for c in b) for b in ci.blocks_]
    ref = completed_score_reference(d.codes, d.cards, blocks, ci.labels_, np.ones(958), 2) / LN10
    assert ci.score_final_ == pytest.approx(ref, rel=1e-12)
    model = ci.model_
    model.check_model()
    assert model.latents == {ci.cluster_node_}
    assert set(model.nodes()) == {ci.cluster_node_, *ci.node_names_}
    for name, table in ci.params_.items():
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
        cpd = model.get_cpds(name)
        np.testing.assert_allclose(cpd.get_values(), table.T)
    proba = ci.predict_proba(ttt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (ci.predict(ttt) == ci.labels_).mean() > 0.95


def _joined_data():
    rng = np.random.default_rng(5)
    z = rng.integers(0, 2, 1000)
    x0 = np.where(rng.random(1000) < 0.6, z, rng.integers(0, 3, 1000))
    X = pd.DataFrame({"x0": x0, "x1": (x0 + (rng.random(1000) < 0.05)) % 3})
    for j in range(2, 6):
        X[f"x{j}"] = np.where(rng.random(1000) < 0.85, z, 1 - z)
    return X


def test_bif_round_trip(tmp_path):
    ci = ConstructiveInductionClustering(2, param_search="bc+em", n_init=5, random_state=0).fit(_joined_data())
    path = tmp_path / "ci.bif"
    BIFWriter(ci.model_).write(str(path))                   # pgmpy's own writer and reader
    back = BIFReader(str(path)).get_model()
    assert set(back.nodes()) == {str(v) for v in ci.model_.nodes()}
    for cpd in ci.model_.get_cpds():
        other = back.get_cpds(str(cpd.variable))
        assert [str(s) for s in cpd.state_names[cpd.variable]] == other.state_names[other.variable]
        np.testing.assert_allclose(other.get_values(), cpd.get_values(), rtol=1e-6)
    assert any("__" in name for name in ci.decode_)               # a supernode was exported


def test_decode_map(ttt):
    ci = ConstructiveInductionClustering(2, random_state=0).fit(ttt)
    name = next(iter(ci.decode_))
    block = ci.blocks_[ci.node_names_.index(name)]
    states = ci.model_.get_cpds(name).state_names[name]
    observed = {tuple(r) for r in ttt[list(block)].astype(str).itertuples(index=False)}
    assert {ci.decode_[name][s] for s in states} == observed


def test_same_seed_same_result_any_n_jobs(ttt):
    est = ConstructiveInductionClustering(2, param_search="bc+em", n_init=2, random_state=3)
    a = clone(est).fit(ttt)
    with parallel_config(backend="threading"):
        b = clone(est).set_params(n_jobs=2).fit(ttt)
    assert a.blocks_ == b.blocks_
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.score_final_ == b.score_final_
    np.testing.assert_array_equal(a.start_scores_, b.start_scores_)
    for cpd in a.model_.get_cpds():
        np.testing.assert_array_equal(cpd.get_values(), b.model_.get_cpds(cpd.variable).get_values())


def test_caller_data_not_modified(ttt):
    X = ttt.copy()
    ConstructiveInductionClustering(2, random_state=0).fit(X)
    pd.testing.assert_frame_equal(X, ttt)


@pytest.mark.parametrize(("params", "match"), [
    ({"n_clusters": 0}, "n_clusters == 0, must be >= 1"),
    ({"param_search": "gibbs"}, "param_search == 'gibbs', must be one of"),
    ({"search": "tabu"}, "search == 'tabu', must be one of"),
    ({"fixing_threshold": 1.0}, r"fixing_threshold == 1.0, must be None or a finite number in \[0, 1\)"),
    ({"em_steps_per_round": "many"}, "em_steps_per_round == 'many'"),
], ids=["n_clusters", "param_search", "search", "threshold", "em_steps"])
def test_bad_params(params, match):
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError, match=match):
        ConstructiveInductionClustering(**params).fit(X)


def test_missing_cells_and_real_values_rejected():
    X = pd.DataFrame({"a": ["x", "y", None, "y"], "b": [1, 1, 0, 0]}, index=[10, 11, 12, 13])
    with pytest.raises(ValueError, match=r"column 'a' is missing at row 12.*impute or drop"):
        ConstructiveInductionClustering().fit(X)
    Xr = pd.DataFrame({"a": [0.5, 1.25, 2.0, 3.5], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError, match="Column 'a' has float values"):
        ConstructiveInductionClustering().fit(Xr)


def test_predict_smoothing_unseen_and_missing(ttt):
    ci = ConstructiveInductionClustering(2, random_state=0).fit(ttt)
    name = next(iter(ci.decode_))
    block = ci.blocks_[ci.node_names_.index(name)]
    row = ttt.iloc[[0]].copy()
    # marginalising one missing member equals the sum of the joint over its values
    col = block[0]
    row_missing = row.astype(object)
    row_missing[col] = None
    joint_missing = ci.predict_joint_log_proba(row_missing)
    parts = []
    for v in ["x", "o", "b"]:
        r = row.astype(object)
        r[col] = v
        parts.append(ci.predict_joint_log_proba(r))
    np.testing.assert_allclose(joint_missing, np.logaddexp.reduce(np.stack(parts), axis=0), rtol=1e-10)
    # the smoothed model sums to 1 over every full combination of a small problem
    X = pd.DataFrame({"a": [0, 0, 1, 1, 0, 1] * 5, "b": [0, 1, 1, 1, 0, 0] * 5, "c": [1, 1, 0, 0, 1, 0] * 5})
    small = ConstructiveInductionClustering(2, random_state=0).fit(X)
    grid = pd.DataFrame([(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)], columns=["a", "b", "c"])
    assert np.exp(small.score_samples(grid)).sum() == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("search", ["backward", "sa"])
def test_backward_and_sa_give_partitions(search):
    X, true_blocks = make_ci_synthetic(6, 2, 3, 300, random_state=2)
    ci = ConstructiveInductionClustering(2, search=search, sa_T0=2.0, sa_cooling=0.8, sa_moves_per_temp=10,
                                         sa_stop_unchanged=30, random_state=0).fit(X)
    assert sorted(c for b in ci.blocks_ for c in b) == sorted(X.columns)
    right, final, ratio = right_final(ci.blocks_, true_blocks)
    assert 0 <= right <= final == len(ci.blocks_)
    if search == "sa":
        assert ci.score_final_ >= max(h["score"] for h in ci.history_) - 1e-6   # the best structure is returned


@pytest.mark.parametrize("param_search", ["em", "bc+em"])
def test_forward_recovers_a_strong_join(param_search):
    X = _joined_data()
    ci = ConstructiveInductionClustering(2, param_search=param_search, n_init=5, random_state=0).fit(X)
    assert ci.blocks_ == [("x0", "x1"), ("x2",), ("x3",), ("x4",), ("x5",)]
    assert right_final(ci.blocks_, [("x1", "x0"), ("x2",), ("x3",), ("x4",), ("x5",)]) == (5, 5, 1.0)
    assert ci.history_[1]["move"] == ("join", 0, 1)
    assert ci.history_[1]["delta"] > 0


@parametrize_with_checks([ConstructiveInductionClustering(max_iter=5)],
                         expected_failed_checks=lambda est: {
                             "check_clustering": "continuous Gaussian blobs: the estimator needs discrete data and "
                                                 "rejects real-valued columns by design (discretise first)",
                             "check_estimators_nan_inf": "predict/score sum NaN cells out exactly while fit refuses "
                                                         "them; allow_nan=False describes fit"})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_pickle_and_clone(ttt):
    import pickle

    ci = ConstructiveInductionClustering(2, param_search="bc+em", random_state=2).fit(ttt)
    back = pickle.loads(pickle.dumps(ci))
    np.testing.assert_array_equal(back.predict_proba(ttt), ci.predict_proba(ttt))
    assert clone(ci).get_params() == ci.get_params()
    assert not hasattr(clone(ci), "model_")
