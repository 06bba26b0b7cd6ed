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


def test_bucket_plan_refuses_a_column_with_too_many_values():
    assert _tasks.bucket_plan(np.array([200, 3]), 16) == 0  # one column already has too many values


@pytest.mark.parametrize("lead", [1, 2, 3])
def test_word_buckets_are_ranges_of_the_leading_codes(lead):
    from pgmpy_ext.stats import decode_row_words, unique_row_words

    rng = np.random.default_rng(4)
    cards = np.array([3, 2, 4, 5])
    codes = np.column_stack([rng.integers(-1, c, 800) for c in cards]).astype(np.int8)
    words, counts = unique_row_words(codes, cards)
    pieces = _tasks.split_words((words, counts), cards, lead)
    assert len(pieces) == int(np.prod(cards[:lead] + 1))
    np.testing.assert_array_equal(np.concatenate([p[0] for p in pieces]), words)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in pieces]), counts)
    for b, (w, _) in enumerate(pieces):  # every row of bucket b has leading codes whose mixed-radix key is b
        lead_codes = decode_row_words(w, cards)[0][:, :lead] + 1
        key = np.zeros(w.shape[0], dtype=np.intp)
        for j in range(lead):
            key = key * (cards[j] + 1) + lead_codes[:, j]
        assert np.all(key == b)


def test_word_buckets_stay_inside_the_first_key_word():
    from pgmpy_ext.stats import key_words

    cards = np.array([1] * 3 + [2**20] * 4)
    first = int(key_words(cards)[1])
    assert first == 5  # 2**3 * (2**20 + 1)**2 < 2**63 <= 2**3 * (2**20 + 1)**3
    for target in (16, 2**30, 2**45, 2**62):
        assert 0 <= _tasks.word_bucket_lead(cards, target) <= first
    with pytest.raises(ValueError, match="first key word"):
        _tasks.word_bucket_divisor(cards, first + 1)
    assert _tasks.word_bucket_divisor(cards, first) == 1
    assert _tasks.word_bucket_divisor(cards, 3) == (2**20 + 1) ** 2
