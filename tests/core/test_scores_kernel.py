"""Family-score kernels and the column-major counter: hand-computed cases, hypothesis properties vs numpy."""

from __future__ import annotations

from math import lgamma, log

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _scores
from pgmpy_ext.data import encode
from pgmpy_ext.stats import FamilyCounter, local_score
from tests.reference import family_counts_ref
from tests.reference_scores import (
    aic_ref,
    bdeu_ref,
    bic_ref,
    k2_ref,
    loglik_ref,
    pgmpy_style_ref,
)

KINDS = ("ll", "bic", "aic", "k2", "bdeu")


def _t(rows):
    return np.ascontiguousarray(rows, dtype=np.float64)


# ----------------------------------------------------------------------------------------- hand-computed cases
def test_hand_two_by_two():
    counts = _t([[3, 0], [1, 4]])  # child (rows) x parent configuration (columns)
    ll = 3 * log(3 / 4) + 1 * log(1 / 4) + 4 * log(4 / 4)
    assert local_score("ll", counts) == pytest.approx(ll, rel=1e-15)
    assert local_score("bic", counts, n_total=8) == pytest.approx(ll - 0.5 * log(8) * 2 * 1, rel=1e-15)
    assert local_score("aic", counts) == pytest.approx(ll - 2, rel=1e-15)
    # K2, column 0: Gamma(2) 3! 1! / Gamma(4 + 2) = 6/120; column 1: Gamma(2) 0! 4! / Gamma(6) = 24/120
    assert local_score("k2", counts) == pytest.approx(log(6 / 120) + log(24 / 120), rel=1e-14)
    # BDeu with ess = 4: alpha = 2, beta = 1 -> same cells as K2 with alpha in place of r
    bdeu = (lgamma(2) - lgamma(4 + 2) + lgamma(3 + 1) + lgamma(1 + 1)) + (lgamma(2) - lgamma(6) + lgamma(1) + lgamma(5))
    assert local_score("bdeu", counts, equivalent_sample_size=4) == pytest.approx(bdeu, rel=1e-14)


def test_hand_cardinality_one_child_scores_zero():
    counts = _t([[5, 2, 0]])  # r = 1: the child is constant, no free parameter
    for kind in KINDS:
        assert local_score(kind, counts, n_total=7) == pytest.approx(0.0, abs=1e-12), kind


def test_hand_empty_table():
    counts = np.zeros((3, 2))  # r = 3, q = 2, no complete row
    assert local_score("ll", counts) == 0.0
    assert local_score("bic", counts, n_total=10) == pytest.approx(-0.5 * log(10) * 2 * 2, rel=1e-15)
    assert local_score("aic", counts) == -4.0
    assert local_score("k2", counts) == 0.0  # textbook: an empty column contributes 0
    assert local_score("bdeu", counts) == 0.0
    # pgmpy (reindex=False) adds lgamma(r) for each of the q configurations and nothing else
    assert local_score("k2", counts, observed_only=True) == pytest.approx(2 * log(2), rel=1e-15)
    assert local_score("bdeu", counts, observed_only=True) == 0.0


def test_hand_weights():
    counts = _t([[0.5, 1.5], [2.0, 0.0]])
    ll = 0.5 * log(0.5 / 2.5) + 2.0 * log(2.0 / 2.5) + 1.5 * log(1.0)
    assert local_score("ll", counts) == pytest.approx(ll, rel=1e-15)
    assert local_score("bic", counts) == pytest.approx(ll - 0.5 * log(4.0) * 2, rel=1e-15)  # n_total = sum
    k2 = (lgamma(2) - lgamma(2.5 + 2) + lgamma(1.5) + lgamma(3.0)) + (lgamma(2) - lgamma(1.5 + 2) + lgamma(2.5))
    assert local_score("k2", counts) == pytest.approx(k2, rel=1e-14)


