"""Issue 11 data rules of the encoder: unseen states (handle_unknown), row labels in messages, mixed-type object
columns, missing cells under transform, and the numeric-column rule (max_numeric_states)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from pgmpy_ext.data import MAX_NUMERIC_STATES, encode, numeric_columns_to_discretize


# ---------------------------------------------------------------- handle_unknown
def test_transform_handle_unknown_ignore_codes_minus_one():
    data = encode(pd.DataFrame({"c": ["a", "b", "a"], "n": [0, 1, 2]}))
    new = pd.DataFrame({"c": ["b", "z", "a"], "n": [2, 1, 9]})
    enc = data.transform(new, handle_unknown="ignore")
    assert_array_equal(enc.codes, [[1, 2], [-1, 1], [0, -1]])
    assert enc.missing == "skip"  # -1 codes are missing observations
    assert enc.has_missing
    # nothing unseen: the fitted policy is kept
    assert data.transform(new.iloc[[0]], handle_unknown="ignore").missing == "error"


def test_transform_handle_unknown_error_names_index_label():
    data = encode(pd.DataFrame({"c": ["a", "b"]}))
    new = pd.DataFrame({"c": ["a", "a", "z"]}, index=[10, 20, 30])
    with pytest.raises(ValueError, match=r"Column 'c' has value 'z' at row 30 that was not seen during fit "
                                         r"\(known: \['a', 'b'\]\)\. Pass handle_unknown='ignore'"):
        data.transform(new)
    new.index = ["r1", "r2", "r3"]
    with pytest.raises(ValueError, match=r"value 'z' at row 'r3' that was not seen"):
        data.transform(new, handle_unknown="error")
    with pytest.raises(ValueError, match=r"handle_unknown == 'drop', must be one of \('error', 'ignore'\)"):
        data.transform(new, handle_unknown="drop")


def test_unknown_category_of_categorical_column_is_ignored():
    data = encode(pd.DataFrame({"c": pd.Categorical(["a", "b"])}))
    new = pd.DataFrame({"c": pd.Categorical(["b", "q"], categories=["a", "b", "q"])})
    assert_array_equal(data.transform(new, handle_unknown="ignore").codes[:, 0], [1, -1])
    with pytest.raises(ValueError, match=r"Column 'c' has value 'q' at row 1 that was not seen"):
        data.transform(new)


# ---------------------------------------------------------------- row labels
def test_messages_name_rows_by_index_label():
    idx = pd.Index([101, 102, 103])
    with pytest.raises(ValueError, match=r"Column 'a' has a missing value \(NaN/None\) at row 102;"):
        encode(pd.DataFrame({"a": ["x", None, "y"]}, index=idx))
    with pytest.raises(ValueError, match=r"Column 'b' has a missing value \(NaN\) at row 'p';"):
        encode(pd.DataFrame({"b": [np.nan, 1.0]}, index=["p", "q"]))
    with pytest.raises(ValueError, match=r"Column 'b' has an infinite value \(inf\) at row 103;"):
        encode(pd.DataFrame({"b": [1.0, 2.0, np.inf]}, index=idx))
    with pytest.raises(ValueError, match=r"Column 's' has value 'c' at row 103 that was not seen"):
        encode(pd.DataFrame({"s": ["a", "b", "c"]}, index=idx), states={"s": ["a", "b"]})


def test_missing_cells_under_transform_follow_the_policy():
    skip = encode(pd.DataFrame({"a": ["x", None, "y"]}), missing="skip")
    enc = skip.transform(pd.DataFrame({"a": [None, "y", np.nan]}))
    assert_array_equal(enc.codes[:, 0], [-1, 1, -1])
    assert enc.missing == "skip"
    strict = encode(pd.DataFrame({"a": ["x", "y"]}))
    with pytest.raises(ValueError, match=r"Column 'a' has a missing value \(NaN/None\) at row 'k'"):
        strict.transform(pd.DataFrame({"a": ["x", None]}, index=["j", "k"]))


# ---------------------------------------------------------------- mixed-type object columns
def test_mixed_type_object_column_states_are_distinct_and_deterministic():
    col = pd.Series([1, "1", "two", 1, "two"], dtype=object)
    data = encode(pd.DataFrame({"m": col}))
    assert data.states[0] == [1, "1", "two"]  # ints before strs: (type name, repr) order
    assert type(data.states[0][0]) is int
    assert_array_equal(data.codes[:, 0], [0, 1, 2, 0, 2])
    # the order of appearance does not matter
    rev = encode(pd.DataFrame({"m": col.iloc[::-1].reset_index(drop=True)}))
    assert rev.states == data.states
    assert_array_equal(data.transform(pd.DataFrame({"m": ["1", 1]})).codes[:, 0], [1, 0])
    with pytest.raises(ValueError, match=r"Column 'm' has value '2' at row 0 that was not seen"):
        data.transform(pd.DataFrame({"m": ["2"]}))


# ---------------------------------------------------------------- numeric-column rule
def test_numeric_rule_threshold_is_absolute_and_documented():
    assert MAX_NUMERIC_STATES == 50
    assert "max_numeric_states" in encode.__doc__
    n = 1000
    ok = pd.DataFrame({"k": np.arange(n) % 50, "f": (np.arange(n) % 50).astype(float)})
    assert encode(ok).cards.tolist() == [50, 50]  # at the limit: categorical
    with pytest.raises(ValueError, match=r"Column 'k' is numeric with 51 distinct values, more than "
                                         r"max_numeric_states=50.*MDLPDiscretizer.*astype\('category'\)"):
        encode(pd.DataFrame({"k": np.arange(n) % 51}))
    with pytest.raises(ValueError, match=r"Column 'f' is numeric with 51 distinct values"):
        encode(pd.DataFrame({"f": (np.arange(n) % 51).astype(float)}))


def test_numeric_rule_cases_of_issue_11():
    rng = np.random.default_rng(0)
    credit_amount = rng.permutation(np.r_[np.arange(921) * 7 + 250, rng.integers(250, 6697, 79)])  # ~921 values
    with pytest.raises(ValueError, match=r"Column 'credit_amount' is numeric with \d{3} distinct values"):
        encode(pd.DataFrame({"credit_amount": credit_amount}))
    age = np.r_[np.arange(61) + 15, rng.integers(15, 76, 305)]  # dermatology: 61 values on 366 rows
    with pytest.raises(ValueError, match=r"Column 'Age' is numeric with 61 distinct values, more than "
                                         r"max_numeric_states=50"):
        encode(pd.DataFrame({"Age": age}))
    family = rng.integers(0, 2, 366)  # int-coded categorical columns with few values pass
    codes = rng.integers(0, 7, 366)
    assert encode(pd.DataFrame({"family_history": family, "code": codes})).cards.tolist() == [2, 7]


def test_numeric_rule_exemptions_and_override():
    many = np.arange(200)
    df = pd.DataFrame({"cat": pd.Categorical(many), "obj": many.astype(str), "b": many % 2 == 0,
                       "objint": pd.Series(list(many), dtype=object)})
    assert encode(df).cards.tolist() == [200, 200, 2, 200]  # category, str, bool, object: never refused
    num = pd.DataFrame({"x": many})
    assert encode(num, max_numeric_states=None).cards.tolist() == [200]
    assert encode(num, states={"x": list(range(200))}).cards.tolist() == [200]  # declared states = categorical
    tall = pd.DataFrame({"x": np.tile(many, 5)})  # 200 values on 1,000 rows: one value per 5 rows
    assert encode(tall, max_numeric_states=200).cards.tolist() == [200]
    with pytest.raises(ValueError, match=r"Column 'x' is numeric with 200 distinct values, more than "
                                         r"max_numeric_states=199"):
        encode(tall, max_numeric_states=199)
    with pytest.raises(ValueError, match=r"Column 'x' is numeric with 200 distinct values, more than the limit of 40 "
                                         r"states for 200 rows \(at most one value per 5 rows"):
        encode(num, max_numeric_states=200)
    with pytest.raises(ValueError, match=r"max_numeric_states == 0, must be >= 1"):
        encode(num, max_numeric_states=0)
    with pytest.raises(TypeError, match=r"max_numeric_states must be an int or None, got float"):
        encode(num, max_numeric_states=50.0)
    # transform never applies the rule (the states are the fitted ones)
    fitted = encode(num, max_numeric_states=None)
    assert fitted.transform(num).cards.tolist() == [200]


def test_numeric_columns_to_discretize():
    n = 300
    df = pd.DataFrame({
        "amount": np.arange(n) * 3,                        # int, 300 values: refused
        "code": np.arange(n) % 4,                          # int-coded categorical: kept
        "whole": (np.arange(n) % 60).astype(float),        # whole-number float, 60 values: refused
        "few_whole": (np.arange(n) % 3).astype(float),     # whole-number float, 3 values: kept
        "frac": np.linspace(0, 1, n),                      # fractions: discretise
        "frac_few": np.tile([0.5, 1.5], n // 2),           # fractions, 2 values: discretise (encode refuses it)
        "cat": pd.Categorical(np.arange(n)),
        "s": np.arange(n).astype(str),
        "b": np.arange(n) % 2 == 0,
    })
    assert numeric_columns_to_discretize(df) == ["amount", "whole", "frac", "frac_few"]
    assert numeric_columns_to_discretize(df, max_numeric_states=None) == ["frac", "frac_few"]
    assert numeric_columns_to_discretize(df, max_numeric_states=59) == ["amount", "whole", "frac", "frac_few"]
    assert numeric_columns_to_discretize(df, max_numeric_states=60) == ["amount", "frac", "frac_few"]
    # exactly the columns encode refuses (or, for fractions, rejects)
    refused = numeric_columns_to_discretize(df)
    for c in refused:
        with pytest.raises(ValueError, match=rf"Column '{c}' (is numeric with|has float values)"):
            encode(df[[c]])
    assert encode(df.drop(columns=refused)).n_cols == len(df.columns) - len(refused)
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        numeric_columns_to_discretize(np.zeros((2, 2)))


# ---------------------------------------------------------------- the row-count part of the rule (issue 24)
def test_numeric_rule_looks_at_the_rows():
    from pgmpy_ext.data import MIN_NUMERIC_STATES, ROWS_PER_NUMERIC_STATE, check_numeric_columns, numeric_state_limit

    assert (MIN_NUMERIC_STATES, ROWS_PER_NUMERIC_STATE) == (10, 5)
    assert [numeric_state_limit(n) for n in (5, 20, 77, 155, 249, 250, 10**6)] == [10, 10, 15, 31, 49, 50, 50]
    rng = np.random.default_rng(0)
    # issue 24: a microarray's integer expression values, 50 distinct values on 77 rows, are not categorical
    genes = pd.DataFrame({"g1": rng.permutation(np.r_[np.arange(50), rng.integers(0, 50, 27)]) * 13 + 20,
                          "flag": rng.integers(0, 2, 77), "grade": rng.integers(0, 10, 77)})
    with pytest.raises(ValueError, match=r"Column 'g1' is numeric with 50 distinct values, more than the limit of 15 "
                                         r"states for 77 rows"):
        encode(genes)
    with pytest.raises(ValueError, match=r"the limit of 15 states for 77 rows"):
        check_numeric_columns(genes)
    assert numeric_columns_to_discretize(genes) == ["g1"]  # the discretisers' default columns: the same rule
    assert encode(genes.drop(columns="g1")).cards.tolist() == [2, 10]  # up to 10 values always pass
    assert encode(genes.iloc[:20].drop(columns="g1")).cards.tolist()[1] <= 10
    # the same column on 250 rows (50 values, 5 rows each) is categorical
    tall = pd.DataFrame({"g1": np.tile(np.arange(50), 5)})
    assert encode(tall).cards.tolist() == [50]
    assert numeric_columns_to_discretize(tall) == []
