"""CEMClustering: recovery, CML monotonicity, empty-cluster policies, determinism, pgmpy equality, API contract."""

from __future__ import annotations

import itertools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import pgmpy_ext.clustering._cem_engine as engine
from pgmpy_ext._compat import DiscreteBayesianNetwork, TabularCPD, VariableElimination
from pgmpy_ext.clustering import CEMClustering, MStep, fit_cem
from pgmpy_ext.data import EncodedData, encode
from pgmpy_ext.evaluation import clustering_accuracy
from pgmpy_ext.models import BatchPosterior, minimal_parents, multinet_to_network
from pgmpy_ext.stats import pairwise_counts, unique_rows
from pgmpy_ext.structure import (
    chow_liu_trees_per_class,
    fit_chow_liu_tree,
    fit_cl_multinet,
    fit_sbn,
    fit_tan,
    root_index,
    sbn_walk,
)

MODELS = ["cl", "tan", "sbn"]
_LN2 = math.log(2.0)


def planted(n=400, m=10, seed=0):
    """Two clusters with opposite state preferences on every attribute and copy-chains inside each."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    cols, prev = {}, None
    for j in range(m):
        base = np.where(z == 0, rng.choice(3, n, p=[.8, .15, .05]), rng.choice(3, n, p=[.05, .15, .8]))
        if prev is not None:
            base = np.where(rng.random(n) < 0.3, prev, base)
        cols[f"x{j}"] = base
        prev = base
    return pd.DataFrame(cols), z


def noisy(n=300, seed=1):
    """Weakly structured data: the C-stage from a random partition takes several steps."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    X = pd.DataFrame({f"v{j}": np.where(rng.random(n) < 0.45, z, rng.integers(0, 3, n)) for j in range(6)})
    X["w"] = np.where(rng.random(n) < 0.5, X["v0"], rng.integers(0, 2, n))
    return X


@pytest.fixture(scope="module")
def planted_data():
    return planted()


def small_fit(model, X, **kw):
    params = {"n_init": 2, "n_stochastic_steps": 20, "random_state": 0, **kw}
    return CEMClustering(2, model=model, **params).fit(X)


# ------------------------------------------------------------------------------------------------ behaviour
@pytest.mark.parametrize("model", MODELS)
def test_planted_two_clusters_recovered(model, planted_data):
    X, z = planted_data
    cem = CEMClustering(2, model=model, n_init=3, n_stochastic_steps=30, random_state=0).fit(X)
    assert clustering_accuracy(z, cem.labels_) > 0.95
    assert cem.converged_
    assert_array_equal(cem.fit_predict(X), cem.labels_)
    assert_array_equal(cem.predict(X), cem.labels_)  # a converged partition is a fixed point of the C-step


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cml_never_decreases_across_c_steps(model, seed):
    X = noisy(seed=seed)
    cem = CEMClustering(3, model=model, n_init=1, n_stochastic_steps=0, empty_cluster="drop",
                        random_state=seed).fit(X)
    trace = cem.cml_trace_
    assert trace.shape[0] == cem.n_iter_ + 1 >= 3  # the C-stage did move
    if model == "sbn":
        # the SBN M-step maximises CML minus the structure code length (MAP forest), which is what is monotone
        penalty = 2.0 * math.log2(X.shape[1] + 1) * _LN2
        trace = trace - penalty * cem.n_edges_trace_
    assert (np.diff(trace) >= -1e-9 * np.abs(trace[1:])).all()
    # the CML of the fitted model, recomputed independently, is the last entry
    assert_allclose(cem.cml_trace_[-1], cem.cml_)


@pytest.mark.parametrize("model", MODELS)
def test_c_stage_starts_from_best_stochastic_iterate(model):
    X = noisy(seed=4)
    cem = CEMClustering(3, model=model, n_init=1, n_stochastic_steps=15, random_state=3).fit(X)
    s = cem.cml_trace_[:16]
    assert cem.best_stochastic_iter_ == int(np.argmax(s))
    c = np.r_[s[cem.best_stochastic_iter_], cem.cml_trace_[16:]]
    if model != "sbn":
        assert (np.diff(c) >= -1e-9 * np.abs(c[1:])).all()


