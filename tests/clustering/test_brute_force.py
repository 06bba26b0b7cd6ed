"""Brute-force selective naive Bayes averaging (seed 001 section 7.5.1): the Candidate estimate against the exact
marginal likelihood by enumerating every labelling, the closed form of the arc-free structure, the structure
posterior, the mixture of joints, and the scikit-learn face."""

from __future__ import annotations

import itertools

import joblib
import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from pgmpy_ext.clustering import BruteForceSNBAveraging, brute_force_snb, candidate_log_evidence
from pgmpy_ext.datasets import make_random_selective_nb


def _bd(counts, alpha=1.0):
    counts = np.asarray(counts, dtype=float)
    return gammaln(counts.size * alpha) - gammaln(counts.size * alpha + counts.sum()) + \
        np.sum(gammaln(alpha + counts) - gammaln(alpha))


def _exact_log_evidence(codes, cols, cards, K, alpha=1.0):
    """log p(D | S) summed over all K**N labellings (tiny N only)."""
    N = codes.shape[0]
    terms = []
    for lab in itertools.product(range(K), repeat=N):
        lab = np.array(lab)
        t = _bd(np.bincount(lab, minlength=K), alpha)
        for c in cols:
            for j in range(K):
                t += _bd(np.bincount(codes[lab == j, c], minlength=cards[c]), alpha)
        terms.append(t)
    return float(logsumexp(terms))


def _em(codes, cols, cards, K, rng, iters=200, alpha=1.0):
    w = rng.dirichlet(np.ones(K))
    tabs = [rng.dirichlet(np.ones(cards[c]), size=K).T for c in cols]
    for _ in range(iters):
        lj = np.log(w) + sum(np.log(t)[codes[:, c]] for t, c in zip(tabs, cols))
        q = np.exp(lj - logsumexp(lj, axis=1, keepdims=True))
        w = (q.sum(0) + alpha) / (q.sum() + K * alpha)
        tabs = []
        for c in cols:
            cnt = np.stack([q[codes[:, c] == k].sum(0) for k in range(cards[c])])
            tabs.append((cnt + alpha) / (cnt.sum(0) + cards[c] * alpha))
    return w, tabs


@pytest.mark.parametrize("seed", [0, 1])
def test_candidate_matches_enumeration(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, size=(10, 3)).astype(np.int32)
    cards = np.array([2, 2, 2])
    cols = [0, 2]
    exact = _exact_log_evidence(codes, cols, cards, 2)
    w, tabs = _em(codes, cols, cards, 2, rng)
    uniq, inv = np.unique(codes, axis=0, return_inverse=True)
    mult = np.bincount(inv.ravel()).astype(float)
    est, info = candidate_log_evidence(uniq, mult, cols, w, tabs, np.random.default_rng(seed), n_burn=200,
                                       n_samples=4000)
    assert est == pytest.approx(exact, abs=0.15)   # Monte Carlo sd ~0.03 at this size
    # the same chain without symmetrisation over labels gives a different (biased unless it mixes) estimate
    est1, _ = candidate_log_evidence(uniq, mult, cols, w, tabs, np.random.default_rng(seed), n_burn=200,
                                     n_samples=4000, symmetrize=False)
    assert est1 != est
    assert info["loglik"] <= 0


def test_brute_force_structures_and_closed_form():
    X, y, model = make_random_selective_nb(80, 3, 2, states=2, random_state=3)
    codes = X.to_numpy().astype(np.int32)
    res = brute_force_snb(codes, [2, 2, 2], 2, random_state=0, n_init=2, n_burn=50, n_gibbs=200)
    assert res.masks.shape == (8, 3)
    assert res.posterior.sum() == pytest.approx(1.0)
    # arc-free structure: exact product of independent marginal likelihoods
    exact0 = sum(_bd(np.bincount(codes[:, i], minlength=2)) for i in range(3))
    assert res.log_evidence[0] == pytest.approx(exact0)
    np.testing.assert_allclose(res.arc_posterior, res.posterior @ res.masks)
    # the mixture of joints is a distribution over (x, c)
    allx = np.array(list(itertools.product(range(2), repeat=3)))
    lj = res.log_joint(allx)
    assert float(np.exp(logsumexp(lj))) == pytest.approx(1.0)
    # same seed, same result; n_jobs does not change it
    with joblib.parallel_config(backend="threading"):   # threads: no worker start-up cost in the test
        again = brute_force_snb(codes, [2, 2, 2], 2, random_state=0, n_init=2, n_burn=50, n_gibbs=200, n_jobs=2)
    np.testing.assert_array_equal(res.log_evidence, again.log_evidence)


def test_face_and_errors():
    X, _, _ = make_random_selective_nb(40, 2, 2, states=2, random_state=1)
    X_before = X.copy()
    bf = BruteForceSNBAveraging(n_init=2, n_burn=10, n_gibbs=30, random_state=0).fit(X)
    assert X.equals(X_before)
    assert bf.labels_.shape == (40,)
    np.testing.assert_allclose(bf.predict_proba(X).sum(axis=1), 1.0)
    assert bf.model_.check_model()
    assert bf.model_.latents == {bf.cluster_node_}
    with pytest.raises(ValueError, match="n_jobs|alpha"):
        BruteForceSNBAveraging(alpha=0.0).fit(X)
    with pytest.raises(ValueError, match="above 14"):
        brute_force_snb(np.zeros((3, 15), dtype=np.int32), [2] * 15)
