"""C4.5 (J48 semantics): hand-computed gain ratios and pruning decisions (seed 004 section 2), selector contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext.tree import C45Classifier, used_tree_features
from pgmpy_ext.tree._c45 import _info_gain, _split_info, add_errs

WEATHER = pd.DataFrame({
    "outlook": ["sunny", "sunny", "overcast", "rainy", "rainy", "rainy", "overcast", "sunny", "sunny", "rainy",
                "sunny", "overcast", "overcast", "rainy"],
    "temperature": ["hot", "hot", "hot", "mild", "cool", "cool", "cool", "mild", "cool", "mild", "mild", "mild", "hot",
                    "mild"],
    "humidity": ["high", "high", "high", "high", "normal", "normal", "normal", "high", "normal", "normal", "normal",
                 "high", "normal", "high"],
    "windy": [False, True, False, False, False, True, True, False, False, False, True, True, False, True],
})
PLAY = np.array(["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"])


@pytest.mark.parametrize(("n", "e", "expected"), [(6, 0, 1.2378), (9, 0, 1.2848), (1, 0, 0.75), (16, 1, 1.4757),
                                                  (100, 10, 2.7496), (24, 3, 1.8242)])
def test_add_errs_worked_values(n, e, expected):
    assert add_errs(n, e, 0.25) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize(("feature", "gain", "split", "ratio"), [
    ("outlook", 0.2467, 1.5774, 0.1564), ("temperature", 0.0292, 1.5567, 0.0188),
    ("humidity", 0.1518, 1.0, 0.1518), ("windy", 0.0481, 0.9852, 0.0488)])
def test_gain_ratio_on_quinlans_weather_data(feature, gain, split, ratio):
    """Quinlan (1993) chapter 2: the textbook gains and split infos at the root."""
    vals = sorted(set(WEATHER[feature]))
    bags = np.array([[np.sum((WEATHER[feature] == v) & (PLAY == c)) for c in ("no", "yes")] for v in vals], float)
    g = float(_info_gain(bags))
    s = float(_split_info(bags.sum(1)))
    assert g == pytest.approx(gain, abs=5e-4)
    assert s == pytest.approx(split, abs=5e-4)
    assert g / s == pytest.approx(ratio, abs=5e-4)


def test_weather_tree_is_j48s():
    """J48 on weather.nominal: outlook at the root, humidity under sunny, windy under rainy; 5 leaves."""
    tree = C45Classifier().fit(WEATHER, PLAY)
    assert tree.tree_.feature == 0
    assert tree.used_feature_names_.tolist() == ["outlook", "humidity", "windy"]
    assert tree.n_leaves_ == 5
    assert (tree.predict(WEATHER) == PLAY).all()


def test_quinlans_pruning_example_collapses_to_a_leaf():
    """Section 2.2: leaves (6, 0), (9, 0), (1, 0) cost 1.2378 + 1.2848 + 0.75 = 3.273 > 1 + 1.4757 as a leaf."""
    X = pd.DataFrame({"A": ["a"] * 6 + ["b"] * 9 + ["c"]})
    y = np.array([0] * 15 + [1])
    unpruned = C45Classifier(prune=False).fit(X, y)
    assert unpruned.n_leaves_ == 3
    assert unpruned.used_features_.tolist() == [0]
    pruned = C45Classifier().fit(X, y)
    assert pruned.n_leaves_ == 1
    assert pruned.used_features_.tolist() == []
    # a larger minority makes the split worth keeping: leaves (6,0),(9,0),(6,0) vs a leaf with 21 cases, 6 errors
    X2 = pd.DataFrame({"A": ["a"] * 6 + ["b"] * 9 + ["c"] * 6})
    y2 = np.array([0] * 15 + [1] * 6)
    kept = C45Classifier().fit(X2, y2)
    assert kept.n_leaves_ == 3
    assert 6 + add_errs(21, 6) > add_errs(6, 0) + add_errs(9, 0) + add_errs(6, 0) + 0.1


def test_numeric_threshold_and_min_cases():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
    y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    tree = C45Classifier().fit(x[:, None], y)
    assert tree.tree_.threshold == pytest.approx(5.5)
    assert (tree.predict(np.array([[5.4], [5.6]])) == [0, 1]).all()
    # one deviant case cannot be split off (min 2 cases per side)
    assert C45Classifier().fit(x[:, None], np.array([0] * 9 + [1])).n_leaves_ == 1


def test_subtree_raising_changes_or_keeps_a_valid_tree():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (200, 6)).astype(str), columns=list("abcdef"))
    y = ((X["a"] == "0") & (rng.random(200) < 0.9)) | ((X["b"] == "1") & (rng.random(200) < 0.3))
    for raising in (True, False):
        tree = C45Classifier(subtree_raising=raising).fit(X, y)
        assert set(tree.used_features_.tolist()) <= set(range(6))
        assert 0 in tree.used_features_
    assert C45Classifier(prune=False).fit(X, y).n_leaves_ >= C45Classifier().fit(X, y).n_leaves_


def test_selects_the_relevant_features_and_accepts_sklearn_trees():
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({f"g{j}": rng.integers(0, 3, n) for j in range(30)}).astype("category")
    X["g7"] = pd.Categorical(np.where(rng.random(n) < 0.9, y, 1 - y))
    tree = C45Classifier().fit(X, y)
    assert tree.used_features_.tolist() == [7]
    cart = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X.astype(int), y)
    assert used_tree_features(cart).tolist() == [7]
    assert used_tree_features(tree).tolist() == [7]
    from sklearn.linear_model import LogisticRegression

    linear = LogisticRegression().fit(X.astype(int), y)
    with pytest.raises(TypeError, match="is not a tree"):
        used_tree_features(linear)


def test_errors_and_data_untouched():
    X = WEATHER.copy()
    before = X.copy()
    tree = C45Classifier().fit(X, PLAY)
    pd.testing.assert_frame_equal(X, before)
    with pytest.raises(ValueError, match="single value"):
        C45Classifier().fit(X, ["yes"] * 14)
    bad = X.copy()
    bad.loc[3, "outlook"] = None
    with pytest.raises(ValueError, match=r"Column 'outlook' has a missing .* at row 3.*SimpleImputer"):
        C45Classifier().fit(bad, PLAY)
    with pytest.raises(ValueError, match=r"confidence == 0.7"):
        C45Classifier(confidence=0.7).fit(X, PLAY)
    unseen = X.iloc[:1].copy()
    unseen["outlook"] = "foggy"  # an unseen value stops at the root: the root distribution
    np.testing.assert_allclose(tree.predict_proba(unseen), [[5 / 14, 9 / 14]])
    clone(tree)


@parametrize_with_checks([C45Classifier()])
def test_sklearn_compatible(estimator, check):
    check(estimator)