@pytest.mark.parametrize("model", MODELS)
def test_cml_is_the_complete_data_log_likelihood_of_the_pgmpy_model(model, planted_data):
    X, _ = planted_data
    cem = CEMClustering(2, model=model, n_init=1, n_stochastic_steps=5, random_state=0).fit(X)
    net = cem.to_network()
    lj = BatchPosterior(net, cem.cluster_node_).log_joint(X)  # log P(x, C = k) from the pgmpy CPDs
    assert_allclose(lj[np.arange(len(X)), cem.labels_].sum(), cem.cml_, rtol=1e-10)


# ------------------------------------------------------------------------------------------------ empty clusters
def few_rows():
    rng = np.random.default_rng(5)
    n = 40
    z = rng.integers(0, 2, n)
    return pd.DataFrame({f"a{j}": np.where(rng.random(n) < np.where(z == 0, .9, .1), 1, 0) for j in range(4)})


@pytest.mark.parametrize("model", MODELS)
def test_empty_cluster_reseed(model):
    cem = CEMClustering(5, model=model, n_init=1, n_stochastic_steps=30, alpha=1.0, empty_cluster="reseed",
                        random_state=0).fit(few_rows())
    assert cem.n_empty_events_ > 0
    assert (np.bincount(cem.labels_, minlength=5) > 0).all()
    assert (cem.weights_ > 0).all()
    assert cem.converged_


@pytest.mark.parametrize("model", MODELS)
def test_empty_cluster_drop(model):
    X = few_rows()
    cem = CEMClustering(5, model=model, n_init=1, n_stochastic_steps=30, alpha=1.0, empty_cluster="drop",
                        random_state=0).fit(X)
    assert cem.n_empty_events_ > 0
    dead = cem.weights_ == 0
    assert dead.any()
    assert not np.isin(np.flatnonzero(dead), cem.labels_).any()
    proba = cem.predict_proba(X)
    assert (proba[:, dead] == 0).all()
    assert_allclose(proba.sum(axis=1), 1.0)
    assert_array_equal(np.bincount(cem.labels_, minlength=5) / len(X), cem.weights_)


@pytest.mark.parametrize("model", MODELS)
def test_empty_cluster_reject(model):
    cem = CEMClustering(5, model=model, n_init=1, n_stochastic_steps=30, alpha=1.0, empty_cluster="reject",
                        random_state=0).fit(few_rows())
    assert cem.n_empty_events_ > 0
    assert (np.bincount(cem.labels_, minlength=5) > 0).all()


def test_policies_agree_when_nothing_empties(planted_data):
    X, _ = planted_data
    fits = [CEMClustering(2, model="tan", n_init=1, n_stochastic_steps=10, empty_cluster=p, random_state=1).fit(X)
            for p in ("reseed", "drop", "reject")]
    assert all(f.n_empty_events_ == 0 for f in fits)
    for f in fits[1:]:
        assert_array_equal(f.labels_, fits[0].labels_)


# ------------------------------------------------------------------------------------------------ determinism
@pytest.mark.parametrize("model", MODELS)
def test_same_random_state_same_result(model):
    X = noisy()
    a = CEMClustering(3, model=model, n_init=3, n_stochastic_steps=10, random_state=7).fit(X)
    b = CEMClustering(3, model=model, n_init=3, n_stochastic_steps=10, random_state=7).fit(X)
    c = CEMClustering(3, model=model, n_init=3, n_stochastic_steps=10, random_state=7, n_jobs=2).fit(X)
    g = CEMClustering(3, model=model, n_init=3, n_stochastic_steps=10,
                      random_state=np.random.default_rng(7)).fit(X)
    for other in (b, c, g):
        assert_array_equal(other.labels_, a.labels_)
        assert_array_equal(other.cml_trace_, a.cml_trace_)
        assert_array_equal(other.start_scores_, a.start_scores_)
        assert_array_equal(other.predict_proba(X), a.predict_proba(X))
        na, no = a.to_network(), other.to_network()
        assert sorted(na.edges()) == sorted(no.edges())
        for node in na.nodes():
            assert na.get_cpds(node) == no.get_cpds(node)
    d = CEMClustering(3, model=model, n_init=3, n_stochastic_steps=10, random_state=8).fit(X)
    assert not np.array_equal(d.start_scores_, a.start_scores_)


