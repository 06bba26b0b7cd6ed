"""Trustworthiness and continuity: equal to scikit-learn on tie-free data, equal to a brute-force average over all
compatible rank orders with ties, continuity(X, Y) == trustworthiness(Y, X), several k at once, n_jobs, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.manifold import trustworthiness as sk_trustworthiness

from pgmpy_ext.evaluation import continuity, trustworthiness, trustworthiness_continuity


def _orders(d: np.ndarray, i: int):
    """Every order of the other points compatible with the distances d (ties broken in every possible way)."""
    others = [j for j in range(len(d)) if j != i]
    groups = [[j for j in others if d[j] == v] for v in sorted({d[j] for j in others})]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [j for g in combo for j in g]


def brute_trustworthiness(X, Y, k):
    """The definition, averaged over every pair of compatible orders (input space, map) of every point."""
    N = len(X)
    DX = ((X[:, None] - X[None]) ** 2).sum(-1)
    DY = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    total = 0.0
    for i in range(N):
        ox = list(_orders(DX[i], i))
        oy = list(_orders(DY[i], i))
        acc = 0.0
        for order_x in ox:
            rank = {j: r + 1 for r, j in enumerate(order_x)}
            for order_y in oy:
                acc += sum(rank[j] - k for j in order_y[:k] if rank[j] > k)
        total += acc / (len(ox) * len(oy))
    return 1.0 - total * 2.0 / (N * k * (2 * N - 3 * k - 1))


@pytest.mark.parametrize("seed", range(4))
def test_equals_sklearn_without_ties(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 6))
    Y = X[:, :2] + 0.5 * rng.normal(size=(120, 2))
    ks = [1, 5, 12, 30, 59]
    ours = trustworthiness(X, Y, n_neighbors=ks)
    theirs = [sk_trustworthiness(X, Y, n_neighbors=k) for k in ks]
    assert_allclose(ours, theirs, rtol=1e-12)
    assert trustworthiness(X, Y, n_neighbors=5) == pytest.approx(theirs[1], rel=1e-12)
    assert_allclose(continuity(X, Y, n_neighbors=ks), [sk_trustworthiness(Y, X, n_neighbors=k) for k in ks],
                    rtol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_equals_brute_force_with_ties(seed):
    rng = np.random.default_rng(seed)
    N = 9
    X = rng.integers(0, 3, size=(N, 2)).astype(float)       # duplicates and equal distances in the input space
    Y = rng.integers(0, 3, size=(N, 2)).astype(float)       # a "hard projection" on a 3 x 3 grid
    for k in (1, 2, 3, 4):
        assert trustworthiness(X, Y, n_neighbors=k) == pytest.approx(brute_trustworthiness(X, Y, k), rel=1e-12)
        assert continuity(X, Y, n_neighbors=k) == pytest.approx(brute_trustworthiness(Y, X, k), rel=1e-12)


def test_continuity_is_trustworthiness_swapped_and_combined_pass():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 5))
    Y = np.round(X[:, :2] * 2) / 2                            # ties in the map
    ks = list(range(1, 51))
    t, c = trustworthiness_continuity(X, Y, n_neighbors=ks)
    assert_allclose(c, trustworthiness(Y, X, n_neighbors=ks), rtol=0, atol=0)
    assert_allclose(t, trustworthiness(X, Y, n_neighbors=ks), rtol=0, atol=0)
    assert_allclose(c, continuity(X, Y, n_neighbors=ks), rtol=0, atol=0)
    assert ((t > 0) & (t < 1)).all()


def test_n_neighbors_order_and_duplicates_and_n_jobs():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3))
    Y = np.floor(X[:, 1:] * 3)
    a = trustworthiness(X, Y, n_neighbors=[10, 3, 10, 7])
    assert_allclose(a, [trustworthiness(X, Y, n_neighbors=k) for k in (10, 3, 10, 7)], rtol=0, atol=0)
    b = trustworthiness(X, Y, n_neighbors=[10, 3, 10, 7], n_jobs=2)
    np.testing.assert_array_equal(a, b)


def test_identity_and_bad_input():
    X = np.random.default_rng(0).normal(size=(20, 3))
    assert trustworthiness(X, X, n_neighbors=[1, 9]).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match=r"n_neighbors == 10, must be >= 1 and less than n_samples / 2 = 10.0"):
        trustworthiness(X, X, n_neighbors=10)
    with pytest.raises(ValueError, match=r"n_neighbors == 0"):
        continuity(X, X, n_neighbors=[0, 3])
    with pytest.raises(ValueError, match=r"X has 20 rows and X_embedded 19"):
        trustworthiness(X, X[:-1])
    with pytest.raises(ValueError, match=r"metric == 'cosine'"):
        trustworthiness(X, X, metric="cosine")
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"Input X contains NaN"):
        trustworthiness(Xn, X)


def test_map_with_every_point_on_one_neuron():
    # one tie group of N - 1 points in the map: each j is a map neighbour with probability k / (N - 1)
    X = np.random.default_rng(6).normal(size=(40, 3))
    Y = np.zeros((40, 2))
    N = 40
    for k in (1, 7, 19):
        err = N * k / (N - 1) * (N - 1 - k) * (N - k) / 2
        expected = 1 - err * 2 / (N * k * (2 * N - 3 * k - 1))
        assert trustworthiness(X, Y, n_neighbors=k) == pytest.approx(expected, rel=1e-12)


def test_threads_give_identical_results_on_a_larger_set():
    # every thread needs its own scratch: a shared one raced (and crashed) with 2 threads at a few thousand rows
    rng = np.random.default_rng(8)
    X = rng.normal(size=(2500, 4))
    Y = np.round(X[:, :2] + 0.3 * rng.normal(size=(2500, 2)), 1)
    ks = list(range(1, 51))
    one = trustworthiness_continuity(X, Y, n_neighbors=ks, n_jobs=1)
    two = trustworthiness_continuity(X, Y, n_neighbors=ks, n_jobs=2)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
