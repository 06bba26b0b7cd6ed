"""Mutual-information kernels: hand-computed cases, hypothesis properties vs numpy, invariants."""

from __future__ import annotations

from math import log

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext._core import _scores
from pgmpy_ext.data import encode
from pgmpy_ext.stats import PairwiseCounts, cmi_matrix, mi_matrix, pair_offsets, pairwise_counts
from tests.reference_scores import cmi_matrix_ref, mi_matrix_ref


def _pc(codes, cards, cond=None, cond_card=1, weights=None):
    """PairwiseCounts of every column of ``codes`` except ``cond``, through the EncodedData wrapper."""
    codes = np.asarray(codes, dtype=np.int32)
    if codes.shape[0] == 0:  # EncodedData needs rows: the counts of no rows are all zero
        cards = np.asarray(cards, dtype=np.intp)
        off = pair_offsets(cards, cond_card)
        return PairwiseCounts(np.zeros(int(off[-1])), off, cards, cond_card, list(range(len(cards))))
    cols = [f"X{k}" for k in range(codes.shape[1])]
    df = pd.DataFrame(np.where(codes < 0, np.nan, codes), columns=cols)
    all_cards = list(cards)
    if cond is not None:
        all_cards.insert(cond, cond_card)
    states = {c: list(range(k)) for c, k in zip(cols, all_cards)}
    data = encode(df, states=states, missing="skip", weights=weights)
    return pairwise_counts(data, None if cond is None else [c for c in cols if c != cols[cond]],
                           cond=None if cond is None else cols[cond])


# ----------------------------------------------------------------------------------------- hand-computed cases
def test_hand_copy_within_class():
    # B copies A within each class; A is uniform given C -> I(A; B | C) = H(A | C) = log 2
    codes = [[0, 0, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1]]
    pc = _pc(codes, [2, 2], cond=2, cond_card=2)
    assert_allclose(cmi_matrix(pc), [[0.0, log(2)], [log(2), 0.0]], rtol=1e-15)
    assert_allclose(mi_matrix(pc), [[0.0, log(2)], [log(2), 0.0]], rtol=1e-15)


