"""CEM kernels: hand-computed cases, hypothesis properties against the numpy reference, invariants, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from pgmpy_ext.data import EncodedData, encode
from pgmpy_ext.stats import (
    MultinetLayout,
    argmax_labels,
    multinet_counts_from_pairs,
    multinet_log_joint,
    normalize_blocks,
    pairwise_counts,
    reseed_empty_clusters,
    sample_labels,
)
from tests.clustering.reference_cem import (
    family_counts_ref,
    log_joint_ref,
    normalize_ref,
    reseed_ref,
    sample_ref,
)


# ----------------------------------------------------------------------------------------------- hand-computed
def test_layout_hand():
    lay = MultinetLayout.build([[-1, 0, 1], [2, -1, 1]], [2, 3, 2])
    # cluster 0: A (2), B|A (3x2), D|B (2x3); cluster 1: A|D (2x2), B (3), D|B (2x3)
    assert_array_equal(lay.blk_offsets, [0, 2, 8, 14, 18, 21, 27])
    assert_array_equal(lay.rows, [2, 3, 2, 2, 3, 2])
    assert lay.size == 27
    assert lay.n_clusters == 2
    assert lay.n_attributes == 3


def test_log_joint_hand():
    lay = MultinetLayout.build([[-1, 0], [1, -1]], [2, 2])
    tables = [[np.array([0.3, 0.7]), np.array([[0.9, 0.2], [0.1, 0.8]])],
              [np.array([[0.6, 0.5], [0.4, 0.5]]), np.array([0.25, 0.75])]]
    flat = np.concatenate([t.reshape(-1) for per in tables for t in per])
    X = np.array([[0, 0], [1, 0], [1, 1]], dtype=np.int32)
    lj = multinet_log_joint(lay, np.log(flat), np.log([0.4, 0.6]), X)
    # row (A=1, B=0): cluster 0: .4 * .7 * .2 = .056 ; cluster 1: .6 * P(A=1|B=0)=.4 * P(B=0)=.25 = .06
    expect = [[0.4 * 0.3 * 0.9, 0.6 * 0.6 * 0.25], [0.056, 0.06], [0.4 * 0.7 * 0.8, 0.6 * 0.5 * 0.75]]
    assert_allclose(np.exp(lj), expect, rtol=1e-13)
    assert_allclose(lj, log_joint_ref(X, [[-1, 0], [1, -1]], tables, [0.4, 0.6]), rtol=1e-13)


def test_log_joint_threads_identical():
    rng = np.random.default_rng(0)
    lay = MultinetLayout.build([[-1, 0, 0], [1, -1, 1]], [3, 2, 4])
    log_cpt = np.log(rng.random(lay.size))
    X = np.ascontiguousarray(np.stack([rng.integers(0, c, 1001) for c in (3, 2, 4)], 1), dtype=np.int32)
    one = multinet_log_joint(lay, log_cpt, np.log([0.5, 0.5]), X, n_jobs=1)
    two = multinet_log_joint(lay, log_cpt, np.log([0.5, 0.5]), X, n_jobs=2)
    assert_array_equal(one, two)


def test_sample_hand():
    with np.errstate(divide="ignore"):
        lj = np.log([[0.2, 0.3, 0.5], [0.2, 0.3, 0.5], [0.2, 0.3, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    u = np.array([0.1, 0.2, 0.99, 0.0, 0.5])
    labels, counts = sample_labels(lj, u)
    # cumulative (.2, .5, 1): .1 -> 0, .2 -> 1 (strictly greater), .99 -> 2; a zero-probability cluster is never
    # drawn, even with u = 0; (.5, .5, 1) with u = .5 -> 2 (cluster 1 has probability 0)
    assert labels.tolist() == [0, 1, 2, 1, 2]
    assert counts.tolist() == [1, 2, 2]


def test_sample_impossible_row_raises():
    with pytest.raises(ValueError, match="row 1 has probability 0 under every cluster"):
        sample_labels(np.array([[0.0, 0.0], [-np.inf, -np.inf]]), np.array([0.5, 0.5]))


def test_argmax_ties_smallest_index():
    lj = np.log([[0.5, 0.5], [0.2, 0.8], [0.3, 0.3], [0.9, 0.1]])
    labels, counts, n_changed = argmax_labels(lj, previous=[1, 1, 1, 1])
    assert labels.tolist() == [0, 1, 0, 0]
    assert counts.tolist() == [3, 1]
    assert n_changed == 3
    same, _, n0 = argmax_labels(lj, previous=labels)
    assert n0 == 0
    assert same.tolist() == labels.tolist()
    with pytest.raises(ValueError, match="probability 0 under every cluster"):
        argmax_labels(np.array([[-np.inf, -np.inf]]))


def test_reseed_hand():
    # cluster 1 and 3 empty; rows of cluster 0 (size 3) are eligible, row 3 (cluster 2, size 1) is not
    lj = np.log([[0.7, 0.1, 0.1, 0.1], [0.4, 0.2, 0.2, 0.2], [0.4, 0.2, 0.2, 0.2], [0.01, 0.01, 0.97, 0.01]])
    labels = np.array([0, 0, 0, 2], dtype=np.int32)
    counts = np.array([3, 0, 1, 0], dtype=np.intp)
    assert reseed_empty_clusters(lj, labels, counts) == 2
    # posterior of cluster 0: rows 1 and 2 tie at .4 -> row 1 (lowest index) fills cluster 1; then cluster 0 has
    # rows 0 (.7) and 2 (.4) left -> row 2 fills cluster 3
    assert labels.tolist() == [0, 1, 3, 2]
    assert counts.tolist() == [1, 1, 1, 1]


def test_reseed_impossible():
    labels = np.array([0], dtype=np.int32)
    counts = np.array([1, 0], dtype=np.intp)
    with pytest.raises(ValueError, match="cannot fill every empty cluster"):
        reseed_empty_clusters(np.zeros((1, 2)), labels, counts)


def test_normalize_hand_and_uniform_columns():
    lay = MultinetLayout.build([[-1, 0]], [2, 3])
    # block B|A is C-order over (x_B, x_A): column A=0 holds (2, 1, 0), column A=1 is empty -> uniform
    counts = np.array([3.0, 1.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    log_cpt, ll = normalize_blocks(lay, counts)
    p = np.exp(log_cpt)
    assert_allclose(p[:2], [0.75, 0.25])
    assert_allclose(lay.block(p, 0, 1), [[2 / 3, 1 / 3], [1 / 3, 1 / 3], [0, 1 / 3]])
    assert_allclose(ll, 3 * np.log(.75) + np.log(.25) + 2 * np.log(2 / 3) + np.log(1 / 3))
    log_a, _ = normalize_blocks(lay, counts, alpha=1.0)
    assert_allclose(np.exp(lay.block(log_a, 0, 1))[:, 0], [3 / 6, 2 / 6, 1 / 6])


def test_errors_name_the_problem():
    lay = MultinetLayout.build([[-1, 0]], [2, 2])
    with pytest.raises(ValueError, match=r"row 1: code 2 of attribute 1"):
        multinet_log_joint(lay, np.zeros(lay.size), np.zeros(1), np.array([[0, 0], [1, 2]], dtype=np.int32))
    with pytest.raises(ValueError, match=r"parents\[0, 1\] == 1"):
        MultinetLayout.build([[-1, 1]], [2, 2])
    with pytest.raises(ValueError, match="expected \\(2,\\)"):
        MultinetLayout.build([[-1, 0]], [2, 2, 2])
    with pytest.raises(ValueError, match="one uniform per row"):
        sample_labels(np.zeros((3, 2)), np.zeros(2))


# ----------------------------------------------------------------------------------------------- properties
@st.composite
def multinets(draw):
    K = draw(st.integers(1, 4))
    m = draw(st.integers(2, 5))
    cards = draw(st.lists(st.integers(1, 4), min_size=m, max_size=m))
    parents = [[draw(st.sampled_from([-1] + [j for j in range(m) if j != i])) for i in range(m)] for _ in range(K)]
    n = draw(st.integers(0, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    return K, m, cards, parents, n, seed


def _random_codes(rng, cards, n):
    return np.ascontiguousarray(np.stack([rng.integers(0, c, n) for c in cards], 1).reshape(n, len(cards)),
                                dtype=np.int32)


@given(multinets())
def test_log_joint_matches_reference(spec):
    K, m, cards, parents, n, seed = spec
    rng = np.random.default_rng(seed)
    lay = MultinetLayout.build(parents, cards)
    probs = rng.random(lay.size) * (rng.random(lay.size) > 0.1)  # some zeros -> -inf
    prior = rng.dirichlet(np.ones(K))
    tables = [[lay.block(probs, k, i).reshape(cards[i], -1) if parents[k][i] >= 0 else
               lay.block(probs, k, i)[:, 0] for i in range(m)] for k in range(K)]
    X = _random_codes(rng, cards, n)
    with np.errstate(divide="ignore"):
        lj = multinet_log_joint(lay, np.log(probs), np.log(prior), X)
    assert_allclose(lj, log_joint_ref(X, parents, tables, prior), rtol=1e-12)


@given(multinets())
def test_counts_from_pairs_match_direct_counts(spec):
    K, m, cards, parents, n, seed = spec
    rng = np.random.default_rng(seed)
    X = _random_codes(rng, cards, n)
    labels = rng.integers(0, K, n)
    data = EncodedData(np.column_stack([X, labels]).astype(np.int32), [*range(m), "z"],
                       [list(range(c)) for c in cards] + [list(range(K))])
    lay = MultinetLayout.build(parents, cards)
    counts = multinet_counts_from_pairs(lay, pairwise_counts(data, list(range(m)), cond="z"))
    ref = family_counts_ref(X, labels, parents, cards, K)
    for k in range(K):
        for i in range(m):
            assert_array_equal(lay.block(counts, k, i).reshape(np.shape(ref[k][i])), ref[k][i])
    assert counts.sum() == n * m  # every row counted once per attribute


@given(multinets(), st.sampled_from([0.0, 0.5, 2.0]))
def test_normalize_matches_reference(spec, alpha):
    K, m, cards, parents, n, seed = spec
    rng = np.random.default_rng(seed)
    lay = MultinetLayout.build(parents, cards)
    counts = rng.integers(0, 4, lay.size).astype(np.float64) * (rng.random(lay.size) < 0.7)
    log_cpt, ll = normalize_blocks(lay, counts, alpha)
    expect_ll = 0.0
    for k in range(K):
        for i in range(m):
            c = lay.block(counts, k, i)
            p = normalize_ref(c, alpha)
            assert_allclose(np.exp(lay.block(log_cpt, k, i)), p, rtol=1e-12, atol=0)
            expect_ll += float(np.sum(c[c > 0] * np.log(p[c > 0])))
            assert_allclose(np.exp(lay.block(log_cpt, k, i)).sum(axis=0), 1.0, rtol=1e-12)
    assert_allclose(ll, expect_ll, rtol=1e-12, atol=1e-12)


@given(st.integers(1, 5), st.integers(0, 80), st.integers(0, 2**32 - 1))
def test_sample_and_argmax_match_reference(K, n, seed):
    rng = np.random.default_rng(seed)
    p = rng.random((n, K)) * (rng.random((n, K)) < 0.8)
    p[np.arange(n), rng.integers(0, K, n)] += 0.1  # every row possible
    with np.errstate(divide="ignore"):
        lj = np.log(p) + rng.normal(size=(n, 1)) * 50  # row constants do not matter
    u = rng.random(n)
    labels, counts = sample_labels(lj, u)
    assert_array_equal(labels, sample_ref(lj, u))
    assert_array_equal(counts, np.bincount(labels, minlength=K))
    assert (p[np.arange(n), labels] > 0).all()  # never a zero-probability cluster
    best, counts_c, changed = argmax_labels(lj, previous=labels)
    assert_array_equal(best, np.argmax(lj, axis=1))
    assert changed == int((best != labels).sum())
    assert_array_equal(counts_c, np.bincount(best, minlength=K))


@given(st.integers(2, 5), st.integers(5, 40), st.integers(0, 2**32 - 1))
def test_reseed_matches_reference(K, n, seed):
    rng = np.random.default_rng(seed)
    lj = np.log(rng.random((n, K)) + 1e-3)
    labels = rng.integers(0, max(1, K - 2), n).astype(np.int32)  # the last clusters are empty
    counts = np.bincount(labels, minlength=K).astype(np.intp)
    n_empty = int((counts == 0).sum())
    expect = reseed_ref(lj, labels, K)
    moved = reseed_empty_clusters(lj, labels, counts)
    assert_array_equal(labels, expect)
    assert moved == n_empty
    assert (counts > 0).all()
    assert_array_equal(counts, np.bincount(labels, minlength=K))


def test_sampling_frequencies():
    """S-step with uniform draws reproduces the posterior frequencies (law of large numbers)."""
    rng = np.random.default_rng(3)
    n = 200_000
    lj = np.tile(np.log([0.1, 0.6, 0.3]), (n, 1))
    labels, counts = sample_labels(lj, rng.random(n))
    assert_allclose(counts / n, [0.1, 0.6, 0.3], atol=0.005)


def test_counts_from_pairs_needs_matching_pairs():
    data = encode(pd.DataFrame({"a": [0, 1], "b": [1, 0], "z": [0, 1]}))
    lay = MultinetLayout.build([[-1, 0]] * 3, [2, 2])
    with pytest.raises(ValueError, match="conditioned on the cluster labels"):
        multinet_counts_from_pairs(lay, pairwise_counts(data, ["a", "b"], cond="z"))


def test_multinet_layout_is_a_block_layout():
    from pgmpy_ext.stats._layout import BlockLayout

    lay = MultinetLayout.build([[-1, 0, 1], [2, -1, 1]], [2, 3, 4])
    assert isinstance(lay, BlockLayout)
    assert lay.block_shapes == ((2, 1), (3, 2), (4, 3), (2, 4), (3, 1), (4, 3))
    assert lay.size == int(lay.blk_offsets[-1]) == sum(r * q for r, q in lay.block_shapes)
    flat = np.arange(lay.size, dtype=np.float64)
    for k in range(2):
        for i in range(3):
            assert_array_equal(lay.block(flat, k, i), lay.block_at(flat, k * 3 + i))
            assert np.shares_memory(lay.block(flat, k, i), flat)
    assert_array_equal(lay.pack_blocks(lay.unpack_blocks(flat)), flat)
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 4, lay.size).astype(np.float64)
    lay.block(counts, 0, 1)[:, 0] = 0.0  # an empty parent configuration: a uniform column
    for alpha in (0.0, 0.5):
        log_cpt, ll = normalize_blocks(lay, counts, alpha)
        assert_allclose(log_cpt, lay.normalize(counts, alpha, log=True), rtol=1e-12)
        with np.errstate(invalid="ignore"):
            assert ll == pytest.approx(np.nansum(np.where(counts > 0, counts * log_cpt, 0.0)), rel=1e-12)
