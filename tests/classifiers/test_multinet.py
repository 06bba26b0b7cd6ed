"""Chow-Liu multinet: per-class trees equal per-class Chow-Liu (ours and pgmpy's), CPDs equal pgmpy's estimator on the
class's rows, posteriors equal an explicit computation from ``models_`` with pgmpy inference."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from pgmpy.parameter_estimator import DiscreteBayesianEstimator, DiscreteMLE

from pgmpy_ext._compat import DAG, VariableElimination
from pgmpy_ext.classifiers import CLMultinetClassifier
from pgmpy_ext.data import encode
from pgmpy_ext.structure import CLMultinetSearch, fit_chow_liu_tree, fit_cl_multinet


def _two_chains(seed: int = 0, n: int = 600) -> tuple[pd.DataFrame, pd.Series]:
    """Class 'p': A - B - D - E chain; class 'q': A - E - D - B chain; F is noise (3 states)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q"], n)
    a = rng.integers(0, 2, n)

    def noisy(v, p):
        return v ^ (rng.random(n) < p)

    s1 = noisy(a, 0.1)
    s2 = noisy(s1, 0.15)
    s3 = noisy(s2, 0.2)
    X = pd.DataFrame({"A": a, "B": np.where(y == "p", s1, s3), "D": s2, "E": np.where(y == "p", s3, s1),
                      "F": rng.integers(0, 3, n)})
    return X, pd.Series(y, name="cls")


@given(st.integers(0, 2**32 - 1), st.integers(2, 3), st.lists(st.integers(1, 4), min_size=1, max_size=5),
       st.booleans())
def test_trees_equal_chow_liu_on_each_class(seed, k_classes, cards, weighted):
    rng = np.random.default_rng(seed)
    n = 90
    df = pd.DataFrame({"C": rng.integers(0, k_classes, n), **{f"X{j}": rng.integers(0, r, n)
                                                               for j, r in enumerate(cards)}})
    data = encode(df, weights=rng.random(n) if weighted else None)
    res = fit_cl_multinet(data, "C")
    y = data.codes[:, data.index("C")]
    for k in range(data.card("C")):
        ref = fit_chow_liu_tree(data.take(y == k), res.features)
        assert res.trees[k].edges == ref.edges
        assert_array_equal(res.trees[k].parents, ref.parents)
        assert_allclose(res.trees[k].weights, ref.weights, rtol=1e-12, atol=1e-15)
    assert_allclose(res.class_counts, np.bincount(y, weights=data.weights, minlength=data.card("C")), rtol=1e-12)


def test_trees_match_pgmpy_treesearch_skeletons():
    from pgmpy.estimators import TreeSearch  # noqa: F401  (imported after pgmpy_ext._compat, which filters)

    X, y = _two_chains()
    df = X.assign(cls=y)
    res = fit_cl_multinet(encode(df), "cls")
    assert res.classes == ["p", "q"]
    for k, label in enumerate(res.classes):
        rows = df[df["cls"] == label].drop(columns="cls")
        w = res.trees[k].weights
        upper = w[np.triu_indices_from(w, k=1)]
        assert np.unique(upper).size == upper.size  # distinct weights: a unique maximum spanning tree
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dag = TreeSearch(rows, root_node="A", n_jobs=1).estimate(estimator_type="chow-liu", show_progress=False)
        assert {frozenset(e) for e in res.edges(k)} == {frozenset(e) for e in dag.edges()}
    assert {frozenset(e) for e in res.edges(0)} >= {frozenset(("A", "B")), frozenset(("B", "D"))}
    assert {frozenset(e) for e in res.edges(1)} >= {frozenset(("A", "E")), frozenset(("E", "D"))}


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_models_are_per_class_fits(alpha):
    X, y = _two_chains(1)
    clf = CLMultinetClassifier(alpha=alpha).fit(X, y)
    assert list(clf.classes_) == ["p", "q"]
    assert set(clf.models_) == {"p", "q"}
    assert not hasattr(clf, "model_")
    n_k = y.value_counts().reindex(clf.classes_).to_numpy()
    assert_allclose(clf.class_prior_, (n_k + alpha) / (n_k.sum() + 2 * alpha), rtol=1e-12)
    for k, label in enumerate(clf.classes_):
        model = clf.models_[label]
        assert model.check_model()
        assert set(model.nodes()) == set(X.columns)
        assert sorted(model.edges()) == sorted(clf.structure_.edges(k))
        dag = DAG()
        dag.add_nodes_from(X.columns)
        dag.add_edges_from(model.edges())
        states = {c: clf.encoder_.states[clf.encoder_.index(c)] for c in X.columns}
        est = (DiscreteMLE(state_names=states) if alpha == 0 else
               DiscreteBayesianEstimator(state_names=states, prior_type="dirichlet", pseudo_counts=alpha))
        ref = {c.variable: c for c in est.fit(dag, X[(y == label).to_numpy()]).parameters_}
        for node in X.columns:
            ours, theirs = model.get_cpds(node), ref[node]
            assert ours.variables == theirs.variables
            assert_allclose(ours.get_values(), theirs.get_values(), rtol=1e-12, atol=1e-15)