def test_hand_observed_only_k2_and_bdeu():
    # r = 3 child, 2 parent configurations; only configuration 0 and child states 0 and 2 occur
    counts = _t([[2, 0], [0, 0], [1, 0]])
    textbook_k2 = lgamma(3) - lgamma(3 + 3) + lgamma(3) + lgamma(1) + lgamma(2)
    assert local_score("k2", counts) == pytest.approx(textbook_k2, rel=1e-14)
    # pgmpy: 2 * lgamma(3) for both configurations, minus lgamma(N_j + r) for the observed one only
    assert local_score("k2", counts, observed_only=True) == pytest.approx(textbook_k2 + lgamma(3), rel=1e-14)
    ess = 3.0
    alpha, beta = ess / 2, ess / 6
    textbook = lgamma(alpha) - lgamma(3 + alpha) + (lgamma(2 + beta) - lgamma(beta)) + 0.0 + (
        lgamma(1 + beta) - lgamma(beta))
    assert local_score("bdeu", counts, equivalent_sample_size=ess) == pytest.approx(textbook, rel=1e-14)
    # pgmpy's table has no row for child state 1, so its lgamma(beta) (cell (1, 0)) is missing from the sum
    pgmpy = lgamma(alpha) - lgamma(3 + alpha) + lgamma(2 + beta) + lgamma(1 + beta) - 3 * lgamma(beta)
    assert local_score("bdeu", counts, equivalent_sample_size=ess, observed_only=True) == pytest.approx(
        pgmpy, rel=1e-14)
    assert pgmpy == pytest.approx(textbook - lgamma(beta), rel=1e-14)


def test_hand_compact_table_with_q_total():
    dense = _t([[2, 0, 1, 0], [0, 0, 3, 0]])
    compact = _t([[2, 1], [0, 3]])  # the observed configurations only
    for kind in KINDS:
        for obs in (False, True):
            assert local_score(kind, compact, n_total=9, q_total=4, observed_only=obs) == pytest.approx(
                local_score(kind, dense, n_total=9, observed_only=obs), rel=1e-14), (kind, obs)


