"""Issue 11: the discretisers' default (columns=None) selects exactly the columns the classifiers refuse
(pgmpy_ext.data.numeric_columns_to_discretize), so Pipeline(discretiser, classifier) takes raw data."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline

from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.data import numeric_columns_to_discretize
from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLPDiscretizer

MAKERS = [MDLPDiscretizer, lambda: EqualWidthDiscretizer(4), lambda: EqualFrequencyDiscretizer(4)]
IDS = ["mdlp", "width", "frequency"]


def _credit_like(n=400, seed=0):
    """credit_g-like: a many-valued integer amount, a whole-number float, int-coded categorical columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    amount = (rng.integers(250, 15000, n) + 3000 * y).astype(np.int64)       # hundreds of distinct ints
    duration = rng.integers(4, 72, n).astype(float)                           # whole-number float, ~68 values
    status = (rng.integers(0, 4, n) + y) % 4                                  # int-coded categorical, 4 codes
    housing = rng.integers(1, 4, n)                                           # int-coded categorical, 3 codes
    return pd.DataFrame({"status": status, "amount": amount, "duration": duration, "housing": housing}), y


@pytest.mark.parametrize("make", MAKERS, ids=IDS)
def test_default_selects_exactly_the_refused_columns(make):
    X, y = _credit_like()
    assert numeric_columns_to_discretize(X) == ["amount", "duration"]
    disc = make().fit(X, y)
    assert disc.columns_ == ["amount", "duration"]
    out = disc.transform(X)
    pd.testing.assert_series_equal(out["status"], X["status"])              # int-coded categorical left alone
    pd.testing.assert_series_equal(out["housing"], X["housing"])


def test_classifier_refuses_raw_column_and_pipeline_takes_it():
    X, y = _credit_like()
    with pytest.raises(ValueError, match=r"Column 'amount' is numeric with \d+ distinct values, more than "
                                         r"max_numeric_states=50.*MDLPDiscretizer"):
        TANClassifier().fit(X, y)
    pipe = Pipeline([("disc", MDLPDiscretizer()), ("clf", TANClassifier())])
    scores = cross_val_score(pipe, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    assert scores.shape == (5,)
    assert np.all(np.isfinite(scores))
    # the columns are declared categorical: the classifier takes them as they are
    Xc = X.astype({"amount": "category", "duration": "category"})
    assert NaiveBayesClassifier().fit(Xc, y).predict(Xc).shape == (len(y),)


def test_nan_message_names_the_index_label():
    X = pd.DataFrame({"x": [0.5, np.nan, 2.5]}, index=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"Column 'x' has a missing value \(NaN\) at row 'b'; a discretiser"):
        EqualWidthDiscretizer(2).fit(X)
    with pytest.raises(ValueError, match=r"y has a missing class label \(NaN/None\) at row 'c'"):
        MDLPDiscretizer().fit(X.fillna(1.5), pd.Series([0, 1, None], index=X.index, dtype=object))


def test_german_from_shared_datasets(shared_datasets):
    with gzip.open(shared_datasets / "uci" / "german.tsv.gz", "rt") as fh:
        df = pd.read_csv(fh, sep="\t")
    X, y = df.drop(columns="target"), df["target"]
    refused = numeric_columns_to_discretize(X)
    assert "Credit" in refused                         # 921 distinct whole values on 1,000 rows
    assert "Age" in refused                            # 53
    assert "Duration" not in refused                   # 33 values: kept as categorical
    with pytest.raises(ValueError, match=r"Column '\w+' is numeric with \d+ distinct values|has float values"):
        NaiveBayesClassifier().fit(X, y)
    assert MDLPDiscretizer().fit(X, y).columns_ == refused
    pipe = Pipeline([("disc", MDLPDiscretizer()), ("clf", NaiveBayesClassifier())])
    assert pipe.fit(X, y).score(X, y) > 0.7