def test_predict_proba_equals_explicit_pgmpy_computation():
    X, y = _two_chains(2, n=300)
    clf = CLMultinetClassifier().fit(X, y)
    feats = list(X.columns)
    joints = {}
    for label, model in clf.models_.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joints[label] = VariableElimination(model).query(feats, joint=True, show_progress=False)
    # every distinct feature combination (binary A, B, D, E and 3-state F: 48 rows), seen or not
    grid = pd.DataFrame(list(itertools.product([0, 1], [0, 1], [0, 1], [0, 1], [0, 1, 2])), columns=feats)
    expected = np.empty((len(grid), 2))
    for r, row in enumerate(grid.itertuples(index=False)):
        for k, label in enumerate(clf.classes_):
            expected[r, k] = clf.class_prior_[k] * joints[label].get_value(**dict(zip(feats, row)))
    expected /= expected.sum(axis=1, keepdims=True)
    assert_allclose(clf.predict_proba(grid), expected, rtol=1e-9, atol=1e-12)
    assert_array_equal(clf.predict(grid), clf.classes_[np.argmax(expected, axis=1)])
    assert clf.score(X, y) > 0.6


def test_root_changes_orientation_only_and_ml_posterior_is_root_invariant():
    X, y = _two_chains(3)
    a = CLMultinetClassifier(alpha=0.0).fit(X, y)
    b = CLMultinetClassifier(alpha=0.0, root="D").fit(X, y)
    for label in a.classes_:
        assert {frozenset(e) for e in a.models_[label].edges()} == {frozenset(e) for e in b.models_[label].edges()}
        assert b.models_[label].get_parents("D") == []
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)
    with pytest.raises(ValueError, match=r"root 'Z' is not one of the features"):
        CLMultinetClassifier(root="Z").fit(X, y)


def test_numpy_input_and_three_classes():
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 3, n)
    base = rng.integers(0, 2, n)
    X = np.column_stack([base, np.where(y == 0, base, rng.integers(0, 2, n)), np.where(y == 2, base, 1 - base)])
    clf = CLMultinetClassifier().fit(X, y)
    assert set(clf.models_) == {0, 1, 2}
    assert sorted(clf.models_[0].nodes()) == ["x0", "x1", "x2"]
    proba = clf.predict_proba(X)
    assert proba.shape == (n, 3)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert clf.score(X, y) > 0.6


def test_search_face_returns_one_dag_per_class_state():
    X, y = _two_chains(5, n=200)
    df = X.assign(cls=y)
    search = CLMultinetSearch(df, state_names={"cls": ["p", "q", "r"]})
    dags = search.estimate(class_node="cls", root="B")
    assert list(dags) == ["p", "q", "r"]
    for k, dag in enumerate(dags.values()):
        assert set(dag.nodes()) == set(X.columns)
        assert dag.number_of_edges() == len(X.columns) - 1
        assert dag.in_degree("B") == 0
    # the declared state without rows: all-zero MI, the tie-broken star around the first feature, rooted at B
    assert {frozenset(e) for e in dags["r"].edges()} == {frozenset(("A", f)) for f in ["B", "D", "E", "F"]}
    assert search.result_.class_counts.tolist() == [float((y == "p").sum()), float((y == "q").sum()), 0.0]
    with pytest.raises(ValueError, match="class_node is required"):
        search.estimate()


@pytest.mark.parametrize(("params", "exc", "match"), [
    ({"alpha": -0.5}, ValueError, r"alpha == -0.5, must be >= 0"),
    ({"n_jobs": 1.5}, TypeError, r"n_jobs == 1.5, must be None or a non-zero int"),
], ids=["alpha", "n_jobs"])
def test_parameter_validation(params, exc, match):
    X, y = _two_chains(6, n=50)
    with pytest.raises(exc, match=match):
        CLMultinetClassifier(**params).fit(X, y)


def test_deterministic_learner_takes_no_random_state():
    assert "random_state" not in CLMultinetClassifier().get_params()
    with pytest.raises(TypeError, match="unexpected keyword argument 'random_state'"):
        CLMultinetClassifier(random_state=0)
