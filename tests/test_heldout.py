"""Held-out-style test (issue 11, item 7): 5-fold CV of every classifier, raw columns and behind each discretiser,
on data as users have it, with every option at its default.

Two data sets:
- a synthetic one built here with the issue's failure modes: int-coded categorical columns with few values (which
  must stay categorical), a string column with a value in a single row (so it is unseen in the training folds of
  the one test fold that holds it), a many-valued whole-number numeric column (``amount``: hundreds of distinct
  integers, weakly related to the class), a float column with fractions, and 5% of the feature cells masked (NaN);
- the shared PMLB copy of credit_g (``german``: ``Credit`` is a float64 column of whole numbers with 921 distinct
  values on 1,000 rows), a stratified 500-row sample of ten of its columns with 5% of the feature cells masked.

What the issue's finished state promises, and this file asserts:
- every configuration runs with default options (unseen states are ignored, missing cells are summed out, the
  discretisers' default selects the many-valued numeric columns and the fractional floats and nothing else);
- the pooled CV accuracy is sane: at least the majority rate minus three standard errors of a proportion at the
  majority rate over the CV rows (a learner no worse than the majority rule fails this with probability ~0.1%);
  on the synthetic data the features are informative by construction, so a sane learner is far above it;
- a many-valued numeric column passed raw raises a ValueError naming the column and its number of distinct values
  and pointing to a discretiser or a category dtype, while the same data behind ``MDLPDiscretizer()`` works.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import Pipeline

import pgmpy_ext.classifiers as C
from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer, EqualWidthDiscretizer, MDLPDiscretizer

CLASSIFIERS = ["NaiveBayesClassifier", "TANClassifier", "FANClassifier", "KDBClassifier", "BANClassifier",
               "SelectiveNBClassifier", "SBNClassifier", "ABNClassifier", "CLMultinetClassifier", "CTANClassifier",
               "StructuralTMClassifier", "K2Classifier"]
DISCRETISERS = {"raw": None, "MDLP": MDLPDiscretizer, "EqualWidth": EqualWidthDiscretizer,
                "EqualFrequency": EqualFrequencyDiscretizer}
#: learners whose structure search needs complete training data: on masked data they refuse at fit, clearly
COMPLETE_DATA_ONLY = {"SelectiveNBClassifier", "ABNClassifier", "StructuralTMClassifier"}
MASK_RATE = 0.05
N_FOLDS = 5


def test_every_public_classifier_is_covered():
    public = {n for n in C.__all__ if n != "BNClassifierBase"}
    assert public == set(CLASSIFIERS)


# ------------------------------------------------------------------------------------------------------------ data
def mask_cells(X: pd.DataFrame, rate: float, seed: int, keep=()) -> pd.DataFrame:
    """A copy of X with ``rate`` of its cells set to NaN at random; cells in ``keep`` ((row position, column)
    pairs) are never masked. Numeric columns become float64 (as ``read_csv`` gives them with missing cells)."""
    rng = np.random.default_rng(seed)
    hit = rng.random(X.shape) < rate
    for row, col in keep:
        hit[row, X.columns.get_loc(col)] = False
    out = X.copy()
    for j, c in enumerate(X.columns):
        if hit[:, j].any():
            col = out[c].astype(np.float64) if pd.api.types.is_numeric_dtype(out[c]) else out[c].astype(object)
            col[hit[:, j]] = np.nan
            out[c] = col
    return out


def synthetic(n: int = 400, seed: int = 0):
    """(X complete, X masked, y): 3 classes with priors 0.5 / 0.3 / 0.2.

    ``c0..c3``: int codes with 3, 4, 5 and 3 values; each takes its class's own value with probability 0.6, else a
    uniform one (informative: the class's value is 0.6 + 0.4 / k likely against 0.4 / k for any other).
    ``region``: strings a..d, mildly class-dependent, plus the value "rare" in exactly one row.
    ``amount``: round(exp(N(7 + 0.3 * class, 1))), hundreds of distinct integers (int64), weakly informative.
    ``score``: N(class, 1) rounded to 2 decimals (a float with fractions).
    """
    rng = np.random.default_rng(seed)
    y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    X = pd.DataFrame({f"c{j}": np.where(rng.random(n) < 0.6, (y + j) % k, rng.integers(0, k, n)).astype(np.int64)
                      for j, k in enumerate([3, 4, 5, 3])})
    X["region"] = np.where(rng.random(n) < 0.3, np.array(list("abc"))[y], rng.choice(list("abcd"), n))
    rare_row = int(rng.integers(n))
    X.loc[rare_row, "region"] = "rare"
    X["amount"] = np.round(np.exp(rng.normal(7 + 0.3 * y, 1.0))).astype(np.int64)
    X["score"] = np.round(rng.normal(y, 1.0), 2)
    masked = mask_cells(X, MASK_RATE, seed=1, keep=[(rare_row, "region")])
    return X, masked, pd.Series(np.array(["low", "mid", "high"])[y], name="label")


@pytest.fixture(scope="module")
def syn():
    X, masked, y = synthetic()
    # the construction's preconditions, checked rather than assumed
    assert (X["region"] == "rare").sum() == 1
    assert (masked["region"] == "rare").sum() == 1
    assert 300 <= X["amount"].nunique() < 1000       # hundreds of distinct whole numbers (no thousands separator)
    assert 0.04 <= masked.isna().to_numpy().mean() <= 0.06
    return X, masked, y


GERMAN_COLUMNS = ["Status", "Duration", "Credit-history", "Purpose", "Credit", "Savings-account", "Employment",
                  "Age", "Property", "Housing"]


@pytest.fixture(scope="module")
def german(shared_datasets):
    path = shared_datasets / "uci" / "german.tsv.gz"
    if not path.exists():
        pytest.skip(f"{path} not found")
    df = pd.read_csv(path, sep="\t")
    y_full = df.pop("target")
    X_full = df[GERMAN_COLUMNS]
    # stratified 500-row sample (fixed seed) keeps the test short
    keep, _ = next(StratifiedKFold(2, shuffle=True, random_state=0).split(X_full, y_full))
    X = X_full.iloc[keep].reset_index(drop=True)
    y = y_full.iloc[keep].reset_index(drop=True)
    return X_full, y_full, X, mask_cells(X, MASK_RATE, seed=2), y


# --------------------------------------------------------------------------------------------------- helpers
def make(clf_name: str, disc: str):
    clf = getattr(C, clf_name)()
    factory = DISCRETISERS[disc]
    return clf if factory is None else Pipeline([("disc", factory()), ("clf", clf)])


def sane_floor(y: pd.Series) -> tuple[float, float]:
    """(majority rate, majority rate - 3 standard errors of a proportion at that rate over len(y) rows)."""
    p = float(y.value_counts(normalize=True).max())
    return p, p - 3 * math.sqrt(p * (1 - p) / len(y))


def cv_accuracy(est_factory, X: pd.DataFrame, y: pd.Series) -> float:
    """Pooled 5-fold stratified CV accuracy (fixed folds); also checks predict_proba on every test fold."""
    correct = 0
    for train, test in StratifiedKFold(N_FOLDS, shuffle=True, random_state=0).split(X, y):
        est = est_factory()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)   # e.g. convergence warnings: allowed, not asserted
            est.fit(X.iloc[train], y.iloc[train])
            proba = np.asarray(est.predict_proba(X.iloc[test]), dtype=np.float64)
            pred = np.asarray(est.predict(X.iloc[test]))
        assert proba.shape == (len(test), y.nunique())
        assert np.isfinite(proba).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
        correct += int((pred == y.iloc[test].to_numpy()).sum())
    return correct / len(y)


def columns_for(clf_name: str, disc: str, raw_cols: list, all_cols: list, small: list) -> list:
    """Raw configurations see the categorical columns only (a fractional float raises by the README's rule); the
    discretised ones see every column. StructuralTM (a TM fit per candidate arc) sees the first 2 of ``small``
    that are in them (one numeric column when discretised)."""
    cols = raw_cols if disc == "raw" else all_cols
    if clf_name == "StructuralTMClassifier":
        cols = [c for c in small if c in cols][:2]
    return cols


def refuses_missing_training_cells(clf_name: str, disc: str, X: pd.DataFrame, y: pd.Series) -> None:
    """A learner that needs complete training data refuses masked data at fit, naming itself, the column and the
    row label, and runs once the incomplete rows are dropped."""
    with pytest.raises(ValueError, match=rf"{clf_name} needs complete training data .* is missing at row "):
        make(clf_name, disc).fit(X, y)
    complete = X.notna().all(axis=1)
    proba = make(clf_name, disc).fit(X[complete], y[complete]).predict_proba(X[complete])
    assert np.isfinite(proba).all()


# ----------------------------------------------------------------------------------------------------- CV tests
@pytest.mark.parametrize("disc", list(DISCRETISERS))
@pytest.mark.parametrize("clf_name", CLASSIFIERS)
def test_cv_synthetic_as_users_have_it(syn, clf_name, disc):
    """Missing cells, a value seen in one test fold only, few-valued int codes, a many-valued int column and a
    fractional float: every classifier, raw and behind every discretiser, runs at its defaults and is sane."""
    _, masked, y = syn
    cols = columns_for(clf_name, disc, raw_cols=["c0", "c1", "c2", "c3", "region"], all_cols=list(masked.columns),
                       small=["c0", "amount", "region"])
    if clf_name in COMPLETE_DATA_ONLY:
        refuses_missing_training_cells(clf_name, disc, masked[cols], y)
        return
    acc = cv_accuracy(lambda: make(clf_name, disc), masked[cols], y)
    majority, floor = sane_floor(y)
    assert acc >= floor, f"CV accuracy {acc:.4f} < majority {majority:.4f} - 3 SE"


@pytest.mark.parametrize("disc", ["raw", "MDLP"])
@pytest.mark.parametrize("clf_name", CLASSIFIERS)
def test_cv_synthetic_complete(syn, clf_name, disc):
    """The same without missing cells (raw and MDLP only), so a failure here is about the value seen in one test
    fold only or the many-valued column, not about missing values."""
    X, _, y = syn
    cols = columns_for(clf_name, disc, raw_cols=["c0", "c1", "c2", "c3", "region"], all_cols=list(X.columns),
                       small=["c0", "amount", "region"])
    acc = cv_accuracy(lambda: make(clf_name, disc), X[cols], y)
    majority, floor = sane_floor(y)
    assert acc >= floor, f"CV accuracy {acc:.4f} < majority {majority:.4f} - 3 SE"


@pytest.mark.parametrize("disc", list(DISCRETISERS))
@pytest.mark.parametrize("clf_name", CLASSIFIERS)
def test_cv_credit_g_masked(german, clf_name, disc):
    """credit_g (PMLB german) with 5% of its cells masked: raw on its int-coded columns, and every column behind
    each discretiser (``Credit``, ``Duration`` and ``Age`` are whole-number floats).

    Every configuration must run and give valid probabilities. The accuracy floor is asserted for naive Bayes only:
    credit_g is the set where the augmented learners sit at or below the majority rate even on complete data (TAN
    68.6% < 70% on the full set), and on this 500-row sample with 5% of the training cells missing, TAN behind MDLP
    reaches 64.2% and kDB-1 63.0% (69.4% and 69.8% complete; masking only at predict time costs TAN 0.6 points),
    so a floor there would test the data set, not the code."""
    _, _, X, masked, y = german
    int_cols = [c for c in X.columns if X[c].dtype == np.int64]
    cols = columns_for(clf_name, disc, raw_cols=int_cols, all_cols=list(X.columns),
                       small=["Status", "Credit", "Credit-history"])
    if clf_name in COMPLETE_DATA_ONLY:
        refuses_missing_training_cells(clf_name, disc, masked[cols], y)
        return
    acc = cv_accuracy(lambda: make(clf_name, disc), masked[cols], y)
    majority, floor = sane_floor(y)
    if clf_name == "NaiveBayesClassifier":
        assert acc >= floor, f"CV accuracy {acc:.4f} < majority {majority:.4f} - 3 SE"


# ------------------------------------------------------------------------------------------ discretiser defaults
@pytest.mark.parametrize("disc", [d for d in DISCRETISERS if d != "raw"])
def test_discretiser_default_selects_many_valued_and_fractional_columns_only(syn, german, disc):
    """columns=None picks the many-valued whole-number column and the fractional float, and leaves int codes
    with few values (float64 once NaN is in them) and strings alone."""
    _, masked, y = syn
    d = DISCRETISERS[disc]().fit(masked, y)
    assert set(d.columns_) == {"amount", "score"}
    _, _, X, gmasked, gy = german
    d = DISCRETISERS[disc]().fit(gmasked, gy)
    assert "Credit" in d.columns_
    assert not {c for c in X.columns if X[c].dtype == np.int64} & set(d.columns_)


# ---------------------------------------------------------------------------- many-valued numeric column, raw
def check_numeric_column_error(exc_info, column: str, n_distinct: int):
    msg = str(exc_info.value)
    assert re.search(rf"\b{n_distinct}\b", msg), msg                   # its number of distinct values
    assert re.search(r"discreti[sz]", msg, re.IGNORECASE), msg        # the fix: a discretiser ...
    assert re.search(r"categor", msg, re.IGNORECASE), msg            # ... or a category dtype / Categorical


@pytest.mark.parametrize("clf_name", CLASSIFIERS)
def test_many_valued_int_column_raw_raises_and_works_behind_mdlp(syn, clf_name):
    X, _, y = syn
    data = X[["c0", "c1", "amount"]]
    with pytest.raises(ValueError, match=r"\bamount\b") as exc_info:
        getattr(C, clf_name)().fit(data, y)
    check_numeric_column_error(exc_info, "amount", X["amount"].nunique())
    est = make(clf_name, "MDLP").fit(data, y)
    assert np.isin(est.predict(data), y.unique()).all()


@pytest.mark.parametrize("clf_name", CLASSIFIERS)
def test_many_valued_whole_float_column_raw_raises_and_works_behind_mdlp(german, clf_name):
    """credit_g's ``Credit`` (float64, 921 whole-number values on 1,000 rows), the issue's own example."""
    X_full, y_full, _, _, _ = german
    data = X_full[["Status", "Credit-history", "Credit"]]
    with pytest.raises(ValueError, match=r"\bCredit\b(?!-)") as exc_info:
        getattr(C, clf_name)().fit(data, y_full)
    check_numeric_column_error(exc_info, "Credit", X_full["Credit"].nunique())
    est = make(clf_name, "MDLP").fit(data, y_full)
    assert np.isin(est.predict(data), y_full.unique()).all()
