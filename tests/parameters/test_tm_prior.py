"""The Gaussian prior of the TM's L-BFGS solver (issue 26): its objective, its limits, the default, the inner
cross-validation of its strength, and structural TM's held-out criterion."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import OneHotEncoder

from pgmpy_ext.classifiers import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.data import encode
from pgmpy_ext.parameters import (
    DEFAULT_PRIOR_STRENGTH,
    TMEstimator,
    cv_cll,
    fit_tm,
    inner_folds,
    prior_strengths,
)
from pgmpy_ext.parameters._tm import _TMTables
from pgmpy_ext.parameters._tm_solvers import LBFGSSolver, Prior
from pgmpy_ext.stats import TMData
from pgmpy_ext.structure import fit_structural_tm, fit_tan
from tests.parameters.test_tm import nb_parents, noisy_multinomial


def _frame(n=240, seed=3, k=3):
    """Three noisy ternary features of a k-class label, plus one feature that copies it 90 % of the time."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, k, n)
    cols = {f"X{i}": np.where(rng.random(n) < 0.6, c % 3, rng.integers(0, 3, n)) for i in range(3)}
    cols["X3"] = np.where(rng.random(n) < 0.9, c, rng.integers(0, k, n))
    return pd.DataFrame({"C": c, **cols})


def _cll(model, X, y):
    lp = np.log(model.predict_proba(X))
    return float(lp[np.arange(len(y)), np.searchsorted(model.classes_, y)].sum())


# ---------------------------------------------------------------------------------------------- the objective
@pytest.mark.parametrize(("coords", "mean"), [("auto", "generative"), ("auto", "uniform"),
                                              ("log_counts", "generative"), ("log_counts", "uniform")])
def test_penalised_gradient_matches_finite_differences(coords, mean):
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, (200, 3)).astype(np.int32)
    y = rng.integers(0, 2, 200)
    tmd = TMData.build(codes, y, [3, 3, 3], 2, [(0, ()), (1, (0,)), (2, (1,))])
    T = tmd.observed + 1.0
    s = LBFGSSolver(tmd, T, np.zeros(tmd.size, bool), coordinates=coords, prior=Prior(2.0, T, mean))
    z = s._x[s.free] * s.d + rng.normal(0, 0.3, s.free.size)
    f, g = s.negative_cll(z.copy())
    h = 1e-6
    num = np.array([(s.negative_cll(z + e)[0] - s.negative_cll(z - e)[0]) / (2 * h) for e in np.eye(z.size) * h])
    assert_allclose(num, g, rtol=0, atol=1e-6)
    assert f == pytest.approx(-tmd.evaluate(None, log_theta=s.log_theta_of(z).copy()).cll + s.penalty(z), rel=1e-12)


def test_precision_grows_with_the_feature_parent_configurations():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, (50, 2)).astype(np.int32)
    tmd = TMData.build(codes, rng.integers(0, 2, 50), [4, 4], 2, [(0, ()), (1, (0,))])
    prec = Prior(3.0, tmd.observed + 1.0).precision(tmd)
    assert np.all(tmd.block(prec, 0) == 3.0)  # the class prior, penalised around its generative value
    assert np.all(tmd.block(prec, 1) == 3.0)  # no feature parent
    assert np.all(tmd.block(prec, 2) == 12.0)  # 4 configurations of the feature parent
    uniform = Prior(3.0, tmd.observed + 1.0, "uniform").precision(tmd)
    assert np.all(tmd.block(uniform, 0) == 0.0)  # intercepts are not penalised


def test_uniform_mean_naive_bayes_is_l2_logistic_regression():
    df = _frame(k=3)
    X, y = df.drop(columns="C"), df["C"].to_numpy()
    lam = 2.0
    res = fit_tm(encode(df), "C", nb_parents(list(X.columns)), prior_strength=lam, prior_mean="uniform", tol=1e-9,
                 max_iter=5000)
    F = OneHotEncoder().fit_transform(X)
    lr = LogisticRegression(C=1 / lam, tol=1e-12, max_iter=10_000).fit(F, y)
    lp = lr.predict_log_proba(F)[np.arange(len(y)), y].sum()
    assert res.cll == pytest.approx(lp, abs=1e-3)
    assert res.objective_trace[-1] == pytest.approx(lp - 0.5 * lam * np.sum(lr.coef_ ** 2), abs=1e-3)


