"""Counting kernels: hand-computed cases, hypothesis properties against numpy references, invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _counting
from pgmpy_ext.data import EncodedData, encode
from pgmpy_ext.stats import (
    family_counts,
    family_counts_codes,
    family_counts_many,
    key_words,
    merge_unique_rows,
    pair_offsets,
    pairwise_counts,
    unique_rows,
)
from tests.reference import family_counts_ref, pairwise_counts_ref, unique_rows_ref

# ----------------------------------------------------------------------------------------- hand-computed cases
HAND = np.array([[0, 1, 2], [1, 1, 0], [0, 0, 2], [1, 1, 2], [0, 1, 2], [1, 0, -1]], dtype=np.int32)
HAND_CARDS = np.array([2, 2, 3])


def test_family_counts_hand():
    # child col 0, parent col 1: (x0, x1) pairs: (0,1),(1,1),(0,0),(1,1),(0,1),(1,0)
    t = family_counts_codes(HAND, [0, 1], HAND_CARDS[[0, 1]])
    assert_array_equal(t, [[1, 2], [1, 2]])
    # with col 2: the last row has a missing value and is skipped
    t = family_counts_codes(HAND, [2, 0], HAND_CARDS[[2, 0]])
    assert_array_equal(t, [[0, 1], [0, 0], [3, 1]])


def test_family_counts_weighted_hand():
    w = np.array([0.5, 1.0, 2.0, 0.0, 1.5, 3.0])
    t = family_counts_codes(HAND, [1], [2], w)
    assert_allclose(t, [2.0 + 3.0, 0.5 + 1.0 + 0.0 + 1.5])


def test_family_counts_cardinality_one_and_empty():
    X = np.zeros((4, 2), dtype=np.int32)
    assert_array_equal(family_counts_codes(X, [0, 1], [1, 1]), [[4.0]])
    empty = np.zeros((0, 2), dtype=np.int32)
    assert_array_equal(family_counts_codes(empty, [0, 1], [2, 3]), np.zeros((2, 3)))


def test_family_counts_dataframe_wrapper_sorts_parents_like_pgmpy():
    df = pd.DataFrame({"C": ["a", "b", "a", "b"], "B": [0, 0, 1, 1], "A": [True, False, False, False]})
    data = encode(df)
    t = family_counts(data, "C", ["B", "A"])  # parents sorted -> (A, B)
    assert t.shape == (2, 2, 2)
    # C=a rows: (A=True,B=0), (A=False,B=1); C=b rows: (A=False,B=0), (A=False,B=1)
    assert t[0, 1, 0] == 1
    assert t[0, 0, 1] == 1
    assert t[1, 0, 0] == 1
    assert t[1, 0, 1] == 1
    assert t.sum() == 4


def test_family_counts_matches_pgmpy_mle_layout(asia_df):
    """counts.reshape(r, -1), normalised, is DiscreteMLE's CPD table with evidence = sorted parents."""
    from pgmpy.parameter_estimator import DiscreteMLE

    from pgmpy_ext._compat import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork([("smoke", "dysp"), ("bronc", "dysp"), ("either", "dysp")])
    df = asia_df[["smoke", "bronc", "either", "dysp"]]
    cpd = {c.variable: c for c in DiscreteMLE().fit(model, df).parameters_}["dysp"]
    data = encode(df)
    t = family_counts(data, "dysp", ["smoke", "bronc", "either"]).reshape(2, -1)
    assert cpd.variables[1:] == sorted(["smoke", "bronc", "either"])
    assert_allclose(t / t.sum(0, keepdims=True), cpd.get_values(), rtol=1e-12)


def test_family_counts_errors():
    with pytest.raises(ValueError, match="cards has length"):
        _counting.family_counts(HAND, np.array([0, 1], dtype=np.intp), np.array([2], dtype=np.intp),
                                np.empty(0), np.zeros(4))
    with pytest.raises(ValueError, match="out has length"):
        _counting.family_counts(HAND, np.array([0], dtype=np.intp), np.array([2], dtype=np.intp),
                                np.empty(0), np.zeros(3))
    with pytest.raises(ValueError, match="out of range"):
        _counting.family_counts(HAND, np.array([5], dtype=np.intp), np.array([2], dtype=np.intp),
                                np.empty(0), np.zeros(2))
    with pytest.raises(ValueError, match="weights has length"):
        _counting.family_counts(HAND, np.array([0], dtype=np.intp), np.array([2], dtype=np.intp),
                                np.ones(2), np.zeros(2))
    with pytest.raises(ValueError, match="cannot be its own parent"):
        family_counts(encode(pd.DataFrame({"a": [0, 1]})), "a", ["a"])


