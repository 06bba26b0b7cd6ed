"""PopulationEMA: the diploid E step with missing alleles against enumeration, ploidy 1 == plain EMA, contracts."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from pgmpy_ext.clustering import EMAClustering
from pgmpy_ext.datasets import make_balding_nichols
from pgmpy_ext.evaluation import plot_membership
from pgmpy_ext.popgen import THESIS_SETTINGS, PopulationEMA, choose_n_clusters, pca_kmeans_labels, plot_fst_by_k
from pgmpy_ext.stats import LatentClassLayout, latent_class_estep


def enumerate_estep(alleles, cards, theta, prior):
    """Expected counts by brute force: every completion of the missing copies of an individual, weighted by its
    joint probability with the cluster, normalised by p(observed); counts of each copy's allele."""
    offsets = np.concatenate([[0], np.cumsum(cards)])
    n, n_loci, P = alleles.shape
    K = len(prior)
    counts, nc, ll = np.zeros((offsets[-1], K)), np.zeros(K), 0.0
    for d in range(n):
        slots = [(i, g) for i in range(n_loci) for g in range(P) if alleles[d, i, g] < 0]
        joint = []  # (completion, cluster, probability)
        for fill in itertools.product(*[range(cards[i]) for i, _ in slots]):
            full = alleles[d].copy()
            for (i, g), k in zip(slots, fill):
                full[i, g] = k
            for j in range(K):
                p = prior[j] * np.prod([theta[offsets[i] + full[i, g], j] for i in range(n_loci) for g in range(P)])
                joint.append((full, j, p))
        px = sum(p for _, _, p in joint)
        ll += np.log(px)
        for full, j, p in joint:
            nc[j] += p / px
            for i in range(n_loci):
                for g in range(P):
                    counts[offsets[i] + full[i, g], j] += p / px
    return counts, nc, ll


def test_diploid_estep_with_missing_alleles_equals_enumeration():
    rng = np.random.default_rng(1)
    cards = np.array([2, 3, 4])
    K, P, n = 3, 2, 7
    theta = np.concatenate([rng.dirichlet(np.ones(r), size=K).T for r in cards])
    prior = rng.dirichlet(np.ones(K))
    alleles = np.stack([rng.integers(0, r, size=(n, P)) for r in cards], axis=1).astype(np.int32)
    alleles[0, 1, 0] = -1       # one copy missing
    alleles[1, 2, :] = -1       # a whole genotype missing
    alleles[2, 0, 1] = alleles[2, 1, 1] = -1
    lay = LatentClassLayout.build(cards, K, ploidy=P)
    res = latent_class_estep(lay, alleles.reshape(n, -1), None, np.log(theta), np.log(prior), theta=theta,
                             missing="impute")
    counts, nc, ll = enumerate_estep(alleles, cards, theta, prior)
    np.testing.assert_allclose(res.counts, counts, rtol=1e-12)
    np.testing.assert_allclose(res.cluster_counts, nc, rtol=1e-12)
    assert res.loglik == pytest.approx(ll, rel=1e-12)
    # E(N_ij) = P * E(N_C-j) for every locus under imputation (spec 9.2)
    np.testing.assert_allclose(lay.sum_by_variable(res.counts), np.tile(P * nc, (3, 1)), rtol=1e-12)


@pytest.mark.parametrize("n_alleles", [3, 2], ids=["codes", "dosages"])
def test_ploidy_one_without_missing_equals_plain_ema(n_alleles):
    """The thesis's setting is the latent-class EMA of the clustering package, on allele codes and on dosages."""
    a, _ = make_balding_nichols(n_individuals=50, n_populations=3, n_loci=12, fst=0.15, ploidy=1, n_alleles=n_alleles,
                                min_ancestral_freq=0.2 if n_alleles == 2 else 0.0, random_state=4)
    pop = PopulationEMA(n_clusters=3, ploidy=1, n_init=4, random_state=7, **THESIS_SETTINGS).fit(a)
    assert pop.loci_mask_.all()
    frame = pd.DataFrame(a[:, :, 0], columns=[f"L{i}" for i in range(12)])
    ema = EMAClustering(n_clusters=3, n_init=4, random_state=7).fit(frame)
    np.testing.assert_allclose(pop.theta_, ema.theta_, rtol=1e-10)
    np.testing.assert_allclose(pop.weights_, ema.weights_, rtol=1e-10)
    np.testing.assert_array_equal(pop.labels_, ema.labels_)
    np.testing.assert_allclose(pop.arc_posterior_, ema.arc_posterior_, rtol=1e-10)
    np.testing.assert_allclose(pop.q_, ema.predict_proba(frame), rtol=1e-9, atol=1e-12)
    assert pop.log_likelihood_ == pytest.approx(ema.log_likelihood_, rel=1e-12)


@pytest.fixture(scope="module")
def diploid():
    return make_balding_nichols(n_individuals=80, n_populations=3, n_loci=60, fst=0.08, missing_rate=0.05,
                                n_alleles=np.arange(60) % 4 + 1, random_state=2)


