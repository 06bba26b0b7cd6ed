"""The TM kernels (``cython_core/_tm.pyx`` through ``pgmpy_ext.stats._tm.TMData``): hand-computed cases, hypothesis
properties against the numpy reference, and the counts against ``family_counts``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _tm
from pgmpy_ext.data import encode
from pgmpy_ext.stats import family_counts
from pgmpy_ext.stats._tm import TMData
from tests.parameters.reference_tm import ref_cll, ref_log_theta


def _nb4():
    codes = np.array([[0, 1], [0, 1], [1, 0], [1, 1]], dtype=np.int32)
    return TMData.build(codes, [0, 0, 1, 1], [2, 2], 2, [(0, ()), (1, ())])


def test_hand_computed_nb():
    d = _nb4()
    # unique feature rows (0,1) x2 class 0, (1,0) class 1, (1,1) class 1
    assert_array_equal(d.W, [[2, 0], [0, 1], [0, 1]])
    assert_array_equal(d.blk_offsets, [0, 2, 6, 10])
    assert_array_equal(d.idx, [[0, 2, 8], [0, 4, 6], [0, 4, 8]])
    assert_array_equal(d.observed, [2, 2, 2, 0, 0, 2, 0, 1, 2, 1])
    lt, legal = d.log_theta(d.observed)
    assert legal
    assert_allclose(np.exp(lt), [0.5, 0.5, 1, 0, 0, 1, 0, 0.5, 1, 0.5])
    ev = d.evaluate(d.observed, expected=True, posterior=True)
    # row (1,1): p(c=0) ∝ .5*0*1 = 0 -> posterior (0, 1); all rows are classified with certainty except none
    assert_allclose(ev.posterior, [[1, 0], [0, 1], [0, 1]])
    assert ev.cll == 0.0
    assert ev.n_zero == 0
    assert_allclose(ev.expected, d.observed)  # at a perfect fit E = O


def test_hand_computed_posterior_and_cll():
    # one binary feature, K = 2, counts T_0 = (1, 3), T_1[x, c] = [[1, 1], [0, 2]] (theta(x=1|c=1) = 2/3)
    codes = np.array([[0], [1], [1], [0]], dtype=np.int32)
    d = TMData.build(codes, [0, 1, 1, 1], [2], 2, [(0, ())])
    T = np.array([1.0, 3.0, 1.0, 1.0, 0.0, 2.0])
    ev = d.evaluate(T, expected=True, posterior=True)
    # x=0: p(c, x) = (1/4 * 1, 3/4 * 1/3) -> posterior (1/2, 1/2); x=1: (0, 3/4*2/3) -> (0, 1)
    assert_allclose(ev.posterior, [[0.5, 0.5], [0.0, 1.0]])
    assert_allclose(ev.cll, 2 * np.log(0.5))
    # E: row x=0 has weight 2 -> E_0 += (1, 1), E_1[0, :] += (1, 1); row x=1 weight 2 -> E_0 += (0, 2), E_1[1] += (0, 2)
    assert_allclose(ev.expected, [1, 3, 1, 1, 0, 2])


def test_class_only_structure_and_weights():
    codes = np.zeros((5, 1), dtype=np.int32)
    d = TMData.build(codes, [0, 1, 1, 2, 2], [1], 3, [], weights=[1, 1, 2, 0.5, 0.5])
    assert d.n_unique == 1
    assert d.n_blocks == 1
    assert_allclose(d.observed, [1, 3, 1])
    ev = d.evaluate(d.observed, expected=True)
    assert_allclose(ev.cll, 1 * np.log(0.2) + 3 * np.log(0.6) + 1 * np.log(0.2))
    assert_allclose(ev.expected, d.observed)


def test_illegal_counts_and_zero_rows():
    d = _nb4()
    bad = d.observed.copy()
    bad[3] = -1e-12
    assert d.log_theta(bad)[1] is False
    assert d.evaluate(bad).cll == -np.inf
    nan = d.observed.copy()
    nan[5] = np.nan
    assert d.log_theta(nan)[1] is False
    zero_class = d.observed.copy()
    zero_class[:2] = 0.0
    assert d.log_theta(zero_class)[1] is False
    # a row whose every class is impossible: p(x) = 0 -> n_zero, NaN posterior, -inf CLL (it has weight)
    T = d.observed.copy()
    T[2:6] = [0, 0, 2, 2]  # feature 0 never takes value 0 for any class
    ev = d.evaluate(T, expected=True, posterior=True)
    assert ev.n_zero == 1
    assert ev.cll == -np.inf
    assert np.isnan(ev.posterior[0]).all()


def test_kernel_input_errors():
    d = _nb4()
    lt, _ = d.log_theta(d.observed)
    with pytest.raises(ValueError, match="W has 2 rows, expected n_rows = 3"):
        _tm.tm_cll(d.idx, d.W[:2].copy(), lt, np.zeros(0), np.zeros((0, 2)))
    bad_idx = d.idx.copy()
    bad_idx[1, 2] = 9
    with pytest.raises(ValueError, match=r"idx has entries in 0..9, outside 0..8"):
        _tm.tm_cll(bad_idx, d.W, lt, np.zeros(0), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="expected has length 3, expected len"):
        _tm.tm_cll(d.idx, d.W, lt, np.zeros(3), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="block 0 must be the class prior"):
        _tm.tm_log_theta(d.observed, np.array([0, 3, 10]), np.array([1, 2]), np.array([1, 1]), 2, np.empty(10))
    with pytest.raises(ValueError, match=r"block 1: length 8 != blk_r \* blk_q \* K = 4"):
        _tm.tm_log_theta(d.observed, np.array([0, 2, 10]), np.array([1, 2]), np.array([1, 1]), 2, np.empty(10))
    with pytest.raises(ValueError, match="class codes must lie in 0..1"):
        TMData.build(np.zeros((2, 1), dtype=np.int32), [0, 2], [1], 2, [(0, ())])
    with pytest.raises(ValueError, match="row 1: code -1 of column 0 is missing"):
        TMData.build(np.array([[0], [-1]], dtype=np.int32), [0, 1], [2], 2, [(0, ())])
    with pytest.raises(ValueError, match="family of column 0 has repeated members"):
        TMData.build(np.zeros((2, 1), dtype=np.int32), [0, 1], [1], 2, [(0, (0,))])


# ---------------------------------------------------------------------------------------------- properties
@st.composite
def problems(draw):
    n_cols = draw(st.integers(1, 4))
    cards = draw(st.lists(st.integers(1, 4), min_size=n_cols, max_size=n_cols))
    K = draw(st.integers(1, 4))
    n = draw(st.integers(1, 120))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, c, n) for c in cards]).astype(np.int32)
    y = rng.integers(0, K, n)
    fams = []
    for child in draw(st.lists(st.integers(0, n_cols - 1), unique=True, max_size=n_cols)):
        others = [c for c in range(n_cols) if c != child]
        k = draw(st.integers(0, min(2, len(others))))
        fams.append((child, tuple(rng.permutation(others)[:k].tolist())))
    weights = rng.random(n) * 3 if draw(st.booleans()) else None
    return codes, y, cards, K, fams, weights, rng


@given(problems())
def test_observed_counts_equal_family_counts(prob):
    codes, y, cards, K, fams, weights, _ = prob
    d = TMData.build(codes, y, cards, K, fams, weights=weights)
    w = np.ones(len(y)) if weights is None else weights
    assert_allclose(d.W.sum(), w.sum(), rtol=1e-12)
    assert_allclose(d.block(d.observed, 0), np.bincount(y, weights=w, minlength=K), rtol=1e-12, atol=1e-12)
    frame = pd.DataFrame({f"v{j}": codes[:, j] for j in range(codes.shape[1])} | {"C": y})
    enc = encode(frame, states={**{f"v{j}": list(range(c)) for j, c in enumerate(cards)}, "C": list(range(K))})
    for b, (child, pa) in enumerate(fams, start=1):
        fc = family_counts(enc, f"v{child}", [f"v{p}" for p in pa] + ["C"], weights=w, sort_parents=False)
        assert_allclose(d.block(d.observed, b), fc, rtol=1e-12, atol=1e-12)


@given(problems(), st.booleans())
def test_kernels_match_reference(prob, with_zeros):
    codes, y, cards, K, fams, weights, rng = prob
    d = TMData.build(codes, y, cards, K, fams, weights=weights)
    T = d.observed + rng.random(d.size) * 2.0
    if with_zeros:
        T[rng.random(d.size) < 0.3] = 0.0
        T[rng.integers(0, K)] = 1.0  # keep the class total positive
    lt, legal = d.log_theta(T)
    ref = ref_log_theta(T, d.blk_offsets, d.blk_r, d.blk_q, K)
    assert legal == (ref is not None)
    assert_array_equal(np.isneginf(lt), np.isneginf(ref))
    fin = np.isfinite(ref)
    assert_allclose(lt[fin], ref[fin], rtol=1e-12, atol=1e-12)
    ev = d.evaluate(T, expected=True, posterior=True)
    cll, e, resp = ref_cll(d.idx, d.W, ref)
    if np.isfinite(cll):
        assert_allclose(ev.cll, cll, rtol=1e-12)
    else:
        assert ev.cll == cll
    assert_allclose(ev.expected, e, rtol=1e-12, atol=1e-10)
    assert_allclose(ev.posterior, resp, rtol=1e-12, atol=1e-14)
    # sum over classes of the expected counts equals that of the observed counts (the v statistics) when no row
    # is impossible
    if ev.n_zero == 0:
        for b in range(1, d.n_blocks):
            assert_allclose(d.block(ev.expected, b).sum(axis=-1), d.block(d.observed, b).sum(axis=-1),
                            rtol=1e-10, atol=1e-10)


@given(problems())
def test_row_order_invariance(prob):
    codes, y, cards, K, fams, weights, rng = prob
    perm = rng.permutation(len(y))
    a = TMData.build(codes, y, cards, K, fams, weights=weights)
    b = TMData.build(codes[perm], y[perm], cards, K, fams, weights=None if weights is None else weights[perm])
    assert_allclose(a.observed, b.observed, rtol=1e-12, atol=1e-12)
    T = a.observed + 0.5
    assert_allclose(a.evaluate(T).cll, b.evaluate(T).cll, rtol=1e-12)


def test_tmdata_follows_the_block_layout_protocol():
    """Block 0 is the class prior (K,), block b >= 1 is (r_child, *r_parents, K): BlockLayout's normalisation over
    the first axis is the kernel's maximum-likelihood normalisation (prior over the class, children over their
    states), uniform for empty slices."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, (40, 3)).astype(np.int32)
    d = TMData.build(codes, rng.integers(0, 2, 40), [3, 3, 3], 2, [(0, ()), (1, (0,)), (2, (0, 1))])
    assert d.block_shapes == ((2,), (3, 2), (3, 3, 2), (3, 3, 3, 2))
    assert d.n_blocks == 4
    assert d.size == 2 + 6 + 18 + 54
    assert_allclose(d.normalize(d.observed), np.exp(d.log_theta(d.observed)[0]), rtol=1e-15, atol=0)
    assert_allclose(d.block(d.normalize(d.observed), 0).sum(), 1.0)
    tables = d.unpack_blocks(d.observed)
    assert_array_equal(d.pack_blocks(tables), d.observed)
    with pytest.raises(ValueError, match="TMData.size"):
        d.log_theta(np.zeros(d.size + 1))
