"""EncodedData: codes, states (values and types), validation and transform with fitted states."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from pgmpy_ext.data import EncodedData, encode


@pytest.fixture
def mixed_df():
    return pd.DataFrame({
        "cat": pd.Categorical(["lo", "hi", "lo", "mid"], categories=["lo", "mid", "hi"]),
        "s": ["b", "a", "b", "c"],
        "flag": [True, False, True, True],
        "n": np.array([3, 1, 3, 2], dtype=np.int64),
        "f": [1.0, 2.0, 2.0, 1.0],
    })


def test_codes_states_and_types(mixed_df):
    data = encode(mixed_df)
    assert data.codes.dtype == np.int32
    assert data.codes.flags.c_contiguous
    assert data.state_names == {"cat": ["lo", "mid", "hi"], "s": ["a", "b", "c"], "flag": [False, True],
                                "n": [1, 2, 3], "f": [1.0, 2.0]}
    assert_array_equal(data.codes[:, 0], [0, 2, 0, 1])  # declared category order kept
    assert_array_equal(data.codes[:, 3], [2, 0, 2, 1])
    assert type(data.states[3][0]) is int
    assert type(data.states[2][0]) is bool
    assert type(data.states[4][0]) is float
    assert data.cards.tolist() == [3, 3, 2, 3, 2]
    assert data.decode("s", [2, 0]) == ["c", "a"]


def test_dataframe_not_modified(mixed_df):
    before = mixed_df.copy()
    data = encode(mixed_df)
    data.transform(mixed_df)
    pd.testing.assert_frame_equal(mixed_df, before)


def test_round_trip_to_frame(mixed_df):
    back = encode(mixed_df).to_frame(categorical=False)
    for c in mixed_df.columns:
        assert back[c].tolist() == mixed_df[c].tolist()


def test_unused_category_is_a_state():
    df = pd.DataFrame({"x": pd.Categorical(["a", "a"], categories=["a", "b"])})
    assert encode(df).cards.tolist() == [2]


def test_declared_states(mixed_df):
    data = encode(mixed_df, states={"s": ["c", "b", "a", "z"]})
    assert data.states[1] == ["c", "b", "a", "z"]
    assert_array_equal(data.codes[:, 1], [1, 2, 1, 0])
    with pytest.raises(ValueError, match=r"Column 's' has value 'c' at row 3 that was not seen"):
        encode(mixed_df, states={"s": ["a", "b"]})
    with pytest.raises(ValueError, match="declares columns"):
        encode(mixed_df, states={"nope": [1]})
    with pytest.raises(ValueError, match="contain duplicates"):
        encode(mixed_df, states={"s": ["a", "a", "b", "c"]})


def test_transform_uses_fitted_states(mixed_df):
    data = encode(mixed_df)
    new = pd.DataFrame({"n": [2, 3], "s": ["c", "a"]})
    enc = data.transform(new, columns=["s", "n"])
    assert enc.columns == ["s", "n"]
    assert_array_equal(enc.codes, [[2, 1], [0, 2]])
    msg = r"Column 'n' has value 7 at row 1 that was not seen during fit \(known: \[1, 2, 3\]\)"
    with pytest.raises(ValueError, match=msg):
        data.transform(pd.DataFrame({"n": [1, 7]}), columns=["n"])
    with pytest.raises(ValueError, match=r"Columns \['flag'\] were present at fit time but are missing"):
        data.transform(new[["s", "n"]], columns=["s", "n", "flag"])


def test_transform_accepts_numpy_and_float_coded_ints():
    data = encode(pd.DataFrame({"n": [0, 1, 2]}))
    enc = data.transform(pd.DataFrame({"n": np.array([2.0, 0.0])}))
    assert_array_equal(enc.codes[:, 0], [2, 0])


def test_real_valued_float_column_is_rejected():
    with pytest.raises(ValueError, match=r"Column 'age' has float values \(e.g. 37.5\); pgmpy-ext needs discrete"):
        encode(pd.DataFrame({"age": [20.0, 37.5]}))
    with pytest.raises(ValueError, match=r"Column 'x' has an infinite value \(inf\) at row 1"):
        encode(pd.DataFrame({"x": [1.0, np.inf]}))
    with pytest.raises(ValueError, match=r"Column 'x' has a missing value \(NaN\) at row 0"):
        encode(pd.DataFrame({"x": [np.nan, 1.5]}))


def test_missing_policy():
    df = pd.DataFrame({"a": ["x", None, "y"], "b": [1.0, 2.0, np.nan]})
    with pytest.raises(ValueError, match=r"Column 'a' has a missing value \(NaN/None\) at row 1"):
        encode(df)
    data = encode(df, missing="skip")
    assert_array_equal(data.codes, [[0, 0], [-1, 1], [1, -1]])
    assert data.has_missing
    with pytest.raises(ValueError, match="missing == 'drop'"):
        encode(df, missing="drop")


def test_bad_inputs():
    with pytest.raises(ValueError, match="no rows"):
        encode(pd.DataFrame({"a": pd.Series([], dtype=int)}))
    with pytest.raises(ValueError, match="no columns"):
        encode(pd.DataFrame(index=[0, 1]))
    with pytest.raises(TypeError, match="argument must be a string or a number"):
        encode(pd.DataFrame({"a": [[1], [2]]}))
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        encode(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="no observed value"):
        encode(pd.DataFrame({"a": [None, None]}, dtype=object), missing="skip")
    df = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(ValueError, match="duplicated"):
        encode(df)


def test_weights_validation():
    df = pd.DataFrame({"a": [0, 1]})
    assert encode(df, weights=[1, 2]).total_weight() == 3
    with pytest.raises(ValueError, match="length n_rows = 2"):
        encode(df, weights=[1.0])
    with pytest.raises(ValueError, match="finite and >= 0"):
        encode(df, weights=[1.0, -1.0])
    data = encode(df)
    assert data.kernel_weights().shape == (0,)
    assert data.weights_or_ones().tolist() == [1.0, 1.0]


def test_select_take_and_index():
    data = encode(pd.DataFrame({"a": [0, 1, 1], "b": ["u", "v", "u"]}))
    sub = data.select(["b"])
    assert sub.columns == ["b"]
    assert sub.codes.flags.c_contiguous
    assert data.take([0, 2]).n_rows == 2
    with pytest.raises(KeyError, match="Column 'zz' is not in the data"):
        data.index("zz")
    assert "EncodedData(n_rows=3" in repr(data)


def test_integer_column_labels():
    data = encode(pd.DataFrame(np.array([[0, 1], [1, 1]])))
    assert data.columns == [0, 1]
    assert isinstance(data, EncodedData)


def test_unused_category_outside_declared_states_is_ignored():
    """A category that no row uses need not be a declared state (pgmpy's state names are the observed values)."""
    df = pd.DataFrame({"x": pd.Categorical(["a", "c", "a"], categories=["a", "b", "c"])})
    data = encode(df, states={"x": ["a", "c"]})
    assert_array_equal(data.codes[:, 0], [0, 1, 0])
    with pytest.raises(ValueError, match=r"Column 'x' has value 'c' at row 1 that was not seen during fit"):
        encode(df, states={"x": ["a", "b"]})