def test_local_score_accepts_nd_and_1d_counts():
    t = np.arange(12, dtype=np.float64).reshape(2, 3, 2)
    assert local_score("k2", t) == local_score("k2", t.reshape(2, 6))
    assert local_score("bdeu", [1.0, 2.0, 3.0]) == local_score("bdeu", [[1.0], [2.0], [3.0]])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: local_score("mdl", [[1.0]]), r"kind == 'mdl', must be one of"),
        (lambda: local_score("ll", np.zeros((0, 2))), r"a family table needs at least one child state"),
        (lambda: local_score("k2", [[1.0, 2.0]], q_total=1), r"q_total == 1, smaller than the 2 parent"),
        (lambda: local_score("bic", [[1.0], [0.0]], n_total=0), r"n_total == 0.0, must be > 0"),
        (lambda: local_score("bdeu", [[1.0], [1.0]], equivalent_sample_size=0), r"equivalent_sample_size == 0.0"),
        (lambda: _scores.loglik_from_counts(np.zeros((0, 3))), r"counts has 0 rows"),
        (lambda: _scores.k2_from_counts(np.ones((2, 3)), 2.0), r"q_total == 2.0, smaller than the 3"),
    ],
    ids=["kind", "no-rows", "q-total", "n-total", "ess", "kernel-rows", "kernel-q-total"],
)
def test_score_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_kernels_reject_wrong_dtype_and_layout():
    with pytest.raises(ValueError, match="Buffer dtype mismatch"):
        _scores.loglik_from_counts(np.ones((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="ndarray is not C-contiguous"):
        _scores.loglik_from_counts(np.asfortranarray(np.ones((2, 3))))


# --------------------------------------------------------------------------------------- column-major counter
HAND = np.array([[0, 1, 2], [1, 1, 0], [0, 0, 2], [1, 1, 2], [0, 1, 2], [1, 0, -1]], dtype=np.int32)
HAND_CARDS = np.array([2, 2, 3], dtype=np.intp)


def _colmajor(codes, columns, cards, weights=None):
    cols = np.asarray(columns, dtype=np.intp)
    cds = np.asarray(cards, dtype=np.intp)
    out = np.zeros(int(np.prod(cds)), dtype=np.float64)
    w = np.empty(0) if weights is None else np.asarray(weights, dtype=np.float64)
    _scores.family_counts_colmajor(np.ascontiguousarray(codes.T), cols, cds, w, out)
    return out.reshape(tuple(cds))


def test_colmajor_counts_hand():
    assert_array_equal(_colmajor(HAND, [0, 1], [2, 2]), [[1, 2], [1, 2]])
    assert_array_equal(_colmajor(HAND, [2, 0], [3, 2]), [[0, 1], [0, 0], [3, 1]])  # last row has a -1: skipped
    assert_array_equal(_colmajor(HAND, [2], [3]), [1, 0, 4])
    t = _colmajor(HAND, [2, 0, 1], [3, 2, 2])  # the general (k >= 3) loop
    want = np.zeros((3, 2, 2))
    want[2, 0, 1], want[0, 1, 1], want[2, 0, 0], want[2, 1, 1] = 2, 1, 1, 1  # (x2, x0, x1) of rows 0-4
    assert_array_equal(t, want)


def test_colmajor_counts_weighted_cardinality_one_and_empty():
    w = np.array([0.5, 1.0, 2.0, 0.0, 1.5, 3.0])
    assert_allclose(_colmajor(HAND, [1], [2], w), [2.0 + 3.0, 0.5 + 1.0 + 0.0 + 1.5], rtol=1e-15)
    X = np.zeros((4, 2), dtype=np.int32)
    assert_array_equal(_colmajor(X, [0, 1], [1, 1]), [[4.0]])
    assert_array_equal(_colmajor(np.zeros((0, 2), dtype=np.int32), [0, 1], [2, 3]), np.zeros((2, 3)))


def test_colmajor_counts_large_table_uses_float_path():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 300, size=(500, 2)).astype(np.int32)  # 90,000 cells > the sub-histogram limit
    X[7, 1] = -1
    assert_array_equal(_colmajor(X, [0, 1], [300, 300]), family_counts_ref(X, [0, 1], [300, 300]))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((np.zeros((2, 4), dtype=np.int32), [], [], None, 1), r"at least one column"),
        ((np.zeros((2, 4), dtype=np.int32), [0, 1], [2], None, 2), r"cards has length 1, expected 2"),
        ((np.zeros((2, 4), dtype=np.int32), [2], [2], None, 2), r"column index 2 out of range"),
        ((np.zeros((2, 4), dtype=np.int32), [0], [0], None, 0), r"cardinality 0 of column 0 must be >= 1"),
        ((np.zeros((2, 4), dtype=np.int32), [0], [2], None, 3), r"out has length 3, expected prod\(cards\) = 2"),
        ((np.zeros((2, 4), dtype=np.int32), [0], [2], np.ones(3), 2), r"weights has length 3, expected n_rows = 4"),
    ],
    ids=["no-columns", "cards-length", "column-range", "card-zero", "out-length", "weights-length"],
)
def test_colmajor_counts_errors(args, match):
    codes_t, cols, cards, w, size = args
    with pytest.raises(ValueError, match=match):
        _scores.family_counts_colmajor(codes_t, np.array(cols, dtype=np.intp), np.array(cards, dtype=np.intp),
                                       np.empty(0) if w is None else w, np.zeros(size))


def test_family_counter_dense_and_sparse_agree():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(200, 4)).astype(np.int32)
    codes[rng.random(codes.shape) < 0.05] = -1
    df = pd.DataFrame(np.where(codes < 0, np.nan, codes), columns=list("ABCD"))
    data = encode(df, missing="skip")
    dense, sparse = FamilyCounter(data), FamilyCounter(data, dense_max_cells=1)
    for child, parents in [(0, []), (0, [1]), (2, [0, 3]), (3, [0, 1, 2])]:
        full, q = dense.table(child, parents)
        comp, q2 = sparse.table(child, parents)
        assert q == q2 == 3 ** len(parents)
        keep = full.sum(axis=0) > 0
        assert_array_equal(comp, full[:, keep] if parents else full)  # sparse: observed configurations only
        ref = family_counts_ref(data.codes, [child, *parents], data.cards[[child, *parents]])
        assert_array_equal(full, ref.reshape(full.shape))


def test_family_counter_rejects_non_encoded_data():
    with pytest.raises(TypeError, match="FamilyCounter expects an EncodedData"):
        FamilyCounter(np.zeros((2, 2), dtype=np.int32))


