"""Issue 30: clustering that is not drowned by irrelevant variables. The MA step against the enumeration of every
selective structure (joint and arcs, any prior, the empirical-Bayes one), the empirical-Bayes fixed point, the
selective EM's M step against its BIC rule, the dependency starts, and the faces (relevance in ``model_``, root
nodes, BIF properties, determinism, sklearn checks)."""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from pgmpy.inference import VariableElimination
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext.clustering import (
    EMAClustering,
    LatentClassEM,
    SelectiveLatentClassClustering,
    dependency_seeds,
    empirical_inclusion_prior,
    icl_variable_marginals,
    integrated_complete_likelihood,
    latent_class_data,
    latent_class_single_start,
    log_omega_prior,
    ma_step,
    micl_optimize,
    relevance_log_odds,
    relevance_step,
    select_m_step,
)
from pgmpy_ext.experiments._seed001_ema_relevance import enumerate_ma_step, exact_arc_posteriors
from pgmpy_ext.stats import LatentClassLayout


def noisy(n=200, n_rel=4, n_noise=30, agree=0.85, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    cols = {f"r{i}": np.where(rng.random(n) < agree, z, 1 - z) for i in range(n_rel)}
    cols.update({f"n{i}": rng.integers(0, 3, n) for i in range(n_noise)})
    return pd.DataFrame(cols), z


def _acc(lab, z):
    return max(np.mean(lab == z), np.mean(lab != z))


# ------------------------------------------------------------------------------------------------ MA step, exact
@pytest.mark.parametrize("prior", [0.5, "per-arc", "auto"])
def test_ma_step_joint_equals_the_average_over_every_structure(prior):
    rng = np.random.default_rng(1)
    cards, K = [2, 3, 2, 3, 3, 2, 3, 2], 2
    lay = LatentClassLayout.build(cards, K)
    counts = rng.random((lay.n_states, K)) * 15
    nc = counts[:2].sum(axis=0)
    counts = counts / lay.sum_by_variable(counts)[lay.state_var] * nc  # every variable sums to nc
    p = np.linspace(0.2, 0.8, len(cards)) if prior == "per-arc" else prior
    theta, weights, w = ma_step(lay, counts, nc, 1.0, p)
    pval = empirical_inclusion_prior(relevance_log_odds(lay, counts, 1.0)) if prior == "auto" else p
    configs = [(int(rng.integers(K)), *[int(rng.integers(r)) for r in cards]) for _ in range(50)]
    arc, joint = enumerate_ma_step(cards, [counts[lay.offsets[i]:lay.offsets[i + 1]] for i in range(len(cards))],
                                   nc, 1.0, pval, configs)
    closed = [weights[c] * np.prod([theta[lay.offsets[i] + x[i], c] for i in range(len(cards))]) for c, *x in configs]
    assert_allclose(w, arc, rtol=1e-10)
    assert_allclose(joint, closed, rtol=1e-10)


def test_empirical_inclusion_prior_is_the_beta_posterior_mean_fixed_point():
    log_bf = np.r_[np.full(3, 12.0), np.full(97, -2.5)]
    pi = empirical_inclusion_prior(log_bf)
    w = 1 / (1 + np.exp(-(np.log(pi / (1 - pi)) + log_bf)))
    assert_allclose(pi, (w.sum() + 1) / (len(log_bf) + 2), rtol=1e-10)
    assert 0.03 < pi < 0.06  # about 3 relevant of 100
    assert empirical_inclusion_prior(np.full(10, 50.0)) > 0.9
    assert empirical_inclusion_prior(np.zeros(0)) == 0.5


def test_exact_arc_posteriors_sum_over_every_labelling():
    """The brute force of the experiment against a direct sum over (structure, labelling) for a 2-variable case."""
    from scipy.special import gammaln, logsumexp

    X = np.array([[0, 1], [0, 0], [1, 1], [1, 1], [0, 2]])
    cards = [2, 3]

    def lml(c):
        c = np.asarray(c, float)
        return gammaln(c.size) - gammaln(c.sum() + c.size) + np.sum(gammaln(c + 1))

    logp = {}
    for S in itertools.product([0, 1], repeat=2):
        terms = []
        for z in itertools.product([0, 1], repeat=len(X)):
            z = np.array(z)
            t = lml(np.bincount(z, minlength=2))
            for i in range(2):
                cols = [np.bincount(X[z == j, i], minlength=cards[i]) for j in (0, 1)] if S[i] else \
                    [np.bincount(X[:, i], minlength=cards[i])]
                t += sum(lml(c) for c in cols)
            terms.append(t)
        logp[S] = logsumexp(terms)
    tot = logsumexp(list(logp.values()))
    expected = [sum(np.exp(v - tot) for S, v in logp.items() if S[i]) for i in range(2)]
    assert_allclose(exact_arc_posteriors(X, cards), expected, rtol=1e-10)


# ------------------------------------------------------------------------------------------------ selective M step
def test_select_m_step_follows_the_bic_rule():
    rng = np.random.default_rng(2)
    cards, K, n = [2, 3, 3], 2, 100.0
    lay = LatentClassLayout.build(cards, K)
    dep = np.array([[40.0, 5.0], [10.0, 45.0]])  # strongly dependent
    flat = np.array([[17.0, 16.0], [16.0, 17.0], [17.0, 17.0]])  # independent
    mild = np.array([[20.0, 12.0], [15.0, 18.0], [15.0, 20.0]])
    counts = np.vstack([dep, flat, mild])
    nc = np.array([50.0, 50.0])
    theta, weights, rel = select_m_step(lay, counts, nc, 1.0, n)

    def gain(blk):
        ind = blk.sum(1)
        return float(np.sum(blk * np.log(blk / blk.sum(0))) - np.sum(ind * np.log(ind / ind.sum())))

    for v, blk in enumerate((dep, flat, mild)):
        delta = gain(blk) - 0.5 * (K - 1) * (cards[v] - 1) * math.log(n)
        assert_allclose(rel[v], 1 / (1 + math.exp(-delta)), rtol=1e-10)
        rows = theta[lay.offsets[v]:lay.offsets[v + 1]]
        if delta > 0:
            assert_allclose(rows, (blk + 1) / (blk.sum(0) + cards[v]), rtol=1e-12)
        else:  # a root node: its marginal in every column
            assert_allclose(rows, np.repeat(((blk.sum(1) + 1) / (blk.sum() + cards[v]))[:, None], K, 1), rtol=1e-12)
    assert rel[0] > 0.5 > rel[1]
    del rng


def test_selective_em_never_decreases_its_penalised_objective():
    X, _ = noisy(n=150, n_noise=20, seed=3)
    data = latent_class_data(X.to_numpy(np.int32), X.max().to_numpy() + 1)
    s = latent_class_single_start(data, 2, np.random.default_rng(0), method="select", alpha=0.0, tol=None,
                                  max_iter=30)
    assert np.all(np.diff(s.ll_trace) >= -1e-8 * np.abs(s.ll_trace[1:]))


# ------------------------------------------------------------------------------------------------ dependency starts
def test_dependency_seeds_find_the_mutually_dependent_variables():
    X, _ = noisy(n=200, n_rel=4, n_noise=60, seed=4)
    data = latent_class_data(X.to_numpy(np.int32), X.max().to_numpy() + 1)
    seeds = dependency_seeds(data, 3, n_partners=3)
    assert len(seeds) == 3
    assert set(seeds[0].tolist()) == {0, 1, 2, 3}
    assert dependency_seeds(data, 0) == []


def test_dependency_start_recovers_clusters_that_random_starts_miss():
    X, z = noisy(n=150, n_rel=5, n_noise=300, agree=0.8, seed=5)
    em = LatentClassEM(2, n_init=5, random_state=0).fit(X)
    dep = LatentClassEM(2, n_init=5, init="dependency", random_state=0).fit(X)
    assert _acc(dep.labels_, z) > 0.85 > _acc(em.labels_, z) + 0.15


# ------------------------------------------------------------------------------------------------ faces
def test_selective_clustering_keeps_the_relevant_features_and_builds_root_nodes(tmp_path):
    from pgmpy.readwrite import BIFReader, BIFWriter

    X, z = noisy(n=300, n_noise=40, seed=6)
    sel = SelectiveLatentClassClustering(2, n_init=5, random_state=0).fit(X)
    assert _acc(sel.labels_, z) > 0.9
    kept = set(sel.relevant_features_.tolist())
    assert {"r0", "r1", "r2", "r3"} <= kept
    assert len(kept) <= 6
    assert set(sel.model_.get_children(sel.cluster_node_)) == kept
    for f in X.columns:
        assert sel.model_.nodes[f]["relevance"] == pytest.approx(sel.relevance_[list(X.columns).index(f)])
        if f not in kept:
            assert sel.model_.get_parents(f) == []
    assert sel.model_.check_model()
    ve = VariableElimination(sel.model_)
    row = X.iloc[0].to_dict()
    q = ve.query([sel.cluster_node_], evidence=row, show_progress=False)
    assert_allclose(sel.predict_proba(X.iloc[:1])[0], q.values, rtol=1e-9)
    assert_allclose(sel.log_likelihood_, sel.score(X) * len(X), rtol=1e-9)
    k = 1 + sum((X[f].nunique() - 1) * (2 if f in kept else 1) for f in X.columns)
    assert_allclose(sel.bic(X), -2 * sel.score_samples(X).sum() + k * math.log(len(X)))
    assert_allclose(sel.start_scores_.max(), sel.ll_trace_[-1], rtol=1e-12)
    path = tmp_path / "sel.bif"
    BIFWriter(sel.model_).write(str(path))
    back = BIFReader(str(path), include_properties=True).get_model()
    assert float(back.nodes["n0"]["relevance"]) == pytest.approx(sel.relevance_[4], rel=1e-6)


def test_ema_auto_prior_and_dependency_start():
    X, z = noisy(n=200, n_rel=4, n_noise=200, agree=0.85, seed=7)
    ema = EMAClustering(2, n_init=5, structure_prior="auto", init="dependency", random_state=0).fit(X)
    assert _acc(ema.labels_, z) > 0.9
    assert ema.inclusion_prior_ < 0.1
    assert (ema.arc_posterior_[:4] > 0.9).all()
    assert np.mean(ema.arc_posterior_[4:] > 0.5) < 0.05
    assert ema.model_.nodes["r0"]["relevance"] == pytest.approx(ema.arc_posterior_[0])
    assert_allclose(ema.inclusion_prior_, (ema.arc_posterior_.sum() + 1) / (X.shape[1] + 2), rtol=1e-6)
    fixed = EMAClustering(2, n_init=2, structure_prior=0.3, random_state=0).fit(X)
    assert fixed.inclusion_prior_ == 0.3


@pytest.mark.parametrize("Est", [SelectiveLatentClassClustering, EMAClustering], ids=["select", "ema"])
def test_dependency_starts_same_seed_same_result_for_any_n_jobs(Est):
    X, _ = noisy(n=120, n_noise=15, seed=8)
    kw = {"init": "dependency"} if Est is EMAClustering else {}
    a = Est(2, n_init=3, random_state=4, n_jobs=1, **kw).fit(X)
    b = Est(2, n_init=3, random_state=4, n_jobs=2, **kw).fit(X)
    assert_array_equal(a.theta_, b.theta_)
    assert_array_equal(a.start_scores_, b.start_scores_)
    assert_array_equal(clone(a).fit(X).theta_, a.theta_)
    pickle.loads(pickle.dumps(a))
    assert "_seeds_" not in a.__dict__


@pytest.mark.parametrize(("est", "match"), [
    (EMAClustering(2, structure_prior="high"), "structure_prior"),
    (SelectiveLatentClassClustering(2, init="kmeans"), "init"),
    (SelectiveLatentClassClustering(2, alpha=-1.0), "alpha == -1.0"),
], ids=["prior", "init", "alpha"])
def test_bad_options_are_refused(est, match):
    with pytest.raises(ValueError, match=match):
        est.fit(pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 0, 0]}))


