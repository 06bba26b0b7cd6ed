"""BBN-DT, BBN-ITDT and the weighting schemes (seed 004 sections 3-5)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.classifiers import K2Classifier
from pgmpy_ext.ensembles import BBNDTClassifier, ITDTEnsembleClassifier, member_weights, weighted_vote


def _data(seed=0, n=150, n_noise=12):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    yy = (y == "b").astype(int)
    cols = {f"r{j}": np.where(rng.random(n) < 0.8, yy, 1 - yy) for j in range(4)}
    cols.update({f"n{j}": rng.integers(0, 3, n) for j in range(n_noise)})
    return pd.DataFrame(cols), pd.Series(y, name="label")


# ------------------------------------------------------------------------------------------------- weighting
def test_weighting_schemes_by_hand():
    p = np.array([[[0.9, 0.1], [0.2, 0.8]],
                  [[0.4, 0.6], [0.3, 0.7]],
                  [[0.45, 0.55], [0.6, 0.4]]])
    e = np.array([0.1, 0.3, 0.2])
    s, w = weighted_vote(p, e, "majority")
    np.testing.assert_allclose(s, [[1 / 3, 2 / 3], [1 / 3, 2 / 3]])
    assert w.tolist() == [1, 1]
    s, w = weighted_vote(p, e, "training_error")  # row 0: 0.9 vs 0.7 + 0.8
    np.testing.assert_allclose(s[0], [0.9 / 2.4, 1.5 / 2.4])
    s, w = weighted_vote(p, e, "confidence")       # row 1: 0.6 vs 0.8 + 0.7
    np.testing.assert_allclose(s[1], [0.6 / 2.1, 1.5 / 2.1])
    s, w = weighted_vote(p, e, "soft")             # row 0: 1.75 vs 1.25
    assert w.tolist() == [0, 1]
    np.testing.assert_allclose(s[0], [1.75 / 3, 1.25 / 3])
    np.testing.assert_allclose(member_weights(lambda pr, te: 2.0, p, e), 2.0)
    with pytest.raises(ValueError, match=r"weighting == 'bogus'"):
        member_weights("bogus", p, e)


def test_ties_go_to_summed_posterior_then_training_majority():
    p = np.array([[[0.9, 0.1]], [[0.3, 0.7]]])           # one vote each; posterior sums 1.2 vs 0.8
    assert weighted_vote(p, np.zeros(2), "majority")[1].tolist() == [0]
    q = np.array([[[0.8, 0.2]], [[0.2, 0.8]]])           # one vote each, equal sums: the fallback class
    assert weighted_vote(q, np.zeros(2), "majority", fallback_class=1)[1].tolist() == [1]
    assert weighted_vote(q, np.zeros(2), "majority", fallback_class=0)[1].tolist() == [0]


# ----------------------------------------------------------------------------------------------------- BBN-DT
def test_bbndt_selects_tree_features_and_learns_a_network_on_them():
    X, y = _data()
    clf = BBNDTClassifier().fit(X, y)
    assert {"r0", "r1", "r2", "r3"} & set(clf.selected_features_)
    assert len(clf.selected_features_) < X.shape[1] // 2
    assert set(clf.model_.nodes()) == {"label", *clf.selected_features_}
    assert clf.score(X, y) > 0.8
    cart = BBNDTClassifier(tree=DecisionTreeClassifier(criterion="entropy", max_depth=2, random_state=0)).fit(X, y)
    assert len(cart.selected_features_) >= 1
    assert isinstance(cart.estimator_, K2Classifier)


def test_bbndt_single_leaf_tree_falls_back_to_the_prior():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"n": rng.integers(0, 3, 40)})
    y = np.array([0] * 30 + [1] * 10)
    clf = BBNDTClassifier().fit(X, y)
    assert clf.selected_features_.tolist() == []
    np.testing.assert_allclose(clf.predict_proba(X.iloc[:2]), [[0.75, 0.25]] * 2)
    clf.model_.check_model()


# ----------------------------------------------------------------------------------------------------- BBN-ITDT
def test_itdt_knockout_sets_are_disjoint_and_fc_is_cumulative():
    X, y = _data(1)
    clf = ITDTEnsembleClassifier(n_rounds=15, max_train_error=None, ensemble="FN+FC").fit(X, y)
    sets = [set(s) for s in clf.knockout_sets_]
    for i in range(len(sets)):
        for j in range(i):
            assert not sets[i] & sets[j]
    fn = [set(f) for f, k in zip(clf.feature_sets_, clf.kinds_) if k == "FN"]
    fc = [set(f) for f, k in zip(clf.feature_sets_, clf.kinds_) if k == "FC"]
    assert fn == sets
    assert fc == [set().union(*sets[:i + 1]) for i in range(len(sets))]
    assert len(clf.estimators_) == 2 * len(sets)


def test_itdt_training_error_filter_and_faithful_stop():
    X, y = _data(2)
    full = ITDTEnsembleClassifier(max_train_error=None).fit(X, y)
    strict = ITDTEnsembleClassifier(max_train_error=0.25).fit(X, y)
    assert all(e <= 0.25 for e in strict.train_errors_)
    assert len(strict.estimators_) == int((full.fn_errors_ <= 0.25).sum())
    # one feature only: the tree uses every remaining feature in round 1; the thesis's loop adds nothing
    X1 = X[["r0"]]
    assert len(ITDTEnsembleClassifier().fit(X1, y).estimators_) == 1
    with pytest.warns(UserWarning, match="no member"):
        fallback = ITDTEnsembleClassifier(faithful_stop=True).fit(X1, y)
    assert fallback.kinds_ == ["DT"]
    assert (fallback.predict(X1) == BBNDTClassifier().fit(X1, y).predict(X1)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="votes alone"):
            ITDTEnsembleClassifier(max_train_error=0.0).fit(X, y)


@pytest.mark.parametrize("ensemble", ["FN", "FC"])
def test_member_posteriors_equal_variable_elimination(ensemble):
    X, y = _data(4, n=120, n_noise=6)
    clf = ITDTEnsembleClassifier(n_rounds=3, max_train_error=None, ensemble=ensemble).fit(X, y)
    probas = clf.member_probas(X.iloc[:15])
    for k, (member, feats) in enumerate(zip(clf.estimators_, clf.feature_sets_)):
        ve = VariableElimination(member.model_)
        for r in range(15):
            ev = {f: X.iloc[r][f] for f in feats}
            q = ve.query(["label"], evidence=ev, show_progress=False)
            ref = [q.values[q.state_names["label"].index(c)] for c in clf.classes_]
            np.testing.assert_allclose(probas[k, r], ref, rtol=1e-9)


def test_bad_input_and_caller_data_untouched():
    X, y = _data(5, n=80)
    before = X.copy()
    clf = ITDTEnsembleClassifier(n_rounds=2).fit(X, y)
    pd.testing.assert_frame_equal(X, before)
    with pytest.raises(ValueError, match="single value 'a'"):
        ITDTEnsembleClassifier().fit(X, ["a"] * len(X))
    bad = X.copy()
    bad.loc[5, "r1"] = np.nan
    with pytest.raises(ValueError, match=r"Column 'r1' has a missing value .* at row 5.*Impute first"):
        BBNDTClassifier().fit(bad, y)
    new = X.iloc[:3].copy()
    new["r0"] = 7
    with pytest.raises(ValueError, match=r"'r0' has value 7"):
        ITDTEnsembleClassifier(n_rounds=2, handle_unknown="error").fit(X, y).predict(new)
    assert clf.predict(new).shape == (3,)  # "ignore": the unseen value is summed out
    with pytest.raises(ValueError, match=r"ensemble == 'XX'"):
        ITDTEnsembleClassifier(ensemble="XX").fit(X, y)
    pickle.loads(pickle.dumps(clf))
    assert clone(clf).get_params() == clf.get_params()


@parametrize_with_checks([BBNDTClassifier(), ITDTEnsembleClassifier(n_rounds=2)],
                         expected_failed_checks=lambda est: {
                             "check_estimators_nan_inf": "predict sums NaN cells out exactly (missing="
                                                         "'available_case', through the networks) while fit refuses "
                                                         "them (the C4.5 tree needs complete rows); allow_nan=False "
                                                         "describes fit, and the tag cannot say 'predict only' (as "
                                                         "the clusterers)"})
def test_sklearn_compatible(estimator, check):
    check(estimator)
