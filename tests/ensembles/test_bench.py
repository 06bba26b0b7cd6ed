"""BENCH: homogeneity labels (spec 6.3 table), FI/FE sets by hand, members vs pgmpy, vote, contract, errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from pgmpy_ext._compat import VariableElimination
from pgmpy_ext.biclustering import SAMBA
from pgmpy_ext.classifiers import K2Classifier, NaiveBayesClassifier
from pgmpy_ext.datasets import make_planted_biclusters
from pgmpy_ext.ensembles import BENCHClassifier, apply_cuts, bench_datasets, bicluster_labels, equal_width_cuts
from pgmpy_ext.preprocessing import EqualFrequencyDiscretizer

MEMBER = K2Classifier(max_parents=2)


# ------------------------------------------------------------------ homogeneity (spec 6.3 test vectors)
@pytest.mark.parametrize(("N", "K", "n", "k", "upper", "thesis", "lower"), [
    (65, 42, 12, 12, 0.0027454, "+", "+"),
    (65, 42, 12, 10, 0.11962, "mixed", "mixed"),
    (65, 42, 12, 5, 0.98379, "-", "mixed"),
    (65, 42, 12, 3, 0.99974, "-", "-"),
    (20, 10, 6, 6, 0.0054180, "+", "+"),
    (20, 10, 6, 5, 0.070433, "mixed", "mixed"),
    (20, 10, 6, 1, 0.99458, "-", "mixed"),
    (20, 10, 6, 0, 1.0, "-", "-"),
])
def test_hypergeometric_labels(N, K, n, k, upper, thesis, lower):
    y_pos = np.r_[np.ones(K, bool), np.zeros(N - K, bool)]
    rows = np.zeros((1, N), bool)
    rows[0, :k] = True
    rows[0, K:K + n - k] = True
    lab, p = bicluster_labels(rows, y_pos)
    np.testing.assert_allclose(p[0], upper, rtol=1e-4)
    assert lab[0] == thesis
    assert bicluster_labels(rows, y_pos, negative_rule="lower_tail")[0][0] == lower


# ------------------------------------------------------------------ FI / FE by hand
def _hand_case():
    # 8 rows, 10 genes; biclusters: 0 "+", 1 "+", 2 "-", 3 "mixed", 4 "mixed", 5 "mixed"
    rows = np.zeros((6, 8), bool)
    cols = np.zeros((6, 10), bool)
    for i, (r, c) in enumerate([([0, 1], [0, 1, 2]), ([1, 2], [2, 3]), ([5, 6], [1, 2, 3, 9]),
                                ([0, 5], [4, 5]), ([1, 6], [5, 6]), ([2, 7], [8])]):
        rows[i, r] = True
        cols[i, c] = True
    labels = np.array(["+", "+", "-", "mixed", "mixed", "mixed"])
    return rows, cols, labels


def _as_sets(ds):
    return [(d.kind, set(np.flatnonzero(d.rows)), set(np.flatnonzero(d.features)), d.pair) for d in ds]


def test_fi_fe_sets_by_hand():
    rows, cols, labels = _hand_case()
    got = _as_sets(bench_datasets(rows, cols, labels))
    assert got == [
        ("FI", {0, 1, 5, 6}, {1, 2}, (0, 2)),       # genes {0,1,2} & {1,2,3,9}
        ("FI", {1, 2, 5, 6}, {2, 3}, (1, 2)),       # genes {2,3} & {1,2,3,9}
        ("FE", {0, 1, 5, 6}, {0, 1, 2, 3, 7, 8, 9}, (3, 4)),  # all genes but {4,5} | {5,6}
    ]  # (3, 5) and (4, 5) share no gene: no FE set
    # min_shared_features=1 needs 2 shared genes; both FI pairs share exactly 2
    assert len([d for d in bench_datasets(rows, cols, labels, min_shared_features=1) if d.kind == "FI"]) == 2
    assert not [d for d in bench_datasets(rows, cols, labels, min_shared_features=2) if d.kind == "FI"]
    # a Jaccard threshold: pair (1, 2) has 2 / 4 = 0.5, pair (0, 2) has 2 / 5 = 0.4
    fi = bench_datasets(rows, cols, labels, min_shared_features=0.45, include_fe=False)
    assert [d.pair for d in fi] == [(1, 2)]
    assert [d.kind for d in bench_datasets(rows, cols, labels, include_fi=False)] == ["FE"]


def test_duplicates_removed():
    rows, cols, labels = _hand_case()
    rows = np.vstack([rows, rows[2]])
    cols = np.vstack([cols, cols[2]])
    labels = np.append(labels, "-")
    ds = bench_datasets(rows, cols, labels)
    assert len(ds) == 3  # (0, 6) and (1, 6) repeat (0, 2) and (1, 2) exactly


def test_equal_width_cuts():
    A = np.array([[0.0, 1.0, 2.0], [3.0, 1.0, 2.0], [6.0, 1.0, 5.0]])
    cuts = equal_width_cuts(A)
    np.testing.assert_allclose(cuts[:, 0], [2.0, 4.0])
    np.testing.assert_allclose(cuts[:, 2], [3.0, 4.0])
    new = np.array([[2.0, 1.0, 3.0], [2.0001, 0.0, 4.5], [-5.0, 9.0, 99.0]])
    # a value on a cut point goes to the lower bin; a constant gene is all bin 0; bins are open-ended
    assert apply_cuts(new, cuts).tolist() == [[0, 0, 0], [1, 0, 2], [0, 0, 2]]


# ------------------------------------------------------------------ the estimator
@pytest.fixture(scope="module")
def data():
    X, y, planted = make_planted_biclusters(n_genes=200, bicluster_cols=(20, 30), random_state=0)
    X.index = [f"s{i}" for i in range(X.shape[0])]
    return X, y.map({1: "tumour", 0: "normal"}).rename("tissue"), planted


@pytest.fixture(scope="module")
def precomputed(data):
    X, y, planted = data
    # planted biclusters plus a "-" bicluster on the "+" genes (so FI sets exist) and two overlapping mixed ones
    pairs = [(b["rows"], b["cols"]) for b in planted]
    neg = np.flatnonzero(y.to_numpy() == "normal")
    pairs.append((neg[:10], planted[0]["cols"][:12]))
    return pairs


@pytest.fixture(scope="module")
def fitted(data, precomputed):
    X, y, _ = data
    # the thesis's BENCH (guard=False): these tests check its members and vote
    return BENCHClassifier(biclusterer=precomputed, estimator=MEMBER, guard=False, random_state=0).fit(X, y)


def test_fit_uses_hand_sets(data, precomputed, fitted):
    X, y, _ = data
    rows = np.zeros((len(precomputed), X.shape[0]), bool)
    cols = np.zeros((len(precomputed), X.shape[1]), bool)
    for i, (r, c) in enumerate(precomputed):
        rows[i, r] = True
        cols[i, c] = True
    lab, _ = bicluster_labels(rows, y.to_numpy() == "normal")  # "normal" is the minority (25 of 65)
    assert fitted.pos_label_ == "normal"
    assert fitted.bicluster_labels_.tolist() == lab.tolist()
    expect = bench_datasets(rows, cols, lab)
    assert _as_sets(fitted.datasets_) == _as_sets(expect)
    assert len(fitted.estimators_) == len(fitted.member_datasets_) == len(fitted.training_errors_)
    assert fitted.member_kinds_ == [expect[i].kind for i in fitted.member_datasets_]
    for est, f, i in zip(fitted.estimators_, fitted.estimators_features_, fitted.member_datasets_):
        np.testing.assert_array_equal(f, np.flatnonzero(expect[i].features))
        assert list(est.feature_names_in_) == [X.columns[j] for j in f]
        assert est.n_features_in_ == f.size


def test_members_match_variable_elimination(data, fitted):
    X, _, _ = data
    probas = fitted.member_probas(X.iloc[:6])
    codes = apply_cuts(X.to_numpy(), fitted.cuts_)
    for k in range(min(2, len(fitted.estimators_))):
        model, f = fitted.models_[k], fitted.estimators_features_[k]
        assert model.check_model()
        ve = VariableElimination(model)
        cls = fitted.estimators_[k].class_node_
        for r in range(6):
            ev = {X.columns[j]: int(codes[r, j]) for j in f}
            q = ve.query([cls], evidence=ev, show_progress=False)
            order = [q.state_names[cls].index(c) for c in fitted.classes_]
            np.testing.assert_allclose(probas[k, r], q.values[order], rtol=1e-9, atol=1e-12)
        # every bin is a state of every feature, although a member's few rows rarely see all three
        assert all(model.get_cpds(X.columns[j]).state_names[X.columns[j]] == [0, 1, 2] for j in f)


@pytest.mark.parametrize("weighting", ["majority", "training_error", "confidence", "soft"])
def test_vote_by_hand(data, fitted, weighting):
    X, _, _ = data
    clf = clone(fitted).set_params(weighting=weighting)
    clf.__dict__.update({k: v for k, v in fitted.__dict__.items() if k.endswith("_") or k.startswith("_")})
    P = fitted.member_probas(X)
    votes = P.argmax(axis=2)
    if weighting == "soft":
        score = P.sum(axis=0)
    else:
        w = {"majority": np.ones(votes.shape), "confidence": P.max(axis=2),
             "training_error": np.broadcast_to(1 - fitted.training_errors_[:, None], votes.shape)}[weighting]
        score = np.stack([(w * (votes == c)).sum(0) for c in (0, 1)], axis=1)
    np.testing.assert_allclose(clf.predict_proba(X), score / score.sum(axis=1, keepdims=True))
    untied = ~np.isclose(score[:, 0], score[:, 1])
    np.testing.assert_array_equal(clf.predict(X)[untied], fitted.classes_[score.argmax(axis=1)][untied])


def test_samba_default_path_and_determinism(data):
    X, y, _ = data
    X_before, y_before = X.copy(), y.copy()
    kw = {"biclusterer": SAMBA(n_seeds=60), "estimator": MEMBER, "random_state": 3}
    a = BENCHClassifier(**kw, n_jobs=1).fit(X, y)
    b = BENCHClassifier(**kw, n_jobs=2).fit(X, y)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)
    assert len(a.estimators_) > 0
    np.testing.assert_array_equal(a.biclusters_[0], b.biclusters_[0])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    for ma, mb in zip(a.models_, b.models_):
        assert set(ma.edges()) == set(mb.edges())
    again = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(again.predict(X), a.predict(X))
    assert set(a.predict(X)) <= {"tumour", "normal"}


def test_sklearn_biclusterer_accepted(data):
    from sklearn.cluster import SpectralCoclustering

    X, y, _ = data
    clf = BENCHClassifier(biclusterer=SpectralCoclustering(n_clusters=6, random_state=0), estimator=MEMBER,
                          include_fi=True, include_fe=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # checkerboard biclusters may give no FI/FE set (fallback)
        clf.fit(X.iloc[:, :40], y)
    assert clf.biclusters_[0].shape == (6, X.shape[0])
    assert clf.biclusters_[1].shape == (6, 40)
    assert clf.biclusterer_.rows_ is not None
    assert clf.predict(X.iloc[:5, :40]).shape == (5,)


# ------------------------------------------------------------------ errors
def test_errors(data, precomputed):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"1 class\(es\) \['tumour'\].*exactly 2 classes"):
        BENCHClassifier(biclusterer=precomputed, estimator=MEMBER).fit(X[(y == "tumour").to_numpy()],
                                                                       y[y == "tumour"])
    three = y.where(np.arange(y.size) % 3 != 0, "other")
    with pytest.raises(ValueError, match=r"Only binary classification is supported.*3 class\(es\)"):
        BENCHClassifier(biclusterer=precomputed, estimator=MEMBER).fit(X, three)
    with pytest.raises(ValueError, match=r"found no bicluster.*threshold/min_cols"):
        BENCHClassifier(estimator=MEMBER).fit(np.ones((20, 30)) + np.arange(30), np.r_[[0] * 10, [1] * 10])
    X_nan = X.copy()
    X_nan.iloc[4, 7] = np.nan
    with pytest.raises(ValueError, match=r"without an imputer.*column 'g7' has NaN at row 's4'.*SimpleImputer"):
        BENCHClassifier(biclusterer=precomputed, estimator=MEMBER).fit(X_nan, y)
    clf = BENCHClassifier(biclusterer=precomputed, estimator=MEMBER, imputer=SimpleImputer()).fit(X_nan, y)
    assert np.isnan(X_nan.iloc[4, 7])  # the caller's data are not modified
    assert clf.predict(X_nan).shape == (X.shape[0],)
    with pytest.raises(ValueError, match="pos_label == 'x' is not a class"):
        BENCHClassifier(biclusterer=precomputed, estimator=MEMBER, pos_label="x").fit(X, y)
    with pytest.raises(ValueError, match=r"precomputed bicluster 0 is not a \(row indices, column indices\) pair"):
        BENCHClassifier(biclusterer=[([0, 1000], [0])], estimator=MEMBER).fit(X, y)
    with pytest.raises(ValueError, match="weighting == 'vote'"):
        BENCHClassifier(weighting="vote").fit(X, y)
    with pytest.raises(ValueError, match="include_fi and include_fe are both False"):
        BENCHClassifier(include_fi=False, include_fe=False).fit(X, y)


def test_fallback_warns(data):
    X, y, _ = data
    # two "+" biclusters only: no FI pair, no FE pair -> one member on everything, with a warning
    pos = np.flatnonzero(y.to_numpy() == "normal")
    bcs = [(pos[:8], [0, 1, 2]), (pos[8:16], [3, 4])]
    with pytest.warns(UserWarning, match="falling back to one member on all training rows and genes"):
        clf = BENCHClassifier(biclusterer=bcs, estimator=MEMBER).fit(X.iloc[:, :20], y)
    assert len(clf.estimators_) == 1
    assert clf.estimators_features_[0].size == 20
    assert clf.member_kinds_ == ["all"]
    assert clf.member_datasets_ == [-1]


_XFAILS: dict = {}  # none: binary-only is declared through tags.classifier_tags.multi_class = False


def _checks_xfails(est):
    return _XFAILS


@parametrize_with_checks([BENCHClassifier(biclusterer=SAMBA(kernel_size=1, min_cols=1, n_seeds=20),
                                          estimator=K2Classifier(max_parents=1), random_state=0)],
                         expected_failed_checks=_checks_xfails)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


# ------------------------------------------------------------------ the guard (issue 29)
def _signal_data(seed=0, n=80, genes=60):
    """Genes 0-5 follow the class (shifted means); the rest are noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, genes))
    X[:, :6] += np.where(y == "b", 1.5, -1.5)[:, None]
    return pd.DataFrame(X, columns=[f"g{j}" for j in range(genes)]), pd.Series(y, name="class")


