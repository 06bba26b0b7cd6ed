"""KDBClassifier, BANClassifier and SelectiveNBClassifier: pgmpy equality, structure options, seeds, validation.

The generic contract (sklearn checks, pickling, n_jobs, bad inputs) is in test_contract.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone

from pgmpy_ext._compat import VariableElimination, pgmpy_config
from pgmpy_ext.classifiers import BANClassifier, KDBClassifier, NaiveBayesClassifier, SelectiveNBClassifier
from pgmpy_ext.structure import fit_ban, fit_kdb, fit_selective_nb


@pytest.fixture(scope="module")
def xy():
    """Five features with chains among them and a 3-class target."""
    rng = np.random.default_rng(21)
    n = 400
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, a % 2, rng.integers(0, 2, n))
    X = pd.DataFrame({"a": a, "b": b, "c": np.where(rng.random(n) < 0.7, b, rng.integers(0, 2, n)),
                      "d": rng.choice(["u", "v", "w"], n), "e": (y + rng.integers(0, 2, n)) % 3})
    return X, pd.Series(np.array(["lo", "mid", "hi"])[y], name="level")


def _ve_proba(model, class_node, X, classes):
    ve = VariableElimination(model)
    out = []
    for r in range(len(X)):
        ev = {c: (v.item() if hasattr(v, "item") else v) for c, v in X.iloc[r].items()}
        q = ve.query([class_node], evidence=ev, show_progress=False)
        out.append(q.values[[q.state_names[class_node].index(c) for c in classes]])
    return np.array(out)


@pytest.mark.parametrize("est", [KDBClassifier(k=2), KDBClassifier(k=0, alpha=0.5),
                                 BANClassifier(max_parents=2, random_state=1),
                                 BANClassifier(order=["e", "d", "c", "b", "a"], scoring_method="bdeu"),
                                 SelectiveNBClassifier(alpha=0.5)],
                         ids=["kdb2", "kdb0", "ban-seeded", "ban-order-bdeu", "snb"])
def test_predict_proba_equals_variable_elimination(est, xy):
    X, y = xy
    clf = clone(est).fit(X, y)
    rows = X.iloc[::20]
    assert_allclose(clf.predict_proba(rows), _ve_proba(clf.model_, "level", rows, clf.classes_), rtol=1e-9,
                    atol=1e-12)


def test_kdb_structure_is_the_engine_structure_and_k0_is_naive_bayes(xy):
    X, y = xy
    clf = KDBClassifier(k=2).fit(X, y)
    ref = fit_kdb(clf.encoder_, "level", k=2)
    assert clf.structure_.parents == ref.parents
    assert sorted(clf.model_.edges()) == sorted(ref.to_dag().edges())
    assert max(len(p) for p in clf.structure_.parents.values()) == 3
    nb = NaiveBayesClassifier().fit(X, y)
    k0 = KDBClassifier(k=0).fit(X, y)
    assert sorted(k0.model_.edges()) == sorted(nb.model_.edges())
    assert_array_equal(k0.predict_proba(X), nb.predict_proba(X))


def test_ban_same_seed_same_model_and_given_order(xy):
    X, y = xy
    a = BANClassifier(random_state=5).fit(X, y)
    b = BANClassifier(random_state=5).fit(X, y)
    assert sorted(a.model_.edges()) == sorted(b.model_.edges())
    assert all(a.model_.get_cpds(n) == b.model_.get_cpds(n) for n in a.model_.nodes())
    assert a.structure_.trace["order"] == b.structure_.trace["order"]
    # a Generator is accepted too, and the order is the engine's permutation of the features
    expected = [list(X.columns)[i] for i in np.random.default_rng(5).permutation(5)]
    assert a.structure_.trace["order"] == expected
    assert BANClassifier(random_state=np.random.default_rng(5)).fit(X, y).structure_.trace["order"] == expected
    order = ["e", "d", "c", "b", "a"]
    c = BANClassifier(order=order, max_parents=1).fit(X, y)
    assert c.structure_.trace["order"] == order
    assert c.structure_.parents == fit_ban(c.encoder_, "level", order=order, max_parents=1).parents
    for f, pa in c.structure_.parents.items():
        assert pa[0] == "level"
        assert len(pa) <= 2
        assert all(order.index(p) < order.index(f) for p in pa[1:])


def test_ban_order_on_arrays_uses_generated_names(xy):
    X, y = xy
    arr = X.drop(columns="d").to_numpy()
    clf = BANClassifier(order=["x3", "x2", "x1", "x0"]).fit(arr, y.to_numpy())
    assert clf.structure_.trace["order"] == ["x3", "x2", "x1", "x0"]
    with pytest.raises(ValueError, match=r"order names \['a'\], which are not features"):
        BANClassifier(order=["a", "x2", "x1", "x0"]).fit(arr, y.to_numpy())


def test_selective_nb_equals_naive_bayes_on_the_selected_features(xy):
    X, y = xy
    clf = SelectiveNBClassifier().fit(X, y)
    sel = clf.structure_.selected
    assert 0 < len(sel) < X.shape[1]
    assert set(clf.model_.nodes()) == {*X.columns, "level"}  # unselected features stay, isolated
    for f in X.columns:
        if f not in sel:
            assert clf.model_.get_parents(f) == []
            assert clf.model_.get_children(f) == []
    nb = NaiveBayesClassifier().fit(X[sel], y)
    assert_allclose(clf.predict_proba(X), nb.predict_proba(X[sel]), rtol=1e-12)
    # the selection uses the classifier's own alpha
    assert clf.structure_.parents == fit_selective_nb(clf.encoder_, "level", alpha=1.0).parents


def test_selective_nb_loo_accuracy_matches_explicit_refits():
    """The final LOO accuracy in the trace is what refitting the classifier without each row would score (the data
    repeat every value so each held-out row's states stay known)."""
    rng = np.random.default_rng(3)
    n = 40
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"a": np.where(rng.random(n) < 0.8, y, 1 - y), "b": rng.integers(0, 2, n),
                      "c": np.where(rng.random(n) < 0.7, y, 1 - y)})
    clf = SelectiveNBClassifier(alpha=1.0).fit(X, y)
    sel = clf.structure_.selected
    hits = []
    for d in range(n):
        keep = np.arange(n) != d
        nb = NaiveBayesClassifier(alpha=1.0).fit(X[sel][keep], y[keep])
        hits.append(nb.predict(X[sel].iloc[[d]])[0] == y[d])
    assert clf.structure_.trace["loo_accuracy"][-1] == pytest.approx(np.mean(hits), rel=1e-12)