def test_more_starts_keep_the_earlier_ones():
    X = noisy()
    a = CEMClustering(3, model="tan", n_init=2, n_stochastic_steps=5, random_state=3).fit(X)
    b = CEMClustering(3, model="tan", n_init=4, n_stochastic_steps=5, random_state=3).fit(X)
    assert_array_equal(b.start_scores_[:2], a.start_scores_)


@pytest.mark.parametrize("model", MODELS)
def test_distinct_row_compression_gives_identical_results(model, monkeypatch):
    X, _ = planted(n=300, m=4, seed=2)  # 81 possible rows: compressed by default
    on = CEMClustering(2, model=model, n_init=2, n_stochastic_steps=10, random_state=0).fit(X)
    monkeypatch.setattr(engine, "COMPRESS_BELOW", -1.0)
    off = CEMClustering(2, model=model, n_init=2, n_stochastic_steps=10, random_state=0).fit(X)
    assert_array_equal(on.labels_, off.labels_)
    assert_allclose(on.cml_trace_, off.cml_trace_, rtol=1e-12)


# ------------------------------------------------------------------------------------------------ M-step = engines
@pytest.mark.parametrize("model", MODELS)
def test_m_step_structure_equals_the_classifier_engines(model, planted_data):
    X, _ = planted_data
    data = encode(X)
    labels = (np.random.default_rng(0).random(len(X)) < 0.4).astype(np.int32)
    params = MStep(data, 2, model)(labels)
    labelled = EncodedData(np.column_stack([data.codes, labels]), [*data.columns, "z"], [*data.states, [0, 1]])
    features = list(data.columns)
    if model == "cl":  # a Chow-Liu tree on each cluster's rows
        for k in range(2):
            ref = fit_chow_liu_tree(data.take(labels == k))
            assert_array_equal(params.layout.parents[k], ref.parents)
        return
    ref = fit_tan(labelled, "z") if model == "tan" else fit_sbn(labelled, "z")
    got = {(features[p], features[i]) for i, p in enumerate(params.layout.parents[0]) if p >= 0}
    assert got == set(ref.augmenting_edges())
    assert (params.layout.parents == params.layout.parents[0]).all()


def test_shared_structure_helpers_are_the_engines_ones(planted_data):
    """CEM's M-step and the classifier engines use one set of spanning-tree helpers from pgmpy_ext.structure."""
    X, _ = planted_data
    data = encode(X)
    labels = (np.random.default_rng(1).random(len(X)) < 0.3).astype(np.int32)
    labelled = EncodedData(np.column_stack([data.codes, labels]), [*data.columns, "z"], [*data.states, [0, 1]])
    features = list(data.columns)
    trees = chow_liu_trees_per_class(pairwise_counts(labelled, features, cond="z"), root=2)
    multinet = fit_cl_multinet(labelled, "z", root=features[2])
    for k, tree in enumerate(trees):
        assert_array_equal(tree.weights, multinet.trees[k].weights)
        assert tree.edges == multinet.trees[k].edges
        assert_array_equal(tree.parents, fit_chow_liu_tree(data.take(labels == k), root=features[2]).parents)
    ref = fit_sbn(labelled, "z")
    walk = sbn_walk(ref.trace["cmi"], float(len(X)), ref.trace["penalty_bits"])
    assert [r["accepted"] for r in ref.trace["monitor"]] == [e < walk.n_accepted for e in range(len(walk.sequence))]
    assert_array_equal([r["K_bits"] for r in ref.trace["monitor"]], walk.K)
    with pytest.raises(ValueError, match="root 'nope' is not one of the features"):
        root_index(features, "nope")


