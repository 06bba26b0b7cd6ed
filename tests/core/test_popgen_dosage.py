"""The dosage kernels of the population-structure model (issue 28) against the numpy references and against the
allele-copy latent-class E step on the same genotypes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from pgmpy_ext.stats import (
    LatentClassLayout,
    check_dosages,
    dosage_allele_counts,
    dosage_estep,
    dosage_log_table,
    dosage_loo_log_posterior,
    latent_class_estep,
)
from tests.reference_popgen import dosage_estep_ref, dosage_loo_ref


def _problem(seed, n, M, K, P, missing):
    rng = np.random.default_rng(seed)
    G = rng.integers(0, P + 1, size=(n, M)).astype(np.int8)
    G[rng.random((n, M)) < missing] = -1
    theta1 = rng.uniform(0.02, 0.98, size=(M, K))
    prior = rng.dirichlet(np.ones(K))
    w = rng.uniform(0.5, 2.0, size=n)
    return G, theta1, prior, w


@given(seed=st.integers(0, 10**6), n=st.integers(0, 40), M=st.integers(1, 300), K=st.integers(1, 6),
       P=st.integers(1, 4), missing=st.sampled_from([0.0, 0.2]), impute=st.booleans())
def test_dosage_estep_equals_the_reference(seed, n, M, K, P, missing, impute):
    G, theta1, prior, w = _problem(seed, n, M, K, P, missing)
    res = dosage_estep(G, dosage_log_table(theta1, P), np.log(prior), weights=w, return_resp=True)
    ll, A1, A0, nc, resp = dosage_estep_ref(G, theta1, prior, P, weights=w, impute=impute)
    a1, a0 = dosage_allele_counts(res.sums, theta1, impute=impute)
    assert_allclose(res.loglik, ll, rtol=1e-12, atol=1e-9)
    assert_allclose(res.resp, resp, rtol=1e-10, atol=1e-12)
    assert_allclose(res.cluster_counts, nc, rtol=1e-12, atol=1e-12)
    assert_allclose(a1, A1, rtol=1e-11, atol=1e-10)
    assert_allclose(a0, A0, rtol=1e-11, atol=1e-10)
    assert res.n_zero == 0


@pytest.mark.parametrize("missing", ["impute", "available_case"])
def test_dosage_estep_equals_the_allele_copy_estep(missing):
    """The same model as the latent-class engine on allele copies (copy c of SNP i is allele 1 when c < dosage)."""
    P, K = 2, 3
    G, theta1, prior, _ = _problem(3, 50, 120, K, P, 0.1)
    copies = (np.arange(P)[None, None, :] < G[:, :, None]).astype(np.int32)
    copies[G < 0] = -1
    lay = LatentClassLayout.build(np.full(G.shape[1], 2), K, ploidy=P)
    theta = np.stack([1 - theta1, theta1], axis=1).reshape(-1, K)  # rows 2i (allele 0), 2i + 1 (allele 1)
    ref = latent_class_estep(lay, copies.reshape(len(G), -1), None, np.log(theta), np.log(prior), theta=theta,
                             missing=missing, return_resp=True)
    res = dosage_estep(G, dosage_log_table(theta1, P), np.log(prior), return_resp=True)
    a1, a0 = dosage_allele_counts(res.sums, theta1, impute=missing == "impute")
    assert_allclose(res.loglik, ref.loglik, rtol=1e-12)
    assert_allclose(res.resp, ref.resp, rtol=1e-10, atol=1e-13)
    assert_allclose(np.stack([a0, a1], axis=1).reshape(-1, K), ref.counts, rtol=1e-10, atol=1e-12)


def test_dosage_estep_posteriors_only_and_a_zero_probability_row():
    theta1 = np.array([[1.0, 0.5]])
    G = np.array([[0], [2]], dtype=np.int8)
    res = dosage_estep(G, dosage_log_table(theta1, 2), np.log([0.5, 0.5]), counts=False, return_resp=True)
    assert res.sums is None
    assert res.n_zero == 0  # 1.0 is floored at log 1e-300, never exactly 0
    assert_allclose(res.resp[0], [0.0, 1.0], atol=1e-12)


def test_check_dosages_names_the_bad_cell():
    with pytest.raises(ValueError, match="dosage 3 at row 1, SNP 0 is out of range"):
        check_dosages(np.array([[0, 1], [3, 2]]), 2)
    with pytest.raises(TypeError, match="dosages must be integers"):
        check_dosages(np.array([[0.5]]), 2)
    with pytest.raises(ValueError, match="table has 1 SNPs"):
        dosage_estep(np.zeros((2, 3), dtype=np.int8), np.zeros((1, 4, 2)), np.zeros(2))


@given(seed=st.integers(0, 10**6), n=st.integers(1, 25), M=st.integers(1, 60), K=st.integers(1, 5),
       P=st.integers(1, 4))
def test_loo_log_posterior_equals_the_reference(seed, n, M, K, P):
    G, theta1, _, _ = _problem(seed, n, M, K, P, 0.15)
    rng = np.random.default_rng(seed + 1)
    q = rng.dirichlet(np.ones(K), size=n)
    own1 = np.where(G >= 0, G, 0).astype(float).T @ q
    own0 = np.where(G >= 0, P - G, 0).astype(float).T @ q
    A1, A0 = own1 + rng.uniform(0.1, 5, (M, K)), own0 + rng.uniform(0.1, 5, (M, K))
    assert_allclose(dosage_loo_log_posterior(G, A1, A0, q, P), dosage_loo_ref(G, A1, A0, q, P), rtol=1e-11)
