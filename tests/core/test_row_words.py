"""Distinct rows as key words (what compress() merges): the same rows, counts and order as the code-row functions,
and a decoding that inverts the keying for every column layout (several words, large cardinalities, -1 cells)."""

from __future__ import annotations

import numpy as np
import pytest

from pgmpy_ext.stats import (
    decode_row_words,
    key_words,
    merge_row_words,
    merge_unique_rows,
    unique_row_words,
    unique_rows,
)


def _codes(seed: int, cards: np.ndarray, n: int, dtype=np.int32) -> np.ndarray:
    rng = np.random.default_rng(seed)
    small = np.minimum(cards, 3)  # few distinct values per column, so rows repeat
    x = np.column_stack([rng.integers(-1, c, n) for c in small]).astype(dtype)
    return x


LAYOUTS = {
    "one word": np.array([3, 2, 4, 2]),
    "two words (alarm-like)": np.array([2, 3, 4, 4] * 9 + [2]),
    "many words, wide radix": np.array([70_000] * 9),  # one column per ~4 per word, radix above the lookup chunk
    "a column above the chunk": np.array([2, 5_000, 3]),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_words_give_the_rows_counts_and_order_of_unique_rows(layout, dtype):
    cards = LAYOUTS[layout]
    if cards.max() > np.iinfo(dtype).max:
        pytest.skip(f"{np.dtype(dtype).name} codes do not hold these cardinalities")
    x = _codes(0, cards, 3_000, dtype)
    w = np.random.default_rng(1).random(3_000)
    ref = unique_rows(x, cards, w)
    words, counts = unique_row_words(x, cards, w)
    assert words.shape == (ref.codes.shape[0], key_words(cards).shape[0] - 1)
    np.testing.assert_array_equal(counts, ref.counts)  # bit for bit
    decoded, any_missing = decode_row_words(words, cards, dtype)
    assert decoded.dtype == dtype
    np.testing.assert_array_equal(decoded, ref.codes)
    assert any_missing == bool((ref.codes < 0).any())
    np.testing.assert_array_equal(words, _horner_words(ref.codes, cards))


def _horner_words(codes: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """The key words by their definition, ``key = key * (card + 1) + (x + 1)`` per word, in Python integers."""
    ptr = key_words(cards).tolist()
    out = np.zeros((codes.shape[0], len(ptr) - 1), dtype=np.int64)
    for r, row in enumerate(codes.tolist()):
        for w, (a, b) in enumerate(zip(ptr[:-1], ptr[1:])):
            key = 0
            for x, c in zip(row[a:b], cards[a:b].tolist()):
                key = key * (c + 1) + (x + 1)
            out[r, w] = key
    return out


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_merge_of_words_equals_merge_of_code_rows(layout):
    cards = LAYOUTS[layout]
    parts = [_codes(s, cards, n) for s, n in [(2, 500), (3, 0), (4, 1_200), (5, 37)]]
    code_runs = [unique_rows(p, cards) for p in parts]
    ref_codes, ref_counts = merge_unique_rows([(u.codes, u.counts) for u in code_runs], cards)
    words, counts = merge_row_words([unique_row_words(p, cards) for p in parts])
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(decode_row_words(words, cards)[0], ref_codes)


def test_merge_refuses_a_run_that_is_not_increasing():
    cards = np.array([3, 3])
    words, counts = unique_row_words(_codes(0, cards, 100), cards)
    with pytest.raises(ValueError, match="not strictly increasing"):
        merge_row_words([(words[::-1].copy(), counts), (words, counts)])


def test_rows_without_missing_cells_report_none():
    cards = np.array([2, 3, 4])
    x = np.array([[0, 2, 3], [1, 0, 0], [0, 2, 3]], dtype=np.int8)
    words, counts = unique_row_words(x, cards)
    decoded, any_missing = decode_row_words(words, cards)
    assert decoded.tolist() == [[0, 2, 3], [1, 0, 0]]
    assert counts.tolist() == [2.0, 1.0]
    assert not any_missing
    empty, flag = decode_row_words(np.zeros((0, 1), dtype=np.int64), cards)
    assert empty.shape == (0, 3)
    assert not flag


def test_decoding_is_the_same_on_two_threads():
    cards = LAYOUTS["two words (alarm-like)"]
    x = _codes(6, cards, 200_000, np.int8)
    words, _ = unique_row_words(x, cards)
    assert words.shape[0] > 2 * 32_768  # enough rows for a second thread
    one, m1 = decode_row_words(words, cards, n_jobs=1)
    two, m2 = decode_row_words(words, cards, n_jobs=2)
    np.testing.assert_array_equal(one, two)
    assert m1 == m2
