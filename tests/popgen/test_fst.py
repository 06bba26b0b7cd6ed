"""Reynolds' F_ST against a direct, loop-by-loop implementation of the formulas (spec 9.4, decision 21)."""

import math

import numpy as np
import pytest

from pgmpy_ext.popgen import fst_from_model, fst_reynolds


def direct_reynolds(freqs, n_j, variant="reynolds1983"):
    """freqs: list over loci of (K, r_i) frequency arrays; n_j: cluster sizes. Written from the formulas, loops only."""
    r = len(n_j)
    N = sum(n_j)
    hom = 1.0 - sum((n / N) ** 2 for n in n_j)
    sa = sb = 0.0
    for p in freqs:
        K, ri = len(p), len(p[0])
        pbar = [sum(n_j[j] * p[j][k] for j in range(K)) / N for k in range(ri)]
        b = 2 * sum(n_j[j] * (1 - sum(p[j][k] ** 2 for k in range(ri))) for j in range(K)) / (2 * N - r)
        dev = sum(n_j[j] * sum((p[j][k] - pbar[k]) ** 2 for k in range(ri)) for j in range(K))
        if variant == "reynolds1983":
            a = (2 * dev - (r - 1) * b) / (2 * (r - 1) * (N * hom / (r - 1)))   # 2 (r-1) n_c, n_c = N hom/(r-1)
        else:
            a = 2 * (dev - b * (r - 1)) / (2 * N * (r - 1) * hom)
        sa += a
        sb += b
    return -math.log(1 - sa / (sa + sb))


FREQS = [np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]),
         np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]]),
         np.array([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.0, 0.5, 0.5, 0.0]])]


@pytest.mark.parametrize("variant", ["reynolds1983", "thesis_as_printed"])
def test_fst_from_model_equals_direct_formula(variant):
    weights = np.array([0.5, 0.3, 0.2])
    theta = np.concatenate([f.T for f in FREQS])  # (R, K) locus blocks
    cards = [2, 3, 4]
    got = fst_from_model(theta, weights, cards, 50, variant=variant)
    want = direct_reynolds([f.tolist() for f in FREQS], (50 * weights).tolist(), variant)
    assert got == pytest.approx(want, rel=1e-12)
    # a subset of loci
    got1 = fst_from_model(theta, weights, cards, 50, loci=[1], variant=variant)
    assert got1 == pytest.approx(direct_reynolds([FREQS[1].tolist()], (50 * weights).tolist(), variant), rel=1e-12)


def test_two_population_reynolds_distance_limit():
    # large equal samples: theta_W -> sum_k (p1k - p2k)^2 / (2 (1 - sum_k p1k p2k)) (Reynolds' two-population form)
    p1, p2 = np.array([0.9, 0.1]), np.array([0.2, 0.8])
    got = fst_from_model(np.stack([p1, p2], axis=1), [0.5, 0.5], [2], 10**8)
    want = -np.log(1 - np.sum((p1 - p2) ** 2) / (2 * (1 - np.sum(p1 * p2))))
    assert got == pytest.approx(want, rel=1e-6)


def test_soft_memberships_reestimate_frequencies():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, size=(40, 5, 2))
    a[3, 1, 0] = -9
    q = rng.dirichlet([1, 1], size=40)
    got = fst_reynolds(a, q)
    freqs = []
    for i in range(5):
        f = np.zeros((2, 3))
        for j in range(2):
            for k in range(3):
                num = sum(q[d, j] * np.sum(a[d, i] == k) for d in range(40))
                den = sum(q[d, j] * np.sum(a[d, i] >= 0) for d in range(40))
                f[j, k] = num / den
        freqs.append(f.tolist())
    assert got == pytest.approx(direct_reynolds(freqs, q.sum(axis=0).tolist()), rel=1e-10)
    # hard memberships on a subset of loci, and an empty cluster is ignored
    hard = np.zeros((40, 3))
    hard[np.arange(40), (np.arange(40) >= 20).astype(int)] = 1
    assert fst_reynolds(a, hard, loci=[0, 2]) == pytest.approx(fst_reynolds(a, hard[:, :2], loci=[0, 2]))


def test_fst_errors():
    with pytest.raises(ValueError, match="n_clusters"):
        fst_reynolds(np.array([[0, 1], [1, 2]]), np.ones((3, 2)))
    with pytest.raises(ValueError, match="at least 2 non-empty clusters"):
        fst_reynolds(np.array([[0, 1], [1, 2]]), np.array([[1.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="variant"):
        fst_reynolds(np.array([[0, 1], [1, 2]]), np.eye(2), variant="nei")
