"""The evidence rule for the TM's prior strength (issue 26, ``prior_strength="evidence"``)."""

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.classifiers import NaiveBayesClassifier, StructuralTMClassifier
from pgmpy_ext.data import encode
from pgmpy_ext.parameters import TMEstimator, fit_tm, prior_strengths, uses_evidence
from pgmpy_ext.parameters._tm import _TMTables
from pgmpy_ext.parameters._tm_evidence import _group_spectrum, _whitened_spectrum, cll_hessian


def _nb(df):
    return {"C": [], **{c: ["C"] for c in df.columns if c != "C"}}


def _frame(n, signal, seed, n_features=4, n_classes=3):
    """Features that copy the class with probability ``signal`` (else uniform noise)."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, n_classes, n)
    cols = {}
    for j in range(n_features):
        keep = rng.random(n) < signal
        cols[f"X{j}"] = np.where(keep, c, rng.integers(0, n_classes, n))
    return pd.DataFrame({"C": c, **cols})


def _cll(tmd, beta):
    return tmd.evaluate(None, log_theta=beta).cll


def test_hessian_matches_finite_differences():
    df = _frame(60, 0.6, 0, n_features=2)
    lay = _TMTables(encode(df), "C", _nb(df), None)
    tmd = lay.tmd
    rng = np.random.default_rng(1)
    beta = rng.normal(0, 0.5, tmd.size)
    free = np.arange(tmd.size)
    H = cll_hessian(tmd, beta, free)
    h = 1e-4
    num = np.zeros_like(H)
    for i in range(tmd.size):
        for j in range(i, tmd.size):
            e_i, e_j = np.eye(tmd.size)[i] * h, np.eye(tmd.size)[j] * h
            num[i, j] = num[j, i] = -(_cll(tmd, beta + e_i + e_j) - _cll(tmd, beta + e_i - e_j)
                                      - _cll(tmd, beta - e_i + e_j) + _cll(tmd, beta - e_i - e_j)) / (4 * h * h)
    np.testing.assert_allclose(H, num, atol=1e-5)
    assert np.all(np.linalg.eigvalsh(H) > -1e-9)  # the CLL is concave in the log-linear coordinates


def test_group_spectrum_is_the_dense_one_for_a_single_feature_block():
    # with the class prior unpenalised and one feature, the per-group blocks are the whole Hessian once the
    # class-prior cells are left out of both
    df = _frame(80, 0.5, 2, n_features=1)
    lay = _TMTables(encode(df), "C", _nb(df), None)
    tmd = lay.tmd
    beta = np.random.default_rng(3).normal(0, 0.3, tmd.size)
    K = tmd.n_classes
    free = np.arange(K, tmd.size)  # the feature's cells only
    prec = np.full(free.size, 2.0)
    diff = np.random.default_rng(4).normal(0, 1, free.size)
    mu_d, V = _whitened_spectrum(cll_hessian(tmd, beta, free), prec, 2.0)
    mu_g, a_g = _group_spectrum(tmd, beta, free, prec, diff, 2.0)
    np.testing.assert_allclose(np.sort(mu_d), np.sort(mu_g), atol=1e-9)
    np.testing.assert_allclose(np.sum((V.T @ diff) ** 2), np.sum(a_g ** 2))


def test_evidence_strength_follows_the_signal():
    """Noise features: the evidence keeps the prior strong (near the generative classifier); strongly redundant
    informative features (NB's weak point): a much weaker prior."""
    noise = _frame(600, 0.0, 5)
    signal = _frame(600, 0.9, 6)
    signal["X1"] = signal["X0"]  # a duplicated feature: NB double-counts it, the discriminative fit must not
    signal["X2"] = signal["X0"]
    lam_noise = fit_tm(encode(noise), "C", _nb(noise), prior_strength="evidence").prior_strength
    res = fit_tm(encode(signal), "C", _nb(signal), prior_strength="evidence")
    assert lam_noise > 30.0
    assert res.prior_strength < 10.0
    lam, gamma, dist, _, _ = res.evidence_trace[-1]
    # the last fit is (nearly) at the fixed point: lambda = gamma / distance within the update's tolerance
    assert abs(np.log(lam * dist / gamma)) < 0.5
    assert np.all(res.evidence_trace[:, 1] > 0)
    assert np.all(res.evidence_trace[:, 1] < sum(t.size for t in res.counts.values()))


def test_evidence_option_beats_fixed_strength_on_redundant_features():
    df = _frame(900, 0.9, 7)
    df["X1"] = df["X0"]
    df["X2"] = df["X0"]
    train, test = df.iloc[:600], df.iloc[600:]

    def log_loss(est):
        clf = NaiveBayesClassifier(estimator=est).fit(train.drop(columns="C"), train["C"])
        P = clf.predict_proba(test.drop(columns="C"))
        return -np.mean(np.log(P[np.arange(len(test)), np.searchsorted(clf.classes_, test["C"])]))

    assert log_loss(TMEstimator(prior_strength="evidence")) < log_loss(TMEstimator(prior_strength=30.0))


def test_evidence_option_resolution_and_errors():
    assert uses_evidence("evidence")
    assert uses_evidence("auto")  # the default
    assert not uses_evidence("evidence", "tm")
    assert not uses_evidence("auto", "tm")
    assert not uses_evidence(30.0)
    assert prior_strengths("evidence") == (30.0,)
    df = _frame(50, 0.5, 8)
    with pytest.raises(ValueError, match="needs solver='lbfgs'"):
        fit_tm(encode(df), "C", _nb(df), solver="tm", prior_strength="evidence")
    with pytest.raises(ValueError, match="'evidence'"):
        fit_tm(encode(df), "C", _nb(df), prior_strength="evidance")
    with pytest.raises(ValueError, match="one prior"):
        StructuralTMClassifier(prior_strength="evidence").fit(df.drop(columns="C"), df["C"])
    est = NaiveBayesClassifier(estimator=TMEstimator(prior_strength="evidence")).fit(df.drop(columns="C"), df["C"])
    assert est.estimator_.result_.evidence_trace.shape[1] == 5
    assert est.estimator_.prior_strength_ > 0


def test_cli_accepts_the_evidence_rule():
    from pgmpy_ext.cli._evaluate import _prior_strength

    assert _prior_strength("evidence") == "evidence"
    assert _prior_strength("3") == 3.0