def test_fit_attributes_model_and_prediction(diploid):
    a, pop = diploid
    est = PopulationEMA(n_clusters=3, n_init=3, random_state=0)
    a_before = a.copy()
    est.fit(a)
    np.testing.assert_array_equal(a, a_before)
    assert est.q_.shape == (80, 3)
    assert np.allclose(est.q_.sum(axis=1), 1)
    assert (~est.loci_mask_).sum() == 15
    assert np.isnan(est.arc_posterior_[~est.loci_mask_]).all()
    assert est.model_.check_model()
    assert est.model_.latents == {"cluster"}
    assert len(est.model_.nodes()) == 1 + 45
    cpd = est.model_.get_cpds("L1")
    assert cpd.state_names["L1"] == est.allele_labels_[0]
    # q_ leaves every individual out of its cluster's frequencies; predict_proba of the same genotypes does not
    proba = est.predict_proba(a)
    assert np.mean(proba.max(axis=1)) >= np.mean(est.q_.max(axis=1))
    assert np.mean(est.predict(a) == est.labels_) > 0.95
    assert np.isfinite(est.score(a))
    assert est.ll_trace_[-1] == pytest.approx(est.log_likelihood_)
    assert est.fst_ == pytest.approx(est.fst(a), rel=1e-10)  # one estimator: Reynolds' on the memberships
    assert est.fst(a) > 0
    assert est.drift_.shape == (3,)
    plug = PopulationEMA(n_clusters=3, memberships="plug-in", random_state=0).fit(a)
    np.testing.assert_allclose(plug.predict_proba(a), plug.q_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(plug.predict(a), plug.labels_)
    assert plug.score(a) == pytest.approx(plug.log_likelihood_ / 80)
    from scipy.optimize import linear_sum_assignment
    M = np.array([[np.sum((est.labels_ == k) & (pop == p)) for p in range(3)] for k in range(3)])
    r, c = linear_sum_assignment(-M)
    assert M[r, c].sum() / 80 > 0.9
    pickle.loads(pickle.dumps(est))
    assert clone(est).get_params() == est.get_params()


def test_same_seed_same_model_for_any_n_jobs(diploid):
    a, _ = diploid
    from joblib import parallel_config

    one = PopulationEMA(n_clusters=3, n_init=4, random_state=5, n_jobs=1).fit(a)
    with parallel_config(backend="threading"):  # process start-up would dominate the test's time
        two = PopulationEMA(n_clusters=3, n_init=4, random_state=5, n_jobs=2).fit(a)
    np.testing.assert_array_equal(one.theta_, two.theta_)
    np.testing.assert_array_equal(one.q_, two.q_)


@pytest.mark.parametrize("missing", ["impute", "available_case"])
def test_pca_kmeans_and_label_starts(diploid, missing):
    a, pop = diploid
    labels = pca_kmeans_labels(a, 3, random_state=0)
    est = PopulationEMA(n_clusters=3, init="pca-kmeans", n_init=2, missing=missing, random_state=0).fit(a)
    fixed = PopulationEMA(n_clusters=3, init=labels, n_init=1, missing=missing, random_state=0).fit(a)
    assert est.converged_
    assert fixed.converged_
    assert len(np.unique(est.labels_)) == 3


def test_bad_input_gives_clear_errors_and_modifies_nothing(diploid):
    a, _ = diploid
    before = a.copy()
    with pytest.raises(ValueError, match="ploidy mismatch"):
        PopulationEMA(n_clusters=2, ploidy=1).fit(a)
    with pytest.raises(ValueError, match="n_clusters == 81 exceeds"):
        PopulationEMA(n_clusters=81).fit(a)
    bad = a.copy()
    bad[5] = -9
    with pytest.raises(ValueError, match="every locus missing"):
        PopulationEMA(n_clusters=2).fit(bad)
    bad = a.copy()
    bad[0, 0, 0] = -3
    with pytest.raises(ValueError, match="allele code out of range"):
        PopulationEMA(n_clusters=2).fit(bad)
    with pytest.raises(ValueError, match="allele code out of range"):
        PopulationEMA(n_clusters=2).fit(np.array([[0, 1, 5], [2, 2, 1]]))
    with pytest.raises(ValueError, match="missing"):
        PopulationEMA(n_clusters=2, missing="drop").fit(a)
    with pytest.raises(ValueError, match="init labels"):
        PopulationEMA(n_clusters=2, init=np.zeros(3, dtype=int)).fit(a)
    np.testing.assert_array_equal(a, before)
    est = PopulationEMA(n_clusters=2, n_init=1, random_state=0)
    with pytest.raises(ValueError, match="n_clusters"):
        est.set_params(n_clusters=0).fit(a)
    assert not hasattr(est, "q_")
    assert not hasattr(est, "model_")


def test_choose_n_clusters_and_plots(diploid):
    a, pop = diploid
    res = choose_n_clusters(a, [2, 3], n_runs=3, n_init=2, random_state=0)
    assert set(res.fst) == {2, 3}
    assert all(len(v) == 3 for v in res.fst.values())
    assert 0.0 <= res.p_values[(2, 3)] <= 1.0
    assert res.best in (2, 3)
    mem = choose_n_clusters(a, [2], n_runs=2, n_init=1, fst_from="memberships", fst_loci=np.arange(30),
                            random_state=0)
    assert np.isfinite(mem.fst[2]).all()
    fig = plot_fst_by_k(res)
    assert fig.axes[0].get_xticks().tolist() == [2, 3]
    est = PopulationEMA(n_clusters=3, n_init=1, random_state=0).fit(a)
    ax = plot_membership(est.q_, pop)
    assert len(ax.patches) == 3 * 80
    assert len(ax.get_xticklabels()) == 3
    est.populations_ = np.asarray(pop)  # a fitted PopulationEMA gives its memberships and populations itself
    same = plot_membership(est)
    assert [p.get_height() for p in same.patches] == [p.get_height() for p in ax.patches]


def test_convergence_warning_at_max_iter(diploid):
    from sklearn.exceptions import ConvergenceWarning

    a, _ = diploid
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=1"):
        est = PopulationEMA(n_clusters=2, n_init=1, max_iter=1, random_state=0).fit(a)
    assert not est.converged_


@pytest.mark.parametrize("init", ["svd", "pca-kmeans"])
def test_integer_dosages_fast_path_equals_the_allele_code_path(init, monkeypatch):
    """An integer dosage matrix is read straight to int8 dosages (no allele codes); the fit must be the one of the
    same data given as ``Genotypes`` (the allele-code path), bit for bit, with missing values and a monomorphic
    locus, for an int8 DataFrame with row labels and for a uint8 array; the user's data stay unchanged."""
    from pgmpy_ext.popgen import as_genotypes

    a, _ = make_balding_nichols(n_individuals=60, n_populations=2, n_loci=120, fst=0.1, random_state=3)
    G = a.sum(axis=2).astype(np.int8)
    G[:, 7] = 0  # monomorphic
    G[3, 5] = -9
    G[10, :40] = -1
    frame = pd.DataFrame(G, columns=[f"rs{i}" for i in range(G.shape[1])], index=[f"ind{d}" for d in range(60)])
    before = frame.copy()
    params = {"n_clusters": 2, "init": init, "random_state": 0}
    ref = PopulationEMA(**params).fit(as_genotypes(frame))
    import pgmpy_ext.popgen._population as population

    def no_allele_codes(X, **kw):
        if not hasattr(X, "alleles"):
            raise AssertionError("the integer dosage matrix went through the allele codes")
        return as_genotypes(X, **kw)

    for X in (frame, G.astype(np.int64)):
        with monkeypatch.context() as m:
            m.setattr(population, "as_genotypes", no_allele_codes)
            fast = PopulationEMA(**params).fit(X)
        for name in ("q_", "theta_", "weights_", "loci_mask_", "cards_", "arc_posterior_", "ll_trace_"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(ref, name), err_msg=name)
        assert fast.fst_ == ref.fst_
        assert fast.n_iter_ == ref.n_iter_
        assert fast.ld_inflation_ == ref.ld_inflation_
        assert fast.allele_labels_ == ref.allele_labels_
        np.testing.assert_array_equal(fast.predict_proba(X), ref.predict_proba(X))
    assert list(ref.loci_) == list(PopulationEMA(**params).fit(frame).loci_)
    assert "rs7" not in ref.loci_
    assert list(PopulationEMA(**params).fit(frame).individuals_) == list(frame.index)
    pd.testing.assert_frame_equal(frame, before)
    clean = np.clip(G, 0, 2).astype(np.uint8)
    np.testing.assert_array_equal(PopulationEMA(**params).fit(clean).q_,
                                  PopulationEMA(**params).fit(as_genotypes(clean)).q_)


def test_integer_dosages_fast_path_errors_name_locus_and_individual():
    G = pd.DataFrame([[0, 1, 2], [2, 3, 1], [1, 1, 0]], columns=["a", "b", "c"], index=["x", "y", "z"],
                     dtype=np.int8)
    with pytest.raises(ValueError, match=r"dosage 3 for individual 'y', locus 'b'.*0\.\.2 for ploidy 2"):
        PopulationEMA(n_clusters=2).fit(G)
    G.loc["y"] = -9
    with pytest.raises(ValueError, match=r"individual 'y' \(row 1\) has every locus missing"):
        PopulationEMA(n_clusters=2).fit(G)
    G.loc["y"] = [0, -9, -9]
    G["a"] = 0
    with pytest.raises(ValueError, match="individual 'y' has every polymorphic locus missing"):
        PopulationEMA(n_clusters=2).fit(G)
    with pytest.raises(ValueError, match="every locus is monomorphic"):
        PopulationEMA(n_clusters=2).fit(np.zeros((4, 3), dtype=np.int8))
