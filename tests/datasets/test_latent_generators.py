"""Generators of seed 001 chapter 7: seeded, correct structure constraints, samples that follow the CPTs, the pgmpy
export, and a uniform Prüfer tree."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from pgmpy_ext.datasets import (
    make_model_detection,
    make_random_bn_classifier,
    make_random_selective_nb,
    make_random_tan,
    pruefer_tree,
)

GENERATORS = {
    "snb": lambda n, seed: make_random_selective_nb(n, 5, 3, random_state=seed),
    "bnc": lambda n, seed: make_random_bn_classifier(n, 6, 2, max_parents=2, random_state=seed),
    "tan": lambda n, seed: make_random_tan(n, 5, 2, random_state=seed),
}


@pytest.mark.parametrize("name", list(GENERATORS), ids=list(GENERATORS))
def test_same_seed_same_model_and_data(name):
    X1, y1, m1 = GENERATORS[name](40, 3)
    X2, y2, m2 = GENERATORS[name](40, 3)
    assert X1.equals(X2)
    assert y1.equals(y2)
    assert all(np.array_equal(a, b) for a, b in zip(m1.cpts, m2.cpts, strict=True))
    X3, _, _ = GENERATORS[name](40, 4)
    assert not X1.equals(X3)


@pytest.mark.parametrize("name", list(GENERATORS), ids=list(GENERATORS))
def test_samples_follow_the_cpts(name):
    """Empirical P(X_i | C, parents) from 20000 rows against the generating CPT (every cell with >= 300 rows)."""
    _, _, model = GENERATORS[name](0, 11)
    codes, y = model.sample_codes(20000, random_state=5)
    assert codes.dtype == np.int32
    assert np.abs(np.bincount(y, minlength=model.n_clusters) / 20000 - model.class_prior).max() < 0.02
    checked = 0
    for i in range(model.n_features):
        cond = ([y] if model.class_parent[i] else []) + [codes[:, p] for p in model.parents[i]]
        shape = model.cpts[i].shape[1:]
        for cfg in itertools.product(*(range(s) for s in shape)):
            rows = np.all([c == v for c, v in zip(cond, cfg, strict=True)], axis=0) if cond else np.ones(20000, bool)
            if rows.sum() < 300:
                continue
            freq = np.bincount(codes[rows, i], minlength=model.cards[i]) / rows.sum()
            assert np.abs(freq - model.cpts[i][(slice(None), *cfg)]).max() < 0.1
            checked += 1
    assert checked >= model.n_features


def test_selective_nb_structure_and_cards():
    for seed in range(20):
        _, _, m = make_random_selective_nb(0, 8, 2, random_state=seed)
        assert m.class_parent.sum() >= 1
        assert all(p == () for p in m.parents)
        assert m.cards.min() >= 2
        assert m.cards.max() <= 5
        for i in range(8):
            assert m.cpts[i].shape == ((m.cards[i], 2) if m.class_parent[i] else (m.cards[i],))
            np.testing.assert_allclose(m.cpts[i].sum(axis=0), 1.0)
    dep = [make_random_selective_nb(0, 10, 2, random_state=s)[2].class_parent.mean() for s in range(200)]
    assert 0.4 < np.mean(dep) < 0.6                       # p_dependent = 0.5
    _, _, m = make_random_selective_nb(0, 4, 2, p_dependent=0.0, min_dependent=2, random_state=0)
    assert m.class_parent.sum() == 2


@pytest.mark.parametrize("max_parents", [0, 2, 3])
def test_bn_classifier_parents_exclude_class_and_are_acyclic(max_parents):
    seen_max = 0
    for seed in range(30):
        _, _, m = make_random_bn_classifier(0, 8, 3, max_parents=max_parents, random_state=seed)
        position = {int(v): t for t, v in enumerate(m.order)}
        for i, pa in enumerate(m.parents):
            assert len(pa) <= max_parents                  # AMBIG-14: C is not counted
            assert all(position[p] < position[i] for p in pa)
        seen_max = max(seen_max, max(len(p) for p in m.parents))
        m.to_network().check_model()
    assert seen_max == max_parents


def test_tan_is_a_tree_with_class_parent():
    for n in (1, 2, 3, 8, 14):
        _, _, m = make_random_tan(10, n, random_state=n)
        assert m.class_parent.all()
        assert sum(len(p) for p in m.parents) == n - 1
        assert sum(len(p) == 0 for p in m.parents) == 1
        assert m.cards.min() >= 2
        assert m.cards.max() <= 3
        net = m.to_network(latent=True)
        assert net.latents == {"C"}
        assert net.check_model()


def test_pruefer_trees_are_uniform():
    """All 4**2 = 16 labelled trees on 4 nodes appear equally often (chi-square goodness of fit)."""
    rng = np.random.default_rng(0)
    counts = Counter(frozenset(frozenset(e) for e in pruefer_tree(4, rng)) for _ in range(3200))
    assert len(counts) == 16
    assert all(len(t) == 3 for t in counts)
    assert stats.chisquare(list(counts.values())).pvalue > 0.001


def test_model_detection_reconstruction():
    X, y, m = make_model_detection(4000, n_dependent=3, n_independent=2, random_state=1)
    assert m.class_parent.tolist() == [True, True, True, False, False]
    for i in range(3):
        assert abs(X.loc[y == 0, f"X{i}"].mean() - 0.2) < 0.04
        assert abs(X.loc[y == 1, f"X{i}"].mean() - 0.8) < 0.04
    assert abs(X["X4"].mean() - 0.5) < 0.04


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_clusters == 1"):
        make_random_selective_nb(10, 3, 1)
    with pytest.raises(ValueError, match="states == 1"):
        make_random_selective_nb(10, 3, 2, states=1)
    with pytest.raises(ValueError, match="max_parents == -1"):
        make_random_bn_classifier(10, 3, 2, max_parents=-1)
    with pytest.raises(ValueError, match="p_low == 1.5"):
        make_model_detection(10, p_low=1.5)
