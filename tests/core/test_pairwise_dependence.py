"""The pairwise-dependence kernel behind the ``init="dependency"`` starts (issue 30): hand-computed case, numpy
reference under hypothesis, symmetry, weights, missing cells, ties and thread-count invariance."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import gammaln

from pgmpy_ext.stats import pairwise_dependence_topk
from tests.reference import pairwise_log_bf_ref


def test_hand_computed_pair():
    # two binary columns that agree on 3 of 4 rows; alpha = 1
    X = np.array([[0, 0], [0, 0], [1, 1], [1, 0]])
    idx, val = pairwise_dependence_topk(X, [2, 2], k=1)

    def lml(c):
        c = np.asarray(c, float)
        return gammaln(c.size) - gammaln(c.sum() + c.size) + gammaln(c + 1).sum()

    expected = lml([2, 0, 1, 1]) - lml([2, 2]) - lml([3, 1])
    assert idx.ravel().tolist() == [1, 0]
    assert_allclose(val.ravel(), [expected, expected], rtol=1e-12)


@given(st.integers(2, 6), st.integers(0, 40), st.booleans(), st.booleans(), st.integers(0, 2**31 - 1))
def test_matches_reference(p, n, weighted, missing, seed):
    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 4, p)
    X = (rng.random((n, p)) * cards).astype(np.int32)
    if missing and n:
        X[rng.random((n, p)) < 0.2] = -1
    w = rng.random(n) * 3 if weighted else None
    ref = pairwise_log_bf_ref(X, cards, w)
    idx, val = pairwise_dependence_topk(X, cards, weights=w, k=p - 1)
    for i in range(p):
        assert_allclose(val[i], ref[i, idx[i]], rtol=1e-10, atol=1e-10)
        order = sorted((j for j in range(p) if j != i), key=lambda j: (-round(ref[i, j], 9), j))
        assert_allclose(val[i], [ref[i, j] for j in order], rtol=1e-9, atol=1e-9)
    assert_allclose(ref, ref.T, rtol=1e-10, atol=1e-10)


def test_integer_weights_use_the_table_and_agree_with_lgamma():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, (60, 5))
    w_int = rng.integers(1, 4, 60).astype(float)
    idx_a, val_a = pairwise_dependence_topk(X, [3] * 5, weights=w_int, k=4)
    idx_b, val_b = pairwise_dependence_topk(X, [3] * 5, weights=w_int + 1e-9, k=4)  # not integral: lgamma
    assert_array_equal(idx_a, idx_b)
    assert_allclose(val_a, val_b, rtol=1e-6)
    # repeating rows is the same as integer weights
    idx_c, val_c = pairwise_dependence_topk(np.repeat(X, w_int.astype(int), axis=0), [3] * 5, k=4)
    assert_array_equal(idx_a, idx_c)
    assert_allclose(val_a, val_c, rtol=1e-12)


def test_ties_lowest_index_first_and_threads_do_not_matter():
    X = np.tile(np.array([[0, 0, 0, 1], [1, 1, 1, 0]]), (10, 1))  # columns 1 and 2 are copies of 0
    idx, _ = pairwise_dependence_topk(X, [2, 2, 2, 2], k=3)
    assert idx[0].tolist() == [1, 2, 3]
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 3, (80, 30))
    one = pairwise_dependence_topk(Y, [3] * 30, k=5, n_jobs=1)
    two = pairwise_dependence_topk(Y, [3] * 30, k=5, n_jobs=2)
    assert_array_equal(one[0], two[0])
    assert_array_equal(one[1], two[1])


def test_errors_and_edges():
    with pytest.raises(ValueError, match="alpha == 0"):
        pairwise_dependence_topk(np.zeros((3, 2), int), [1, 1], alpha=0.0)
    with pytest.raises(ValueError, match="cards has 1 entries"):
        pairwise_dependence_topk(np.zeros((3, 2), int), [1])
    with pytest.raises(ValueError, match="weights must be 3"):
        pairwise_dependence_topk(np.zeros((3, 2), int), [1, 1], weights=[1, -1, 1])
    idx, val = pairwise_dependence_topk(np.zeros((3, 1), int), [1], k=4)  # one variable: no partner
    assert idx.shape == (1, 0)
    idx, val = pairwise_dependence_topk(np.zeros((0, 3), int), [2, 2, 2], k=2)  # no rows: factors 0
    assert_array_equal(val, 0.0)