def test_sbn_is_a_forest_between_nb_and_tan(planted_data):
    X, _ = planted_data
    tan = CEMClustering(2, model="tan", n_init=1, n_stochastic_steps=5, random_state=0).fit(X)
    sbn = CEMClustering(2, model="sbn", n_init=1, n_stochastic_steps=5, random_state=0).fit(X)
    assert tan.n_edges_trace_[-1] == X.shape[1] - 1
    assert 0 <= sbn.n_edges_trace_[-1] <= X.shape[1] - 1
    aug = [(u, v) for u, v in sbn.model_.edges() if u != sbn.cluster_node_]
    assert len(aug) == sbn.n_edges_trace_[-1]


# ------------------------------------------------------------------------------------------------ pgmpy equality
@pytest.mark.parametrize("model", ["tan", "sbn"])
def test_predict_proba_equals_pgmpy_inference(model, planted_data):
    X, _ = planted_data
    cem = CEMClustering(2, model=model, n_init=2, n_stochastic_steps=10, random_state=0).fit(X)
    net = cem.model_
    assert isinstance(net, DiscreteBayesianNetwork)
    assert net.check_model()
    assert net.latents == {cem.cluster_node_}
    assert set(net.successors(cem.cluster_node_)) == set(X.columns)
    ve = VariableElimination(net)
    proba = cem.predict_proba(X.iloc[:25])
    for r in range(25):
        q = ve.query([cem.cluster_node_], evidence={c: int(X.iloc[r][c]) for c in X.columns}, show_progress=False)
        assert q.state_names[cem.cluster_node_] == [0, 1]
        assert_allclose(proba[r], q.values, rtol=1e-9, atol=1e-12)


def test_cl_multinet_and_its_single_network(planted_data):
    X, _ = planted_data
    cem = CEMClustering(2, model="cl", n_init=2, n_stochastic_steps=10, random_state=0).fit(X)
    assert set(cem.models_) == {0, 1}
    for k, m in cem.models_.items():
        assert m.check_model()
        assert len(m.edges()) == X.shape[1] - 1
    net = cem.to_network()
    assert net.check_model()
    assert net.latents == {cem.cluster_node_}
    ve = VariableElimination(net)
    proba = cem.predict_proba(X.iloc[:15])
    for r in range(15):
        q = ve.query([cem.cluster_node_], evidence={c: int(X.iloc[r][c]) for c in X.columns}, show_progress=False)
        assert_allclose(proba[r], q.values, rtol=1e-9, atol=1e-12)


def _tree(edges, cpt_seed):
    """A random binary network over A, B, D, E with the given edges."""
    rng = np.random.default_rng(cpt_seed)
    m = DiscreteBayesianNetwork()
    m.add_nodes_from(["A", "B", "D", "E"])
    m.add_edges_from(edges)
    for v in m.nodes():
        pa = sorted(m.predecessors(v))
        vals = rng.dirichlet([1, 1], size=2 ** len(pa)).T
        m.add_cpds(TabularCPD(v, 2, vals, evidence=pa or None, evidence_card=[2] * len(pa) or None))
    return m


def test_multinet_to_network_is_exact():
    # cluster trees oriented in conflicting ways (and one v-structure) so that parent sets must grow
    nets = {0: _tree([("A", "B"), ("B", "D"), ("D", "E")], 0),
            1: _tree([("E", "D"), ("D", "B"), ("B", "A")], 1),
            2: _tree([("A", "D"), ("B", "D"), ("D", "E")], 2)}
    w = np.array([0.5, 0.3, 0.2])
    net = multinet_to_network(nets, w, cluster_node="C")
    assert net.check_model()
    nodes = ["A", "B", "D", "E"]
    for values in itertools.product([0, 1], repeat=4):
        x = dict(zip(nodes, values))
        for k, m in nets.items():
            expect = w[k] * m.get_state_probability(x)
            assert_allclose(net.get_state_probability({**x, "C": k}), expect, rtol=1e-10, atol=1e-15)


