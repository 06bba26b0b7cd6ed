"""Missing and unseen feature values in every classifier and in CEM: exact marginalisation at predict (equal to
pgmpy's ``VariableElimination`` with those features left out of the evidence), ``handle_unknown``, available-case
counting at fit, and cross-validation of raw columns where a value occurs in one row only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.model_selection import KFold, cross_val_score

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.classifiers import (
    ABNClassifier,
    BANClassifier,
    CLMultinetClassifier,
    CTANClassifier,
    FANClassifier,
    KDBClassifier,
    NaiveBayesClassifier,
    SBNClassifier,
    SelectiveNBClassifier,
    StructuralTMClassifier,
    TANClassifier,
)
from pgmpy_ext.clustering import CEMClustering

SINGLE = [NaiveBayesClassifier(), TANClassifier(), FANClassifier(n_edges=2), SBNClassifier(), ABNClassifier(),
          KDBClassifier(k=1), KDBClassifier(k=2), BANClassifier(max_parents=3, random_state=0), CTANClassifier(),
          SelectiveNBClassifier(), StructuralTMClassifier(max_iter=50)]
SINGLE_IDS = ["NB", "TAN", "FAN", "SBN", "ABN", "kDB1", "kDB2", "BAN3", "CTAN", "SNB", "STM"]
ALL = SINGLE + [CLMultinetClassifier()]
ALL_IDS = SINGLE_IDS + ["CL-multinet"]


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


@pytest.fixture(scope="module")
def data():
    """Mixed-type features that depend on a 3-class target and on each other; string index labels."""
    rng = np.random.default_rng(3)
    n = 400
    y = pd.Series(rng.choice(["lo", "mid", "hi"], n), name="level")
    base = np.select([y == "lo", y == "mid"], [0, 1], 2)
    a = np.where(rng.random(n) < 0.7, base, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    X = pd.DataFrame({
        "a": a,
        "b": np.array(["x", "y", "z"])[b],
        "c": (np.where(rng.random(n) < 0.7, base > 0, rng.random(n) < 0.5)),
        "d": 10 + np.where(rng.random(n) < 0.6, b, rng.integers(0, 4, n)),
        "e": np.where(rng.random(n) < 0.6, base, rng.integers(0, 3, n)).astype(str),
    })
    idx = [f"r{i}" for i in range(n)]
    X.index = idx
    y.index = idx
    return X, y


def _masked(X, rng, p=0.3, n=25):
    Xm = X.iloc[:n].astype(object).copy()
    Xm = Xm.mask(rng.random(Xm.shape) < p)
    Xm.iloc[0] = np.nan  # a row with nothing observed
    return Xm


def _ve_posterior(model, class_node, classes, row):
    ev = {c: _py(v) for c, v in row.items() if not pd.isna(v)}
    q = VariableElimination(model).query([class_node], evidence=ev or None, show_progress=False)
    return q.values[[q.state_names[class_node].index(_py(c)) for c in classes]]


@pytest.mark.parametrize("est", SINGLE, ids=SINGLE_IDS)
def test_missing_features_equal_variable_elimination(est, data):
    X, y = data
    fitted = clone(est).set_params(missing="available_case").fit(X, y)
    Xm = _masked(X, np.random.default_rng(0))
    proba = fitted.predict_proba(Xm)
    for r in range(Xm.shape[0]):
        assert_allclose(proba[r], _ve_posterior(fitted.model_, fitted.class_node_, fitted.classes_, Xm.iloc[r]),
                        rtol=1e-9, atol=1e-12)
    # complete rows are bit-identical to predicting them alone
    complete = ~Xm.isna().any(axis=1).to_numpy()
    assert complete.any()
    assert_array_equal(proba[complete], fitted.predict_proba(X.iloc[:25][complete]))


def _multinet_posterior(clf, row):
    obs = {c: _py(v) for c, v in row.items() if not pd.isna(v)}
    scores = []
    for k, label in enumerate(clf.classes_):
        model = clf.models_[_py(label)]
        if obs:
            q = VariableElimination(model).query(list(obs), joint=True, show_progress=False)
            p = q.get_value(**obs)
        else:
            p = 1.0
        scores.append(clf.class_prior_[k] * p)
    s = np.array(scores)
    return s / s.sum()


def test_multinet_missing_features_equal_variable_elimination(data):
    X, y = data
    clf = CLMultinetClassifier().fit(X, y)
    Xm = _masked(X, np.random.default_rng(1))
    proba = clf.predict_proba(Xm)
    for r in range(Xm.shape[0]):
        assert_allclose(proba[r], _multinet_posterior(clf, Xm.iloc[r]), rtol=1e-9)


@pytest.mark.parametrize("model", ["cl", "tan", "sbn"])
def test_cem_missing_attributes_equal_variable_elimination(model, data):
    X, _ = data
    cem = CEMClustering(3, model=model, n_init=2, n_stochastic_steps=10, alpha=1.0, random_state=0).fit(X)
    net = cem.to_network()
    Xm = _masked(X, np.random.default_rng(2))
    proba = cem.predict_proba(Xm)
    ve = VariableElimination(net)
    for r in range(Xm.shape[0]):
        ev = {c: _py(v) for c, v in Xm.iloc[r].items() if not pd.isna(v)}
        q = ve.query([cem.cluster_node_], evidence=ev or None, show_progress=False)
        expect = q.values[[q.state_names[cem.cluster_node_].index(k) for k in range(3)]]
        assert_allclose(proba[r], expect, rtol=1e-9, atol=1e-12)
    assert np.isfinite(cem.score(Xm))


def test_cem_refuses_missing_training_cells(data):
    X, _ = data
    Xm = X.astype(object).copy()
    Xm.loc["r5", "d"] = None
    with pytest.raises(ValueError, match=r"column 'd' is missing at row 'r5'.*needs them complete"):
        CEMClustering(2, n_init=1, n_stochastic_steps=2).fit(Xm)


# ----------------------------------------------------------------------------------------------- handle_unknown
@pytest.mark.parametrize("est", ALL, ids=ALL_IDS)
def test_handle_unknown(est, data):
    X, y = data
    fitted = clone(est).set_params(missing="available_case").fit(X, y)
    new = X.iloc[:4].copy()
    new["d"] = [10, 99, 11, 12]
    new["b"] = ["x", "y", "w", "z"]
    with pytest.raises(ValueError, match=r"Column 'b' has value 'w' at row 'r2' that was not seen during fit"):
        clone(fitted).set_params(handle_unknown="error").fit(X, y).predict(new)
    as_missing = new.astype(object)
    as_missing.loc["r1", "d"] = None
    as_missing.loc["r2", "b"] = None
    assert_array_equal(fitted.predict_proba(new), fitted.predict_proba(as_missing))
    if hasattr(fitted, "model_"):
        proba = fitted.predict_proba(new)
        for r in (1, 2):
            assert_allclose(proba[r], _ve_posterior(fitted.model_, fitted.class_node_, fitted.classes_,
                                                    as_missing.iloc[r]), rtol=1e-9, atol=1e-12)


def test_cem_handle_unknown(data):
    X, _ = data
    cem = CEMClustering(2, n_init=1, n_stochastic_steps=5, random_state=0).fit(X)
    new = X.iloc[:3].copy()
    new["a"] = [0, 7, 1]
    as_missing = new.astype(object)
    as_missing.loc["r1", "a"] = None
    assert_array_equal(cem.predict_proba(new), cem.predict_proba(as_missing))
    with pytest.raises(ValueError, match=r"Column 'a' has value 7 at row 'r1'"):
        cem.set_params(handle_unknown="error").predict(new)
    assert cem.predict_proba(X.iloc[:0]).shape == (0, 2)


@pytest.mark.parametrize("est", ALL, ids=ALL_IDS)
def test_bad_option_values(est, data):
    X, y = data
    with pytest.raises(ValueError, match=r"handle_unknown == 'skip', must be one of \('ignore', 'error'\)"):
        clone(est).set_params(handle_unknown="skip").fit(X, y)
    with pytest.raises(ValueError, match=r"missing == 'drop', must be one of \('available_case', 'error'\)"):
        clone(est).set_params(missing="drop").fit(X, y)


# ----------------------------------------------------------------------------------------------- CV and fit
@pytest.mark.parametrize("est", ALL, ids=ALL_IDS)
def test_cross_validation_with_a_value_in_one_row_only(est, data):
    X, y = data
    Xr = X.copy()
    Xr["b"] = Xr["b"].astype(object)
    Xr.loc["r7", "b"] = "rare"  # in one test fold only: unseen by the model trained without that fold
    scores = cross_val_score(clone(est), Xr, y, cv=KFold(5, shuffle=True, random_state=0))
    assert scores.shape == (5,)
    assert scores.min() > 0.4


@pytest.mark.parametrize("est", ALL, ids=ALL_IDS)
def test_missing_training_cells(est, data):
    X, y = data
    Xm = X.astype(object).mask(np.random.default_rng(4).random(X.shape) < 0.1)
    first = Xm.isna().to_numpy().nonzero()
    r, k = first[0][0], first[1][0]
    if type(est)._needs_complete_data:
        with pytest.raises(ValueError, match=rf"needs complete training data .*column '{X.columns[k]}' is missing "
                                             rf"at row 'r{r}'"):
            clone(est).set_params(missing="available_case").fit(Xm, y)
        return
    with pytest.raises(ValueError, match=r"Column '\w' has a missing value"):
        clone(est).set_params(missing="error").fit(Xm, y)
    strict = clone(est).set_params(missing="error").fit(X, y)
    with pytest.raises(ValueError, match=rf"Column '{X.columns[k]}' has a missing value \(NaN/None\) at row 'r{r}'; "
                                         rf"{type(est).__name__}\(missing='error'\) refuses it"):
        strict.predict(Xm)
    fitted = clone(est).fit(Xm, y)
    proba = fitted.predict_proba(Xm)
    assert np.isfinite(proba).all()
    assert (fitted.predict(X) == y).mean() > 0.5


def test_available_case_counts_naive_bayes(data):
    """Each CPT of NB counts the rows where its feature is observed: (count + alpha) / (n_observed_c + alpha r)."""
    X, y = data
    Xm = X.astype(object).mask(np.random.default_rng(5).random(X.shape) < 0.2)
    clf = NaiveBayesClassifier(alpha=1.0).fit(Xm, y)
    for col in X.columns:
        cpd = clf.model_.get_cpds(col)
        states = cpd.state_names[col]
        for j, label in enumerate(cpd.state_names["level"]):
            obs = Xm.loc[(y == label).to_numpy(), col].dropna()
            counts = np.array([(obs.map(_py) == s).sum() for s in states], dtype=float)
            assert_allclose(cpd.get_values()[:, j], (counts + 1.0) / (counts.sum() + len(states)), rtol=1e-12)


def test_tags_follow_the_missing_option():
    assert TANClassifier().__sklearn_tags__().input_tags.allow_nan
    assert not TANClassifier(missing="error").__sklearn_tags__().input_tags.allow_nan
    assert not ABNClassifier(missing="available_case").__sklearn_tags__().input_tags.allow_nan  # fit refuses NaN
    assert not CEMClustering().__sklearn_tags__().input_tags.allow_nan  # fit refuses NaN (predict sums it out)


def test_cross_validation_with_handle_unknown_error_fails(data):
    """The same CV stops with handle_unknown="error": the default is what makes it run."""
    X, y = data
    Xr = X.copy()
    Xr["b"] = Xr["b"].astype(object)
    Xr.loc["r7", "b"] = "rare"
    with pytest.raises(ValueError, match=r"Column 'b' has value 'rare' at row 'r7' that was not seen during fit"):
        cross_val_score(NaiveBayesClassifier(handle_unknown="error"), Xr, y, cv=KFold(5, shuffle=True, random_state=0),
                        error_score="raise")


@pytest.mark.parametrize("est", [TANClassifier(), KDBClassifier(k=2), BANClassifier(max_parents=2, random_state=0)],
                         ids=["TAN", "kDB2", "BAN2"])
def test_available_case_cpds_equal_pgmpy(est, data):
    """With missing training cells, every CPD equals pgmpy's Dirichlet estimate on the same DAG and data (pgmpy
    counts, per family, the rows where the family is observed), and differs from the complete-case estimate."""
    from pgmpy.parameter_estimator import DiscreteBayesianEstimator

    X, y = data
    Xm = X.astype(object).mask(np.random.default_rng(6).random(X.shape) < 0.15)
    clf = clone(est).fit(Xm, y)
    states = clf.model_.states
    df = pd.concat([Xm, y], axis=1)
    fit_on = {"available": df, "complete": df.dropna()}
    ref = {}
    for k, d in fit_on.items():
        pe = DiscreteBayesianEstimator(state_names=states, prior_type="dirichlet", pseudo_counts=1.0)
        ref[k] = {c.variable: c for c in pe.fit(clf.model_.copy(), d).parameters_}
    differs = False
    for node in clf.model_.nodes():
        ours, theirs = clf.model_.get_cpds(node), ref["available"][node]
        assert ours.variables == theirs.variables
        assert_allclose(ours.get_values(), theirs.get_values(), rtol=1e-12, atol=1e-15)
        differs |= not np.allclose(ours.get_values(), ref["complete"][node].get_values())
    assert differs


def test_tm_parameters_need_complete_training_data():
    """TMEstimator's tag supports_missing_data=False: the classifier refuses missing training cells up front with
    the user's row label; the estimator itself names the column; predict still sums missing cells out."""
    from pgmpy_ext._compat import DiscreteBayesianNetwork
    from pgmpy_ext.classifiers import NaiveBayesClassifier
    from pgmpy_ext.data import encode
    from pgmpy_ext.parameters import TMEstimator

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = pd.DataFrame({f"x{j}": np.where(rng.random(200) < 0.8, y, rng.integers(0, 2, 200)) for j in range(3)},
                     index=[f"r{i}" for i in range(200)]).astype(float)
    Xm = X.copy()
    Xm.iloc[3, 1] = np.nan
    clf = NaiveBayesClassifier(estimator=TMEstimator())
    assert not clf.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match=r"needs complete training data \(the TMEstimator parameters\), but column "
                                         r"'x1' is missing at row 'r3'"):
        clf.fit(Xm, y)
    model = DiscreteBayesianNetwork([("c", f"x{j}") for j in range(3)])
    data = encode(Xm.assign(c=y).reset_index(drop=True), missing="skip")
    with pytest.raises(ValueError, match=r"TMEstimator needs complete data .* column 'x1' is missing at row 3"):
        TMEstimator(class_node="c").fit_encoded(model, data)
    fitted = clf.fit(X, y)
    assert np.isfinite(fitted.predict_proba(Xm)).all()