_XFAIL = {"check_clustering": "continuous Gaussian blobs: latent-class models need discrete data and reject "
                              "real-valued columns by design (discretise first)",
          "check_positive_only_tag_during_fit": "with allow_nan=True scikit-learn passes categorical data as float64 "
          "with the column means subtracted (fractional values), which a discrete learner refuses by design"}


@parametrize_with_checks([SelectiveLatentClassClustering(n_init=2, max_iter=20)],
                         expected_failed_checks=lambda est: _XFAIL)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------------------------------------ MICL (D10)
def _urn_log_marginal(labels, r, a=0.5):
    """log of the Polya-urn (sequential predictive) probability of a label sequence: the Dirichlet-multinomial
    marginal computed one draw at a time, independently of the closed form."""
    counts, total, lp = {}, 0, 0.0
    for h in labels:
        lp += math.log((counts.get(h, 0) + a) / (total + r * a))
        counts[h] = counts.get(h, 0) + 1
        total += 1
    return lp


def _brute_icl(codes, cards, z, omega, K):
    lp = _urn_log_marginal(list(z), K)
    for j, r in enumerate(cards):
        col = codes[:, j]
        if omega[j]:
            lp += sum(_urn_log_marginal([h for h, zz in zip(col, z) if zz == k and h >= 0], r) for k in range(K))
        else:
            lp += _urn_log_marginal([h for h in col if h >= 0], r)
    return lp


