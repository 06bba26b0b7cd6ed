"""Issue 25: prediction reads the features as column codes straight into the column kernel. Every single-network
classifier gives the same bits as the matrix path it replaced (``encoder_.transform`` -> ``_joint_log_likelihood``),
with missing and unseen cells (summed out exactly), category, int, str and bool columns, for n_jobs 1 and 2; a
column whose values mostly were not seen at fit is reported."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from pgmpy_ext.classifiers import (
    BANClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    TANClassifier,
)
from pgmpy_ext.data import UnseenValuesWarning
from pgmpy_ext.utils import LOG_PROB_FLOOR, LOG_TINY, log_normalize_rows
from tests.reference import log_normalize_rows_ref

CLASSIFIERS = [NaiveBayesClassifier(), TANClassifier(), KDBClassifier(k=2), BANClassifier(max_parents=2,
                                                                                        random_state=0)]
IDS = ["NB", "TAN", "kDB2 (VE)", "BAN2 (VE)"]


def _frames(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = pd.Series(rng.choice(["lo", "mid", "hi"], n), name="level")
    base = np.select([y == "lo", y == "mid"], [0, 1], 2)
    a = np.where(rng.random(n) < 0.7, base, rng.integers(0, 3, n))
    X = pd.DataFrame({
        "cat": pd.Categorical(np.array(["p", "q", "r"])[a], categories=["p", "q", "r"]),
        "int": 10 + np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n)),
        "str": np.where(rng.random(n) < 0.6, base, rng.integers(0, 3, n)).astype(str).astype(object),
        "flag": np.where(rng.random(n) < 0.7, base > 0, rng.random(n) < 0.5),
        "cat2": pd.Categorical(rng.choice(["u", "v"], n)),
    })
    Xm = X.copy()
    Xm["cat"] = Xm["cat"].mask(rng.random(n) < 0.1)
    Xm["str"] = Xm["str"].mask(rng.random(n) < 0.1)
    Xm.loc[rng.random(n) < 0.05, "int"] = 99                      # unseen ints
    Xm["cat2"] = pd.Categorical(np.where(rng.random(n) < 0.05, "w", X["cat2"].astype(str)))  # unseen category
    return X, y, Xm


def _matrix_path(clf, X):
    """The prediction before issue 25: one code matrix from transform, then the network's log-joint hook."""
    features = clf._feature_names()
    codes = clf.encoder_.transform(X[features], columns=features, handle_unknown=clf.handle_unknown).codes
    return clf._joint_log_likelihood(codes)


@pytest.mark.parametrize("est", CLASSIFIERS, ids=IDS)
def test_column_path_is_bit_identical_to_the_matrix_path(est):
    X, y, Xm = _frames()
    for n_jobs in (1, 2):
        clf = est.set_params(n_jobs=n_jobs).fit(Xm, y)
        for frame in (X, Xm):
            joint = clf.predict_joint_log_proba(frame)
            assert_array_equal(joint, _matrix_path(clf, frame))
            assert_array_equal(clf.predict_log_proba(frame), log_normalize_rows_ref(joint, LOG_TINY))
            assert_array_equal(clf.predict_proba(frame), np.exp(log_normalize_rows(joint, floor=LOG_TINY)))
    one = est.set_params(n_jobs=1).fit(Xm, y).predict_proba(Xm)
    two = est.set_params(n_jobs=2).fit(Xm, y).predict_proba(Xm)
    assert_array_equal(one, two)


def test_column_path_on_many_rows_with_a_few_missing_cells_and_threads():
    X, y, _ = _frames(n=3000, seed=1)
    clf = TANClassifier(n_jobs=2).fit(X, y)
    Xm = X.copy()
    Xm.loc[Xm.index[::97], "cat"] = np.nan
    assert_array_equal(clf.predict_joint_log_proba(Xm), _matrix_path(clf, Xm))
    assert np.isfinite(clf.predict_proba(Xm)).all()