@pytest.mark.parametrize("cls", [NaiveBayesClassifier, TANClassifier], ids=["nb", "tan"])
def test_very_strong_generative_prior_gives_the_generative_classifier(cls):
    df = _frame(k=2)
    X, y = df.drop(columns="C"), df["C"]
    gen = cls(alpha=1.0).fit(X, y)
    tm = cls(estimator=TMEstimator(prior_strength=1e7)).fit(X, y)
    assert_allclose(tm.predict_proba(X), gen.predict_proba(X), atol=1e-4)
    free = cls(estimator=TMEstimator(prior_strength=0.0, tol=1e-6)).fit(X, y)
    default = cls(estimator=TMEstimator()).fit(X, y)
    # the default sits between the generative and the unpenalised discriminative fit on the training rows
    assert _cll(gen, X, y) <= _cll(default, X, y) <= _cll(free, X, y) + 1e-6


def test_objective_trace_increases_and_the_default_prior_is_used():
    df = noisy_multinomial(seed=4)
    res = fit_tm(encode(df), "C", nb_parents(["X0", "X1", "X2"]))
    assert res.evidence_trace is not None  # the default: the evidence rule, from the fixed strength
    assert res.evidence_trace[0, 0] == DEFAULT_PRIOR_STRENGTH
    assert res.prior_strength > 0
    assert res.solver == "lbfgs"
    assert np.all(np.diff(res.objective_trace) >= 0.0)
    assert res.objective_trace.shape == res.cll_trace.shape == (res.n_iter + 1,)
    assert np.all(res.objective_trace <= res.cll_trace + 1e-12)  # the penalty is >= 0
    thesis = fit_tm(encode(df), "C", nb_parents(["X0", "X1", "X2"]), solver="tm", alpha=0.0)
    assert thesis.prior_strength == 0.0
    assert_allclose(thesis.objective_trace, thesis.cll_trace)


def test_separable_training_rows_keep_a_finite_held_out_log_loss():
    """Without a prior the CLL of separable training rows goes to 0 and the held-out log loss explodes (issue
    26); the default prior keeps it near the generative classifier's or better."""
    rng = np.random.default_rng(7)
    n = 200
    c = rng.integers(0, 2, 2 * n)
    X = pd.DataFrame({f"X{i}": np.where(rng.random(2 * n) < 0.7, c, rng.integers(0, 2, 2 * n)) for i in range(12)})
    key = X["X0"] * 2 + X["X1"]  # a rare, perfectly predictive pattern makes the training rows separable
    X["K"] = np.where(rng.random(2 * n) < 0.05, 2 + c, key % 2)
    tr, te = np.arange(n), np.arange(n, 2 * n)
    y = pd.Series(c, name="C")

    def log_loss(est):
        m = NaiveBayesClassifier(estimator=est).fit(X.iloc[tr], y.iloc[tr])
        return -_cll(m, X.iloc[te], y.iloc[te]) / n

    gen = NaiveBayesClassifier().fit(X.iloc[tr], y.iloc[tr])
    gen_loss = -_cll(gen, X.iloc[te], y.iloc[te]) / n
    assert log_loss(TMEstimator()) <= gen_loss * 1.05
    assert log_loss(TMEstimator(alpha=0.0, prior_strength=0.0)) > 2 * log_loss(TMEstimator())