def test_icl_closed_form_equals_the_sequential_urn_on_weighted_distinct_rows():
    rng = np.random.default_rng(3)
    cards, K = [2, 3, 4, 2], 3
    codes = np.column_stack([rng.integers(0, r, 14) for r in cards]).astype(np.int32)
    codes[2, 1] = codes[7, 3] = -1  # missing cells are left out of their variable's counts
    z = rng.integers(0, K, 14)
    for omega in ([True, False, True, False], [False] * 4, [True] * 4):
        expected = _brute_icl(codes, cards, z, omega, K)
        assert integrated_complete_likelihood(codes, np.ones(14), cards, z, omega, K) == pytest.approx(expected,
                                                                                                     rel=1e-12)
        # distinct rows carried with their multiplicities (VarSelLCM's profiles) give the rows' criterion
        full = np.repeat(codes, [1, 2, 3] * 4 + [1, 1], axis=0)
        d = latent_class_data(full, cards)
        assert d.weights.max() > 1
        zd = rng.integers(0, K, len(d.weights))
        assert integrated_complete_likelihood(d.codes, d.weights, cards, zd, omega, K) == pytest.approx(
            _brute_icl(full, cards, zd[d.inverse], omega, K), rel=1e-12)


@pytest.mark.parametrize("prior", ["uniform", "beta"])
def test_micl_relevance_step_is_the_best_of_every_relevance_vector(prior):
    rng = np.random.default_rng(4)
    z = rng.integers(0, 2, 30)
    cards = [2, 3, 2, 3, 2, 3]
    cols = [np.where(rng.random(30) < 0.85, z, 1 - z), rng.integers(0, 3, 30), np.where(rng.random(30) < 0.6, z, 1 - z),
            rng.integers(0, 3, 30), rng.integers(0, 2, 30), (z + rng.integers(0, 2, 30)) % 3]
    codes = np.column_stack(cols).astype(np.int32)
    log_pz, dep, pooled = icl_variable_marginals(codes, np.ones(30), cards, z, 2)
    scores = {om: integrated_complete_likelihood(codes, np.ones(30), cards, z, om, 2)
              + float(log_omega_prior(sum(om), 6, prior)) for om in itertools.product([False, True], repeat=6)}
    best = max(scores, key=scores.get)
    omega, relevance = relevance_step(dep - pooled, prior)
    assert_array_equal(np.array(best), omega)
    assert 0 < omega.sum() < 6  # the case is not trivial
    assert_array_equal(relevance > 0.5, omega)
    if prior == "uniform":
        assert_array_equal(omega, dep > pooled)
        assert scores[best] == pytest.approx(log_pz + np.maximum(dep, pooled).sum(), rel=1e-12)
        assert_allclose(relevance, 1 / (1 + np.exp(pooled - dep)), rtol=1e-12)
    else:  # the conditional posterior of each omega_j given the others, from the enumeration's scores
        for j in range(6):
            on, off = list(best), list(best)
            on[j], off[j] = True, False
            assert relevance[j] == pytest.approx(1 / (1 + np.exp(scores[tuple(off)] - scores[tuple(on)])), rel=1e-9)