def test_hand_xor_is_conditionally_dependent_but_marginally_independent():
    # A, B uniform and independent, C = A xor B: I(A; B) = 0 but I(A; B | C) = log 2
    codes = [[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
    pc = _pc(codes, [2, 2], cond=2, cond_card=2)
    assert cmi_matrix(pc)[0, 1] == pytest.approx(log(2), rel=1e-15)
    assert mi_matrix(pc)[0, 1] == 0.0


def test_hand_three_state_mi():
    # N_ab: rows a, columns b; N = 6
    #   a=0: b=0 x2, b=1 x1 ; a=1: b=1 x1 ; a=2: b=0 x2
    codes = [[0, 0], [0, 0], [0, 1], [1, 1], [2, 0], [2, 0]]
    n_a, n_b = {0: 3, 1: 1, 2: 2}, {0: 4, 1: 2}
    cells = {(0, 0): 2, (0, 1): 1, (1, 1): 1, (2, 0): 2}
    want = sum(v / 6 * log(v * 6 / (n_a[a] * n_b[b])) for (a, b), v in cells.items())
    pc = _pc(codes, [3, 2])
    assert mi_matrix(pc)[0, 1] == pytest.approx(want, rel=1e-14)
    assert cmi_matrix(pc)[1, 0] == pytest.approx(want, rel=1e-14)  # cond_card == 1: CMI is MI


def test_hand_weights_and_missing():
    # weights double the (1, 1) row; the last row has A missing and is skipped for pairs with A only
    codes = [[0, 0, 0], [1, 1, 1], [0, 1, 0], [-1, 0, 1]]
    w = np.array([1.0, 2.0, 1.0, 5.0])
    pc = _pc(codes, [2, 2, 2], weights=w)
    # pair (A, B) on rows 0..2: N_ab = [[1, 1], [0, 2]], N = 4, N_a = [2, 2], N_b = [1, 3]
    want_ab = 1 / 4 * log(1 * 4 / (2 * 1)) + 1 / 4 * log(1 * 4 / (2 * 3)) + 2 / 4 * log(2 * 4 / (2 * 3))
    # pair (B, C) on all rows: N_bc = [[1, 5], [1, 2]], N = 9, N_b = [6, 3], N_c = [2, 7]
    want_bc = (1 / 9 * log(1 * 9 / (6 * 2)) + 5 / 9 * log(5 * 9 / (6 * 7)) + 1 / 9 * log(1 * 9 / (3 * 2))
               + 2 / 9 * log(2 * 9 / (3 * 7)))
    mi = mi_matrix(pc)
    assert mi[0, 1] == pytest.approx(want_ab, rel=1e-14)
    assert mi[1, 2] == pytest.approx(want_bc, rel=1e-14)


def test_hand_cardinality_one_and_empty():
    pc = _pc([[0, 1], [0, 0], [0, 1]], [1, 2])  # X0 is constant: carries no information
    assert_array_equal(mi_matrix(pc), np.zeros((2, 2)))
    # no rows at all: the kernel on an all-zero buffer gives 0, not NaN
    cards = np.array([2, 3], dtype=np.intp)
    off = pair_offsets(cards, 2)
    empty = PairwiseCounts(np.zeros(int(off[-1])), off, cards, 2, ["a", "b"])
    assert_array_equal(cmi_matrix(empty), np.zeros((2, 2)))
    assert_array_equal(mi_matrix(empty), np.zeros((2, 2)))
    single = PairwiseCounts(np.zeros(0), pair_offsets(cards[:1]), cards[:1], 1, ["a"])
    assert_array_equal(cmi_matrix(single), np.zeros((1, 1)))


def test_wrapper_rejects_other_types():
    with pytest.raises(TypeError, match="expected a pgmpy_ext.stats.PairwiseCounts"):
        cmi_matrix(np.zeros(4))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cond_card": 0}, r"cond_card == 0, must be >= 1"),
        ({"out": np.zeros((2, 3))}, r"out has shape \(2, 3\), expected \(m, m\) = \(3, 3\)"),
        ({"offsets": np.zeros(3, dtype=np.intp)}, r"offsets has length 3, expected m\*\(m-1\)/2 \+ 1 = 4"),
        ({"flat": np.zeros(5)}, r"flat has length 5, expected offsets\[-1\] = 12"),
        ({"offsets": np.array([0, 4, 8, 17], dtype=np.intp)}, r"offsets of pair \(1, 2\) span 9 cells"),
        ({"cards": np.array([2, 2, 0], dtype=np.intp)}, r"cards\[2\] == 0, must be >= 1"),
    ],
    ids=["cond-card", "out-shape", "offsets-length", "flat-length", "pair-span", "card-zero"],
)
@pytest.mark.parametrize("kernel", [_scores.cmi_from_counts, _scores.mi_from_counts], ids=["cmi", "mi"])
def test_kernel_shape_errors(kernel, kwargs, match):
    cards = np.array([2, 2, 2], dtype=np.intp)
    args = {"flat": np.zeros(12), "offsets": pair_offsets(cards, 1), "cards": cards, "cond_card": 1,
            "out": np.zeros((3, 3))}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        kernel(args["flat"], args["offsets"], args["cards"], args["cond_card"], args["out"])


