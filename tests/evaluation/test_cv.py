"""The cross-validation harness: identical folds, no leakage, determinism over n_jobs, protocols, summaries."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedKFold, StratifiedKFold
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import Pipeline

from pgmpy_ext._compat import pgmpy_config
from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.evaluation import (
    RESULT_COLUMNS,
    conditional_log_likelihood_score,
    cross_validate_learners,
    joint_log_proba,
    log_likelihood_score,
    make_splits,
    summarize,
)


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Predicts the majority class; remembers the index labels of the rows it was fitted on."""

    def fit(self, X, y):
        self.fit_rows_ = list(X.index)
        self.classes_ = np.unique(y)
        values, counts = np.unique(y, return_counts=True)
        self.majority_ = values[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_, dtype=object)


class RecordingQuantileBins(TransformerMixin, BaseEstimator):
    """Cuts column 'x' at its training-fold terciles; remembers the rows and the cut points it learned."""

    def fit(self, X, y=None):
        self.fit_rows_ = list(X.index)
        self.cuts_ = np.quantile(X["x"].to_numpy(), [1 / 3, 2 / 3])
        return self

    def transform(self, X):
        out = X.drop(columns="x")
        out["x"] = pd.Categorical(np.searchsorted(self.cuts_, X["x"].to_numpy()), categories=[0, 1, 2])
        return out