def test_int_column_read_as_strings_warns_naming_column_and_share():
    X, y, _ = _frames()
    clf = NaiveBayesClassifier().fit(X, y)
    bad = X.copy()
    bad["int"] = bad["int"].astype(str)
    with pytest.warns(UnseenValuesWarning, match=r"Column 'int': 300 of 300 rows \(100%\) have values not seen during "
                                                 r"fit \(e\.g\. '1\d'; .*held int values and now it holds str"):
        proba = clf.predict_proba(bad)
    # the feature is summed out of every row: the same as predicting without it
    assert_array_equal(proba, clf.predict_proba(bad.assign(int=np.nan)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenValuesWarning)
        clf.predict_proba(X)  # nothing unseen: no warning


def test_missing_error_names_the_first_row_in_row_order():
    X, y, _ = _frames()
    X.index = [f"r{i}" for i in range(len(X))]
    clf = TANClassifier(missing="error").fit(X, y.set_axis(X.index))
    bad = X.copy()
    bad["cat"] = bad["cat"].astype(object)
    bad["flag"] = bad["flag"].astype(object)
    bad.loc["r40", "flag"] = None
    bad.loc["r41", "cat"] = None
    with pytest.raises(ValueError, match=r"Column 'flag' has a missing value \(NaN/None\) at row 'r40'; "
                                         r"TANClassifier\(missing='error'\) refuses it"):
        clf.predict(bad)


@pytest.mark.parametrize("est", CLASSIFIERS, ids=IDS)
def test_model_is_built_on_first_access_and_compiles_to_the_same_bits(est):
    """fit keeps the CPD tables; ``model_`` is built from them when read. Its CPDs are build_network's, and the
    predictor compiled from the tables is compile_network's of that model, bit for bit; pickling an estimator whose
    model was never built keeps it buildable."""
    import pickle

    from pgmpy_ext.models import build_network, compile_network

    X, y, Xm = _frames()
    clf = est.fit(Xm, y)
    assert "_model" not in clf.__dict__
    proba = clf.predict_proba(Xm)
    again = pickle.loads(pickle.dumps(clf))
    model = clf.model_
    assert clf.model_ is model
    ref = build_network(clf.structure_.parent_sets(), clf.encoder_, alpha=clf.alpha)
    assert list(model.nodes()) == list(ref.nodes())
    for cpd in ref.get_cpds():
        got = model.get_cpds(cpd.variable)
        assert got.variables == cpd.variables
        assert_array_equal(got.get_values(), cpd.get_values())
    net = compile_network(model, clf.class_node_, columns=clf._feature_names())
    assert_array_equal(clf._network_.log_cpt, np.maximum(net.log_cpt, LOG_PROB_FLOOR))
    assert_array_equal(again.predict_proba(Xm), proba)
    node = clf.class_node_
    assert_array_equal(again.model_.get_cpds(node).get_values(), model.get_cpds(node).get_values())
    assert model.check_model()


@pytest.mark.parametrize("est", CLASSIFIERS, ids=IDS)
def test_fused_posterior_chunks_and_threads_give_the_same_bits(est, monkeypatch):
    """Issue 25: predict_proba / predict_log_proba run the column kernel and the row normalisation per chunk of
    rows, chunks split between threads; with small chunks and a low thread threshold (so 3,000 rows take many
    chunks on 2 threads, missing and unseen cells on both sides of chunk and thread boundaries) every bit equals
    normalising the joint scores of the whole frame, for n_jobs 1 and 2."""
    import pgmpy_ext.stats._posterior as post
    import pgmpy_ext.utils.validation as validation

    monkeypatch.setattr(post, "_POSTERIOR_CHUNK_ROWS", 256)
    monkeypatch.setattr(validation, "MIN_ROWS_PER_THREAD", 512)
    X, y, Xm = _frames(n=3000, seed=2)
    for n_jobs in (1, 2):
        clf = est.set_params(n_jobs=n_jobs).fit(Xm, y)
        for frame in (X, Xm):
            joint = clf.predict_joint_log_proba(frame)
            assert_array_equal(clf.predict_log_proba(frame), log_normalize_rows_ref(joint, LOG_TINY))
            assert_array_equal(clf.predict_proba(frame), np.exp(log_normalize_rows(joint, floor=LOG_TINY)))
