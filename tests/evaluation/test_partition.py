"""Chapter-7 partition metrics: the O(N r^2) Hamming distance equals the O(N^2) definition, matched accuracy, W/D/L
with Wilcoxon marks, I_P and KL in bits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from pgmpy_ext.evaluation import (
    comembership_hamming,
    comembership_hamming_naive,
    enumerate_nb_log_joint,
    independence_measure,
    kl_divergence_bits,
    matched_accuracy,
    win_draw_loss,
)


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=0, max_size=60))
def test_hamming_equals_quadratic_definition(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    fast = comembership_hamming(a, b)
    assert fast == comembership_hamming_naive(a, b)
    assert comembership_hamming(a, b, matrix="upper") * 2 == fast
    assert comembership_hamming(b, a) == fast


def test_hamming_hand_case_and_invariance():
    a = np.array([0, 0, 0, 1, 1, 2])
    b = np.array([1, 1, 0, 0, 0, 0])
    # pairs together in a: (0,1),(0,2),(1,2),(3,4) ; in b: (0,1),(2,3),(2,4),(2,5),(3,4),(3,5),(4,5)
    # differing pairs: (0,2),(1,2),(2,3),(2,4),(2,5),(3,5),(4,5) = 7
    assert comembership_hamming(a, b, matrix="upper") == 7
    perm = np.array([2, 0, 1])
    assert comembership_hamming(perm[a], b) == comembership_hamming(a, b)
    with pytest.raises(ValueError, match="matrix == 'lower'"):
        comembership_hamming(a, b, matrix="lower")


def test_matched_accuracy_is_the_hungarian_optimum():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    c = rng.integers(0, 3, 200)
    brute = max(np.mean(np.array(p)[c] == y) for p in itertools.permutations(range(3)))
    assert matched_accuracy(y, c) == pytest.approx(brute)
    assert matched_accuracy(y, (c + 1) % 3) == pytest.approx(brute)


def test_win_draw_loss_counts_and_marks():
    a = np.array([1, 2, 3, 3, 5, 6, 0, 0, 9, 1] * 5, dtype=float)
    b = np.array([2, 2, 4, 1, 6, 7, 0, 1, 9, 3] * 5, dtype=float)
    r = win_draw_loss(a, b, lower_is_better=True)
    assert (r.wins, r.draws, r.losses) == (30, 15, 5)
    ref = stats.wilcoxon(b - a, zero_method="zsplit", method="asymptotic").pvalue
    assert r.pvalue == pytest.approx(ref)
    assert r.bold == (ref < 0.10)
    assert r.strong == (ref < 0.01)
    assert str(r) == "30/15/5" + ("**" if r.strong else "*" if r.bold else "")
    flipped = win_draw_loss(a, b, lower_is_better=False)
    assert (flipped.wins, flipped.losses) == (5, 30)
    assert flipped.pvalue == pytest.approx(r.pvalue)           # two-sided
    same = win_draw_loss(a, a)
    assert (same.wins, same.draws, same.losses, same.pvalue, same.bold) == (0, 50, 0, 1.0, False)
    balanced = win_draw_loss([1, 0] * 10, [0, 1] * 10)
    assert not balanced.bold


def test_independence_measure_matches_definition():
    rng = np.random.default_rng(1)
    prior = rng.dirichlet(np.ones(3))
    cpts = [rng.dirichlet(np.ones(4), size=3).T, np.repeat(rng.dirichlet(np.ones(2))[:, None], 3, axis=1)]
    ip = independence_measure(prior, cpts)
    t = cpts[0]
    marg = t @ prior
    ref = np.mean([stats.entropy(marg, t[:, j]) for j in range(3)])
    assert ip[0] == pytest.approx(ref)
    assert ip[1] == pytest.approx(0.0, abs=1e-15)
    assert independence_measure(prior[[2, 0, 1]], [cpts[0][:, [2, 0, 1]]])[0] == pytest.approx(ip[0])


def test_kl_bits_by_enumeration():
    rng = np.random.default_rng(2)
    p = ([0.4, 0.6], [rng.dirichlet([1, 1], size=2).T for _ in range(4)])
    q = ([0.5, 0.5], [rng.dirichlet([1, 1], size=2).T for _ in range(4)])
    lp, lq = enumerate_nb_log_joint(*p), enumerate_nb_log_joint(*q)
    assert lp.shape == (16, 2)
    assert np.exp(lp).sum() == pytest.approx(1.0)
    # direct definition over the 32 cells
    pp, qq = np.exp(lp).ravel(), np.exp(lq).ravel()
    direct = float(np.sum(pp * np.log2(pp / qq)))
    assert kl_divergence_bits(lp, lq, align_labels=False) == pytest.approx(direct)
    qs = np.exp(lq[:, ::-1]).ravel()
    assert kl_divergence_bits(lp, lq) == pytest.approx(min(direct, float(np.sum(pp * np.log2(pp / qs)))))
    assert kl_divergence_bits(lp, lp) == 0.0
