"""compress() merges distinct rows in key-range buckets: identical to the in-memory distinct rows, and to the
single-tree merge, with missing cells, empty partitions and buckets that are empty everywhere."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask", reason="pgmpy_ext.dask needs dask: pip install 'pgmpy-ext[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="pgmpy_ext.dask needs dask[dataframe]")

import pgmpy_ext.dask as pdask  # noqa: E402
from pgmpy_ext.dask import _data, _tasks  # noqa: E402
from pgmpy_ext.data import encode  # noqa: E402
from pgmpy_ext.stats import unique_rows  # noqa: E402


def _frame(seed: int, n: int = 600) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.integers(0, 4, n).astype(float),
                       "c": rng.choice(["p", "q"], n), "d": rng.integers(0, 3, n).astype(float)})
    df.loc[rng.random(n) < 0.05, "b"] = np.nan
    df.loc[rng.random(n) < 0.05, "a"] = None
    df["c"] = df["c"].where(df["a"] != "z", "p")  # bucket (a=z, c=q) is empty in every partition
    return df


@pytest.mark.parametrize(("seed", "cuts"), [
    (0, [0, 37, 37, 200, 201, 450, 600]),  # uneven, with an empty partition: the root merges the leaves' buckets
    (1, [0, 37, 37, 200, 201, 450, 600]),
    # 21 partitions: two levels of whole-row merges below the cut root (8 + 8 + 5, then 3 children)
    (2, [0, 10, 10, 25, 60, 61, 100, 170, 200, 200, 260, 300, 333, 380, 420, 421, 480, 500, 540, 555, 590, 600]),
])
def test_bucketed_compress_equals_in_memory_and_the_single_tree(seed, cuts, monkeypatch):
    df = _frame(seed)
    states = {"a": ["x", "y", "z"], "b": [0.0, 1.0, 2.0, 3.0], "c": ["p", "q"], "d": [0.0, 1.0, 2.0]}
    parts = [df.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ddf = dd.from_delayed([dask.delayed(p) for p in parts], meta=df.iloc[:0], verify_meta=False)
    with dask.config.set(scheduler="threads"):
        data = pdask.encode(ddf, states=states, missing="skip")
        enc = encode(df, states=states, missing="skip")
        assert _tasks.bucket_plan(data.cards, _data._COMPRESS_BUCKETS) > 0  # the bucketed path runs
        got = pdask.compress(data)
        ref = unique_rows(enc.codes, enc.cards)
        np.testing.assert_array_equal(got.codes, ref.codes)
        np.testing.assert_array_equal(got.weights, ref.counts)
        monkeypatch.setattr(_data, "_COMPRESS_BUCKETS", 1)  # the single-tree merge
        assert _tasks.bucket_plan(data.cards, 1) == 0
        single = pdask.compress(data)
        np.testing.assert_array_equal(single.codes, got.codes)
        np.testing.assert_array_equal(single.weights, got.weights)


def test_bucket_ids_follow_the_lexicographic_order():
    rng = np.random.default_rng(3)
    cards = np.array([3, 2, 4])
    codes = np.column_stack([rng.integers(-1, c, 500) for c in cards]).astype(np.int8)
    u = unique_rows(codes, cards, keep_dtype=True)
    ids = _tasks.bucket_ids(u.codes, cards, 2)
    assert np.all(np.diff(ids) >= 0)
    pieces = _tasks.split_distinct((u.codes, u.counts), cards, 2)
    assert len(pieces) == 4 * 3
    np.testing.assert_array_equal(np.concatenate([p[0] for p in pieces]), u.codes)
    assert _tasks.bucket_plan(np.array([200, 3]), 16) == 0  # one column already has too many values