def test_micl_partition_is_a_local_optimum_and_the_criterion_increases():
    X, _ = noisy(n=40, n_rel=3, n_noise=6, seed=11)
    d = latent_class_data(X.to_numpy().astype(np.int32), X.nunique().to_numpy())
    z0 = np.random.default_rng(0).integers(0, 2, len(d.weights))
    res = micl_optimize(d.codes, d.weights, d.cards, z0, np.ones(d.n_vars, bool), 2, np.random.default_rng(1))
    assert res.converged
    assert np.all(np.diff(res.trace) >= -1e-9)
    assert res.micl == pytest.approx(integrated_complete_likelihood(d.codes, d.weights, d.cards, res.z, res.omega, 2),
                                     rel=1e-12)
    _, dep, pooled = icl_variable_marginals(d.codes, d.weights, d.cards, res.z, 2)
    assert_array_equal(res.omega, dep > pooled)
    assert_allclose(res.log_bayes_factor, dep - pooled, rtol=1e-12)
    for u in range(len(res.z)):  # no single row's move increases the criterion (by brute force)
        z = res.z.copy()
        z[u] = 1 - z[u]
        assert integrated_complete_likelihood(d.codes, d.weights, d.cards, z, res.omega, 2) <= res.micl + 1e-9


def test_micl_clustering_recovers_planted_clusters_and_relevance():
    X, z = noisy(n=150, n_rel=4, n_noise=30, agree=0.85, seed=12)
    sel = SelectiveLatentClassClustering(2, criterion="micl", n_init=4, random_state=0).fit(X)
    assert _acc(sel.labels_, z) > 0.9
    kept = set(sel.relevant_features_.tolist())
    assert {"r0", "r1", "r2", "r3"} <= kept
    assert len(kept) <= 8
    assert set(sel.model_.get_children(sel.cluster_node_)) == kept
    assert sel.model_.nodes["n0"]["relevance"] == pytest.approx(sel.relevance_[4])
    assert_allclose(sel.start_scores_.max(), sel.ll_trace_[-1], rtol=1e-12)
    assert sel.model_.check_model()
    bic = SelectiveLatentClassClustering(2, n_init=4, random_state=0).fit(X)
    assert not np.array_equal(bic.start_scores_, sel.start_scores_)  # the criterion is not ignored