# ---------------------------------------------------------------------------------------------- options
def test_prior_strength_resolution_and_errors():
    assert prior_strengths("auto", "lbfgs") == (DEFAULT_PRIOR_STRENGTH,)
    assert prior_strengths("auto", "tm") == (0.0,)
    assert prior_strengths(3, "lbfgs") == (3.0,)
    assert prior_strengths([1, 10], "lbfgs") == (1.0, 10.0)
    df = noisy_multinomial(seed=1)
    data, pa = encode(df), nb_parents(["X0", "X1"])
    with pytest.raises(ValueError, match="prior_strength == 1.0 with solver='tm'"):
        fit_tm(data, "C", pa, solver="tm", prior_strength=1.0)
    for bad, exc in ((-1.0, ValueError), (np.nan, ValueError), ([], ValueError), ("strong", ValueError),
                     (object(), TypeError)):
        with pytest.raises(exc, match="prior_strength"):
            fit_tm(data, "C", pa, prior_strength=bad)
    with pytest.raises(ValueError, match="prior_mean == 'zero'"):
        fit_tm(data, "C", pa, prior_mean="zero")
    with pytest.raises(ValueError, match="cv == 1"):
        TMEstimator(class_node="C", cv=1).fit(None, df)
    assert TMEstimator().get_params()["prior_strength"] == "auto"


def test_inner_folds_are_stratified_and_deterministic():
    y = np.array([0, 0, 1, 0, 1, 1, 0, 2, 2, 0])
    f = inner_folds(y, 3)
    assert f.tolist() == [0, 1, 0, 2, 1, 2, 0, 0, 1, 1]
    assert np.array_equal(f, inner_folds(y, 3))


def test_cross_validated_strength_equals_a_fit_with_the_chosen_strength():
    df = _frame(n=300, k=3)
    X, y = df.drop(columns="C"), df["C"]
    grid = (100.0, 10.0, 1.0, 0.1)
    est = TMEstimator(prior_strength=grid, cv=3)
    clf = TANClassifier(estimator=est).fit(X, y)
    chosen = clf.estimator_.prior_strength_
    assert chosen in grid
    scores = clf.estimator_.cv_scores_
    assert scores.shape == (4,)
    assert chosen == grid[int(np.nanargmax(scores))]
    fixed = TANClassifier(estimator=TMEstimator(prior_strength=chosen)).fit(X, y)
    assert_allclose(clf.predict_proba(X), fixed.predict_proba(X), rtol=0, atol=1e-12)
    # the inner scores are the held-out CLL of fits on the other folds
    data = clf.encoder_
    pa = fit_tan(data, clf.class_node_).parent_sets()
    lay = _TMTables(data, clf.class_node_, pa, None)
    fold = inner_folds(lay.class_codes(), 3)
    total = 0.0
    for f in range(3):
        tr, te = lay.rows(np.flatnonzero(fold != f)), lay.rows(np.flatnonzero(fold == f))
        T = tr.observed + 1.0
        run = LBFGSSolver(tr, T, ~tr.nonempty_cells(T), prior=Prior(grid[0], T)).run(
            tr.evaluate(T).cll, tol=1e-3, max_iter=1000, t_start=0.0)
        total += te.evaluate(None, log_theta=tr.log_theta(run.counts)[0]).cll
    assert scores[0] == pytest.approx(total, rel=1e-9)


# ---------------------------------------------------------------------------------------------- structural TM
def test_cv_cll_is_the_sum_over_folds_and_scores_structures():
    df = _frame(n=200, k=2)
    data = encode(df)
    nb = nb_parents(["X0", "X1", "X2", "X3"])
    empty = {"C": [], **{f: [] for f in ["X0", "X1", "X2", "X3"]}}
    assert cv_cll(data, "C", nb, n_splits=3, alpha=1.0, prior_strength=10.0) > \
        cv_cll(data, "C", empty, n_splits=3, alpha=1.0, prior_strength=10.0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        cv_cll(encode(df.iloc[:1]), "C", nb, n_splits=3)


def test_structural_tm_criteria_and_errors():
    df = _frame(n=200, k=2)
    data = encode(df)
    cv = fit_structural_tm(data, "C")
    assert cv.trace["criterion"] == "cv"
    assert "X3" in cv.selected  # the near copy of the class
    assert all(np.diff([s["score"] for s in cv.trace["steps"]]) > 0)
    cb = fit_structural_tm(data, "C", criterion="cbic")
    assert cb.trace["steps"][0]["cbic"] == cb.trace["steps"][0]["score"]
    with pytest.raises(ValueError, match="criterion == 'aic'"):
        fit_structural_tm(data, "C", criterion="aic")
    with pytest.raises(ValueError, match="one prior strength"):
        fit_structural_tm(data, "C", prior_strength=(1.0, 10.0))