# ----------------------------------------------------------------------------------- hypothesis vs references
@st.composite
def datasets(draw):
    """(codes, feature cards, cond position or None, cond card, weights or None)."""
    m = draw(st.integers(2, 4))
    cards = draw(st.lists(st.integers(1, 8), min_size=m, max_size=m))
    cond_card = draw(st.integers(1, 8))
    with_cond = draw(st.booleans())
    n = draw(st.integers(0, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    all_cards = cards + ([cond_card] if with_cond else [])
    codes = np.zeros((n, len(all_cards)), dtype=np.int32)
    for k, c in enumerate(all_cards):
        codes[:, k] = rng.choice(c, size=n, p=rng.dirichlet(np.full(c, 0.7)))
    if m >= 2 and n and draw(st.booleans()):  # make X1 depend on X0 so that MI is not always ~0
        codes[:, 1] = np.where(rng.random(n) < 0.7, codes[:, 0] % cards[1], codes[:, 1])
    if draw(st.booleans()) and n:
        codes[rng.random(codes.shape) < 0.08] = -1
    weights = rng.uniform(0.0, 2.0, size=n) if draw(st.booleans()) else None
    cond = len(cards) if with_cond else None
    return codes, cards, cond, cond_card if with_cond else 1, weights


@given(datasets())
def test_cmi_and_mi_match_reference(case):
    codes, cards, cond, cond_card, weights = case
    pc = _pc(codes, cards, cond=cond, cond_card=cond_card, weights=weights)
    feats = list(range(len(cards)))
    # atol: a sum of mixed-sign terms near 0 has no relative precision (values are O(1) nats at most)
    assert_allclose(cmi_matrix(pc), cmi_matrix_ref(codes, feats, cards, cond, cond_card, weights),
                    rtol=1e-12, atol=1e-14)
    assert_allclose(mi_matrix(pc), mi_matrix_ref(codes, feats, cards, cond, cond_card, weights),
                    rtol=1e-12, atol=1e-14)


@given(datasets())
def test_information_is_symmetric_nonnegative_zero_diagonal(case):
    codes, cards, cond, cond_card, weights = case
    pc = _pc(codes, cards, cond=cond, cond_card=cond_card, weights=weights)
    for mat in (cmi_matrix(pc), mi_matrix(pc)):
        assert_array_equal(mat, mat.T)
        assert np.all(mat >= 0.0)
        assert_array_equal(np.diag(mat), 0.0)
        assert np.all(np.isfinite(mat))


@given(datasets(), st.integers(0, 2**32 - 1))
def test_information_invariant_to_row_order(case, seed):
    codes, cards, cond, cond_card, weights = case
    perm = np.random.default_rng(seed).permutation(codes.shape[0])
    pc1 = _pc(codes, cards, cond=cond, cond_card=cond_card, weights=weights)
    pc2 = _pc(codes[perm], cards, cond=cond, cond_card=cond_card, weights=None if weights is None else weights[perm])
    assert_allclose(cmi_matrix(pc2), cmi_matrix(pc1), rtol=1e-12, atol=1e-14)
    assert_allclose(mi_matrix(pc2), mi_matrix(pc1), rtol=1e-12, atol=1e-14)


@given(st.data())
def test_cmi_zero_for_conditionally_independent_construction(data):
    """Rows built as a per-class product of A-values and B-values: the empirical table factorises exactly."""
    card_a, card_b, card_c = (data.draw(st.integers(1, 5)) for _ in range(3))
    rows = []
    for c in range(card_c):
        mult_a = data.draw(st.lists(st.integers(0, 3), min_size=card_a, max_size=card_a))
        mult_b = data.draw(st.lists(st.integers(0, 3), min_size=card_b, max_size=card_b))
        for a in range(card_a):
            for b in range(card_b):
                rows += [[a, b, c]] * (mult_a[a] * mult_b[b])
    codes = np.array(rows, dtype=np.int32).reshape(-1, 3)
    pc = _pc(codes, [card_a, card_b], cond=2, cond_card=card_c)
    assert_array_equal(cmi_matrix(pc), np.zeros((2, 2)))  # exact: every ratio N_abc N_c / (N_ac N_bc) is 1


@given(datasets())
def test_mi_equals_cmi_without_conditioning(case):
    codes, cards, _, _, weights = case
    codes = codes[:, : len(cards)]
    pc = _pc(codes, cards, weights=weights)
    # same value, marginals summed in a different order: equal to rounding, not bit for bit
    assert_allclose(mi_matrix(pc), cmi_matrix(pc), rtol=1e-12, atol=1e-14)