def test_micl_same_seed_same_result_for_any_n_jobs():
    X, _ = noisy(n=120, n_noise=15, seed=8)
    a = SelectiveLatentClassClustering(2, criterion="micl", n_init=3, random_state=4, n_jobs=1).fit(X)
    b = SelectiveLatentClassClustering(2, criterion="micl", n_init=3, random_state=4, n_jobs=2).fit(X)
    assert_array_equal(a.theta_, b.theta_)
    assert_array_equal(a.start_scores_, b.start_scores_)
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(clone(a).fit(X).theta_, a.theta_)


@pytest.mark.parametrize(("kw", "match"), [({"criterion": "aic"}, "criterion"),
                                           ({"relevance_prior": "beta"}, "needs criterion='micl'"),
                                           ({"criterion": "micl", "relevance_prior": "flat"}, "relevance_prior")],
                         ids=["criterion", "beta-with-bic", "prior"])
def test_micl_bad_options_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        SelectiveLatentClassClustering(2, **kw).fit(pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 0, 0]}))


@parametrize_with_checks([SelectiveLatentClassClustering(criterion="micl", n_init=2, max_iter=20)],
                         expected_failed_checks=lambda est: _XFAIL)
def test_sklearn_compatible_micl(estimator, check):
    check(estimator)