def test_minimal_parents():
    chain = DiscreteBayesianNetwork([("A", "B"), ("B", "D"), ("D", "E")])
    assert minimal_parents(chain, "E", ["A", "B", "D"]) == ["D"]
    assert minimal_parents(chain, "A", ["E", "D"]) == ["D"]
    assert minimal_parents(chain, "B", ["A", "E"]) == ["A", "E"]  # E reaches B through D
    collider = DiscreteBayesianNetwork([("A", "D"), ("B", "D")])
    assert minimal_parents(collider, "B", ["A"]) == []
    assert minimal_parents(collider, "B", ["A", "D"]) == ["A", "D"]


# ------------------------------------------------------------------------------------------------ API contract
@parametrize_with_checks([CEMClustering(n_init=2, n_stochastic_steps=5, model=m) for m in MODELS],
                         expected_failed_checks=lambda est: {
                             "check_clustering": "continuous Gaussian blobs: CEMClustering needs discrete data and "
                                                 "rejects real-valued columns by design (discretise first)",
                             "check_estimators_nan_inf": "predict/score sum NaN cells out exactly (the E step "
                                                         "marginalises) while fit refuses them; allow_nan=False "
                                                         "describes fit, and the tag cannot say 'predict only'"})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_fit_leaves_the_input_unchanged_and_pickles(planted_data):
    X, _ = planted_data
    X = X.assign(x0=X["x0"].map({0: "lo", 1: "mid", 2: "hi"}))
    before = X.copy()
    cem = small_fit("tan", X)
    pd.testing.assert_frame_equal(X, before)
    assert cem.model_.get_cpds("x0").state_names["x0"] == ["hi", "lo", "mid"]
    again = pickle.loads(pickle.dumps(cem))
    assert_array_equal(again.predict_proba(X), cem.predict_proba(X))
    assert clone(cem).get_params() == cem.get_params()
    assert cem.n_features_in_ == X.shape[1]
    assert list(cem.feature_names_in_) == list(X.columns)


@pytest.mark.parametrize("model", MODELS)
def test_score_and_numpy_input(model, planted_data):
    X, _ = planted_data
    cem = small_fit(model, X.to_numpy())
    lj = cem.predict_log_proba(X.to_numpy())
    assert_allclose(np.exp(lj).sum(axis=1), 1.0)
    s = cem.score_samples(X.to_numpy())
    assert s.shape == (len(X),)
    assert np.isfinite(s).all()
    assert_allclose(cem.score(X.to_numpy()), s.mean())


def test_unseen_value_and_missing_column_errors(planted_data):
    X, _ = planted_data
    cem = small_fit("tan", X)
    bad = X.iloc[:3].copy()
    bad.loc[bad.index[1], "x3"] = 7
    with pytest.raises(ValueError, match="Column 'x3' has value 7 at row 1 that was not seen during fit"):
        cem.set_params(handle_unknown="error").predict(bad)
    with pytest.raises(ValueError, match="x2"):
        cem.predict(X.drop(columns="x2"))


def test_rows_unseen_in_training_still_get_a_posterior():
    X = pd.DataFrame({"a": [0, 0, 1, 1] * 10, "b": [0, 0, 1, 1] * 10})
    cem = CEMClustering(2, model="tan", n_init=1, n_stochastic_steps=3, random_state=0).fit(X)
    proba = cem.predict_proba(pd.DataFrame({"a": [0], "b": [1]}))  # probability 0 under the MLE
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(), 1.0)


@pytest.mark.parametrize(("param", "value", "match"), [
    ("n_clusters", 0, "n_clusters == 0, must be >= 1"),
    ("model", "kdb", "model == 'kdb', must be one of"),
    ("init", "k-means++", "init == 'k-means\\+\\+', must be one of"),
    ("empty_cluster", "keep", "empty_cluster == 'keep', must be one of"),
    ("alpha", -1.0, "alpha == -1.0, must be >= 0"),
    ("n_init", 0, "n_init == 0, must be >= 1"),
    ("stopping", "never", "stopping == 'never', must be one of"),
])
def test_parameter_validation(param, value, match):
    with pytest.raises(ValueError, match=match):
        CEMClustering(**{param: value}).fit(noisy())


