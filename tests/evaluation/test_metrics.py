"""Metrics: accuracy, CLL, LL (and the joint of the pgmpy-ext classifiers), clustering accuracy (seed 000 §6.2, D15)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.evaluation import (
    PROBA_FLOOR,
    accuracy,
    cluster_class_mapping,
    clustering_accuracy,
    conditional_log_likelihood_score,
    joint_log_proba,
    log_likelihood_score,
)


@pytest.fixture(scope="module")
def small_xy():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 3, size=(40, 3)), columns=["a", "b", "c"])
    y = pd.Series(np.where((X["a"] + rng.integers(0, 2, 40)) % 2 == 0, "even", "odd"), name="cls")
    return X, y


def test_accuracy_by_hand():
    assert accuracy(["a", "b", "b", "a"], ["a", "b", "a", "a"]) == 0.75
    assert math.isnan(accuracy([], []))
    with pytest.raises(ValueError, match="y_true has 2 labels but y_pred has 1"):
        accuracy(["a", "b"], ["a"])


def test_cll_by_hand():
    y = ["a", "b", "c"]
    P = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    hand = math.log(0.5) + math.log(0.8) + math.log(0.6)
    assert conditional_log_likelihood_score(y, P, ["a", "b", "c"]) == pytest.approx(hand, rel=1e-14)
    assert conditional_log_likelihood_score(y, P, ["a", "b", "c"], reduce="mean") == pytest.approx(hand / 3, rel=1e-14)
    per_row = conditional_log_likelihood_score(y, P, ["a", "b", "c"], reduce="none")
    np.testing.assert_allclose(per_row, np.log([0.5, 0.8, 0.6]), rtol=1e-14)
    assert conditional_log_likelihood_score(y, np.log(P), ["a", "b", "c"], log=True) == pytest.approx(hand, rel=1e-14)
    # column order follows `classes`, not the labels' sort order
    assert conditional_log_likelihood_score(["b"], [[0.3, 0.7]], ["b", "a"]) == pytest.approx(math.log(0.3))


def test_cll_floor_keeps_it_finite():
    assert conditional_log_likelihood_score(["a"], [[0.0, 1.0]], ["a", "b"]) == pytest.approx(math.log(PROBA_FLOOR))
    assert conditional_log_likelihood_score(["a"], [[0.0, 1.0]], ["a", "b"], floor=1e-10) == pytest.approx(
        -10 * math.log(10))
    assert conditional_log_likelihood_score(["a"], [[-np.inf, 0.0]], ["a", "b"], log=True) == pytest.approx(
        math.log(PROBA_FLOOR))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: conditional_log_likelihood_score(["z"], [[0.5, 0.5]], ["a", "b"]), "label 'z' at row 0"),
    (lambda: conditional_log_likelihood_score(["a"], [[0.5, 0.5]], ["a", "b", "c"]), "2 columns but 3 classes"),
    (lambda: conditional_log_likelihood_score(["a", "b"], [[0.5, 0.5]], ["a", "b"]), "shape"),
    (lambda: conditional_log_likelihood_score(["a"], [[0.5, 0.5]], ["a", "b"], floor=0), "floor == 0"),
    (lambda: conditional_log_likelihood_score(["a"], [[0.5, 0.5]], ["a", "b"], reduce="max"), "reduce == 'max'"),
    (lambda: log_likelihood_score(["a"], [[0.5, 0.5, 0.1]], ["a", "b"]), "joint_log_proba must have shape"),
], ids=["unknown-label", "columns", "rows", "floor", "reduce", "ll-shape"])
def test_metric_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_ll_equals_cll_plus_marginal_for_naive_bayes(small_xy):
    X, y = small_xy
    clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
    lj = joint_log_proba(clf, X)
    ll = log_likelihood_score(y, lj, clf.classes_)
    cll = conditional_log_likelihood_score(y, clf.predict_proba(X), clf.classes_)
    log_px = np.logaddexp.reduce(lj, axis=1).sum()
    assert ll == pytest.approx(cll + log_px, rel=1e-10)  # LL = CLL + sum log p(x)  (Eq. 5.1)


def test_joint_of_naive_bayes_by_hand_from_its_cpds(small_xy):
    X, y = small_xy
    clf = NaiveBayesClassifier(alpha=1.0).fit(X, y)
    model = clf.model_
    lj = joint_log_proba(clf, X.iloc[:3])
    for r in range(3):
        for k, c in enumerate(clf.classes_):
            hand = math.log(model.get_cpds("cls").get_value(cls=c))
            for f in ["a", "b", "c"]:
                hand += math.log(model.get_cpds(f).get_value(**{f: int(X.iloc[r][f]), "cls": c}))
            assert lj[r, k] == pytest.approx(hand, rel=1e-12)


def test_joint_log_proba_sources(small_xy):
    X, y = small_xy
    tan = TANClassifier().fit(X, y)
    lj = joint_log_proba(tan, X)
    np.testing.assert_allclose(lj - np.logaddexp.reduce(lj, axis=1, keepdims=True), tan.predict_log_proba(X),
                               rtol=1e-10, atol=1e-12)
    # a Pipeline: earlier steps transform X first
    pipe = Pipeline([("id", FunctionTransformer(lambda d: d.copy())), ("clf", TANClassifier())]).fit(X, y)
    np.testing.assert_allclose(joint_log_proba(pipe, X), lj, rtol=1e-12)
    # scikit-learn's naive Bayes API
    cnb = CategoricalNB().fit(X, y)
    np.testing.assert_array_equal(joint_log_proba(cnb, X), cnb.predict_joint_log_proba(X))
    with pytest.raises(TypeError, match="LogisticRegression exposes no joint probability"):
        joint_log_proba(LogisticRegression().fit(X, y), X)


def test_joint_log_proba_on_array_input(small_xy):
    X, y = small_xy
    clf = NaiveBayesClassifier().fit(X, y)
    np.testing.assert_allclose(joint_log_proba(clf, X.to_numpy()), joint_log_proba(clf, X), rtol=1e-12)


# ---------------------------------------------------------------------------------------------- clustering
def test_clustering_accuracy_vote_vs_one_to_one_by_hand():
    # cluster 0: 3 x 'a' + 2 x 'b'; cluster 1: 2 x 'a'. Vote: 0 -> a, 1 -> a (5/7).
    # One-to-one: greedy (0 -> a) would give 3/7; the optimum is 0 -> b, 1 -> a: 4/7.
    y = ["a", "a", "a", "b", "b", "a", "a"]
    c = [0, 0, 0, 0, 0, 1, 1]
    assert clustering_accuracy(y, c) == pytest.approx(5 / 7)
    assert clustering_accuracy(y, c, mapping="one-to-one") == pytest.approx(4 / 7)
    assert cluster_class_mapping(y, c) == {0: "a", 1: "a"}
    assert cluster_class_mapping(y, c, mapping="one-to-one") == {0: "b", 1: "a"}


def test_clustering_accuracy_permutation_and_extra_clusters():
    y = ["x", "x", "y", "y", "z", "z"]
    assert clustering_accuracy(y, [2, 2, 0, 0, 1, 1]) == 1.0
    assert clustering_accuracy(y, [2, 2, 0, 0, 1, 1], mapping="one-to-one") == 1.0
    # 4 clusters for 3 classes: voting can use them all, one-to-one leaves one cluster unmatched
    c = [0, 3, 1, 1, 2, 2]
    assert clustering_accuracy(y, c) == 1.0
    assert clustering_accuracy(y, c, mapping="one-to-one") == pytest.approx(5 / 6)
    assert len(cluster_class_mapping(y, c, mapping="one-to-one")) == 3
    # vote ties go to the first class in sorted order
    assert cluster_class_mapping(["b", "a"], [0, 0]) == {0: "a"}
    with pytest.raises(ValueError, match="mapping == 'greedy'"):
        clustering_accuracy(y, c, mapping="greedy")
    with pytest.raises(ValueError, match="y_true has 6 labels but labels_pred has 2"):
        clustering_accuracy(y, [0, 1])


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=25))
def test_one_to_one_equals_brute_force(pairs):
    y = [p[0] for p in pairs]
    c = [p[1] for p in pairs]
    classes, clusters = sorted(set(y)), sorted(set(c))
    best = 0
    for perm in itertools.permutations(classes + [None] * len(clusters), len(clusters)):
        best = max(best, sum(1 for yi, ci in zip(y, c) if perm[clusters.index(ci)] == yi))
    assert clustering_accuracy(y, c, mapping="one-to-one") == pytest.approx(best / len(y))
    assert clustering_accuracy(y, c) >= clustering_accuracy(y, c, mapping="one-to-one")


def test_one_public_conditional_log_likelihood():
    """The metric is ``conditional_log_likelihood_score``; ``conditional_log_likelihood`` is only the kernel wrapper."""
    import pgmpy_ext.evaluation as ev
    import pgmpy_ext.stats as st

    assert not hasattr(ev, "conditional_log_likelihood")
    assert callable(st.conditional_log_likelihood)