# ----------------------------------------------------------------------------------- hypothesis vs references
@st.composite
def family_tables(draw):
    """A family table counted from random codes: (full (r, q) table, n_rows, weights or None, has_parents)."""
    n_parents = draw(st.integers(0, 2))
    cards = draw(st.lists(st.integers(1, 8), min_size=n_parents + 1, max_size=n_parents + 1))
    n = draw(st.integers(0, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # skewed state probabilities so that some states and configurations do not occur
    codes = np.stack([rng.choice(c, size=n, p=rng.dirichlet(np.full(c, 0.5))) for c in cards], axis=1)
    codes = codes.astype(np.int32).reshape(n, len(cards))
    if draw(st.booleans()) and n:
        codes[rng.random(codes.shape) < 0.1] = -1
    weights = rng.uniform(0.0, 3.0, size=n) if draw(st.booleans()) else None
    return codes, cards, weights


def _table(codes, cards, weights):
    return family_counts_ref(codes, range(len(cards)), cards, weights).reshape(cards[0], -1)


def _scale(t):
    """Sum of the magnitudes the scores are built from, for an absolute tolerance on values near 0."""
    return 1.0 + float(np.sum(np.abs(t) * (1.0 + np.log1p(np.abs(t))))) + t.size


@given(family_tables(), st.floats(0.1, 50.0))
def test_scores_match_textbook_reference(case, ess):
    codes, cards, weights = case
    t = _table(codes, cards, weights)
    n_total = codes.shape[0] + 1.0
    # atol: LL/K2/BDeu are sums of mixed-sign terms, a value near 0 has no relative precision to compare
    tol = {"rtol": 1e-12, "atol": 1e-13 * _scale(t)}
    assert_allclose(local_score("ll", t), loglik_ref(t), **tol)
    assert_allclose(local_score("bic", t, n_total=n_total), bic_ref(t, n_total), **tol)
    assert_allclose(local_score("aic", t), aic_ref(t), **tol)
    assert_allclose(local_score("k2", t), k2_ref(t), **tol)
    assert_allclose(local_score("bdeu", t, equivalent_sample_size=ess), bdeu_ref(t, ess), **tol)


@given(family_tables(), st.floats(0.1, 50.0))
def test_observed_only_matches_pgmpy_transcription(case, ess):
    codes, cards, weights = case
    t = _table(codes, cards, weights)
    has_parents = len(cards) > 1
    n_total = codes.shape[0] + 1.0
    tol = {"rtol": 1e-12, "atol": 1e-13 * _scale(t)}
    for kind in KINDS:
        ours = local_score(kind, t, n_total=n_total, equivalent_sample_size=ess, observed_only=has_parents)
        assert_allclose(ours, pgmpy_style_ref(kind, t, has_parents=has_parents, n_total=n_total, ess=ess),
                        **tol, err_msg=kind)


@given(family_tables())
def test_colmajor_counts_match_reference(case):
    codes, cards, weights = case
    cols = list(range(len(cards)))
    got = _colmajor(codes, cols, cards, weights)
    ref = family_counts_ref(codes, cols, cards, weights)
    if weights is None:
        assert_array_equal(got, ref)
        assert got.sum() == np.sum((codes >= 0).all(axis=1))
    else:
        assert_allclose(got, ref, rtol=1e-12)


@given(family_tables(), st.integers(0, 2**32 - 1))
def test_scores_invariant_to_row_order(case, seed):
    codes, cards, weights = case
    perm = np.random.default_rng(seed).permutation(codes.shape[0])
    t1 = _table(codes, cards, weights)
    t2 = _colmajor(codes[perm], list(range(len(cards))), cards,
                   None if weights is None else weights[perm]).reshape(t1.shape)
    for kind in KINDS:
        assert_allclose(local_score(kind, t2, n_total=5.0), local_score(kind, t1, n_total=5.0),
                        rtol=1e-12, atol=1e-13 * _scale(t1), err_msg=kind)


@given(family_tables())
def test_penalised_scores_below_loglik(case):
    codes, cards, weights = case
    t = _table(codes, cards, weights)
    ll = local_score("ll", t)
    assert ll <= 1e-12
    assert local_score("aic", t) <= ll + 1e-12
    assert local_score("bic", t, n_total=max(3.0, codes.shape[0])) <= ll + 1e-12