def test_guard_falls_back_when_the_biclusters_carry_no_class_signal():
    X, y = _signal_data()
    tr, te = np.arange(0, 80, 2), np.arange(1, 80, 2)
    ytr = y.iloc[tr].to_numpy()
    pos, neg = np.flatnonzero(ytr == "b"), np.flatnonzero(ytr == "a")
    # class-pure biclusters on noise genes only (FI members: union of a "+" and a "-" bicluster, shared genes):
    # every member sees noise, the signal genes 0-5 are in no member
    bcs = [(pos[:12], np.arange(10, 30)), (neg[:12], np.arange(20, 40)), (pos[8:], np.arange(30, 50)),
           (neg[8:], np.arange(35, 60))]
    thesis = BENCHClassifier(biclusterer=bcs, include_fe=False, guard=False, random_state=0)
    thesis.fit(X.iloc[tr], y.iloc[tr])
    guarded = BENCHClassifier(biclusterer=bcs, include_fe=False, random_state=0).fit(X.iloc[tr], y.iloc[tr])
    assert thesis.guard_["ensemble_error"] is None
    assert thesis.fallback_ is None
    assert all(np.all(f >= 10) for f in thesis.estimators_features_)
    g = guarded.guard_
    assert g["used_fallback"]
    assert g["fallback_error"] < g["ensemble_error"]
    assert g["rows_judged"] > 0
    acc_thesis = np.mean(thesis.predict(X.iloc[te]) == y.iloc[te].to_numpy())
    acc_guarded = np.mean(guarded.predict(X.iloc[te]) == y.iloc[te].to_numpy())
    assert acc_guarded >= 0.85 > acc_thesis + 0.2  # the fallback sees the signal genes, the members never do
    np.testing.assert_allclose(guarded.predict_proba(X.iloc[te]).sum(axis=1), 1.0)


