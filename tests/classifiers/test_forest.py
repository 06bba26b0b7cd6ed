"""FANClassifier, SBNClassifier and ABNClassifier: structures against the engines and special cases, posteriors
against pgmpy VariableElimination, fitted traces, parameter validation. (The generic sklearn/pgmpy contract runs in
test_contract.py over every exported classifier.)"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.classifiers._augmented import NaiveBayesClassifier, TANClassifier
from pgmpy_ext.classifiers._forest import ABNClassifier, FANClassifier, SBNClassifier
from pgmpy_ext.datasets import make_corral
from pgmpy_ext.structure._forest import ABNSearch, FANSearch, SBNSearch


@pytest.fixture(scope="module")
def mixed():
    """Features of 2-5 states (ints, strings, bools) with a class-conditional chain X0 - X1 - X2 - X3 and an
    independent X4; 3 string classes."""
    rng = np.random.default_rng(21)
    n = 800
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    yc = np.searchsorted(["a", "b", "c"], y)
    x0 = np.where(rng.random(n) < 0.7, yc, rng.integers(0, 3, n))
    x1 = np.where(rng.random(n) < 0.8, (x0 + yc) % 4, rng.integers(0, 4, n))
    x2 = np.where(rng.random(n) < 0.75, x1 % 2, rng.integers(0, 2, n)).astype(bool)
    x3 = np.where(rng.random(n) < 0.7, (2 * x2 + yc) % 5, rng.integers(0, 5, n))
    X = pd.DataFrame({"X0": x0, "X1": [f"s{v}" for v in x1], "X2": x2, "X3": x3, "X4": rng.integers(0, 3, n)})
    return X, pd.Series(y, name="label")


def _cpds_equal(a, b) -> bool:
    return sorted(a.edges()) == sorted(b.edges()) and all(a.get_cpds(v) == b.get_cpds(v) for v in a.nodes())


FITTED = [FANClassifier(n_edges=2), FANClassifier(n_edges=4, root="X3"), SBNClassifier(),
          SBNClassifier(stopping="cumulative", integer_code_length=True), SBNClassifier(max_edges=1),
          ABNClassifier(), ABNClassifier(weight="cmi", root="X2")]
FITTED_IDS = ["fan2", "fan4-root", "sbn", "sbn-cum-int", "sbn-max1", "abn", "abn-cmi-root"]


@pytest.mark.parametrize("est", FITTED, ids=FITTED_IDS)
def test_predict_proba_equals_variable_elimination(est, mixed):
    X, y = mixed
    fitted = clone(est).set_params(alpha=0.5).fit(X, y)
    assert fitted.structure_.augmenting_edges()   # a real forest, not naive Bayes
    ve = VariableElimination(fitted.model_)
    rows = X.iloc[::97]
    proba = fitted.predict_proba(rows)
    for r, (_, row) in enumerate(rows.iterrows()):
        evidence = {c: (v.item() if hasattr(v, "item") else v) for c, v in row.items()}
        q = ve.query(["label"], evidence=evidence, show_progress=False)
        order = [q.state_names["label"].index(c) for c in fitted.classes_]
        assert_allclose(proba[r], q.values[order], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("est", "search", "options"), [
    (FANClassifier(n_edges=3, root="X1"), FANSearch, {"n_edges": 3, "root": "X1"}),
    (SBNClassifier(stopping="cumulative"), SBNSearch, {"stopping": "cumulative"}),
    (SBNClassifier(penalty_bits=30.0), SBNSearch, {"penalty_bits": 30.0}),
    (ABNClassifier(weight="cmi"), ABNSearch, {"weight": "cmi"}),
    (ABNClassifier(), ABNSearch, {}),
], ids=["fan", "sbn-cum", "sbn-penalty", "abn-cmi", "abn"])
def test_search_face_matches_classifier(est, search, options, mixed):
    """The pgmpy face on the same data (class column included) gives the classifier's DAG; the same seed gives the
    same model (the forest learners are deterministic: they take no random_state)."""
    X, y = mixed
    a = clone(est).fit(X, y)
    b = clone(est).fit(X, y)
    assert _cpds_equal(a.model_, b.model_)
    dag = search(X.assign(label=y)).estimate(class_node="label", **options)
    assert sorted(dag.edges()) == sorted(a.model_.edges())
    assert sorted(a.structure_.to_dag().edges()) == sorted(a.model_.edges())


def test_sbn_special_cases_are_nb_and_tan(mixed):
    X, y = mixed
    nb = NaiveBayesClassifier().fit(X, y)
    tan = TANClassifier(root="X2").fit(X, y)
    assert _cpds_equal(SBNClassifier(penalty_bits=math.inf).fit(X, y).model_, nb.model_)
    sbn0 = SBNClassifier(penalty_bits=0.0, root="X2").fit(X, y)
    assert sbn0.monitor_trace_["cmi_bits"].gt(0).all()          # every Kruskal edge has a positive CMI here
    assert _cpds_equal(sbn0.model_, tan.model_)
    assert_array_equal(sbn0.predict_proba(X), tan.predict_proba(X))
    assert _cpds_equal(FANClassifier(n_edges=0).fit(X, y).model_, nb.model_)
    assert _cpds_equal(FANClassifier(n_edges=4, root="X2").fit(X, y).model_, tan.model_)


def test_sbn_corral_monitor_trace():
    X, y = make_corral()
    marginal = SBNClassifier().fit(X, y)
    cumulative = SBNClassifier(stopping="cumulative").fit(X, y)
    trace = marginal.monitor_trace_
    assert list(trace.columns) == ["step", "edge", "cmi_bits", "k_bits", "K_bits", "accepted"]
    assert len(trace) == 5
    assert int(trace["accepted"].sum()) == 3
    assert int(cumulative.monitor_trace_["accepted"].sum()) == 5
    assert len(marginal.structure_.augmenting_edges()) == 3
    assert len(cumulative.structure_.augmenting_edges()) == 5
    assert trace["edge"].tolist()[:3] == [("A0", "A1"), ("B0", "B1"), ("A0", "B0")]
    assert_allclose(trace["K_bits"], trace["k_bits"].cumsum(), rtol=1e-12)
    assert marginal.structure_.trace["penalty_bits"] == pytest.approx(2 * math.log2(7))
    # the monitor never depends on the CPD smoothing (D3)
    pd.testing.assert_frame_equal(SBNClassifier(alpha=0.0).fit(X, y).monitor_trace_, trace)


def test_abn_fitted_gains(mixed):
    X, y = mixed
    clf = ABNClassifier().fit(X, y)
    assert list(clf.gains_.index) == list(clf.gains_.columns) == list(X.columns)
    for u, v in clf.structure_.augmenting_edges():
        assert clf.gains_.loc[u, v] > 0
    assert clf.gains_.loc["X0", "X4"] < 0    # X4 is independent: its edges do not pay for their parameters
    assert all("X4" not in e for e in clf.structure_.augmenting_edges())
    mdl = clf.structure_.trace["mdl"]
    assert mdl["abn"] <= mdl["tan"]
    assert mdl["abn"] <= mdl["nb"]
    assert_allclose(clf.thresholds_.to_numpy() * len(X),
                    len(X) * clf.structure_.trace["cmi"] - clf.gains_.to_numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("est", "error", "match"), [
    (FANClassifier(n_edges=-1), ValueError, "n_edges == -1, must be >= 0"),
    (FANClassifier(n_edges=None), TypeError, "n_edges == None, must be an int >= 0"),
    (FANClassifier(n_edges=1.5), TypeError, "n_edges == 1.5, must be an int >= 0"),
    (FANClassifier(root="nope"), ValueError, "root 'nope' is not one of the features"),
    (SBNClassifier(stopping="eq37"), ValueError, r"stopping == 'eq37', must be one of \('marginal', 'cumulative'\)"),
    (SBNClassifier(integer_code_length=1), TypeError, r"integer_code_length == 1, must be a bool"),
    (SBNClassifier(penalty_bits=-2.0), ValueError, "penalty_bits == -2.0, must be None or a number >= 0"),
    (SBNClassifier(penalty_bits=float("nan")), ValueError, "penalty_bits == nan"),
    (SBNClassifier(max_edges=-3), ValueError, "max_edges == -3, must be None or an int >= 0"),
    (SBNClassifier(alpha=-1.0), ValueError, "alpha == -1.0, must be >= 0"),
    (ABNClassifier(weight="bic"), ValueError, r"weight == 'bic', must be one of \('mdl_gain', 'cmi'\)"),
    (ABNClassifier(estimator="mle"), TypeError, "estimator == 'mle', must be None or an instance of Discrete"),
], ids=["fan-neg", "fan-none", "fan-float", "fan-root", "sbn-stopping", "sbn-icl", "sbn-penalty", "sbn-nan",
        "sbn-max", "sbn-alpha", "abn-weight", "abn-estimator"])
def test_invalid_parameters(est, error, match, mixed):
    X, y = mixed
    with pytest.raises(error, match=match):
        est.fit(X, y)
    assert not hasattr(est, "model_")


@pytest.mark.parametrize(("alpha", "root"), [(1.0, None), (0.0, "X3"), (0.5, "X4")], ids=["a1", "a0-root", "a05"])
def test_tan_parameters_read_from_pair_tables_equal_recounted_ones(alpha, root, mixed):
    """TAN's CPT counts come from the tree search's pair tables; they must be the counts build_network gets by
    counting the rows itself, value for value, and nothing of them stays on structure_."""
    from pgmpy_ext.models import build_network

    X, y = mixed
    clf = TANClassifier(alpha=alpha, root=root).fit(X, y)
    ref = build_network(clf.structure_.parent_sets(), clf.encoder_, alpha=alpha)
    assert sorted(clf.model_.edges()) == sorted(ref.edges())
    for v in ref.nodes():
        assert_array_equal(clf.model_.get_cpds(v).get_values(), ref.get_cpds(v).get_values())
        assert clf.model_.get_cpds(v).variables == ref.get_cpds(v).variables
    assert clf.structure_.family_counts == {}
    assert clf.structure_.counted_on is None
    assert_array_equal(clf.predict_proba(X), TANClassifier(alpha=alpha, root=root).fit(X, y).predict_proba(X))