def test_pairwise_counts_hand():
    data = encode(pd.DataFrame({"A": [0, 1, 1, 0], "B": [0, 0, 1, 1], "C": [1, 1, 0, 1]}))
    pc = pairwise_counts(data, ["A", "B"], cond="C")
    t = pc.table(0, 1)
    assert t.shape == (2, 2, 2)
    assert_array_equal(t[:, :, 1], [[1, 1], [1, 0]])
    assert_array_equal(t[:, :, 0], [[0, 0], [0, 1]])
    assert_array_equal(pc.table(1, 0), t.transpose(1, 0, 2))


def test_pairwise_counts_missing_is_pairwise_available_case():
    data = encode(pd.DataFrame({"A": [0, 1, None, 1], "B": [0, 0, 1, 1], "D": [1, None, 0, 0], "C": [0, 0, 0, 1]}),
                  missing="skip")
    pc = pairwise_counts(data, ["A", "B", "D"], cond="C")
    assert pc.table(0, 1).sum() == 3  # row 2 has A missing
    assert pc.table(0, 2).sum() == 2  # rows 1, 2
    assert pc.table(1, 2).sum() == 3  # row 1


# ----------------------------------------------------------------------------------------- hypothesis properties
@st.composite
def coded_data(draw, max_cols=6, allow_missing=False, weighted=None):
    n_cols = draw(st.integers(1, max_cols))
    cards = draw(st.lists(st.integers(1, 8), min_size=n_cols, max_size=n_cols))
    n_rows = draw(st.integers(0, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = np.stack([rng.integers(0, c, n_rows) for c in cards], axis=1).astype(np.int32).reshape(n_rows, n_cols)
    if allow_missing and n_rows:
        X[rng.random(X.shape) < 0.1] = -1
    use_w = draw(st.booleans()) if weighted is None else weighted
    w = rng.random(n_rows) * 3 if use_w else None
    return np.ascontiguousarray(X), np.array(cards, dtype=np.intp), w


@given(coded_data(allow_missing=True), st.data())
def test_family_counts_property(d, sub):
    X, cards, w = d
    k = sub.draw(st.integers(1, X.shape[1]))
    cols = sub.draw(st.permutations(range(X.shape[1])))[:k]
    got = family_counts_codes(X, cols, cards[cols], w)
    ref = family_counts_ref(X, cols, cards[cols], w)
    if w is None:
        assert_array_equal(got, ref)
        complete = (X[:, cols] >= 0).all(axis=1).sum()
        assert got.sum() == complete
    else:
        assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@given(coded_data(max_cols=7, allow_missing=True), st.booleans(), st.sampled_from([1, 2, 3]))
def test_pairwise_counts_property(d, conditioned, n_threads):
    X, cards, w = d
    if conditioned and X.shape[1] < 2:
        return
    cond = X.shape[1] - 1 if conditioned else None
    feats = list(range(X.shape[1] - (1 if conditioned else 0)))
    ccard = int(cards[cond]) if conditioned else 1
    off = pair_offsets(cards[feats], ccard)
    out = np.zeros(int(off[-1]))
    _counting.pairwise_counts(X, np.array(feats, dtype=np.intp), cards[feats], -1 if cond is None else cond, ccard,
                              np.empty(0) if w is None else w, off, out, n_threads)
    ref = pairwise_counts_ref(X, feats, cards[feats], cond, ccard, w)
    for p, (i, j) in enumerate((i, j) for i in range(len(feats)) for j in range(i + 1, len(feats))):
        got = out[off[p]:off[p + 1]].reshape(cards[feats[i]], cards[feats[j]], ccard)
        if w is None:
            assert_array_equal(got, ref[(i, j)])
        else:
            assert_allclose(got, ref[(i, j)], rtol=1e-12, atol=1e-12)


def _pairwise_raw(X, feats, cards, cond, ccard, n_threads, grouping, w=None):
    off = pair_offsets(cards[feats], ccard)
    out = np.zeros(int(off[-1]))
    _counting.pairwise_counts(X, np.array(feats, dtype=np.intp), cards[feats], -1 if cond is None else cond, ccard,
                              np.empty(0) if w is None else w, off, out, n_threads, grouping)
    return out, off


# The grouped path (features packed 2-3 at a time, pair tables read off group-pair tables) is taken on its own
# for many rows only; grouping=1 forces it wherever the cardinalities allow, grouping=0 forbids it.
@given(coded_data(max_cols=11, allow_missing=True, weighted=False), st.booleans(), st.sampled_from([1, 2, 3]),
       st.booleans())
def test_pairwise_counts_grouped_path_equals_ungrouped_and_reference(d, conditioned, n_threads, missing):
    X, cards, _ = d
    if not missing:
        X = np.ascontiguousarray(np.maximum(X, 0))
    if conditioned and X.shape[1] < 2:
        return
    cond = X.shape[1] - 1 if conditioned else None
    feats = list(range(X.shape[1] - (1 if conditioned else 0)))
    ccard = int(cards[cond]) if conditioned else 1
    grouped, off = _pairwise_raw(X, feats, cards, cond, ccard, n_threads, 1)
    plain, _ = _pairwise_raw(X, feats, cards, cond, ccard, 1, 0)
    assert_array_equal(grouped, plain)
    ref = pairwise_counts_ref(X, feats, cards[feats], cond, ccard)
    for p, (i, j) in enumerate((i, j) for i in range(len(feats)) for j in range(i + 1, len(feats))):
        assert_array_equal(grouped[off[p]:off[p + 1]].reshape(cards[feats[i]], cards[feats[j]], ccard), ref[(i, j)])


def test_pairwise_feature_groups():
    groups = _counting._feature_groups
    # greedy runs of at most 3 with product <= 64: 4*4*4; 4*4 (a 5 would make 80); 5*2*2; 8 alone
    starts, gcards = groups(np.array([4, 4, 4, 4, 4, 5, 2, 2, 8]), 3, 10**6, False)
    assert starts.tolist() == [0, 3, 5, 8, 9]
    assert gcards.tolist() == [64, 16, 20, 8]
    assert groups(np.array([9, 9, 9]), 2, 10**6, True) is None  # no two features fit one group
    # unconditioned (cond_card 1): runs of at most 4 with product <= 192
    starts, gcards = groups(np.array([3, 3, 3, 3, 4, 4, 4, 4, 2]), 1, 10**6, False)
    assert starts.tolist() == [0, 4, 7, 9]
    assert gcards.tolist() == [81, 64, 8]
    assert groups(np.array([2] * 12), 3, 50, False) is None  # too few rows to pay for reading the pairs off
    assert groups(np.array([2] * 12), 3, 50, True) is not None


def test_pairwise_counts_grouped_is_taken_for_many_rows_and_equal():
    rng = np.random.default_rng(5)
    n, cards = 20_000, np.array([2, 3, 4, 2, 3, 2, 4, 2, 3, 2, 3], dtype=np.intp)
    X = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int32)
    X[:, 3] = (X[:, 1] + X[:, 10]) % 2  # dependent columns: uneven tables
    X[[17, 4000], 5] = -1  # two rows with a missing feature, counted pair by pair
    X[9000, 10] = -1  # a missing class: the row is skipped
    feats = list(range(10))
    assert _counting._feature_groups(cards[feats], 3, n, False) is not None  # the default path is the grouped one
    for nt in (1, 2, 3):  # row ranges per thread (issue 25): missing rows on both sides of the boundaries
        auto, _ = _pairwise_raw(X, feats, cards, 10, 3, nt, -1)
        plain, _ = _pairwise_raw(X, feats, cards, 10, 3, nt, 0)
        assert_array_equal(auto, plain)
    data = EncodedData(X, [f"c{k}" for k in range(11)], [list(range(c)) for c in cards], missing="skip")
    assert_array_equal(pairwise_counts(data, cond="c10").flat, plain)


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 777], ids=lambda n: f"{n}rows")
@pytest.mark.parametrize("cards", [[2, 3], [4, 4, 4, 3], [2, 3, 4, 2, 3, 2, 4]], ids=["1group", "2groups", "3groups"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_pairwise_counts_grouped_blocks_parity_and_group_margins(n, cards, n_threads):
    # the grouped path counts even and odd rows of each 256-row block into two table copies and takes each
    # group's own (g, c) table as a margin of a group-pair table (the last group's: of its pair with group 0);
    # row counts around the block size, one to three groups, a missing feature and a missing class
    rng = np.random.default_rng(n)
    cards = np.array([*cards, 3], dtype=np.intp)
    X = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int8)
    X[:, 1] = np.where(rng.random(n) < 0.7, 0, X[:, 1])  # skewed: runs of one cell
    if n > 2:
        X[n // 2, 0] = -1
        X[n - 1, -1] = -1
    feats = list(range(len(cards) - 1))
    assert _counting._feature_groups(cards[feats], 3, n, True) is not None
    grouped, off = _pairwise_raw(X, feats, cards, len(cards) - 1, 3, n_threads, 1)
    plain, _ = _pairwise_raw(X, feats, cards, len(cards) - 1, 3, 1, 0)
    assert_array_equal(grouped, plain)
    ref = pairwise_counts_ref(X, feats, cards[feats], len(cards) - 1, 3)
    for p, (i, j) in enumerate((i, j) for i in range(len(feats)) for j in range(i + 1, len(feats))):
        assert_array_equal(grouped[off[p]:off[p + 1]].reshape(cards[i], cards[j], 3), ref[(i, j)])


def test_pairwise_counts_grouped_unconditioned_groups_of_four():
    # without a conditioning variable groups hold up to 4 features (product <= 192)
    rng = np.random.default_rng(11)
    n, cards = 3_000, np.array([3, 3, 3, 3, 4, 4, 4, 2, 2, 2, 2, 3, 2], dtype=np.intp)
    X = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int16)
    X[:, 2] = (X[:, 0] + X[:, 5]) % 3
    X[[5, 2999], 7] = -1
    feats = list(range(len(cards)))
    starts, gcards = _counting._feature_groups(cards, 1, n, True)
    assert max(np.diff(starts)) == 4
    plain, off = _pairwise_raw(X, feats, cards, None, 1, 1, 0)
    for nt in (1, 2):
        grouped, _ = _pairwise_raw(X, feats, cards, None, 1, nt, 1)
        assert_array_equal(grouped, plain)
    ref = pairwise_counts_ref(X, feats, cards, None, 1)
    for p, (i, j) in enumerate((i, j) for i in range(len(feats)) for j in range(i + 1, len(feats))):
        assert_array_equal(plain[off[p]:off[p + 1]].reshape(cards[i], cards[j], 1), ref[(i, j)])


@given(coded_data(max_cols=6))
def test_pairwise_counts_thread_count_bit_identical(d):
    X, cards, w = d
    data_cols = list(range(X.shape[1]))
    off = pair_offsets(cards, 1)
    outs = []
    for nt in (1, 2, 4):
        out = np.zeros(int(off[-1]))
        _counting.pairwise_counts(X, np.array(data_cols, dtype=np.intp), cards, -1, 1,
                                  np.empty(0) if w is None else w, off, out, nt)
        outs.append(out)
    assert_array_equal(outs[0], outs[1])
    assert_array_equal(outs[0], outs[2])


@given(coded_data(max_cols=5, weighted=False), st.integers(0, 2**32 - 1))
def test_counts_row_order_invariance(d, seed):
    X, cards, _ = d
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    cols = list(range(X.shape[1]))
    assert_array_equal(family_counts_codes(X, cols, cards), family_counts_codes(X[perm], cols, cards))


@given(coded_data(max_cols=6, allow_missing=True))
def test_unique_rows_property(d):
    X, cards, w = d
    u = unique_rows(X, cards, w)
    ref_rows, ref_counts = unique_rows_ref(X, w)
    assert_array_equal(u.codes, ref_rows)
    assert_allclose(u.counts, ref_counts, rtol=1e-12)
    assert_array_equal(u.codes[u.inverse], X)


@st.composite
def wide_coded_data(draw):
    """Rows too wide for one int64 key (up to 90 columns, cardinalities up to 3000), drawn from a small pool of
    distinct rows so that duplicates occur, with missing cells and optional weights."""
    n_cols = draw(st.integers(1, 90))
    cards = np.array(draw(st.lists(st.sampled_from([1, 2, 3, 5, 8, 40, 3000]), min_size=n_cols, max_size=n_cols)),
                     dtype=np.intp)
    n_rows = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pool = np.stack([rng.integers(0, c, 40) for c in cards], axis=1)
    pool[rng.random(pool.shape) < 0.05] = -1
    X = np.ascontiguousarray(pool[rng.integers(0, draw(st.integers(1, 40)), n_rows)], dtype=np.int32)
    w = rng.random(n_rows) * 3 if draw(st.booleans()) else None
    return X, cards, w


@given(wide_coded_data())
def test_unique_rows_wide_equals_numpy_unique(d):
    """Multi-word keys give np.unique(axis=0)'s rows (lexicographic, -1 first), inverse and (weighted) counts."""
    X, cards, w = d
    u = unique_rows(X, cards, w)
    ref_rows, ref_inverse = np.unique(X, axis=0, return_inverse=True)
    ref_inverse = ref_inverse.reshape(-1)
    assert_array_equal(u.codes, ref_rows)
    assert_array_equal(u.inverse, ref_inverse)
    ref_counts = np.bincount(ref_inverse, weights=w, minlength=ref_rows.shape[0])
    if w is None:
        assert_array_equal(u.counts, ref_counts)
    else:
        assert_allclose(u.counts, ref_counts, rtol=1e-12)
    assert u.codes.flags.c_contiguous
    assert u.codes.dtype == np.int32


@given(st.lists(st.integers(1, 2**40), min_size=0, max_size=30))
def test_key_words_each_word_fits_and_is_maximal(cards):
    ptr = key_words(np.array(cards, dtype=np.intp))
    assert ptr[0] == 0
    assert ptr[-1] == len(cards)
    for w in range(len(ptr) - 1):
        space = int(np.prod([c + 1 for c in cards[ptr[w]:ptr[w + 1]]], dtype=object)) if ptr[w + 1] > ptr[w] else 1
        assert space < 2**63
        if w + 2 < len(ptr):  # the next column would not have fitted into this word
            assert space * (cards[ptr[w + 1]] + 1) >= 2**63


def test_unique_rows_one_word_per_huge_column():
    cards = np.array([2**40, 2**40, 2**40], dtype=np.intp)
    X = np.array([[5, 9, 0], [5, 9, 0], [5, 1, 7], [-1, 0, 0], [5, 1, 3]], dtype=np.int32)
    assert key_words(cards).tolist() == [0, 1, 2, 3]
    u = unique_rows(X, cards, np.array([1.0, 2.0, 0.5, 1.0, 1.0]))
    assert u.codes.tolist() == [[-1, 0, 0], [5, 1, 3], [5, 1, 7], [5, 9, 0]]
    assert u.counts.tolist() == [1.0, 1.0, 0.5, 3.0]
    assert u.inverse.tolist() == [3, 3, 2, 0, 1]


def test_unique_rows_wide_data_uses_several_key_words():
    rng = np.random.default_rng(0)
    cards = np.full(40, 8, dtype=np.intp)  # 9**40 keys do not fit in int64
    X = rng.integers(0, 8, (50, 40)).astype(np.int32)
    X = np.vstack([X, X[:10]])
    u = unique_rows(X, cards)
    assert u.codes.shape[0] == 50
    assert u.counts.sum() == 60
    assert_array_equal(u.codes[u.inverse], X)


@pytest.mark.parametrize(("n_cols", "card", "dtype"), [(3, 4, np.int8), (37, 4, np.int8), (40, 8, np.int16),
                                                  (5, 3000, np.int32), (90, 40, np.int32)])
def test_group_rows_hash_table_growth_and_sort_equal_numpy_unique(n_cols, card, dtype):
    """Tens of thousands of groups (the table is doubled many times, linear probing chains form), one to many key
    words: unique_rows equals np.unique(axis=0) with its inverse, and the weighted counts equal np.bincount bit for
    bit (the kernel adds in row order, as bincount does)."""
    rng = np.random.default_rng(n_cols)
    pool = rng.integers(-1, card, (30_000, n_cols)).astype(dtype)
    X = np.ascontiguousarray(pool[rng.integers(0, 30_000, 60_000)])
    cards = np.full(n_cols, card, dtype=np.intp)
    w = rng.random(X.shape[0]) * 5
    u = unique_rows(X, cards, w)
    ref_rows, ref_inverse = np.unique(X.astype(np.int32), axis=0, return_inverse=True)
    ref_inverse = ref_inverse.reshape(-1)
    assert_array_equal(u.codes, ref_rows)
    assert_array_equal(u.inverse, ref_inverse)
    assert_array_equal(u.counts, np.bincount(ref_inverse, weights=w, minlength=ref_rows.shape[0]))
    lean = unique_rows(X, cards, w, keep_dtype=True, return_inverse=False)
    assert lean.inverse is None
    assert lean.codes.dtype == dtype
    assert_array_equal(lean.codes, ref_rows)
    assert_array_equal(lean.counts, u.counts)


@pytest.mark.parametrize(("n_cols", "card"), [(3, 3), (37, 4), (5, 3000)])
def test_merge_unique_rows_equals_unique_rows_of_the_concatenation(n_cols, card):
    """The k-way merge of sorted distinct runs gives unique_rows of the concatenated runs bit for bit (counts added
    in part order), with empty parts, rows shared by several parts and parts of different code dtypes."""
    rng = np.random.default_rng(card)
    pool = rng.integers(-1, card, (400, n_cols))
    cards = np.full(n_cols, card, dtype=np.intp)
    parts = []
    for k, n in enumerate([300, 0, 1, 250, 120, 0, 400]):
        X = pool[rng.integers(0, 400, n)].astype(np.int16 if k == 3 or card > 127 else np.int8)
        u = unique_rows(X, cards, rng.random(n) * 7, keep_dtype=True, return_inverse=False)
        parts.append((u.codes, u.counts))
    codes, counts = merge_unique_rows(parts, cards)
    ref = unique_rows(np.concatenate([p[0] for p in parts]), cards, np.concatenate([p[1] for p in parts]),
                      keep_dtype=True, return_inverse=False)
    assert codes.dtype == ref.codes.dtype == np.int16
    assert_array_equal(codes, ref.codes)
    assert_array_equal(counts, ref.counts)


def test_merge_unique_rows_refuses_a_run_out_of_order():
    cards = np.array([2, 2], dtype=np.intp)
    good = (np.array([[0, 0], [1, 1]], dtype=np.int8), np.ones(2))
    for bad in [np.array([[1, 1], [0, 0]], dtype=np.int8), np.array([[0, 1], [0, 1]], dtype=np.int8)]:
        with pytest.raises(ValueError, match="not strictly increasing"):
            merge_unique_rows([good, (bad, np.ones(2))], cards)


def test_group_rows_kernel_numbers_groups_by_first_appearance():
    X = np.array([[1, 0], [0, 1], [1, 0], [-1, 1], [0, 1], [1, 0]], dtype=np.int8)
    cards = np.array([2, 2], dtype=np.intp)
    inverse = np.empty(6, dtype=np.intp)
    first, counts, words = _counting.group_rows(X, cards, key_words(cards), np.zeros(0), inverse)
    assert first.tolist() == [0, 1, 3]
    assert counts.tolist() == [3.0, 2.0, 1.0]
    assert inverse.tolist() == [0, 1, 0, 2, 1, 0]
    keys = np.empty(6, dtype=np.int64)
    _counting.row_keys(X, cards, keys)
    assert words[:, 0].tolist() == keys[first].tolist()
    with pytest.raises(ValueError, match="weights has length 2"):
        _counting.group_rows(X, cards, key_words(cards), np.ones(2), np.zeros(0, dtype=np.intp))
    with pytest.raises(ValueError, match="word_ptr"):
        _counting.group_rows(X, cards, np.array([0], dtype=np.intp), np.zeros(0), np.zeros(0, dtype=np.intp))


@given(coded_data(allow_missing=True), st.data())
def test_family_counts_many_equals_one_call_per_family(d, sub):
    """One pass over the rows for several families gives exactly the per-family tables (missing skipped per family)."""
    X, cards, w = d
    data = EncodedData(X, [f"c{k}" for k in range(X.shape[1])], [list(range(c)) for c in cards], missing="skip",
                       weights=w)
    fams = []
    for _ in range(sub.draw(st.integers(0, 5))):
        k = sub.draw(st.integers(1, min(3, X.shape[1])))
        cols = sub.draw(st.permutations(range(X.shape[1])))[:k]
        fams.append((f"c{cols[0]}", [f"c{c}" for c in cols[1:]]))
    got = family_counts_many(data, fams)
    assert len(got) == len(fams)
    for (child, parents), table in zip(fams, got):
        ref = family_counts(data, child, parents, sort_parents=False)
        assert table.shape == ref.shape
        if w is None:
            assert_array_equal(table, ref)
        else:
            assert_allclose(table, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
@pytest.mark.parametrize("big_tables", [False, True], ids=["copies", "one-copy"])
def test_family_counts_many_integer_path_many_rows(n_jobs, dtype, big_tables):
    """Unweighted counts of many rows take the integer path (families of one, two and more columns in their own
    loops, interleaved table copies, one set per thread): the same tables as the reference, for every thread count
    and code width, with missing codes skipped per family."""
    rng = np.random.default_rng(7)
    n = 5000
    cards = np.array([3, 2, 5, 4, 2, 7] + ([120, 120] if big_tables else []))
    X = np.stack([rng.integers(0, c, n) for c in cards], 1)
    X[rng.random(X.shape) < 0.02] = -1
    X = X.astype(dtype)
    data = EncodedData(X, [f"c{k}" for k in range(X.shape[1])], [list(range(c)) for c in cards], missing="skip",
                       codes_dtype=np.dtype(dtype).name if dtype != np.int32 else None)
    fams = [("c0", []), ("c1", ["c0"]), ("c2", ["c3", "c1"]), ("c4", ["c0", "c5", "c2"]), ("c5", ["c4"])]
    if big_tables:
        fams.append(("c6", ["c7", "c2"]))  # 72,000 cells: one table copy
    got = family_counts_many(data, fams, n_jobs=n_jobs)
    for (child, parents), table in zip(fams, got):
        cols = [data.index(child)] + [data.index(p) for p in parents]
        assert_array_equal(table, family_counts_ref(X, cols, cards[cols]))
    weighted = family_counts_many(data, fams, weights=np.ones(n))  # the row-order float path
    for a, b in zip(got, weighted):
        assert_array_equal(a, b)


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [300, 140_000], ids=["few-rows", "many-rows"])
def test_family_counts_shared_equals_family_counts_many(n_jobs, weighted, n):
    """Issue 25: many children with one parent list counted in one pass built without Python per family: the very
    tables of family_counts_many (unweighted: equal for every thread count; weighted: the same row-order sums),
    with missing codes skipped per family; a child among its parents is refused."""
    from pgmpy_ext.stats import family_counts_shared

    rng = np.random.default_rng(11)
    cards = np.array([3, 2, 5, 4, 1, 7, 2, 3])
    X = np.stack([rng.integers(0, c, n) for c in cards], 1)
    X[rng.random(X.shape) < 0.03] = -1
    data = EncodedData(X.astype(np.int8), [f"c{k}" for k in range(X.shape[1])], [list(range(c)) for c in cards],
                       missing="skip")
    w = rng.random(n) if weighted else None
    for parents in ([], ["c1"], ["c6", "c1"]):
        children = [c for c in ["c0", "c2", "c3", "c4", "c5", "c7"] if c not in parents]
        flat, tab = family_counts_shared(data, children, parents, w, n_jobs=n_jobs)
        ref = family_counts_many(data, [(c, parents) for c in children], w, n_jobs=1)
        assert tab.shape == (len(children) + 1,)
        for k, table in enumerate(ref):
            assert_array_equal(flat[tab[k]:tab[k + 1]], table.ravel())
    with pytest.raises(ValueError, match="cannot be its own parent"):
        family_counts_shared(data, ["c0", "c1"], ["c1"])


def test_pairwise_counts_wrapper_threads_from_fewer_rows_bit_identical():
    # pairwise_counts takes a second thread from 2 x 16,384 rows (its rows are dear): same counts as one thread
    from pgmpy_ext.stats._counting import _PAIR_ROWS_PER_THREAD
    from pgmpy_ext.utils import threads_for_rows

    rng = np.random.default_rng(3)
    n, cards = 2 * _PAIR_ROWS_PER_THREAD + 7, np.array([2, 3, 4, 3, 2, 2, 3], dtype=np.intp)
    X = np.stack([rng.integers(0, c, n) for c in cards], axis=1).astype(np.int32)
    X[[0, n // 2, n - 1], 2] = -1
    data = EncodedData(X, [f"c{k}" for k in range(7)], [list(range(c)) for c in cards], missing="skip")
    assert threads_for_rows(2, n, _PAIR_ROWS_PER_THREAD) == 2
    one = pairwise_counts(data, cond="c6", n_jobs=1).flat
    assert_array_equal(pairwise_counts(data, cond="c6", n_jobs=2).flat, one)
    assert one.sum() == sum(
        int(((X[:, i] >= 0) & (X[:, j] >= 0)).sum()) for i in range(6) for j in range(i + 1, 6))