def test_guard_keeps_the_ensemble_when_its_members_see_the_signal():
    X, y = _signal_data(seed=2)
    pos, neg = np.flatnonzero(y.to_numpy() == "b"), np.flatnonzero(y.to_numpy() == "a")
    # class-pure biclusters on the signal genes: FI members see the signal
    bcs = [(pos[:20], np.arange(0, 6)), (neg[:20], np.arange(0, 6)), (pos[20:], np.arange(0, 8)),
           (neg[20:], np.arange(0, 8))]
    clf = BENCHClassifier(biclusterer=bcs, include_fe=False, random_state=0,
                          fallback=make_pipeline(EqualFrequencyDiscretizer(3), NaiveBayesClassifier())).fit(X, y)
    g = clf.guard_
    assert g["ensemble_error"] is not None
    assert g["ensemble_error"] <= g["fallback_error"]
    assert not g["used_fallback"]
    assert clf.fallback_ is None
    off = BENCHClassifier(biclusterer=bcs, include_fe=False, random_state=0, guard=False).fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), off.predict(X))


def test_guard_fallback_must_be_a_probabilistic_classifier():
    X, y = _signal_data()
    with pytest.raises(TypeError, match="fallback must be a scikit-learn classifier with predict_proba"):
        BENCHClassifier(biclusterer=[(np.arange(10), np.arange(5))], fallback=EqualFrequencyDiscretizer()).fit(X, y)