class ZeroProbabilityClassifier(ClassifierMixin, BaseEstimator):
    """Gives every row probability 1 for the first class (and 0 for the others)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        P = np.zeros((len(X), len(self.classes_)))
        P[:, 0] = 1.0
        return P

    def predict(self, X):
        return self.classes_[np.zeros(len(X), dtype=int)]


@pytest.fixture(scope="module")
def xy():
    rng = np.random.default_rng(0)
    n = 48
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 4)), columns=["a", "b", "c", "d"])
    noise = rng.random(n) < 0.1
    y = pd.Series(np.where((X["a"] == X["b"]) ^ noise, "same", "diff"), name="label")
    X.index = 1000 + rng.permutation(n)  # index labels are not positions
    y.index = X.index
    return X, y


@pytest.fixture(scope="module")
def xy_continuous(xy):
    X, y = xy
    X = X.copy()
    X["x"] = np.random.default_rng(5).normal(size=len(X)) + (y == "same").to_numpy()
    return X, y


# ---------------------------------------------------------------------------------------------- folds
def test_folds_identical_across_learners_and_fitted_on_exactly_them(xy):
    X, y = xy
    learners = {"rec": RecordingClassifier(), "NB": NaiveBayesClassifier(), "TAN": TANClassifier()}
    res = cross_validate_learners(learners, X, y, cv="stratified", n_splits=4, n_repeats=2, random_state=3,
                                  return_indices=True, return_estimator=True)
    assert len(res) == 3 * 8
    for (rep, fold), g in res.groupby(["repeat", "fold"]):
        assert list(g["learner"]) == ["rec", "NB", "TAN"]
        for col in ("train_indices", "test_indices"):
            first = g[col].iloc[0]
            for other in g[col].iloc[1:]:
                np.testing.assert_array_equal(other, first)
        tr, te = g["train_indices"].iloc[0], g["test_indices"].iloc[0]
        assert not set(tr) & set(te)
        assert len(tr) + len(te) == len(X)
        assert g["estimator"].iloc[0].fit_rows_ == list(X.index[tr])
    # every row is tested exactly once per repeat
    for rep, g in res[res.learner == "NB"].groupby("repeat"):
        assert sorted(np.concatenate(list(g["test_indices"]))) == list(range(len(X)))


def test_no_discretiser_leakage_across_folds(xy_continuous):
    X, y = xy_continuous
    pipe = Pipeline([("bins", RecordingQuantileBins()), ("clf", NaiveBayesClassifier())])
    res = cross_validate_learners({"NB": pipe}, X, y, cv="kfold", n_splits=4, random_state=0, return_indices=True,
                                  return_estimator=True)
    cuts = []
    for _, row in res.iterrows():
        bins = row["estimator"].named_steps["bins"]
        assert bins.fit_rows_ == list(X.index[row["train_indices"]])
        assert not set(bins.fit_rows_) & set(X.index[row["test_indices"]])
        np.testing.assert_array_equal(bins.cuts_, np.quantile(X["x"].iloc[row["train_indices"]], [1 / 3, 2 / 3]))
        cuts.append(bins.cuts_)
    assert not np.allclose(cuts[0], cuts[1])  # refitted per fold, not fitted once on all rows


def test_n_jobs_1_and_2_give_identical_results(xy_continuous):
    X, y = xy_continuous
    learners = {"NB": Pipeline([("bins", RecordingQuantileBins()), ("clf", NaiveBayesClassifier())]),
                "TAN": Pipeline([("bins", RecordingQuantileBins()), ("clf", TANClassifier())])}
    kw = {"cv": "stratified", "n_splits": 3, "random_state": 11}
    one = cross_validate_learners(learners, X, y, n_jobs=1, **kw).drop(columns=["fit_time", "predict_time"])
    two = cross_validate_learners(learners, X, y, n_jobs=2, **kw).drop(columns=["fit_time", "predict_time"])
    pd.testing.assert_frame_equal(one, two)
    assert one["test_cll"].notna().all()
    assert one["train_ll"].notna().all()


# ---------------------------------------------------------------------------------------------- protocols
@pytest.mark.parametrize(("cv", "kwargs", "n_rows", "test_sizes", "train_sizes"), [
    ("kfold", {"n_splits": 5}, 5, [5, 5, 5, 4, 4], [18, 18, 18, 19, 19]),
    ("stratified", {"n_splits": 3}, 3, [8, 8, 7], [15, 15, 16]),
    ("repeated", {"n_splits": 3}, 30, [8, 8, 7] * 10, [15, 15, 16] * 10),
    ("kfold", {"n_splits": 2, "n_repeats": 3}, 6, [12, 11] * 3, [11, 12] * 3),
    ("loo", {}, 23, [1] * 23, [22] * 23),
    ("holdout", {}, 1, [8], [15]),
    ("holdout", {"n_repeats": 4, "test_size": 0.25}, 4, [6] * 4, [17] * 4),
    ("resubstitution", {}, 1, [23], [23]),
], ids=["kfold", "stratified", "repeated", "kfold-repeats", "loo", "holdout", "subsampling", "resubstitution"])
def test_protocol_sizes(cv, kwargs, n_rows, test_sizes, train_sizes):
    y = np.array(["p"] * 12 + ["q"] * 11)
    splits = make_splits(np.zeros((23, 1)), y, cv=cv, random_state=0, **kwargs)
    assert len(splits) == n_rows
    assert sorted(len(s.test) for s in splits) == sorted(test_sizes)
    assert sorted(len(s.train) for s in splits) == sorted(train_sizes)
    for s in splits:
        if cv != "resubstitution":
            assert not set(s.train) & set(s.test)
    if cv in ("kfold", "stratified", "repeated", "loo"):
        for rep in {s.repeat for s in splits}:
            tested = np.concatenate([s.test for s in splits if s.repeat == rep])
            assert sorted(tested) == list(range(23))
    if cv == "stratified":
        for s in splits:  # 12 vs 11 rows: each test fold holds 4 'p' or 4 'q' (+-1)
            assert abs((y[s.test] == "p").sum() - (y[s.test] == "q").sum()) <= 1


def test_loo_results_have_n_folds_of_one(xy):
    X, y = xy
    X, y = X.iloc[:14], y.iloc[:14]
    res = cross_validate_learners({"NB": NaiveBayesClassifier()}, X, y, cv="loo")
    assert len(res) == 14
    assert (res["n_test"] == 1).all()
    assert (res["n_train"] == 13).all()
    assert set(res["accuracy"]) <= {0.0, 1.0}
    s = summarize(res).iloc[0]
    p = res["accuracy"].mean()
    assert s["loo"]
    assert s["accuracy_se"] == pytest.approx(100 * math.sqrt(p * (1 - p) / 14))


def test_named_protocols_match_scikit_learn_for_an_int_seed(xy):
    X, y = xy
    mine = make_splits(X, y, cv="stratified", n_splits=10 - 4, random_state=0)
    ref = list(StratifiedKFold(6, shuffle=True, random_state=0).split(X, y))
    for s, (tr, te) in zip(mine, ref, strict=True):
        np.testing.assert_array_equal(s.test, te)
        np.testing.assert_array_equal(s.train, tr)


def test_seeds_generators_and_splitters(xy):
    X, y = xy
    a = make_splits(X, y, n_splits=4, random_state=np.random.default_rng(9))
    b = make_splits(X, y, n_splits=4, random_state=np.random.default_rng(9))
    c = make_splits(X, y, n_splits=4, random_state=np.random.default_rng(10))
    assert all(np.array_equal(s.test, t.test) for s, t in zip(a, b))
    assert not all(np.array_equal(s.test, t.test) for s, t in zip(a, c))
    rk = make_splits(X, y, cv=RepeatedKFold(n_splits=3, n_repeats=2, random_state=1))
    assert [(s.repeat, s.fold) for s in rk] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    pairs = [(np.arange(10, 48), np.arange(10)), (np.arange(38), np.arange(38, 48))]
    given = make_splits(X, y, cv=pairs)
    assert [(s.repeat, s.fold, len(s.test)) for s in given] == [(0, 0, 10), (0, 1, 10)]


@pytest.mark.parametrize(("kwargs", "exc", "match"), [
    ({"cv": "bootstrap"}, ValueError, "cv == 'bootstrap'"),
    ({"cv": "loo", "n_repeats": 3}, ValueError, "n_repeats == 3, but cv='loo' is deterministic"),
    ({"cv": "kfold", "n_splits": 1}, ValueError, "n_splits == 1, must be >= 2"),
    ({"cv": "kfold", "n_splits": 100}, ValueError, "larger than the number of rows"),
    ({"cv": "holdout", "test_size": 1.5}, ValueError, "test_size == 1.5"),
    ({"cv": 3.5}, TypeError, "cv must be one of"),
    ({"cv": []}, ValueError, "cv is an empty iterable"),
], ids=["name", "loo-repeats", "k1", "k-large", "test-size", "type", "empty"])
def test_make_splits_errors(xy, kwargs, exc, match):
    X, y = xy
    with pytest.raises(exc, match=match):
        make_splits(X, y, **kwargs)


def test_stratified_needs_y(xy):
    with pytest.raises(ValueError, match="stratifies on the classes: pass y"):
        make_splits(xy[0], cv="stratified", n_splits=3)


# ---------------------------------------------------------------------------------------------- per-fold values
def test_result_columns_and_values_against_a_manual_fold(xy):
    X, y = xy
    learners = {"NB": NaiveBayesClassifier(), "TAN": TANClassifier(), "CNB": CategoricalNB(),
                "LR": LogisticRegression(max_iter=200)}
    res = cross_validate_learners(learners, X, y, n_splits=3, random_state=4, return_indices=True)
    assert list(res.columns) == [*RESULT_COLUMNS, "train_indices", "test_indices"]
    assert res.attrs["protocol"]["random_state"] == 4
    by = {name: g.reset_index(drop=True) for name, g in res.groupby("learner", sort=False)}
    assert list(by) == ["NB", "TAN", "CNB", "LR"]
    assert (by["NB"]["structure_size"] == 0).all()
    assert (by["TAN"]["structure_size"] == 3).all()
    assert by["CNB"]["structure_size"].isna().all()
    assert by["LR"]["structure_size"].isna().all()
    assert by["CNB"]["train_ll"].notna().all()
    assert by["LR"]["train_ll"].isna().all()
    assert (by["LR"]["n_iter"] >= 1).all()
    assert by["NB"]["n_iter"].isna().all()
    # fold 1 of TAN recomputed by hand
    row = by["TAN"].iloc[1]
    tr, te = row["train_indices"], row["test_indices"]
    clf = TANClassifier().fit(X.iloc[tr], y.iloc[tr])
    assert row["accuracy"] == pytest.approx(np.mean(clf.predict(X.iloc[te]) == y.iloc[te].to_numpy()))
    cll = conditional_log_likelihood_score(y.iloc[te], clf.predict_proba(X.iloc[te]), clf.classes_)
    assert row["test_cll_sum"] == pytest.approx(cll, rel=1e-10)
    assert row["test_cll"] == pytest.approx(cll / len(te), rel=1e-10)
    train_cll = conditional_log_likelihood_score(y.iloc[tr], clf.predict_proba(X.iloc[tr]), clf.classes_)
    assert row["train_cll_sum"] == pytest.approx(train_cll, rel=1e-10)
    ll = log_likelihood_score(y.iloc[tr], joint_log_proba(clf, X.iloc[tr]), clf.classes_)
    assert row["train_ll_sum"] == pytest.approx(ll, rel=1e-10)
    assert row["train_ll_sum"] < row["train_cll_sum"] < 0
    assert (row["n_train"], row["n_test"]) == (len(tr), len(te))
    assert (res["fit_time"] >= 0).all()
    assert (res["predict_time"] >= 0).all()


def test_probability_floor_and_classes_missing_from_the_training_fold():
    X = pd.DataFrame({"a": [0, 1] * 6})
    y = pd.Series(["u"] * 6 + ["v"] * 6)
    pairs = [(np.arange(6), np.arange(6, 12))]  # the test fold holds only a class never seen in training
    res = cross_validate_learners({"Z": ZeroProbabilityClassifier()}, X, y, cv=pairs)
    assert res.loc[0, "test_cll"] == pytest.approx(math.log(1e-300))
    res2 = cross_validate_learners({"Z": ZeroProbabilityClassifier()}, X, y, cv="stratified", n_splits=2,
                                   random_state=0, proba_floor=1e-8)
    assert res2["test_cll"].tolist() == pytest.approx([0.5 * math.log(1e-8)] * 2)


def test_custom_joint_log_proba_callable(xy):
    X, y = xy

    def joint(est, X_):
        return np.log(est.predict_proba(X_)) - 1.0  # log p(c|x) + log p(x), with p(x) = e^-1 for every row

    res = cross_validate_learners({"LR": LogisticRegression()}, X, y, n_splits=3, random_state=0,
                                  joint_log_proba=joint)
    np.testing.assert_allclose(res["train_ll"], res["train_cll"] - 1.0, rtol=1e-12)


# ---------------------------------------------------------------------------------------------- options
def test_fixed_structure_reuses_the_whole_data_structure(xy):
    X, y = xy
    full = TANClassifier().fit(X, y)
    with pytest.warns(UserWarning, match=r"single network structure only; \['LR'\]"):
        res = cross_validate_learners({"TAN": TANClassifier(), "LR": LogisticRegression()}, X, y, n_splits=4,
                                      random_state=2, fixed_structure=True, return_estimator=True,
                                      return_indices=True)
    tan = res[res.learner == "TAN"]
    for _, row in tan.iterrows():
        est = row["estimator"]
        assert est.structure_.augmenting_edges() == full.structure_.augmenting_edges()
        ref = TANClassifier().fit(X.iloc[row["train_indices"]], y.iloc[row["train_indices"]])
        # parameters are refitted on the fold: the class prior is the training fold's
        np.testing.assert_allclose(est.model_.get_cpds("label").values, ref.model_.get_cpds("label").values)
        assert "_fit_structure" not in vars(est)
    free = cross_validate_learners({"TAN": TANClassifier()}, X, y, n_splits=4, random_state=2,
                                   return_estimator=True)
    edges = [tuple(e.structure_.augmenting_edges()) for e in free["estimator"]]
    assert any(e != tuple(full.structure_.augmenting_edges()) for e in edges)  # per fold, they differ


def test_errors_name_the_learner_and_fold(xy):
    X, y = xy
    X_bad = X.astype(float) + 0.5  # real values: the classifier refuses them
    with pytest.raises(ValueError, match="discrete") as info:
        cross_validate_learners({"NB": NaiveBayesClassifier()}, X_bad, y, n_splits=3, random_state=0)
    assert any("learner 'NB' on repeat 0, fold 0" in note for note in getattr(info.value, "__notes__", []))


@pytest.mark.parametrize(("learners", "exc", "match"), [
    ({}, TypeError, "non-empty dict"),
    ([NaiveBayesClassifier()], TypeError, "non-empty dict"),
    ({1: NaiveBayesClassifier()}, TypeError, "learner names must be strings"),
    ({"x": object()}, TypeError, "it needs fit"),
], ids=["empty", "list", "name", "no-fit"])
def test_learner_errors(xy, learners, exc, match):
    with pytest.raises(exc, match=match):
        cross_validate_learners(learners, *xy)


def test_row_count_mismatch(xy):
    X, y = xy
    with pytest.raises(ValueError, match="X has 48 rows but y has 47 labels"):
        cross_validate_learners({"NB": NaiveBayesClassifier()}, X, y.iloc[:47])


@pytest.mark.parametrize("global_switch", [True, False])
def test_progress_bar_obeys_both_switches(xy, capsys, monkeypatch, global_switch):
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", global_switch)
    X, y = xy
    cross_validate_learners({"NB": NaiveBayesClassifier()}, X, y, n_splits=2, random_state=0, show_progress=True)
    err = capsys.readouterr().err
    assert ("cross-validation" in err) is global_switch
    cross_validate_learners({"NB": NaiveBayesClassifier()}, X, y, n_splits=2, random_state=0)
    assert "cross-validation" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- summary
def test_summarize_population_std_and_loo_standard_error():
    iris = pd.DataFrame({"learner": "NB", "repeat": 0, "fold": range(5), "n_test": 30,
                         "accuracy": np.array([28, 28, 29, 27, 30]) / 30})
    s = summarize(iris).iloc[0]
    assert s["accuracy"] == pytest.approx(94.6667, abs=1e-4)
    assert s["accuracy_std"] == pytest.approx(100 * np.std(iris["accuracy"], ddof=0))
    assert s["report"] == "94.67 ± 3.40"
    assert not s["loo"]
    assert math.isnan(s["accuracy_se"])
    # Corral NB, LOO: 108 of 128 correct -> 84.37(5) ± 3.21 (standard error in percentage points)
    loo = pd.DataFrame({"learner": "NB", "repeat": 0, "fold": range(128), "n_test": 1,
                        "accuracy": [1.0] * 108 + [0.0] * 20})
    s = summarize(loo).iloc[0]
    assert s["loo"]
    assert s["accuracy_se"] == pytest.approx(3.2094, abs=1e-4)
    assert s["report"] == "84.38 ± 3.21"
    with pytest.raises(ValueError, match="results lacks column 'accuracy'"):
        summarize(iris.drop(columns="accuracy"))


class MultinetLike(RecordingClassifier):
    """Majority classifier exposing one network per class in ``models_`` (as a multinet does)."""

    def fit(self, X, y):
        import networkx as nx

        super().fit(X, y)
        self.models_ = {c: nx.DiGraph([("a", "b"), ("b", "c")][: k + 1]) for k, c in enumerate(self.classes_)}
        return self


def test_structure_size_of_a_multinet_counts_every_network(xy):
    X, y = xy
    res = cross_validate_learners({"M": MultinetLike()}, X, y, n_splits=2, random_state=0)
    assert res["structure_size"].tolist() == [3.0, 3.0]  # 1 + 2 arcs