def test_progress_bars(xy, capsys, monkeypatch):
    X, y = xy
    monkeypatch.setattr(pgmpy_config, "SHOW_PROGRESS", True)
    SelectiveNBClassifier(show_progress=True).fit(X, y)
    BANClassifier(show_progress=True, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    assert "selective NB" in err
    assert "K2 search" in err
    SelectiveNBClassifier().fit(X, y)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("est", "exc", "match"), [
    (KDBClassifier(k=-1), ValueError, r"k == -1, must be >= 0"),
    (KDBClassifier(k=1.5), TypeError, r"k == 1.5, must be an int >= 0"),
    (BANClassifier(max_parents=-2), ValueError, r"max_parents == -2, must be >= 0"),
    (BANClassifier(scoring_method="mdl"), ValueError, r"scoring_method == 'mdl', must be one of"),
    (BANClassifier(order="abcde"), TypeError, r"order == 'abcde', must be None or an array-like"),
    (BANClassifier(order=["a", "b"]), ValueError, r"order must list every feature exactly once"),
    (SelectiveNBClassifier(alpha=-1.0), ValueError, r"alpha == -1.0, must be >= 0"),
    (SelectiveNBClassifier(estimator="mle"), TypeError, r"estimator == 'mle', must be None or an instance of"),
], ids=["kdb-k", "kdb-k-type", "ban-max", "ban-score", "ban-order-str", "ban-order-short", "snb-alpha",
        "snb-estimator"])
def test_parameter_validation(est, exc, match, xy):
    X, y = xy
    with pytest.raises(exc, match=match):
        est.fit(X, y)