def test_too_few_distinct_rows():
    X = pd.DataFrame({"a": [0, 0, 1, 1], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError, match="only 2 distinct row"):
        CEMClustering(3).fit(X)


def test_missing_values_rejected():
    X = pd.DataFrame({"a": [0, 1, None, 1], "b": [1, 1, 0, 0]})
    with pytest.raises(ValueError, match="missing value"):
        CEMClustering(2).fit(X)


def test_convergence_warning():
    with pytest.warns(ConvergenceWarning, match="max_classification_steps=1"):
        CEMClustering(3, model="cl", n_init=1, n_stochastic_steps=0, max_classification_steps=1,
                      random_state=0).fit(noisy())


def test_kmeans_init_and_single_attribute_and_one_cluster():
    X = noisy()
    cem = CEMClustering(3, model="tan", init="kmeans", n_init=2, n_stochastic_steps=5, random_state=0).fit(X)
    assert set(np.unique(cem.labels_)) <= {0, 1, 2}
    one = CEMClustering(2, model="sbn", n_init=1, n_stochastic_steps=5, random_state=0).fit(X[["v0"]])
    assert one.model_.check_model()
    assert one.n_edges_trace_.max() == 0
    single = CEMClustering(1, model="cl", n_init=1, n_stochastic_steps=2, random_state=0).fit(X)
    assert (single.labels_ == 0).all()
    assert single.weights_.tolist() == [1.0]


def test_engine_face_agree(planted_data):
    X, _ = planted_data
    res = fit_cem(encode(X), 2, model="tan", n_init=2, n_stochastic_steps=5, random_state=0)
    cem = CEMClustering(2, model="tan", n_init=2, n_stochastic_steps=5, random_state=0).fit(X)
    assert_array_equal(res.best.labels, cem.labels_)
    assert res.best.cml == cem.cml_


def test_progress_bar_is_silent_by_default(planted_data, capsys):
    X, _ = planted_data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        small_fit("cl", X)
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == ""


def test_init_coordinates_option():
    X = noisy()
    codes = encode(X).codes
    a = CEMClustering(3, model="tan", n_init=2, n_stochastic_steps=5, random_state=0).fit(X)
    b = CEMClustering(3, model="tan", n_init=2, n_stochastic_steps=5, random_state=0, init=codes).fit(X)
    assert_array_equal(a.labels_, b.labels_)  # distances on the codes themselves: the default
    rng = np.random.default_rng(0)
    coords = rng.normal(size=(len(X), 2))
    c = CEMClustering(3, model="tan", n_init=2, n_stochastic_steps=5, random_state=0, init=coords).fit(X)
    assert c.labels_.shape == (len(X),)
    with pytest.raises(ValueError, match=r"init coordinates have shape \(5, 2\)"):
        CEMClustering(3, init=coords[:5]).fit(X)


ENGINE_BAD_OPTIONS = [
    ({"n_clusters": 0}, "n_clusters == 0, must be >= 1"),
    ({"model": "foo"}, r"model == 'foo', must be one of \('cl', 'tan', 'sbn'\)"),
    ({"n_init": 0}, "n_init == 0, must be >= 1"),
    ({"n_stochastic_steps": -1}, "n_stochastic_steps == -1, must be >= 0"),
    ({"max_classification_steps": -2}, "max_classification_steps == -2, must be >= 0"),
    ({"init": "k-means++"}, r"init == 'k-means\+\+', must be one of \('random_seeds', 'kmeans'\)"),
    ({"empty_cluster": "keep"}, "empty_cluster == 'keep', must be one of"),
    ({"alpha": -1.0}, "alpha == -1.0, must be >= 0"),
    ({"alpha": float("inf")}, "alpha == inf, must be a finite number"),
    ({"stopping": "never"}, r"stopping == 'never', must be one of \('marginal', 'cumulative'\)"),
]


@pytest.mark.parametrize(("options", "match"), ENGINE_BAD_OPTIONS, ids=[next(iter(o)) for o, _ in ENGINE_BAD_OPTIONS])
def test_fit_cem_validates_its_options_like_the_face(options, match):
    data = encode(noisy())
    kwargs = {"n_clusters": 2, "n_init": 1, "n_stochastic_steps": 2, "random_state": 0, **options}
    n_clusters = kwargs.pop("n_clusters")
    with pytest.raises(ValueError, match=match):
        fit_cem(data, n_clusters, **kwargs)
    with pytest.raises(ValueError, match=match):  # the same check, the same message
        CEMClustering(n_clusters, **kwargs).fit(noisy())


def test_fit_cem_type_errors():
    with pytest.raises(TypeError, match="data must be an EncodedData"):
        fit_cem(noisy(), 2)
    with pytest.raises(TypeError, match=r"n_init == 1.5, must be an int >= 1"):
        fit_cem(encode(noisy()), 2, n_init=1.5)
    with pytest.raises(TypeError, match="n_jobs == 'two', must be None or a non-zero int"):
        fit_cem(encode(noisy()), 2, n_jobs="two")
    with pytest.raises(TypeError, match="random_state == 'seed', must be None, an int >= 0 or a numpy Generator"):
        fit_cem(encode(noisy()), 2, random_state="seed")


def test_public_engine_pieces_validate_their_options():
    data = encode(noisy())
    uniq = unique_rows(data.codes, data.cards)
    rng = np.random.default_rng(0)
    opts = {"model": "tan", "n_stochastic_steps": 1, "max_classification_steps": 1, "init": "random_seeds",
            "empty_cluster": "reseed", "alpha": 0.0, "stopping": "marginal"}
    with pytest.raises(ValueError, match="model == 'foo', must be one of"):
        engine.cem_single_start(data, uniq, 2, rng, **{**opts, "model": "foo"})
    with pytest.raises(ValueError, match="empty_cluster == 'keep', must be one of"):
        engine.cem_single_start(data, uniq, 2, rng, **{**opts, "empty_cluster": "keep"})
    with pytest.raises(ValueError, match="model == 'foo', must be one of"):
        MStep(data, 2, "foo")
    with pytest.raises(ValueError, match="alpha == -0.5, must be >= 0"):
        MStep(data, 2, "cl", alpha=-0.5)
    with pytest.raises(ValueError, match="n_clusters == 0, must be >= 1"):
        MStep(data, 0, "cl")
    with pytest.raises(ValueError, match="init == 'foo', must be one of"):
        engine.initial_partition(data.codes, uniq.inverse, 2, rng, "foo")
    with pytest.raises(ValueError, match="points has 300 rows and row_ids 2"):
        engine.initial_partition(data.codes, uniq.inverse[:2], 2, rng, "random_seeds")


def test_multinet_converter_lives_in_models_only():
    import pgmpy_ext.clustering as clustering
    import pgmpy_ext.models as models

    assert "multinet_to_network" in models.__all__
    assert not hasattr(clustering, "multinet_to_network")  # one public home (issue 24, D13)
    assert models.multinet_to_network.__module__ == "pgmpy_ext.models._multinet"


def test_many_valued_numeric_column_is_refused_with_an_unsupervised_fix():
    """Issue 11: CEM on an integer column with many values (dermatology's Age) is not silently categorical."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 2, 300), "Age": rng.integers(0, 80, 300)})
    with pytest.raises(ValueError, match=r"Column 'Age' is numeric with \d+ distinct.*EqualFrequencyDiscretizer"):
        CEMClustering(2, n_init=1).fit(X)
    from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

    labels = EqualFrequencyDiscretizer(5).fit_transform(X)
    assert CEMClustering(2, n_init=1, random_state=0).fit(labels).labels_.shape == (300,)
