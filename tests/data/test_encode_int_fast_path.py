"""encode's block fast path for plain numpy integer columns gives exactly what the general (factorize) path gives."""

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.data import encode


def _general(df: pd.DataFrame) -> pd.DataFrame:
    """The same frame with pandas nullable integer columns: not plain numpy ints, so the general path encodes them."""
    return df.astype({c: "Int64" for c in df.columns if df[c].dtype.kind in "iu"})


@pytest.mark.parametrize("seed", range(6))
def test_plain_int_columns_encode_like_the_general_path(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    cols = {}
    for j in range(int(rng.integers(1, 150))):
        kind = rng.integers(5)
        if kind == 0:
            cols[f"a{j}"] = rng.integers(0, 3, n).astype(np.int8)
        elif kind == 1:
            cols[f"a{j}"] = (rng.integers(-5, 5, n) * 7).astype(np.int16)
        elif kind == 2:
            cols[f"a{j}"] = rng.choice([10**12, -(10**12), 3], n)  # a range too wide for the presence table
        elif kind == 3:
            cols[f"a{j}"] = rng.integers(0, 40, n).astype(np.uint32)
        else:
            cols[f"a{j}"] = rng.choice(["x", "y"], n)  # breaks the blocks of integer columns
    df = pd.DataFrame(cols, index=rng.permutation(n) + 100)
    before = df.copy()
    # the numeric-column rule is not what is compared here (40 values on 60 rows would be refused)
    got, ref = encode(df, max_numeric_states=None), encode(_general(df), max_numeric_states=None)
    pd.testing.assert_frame_equal(df, before)
    assert np.array_equal(got.codes, ref.codes)
    assert got.states == ref.states
    assert all(type(s) is type(t) for a, b in zip(got.states, ref.states) for s, t in zip(a, b))


def test_fast_path_applies_the_numeric_column_rule_and_respects_declared_states():
    df = pd.DataFrame({"ok": np.arange(60) % 3, "amount": np.arange(60) * 10})
    with pytest.raises(ValueError, match=r"Column 'amount' is numeric with 60 distinct values, more than the limit of "
                                         r"12 states for 60 rows"):
        encode(df)
    enc = encode(df, states={"amount": list(range(0, 600, 10)) + [-1]})  # declared: categorical, general path
    assert enc.states[1][-1] == -1
    assert enc.codes[5, 1] == 5
    assert encode(df, max_numeric_states=None).states[1] == list(range(0, 600, 10))


def test_fast_path_blocks_span_many_columns_and_rows():
    rng = np.random.default_rng(1)
    D = rng.integers(0, 3, (70, 300))
    D[:, 7] += 5  # a column with other states inside a block
    df = pd.DataFrame(D, columns=[f"g{i}" for i in range(300)])
    enc = encode(df, codes_dtype="auto")
    assert enc.kernel_codes.dtype == np.int8
    assert enc.states[7] == sorted(set(D[:, 7].tolist()))
    assert np.array_equal(enc.codes, encode(_general(df)).codes)


def test_category_columns_sharing_a_dtype_encode_like_separate_columns():
    rng = np.random.default_rng(2)
    n = 40
    shared = pd.CategoricalDtype([0, 1, 2])
    cols = {f"s{j}": pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=shared) for j in range(6)}
    cols["rev"] = pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=pd.CategoricalDtype([2, 1, 0]))  # == shared
    cols["flt"] = pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=pd.CategoricalDtype([0.0, 1.0, 2.0]))
    cols["obj"] = pd.Categorical.from_codes(rng.integers(0, 3, n), dtype=pd.CategoricalDtype([0, "1", 2]))
    cols["s_nan"] = pd.Categorical.from_codes(np.r_[-1, rng.integers(0, 3, n - 1)], dtype=shared)
    df = pd.DataFrame(cols)
    enc = encode(df, missing="skip")
    for k, col in enumerate(df.columns):  # each column alone goes through the general path
        alone = encode(df[[col]], missing="skip")
        assert np.array_equal(enc.codes[:, k], alone.codes[:, 0]), col
        assert enc.states[k] == alone.states[0], col
        assert [type(v) for v in enc.states[k]] == [type(v) for v in alone.states[0]], col
    assert enc.states[df.columns.get_loc("rev")] == [2, 1, 0]
    with pytest.raises(ValueError, match=r"Column 's_nan' has a missing value"):
        encode(df)


def test_block_path_bounds_its_tables_and_gives_the_same_codes(monkeypatch):
    """Issue 24 item 5: the presence tables of a block of integer columns are built a chunk of columns at a time
    under _BLOCK_CELLS cells (77 rows of values up to 16,000 would otherwise ask for 65M cells per 4,096 columns)."""
    import pgmpy_ext.data._encoded as enc

    rng = np.random.default_rng(2)
    D = rng.integers(20, 16000, (40, 300))
    D[:, ::7] = rng.integers(0, 5, (40, 43))
    df = pd.DataFrame(D, columns=[f"g{i}" for i in range(300)])
    ref = encode(_general(df), max_numeric_states=None)
    monkeypatch.setattr(enc, "_BLOCK_CELLS", 50_000)  # a few columns per chunk
    got = encode(df, max_numeric_states=None)
    assert np.array_equal(got.codes, ref.codes)
    assert got.states == ref.states
