"""EncodedData.column_codes (the predict path): the same codes as ``transform(...).codes`` for every kind of column,
category codes read without a copy, missing cells and unseen values found on the way, and the unseen-values warning
(issue 24 item 5: a column whose values mostly were not seen at fit is reported, naming the column and the share)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from pgmpy_ext.data import MissingValueError, UnseenValuesWarning, column_arrays, encode


def _train(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "cat": pd.Categorical(rng.choice(["x", "y", "z"], n), categories=["x", "y", "z"]),
        "int": rng.integers(3, 7, n),
        "gap": rng.choice([0, 2, 5], n),            # integer states with holes
        "str": rng.choice(["lo", "hi"], n).astype(object),
        "flt": rng.integers(0, 3, n).astype(float),
        "bool": rng.random(n) < 0.5,
        "i8": rng.integers(-2, 2, n).astype(np.int8),
        "nul": pd.array(rng.integers(0, 2, n), dtype="Int64"),
    })


def _variants(df, rng):
    """New frames to encode with the training states: the same frame, and versions with foreign categories,
    reordered categories, values out of range, unseen strings and missing cells."""
    out = {"same": df}
    v = df.copy()
    v["cat"] = pd.Categorical(df["cat"].astype(str), categories=["z", "q", "x", "y"])  # other order + unseen
    v.loc[v.index[::7], "cat"] = "q"
    v["int"] = np.where(rng.random(len(df)) < 0.1, 99, df["int"])
    v["gap"] = np.where(rng.random(len(df)) < 0.1, 1, df["gap"])
    v["str"] = np.where(rng.random(len(df)) < 0.1, "mid", df["str"]).astype(object)
    v["i8"] = np.where(rng.random(len(df)) < 0.1, np.int8(100), df["i8"]).astype(np.int8)
    out["unseen"] = v
    m = df.astype(object).mask(rng.random(df.shape) < 0.1)
    m["cat"] = pd.Categorical(m["cat"], categories=["x", "y", "z"])
    out["missing"] = m
    return out


@pytest.mark.parametrize("missing", ["skip", "error"])
@pytest.mark.parametrize("kind", ["same", "unseen", "missing"])
def test_column_codes_equal_transform(kind, missing):
    rng = np.random.default_rng(1)
    train = _train()
    data = encode(train, missing=missing)
    new = _variants(train, rng)[kind]
    for handle_unknown in ("ignore", "error"):
        try:
            ref = data.transform(new, handle_unknown=handle_unknown).codes
        except (ValueError, TypeError) as err:
            # the same error; a missing cell is named in row order (the first row with one), as the classifiers
            # always named it, where transform names the first column with one
            msg = "has a missing value" if "missing value" in str(err) else re.escape(str(err)[:60])
            with pytest.raises(type(err), match=msg):
                data.column_codes(new, handle_unknown=handle_unknown, warn_unseen=False)
            continue
        cc = data.column_codes(new, handle_unknown=handle_unknown, warn_unseen=False)
        assert_array_equal(cc.matrix(), ref)
        rows = np.array([3, 0, 17])
        assert_array_equal(cc.matrix(rows), ref[rows])
        for a in cc.arrays:
            assert a.dtype in (np.int8, np.int16, np.int32)


def test_matching_categories_are_read_without_a_copy():
    train = _train()
    data = encode(train)
    cc = data.column_codes(train)
    assert np.shares_memory(cc.arrays[0], train["cat"].array.codes)
    assert not cc.arrays[0].flags.writeable
    assert np.shares_memory(column_arrays(train, [1])[0], train["int"].to_numpy())


def test_public_fallback_gives_the_same_arrays(monkeypatch):
    train = _train()
    fast = column_arrays(train)
    monkeypatch.setattr(pd.DataFrame, "_get_column_array", property(lambda self: None), raising=False)
    slow = column_arrays(train)
    assert len(fast) == len(slow) == train.shape[1]
    for a, b in zip(fast, slow):
        assert type(a) is type(b)
        assert_array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


def test_missing_cell_comes_first_and_names_row_and_column():
    train = _train()
    data = encode(train)
    new = train.copy()
    new.index = [f"r{i}" for i in range(len(new))]
    new["str"] = new["str"].astype(object)
    new.loc["r9", "str"] = "unseen"                  # an unseen value at an earlier row ...
    new["cat"] = pd.Categorical(new["cat"], categories=["x", "y", "z"])
    new.loc["r12", "cat"] = np.nan                   # ... a missing cell still comes first
    with pytest.raises(MissingValueError, match=r"Column 'cat' has a missing value \(NaN/None\) at row 'r12'") as e:
        data.column_codes(new, handle_unknown="error")
    assert (e.value.column, e.value.row) == ("cat", "r12")
    new.loc["r12", "cat"] = "x"
    with pytest.raises(ValueError, match=r"Column 'str' has value 'unseen' at row 'r9' that was not seen during fit"):
        data.column_codes(new, handle_unknown="error")


@pytest.mark.parametrize("how", ["strings", "typo"])
def test_mostly_unseen_column_warns_naming_column_and_share(how):
    train = pd.DataFrame({"age": np.arange(40) % 10, "s": ["a", "b"] * 20})
    data = encode(train)
    new = train.copy()
    if how == "strings":   # an int column at fit that arrives as strings
        new["age"] = new["age"].astype(str)
        share, example = "100%", r"'\d'"
    else:                  # one typo makes pandas read the whole column as object (strings)
        new["age"] = [str(v) for v in new["age"]]
        new.loc[3, "age"] = "4O"
        share, example = "100%", r"'\w+'"
    with pytest.warns(UnseenValuesWarning, match=rf"Column 'age': 40 of 40 rows \({share}\) have values not seen "
                                                 rf"during fit \(e\.g\. {example}; known: \[0, 1, .*treated as missing"
                                                 r".*At fit the column held int values and now it holds str values"):
        cc = data.column_codes(new, handle_unknown="ignore")
    assert cc.n_unknown.tolist() == [40, 0]


def test_a_few_unseen_values_do_not_warn_and_are_counted():
    train = pd.DataFrame({"c": ["a", "b"] * 20})
    data = encode(train)
    new = pd.DataFrame({"c": ["a", "b", "q"] * 10})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenValuesWarning)
        cc = data.column_codes(new, handle_unknown="ignore")
    assert cc.n_unknown.tolist() == [10]
    with pytest.warns(UnseenValuesWarning, match=r"Column 'c': 20 of 30 rows \(67%\)"):
        data.column_codes(pd.DataFrame({"c": ["a", "q", "r"] * 10}), handle_unknown="ignore")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenValuesWarning)
        data.column_codes(pd.DataFrame({"c": ["q"] * 3}), handle_unknown="ignore", warn_unseen=False)


def test_errors():
    data = encode(_train())
    with pytest.raises(ValueError, match=r"Columns \['int'\] were present at fit time but are missing"):
        data.column_codes(_train().drop(columns="int"))
    with pytest.raises(TypeError, match="column_codes expects a pandas DataFrame"):
        data.column_codes(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"handle_unknown == 'drop'"):
        data.column_codes(_train(), handle_unknown="drop")
    cc = data.column_codes(_train().iloc[:0])
    assert cc.n_rows == 0
    assert cc.matrix().shape == (0, 8)


def test_validate_frame_fast_path_sets_and_checks_what_scikit_learn_does():
    """Wide frames (>= 256 columns) skip scikit-learn's per-label name handling: the same n_features_in_ and
    feature_names_in_ at fit, nothing to check when the very Index object comes back, scikit-learn's own check (and
    messages) otherwise."""
    from sklearn.base import BaseEstimator
    from sklearn.utils.validation import validate_data

    from pgmpy_ext.data import validate_frame

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, (5, 300)), columns=[f"g{i}" for i in range(300)])
    fast, ref = BaseEstimator(), BaseEstimator()
    validate_frame(fast, X, reset=True)
    validate_data(ref, X, skip_check_array=True)
    assert fast.n_features_in_ == ref.n_features_in_ == 300
    assert_array_equal(fast.feature_names_in_, ref.feature_names_in_)
    assert fast.feature_names_in_.dtype == object
    validate_frame(fast, X, reset=False)  # the same Index object: nothing to compare
    renamed = X.rename(columns={"g7": "h7"})
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
        validate_frame(fast, renamed, reset=False)
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing:\n- g0"):
        validate_frame(fast, X.iloc[:, 1:], reset=False)
    mixed = X.set_axis([0, *X.columns[1:]], axis=1)
    with pytest.raises(TypeError, match="Feature names are only supported if all input features have string names"):
        validate_frame(BaseEstimator(), mixed, reset=True)


@pytest.mark.parametrize("kind", ["blocks", "mixed"], ids=["categoricals-and-numbers", "with-strings"])
def test_frame_from_arrays_is_the_frame_of_its_columns(kind):
    """Issue 25: the frame assembled from pandas' blocks directly equals the frame pandas' constructor builds from
    the same arrays (dtypes, values, labels, index), passes pandas' own integrity check, and is the inverse of
    column_arrays."""
    from pgmpy_ext.data import frame_from_arrays

    rng = np.random.default_rng(3)
    n = 9
    dt = pd.CategoricalDtype(pd.Index(np.arange(4, dtype=np.int64)))
    codes = rng.integers(-1, 4, (5, n)).astype(np.int8)
    arrays = [pd.Categorical.from_codes(codes[0], dtype=dt), rng.integers(0, 9, n), rng.random(n),
              pd.Categorical.from_codes(codes[1], dtype=dt), rng.integers(0, 9, n), rng.random(n) < 0.5,
              pd.Categorical(rng.choice(["a", "b"], n))]
    if kind == "mixed":
        arrays.insert(2, pd.array(rng.choice(["u", "v"], n), dtype="str"))
    labels = pd.Index([f"c{j}" for j in range(len(arrays))])
    index = pd.Index(np.arange(n) * 10 + 5)
    got = frame_from_arrays(arrays, labels, index)
    got._mgr._verify_integrity()
    expect = pd.DataFrame(dict(zip(labels, arrays)), index=index)
    pd.testing.assert_frame_equal(got, expect)
    back = column_arrays(got)
    for a, b in zip(arrays, back):
        assert_array_equal(np.asarray(a), np.asarray(b))
    # numpy columns are copied into the frame's blocks: writing into the frame leaves the arrays alone
    before = arrays[1].copy()
    got.iloc[0, 1] = 99
    assert_array_equal(arrays[1], before)


def _wide_categorical_frame(n=30, m=80, seed=4):
    rng = np.random.default_rng(seed)
    dt5 = pd.CategoricalDtype(pd.Index(np.arange(5, dtype=np.int64)))
    dt3 = pd.CategoricalDtype(["lo", "mid", "hi"])
    cols = {}
    for j in range(m):
        if j % 9 == 4:
            cols[f"i{j}"] = rng.integers(0, 4, n)  # plain integers in between
        elif j % 2:
            cols[f"c{j}"] = pd.Categorical.from_codes(rng.integers(0, 5, n), dtype=dt5)
        else:
            cols[f"c{j}"] = pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=dt3)
    return pd.DataFrame(cols)


def test_wide_categorical_encode_and_column_codes_equal_per_column():
    """Issue 25: a wide frame of Categoricals sharing dtype objects (a discretiser's output) is encoded with the
    Categoricals read at once and predicted from one read-only code block: the codes and states equal those of
    each column encoded alone, column_codes equals transform, and nothing handed out is writable."""
    df = _wide_categorical_frame()
    data = encode(df, missing="skip", codes_dtype="auto")
    for k, col in enumerate(df.columns):
        alone = encode(df[[col]], missing="skip")
        assert data.states[k] == alone.states[0]
        assert_array_equal(data.codes[:, k], alone.codes[:, 0])
    new = df.iloc[::-1].reset_index(drop=True)
    cc = data.column_codes(new, handle_unknown="ignore")
    assert_array_equal(cc.matrix(), data.transform(new, handle_unknown="ignore").codes)
    cat_arrays = [a for a, c in zip(cc.arrays, cc.columns) if c.startswith("c")]
    assert len(cat_arrays) > 64
    assert not any(a.flags.writeable for a in cat_arrays)


def test_wide_categorical_missing_cells_are_found_in_row_order():
    """Issue 25: under missing="error" the first missing cell in row-major order is refused, at fit (first in
    column order, as the column loop finds it, even behind a numeric-rule violation further right) and at
    predict, naming its column and row label."""
    from pgmpy_ext.data import MissingValueError

    df = _wide_categorical_frame()
    data = encode(df, missing="error", codes_dtype="auto")
    new = df.copy()
    new.index = [f"r{i}" for i in range(len(new))]
    new.iloc[7, 33] = np.nan
    new.iloc[3, 51] = np.nan
    with pytest.raises(MissingValueError, match=r"Column 'c51' has a missing value.*row 'r3'"):
        data.column_codes(new)
    bad = new.copy()
    bad["wide"] = np.arange(len(bad)) * 7  # an integer column above the numeric rule, right of the missing cells
    with pytest.raises(ValueError, match=r"Column 'c33' has a missing value.*row 'r7'"):
        encode(bad, missing="error")
